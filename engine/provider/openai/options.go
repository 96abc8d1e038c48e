package openai

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"time"
)

// DefaultBaseURL is the server used when no base URL is given.
const DefaultBaseURL = "https://api.openai.com/v1"

// config is what the options set.
type config struct {
	baseURL     string
	model       string
	apiKeyEnv   string
	headers     map[string]string
	maxTokens   int
	temperature *float64
	system      string
	maxRetries  int
	backoff     time.Duration // first retry wait, doubling per retry
	httpClient  *http.Client
	streamLimit int64 // bytes a response may send (maxStreamBytes)
}

// Option configures a Provider.
type Option func(*config)

// WithBaseURL sets the server's API root, e.g. "http://127.0.0.1:11434/v1".
// Default DefaultBaseURL.
func WithBaseURL(u string) Option { return func(c *config) { c.baseURL = u } }

// WithModel sets the model name sent with every request (required).
func WithModel(m string) Option { return func(c *config) { c.model = m } }

// WithAPIKeyEnv names the environment variable holding the API key. It is
// read at every request, where the engine reads the environment
// (ModelRequest.LookupEnv), and never stored. "" sends no key (local
// servers).
func WithAPIKeyEnv(name string) Option { return func(c *config) { c.apiKeyEnv = name } }

// WithHeader adds an HTTP header to every request (e.g. OpenRouter's
// "HTTP-Referer").
func WithHeader(key, value string) Option {
	return func(c *config) {
		if c.headers == nil {
			c.headers = make(map[string]string)
		}
		c.headers[key] = value
	}
}

// WithMaxTokens caps the tokens of each model turn (max_tokens). 0: the
// server's default.
func WithMaxTokens(n int) Option { return func(c *config) { c.maxTokens = n } }

// WithTemperature sets the sampling temperature. Default: the server's.
func WithTemperature(t float64) Option { return func(c *config) { c.temperature = &t } }

// WithSystemPrompt sends text as the system message before the history.
func WithSystemPrompt(text string) Option { return func(c *config) { c.system = text } }

// WithRetries sets how often a 429, a 5xx or a failed connection is retried
// (default 3) and the first wait (default 500 ms), doubled at every retry
// and replaced by the server's Retry-After when it sends one. An interrupt
// ends the wait at once.
func WithRetries(n int, firstWait time.Duration) Option {
	return func(c *config) { c.maxRetries, c.backoff = n, firstWait }
}

// WithHTTPClient sets the HTTP client. It must not time out whole
// requests: a model turn streams for as long as it takes.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// Config is the provider's configuration as JSON, as hosts (the C API, the
// Node package, the demo) pass it: {"type": "openai", "baseUrl", "model",
// "apiKeyEnv", "headers", "maxTokens", "temperature", "system", "maxRetries",
// "retryWaitMs"}.
type Config struct {
	Type        string            `json:"type"` // "openai"
	BaseURL     string            `json:"baseUrl,omitempty"`
	Model       string            `json:"model"`
	APIKeyEnv   string            `json:"apiKeyEnv,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	MaxTokens   int               `json:"maxTokens,omitempty"`
	Temperature *float64          `json:"temperature,omitempty"`
	System      string            `json:"system,omitempty"`
	MaxRetries  *int              `json:"maxRetries,omitempty"`
	RetryWaitMS *int              `json:"retryWaitMs,omitempty"`
}

// Options turns c into options for New.
func (c Config) Options() []Option {
	opts := []Option{WithModel(c.Model), WithAPIKeyEnv(c.APIKeyEnv), WithMaxTokens(c.MaxTokens), WithSystemPrompt(c.System)}
	if c.BaseURL != "" {
		opts = append(opts, WithBaseURL(c.BaseURL))
	}
	for k, v := range c.Headers {
		opts = append(opts, WithHeader(k, v))
	}
	if c.Temperature != nil {
		opts = append(opts, WithTemperature(*c.Temperature))
	}
	if c.MaxRetries != nil || c.RetryWaitMS != nil {
		d := defaultConfig()
		n, wait := d.maxRetries, d.backoff
		if c.MaxRetries != nil {
			n = *c.MaxRetries
		}
		if c.RetryWaitMS != nil {
			wait = time.Duration(*c.RetryWaitMS) * time.Millisecond
		}
		opts = append(opts, WithRetries(n, wait))
	}
	return opts
}

func defaultConfig() config {
	return config{baseURL: DefaultBaseURL, maxRetries: 3, backoff: 500 * time.Millisecond, streamLimit: maxStreamBytes}
}

// validate reports the first setting that cannot work, saying how to fix it.
func (c *config) validate() error {
	if c.model == "" {
		return fmt.Errorf("%w: no model: set one (model / WithModel), e.g. \"gpt-4o-mini\" or \"qwen2.5\"", ErrConfig)
	}
	u, err := url.Parse(c.baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: base URL %q: use an http(s) URL of the API root, e.g. %q or \"http://127.0.0.1:11434/v1\"", ErrConfig, c.baseURL, DefaultBaseURL)
	}
	if c.maxTokens < 0 {
		return fmt.Errorf("%w: max tokens %d: use 0 (the server's default) or more", ErrConfig, c.maxTokens)
	}
	if c.maxRetries < 0 || c.backoff < 0 {
		return fmt.Errorf("%w: retries %d with first wait %s: both must be 0 or more", ErrConfig, c.maxRetries, c.backoff)
	}
	c.headers = maps.Clone(c.headers)
	return nil
}
