package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/interlock-dev/interlock/engine/store"
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
	Version   uint64     `json:"version"`
}

// TaskEventType names a task-loop event (seed 001).
type TaskEventType string

// Task-loop events.
const (
	TaskEventStarted          TaskEventType = "started"
	TaskEventTaskBegin        TaskEventType = "task_begin"
	TaskEventTaskEnd          TaskEventType = "task_end"
	TaskEventFailed           TaskEventType = "failed"
	TaskEventCompleted        TaskEventType = "completed" // the loop ended (Message: counts; Error: why it stopped early)
	TaskEventPaused           TaskEventType = "paused"
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
	// Run and State are set on completed: the loop's run id and final state.
	Run   uint64         `json:"run,omitempty"`
	State *TaskLoopState `json:"state,omitempty"`
}

func (e TaskEvent) terminal() bool { return e.Type == TaskEventCompleted }
func (e TaskEvent) key() string    { return e.Loop }

// TaskLoop runs tasks one after another in one session. By default it runs
// continuously; in pause mode it stops after each task (success or failure,
// never after the last) until Continue. The whole loop is one run of its
// session: Interrupt stops it at once, also while it waits between tasks.
type TaskLoop struct {
	id    string
	s     *Session
	tasks []Task

	mu        sync.Mutex
	infos     []TaskInfo
	current   int
	pauseMode bool
	waiting   string // id of the session pause the loop waits on between tasks
	completed int
	failed    int
	run       *run          // set once started
	finished  chan struct{} // closed when the started loop has fully ended
	done      bool
	version   uint64
	log       eventLog[TaskEvent]
}

// NewTaskLoop returns a loop over tasks in session s.
func (s *Session) NewTaskLoop(tasks []Task, opts ...TaskOption) (*TaskLoop, error) {
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%w: a task loop needs at least one task", ErrInvalidArgument)
	}
	tl := &TaskLoop{id: "tasks-" + s.id, s: s, tasks: tasks, current: -1, pauseMode: s.eng.defaultPauseMode, log: eventLog[TaskEvent]{max: 256}}
	for i, t := range tasks {
		if t.Func == nil && t.Prompt == "" {
			return nil, fmt.Errorf("%w: task %d (%q) has neither a prompt nor a func", ErrInvalidArgument, i+1, t.Title)
		}
		tl.infos = append(tl.infos, TaskInfo{Index: i, Title: t.Title, Status: TaskPending})
	}
	for _, o := range opts {
		o(tl)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	s.loops = append(s.loops, tl)
	return tl, nil
}

// ID identifies the loop in events.
func (tl *TaskLoop) ID() string { return tl.id }

// Session is the session the tasks run in.
func (tl *TaskLoop) Session() *Session { return tl.s }

// Subscribe returns a reader of the loop's events from now on.
func (tl *TaskLoop) Subscribe() *Subscription[TaskEvent] { return tl.log.subscribe() }

// Events streams the loop's events until ctx ends or the loop is done.
func (tl *TaskLoop) Events(ctx context.Context) <-chan TaskEvent {
	return tl.Subscribe().channel(ctx)
}

// State returns a consistent copy of the loop's state.
func (tl *TaskLoop) State() TaskLoopState {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.stateLocked()
}

func (tl *TaskLoop) stateLocked() TaskLoopState {
	return TaskLoopState{
		ID: tl.id, Tasks: append([]TaskInfo(nil), tl.infos...), Current: tl.current, PauseMode: tl.pauseMode,
		Paused: tl.waiting != "", Completed: tl.completed, Failed: tl.failed, Done: tl.done, Version: tl.version,
	}
}

// IsPauseMode reports whether the loop stops after each task.
func (tl *TaskLoop) IsPauseMode() bool {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.pauseMode
}

// SetPauseMode turns pause mode on or off. Turned on during a task, the pause
// comes after it; turned off while waiting, the loop continues at once.
func (tl *TaskLoop) SetPauseMode(on bool) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.pauseMode == on {
		return
	}
	tl.pauseMode = on
	tl.emitLocked(TaskEvent{Type: TaskEventPauseModeChanged, Task: tl.current})
	if !on {
		tl.releaseLocked()
	}
}

