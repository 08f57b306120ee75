//go:build linux

package ingest

import (
	"io/fs"
	"syscall"
)

// statOf is the fileStat of a regular file's FileInfo (ok false for any
// other).
func statOf(fi fs.FileInfo) (fileStat, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return fileStat{}, false
	}
	return fileStat{ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}
