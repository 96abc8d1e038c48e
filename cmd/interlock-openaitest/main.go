// Command interlock-openaitest serves the recorded OpenAI-compatible Chat
// Completions responses of package openaitest on 127.0.0.1, for examples
// and tests in other languages. It prints its API root ("base URL") as the
// first line of stdout and serves until stdin closes or it is signalled.
//
//	go run ./cmd/interlock-openaitest [-addr 127.0.0.1:0]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/interlock-dev/interlock/engine/provider/openai/openaitest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (127.0.0.1 only; port 0 picks a free one)")
	flag.Parse()
	srv, err := openaitest.Start(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(srv.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	stdinClosed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdinClosed)
	}()
	select {
	case <-stop:
	case <-stdinClosed:
	}
	_ = srv.Close()
}
