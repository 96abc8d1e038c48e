package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// profilePrefix starts the name of every temporary --user-data-dir, so that
// leftover processes of ours can be found by their command line.
const profilePrefix = "interlock-web-"

// browsers is one session's browsers: at most one headless and one headful
// Chromium, started on first use and stopped by Close. It is the value the
// tool keeps in the session's Env.Local, so closing the session closes it.
type browsers struct {
	cfg *config

	mu     sync.Mutex
	set    [2]*browser // indexed by headful (0 = headless, 1 = headful)
	closed bool
}

func newBrowsers(cfg *config) *browsers {
	return &browsers{cfg: cfg}
}

// get returns the running browser of the kind asked for, starting it if
// needed. It waits for the start only as long as ctx allows: an interrupted
// call returns at once and the browser finishes starting in the background,
// ready for the next call or for Close. A browser started now gets the
// environment environ returns.
func (s *browsers) get(ctx context.Context, headful bool, progress func(string), environ func() []string) (*browser, error) {
	i := 0
	if headful {
		i = 1
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errSessionClosed
	}
	b := s.set[i]
	if b != nil && b.dead() {
		// It crashed: replace it. Close cleans up after it, quickly, as
		// the process is gone already.
		s.set[i] = nil
		s.mu.Unlock()
		b.Close()
		return s.get(ctx, headful, progress, environ)
	}
	if b == nil {
		if progress != nil {
			progress(fmt.Sprintf("Starting %s Chromium\n", kindName(headful)))
		}
		b = startBrowser(s.cfg, headful, environ())
		s.set[i] = b
	}
	s.mu.Unlock()

	select {
	case <-b.ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if b.err != nil {
		s.mu.Lock()
		if s.set[i] == b {
			s.set[i] = nil
		}
		s.mu.Unlock()
		b.Close()
		return nil, b.err
	}
	return b, nil
}

// Close stops every browser of the session and removes their profiles. It
// is idempotent; later calls of get fail.
func (s *browsers) Close() error {
	s.mu.Lock()
	s.closed = true
	set := s.set
	s.set = [2]*browser{}
	s.mu.Unlock()
	var errs []error
	for _, b := range set {
		if b != nil {
			errs = append(errs, b.Close())
		}
	}
	return errors.Join(errs...)
}

func kindName(headful bool) string {
	if headful {
		return "headful"
	}
	return "headless"
}

// browser is one Chromium process with its own temporary profile.
type browser struct {
	headful bool
	dir     string // --user-data-dir, removed by Close

	base       context.Context    // parent of everything; cancelling it kills the process
	cancelBase context.CancelFunc // safe to call at any time, also during the start

	// Set by the start, read only after ready is closed.
	cancelAlloc context.CancelFunc // waits for chromedp's cleanup of the process
	ctx         context.Context    // the browser's first tab; parent of every call's tab
	cancelCtx   context.CancelFunc
	err         error
	port        int           // the DevTools HTTP port on 127.0.0.1
	startTook   time.Duration // for metrics
	ready       chan struct{} // closed when the start finished, err tells how

	mu        sync.Mutex
	closing   bool
	tabs      sync.WaitGroup // goroutines closing tabs in the background
	closeOnce sync.Once
	closeErr  error
}

// startBrowser starts Chromium in the background; b.ready closes when it
// runs or failed to start.
func startBrowser(cfg *config, headful bool, environ []string) *browser {
	b := &browser{headful: headful, ready: make(chan struct{})}
	b.base, b.cancelBase = context.WithCancel(context.Background())
	go func() {
		defer close(b.ready)
		began := time.Now()
		b.err = b.start(cfg, environ)
		b.startTook = time.Since(began)
	}()
	return b
}

func (b *browser) start(cfg *config, environ []string) error {
	dir, err := os.MkdirTemp(cfg.tempDir, profilePrefix)
	if err != nil {
		return fmt.Errorf("%w: cannot create a browser profile directory: %w", ErrBrowser, err)
	}
	b.dir = dir
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ModifyCmdFunc(withDevToolsPort),
		chromedp.UserDataDir(dir),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1280, 900),
	)
	if cfg.execPath != "" {
		opts = append(opts, chromedp.ExecPath(cfg.execPath))
	}
	env := append([]string(nil), environ...)
	if b.headful {
		// Not chromedp.VisibleWindow: it checks this process's DISPLAY,
		// and the display may come from WithDisplay.
		opts = append(opts,
			chromedp.Flag("headless", false),
			chromedp.Flag("hide-scrollbars", false),
			chromedp.Flag("mute-audio", false),
		)
		if cfg.autoOpenDevTools {
			opts = append(opts, chromedp.Flag("auto-open-devtools-for-tabs", true))
		}
		if cfg.displaySet && cfg.display != "" {
			env = append(env, "DISPLAY="+cfg.display)
		}
	} else {
		opts = append(opts, chromedp.Flag("headless", "new"))
	}
	// Only env: chromedp would add the Go runtime's copy of the
	// environment, which a host that loaded the engine as a library may
	// have changed since.
	opts = append(opts, chromedp.NoInheritEnv, chromedp.Env(env...))
	var allocCtx context.Context
	allocCtx, b.cancelAlloc = chromedp.NewExecAllocator(b.base, opts...)
	b.ctx, b.cancelCtx = chromedp.NewContext(allocCtx)
	// The first Run starts the process and binds its life to b.ctx.
	if err := chromedp.Do(b.ctx); err != nil {
		if b.base.Err() != nil {
			return fmt.Errorf("%w: browser start cancelled", errSessionClosed)
		}
		return fmt.Errorf("%w: cannot start %s Chromium: %w", ErrBrowser, kindName(b.headful), err)
	}
	port, err := readDevToolsPort(b.base, dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBrowser, err)
	}
	b.port = port
	return nil
}

