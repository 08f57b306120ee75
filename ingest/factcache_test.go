package ingest

import (
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// fillRandom sets every field reachable from v (strings, ints, bools,
// slices, structs) to a random value; slices are nil, empty or 1-3 long.
func fillRandom(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		b := make([]byte, rng.Intn(12))
		rng.Read(b) // any bytes, invalid UTF-8 included
		v.SetString(string(b))
	case reflect.Bool:
		v.SetBool(rng.Intn(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(rng.Int63n(1<<40) - 1<<39)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(rng.Int63n(1 << 40)))
	case reflect.Slice:
		switch n := rng.Intn(5); n {
		case 0: // nil
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := 0; i < n-1; i++ {
				fillRandom(rng, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fillRandom(rng, v.Field(i))
		}
	default:
		panic("fillRandom: " + v.Type().String())
	}
}

// TestFactCodecCoversTypes: every field of the cached types round-trips
// exactly (nil and empty slices apart, any bytes in strings). A field of a
// kind the codec does not know panics in encodeFacts: this test is where
// that shows.
func TestFactCodecCoversTypes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		var in cachedFacts
		fillRandom(rng, reflect.ValueOf(&in).Elem())
		b := encodeFacts(&in)
		var out cachedFacts
		if err := decodeFacts(b, &out); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("round trip changed the record:\n in %#v\nout %#v", in, out)
		}
	}
}

// TestFactCodecRejectsDamage: truncated, garbled or random records decode
// to an error, never a panic or a huge allocation.
func TestFactCodecRejectsDamage(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var in cachedFacts
	fillRandom(rng, reflect.ValueOf(&in).Elem())
	good := encodeFacts(&in)
	var out cachedFacts
	for n := 0; n < len(good); n++ {
		if err := decodeFacts(good[:n], &out); err == nil {
			t.Fatalf("a record cut to %d of %d bytes decoded", n, len(good))
		}
	}
	for i := 0; i < 2000; i++ {
		b := append([]byte(nil), good...)
		b[rng.Intn(len(b))] ^= byte(1 + rng.Intn(255))
		_ = decodeFacts(b, &out) // may decode to other values; must not panic
		r := make([]byte, rng.Intn(64))
		rng.Read(r)
		_ = decodeFacts(r, &out)
	}
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0x0f} // a 4-billion-long first string
	if err := decodeFacts(huge, &out); err == nil {
		t.Fatal("a record claiming a 4 GB string decoded")
	}
}

// TestFactCacheFile: what a writer adds, a reader with the same stamp finds
// by (path, language, hash); another stamp, another hash or a truncated
// file finds nothing.
func TestFactCacheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "facts")
	fw, err := newFactWriter(p, "stamp-1")
	if err != nil {
		t.Fatal(err)
	}
	rec := cachedFacts{Status: schema.ParseOK}
	rec.Facts.Path, rec.Facts.Language = "a/b.go", "go"
	rec.Facts.Symbols = []schema.Symbol{{ID: "a/b.go#F:function", Name: "F", Content: "func F() {}"}}
	if err := fw.add("a/b.go", "go", "h1", encodeFacts(&rec)); err != nil {
		t.Fatal(err)
	}
	if err := fw.close(); err != nil {
		t.Fatal(err)
	}
	c, err := OpenFactCache(p, "stamp-1")
	if err != nil || c.Len() != 1 {
		t.Fatalf("open: %v, %d records", err, c.Len())
	}
	if _, got, ok := c.lookup("a/b.go", "go", "h1"); !ok || !reflect.DeepEqual(got, rec) {
		t.Fatalf("lookup: %v %#v", ok, got)
	}
	if _, _, ok := c.lookup("a/b.go", "go", "h2"); ok {
		t.Error("another content hash was found")
	}
	c.Close()
	if _, _, ok := c.lookup("a/b.go", "go", "h1"); ok {
		t.Error("a closed cache answered")
	}
	if c, err := OpenFactCache(p, "stamp-2"); err == nil || c != nil {
		t.Error("a cache of another build was opened")
	}
	if err := os.Truncate(p, 30); err != nil {
		t.Fatal(err)
	}
	if c, err := OpenFactCache(p, "stamp-1"); err == nil || c != nil {
		t.Error("a truncated cache was opened")
	}
	if c, err := OpenFactCache(filepath.Join(t.TempDir(), "none"), "stamp-1"); err != nil || c != nil {
		t.Errorf("a missing cache: %v, %v (want nil, nil)", c, err)
	}
}
