package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeHost stands in for a session in the tests that need no engine.
type fakeHost struct {
	workdir string
	onPause func(ctx context.Context, message, details string) error

	mu     sync.Mutex
	pauses []string
	chunks []string
}

func (h *fakeHost) pause(ctx context.Context, message, details string) error {
	h.mu.Lock()
	h.pauses = append(h.pauses, message)
	h.mu.Unlock()
	if h.onPause != nil {
		return h.onPause(ctx, message, details)
	}
	return nil
}

func (h *fakeHost) progress(chunk string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.chunks = append(h.chunks, chunk)
}

func (h *fakeHost) dir() string                         { return h.workdir }
func (h *fakeHost) lookupEnv(key string) (string, bool) { return os.LookupEnv(key) }
func (h *fakeHost) environ() []string                   { return os.Environ() }

// harness is a tool with one session's browsers, closed when the test ends.
type harness struct {
	tool *Tool
	bs   *browsers
}

func newHarness(t testing.TB, opts ...Option) *harness {
	tool := New(append([]Option{WithTempDir(testTempDir)}, opts...)...)
	h := &harness{tool: tool, bs: newBrowsers(&tool.cfg)}
	t.Cleanup(func() { assert.NoError(t, h.bs.Close()) })
	return h
}

func (h *harness) call(ctx context.Context, host host, args any) (string, error) {
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			panic(err)
		}
		raw = string(b)
	}
	return h.tool.call(ctx, json.RawMessage(raw), host, func() *browsers { return h.bs })
}

func TestPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	h := newHarness(t, WithSearchURL(s.URL+"/search?q={query}"))

	t.Run("open_page", func(t *testing.T) {
		t.Parallel()
		out, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/"})
		require.NoError(t, err)
		assert.Contains(t, out, "Title: Interlock test page\n")
		assert.Contains(t, out, "URL: "+s.URL+"/\n")
		assert.Contains(t, out, "Status: 200 OK")
		assert.Contains(t, out, "Welcome to the test page", "whitespace collapsed")
		assert.Contains(t, out, "Another paragraph with odd spacing and a Fox.")
		for _, hidden := range []string{"SCRIPT-BODY", "hidden-style", "NOSCRIPT", "HIDDEN-SHOULD"} {
			assert.NotContains(t, out, hidden)
		}
		assert.Contains(t, out, "Links (3):")
		assert.Contains(t, out, "- About us: "+s.URL+"/about\n")
		assert.Contains(t, out, "- Relative link: "+s.URL+"/relative/page.html\n")
		assert.Contains(t, out, "- Example: https://example.org/x?y=1")
		assert.NotContains(t, out, "mailto:")
		assert.NotContains(t, out, "javascript:")
	})

	t.Run("open_page caps the text and says so", func(t *testing.T) {
		t.Parallel()
		out, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/long"})
		require.NoError(t, err)
		assert.Contains(t, out, "Line 0 of a long page")
		assert.NotContains(t, out, "Line 1999 ")
		assert.Regexp(t, `\[text cut: showing the first 20000 of \d+ characters\]`, out)
	})

	t.Run("open_page dismisses dialogs", func(t *testing.T) {
		t.Parallel()
		out, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/alert"})
		require.NoError(t, err)
		assert.Contains(t, out, "After the dialogs")
	})

	t.Run("find_in_page", func(t *testing.T) {
		t.Parallel()
		out, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionFindInPage, URL: s.URL + "/", Pattern: "FOX"})
		require.NoError(t, err)
		assert.Contains(t, out, `Found 2 matches of "FOX" in 2 lines on `+s.URL+"/:")
		assert.Contains(t, out, "The quick brown fox jumps over the lazy dog.")
		assert.Contains(t, out, "Another paragraph with odd spacing and a Fox.")

		out, err = h.call(t.Context(), &fakeHost{}, Args{Type: ActionFindInPage, URL: s.URL + "/", Pattern: "zebra"})
		require.NoError(t, err)
		assert.Contains(t, out, `No matches for "zebra"`)
	})

	t.Run("search", func(t *testing.T) {
		t.Parallel()
		host := &fakeHost{}
		out, err := h.call(t.Context(), host, Args{Type: ActionSearch, Query: "go & chromedp"})
		require.NoError(t, err)
		assert.Contains(t, out, "Search results for")
		assert.Contains(t, out, `Search results for "go & chromedp" (2, from `)
		assert.Contains(t, out, "1. First result about go & chromedp\n   http://results.invalid/first")
		assert.Contains(t, out, "2. Second result (redirect)\n   https://second.invalid/path?a=b")
		for _, nav := range []string{"Home", "Settings", "Next page", "again"} {
			assert.NotContains(t, out, nav, "the search site's own links are not results")
		}
		assert.Contains(t, strings.Join(host.chunks, ""), "Loading "+s.URL+"/search?q=go+%26+chromedp")
	})

	t.Run("search with no results returns the text", func(t *testing.T) {
		t.Parallel()
		out, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionSearch, Query: " nothing "})
		require.NoError(t, err)
		assert.Contains(t, out, `No result links found for "nothing"`)
		assert.Contains(t, out, "No results here.")
	})

	t.Run("capture_screenshot", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		out, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionCaptureScreenshot, URL: s.URL + "/tall", OutputPath: filepath.Join(dir, "view.png")})
		require.NoError(t, err)
		assert.Contains(t, out, "viewport screenshot")
		w, hgt := checkPNG(t, filepath.Join(dir, "view.png"))
		assert.Equal(t, 1280, w)
		assert.Less(t, hgt, 3000)

		// A relative path is the session's directory's.
		out, err = h.call(t.Context(), &fakeHost{workdir: dir}, Args{Type: ActionCaptureScreenshot, URL: s.URL + "/tall", OutputPath: "full.png", FullPage: true})
		require.NoError(t, err)
		assert.Contains(t, out, "full page screenshot")
		assert.Contains(t, out, filepath.Join(dir, "full.png"))
		_, hgt = checkPNG(t, filepath.Join(dir, "full.png"))
		assert.GreaterOrEqual(t, hgt, 3000)

		// An earlier screenshot may be replaced (other files may not: TestBadInput).
		_, err = h.call(t.Context(), &fakeHost{workdir: dir}, Args{Type: ActionCaptureScreenshot, URL: s.URL + "/tall", OutputPath: "full.png"})
		require.NoError(t, err)
		_, hgt = checkPNG(t, filepath.Join(dir, "full.png"))
		assert.Less(t, hgt, 3000)
	})

	t.Run("capture_screenshot to a temp file", func(t *testing.T) {
		t.Parallel()
		out, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionCaptureScreenshot, URL: s.URL + "/"})
		require.NoError(t, err)
		path := strings.Fields(out[strings.Index(out, " to ")+4:])[0]
		t.Cleanup(func() { os.Remove(path) })
		assert.True(t, strings.HasPrefix(path, filepath.Join(testTempDir, "interlock-screenshot-")), path)
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Contains(t, out, "("+itoa(fi.Size())+" bytes")
		checkPNG(t, path)
	})
}

