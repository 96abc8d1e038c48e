package engine

import (
	"context"
	"fmt"

	"github.com/interlock-dev/interlock/engine/store"
)

// AuditLog returns the store's audit log of pause decisions for session
// ("" for all sessions), oldest first. Without a store it is empty.
func (e *Engine) AuditLog(ctx context.Context, session string) ([]store.AuditEntry, error) {
	if e.store == nil {
		return nil, nil
	}
	return e.store.AuditLog(ctx, session)
}

// CheckStore runs SQLite's integrity check on the store: "ok" when sound.
func (e *Engine) CheckStore(ctx context.Context) (string, error) {
	if e.store == nil {
		return "", fmt.Errorf("engine: %w: no store configured (WithStore)", ErrInvalidArgument)
	}
	return e.store.IntegrityCheck(ctx)
}

// RecordAudit appends a to the store's audit log: a decision made outside
// a session's own transitions (an answer from a fleet hub refused as stale,
// expired or altered). Without a store it does nothing.
func (e *Engine) RecordAudit(ctx context.Context, a store.AuditEntry) error {
	if e.journal == nil {
		return nil
	}
	if err := e.journal.record(ctx, "the audit entry", transition{kind: transAudit, session: a.Session, audit: &a}); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	return nil
}
