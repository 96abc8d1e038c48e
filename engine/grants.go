package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/interlock-dev/interlock/engine/store"
)

// ProjectGrant is a remembered approval with project scope as the engine's
// store keeps it: what exactly a tool was allowed to do, in which project.
type ProjectGrant struct {
	Action  string    // what exactly was approved, as the tool keys it
	Root    string    // the project root it is bound to
	Session string    // the session it was given in
	By      string    // the client that answered, when known
	At      time.Time // when
}

// GrantStore holds one tool's project grants in the engine's store, the
// one place they are kept: read at start, written at every change, and
// there after a restart. It is safe for concurrent use.
type GrantStore interface {
	// Grants returns the tool's project grants, oldest first.
	Grants(ctx context.Context) ([]ProjectGrant, error)
	// Add records g, replacing a grant of the same action and root.
	Add(ctx context.Context, g ProjectGrant) error
	// Revoke forgets the grants of action, in every project.
	Revoke(ctx context.Context, action string) error
}

// GrantKeeper is a Tool that remembers approvals with project scope (the
// bash tool). When the engine has a store it hands each such tool its
// GrantStore once, in Open, before any session runs: the tool keeps its
// project grants there instead of its own file. Without a store it is not
// called and the tool keeps them as it would alone.
type GrantKeeper interface {
	UseGrantStore(gs GrantStore) error
}

// storeGrants is the GrantStore of the tool registered as tool.
type storeGrants struct {
	st   *store.Store
	tool string
}

func (g storeGrants) Grants(ctx context.Context) ([]ProjectGrant, error) {
	all, err := g.st.Grants(ctx)
	if err != nil {
		return nil, err
	}
	var out []ProjectGrant
	for _, sg := range all {
		if sg.Tool == g.tool {
			out = append(out, ProjectGrant{Action: sg.Action, Root: sg.Dir, Session: sg.Session, By: sg.By, At: sg.At})
		}
	}
	return out, nil
}

func (g storeGrants) Add(ctx context.Context, pg ProjectGrant) error {
	return g.st.Update(ctx, func(tx *store.Tx) {
		tx.Grant(store.Grant{Session: pg.Session, Tool: g.tool, Action: pg.Action, Dir: pg.Root, By: pg.By, At: pg.At})
	})
}

func (g storeGrants) Revoke(ctx context.Context, action string) error {
	return g.st.Update(ctx, func(tx *store.Tx) { tx.RevokeGrant(g.tool, action) })
}

// giveGrantStores hands every GrantKeeper among the tools its GrantStore.
func (e *Engine) giveGrantStores() error {
	for _, name := range e.tools.Names() {
		t, _ := e.tools.Lookup(name)
		if d, ok := t.(describedTool); ok {
			t = d.Tool
		}
		if gk, ok := t.(GrantKeeper); ok {
			if err := gk.UseGrantStore(storeGrants{st: e.store, tool: name}); err != nil {
				return fmt.Errorf("store %s: tool %q: project grants: %w", e.store.Path(), name, err)
			}
		}
	}
	return nil
}

// ProjectRoot is the root a project grant made in dir is bound to: the
// nearest directory at or above dir holding .git, else dir itself ("" is
// the process's working directory).
func ProjectRoot(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	for d := dir; d != "" && d != "/"; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
	}
	return dir
}

// grantKey is one remembered approval of a confirm with a RememberKey:
// the tool's registered name, the key, and the project root (project
// grants; "" for a session's).
type grantKey struct{ tool, root, action string }

// projectGrants are the approvals the engine remembers with project scope
// for confirms with a RememberKey: in the engine's store when it has one
// (and there after a restart), else in memory for the engine's life.
type projectGrants struct {
	mu     sync.Mutex
	loaded bool
	held   map[grantKey]bool
}

// has reports whether k is granted; with a store, its grants are read at
// the first question.
func (e *Engine) hasProjectGrant(ctx context.Context, k grantKey) (bool, error) {
	g := &e.grants
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.loaded {
		g.held = map[grantKey]bool{}
		if e.store != nil {
			all, err := e.store.Grants(ctx)
			if err != nil {
				return false, fmt.Errorf("store %s: read the project grants: %w", e.store.Path(), err)
			}
			for _, sg := range all {
				g.held[grantKey{sg.Tool, sg.Dir, sg.Action}] = true
			}
		}
		g.loaded = true
	}
	return g.held[k], nil
}

