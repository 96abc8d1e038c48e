package engine

import (
	"bytes"
	"encoding/json"
	"iter"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// The wire format: how the engine's values cross to a host that is not Go
// (the C library, and through it JavaScript). It is JSON with camelCase
// keys ("callId", "runState"), defined here once: AppendWireJSON encodes
// any value the engine returns, AppendWireEvent one event of the engine's
// stream (a session's, with its reason's label, or a task loop's), and
// Engine.AppendWireSessions the snapshots of every session. The values of tool-call
// arguments, skipped session ids and HTTP headers are the model's or the
// user's own data and keep their keys. MonoNS is a decimal string
// ("monoNs"): nanoseconds outgrow a double's exact integers.
//
// Events and snapshots are written field by field, without reflection or
// a second pass: every event to JavaScript goes through here (10,000
// sessions parked and approved are ~80,000). A field added to Event,
// Pause, RunResult, Grant or Snapshot must be added here too:
// TestWireKnowsEveryField fails until it is, and the wire tests check the
// bytes against encoding/json's.

// AppendWireJSON appends v in the wire format: encoding/json's encoding
// (HTML not escaped), keys in camelCase.
func AppendWireJSON(b []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return appendCamelJSON(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// AppendWireEvent appends ev in the wire format: a session event field by
// field, a task loop's event (ev.Loop) as its TaskEvent.
func AppendWireEvent(b []byte, ev *Event) ([]byte, error) {
	if ev.Loop != nil {
		return AppendWireJSON(b, ev.Loop)
	}
	return appendEventJSON(b, ev), nil
}

// AppendWireSessions appends the snapshot of every session (Sessions) in
// the wire format, as a JSON array.
func (e *Engine) AppendWireSessions(b []byte) []byte {
	sessions := e.Sessions()
	b = slices.Grow(b, 512*len(sessions)+2)
	return appendWireSnapshots(b, func(yield func(Snapshot) bool) {
		for _, s := range sessions {
			if !yield(s.Snapshot()) {
				return
			}
		}
	})
}

// appendWireSnapshots appends snaps in the wire format, as a JSON array.
func appendWireSnapshots(b []byte, snaps iter.Seq[Snapshot]) []byte {
	var enc snapshotEncoder
	b = append(b, '[')
	first := true
	for snap := range snaps {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = enc.append(b, &snap)
	}
	return append(b, ']')
}

// appendEventJSON appends a session event in the wire format:
// the JSON encoding/json writes for Event (HTML not escaped), keys
// renamed to camelCase as appendCamelJSON would, written field by field
// without reflection or a second pass (every event to JS goes through
// here: 10,000 sessions parked and approved are ~80,000). A field added to
// Event, Pause or RunResult must be added here too: TestEventJSONKnowsEveryField
// fails until it is, and TestEventJSONMatchesEncodingJSON checks the bytes.
func appendEventJSON(b []byte, ev *Event) []byte {
	b = append(b, `{"session":`...)
	b = appendJSONString(b, ev.Session)
	b = append(b, `,"version":`...)
	b = strconv.AppendUint(b, ev.Version, 10)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, string(ev.Type))
	b = append(b, `,"status":`...)
	b = appendJSONString(b, ev.Status.String())
	if ev.Run != 0 {
		b = append(b, `,"run":`...)
		b = strconv.AppendUint(b, ev.Run, 10)
	}
	if ev.Result != nil {
		b = append(b, `,"result":`...)
		b = appendRunResultJSON(b, ev.Result)
	}
	if ev.Pause != nil {
		b = append(b, `,"pause":`...)
		b = appendPauseJSON(b, ev.Pause)
	}
	if ev.Answered != nil {
		b = append(b, `,"answered":`...)
		b = appendPauseJSON(b, ev.Answered)
	}
	b = appendOptString(b, `,"answer":`, string(ev.Answer))
	b = appendOptString(b, `,"answerReason":`, ev.AnswerReason)
	b = appendOptString(b, `,"remember":`, ev.Remember)
	b = appendOptString(b, `,"by":`, ev.By)
	b = appendOptString(b, `,"reason":`, string(ev.Reason))
	b = appendOptString(b, `,"reasonLabel":`, ev.ReasonLabel)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(ev.Step), 10)
	b = append(b, `,"at":`...)
	b = appendJSONTime(b, ev.At)
	b = append(b, `,"monoNs":"`...)
	b = strconv.AppendInt(b, ev.MonoNS, 10)
	b = append(b, '"')
	b = appendOptString(b, `,"tool":`, ev.Tool)
	b = appendOptString(b, `,"callId":`, ev.CallID)
	b = appendOptString(b, `,"text":`, ev.Text)
	if ev.Coalesced != 0 {
		b = append(b, `,"coalesced":`...)
		b = strconv.AppendInt(b, int64(ev.Coalesced), 10)
	}
	b = appendOptString(b, `,"code":`, ev.Code)
	if ev.Grant != nil {
		b = append(b, `,"grant":`...)
		b = appendGrantJSON(b, ev.Grant)
	}
	return append(b, '}')
}

func appendGrantJSON(b []byte, g *Grant) []byte {
	b = append(b, `{"tool":`...)
	b = appendJSONString(b, g.Tool)
	b = append(b, `,"key":`...)
	b = appendJSONString(b, g.Key)
	b = append(b, `,"scope":`...)
	b = appendJSONString(b, g.Scope)
	b = appendOptString(b, `,"session":`, g.Session)
	b = appendOptString(b, `,"root":`, g.Root)
	b = append(b, `,"at":`...)
	b = appendJSONTime(b, g.At)
	return append(b, '}')
}

func appendPauseJSON(b []byte, p *Pause) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, p.ID)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, string(p.Kind))
	b = append(b, `,"source":`...)
	b = appendJSONString(b, string(p.Source))
	b = appendOptString(b, `,"tool":`, p.Tool)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, p.Message)
	b = appendOptString(b, `,"details":`, p.Details)
	b = appendOptStrings(b, `,"reasons":`, p.Reasons)
	b = appendOptStrings(b, `,"rememberScopes":`, p.RememberScopes)
	b = appendOptString(b, `,"rememberKey":`, p.RememberKey)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(p.Step), 10)
	if p.Task != 0 {
		b = append(b, `,"task":`...)
		b = strconv.AppendInt(b, int64(p.Task), 10)
	}
	b = append(b, `,"at":`...)
	b = appendJSONTime(b, p.At)
	b = append(b, `,"version":`...)
	b = strconv.AppendUint(b, p.Version, 10)
	return append(b, '}')
}