// browserArgs is the command line of a process.
func browserArgs(t testing.TB, pid int) []string {
	t.Helper()
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	require.NoError(t, err)
	return strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// checkPNG asserts path is a real PNG and returns its size.
func checkPNG(t *testing.T, path string) (int, int) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")), "PNG magic bytes")
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	return img.Bounds().Dx(), img.Bounds().Dy()
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	h := newHarness(t, WithNavigationTimeout(300*time.Millisecond), WithDisplay(""))
	unreachable := closedPortURL(t)
	file := filepath.Join(t.TempDir(), "file.txt")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	dir := t.TempDir()

	tests := []struct {
		name    string
		args    string
		wantErr error
		want    []string // in the message
	}{
		{"no args", ``, ErrInvalidArgs, []string{"none given", `"type"`}},
		{"bad json", `{"type": "open_page", "url": 3}`, ErrInvalidArgs, []string{"cannot unmarshal"}},
		{"missing type", `{"url": "http://127.0.0.1/"}`, ErrInvalidArgs, []string{`missing "type"`}},
		{"unknown action", `{"type": "delete_page", "url": "http://127.0.0.1/"}`, ErrUnknownAction, []string{`"delete_page"`, "open_page"}},
		{"missing url", `{"type": "open_page"}`, ErrInvalidArgs, []string{`open_page needs a "url"`}},
		{"missing query", `{"type": "search", "query": "  "}`, ErrInvalidArgs, []string{`"query"`}},
		{"missing pattern", `{"type": "find_in_page", "url": "http://127.0.0.1/"}`, ErrInvalidArgs, []string{`"pattern"`}},
		{"ftp url", `{"type": "open_page", "url": "ftp://example.org/file"}`, ErrURLNotAllowed, []string{`only http and https URLs can be opened: "ftp://example.org/file" is a ftp: URL`}},
		{"file url", `{"type": "open_page", "url": "file:///etc/passwd"}`, ErrURLNotAllowed, []string{`"file:///etc/passwd"`}},
		{"javascript url", `{"type": "find_in_page", "url": "javascript:alert(1)", "pattern": "x"}`, ErrURLNotAllowed, []string{`"javascript:alert(1)"`}},
		{"garbage url", `{"type": "open_page", "url": "::not a url::"}`, ErrURLNotAllowed, []string{`"::not a url::"`}},
		{"no scheme", `{"type": "open_page", "url": "example.org/page"}`, ErrURLNotAllowed, []string{`"example.org/page"`, "https://"}},
		{"no host", `{"type": "open_page", "url": "http:///path"}`, ErrURLNotAllowed, []string{"no host"}},
		{"screenshot dir missing", `{"type": "capture_screenshot", "url": "http://127.0.0.1/", "output_path": "` + dir + `/no/such/dir/x.png"}`, ErrScreenshotPath, []string{dir + "/no/such/dir/x.png", "no such file"}},
		{"screenshot under a file", `{"type": "capture_screenshot", "url": "http://127.0.0.1/", "output_path": "` + file + `/x.png"}`, ErrScreenshotPath, []string{"is not a directory"}},
		{"screenshot over a file that is not a PNG", `{"type": "capture_screenshot", "url": "http://127.0.0.1/", "output_path": "` + file + `"}`, ErrScreenshotPath, []string{file, "not a PNG"}},
		{"screenshot to a directory", `{"type": "capture_screenshot", "url": "http://127.0.0.1/", "output_path": "` + dir + `"}`, ErrScreenshotPath, []string{"is a directory"}},
		{"never loads", `{"type": "open_page", "url": "` + s.URL + `/hang"}`, ErrTimeout, []string{s.URL + "/hang", "within 300ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := h.call(t.Context(), &fakeHost{}, tt.args)
			require.Error(t, err)
			assert.Empty(t, out)
			assert.ErrorIs(t, err, tt.wantErr)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		// Its own browser with the default navigation limit: a refused
		// connection must be reported as such, not as the 300ms timeout
		// of the table above, even on a busy machine.
		h := newHarness(t, WithDisplay(""))
		_, err := h.call(t.Context(), &fakeHost{}, `{"type": "open_page", "url": "`+unreachable+`"}`)
		require.ErrorIs(t, err, ErrUnreachable)
		for _, w := range []string{unreachable, "ERR_CONNECTION_REFUSED", "nothing listens"} {
			assert.Contains(t, err.Error(), w)
		}
	})

	t.Run("bad input starts no browser", func(t *testing.T) {
		h := newHarness(t)
		_, err := h.call(t.Context(), &fakeHost{}, `{"type": "open_page", "url": "file:///etc/passwd"}`)
		require.ErrorIs(t, err, ErrURLNotAllowed)
		assert.Equal(t, [2]*browser{}, h.bs.set)
	})

	t.Run("screenshot that cannot be written", func(t *testing.T) {
		t.Parallel()
		// The directory exists when the call starts and is gone when the
		// image is written: the write itself fails, clearly.
		gone := t.TempDir() + "/gone"
		require.NoError(t, os.Mkdir(gone, 0o755))
		host := &fakeHost{onPause: func(context.Context, string, string) error { return os.Remove(gone) }}
		// Its own browser, without the 300ms navigation limit of the
		// table above: this page must load even on a busy machine.
		h := newHarness(t, WithDisplay(""))
		_, err := h.call(t.Context(), host, Args{Type: ActionCaptureScreenshot, URL: s.URL + "/", OutputPath: gone + "/x.png", Pause: true})
		require.ErrorIs(t, err, ErrScreenshotPath)
		assert.Contains(t, err.Error(), gone+"/x.png")
	})
}

// errStop is the cause the tests interrupt calls with.
var errStop = errors.New("stopped by test")

func TestInterruptDuringNavigation(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	h := newHarness(t)
	// Warm the browser up, so the interrupt lands in the navigation.
	_, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/about"})
	require.NoError(t, err)

	ctx, cancel := context.WithCancelCause(t.Context())
	type outcome struct {
		out string
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		out, err := h.call(ctx, &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/hang"})
		done <- outcome{out, err}
	}()
	<-s.hangHits
	began := time.Now()
	cancel(errStop)
	o := <-done
	took := time.Since(began)
	require.ErrorIs(t, o.err, errStop)
	assert.Contains(t, o.err.Error(), s.URL+"/hang")
	assert.Less(t, took, time.Second, "returns promptly")

	// The browser is still usable afterwards.
	out, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/about"})
	require.NoError(t, err)
	assert.Contains(t, out, "About page")
}

func TestPauseInterrupted(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	h := newHarness(t, WithDisplay(""))
	ctx, cancel := context.WithCancelCause(t.Context())
	host := &fakeHost{onPause: func(ctx context.Context, message, details string) error {
		cancel(errStop)
		<-ctx.Done()
		return context.Cause(ctx)
	}}
	_, err := h.call(ctx, host, Args{Type: ActionOpenPage, URL: s.URL + "/", Pause: true})
	require.ErrorIs(t, err, errStop)
	assert.Len(t, host.pauses, 1)
}

func TestBrowserLifecycle(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	h := newHarness(t)
	_, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/about"})
	require.NoError(t, err)
	b := h.bs.set[0]
	require.NotNil(t, b)
	pids := processesWithArg(func(a []byte) bool { return string(a) == "--user-data-dir="+b.dir })
	require.NotEmpty(t, pids)
	args := browserArgs(t, chromedp.FromContext(b.ctx).Browser.Process().Pid)
	for _, flag := range []string{"--headless=new", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0"} {
		assert.Contains(t, args, flag)
	}
	assert.NotContains(t, args, "--auto-open-devtools-for-tabs")
	require.NoError(t, h.bs.Close())
	assert.Empty(t, processesWithArg(func(a []byte) bool { return string(a) == "--user-data-dir="+b.dir }), "no chromium left")
	assert.NoDirExists(t, b.dir)
	require.NoError(t, h.bs.Close(), "Close is idempotent")

	_, err = h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/about"})
	require.ErrorIs(t, err, errSessionClosed)
}

func TestBrowserStartFails(t *testing.T) {
	t.Parallel()
	h := newHarness(t, WithExecPath(filepath.Join(t.TempDir(), "no-chromium")))
	_, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: "http://127.0.0.1:1/"})
	require.ErrorIs(t, err, ErrBrowser)
	assert.Contains(t, err.Error(), "cannot start headless Chromium")
	assert.Equal(t, [2]*browser{}, h.bs.set, "a failed browser is not kept")
}

