//go:build unix

package graph

import (
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// statIndexed returns the indexed files of m modified after m.IndexedAt
// or gone (changed), and the directories holding indexed files whose
// entries changed after it (newerDirs), as statIndexedEach does, but
// opens each directory once and stats its files relative to it, the
// directories shared out among one goroutine per core. On the Linux kernel
// (86k files in 5.8k directories): 0.38 s one path at a time, 0.30–0.41 s
// one directory at a time, 0.23–0.27 s on the 2-core machine's two cores
// (four goroutines a core were no faster: the fstatat calls are the cost).
func statIndexed(root string, paths []string, since time.Time) (changed, newerDirs []string) {
	byDir := map[string][]string{}
	for _, p := range paths {
		d := path.Dir(p)
		byDir[d] = append(byDir[d], p)
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	after := func(ts unix.Timespec) bool { return time.Unix(ts.Unix()).After(since) }
	type result struct{ changed, newer []string }
	workers := min(runtime.GOMAXPROCS(0), max(1, len(dirs)/64))
	results := make([]result, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st unix.Stat_t
			res := &results[w]
			for k := w; k < len(dirs); k += workers {
				d := dirs[k]
				files := byDir[d]
				fd, err := unix.Open(filepath.Join(root, filepath.FromSlash(d)), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
				if err != nil {
					res.changed = append(res.changed, files...) // as a failed lstat of each
					continue
				}
				if unix.Fstat(fd, &st) == nil && after(st.Mtim) {
					res.newer = append(res.newer, d)
				}
				for _, p := range files {
					if unix.Fstatat(fd, path.Base(p), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || after(st.Mtim) {
						res.changed = append(res.changed, p)
					}
				}
				unix.Close(fd)
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		changed = append(changed, r.changed...)
		newerDirs = append(newerDirs, r.newer...)
	}
	return changed, newerDirs
}
