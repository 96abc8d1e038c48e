package openai

// WithStreamLimit sets how many bytes a response may send (64 MB unless
// set): tests cut an endless stream sooner.
func WithStreamLimit(n int64) Option { return func(c *config) { c.streamLimit = n } }
