package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitnexus/gitnexus/tools"
)

// Prompts. Each is a ready-made request to the agent, filled in with the
// answers of the tools it is built on (package tools: the same calls as
// the tools of those names), so the agent starts from the facts rather
// than from a plan to fetch them. A prompt is served only when every tool
// it is built on is (an --tools allow-list that leaves one out drops it:
// a prompt must not hand out what a tool call may not).

// Bounds on what a prompt embeds, so that its text stays a few thousand
// tokens whatever the diff or the repository.
const (
	promptSymbols     = 12  // changed symbols given an impact analysis
	promptCallers     = 8   // direct callers named per changed symbol
	promptProcesses   = 15  // processes listed
	promptCommunities = 25  // communities listed
	promptArgMax      = 512 // longest prompt argument accepted
)

func (s *Server) addPrompts() {
	repoArg := &sdk.PromptArgument{Name: "repo", Description: "Repository name or path (omit when only one is served)"}
	if s.hasTools("detect_changes", "impact") {
		s.SDK.AddPrompt(&sdk.Prompt{Name: "detect_impact", Title: "Review the blast radius of the current diff",
			Description: "Maps the current git diff to changed symbols (detect_changes), gives each its upstream impact " +
				"(direct callers, affected flows, risk), and asks for a review of what the change can break.",
			Arguments: []*sdk.PromptArgument{repoArg,
				{Name: "scope", Description: "unstaged (default), staged, all, or compare"},
				{Name: "base_ref", Description: "Branch or commit for scope compare (e.g. main)"}}},
			s.detectImpactPrompt)
	}
	if s.hasTools("query") { // communities and processes are what query groups by
		s.SDK.AddPrompt(&sdk.Prompt{Name: "generate_map", Title: "Architecture overview",
			Description: "Lists the repository's communities (functional areas) and its main execution flows, " +
				"and asks for an architecture overview with a diagram.",
			Arguments: []*sdk.PromptArgument{repoArg}},
			s.generateMapPrompt)
	}
}

// promptArgs reads a prompt's arguments, refusing unknown and oversized
// ones (the SDK passes any map a client sends).
func promptArgs(req *sdk.GetPromptRequest, known ...string) (map[string]string, error) {
	args := map[string]string{}
	if req.Params == nil {
		return args, nil
	}
	for k, v := range req.Params.Arguments {
		ok := false
		for _, n := range known {
			ok = ok || n == k
		}
		if !ok {
			if len(k) > 64 {
				k = k[:64] + "…"
			}
			return nil, fmt.Errorf("%w: unknown prompt argument %q (arguments: %s)", tools.ErrInput, k, strings.Join(known, ", "))
		}
		if len(v) > promptArgMax {
			return nil, fmt.Errorf("%w: prompt argument %s is longer than %d bytes", tools.ErrInput, k, promptArgMax)
		}
		args[k] = strings.TrimSpace(v)
	}
	return args, nil
}

func promptResult(desc, text string) *sdk.GetPromptResult {
	return &sdk.GetPromptResult{Description: desc,
		Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}
}

func (s *Server) detectImpactPrompt(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	args, err := promptArgs(req, "repo", "scope", "base_ref")
	if err != nil {
		return nil, err
	}
	_, text, err := withRepo(s, ctx, "detect_impact", args["repo"], func(ctx context.Context, r *Repo) (string, error) {
		return detectImpactText(ctx, r, tools.DetectChangesInput{Scope: args["scope"], BaseRef: args["base_ref"]})
	})
	if err != nil {
		return nil, err
	}
	return promptResult("Blast radius of the current diff", text), nil
}

