package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/graph/schema"
)

// DetectChangesInput is the detect_changes tool's input.
type DetectChangesInput struct {
	Scope   string `json:"scope,omitempty" jsonschema:"What to analyze: unstaged (default), staged, all (staged and unstaged against HEAD), or compare (working tree against base_ref)"`
	BaseRef string `json:"base_ref,omitempty" jsonschema:"Branch or commit for the compare scope (e.g. main)"`
	Repo    string `json:"repo,omitempty" jsonschema:"Repository name or path. Omit when only one repo is indexed."`
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
	Notices []string `json:"notices,omitempty"`
}

// DetectChanges runs git diff in repoRoot for the scope, turns hunks into
// changed line ranges (new-side lines; a pure deletion marks the line it
// sits at), finds the indexed symbols whose lines overlap them, and the
// processes those symbols are steps of. Line numbers are matched against
// the index as analyzed: re-analyze after large edits for exact overlap.
func DetectChanges(ctx context.Context, db Querier, repoRoot string, in DetectChangesInput) (*DetectChangesOutput, error) {
	scope := strings.ToLower(strings.TrimSpace(in.Scope))
	if scope == "" {
		scope = "unstaged"
	}
	args := []string{"-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff", "-U0", "--diff-filter=d"}
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
	for start := 0; start < len(paths); start += 500 {
		chunk := paths[start:min(start+500, len(paths))]
		res, err := db.Query(ctx, "MATCH (f:File) WHERE f.id IN "+schema.QuoteList(chunk)+" RETURN f.id", nil)
		if err != nil {
			return nil, fmt.Errorf("changed files: %w", err)
		}
		for _, r := range res.Rows {
			indexed[str(r[0])] = true
		}
		res, err = db.Query(ctx, "MATCH (f:File)-[:DEFINES]->(n) WHERE f.id IN "+schema.QuoteList(chunk)+" RETURN "+symbolCols, nil)
		if err != nil {
			return nil, fmt.Errorf("symbols of changed files: %w", err)
		}
		for _, r := range res.Rows {
			s := symbolOf(r)
			n := overlap(files[s.FilePath], s.StartLine, s.EndLine)
			if n == 0 {
				continue
			}
			if bySym[s.ID] == nil {
				bySym[s.ID] = &ChangedSymbol{Symbol: s}
				order = append(order, s.ID)
			}
			bySym[s.ID].ChangedLines = n
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
		if err := impactGroups(ctx, db, order, imp); err != nil {
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

// ParseDiff reads a unified diff (-U0) into changed new-side line ranges
// per repo-relative path.
func ParseDiff(diff []byte) map[string][]LineRange {
	out := map[string][]LineRange{}
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var cur string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+++ "):
			p := strings.TrimPrefix(line, "+++ ")
			if p == "/dev/null" {
				cur = ""
				continue
			}
			p = strings.TrimPrefix(p, "b/")
			if uq, err := strconv.Unquote(p); err == nil {
				p = strings.TrimPrefix(uq, "b/")
			}
			cur = p
			if _, ok := out[cur]; !ok {
				out[cur] = []LineRange{}
			}
		case strings.HasPrefix(line, "@@ ") && cur != "":
			// @@ -a[,b] +c[,d] @@
			f := strings.Fields(line)
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
