package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// watchLine is one line of `analyze --watch --json`.
type watchLine struct {
	Update  int      `json:"update"`
	Changed []string `json:"changed"`
	Error   string   `json:"error"`
	Summary *struct {
		Parsed  int `json:"parsed"`
		Reused  int `json:"reused"`
		Symbols int `json:"symbols"`
	} `json:"summary"`
}

// TestE2EAnalyzeWatch: `analyze --watch` indexes, then re-analyzes after a
// save (parsing only the saved file) so that query finds a function added
// seconds ago, follows a git checkout of another branch as one burst,
// ignores changes in .gitnexus and in files it does not index, and exits
// 130 on an interrupt with the index of its last update live.
func TestE2EAnalyzeWatch(t *testing.T) {
	e := newEnv(t)
	repo := fixture(t, "goshop")
	c := exec.Command(binary, "analyze", "--watch", "--skip-embeddings", "--json", ".")
	c.Dir = repo
	c.Env = append(os.Environ(), "GITNEXUS_HOME="+e.home, "HOME="+e.home)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	lines := make(chan watchLine, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var l watchLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Errorf("a --watch --json line is not one JSON object: %v\n%s", err, sc.Text())
				continue
			}
			lines <- l
		}
		close(lines)
	}()
	next := func(what string) watchLine {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s: analyze --watch ended; stderr: %s", what, stderr.String())
			}
			if l.Error != "" || l.Summary == nil {
				t.Fatalf("%s: update failed: %s", what, l.Error)
			}
			return l
		case <-time.After(90 * time.Second):
			t.Fatalf("%s: no update within 90 s; stderr: %s", what, stderr.String())
		}
		return watchLine{}
	}
	first := next("first analyze")
	if first.Update != 1 || first.Summary.Parsed == 0 {
		t.Fatalf("first update %+v", first)
	}

	// Noise the watch must not act on: a file type the index has none of.
	if err := os.WriteFile(filepath.Join(repo, "notes.txt.bak"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A save: a new function in an indexed file.
	p := filepath.Join(repo, "server", "audit.go")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, "\nfunc refundOrder(o store.Order) error {\n\treturn validate(o)\n}\n"...)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	u := next("after a save")
	if len(u.Changed) != 1 || u.Changed[0] != "server/audit.go" || u.Summary.Parsed != 1 || u.Summary.Reused == 0 {
		t.Errorf("update after one save: %+v (want only server/audit.go changed and parsed)", u)
	}
	out := e.ok(repo, "query", "--json", "--mode", "keyword", "refund order")
	if !strings.Contains(out, "refundOrder") {
		t.Errorf("query does not find the function saved a moment ago:\n%s", out)
	}

	// A branch switch: several files change at once.
	git(t, repo, "checkout", "-q", "-b", "other")
	git(t, repo, "add", "-A")
	git(t, repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "refund")
	for _, l := range []string{"store/coupon.go", "server/coupon.go"} {
		if err := os.WriteFile(filepath.Join(repo, l), []byte("package "+filepath.Dir(l)+"\n\nfunc ApplyCoupon() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "add", "-A")
	git(t, repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "coupons")
	next("after commits on a branch")
	settle(t, lines)
	if out := e.ok(repo, "query", "--json", "--mode", "keyword", "apply coupon"); !strings.Contains(out, "ApplyCoupon") {
		t.Errorf("query does not find ApplyCoupon, added on the branch:\n%s", out)
	}
	git(t, repo, "checkout", "-q", "-")
	next("after a checkout")
	settle(t, lines)
	if out, _, code := e.run(repo, "query", "--json", "--mode", "keyword", "apply coupon"); strings.Contains(out, "ApplyCoupon") || (code != 0 && code != 3) {
		t.Errorf("after checking out the first branch, query (exit %d) still finds ApplyCoupon (a function of the other branch):\n%s", code, out)
	}

	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = c.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("interrupted analyze --watch: %v (want exit 130); stderr: %s", err, stderr.String())
	}
	e.ok(repo, "status")
}

// settle takes updates until none comes for two seconds (a burst may
// make two).
func settle(t *testing.T, lines chan watchLine) {
	t.Helper()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("analyze --watch ended")
			}
			if l.Error != "" {
				t.Fatalf("update failed: %s", l.Error)
			}
		case <-time.After(2 * time.Second):
			return
		}
	}
}
