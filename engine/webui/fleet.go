package webui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/hub"
)

// The fleet view: the same page served over a hub (WithFleet), every
// host's sessions with a host column and the host's connection state. The
// hub is read again at each change a host mirrors and every half second
// (a host that stops beating turns offline by time alone); each event
// stream sends what changed since it last sent. Answers go through the
// hub, bound to what the tab was shown (host, session, pause, version,
// digest, expiry); the owning host applies them once or refuses them with
// a reason, which the tab shows. Continue, Stop, a prompt and the Revoke
// of a host's remembered approval go the same way.

// FleetSession is a session of a host as the fleet view shows it: its
// snapshot as the host last mirrored it. HostConnected false: the host is
// not heard from, and the snapshot is as it was then, not current.
type FleetSession struct {
	engine.Snapshot
	Host          string    `json:"host"`
	HostConnected bool      `json:"host_connected"`
	Digest        string    `json:"digest,omitempty"` // of the pause shown; an answer names it
	UpdatedAt     time.Time `json:"updated_at"`
}

// FleetHost is a host of the fleet and its connection.
type FleetHost struct {
	Host      string `json:"host"`
	Connected bool   `json:"connected"`
	// SeenAt is when a disconnected host was last heard from (nil while it
	// is connected: its heartbeats change nothing the page shows, and send
	// the tabs nothing).
	SeenAt *time.Time `json:"seen_at,omitempty"`
}

// FleetGrants are the approvals of project scope the hosts remember.
type FleetGrants struct {
	Grants []hub.HostGrant `json:"grants"`
}

// FleetState is what a fleet tab starts from (GET /api/state and the first
// SSE message).
type FleetState struct {
	Epoch    string            `json:"epoch"`
	Fleet    bool              `json:"fleet"` // always true: the page shows the host column
	Counts   engine.Counts     `json:"counts"`
	Hosts    []FleetHost       `json:"hosts"`
	Sessions []FleetSession    `json:"sessions"`
	Labels   map[string]string `json:"labels"`
	Grants   FleetGrants       `json:"grants"`
	Audit    []hub.AuditEntry  `json:"audit"` // the last entries, newest first
}

// auditShown is how many audit entries the page lists.
const auditShown = 200

// fleetRead is one reading of the hub: the state, each part encoded (a
// stream compares them with what it sent), or why it could not be read.
type fleetRead struct {
	st       FleetState
	sessions map[fleetKey][]byte
	hosts    []byte
	grants   []byte
	audit    []byte
	err      error
}

type fleetKey struct{ host, session string }

type fleetView struct {
	f     *hub.Fleet
	epoch string
	mu    sync.Mutex
	cur   *fleetRead
	next  chan struct{} // closed when cur is replaced
}

func newFleetView(f *hub.Fleet, epoch string) *fleetView {
	return &fleetView{f: f, epoch: epoch, next: make(chan struct{})}
}

// now returns the last reading and a channel closed at the next.
func (v *fleetView) now() (*fleetRead, <-chan struct{}) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cur, v.next
}

func (v *fleetView) publish(r *fleetRead) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if old := v.cur; old != nil && r.err == nil && old.err == nil && bytes.Equal(old.hosts, r.hosts) &&
		bytes.Equal(old.grants, r.grants) && bytes.Equal(old.audit, r.audit) && sameSessions(old.sessions, r.sessions) {
		return
	}
	if old := v.cur; old != nil && r.err != nil && old.err != nil {
		return
	}
	v.cur = r
	close(v.next)
	v.next = make(chan struct{})
}

