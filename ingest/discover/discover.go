package discover

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/gitnexus/gitnexus/ingest/lang"
)

// DefaultMaxFileSize is the size cap used when Options.MaxFileSize is 0.
const DefaultMaxFileSize = 1 << 20

// IgnoreFileName is gitnexus's own ignore file, gitignore syntax, allowed
// in any directory.
const IgnoreFileName = ".gitnexusignore"

// SniffSize is how much of a file's head IsBinary looks at.
const SniffSize = 8 << 10

// Reasons a file is left out: the keys of Result.Skipped.
const (
	ReasonBinary         = "binary"          // a NUL byte in the first SniffSize bytes
	ReasonTooLarge       = "too_large"       // bigger than Options.MaxFileSize
	ReasonUnreadable     = "unreadable"      // stat, open or read failed (permissions, I/O)
	ReasonVanished       = "vanished"        // gone from disk: deleted tracked file, or removed mid-run
	ReasonSymlink        = "symlink"         // symbolic links are never followed
	ReasonSubmodule      = "submodule"       // a git submodule or embedded repository
	ReasonNotRegular     = "not_regular"     // a FIFO, socket, device, or a directory where git has a file
	ReasonDefaultExclude = "default_exclude" // DefaultExcludes
	ReasonGitnexusIgnore = "gitnexusignore"  // a .gitnexusignore rule
	ReasonUserExclude    = "user_exclude"    // Options.Excludes
	ReasonMinified       = "minified"        // machine-long lines: a bundle or minified source (Sniff)
	ReasonGenerated      = "generated"       // a generated-code marker heads the file (Sniff)
	ReasonBadName        = "bad_name"        // the path is not valid UTF-8 (the index stores paths as UTF-8 text)
)

// maxExamples is how many example paths Result.Examples keeps per reason.
const maxExamples = 5

// Options tune discovery. The zero value is usable.
type Options struct {
	// MaxFileSize is the size cap in bytes; 0 means DefaultMaxFileSize,
	// a negative value means no cap.
	MaxFileSize int64
	// Excludes are extra gitignore-syntax patterns relative to the root
	// (from --exclude flags). They win over .gitnexusignore files.
	Excludes []string
	// Includes are gitignore-syntax patterns that bring back what the
	// default excludes drop ("vendor/", "third_party/forked/"). They do not
	// override .gitnexusignore, Excludes or git's own ignore rules.
	Includes []string
	// NoDefaultExcludes turns DefaultExcludes off.
	NoDefaultExcludes bool
	// Known, when set, says of a candidate file at path whose Lstat is fi
	// whether an earlier discovery kept it with the content it still has
	// (ok: the caller knows it unchanged since, as ingest's stat cache
	// does), and whether that discovery judged its content (sniffed).
	// Such a file is not opened: its content passed the binary check
	// then, and Sniff too when sniffed; one whose content must be judged
	// now (source, no include exempting it) and was not then is read.
	Known func(path string, fi fs.FileInfo) (sniffed, ok bool)
}

// File is one discovered file.
type File struct {
	Path     string // relative to Result.Root, '/' separators
	Abs      string // absolute path on disk
	Size     int64
	Language string // lang.Detect(Path).Name, "" when no grammar claims it
	// Info is the file's Lstat as discovery judged it (nil in Files made
	// by hand).
	Info fs.FileInfo
	// Sniffed: its content passed Sniff, in this discovery or, unchanged
	// since (Options.Known), an earlier one.
	Sniffed bool
}

// Result is what Discover found.
type Result struct {
	Root   string // absolute, symlinks resolved
	Git    bool   // discovered through git
	Commit string // HEAD sha, "" when there is none or outside git
	Branch string // current branch, "" when detached or outside git
	Files  []File // sorted by Path
	// Skipped counts the files left out, by reason (the Reason constants).
	// Files git ignores (or, outside git, .gitignore files) are not
	// considered at all and not counted.
	Skipped map[string]int
	// Examples holds, per reason, up to 5 of the skipped paths (the
	// smallest in byte order); an excluded directory appears once, with a
	// trailing "/".
	Examples map[string][]string
	// Ignored counts the files ignore rules hid before they became
	// candidates: in walk mode those of .gitignore files (an ignored
	// directory counted as Skipped counts excluded ones, a lower bound past
	// countCap); in git mode git's own ignore rules are asked only when no
	// file found has a language (nothing would be parsed: then the count
	// is git's, up to maxIgnoredProbe).
	Ignored int
	// TopRules are the rules that kept the most files out, most first (at
	// most maxTopRules): ignore rules (Reason ReasonIgnored) and the rules
	// behind the rule-based Skipped reasons. When Files is empty but
	// Ignored or Skipped is not, TopRules[0] says which rule to look at.
	TopRules []RuleCount
}

