package engine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// askArgsCases are shapes a model may send the ask tool, the common one
// and every way it can differ from it.
var askArgsCases = []string{
	``, `{}`, ` { } `, `{"kind":"confirm","message":"ok?"}`,
	"{\n\t\"kind\" : \"continue\" ,\r\n \"message\": \"go on\", \"details\": \"rm -rf build\" }",
	`{"kind":"confirm","message":"a \"quoted\" word\n"}`, `{"kind":"confirm","message":"caf\u00e9"}`,
	`{"kind":"confirm","message":"café ✓"}`, "{\"kind\":\"confirm\",\"message\":\"bad \xff byte\"}",
	"{\"kind\":\"confirm\",\"message\":\"tab\there\"}", `{"Kind":"confirm","MESSAGE":"case"}`,
	`{"kind":"confirm","kind":"continue","message":"last wins"}`, `{"kind":"confirm","message":"x","extra":1}`,
	`{"kind":null,"message":"x"}`, `{"kind":"confirm","message":7}`, `{"kind":"confirm",}`, `{"kind":"confirm"} x`,
	`{"kind":"confirm"`, `{"kind" "confirm"}`, `[]`, `"confirm"`, `null`, `{"kind":"maybe","message":""}`,
	`{"kind":"confirm","message":"x","details":{"a":1}}`, `{"message":""}`, `{"kind":"conf`, `{"`, `{`,
}

func checkAskArgs(t *testing.T, raw string) {
	var want askArgs
	wantErr := json.Unmarshal(orEmpty(json.RawMessage(raw)), &want)
	got, err := decodeAskArgs(json.RawMessage(raw))
	if assert.Equal(t, wantErr == nil, err == nil, "%q: error %v, json.Unmarshal's %v", raw, err, wantErr) && err == nil {
		assert.Equal(t, want, got, "%q", raw)
	}
}

// TestAskArgsDecodeAsEncodingJSON: the ask tool's direct reading of its
// arguments gives what json.Unmarshal gives, for every shape. Not
// parallel: it counts allocations.
func TestAskArgsDecodeAsEncodingJSON(t *testing.T) {
	for _, raw := range askArgsCases {
		checkAskArgs(t, raw)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if a, ok := scanAskArgs([]byte(`{"kind":"confirm","details":""}`)); !ok || a.Kind != PauseConfirm {
			t.Fatal("the common shape is read directly")
		}
	}), "a kind is not allocated")
}

func FuzzAskArgs(f *testing.F) {
	for _, raw := range askArgsCases {
		f.Add(raw)
	}
	f.Fuzz(checkAskArgs)
}
