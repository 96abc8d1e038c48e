package webui

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"time"

	"github.com/interlock-dev/interlock/engine"
)

//go:embed static
var staticFiles embed.FS

// SessionView is a session as the page sees it: the engine's snapshot.
type SessionView = engine.Snapshot

// State is the whole picture a tab starts from (GET /api/state and the
// first SSE message).
type State struct {
	Epoch    string            `json:"epoch"`
	Counts   engine.Counts     `json:"counts"`
	Sessions []SessionView     `json:"sessions"`
	Labels   map[string]string `json:"labels"` // interruption reason → label
	Grants   Grants            `json:"grants"` // what is approved without asking
}

// Change is one SSE message after the first: the event and the session's
// snapshot and the counts after it.
type Change struct {
	Event   engine.Event  `json:"event"`
	Session SessionView   `json:"session"`
	Counts  engine.Counts `json:"counts"`
}

// Refusal codes in JSON error answers ({"error", "code"}).
const (
	CodeAlreadyAnswered = "already_answered" // the pause is no longer pending
	CodeStale           = "stale"            // the tab's state is older than the engine's
	CodeNotEligible     = "not_eligible"
	CodeNotRunning      = "not_running"
	CodeBadRequest      = "bad_request"
	CodeUnknownSession  = "unknown_session"
)

// staticFiles serves the page: the same for an engine and a fleet.
func (s *Server) staticFiles() http.Handler {
	static, _ := fs.Sub(staticFiles, "static")
	return http.FileServerFS(static)
}

func (s *Server) routes() http.Handler {
	if s.fleet != nil {
		return s.fleetRoutes()
	}
	mux := http.NewServeMux()
	mux.Handle("GET /", s.staticFiles())
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, s.state(r.Context())) })
	mux.HandleFunc("GET /api/events", s.events)
	// A session is named by ?session=ID, not in the path: an id may be
	// anything, "." or ".." too, which a browser resolves away in a path.
	mux.HandleFunc("GET /api/history", s.history)
	mux.HandleFunc("POST /api/prompt", s.prompt)
	mux.HandleFunc("POST /api/stop", s.stop)
	mux.HandleFunc("POST /api/continue", s.continueRun)
	mux.HandleFunc("POST /api/answer", s.answer)
	mux.HandleFunc("GET /api/grants", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, s.grants(r.Context())) })
	mux.HandleFunc("POST /api/grants/revoke", s.revokeGrant)
	mux.HandleFunc("GET /api/policy", s.projectPolicy)
	mux.HandleFunc("POST /api/policy/trust", s.trustPolicy)
	mux.HandleFunc("POST /api/emergency-stop", func(w http.ResponseWriter, r *http.Request) {
		rep := s.eng.EmergencyStop()
		writeJSON(w, http.StatusOK, map[string]any{"stopped": rep.Stopped, "counts": s.eng.Counts()})
	})
	// Resume all resumes the sessions the tab listed when the user confirmed,
	// those still eligible: not one that became eligible since.
	mux.HandleFunc("POST /api/resume-all", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Epoch    string   `json:"epoch"`
			Sessions []string `json:"sessions"`
		}
		if !s.decode(w, r, &req) || !s.sameEpoch(w, req.Epoch) {
			return
		}
		if len(req.Sessions) == 0 {
			refuse(w, http.StatusBadRequest, CodeBadRequest, "resume all: sessions is required: the ids of the eligible sessions the user confirmed")
			return
		}
		rep := s.eng.ResumeAll(r.Context(), req.Sessions...)
		writeJSON(w, http.StatusOK, map[string]any{"resumed": rep.Resumed, "skipped": rep.Skipped, "counts": s.eng.Counts()})
	})
	noSuchAPI := func(w http.ResponseWriter, r *http.Request) {
		refuse(w, http.StatusNotFound, CodeBadRequest, fmt.Sprintf("%s %s: no such API; a session's actions are /api/{history,prompt,stop,continue,answer}?session=ID", r.Method, r.URL.Path))
	}
	mux.HandleFunc("GET /api/", noSuchAPI)
	mux.HandleFunc("POST /api/", noSuchAPI)
	return mux
}

func (s *Server) state(ctx context.Context) State {
	sessions := s.eng.Sessions()
	st := State{Epoch: s.epoch, Counts: s.eng.Counts(), Sessions: make([]SessionView, len(sessions)), Labels: labels(), Grants: s.grants(ctx)}
	for i, ss := range sessions {
		st.Sessions[i] = ss.Snapshot()
	}
	return st
}

func labels() map[string]string {
	m := map[string]string{}
	for r, l := range engine.ReasonLabels() {
		m[string(r)] = l
	}
	return m
}

