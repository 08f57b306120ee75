//go:build unix

package query

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"testing"
)

// TestMapPack: a mapped pack answers as a read one does, refuses what
// ReadPack refuses, and a file cut short under a mapping fails the search
// with ErrPackDamaged under SetPanicOnFault instead of killing the process.
func TestMapPack(t *testing.T) {
	path, data, secs := packImage(t)
	read, mapped := readAndMap(t, path)
	opts := Options{Mode: ModeKeyword}
	a, errA := Search(context.Background(), read, "router", opts)
	b, errB := Search(context.Background(), mapped, "router", opts)
	if errA != nil || errB != nil || len(ids(a)) == 0 || !slices.Equal(ids(a), ids(b)) {
		t.Fatalf("mapped answer differs: %v %v\n%v\n%v", errA, errB, ids(a), ids(b))
	}

	if _, err := MapPack(path + ".none"); !errors.Is(err, ErrNoPack) {
		t.Errorf("missing pack: %v", err)
	}
	empty := path + ".empty"
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MapPack(empty); !errors.Is(err, ErrPackDamaged) {
		t.Errorf("empty pack: %v", err)
	}

	// Map a fresh copy, then cut it before the body index: its pages are
	// gone, and reading them faults.
	cut := path + ".cut"
	if err := os.WriteFile(cut, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := MapPack(cut)
	if err != nil {
		t.Fatal(err)
	}
	off := min(secs[secIdent].off, secs[secDoc].off, secs[secBody].off, secs[secNodes].off)
	if err := os.Truncate(cut, int64(off)&^4095); err != nil {
		t.Fatal(err)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Logf("fault became a panic, recovered: %v", r)
			}
		}()
		if _, err := Search(context.Background(), p, "router handles a request in prose with many words", opts); !errors.Is(err, ErrPackDamaged) {
			t.Errorf("search over a truncated mapping: %v", err)
		}
	}()
}

// TestOneShotFlows: a mapped pack (one-shot) scans the process list for
// its hits' flows, a read one decodes the table; the answers are equal.
func TestOneShotFlows(t *testing.T) {
	fx := newFixture(t, true)
	path := filepath.Join(t.TempDir(), "x.pack")
	if err := fx.pack.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	read, mapped := readAndMap(t, path)
	for _, q := range []string{"login session password", "create session", "config", "nothing matches this"} {
		a, errA := Search(context.Background(), read, q, Options{Mode: ModeKeyword})
		b, errB := Search(context.Background(), mapped, q, Options{Mode: ModeKeyword})
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if !reflect.DeepEqual(a.Processes, b.Processes) || !reflect.DeepEqual(a.ProcessSymbols, b.ProcessSymbols) || !reflect.DeepEqual(a.Definitions, b.Definitions) {
			t.Errorf("%q: flows differ:\n%+v\n%+v\n%+v\n%+v", q, a.Processes, b.Processes, a.ProcessSymbols, b.ProcessSymbols)
		}
		if q == "login session password" && len(b.Processes) != 1 {
			t.Errorf("%q: %d flows from the mapped pack, want the login flow", q, len(b.Processes))
		}
	}
}

// readAndMap opens the pack at path both ways: read into memory and mapped.
func readAndMap(t *testing.T, path string) (read, mapped *Pack) {
	t.Helper()
	read, err := ReadPack(path)
	if err != nil {
		t.Fatal(err)
	}
	if mapped, err = MapPack(path); err != nil {
		t.Fatal(err)
	}
	return read, mapped
}
