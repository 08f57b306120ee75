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
)

var processesCmd = &cobra.Command{
	Use:   "processes",
	Short: "List the execution flows traced from the repository's entry points",
	Long: `processes lists the execution flows, highest priority first.
--json prints what the MCP resource gitnexus://repo/{name}/processes returns.`,
	Args: cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		return runTool(c.Context(), processesIn, onDB(tools.Processes), func(out *tools.ProcessesOutput) error {
			if len(out.Processes) == 0 {
				fmt.Println("No processes: the call graph has no flow of 3 or more steps from an entry point.")
				return nil
			}
			for _, p := range out.Processes {
				fmt.Printf("%-22s %-16s %2d steps  %s\n", p.ID, p.ProcessType, p.StepCount, p.Label)
			}
			if out.Truncated {
				printNotices([]string{fmt.Sprintf("%d of %d processes listed (--limit)", len(out.Processes), out.Total)})
			}
			return nil
		})
	},
}

var processMermaid bool

var processCmd = &cobra.Command{
	Use:   "process ID|NAME",
	Short: "Show one execution flow step by step (by process id, or a name in its label)",
	Long: `process shows one execution flow step by step: the process with that id, else
the highest-priority one whose label contains NAME.
--json prints what the MCP resource gitnexus://repo/{name}/process/{id} returns.`,
	Args: cobra.ExactArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		in := processIn
		in.ID = args[0]
		return runTool(c.Context(), in, onDB(tools.ProcessDetail), func(out *tools.ProcessDetailOutput) error {
			if processMermaid {
				fmt.Println(mermaid(out))
				return nil
			}
			p := out.Process
			fmt.Printf("%s  %s  (%s, %d steps)\n", p.ID, p.Label, p.ProcessType, p.StepCount)
			for _, s := range out.Steps {
				fmt.Printf("  %2d. %-40s %s:%d\n", s.Step, s.Name, s.FilePath, s.StartLine)
			}
			return nil
		})
	},
}

// mermaid renders a flow as a mermaid flowchart.
func mermaid(d *tools.ProcessDetailOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s\n---\nflowchart TD\n", strings.ReplaceAll(d.Process.Label, "\"", "'"))
	for i, s := range d.Steps {
		fmt.Fprintf(&b, "  s%d[\"%s<br/><small>%s:%d</small>\"]\n", i+1, strings.ReplaceAll(s.Name, "\"", "'"), s.FilePath, s.StartLine)
		if i > 0 {
			fmt.Fprintf(&b, "  s%d --> s%d\n", i, i+1)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

var communitiesCmd = &cobra.Command{
	Use:   "communities",
	Short: "List the communities of symbols that work together",
	Long: `communities lists the communities (functional areas), largest first.
--json prints what the MCP resource gitnexus://repo/{name}/communities returns.`,
	Args: cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		return runTool(c.Context(), communitiesIn, onDB(tools.Communities), func(out *tools.CommunitiesOutput) error {
			for _, r := range out.Communities {
				fmt.Printf("%-22s %5d symbols  cohesion %.2f  %s\n", r.ID, r.SymbolCount, r.Cohesion, r.Label)
			}
			if out.Truncated {
				printNotices([]string{fmt.Sprintf("%d communities listed; there are more (--limit)", len(out.Communities))})
			}
			return nil
		})
	},
}

func init() {
	processesCmd.Flags().IntVar(&processesIn.Limit, "limit", tools.DefaultProcesses, fmt.Sprintf("most processes to list (max %d)", tools.MaxRows))
	communitiesCmd.Flags().IntVar(&communitiesIn.Limit, "limit", tools.MaxRows, fmt.Sprintf("most communities to list (max %d)", tools.MaxRows))
	processCmd.Flags().BoolVar(&processMermaid, "mermaid", false, "print a mermaid flowchart")
	rootCmd.AddCommand(processesCmd, processCmd, communitiesCmd)
}
