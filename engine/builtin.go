package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// NewSleepTool returns the "sleep" tool: it blocks for args {"ms": N} or
// until interrupted, reporting progress every second. It needs no outside
// world: tests and demos use it as "a long tool".
func NewSleepTool() Tool { return ToolFunc(sleepTool) }

func sleepTool(ctx context.Context, call ToolCall, env *Env) (Result, error) {
	var args struct {
		MS int `json:"ms"`
	}
	if err := json.Unmarshal(orEmpty(call.Args), &args); err != nil || args.MS < 0 {
		return Result{IsError: true, Output: fmt.Sprintf(`sleep: args must be {"ms": N} with N >= 0, got %s`, call.Args)}, nil
	}
	done := time.NewTimer(time.Duration(args.MS) * time.Millisecond)
	defer done.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-done.C:
			return Result{Output: fmt.Sprintf("slept %d ms", args.MS)}, nil
		case <-tick.C:
			env.Progress(fmt.Sprintf("sleeping... %ds\n", int(time.Since(start).Seconds())))
		case <-ctx.Done():
			return Result{}, interruptErr(ctx)
		}
	}
}

// NewAskTool returns the "ask" tool: it raises a pause from args {"kind":
// "continue"|"confirm", "message", "details", "reasons"} and returns the
// answer, a tool that needs no outside world.
func NewAskTool() Tool { return ToolFunc(askTool) }

func askTool(ctx context.Context, call ToolCall, env *Env) (Result, error) {
	args, err := decodeAskArgs(call.Args)
	if err != nil || !args.Kind.valid() {
		return Result{IsError: true, Output: fmt.Sprintf(`ask: args must be {"kind": "continue"|"confirm", "message": "..."}, got %s`, call.Args)}, nil
	}
	return env.Ask(ctx, PauseRequest{Kind: args.Kind, Tool: "Ask", Message: args.Message, Details: args.Details, Reasons: args.Reasons}, askAnswer)
}

// askArgs are the ask tool's arguments.
type askArgs struct {
	Kind    PauseKind `json:"kind"`
	Message string    `json:"message"`
	Details string    `json:"details"`
	Reasons []string  `json:"reasons"` // why it asks, shown with the confirm
}

// decodeAskArgs decodes args as json.Unmarshal does. The shape models
// send, an object of these keys spelled exactly with strings that hold no
// escape, is read directly (encoding/json's reflection was a tenth of a
// run's CPU up to its pause); anything else goes to json.Unmarshal.
func decodeAskArgs(raw json.RawMessage) (askArgs, error) {
	if a, ok := scanAskArgs(raw); ok {
		return a, nil
	}
	var a askArgs
	err := json.Unmarshal(orEmpty(raw), &a)
	return a, err
}

// scanAskArgs reads the common shape of the ask tool's arguments, or
// reports that it is not that shape.
func scanAskArgs(b []byte) (a askArgs, ok bool) {
	i := skipJSONSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return a, false
	}
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return a, skipJSONSpace(b, i+1) == len(b)
	}
	for {
		key, j, ok := plainJSONString(b, i)
		if !ok {
			return a, false
		}
		j = skipJSONSpace(b, j)
		if j == len(b) || b[j] != ':' {
			return a, false
		}
		val, k, ok := plainJSONString(b, skipJSONSpace(b, j+1))
		if !ok {
			return a, false
		}
		switch string(key) {
		case "kind":
			switch string(val) {
			case string(PauseConfirm):
				a.Kind = PauseConfirm
			case string(PauseContinue):
				a.Kind = PauseContinue
			default:
				a.Kind = PauseKind(val)
			}
		case "message":
			a.Message = string(val)
		case "details":
			a.Details = string(val)
		default:
			return a, false // json.Unmarshal matches keys without case; it ignores others
		}
		k = skipJSONSpace(b, k)
		switch {
		case k == len(b):
			return a, false
		case b[k] == ',':
			i = skipJSONSpace(b, k+1)
		case b[k] == '}':
			return a, skipJSONSpace(b, k+1) == len(b)
		default:
			return a, false
		}
	}
}

// plainJSONString returns the contents of the JSON string at b[i] and the
// index after it, when it holds no escape and no control character and is
// valid UTF-8 (json.Unmarshal would change nothing in it).
func plainJSONString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			s = b[i+1 : j]
			return s, j + 1, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// askAnswer is the ask tool's result: the answer, and the user's reason.
func askAnswer(_ context.Context, res PauseResult) (Result, error) {
	out := string(res.Answer)
	if res.Reason != "" {
		out += ": " + res.Reason
	}
	return Result{Output: out, IsError: !res.Approved()}, nil
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}
