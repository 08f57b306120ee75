package discover

import (
	"bytes"
	"os"
)

// Content checks: a file that passes the rules, the size cap and the
// binary test can still be no source worth parsing. A minified bundle not
// named *.min.js (one 900 KB line parsed into 26,223 "functions") or code
// a generator wrote are recognised by what they hold, and skipped under
// ReasonMinified or ReasonGenerated unless an include (Options.Includes,
// a "!" line of a .gitnexusignore) exempts the path or
// Options.NoDefaultExcludes is set, as for the default excludes.

// MinifiedAverage is the mean line length, in bytes, over a sample of a
// file (its first SniffSize bytes, or its last ones) from which it counts
// as minified: hand-written code averages 30 to 60 and a file with one
// huge line among ordinary ones (a long literal in a test) stays far
// below; a bundle is one line of hundreds of kilobytes, and bundlers that
// wrap their output do so at 500 bytes or more.
const MinifiedAverage = 300

// minAverageSample is the least text a mean line length is taken over.
const minAverageSample = 2048

// maxHeaderLines bounds how many lines of the leading comment block are
// searched for a generated-code marker.
const maxHeaderLines = 50

// Sniff classifies a source file by content: ReasonMinified when the
// lines of head, or those of tail, average at least MinifiedAverage bytes,
// ReasonGenerated when the comment block the
// file starts with holds a generated-code marker (Go's
// "^// Code generated .* DO NOT EDIT\.$" line, or an "@generated" tag),
// "" otherwise. head is the file's first bytes (up to SniffSize), tail its
// last bytes when the file is longer than head (nil otherwise): a bundle
// under a long licence banner shows its long line there.
func Sniff(head, tail []byte) string {
	if dense(head) || dense(tail) {
		return ReasonMinified
	}
	if generatedHeader(head) {
		return ReasonGenerated
	}
	return ""
}

// dense reports whether the lines of sample (at least minAverageSample
// bytes) average MinifiedAverage bytes or more.
func dense(sample []byte) bool {
	return len(sample) >= minAverageSample && len(sample)/(bytes.Count(sample, []byte{'\n'})+1) >= MinifiedAverage
}

// generatedHeader reports whether the comment block at the start of head
// (blank lines and lines starting with a comment leader, up to the first
// other line) holds a generated-code marker. Only the header is read, so
// code that merely mentions a marker (a generator's own source, this file)
// is not taken for generated code.
func generatedHeader(head []byte) bool {
	for n := 0; n < maxHeaderLines && len(head) > 0; n++ {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			i = len(head)
		}
		line := bytes.TrimRight(head[:i], "\r")
		head = head[min(i+1, len(head)):]
		if isGoGeneratedLine(line) {
			return true
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if !isCommentLine(trimmed) {
			return false
		}
		if hasTag(trimmed, "@generated") {
			return true
		}
	}
	return false
}

// isGoGeneratedLine matches Go's convention for generated files
// (https://go.dev/s/generatedcode): ^// Code generated .* DO NOT EDIT\.$
func isGoGeneratedLine(line []byte) bool {
	const pre, suf = "// Code generated ", " DO NOT EDIT."
	return len(line) >= len(pre)+len(suf)-1 && bytes.HasPrefix(line, []byte(pre)) && bytes.HasSuffix(line, []byte(suf))
}

// commentLeaders start a comment line in the languages gitnexus parses
// (and the shebang line).
var commentLeaders = [][]byte{[]byte("//"), []byte("/*"), []byte("*"), []byte("#"), []byte("--"), []byte("<!--"), []byte("%"), []byte(";")}

func isCommentLine(trimmed []byte) bool {
	for _, l := range commentLeaders {
		if bytes.HasPrefix(trimmed, l) {
			return true
		}
	}
	return false
}

// hasTag reports whether line holds tag not followed by a letter, digit or
// '_' ("@generated" but not "@generatedBy").
func hasTag(line []byte, tag string) bool {
	for {
		i := bytes.Index(line, []byte(tag))
		if i < 0 {
			return false
		}
		line = line[i+len(tag):]
		if len(line) == 0 || !isWordByte(line[0]) {
			return true
		}
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// readTail reads up to the last len(buf) bytes of f, whose size is size,
// that follow its first headLen bytes into buf and returns them: nil when
// the head held the whole file. A failed read gives what was read (the
// tail only refines the verdict).
func readTail(f *os.File, size int64, headLen int, buf []byte) []byte {
	if size <= int64(headLen) {
		return nil
	}
	off := max(size-int64(len(buf)), int64(headLen))
	n, _ := f.ReadAt(buf[:size-off], off)
	return buf[:n]
}