func sameSessions(a, b map[fleetKey][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		if y, ok := b[k]; !ok || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// read reads the hub and publishes what it shows.
func (v *fleetView) read(ctx context.Context) error {
	r, err := v.readHub(ctx)
	if err != nil {
		return err
	}
	v.publish(r)
	return nil
}

func (v *fleetView) readHub(ctx context.Context) (*fleetRead, error) {
	hosts, err := v.f.Hosts(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the hub's hosts: %w", err)
	}
	rows, err := v.f.Sessions(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the hub's sessions: %w", err)
	}
	grants, err := v.f.Grants(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the hub's remembered approvals: %w", err)
	}
	audit, err := v.f.Audit(ctx, auditShown)
	if err != nil {
		return nil, fmt.Errorf("reading the hub's audit log: %w", err)
	}
	r := &fleetRead{sessions: make(map[fleetKey][]byte, len(rows))}
	r.st = FleetState{Epoch: v.epoch, Fleet: true, Labels: labels(), Hosts: make([]FleetHost, len(hosts)), Sessions: make([]FleetSession, 0, len(rows)),
		Grants: FleetGrants{Grants: grants}, Audit: audit}
	if r.st.Grants.Grants == nil {
		r.st.Grants.Grants = []hub.HostGrant{}
	}
	if r.st.Audit == nil {
		r.st.Audit = []hub.AuditEntry{}
	}
	for i, h := range hosts {
		r.st.Hosts[i] = FleetHost{Host: h.Host, Connected: h.Connected}
		if !h.Connected {
			r.st.Hosts[i].SeenAt = &h.SeenAt
		}
	}
	for _, row := range rows {
		fs := FleetSession{Host: row.Host, HostConnected: row.HostConnected, Digest: row.PauseDigest, UpdatedAt: row.UpdatedAt}
		if err := json.Unmarshal(row.Snapshot, &fs.Snapshot); err != nil {
			return nil, fmt.Errorf("session %s of host %s: the hub's snapshot: %w", row.Session, row.Host, err)
		}
		r.st.Sessions = append(r.st.Sessions, fs)
		b, _ := json.Marshal(fs)
		r.sessions[fleetKey{row.Host, row.Session}] = b
		if row.HostConnected { // an offline host's sessions are not counted as current
			countSession(&r.st.Counts, &fs.Snapshot)
		}
	}
	r.hosts, _ = json.Marshal(r.st.Hosts)
	r.grants, _ = json.Marshal(r.st.Grants)
	r.audit, _ = json.Marshal(r.st.Audit)
	return r, nil
}

// countSession counts snap as the engine's Counts do.
func countSession(c *engine.Counts, snap *engine.Snapshot) {
	if snap.RunState == engine.RunProceeding && snap.Status != engine.StatusStopping {
		c.Proceeding++
	}
	if snap.Eligibility.Eligible {
		c.Eligible++
	}
	if snap.Pause != nil || snap.RunState == engine.RunBlocked && !snap.Eligibility.AsksAgain {
		c.NeedsInput++
	}
}

// watch keeps reading the hub until ctx ends; while it cannot, the tabs
// are told the state is unknown.
func (v *fleetView) watch(ctx context.Context, logf func(string, ...any)) {
	backoff := 100 * time.Millisecond
	for {
		err := v.f.Watch(ctx, 500*time.Millisecond, v.read)
		if ctx.Err() != nil {
			return
		}
		logf("webui: fleet: %v; reading the hub again", err)
		v.publish(&fleetRead{err: err})
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

func (s *Server) fleetRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /", s.staticFiles())
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) {
		cur, _ := s.fleet.now()
		if cur.err != nil {
			refuse(w, http.StatusServiceUnavailable, CodeHubUnreachable, "the hub cannot be read: "+cur.err.Error())
			return
		}
		writeJSON(w, http.StatusOK, cur.st)
	})
	mux.HandleFunc("GET /api/events", s.fleetEvents)
	mux.HandleFunc("POST /api/answer", s.fleetAnswer)
	mux.HandleFunc("POST /api/continue", s.fleetContinue)
	mux.HandleFunc("POST /api/resume-all", s.fleetResumeAll)
	mux.HandleFunc("POST /api/emergency-stop", s.fleetStop)
	mux.HandleFunc("POST /api/grants/revoke", s.fleetRevoke)
	mux.HandleFunc("POST /api/stop", s.fleetInterrupt)
	mux.HandleFunc("POST /api/prompt", s.fleetPrompt)
	notHere := func(w http.ResponseWriter, r *http.Request) {
		refuse(w, http.StatusNotFound, CodeBadRequest, fmt.Sprintf("%s %s: not in the fleet view, which answers pauses, continues, stops, sends prompts and revokes remembered approvals (/api/{state,events,answer,continue,stop,prompt,grants/revoke,resume-all,emergency-stop}); use the session's host's own web UI or code for the rest", r.Method, r.URL.Path))
	}
	mux.HandleFunc("GET /api/", notHere)
	mux.HandleFunc("POST /api/", notHere)
	return mux
}

// CodeHubUnreachable: the fleet view cannot read the hub now.
const CodeHubUnreachable = "hub_unreachable"

// fleetEvents streams the fleet's state, then what changed at each reading
// of the hub: a "change" per session that changed, "removed" per session
// gone, "hosts", "grants" and "audit" when they did, "unavailable" while
// the hub cannot be read (the state again once it can).
func (s *Server) fleetEvents(w http.ResponseWriter, r *http.Request) {
	if n := s.streams.Add(1); n > s.cfg.maxStreams {
		s.streams.Add(-1)
		refuse(w, http.StatusServiceUnavailable, CodeBadRequest, fmt.Sprintf("too many event streams open (%d): each tab and each script that watches holds one; close those not needed", s.cfg.maxStreams))
		return
	}
	defer s.streams.Add(-1)
	stream := &stream{w: w, rc: http.NewResponseController(w), timeout: s.cfg.streamWriteTimeout}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	ctx := r.Context()
	heartbeat := time.NewTicker(20 * time.Second)
	defer heartbeat.Stop()
	var sent *fleetRead
	prefix := "retry: 500\n"
	for {
		cur, next := s.fleet.now()
		if cur != sent {
			var ok bool
			switch {
			case cur.err != nil:
				ok = stream.send("unavailable", map[string]string{"error": "the hub cannot be read: " + cur.err.Error()}, prefix)
			case sent == nil || sent.err != nil:
				ok = stream.send("state", cur.st, prefix)
			default:
				ok = sendFleetChanges(stream, sent, cur)
			}
			if !ok {
				return
			}
			sent, prefix = cur, ""
		}
		select {
		case <-next:
		case <-heartbeat.C:
			if !stream.write(": keep-alive\n\n") {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// FleetRemoved says a session is no longer mirrored (closed on its host).
type FleetRemoved struct {
	Host    string        `json:"host"`
	Session string        `json:"session"`
	Counts  engine.Counts `json:"counts"`
}

// FleetChange is a session that changed, as the fleet shows it now.
type FleetChange struct {
	Event   fleetEvent    `json:"event"`
	Session FleetSession  `json:"session"`
	Counts  engine.Counts `json:"counts"`
}

type fleetEvent struct {
	Type string    `json:"type"` // "mirrored"
	At   time.Time `json:"at"`   // when the hub got it
}

func sendFleetChanges(st *stream, old, cur *fleetRead) bool {
	if !bytes.Equal(old.hosts, cur.hosts) && !st.send("hosts", cur.st.Hosts, "") {
		return false
	}
	for _, fs := range cur.st.Sessions {
		k := fleetKey{fs.Host, fs.ID}
		if bytes.Equal(old.sessions[k], cur.sessions[k]) {
			continue
		}
		if !st.send("change", FleetChange{Event: fleetEvent{Type: "mirrored", At: fs.UpdatedAt}, Session: fs, Counts: cur.st.Counts}, "") {
			return false
		}
	}
	for k := range old.sessions {
		if _, ok := cur.sessions[k]; !ok && !st.send("removed", FleetRemoved{Host: k.host, Session: k.session, Counts: cur.st.Counts}, "") {
			return false
		}
	}
	if !bytes.Equal(old.grants, cur.grants) && !st.send("grants", cur.st.Grants, "") {
		return false
	}
	if !bytes.Equal(old.audit, cur.audit) && !st.send("audit", cur.st.Audit, "") {
		return false
	}
	return true
}

// answerWait is how long an answer from the page waits for its host
// before the page is told it is still pending.
const answerWait = 15 * time.Second

// fleetAnswer sends an answer to a host's pause through the hub, bound to
// what the tab showed: the session version it saw and the pause's digest.
// The host applies it once or refuses it; a refusal's reason is the
// answer's error.
func (s *Server) fleetAnswer(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Epoch    string        `json:"epoch"`
		Version  uint64        `json:"version"`
		PauseID  string        `json:"pause_id"`
		Digest   string        `json:"digest"`
		Answer   engine.Answer `json:"answer"`
		Reason   string        `json:"reason"`
		Remember string        `json:"remember"`
	}
	host, session, ok := fleetSession(w, r)
	if !ok || !s.decode(w, r, &req) || !s.sameEpoch(w, req.Epoch) {
		return
	}
	switch req.Answer {
	case engine.AnswerApproved, engine.AnswerDenied, engine.AnswerResumed:
	default:
		refuse(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("answer %q: want resumed, approved or denied", req.Answer))
		return
	}
	id, err := s.fleet.f.Answer(r.Context(), hub.Answer{Host: host, Session: session, Pause: req.PauseID, Seen: req.Version, Digest: req.Digest,
		Answer: req.Answer, Reason: req.Reason, Remember: req.Remember, By: fleetBy})
	if errors.Is(err, hub.ErrAlreadyAnswered) {
		refuse(w, http.StatusConflict, CodeAlreadyAnswered, fmt.Sprintf("Already answered: pause %s of session %s on host %s was answered from another client first", req.PauseID, session, host))
		return
	}
	s.fleetResult(w, r, host, "answer", id, err)
}

// fleetSession is the host and session a request names in ?host=&session=.
func fleetSession(w http.ResponseWriter, r *http.Request) (host, session string, ok bool) {
	host, session = r.URL.Query().Get("host"), r.URL.Query().Get("session")
	if host == "" || session == "" {
		refuse(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("%s %s: name the host and the session as ?host=NAME&session=ID (as /api/state lists them, URL-encoded)", r.Method, r.URL.Path))
		return "", "", false
	}
	return host, session, true
}

// fleetResult says what became of a command (what) sent to host: not
// sent (err: a bad request, or the hub unreachable), or, waiting for
// command id, applied, refused with the host's reason, or still pending.
func (s *Server) fleetResult(w http.ResponseWriter, r *http.Request, host, what string, id int64, err error) {
	switch {
	case errors.Is(err, engine.ErrInvalidArgument):
		refuse(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	case err != nil:
		refuse(w, http.StatusServiceUnavailable, CodeHubUnreachable, "sending the "+what+" to the hub: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), answerWait)
	defer cancel()
	res, err := s.fleet.f.Wait(ctx, id)
	switch {
	case err != nil:
		writeJSON(w, http.StatusAccepted, map[string]any{"ok": true, "pending": true, "id": id,
			"message": fmt.Sprintf("sent; host %s has not applied it yet (it applies it when it takes it, unless it expires first)", host)})
	case res.State == hub.StateRefused:
		refuse(w, http.StatusConflict, res.Code, fmt.Sprintf("Refused (%s) by host %s: %s", res.Code, host, res.Message))
	default:
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "id": id})
	}
}

// fleetContinue continues a host's interrupted session, as the tab saw it
// (its version): the host refuses it if the session changed since.
func (s *Server) fleetContinue(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Epoch   string `json:"epoch"`
		Version uint64 `json:"version"`
	}
	host, session, ok := fleetSession(w, r)
	if !ok || !s.decode(w, r, &req) || !s.sameEpoch(w, req.Epoch) {
		return
	}
	id, err := s.fleet.f.Continue(r.Context(), hub.Continue{Host: host, Session: session, Seen: req.Version, By: fleetBy})
	s.fleetResult(w, r, host, "continue", id, err)
}

// fleetRevoke takes back an approval a host remembers for a project,
// named as the fleet's list shows it (its host, tool, key and root): the
// host revokes it or says why not (unknown_grant: revoked already).
func (s *Server) fleetRevoke(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Host  string `json:"host"`
		Tool  string `json:"tool"`
		Key   string `json:"key"`
		Scope string `json:"scope"`
		Root  string `json:"root"`
	}
	if !s.decode(w, r, &req) {
		return
	}
	if req.Scope != engine.RememberProject || req.Host == "" || req.Tool == "" || req.Key == "" || req.Root == "" {
		refuse(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("revoke: host %q, tool %q, key %q, scope %q and root %q: the fleet revokes a host's project grants, named as /api/state lists them (scope project)", req.Host, req.Tool, req.Key, req.Scope, req.Root))
		return
	}
	id, err := s.fleet.f.Revoke(r.Context(), hub.Revoke{Host: req.Host, Tool: req.Tool, Key: req.Key, Root: req.Root, By: fleetBy})
	s.fleetResult(w, r, req.Host, "revoke", id, err)
}

// fleetInterrupt stops a host's session as its Stop does; the answer
// comes once the host says its process trees are gone, or why not.
func (s *Server) fleetInterrupt(w http.ResponseWriter, r *http.Request) {
	host, session, ok := fleetSession(w, r)
	if !ok {
		return
	}
	id, err := s.fleet.f.Interrupt(r.Context(), hub.Interrupt{Host: host, Session: session, By: fleetBy})
	s.fleetResult(w, r, host, "stop", id, err)
}

// fleetPrompt sends a host's session a message, as the tab saw the session
// (its version): the host refuses it if the session changed since or
// cannot take a prompt now.
func (s *Server) fleetPrompt(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Epoch   string `json:"epoch"`
		Version uint64 `json:"version"`
		Text    string `json:"text"`
	}
	host, session, ok := fleetSession(w, r)
	if !ok || !s.decode(w, r, &req) || !s.sameEpoch(w, req.Epoch) {
		return
	}
	id, err := s.fleet.f.Prompt(r.Context(), hub.Prompt{Host: host, Session: session, Text: req.Text, Seen: req.Version, By: fleetBy})
	s.fleetResult(w, r, host, "prompt", id, err)
}

// fleetResumeAll continues the sessions the tab listed when the user
// confirmed, each at the version the tab saw: one that changed since, or
// can no longer be continued, is left with its host's reason.
func (s *Server) fleetResumeAll(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Epoch    string `json:"epoch"`
		Sessions []struct {
			Host    string `json:"host"`
			Session string `json:"session"`
			Version uint64 `json:"version"`
		} `json:"sessions"`
	}
	if !s.decode(w, r, &req) || !s.sameEpoch(w, req.Epoch) {
		return
	}
	if len(req.Sessions) == 0 {
		refuse(w, http.StatusBadRequest, CodeBadRequest, "resume all: sessions is required: the {host, session, version} of the eligible sessions the user confirmed")
		return
	}
	ids := make([]int64, len(req.Sessions))
	for i, x := range req.Sessions {
		id, err := s.fleet.f.Continue(r.Context(), hub.Continue{Host: x.Host, Session: x.Session, Seen: x.Version, By: fleetBy})
		if err != nil {
			refuse(w, http.StatusServiceUnavailable, CodeHubUnreachable, fmt.Sprintf("resume all: sending the continue of %s/%s to the hub: %v", x.Host, x.Session, err))
			return
		}
		ids[i] = id
	}
	ctx, cancel := context.WithTimeout(r.Context(), answerWait)
	defer cancel()
	resumed, skipped := []string{}, map[string]string{}
	for i, x := range req.Sessions {
		name := x.Host + "/" + x.Session
		res, err := s.fleet.f.Wait(ctx, ids[i])
		switch {
		case err != nil:
			skipped[name] = "sent; its host has not taken it yet"
		case res.State == hub.StateRefused:
			skipped[name] = res.Code + ": " + res.Message
		default:
			resumed = append(resumed, name)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"resumed": resumed, "skipped": skipped})
}

// fleetBy is who answers from a fleet view, in the hosts' audit logs.
const fleetBy = "webui (fleet)"

// stopWait is how long the emergency stop waits for the receipts of the
// connected hosts before it says which have not confirmed.
const stopWait = 10 * time.Second

// fleetStop stops every proceeding session of every host, and says what
// each confirmed (its receipts) and which hosts have not.
func (s *Server) fleetStop(w http.ResponseWriter, r *http.Request) {
	id, err := s.fleet.f.EmergencyStop(r.Context(), fleetBy, 0)
	if err != nil {
		refuse(w, http.StatusServiceUnavailable, CodeHubUnreachable, "fleet emergency stop: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), stopWait)
	defer cancel()
	st, err := s.fleet.f.WaitStop(ctx, id)
	if err != nil {
		if st, err = s.fleet.f.Stop(r.Context(), id); err != nil {
			refuse(w, http.StatusServiceUnavailable, CodeHubUnreachable, fmt.Sprintf("fleet emergency stop %d sent; reading its receipts: %v", id, err))
			return
		}
	}
	stopped := []string{}
	unconfirmed := []StopPending{}
	for _, h := range st.Hosts {
		for _, sess := range h.Stopped {
			stopped = append(stopped, h.Host+"/"+sess)
		}
		if !h.Confirmed {
			unconfirmed = append(unconfirmed, StopPending{Host: h.Host, Connected: h.Connected})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"stop": id, "stopped": stopped, "unconfirmed": unconfirmed, "hosts": st.Hosts})
}

// StopPending is a host that has not confirmed a fleet emergency stop: an
// offline one stops its sessions when it reconnects, while the stop is in
// force.
type StopPending struct {
	Host      string `json:"host"`
	Connected bool   `json:"connected"`
}
