package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/chromedp/chromedp"
)

// Actions: the values of Args.Type.
const (
	ActionSearch            = "search"             // search the web for Query
	ActionOpenPage          = "open_page"          // the readable text and links of URL
	ActionFindInPage        = "find_in_page"       // the lines of URL's text that contain Pattern
	ActionCaptureScreenshot = "capture_screenshot" // a PNG of URL written to OutputPath
)

// Args are the arguments of one call, as the model sends them (seed 000's
// WebSearchAction): {"type": "open_page", "url": "https://...", "pause": true}.
type Args struct {
	Type       string `json:"type"`
	Query      string `json:"query,omitempty"`       // search
	URL        string `json:"url,omitempty"`         // open_page, find_in_page, capture_screenshot
	Pattern    string `json:"pattern,omitempty"`     // find_in_page: literal text, case-insensitive
	OutputPath string `json:"output_path,omitempty"` // capture_screenshot; "" writes a temp file; only a PNG may be replaced
	FullPage   bool   `json:"full_page,omitempty"`   // capture_screenshot: the whole page, not the viewport
	// Headless defaults to true. false shows the browser window when a
	// display is available.
	Headless *bool `json:"headless,omitempty"`
	// Pause raises a continue pause once the page has loaded, so the user
	// can look at it (and use DevTools) before the content is extracted.
	// It implies headless false.
	Pause bool `json:"pause,omitempty"`
}

// argsShape is the reminder given with argument errors.
const argsShape = `{"type": "search"|"open_page"|"find_in_page"|"capture_screenshot", "query", "url", "pattern", "output_path", "full_page", "headless", "pause"}`

// parseArgs decodes a call's arguments.
func parseArgs(raw json.RawMessage) (Args, error) {
	var a Args
	if len(bytes.TrimSpace(raw)) == 0 {
		return a, fmt.Errorf("%w: none given; want %s", ErrInvalidArgs, argsShape)
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("%w: %v; want %s", ErrInvalidArgs, err, argsShape)
	}
	return a, nil
}

// host is what a call needs from its session: the engine's Env, or a fake
// in tests.
type host interface {
	// pause raises a continue pause and returns nil once the user resumed.
	pause(ctx context.Context, message, details string) error
	progress(chunk string)
	dir() string // the session's working directory, for relative paths
	// lookupEnv reads a variable of the process's environment now.
	lookupEnv(key string) (string, bool)
	// environ is the environment a browser started now gets: the
	// process's now, then the session's own.
	environ() []string
}

// plan is a validated call.
type plan struct {
	Args
	target   string   // the URL to load
	endpoint *url.URL // search: the search site
	outPath  string   // capture_screenshot: absolute path, "" for a temp file
	headful  bool
	noteNoUI bool // a window was wanted but there is no display
}

// prepare validates the arguments before any browser work.
func (t *Tool) prepare(a Args, h host) (plan, error) {
	p := plan{Args: a}
	switch a.Type {
	case ActionSearch:
		q := strings.TrimSpace(a.Query)
		if q == "" {
			return p, fmt.Errorf("%w: search needs a non-empty \"query\"", ErrInvalidArgs)
		}
		tmpl := t.cfg.searchURL
		if !strings.Contains(tmpl, "{query}") {
			return p, fmt.Errorf("%w: the search endpoint %q has no {query} placeholder (see web.WithSearchURL)", ErrInvalidArgs, tmpl)
		}
		p.target = strings.ReplaceAll(tmpl, "{query}", url.QueryEscape(q))
		u, err := checkURL(p.target)
		if err != nil {
			return p, fmt.Errorf("search endpoint: %w", err)
		}
		p.endpoint = u
	case ActionOpenPage, ActionFindInPage, ActionCaptureScreenshot:
		if strings.TrimSpace(a.URL) == "" {
			return p, fmt.Errorf("%w: %s needs a \"url\" (http or https)", ErrInvalidArgs, a.Type)
		}
		u, err := checkURL(strings.TrimSpace(a.URL))
		if err != nil {
			return p, err
		}
		p.target = u.String()
		if a.Type == ActionFindInPage && a.Pattern == "" {
			return p, fmt.Errorf("%w: find_in_page needs a non-empty \"pattern\"", ErrInvalidArgs)
		}
		if a.Type == ActionCaptureScreenshot && a.OutputPath != "" {
			path, err := checkOutputPath(a.OutputPath, h.dir())
			if err != nil {
				return p, err
			}
			p.outPath = path
		}
	case "":
		return p, fmt.Errorf("%w: missing \"type\"; want one of search, open_page, find_in_page, capture_screenshot", ErrInvalidArgs)
	default:
		return p, fmt.Errorf("%w %q: want one of search, open_page, find_in_page, capture_screenshot", ErrUnknownAction, a.Type)
	}
	p.headful = a.Pause || (a.Headless != nil && !*a.Headless)
	if _, ok := t.cfg.displayValue(h.lookupEnv); p.headful && !ok {
		p.headful, p.noteNoUI = false, true
	}
	return p, nil
}

