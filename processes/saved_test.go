package processes

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// flowGraph is twoCliques with a flow through it: main → a3 → b0.
func flowGraph() ([]Node, []Edge) {
	ns, es := twoCliques()
	ns = append(ns, fn("main", "cmd/main.go"))
	es = append(es, call("main", "a3"), call("a3", "b0"), call("b0", "b1"))
	return ns, es
}

// sameResult fails t unless a and b hold the same records and edges (the
// rows a build writes), Stats aside.
func sameResult(t *testing.T, a, b *Result) {
	t.Helper()
	js := func(v any) string {
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if js(a.Communities) != js(b.Communities) || js(a.Processes) != js(b.Processes) ||
		!reflect.DeepEqual(a.Edges(), b.Edges()) || !reflect.DeepEqual(a.Entries, b.Entries) {
		t.Fatalf("results differ:\n%s\n%s", js(a.Processes), js(b.Processes))
	}
}

// TestSavedResultIsRunsResult: a Result saved and loaded for a graph with
// its key is Run's for that graph, rows and edges alike, and says it was
// reused; a graph that differs only in its symbols' start lines has the
// same key (no algorithm reads them), one with another edge another key.
func TestSavedResultIsRunsResult(t *testing.T) {
	ns, es := flowGraph()
	g := NewGraph(ns, es)
	want := Run(g, Options{})
	if len(want.Processes) == 0 || len(want.Communities) == 0 {
		t.Fatal("the fixture gives no processes or no communities")
	}
	path := filepath.Join(t.TempDir(), "procs")
	key := g.Key(Options{})
	if err := want.Save(path, key); err != nil {
		t.Fatal(err)
	}

	moved := append([]Node(nil), ns...)
	for i := range moved {
		moved[i].StartLine += 10 * (i + 1)
	}
	g2 := NewGraph(moved, es)
	if g2.Key(Options{}) != key {
		t.Fatal("start lines changed the key")
	}
	got, err := LoadSaved(path, g2, key)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Stats.Reused || want.Stats.Reused {
		t.Errorf("Reused: saved %v, loaded %v", want.Stats.Reused, got.Stats.Reused)
	}
	sameResult(t, got, Run(g2, Options{}))

	for name, other := range map[string]*Graph{
		"an edge more":       NewGraph(ns, append(append([]Edge(nil), es...), call("a1", "b2"))),
		"a decorator":        NewGraph(append(append([]Node(nil), ns[:len(ns)-1]...), Node{ID: "main", Label: ns[0].Label, Kind: ns[0].Kind, Name: "main", FilePath: "cmd/main.go", Language: "go", Decorators: []string{"@x"}}), es),
		"a lower confidence": NewGraph(ns, append(es[:len(es)-1:len(es)-1], Edge{From: "b0", To: "b1", Type: es[0].Type, Confidence: 0.5})),
	} {
		if k := other.Key(Options{}); k == key {
			t.Errorf("%s: same key", name)
		} else if _, err := LoadSaved(path, other, k); !errors.Is(err, ErrKeyDiffers) {
			t.Errorf("%s: LoadSaved = %v, want ErrKeyDiffers", name, err)
		}
	}
	if g.Key(Options{Trace: TraceOptions{MaxDepth: 3}}) == key {
		t.Error("other options, same key")
	}
}

// TestLoadSavedRefusesDamage: a truncated, flipped, foreign or
// out-of-range file is an error, never a result.
func TestLoadSavedRefusesDamage(t *testing.T) {
	ns, es := flowGraph()
	g := NewGraph(ns, es)
	res := Run(g, Options{})
	key := g.Key(Options{})
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := res.Save(good, key); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0x20
	// A small graph's key on a result whose indexes are the big graph's.
	small := NewGraph(ns[:3], nil)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"truncated": data[:len(data)-9],
		"flipped":   flipped,
		"foreign":   []byte("{\"Key\": \"" + key + "\"}"),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if r, err := LoadSaved(p, g, key); err == nil || r != nil {
			t.Errorf("%s: loaded (%v)", name, err)
		}
	}
	if _, err := LoadSaved(filepath.Join(dir, "missing"), g, key); err == nil {
		t.Error("a missing file loaded")
	}
	// The key is read before the body: a result of another graph is
	// refused as such, whatever its body.
	other := strings.Repeat("0", keyLen)
	body := append([]byte(other), "not a body at all"...)
	notBody := binary.LittleEndian.AppendUint32(append([]byte(savedMagic), body...), crc32.Checksum(body, castagnoli))
	p := filepath.Join(dir, "other")
	if err := os.WriteFile(p, notBody, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSaved(p, g, key); !errors.Is(err, ErrKeyDiffers) {
		t.Errorf("another graph's result: %v, want ErrKeyDiffers", err)
	}
	if _, err := LoadSaved(p, g, other); err == nil || errors.Is(err, ErrKeyDiffers) {
		t.Errorf("a body that does not decode under the right key: %v", err)
	}
	keyFlipped := append([]byte(nil), data...)
	keyFlipped[len(savedMagic)+3] ^= 0x01
	p = filepath.Join(dir, "keyflipped")
	if err := os.WriteFile(p, keyFlipped, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSaved(p, g, string(keyFlipped[len(savedMagic):len(savedMagic)+keyLen])); err == nil {
		t.Error("a damaged key loaded under the damaged key")
	}
	if err := res.Save(filepath.Join(dir, "big"), small.Key(Options{})); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSaved(filepath.Join(dir, "big"), small, small.Key(Options{})); err == nil {
		t.Error("node indexes outside the graph loaded")
	}
}

// TestSavedBodyHasEveryField: the records a saved body holds have the
// fields writeBody and readBody know of; a field added to one fails here
// until the body carries it (and savedFields counts it).
func TestSavedBodyHasEveryField(t *testing.T) {
	for name, v := range map[string]any{"Community": schema.Community{}, "Process": schema.Process{}, "EntryPoint": EntryPoint{}, "Result": Result{}} {
		if n := reflect.TypeOf(v).NumField(); n != savedFields[name] {
			t.Errorf("%s has %d fields, the saved body %d: add the new ones to writeBody and readBody", name, n, savedFields[name])
		}
	}
}

// TestSavedBodyKeepsNil: nil and empty slices load as they were saved.
func TestSavedBodyKeepsNil(t *testing.T) {
	r := &Result{
		Communities: []schema.Community{{ID: "c", Keywords: nil}, {ID: "d", Keywords: []string{}}},
		Processes:   []schema.Process{{ID: "p", Communities: []string{}, Priority: 0.25}},
		Entries:     []EntryPoint{{Node: 3, Score: -1.5, Reasons: nil, Closure: true}},
		members:     [][]int{nil, {}},
		steps:       [][]int{{0, 7, 2}},
	}
	var buf bytes.Buffer
	if err := r.writeBody(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := readBody(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Communities, r.Communities) || !reflect.DeepEqual(got.Processes, r.Processes) ||
		!reflect.DeepEqual(got.Entries, r.Entries) || !reflect.DeepEqual(got.members, r.members) || !reflect.DeepEqual(got.steps, r.steps) {
		t.Errorf("loaded %+v, saved %+v", got, r)
	}
	for cut := range buf.Len() {
		if _, err := readBody(buf.Bytes()[:cut]); err == nil {
			t.Errorf("a body cut at %d of %d bytes loaded", cut, buf.Len())
		}
	}
}

// TestSavedBodyRefusesLargeCounts: a body that claims more elements than
// its bytes could hold is refused before anything that size is made.
func TestSavedBodyRefusesLargeCounts(t *testing.T) {
	for name, body := range map[string][]byte{
		"communities":                binary.AppendUvarint(nil, 1<<40),
		"a few too many communities": append(binary.AppendUvarint(nil, 3), make([]byte, 2*12-1)...),
		"processes":                  append([]byte{0}, binary.AppendUvarint(nil, 1<<40)...),
	} {
		if _, err := readBody(body); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}
