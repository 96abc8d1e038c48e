package engine

// Snapshot is a consistent copy of a session's state.
type Snapshot struct {
	ID           string        `json:"id"`
	Status       Status        `json:"status"`
	Version      uint64        `json:"version"`
	Pause        *Pause        `json:"pause"`        // the current pause
	Pauses       []Pause       `json:"pauses"`       // all pending, oldest first
	Interruption *Interruption `json:"interruption"` // the last one, kept after later runs
	// Stopping says why while the status is stopping (the run is still
	// unwinding, e.g. a tool being killed); nil otherwise.
	Stopping       *Stopping   `json:"stopping,omitempty"`
	RunState       RunState    `json:"run_state"`
	Eligibility    Eligibility `json:"eligibility"`
	NeedsInput     *Pause      `json:"needs_input,omitempty"` // blocked: asked again on Continue
	Run            uint64      `json:"run,omitempty"`         // the run in flight
	Step           int         `json:"step"`
	Tokens         Usage       `json:"tokens"`
	Model          string      `json:"model"`
	PauseRequested bool        `json:"pause_requested"`
	LastError      string      `json:"last_error,omitempty"`
	// Sandbox is what confines this session's commands (nil: no tool does).
	Sandbox *Sandbox `json:"sandbox,omitempty"`
}

// RunResult is how a run ended.
type RunResult struct {
	Run          uint64        `json:"run"`
	Status       Status        `json:"status"`
	Interruption *Interruption `json:"interruption,omitempty"`
	Error        string        `json:"error,omitempty"`
	ErrorCode    string        `json:"error_code,omitempty"` // what kind of failure (ErrorCode), e.g. "rate_limited"
	// Text is the model's final answer: the text of the run's last assistant
	// message ("" when it ended on tool calls, was cut, or the host ran it).
	Text string `json:"text,omitempty"`
	// Usage counts the tokens of this run alone.
	Usage Usage `json:"usage"`
}

// Outcome is how a background run ended.
type Outcome struct {
	Result RunResult
	Err    error
}
