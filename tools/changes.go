package tools

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/query"
)

// DetectChangesInput is the detect_changes tool's input.
type DetectChangesInput struct {
	Scope   string `json:"scope,omitempty" jsonschema:"What to analyze: unstaged (default), staged, all (staged and unstaged against HEAD), or compare (working tree against base_ref)"`
	BaseRef string `json:"base_ref,omitempty" jsonschema:"Branch or commit for the compare scope (e.g. main)"`
	Repo    string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
	Budget
}

// LineRange is an inclusive 1-based range of lines.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// ChangedFile is one file of the diff.
type ChangedFile struct {
	Path    string      `json:"path"`
	Ranges  []LineRange `json:"ranges"`
	Indexed bool        `json:"indexed"` // the file is in the index
	Symbols int         `json:"symbols"` // changed symbols in it
}

// ChangedSymbol is a symbol whose lines overlap a change.
type ChangedSymbol struct {
	Symbol
	ChangedLines int `json:"changed_lines"`
}

// DetectChangesOutput maps a diff onto symbols and processes.
type DetectChangesOutput struct {
	graph.Origin // "repo": the repository answered from (the transport fills it)

	Scope     string            `json:"scope"`
	BaseRef   string            `json:"base_ref,omitempty"`
	Files     []ChangedFile     `json:"changed_files"`
	Symbols   []ChangedSymbol   `json:"changed_symbols"`
	Processes []AffectedProcess `json:"affected_processes"`
	Risk      string            `json:"risk"`
	Summary   struct {
		Files     int `json:"files"`
		Symbols   int `json:"symbols"`
		Processes int `json:"processes"`
	} `json:"summary"`
	Notices []string          `json:"notices,omitempty"`
	Budget  *query.BudgetNote `json:"budget,omitempty"`
}

// DetectChanges runs git diff in repoRoot for the scope, turns hunks into
// changed line ranges (new-side lines; a pure deletion marks the line it
// sits at), finds the indexed symbols whose lines overlap them, and the
// processes those symbols are steps of. Line numbers are matched against
// the index as analyzed: re-analyze after large edits for exact overlap.
func DetectChanges(ctx context.Context, ix Index, repoRoot string, in DetectChangesInput) (*DetectChangesOutput, error) {
	g := ix.Graph
	budget, err := in.Budget.tokens(DefaultChangesTokens)
	if err != nil {
		return nil, err
	}
	scope := strings.ToLower(strings.TrimSpace(in.Scope))
	if scope == "" {
		scope = "unstaged"
	}
	// Outside a work tree `git diff` turns into `git diff --no-index` and
	// answers with its 128-line usage: say what is wrong instead.
	if out, err := git(ctx, repoRoot, "rev-parse", "--is-inside-work-tree"); err != nil || strings.TrimSpace(string(out)) != "true" {
		return nil, inputErr("%s is not a git repository: detect_changes compares against git", repoRoot)
	}
	// -z --raw lists the files NUL-separated (any byte in a name survives,
	// renames give both names), then -p gives their hunks in the same order.
	args := []string{"-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff", "-U0", "--diff-filter=d",
		"-z", "--raw", "-p", "--src-prefix=a/", "--dst-prefix=b/"}
	switch scope {
	case "unstaged":
	case "staged":
		args = append(args, "--cached")
	case "all":
		args = append(args, "HEAD")
	case "compare":
		ref := strings.TrimSpace(in.BaseRef)
		if ref == "" {
			return nil, inputErr("scope compare needs base_ref (a branch or commit, e.g. main)")
		}
		if strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, " \t\n\x00") {
			return nil, inputErr("base_ref %q is not a git ref", ref)
		}
		if _, err := git(ctx, repoRoot, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}"); err != nil {
			return nil, inputErr("base_ref %q is not a commit in %s", ref, repoRoot)
		}
		args = append(args, ref)
	default:
		return nil, inputErr("scope must be unstaged, staged, all or compare (got %q)", in.Scope)
	}
	args = append(args, "--")
	diff, err := git(ctx, repoRoot, args...)
	if err != nil {
		return nil, fmt.Errorf("git diff in %s: %w", repoRoot, err)
	}
	files := ParseDiff(diff)
	out := &DetectChangesOutput{Scope: scope, Files: []ChangedFile{}, Symbols: []ChangedSymbol{}, Processes: []AffectedProcess{}}
	if scope == "compare" {
		out.BaseRef = in.BaseRef
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	indexed := map[string]bool{}
	bySym := map[string]*ChangedSymbol{}
	var order []string
	for _, p := range paths {
		f, ok, err := g.Node(p)
		if err != nil {
			return nil, fmt.Errorf("changed files: %w", err)
		}
		if !ok || f.Label != string(schema.LabelFile) {
			continue
		}
		indexed[p] = true
		defs, err := g.Edges(p, true, schema.RelDefines)
		if err != nil {
			return nil, fmt.Errorf("symbols of changed files: %w", err)
		}
		for _, e := range defs {
			n, ok, err := g.Node(e.Other.ID)
			if err != nil {
				return nil, fmt.Errorf("symbols of changed files: %w", err)
			}
			if !ok {
				continue
			}
			s := symbolOfNode(n)
			changed := overlap(files[s.FilePath], s.StartLine, s.EndLine)
			if changed == 0 {
				continue
			}
			if bySym[s.ID] == nil {
				bySym[s.ID] = &ChangedSymbol{Symbol: s}
				order = append(order, s.ID)
			}
			bySym[s.ID].ChangedLines = changed
		}
	}
	perFile := map[string]int{}
	for _, id := range order {
		cs := bySym[id]
		out.Symbols = append(out.Symbols, *cs)
		perFile[cs.FilePath]++
	}
	sort.SliceStable(out.Symbols, func(i, j int) bool {
		a, b := out.Symbols[i], out.Symbols[j]
		if a.FilePath != b.FilePath {
			return a.FilePath < b.FilePath
		}
		return a.StartLine < b.StartLine
	})
	for _, p := range paths {
		out.Files = append(out.Files, ChangedFile{Path: p, Ranges: files[p], Indexed: indexed[p], Symbols: perFile[p]})
	}
	if len(order) > 0 {
		imp := &ImpactOutput{}
		if err := impactGroups(g, order, imp); err != nil {
			return nil, err
		}
		out.Processes = imp.Processes
	}
	out.Summary.Files, out.Summary.Symbols, out.Summary.Processes = len(out.Files), len(out.Symbols), len(out.Processes)
	out.Risk = RiskOf(ImpactSummary{Direct: len(out.Symbols), Total: len(out.Symbols), Processes: len(out.Processes)})
	if len(out.Files) == 0 {
		out.Notices = append(out.Notices, "no changes in scope "+scope)
		out.Risk = "NONE"
	}
	out.Budget = fit(out, budget, out.shrink, "raise max_tokens, or narrow the scope (staged, unstaged); the summary counts everything")
	return out, nil
}