// checkURL accepts absolute http and https URLs only.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not a valid URL: %v", ErrURLNotAllowed, raw, err)
	}
	switch u.Scheme {
	case "http", "https":
	case "":
		return nil, fmt.Errorf("%w: %q has no scheme (write it as https://...)", ErrURLNotAllowed, raw)
	default:
		return nil, fmt.Errorf("%w: %q is a %s: URL", ErrURLNotAllowed, raw, u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: %q has no host", ErrURLNotAllowed, raw)
	}
	return u, nil
}

// checkOutputPath resolves a screenshot path against the session's directory
// and checks it can be created, so a bad path fails before any page loads.
func checkOutputPath(path, dir string) (string, error) {
	if !filepath.IsAbs(path) {
		if dir == "" {
			dir, _ = os.Getwd()
		}
		path = filepath.Join(dir, path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "", fmt.Errorf("%w to %q: it is a directory; give a file path such as %q", ErrScreenshotPath, path, filepath.Join(path, "page.png"))
	} else if err == nil && !isPNGFile(path) {
		// The tool asks nobody before writing: it replaces an earlier
		// screenshot, never a file of another kind (~/.bashrc, a source file).
		return "", fmt.Errorf("%w to %q: a file that is not a PNG image is there; choose a new path or remove it first", ErrScreenshotPath, path)
	}
	parent := filepath.Dir(path)
	fi, err := os.Stat(parent)
	switch {
	case err != nil:
		return "", fmt.Errorf("%w to %q: directory %q: %w", ErrScreenshotPath, path, parent, err)
	case !fi.IsDir():
		return "", fmt.Errorf("%w to %q: %q is not a directory", ErrScreenshotPath, path, parent)
	}
	return path, nil
}

// isPNGFile reports whether the file at path starts with the PNG signature.
func isPNGFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sig := make([]byte, len(pngSignature))
	n, _ := io.ReadFull(f, sig)
	return n == len(sig) && string(sig) == pngSignature
}

const pngSignature = "\x89PNG\r\n\x1a\n"

// do runs one validated call in a tab of the session's browser.
func (t *Tool) do(ctx context.Context, p plan, bs *browsers, h host) (string, error) {
	b, err := bs.get(ctx, p.headful, h.progress, h.environ)
	if err != nil {
		return "", t.failed(ctx, p, err)
	}
	tb, err := b.newTab(ctx)
	if err != nil {
		return "", t.failed(ctx, p, err)
	}
	defer tb.done()

	h.progress("Loading " + p.target + "\n")
	status, err := t.navigate(tb, p.target)
	if err != nil {
		return "", t.failed(ctx, p, err)
	}
	if p.Pause {
		msg := "Page loaded: " + p.target
		details := "DevTools: " + b.devToolsURL(tb)
		if p.noteNoUI {
			msg += " (no display available, so the browser stayed headless; inspect the page with DevTools at " + b.devToolsURL(tb) + ")"
		}
		if err := h.pause(ctx, msg, details); err != nil {
			return "", t.failed(ctx, p, err)
		}
	}
	out, err := t.act(tb, p, status)
	if err != nil {
		return "", t.failed(ctx, p, err)
	}
	if p.noteNoUI {
		out = "Note: no display is available, so the page was opened in a headless browser.\n\n" + out
	}
	return out, nil
}

// failed turns an error into the call's error: the interrupt when the call
// was interrupted (whatever chromedp said about its cancelled tab).
func (t *Tool) failed(ctx context.Context, p plan, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s %s: %w", p.Type, p.target, context.Cause(ctx))
	}
	return err
}

