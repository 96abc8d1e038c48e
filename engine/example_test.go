package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

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

// A tool's confirm names what it approves (RememberKey); the user approves it
// for the session, and the next such confirm is approved without asking.
func ExamplePauseRequest_rememberKey() {
	deploy := engine.ToolFunc(func(ctx context.Context, c engine.ToolCall, env *engine.Env) (engine.Result, error) {
		ans, err := env.Pause(ctx, engine.PauseRequest{Kind: engine.PauseConfirm, Message: "Deploy api to production?", RememberKey: "deploy api to production"})
		if err != nil || !ans.Approved() {
			return engine.Result{Output: "not deployed", IsError: true}, err
		}
		return engine.Result{Output: "deployed (" + ans.By + ")"}, nil
	})
	e := engine.New(engine.WithTool("deploy", deploy), engine.WithProvider(engine.NewScriptedProvider([]engine.ScriptTurn{
		{ToolCalls: []engine.ScriptCall{{Name: "deploy"}}},
		{Text: "Done."},
	})))
	defer e.Close()
	s, _ := e.NewSession(engine.SessionOptions{})
	ctx := context.Background()

	events := s.Subscribe()
	defer events.Close()
	granted := make(chan engine.Event, 1)
	go func() {
		for {
			ev, err := events.Next(ctx)
			if err != nil {
				return
			}
			switch ev.Type {
			case engine.EventPaused:
				fmt.Printf("asked: %q, may remember for %v\n", ev.Pause.Message, ev.Pause.RememberScopes)
				_ = s.Confirm(ev.Pause.ID, true, engine.Remember(engine.RememberSession), engine.AnsweredBy("me"))
			case engine.EventGranted:
				granted <- ev
			}
		}
	}()

	_, _ = s.Prompt(ctx, "deploy")
	h := s.History()
	fmt.Println("tool:", h[len(h)-2].Text)
	_, _ = s.Prompt(ctx, "deploy again")
	ev := <-granted
	fmt.Printf("approved by a %s grant: %q\n", ev.Remember, ev.Text)
	h = s.History()
	fmt.Println("tool:", h[len(h)-2].Text)
	// Output:
	// asked: "Deploy api to production?", may remember for [session project]
	// tool: deployed (me)
	// approved by a session grant: "deploy api to production"
	// tool: deployed (grant)
}

// An approver (a CI bot, a chat bridge, a model reviewer) decides a
// command's confirm before a person is asked.
func ExampleEngine_SetApprover() {
	e := engine.New()
	defer e.Close()
	e.SetApprover(engine.ApproverFunc(func(ctx context.Context, req engine.ApprovalRequest) (engine.Approval, error) {
		if strings.HasPrefix(req.Command, "npm test") {
			return engine.ApprovalAllow, nil
		}
		return engine.ApprovalAsk, nil // put it to the person
	}), 5*time.Second)
}
