//go:build !unix

package discover

import "os"

// openNoFollow opens a file for reading. Off Unix there is no O_NOFOLLOW;
// the Lstat just before has already turned symlinks away.
func openNoFollow(path string) (*os.File, error) {
	return os.Open(path)
}
