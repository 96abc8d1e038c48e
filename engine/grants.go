package engine

import (
	"context"
	"fmt"
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
