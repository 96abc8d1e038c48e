package bash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/interlock-dev/interlock/engine"
)

// Scopes of a remembered approval, as passed to engine.Remember.
const (
	ScopeOnce    = engine.RememberOnce    // not remembered
	ScopeSession = engine.RememberSession // until the session closes; never shared with another session
	ScopeProject = engine.RememberProject // for every session of the Tool, kept in the engine's store (else WithProjectGrantsFile)
)

// ErrUnknownGrant is returned by Grants.Revoke for a command that has no
// grant: the engine's, so that Engine.RevokeGrant reports it the same way.
var ErrUnknownGrant = engine.ErrUnknownGrant

// Grant is one remembered approval. It covers exactly one judged action:
// Command is the program with its words as they will be when it runs
// (variables expanded, words that name paths resolved to absolute ones
// through their symlinks) followed by the working directory, e.g.
// "rm -rf /home/me/app/build (in /home/me/app)"; what it reads as code or
// SQL besides its words (a here-document, a file on stdin, a piped or a
// script file's code) is named by its SHA-256, e.g. "sqlite3 app.db <
// /srv/app/x.sql sha256:… (in /srv/app)". A command whose words are
// only known at run time is never granted. A project grant applies only in
// the project whose root (the git root above the session's directory, or
// that directory) is Root.
type Grant struct {
	Command string    `json:"command"`
	Scope   string    `json:"scope"`
	Root    string    `json:"root,omitempty"` // project grants: the project root it is bound to
	At      time.Time `json:"at"`
}

// Grants is a set of remembered approvals of one scope. It is safe for
// concurrent use. Project grants are written on every change to the
// engine's store when it has one (Tool.UseGrantStore), else to the file of
// WithProjectGrantsFile.
type Grants struct {
	scope string
	file  string            // "" keeps them in memory only
	store engine.GrantStore // the engine's store: the one place they are kept

	mu      sync.Mutex
	grants  map[grantID]Grant
	loadErr error // the file could not be read: never overwrite it
}

// grantID keys a grant: the judged action, and the project root for
// project grants.
type grantID struct{ root, command string }

func newGrants(scope, file string) *Grants {
	g := &Grants{scope: scope, file: file, grants: map[grantID]Grant{}}
	if file != "" {
		g.loadErr = g.load()
	}
	return g
}

// List returns the grants, sorted by command.
func (g *Grants) List() []Grant {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Grant, 0, len(g.grants))
	for _, gr := range g.grants {
		out = append(out, gr)
	}
	slices.SortFunc(out, compareGrants)
	return out
}

func compareGrants(a, b Grant) int {
	if c := strings.Compare(a.Root, b.Root); c != 0 {
		return c
	}
	return strings.Compare(a.Command, b.Command)
}

// Revoke forgets the grants for command (as listed, in every project) so
// that it is confirmed again. It returns ErrUnknownGrant if there is none.
// It tells no observer: Engine.RevokeGrant does (a grants_changed event),
// and is the way for anything that lists grants.
func (g *Grants) Revoke(command string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	found := false
	for id := range g.grants {
		if id.command == command {
			found = true
		}
	}
	if !found {
		return fmt.Errorf("%s grants: %q (list them to see what each covers): %w", g.scope, command, ErrUnknownGrant)
	}
	if g.store != nil {
		if err := g.store.Revoke(context.Background(), command); err != nil {
			return fmt.Errorf("bash: revoke the project grant %q: %w", command, err)
		}
	}
	for id := range g.grants {
		if id.command == command {
			delete(g.grants, id)
		}
	}
	return g.saveLocked()
}

// Err reports why the grants file could not be loaded; the grants then
// start empty and the file is left untouched.
func (g *Grants) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.loadErr
}

