package engine

import (
	"context"
	"errors"
	"io"
)

// AttachFunc starts something that lives as long as the engine (a fleet
// hub's mirror: engine/hub): it is called once Open has recovered the
// store's sessions, and what it returns is closed first when the engine
// closes, before its sessions are.
type AttachFunc func(ctx context.Context, e *Engine) (io.Closer, error)

// WithAttachment attaches fn's part to the engine (see AttachFunc). An
// error from fn fails Open.
func WithAttachment(fn AttachFunc) Option {
	return func(e *Engine) { e.attachFns = append(e.attachFns, fn) }
}

// attach starts the engine's attachments.
func (e *Engine) attach(ctx context.Context) error {
	for _, fn := range e.attachFns {
		c, err := fn(ctx, e)
		if err != nil {
			return errors.Join(err, e.detach())
		}
		e.attached = append(e.attached, c)
	}
	return nil
}

// detach closes the attachments, the last attached first.
func (e *Engine) detach() error {
	var errs []error
	for i := len(e.attached) - 1; i >= 0; i-- {
		errs = append(errs, e.attached[i].Close())
	}
	e.attached = nil
	return errors.Join(errs...)
}
