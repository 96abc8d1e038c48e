package webui_test

import (
	"context"
	"fmt"
	"os"

	"github.com/interlock-dev/interlock/engine/webui"
)

// The fleet view: the web UI served over a hub, with no engine of its own.
// (Compiled, not run: it needs a hub.)
func ExampleWithFleet() {
	ctx := context.Background()
	srv, err := webui.Serve(ctx, nil, webui.WithFleet(os.Getenv("INTERLOCK_HUB_URL")))
	if err != nil {
		panic(err) // the hub unreachable, or its tables newer than this library
	}
	defer srv.Close()
	fmt.Println("fleet view:", srv.URL()) // http://127.0.0.1:PORT/?token=...
}
