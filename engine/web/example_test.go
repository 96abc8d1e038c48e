package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/web"
)

// A scripted model opens a page and pauses on it; the user's Enter
// (Session.Resume) lets the tool read the page. Run it with a display, or
// the pause message gives the DevTools address instead.
func Example() {
	ctx := context.Background()
	args, _ := json.Marshal(web.Args{Type: web.ActionOpenPage, URL: "https://example.org", Pause: true})
	e := engine.New(
		engine.WithTool("web", web.New(web.WithNavigationTimeout(10*time.Second))),
		engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{
			{ToolCalls: []engine.ScriptCall{{Name: "web", Args: args}}},
			{Text: "done"},
		})),
	)
	defer e.Close()
	s, _ := e.NewSession(engine.SessionOptions{})
	go func() {
		for ev := range s.Events(ctx) {
			if ev.Type == engine.EventPaused {
				fmt.Println(ev.Pause.Tool, "paused:", ev.Pause.Message)
				s.Resume("")
			}
		}
	}()
	if _, err := s.Prompt(ctx, "open example.org"); err != nil {
		fmt.Println(err)
	}
}
