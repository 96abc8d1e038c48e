package engine

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// storeGrants is the GrantStore of the tool registered as tool.
type storeGrants struct {
	e    *Engine
	tool string
}

func (g storeGrants) Grants(ctx context.Context) ([]ProjectGrant, error) {
	all, err := g.e.store.Grants(ctx)
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
	return g.e.journal.record(ctx, "the project grant of "+pg.Action, transition{kind: transGrantAdded,
		grant: &grantRecord{scope: RememberProject, session: pg.Session, tool: g.tool, action: pg.Action, root: pg.Root, by: pg.By, at: pg.At}})
}

func (g storeGrants) Revoke(ctx context.Context, action string) error {
	return g.e.journal.record(ctx, "the revocation of "+action, transition{kind: transGrantRevoked,
		grant: &grantRecord{scope: RememberProject, tool: g.tool, action: action, anyRoot: true}})
}

// registered returns the tools as registered, each with its name (the
// tool itself when it was Described).
func (e *Engine) registered() map[string]Tool {
	out := map[string]Tool{}
	for _, name := range e.tools.Names() {
		t, _ := e.tools.Lookup(name)
		if d, ok := t.(describedTool); ok {
			t = d.Tool
		}
		out[name] = t
	}
	return out
}

// giveGrantStores hands every GrantKeeper among the tools its GrantStore.
func (e *Engine) giveGrantStores() error {
	for name, t := range e.registered() {
		if gk, ok := t.(GrantKeeper); ok {
			if err := gk.UseGrantStore(storeGrants{e: e, tool: name}); err != nil {
				return fmt.Errorf("store %s: tool %q: project grants: %w", e.store.Path(), name, err)
			}
		}
	}
	return nil
}

// ProjectRoot is the root a project grant made in dir is bound to: the
// nearest directory at or above dir holding .git, else dir itself ("" is
// the process's working directory), symlinks resolved: a link can't make
// another directory look like the approved project.
func ProjectRoot(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			dir = real
		}
	}
	for d := dir; d != "" && d != "/"; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
	}
	return dir
}

// projectGrants are the approvals the engine remembers with project scope
// for confirms with a RememberKey: in the engine's store when it has one
// (and there after a restart), else in memory for the engine's life.
type projectGrants struct {
	mu     sync.Mutex
	loaded bool
	held   map[grantKey]time.Time // when each was given

	// changes orders the grants_changed events alike in the log and the feeds.
	changes sync.Mutex
}

// grantChanged tells every observer that g was added or revoked
// (EventGrantsChanged): the engine's event, in no session. Lists of what is
// approved without asking (the web UI, the TUI's GrantsView) read the
// grants again on it, whoever changed them.
func (e *Engine) grantChanged(change string, g Grant) {
	ev := Event{Type: EventGrantsChanged, Tool: g.Tool, Text: change, Grant: &g, At: time.Now()}
	ev.MonoNS = MonoNanos(ev.At)
	e.grants.changes.Lock()
	defer e.grants.changes.Unlock()
	e.log.append(&ev)
	e.publishFeeds(&ev)
}

// hasProjectGrant reports whether k is granted; with a store, its grants are read at
// the first question.
func (e *Engine) hasProjectGrant(ctx context.Context, k grantKey) (bool, error) {
	g := &e.grants
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.loaded {
		g.held = map[grantKey]time.Time{}
		if e.store != nil {
			all, err := e.store.Grants(ctx)
			if err != nil {
				return false, fmt.Errorf("store %s: read the project grants: %w", e.store.Path(), err)
			}
			for _, sg := range all {
				g.held[grantKey{sg.Tool, sg.Dir, sg.Action}] = sg.At
			}
		}
		g.loaded = true
	}
	_, ok := g.held[k]
	return ok, nil
}

// holdProjectGrant holds k, stored already (or without a store), as given
// at at.
func (e *Engine) holdProjectGrant(k grantKey, at time.Time) {
	if _, err := e.hasProjectGrant(context.Background(), k); err != nil {
		return // not loaded: read from the store, with k, at the next question
	}
	e.grants.mu.Lock()
	e.grants.held[k] = at
	e.grants.mu.Unlock()
}

// bothScopes is what a confirm with a RememberKey offers by default (shared:
// never modified).
var bothScopes = []string{RememberSession, RememberProject}

// prepareRemember validates what req asks to remember and binds it to
// tool (granted binds it to the session's project, when it is offered).
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
	if req.ToolRemembers {
		return nil // shown with the scopes the tool offers; the tool keeps the grant
	}
	if len(req.RememberScopes) == 0 {
		req.RememberScopes = bothScopes
	}
	req.grant = &grantKey{tool: tool, action: req.RememberKey}
	return nil
}

