package engine

import (
	"context"
	"time"
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

// GrantHolder is a Tool that remembers approvals itself (the bash tool):
// Engine.Grants lists what it holds and Engine.RevokeGrant takes it back
// through it. name is the name the tool is registered under.
type GrantHolder interface {
	// HeldGrants lists the tool's grants: those of sessions, then its
	// project grants.
	HeldGrants(name string, sessions []*Session) []Grant
	// RevokeHeld forgets g; s is g's session for session scope (else nil).
	// An error wraps ErrUnknownGrant when the tool holds no such grant.
	RevokeHeld(g Grant, s *Session) error
}

// grantKey is one remembered approval of a confirm with a RememberKey:
// the tool's registered name, the key, and the project root (project
// grants; "" for a session's).
type grantKey struct{ tool, root, action string }

// inSession is the key of the same approval remembered for a session.
func (k grantKey) inSession() grantKey { return grantKey{tool: k.tool, action: k.action} }

// Changes of the remembered approvals: the Text of a grants_changed event.
const (
	GrantAdded   = "added"
	GrantRevoked = "revoked"
)

// Grant is an approval remembered for confirms with a RememberKey, as
// Engine.Grants lists it.
type Grant struct {
	Tool    string    `json:"tool"`              // the tool that asked, by its registered name
	Key     string    `json:"key"`               // the RememberKey it approves
	Scope   string    `json:"scope"`             // RememberSession or RememberProject
	Session string    `json:"session,omitempty"` // session scope: the session it belongs to
	Root    string    `json:"root,omitempty"`    // project scope: the project root it is bound to
	At      time.Time `json:"at"`
}
