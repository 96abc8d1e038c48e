package bash

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Scopes of a remembered approval, as passed to engine.Remember.
const (
	ScopeOnce    = "once"    // not remembered
	ScopeSession = "session" // until the session closes; never shared with another session
	ScopeProject = "project" // for every session of the Tool, persisted with WithProjectGrantsFile
)

// ErrUnknownGrant is returned by Grants.Revoke for a command that has no grant.
var ErrUnknownGrant = errors.New("no grant for that command")

// Grant is one remembered approval: Command (a normalized simple command,
// as shown after the category in a reason) no longer needs confirming.
type Grant struct {
	Command string    `json:"command"`
	Scope   string    `json:"scope"`
	At      time.Time `json:"at"`
}

// Grants is a set of remembered approvals of one scope. It is safe for
// concurrent use. Project grants with a file are saved on every change.
type Grants struct {
	scope string
	file  string // "" keeps them in memory only

	mu      sync.Mutex
	grants  map[string]Grant
	loadErr error // the file could not be read: never overwrite it
}

func newGrants(scope, file string) *Grants {
	g := &Grants{scope: scope, file: file, grants: map[string]Grant{}}
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
	slices.SortFunc(out, func(a, b Grant) int { return strings.Compare(a.Command, b.Command) })
	return out
}

// Revoke forgets the grant for command (as listed) so that it is confirmed
// again. It returns ErrUnknownGrant if there is none.
func (g *Grants) Revoke(command string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.grants[command]; !ok {
		return fmt.Errorf("%s grants: %q: %w", g.scope, command, ErrUnknownGrant)
	}
	delete(g.grants, command)
	return g.saveLocked()
}

// Err reports why the grants file could not be loaded; the grants then
// start empty and the file is left untouched.
func (g *Grants) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.loadErr
}

func (g *Grants) has(command string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.grants[command]
	return ok
}

func (g *Grants) add(commands []string, now time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range commands {
		g.grants[c] = Grant{Command: c, Scope: g.scope, At: now}
	}
	return g.saveLocked()
}

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
	for _, gr := range f.Grants {
		if gr.Command != "" {
			gr.Scope = g.scope
			g.grants[gr.Command] = gr
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
	f := grantsFile{Version: 1, Grants: make([]Grant, 0, len(g.grants))}
	for _, gr := range g.grants {
		f.Grants = append(f.Grants, gr)
	}
	slices.SortFunc(f.Grants, func(a, b Grant) int { return strings.Compare(a.Command, b.Command) })
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