// withDevToolsPort makes Chromium also listen for DevTools on a random port
// of 127.0.0.1, so a user can inspect a paused page, while chromedp keeps
// driving it through its pipe. (chromedp's Flag("remote-debugging-port")
// would switch it to a websocket, whose Close outlives the browser by up to a
// second.) It replaces chromedp's default command setup, so it also sets what
// that did: kill the browser if this process dies.
func withDevToolsPort(cmd *exec.Cmd) {
	cmd.Args = append(cmd.Args, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0")
	killWithParent(cmd)
}

// readDevToolsPort reads the port Chromium chose, from the file it writes in
// its profile once its DevTools server listens, which can be a moment after
// the pipe answers.
func readDevToolsPort(ctx context.Context, dir string) (int, error) {
	name := filepath.Join(dir, "DevToolsActivePort")
	deadline := time.Now().Add(2 * time.Second)
	for {
		data, err := os.ReadFile(name)
		if err == nil {
			line, _, _ := strings.Cut(string(data), "\n")
			if port, perr := strconv.Atoi(strings.TrimSpace(line)); perr == nil && port > 0 {
				return port, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return 0, fmt.Errorf("chromium did not report its DevTools port in %s", name)
		}
		t := time.NewTimer(10 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

// dead reports whether the browser failed to start or has gone away.
func (b *browser) dead() bool {
	select {
	case <-b.ready:
		return b.err != nil || b.ctx.Err() != nil
	default:
		return false
	}
}

// Close kills the browser, waits for its tabs and process to end, kills any
// helper process still using its profile and removes the profile.
func (b *browser) Close() error {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.closing = true // no new tabs
		b.mu.Unlock()
		b.cancelBase() // kills Chromium; a start in progress gives up
		<-b.ready
		if b.cancelCtx != nil {
			b.cancelCtx() // waits for chromedp's goroutines of the browser
		}
		if b.cancelAlloc != nil {
			b.cancelAlloc() // waits for the allocator's cleanup of the process
		}
		if c := b.chromedp(); c != nil && c.Browser != nil {
			// chromedp's cancel does not wait for the reader of the
			// connection; it ends when the dead browser's pipe closes.
			t := time.NewTimer(5 * time.Second)
			select {
			case <-c.Browser.LostConnection:
			case <-t.C:
			}
			t.Stop()
		}
		b.tabs.Wait()
		if b.dir != "" {
			killProcessesWithProfile(b.dir)
			b.closeErr = removeAllRetry(b.dir)
		}
	})
	return b.closeErr
}

// tab is one call's page: its own Chromium tab, closed when the call ends.
type tab struct {
	ctx      context.Context // chromedp context of the tab; done when the call is interrupted
	close    func()          // closes the tab in the background (idempotent)
	stopCall func() bool     // detaches the tab from the call's context
}

// newTab opens a tab for one call. When callCtx is done (interrupt) the tab
// is cancelled at once, so whatever chromedp action runs in it returns. The
// tab is closed in the background: a tab stuck on a request that never ends
// can take a while to close, and the call must not wait for it. JavaScript
// dialogs (alert, confirm, beforeunload) are dismissed, as nobody is there to
// answer them and they would block the page.
func (b *browser) newTab(callCtx context.Context) (*tab, error) {
	b.mu.Lock()
	if b.closing {
		b.mu.Unlock()
		return nil, errSessionClosed
	}
	b.tabs.Add(2) // the tab's closer and its dialog dismisser
	b.mu.Unlock()
	// Each tab gets its own window (chromedp's default): a background tab of a
	// shared window is hidden, and its screenshots and timers stall.
	tabCtx, cancel := chromedp.NewContext(b.ctx)
	closeTab := sync.OnceFunc(func() {
		go func() {
			defer b.tabs.Done()
			cancel()
		}()
	})
	t := &tab{ctx: tabCtx, close: closeTab}
	t.stopCall = context.AfterFunc(callCtx, closeTab)
	// The first Run on the tab creates the target; its life is tabCtx.
	if err := chromedp.Do(tabCtx); err != nil {
		b.tabs.Done() // no dismisser
		t.stopCall()
		closeTab()
		if callCtx.Err() != nil {
			return nil, context.Cause(callCtx)
		}
		return nil, fmt.Errorf("%w: cannot open a tab: %w", ErrBrowser, err)
	}
	dialogs := chromedp.Events(tabCtx, page.JavascriptDialogOpening)
	go func() {
		defer b.tabs.Done()
		for _, err := range dialogs { // ends when the tab closes
			if err != nil {
				return
			}
			chromedp.Call(tabCtx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	return t, nil
}

// done releases the tab at the end of a call.
func (t *tab) done() {
	t.stopCall()
	t.close()
}

// targetID is the DevTools id of the tab's page.
func (t *tab) targetID() string {
	if c := chromedp.FromContext(t.ctx); c != nil && c.Target != nil {
		return string(c.Target.TargetID)
	}
	return ""
}

// devToolsURL is the address of the DevTools front end for the tab's page,
// served by the browser itself on 127.0.0.1 (no network needed).
func (b *browser) devToolsURL(t *tab) string {
	hostPort := "127.0.0.1:" + strconv.Itoa(b.port)
	return "http://" + hostPort + "/devtools/inspector.html?ws=" + hostPort + "/devtools/page/" + t.targetID()
}

// killProcessesWithProfile kills the processes still using dir as their
// profile. Chromium helpers (zygote, network service) can outlive the main
// process for a moment, and write into the profile after it is removed. It
// looks again until a few passes in a row find nothing.
func killProcessesWithProfile(dir string) {
	const quietPasses = 3
	deadline := time.Now().Add(2 * time.Second)
	arg := []byte("--user-data-dir=" + dir)
	for quiet := 0; quiet < quietPasses && time.Now().Before(deadline); {
		pids := processesWithArg(func(a []byte) bool { return bytes.Equal(a, arg) })
		for _, pid := range pids {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		if len(pids) == 0 {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// removeAllRetry removes dir, trying again for a short while: a helper that
// was just killed can still have created a file in it.
func removeAllRetry(dir string) error {
	deadline := time.Now().Add(3 * time.Second)
	for {
		err := os.RemoveAll(dir)
		if err == nil || time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("removing browser profile: %w", err)
			}
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// chromedp returns the chromedp context of the browser, nil if it never got one.
func (b *browser) chromedp() *chromedp.Context {
	if b.ctx == nil {
		return nil
	}
	return chromedp.FromContext(b.ctx)
}
