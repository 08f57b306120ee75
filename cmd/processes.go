package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var (
	processesIn   tools.ProcessesInput
	communitiesIn tools.CommunitiesInput
	processIn     tools.ProcessDetailInput
	communityIn   tools.CommunityDetailInput
)

var processesCmd = &cobra.Command{
	Use:   "processes",
	Short: "List the execution flows traced from the repository's entry points",
	Long: `processes lists the execution flows, highest priority first. Each id (or a
unique prefix of it) is what ` + "`gitnexus process`" + ` takes.
--json prints what the MCP resource gitnexus://repo/{name}/processes returns.`,
	Example: `  gitnexus processes -n 20`,
	Args:    cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		if err := checkRange("--limit", processesIn.Limit, 1, tools.MaxRows); err != nil {
			return err
		}
		return runTool(c.Context(), processesIn, onIndex(tools.Processes), func(out *tools.ProcessesOutput) error {
			if len(out.Processes) == 0 {
				fmt.Println("No processes: the call graph has no flow of 3 or more steps from an entry point.")
				return nil
			}
			printProcessRows(out.Processes)
			if out.Truncated {
				printNotices([]string{fmt.Sprintf("%d of %d processes listed (raise --limit)", len(out.Processes), out.Total)})
			}
			return nil
		})
	},
}

// printProcessRows prints processes as a table with a header.
func printProcessRows(rows []tools.ProcessRow) {
	scr := stdout()
	scr.line(scr.paint(styleDim, fmt.Sprintf("%-21s %-16s %5s  %s", "ID", "TYPE", "STEPS", "FLOW")))
	for _, p := range rows {
		scr.linef("%s %-16s %5d  %s", pad(scr.paint(styleCyan, p.ID), 21), p.ProcessType, p.StepCount, p.Label)
	}
}

var processMermaid bool

var processCmd = &cobra.Command{
	Use:   "process ID|LABEL",
	Short: "Show one execution flow step by step (by id, unique id prefix, or label)",
	Long: `process shows one execution flow step by step. It takes the flow's id as
` + "`processes`" + ` prints it (proc_…), a prefix of it that only one id starts with
(proc_5aa5), its label, or a piece of its label: when several flows match,
they are listed (exit 3) for you to pick one by id.
--json prints what the MCP resource gitnexus://repo/{name}/process/{id} returns.`,
	Example: `  gitnexus process proc_5aa5
  gitnexus process "main → HandleOrder → audit" --mermaid`,
	Args: argsNamed("ID|LABEL"),
	RunE: func(c *cobra.Command, args []string) error {
		in := processIn
		in.ID = args[0]
		return runToolChecked(c.Context(), in, onIndex(tools.ProcessDetail), func(out *tools.ProcessDetailOutput) error {
			if out.Status == "ambiguous" {
				stdout().linef("%q matches %d processes%s; pick one by id:", in.ID, len(out.Candidates), more(out.More))
				printProcessRows(out.Candidates)
				return nil
			}
			if processMermaid {
				fmt.Println(mermaid(out))
				return nil
			}
			scr := stdout()
			p := out.Process
			scr.linef("%s  %s  (%s, %d steps)", scr.paint(styleCyan, p.ID), scr.paint(styleBold, p.Label), p.ProcessType, p.StepCount)
			if p.Description != "" {
				scr.linef("  %s", p.Description)
			}
			var names []string
			for _, s := range out.Steps {
				names = append(names, s.Name)
			}
			nw := nameWidth(names...)
			for _, s := range out.Steps {
				scr.linef("  %2d. %s %s", s.Step, pad(s.Name, nw), loc(s.FilePath, s.StartLine))
			}
			return nil
		}, func(out *tools.ProcessDetailOutput) error {
			if out.Status == "ambiguous" {
				return ambiguousErr(fmt.Sprintf("process %q", in.ID), len(out.Candidates))
			}
			return nil
		})
	},
}

// more is " (or more)" when a candidate list was cut.
func more(cut bool) string {
	if cut {
		return " (or more)"
	}
	return ""
}