// granted reports the scope of a remembered approval that covers req ("" if
// none): the session's own first, then the project's.
func (s *Session) granted(ctx context.Context, req *PauseRequest) (string, error) {
	g := req.grant
	if g == nil {
		return "", nil
	}
	s.mu.Lock()
	_, mine := s.grants[g.inSession()]
	s.mu.Unlock()
	if mine && slices.Contains(req.RememberScopes, RememberSession) {
		return RememberSession, nil
	}
	if !slices.Contains(req.RememberScopes, RememberProject) {
		return "", nil
	}
	// Found on disk (symlinks, .git) at each question, so only when a
	// project grant could answer or be given.
	g.root = ProjectRoot(s.dir)
	ok, err := s.eng.hasProjectGrant(ctx, *g)
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
		tool = req.grant.tool
	}
	s.emitLocked(Event{Type: EventGranted, Tool: tool, Step: step, Text: req.RememberKey, Answer: AnswerApproved, Remember: scope, By: "grant"})
	return PauseResult{Answer: AnswerApproved, Remember: scope, By: "grant"}, nil
}

// remembering is an approval a user chose to remember (PauseResult.Remember
// "session" or "project" on a pause with a RememberKey). It is written in
// the same transaction as the answer that gave it (recordEventLocked), so
// that no restart finds the one without the other, then held.
type remembering struct {
	key        grantKey // root "" for the session's
	scope      string
	by         string
	at         time.Time
	unrecorded bool // the answer was not recorded (see recordLocked)
}

// rememberingOf is what answering p with res remembers (nil: nothing).
func rememberingOf(p *pending, res PauseResult) *remembering {
	if p.grant == nil || res.Answer != AnswerApproved || (res.Remember != RememberSession && res.Remember != RememberProject) {
		return nil
	}
	g := &remembering{key: *p.grant, scope: res.Remember, by: res.By, at: time.Now()}
	if g.scope == RememberSession {
		g.key = g.key.inSession()
	}
	return g
}

// record is g, given in session, as it is recorded.
func (g *remembering) record(session string) *grantRecord {
	r := &grantRecord{scope: g.scope, session: session, tool: g.key.tool, action: g.key.action, by: g.by, at: g.at}
	if g.scope == RememberProject {
		r.root = g.key.root
	}
	return r
}

// rememberedLocked holds g once its answer was recorded, and tells every
// observer. A project grant that could not be stored is not held (and a
// warning says so): it would be gone after a restart. A session's is held
// for the session's life all the same (the store's warning says it would
// not come back after a crash).
func (s *Session) rememberedLocked(p *pending, g *remembering) {
	switch g.scope {
	case RememberSession:
		if s.grants == nil {
			s.grants = map[grantKey]time.Time{}
		}
		s.grants[g.key] = g.at
		s.eng.grantChanged(GrantAdded, Grant{Tool: g.key.tool, Key: g.key.action, Scope: RememberSession, Session: s.id, At: g.at})
	case RememberProject:
		if g.unrecorded {
			s.emitLocked(Event{Type: EventWarning, Tool: p.Tool, Text: fmt.Sprintf("approval of %q not remembered for the project: the store did not record it", g.key.action)})
			return
		}
		s.eng.holdProjectGrant(g.key, g.at)
		s.eng.grantChanged(GrantAdded, Grant{Tool: g.key.tool, Key: g.key.action, Scope: RememberProject, Root: g.key.root, At: g.at})
	}
}

// GrantAdded tells observers that holder, a tool that keeps its own
// grants (GrantHolder: the bash tool), remembered an approval of key with
// scope (in the project at root for RememberProject), as the engine does
// for the grants it keeps: a grants_changed event.
func (e *Env) GrantAdded(holder GrantHolder, key, scope, root string, at time.Time) {
	eng := e.session.eng
	name := e.call.Name // "" in a host's run: the name holder is registered under
	for n, t := range eng.registered() {
		if reflect.TypeOf(t) == reflect.TypeOf(holder) && reflect.TypeOf(t).Comparable() && any(t) == any(holder) {
			name = n
			break
		}
	}
	g := Grant{Tool: name, Key: key, Scope: scope, At: at}
	if scope == RememberSession {
		g.Session = e.session.id
		e.session.mu.Lock()
		e.session.toolGranted = true
		e.session.mu.Unlock()
	} else {
		g.Root = root
	}
	eng.grantChanged(GrantAdded, g)
}

// Grants lists the approvals remembered without asking again: for
// confirms with a RememberKey, and those a GrantHolder tool keeps (bash):
// every session's own (by session), then the project grants (by root), so
// that a user can see what is approved without asking and take it back
// (RevokeGrant).
func (e *Engine) Grants(ctx context.Context) ([]Grant, error) {
	var out []Grant
	sessions := e.Sessions()
	for name, t := range e.registered() {
		if h, ok := t.(GrantHolder); ok {
			out = append(out, h.HeldGrants(name, sessions)...)
		}
	}
	for _, s := range sessions {
		s.mu.Lock()
		for k, at := range s.grants {
			out = append(out, Grant{Tool: k.tool, Key: k.action, Scope: RememberSession, Session: s.id, At: at})
		}
		s.mu.Unlock()
	}
	if _, err := e.hasProjectGrant(ctx, grantKey{}); err != nil { // loads what the store holds
		return nil, err
	}
	keepers := e.grantKeepers()
	e.grants.mu.Lock()
	for k, at := range e.grants.held {
		if !keepers[k.tool] {
			out = append(out, Grant{Tool: k.tool, Key: k.action, Scope: RememberProject, Root: k.root, At: at})
		}
	}
	e.grants.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Grant) int {
		return cmp.Or(strings.Compare(b.Scope, a.Scope), strings.Compare(a.Session, b.Session), strings.Compare(a.Root, b.Root),
			strings.Compare(a.Tool, b.Tool), strings.Compare(a.Key, b.Key))
	})
	return out, nil
}

