// Package hub puts a fleet of hosts behind one PostgreSQL database: each
// host's engine mirrors every transition of its sessions there (sessions
// with their run states and reasons, pauses as shown, answers, audit
// entries) and takes the commands addressed to it (answers to its pauses,
// continues, a session's stop, prompts, revokes of remembered approvals,
// the fleet's emergency stop), while its own store stays the truth for its
// sessions. Hosts only dial out; nothing connects to a host. With the hub
// unreachable a host goes on (its pauses are answered locally), keeps what
// it could not send, and resynchronises when it reconnects.
//
// A host attaches the hub to its engine:
//
//	eng, err := engine.Open(ctx, engine.WithStore(path),
//		hub.With(hub.Config{URL: os.Getenv("INTERLOCK_HUB_URL"), Host: "ci-runner-3"}))
//
// Anything else (a fleet view, a script) reads and commands the fleet with
// a Fleet, which needs no engine:
//
//	f, err := hub.Open(ctx, url)
//	sessions, err := f.Sessions(ctx)       // every host's, with its connection state
//	id, err := f.Answer(ctx, hub.AnswerOf(sessions[0], true, "alice"))
//	res, err := f.Wait(ctx, id)            // applied, or refused with a reason
//
// The tables (interlock_*) are created on first use and migrated by version
// (see schema.go); the URL's credentials are used to connect and never
// stored. Commands are rows, announced with NOTIFY; an answer names host,
// session, pause, the session version its client saw and a digest of what
// was shown, and expires; the owning host applies it once or refuses it
// with a reason, both written to the audit logs.
package hub
