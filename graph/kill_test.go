package graph

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	execpkg "os/exec"
	"strings"
	"testing"
	"time"
)

// TestHelperHoldLock is not a test: TestKilledBuild runs the test binary
// with GRAPH_TEST_HOLD_LOCK set to make it a build that holds the lock,
// writes some rows, reports its staging dir, and waits to be killed.
func TestHelperHoldLock(t *testing.T) {
	root := os.Getenv("GRAPH_TEST_HOLD_LOCK")
	if root == "" {
		t.Skip("helper process for TestKilledBuild; runs only when GRAPH_TEST_HOLD_LOCK is set")
	}
	b, err := NewBuild(context.Background(), root, BuildOptions{Logger: quietLog})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	fillSmall(t, b, 3)
	fmt.Println("STAGING", b.StagingDir())
	time.Sleep(time.Minute)
	os.Exit(2)
}

// TestKilledBuild kills (SIGKILL) a process in the middle of a build: the
// lock must free itself, the old index stay queryable, and the next build
// clean the killed one's staging directory.
func TestKilledBuild(t *testing.T) {
	root := newRepo(t)
	old := buildIndex(t, root, 2)
	cmd := execpkg.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "GRAPH_TEST_HOLD_LOCK="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	staging := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "STAGING "); ok {
			staging = s
			break
		}
		if strings.HasPrefix(sc.Text(), "ERR") {
			t.Fatal(sc.Text())
		}
	}
	if staging == "" {
		t.Fatal("helper did not report its staging directory")
	}
	_, err = NewBuild(context.Background(), root, BuildOptions{Logger: quietLog})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Fatalf("while the helper holds the lock: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()

	if c := count(t, openTest(t, root), "MATCH (f:Function) RETURN count(f)"); c != 2 {
		t.Errorf("old index has %d functions after the kill, want 2", c)
	}
	b, err := NewBuild(context.Background(), root, BuildOptions{Logger: quietLog})
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	defer b.Abort()
	if _, err := os.Stat(staging); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("killed build's staging %s not cleaned: %v", staging, err)
	}
	if m, _ := ReadMeta(root); m.DBFile != old.DBFile {
		t.Errorf("meta changed to %s", m.DBFile)
	}
}