// detectImpactText renders detect_changes on r and, for the most changed
// symbols, impact upstream.
func detectImpactText(ctx context.Context, r *Repo, in tools.DetectChangesInput) (string, error) {
	ix, err := r.Index()
	if err != nil {
		return "", err
	}
	ch, err := tools.DetectChanges(ctx, ix, r.Entry.Path, in)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Review the blast radius of the %s changes in repository %s (%s).\n\n", ch.Scope, r.Entry.Name, r.Entry.Path)
	fmt.Fprintf(&b, "## Diff (gitnexus detect_changes)\n%d files, %d changed symbols, %d execution flows touched; risk %s.\n",
		ch.Summary.Files, ch.Summary.Symbols, ch.Summary.Processes, ch.Risk)
	if len(ch.Symbols) == 0 {
		b.WriteString("\nNo indexed symbol overlaps the diff (nothing changed, or only files outside the index: re-run `gitnexus analyze` after large edits).\n")
		return b.String(), nil
	}
	syms := append([]tools.ChangedSymbol(nil), ch.Symbols...)
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].ChangedLines > syms[j].ChangedLines })
	b.WriteString("\n## Changed symbols and who depends on them (gitnexus impact, upstream)\n")
	for i, cs := range syms {
		if i == promptSymbols {
			fmt.Fprintf(&b, "\n…and %d more changed symbols: call the impact tool on them.\n", len(syms)-i)
			break
		}
		fmt.Fprintf(&b, "\n### %s %s (%s:%d, %d changed lines)\n", cs.Label, cs.Name, cs.FilePath, cs.StartLine, cs.ChangedLines)
		im, err := tools.Impact(ctx, ix, tools.ImpactInput{TargetUID: cs.ID, MaxDepth: 2, Limit: promptCallers})
		if err != nil {
			fmt.Fprintf(&b, "impact failed: %v\n", err)
			continue
		}
		exact := "exact"
		if !im.Exact {
			exact = "a lower bound (unresolved call sites)"
		}
		fmt.Fprintf(&b, "Risk %s: %d direct dependents, %d within depth 2, %d flows; the answer is %s.\n",
			im.Risk, im.Summary.Direct, im.Summary.Total, im.Summary.Processes, exact)
		for _, lvl := range im.ByDepth {
			if lvl.Depth != 1 {
				continue
			}
			for _, a := range lvl.Symbols {
				fmt.Fprintf(&b, "- called by %s (%s:%d) via %s\n", a.Name, a.FilePath, a.StartLine, a.Via)
			}
			if lvl.Count > len(lvl.Symbols) {
				fmt.Fprintf(&b, "- …and %d more direct dependents\n", lvl.Count-len(lvl.Symbols))
			}
		}
	}
	if len(ch.Processes) > 0 {
		b.WriteString("\n## Execution flows the diff touches\n")
		for i, p := range ch.Processes {
			if i == promptProcesses {
				fmt.Fprintf(&b, "- …and %d more\n", len(ch.Processes)-i)
				break
			}
			fmt.Fprintf(&b, "- %s (%d steps, first changed step %d)\n", p.Label, p.StepCount, p.FirstStep)
		}
	}
	b.WriteString("\n## What to do\n" +
		"1. For each changed symbol, check that every direct dependent above still holds with the change (signature, behaviour, errors).\n" +
		"2. Walk the touched execution flows end to end and name the ones whose behaviour changes.\n" +
		"3. Where an answer is a lower bound, search for the unresolved callers (query, context tools) before concluding.\n" +
		"4. Report: the risk, what may break and where (file:line), and the tests to run or write.\n")
	return b.String(), nil
}

func (s *Server) generateMapPrompt(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	args, err := promptArgs(req, "repo")
	if err != nil {
		return nil, err
	}
	_, text, err := withRepo(s, ctx, "generate_map", args["repo"], generateMapText)
	if err != nil {
		return nil, err
	}
	return promptResult("Architecture overview", text), nil
}

// generateMapText renders the communities and the main processes of r.
func generateMapText(ctx context.Context, r *Repo) (string, error) {
	ix, err := r.Index()
	if err != nil {
		return "", err
	}
	comms, err := tools.Communities(ctx, ix, tools.CommunitiesInput{Limit: promptCommunities})
	if err != nil {
		return "", err
	}
	procs, err := tools.Processes(ctx, ix, tools.ProcessesInput{Limit: promptProcesses})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Write an architecture overview of repository %s (%s) from its code graph.\n", r.Entry.Name, r.Entry.Path)
	b.WriteString("\n## Functional areas (gitnexus communities, largest first)\n")
	if len(comms.Communities) == 0 {
		b.WriteString("(none detected)\n")
	}
	for _, c := range comms.Communities {
		fmt.Fprintf(&b, "- %s (id %s): %d symbols, cohesion %.2f", c.Label, c.ID, c.SymbolCount, c.Cohesion)
		if len(c.Keywords) > 0 {
			fmt.Fprintf(&b, "; keywords: %s", strings.Join(c.Keywords[:min(len(c.Keywords), 8)], ", "))
		}
		b.WriteString("\n")
	}
	if comms.Truncated {
		b.WriteString("- …more, smaller areas: read gitnexus://repo/{name}/communities\n")
	}
	fmt.Fprintf(&b, "\n## Main execution flows (gitnexus processes, %d in all, highest priority first)\n", procs.Total)
	if len(procs.Processes) == 0 {
		b.WriteString("(none detected)\n")
	}
	for _, p := range procs.Processes {
		fmt.Fprintf(&b, "- %s (id %s, %s, %d steps)", p.Label, p.ID, p.ProcessType, p.StepCount)
		if len(p.Communities) > 0 {
			fmt.Fprintf(&b, " across %s", strings.Join(p.Communities[:min(len(p.Communities), 4)], ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## What to write\n" +
		"1. One paragraph per functional area: its responsibility, its key symbols (use the context tool on a few), and what it depends on.\n" +
		"2. The main flows step by step (read gitnexus://repo/{name}/process/{id} for the steps).\n" +
		"3. A mermaid flowchart of the areas and the flows between them.\n" +
		"4. Where to start reading, and the areas a change is most likely to ripple through (impact tool).\n")
	return strings.ReplaceAll(b.String(), "{name}", r.Entry.Name), nil
}