// sessionGrants lists the grants of session s: the engine's and those its
// tools keep (GrantHolder). Called without s's lock.
func (e *Engine) sessionGrants(s *Session) []Grant {
	var out []Grant
	for name, t := range e.registered() {
		if h, ok := t.(GrantHolder); ok {
			for _, g := range h.HeldGrants(name, []*Session{s}) {
				if g.Scope == RememberSession {
					out = append(out, g)
				}
			}
		}
	}
	s.mu.Lock()
	for k, at := range s.grants {
		out = append(out, Grant{Tool: k.tool, Key: k.action, Scope: RememberSession, Session: s.id, At: at})
	}
	s.mu.Unlock()
	return out
}

// RevokeGrant forgets the remembered approval g names (by Scope, Tool, Key,
// and Session or Root, as Grants lists it): the next such confirm asks
// again, and every observer is told (a grants_changed event per grant
// taken back). It returns an error wrapping ErrUnknownGrant if there is none.
func (e *Engine) RevokeGrant(ctx context.Context, g Grant) error {
	if g.Scope != RememberSession && g.Scope != RememberProject {
		return fmt.Errorf("%w: grant scope %q (want %q or %q)", ErrInvalidArgument, g.Scope, RememberSession, RememberProject)
	}
	var s *Session
	if g.Scope == RememberSession {
		var err error
		if s, err = e.Session(g.Session); err != nil {
			return fmt.Errorf("revoke the session grant %q of %s: %w", g.Key, g.Tool, err)
		}
	}
	if h, ok := e.registered()[g.Tool].(GrantHolder); ok {
		return e.revokeHeld(h, g, s)
	}
	if s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		k := grantKey{g.Tool, "", g.Key}
		at, ok := s.grants[k]
		if !ok {
			return fmt.Errorf("session %s: %s %q: %w (list them with Grants)", s.id, g.Tool, g.Key, ErrUnknownGrant)
		}
		// Stored first, as a project grant's: a revocation only a warning
		// said was not stored would approve again after a restart.
		if e.journal != nil {
			if err := e.journal.record(ctx, "the revocation of "+g.Key, transition{kind: transGrantRevoked, session: s.id,
				grant: &grantRecord{scope: RememberSession, session: s.id, tool: g.Tool, action: g.Key}}); err != nil {
				return fmt.Errorf("session %s: revoke the grant %q: %w", s.id, g.Key, err)
			}
		}
		delete(s.grants, k)
		e.grantChanged(GrantRevoked, Grant{Tool: g.Tool, Key: g.Key, Scope: RememberSession, Session: s.id, At: at})
		return nil
	}
	k := grantKey{g.Tool, g.Root, g.Key}
	ok, err := e.hasProjectGrant(ctx, k)
	if err != nil {
		return err
	}
	if !ok || e.grantKeepers()[g.Tool] {
		return fmt.Errorf("project %s: %s %q: %w (list them with Grants)", g.Root, g.Tool, g.Key, ErrUnknownGrant)
	}
	if e.journal != nil {
		if err := e.journal.record(ctx, "the revocation of "+g.Key, transition{kind: transGrantRevoked,
			grant: &grantRecord{scope: RememberProject, tool: g.Tool, root: g.Root, action: g.Key}}); err != nil {
			return fmt.Errorf("store %s: revoke the project grant %q: %w", e.store.Path(), g.Key, err)
		}
	}
	e.grants.mu.Lock()
	at := e.grants.held[k]
	delete(e.grants.held, k)
	e.grants.mu.Unlock()
	e.grantChanged(GrantRevoked, Grant{Tool: g.Tool, Key: g.Key, Scope: RememberProject, Root: g.Root, At: at})
	return nil
}

// revokeHeld takes back g of holder h (s: g's session for session scope)
// and tells observers of every grant it took: a project grant of a
// GrantHolder is revoked in every project.
func (e *Engine) revokeHeld(h GrantHolder, g Grant, s *Session) error {
	var sessions []*Session
	if s != nil {
		sessions = []*Session{s}
	}
	var gone []Grant
	for _, held := range h.HeldGrants(g.Tool, sessions) {
		if held.Scope == g.Scope && held.Key == g.Key {
			gone = append(gone, held)
		}
	}
	if err := h.RevokeHeld(g, s); err != nil {
		return err
	}
	for _, held := range gone {
		e.grantChanged(GrantRevoked, held)
	}
	return nil
}

// grantKeepers are the names of the tools that keep their own project
// grants in the store (GrantKeeper): their rows are theirs to list.
func (e *Engine) grantKeepers() map[string]bool {
	out := map[string]bool{}
	for name, t := range e.registered() {
		if _, ok := t.(GrantKeeper); ok {
			out[name] = true
		}
	}
	return out
}