// addProjectGrant remembers k, in the store first when there is one: a
// grant is held only once it is stored.
func (e *Engine) addProjectGrant(ctx context.Context, k grantKey, session, by string) error {
	if _, err := e.hasProjectGrant(ctx, k); err != nil { // loads what the store holds
		return err
	}
	if e.store != nil {
		if err := e.store.Update(ctx, func(tx *store.Tx) {
			tx.Grant(store.Grant{Session: session, Tool: k.tool, Action: k.action, Dir: k.root, By: by, At: time.Now()})
		}); err != nil {
			return fmt.Errorf("store %s: record the project grant: %w", e.store.Path(), err)
		}
	}
	e.grants.mu.Lock()
	e.grants.held[k] = true
	e.grants.mu.Unlock()
	return nil
}

// prepareRemember validates what req asks to remember and binds it to
// tool and the session's project; it returns what a grant of it is.
func (s *Session) prepareRemember(req *PauseRequest, tool string) error {
	for _, sc := range req.RememberScopes {
		if sc != RememberSession && sc != RememberProject {
			return fmt.Errorf("%w: pause request: remember scope %q (offer %q or %q)", ErrInvalidArgument, sc, RememberSession, RememberProject)
		}
	}
	if req.RememberKey == "" {
		return nil
	}
	if req.Kind != PauseConfirm {
		return fmt.Errorf("%w: pause request: remember key %q on a %s pause: only an approval is remembered (use kind %q)", ErrInvalidArgument, req.RememberKey, req.Kind, PauseConfirm)
	}
	if len(req.RememberScopes) == 0 {
		req.RememberScopes = []string{RememberSession, RememberProject}
	}
	req.grantTool, req.grantRoot = tool, ProjectRoot(s.dir)
	return nil
}

// granted reports the scope of a remembered approval that covers req ("" if
// none): the session's own first, then the project's.
func (s *Session) granted(ctx context.Context, req *PauseRequest) (string, error) {
	if req.RememberKey == "" {
		return "", nil
	}
	s.mu.Lock()
	_, mine := s.grants[grantKey{req.grantTool, "", req.RememberKey}]
	s.mu.Unlock()
	if mine && slices.Contains(req.RememberScopes, RememberSession) {
		return RememberSession, nil
	}
	if !slices.Contains(req.RememberScopes, RememberProject) {
		return "", nil
	}
	ok, err := s.eng.hasProjectGrant(ctx, grantKey{req.grantTool, req.grantRoot, req.RememberKey})
	if ok {
		return RememberProject, err
	}
	return "", err
}

// approveByGrant approves req for run r without asking, as the grant of
// scope allows, and says so to observers and in the audit log.
func (s *Session) approveByGrant(ctx context.Context, r *run, req *PauseRequest, scope string, step int) (PauseResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return PauseResult{Answer: AnswerInterrupted}, fmt.Errorf("session %s: %w", s.id, ErrClosed)
	}
	if s.run != r {
		return PauseResult{Answer: AnswerInterrupted}, fmt.Errorf("session %s: %w: the run that asked has ended", s.id, ErrNotRunning)
	}
	for _, c := range []context.Context{ctx, r.ctx} {
		if c.Err() != nil {
			return PauseResult{Answer: AnswerInterrupted}, interruptErr(c)
		}
	}
	tool := req.Tool
	if tool == "" {
		tool = req.grantTool
	}
	s.emitLocked(Event{Type: EventGranted, Tool: tool, Step: step, Text: req.RememberKey, Answer: AnswerApproved, Remember: scope, By: "grant"})
	return PauseResult{Answer: AnswerApproved, Remember: scope, By: "grant"}, nil
}

// rememberLocked records the approval of p with the scope res chose, when p
// asked to be remembered (a RememberKey). A grant that can't be stored is
// reported as a warning: the approval itself stands.
func (s *Session) rememberLocked(p *pending, res PauseResult) {
	if p.rememberKey == "" || res.Answer != AnswerApproved {
		return
	}
	switch res.Remember {
	case RememberSession:
		if s.grants == nil {
			s.grants = map[grantKey]struct{}{}
		}
		s.grants[grantKey{p.grantTool, "", p.rememberKey}] = struct{}{}
		s.persistLocked("the session's grant of "+p.rememberKey, func(tx *store.Tx) {
			tx.SessionGrant(s.id, store.SessionGrant{Tool: p.grantTool, Action: p.rememberKey, By: res.By, At: time.Now()})
		})
	case RememberProject:
		if err := s.eng.addProjectGrant(context.Background(), grantKey{p.grantTool, p.grantRoot, p.rememberKey}, s.id, res.By); err != nil {
			s.emitLocked(Event{Type: EventWarning, Tool: p.Tool, Text: fmt.Sprintf("approval of %q not remembered for the project: %v", p.rememberKey, err)})
		}
	}
}
