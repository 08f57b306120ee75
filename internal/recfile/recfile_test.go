package recfile

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestRoundTrip: what a writer adds, a reader with the same magic and
// stamp finds by key, byte for byte; another stamp is ErrStamp, another
// magic an error, a missing file os.ErrNotExist.
func TestRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	recs := write(t, p, 50)
	r, err := Open(p, "MAGIC", "stamp", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Len() != len(recs) {
		t.Fatalf("%d records, want %d", r.Len(), len(recs))
	}
	var buf []byte
	for k, want := range recs {
		l, ok := r.Find(k)
		if !ok {
			t.Fatalf("%q not found", k)
		}
		got, err := r.Read(l, &buf)
		if err != nil || !bytes.Equal(got, want) || l.Len() != int64(len(want)) {
			t.Fatalf("%q: %q, %v; want %q", k, got, err, want)
		}
	}
	if _, ok := r.Find("nope"); ok {
		t.Error("a key never added was found")
	}
	if _, err := Open(p, "MAGIC", "other", 1<<20); !errors.Is(err, ErrStamp) {
		t.Errorf("another stamp: %v", err)
	}
	if _, err := Open(p, "OTHER", "stamp", 1<<20); err == nil {
		t.Error("another magic opened")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none"), "MAGIC", "stamp", 1<<20); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := Open(p, "MAGIC", "stamp", 3); err == nil {
		t.Error("records longer than the bound opened")
	}
}

// TestDamageIsNeverAWrongRecord: a file with any byte changed, or cut
// short anywhere, either does not open, or answers a read with an error
// or with exactly the record written: never other bytes, never a panic.
func TestDamageIsNeverAWrongRecord(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	recs := write(t, p, 8)
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, data []byte) {
		t.Helper()
		q := filepath.Join(t.TempDir(), "d")
		if err := os.WriteFile(q, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(q, "MAGIC", "stamp", 1<<20)
		if err != nil {
			return
		}
		defer r.Close()
		var buf []byte
		for k, want := range recs {
			if l, ok := r.Find(k); ok {
				if got, err := r.Read(l, &buf); err == nil && !bytes.Equal(got, want) {
					t.Fatalf("%s: %q read %q, want %q", what, k, got, want)
				}
			}
		}
	}
	for i := range good {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			d := bytes.Clone(good)
			d[i] ^= x
			check(fmt.Sprintf("byte %d ^ %#x", i, x), d)
		}
		check(fmt.Sprintf("cut to %d", i), good[:i])
	}
}

// TestDecoderBounds: reads past the end set Err (no panic, no huge
// allocation) and return zero values from then on.
func TestDecoderBounds(t *testing.T) {
	d := Decoder{B: []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}} // a 4-billion-byte string
	if s := d.Str(); s != "" || d.Err == nil {
		t.Fatalf("a string longer than its buffer: %q, %v", s, d.Err)
	}
	if d.Uint() != 0 || d.U64() != 0 || d.Bytes(0) != nil {
		t.Error("a failed decoder read on")
	}
	d = Decoder{B: AppendStr([]byte{7}, "hi")}
	if b := d.Bytes(1); len(b) != 1 || b[0] != 7 || d.Str() != "hi" || d.Err != nil || d.Pos != 4 {
		t.Errorf("byte and string: %v at %d", d.Err, d.Pos)
	}
	if d.U64(); d.Err == nil {
		t.Error("an 8-byte read past the end")
	}
}

// write writes n records of random sizes to p and returns them by key.
func write(t *testing.T, p string, n int) map[string][]byte {
	t.Helper()
	rng := rand.New(rand.NewSource(int64(n)))
	w, err := Create(p, "MAGIC", "stamp")
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string][]byte{}
	for i := range n {
		rec := make([]byte, rng.Intn(40))
		rng.Read(rec)
		k := fmt.Sprintf("file%d.go\x00h%d", i, i)
		recs[k] = rec
		if err := w.Add(k, rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return recs
}
