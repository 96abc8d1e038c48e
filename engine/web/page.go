package web

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pageContent is what extractScript reads from a loaded page.
type pageContent struct {
	Title string     `json:"title"`
	URL   string     `json:"url"`
	Text  string     `json:"text"`
	Links []pageLink `json:"links"`
}

type pageLink struct {
	Text string `json:"text"`
	Href string `json:"href"` // absolute, as the browser resolved it
}

// extractScript reads the title, the readable text and the links of the
// page. innerText already leaves out script, style and hidden elements; the
// fallback (a body that is not rendered) strips them by hand. It returns at
// most 2000 links whatever the caps of the output: a page can have tens of
// thousands.
const extractScript = `(() => {
  const out = {title: document.title || "", url: location.href, text: "", links: []};
  const root = document.body || document.documentElement;
  if (root) {
    let text = root.innerText;
    if (typeof text !== "string" || text.trim() === "") {
      const clone = root.cloneNode(true);
      clone.querySelectorAll("script,style,noscript,template").forEach(n => n.remove());
      text = clone.textContent || "";
    }
    out.text = text;
  }
  const seen = new Set();
  for (const a of document.querySelectorAll("a[href]")) {
    const href = a.href;
    if (typeof href !== "string" || !/^https?:/i.test(href) || seen.has(href)) continue;
    seen.add(href);
    const text = (a.innerText || a.textContent || a.getAttribute("title") || a.getAttribute("aria-label") || "").replace(/\s+/g, " ").trim();
    out.links.push({text, href});
    if (out.links.length >= 2000) break;
  }
  return out;
})()`

// collapseText collapses runs of blanks inside lines to one space, trims
// lines, and keeps at most one empty line between paragraphs.
func collapseText(s string) string {
	var b strings.Builder
	blank := false
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")
		if line == "" {
			blank = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(line)
	}
	return b.String()
}

// capText returns at most max characters of s and, when it cut, a line
// saying so.
func capText(s string, max int) (string, string) {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, ""
	}
	cut := 0
	for i := range s {
		if cut == max {
			s = s[:i]
			break
		}
		cut++
	}
	return s, fmt.Sprintf("[text cut: showing the first %d of %d characters]", max, n)
}

// formatPage renders an opened page for the model.
func formatPage(p pageContent, status string, cfg *config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Title: %s\nURL: %s\n", orNone(p.Title), p.URL)
	if status != "" {
		fmt.Fprintf(&b, "Status: %s\n", status)
	}
	text, cut := capText(collapseText(p.Text), cfg.maxText)
	b.WriteString("\n")
	if text == "" {
		b.WriteString("(the page has no text)\n")
	} else {
		b.WriteString(text)
		b.WriteString("\n")
	}
	if cut != "" {
		b.WriteString(cut + "\n")
	}
	if len(p.Links) > 0 {
		fmt.Fprintf(&b, "\nLinks (%d):\n", len(p.Links))
		for i, l := range p.Links {
			if i == cfg.maxLinks {
				fmt.Fprintf(&b, "[%d more links not shown]\n", len(p.Links)-i)
				break
			}
			fmt.Fprintf(&b, "- %s: %s\n", orNone(l.Text), l.Href)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// searchResults picks the result links of a results page: links that leave
// the search site, with the site's redirect links ("/l/?uddg=<url>")
// unwrapped. Links back to the search site itself are its navigation.
func searchResults(p pageContent, endpoint *url.URL) []pageLink {
	var out []pageLink
	seen := make(map[string]bool)
	for _, l := range p.Links {
		u, err := url.Parse(l.Href)
		if err != nil {
			continue
		}
		if u.Host == endpoint.Host {
			target := unwrapRedirect(u)
			if target == nil || target.Host == endpoint.Host {
				continue
			}
			u = target
		}
		href := u.String()
		if seen[href] {
			continue
		}
		seen[href] = true
		out = append(out, pageLink{Text: l.Text, Href: href})
	}
	return out
}

// unwrapRedirect returns the http(s) URL carried in one of u's query values
// (the redirect links of search sites), or nil.
func unwrapRedirect(u *url.URL) *url.URL {
	for _, vs := range u.Query() {
		for _, v := range vs {
			if t, err := url.Parse(v); err == nil && (t.Scheme == "http" || t.Scheme == "https") && t.Host != "" {
				return t
			}
		}
	}
	return nil
}

// formatSearch renders the results of a search.
func formatSearch(query string, p pageContent, results []pageLink, cfg *config) string {
	var b strings.Builder
	if len(results) == 0 {
		fmt.Fprintf(&b, "No result links found for %q on %s; the page's text follows.\n\n", query, p.URL)
		text, cut := capText(collapseText(p.Text), cfg.maxText)
		b.WriteString(orNone(text))
		if cut != "" {
			b.WriteString("\n" + cut)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Search results for %q (%d, from %s):\n", query, len(results), p.URL)
	for i, r := range results {
		if i == cfg.maxResults {
			fmt.Fprintf(&b, "[%d more results not shown]\n", len(results)-i)
			break
		}
		fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, orNone(r.Text), r.Href)
	}
	return strings.TrimRight(b.String(), "\n")
}

// snippetRadius is how many characters of context a long matching line
// keeps on each side of its first match.
const snippetRadius = 80

// findInText finds pattern (case-insensitive, literal) in the page's text
// and renders the matching lines with their numbers and the counts.
func findInText(p pageContent, pattern string, cfg *config) string {
	lines := strings.Split(collapseText(p.Text), "\n")
	needle := strings.ToLower(pattern)
	var b strings.Builder
	matches, matchLines, shown := 0, 0, 0
	for i, line := range lines {
		lower := strings.ToLower(line)
		n := strings.Count(lower, needle)
		if n == 0 {
			continue
		}
		matches += n
		matchLines++
		if shown == cfg.maxMatchLines {
			continue
		}
		shown++
		fmt.Fprintf(&b, "L%d: %s\n", i+1, snippet(line, lower, needle))
	}
	if matches == 0 {
		return fmt.Sprintf("No matches for %q on %s (%d lines of text searched).", pattern, p.URL, len(lines))
	}
	head := fmt.Sprintf("Found %d %s of %q in %d %s on %s:\n", matches, plural(matches, "match", "matches"),
		pattern, matchLines, plural(matchLines, "line", "lines"), p.URL)
	if shown < matchLines {
		fmt.Fprintf(&b, "[%d more matching lines not shown]\n", matchLines-shown)
	}
	return head + strings.TrimRight(b.String(), "\n")
}

// snippet returns line, or for a long line the part around its first match.
// lower is strings.ToLower(line); the match offsets are mapped back by rune.
func snippet(line, lower, needle string) string {
	if utf8.RuneCountInString(line) <= 2*snippetRadius+len(needle) {
		return line
	}
	at := utf8.RuneCountInString(lower[:strings.Index(lower, needle)])
	runes := []rune(line)
	at = min(at, len(runes)) // lowercasing can change the rune count of a few letters
	from := max(0, at-snippetRadius)
	to := min(len(runes), at+utf8.RuneCountInString(needle)+snippetRadius)
	s := string(runes[from:to])
	if from > 0 {
		s = "…" + s
	}
	if to < len(runes) {
		s += "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
