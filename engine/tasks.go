package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// TaskLoop runs tasks one after another in one session. By default it runs
// continuously; in pause mode it stops after each task (success or failure,
// never after the last) until Continue. The whole loop is one run of its
// session: Interrupt stops it at once, also while it waits between tasks.
//
// An interrupted loop is not done: the session is interrupted and eligible,
// and Continue (the loop's or the session's) or ResumeAll resumes the loop
// as one new run. The task
// that was cut goes on: a prompt task continues its agent run as
// Session.Continue does (a tool with side effects that had started and was
// cut makes resuming ask first); a Go function task runs again from its
// start, and since what it had done is unknown, resuming asks first. Then
// come the remaining tasks, with the same pause mode and counts. A loop
// cut while waiting between tasks in pause mode asks again before the next
// task. After a restart with a store a loop of prompt tasks comes back
// and resumes the same way; a loop with Go function tasks cannot be made
// again, and its session says so.
type TaskLoop struct {
	id    string
	s     *Session
	tasks []Task

	mu          sync.Mutex
	infos       []TaskInfo
	current     int
	pauseMode   bool
	waiting     string // id of the session pause the loop waits on between tasks
	completed   int
	failed      int
	started     bool
	done        bool
	interrupted bool // the last run was interrupted: the loop can be resumed
	// resuming: a Continue has begun a run of the loop that has not yet
	// taken over (it waits for the interrupted run to be reported).
	resuming atomic.Bool
	version  uint64
	log      eventLog[TaskEvent]

	// Guarded by the session's mu: the loop's run in flight or last, and
	// a channel closed when that run has been fully reported.
	run      *run
	finished chan struct{}
	closing  bool // Close was called: an interrupted run ends the loop

	prompt string // the task prompt its task_begin writes (beginTask; tl.mu)
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
	tl.defineLocked()
	return tl, nil
}

// ID identifies the loop in events.
func (tl *TaskLoop) ID() string { return tl.id }

// Session is the session the tasks run in.
func (tl *TaskLoop) Session() *Session { return tl.s }

// TaskLoops returns the session's task loops, oldest first: those made
// with NewTaskLoop and, after a restart with a store, those restored.
func (s *Session) TaskLoops() []*TaskLoop {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.loops)
}

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
		Paused: tl.waiting != "", Completed: tl.completed, Failed: tl.failed, Done: tl.done,
		Interrupted: tl.interrupted && !tl.done && !tl.resuming.Load(), Version: tl.version,
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

