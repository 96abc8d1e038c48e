package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fast path for flat structs accepts and refuses what the Decoder does,
// with the same messages.
func TestDecodeStrictMatchesTheDecoder(t *testing.T) {
	t.Parallel()
	inputs := []string{
		`{"output":"ok"}`,
		`{"output":"ok","is_error":true,"error":""}`,
		`{"output":"ok","isError":true,"error":""}`,
		` { "output" : "a,b}{[\"]" , "is_error" : false } `,
		`{"Output":"case-insensitive, as encoding/json matches"}`,
		`{"OUTPUT":"x","IS_ERROR":true}`,
		`{"output":"ok","extra":1}`,
		`{"extra":{"output":"nested keys are not top-level"},"output":"x"}`,
		`{"extra":[1,{"a":"}"}],"output":"x"}`,
		`{"out\u0070ut":"an escaped key"}`,
		`{"outpu\u0074x":"an escaped unknown key"}`,
		`{"output":"ok"} trailing`,
		`{"output":"ok"}{}`,
		`{"output":1}`,
		`{"is_error":"yes"}`,
		`{}`,
		`null`,
		`[]`,
		`"text"`,
		`{"output":"ok",}`,
		`{"output":"ok"`,
		`{"output":"dup","output":"licate"}`,
		`{"output":"\u00e9\n","error":"x","is_error":false,"zzz":null}`,
		`{"kind":"confirm","message":"m","timeout_ms":5,"tool":"t","details":"d"}`,
		`{"kind":"confirm","timeout_ms":-1.5}`,
		`{"kind":"confirm","message":"m","timeoutMs":5,"rememberKey":"k"}`,
		`{"graceMs":10}`,
		`{"kind":"confirm","timeout_ms":null,"Kind":"continue"}`,
		`{"description":"d","parameters":{"type":"object","properties":{"x":{}}},"grace_ms":10}`,
		`{"description":"d","parameters":{"type":"object"},"grace":10}`,
	}
	types := map[string]func() any{
		"HostResult":       func() any { return new(HostResult) },
		"HostPauseRequest": func() any { return new(HostPauseRequest) },
		"HostToolSpec":     func() any { return new(HostToolSpec) },
		"HostRunSpec":      func() any { return new(HostRunSpec) },
		"SessionSpec":      func() any { return new(SessionSpec) }, // not flat: the Decoder
	}
	for name, make := range types {
		for _, in := range inputs {
			want, got := make(), make()
			wantErr := decodeWithDecoder([]byte(in), want)
			gotErr := DecodeStrict([]byte(in), got)
			if wantErr != nil {
				require.Error(t, gotErr, "%s %s", name, in)
				assert.Equal(t, wantErr.Error(), gotErr.Error(), "%s %s", name, in)
				continue
			}
			require.NoError(t, gotErr, "%s %s", name, in)
			assert.Equal(t, want, got, "%s %s", name, in)
		}
	}
}

// A JS tool's result is decoded without a Decoder and its buffers.
func TestDecodeStrictOfAFlatStructAllocatesLittle(t *testing.T) {
	data := []byte(`{"output":"ok","isError":false}`)
	var r HostResult
	allocs := testing.AllocsPerRun(100, func() {
		if err := DecodeStrict(data, &r); err != nil {
			t.Fatal(err)
		}
	})
	assert.LessOrEqual(t, allocs, 5.0, "allocations per decode: json.Unmarshal's own (the Decoder made 9, 990 bytes)")
}
