package webui

import "errors"

// Sentinel errors returned by Serve.
var (
	// ErrNonLoopback: the listen address is not loopback and AllowRemote was not given.
	ErrNonLoopback = errors.New("non-loopback listen address needs AllowRemote")
	// ErrWeakToken: WithToken was given fewer than 16 characters.
	ErrWeakToken = errors.New("token too short")
)
