package engine_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/interlock-dev/interlock/engine"
)

// A tool asks to confirm a dangerous action; an observer approves it by id.
func Example() {
	e := engine.New(engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{
		{Text: "Cleaning up.", ToolCalls: []engine.ScriptCall{{Name: "ask", Args: json.RawMessage(`{"kind": "confirm", "message": "Delete build/?"}`)}}},
		{Text: "Done."},
	})))
	defer e.Close()
	s, _ := e.NewSession(engine.SessionOptions{})
	ctx := context.Background()

	events := s.Subscribe()
	defer events.Close()
	go func() {
		for {
			ev, err := events.Next(ctx)
			if err != nil {
				return
			}
			if ev.Type == engine.EventPaused {
				fmt.Printf("paused: %s %q\n", ev.Pause.Kind, ev.Pause.Message)
				_ = s.Confirm(ev.Pause.ID, true)
			}
		}
	}()

	res, err := s.Prompt(ctx, "clean the build folder")
	fmt.Println(res.Status, err)
	for _, m := range s.History() {
		fmt.Printf("%s: %s\n", m.Role, m.Text)
	}
	// Output:
	// paused: confirm "Delete build/?"
	// idle <nil>
	// user: clean the build folder
	// assistant: Cleaning up.
	// tool: approved
	// assistant: Done.
}
