package engine

import (
	"context"
	"time"
)

// Task is one unit of a task loop: an agent prompt run in the loop's
// session, or a Go function (tests, glue).
type Task struct {
	Title    string
	Prompt   string
	Provider Provider // the model for this task; nil uses the session's
	// Func, when set, runs instead of Prompt. Its error fails the task.
	Func func(ctx context.Context, s *Session) error
}

// TaskStatus is where a task stands.
type TaskStatus string

// Task statuses.
const (
	TaskPending   TaskStatus = "pending"
	TaskRunning   TaskStatus = "running"
	TaskCompleted TaskStatus = "completed"
	TaskFailed    TaskStatus = "failed"
	// TaskInterrupted: the loop was interrupted while the task ran;
	// resuming the loop goes on with it (see TaskLoop).
	TaskInterrupted TaskStatus = "interrupted"
)

// TaskInfo is one task as observers see it.
type TaskInfo struct {
	Index  int        `json:"index"`
	Title  string     `json:"title"`
	Status TaskStatus `json:"status"`
	Error  string     `json:"error,omitempty"`
}

// TaskLoopState is a consistent copy of a task loop's state.
type TaskLoopState struct {
	ID        string     `json:"id"`
	Tasks     []TaskInfo `json:"tasks"`
	Current   int        `json:"current"` // running or last-ended task, -1 before start
	PauseMode bool       `json:"pause_mode"`
	Paused    bool       `json:"paused"` // waiting for Continue between tasks
	Completed int        `json:"completed"`
	Failed    int        `json:"failed"`
	Done      bool       `json:"done"`
	// Interrupted: the loop's run was interrupted; Continue (the loop's or
	// its session's) or ResumeAll resumes it. Not done until it has ended.
	Interrupted bool   `json:"interrupted"`
	Version     uint64 `json:"version"`
}

// TaskEventType names a task-loop event (seed 001).
type TaskEventType string

// Task-loop events.
const (
	TaskEventStarted   TaskEventType = "started"
	TaskEventTaskBegin TaskEventType = "task_begin"
	TaskEventTaskEnd   TaskEventType = "task_end"
	TaskEventFailed    TaskEventType = "failed"
	TaskEventCompleted TaskEventType = "completed" // the loop ended (Message: counts; Error: why it stopped early)
	// TaskEventInterrupted: a run of the loop was interrupted (Error: why);
	// the loop is not done: Continue (the loop's or its session's) resumes it.
	TaskEventInterrupted TaskEventType = "interrupted"
	TaskEventPaused      TaskEventType = "paused"
	// TaskEventResumed: the loop goes on after a pause between tasks, or
	// (Run set) an interrupted loop was resumed by a new run.
	TaskEventResumed          TaskEventType = "resumed"
	TaskEventPauseModeChanged TaskEventType = "pause_mode_changed"
)

// TaskEvent is one change of a task loop.
type TaskEvent struct {
	Loop      string        `json:"loop"`
	Version   uint64        `json:"version"`
	Type      TaskEventType `json:"type"`
	Task      int           `json:"task"` // 0-based index, -1 when not about a task
	Title     string        `json:"title,omitempty"`
	Message   string        `json:"message,omitempty"`
	Error     string        `json:"error,omitempty"`
	PauseMode bool          `json:"pause_mode"`
	At        time.Time     `json:"at"`
	Session   string        `json:"session"`
	// Run and State are set on completed and interrupted: the run's id and
	// the loop's state at its end. Run is set on the resumed event of a
	// resumed loop too.
	Run   uint64         `json:"run,omitempty"`
	State *TaskLoopState `json:"state,omitempty"`
}

// terminal: the end of a run of the loop, kept for a reader that fell behind.
func (e TaskEvent) terminal() bool {
	return e.Type == TaskEventCompleted || e.Type == TaskEventInterrupted
}

func (e TaskEvent) key() string { return e.Loop }
