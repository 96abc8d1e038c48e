package main

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/interlock-dev/interlock/engine"
)

// scaleScript is node/bench/scale.js's script: the model asks to confirm,
// then answers "done".
const scaleScript = `[{"toolCalls":[{"name":"ask","args":{"kind":"confirm","message":"ok?"}}]},{"text":"done"}]`

// cpuNow is the CPU time of the whole process (every thread), as
// process.cpuUsage() reads it in scale.js.
func cpuNow(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	require.NoError(tb, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// waitAll polls until every session's status is want, sleeping between
// reads so that the wait costs no CPU of its own.
func waitAll(n int, status func(int) bool) {
	for k := range n {
		for !status(k) {
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// BenchmarkParkApprove splits what a session of scale.js costs in CPU
// between the engine, the engine's feed and capi: b.N sessions are parked
// at a confirm pause, then all are approved until every run has ended, as
// scale.js does from JS; park-cpu-us and approve-cpu-us are per session.
//
//			go test ./capi -run '^$' -bench ParkApprove -benchtime 10000x
//
//		  - engine/go-script: engine_park_all / engine_answer_all's work
//		    (engine/metrics_test.go): one model turn, no feed
//		  - engine/js-script: the same with scale.js's script (a second model
//		    turn that says "done")
//		  - engine/js-script+feed: and a feed read by a goroutine that drops the
//		    events (what the dispatcher does before encoding)
//		  - capi: through the exports as the addon calls them (session create
//		    with the options' JSON, its id, prompt, one il_sessions_confirm for
//		    all), events encoded as the addon asks (records, delivered from calls
//	    too) and handed to a C callback that copies them
func BenchmarkParkApprove(b *testing.B) {
	goScript := []engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{{Name: "ask", Args: json.RawMessage(`{"kind":"confirm","message":"ok?"}`)}}}}
	jsScript, err := engine.ParseScript([]byte(scaleScript))
	require.NoError(b, err)
	b.Run("engine/go-script", func(b *testing.B) { benchEngineParkApprove(b, goScript, false) })
	b.Run("engine/js-script", func(b *testing.B) { benchEngineParkApprove(b, jsScript, false) })
	b.Run("engine/js-script+feed", func(b *testing.B) { benchEngineParkApprove(b, jsScript, true) })
	b.Run("capi", benchCapiParkApprove)
}

func reportParkApprove(b *testing.B, park, approve time.Duration) {
	b.ReportMetric(float64(park.Microseconds())/float64(b.N), "park-cpu-us")
	b.ReportMetric(float64(approve.Microseconds())/float64(b.N), "approve-cpu-us")
	b.ReportMetric(0, "ns/op")
}

func benchEngineParkApprove(b *testing.B, script []engine.ScriptTurn, feed bool) {
	e := engine.New(engine.WithProvider(engine.NewScriptedProvider(script)))
	defer e.Close()
	if feed {
		f := e.NewFeed()
		defer f.Close()
		go func() {
			for f.Take(context.Background(), func([]engine.FeedItem) {}) == nil {
			}
		}()
	}
	n := b.N
	sessions := make([]*engine.Session, n)
	outs := make([]<-chan engine.Outcome, n)
	b.ResetTimer()
	c0 := cpuNow(b)
	for k := range sessions {
		s, err := e.NewSession(engine.SessionOptions{})
		require.NoError(b, err)
		_, out, err := s.Start(context.Background(), "go")
		require.NoError(b, err)
		sessions[k], outs[k] = s, out
	}
	waitAll(n, func(k int) bool { return sessions[k].Status() == engine.StatusPaused })
	park := cpuNow(b) - c0
	c0 = cpuNow(b)
	for _, s := range sessions {
		require.NoError(b, s.Confirm("", true))
	}
	for _, o := range outs {
		require.NoError(b, (<-o).Err)
	}
	approve := cpuNow(b) - c0
	b.StopTimer()
	reportParkApprove(b, park, approve)
}

func benchCapiParkApprove(b *testing.B) {
	h, st, msg := driveEngineCreate(ptr(`{"workDir": "` + b.TempDir() + `"}`))
	require.Equal(b, ilOK, st, msg)
	defer driveEngineClose(h)
	ev, host := newSink(0), newSink(0)
	defer ev.free()
	defer host.free()
	st, msg = driveRegister(h, ev)
	require.Equal(b, ilOK, st, msg)
	st, msg = driveRegisterHost(h, host)
	require.Equal(b, ilOK, st, msg)
	defer driveUnregister(h)
	opts, err := json.Marshal(map[string]string{"script": scaleScript})
	require.NoError(b, err)
	n := b.N
	sessions := make([]uint64, n)
	status := func(want int32) func(int) bool {
		return func(k int) bool { s, _ := driveStatus(sessions[k]); return s == want }
	}
	b.ResetTimer()
	c0 := cpuNow(b)
	for k := range sessions {
		s, _, st, msg := driveSessionCreateID(h, ptr(string(opts))) // the handle and the id, as the addon asks
		require.Equal(b, ilOK, st, msg)
		_, st, msg = drivePrompt(s, "go")
		require.Equal(b, ilOK, st, msg)
		sessions[k] = s
	}
	waitAll(n, status(statusPaused))
	for paused := 0; paused < n; time.Sleep(time.Millisecond) {
		paused += ev.count(`"type":"paused"`)
	}
	park := cpuNow(b) - c0
	entries := make([]confirmEntry, n)
	for k, s := range sessions {
		entries[k] = confirmEntry{session: s, approved: true}
	}
	c0 = cpuNow(b)
	_, _, st, msg = driveSessionsConfirm(h, entries)
	require.Equal(b, ilOK, st, msg)
	waitAll(n, status(statusIdle))
	// Until the callback has had every run's end, as prompt() in JS waits.
	for ended := 0; ended < n; time.Sleep(time.Millisecond) {
		ended += ev.count(`"type":"run_finished"`)
	}
	approve := cpuNow(b) - c0
	b.StopTimer()
	reportParkApprove(b, park, approve)
	for _, s := range sessions {
		driveSessionClose(s)
	}
}