// Continue releases the loop when it waits between tasks; otherwise it does
// nothing, and nothing is remembered for a later pause.
func (tl *TaskLoop) Continue() {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.releaseLocked()
}

// ContinueAll switches to continuous mode and continues.
func (tl *TaskLoop) ContinueAll() { tl.SetPauseMode(false) }

func (tl *TaskLoop) releaseLocked() {
	if tl.waiting != "" {
		// The pause may have just been answered through the session (Enter
		// in the TUI): then there is nothing left to release.
		_ = tl.s.answer(tl.waiting, AnswerResumed)
	}
}

func (tl *TaskLoop) emitLocked(ev TaskEvent) {
	tl.version++
	ev.Loop, ev.Session, ev.Version, ev.PauseMode, ev.At = tl.id, tl.s.id, tl.version, tl.pauseMode, time.Now()
	if ev.Task >= 0 && ev.Task < len(tl.infos) && ev.Title == "" {
		ev.Title = tl.infos[ev.Task].Title
	}
	tl.log.append(ev)
	tl.persistLocked(ev)
	loopEv := Event{Session: tl.s.id, Loop: &ev, At: ev.At}
	tl.s.eng.log.append(loopEv)
	tl.s.eng.publishFeeds(loopEv)
}

func (tl *TaskLoop) emit(ev TaskEvent) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.emitLocked(ev)
}

// Run runs the loop to its end and returns why it stopped early, if it did.
func (tl *TaskLoop) Run(ctx context.Context) error {
	_, done, err := tl.Start(ctx)
	if err != nil {
		return err
	}
	return <-done
}

// Start begins the loop in the background and returns its run id (the
// session's run; the loop's completed event carries it with the final
// state). What prevents it (a session that is closed or busy, a loop that
// already ran) is returned at once; the end arrives on the channel, which
// has room for it.
func (tl *TaskLoop) Start(ctx context.Context) (runID uint64, done <-chan error, err error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.run != nil || tl.done {
		return 0, nil, fmt.Errorf("task loop %s: %w: a loop runs once", tl.id, ErrRunning)
	}
	tl.s.mu.Lock()
	r, err := tl.s.beginLocked(ctx)
	if err == nil {
		r.loop = tl
		tl.s.syncRunKindLocked(r)
	}
	tl.s.mu.Unlock()
	if err != nil {
		return 0, nil, err
	}
	tl.run = r
	tl.finished = make(chan struct{})
	out := make(chan error, 1)
	go func() {
		defer close(tl.finished)
		_, err := tl.s.end(r, tl.loop(r))
		tl.mu.Lock()
		tl.done = true
		st := tl.stateLocked()
		ev := TaskEvent{Type: TaskEventCompleted, Task: -1, Message: fmt.Sprintf("%d completed, %d failed", tl.completed, tl.failed), Run: r.id, State: &st}
		if err != nil {
			ev.Error = err.Error()
		}
		tl.emitLocked(ev)
		tl.mu.Unlock()
		tl.log.close()
		out <- err
	}()
	return r.id, out, nil
}

func (tl *TaskLoop) loop(r *run) error {
	tl.emit(TaskEvent{Type: TaskEventStarted, Task: -1})
	for i := range tl.tasks {
		if r.ctx.Err() != nil {
			return interruptErr(r.ctx)
		}
		tl.setTask(i, TaskRunning, "", TaskEventTaskBegin)
		err := tl.runTask(r, tl.tasks[i])
		if r.ctx.Err() != nil {
			tl.setTask(i, TaskFailed, "interrupted", TaskEventFailed)
			return interruptErr(r.ctx)
		}
		if err != nil {
			tl.setTask(i, TaskFailed, err.Error(), TaskEventFailed)
		} else {
			tl.setTask(i, TaskCompleted, "", TaskEventTaskEnd)
		}
		if i < len(tl.tasks)-1 {
			if err := tl.waitBetween(r, i, err); err != nil {
				return err
			}
		}
	}
	return nil
}

