package web

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// site is the web the tests browse: an httptest server on 127.0.0.1.
type site struct {
	*httptest.Server
	hangHits chan struct{} // one value per request to /hang that is now blocked
}

const articleHTML = `<!doctype html>
<html><head><title>Interlock   test page</title>
<style>.hidden-style { color: red }</style>
<script>var secretScript = "SCRIPT-BODY-SHOULD-NOT-APPEAR";</script>
</head>
<body>
<h1>Welcome   to
   the test page</h1>
<p>The quick brown fox jumps over the lazy dog.</p>
<p>Another   paragraph	with    odd     spacing and a Fox.</p>
<noscript>NOSCRIPT-SHOULD-NOT-APPEAR</noscript>
<div style="display:none">HIDDEN-SHOULD-NOT-APPEAR</div>
<ul>
<li><a href="/about">About us</a></li>
<li><a href="relative/page.html">Relative   link</a></li>
<li><a href="https://example.org/x?y=1">Example</a></li>
<li><a href="mailto:someone@example.org">Mail (not http)</a></li>
<li><a href="javascript:void(0)">JS (not http)</a></li>
</ul>
</body></html>`

// newSite starts the test site. Handlers that hang are released when the
// test ends, before the server closes.
func newSite(t testing.TB) *site {
	s := &site{hangHits: make(chan struct{}, 100)}
	release := make(chan struct{})
	var releaseOnce sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, articleHTML)
	})
	mux.HandleFunc("/about", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>About</title></head><body><p>About page</p></body></html>`)
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("<html><head><title>Long</title></head><body>")
		for i := range 2000 {
			fmt.Fprintf(&b, "<p>Line %d of a long page with some words in it.</p>", i)
		}
		b.WriteString("</body></html>")
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/tall", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Tall</title></head><body style="margin:0">
<div style="height:3000px;background:linear-gradient(#f00,#00f)">tall</div></body></html>`)
	})
	mux.HandleFunc("/alert", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Alert</title><script>alert("blocking"); confirm("sure?");</script></head>
<body><p>After the dialogs</p></body></html>`)
	})
	mux.HandleFunc("/ua", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>UA</title></head><body><p id="ua"></p>
<script>document.getElementById("ua").textContent = "UA=" + navigator.userAgent;</script></body></html>`)
	})
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		if q == "nothing" {
			fmt.Fprint(w, `<html><head><title>Nothing</title></head><body><p>No results here.</p><a href="/">Home</a></body></html>`)
			return
		}
		self := "http://" + r.Host
		fmt.Fprintf(w, `<html><head><title>Results for %[1]s</title></head><body>
<a href="/">Home</a> <a href="/settings">Settings</a>
<h2>Results for %[1]s</h2>
<div class="result"><a href="%[2]s/first">First result about %[1]s</a><p>snippet one</p></div>
<div class="result"><a href="%[3]s/l/?uddg=%[4]s&rut=abc">Second result (redirect)</a></div>
<div class="result"><a href="%[2]s/first">First result again</a></div>
<a href="/search?q=%[1]s&page=2">Next page</a>
</body></html>`, html.EscapeString(q), "http://results.invalid", self, "https%3A%2F%2Fsecond.invalid%2Fpath%3Fa%3Db")
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.hangHits <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	return s
}

// closedPortURL is an http URL on 127.0.0.1 where nothing listens: the port
// is held by a bound socket that never listens, so no other test server can
// take it and connecting is refused.
func closedPortURL(t testing.TB) string {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })
	require.NoError(t, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	require.NoError(t, err)
	return fmt.Sprintf("http://127.0.0.1:%d/nothing", sa.(*syscall.SockaddrInet4).Port)
}