// has reports whether command is granted (in project root, for project
// grants). An empty command is an action that cannot be remembered.
func (g *Grants) has(command, root string) bool {
	if command == "" {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.grants[grantID{root, command}]
	return ok
}

// add grants commands (in project root, for project grants) given in
// session.
func (g *Grants) add(commands []string, root, session string, now time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range commands {
		if c == "" {
			continue
		}
		if g.store != nil {
			// Written first: a grant is held only once it is stored.
			if err := g.store.Add(context.Background(), engine.ProjectGrant{Action: c, Root: root, Session: session, At: now}); err != nil {
				return fmt.Errorf("bash: store the project grant: %w", err)
			}
		}
		g.grants[grantID{root, c}] = Grant{Command: c, Scope: g.scope, Root: root, At: now}
	}
	return g.saveLocked()
}

// useStore makes st the one place of these (project) grants: what it
// holds replaces what is in memory, and the file is no longer read or
// written.
func (g *Grants) useStore(st engine.GrantStore) error {
	held, err := st.Grants(context.Background())
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.store, g.file, g.loadErr = st, "", nil
	g.grants = make(map[grantID]Grant, len(held))
	for _, pg := range held {
		if pg.Action != "" && pg.Root != "" {
			g.grants[grantID{pg.Root, pg.Action}] = Grant{Command: pg.Action, Scope: g.scope, Root: pg.Root, At: pg.At}
		}
	}
	return nil
}

// grantsFileVersion 2 binds each grant to a project root; grants of
// version 1 (keyed by the command as written) are not loaded.
const grantsFileVersion = 2

type grantsFile struct {
	Version int     `json:"version"`
	Grants  []Grant `json:"grants"`
}

func (g *Grants) load() error {
	data, err := os.ReadFile(g.file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bash: read project grants: %w", err)
	}
	var f grantsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("bash: project grants file %s is not valid JSON (fix or delete it): %w", g.file, err)
	}
	if f.Version < grantsFileVersion {
		return nil // grants not bound to what was approved: dropped (the next save rewrites the file)
	}
	for _, gr := range f.Grants {
		if gr.Command != "" && gr.Root != "" {
			gr.Scope = g.scope
			g.grants[grantID{gr.Root, gr.Command}] = gr
		}
	}
	return nil
}

// saveLocked writes the file atomically (temp file + rename).
func (g *Grants) saveLocked() error {
	if g.file == "" {
		return nil
	}
	if g.loadErr != nil {
		return fmt.Errorf("bash: not saving project grants over a file that could not be read: %w", g.loadErr)
	}
	f := grantsFile{Version: grantsFileVersion, Grants: make([]Grant, 0, len(g.grants))}
	for _, gr := range g.grants {
		f.Grants = append(f.Grants, gr)
	}
	slices.SortFunc(f.Grants, compareGrants)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(g.file), ".grants-*.json")
	if err != nil {
		return fmt.Errorf("bash: save project grants: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("bash: save project grants: %w", err)
	}
	if err := os.Rename(tmp.Name(), g.file); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("bash: save project grants: %w", err)
	}
	return nil
}

// rememberScopes are the scopes a confirm of findings keyed keys offers:
// both when an approval covers every finding, none when one of them can't
// be remembered (the same question would be asked again).
func rememberScopes(keys []string) []string {
	if len(keys) == 0 || slices.Contains(keys, "") {
		return nil
	}
	return []string{ScopeSession, ScopeProject}
}

// actionKey is what a grant of the simple command args remembers: its
// words as they will be when it runs, the paths among them that exist
// resolved (symlinks followed), and the directory it runs in. why says
// why there is none: a word only known at run time.
func (l *level) actionKey(args []arg) (key, why string, done bool) {
	key, why = l.actionKeyOf(args)
	return key, why, true
}

func (l *level) actionKeyOf(args []arg) (key, why string) {
	if l.at == "" {
		return "", "its working directory is not known statically"
	}
	var b strings.Builder
	for i, a := range args {
		if !a.static || a.glob {
			return "", fmt.Sprintf("%s is only known when it runs", abbreviate(a.text))
		}
		t := a.text
		if i == 0 && !strings.Contains(t, "/") {
			t = commandBase(t)
		} else if !strings.HasPrefix(t, "-") {
			if p, ok := l.abs(a); ok {
				// A word that names a path (or a file that exists) is
				// remembered resolved: ~, a cd or a symlink on disk must not
				// make another file look like the approved one.
				if i == 0 || strings.ContainsAny(t, "/~") || strings.HasPrefix(t, ".") || l.c.exists(p) {
					t = p
				}
			}
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quote(t))
	}
	fmt.Fprintf(&b, " (in %s)", l.at)
	return b.String(), ""
}