func TestTextHelpers(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "a b\nc\n\nd", collapseText("  a \t b \n c\n\n\n\n  d  \n\n"))
	s, cut := capText("héllo wörld", 5)
	assert.Equal(t, "héllo", s)
	assert.Equal(t, "[text cut: showing the first 5 of 11 characters]", cut)
	s, cut = capText("short", 5)
	assert.Equal(t, "short", s)
	assert.Empty(t, cut)

	long := strings.Repeat("x", 300) + " NEEDLE " + strings.Repeat("y", 300)
	sn := snippet(long, strings.ToLower(long), "needle")
	assert.True(t, strings.HasPrefix(sn, "…") && strings.HasSuffix(sn, "…"))
	assert.Contains(t, sn, "NEEDLE")
	assert.Less(t, len([]rune(sn)), 200)
}

func TestBrowserCrashRecovers(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	h := newHarness(t)
	_, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/about"})
	require.NoError(t, err)
	crashed := h.bs.set[0]
	require.NoError(t, chromedp.FromContext(crashed.ctx).Browser.Process().Kill())
	<-crashed.ctx.Done() // chromedp noticed the lost browser

	out, err := h.call(t.Context(), &fakeHost{}, Args{Type: ActionOpenPage, URL: s.URL + "/about"})
	require.NoError(t, err)
	assert.Contains(t, out, "About page")
	assert.NotSame(t, crashed, h.bs.set[0], "a new browser")
	assert.NoDirExists(t, crashed.dir, "the crashed browser's profile is removed")
}
