// Package engine runs long-running agent sessions and keeps the people
// watching them in control: a tool can pause for the user ("press Enter to
// continue") or ask to confirm a dangerous action (approve / deny), a run can
// be interrupted at once even while a tool blocks, and pause / resume /
// cancel signals act at step boundaries. Every change of a session bumps its
// version and emits one event that all observers see in the same order.
//
// Everything belongs to a session: pauses, interrupts, remembered approvals
// and tool state (Env.Local). Nothing is global. A confirm whose
// PauseRequest.RememberKey names what it approves can be approved for the
// session or the project (Pause.RememberScopes, Remember): the next confirm
// of that tool and key is approved without asking (EventGranted);
// Engine.Grants lists what was remembered and Engine.RevokeGrant takes it
// back; every change is an EventGrantsChanged of the engine's stream.
//
// The shortest use:
//
//	e := engine.New(engine.WithProvider(engine.NewScriptedProvider(turns)))
//	defer e.Close()
//	s, _ := e.NewSession(engine.SessionOptions{})
//	go func() {
//		for ev := range s.Events(ctx) {
//			if ev.Type == engine.EventPaused {
//				s.Confirm(ev.Pause.ID, true)
//			}
//		}
//	}()
//	res, err := s.Prompt(ctx, "clean the build folder")
package engine