func appendRunResultJSON(b []byte, r *RunResult) []byte {
	b = append(b, `{"run":`...)
	b = strconv.AppendUint(b, r.Run, 10)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, r.Status.String())
	if r.Interruption != nil { // rare (interrupted runs): the generic path
		js, err := json.Marshal(r.Interruption)
		if err == nil {
			b = append(b, `,"interruption":`...)
			b = appendCamelJSON(b, js)
		}
	}
	b = appendOptString(b, `,"error":`, r.Error)
	b = appendOptString(b, `,"errorCode":`, r.ErrorCode)
	b = appendOptString(b, `,"text":`, r.Text)
	b = append(b, `,"usage":{"input":`...)
	b = strconv.AppendInt(b, int64(r.Usage.Input), 10)
	b = append(b, `,"output":`...)
	b = strconv.AppendInt(b, int64(r.Usage.Output), 10)
	return append(b, '}', '}')
}

// appendOptStrings appends key and the array ss unless it is empty (omitempty).
func appendOptStrings(b []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(b, key...)
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendOptString appends key and s unless s is empty (omitempty).
func appendOptString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(b, key...), s)
}

// appendJSONTime appends t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, quoted).
func appendJSONTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json does with HTML
// escaping off: '"', '\\' and control characters escaped, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped (JSONP-safe, as encoding/json).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// snapshotEncoder writes Snapshots in camelCase field by field
// (il_engine_sessions: 10,000 of them in one call), encoding the
// rarer nested values (interruption, stopping, sandbox) the generic way
// and reusing the last sandbox's bytes while it stays the same (sessions
// of one engine mostly share it).
type snapshotEncoder struct {
	lastSandbox     Sandbox
	lastSandboxJSON []byte
}

