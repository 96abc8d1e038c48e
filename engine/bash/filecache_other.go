//go:build !linux

package bash

import (
	"io/fs"
	"os"
)

// fileIDOf is unknown on this system: nothing is cached.
func fileIDOf(os.FileInfo) fileID { return fileID{} }

// listDir lists nothing here: fileIDs are not known.
func listDir(string) (map[string]fs.FileMode, fileID, bool) { return nil, fileID{}, false }
