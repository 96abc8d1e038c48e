// Package contain runs one shell command contained: supervised so that
// nothing of it outlives the host or escapes a stop, and sandboxed so that
// it can only write where its policy allows.
//
// This package is the bash tool's side and the wire both sides share; the
// supervisor itself is the interlock-run executable (cmd/interlock-run, a
// small C program: it starts for every command, and a Go runtime's start
// would cost more than the rest of the supervision), which the bash tool
// starts for every command (see Start), asks to stop the command and whose
// report it reads. The supervisor:
//
//   - keeps the command's whole tree: where unprivileged user namespaces
//     are allowed it makes new user and PID namespaces itself (so the tool
//     starts it with a cheap vfork, not a copy of the host) and supervises
//     as their PID 1: when it exits the kernel kills every process left in
//     the namespace. Else it is a child subreaper that walks and kills its
//     descendants;
//   - dies with its host: EOF on its control socket (the host died, even by
//     SIGKILL) or its parent-death signal kills the tree and exits;
//   - on a stop message sends SIGTERM to the tree, SIGKILL after the grace,
//     and reports once no process of the tree is left;
//   - applies the sandbox Policy with Landlock to the shell it starts (not
//     to itself, so that the command cannot signal or trace it): writes
//     only in the working directory, the temp dir and the configured
//     paths, no signals to and no abstract sockets of processes outside
//     the command, optional network deny. The tool resolves the policy to
//     paths (Request.args); the supervisor only applies them. In a PID
//     namespace every mount but the writable paths is read-only too
//     (Landlock does not cover chmod, chown, utime); without one the
//     supervisor makes those changes for the command, inside the writable
//     paths only, and another process's limits, priority and CPUs are
//     out of its reach. Under network deny a
//     seccomp filter refuses every socket but TCP (unix sockets, vsock,
//     UDP...), which they do not all cover. The
//     command gets no descriptor of the host's but its output, and no
//     controlling terminal.
//
// Probe says what the kernel offers; what a command actually ran with is
// in its Report. This package does not link Landlock itself: only the
// supervisor applies it.
//
// The shortest use, from the tool's side:
//
//	p, err := contain.Start(contain.Request{Shell: "bash", Command: "make"}, contain.Process{Path: "/usr/lib/interlock/interlock-run", Output: w, Namespaces: true})
//	...
//	p.Stop() // or let it finish
//	report, err := p.Wait()
package contain