// navigate loads target in the tab and returns the HTTP status line.
func (t *Tool) navigate(tb *tab, target string) (string, error) {
	nctx, cancel := context.WithTimeout(tb.ctx, t.cfg.navTimeout)
	defer cancel()
	resp, err := chromedp.Run(nctx, chromedp.NavigateResponse(target))
	var loadErr *chromedp.LoadError
	switch {
	case err == nil:
	case tb.ctx.Err() != nil: // interrupted (failed reports that) or the browser went away
		return "", fmt.Errorf("%w: the tab closed while loading %s: %w", ErrBrowser, target, err)
	case errors.Is(err, context.DeadlineExceeded):
		return "", fmt.Errorf("%w: %s did not finish loading within %s", ErrTimeout, target, t.cfg.navTimeout)
	case errors.As(err, &loadErr):
		return "", fmt.Errorf("%w: %s: %s%s", ErrUnreachable, target, loadErr.ErrorText, loadErrorHint(loadErr.ErrorText))
	default:
		return "", fmt.Errorf("%w: loading %s: %w", ErrBrowser, target, err)
	}
	if resp == nil {
		return "", nil
	}
	return strings.TrimSpace(fmt.Sprintf("%d %s", resp.Status, resp.StatusText)), nil
}

// loadErrorHint explains the browser's commonest load errors to the model.
func loadErrorHint(code string) string {
	switch code {
	case "net::ERR_CONNECTION_REFUSED":
		return " (nothing listens at that host and port)"
	case "net::ERR_NAME_NOT_RESOLVED":
		return " (unknown host name)"
	case "net::ERR_ADDRESS_UNREACHABLE":
		return " (the host cannot be reached)"
	case "net::ERR_CONNECTION_TIMED_OUT":
		return " (the host did not answer)"
	case "net::ERR_HTTP_RESPONSE_CODE_FAILURE":
		return " (the server answered with an error status and no page)"
	case "net::ERR_ABORTED":
		return " (no page to show: a download, or an empty response)"
	case "net::ERR_CERT_AUTHORITY_INVALID":
		return " (the TLS certificate is not trusted)"
	case "net::ERR_UNSAFE_PORT":
		return " (the browser refuses that port)"
	}
	return ""
}

// act extracts what the action asks for from the loaded page.
func (t *Tool) act(tb *tab, p plan, status string) (string, error) {
	actx, cancel := context.WithTimeout(tb.ctx, t.cfg.navTimeout)
	defer cancel()
	if p.Type == ActionCaptureScreenshot {
		return t.screenshot(actx, p)
	}
	page, err := chromedp.Run(actx, chromedp.Evaluate[pageContent](extractScript))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && tb.ctx.Err() == nil {
			return "", fmt.Errorf("%w: reading %s took longer than %s", ErrTimeout, p.target, t.cfg.navTimeout)
		}
		return "", fmt.Errorf("%w: reading %s: %w", ErrBrowser, p.target, err)
	}
	switch p.Type {
	case ActionSearch:
		return formatSearch(strings.TrimSpace(p.Query), page, searchResults(page, p.endpoint), &t.cfg), nil
	case ActionFindInPage:
		return findInText(page, p.Pattern, &t.cfg), nil
	}
	return formatPage(page, status, &t.cfg), nil
}

// screenshot captures the page as PNG and writes it.
func (t *Tool) screenshot(ctx context.Context, p plan) (string, error) {
	capture := chromedp.CaptureScreenshot()
	kind := "viewport"
	if p.FullPage {
		capture, kind = chromedp.FullScreenshot(100), "full page" // quality 100 is PNG
	}
	data, err := chromedp.Run(ctx, capture)
	if err != nil {
		return "", fmt.Errorf("%w: screenshot of %s: %w", ErrBrowser, p.target, err)
	}
	path := p.outPath
	if path == "" {
		f, err := os.CreateTemp(t.cfg.tempDir, "interlock-screenshot-*.png")
		if err != nil {
			return "", fmt.Errorf("%w: temporary file: %w", ErrScreenshotPath, err)
		}
		path = f.Name()
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return "", fmt.Errorf("%w to %q: %w", ErrScreenshotPath, path, err)
		}
	} else if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("%w to %q: %w", ErrScreenshotPath, path, err)
	}
	size := ""
	if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err == nil {
		size = fmt.Sprintf(", %dx%d px", cfg.Width, cfg.Height)
	}
	return fmt.Sprintf("Saved a %s screenshot of %s to %s (%d bytes%s, PNG).", kind, p.target, path, len(data), size), nil
}
