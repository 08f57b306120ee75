package main

// The terminal view, tested on a real pseudo-terminal at 60, 80 and 200
// columns: no line passes the width (so the terminal never wraps one, and
// no identifier is split across lines), progress redraws stay on one row,
// tables have headers, colour is on, and NO_COLOR turns it off.

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair of the given size.
func openPTY(t *testing.T, cols, rows int) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err) // not a silent pass: reported as skipped
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pty's slave: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}); err != nil {
		t.Fatalf("set the pty's size: %v", err)
	}
	return m, s
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// runPTY runs the binary with stdin, stdout and stderr on a fresh pty of
// cols columns and returns everything it wrote.
func (e *env) runPTY(dir string, cols int, extraEnv []string, args ...string) string {
	e.t.Helper()
	return e.runPTYInput(dir, cols, extraEnv, "", args...)
}

// runPTYInput is runPTY that types input on the terminal first.
func (e *env) runPTYInput(dir string, cols int, extraEnv []string, input string, args ...string) string {
	e.t.Helper()
	m, s := openPTY(e.t, cols, 40)
	defer m.Close()
	c := exec.Command(binary, args...)
	c.Dir = dir
	c.Env = append(append(os.Environ(), "GITNEXUS_HOME="+e.home, "HOME="+e.home, "TERM=xterm-256color"), extraEnv...)
	c.Stdin, c.Stdout, c.Stderr = s, s, s
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := c.Start(); err != nil {
		e.t.Fatalf("start %v: %v", args, err)
	}
	s.Close()
	if input != "" {
		if _, err := m.Write([]byte(input)); err != nil {
			e.t.Fatalf("type on the pty: %v", err)
		}
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(&out, m)
		done <- err
	}()
	err := c.Wait()
	select {
	case <-done: // EIO once the child's side closed
	case <-time.After(10 * time.Second):
		e.t.Fatalf("gitnexus %v: pty output did not end", args)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		e.t.Fatalf("run %v: %v", args, err)
	}
	return out.String()
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// rows splits terminal output into what each redraw left on a row: lines
// end at "\n"; "\r" starts a redraw of the same row.
func rows(out string) []string {
	var rs []string
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		rs = append(rs, strings.Split(line, "\r")...)
	}
	return rs
}

func TestE2ETerminalOutput(t *testing.T) {
	e := newEnv(t)
	dir := fixture(t, "goshop")
	for _, cols := range []int{60, 80, 200} {
		outputs := map[string]string{
			"analyze": e.runPTY(dir, cols, nil, "analyze", "--skip-embeddings"),
		}
		for _, args := range [][]string{
			{"status"}, {"list"}, {"query", "order"}, {"context", "Server.HandleOrder"}, {"impact", "SaveOrder"},
			{"processes"}, {"communities"}, {"cypher", "MATCH (f:Function) RETURN f, f.name LIMIT 3"},
		} {
			outputs[strings.Join(args, " ")] = e.runPTY(dir, cols, nil, args...)
		}
		for name, out := range outputs {
			for _, r := range rows(out) {
				if w := utf8.RuneCountInString(ansi.ReplaceAllString(r, "")); w > cols {
					t.Errorf("%d columns: %s printed a row of %d columns (the terminal wraps it):\n%q", cols, name, w, r)
				}
			}
		}
		// Progress redraws in place: a redrawn row ends one column short
		// of the width, so the cursor never moves to a new row mid-phase.
		for _, r := range rows(outputs["analyze"]) {
			if strings.Contains(r, "\x1b[K") {
				if w := utf8.RuneCountInString(ansi.ReplaceAllString(r, "")); w >= cols {
					t.Errorf("%d columns: progress row of %d columns wraps: %q", cols, w, r)
				}
			}
		}
		if !strings.Contains(outputs["analyze"], "\x1b[K") {
			t.Errorf("%d columns: analyze drew no progress on a terminal:\n%q", cols, outputs["analyze"])
		}
		for _, name := range []string{"processes", "communities", "list"} {
			if first := strings.TrimSpace(ansi.ReplaceAllString(rows(outputs[name])[0], "")); !strings.HasPrefix(first, "ID") && !strings.HasPrefix(first, "NAME") {
				t.Errorf("%d columns: %s has no header row: %q", cols, name, first)
			}
		}
		if !strings.Contains(outputs["query order"], "\x1b[") {
			t.Errorf("%d columns: no colour on a terminal:\n%q", cols, outputs["query order"])
		}
	}
	// At 200 columns nothing of these is cut.
	if out := e.runPTY(dir, 200, nil, "context", "Server.HandleOrder"); strings.Contains(out, "…") {
		t.Errorf("context at 200 columns cut a line:\n%s", out)
	}
	// NO_COLOR (any value) turns colour off; piped output has none either.
	if out := e.runPTY(dir, 80, []string{"NO_COLOR=1"}, "query", "order"); strings.Contains(out, "\x1b[") {
		t.Errorf("NO_COLOR set, yet escapes printed:\n%q", out)
	}
	if out, _, _ := e.run(dir, "query", "order"); strings.Contains(out, "\x1b[") || strings.Contains(out, "…") {
		t.Errorf("piped output has escapes or cut lines:\n%q", out)
	}

	// clean --all asks on a terminal: "n" keeps every index, "y" deletes.
	if out := e.runPTYInput(dir, 80, nil, "n\n", "clean", "--all"); !strings.Contains(out, "[y/N]") || !strings.Contains(out, "cancelled") {
		t.Errorf("clean --all on a terminal did not ask, or went on after no:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitnexus")); err != nil {
		t.Fatalf("clean --all answered no, yet the index is gone: %v", err)
	}
	if out := e.runPTYInput(dir, 80, nil, "y\n", "clean", "--all"); !strings.Contains(out, "removed the index") {
		t.Errorf("clean --all answered yes:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitnexus")); !os.IsNotExist(err) {
		t.Errorf("clean --all answered yes, yet the index is there: %v", err)
	}
}
