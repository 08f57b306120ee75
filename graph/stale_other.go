//go:build !unix

package graph

// statIndexed: see stale_unix.go.
func statIndexed(root string, m *Meta) (changed, newerDirs []string) {
	return statIndexedEach(root, m)
}
