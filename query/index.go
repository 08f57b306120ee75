package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/graph/text"
)

// SearchTable is the node table that holds one row per symbol of every
// symbol table, so that one full-text index covers all symbols.
//
// Why: BM25's IDF is computed per index. With one index per symbol table,
// a word that is rare among 300 interfaces but common among 20,000
// functions scores very differently in the two, and the merged list
// compares incomparable numbers (a lone Interface matching "user" loses to
// any Function mentioning users, whatever their names). One table, one
// set of statistics, fixes that; query/eval measured it (doc.go).
//
// Its rows carry the columns a hit needs (id, label, name, kind, filePath,
// startLine, endLine, language) and two texts indexed separately so they
// can be weighted: ident (name and searchText: the split identifier words)
// and doc (signature and doc comment). The source body is not indexed: a
// body index at weight 0.2 lowered symbol recall@5 from 0.735 to 0.706 on
// the labeled set (query/eval), and would copy every symbol's content.
const SearchTable = "SymbolSearch"

// Full-text indexes on SearchTable.
const (
	IndexIdent = "symbolsearch_ident"
	IndexDoc   = "symbolsearch_doc"
)

// StopWordsFile is the name of the stop-word CSV BuildIndexes writes into
// its scratch directory (Kuzu copies the words into each index).
const StopWordsFile = "fts-stopwords.csv"

// Execer runs a statement on a database being built: *graph.Build is one.
type Execer interface {
	Exec(ctx context.Context, stmt string) error
}

// IndexStatements are the statements BuildIndexes runs, in order, with the
// stop-word file at stopWordsPath.
func IndexStatements(stopWordsPath string) []string {
	stmts := []string{fmt.Sprintf("CREATE NODE TABLE %s(id STRING, label STRING, name STRING, kind STRING, filePath STRING, "+
		"startLine INT64, endLine INT64, language STRING, ident STRING, doc STRING, PRIMARY KEY(id))", SearchTable)}
	for _, l := range schema.SymbolLabels {
		stmts = append(stmts, fmt.Sprintf("COPY %s FROM (MATCH (n:%s) RETURN n.id, '%s', n.name, n.kind, n.filePath, n.startLine, n.endLine, n.language, "+
			"coalesce(n.name, '') + ' ' + coalesce(n.searchText, ''), coalesce(n.signature, '') + ' ' + coalesce(n.docComment, ''))",
			SearchTable, l, l))
	}
	opts := fmt.Sprintf("stemmer := 'english', stopWords := '%s'", stopWordsPath)
	for _, ix := range []struct{ name, col string }{{IndexIdent, "ident"}, {IndexDoc, "doc"}} {
		stmts = append(stmts, fmt.Sprintf("CALL CREATE_FTS_INDEX('%s', '%s', ['%s'], %s)", SearchTable, ix.name, ix.col, opts))
	}
	return stmts
}

// BuildIndexes creates SearchTable from the loaded symbol tables and its
// full-text indexes. Call it on a graph.Build after Load and before Commit;
// scratchDir (the build's staging directory) receives the stop-word file.
// Searches on an index without SearchTable fall back to the per-table
// indexes of schema.FTSIndexes.
func BuildIndexes(ctx context.Context, db Execer, scratchDir string) error {
	stop := filepath.Join(scratchDir, StopWordsFile)
	if err := os.WriteFile(stop, []byte(text.StopWordsCSV()), 0o644); err != nil {
		return fmt.Errorf("write stop words: %w", err)
	}
	settler, _ := db.(Settler)
	for _, s := range IndexStatements(stop) {
		if settler != nil && strings.HasPrefix(s, "CALL CREATE_FTS_INDEX") {
			if err := settler.Settle(); err != nil {
				return fmt.Errorf("build search index: %w", err)
			}
		}
		if err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("build search index: %w", err)
		}
	}
	return nil
}

// Settler is an Execer that can drop the memory its statements so far left
// behind (graph.Build.Settle). BuildIndexes settles before each full-text
// index build when its database is one: each build then starts from an
// empty buffer pool, and analyze's peak memory is that of the largest
// build, not the sum of them.
type Settler interface {
	Settle() error
}
