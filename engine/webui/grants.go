package webui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/interlock-dev/interlock/engine"
)

// Grants is what the page shows of the approvals remembered without asking
// again (GET /api/grants, the state and the "grants" SSE message).
type Grants struct {
	Grants []engine.Grant `json:"grants"`
	// Error says why the list could not be read (the store), when it could not.
	Error string `json:"error,omitempty"`
}

// CodeUnknownGrant refuses a revoke of an approval that is not remembered
// (revoked already, by another tab or by code).
const CodeUnknownGrant = "unknown_grant"

// grantsNotifier wakes every event stream when a revoke through this server
// changed the grants: the tab that revoked and all the others show it.
type grantsNotifier struct {
	mu      sync.Mutex
	changed chan struct{}
}

// wait returns a channel closed at the next change.
func (n *grantsNotifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.changed == nil {
		n.changed = make(chan struct{})
	}
	return n.changed
}

func (n *grantsNotifier) notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.changed != nil {
		close(n.changed)
		n.changed = nil
	}
}

func (s *Server) grants(ctx context.Context) Grants {
	gs, err := s.eng.Grants(ctx)
	if err != nil {
		return Grants{Grants: []engine.Grant{}, Error: fmt.Sprintf("remembered approvals: %v", err)}
	}
	if gs == nil {
		gs = []engine.Grant{}
	}
	return Grants{Grants: gs}
}

// revokeGrant takes back one remembered approval, named as the list shows
// it: the next such confirm asks again.
func (s *Server) revokeGrant(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tool    string `json:"tool"`
		Key     string `json:"key"`
		Scope   string `json:"scope"`
		Session string `json:"session"`
		Root    string `json:"root"`
	}
	if !s.decode(w, r, &req) {
		return
	}
	if req.Tool == "" || req.Key == "" || req.Scope == "" {
		refuse(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("revoke: tool %q, key %q and scope %q: all three are required, with session or root, as /api/grants lists the grant", req.Tool, req.Key, req.Scope))
		return
	}
	g := engine.Grant{Tool: req.Tool, Key: req.Key, Scope: req.Scope, Session: req.Session, Root: req.Root}
	if err := s.eng.RevokeGrant(r.Context(), g); err != nil {
		switch {
		case errors.Is(err, engine.ErrUnknownGrant):
			refuse(w, http.StatusNotFound, CodeUnknownGrant, fmt.Sprintf("revoke: %v: it was revoked already (by another tab or by code); the list shows what is remembered now", err))
		case errors.Is(err, engine.ErrInvalidArgument):
			refuse(w, http.StatusBadRequest, CodeBadRequest, "revoke: "+err.Error())
		case errors.Is(err, engine.ErrUnknownSession), errors.Is(err, engine.ErrClosed):
			refuse(w, http.StatusNotFound, CodeUnknownSession, fmt.Sprintf("revoke: %v: a session's grants end with it", err))
		default:
			refuse(w, http.StatusInternalServerError, CodeBadRequest, "revoke: "+err.Error())
		}
		s.changedGrants.notify() // the tabs show a grant that is gone: they get the list again
		return
	}
	s.changedGrants.notify()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "grants": s.grants(r.Context())})
}

// grantsFeed tells one event stream when to send the grants again. Only
// this server's revokes announce themselves; for the rest it looks after
// the events that can change them: an approval remembered (the engine's
// grants are there at its pause_answered; a tool that keeps its own, the
// bash tool, records it after: so the session is watched until its tool
// finishes or its run ends) and a session's close (its grants end with it).
// Revokes by code are seen at the next of those, or on reload.
type grantsFeed struct {
	s       *Server
	last    []byte
	watched map[string]bool // sessions whose remembered approval may still be recorded
}

func newGrantsFeed(s *Server, first Grants) *grantsFeed {
	b, _ := json.Marshal(first)
	return &grantsFeed{s: s, last: b, watched: map[string]bool{}}
}

// after reports the grants to send after ev, or nil when they can't have changed.
func (f *grantsFeed) after(ctx context.Context, ev engine.Event) *Grants {
	remembered := ev.Type == engine.EventPauseAnswered && (ev.Remember == engine.RememberSession || ev.Remember == engine.RememberProject)
	look := remembered || f.watched[ev.Session] || ev.Type == engine.EventClosed
	switch {
	case remembered:
		f.watched[ev.Session] = true
	case ev.Type == engine.EventToolFinished || ev.Type.Terminal():
		delete(f.watched, ev.Session)
	}
	if !look {
		return nil
	}
	return f.changed(ctx)
}

// changed returns the grants when they differ from what the stream sent last.
func (f *grantsFeed) changed(ctx context.Context) *Grants {
	g := f.s.grants(ctx)
	b, _ := json.Marshal(g)
	if bytes.Equal(b, f.last) {
		return nil
	}
	f.last = b
	return &g
}