// ReasonIgnored is the RuleCount.Reason of an ignore rule (a .gitignore
// line, .git/info/exclude, core.excludesFile): the files it hides are
// Result.Ignored, not Result.Skipped.
const ReasonIgnored = "ignored"

// maxTopRules is how many rules Result.TopRules keeps.
const maxTopRules = 5

// RuleCount is one exclusion rule and how many files it kept out.
type RuleCount struct {
	// Rule is where the rule comes from: "path/.gitignore:12" (a file and
	// a 1-based line, paths relative to Result.Root, or as git names them),
	// "default exclude vendor/", "--exclude docs/".
	Rule   string `json:"rule"`
	Reason string `json:"reason"` // ReasonIgnored or a Skipped reason
	Files  int    `json:"files"`
}

// Discover lists the files of the repository or directory at root that
// gitnexus should index. See the package documentation for the rules.
func Discover(ctx context.Context, root string, opts Options) (*Result, error) {
	// Errors say what failed; the caller adds which root.
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve the root: %w", err)
	}
	abs, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("resolve the root: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("resolve the root: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", abs)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	flt, err := newFilter(opts)
	if err != nil {
		return nil, err
	}
	maxSize := opts.MaxFileSize
	if maxSize == 0 {
		maxSize = DefaultMaxFileSize
	}
	res := &Result{Root: abs, Skipped: map[string]int{}, Examples: map[string][]string{}}
	t := newTally()
	p := newPool(ctx, abs, maxSize, opts.Known)

	var listErr error
	var entries []gitEntry
	if g, ok := probeGit(ctx, abs); ok {
		entries, err = gitList(ctx, abs)
		switch {
		case err == nil:
			res.Git, res.Commit, res.Branch = true, g.commit, g.branch
		case ctx.Err() == nil:
			// A broken index, say: the walk still gives a useful answer.
			slog.Warn("discover: git cannot list the files; walking the directory tree instead", "root", abs, "err", err)
		}
	}
	if res.Git {
		listErr = feedGit(ctx, abs, entries, flt, t, p.jobs)
	} else if ctx.Err() == nil {
		listErr = walk(ctx, abs, flt, t, p.jobs)
	}
	close(p.jobs)
	files, wt := p.wait()
	if listErr == nil {
		listErr = ctx.Err()
	}
	if listErr != nil {
		return nil, fmt.Errorf("list files: %w", listErr)
	}
	t.merge(wt)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	res.Files = files
	res.Skipped, res.Examples = t.counts, t.examples
	if res.Git && !anySource(files) {
		gitIgnoredRules(ctx, abs, t)
	}
	res.Ignored, res.TopRules = t.ignored, t.topRules()
	return res, nil
}

// anySource reports whether any file has a language.
func anySource(files []File) bool {
	for _, f := range files {
		if f.Language != "" {
			return true
		}
	}
	return false
}

// IsBinary reports whether a file whose first bytes are head is binary:
// whether head holds a NUL byte, git's own test. Pass the first SniffSize
// bytes. UTF-16 text counts as binary.
func IsBinary(head []byte) bool {
	return bytes.IndexByte(head, 0) >= 0
}

// tally counts skipped files and keeps a few examples per reason, and
// counts files per excluding rule.
type tally struct {
	counts   map[string]int
	examples map[string][]string
	rules    map[RuleCount]int // Files unset: rule and reason → files
	ignored  int
}

func newTally() *tally {
	return &tally{counts: map[string]int{}, examples: map[string][]string{}, rules: map[RuleCount]int{}}
}

// byRule counts n files kept out by the rule from source for reason; an
// ignore rule (ReasonIgnored) adds to the ignored count as well.
func (t *tally) byRule(source, reason string, n int) {
	if n <= 0 || source == "" {
		return
	}
	t.rules[RuleCount{Rule: source, Reason: reason}] += n
	if reason == ReasonIgnored {
		t.ignored += n
	}
}

// topRules lists the rules by files kept out, most first, ties by rule.
func (t *tally) topRules() []RuleCount {
	out := make([]RuleCount, 0, len(t.rules))
	for rc, n := range t.rules {
		rc.Files = n
		out = append(out, rc)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Files != out[j].Files {
			return out[i].Files > out[j].Files
		}
		return out[i].Rule < out[j].Rule
	})
	return out[:min(len(out), maxTopRules)]
}

// skip counts n files left out for reason, with example as a sample path.
func (t *tally) skip(reason, example string, n int) {
	if n <= 0 {
		return
	}
	t.counts[reason] += n
	t.example(reason, example)
}

