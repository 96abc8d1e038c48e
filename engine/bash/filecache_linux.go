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

func idOf(st *syscall.Stat_t) fileID {
	return fileID{known: true, dev: uint64(st.Dev), ino: uint64(st.Ino), mode: st.Mode, size: st.Size, //nolint:unconvert // Dev's type varies
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// statID stats p (following links, as an open does): its fileID, with ok
// false when it is not a regular file; err when it cannot be stat'ed.
func statID(p string) (id fileID, ok bool, err error) {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return fileID{}, false, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return fileID{}, false, nil
	}
	return idOf(&st), true, nil
}

// fileIDOf is the fileID of an open file's FileInfo.
func fileIDOf(fi os.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return idOf(st)
	}
	return fileID{}
}
