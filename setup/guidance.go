package setup

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// Agent guidance: a block in the repository's AGENTS.md / CLAUDE.md that
// tells a coding agent when to use which gitnexus tool. The block sits
// between two marker lines; setup rewrites it in place, never adds a
// second one, and leaves the file untouched (not even rewritten) when the
// block already reads as it would be written.

const (
	guidanceStart = "<!-- gitnexus:start -->"
	guidanceEnd   = "<!-- gitnexus:end -->"
)

// GuidanceFiles are the agent instruction files setup maintains, in
// order: each that exists gets the block; when none exists, the first is
// created.
var GuidanceFiles = []string{"AGENTS.md", "CLAUDE.md"}

// toolAdvice is when to reach for each tool. Tools the server does not
// serve are not mentioned; a served tool missing here gets a generic line.
var toolAdvice = []struct{ tool, when string }{
	{"query", "find code by what it does (\"where are orders validated\"): answers are grouped into execution flows. Use it before grep for anything conceptual."},
	{"context", "one symbol's callers, callees, flows and community, before reading or changing it."},
	{"impact", "before changing a symbol's signature or behaviour: who depends on it, how deep, which flows, and a risk level."},
	{"detect_changes", "before committing or reviewing: which symbols and flows the current diff touches."},
	{"trace", "how control gets from one symbol to another (the call path, hop by hop)."},
	{"explain", "a compact summary of one symbol's role: community, flows (and at which step), callers and callees."},
	{"rename", "to rename a symbol: the exact edits for its definition and every known reference (a preview; unresolved sites are listed)."},
	{"route_map", "which handler serves an HTTP route (method and path)."},
	{"api_impact", "what a change to an HTTP route's handler reaches."},
	{"cypher", "anything the other tools do not answer: one read-only Cypher query on the code graph (read gitnexus://repo/{name}/schema first)."},
	{"list_repos", "which repositories are indexed, when several are."},
}

// GuidanceBlock renders the block for the tools a server serves.
func GuidanceBlock(tools []string) string {
	served := map[string]bool{}
	for _, t := range tools {
		served[t] = true
	}
	var b strings.Builder
	b.WriteString(guidanceStart + "\n")
	b.WriteString("## Code graph (gitnexus MCP server)\n\n")
	b.WriteString("This repository is indexed by gitnexus. Prefer its MCP tools over reading files blindly:\n\n")
	known := map[string]bool{}
	for _, a := range toolAdvice {
		known[a.tool] = true
		if served[a.tool] {
			fmt.Fprintf(&b, "- `%s`: %s\n", a.tool, a.when)
		}
	}
	for _, t := range tools {
		if !known[t] {
			fmt.Fprintf(&b, "- `%s`: see its description in the tool list.\n", t)
		}
	}
	if served["detect_changes"] && served["impact"] {
		b.WriteString("\nPrompts: `detect_impact` reviews the current diff's blast radius before a commit; `generate_map` drafts an architecture overview.\n")
	}
	b.WriteString("\nThe index is a snapshot: after large edits run `gitnexus analyze` so answers match the code.\n")
	b.WriteString(guidanceEnd + "\n")
	return b.String()
}

// Guidance writes (or, with uninstall, removes) the block in the
// repository at root, with the same dry-run, backup and atomic-write
// rules as Run. It returns one result per file considered.
func Guidance(root string, tools []string, uninstall, dryRun bool) ([]Result, error) {
	block := GuidanceBlock(tools)
	var targets []string
	for _, name := range GuidanceFiles {
		p := filepath.Join(root, name)
		if data, _, err := readConfig(p); err == nil && data != nil {
			targets = append(targets, p)
		} else if err != nil {
			return nil, err
		}
	}
	if len(targets) == 0 && !uninstall {
		targets = []string{filepath.Join(root, GuidanceFiles[0])}
	}
	var out []Result
	for _, p := range targets {
		r := Result{Client: "guidance", Path: p}
		if err := editGuidance(&r, block, uninstall, dryRun); err != nil {
			r.Action, r.Note = Failed, err.Error()
		}
		out = append(out, r)
	}
	return out, nil
}

func editGuidance(r *Result, block string, uninstall, dryRun bool) error {
	target, err := resolveLink(r.Path)
	if err != nil {
		return err
	}
	old, mode, err := readConfig(target)
	if err != nil {
		return err
	}
	next, action, err := spliceGuidance(old, block, uninstall)
	if err != nil {
		return fmt.Errorf("%s: %w (left as it is)", r.Path, err)
	}
	r.Action = action
	if action == Unchanged || action == Absent {
		return nil
	}
	r.Diff = UnifiedDiff(r.Path, old, next)
	if dryRun {
		return nil
	}
	if old != nil {
		r.Backup = target + ".gitnexus-backup"
		if err := writeAtomic(r.Backup, old, mode); err != nil {
			return fmt.Errorf("back up %s: %w (nothing written)", target, err)
		}
	}
	if uninstall && len(bytes.TrimSpace(next)) == 0 {
		return removeChecked(target, old) // the file held only the block: setup created it
	}
	return writeChecked(target, old, next, mode)
}

// spliceGuidance puts block into src: in place of an existing block,
// else at the end after a blank line; with uninstall it removes the block
// and the blank line it was given.
func spliceGuidance(src []byte, block string, uninstall bool) ([]byte, Action, error) {
	s := string(src)
	start := markerLine(s, guidanceStart, 0)
	if n := strings.Count(s, guidanceStart); n > 1 {
		return nil, Failed, fmt.Errorf("%d %s markers: keep one block and delete the others", n, guidanceStart)
	}
	if start < 0 {
		if strings.Contains(s, guidanceEnd) {
			return nil, Failed, fmt.Errorf("%s without %s: fix the markers", guidanceEnd, guidanceStart)
		}
		if uninstall {
			return src, Absent, nil
		}
		prefix := s
		switch {
		case prefix == "":
		case strings.HasSuffix(prefix, "\n\n"):
		case strings.HasSuffix(prefix, "\n"):
			prefix += "\n"
		default:
			prefix += "\n\n"
		}
		return []byte(prefix + block), Added, nil
	}
	endLine := markerLine(s, guidanceEnd, start)
	if endLine < 0 {
		return nil, Failed, fmt.Errorf("%s without %s: fix the markers", guidanceStart, guidanceEnd)
	}
	end := endLine + len(guidanceEnd)
	if end < len(s) && s[end] == '\n' {
		end++
	}
	if uninstall {
		before, after := s[:start], s[end:]
		// Drop the blank line the block was given before it.
		if strings.HasSuffix(before, "\n\n") && (after == "" || strings.HasPrefix(after, "\n")) {
			before = strings.TrimSuffix(before, "\n")
		}
		return []byte(before + after), Removed, nil
	}
	if s[start:end] == block || (end == len(s) && s[start:end]+"\n" == block && !strings.HasSuffix(s, "\n")) {
		return src, Unchanged, nil
	}
	return bytes.Join([][]byte{[]byte(s[:start]), []byte(block), []byte(s[end:])}, nil), Updated, nil
}

// markerLine is the offset of marker where it begins a line at or after
// from, or -1.
func markerLine(s, marker string, from int) int {
	for i := from; i < len(s); {
		j := strings.Index(s[i:], marker)
		if j < 0 {
			return -1
		}
		at := i + j
		if at == 0 || s[at-1] == '\n' {
			return at
		}
		i = at + len(marker)
	}
	return -1
}
