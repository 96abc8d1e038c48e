package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// ToolCall is one call of a tool requested by the model.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// Result is what a tool returns to the model.
type Result struct {
	Output  string `json:"output"`
	IsError bool   `json:"is_error,omitempty"` // the model sees a tool error, the run goes on
}

// Tool is one capability the model can call. Run must return promptly once
// ctx is done (the user pressed Esc); the Output it returns then (what it
// had printed) is kept in the call's result before the note "interrupted
// before completion". The session's Env gives it pauses, progress output,
// the working directory and session-scoped state.
type Tool interface {
	Run(ctx context.Context, call ToolCall, env *Env) (Result, error)
}

// ToolFunc adapts a function to the Tool interface.
type ToolFunc func(ctx context.Context, call ToolCall, env *Env) (Result, error)

// Run calls f.
func (f ToolFunc) Run(ctx context.Context, call ToolCall, env *Env) (Result, error) {
	return f(ctx, call, env)
}

// ToolSpec describes a tool to the model: what it does and the JSON Schema
// of its arguments.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // a JSON Schema object; nil means "any object"
}

// Describer is implemented by tools that describe themselves to the model.
// The registry fills in the name the tool is registered under, and asks
// once per registration: a tool describes itself the same way for as long
// as it is registered.
type Describer interface {
	Describe() ToolSpec
}

// Described returns t with a description and the JSON Schema of its
// arguments, for the model.
func Described(t Tool, description string, parameters json.RawMessage) Tool {
	return describedTool{Tool: t, spec: ToolSpec{Description: description, Parameters: parameters}}
}

type describedTool struct {
	Tool
	spec ToolSpec
}

func (d describedTool) Describe() ToolSpec { return d.spec }

// HasSideEffects passes the question on to the tool described.
func (d describedTool) HasSideEffects(call ToolCall) bool {
	se, ok := d.Tool.(SideEffecter)
	return ok && se.HasSideEffects(call)
}

// RunsProcesses passes the question on to the tool described.
func (d describedTool) RunsProcesses(call ToolCall) bool {
	pr, ok := d.Tool.(ProcessRunner)
	return ok && pr.RunsProcesses(call)
}

// AsksBeforeActing passes the question on to the tool described.
func (d describedTool) AsksBeforeActing(call ToolCall) bool {
	ab, ok := d.Tool.(AsksFirst)
	return ok && ab.AsksBeforeActing(call)
}

// SideEffecter is implemented by tools whose calls may change the outside
// world. Cutting such a call off makes a later Continue ask for confirmation.
type SideEffecter interface {
	HasSideEffects(call ToolCall) bool
}

// AsksFirst is implemented by tools with side effects whose calls
// raise their questions (Env.Pause, Env.Ask) before they change anything,
// as a confirm gate does (the bash tool). After a restart, a call cut
// while it waited on its question runs again to ask it anew: for a tool
// that does not say so, the call may have acted before it asked, and
// Continue first asks whether to repeat it.
type AsksFirst interface {
	AsksBeforeActing(call ToolCall) bool
}

// ProcessRunner is implemented by tools whose calls run processes and,
// once the call's context is done, end them, tree and all, before Run
// returns, within a bounded time (the bash tool: its grace). An emergency
// stop returns once the cut calls of such tools have returned, so that no
// process of them is left when it reports; other tools' cut calls (a JS
// tool's, which gets its abort) are not waited for.
type ProcessRunner interface {
	RunsProcesses(call ToolCall) bool
}

// Registry maps tool names to tools. The zero value is empty and ready.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
	specs []ToolSpec // what Specs returns until the next Register; nil: not made yet
}

// Register adds or replaces the tool under name.
func (r *Registry) Register(name string, t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools == nil {
		r.tools = make(map[string]Tool)
	}
	r.tools[name] = t
	r.specs = nil
}

// Unregister removes the tool under name, if any: the model is no longer
// offered it, and a call of it is an unknown tool.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tools, name)
	r.specs = nil
}

// Lookup returns the tool registered under name.
func (r *Registry) Lookup(name string) (Tool, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (registered: %v)", ErrUnknownTool, name, r.namesLocked())
	}
	return t, nil
}

// Names lists the registered tool names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.namesLocked()
}

// Specs describes every registered tool to the model, sorted by name.
// Every model turn asks, so the answer is made once and shared until the
// next Register: read it, never modify it.
func (r *Registry) Specs() []ToolSpec {
	r.mu.RLock()
	specs := r.specs
	r.mu.RUnlock()
	if specs != nil {
		return specs
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.specs == nil {
		names := r.namesLocked()
		r.specs = make([]ToolSpec, len(names))
		for i, n := range names {
			if d, ok := r.tools[n].(Describer); ok {
				r.specs[i] = d.Describe()
			}
			r.specs[i].Name = n
		}
	}
	return r.specs
}

func (r *Registry) namesLocked() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