// events streams the state, then one Change per session event, and Grants
// again at every grants_changed event (see grantsFeed), until the client
// leaves or the server closes. A slow tab is coalesced by
// the engine's subscription (latest snapshot per session, terminal events
// kept, the latest grants_changed kept).
//
// A client that stops reading is dropped once a write has waited
// streamWriteTimeout (a tab that comes back reconnects and starts from the
// state again); at most maxStreams (256) are open at once.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	if n := s.streams.Add(1); n > s.cfg.maxStreams {
		s.streams.Add(-1)
		refuse(w, http.StatusServiceUnavailable, CodeBadRequest, fmt.Sprintf("too many event streams open (%d): each tab and each script that watches holds one; close those not needed", s.cfg.maxStreams))
		return
	}
	defer s.streams.Add(-1)
	stream := &stream{w: w, rc: http.NewResponseController(w), timeout: s.cfg.streamWriteTimeout}
	sub := s.eng.Subscribe()
	defer sub.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	ctx := r.Context()
	st := s.state(ctx)
	// retry: reconnect fast after a server restart.
	if !stream.send("state", st, "retry: 500\n") {
		return
	}
	grants := newGrantsFeed(s, st.Grants)
	events := make(chan engine.Event)
	go func() {
		defer close(events)
		for {
			ev, err := sub.Next(ctx)
			if err != nil {
				return
			}
			select {
			case events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	heartbeat := time.NewTicker(20 * time.Second)
	defer heartbeat.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Type == engine.EventGrantsChanged { // the engine's, no session's: the list is sent again
				if g := grants.changed(ctx); g != nil && !stream.send("grants", g, "") {
					return
				}
				continue
			}
			ch := Change{Event: ev, Counts: s.eng.Counts()}
			if ss, err := s.eng.Session(ev.Session); err == nil {
				ch.Session = ss.Snapshot()
			} else { // closed and forgotten: the event says what is left
				ch.Session = SessionView{ID: ev.Session, Status: ev.Status, Version: ev.Version, RunState: engine.RunStateOf(ev.Status),
					Eligibility: engine.Eligibility{Reason: engine.NotEligibleTerminal}}
			}
			if !stream.send("change", ch, "") {
				return
			}
		case <-heartbeat.C:
			if !stream.write(": keep-alive\n\n") {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// stream writes one event stream; a write that waits longer than timeout
// for the client to read fails, and the stream ends.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (st *stream) send(name string, v any, prefix string) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return st.write(fmt.Sprintf("%sevent: %s\ndata: %s\n\n", prefix, name, b))
}

func (st *stream) write(text string) bool {
	if st.rc.SetWriteDeadline(time.Now().Add(st.timeout)) != nil {
		return false
	}
	if _, err := io.WriteString(st.w, text); err != nil {
		return false
	}
	return st.rc.Flush() == nil
}

// session is the session the request names in ?session=ID.
func (s *Server) session(w http.ResponseWriter, r *http.Request) (*engine.Session, bool) {
	id := r.URL.Query().Get("session")
	if id == "" {
		refuse(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("%s %s: name the session as ?session=ID (its id as /api/state lists it, URL-encoded)", r.Method, r.URL.Path))
		return nil, false
	}
	ss, err := s.eng.Session(id)
	if err != nil {
		refuse(w, http.StatusNotFound, CodeUnknownSession, fmt.Sprintf("session %q does not exist (closed, or from before a restart)", id))
		return nil, false
	}
	return ss, true
}

func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	v := ss.Version()
	msgs := ss.History()
	if msgs == nil {
		msgs = []engine.Message{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"version": v, "messages": msgs})
}

// runContext is the context of runs started from the page: they belong to
// the engine, not to the request (or the server) that started them.
func runContext(r *http.Request) context.Context { return context.WithoutCancel(r.Context()) }

func (s *Server) prompt(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Text string `json:"text"`
	}
	ss, ok := s.session(w, r)
	if !ok || !s.decode(w, r, &req) {
		return
	}
	if _, _, err := ss.Start(runContext(r), req.Text); err != nil {
		refuse(w, http.StatusConflict, codeOf(err), fmt.Sprintf("send to session %s: %v", ss.ID(), err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (s *Server) stop(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	if err := ss.Interrupt(engine.ReasonUserStop); err != nil {
		refuse(w, http.StatusConflict, codeOf(err), fmt.Sprintf("stop session %s: %v", ss.ID(), err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// continueRun resumes an interrupted session. The tab names the epoch and
// version it saw: Continue is only offered for what the tab shows.
func (s *Server) continueRun(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Epoch   string `json:"epoch"`
		Version uint64 `json:"version"`
	}
	ss, ok := s.session(w, r)
	if !ok || !s.decode(w, r, &req) || !s.sameEpoch(w, req.Epoch) {
		return
	}
	if v := ss.Version(); req.Version != v {
		refuse(w, http.StatusConflict, CodeStale, fmt.Sprintf("session %s changed since this tab saw it (version %d, now %d): look at the current state and try again", ss.ID(), req.Version, v))
		return
	}
	if _, _, err := ss.StartContinue(runContext(r)); err != nil {
		refuse(w, http.StatusConflict, codeOf(err), fmt.Sprintf("continue session %s: %v", ss.ID(), err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// answer answers one pause by id. The engine applies an answer once: a
// second client (or a stale tab) gets "already answered". A tab whose
// version is older than the pause's never saw it and is refused. An
// approval may be remembered with a scope the pause offers (remember).
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Epoch   string        `json:"epoch"`
		Version uint64        `json:"version"`
		PauseID string        `json:"pause_id"`
		Answer  engine.Answer `json:"answer"`
		Reason  string        `json:"reason"`
		// Remember: "session" or "project", one of the pause's remember_scopes.
		Remember string `json:"remember"`
	}
	ss, ok := s.session(w, r)
	if !ok || !s.decode(w, r, &req) || !s.sameEpoch(w, req.Epoch) {
		return
	}
	if req.PauseID == "" {
		refuse(w, http.StatusBadRequest, CodeBadRequest, "answer: pause_id is required (the id of the pause the tab shows)")
		return
	}
	for _, p := range ss.Pauses() {
		if p.ID == req.PauseID && req.Version < p.Version {
			refuse(w, http.StatusConflict, CodeStale, fmt.Sprintf("pause %s of session %s was raised at version %d; this tab is at %d and never saw it: look again", p.ID, ss.ID(), p.Version, req.Version))
			return
		}
	}
	var err error
	switch opts := []engine.AnswerOption{engine.WithReason(req.Reason), engine.AnsweredBy("webui"), engine.Remember(req.Remember)}; req.Answer {
	case engine.AnswerResumed:
		err = ss.Resume(req.PauseID, opts...)
	case engine.AnswerApproved, engine.AnswerDenied:
		err = ss.Confirm(req.PauseID, req.Answer == engine.AnswerApproved, opts...)
	default:
		err = fmt.Errorf("%w: answer %q (want resumed, approved or denied; stop to interrupt)", engine.ErrInvalidArgument, req.Answer)
	}
	if err != nil {
		status := http.StatusConflict
		if errors.Is(err, engine.ErrInvalidArgument) || errors.Is(err, engine.ErrWrongPauseKind) {
			status = http.StatusBadRequest
		}
		msg := err.Error()
		if code := codeOf(err); code == CodeAlreadyAnswered {
			msg = fmt.Sprintf("Already answered: pause %s of session %s is no longer pending (another client answered it)", req.PauseID, ss.ID())
		}
		refuse(w, status, codeOf(err), msg)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (s *Server) sameEpoch(w http.ResponseWriter, epoch string) bool {
	if epoch != s.epoch {
		refuse(w, http.StatusConflict, CodeStale, "the server restarted since this tab loaded its state: the page reloads the current state; try again")
		return false
	}
	return true
}

// decode reads the request's body, one JSON value of at most 1 MB said to
// be JSON, into v. Anything else is refused before anything is applied: a
// body that is JSON followed by more could be read as another request by
// another parser.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		refuse(w, http.StatusUnsupportedMediaType, CodeBadRequest, fmt.Sprintf("%s %s: send the body as JSON, with Content-Type: application/json (not %q)", r.Method, r.URL.Path, r.Header.Get("Content-Type")))
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(v)
	if err == nil && dec.Decode(&json.RawMessage{}) != io.EOF {
		err = errors.New("more after the JSON value")
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		refuse(w, http.StatusRequestEntityTooLarge, CodeBadRequest, fmt.Sprintf("%s %s: body larger than 1 MB", r.Method, r.URL.Path))
		return false
	case err != nil:
		refuse(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("%s %s: body is not the expected JSON: %v", r.Method, r.URL.Path, err))
		return false
	}
	return true
}

const maxBody = 1 << 20

func codeOf(err error) string {
	switch {
	case errors.Is(err, engine.ErrUnknownPause), errors.Is(err, engine.ErrNotPaused):
		return CodeAlreadyAnswered
	case errors.Is(err, engine.ErrNotResumable), errors.Is(err, engine.ErrRunning):
		return CodeNotEligible
	case errors.Is(err, engine.ErrNotRunning):
		return CodeNotRunning
	case errors.Is(err, engine.ErrUnknownSession), errors.Is(err, engine.ErrClosed):
		return CodeUnknownSession
	}
	return CodeBadRequest
}

func refuse(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]string{"error": msg, "code": code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
