// Package webui serves a local web page that watches and controls every
// session of an engine: a session list with badges, the selected session's
// history, Send ↔ Stop, Continue with its reason, pause dialogs (a confirm
// that can be remembered says what its approval approves again), the global
// Emergency stop and Resume all with their counts, and the approvals
// remembered without asking again, each with Revoke. Changes are pushed
// with Server-Sent Events; every tab converges on the engine's state.
//
// The page is embedded (no build step). By default the server listens on
// loopback only; every API request needs the random token printed in the
// URL (the page keeps it in its tab's sessionStorage and sends it as a
// header, never as a cookie, which the browser would also send to other
// servers on 127.0.0.1), and the Host and Origin headers are checked so
// neither DNS rebinding nor another site can drive it. Answers name the
// pause and the session version the tab saw, so a stale tab can't answer a
// newer pause, and two clients answering at once are applied exactly once.
// A client that is slow to send its headers or stops reading its event
// stream is dropped, and connections and streams are limited.
// A session's actions name it in the query, /api/answer?session=ID, so any
// id ("." and ".." too, which a path would lose) reaches its own session.
//
// With WithFleet the same page is served over a fleet's hub, with no engine
// of its own: every host's sessions with a host column and the host's
// connection state (a disconnected host's sessions are shown as last heard
// from, never as current), answers, Continue and Resume all routed through
// the hub to the owning host and bound to what the tab showed, the fleet's
// emergency stop with the hosts that have not confirmed, the project-scope
// approvals and the audit log of every host (fleet.go).
//
//	srv, err := webui.Serve(ctx, eng)
//	if err != nil { ... }
//	defer srv.Close()
//	fmt.Println("web UI:", srv.URL())
package webui
