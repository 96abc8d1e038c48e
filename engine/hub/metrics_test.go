package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/hub"
	"github.com/interlock-dev/interlock/internal/benchmetrics"
)

// TestMetrics measures the fleet on a loopback hub (a throwaway cluster on
// a unix socket) and writes $INTERLOCK_METRICS_DIR/fleet.json. It runs
// only when that variable is set.
//   - fleet_approve_to_continue_p99_ms: Fleet.Answer called -> the tool's
//     Pause returns on its host;
//   - fleet_mirror_lag_p99_ms: a transition on a host (its event's time)
//     -> its row readable in the hub (a LISTENing client told of it);
//   - fleet_emergency_stop_ms: 3 hosts x 100 running bash commands ->
//     every process tree gone and every receipt in;
//   - fleet_overhead_pause_p99_us (and _off_): a local pause round trip
//     (raised -> answered by an observer -> the tool continues) with the
//     hub on and off; fleet_overhead_pause_ratio is on / off.
func TestMetrics(t *testing.T) {
	dir := benchmetrics.Dir(t)
	m := benchmetrics.Set{}
	url := newDB(t)
	f := openFleet(t, url)

	// Approve -> continue, and the mirror's lag of the same runs.
	const rounds = 200
	reached := make(chan time.Time, 1)
	asker := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		for range rounds {
			if _, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Message: "Deploy?", Details: "deploy api"}); err != nil {
				return engine.Result{}, err
			}
			reached <- time.Now()
		}
		return engine.Result{Output: "done"}, nil
	})
	eng, err := engine.Open(t.Context(), engine.WithTool("asker", asker), engine.WithStore(filepath.Join(t.TempDir(), "s.db")),
		engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{{Name: "asker"}}}, {Text: "Done."}})),
		hub.With(hub.Config{URL: url, Host: "bench"}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	lags := measureLag(t, url, "bench")
	s, _ := eng.NewSession(engine.SessionOptions{ID: "s"})
	_, done, err := s.Start(context.WithoutCancel(t.Context()), "go")
	if err != nil {
		t.Fatal(err)
	}
	var approve []time.Duration
	seen := ""
	for range rounds {
		st := mirrored(t, f, "bench", "s", func(st hub.SessionState) bool { return paused(st) && st.Pause.ID != seen })
		seen = st.Pause.ID
		began := time.Now()
		if _, err := f.Answer(t.Context(), hub.AnswerOf(st, true, "bench")); err != nil {
			t.Fatal(err)
		}
		approve = append(approve, (<-reached).Sub(began))
	}
	if out := <-done; out.Err != nil {
		t.Fatal(out.Err)
	}
	m["fleet_approve_to_continue_p50_ms"] = benchmetrics.Millis(benchmetrics.Percentile(approve, 50))
	m["fleet_approve_to_continue_p99_ms"] = benchmetrics.Millis(benchmetrics.Percentile(approve, 99))
	lag := lags()
	m["fleet_mirror_lag_p50_ms"] = benchmetrics.Millis(benchmetrics.Percentile(lag, 50))
	m["fleet_mirror_lag_p99_ms"] = benchmetrics.Millis(benchmetrics.Percentile(lag, 99))

	// A local pause round trip with the hub on and off, 3,000 each.
	// Alternated by 250, so that both see the same load of the machine
	// (by 1,000, the ratio of the same code ranged 1.06-1.90x).
	var on, off []time.Duration
	hubOff, hubOn := newPauser(t, ""), newPauser(t, url)
	for range 12 {
		off = append(off, hubOff.roundTrips(t)...)
		on = append(on, hubOn.roundTrips(t)...)
	}
	m["fleet_overhead_pause_p99_us"] = benchmetrics.Micros(benchmetrics.Percentile(on, 99))
	m["fleet_overhead_pause_off_p99_us"] = benchmetrics.Micros(benchmetrics.Percentile(off, 99))
	ratio := float64(benchmetrics.Percentile(on, 99)) / float64(benchmetrics.Percentile(off, 99))
	m["fleet_overhead_pause_ratio"] = benchmetrics.Metric{Value: math.Round(ratio*100) / 100, Unit: "x"}

	m["fleet_emergency_stop_ms"] = benchmetrics.Millis(fleetStop(t, 3, 100))
	m.Write(t, dir, "fleet.json")
}

// measureLag listens to the hub's mirror notifications for host and
// returns a function giving, for every event mirrored until it is called,
// its event time -> the moment a client was told and read it.
func measureLag(t *testing.T, url, host string) func() []time.Duration {
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), `LISTEN interlock_mirror`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var lags []time.Duration
	var wg sync.WaitGroup
	wg.Go(func() {
		defer conn.Close(context.Background())
		var last int64
		for {
			if _, err := conn.WaitForNotification(ctx); err != nil {
				return
			}
			rows, _ := conn.Query(ctx, `SELECT id, at FROM interlock_events WHERE host = $1 AND id > $2 ORDER BY id`, host, last)
			now := time.Now()
			for rows.Next() {
				var at time.Time
				if rows.Scan(&last, &at) == nil {
					lags = append(lags, now.Sub(at))
				}
			}
			rows.Close()
		}
	})
	return func() []time.Duration {
		time.Sleep(200 * time.Millisecond) // the last notifications
		cancel()
		wg.Wait()
		return lags
	}
}

