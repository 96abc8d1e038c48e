package webui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

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
		return
	}
	// Every tab, this one included, gets the list again at the engine's grants_changed.
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "grants": s.grants(r.Context())})
}

// grantsFeed sends one event stream the grants when they differ from
// what it sent last.
type grantsFeed struct {
	s    *Server
	last []byte
}

func newGrantsFeed(s *Server, first Grants) *grantsFeed {
	b, _ := json.Marshal(first)
	return &grantsFeed{s: s, last: b}
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
