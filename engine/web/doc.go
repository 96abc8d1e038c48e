// Package web is Interlock's browser tool, "WebSearch" (seed 000): it
// searches the web, opens pages and returns their readable text and links,
// finds text in pages and captures screenshots, in a real Chromium driven by
// chromedp.
//
// The model calls it with arguments like seed 000's WebSearchAction (see
// Args):
//
//	{"type": "open_page", "url": "https://example.org", "pause": true}
//
// headless defaults to true. pause: true implies a visible browser and, once
// the page has loaded and before its content is read, raises a continue
// pause "Page loaded: <url>": the user looks at the page, uses DevTools, and
// presses Enter (Session.Resume) to let the tool go on. With no display
// (no DISPLAY, or WithDisplay("")) the browser stays headless and the pause
// message says so and gives the page's DevTools address on 127.0.0.1. An
// interrupt cancels the page's chromedp context: the call returns at once
// with an error wrapping engine.ErrInterrupted.
//
// Only http and https URLs are opened. Bad arguments, unreachable hosts and
// pages that do not load within the navigation timeout come back to the
// model as tool errors that name the URL.
//
// Browsers belong to a session (engine.Env.Local): at most one headless and
// one headful Chromium per session, started on first use, each with its own
// temporary profile, and stopped (profile removed) when the session or the
// engine closes. Each call gets its own tab. Every browser listens for
// DevTools on a random port of 127.0.0.1, so that a paused page can be
// inspected; local processes can reach that port while the browser runs.
//
// The shortest use:
//
//	e := engine.New(
//		engine.WithTool("web", web.New()),
//		engine.WithProvider(provider),
//	)
//	defer e.Close() // stops every session's browsers
//	s, _ := e.NewSession(engine.SessionOptions{})
//	res, err := s.Prompt(ctx, "what does example.org say?")
package web
