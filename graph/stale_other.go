//go:build !unix

package graph

import "time"

// statIndexed: see stale_unix.go.
func statIndexed(root string, paths []string, since time.Time) (changed, newerDirs []string) {
	return statIndexedEach(root, paths, since)
}
