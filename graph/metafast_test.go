package graph

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"
)

// metaCases are metas whose per-file maps are nil, empty, plain, and
// hold keys encoding/json escapes (which the fast reader hands back).
func metaCases() []*Meta {
	base := func() *Meta {
		return &Meta{SchemaVersion: 7, ToolVersion: "t", RepoRoot: `/r/"files": {`, RepoName: "r", DBFile: "db-x.kuzu",
			IndexedAt: time.Date(2026, 11, 26, 1, 2, 3, 4, time.UTC), Counts: map[string]int{"File": 3},
			Sums: map[string]FileSum{"db-x.kuzu": {Size: 1, CRC32C: 2}}}
	}
	var out []*Meta
	m := base()
	out = append(out, m)
	m = base()
	m.Files, m.Unresolved = map[string]string{}, map[string]int{}
	out = append(out, m)
	m = base()
	m.Files = map[string]string{"a/b.go": "h1", "grüße/路由.py": "h2", "x y/z.c": ""}
	m.Unresolved = map[string]int{"a/b.go": 3, "c.go": 0}
	out = append(out, m)
	m = base()
	m.Files = map[string]string{"a<b>&c.go": "h", `q"uote.go`: "h", "tab\t.go": "h"}
	out = append(out, m)
	return out
}

// TestDecodeMetaFast: what writeMeta writes reads back by hand as
// encoding/json reads it.
func TestDecodeMetaFast(t *testing.T) {
	fast := 0
	for i, m := range metaCases() {
		data, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, '\n')
		var want Meta
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := decodeMetaFast(data)
		if !ok {
			if i < 3 {
				t.Errorf("case %d: the hand reader refused writeMeta's layout:\n%s", i, data)
			}
			continue
		}
		fast++
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("case %d:\n got %+v\nwant %+v", i, *got, want)
		}
		// The paths-only reading: the same head, the keys of Files in
		// order, no maps.
		var paths []string
		head, ok := decodeMetaLayout(data, &paths)
		if !ok {
			t.Errorf("case %d: the paths reader refused what the hand reader read", i)
			continue
		}
		wantHead := want
		wantHead.Files, wantHead.Unresolved = nil, nil
		if !reflect.DeepEqual(*head, wantHead) || !reflect.DeepEqual(paths, slices.Sorted(maps.Keys(want.Files))) && len(want.Files)+len(paths) > 0 {
			t.Errorf("case %d: paths reader: head %+v, paths %v", i, *head, paths)
		}
	}
	if fast < 3 {
		t.Fatalf("the hand reader read %d of the cases", fast)
	}
}

// FuzzDecodeMetaFast: whatever the hand reader accepts, encoding/json
// reads the same from.
func FuzzDecodeMetaFast(f *testing.F) {
	for _, m := range metaCases() {
		data, _ := json.MarshalIndent(m, "", "  ")
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := decodeMetaFast(data)
		if !ok {
			return
		}
		var want Meta
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("hand reader accepted what encoding/json refuses (%v):\n%q", err, data)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("\n got %+v\nwant %+v\n%q", *got, want, data)
		}
	})
}
