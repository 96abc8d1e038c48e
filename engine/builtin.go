package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
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
// "continue"|"confirm", "message", "details"} and returns the answer, a tool
// that needs no outside world.
func NewAskTool() Tool { return ToolFunc(askTool) }

func askTool(ctx context.Context, call ToolCall, env *Env) (Result, error) {
	var args struct {
		Kind    PauseKind `json:"kind"`
		Message string    `json:"message"`
		Details string    `json:"details"`
	}
	if err := json.Unmarshal(orEmpty(call.Args), &args); err != nil || !args.Kind.valid() {
		return Result{IsError: true, Output: fmt.Sprintf(`ask: args must be {"kind": "continue"|"confirm", "message": "..."}, got %s`, call.Args)}, nil
	}
	return env.Ask(ctx, PauseRequest{Kind: args.Kind, Tool: "Ask", Message: args.Message, Details: args.Details}, askAnswer)
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