// pauser is an engine with a store whose tool pauses 250 times in a
// row, each pause answered by an observer as soon as it sees it; attached
// to the hub at url ("" for none). It is opened once and measured several
// times: the round trips of a host at work, not of one making its
// connection (a new connection's first writes warm the server's caches of
// a fresh backend, ~100 ms of its CPU, which overlapped the 1,000 round
// trips of a new engine and made the hub's cost 1.41x).
// A session's first pause is 1 in 250: below the p99.
type pauser struct {
	eng   *engine.Engine
	trips []time.Duration
}

func newPauser(t *testing.T, url string) *pauser {
	const n = 250
	p := &pauser{}
	asker := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		for range n {
			began := time.Now()
			if _, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseContinue, Message: "Next?"}); err != nil {
				return engine.Result{}, err
			}
			p.trips = append(p.trips, time.Since(began))
		}
		return engine.Result{Output: "done"}, nil
	})
	opts := []engine.Option{engine.WithTool("asker", asker), engine.WithStore(filepath.Join(t.TempDir(), "s.db")),
		engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{{Name: "asker"}}}, {Text: "Done."}}))}
	var h *hub.Host
	if url != "" {
		opts = append(opts, engine.WithAttachment(func(_ context.Context, e *engine.Engine) (io.Closer, error) {
			var err error
			h, err = hub.Attach(e, hub.Config{URL: url, Host: "overhead"})
			return h, err
		}))
	}
	var err error
	if p.eng, err = engine.Open(t.Context(), opts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.eng.Close() })
	if h != nil {
		waitCtx(t, func(ctx context.Context) error { return h.WaitConnected(ctx, true) })
	}
	p.roundTrips(t) // warm: the mirror's first writes
	return p
}

// roundTrips runs the 250 round trips in a new session and returns
// their times.
func (p *pauser) roundTrips(t *testing.T) []time.Duration {
	p.trips = nil
	s, _ := p.eng.NewSession(engine.SessionOptions{})
	sub := s.Subscribe()
	defer sub.Close()
	go func() {
		for {
			ev, err := sub.Next(t.Context())
			if err != nil {
				return
			}
			if ev.Type == engine.EventPaused {
				s.Resume(ev.Pause.ID)
			}
		}
	}()
	if _, err := s.Prompt(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	return p.trips
}

// fleetStop starts hosts engines, each running perHost bash commands, and
// measures a fleet emergency stop until every receipt is in; it checks
// that no command is left.
func fleetStop(t *testing.T, hosts, perHost int) time.Duration {
	url := newDB(t)
	f := openFleet(t, url)
	const marker = "3017.5"
	turns := sleepingBash(marker)
	var engines []*engine.Engine
	for i := range hosts {
		eng, err := engine.Open(t.Context(), engine.WithTool("bash", bash.New()), engine.WithProvider(engine.NewScriptedProvider(turns)),
			hub.With(hub.Config{URL: url, Host: fmt.Sprintf("host-%d", i), Logf: t.Logf}))
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		engines = append(engines, eng)
		for range perHost {
			s, _ := eng.NewSession(engine.SessionOptions{})
			if _, _, err := s.Start(context.WithoutCancel(t.Context()), "go"); err != nil {
				t.Fatal(err)
			}
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(running(marker)) < hosts*perHost {
		if time.Now().After(deadline) {
			var states []string
			for _, e := range engines {
				for _, s := range e.Sessions() {
					snap := s.Snapshot()
					states = append(states, fmt.Sprintf("%s:%s:%s", s.ID(), snap.Status, snap.LastError))
				}
			}
			t.Fatalf("%d of %d commands running; sessions: %v", len(running(marker)), hosts*perHost, states[:min(len(states), 5)])
		}
		time.Sleep(10 * time.Millisecond)
	}
	began := time.Now()
	t.Logf("stop at %v", began)
	id, err := f.EmergencyStop(t.Context(), "bench", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.WaitStop(t.Context(), id)
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range st.Hosts {
		n += len(h.Stopped)
	}
	if n != hosts*perHost || len(st.Unconfirmed()) != 0 {
		t.Fatalf("receipts for %d sessions, want %d; unconfirmed %+v", n, hosts*perHost, st.Unconfirmed())
	}
	if left := running(marker); len(left) > 0 {
		t.Fatalf("commands left after every receipt: %v", left)
	}
	return took
}

// sleepingBash is a model that runs "sleep <marker>" with the bash tool.
func sleepingBash(marker string) []engine.ScriptTurn {
	script, _ := json.Marshal([]engine.ScriptTurn{{ToolCalls: []engine.ScriptCall{{Name: "bash", Args: json.RawMessage(`{"command": "sleep ` + marker + `"}`)}}}, {Text: "Done."}})
	turns, _ := engine.ParseScript(script)
	return turns
}

// running returns the pids of processes running "sleep <marker>".
func running(marker string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), "sleep\x00"+marker) {
			out = append(out, filepath.Base(filepath.Dir(p)))
		}
	}
	return out
}
