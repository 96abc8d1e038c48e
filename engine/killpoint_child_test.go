package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/provider/openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killChildEnv makes the test binary the owner of the store at
// killStoreEnv that plays one scenario of killChild up to its kill point,
// says "ready" and waits to be killed.
// With killModelEnv (an openaitest server's URL), the engine's model is
// that server's "tool_calls" recording.
const (
	killChildEnv = "INTERLOCK_ENGINE_KILL_CHILD"
	killStoreEnv = "INTERLOCK_ENGINE_KILL_STORE"
	killModelEnv = "INTERLOCK_ENGINE_KILL_MODEL"
)

// bashCommand is what the model of the "bash" scenario asks to run: the
// gate asks to confirm it (rm -rf); each run appends a line to ran.log.
const bashCommand = "rm -rf ./build && echo ran >> ran.log"

// bashScript calls the bash tool with bashCommand, then ends.
func bashScript() []engine.ScriptTurn {
	return []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{call("bash", map[string]string{"command": bashCommand})}}, {Text: "done"}}
}

// effectScript runs the side-effecting tool "effect" (a gate: it blocks
// until the run is interrupted), with the ask tool's question beside it
// when parallel is set, then ends.
func effectScript(parallel bool) []engine.ScriptTurn {
	calls := []engine.ScriptCall{call("effect", nil)}
	if parallel {
		calls = append(calls, ask(engine.PauseConfirm, "really?"))
	}
	return []engine.ScriptTurn{{ToolCalls: calls}, {Text: "done"}}
}

