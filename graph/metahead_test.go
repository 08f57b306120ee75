package graph

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestReadMetaHead: the head read gives every field but the per-file
// maps; a meta.json in the older layout (maps first) is read whole; a
// damaged one is a DamageError, a missing one ErrNoIndex.
func TestReadMetaHead(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(IndexDir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	m := &Meta{SchemaVersion: 7, RepoName: "r", IndexedAt: time.Unix(1e9, 0).UTC(), DBFile: dbPrefix + "x" + dbSuffix,
		Counts: map[string]int{"File": 2}, Embeddings: EmbeddingInfo{Model: "m", Count: 3, Dim: 4},
		Calls: map[string]int{"resolved": 5}, Sums: map[string]FileSum{"a": {Size: 1}},
		Files: map[string]string{"a.go": "h1", "b.go": "h2"}, Unresolved: map[string]int{"a.go": 1}}
	if err := writeMeta(root, m); err != nil {
		t.Fatal(err)
	}
	full, err := ReadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	head, err := ReadMetaHead(root)
	if err != nil {
		t.Fatal(err)
	}
	if head.Files != nil || head.Unresolved != nil {
		t.Errorf("head read the per-file maps: %v %v", head.Files, head.Unresolved)
	}
	want := *full
	want.Files, want.Unresolved = nil, nil
	if !reflect.DeepEqual(*head, want) {
		t.Errorf("head = %+v\nwant %+v", *head, want)
	}

	// the older layout: the maps before the rest
	old := `{"files": {"a.go": "h1"}, "dbFile": "` + m.DBFile + `", "schemaVersion": 6, "sums": {}}`
	if err := os.WriteFile(filepath.Join(IndexDir(root), metaFileName), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if h, err := ReadMetaHead(root); err != nil || h.SchemaVersion != 6 || h.Files["a.go"] != "h1" {
		t.Errorf("older layout: %+v, %v; want it read whole", h, err)
	}

	for _, bad := range []string{`[1]`, `{"dbFile": 3}`, `{"dbFile": "../x"}`, `{"dbFile": "` + m.DBFile + `", "counts": {`} {
		if err := os.WriteFile(filepath.Join(IndexDir(root), metaFileName), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		var de *DamageError
		if _, err := ReadMetaHead(root); !errors.As(err, &de) {
			t.Errorf("ReadMetaHead(%s) = %v, want a DamageError", bad, err)
		}
	}
	if _, err := ReadMetaHead(t.TempDir()); !errors.Is(err, ErrNoIndex) {
		t.Errorf("no index: %v", err)
	}
}