// example keeps example among the maxExamples smallest paths for reason.
func (t *tally) example(reason, example string) {
	ex := t.examples[reason]
	i := sort.SearchStrings(ex, example)
	if (i < len(ex) && ex[i] == example) || i >= maxExamples {
		return
	}
	ex = append(ex, "")
	copy(ex[i+1:], ex[i:])
	ex[i] = example
	if len(ex) > maxExamples {
		ex = ex[:maxExamples]
	}
	t.examples[reason] = ex
}

func (t *tally) merge(o *tally) {
	for r, n := range o.counts {
		t.counts[r] += n
	}
	for rc, n := range o.rules {
		t.rules[rc] += n
	}
	t.ignored += o.ignored
	for r, ex := range o.examples {
		for _, e := range ex {
			t.example(r, e)
		}
	}
}

// job is one file a lister hands to the pool for stat and sniffing.
type job struct {
	rel    string
	abs    string
	exempt bool // an include exempts it from the content checks (Sniff)
}

// pool stats and sniffs files in parallel: reading heads is I/O bound, so
// a few more workers than cores keeps a cold disk busy.
type pool struct {
	jobs    chan job
	wg      sync.WaitGroup
	mu      sync.Mutex
	files   []File
	tally   *tally
	maxSize int64
	known   func(string, fs.FileInfo) (bool, bool) // Options.Known
}

func newPool(ctx context.Context, root string, maxSize int64, known func(string, fs.FileInfo) (bool, bool)) *pool {
	p := &pool{jobs: make(chan job, 256), tally: newTally(), maxSize: maxSize, known: known}
	n := min(max(4, 2*runtime.GOMAXPROCS(0)), 16)
	for range n {
		p.wg.Add(1)
		go p.work(ctx)
	}
	return p
}

func (p *pool) work(ctx context.Context) {
	defer p.wg.Done()
	buf := make([]byte, 2*SniffSize) // head, then tail
	var files []File
	t := newTally()
	for j := range p.jobs {
		if ctx.Err() != nil {
			continue // drain: the lister stops soon
		}
		f, reason := p.inspect(j, buf)
		if reason != "" {
			t.skip(reason, j.rel, 1)
			continue
		}
		files = append(files, f)
	}
	p.mu.Lock()
	p.files = append(p.files, files...)
	p.tally.merge(t)
	p.mu.Unlock()
}

func (p *pool) wait() ([]File, *tally) {
	p.wg.Wait()
	return p.files, p.tally
}

// inspect stats and sniffs one file; reason is "" when it is kept.
func (p *pool) inspect(j job, buf []byte) (File, string) {
	if !utf8.ValidString(j.rel) {
		// Kuzu keeps UTF-8 text: such a path would reach the graph
		// mangled and its edges would point nowhere.
		return File{}, ReasonBadName
	}
	fi, err := os.Lstat(j.abs)
	if err != nil {
		return File{}, statReason(err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return File{}, ReasonSymlink
	case !fi.Mode().IsRegular():
		return File{}, ReasonNotRegular
	}
	if p.maxSize > 0 && fi.Size() > p.maxSize {
		return File{}, ReasonTooLarge
	}
	out := File{Path: j.rel, Abs: j.abs, Size: fi.Size(), Info: fi}
	if l := lang.Detect(j.rel); l != nil {
		out.Language = l.Name
	}
	// Only source that would be parsed is judged by content; an include
	// brings it back as it does default-excluded paths.
	judge := out.Language != "" && !j.exempt
	if p.known != nil {
		if sniffed, ok := p.known(j.rel, fi); ok && (sniffed || !judge) {
			out.Sniffed = sniffed
			return out, ""
		}
	}
	f, err := openForSniff(j.abs)
	if err != nil {
		return File{}, statReason(err)
	}
	defer f.Close()
	head := buf[:SniffSize]
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		slog.Debug("discover: read failed", "path", j.rel, "err", err)
		return File{}, ReasonUnreadable
	}
	if IsBinary(head[:n]) {
		return File{}, ReasonBinary
	}
	if judge {
		tail := readTail(f, fi.Size(), n, buf[SniffSize:])
		if reason := Sniff(head[:n], tail); reason != "" {
			return File{}, reason
		}
		out.Sniffed = true
	}
	return out, ""
}

// openForSniff opens a file to read its head; tests replace it to make
// opens fail the way a permission problem or a concurrent delete would.
var openForSniff = openNoFollow

// statReason classifies a failed stat or open: gone, or unreadable.
func statReason(err error) string {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return ReasonVanished
	}
	if errors.Is(err, syscall.ELOOP) {
		return ReasonSymlink // replaced by a symlink between stat and open
	}
	return ReasonUnreadable
}
