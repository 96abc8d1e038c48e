package main

/*
#include "interlock.h"
*/
import "C"

import (
	"github.com/interlock-dev/interlock/engine"
	"github.com/interlock-dev/interlock/engine/bash"
	"github.com/interlock-dev/interlock/engine/policy"
	"github.com/interlock-dev/interlock/engine/web"
)

// toolOptions registers the "bash" and "web" tools configured by cfg (the
// built-ins "sleep" and "ask" come with engine.New). It also returns the
// bash tool: host-driven runs judge their commands with it.
func toolOptions(cfg engineConfig) ([]engine.Option, *bash.Tool, error) {
	var bashOpts []bash.Option
	if cfg.Bash.TimeoutMS != nil {
		d, err := millis("bash.timeoutMs", cfg.Bash.TimeoutMS)
		if err != nil {
			return nil, nil, err
		}
		bashOpts = append(bashOpts, bash.WithTimeout(d))
	}
	if cfg.Bash.GraceMS != nil {
		d, err := millis("bash.graceMs", cfg.Bash.GraceMS)
		if err != nil {
			return nil, nil, err
		}
		bashOpts = append(bashOpts, bash.WithGrace(d))
	}
	if len(cfg.Bash.Policy) > 0 {
		f, err := bash.ParsePolicyJSON("bash.policy", cfg.Bash.Policy, policy.TierEngine)
		if err != nil {
			return nil, nil, errorf(C.IL_ERR_INVALID_ARGUMENT, "%v", err)
		}
		bashOpts = append(bashOpts, bash.WithPolicy(f))
	}
	if p := cfg.Bash.Sandbox; p != nil {
		if err := p.Validate("bash.sandbox"); err != nil {
			return nil, nil, errorf(C.IL_ERR_INVALID_ARGUMENT, "%v", err)
		}
		bashOpts = append(bashOpts, bash.WithSandbox(*p))
	}
	if f := cfg.Bash.Env; f != nil {
		bashOpts = append(bashOpts, bash.WithEnvFilter(*f))
	}
	if cfg.Bash.UserPolicy != "" {
		bashOpts = append(bashOpts, bash.WithUserPolicy(cfg.Bash.UserPolicy))
	}
	if pp := cfg.Bash.ProjectPolicy; pp != nil {
		bashOpts = append(bashOpts, bash.WithProjectPolicy(pp.TrustFile))
	}

	var webOpts []web.Option
	if cfg.Web.SearchURL != "" {
		webOpts = append(webOpts, web.WithSearchURL(cfg.Web.SearchURL))
	}
	webOpts = append(webOpts, web.WithAutoOpenDevTools(cfg.Web.AutoDevtools))

	bashTool := bash.New(bashOpts...)
	return []engine.Option{
		engine.WithTool("bash", bashTool),
		engine.WithTool("web", web.New(webOpts...)),
	}, bashTool, nil
}
