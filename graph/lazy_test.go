package graph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// lazyCount runs a count through l, failing the test on an error.
func lazyCount(t *testing.T, l *Lazy, cypher string) int64 {
	t.Helper()
	r, err := l.Query(context.Background(), cypher, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.Rows[0][0].(int64)
}

var testLazyOpts = OpenOptions{BufferPoolSize: 256 << 20, MaxThreads: 2}

// TestLazyOpensOnFirstStatement: OpenLazy checks the index and reads its
// metadata without opening Kuzu; the first statement opens it, later ones
// reuse it, and after Close statements fail.
func TestLazyOpensOnFirstStatement(t *testing.T) {
	root := newRepo(t)
	m := buildIndex(t, root, 2)
	l, err := OpenLazy(context.Background(), root, testLazyOpts)
	if err != nil {
		t.Fatal(err)
	}
	if l.Opened() {
		t.Fatal("OpenLazy opened Kuzu")
	}
	if l.Meta().DBFile != m.DBFile || l.Stale() {
		t.Fatalf("Meta names %s (stale %v), want %s", l.Meta().DBFile, l.Stale(), m.DBFile)
	}
	if n := lazyCount(t, l, "MATCH (f:Function) RETURN count(f)"); n != 2 {
		t.Errorf("%d functions, want 2", n)
	}
	if !l.Opened() {
		t.Error("a statement ran but Opened is false")
	}
	d1, _ := l.DB(context.Background())
	d2, _ := l.DB(context.Background())
	if d1 == nil || d1 != d2 {
		t.Errorf("DB opened twice: %p, %p", d1, d2)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Query(context.Background(), "RETURN 1", nil); err == nil {
		t.Error("a statement on a closed Lazy succeeded")
	}
	// A cancelled context fails the open without spoiling it.
	l, err = OpenLazy(context.Background(), root, testLazyOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.DB(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("open under a cancelled context: %v", err)
	}
	if n := lazyCount(t, l, "MATCH (f:Function) RETURN count(f)"); n != 2 {
		t.Errorf("after a cancelled open: %d functions, want 2", n)
	}
}

// TestLazySwappedBeforeOpen: a re-analyze that commits a new index and
// retires the old database before the first statement makes that
// statement fail with ErrSwapped (the caller starts again), for a checked
// Lazy and for one made from the head of meta.json; Open itself starts
// again and opens the new index.
func TestLazySwappedBeforeOpen(t *testing.T) {
	root := newRepo(t)
	buildIndex(t, root, 2)
	checked, err := OpenLazy(context.Background(), root, testLazyOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer checked.Close()
	head, err := ReadMetaHead(root)
	if err != nil {
		t.Fatal(err)
	}
	unchecked := NewLazy(checked.RepoRoot(), head, testLazyOpts)
	defer unchecked.Close()

	b := loadedBuild(t, root, BuildOptions{MaxThreads: 2, Retire: func(string) {}}, 3)
	if err := b.Commit(&Meta{}); err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]*Lazy{"OpenLazy": checked, "NewLazy": unchecked} {
		if !l.Stale() {
			t.Errorf("%s: not stale after a swap", name)
		}
		if _, err := l.Query(context.Background(), "RETURN 1", nil); !errors.Is(err, ErrSwapped) {
			t.Errorf("%s: a statement after the swap: %v, want ErrSwapped", name, err)
		}
	}
	fresh, err := OpenLazy(context.Background(), root, testLazyOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if n := lazyCount(t, fresh, "MATCH (f:Function) RETURN count(f)"); n != 3 {
		t.Errorf("the new index has %d functions, want 3", n)
	}
}

// TestLazyDamagedBeforeOpen: a database file garbled after the Lazy was
// made is caught before Kuzu sees it: by its size and modification time
// for a checked Lazy, by its checksum for one made from meta.json's head.
func TestLazyDamagedBeforeOpen(t *testing.T) {
	for _, checkedFirst := range []bool{true, false} {
		root := newRepo(t)
		m := buildIndex(t, root, 2)
		var l *Lazy
		if checkedFirst {
			var err error
			if l, err = OpenLazy(context.Background(), root, testLazyOpts); err != nil {
				t.Fatal(err)
			}
		} else {
			canon, err := canonical(root)
			if err != nil {
				t.Fatal(err)
			}
			l = NewLazy(canon, m, testLazyOpts)
		}
		garbleDB(t, filepath.Join(IndexDir(root), m.DBFile))
		if _, err := l.Query(context.Background(), "RETURN 1", nil); !errors.Is(err, ErrDamaged) {
			t.Errorf("checked first %v: a statement on a garbled file: %v, want ErrDamaged", checkedFirst, err)
		}
		if _, err := l.Query(context.Background(), "RETURN 1", nil); !errors.Is(err, ErrDamaged) {
			t.Errorf("checked first %v: tried again: %v, want ErrDamaged", checkedFirst, err)
		}
		if l.Opened() {
			t.Errorf("checked first %v: Kuzu opened a garbled file", checkedFirst)
		}
		l.Close()
	}
}

// TestLazyCheck: Check makes a head-only Lazy's database check now: nil
// on a sound index (and the first statement then opens it), ErrDamaged on
// a garbled one without opening Kuzu, ErrSwapped once meta.json names
// another database.
func TestLazyCheck(t *testing.T) {
	root := newRepo(t)
	m := buildIndex(t, root, 2)
	l, err := OpenLazyHead(root, testLazyOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(context.Background()); err != nil {
		t.Fatalf("Check of a sound index: %v", err)
	}
	if err := l.Check(context.Background()); err != nil { // made once
		t.Fatalf("Check again: %v", err)
	}
	if _, err := l.Query(context.Background(), "RETURN 1", nil); err != nil {
		t.Fatalf("a statement after Check: %v", err)
	}
	l.Close()

	other := *m
	other.DBFile = "db-20990101T000000-00000000.kuzu"
	l = NewLazy(l.RepoRoot(), &other, testLazyOpts)
	if err := l.Check(context.Background()); !errors.Is(err, ErrSwapped) {
		t.Errorf("Check of a Lazy whose database meta.json no longer names: %v, want ErrSwapped", err)
	}

	garbleDB(t, filepath.Join(IndexDir(root), m.DBFile))
	l, err = OpenLazyHead(root, testLazyOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(context.Background()); !errors.Is(err, ErrDamaged) {
		t.Errorf("Check of a garbled index: %v, want ErrDamaged", err)
	}
	if l.Opened() {
		t.Error("Check opened Kuzu")
	}
	l.Close()
}

// garbleDB writes garbage into the middle of the database file at path,
// keeping its size.
func garbleDB(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("garbage garbage garbage"), fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}