func (enc *snapshotEncoder) append(b []byte, s *Snapshot) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, s.ID)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, s.Status.String())
	b = append(b, `,"version":`...)
	b = strconv.AppendUint(b, s.Version, 10)
	b = append(b, `,"pause":`...)
	if s.Pause == nil {
		b = append(b, "null"...)
	} else {
		b = appendPauseJSON(b, s.Pause)
	}
	b = append(b, `,"pauses":`...)
	if s.Pauses == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range s.Pauses {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendPauseJSON(b, &s.Pauses[i])
		}
		b = append(b, ']')
	}
	b = append(b, `,"interruption":`...)
	b = appendGenericCamel(b, s.Interruption)
	if s.Stopping != nil {
		b = append(b, `,"stopping":`...)
		b = appendGenericCamel(b, s.Stopping)
	}
	b = append(b, `,"runState":`...)
	b = appendJSONString(b, string(s.RunState))
	b = append(b, `,"eligibility":{"eligible":`...)
	b = strconv.AppendBool(b, s.Eligibility.Eligible)
	b = appendOptString(b, `,"reason":`, s.Eligibility.Reason)
	if s.Eligibility.RepeatsSideEffect {
		b = append(b, `,"repeatsSideEffect":true`...)
	}
	if s.Eligibility.AsksAgain {
		b = append(b, `,"asksAgain":true`...)
	}
	b = append(b, '}')
	if s.NeedsInput != nil {
		b = append(b, `,"needsInput":`...)
		b = appendPauseJSON(b, s.NeedsInput)
	}
	if s.Run != 0 {
		b = append(b, `,"run":`...)
		b = strconv.AppendUint(b, s.Run, 10)
	}
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(s.Step), 10)
	b = append(b, `,"tokens":{"input":`...)
	b = strconv.AppendInt(b, int64(s.Tokens.Input), 10)
	b = append(b, `,"output":`...)
	b = strconv.AppendInt(b, int64(s.Tokens.Output), 10)
	b = append(b, `},"model":`...)
	b = appendJSONString(b, s.Model)
	b = append(b, `,"pauseRequested":`...)
	b = strconv.AppendBool(b, s.PauseRequested)
	b = appendOptString(b, `,"lastError":`, s.LastError)
	if s.Sandbox != nil {
		b = append(b, `,"sandbox":`...)
		if enc.lastSandboxJSON == nil || !reflect.DeepEqual(*s.Sandbox, enc.lastSandbox) {
			enc.lastSandbox = *s.Sandbox
			enc.lastSandbox.Warnings = slices.Clone(s.Sandbox.Warnings)
			enc.lastSandboxJSON = appendGenericCamel(nil, s.Sandbox)
		}
		b = append(b, enc.lastSandboxJSON...)
	}
	return append(b, '}')
}

// appendGenericCamel appends v as encoding/json writes it (null for a nil
// pointer), keys in camelCase.
func appendGenericCamel(b []byte, v any) []byte {
	js, err := json.Marshal(v)
	if err != nil { // the engine's plain structs always encode
		return append(b, "null"...)
	}
	return appendCamelJSON(b, js)
}

// appendCamelJSON appends src, compact JSON as encoding/json writes it,
// to dst with every object key renamed from snake_case to camelCase
// ("call_id" -> "callId") the wire format's keys: each
// "_" followed by a lower-case letter or a digit becomes that character
// upper-cased. The values of opaqueKeys (user data) are copied unchanged.
// Keys are renamed in their encoded form: keys holding escapes (never
// produced from the engine's struct tags) keep them as they are.
func appendCamelJSON(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c != '"' {
			dst = append(dst, c)
			i++
			continue
		}
		end := stringEnd(src, i)
		if end < len(src) && src[end] == ':' { // an object key
			key := src[i+1 : end-1]
			if opaqueKey(key) {
				valEnd := valueEnd(src, end+1)
				dst = append(dst, src[i:valEnd]...)
				i = valEnd
				continue
			}
			dst = append(dst, '"')
			dst = appendCamelKey(dst, key)
			dst = append(dst, '"')
			i = end
			continue
		}
		dst = append(dst, src[i:end]...)
		i = end
	}
	return dst
}

// opaqueKey reports whether the value of key is user data that keeps its
// keys: tool-call arguments, skipped session ids, HTTP headers.
func opaqueKey(key []byte) bool {
	switch string(key) {
	case "args", "skipped", "headers":
		return true
	}
	return false
}

func appendCamelKey(dst, key []byte) []byte {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '_' && i+1 < len(key) {
			if n := key[i+1]; n >= 'a' && n <= 'z' {
				dst = append(dst, n-'a'+'A')
				i++
				continue
			} else if n >= '0' && n <= '9' {
				dst = append(dst, n)
				i++
				continue
			}
		}
		dst = append(dst, c)
	}
	return dst
}

// stringEnd returns the index just past the JSON string starting at src[i] ('"').
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// valueEnd returns the index just past the JSON value starting at src[i].
func valueEnd(src []byte, i int) int {
	depth := 0
	for j := i; j < len(src); {
		switch src[j] {
		case '"':
			j = stringEnd(src, j)
			if depth == 0 {
				return j
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j // the end of the enclosing object
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ',':
			if depth == 0 {
				return j
			}
		}
		j++
	}
	return len(src)
}
