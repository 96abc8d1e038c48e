//go:build !linux

package bash

import "os"

// fileID is unknown on this system: nothing is cached.
type fileID struct{ known bool }

func fileIDOf(os.FileInfo) fileID { return fileID{} }

// listDir lists nothing here: fileIDs are not known.
func listDir(string) (map[string]bool, fileID, bool) { return nil, fileID{}, false }
