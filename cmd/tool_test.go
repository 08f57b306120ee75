package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gitnexus/gitnexus/graph"
)

// TestToolRunsAgainAfterSwap: a tool command whose index was retired by a
// swap before its first statement (graph.ErrSwapped) runs once more on a
// fresh open; a second ErrSwapped is the command's error, not a loop.
func TestToolRunsAgainAfterSwap(t *testing.T) {
	t.Setenv("GITNEXUS_HOME", t.TempDir())
	repo := filepath.Join(t.TempDir(), "shop")
	if err := os.CopyFS(repo, os.DirFS("../testdata/repos/goshop")); err != nil {
		t.Fatal(err)
	}
	defer func() { flagRepo, flagQuiet, flagJSON = "", false, false }()
	if _, errOut, code := runCLIErr(t, "analyze", "-q", "--skip-embeddings", repo); code != ExitOK {
		t.Fatalf("analyze: exit %d: %s", code, errOut)
	}
	flagRepo, flagJSON = repo, false
	swapped := fmt.Errorf("%w: test", graph.ErrSwapped)
	for _, tc := range []struct {
		fails, wantCalls int
		wantErr          bool
	}{{0, 1, false}, {1, 2, false}, {5, 2, true}} {
		calls, printed := 0, ""
		var dbs []*graph.Lazy
		err := runToolChecked(context.Background(), "in",
			func(ctx context.Context, r toolRepo, in string) (string, error) {
				calls++
				dbs = append(dbs, r.DB)
				if calls <= tc.fails {
					return "", swapped
				}
				return "answer to " + in, nil
			},
			func(out string) error { printed = out; return nil }, nil)
		if calls != tc.wantCalls || (err != nil) != tc.wantErr {
			t.Errorf("%d swaps: %d calls, err %v; want %d calls, error %v", tc.fails, calls, err, tc.wantCalls, tc.wantErr)
		}
		if tc.wantErr && !errors.Is(err, graph.ErrSwapped) {
			t.Errorf("%d swaps: error %v does not wrap ErrSwapped", tc.fails, err)
		}
		if !tc.wantErr && printed != "answer to in" {
			t.Errorf("%d swaps: printed %q", tc.fails, printed)
		}
		if len(dbs) == 2 && dbs[0] == dbs[1] {
			t.Errorf("%d swaps: the second try used the first try's index", tc.fails)
		}
	}

	// The index gone when the command starts again: its error, no panic.
	err := runToolChecked(context.Background(), "in",
		func(ctx context.Context, r toolRepo, in string) (string, error) {
			// The staleness check beside the call may be writing its
			// answer into the directory as it goes: try again then.
			for i := 0; ; i++ {
				err := os.RemoveAll(graph.IndexDir(repo))
				if err == nil {
					break
				}
				if i == 100 {
					t.Fatal(err)
				}
				time.Sleep(10 * time.Millisecond)
			}
			return "", swapped
		},
		func(string) error { return nil }, nil)
	if !errors.Is(err, graph.ErrNoIndex) {
		t.Errorf("index removed before the second try: %v, want ErrNoIndex", err)
	}
}
