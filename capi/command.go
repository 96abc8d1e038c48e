package main

/*
#include "interlock.h"
*/
import "C"

import "github.com/interlock-dev/interlock/engine/bash"

//export il_check_command
func il_check_command(cmd *C.char, out **C.char) C.il_status {
	return callNoHandle("il_check_command", func() error {
		if cmd == nil {
			return errorf(C.IL_ERR_INVALID_ARGUMENT, "cmd is NULL: pass the command line to check")
		}
		if out == nil {
			return errNilOut("out_json")
		}
		return putJSON(out, bash.CheckCommand(C.GoString(cmd)))
	})
}
