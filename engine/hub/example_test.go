package hub_test

import (
	"context"
	"fmt"
	"os"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/hub"
)

// A host joins the fleet; a fleet view approves the first pause it shows.
// (Compiled, not run: it needs a hub.)
func Example() {
	ctx := context.Background()
	url := os.Getenv("INTERLOCK_HUB_URL") // postgres://interlock@db.internal/fleet

	// On each host: the engine mirrors to the hub and takes its commands.
	eng, err := engine.Open(ctx, engine.WithStore("sessions.db"),
		hub.With(hub.Config{URL: url, Host: "ci-runner-3"}))
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	// Anywhere: every host's sessions, and an answer bound to what was shown.
	f, err := hub.Open(ctx, url)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	sessions, err := f.Sessions(ctx)
	if err != nil {
		panic(err)
	}
	for _, st := range sessions {
		if st.Pause == nil || !st.HostConnected {
			continue
		}
		id, err := f.Answer(ctx, hub.AnswerOf(st, true, "alice"))
		if err != nil { // hub.ErrAlreadyAnswered: another client was first
			panic(err)
		}
		res, err := f.Wait(ctx, id)
		fmt.Println(res.State, res.Code, res.Message, err) // applied, or refused: expired, stale, altered...
		break
	}
}
