package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAppendCamelJSONRenamesKeysOnly(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"flat", `{"call_id":"c_1","mono_ns":"12","step":3}`, `{"callId":"c_1","monoNs":"12","step":3}`},
		{"nested", `{"pause":{"pause_id":"p","reasons":["a_b"]},"result":{"error_code":"x"}}`, `{"pause":{"pauseId":"p","reasons":["a_b"]},"result":{"errorCode":"x"}}`},
		{"a string value that looks like a key", `{"text":"\"a_b\":1","x_y":null}`, `{"text":"\"a_b\":1","xY":null}`},
		{"escapes before the closing quote", `{"text":"q\\","a_b":true}`, `{"text":"q\\","aB":true}`},
		{"opaque object kept", `{"args":{"work_dir":{"a_b":[1,{"c_d":2}]}},"call_id":"x"}`, `{"args":{"work_dir":{"a_b":[1,{"c_d":2}]}},"callId":"x"}`},
		{"opaque last", `{"tool_name":"t","skipped":{"s_1":"why"}}`, `{"toolName":"t","skipped":{"s_1":"why"}}`},
		{"opaque scalar", `{"args":"a_b","x_y":1}`, `{"args":"a_b","xY":1}`},
		{"digits and doubled underscores", `{"ratio_2x":1,"a__b":2,"trailing_":3}`, `{"ratio2x":1,"a_B":2,"trailing_":3}`},
		{"array of objects", `[{"a_b":1},{"c_d":[{"e_f":2}]}]`, `[{"aB":1},{"cD":[{"eF":2}]}]`},
		{"upper case after underscore kept", `{"a_B":1}`, `{"a_B":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(appendCamelJSON(nil, []byte(tt.in))))
		})
	}
}
