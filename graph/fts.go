package graph

// This file owns everything a build does for Kuzu's full-text indexes:
// creating schema.FTSIndexes at the end of Load and writing the stop-word
// file they read.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// stopWordsFile writes BuildOptions.StopWords as the CSV file that
// CREATE_FTS_INDEX reads and returns the stopWords option naming it
// ("default" when there are none). Kuzu splices that path unescaped into
// Cypher, so it goes to the system temp dir when the staging path holds a
// quote or backslash.
func (b *Build) stopWordsFile() (string, func(), error) {
	if len(b.opts.StopWords) == 0 {
		return schema.FTSStopWords, func() {}, nil
	}
	dir := b.staging
	cleanup := func() {}
	if strings.ContainsAny(dir, `'"\`) {
		tmp, err := os.MkdirTemp("", "gitnexus-fts-")
		if err != nil {
			return "", nil, fmt.Errorf("stop-word file: %w", err)
		}
		if strings.ContainsAny(tmp, `'"\`) {
			os.RemoveAll(tmp)
			return "", nil, fmt.Errorf("stop-word file: no quote-free directory (staging %s, temp %s)", dir, tmp)
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	var sb strings.Builder
	for _, w := range b.opts.StopWords {
		w = strings.TrimSpace(strings.ReplaceAll(w, "\x00", ""))
		if w != "" && !strings.ContainsAny(w, "\n\r\",\"") {
			sb.WriteString(w)
			sb.WriteByte('\n')
		}
	}
	path := filepath.Join(dir, "stopwords.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("stop-word file: %w", err)
	}
	return path, cleanup, nil
}

// createFTSIndexes creates schema.FTSIndexes on the loaded database with
// the build's stop words, settling before each (an index build is Load's
// heaviest step). progress gets ("fts", indexes done, total).
func (b *Build) createFTSIndexes(ctx context.Context, progress func(stage string, done, total int)) error {
	stopWords, cleanup, err := b.stopWordsFile()
	if err != nil {
		return err
	}
	defer cleanup()
	for i, ix := range schema.FTSIndexes {
		if err := b.reopen(); err != nil {
			return err
		}
		if err := exec(ctx, b.conn, ix.CreateStatementWith(stopWords)); err != nil {
			return fmt.Errorf("create full-text index %s: %w", ix.Name, err)
		}
		progress("fts", i+1, len(schema.FTSIndexes))
	}
	return nil
}
