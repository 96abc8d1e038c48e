// Package openai is a model provider for servers that speak the OpenAI Chat
// Completions streaming protocol: OpenAI, Ollama, vLLM, llama.cpp's server,
// LM Studio, OpenRouter. It streams text and tool calls (their arguments
// piece by piece) into a session, describes the session's tools to the model
// with their JSON Schemas, records token usage, retries 429 and 5xx
// responses with a backoff an interrupt cuts short, and closes the stream at
// once when the run is interrupted.
//
// The API key is read from the environment variable named by WithAPIKeyEnv
// at every request, as the engine reads the environment
// (engine.WithEnvironment); it is never stored.
//
//	p, err := openai.New(
//		openai.WithBaseURL("http://127.0.0.1:11434/v1"), // Ollama
//		openai.WithModel("qwen2.5"),
//		openai.WithAPIKeyEnv("OPENAI_API_KEY"),
//	)
//	if err != nil { ... }
//	e := engine.New(engine.WithProvider(p), engine.WithTool("bash", bash.New()))
//
// A session store keeps a session's own provider as its ProviderSpec (the
// Config without the key's value and without headers that look secret,
// SecretHeader) and makes it again after a restart with Load:
//
//	e, err := engine.Open(ctx, engine.WithStore(path), engine.WithProviderLoader("openai", openai.Load))
//
// Failures end the run with an *Error whose Code ("rate_limited",
// "server_error", "unauthorized", ...) reaches observers in the run_failed
// event, with the server's own message. Package openaitest serves recorded
// responses on 127.0.0.1 for tests and examples.
package openai
