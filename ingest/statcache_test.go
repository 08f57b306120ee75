//go:build linux

package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/ingest/discover"
)

// statFixture writes files under a fresh directory and returns them as
// discovery would.
func statFixture(t *testing.T, contents map[string]string) (string, []discover.File) {
	t.Helper()
	dir := t.TempDir()
	var files []discover.File
	for _, name := range []string{"a.go", "b.go", "c.go", "d.go", "e.go"} {
		body, ok := contents[name]
		if !ok {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, discover.File{Path: name, Abs: p, Language: "go"})
	}
	return dir, files
}

// recordStats sums files as a run that began at since would, writes its
// stat cache with each hash replaced by fake (when not ""), and reads it
// back.
func recordStats(t *testing.T, files []discover.File, since time.Time, fake string) *StatCache {
	t.Helper()
	sums, _, err := sumFiles(context.Background(), files, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stat")
	w := newStatWriter(path, since)
	for i, s := range sums {
		if !s.statOK {
			t.Fatalf("%s: no stat from its read", files[i].Path)
		}
		h := s.hash
		if fake != "" {
			h = fake
		}
		w.add(files[i].Path, h, s.lines, s.stat, s.statOK, false)
	}
	if err := w.write(); err != nil {
		t.Fatal(err)
	}
	c, err := OpenStatCache(path)
	if err != nil || c == nil {
		t.Fatalf("read back: %v, %v", c, err)
	}
	if c.Len() != len(files) {
		t.Fatalf("read back %d entries, wrote %d", c.Len(), len(files))
	}
	return c
}

// TestStatCacheSparesUnchangedFiles: a file whose inode, size and times
// are the ones the cache recorded is not read (its sum is the cache's,
// here a hash no content has); a file written since, even to content of
// the same size with its modification time put back, a file replaced by
// another (a new inode) and a file that vanished are read.
func TestStatCacheSparesUnchangedFiles(t *testing.T) {
	dir, files := statFixture(t, map[string]string{
		"a.go": "package a\n\nfunc A() {}\n",
		"b.go": "package a\n\nfunc B() {}\n",
		"c.go": "package a\n\nfunc C() {}\n",
		"d.go": "package a\n\nfunc D() {}\n",
	})
	fake := strings.Repeat("ab", 32)
	// The run that wrote the cache began an hour from now: every entry is
	// old enough to be trusted.
	c := recordStats(t, files, time.Now().Add(time.Hour), fake)

	// b.go: the same size, another content, its mtime put back.
	fi, err := os.Stat(files[1].Abs)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past the file times' granularity
	if err := os.WriteFile(files[1].Abs, []byte("package a\n\nfunc X() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(files[1].Abs, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	// c.go: replaced by a copy of itself (another inode, same content and
	// times).
	fi, err = os.Stat(files[2].Abs)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "c.go.tmp")
	if err := os.WriteFile(tmp, []byte("package a\n\nfunc C() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, files[2].Abs); err != nil {
		t.Fatal(err)
	}
	// d.go: gone.
	if err := os.Remove(files[3].Abs); err != nil {
		t.Fatal(err)
	}

	sums, unread, err := sumFiles(context.Background(), files, 2, c)
	if err != nil {
		t.Fatal(err)
	}
	if sums[0].hash != fake || unread != 1 {
		t.Errorf("a.go, unchanged: hash %.8s, %d files unread; want the cache's and 1", sums[0].hash, unread)
	}
	fresh, _, err := sumFiles(context.Background(), files, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 3; i++ {
		if sums[i].hash == fake || sums[i] != fresh[i] {
			t.Errorf("%s, written since: %+v, want the file's own sum %+v", files[i].Path, sums[i], fresh[i])
		}
	}
	if sums[3].err == nil || sums[3].reason != "vanished" {
		t.Errorf("d.go, removed: %+v, want vanished", sums[3])
	}
}

// TestStatCacheDistrustsRecentFiles: an entry whose change time is within
// StatSlack of the start of the run that recorded it may hide a write in
// the same clock tick (git's "racily clean" file): the file is read.
func TestStatCacheDistrustsRecentFiles(t *testing.T) {
	_, files := statFixture(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	fake := strings.Repeat("cd", 32)
	c := recordStats(t, files, time.Now(), fake) // written just now
	sums, unread, err := sumFiles(context.Background(), files, 2, c)
	if err != nil {
		t.Fatal(err)
	}
	if unread != 0 || sums[0].hash == fake || sums[1].hash == fake {
		t.Errorf("files changed within the slack were trusted: %d unread, hashes %.8s %.8s", unread, sums[0].hash, sums[1].hash)
	}
}

// TestStatCacheRefusesDamage: a missing cache is none, a damaged one an
// error (the caller reads every file), never wrong entries.
func TestStatCacheRefusesDamage(t *testing.T) {
	if c, err := OpenStatCache(filepath.Join(t.TempDir(), "none")); c != nil || err != nil {
		t.Errorf("a missing cache: %v, %v", c, err)
	}
	_, files := statFixture(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n", "c.go": "package c\n"})
	sums, _, err := sumFiles(context.Background(), files, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stat")
	w := newStatWriter(path, time.Now())
	for i, s := range sums {
		w.add(files[i].Path, s.hash, s.lines, s.stat, s.statOK, false)
	}
	if err := w.write(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{len(good) / 3, len(good) / 2, len(good) - 3} {
		bad := append([]byte(nil), good...)
		bad[at] ^= 0x55
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if c, err := OpenStatCache(path); c != nil || err == nil {
			t.Errorf("byte %d flipped: read %d entries, err %v", at, c.Len(), err)
		}
	}
	if err := os.WriteFile(path, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := OpenStatCache(path); c != nil || err == nil {
		t.Errorf("truncated: read %d entries, err %v", c.Len(), err)
	}
}

// TestStatCacheKnownForDiscovery: discovery is told a file is known (and
// whether its content was sniffed) exactly when the cache trusts its entry
// and its stat is the entry's.
func TestStatCacheKnownForDiscovery(t *testing.T) {
	_, files := statFixture(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	sums, _, err := sumFiles(context.Background(), files, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stat")
	w := newStatWriter(path, time.Now().Add(time.Hour))
	for i, s := range sums {
		w.add(files[i].Path, s.hash, s.lines, s.stat, s.statOK, i == 0)
	}
	if err := w.write(); err != nil {
		t.Fatal(err)
	}
	c, err := OpenStatCache(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		fi, err := os.Lstat(f.Abs)
		if err != nil {
			t.Fatal(err)
		}
		if sniffed, ok := c.known(f.Path, fi); !ok || sniffed != (i == 0) {
			t.Errorf("%s unchanged: known %v, sniffed %v", f.Path, ok, sniffed)
		}
	}
	time.Sleep(20 * time.Millisecond)
	if err := os.WriteFile(files[0].Abs, []byte("package z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(files[0].Abs)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.known(files[0].Path, fi); ok {
		t.Errorf("a.go written since: still known")
	}
	if _, ok := c.known("c.go", fi); ok {
		t.Errorf("a file the cache does not hold is known")
	}
}
