package webui

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/policy"
)

// ProjectPolicies reviews and trusts the projects' policy files (the bash
// tool, *bash.Tool): the page shows a session's file that is not trusted
// and trusts it on the user's word.
type ProjectPolicies interface {
	// ReviewProjectPolicy is the file of the project dir is in, nil if none.
	ReviewProjectPolicy(dir string) *policy.Review
	// TrustProjectPolicy trusts it if its hash is still sha256.
	TrustProjectPolicy(dir, sha256 string) (path, sha string, err error)
}

// WithProjectPolicies shows each session's project policy file that is not
// trusted, with Trust and Not now (docs/policy.md).
func WithProjectPolicies(p ProjectPolicies) Option { return func(c *config) { c.policies = p } }

// CodePolicyChanged refuses to trust a project policy file that changed
// since the page showed it.
const CodePolicyChanged = "policy_changed"

// projectPolicy answers GET /api/policy?session=ID: {"policy": the review
// of the session's project policy file, or null}.
func (s *Server) projectPolicy(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	var rv *policy.Review
	if s.cfg.policies != nil {
		rv = s.cfg.policies.ReviewProjectPolicy(ss.Env().Dir())
	}
	writeJSON(w, http.StatusOK, map[string]any{"policy": rv})
}

// trustPolicy answers POST /api/policy/trust?session=ID {"sha256"}: trusts
// the session's project policy file if it is still the content the page
// showed.
func (s *Server) trustPolicy(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SHA256 string `json:"sha256"`
	}
	ss, ok := s.session(w, r)
	if !ok || !s.decode(w, r, &req) {
		return
	}
	if req.SHA256 == "" {
		refuse(w, http.StatusBadRequest, CodeBadRequest, "trust a project policy: sha256 is required: the hash of the content the page showed (GET /api/policy)")
		return
	}
	if s.cfg.policies == nil {
		refuse(w, http.StatusBadRequest, CodeBadRequest, "trust a project policy: this web UI was started without project policies (webui.WithProjectPolicies)")
		return
	}
	dir := ss.Env().Dir()
	if _, _, err := s.cfg.policies.TrustProjectPolicy(dir, req.SHA256); err != nil {
		switch {
		case errors.Is(err, policy.ErrChanged):
			refuse(w, http.StatusConflict, CodePolicyChanged, "not trusted: "+err.Error())
		case errors.Is(err, policy.ErrInvalid), errors.Is(err, engine.ErrInvalidArgument):
			refuse(w, http.StatusBadRequest, CodeBadRequest, "not trusted: "+err.Error())
		default:
			refuse(w, http.StatusInternalServerError, CodeBadRequest, fmt.Sprintf("not trusted: %v", err))
		}
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "policy": s.cfg.policies.ReviewProjectPolicy(dir)})
}
