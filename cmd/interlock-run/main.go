// Command interlock-run is the supervisor the Interlock bash tool starts for
// every command: it keeps the command's process tree, kills it when asked
// or when the host dies, and applies the Landlock sandbox. It is built
// beside the library (lib/interlock-run) and not meant to be run by hand
// but for `interlock-run --probe`, which prints what the kernel offers.
// See package github.com/interlock-dev/interlock/engine/bash/contain.
package main

import "os"

func main() { os.Exit(supervise(os.Args)) }