func (tl *TaskLoop) setTask(i int, st TaskStatus, errText string, ev TaskEventType) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.current = i
	tl.infos[i].Status, tl.infos[i].Error = st, errText
	switch st {
	case TaskCompleted:
		tl.completed++
	case TaskFailed:
		tl.failed++
	}
	tl.emitLocked(TaskEvent{Type: ev, Task: i, Error: errText})
}

// runTask runs one task. A prompt task fails when its run fails or when the
// last tool result it produced is an error (e.g. a command exited non-zero).
func (tl *TaskLoop) runTask(r *run, t Task) error {
	if t.Func != nil {
		_, err := protect(fmt.Sprintf("task %q", t.Title), func() (struct{}, error) { return struct{}{}, t.Func(r.ctx, tl.s) })
		return err
	}
	tl.s.record(Message{Role: RoleUser, Text: t.Prompt})
	r.provider = tl.s.provider
	if t.Provider != nil {
		r.provider = t.Provider
	}
	if err := tl.s.turns(r); err != nil {
		return err
	}
	h := tl.s.History()
	for i := len(h) - 1; i >= 0 && h[i].Role != RoleUser; i-- {
		if h[i].Role == RoleTool {
			if h[i].IsError {
				return errors.New(h[i].Text)
			}
			break
		}
	}
	return nil
}

// waitBetween parks after task i when pause mode is on, as a pending pause
// of the session (source task), so the session shows "paused" and Esc
// interrupts it like any pause.
func (tl *TaskLoop) waitBetween(r *run, i int, taskErr error) error {
	tl.mu.Lock()
	if !tl.pauseMode {
		tl.mu.Unlock()
		return nil
	}
	msg := fmt.Sprintf("Task %d complete. Press Enter to continue or 'p' to switch to continuous mode", i+1)
	var details string
	if taskErr != nil {
		details = "Task failed: " + taskErr.Error()
	}
	p, err := tl.s.raisePause(r.ctx, r, PauseRequest{Kind: PauseContinue, Tool: "Tasks", Message: msg, Details: details}, SourceTask, tl.s.Snapshot().Step, i+1)
	if err != nil {
		tl.mu.Unlock()
		return err
	}
	tl.waiting = p.ID
	tl.emitLocked(TaskEvent{Type: TaskEventPaused, Task: i, Message: msg, Error: details})
	tl.mu.Unlock()

	_, err = tl.s.waitPause(r.ctx, r, p, 0)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.waiting = ""
	if err != nil {
		return err
	}
	tl.emitLocked(TaskEvent{Type: TaskEventResumed, Task: i, Message: "Continuing to next task"})
	return nil
}

// Close interrupts the loop if it runs and waits until it has stopped: when
// Close returns, the loop is done and its events have ended. A loop that
// never ran is done after Close.
func (tl *TaskLoop) Close() {
	tl.mu.Lock()
	r, finished := tl.run, tl.finished
	if r == nil {
		tl.done = true
		tl.log.close()
	}
	tl.mu.Unlock()
	if r == nil {
		return
	}
	tl.s.mu.Lock()
	if tl.s.run == r {
		tl.s.stopLocked(ReasonUserStop)
	}
	tl.s.mu.Unlock()
	<-finished
}

// persistLocked writes the loop's state and its tasks' states to the store
// (before the event is published to the engine's observers).
func (tl *TaskLoop) persistLocked(ev TaskEvent) {
	if tl.s.eng.store == nil {
		return
	}
	st := tl.stateLocked()
	body, _ := json.Marshal(st)
	l := store.Loop{ID: tl.id, State: body}
	for _, t := range st.Tasks {
		l.Tasks = append(l.Tasks, store.TaskState{Index: t.Index, Title: t.Title, Status: string(t.Status), Error: t.Error})
	}
	tl.s.mu.Lock()
	defer tl.s.mu.Unlock()
	tl.s.persistLocked("task loop "+tl.id+" ("+string(ev.Type)+")", func(tx *store.Tx) { tx.SaveLoop(tl.s.id, l) })
}