// Continue goes on. When the loop waits between tasks, the next task
// starts. When it was interrupted, it is resumed in the background as its
// session's Continue resumes it, and Continue returns the new run's id (the
// loop's completed or interrupted event carries it); what prevents that is
// returned (ErrNotResumable with the reason, ErrRunning). Otherwise it does
// nothing, and nothing is remembered for a later pause.
func (tl *TaskLoop) Continue() (runID uint64, err error) {
	tl.mu.Lock()
	resume := tl.waiting == "" && tl.interrupted && !tl.done && !tl.resuming.Load()
	tl.releaseLocked()
	tl.mu.Unlock()
	if !resume {
		return 0, nil
	}
	r, in, err := tl.s.beginContinueOf(context.Background(), tl)
	if err != nil {
		return 0, err
	}
	tl.s.eng.runs.start(func() { tl.s.settle(r, tl.s.continueRun(r, in)) })
	return r.id, nil
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
	tl.log.append(&ev)
	tl.recordLocked(ev)
	loopEv := Event{Session: tl.s.id, Loop: &ev, At: ev.At}
	tl.s.eng.log.append(&loopEv)
	tl.s.eng.publishFeeds(&loopEv)
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
// session's run; the loop's completed or interrupted event carries it with
// the loop's state). What prevents it (a session that is closed or busy, a
// loop that already ran) is returned at once; the end of this run arrives
// on the channel, which has room for it. An interrupted loop is resumed by
// its session's Continue, whose result is the resumed run's.
func (tl *TaskLoop) Start(ctx context.Context) (runID uint64, done <-chan error, err error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.started || tl.done {
		return 0, nil, fmt.Errorf("task loop %s: %w: a loop runs once (an interrupted one is resumed by Continue on its session)", tl.id, ErrRunning)
	}
	tl.s.mu.Lock()
	r, err := tl.s.beginLocked(ctx, tl.bindLocked)
	tl.s.mu.Unlock()
	if err != nil {
		return 0, nil, err
	}
	tl.started = true
	out := make(chan error, 1)
	go func() {
		_, err := tl.s.endRun(r, tl.loop(r, nil))
		out <- err
	}()
	return r.id, out, nil
}

// bindLocked makes r the loop's run (the session's mu held; before r's
// start is recorded, see beginLocked): its end is reported after the
// previous run's (r.loopAfter).
func (tl *TaskLoop) bindLocked(r *run) {
	r.loop = tl
	r.parkable = false // the loop's goroutine drives every task
	r.loopAfter = closedChan
	if tl.finished != nil {
		r.loopAfter = tl.finished
	}
	tl.run, tl.finished = r, make(chan struct{})
	r.loopEnded = tl.finished
}

// ended reports the end of the loop's run r (err: the run's end, after
// the session's own): interrupted, the loop waits to be resumed; else it
// is done.
func (tl *TaskLoop) ended(r *run, err error) {
	tl.s.mu.Lock()
	// Closed by its user: no resuming. The engine's close keeps it for the
	// next owner of the store.
	closing := (tl.closing || tl.s.closing) && !tl.s.eng.shuttingDown.Load()
	tl.s.mu.Unlock()
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.resuming.Store(false)
	ev := TaskEvent{Type: TaskEventCompleted, Task: -1, Message: fmt.Sprintf("%d completed, %d failed", tl.completed, tl.failed), Run: r.id}
	switch {
	case errors.Is(err, ErrInterrupted) && !closing:
		tl.interrupted = true
		ev.Type, ev.Task = TaskEventInterrupted, tl.current
	case err == nil && tl.interrupted: // the resumption was denied before anything ran
		ev.Error = "resume denied: the loop has ended"
		tl.done = true
	default:
		tl.done = true
	}
	if err != nil {
		ev.Error = err.Error()
	}
	st := tl.stateLocked()
	ev.State = &st
	tl.emitLocked(ev)
	if tl.done {
		tl.log.close()
	}
}

// loop drives run r from the first task that has not ended: from the start,
// or, for a resumption (res not nil), on from where the loop was cut.
func (tl *TaskLoop) loop(r *run, res *resumption) error {
	from, cut := tl.resumePoint()
	if res == nil {
		tl.emit(TaskEvent{Type: TaskEventStarted, Task: -1})
	} else {
		tl.mu.Lock()
		tl.interrupted = false
		tl.resuming.Store(false)
		msg := fmt.Sprintf("Resuming at task %d", from+1)
		if from >= len(tl.tasks) {
			msg = "Resuming: no task left"
		}
		tl.emitLocked(TaskEvent{Type: TaskEventResumed, Task: min(from, len(tl.tasks)-1), Message: msg, Run: r.id})
		tl.mu.Unlock()
		if !cut && from > 0 && from < len(tl.tasks) {
			// Cut between tasks: in pause mode the user is asked again
			// before the next task, as the loop would have.
			tl.s.markResumed(r)
			if err := tl.waitBetween(r, from-1); err != nil {
				return err
			}
		}
	}
	for i := from; i < len(tl.tasks); i++ {
		if r.ctx.Err() != nil {
			return interruptErr(r.ctx)
		}
		t := tl.tasks[i]
		goesOn := res != nil && i == from && cut && t.Func == nil
		if !goesOn {
			tl.s.markResumed(r) // a resumed run starts with this task (no-op otherwise)
		}
		prompt := ""
		if t.Func == nil && !goesOn {
			prompt = t.Prompt
		}
		tl.beginTask(i, prompt)
		var rerun []ToolCall
		if goesOn {
			rerun = res.rerun
		}
		err := tl.runTask(r, t, goesOn, rerun)
		if r.ctx.Err() != nil {
			tl.cut(r, i)
			return interruptErr(r.ctx)
		}
		if err != nil {
			tl.setTask(i, TaskFailed, err.Error(), TaskEventFailed)
		} else {
			tl.setTask(i, TaskCompleted, "", TaskEventTaskEnd)
		}
		if i < len(tl.tasks)-1 {
			if err := tl.waitBetween(r, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// resumePoint is the first task that has not ended, and whether it was cut
// while it ran.
func (tl *TaskLoop) resumePoint() (int, bool) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for i, t := range tl.infos {
		switch t.Status {
		case TaskCompleted, TaskFailed:
			continue
		case TaskPending:
			return i, false
		}
		return i, true
	}
	return len(tl.infos), false
}

// cut marks task i interrupted (the interrupted event reports it). A Go
// function task runs again from its start when resumed: what it had done
// is unknown, so resuming asks first.
func (tl *TaskLoop) cut(r *run, i int) {
	tl.mu.Lock()
	tl.infos[i].Status, tl.infos[i].Error = TaskInterrupted, ""
	tl.mu.Unlock()
	if tl.tasks[i].Func != nil {
		tl.s.mu.Lock()
		r.sideEffectCut = true
		tl.s.mu.Unlock()
	}
}

// resumeDetails says what resuming the loop repeats, for the confirmation
// asked when something was cut ("" when it is a tool call of a prompt task).
func (tl *TaskLoop) resumeDetails() string {
	i, cut := tl.resumePoint()
	if !cut || tl.tasks[i].Func == nil {
		return ""
	}
	return fmt.Sprintf("Task %d (%s) is a Go function that was cut off: it runs again from its start", i+1, tl.tasks[i].Title)
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

// beginTask marks task i running; prompt (a prompt task begun anew, else
// "") is appended to the session's history in the same write as the
// task_begin, so that a cut task's prompt is there after a restart.
func (tl *TaskLoop) beginTask(i int, prompt string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.current = i
	tl.infos[i].Status, tl.infos[i].Error = TaskRunning, ""
	tl.prompt = prompt
	tl.emitLocked(TaskEvent{Type: TaskEventTaskBegin, Task: i})
}

// runTask runs one task. A prompt task fails when its run fails or when the
// last tool result it produced is an error (e.g. a command exited non-zero).
// goesOn: the prompt task was cut, and its agent run goes on as Continue
// would (rerun: tool calls cut at a question by a restart, asked again).
func (tl *TaskLoop) runTask(r *run, t Task, goesOn bool, rerun []ToolCall) error {
	if t.Func != nil {
		_, err := protect(fmt.Sprintf("task %q", t.Title), "", func() (struct{}, error) { return struct{}{}, t.Func(r.ctx, tl.s) })
		return err
	}
	r.provider = tl.s.provider
	if t.Provider != nil {
		r.provider = t.Provider
	}
	var err error
	switch {
	case !goesOn: // its prompt was recorded with its begin (beginTask)
		err = tl.s.turns(r)
	case len(rerun) > 0:
		tl.s.markResumed(r)
		err = tl.s.turnsFrom(r, beforeCalls, rerun, false)
	default:
		err = tl.s.turns(r) // "Resumed" is recorded when the model answers
	}
	if err != nil {
		return err
	}
	h := tl.s.History()
	for i := len(h) - 1; i >= 0 && h[i].Role != RoleUser; i-- {
		if h[i].Role == RoleTool && !h[i].Interrupted { // a call cut by an interrupt before a resumption is no failure
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
func (tl *TaskLoop) waitBetween(r *run, i int) error {
	tl.mu.Lock()
	if !tl.pauseMode {
		tl.mu.Unlock()
		return nil
	}
	msg := fmt.Sprintf("Task %d complete. Press Enter to continue or 'p' to switch to continuous mode", i+1)
	var details string
	if t := tl.infos[i]; t.Status == TaskFailed {
		details = "Task failed: " + t.Error
	}
	p, err := tl.s.raisePause(r.ctx, r, PauseRequest{Kind: PauseContinue, Tool: "Tasks", Message: msg, Details: details}, SourceTask, tl.s.Snapshot().Step, i+1, nil)
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
// never ran, or was interrupted, is done after Close (it can no longer be
// resumed).
func (tl *TaskLoop) Close() {
	s := tl.s
	s.mu.Lock()
	r, finished := tl.run, tl.finished
	tl.closing = true
	if r != nil && s.run == r {
		s.stopLocked(ReasonUserStop)
	}
	if s.cutLoop == tl {
		s.cutLoop = nil
	}
	s.mu.Unlock()
	if finished != nil {
		<-finished
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if !tl.done {
		tl.done = true
		tl.log.close()
	}
}

// recordLocked records the loop's state and its tasks' states (before the
// event is published to the engine's observers).
//
// A task's prompt (beginTask) is appended to the session's history here,
// and recorded with the loop's state.
func (tl *TaskLoop) recordLocked(ev TaskEvent) {
	prompt := tl.prompt
	tl.prompt = ""
	tl.s.mu.Lock()
	defer tl.s.mu.Unlock()
	t := transition{kind: transLoopChanged, session: tl.s.id}
	if prompt != "" {
		t.from = tl.s.appendMemoryLocked([]Message{{Role: RoleUser, Text: prompt}})
		t.history = tl.s.history[t.from:]
	}
	if tl.s.eng.journal == nil {
		return // nothing to build
	}
	t.loop = &taskLoopRecord{id: tl.id, state: tl.stateLocked()}
	tl.s.recordLocked("task loop "+tl.id+" ("+string(ev.Type)+")", t)
}

// defineLocked records a new loop with what its tasks are (the session's
// mu held; nobody else holds tl yet): a prompt task's prompt and the
// description of its own model when it has a storable one, never a
// secret, so that the loop can be made again after a restart.
func (tl *TaskLoop) defineLocked() {
	if tl.s.eng.journal == nil {
		return // nothing to build
	}
	r := &taskLoopRecord{id: tl.id, state: tl.stateLocked(), tasks: make([]taskRecord, len(tl.tasks))}
	for i, t := range tl.tasks {
		d := &r.tasks[i]
		d.kind = taskKindPrompt
		switch {
		case t.Func != nil:
			d.kind = taskKindFunc
		case t.Provider != nil:
			d.prompt = t.Prompt
			if sp, ok := t.Provider.(StorableProvider); ok {
				d.provider, _ = sp.ProviderSpec() // what looks secret is left out
			}
		default:
			d.prompt = t.Prompt
		}
	}
	tl.s.recordLocked("task loop "+tl.id, transition{kind: transLoopDefined, session: tl.s.id, loop: r})
}

// TaskOption configures a task loop.
type TaskOption func(*TaskLoop)

// WithTaskPauseMode sets the loop's initial pause mode, overriding the
// engine's default_pause_mode.
func WithTaskPauseMode(on bool) TaskOption { return func(tl *TaskLoop) { tl.pauseMode = on } }
