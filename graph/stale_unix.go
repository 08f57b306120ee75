//go:build unix

package graph

import (
	"path"
	"path/filepath"
	"sort"
	"time"

	"golang.org/x/sys/unix"
)

// statIndexed returns the indexed files of m modified after m.IndexedAt
// or gone (changed), and the directories holding indexed files whose
// entries changed after it (newerDirs), as statIndexedEach does, but
// opens each directory once and stats its files relative to it: on the
// Linux kernel (86k files in 5.8k directories) 0.38 → 0.29 s, most of a
// one-shot query's staleness check.
func statIndexed(root string, m *Meta) (changed, newerDirs []string) {
	byDir := map[string][]string{}
	for p := range m.Files {
		d := path.Dir(p)
		byDir[d] = append(byDir[d], p)
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	after := func(ts unix.Timespec) bool { return time.Unix(ts.Unix()).After(m.IndexedAt) }
	var st unix.Stat_t
	for _, d := range dirs {
		files := byDir[d]
		fd, err := unix.Open(filepath.Join(root, filepath.FromSlash(d)), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			changed = append(changed, files...) // as a failed lstat of each
			continue
		}
		if unix.Fstat(fd, &st) == nil && after(st.Mtim) {
			newerDirs = append(newerDirs, d)
		}
		for _, p := range files {
			if unix.Fstatat(fd, path.Base(p), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || after(st.Mtim) {
				changed = append(changed, p)
			}
		}
		unix.Close(fd)
	}
	return changed, newerDirs
}
