package bash

import (
	"os"
	"syscall"
)

// fileID is what a file is and which version of it: two reads of a file
// with the same fileID read the same text.
type fileID struct {
	known        bool
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime int64 // ns
}

// fileIDOf is the fileID of a file's FileInfo (from stat or fstat).
func fileIDOf(fi os.FileInfo) fileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}
	}
	return fileID{known: true, dev: uint64(st.Dev), ino: uint64(st.Ino), mode: st.Mode, size: st.Size, //nolint:unconvert // Dev's type varies
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}
