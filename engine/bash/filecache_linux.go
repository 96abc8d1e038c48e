package bash

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileIDOf is the fileID of a file's FileInfo (from stat or fstat).
func fileIDOf(fi os.FileInfo) fileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}
	}
	return fileID{known: true, dev: uint64(st.Dev), ino: uint64(st.Ino), mode: st.Mode, size: st.Size, //nolint:unconvert // Dev's type varies
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// fsCasefold is FS_CASEFOLD_FL: a directory whose names are looked up
// without regard to case (ext4, tmpfs: chattr +F).
const fsCasefold = 0x40000000

// listDir reads the names in dir, with the fileID it had when read (from
// the open directory, before its entries were read). ok is false when it
// cannot be read, is too large, or may match names other than byte for
// byte: only ext4, tmpfs and btrfs are listed, and not a case-folding
// directory of theirs.
func listDir(dir string) (names map[string]fs.FileMode, id fileID, ok bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fileID{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() {
		return nil, fileID{}, false
	}
	var sfs unix.Statfs_t
	if unix.Fstatfs(int(f.Fd()), &sfs) != nil {
		return nil, fileID{}, false
	}
	switch int64(sfs.Type) { //nolint:unconvert // Type's type varies
	case unix.EXT4_SUPER_MAGIC, unix.TMPFS_MAGIC:
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err != nil || flags&fsCasefold != 0 {
			return nil, fileID{}, false
		}
	case unix.BTRFS_SUPER_MAGIC: // no case folding
	default:
		return nil, fileID{}, false
	}
	list, err := f.ReadDir(maxListed + 1) // types from the entries (d_type)
	if err != nil || len(list) > maxListed {
		return nil, fileID{}, false
	}
	names = make(map[string]fs.FileMode, len(list))
	for _, e := range list {
		names[e.Name()] = e.Type()
	}
	return names, fileIDOf(fi), true
}
