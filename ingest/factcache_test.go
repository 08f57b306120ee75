package ingest

import (
	"bytes"
	"context"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
)

// repeated are strings fillRandom gives many fields: empty, short (a
// record writes them once and refers to them after), and longer than
// internMax (written each time).
var repeated = []string{"", "pkg/x.go", "pkg/x.go#Run:function", "\x00\xff", strings.Repeat("long source text ", 10)}

// fillRandom sets every field reachable from v (strings, ints, bools,
// slices, structs) to a random value; slices are nil, empty or 1-3 long.
func fillRandom(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if rng.Intn(2) == 0 { // a string the record repeats: written once, then referred to
			v.SetString(repeated[rng.Intn(len(repeated))])
			return
		}
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

// TestFactEncoderReuse: encoders come from a pool and keep their buffer
// and string table from one record to the next; a record encoded after
// others is the bytes it is alone, and the bytes returned before are not
// changed by the encodings after them.
func TestFactEncoderReuse(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	recs := make([]cachedFacts, 40)
	alone := make([][]byte, len(recs))
	for i := range recs {
		fillRandom(rng, reflect.ValueOf(&recs[i]).Elem())
		alone[i] = (&factEncoder{seen: map[string]uint64{}}).encodeFresh(&recs[i])
	}
	var got [][]byte
	for round := 0; round < 2; round++ {
		for i := range recs {
			got = append(got, encodeFacts(&recs[i]))
		}
	}
	for k, b := range got {
		if i := k % len(recs); !bytes.Equal(b, alone[i]) {
			t.Fatalf("record %d (round %d) encoded after others differs from it alone", i, k/len(recs))
		}
	}
}

// encodeFresh is encodeFacts on e without the pool.
func (e *factEncoder) encodeFresh(rec *cachedFacts) []byte {
	e.value(reflect.ValueOf(rec).Elem())
	return e.b
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
	huge := []byte{0xfe, 0xff, 0xff, 0xff, 0x0f} // a 2-billion-long first string
	if err := decodeFacts(huge, &out); err == nil {
		t.Fatal("a record claiming a 2 GB string decoded")
	}
	ahead := []byte{2*5 + 1} // the first string refers to a sixth one
	if err := decodeFacts(ahead, &out); err == nil {
		t.Fatal("a record referring to a string it has not written decoded")
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
	// A record carried into the next cache (addFrom) reads back the same,
	// beside a larger one added before it (the copy buffer reused).
	big := rec
	big.Facts.Path = "a/big.go"
	big.Facts.Symbols = []schema.Symbol{{ID: "a/big.go#G:function", Name: "G", Content: strings.Repeat("x", 5000)}}
	p2 := filepath.Join(t.TempDir(), "facts2")
	fw2, err := newFactWriter(p2, "stamp-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := fw2.add("a/big.go", "go", "h9", encodeFacts(&big)); err != nil {
		t.Fatal(err)
	}
	loc, _, _ := c.lookup("a/b.go", "go", "h1")
	if err := fw2.addFrom(c, loc, "a/b.go", "go", "h1"); err != nil {
		t.Fatal(err)
	}
	if err := fw2.close(); err != nil {
		t.Fatal(err)
	}
	c2, err := OpenFactCache(p2, "stamp-1")
	if err != nil || c2.Len() != 2 {
		t.Fatalf("open the carried cache: %v, %d records", err, c2.Len())
	}
	if _, got, ok := c2.lookup("a/b.go", "go", "h1"); !ok || !reflect.DeepEqual(got, rec) {
		t.Errorf("carried record: %v %#v", ok, got)
	}
	if _, got, ok := c2.lookup("a/big.go", "go", "h9"); !ok || !reflect.DeepEqual(got, big) {
		t.Errorf("the record added beside it: %v", ok)
	}
	c2.Close()
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

// TestUpToDateBeforeTheParse: with a fact cache the files are hashed
// before any is parsed; UpToDate gets the hashes a full run records and
// the skips, and when it answers true the run ends there, nothing parsed
// or streamed; when it answers false the run parses as without it, every
// unchanged file's facts from the cache, and Seen has had every hash.
func TestUpToDateBeforeTheParse(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a.go":        "package a\n\nfunc A() { B() }\n",
		"b.go":        "package a\n\nfunc B() {}\n",
		"notes.txt":   "no grammar\n",
		"sub/c.py":    "def c():\n    return 1\n",
		"empty/d.go":  "package empty\n",
		"sub/bad.bin": "\x00\x01\x02",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	facts := filepath.Join(t.TempDir(), "facts")
	first, err := Run(ctx, dir, &memSink{}, Options{CacheOut: facts, CacheStamp: "s"})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := OpenFactCache(facts, "s")
	if err != nil || cache == nil {
		t.Fatalf("open the fact cache: %v", err)
	}
	defer cache.Close()

	var gotHashes map[string]string
	var gotSkipped map[string]int
	sink := &memSink{}
	res, err := Run(ctx, dir, sink, Options{Cache: cache, UpToDate: func(h map[string]string, sk map[string]int) bool {
		gotHashes, gotSkipped = h, sk
		return true
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(gotHashes, first.Stats.FileHashes) || !maps.Equal(gotSkipped, first.Stats.Skipped) {
		t.Errorf("UpToDate got hashes %v skipped %v, the full run recorded %v and %v", gotHashes, gotSkipped, first.Stats.FileHashes, first.Stats.Skipped)
	}
	if !res.UpToDate || !res.Unchanged || len(sink.files) != 0 || len(sink.symbols) != 0 || res.Stats.Parsed+res.Stats.Reused != 0 {
		t.Errorf("an up-to-date run went on: up_to_date %v, %d files and %d symbols streamed, %d parsed, %d reused",
			res.UpToDate, len(sink.files), len(sink.symbols), res.Stats.Parsed, res.Stats.Reused)
	}

	// Not up to date: one file changed; the others come from the cache.
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package a\n\nfunc B() { A() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	sink = &memSink{}
	res, err = Run(ctx, dir, sink, Options{Cache: cache,
		UpToDate: func(map[string]string, map[string]int) bool { return false },
		Seen:     func(p, h string) { seen[p] = h }})
	if err != nil {
		t.Fatal(err)
	}
	if res.UpToDate || res.Stats.Parsed != 1 || res.Stats.Reused != 3 {
		t.Errorf("after one edit: up_to_date %v, parsed %d, reused %d (want 1 and 3)", res.UpToDate, res.Stats.Parsed, res.Stats.Reused)
	}
	if !maps.Equal(seen, res.Stats.FileHashes) || seen["b.go"] == first.Stats.FileHashes["b.go"] {
		t.Errorf("Seen had %v, the run recorded %v", seen, res.Stats.FileHashes)
	}
	cold, err := Run(ctx, dir, &memSink{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(res.Stats.FileHashes, cold.Stats.FileHashes) || len(sink.files) != len(cold.Stats.FileHashes) {
		t.Errorf("the cached run recorded %v (%d File rows), a cold one %v", res.Stats.FileHashes, len(sink.files), cold.Stats.FileHashes)
	}
	for _, f := range sink.files {
		if f.Lines == 0 || f.Size == 0 || f.ContentHash != cold.Stats.FileHashes[f.Path] {
			t.Errorf("File row %s: lines %d, size %d, hash %.8s", f.Path, f.Lines, f.Size, f.ContentHash)
		}
	}
}

// TestReadSumNamesWhyAFileIsUnread: a file gone since discovery is
// "vanished", one that cannot be read (here a directory) "unreadable";
// neither has content or a hash, and a readable one has both.
func TestReadSumNamesWhyAFileIsUnread(t *testing.T) {
	dir := t.TempDir()
	if src, s := readSumInto(filepath.Join(dir, "gone.go"), nil); src != nil || s.err == nil || s.reason != "vanished" || s.hash != "" {
		t.Errorf("a missing file: %q, %+v", src, s)
	}
	if src, s := readSumInto(dir, nil); src != nil || s.err == nil || s.reason != "unreadable" || s.hash != "" {
		t.Errorf("a directory: %q, %+v", src, s)
	}
	p := filepath.Join(dir, "a.go")
	if err := os.WriteFile(p, []byte("package a\n\nfunc A() {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if src, s := readSumInto(p, nil); s.err != nil || len(src) != 22 || s.size != 22 || s.lines != 3 || len(s.hash) != 64 {
		t.Errorf("a readable file: %d bytes, %+v", len(src), s)
	}
	// Read into one buffer in turn, as sumFiles does: each file's sum is
	// its own, whatever the buffer held before.
	big := filepath.Join(dir, "big.go")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x\n"), 40000), 0o644); err != nil {
		t.Fatal(err)
	}
	_, want := readSumInto(p, nil)
	buf := make([]byte, 0, 8)
	for _, f := range []string{p, big, p, filepath.Join(dir, "empty.go")} {
		if f == filepath.Join(dir, "empty.go") {
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var s fileSum
		var src []byte
		src, s = readSumInto(f, buf)
		_, fresh := readSumInto(f, nil)
		if s != fresh || int64(len(src)) != s.size {
			t.Errorf("%s read into a used buffer: %+v, %d bytes; alone: %+v", filepath.Base(f), s, len(src), fresh)
		}
		if f == p && s != want {
			t.Errorf("a.go after another file: %+v, want %+v", s, want)
		}
		buf = src
	}
}

// BenchmarkDecodeFacts decodes the facts of a real Go file (ingest.go,
// about 700 lines), as a re-analyze does for every unchanged file.
func BenchmarkDecodeFacts(b *testing.B) {
	src, err := os.ReadFile("ingest.go")
	if err != nil {
		b.Fatal(err)
	}
	p := lang.NewParser()
	defer p.Close()
	facts, status, err := p.Parse(context.Background(), "ingest/ingest.go", lang.ByName("go"), src)
	if err != nil {
		b.Fatal(err)
	}
	raw := encodeFacts(&cachedFacts{Status: status, Facts: facts})
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		var rec cachedFacts
		if err := decodeFacts(raw, &rec); err != nil {
			b.Fatal(err)
		}
	}
}
