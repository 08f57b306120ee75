package graph

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// damagedTemplate builds one committed index with a search pack attached
// (any bytes: graph does not read it) and returns its root and meta.
func damagedTemplate(t *testing.T) (string, *Meta) {
	t.Helper()
	root := newRepo(t)
	b := loadedBuild(t, root, BuildOptions{MaxThreads: 2}, 20)
	pack := filepath.Join(b.StagingDir(), "pack")
	if err := os.WriteFile(pack, []byte(strings.Repeat("pack bytes ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.Attach(PackSuffix, pack); err != nil {
		t.Fatal(err)
	}
	m := &Meta{ToolVersion: "test"}
	if err := b.Commit(m); err != nil {
		t.Fatal(err)
	}
	return root, m
}

// copyIndex copies the index of src into a fresh repository and returns it.
func copyIndex(t *testing.T, src string) string {
	t.Helper()
	dst := newRepo(t)
	if err := os.MkdirAll(IndexDir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(IndexDir(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == lockFileName || e.IsDir() {
			continue
		}
		in, err := os.Open(filepath.Join(IndexDir(src), e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(IndexDir(dst), e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// garble writes n random bytes at off in the file at path.
func garble(t *testing.T, path string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(off), uint64(n)))
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	if _, err := f.WriteAt(buf, off); err != nil {
		t.Fatal(err)
	}
}

// damages are the attacks on a database file: each leaves a file Kuzu
// would crash on, fail on obscurely, or take for a new empty database.
var damages = []struct {
	name   string
	damage func(t *testing.T, path string, size int64)
	reason string // in the message
}{
	{"header garbled", func(t *testing.T, p string, _ int64) { garble(t, p, 0, 4096) }, "no KUZU magic"},
	{"magic only", func(t *testing.T, p string, _ int64) { garble(t, p, 0, 4) }, "no KUZU magic"},
	{"middle garbled", func(t *testing.T, p string, size int64) { garble(t, p, size/2, 1<<16) }, "garbled"},
	{"one byte", func(t *testing.T, p string, size int64) { garble(t, p, size/3, 1) }, "garbled"},
	{"catalog garbled", func(t *testing.T, p string, size int64) { garble(t, p, size-8*kuzuPageSize, 8*kuzuPageSize) }, "garbled"},
	{"truncated to half", func(t *testing.T, p string, size int64) { truncate(t, p, size/2/kuzuPageSize*kuzuPageSize) }, "at commit"},
	{"last page cut", func(t *testing.T, p string, size int64) { truncate(t, p, size-kuzuPageSize) }, "at commit"},
	{"odd size", func(t *testing.T, p string, size int64) { truncate(t, p, size-100) }, "at commit"},
	{"zero length", func(t *testing.T, p string, _ int64) { truncate(t, p, 0) }, "0 bytes"},
	{"missing", func(t *testing.T, p string, _ int64) { rm(t, p) }, "missing"},
	{"a directory", func(t *testing.T, p string, _ int64) { rm(t, p); mkdir(t, p) }, "not a regular file"},
}

func truncate(t *testing.T, p string, n int64) {
	t.Helper()
	if err := os.Truncate(p, n); err != nil {
		t.Fatal(err)
	}
}

func rm(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// wantDamaged checks err is the damage error of root naming reason.
func wantDamaged(t *testing.T, what, root string, err error, reason string) {
	t.Helper()
	var de *DamageError
	if !errors.Is(err, ErrDamaged) || !errors.As(err, &de) {
		t.Fatalf("%s: %v, want ErrDamaged", what, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "the index of "+root+" is damaged") || !strings.Contains(msg, "run `gitnexus analyze") || !strings.Contains(msg, reason) {
		t.Errorf("%s: message %q, want the repo, %q and the remedy", what, msg, reason)
	}
}

// TestDamageHeaderOfRealDatabase: the header check and the checksums pass
// on a database Kuzu wrote (a Kuzu upgrade that changes the file header
// fails here), and Commit recorded the database and its pack.
func TestDamageHeaderOfRealDatabase(t *testing.T) {
	root, m := damagedTemplate(t)
	path := filepath.Join(IndexDir(root), m.DBFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if reason, err := checkKuzuHeader(path, fi.Size()); err != nil || reason != "" {
		t.Fatalf("header of a fresh database: %q, %v", reason, err)
	}
	read, err := ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	if s := read.Sums[m.DBFile]; s.Size != fi.Size() || s.CRC32C == 0 {
		t.Errorf("database sum %+v, size %d", s, fi.Size())
	}
	_, pack := read.Sums[m.DBFile+PackSuffix]
	_, rows := read.Sums[m.DBFile+RowsSuffix]
	if !pack || !rows || len(read.Sums) != 3 {
		t.Errorf("sums %v: want the database, its pack and its row digest", read.Sums)
	}
	if err := Verify(root, read); err != nil {
		t.Fatalf("Verify of a fresh index: %v", err)
	}
	d := openTest(t, root)
	if n := count(t, d, "MATCH (f:Function) RETURN count(f)"); n != 20 {
		t.Errorf("%d functions", n)
	}
}

// TestOpenDamaged attacks the database file every way in damages: Open and
// Verify report it damaged, with the reason and the remedy, before Kuzu
// sees the file (Kuzu segfaults on some of them, which would end this test
// process). Then the same without recorded sums (an index of an older
// gitnexus): the header check still catches what it can see.
func TestOpenDamaged(t *testing.T) {
	tmpl, m := damagedTemplate(t)
	size := m.Sums[m.DBFile].Size
	for _, c := range damages {
		t.Run(c.name, func(t *testing.T) {
			root := copyIndex(t, tmpl)
			c.damage(t, filepath.Join(IndexDir(root), m.DBFile), size)
			d, err := Open(context.Background(), root, OpenOptions{BufferPoolSize: 64 << 20, MaxThreads: 1})
			if err == nil {
				d.Close()
			}
			wantDamaged(t, "Open", root, err, c.reason)
			meta, err := ReadMeta(root)
			if err != nil {
				t.Fatal(err)
			}
			wantDamaged(t, "Verify", root, Verify(root, meta), c.reason)
		})
	}
	unrecorded := map[string]string{
		"header garbled": "no KUZU magic", "odd size": "whole number", "zero length": "empty",
		"missing": "missing", "truncated to half": "past its end",
	}
	for _, c := range damages {
		reason, ok := unrecorded[c.name]
		if !ok {
			continue
		}
		t.Run("unrecorded/"+c.name, func(t *testing.T) {
			root := copyIndex(t, tmpl)
			meta, err := ReadMeta(root)
			if err != nil {
				t.Fatal(err)
			}
			meta.Sums = nil
			if err := writeMeta(root, meta); err != nil {
				t.Fatal(err)
			}
			c.damage(t, filepath.Join(IndexDir(root), m.DBFile), size)
			d, err := Open(context.Background(), root, OpenOptions{BufferPoolSize: 64 << 20, MaxThreads: 1})
			if err == nil {
				d.Close()
			}
			wantDamaged(t, "Open", root, err, reason)
		})
	}
}

// TestDamagedPack: a garbled, truncated or missing search pack leaves the
// graph usable (Open succeeds: the pack has its own checksums, read by its
// reader) and Verify names the pack.
func TestDamagedPack(t *testing.T) {
	tmpl, m := damagedTemplate(t)
	pack := m.DBFile + PackSuffix
	for name, damage := range map[string]func(string){
		"garbled":   func(p string) { garble(t, p, 100, 10) },
		"truncated": func(p string) { truncate(t, p, 50) },
		"missing":   func(p string) { rm(t, p) },
		"a fifo": func(p string) {
			rm(t, p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := copyIndex(t, tmpl)
			damage(filepath.Join(IndexDir(root), pack))
			d := openTest(t, root)
			if n := count(t, d, "MATCH (f:Function) RETURN count(f)"); n != 20 {
				t.Errorf("%d functions", n)
			}
			err := Verify(root, d.Meta())
			wantDamaged(t, "Verify", root, err, "")
			var de *DamageError
			if errors.As(err, &de) && de.File != pack {
				t.Errorf("Verify named %s, want %s", de.File, pack)
			}
		})
	}
}

// TestCheckpointLeavesIndexIntact: a CHECKPOINT through a read-only open
// (Kuzu 0.11 runs it far enough to leave a WAL and a shadow file beside
// the database, which then no longer opens) changes nothing: the database
// file keeps its checksum, and the index opens and answers afterwards,
// also when the debris is left by a process that died before Close.
func TestCheckpointLeavesIndexIntact(t *testing.T) {
	root, m := damagedTemplate(t)
	path := filepath.Join(IndexDir(root), m.DBFile)
	ctx := context.Background()
	d, err := Open(ctx, root, OpenOptions{BufferPoolSize: 64 << 20, MaxThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CHECKPOINT", "MATCH (f:Function) RETURN count(f); CHECKPOINT"} {
		if _, err := d.Query(ctx, q, nil); err == nil {
			t.Errorf("%s on a read-only index succeeded", q)
		}
	}
	if _, err := d.Query(ctx, "RETURN 1; RETURN 2", nil); !errors.Is(err, ErrManyStatements) {
		t.Errorf("two statements: %v, want ErrManyStatements", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{".wal", ".shadow"} {
		if _, err := os.Stat(path + s); err == nil {
			t.Errorf("%s left after Close", s)
		}
	}
	if err := Verify(root, m); err != nil {
		t.Fatalf("after CHECKPOINT: %v", err)
	}
	// A reader killed after such a CHECKPOINT leaves the debris behind.
	if err := os.WriteFile(path+".wal", []byte{0xfe}, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".shadow", make([]byte, 8208), 0o644); err != nil {
		t.Fatal(err)
	}
	d = openTest(t, root)
	if n := count(t, d, "MATCH (f:Function) RETURN count(f)"); n != 20 {
		t.Errorf("%d functions", n)
	}
}

// TestReadSideNeverWrites runs, through a read-only DB and without any
// statement filter, every statement that could write somewhere: none
// changes the database file (its checksum holds), none leaves a file
// beside it once the DB is closed, and the index opens and answers after.
// Files a statement writes elsewhere (COPY TO and EXPORT DATABASE succeed
// on a read-only database) are the statement gate's to refuse; here they
// go to a temp directory. So is BEGIN TRANSACTION, which succeeds and
// leaves the pooled connection inside a transaction (a CHECKPOINT after it
// waits 6 s for it, then fails).
func TestReadSideNeverWrites(t *testing.T) {
	root, m := damagedTemplate(t)
	out := t.TempDir()
	before := listDir(t, IndexDir(root))
	ctx := context.Background()
	d, err := Open(ctx, root, OpenOptions{BufferPoolSize: 64 << 20, MaxThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CHECKPOINT",
		"BEGIN TRANSACTION",
		"COMMIT",
		"ROLLBACK",
		"CALL checkpoint_threshold=1",
		"CREATE (:Folder {id: 'x', path: 'x', name: 'x'})",
		"MATCH (f:Function) SET f.name = 'y'",
		"CREATE NODE TABLE Evil(id STRING PRIMARY KEY)",
		"ALTER TABLE Function ADD evil STRING",
		"DROP TABLE Function",
		"CREATE MACRO evil(x) AS x",
		"COPY Function FROM '" + filepath.Join(out, "none.csv") + "'",
		"COPY (MATCH (f:Function) RETURN f.id) TO '" + filepath.Join(out, "f.csv") + "'",
		"EXPORT DATABASE '" + filepath.Join(out, "export") + "'",
		"ATTACH '" + filepath.Join(out, "other.kuzu") + "' AS other (dbtype kuzu)",
	} {
		d.Query(ctx, q, nil) // errors or not: what counts is the files
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if after := listDir(t, IndexDir(root)); !reflect.DeepEqual(before, after) {
		t.Errorf(".gitnexus/ changed:\nbefore %v\nafter  %v", before, after)
	}
	if err := Verify(root, m); err != nil {
		t.Fatal(err)
	}
	d = openTest(t, root)
	if n := count(t, d, "MATCH (f:Function) RETURN count(f)"); n != 20 {
		t.Errorf("%d functions", n)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestWrittenWhileOpen: a database file garbled while a reader has it open
// fails that reader's next queries as damaged instead of feeding Kuzu the
// garbled pages; a re-analyze's swap (file removed) does not.
func TestWrittenWhileOpen(t *testing.T) {
	root, m := damagedTemplate(t)
	d := openTest(t, root)
	count(t, d, "MATCH (f:Function) RETURN count(f)")
	path := filepath.Join(IndexDir(root), m.DBFile)
	time.Sleep(20 * time.Millisecond) // past the kernel's coarse mtime tick
	garble(t, path, m.Sums[m.DBFile].Size/2, 1<<16)
	_, err := d.Query(context.Background(), "MATCH (f:Function) RETURN f.name", nil)
	wantDamaged(t, "Query", root, err, "written to while open")

	root2, m2 := damagedTemplate(t)
	d2 := openTest(t, root2)
	if err := os.Rename(filepath.Join(IndexDir(root2), m2.DBFile), filepath.Join(t.TempDir(), "moved")); err != nil {
		t.Fatal(err)
	}
	if n := count(t, d2, "MATCH (f:Function) RETURN count(f)"); n != 20 {
		t.Errorf("after the file went: %d functions", n)
	}
}

// TestDamagedMeta: a meta.json that is not JSON, or names something other
// than a database file in .gitnexus/ (a path out of it, meta.json itself,
// its own companion), is damage too.
func TestDamagedMeta(t *testing.T) {
	tmpl, m := damagedTemplate(t)
	metaPath := func(root string) string { return filepath.Join(IndexDir(root), metaFileName) }
	for name, content := range map[string]string{
		"garbage":   "\x00\xffnot json",
		"truncated": `{"schemaVersion": 3, "dbFile": "db-`,
		"escape":    `{"dbFile": "../../../etc/passwd"}`,
		"itself":    `{"dbFile": "meta.json"}`,
		"companion": `{"dbFile": "` + m.DBFile + PackSuffix + `"}`,
		"empty":     ``,
		"huge":      `{"dbFile": "` + m.DBFile + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			root := copyIndex(t, tmpl)
			if err := os.WriteFile(metaPath(root), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if name == "huge" {
				truncate(t, metaPath(root), maxMetaBytes+1) // sparse
			}
			_, err := Open(context.Background(), root, OpenOptions{BufferPoolSize: 64 << 20, MaxThreads: 1})
			wantDamaged(t, "Open", root, err, "")
			var de *DamageError
			if errors.As(err, &de) && de.File != metaFileName {
				t.Errorf("names %s, want %s", de.File, metaFileName)
			}
		})
	}
}
