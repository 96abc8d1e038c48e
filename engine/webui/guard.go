package webui

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// guard checks every request before it reaches a handler, in this order:
//   - Host must name this server (127.0.0.1 / localhost / [::1] and the
//     port): a DNS-rebinding page reaches us with its own host name → 403;
//   - Origin, when present, must be this server; a state-changing request
//     (POST) must carry it unless it authenticates with the Authorization
//     header (no browser sends that cross-site) → 403;
//   - the page itself (a GET outside /api/: the HTML, script and style,
//     which hold no data) needs no token, but a wrong "?token=" on it is
//     refused → 401;
//   - everything under /api/ needs the token, as "Authorization: Bearer"
//     (the page keeps the token of the printed URL in its tab's
//     sessionStorage and sends it so) or, on a GET, "?token=" (the event
//     stream: EventSource sends no header) → 401. No cookie: cookies ignore
//     ports, so the browser would send one to every server on 127.0.0.1,
//     a dev server the agent runs included, which could then answer its
//     own pauses.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hosts[r.Host] {
			http.Error(w, "forbidden: Host "+quote(r.Host)+" is not this server; open the URL the engine printed", http.StatusForbidden)
			return
		}
		origin := r.Header.Get("Origin")
		bearer, hasBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if origin != "" && !s.origins[origin] {
			http.Error(w, "forbidden: Origin "+quote(origin)+" may not use this server", http.StatusForbidden)
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			http.Error(w, "forbidden: cross-site request", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && origin == "" && !hasBearer {
			http.Error(w, "forbidden: a "+r.Method+" needs an Origin header (browsers send it) or Authorization: Bearer <token>", http.StatusForbidden)
			return
		}
		token := bearer
		if !hasBearer && r.Method == http.MethodGet {
			token = r.URL.Query().Get("token")
		}
		page := (r.Method == http.MethodGet || r.Method == http.MethodHead) && !strings.HasPrefix(r.URL.Path, "/api/")
		if page && token != "" && !s.tokenOK(token) {
			http.Error(w, "unauthorized: wrong token; open the URL the engine printed", http.StatusUnauthorized)
			return
		}
		if !page && !s.tokenOK(token) {
			http.Error(w, "unauthorized: missing or wrong token; open the URL the engine printed (it ends in ?token=...), or send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer") // the printed URL holds the token
		next.ServeHTTP(w, r)
	})
}

func (s *Server) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.cfg.token)) == 1
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return `"` + s + `"`
}
