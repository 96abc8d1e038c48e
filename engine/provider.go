package engine

import (
	"fmt"
)

import "context"

// Role of a message in the history.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
	RoleMarker    Role = "marker" // a system marker shown in the history ("Stopped by you", "Resumed")
)

// Message is one entry of a session's history.
type Message struct {
	Role        Role       `json:"role"`
	Text        string     `json:"text,omitempty"`
	ToolCalls   []ToolCall `json:"tool_calls,omitempty"`   // assistant
	ToolCallID  string     `json:"tool_call_id,omitempty"` // tool
	IsError     bool       `json:"is_error,omitempty"`     // tool
	Interrupted bool       `json:"interrupted,omitempty"`  // cut short by an interrupt
	Reason      Reason     `json:"reason,omitempty"`       // marker of an interruption: why ("Stopped by you")
}

// Usage counts tokens.
type Usage struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

// ModelRequest is what the loop sends the provider for one turn.
type ModelRequest struct {
	// Messages is the session's history so far. It shares the session's
	// (append-only) storage: read it, never modify it.
	Messages []Message
	// Tools describes the tools the model may call, sorted by name. It is
	// shared with every other turn: read it, never modify it.
	Tools []ToolSpec
	// LookupEnv reads a variable of the process's environment as it is
	// now (WithEnvironment): a provider reads its API key with it. Nil
	// (a request the engine did not make) means os.LookupEnv.
	LookupEnv func(key string) (string, bool)
}

// Chunk is one piece of a streamed model turn: a text delta, a piece of a
// tool call being streamed, a complete tool call, or usage (cumulative for
// the turn, as providers report it).
type Chunk struct {
	Text string
	// ToolCallDelta is a piece of a tool call's arguments as it streams; it
	// is shown to observers only. The complete call follows as ToolCall.
	ToolCallDelta *ToolCallDelta
	ToolCall      *ToolCall
	Usage         *Usage
}

// ToolCallDelta is a streamed piece of a tool call: Args is the next piece
// of its JSON arguments. ID and Name are those of the call, when known.
type ToolCallDelta struct {
	ID   string
	Name string
	Args string
}

// Provider streams model turns. Stream and every Recv must honour ctx.
type Provider interface {
	Stream(ctx context.Context, req ModelRequest) (Stream, error)
}

// Stream is one model turn in flight. Recv returns io.EOF at the end of the
// turn. Close releases it and is safe to call more than once.
type Stream interface {
	Recv(ctx context.Context) (Chunk, error)
	Close() error
}

func providerName(p Provider) string {
	if n, ok := p.(interface{ Name() string }); ok {
		return n.Name()
	}
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%T", p)
}
