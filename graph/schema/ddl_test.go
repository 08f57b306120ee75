package schema

import (
	"strings"
	"testing"
)

func TestNodeTablesColumns(t *testing.T) {
	want := map[Label]string{
		LabelFile:      "CREATE NODE TABLE File(id STRING, path STRING, name STRING, language STRING, size INT64, lines INT64, parseStatus STRING, contentHash STRING, unresolved INT64, searchText STRING, isTest BOOLEAN, PRIMARY KEY(id))",
		LabelFolder:    "CREATE NODE TABLE Folder(id STRING, path STRING, name STRING, PRIMARY KEY(id))",
		LabelFunction:  "CREATE NODE TABLE Function(id STRING, kind STRING, name STRING, qualifiedName STRING, filePath STRING, startLine INT64, endLine INT64, language STRING, signature STRING, docComment STRING, isExported BOOLEAN, contentHash STRING, searchText STRING, isTest BOOLEAN, PRIMARY KEY(id))",
		LabelCommunity: "CREATE NODE TABLE Community(id STRING, label STRING, keywords STRING[], cohesion DOUBLE, symbolCount INT64, PRIMARY KEY(id))",
		LabelProcess:   "CREATE NODE TABLE Process(id STRING, label STRING, description STRING, processType STRING, stepCount INT64, communities STRING[], entryPointId STRING, terminalId STRING, priority DOUBLE, PRIMARY KEY(id))",
	}
	seen := 0
	for _, nt := range NodeTables() {
		if nt.Columns[0].Name != "id" {
			t.Errorf("%s: first column %q, want id", nt.Label, nt.Columns[0].Name)
		}
		if w, ok := want[nt.Label]; ok {
			seen++
			if got := nt.CreateStatement(); got != w {
				t.Errorf("%s:\n got %s\nwant %s", nt.Label, got, w)
			}
		}
	}
	if seen != len(want) || len(NodeTables()) != 8 {
		t.Fatalf("node tables: saw %d of %d, total %d", seen, len(want), len(NodeTables()))
	}
}

func TestRelDDLCoversEveryPair(t *testing.T) {
	ddl := strings.Join(DDL(), "\n")
	for _, r := range Rels {
		stmt := RelCreateStatement(r.Type, r.Pairs)
		if !strings.Contains(ddl, stmt) {
			t.Errorf("DDL lacks %s", stmt)
		}
		for _, p := range r.Pairs {
			if !strings.Contains(stmt, "FROM "+string(p.From)+" TO "+string(p.To)) {
				t.Errorf("%s lacks pair %v", r.Type, p)
			}
			if !HasPair(r.Type, p) {
				t.Errorf("HasPair(%s, %v) = false", r.Type, p)
			}
		}
		if !strings.HasSuffix(stmt, ", confidence DOUBLE, reason STRING, step INT64, line INT64)") {
			t.Errorf("%s: rel properties wrong: %s", r.Type, stmt)
		}
	}
	if HasPair(RelCalls, Pair{LabelFile, LabelFunction}) {
		t.Error("HasPair accepted CALLS File→Function")
	}
}