// overlap counts the lines of ranges inside start..end.
func overlap(ranges []LineRange, start, end int) int {
	if end < start {
		end = start
	}
	n := 0
	for _, r := range ranges {
		lo, hi := max(r.Start, start), min(r.End, end)
		if hi >= lo {
			n += hi - lo + 1
		}
	}
	return n
}

// ParseDiff reads the output of `git diff -z --raw -p -U0` into changed
// new-side line ranges per repo-relative path. The file list comes from
// the NUL-separated raw part, so names with spaces, tabs, newlines, quotes
// or any other byte are kept exactly (a rename or copy counts under its new
// name; a deleted file is left out). The patch part that follows has one
// "diff --git" (or combined "diff --cc") header per raw entry, in the same
// order; its hunks belong to that entry.
func ParseDiff(diff []byte) map[string][]LineRange {
	out := map[string][]LineRange{}
	paths, rest := parseRaw(diff)
	for _, p := range paths {
		if p != "" {
			out[p] = []LineRange{}
		}
	}
	entry, cur := -1, ""
	for len(rest) > 0 {
		var line []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			line, rest = rest, nil
		}
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")), bytes.HasPrefix(line, []byte("diff --cc ")),
			bytes.HasPrefix(line, []byte("diff --combined ")):
			entry++
			cur = ""
			if entry < len(paths) {
				cur = paths[entry]
			}
		case bytes.HasPrefix(line, []byte("@@ ")) && cur != "":
			// @@ -a[,b] +c[,d] @@
			f := strings.Fields(string(line))
			if len(f) < 3 || !strings.HasPrefix(f[2], "+") {
				continue
			}
			c, d := hunkRange(f[2][1:])
			if d == 0 {
				// Pure deletion after line c: mark the line it touches.
				out[cur] = append(out[cur], LineRange{Start: max(c, 1), End: max(c, 1)})
			} else {
				out[cur] = append(out[cur], LineRange{Start: c, End: c + d - 1})
			}
		}
	}
	return out
}

// parseRaw reads the NUL-separated raw entries at the start of diff
// (":mode mode sha sha STATUS\0path\0", renames and copies with a second
// path) and returns each entry's new path ("" for a deletion) and the rest
// of the output.
func parseRaw(diff []byte) (paths []string, rest []byte) {
	next := func() (string, bool) {
		i := bytes.IndexByte(diff, 0)
		if i < 0 {
			return "", false
		}
		f := string(diff[:i])
		diff = diff[i+1:]
		return f, true
	}
	for len(diff) > 0 && diff[0] == ':' {
		head, ok := next()
		if !ok {
			break
		}
		status := ""
		if f := strings.Fields(head); len(f) > 0 {
			status = f[len(f)-1]
		}
		p, ok := next()
		if !ok {
			break
		}
		if strings.HasPrefix(status, "R") || strings.HasPrefix(status, "C") {
			if p, ok = next(); !ok {
				break
			}
		}
		if strings.HasPrefix(status, "D") {
			p = ""
		}
		paths = append(paths, p)
	}
	// A NUL ends the raw part when a patch follows.
	return paths, bytes.TrimPrefix(diff, []byte{0})
}

func hunkRange(s string) (start, count int) {
	count = 1
	if i := strings.IndexByte(s, ','); i >= 0 {
		count, _ = strconv.Atoi(s[i+1:])
		s = s[:i]
	}
	start, _ = strconv.Atoi(s)
	return start, count
}

// git runs git in dir and returns stdout.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args[:min(len(args), 3)], " "), msg)
	}
	return out, nil
}

// shrink cuts the least important part of a detect_changes answer for its
// token budget: the affected flows beyond 10, the changed symbols beyond
// 20, the files beyond 20, then further down (the summary keeps the
// counts).
func (o *DetectChangesOutput) shrink() (string, bool) {
	for _, keep := range []int{20, 1} {
		if what, ok := halve(&o.Processes, keep/2, o.Summary.Processes, "affected_processes"); ok {
			return what, true
		}
		if what, ok := halve(&o.Symbols, keep, o.Summary.Symbols, "changed_symbols"); ok {
			return what, true
		}
		if what, ok := halve(&o.Files, keep, o.Summary.Files, "changed_files"); ok {
			return what, true
		}
	}
	return "", false
}
