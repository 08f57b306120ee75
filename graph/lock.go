package graph

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked means another process holds the repository's index lock.
var ErrLocked = errors.New("index is locked")

// fileLock is an exclusive flock(2) on a file. The kernel drops it when the
// process dies, so a killed analyze never leaves a stale lock. The lock file
// itself is never removed (removing a locked file lets a second process lock
// a new inode while the first still holds the old one).
type fileLock struct {
	f *os.File
}

// tryLock takes the lock without waiting. what names the resource in errors.
func tryLock(path, what string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := readPID(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := "another process"
			if holder > 0 {
				who = fmt.Sprintf("another gitnexus process (pid %d)", holder)
			}
			return nil, fmt.Errorf("%w: %s is writing %s; wait for it to finish (the lock frees itself if that process dies)", ErrLocked, who, what)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// Record the holder for the error message above.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &fileLock{f: f}, nil
}

// waitLock takes the lock, waiting for the holder to release it.
func waitLock(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := flock(f, syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &fileLock{f: f}, nil
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		return 0
	}
	return pid
}

// unlock releases the lock. Safe to call twice.
func (l *fileLock) unlock() {
	if l == nil || l.f == nil {
		return
	}
	flock(l.f, syscall.LOCK_UN)
	l.f.Close()
	l.f = nil
}
