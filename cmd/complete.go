package cmd

import (
	"context"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/tools"
)

// Shell completion (gitnexus completion bash|zsh|fish|powershell): repo
// names for -r, process and community ids for process and community
// (with their labels as descriptions), and the allowed values of every
// enum flag. Completion never fails loudly: without a registry or an index
// it offers nothing.

func completeFixed(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}

// completeList completes one comma-separated list item of values.
func completeList(values []string) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		done := ""
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			done = toComplete[:i+1]
		}
		out := make([]string, 0, len(values))
		for _, v := range values {
			out = append(out, done+v)
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// completeRepos offers the registered repository names.
func completeRepos(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	reg, err := graph.LoadRegistry()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, e := range reg.List() {
		out = append(out, e.Name+"\t"+e.Path)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeIDs offers the ids of the repository's processes or
// communities, each with its label.
func completeIDs(communities bool) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx := c.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		e, err := resolveRepo("")
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		db, err := graph.OpenLazy(ctx, e.Path, graph.OpenOptions{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer db.Close()
		ix, err := toolRepo{Entry: e, DB: db}.index()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		if communities {
			res, err := tools.Communities(ctx, ix, tools.CommunitiesInput{})
			if err == nil {
				for _, r := range res.Communities {
					out = append(out, r.ID+"\t"+r.Label)
				}
			}
		} else {
			res, err := tools.Processes(ctx, ix, tools.ProcessesInput{})
			if err == nil {
				for _, r := range res.Processes {
					out = append(out, r.ID+"\t"+r.Label)
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerCompletions attaches the completion functions; Execute calls it
// once, after every command's init has defined its flags.
var registerCompletions = sync.OnceFunc(func() {
	rootCmd.InitDefaultCompletionCmd()
	if c, _, err := rootCmd.Find([]string{"completion"}); err == nil && c.Name() == "completion" {
		c.Example = "  source <(gitnexus completion bash)\n  gitnexus completion zsh > \"${fpath[1]}/_gitnexus\""
		for _, sh := range c.Commands() {
			sh.Example = "  gitnexus completion " + sh.Name() + " --help"
		}
	}
	_ = rootCmd.RegisterFlagCompletionFunc("repo", completeRepos)
	processCmd.ValidArgsFunction = completeIDs(false)
	communityCmd.ValidArgsFunction = completeIDs(true)
	devices := completeFixed("auto", "cpu", "cuda", "dml")
	for cmd, flags := range map[*cobra.Command]map[string]cobra.CompletionFunc{
		impactCmd: {
			"direction": completeFixed("upstream", "downstream"),
			"relations": completeList(impactRelations),
			"kind":      completeList(tools.QueryKinds()),
		},
		contextCmd:       {"kind": completeList(tools.QueryKinds())},
		queryCmd:         {"kind": completeList(tools.QueryKinds()), "mode": completeFixed("hybrid", "keyword", "vector"), "device": devices},
		detectChangesCmd: {"scope": completeFixed("unstaged", "staged", "all", "compare")},
		analyzeCmd:       {"device": devices},
	} {
		for name, fn := range flags {
			_ = cmd.RegisterFlagCompletionFunc(name, fn)
		}
	}
})
