//go:build !linux

package bash

import "os"

// fileID is unknown on this system: nothing is cached.
type fileID struct{ known bool }

func statID(p string) (fileID, bool, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return fileID{}, false, err
	}
	return fileID{}, fi.Mode().IsRegular(), nil
}

func fileIDOf(os.FileInfo) fileID { return fileID{} }
