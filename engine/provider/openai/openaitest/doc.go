// Package openaitest is a local OpenAI-compatible Chat Completions server
// that replays recorded responses, for tests and examples. It listens on
// 127.0.0.1 only.
//
// The model name picks a recording ("text", "tool_calls", "parallel_tools",
// "rate_limited", "rate_limited_always", "server_error", "unauthorized",
// "malformed", "stall", "reset", "error_event", "truncated"); the turn is the
// number of assistant messages since the last user message, plus one. A
// recording is a raw HTTP response in testdata/<model>/<turn>.http, or
// <turn>-<attempt>.http for the attempt-th request of that turn (a 429
// before a success). Two headers are directions for the server, not sent:
// "X-Replay-Then: stall" keeps the stream open and silent until the client
// leaves, "X-Replay-Then: reset" resets the connection after the body; and
// "X-Replay-Delay-Ms: N" waits N ms between streamed events.
//
// Like a real server, it rejects (400, invalid_request_error) a request
// whose history breaks the order of tool messages: every assistant tool
// call must be followed by its tool message before any other message.
//
//	srv, err := openaitest.Start("127.0.0.1:0")
//	if err != nil { ... }
//	defer srv.Close()
//	p, _ := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("tool_calls"))
package openaitest
