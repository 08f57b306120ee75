package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// The terminal view. Text output goes through a screen: on a terminal each
// line is cut to the terminal's width with "…" (the terminal never wraps
// a line, so no identifier is split across two), and colour is used unless
// NO_COLOR is set (https://no-color.org) or TERM is "dumb". Piped output
// is left whole and plain.

// screen writes the lines of a command's text output.
type screen struct {
	w     io.Writer
	width int  // columns; 0: no limit (not a terminal)
	color bool // ANSI colour on
}

// stdout is the screen of os.Stdout, decided when a command first prints.
func stdout() *screen { return newScreen(os.Stdout) }

func newScreen(f *os.File) *screen {
	s := &screen{w: f}
	if isTerminal(f) {
		s.width = termWidth(f)
		s.color = colorAllowed()
	}
	return s
}

// isTerminal reports whether f is a terminal (it has terminal attributes:
// /dev/null is a character device too, but no terminal).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// termWidth is f's terminal width in columns, else $COLUMNS, else 80.
func termWidth(f *os.File) int {
	if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
		return int(ws.Col)
	}
	var n int
	if _, err := fmt.Sscan(os.Getenv("COLUMNS"), &n); err == nil && n > 0 {
		return n
	}
	return 80
}

// colorAllowed: NO_COLOR (any value) and TERM=dumb turn colour off.
func colorAllowed() bool {
	_, no := os.LookupEnv("NO_COLOR")
	return !no && os.Getenv("TERM") != "dumb"
}

// ANSI styles.
const (
	styleBold  = "1"
	styleDim   = "2"
	styleCyan  = "36"
	styleGreen = "32"
	styleRed   = "31"
	styleYel   = "33"
)

// paint wraps s in the style when colour is on.
func (s *screen) paint(style, text string) string {
	if !s.color || text == "" {
		return text
	}
	return "\x1b[" + style + "m" + text + "\x1b[0m"
}

// line prints one line, cut to the width.
func (s *screen) line(text string) {
	fmt.Fprintln(s.w, fit(text, s.width))
}

// linef prints one formatted line, cut to the width.
func (s *screen) linef(format string, args ...any) { s.line(fmt.Sprintf(format, args...)) }

// fit cuts text to width visible columns, ending it with "…" when cut;
// ANSI escapes take no columns and a cut line resets the style. Width 0
// means no limit.
func fit(text string, width int) string {
	if width <= 0 || visibleWidth(text) <= width {
		return text
	}
	var b strings.Builder
	cols, styled := 0, false
	for i := 0; i < len(text); {
		if n := escapeLen(text[i:]); n > 0 {
			b.WriteString(text[i : i+n])
			styled = true
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if cols+1 >= width && r != '\n' { // keep a column for the ellipsis
			break
		}
		b.WriteRune(r)
		cols++
		i += size
	}
	b.WriteString("…")
	if styled {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// visibleWidth counts the columns text takes: runes, less ANSI escapes.
// (Every rune counts one column; wide CJK glyphs are rare in code.)
func visibleWidth(text string) int {
	n := 0
	for i := 0; i < len(text); {
		if e := escapeLen(text[i:]); e > 0 {
			i += e
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		n++
		i += size
	}
	return n
}

// escapeLen is the length of the ANSI CSI sequence text starts with, or 0.
func escapeLen(text string) int {
	if len(text) < 2 || text[0] != 0x1b || text[1] != '[' {
		return 0
	}
	for i := 2; i < len(text); i++ {
		if c := text[i]; c >= 0x40 && c <= 0x7e {
			return i + 1
		}
	}
	return 0
}

// pad left-aligns text in n visible columns (fmt's %-*s counts bytes,
// which misaligns "→" and escapes).
func pad(text string, n int) string {
	if w := visibleWidth(text); w < n {
		return text + strings.Repeat(" ", n-w)
	}
	return text
}

// splitLines splits source text into lines, without the final newline.
func splitLines(s string) []string {
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}

// field prints "  label       item, item, ..." with the items wrapped
// between items (never inside one) onto indented continuation lines when
// the line would pass the width; an item wider than a line is cut.
func (s *screen) field(label string, items []string) {
	head := fmt.Sprintf("  %-11s ", label)
	indent := strings.Repeat(" ", len(head))
	if len(items) == 0 {
		s.line(strings.TrimRight(head, " "))
		return
	}
	line := head
	for i, it := range items {
		sep := ", "
		switch {
		case i == len(items)-1:
			sep = ""
		case strings.HasSuffix(it, ":") || strings.HasSuffix(it, ";"):
			sep = " " // "5 files: go 4, ..."
		}
		if s.width > 0 && line != head && line != indent && visibleWidth(line)+visibleWidth(it)+len(sep) > s.width {
			s.line(strings.TrimRight(line, " "))
			line = indent
		}
		line += it + sep
	}
	s.line(line)
}

// nameWidth is the column width for names: the longest of them, at most
// 32 (a longer one pushes its line's location right).
func nameWidth(names ...string) int {
	w := 0
	for _, n := range names {
		w = max(w, visibleWidth(n))
	}
	return min(w, 32)
}

// message prints a message (a notice, an error) word-wrapped to the
// width, never inside a word; continuation lines are indented. Piped, it
// is one line.
func (s *screen) message(text string) {
	if s.width <= 0 || visibleWidth(text) <= s.width {
		fmt.Fprintln(s.w, text)
		return
	}
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case visibleWidth(line)+1+visibleWidth(word) > s.width:
			s.line(line)
			line = "    " + word
		default:
			line += " " + word
		}
	}
	if line != "" {
		s.line(line)
	}
}