// mermaid renders a flow as a mermaid flowchart.
func mermaid(d *tools.ProcessDetailOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s\n---\nflowchart TD\n", strings.ReplaceAll(d.Process.Label, "\"", "'"))
	for i, s := range d.Steps {
		fmt.Fprintf(&b, "  s%d[\"%s<br/><small>%s</small>\"]\n", i+1, strings.ReplaceAll(s.Name, "\"", "'"), loc(s.FilePath, s.StartLine))
		if i > 0 {
			fmt.Fprintf(&b, "  s%d --> s%d\n", i, i+1)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

var communitiesCmd = &cobra.Command{
	Use:   "communities",
	Short: "List the communities of symbols that work together",
	Long: `communities lists the communities (functional areas), largest first. Each id
(or a unique prefix of it) is what ` + "`gitnexus community`" + ` takes.
--json prints what the MCP resource gitnexus://repo/{name}/communities returns.`,
	Example: `  gitnexus communities -n 10`,
	Args:    cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		if err := checkRange("--limit", communitiesIn.Limit, 1, tools.MaxRows); err != nil {
			return err
		}
		return runTool(c.Context(), communitiesIn, onIndex(tools.Communities), func(out *tools.CommunitiesOutput) error {
			if len(out.Communities) == 0 {
				fmt.Println("No communities: the index has no clusters of calling symbols.")
				return nil
			}
			printCommunityRows(out.Communities)
			if out.Truncated {
				printNotices([]string{fmt.Sprintf("%d communities listed; there are more (raise --limit)", len(out.Communities))})
			}
			return nil
		})
	},
}

// printCommunityRows prints communities as a table with a header.
func printCommunityRows(rows []tools.CommunityRow) {
	scr := stdout()
	scr.line(scr.paint(styleDim, fmt.Sprintf("%-21s %7s %8s  %s", "ID", "SYMBOLS", "COHESION", "LABEL")))
	for _, r := range rows {
		scr.linef("%s %7d %8.2f  %s", pad(scr.paint(styleCyan, r.ID), 21), r.SymbolCount, r.Cohesion, r.Label)
	}
}

var communityCmd = &cobra.Command{
	Use:   "community ID|LABEL",
	Short: "Show one community: its member symbols and the flows through it",
	Long: `community shows one community (a cluster of symbols that call each other):
its members by file and the execution flows with a step in it. It takes the
id as ` + "`communities`" + ` prints it (comm_…), a unique prefix of it, its label, or a
piece of its label: when several match, they are listed (exit 3).
--json prints the community, its members and processes as one object.`,
	Example: `  gitnexus community comm_9fad
  gitnexus community server -n 20`,
	Args: argsNamed("ID|LABEL"),
	RunE: func(c *cobra.Command, args []string) error {
		in := communityIn
		in.ID = args[0]
		if err := checkRange("--limit", in.Limit, 1, tools.MaxRows); err != nil {
			return err
		}
		return runToolChecked(c.Context(), in, onIndex(tools.CommunityDetail), func(out *tools.CommunityDetailOutput) error {
			scr := stdout()
			if out.Status == "ambiguous" {
				scr.linef("%q matches %d communities%s; pick one by id:", in.ID, len(out.Candidates), more(out.More))
				printCommunityRows(out.Candidates)
				return nil
			}
			cm := out.Community
			scr.linef("%s  %s  (%d symbols, cohesion %.2f)", scr.paint(styleCyan, cm.ID), scr.paint(styleBold, cm.Label), cm.SymbolCount, cm.Cohesion)
			var names []string
			for _, m := range out.Members {
				names = append(names, m.Name)
			}
			nw := nameWidth(names...)
			for _, m := range out.Members {
				scr.linef("  %-10s %s %s", m.Kind, pad(m.Name, nw), loc(m.FilePath, m.StartLine))
			}
			if out.Truncated {
				printNotices([]string{fmt.Sprintf("%d of %d members listed (raise --limit)", len(out.Members), cm.SymbolCount)})
			}
			if len(out.Processes) > 0 {
				scr.line("")
				printProcessRows(out.Processes)
			}
			return nil
		}, func(out *tools.CommunityDetailOutput) error {
			if out.Status == "ambiguous" {
				return ambiguousErr(fmt.Sprintf("community %q", in.ID), len(out.Candidates))
			}
			return nil
		})
	},
}

func init() {
	processesCmd.Flags().IntVarP(&processesIn.Limit, "limit", "n", tools.DefaultProcesses, fmt.Sprintf("most processes to list (1..%d)", tools.MaxRows))
	communitiesCmd.Flags().IntVarP(&communitiesIn.Limit, "limit", "n", tools.MaxRows, fmt.Sprintf("most communities to list (1..%d)", tools.MaxRows))
	communityCmd.Flags().IntVarP(&communityIn.Limit, "limit", "n", tools.DefaultCommunityMembers, fmt.Sprintf("most members to list (1..%d)", tools.MaxRows))
	processCmd.Flags().BoolVar(&processMermaid, "mermaid", false, "print a mermaid flowchart")
	rootCmd.AddCommand(processesCmd, processCmd, communitiesCmd, communityCmd)
}