// killChild plays scenario over the store at path with session "a", whose
// script is effectScript, and says "ready" at its kill point:
//   - "effect": the effect tool is running;
//   - "parallel": the effect tool is running and the question beside it
//     is pending;
//   - "resume": (on a store killed at "effect") Continue asks whether to
//     resume, as the effect tool was cut;
//   - "loop": the first task of a task loop of prompt tasks runs the
//     effect tool;
//   - "signal": a pause signal parked the run after a model turn, before
//     its call of the effect tool;
//   - "answered": a question was answered (Confirm returned); the run
//     goes on to the effect tool while the kill comes;
//   - "actor", "gated": the actor tool acted, then asks; the gated tool
//     asks before it acts (both log their actions in the file "effects"
//     beside the store);
//   - "loop-task-begin": killed at the commit of a task loop's task_begin
//     (its first task's: the first task's prompt is "first");
//   - "host-pause", "host-step": a host's own run (Begin) waits on its
//     question, or is parked at its step boundary by a pause signal;
//   - "host-begin", "loop-start", "prompt-start": killed at the first
//     commit of a host's Begin, of a task loop's Start, of a prompt;
//   - "finished": killed at the commit of the model's final answer, before
//     the run's end is written;
//   - "stop-results", "stop-after-results": Esc while the effect tool
//     runs, killed at the commit of its "interrupted before completion"
//     result, or at the next one (the run's end being written);
//   - "stop-user", "stop-emergency", "stop-close": the effect tool runs
//     and the run is stopping (Esc, emergency stop, the session's Close):
//     the tool has not returned yet;
//   - "remember-session", "remember-project": the deploy tool's question
//     is approved with that remember scope, killed at the first commit
//     the answer makes.
//   - "bash": the bash tool's gate asks to confirm bashCommand (with
//     killModelEnv, the model's command: rm -rf ./build), in the store's
//     directory.
func killChild(scenario, path string) {
	ctx := context.Background()
	fail := func(err error) {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if scenario == "revoke-full" {
		fmt.Println(revokeOnAFullDisk(path))
		os.Exit(0)
	}
	var armed atomic.Bool // the kill point is the first commit after armed...
	killAt := ""          // ...or the first one that records killAt
	afterCommit := func(what string) {
		if armed.Load() || killAt != "" && strings.Contains(what, killAt) {
			if scenario == "stop-after-results" && !armed.Load() {
				armed.Store(true) // the kill point is the commit after the results'
				return
			}
			fmt.Println("ready")
			select {} // killed here
		}
	}
	effect := newGate()
	effect.holdAfterCancel = strings.HasPrefix(scenario, "stop-") && !strings.Contains(scenario, "results") // stopping until killed
	opts := []engine.Option{engine.WithStore(path), engine.WithTool("effect", effect), engine.WithTool("deploy", deployTool),
		engine.WithTool("actor", actor{}), engine.WithTool("gated", gatedTool{}), engine.WithTool("bash", bash.New()),
		engine.WithAfterCommit(afterCommit)}
	if scenario == "bash" { // the engine's model, not the session's: the next owner brings its own
		var p engine.Provider = engine.NewScriptedProvider(bashScript())
		if url := os.Getenv(killModelEnv); url != "" {
			op, err := openai.New(openai.WithBaseURL(url), openai.WithModel("tool_calls"))
			if err != nil {
				fail(err)
			}
			p = op
		}
		opts = append(opts, engine.WithProvider(p))
	}
	e, err := engine.Open(ctx, opts...)
	if err != nil {
		fail(err)
	}
	var s *engine.Session
	switch scenario {
	case "actor", "gated":
		s, err = e.NewSession(engine.SessionOptions{ID: "a", Provider: engine.NewScriptedProvider([]engine.ScriptTurn{
			{ToolCalls: []engine.ScriptCall{call(scenario, map[string]string{"log": filepath.Join(filepath.Dir(path), "effects")})}}, {Text: "done"},
		})})
	case "finished":
		s, err = e.NewSession(engine.SessionOptions{ID: "a", Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "all done"}})})
	case "remember-session", "remember-project":
		s, err = e.NewSession(engine.SessionOptions{ID: "a", Dir: filepath.Dir(path),
			Provider: engine.NewScriptedProvider(deployTurns(map[string]any{"env": "prod"}))})
	case "bash":
		s, err = e.NewSession(engine.SessionOptions{ID: "a", Dir: filepath.Dir(path)})
	case "resume":
		s, err = e.Session("a")
	case "answered":
		s, err = e.NewSession(engine.SessionOptions{ID: "a", Provider: engine.NewScriptedProvider([]engine.ScriptTurn{
			{ToolCalls: []engine.ScriptCall{ask(engine.PauseConfirm, "go?")}}, {ToolCalls: []engine.ScriptCall{call("effect", nil)}}, {Text: "done"},
		})})
	case "loop", "host-begin", "loop-start", "host-pause", "host-step", "loop-task-begin":
		s, err = e.NewSession(engine.SessionOptions{ID: "a"})
	case "signal":
		s, err = e.NewSession(engine.SessionOptions{ID: "a", Provider: engine.NewScriptedProvider([]engine.ScriptTurn{
			{Text: "thinking about it", ChunkDelayMS: 20, ToolCalls: []engine.ScriptCall{call("effect", nil)}}, {Text: "done"},
		})})
	default:
		s, err = e.NewSession(engine.SessionOptions{ID: "a", Provider: engine.NewScriptedProvider(effectScript(scenario == "parallel"))})
	}
	if err != nil {
		fail(err)
	}
	sub := s.Subscribe()
	switch scenario {
	case "finished":
		killAt = "history" // the model's final answer
		_, _, err = s.Start(ctx, "hi")
		select {} // killed at the kill point
	case "prompt-start":
		armed.Store(true)
		_, _, err = s.Start(ctx, "deploy it")
		fail(fmt.Errorf("Start returned (%v) without a commit", err))
	case "host-pause", "host-step":
		var h *engine.HostRun
		if h, err = s.Begin(ctx); err == nil {
			if scenario == "host-step" {
				if err = s.Signal(engine.SignalPause); err == nil {
					go h.Step(ctx) // parks at the boundary
				}
			} else {
				go h.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Tool: "deploy", Message: "deploy?"})
			}
		}
	case "host-begin":
		armed.Store(true)
		_, err = s.Begin(ctx)
		fail(fmt.Errorf("Begin returned (%v) without a commit", err))
	case "loop-task-begin":
		killAt = "(task_begin)" // the first task's
		var tl *engine.TaskLoop
		tl, err = s.NewTaskLoop([]engine.Task{
			{Title: "first", Prompt: "first", Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "done"}})},
			{Title: "deploy", Prompt: "deploy", Provider: engine.NewScriptedProvider(effectScript(false))},
		})
		if err == nil {
			_, _, err = tl.Start(ctx)
		}
		select {} // killed at the kill point
	case "loop-start":
		var tl *engine.TaskLoop
		if tl, err = s.NewTaskLoop([]engine.Task{{Title: "deploy", Prompt: "deploy"}}); err == nil {
			armed.Store(true)
			_, _, err = tl.Start(ctx)
		}
		fail(fmt.Errorf("Start returned (%v) without a commit", err))
	case "resume":
		_, _, err = s.StartContinue(ctx)
	case "loop":
		var tl *engine.TaskLoop
		tl, err = s.NewTaskLoop([]engine.Task{
			{Title: "deploy", Prompt: "deploy", Provider: engine.NewScriptedProvider(effectScript(false))},
			{Title: "then", Prompt: "then", Provider: engine.NewScriptedProvider([]engine.ScriptTurn{{Text: "done"}})},
		})
		if err == nil {
			_, _, err = tl.Start(ctx)
		}
	default:
		_, _, err = s.Start(ctx, "go")
	}
	if err != nil {
		fail(err)
	}
	if scenario == "signal" {
		for ev, err := sub.Next(ctx); ev.Type != engine.EventText; ev, err = sub.Next(ctx) {
			if err != nil {
				fail(err)
			}
		}
		if err := s.Signal(engine.SignalPause); err != nil {
			fail(err)
		}
	}
	stop := strings.HasPrefix(scenario, "stop-")
	want := map[engine.EventType]bool{engine.EventToolStarted: scenario == "effect" || scenario == "parallel" || scenario == "loop" || stop,
		engine.EventPaused: scenario != "effect" && scenario != "loop" && !stop}
	n := 0
	for _, w := range want {
		if w {
			n++
		}
	}
	for n > 0 {
		ev, err := sub.Next(ctx)
		if err != nil {
			fail(err)
		}
		if want[ev.Type] && (ev.Type != engine.EventToolStarted || ev.Tool == "effect") {
			want[ev.Type] = false
			n--
		}
	}
	switch scenario {
	case "answered":
		if err := s.Confirm("", true, engine.Remember(engine.RememberOnce), engine.AnsweredBy("tui")); err != nil {
			fail(err)
		}
	case "stop-results", "stop-after-results":
		killAt = "the tool results"
		err = s.Interrupt(engine.ReasonUserStop)
		select {} // killed at the kill point
	case "stop-close":
		go s.Close() // its user closes it: the run is stopping until the effect tool returns
	case "stop-user":
		err = s.Interrupt(engine.ReasonUserStop)
	case "stop-emergency":
		if rep := e.EmergencyStop(); len(rep.Stopped) != 1 {
			err = fmt.Errorf("the emergency stop stopped %v", rep.Stopped)
		}
	case "remember-session", "remember-project":
		armed.Store(true)
		err = s.Confirm("", true, engine.Remember(strings.TrimPrefix(scenario, "remember-")), engine.AnsweredBy("tui"))
		fail(fmt.Errorf("Confirm returned (%v) without a commit", err))
	}
	if err != nil {
		fail(err)
	}
	if stop {
		for ev, err := sub.Next(ctx); ev.Type != engine.EventStopping; ev, err = sub.Next(ctx) {
			if err != nil {
				fail(err)
			}
		}
	}
	fmt.Println("ready")
	select {} // killed here
}

