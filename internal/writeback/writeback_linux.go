package writeback

import (
	"os"

	"golang.org/x/sys/unix"
)

// Start asks the kernel to start writing f's dirty pages to disk without
// waiting for them (sync_file_range with SYNC_FILE_RANGE_WRITE). It is
// advice: it makes nothing durable, and an error changes nothing.
func Start(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
