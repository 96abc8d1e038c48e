package web

import (
	"time"
)

// DefaultSearchURL is the search endpoint used unless WithSearchURL says
// otherwise: DuckDuckGo's HTML results page, which needs no JavaScript.
const DefaultSearchURL = "https://html.duckduckgo.com/html/?q={query}"

// config is a Tool's settings; options fill it in New.
type config struct {
	searchURL        string
	display          string
	displaySet       bool
	navTimeout       time.Duration
	autoOpenDevTools bool
	execPath         string
	tempDir          string
	maxText          int // characters of page text returned
	maxLinks         int // links listed after the text
	maxResults       int // search results listed
	maxMatchLines    int // find_in_page lines listed
}

func defaultConfig() config {
	return config{
		searchURL:     DefaultSearchURL,
		navTimeout:    30 * time.Second,
		maxText:       20000,
		maxLinks:      100,
		maxResults:    20,
		maxMatchLines: 50,
	}
}

// Option configures a Tool.
type Option func(*config)

// WithSearchURL sets the search endpoint: an http or https URL template in
// which "{query}" is replaced by the query-escaped search terms, for example
// "http://127.0.0.1:8080/search?q={query}". The search action returns the
// result links of the page it loads.
func WithSearchURL(template string) Option { return func(c *config) { c.searchURL = template } }

// WithDisplay sets the X display headful browsers use (":99"). The empty
// string means there is no display: a headful or paused call stays headless
// and its pause message gives the page's DevTools address instead. Without
// this option the DISPLAY (or WAYLAND_DISPLAY) of the process is used.
func WithDisplay(display string) Option {
	return func(c *config) { c.display, c.displaySet = display, true }
}

// WithNavigationTimeout sets how long a page may take to load before the
// call fails with ErrTimeout. Default 30 s; zero or less keeps the default.
func WithNavigationTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.navTimeout = d
		}
	}
}

// WithAutoOpenDevTools opens Chrome DevTools for every tab of a headful
// browser (--auto-open-devtools-for-tabs), so a paused page can be
// inspected at once.
func WithAutoOpenDevTools(open bool) Option { return func(c *config) { c.autoOpenDevTools = open } }

// WithExecPath sets the Chromium executable. By default chromedp looks for
// chromium, google-chrome and the like on PATH.
func WithExecPath(path string) Option { return func(c *config) { c.execPath = path } }

// WithTempDir sets the directory in which browser profiles
// ("interlock-web-*", removed when the browser closes) and unnamed
// screenshots are created. Default: os.TempDir().
func WithTempDir(dir string) Option { return func(c *config) { c.tempDir = dir } }

// WithMaxText caps the page text a call returns, in characters (default
// 20000). The output says where and how much it cut.
func WithMaxText(chars int) Option {
	return func(c *config) {
		if chars > 0 {
			c.maxText = chars
		}
	}
}

// displayValue returns the display headful browsers would use and whether
// there is one; lookupEnv reads the process's environment.
func (c *config) displayValue(lookupEnv func(string) (string, bool)) (string, bool) {
	if c.displaySet {
		return c.display, c.display != ""
	}
	if d, _ := lookupEnv("DISPLAY"); d != "" {
		return d, true
	}
	if d, _ := lookupEnv("WAYLAND_DISPLAY"); d != "" {
		return d, true
	}
	return "", false
}
