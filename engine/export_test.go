package engine

// CrashStore leaves the engine's store as its process would if it died
// now: nothing more is written (later writes fail and are reported as
// warnings), and the lock is released for the next owner.
func (e *Engine) CrashStore() error { return e.store.Close() }

// Publish hands ev to the feed as the engine does.
func (f *Feed) Publish(ev Event) { f.publish(&ev) }

// WithAfterCommit calls fn after each of the engine's writes to its store
// has committed, with what it recorded: a kill-point test stops its
// process there.
func WithAfterCommit(fn func(what string)) Option { return func(e *Engine) { e.afterCommit = fn } }

// MaxParallelTools is how many of a turn's tool calls run at once.
const MaxParallelTools = maxParallelTools
