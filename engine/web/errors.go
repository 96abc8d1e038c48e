package web

import "errors"

// Errors of the web tool. The tool reports them to the model as tool errors
// (the run goes on); they are wrapped with the action and URL, test them
// with errors.Is.
var (
	// ErrInvalidArgs: the call's arguments are not valid JSON of the right
	// shape, or a field the action needs (url, query, pattern) is missing.
	ErrInvalidArgs = errors.New("invalid arguments")
	// ErrUnknownAction: "type" is not search, open_page, find_in_page or
	// capture_screenshot.
	ErrUnknownAction = errors.New("unknown action")
	// ErrURLNotAllowed: the URL is not an absolute http or https URL.
	ErrURLNotAllowed = errors.New("only http and https URLs can be opened")
	// ErrTimeout: the page did not finish loading within the navigation timeout.
	ErrTimeout = errors.New("page load timed out")
	// ErrUnreachable: the browser could not load the page (connection
	// refused, unknown host, TLS error...).
	ErrUnreachable = errors.New("page could not be loaded")
	// ErrBrowser: Chromium could not be started or driven.
	ErrBrowser = errors.New("browser error")
	// ErrScreenshotPath: the screenshot cannot be written where asked.
	ErrScreenshotPath = errors.New("cannot write screenshot")
)

// errSessionClosed is returned when the session's browsers were closed
// while a call wanted one.
var errSessionClosed = errors.New("the session's browsers are closed")