// killAt runs killChild's scenario over the store at path, with env
// ("NAME=value") added to its environment, and kills it (SIGKILL) at its
// kill point.
func killAt(t *testing.T, path, scenario string, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), killChildEnv+"="+scenario, killStoreEnv+"="+path), env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, cmd.Process.Kill())
	cmd.Wait()
	require.Equal(t, "ready\n", line, "the %s child", scenario)
}

// restartAfter kills a child at each scenario's point in turn over one
// store, then opens it again with the effect tool (a gate) and returns the
// engine (closed with the test), session "a" and the gate.
func restartAfter(t *testing.T, scenarios ...string) (*engine.Engine, *engine.Session, *gate) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.db")
	for _, sc := range scenarios {
		killAt(t, path, sc)
	}
	g := newGate()
	e, err := engine.Open(t.Context(), engine.WithStore(path), engine.WithTool("effect", g))
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	s, err := e.Session("a")
	require.NoError(t, err)
	return e, s, g
}

// continueUntilAsked continues s and returns the first pause its run
// raises, failing when the effect tool starts again before that.
func continueUntilAsked(t *testing.T, s *engine.Session) (engine.Pause, <-chan engine.Outcome) {
	t.Helper()
	sub := s.Subscribe()
	defer sub.Close()
	_, done, err := s.StartContinue(t.Context())
	require.NoError(t, err)
	ev := waitEvent(t, sub, func(ev engine.Event) bool {
		return ev.Type == engine.EventPaused || ev.Type.Terminal() || ev.Type == engine.EventToolStarted && ev.Tool == "effect"
	})
	require.Equal(t, engine.EventPaused, ev.Type, "Continue went on without asking about the cut side effect (%s %s)", ev.Type, ev.Tool)
	return *ev.Pause, done
}

// denyTheRepeat continues s, which must first ask resumeQuestion, denies
// it and checks that the effect tool g never ran again.
func denyTheRepeat(t *testing.T, s *engine.Session, g *gate) {
	t.Helper()
	p, done := continueUntilAsked(t, s)
	require.Equal(t, resumeQuestion, p.Message)
	require.NoError(t, s.Confirm(p.ID, false))
	require.NoError(t, (<-done).Err)
	assert.Empty(t, g.started, "the effect never ran again")
}
