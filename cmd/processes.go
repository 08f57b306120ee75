package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph"
)

// openRepo resolves -r / the working directory and opens its index
// read-only.
func openRepo(ctx context.Context) (*graph.DB, error) {
	e, err := resolveRepo("")
	if err != nil {
		return nil, err
	}
	db, err := graph.Open(ctx, e.Path, graph.OpenOptions{})
	if err != nil {
		if errors.Is(err, graph.ErrNoIndex) {
			return nil, &Error{Code: ExitNotFound, Err: err}
		}
		return nil, err
	}
	return db, nil
}

type processRow struct {
	ID          string  `json:"id"`
	Label       string  `json:"label"`
	ProcessType string  `json:"process_type"`
	StepCount   int     `json:"step_count"`
	Priority    float64 `json:"priority"`
	EntryPoint  string  `json:"entryPointId"`
	Terminal    string  `json:"terminalId"`
}

type stepRow struct {
	Step      int    `json:"step_index"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	ID        string `json:"id"`
	FilePath  string `json:"filePath"`
	StartLine int    `json:"startLine"`
}

var processesLimit int

var processesCmd = &cobra.Command{
	Use:   "processes",
	Short: "List the execution flows traced from the repository's entry points",
	Args:  cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		db, err := openRepo(c.Context())
		if err != nil {
			return err
		}
		defer db.Close()
		res, err := db.Query(c.Context(), `MATCH (p:Process) RETURN p.id, p.label, p.processType, p.stepCount, p.priority, p.entryPointId, p.terminalId ORDER BY p.priority DESC, p.id LIMIT $n`, map[string]any{"n": int64(processesLimit)})
		if err != nil {
			return err
		}
		rows := []processRow{}
		for _, r := range res.Rows {
			rows = append(rows, processRow{ID: str(r[0]), Label: str(r[1]), ProcessType: str(r[2]), StepCount: num(r[3]), Priority: flt(r[4]), EntryPoint: str(r[5]), Terminal: str(r[6])})
		}
		if flagJSON {
			return printJSON(map[string]any{"processes": rows})
		}
		if len(rows) == 0 {
			fmt.Println("No processes: the call graph has no flow of 3 or more steps from an entry point.")
			return nil
		}
		for _, p := range rows {
			fmt.Printf("%-22s %-16s %2d steps  %s\n", p.ID, p.ProcessType, p.StepCount, p.Label)
		}
		return nil
	},
}

var processMermaid bool

var processCmd = &cobra.Command{
	Use:   "process ID|NAME",
	Short: "Show one execution flow step by step (by process id, or a name in its label)",
	Args:  cobra.ExactArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		db, err := openRepo(c.Context())
		if err != nil {
			return err
		}
		defer db.Close()
		ref := args[0]
		res, err := db.Query(c.Context(), `MATCH (p:Process) WHERE p.id = $ref OR p.label CONTAINS $ref RETURN p.id, p.label, p.processType, p.stepCount, p.priority, p.entryPointId, p.terminalId ORDER BY p.id = $ref DESC, p.priority DESC LIMIT 20`, map[string]any{"ref": ref})
		if err != nil {
			return err
		}
		if len(res.Rows) == 0 {
			return Fail(ExitNotFound, "no process with id or label matching %q: list them with `gitnexus processes`", ref)
		}
		r := res.Rows[0]
		p := processRow{ID: str(r[0]), Label: str(r[1]), ProcessType: str(r[2]), StepCount: num(r[3]), Priority: flt(r[4]), EntryPoint: str(r[5]), Terminal: str(r[6])}
		others := len(res.Rows) - 1
		steps, err := db.Query(c.Context(), `MATCH (s)-[r:STEP_IN_PROCESS]->(p:Process) WHERE p.id = $id RETURN r.step, s.kind, s.name, s.id, s.filePath, s.startLine ORDER BY r.step`, map[string]any{"id": p.ID})
		if err != nil {
			return err
		}
		var ss []stepRow
		for _, s := range steps.Rows {
			ss = append(ss, stepRow{Step: num(s[0]), Kind: str(s[1]), Name: str(s[2]), ID: str(s[3]), FilePath: str(s[4]), StartLine: num(s[5])})
		}
		if flagJSON {
			return printJSON(map[string]any{"process": p, "steps": ss, "other_matches": others})
		}
		if processMermaid {
			fmt.Println(mermaid(p, ss))
			return nil
		}
		fmt.Printf("%s  %s  (%s, %d steps)\n", p.ID, p.Label, p.ProcessType, p.StepCount)
		for _, s := range ss {
			fmt.Printf("  %2d. %-40s %s:%d\n", s.Step, s.Name, s.FilePath, s.StartLine)
		}
		if others > 0 {
			fmt.Fprintf(os.Stderr, "(%d more processes match %q; give an id to pick one)\n", others, ref)
		}
		return nil
	},
}

// mermaid renders a flow as a mermaid flowchart.
func mermaid(p processRow, steps []stepRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s\n---\nflowchart TD\n", strings.ReplaceAll(p.Label, "\"", "'"))
	for i, s := range steps {
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
	Args:  cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		db, err := openRepo(c.Context())
		if err != nil {
			return err
		}
		defer db.Close()
		res, err := db.Query(c.Context(), `MATCH (c:Community) RETURN c.id, c.label, c.symbolCount, c.cohesion, c.keywords ORDER BY c.symbolCount DESC, c.id LIMIT $n`, map[string]any{"n": int64(processesLimit)})
		if err != nil {
			return err
		}
		type row struct {
			ID       string   `json:"id"`
			Label    string   `json:"label"`
			Size     int      `json:"symbolCount"`
			Cohesion float64  `json:"cohesion"`
			Keywords []string `json:"keywords"`
		}
		rows := []row{}
		for _, r := range res.Rows {
			var kws []string
			if l, ok := r[4].([]any); ok {
				for _, k := range l {
					kws = append(kws, str(k))
				}
			}
			rows = append(rows, row{str(r[0]), str(r[1]), num(r[2]), flt(r[3]), kws})
		}
		if flagJSON {
			return printJSON(map[string]any{"communities": rows})
		}
		for _, r := range rows {
			fmt.Printf("%-22s %5d symbols  cohesion %.2f  %s\n", r.ID, r.Size, r.Cohesion, r.Label)
		}
		return nil
	},
}

func init() {
	processesCmd.Flags().IntVar(&processesLimit, "limit", 200, "most rows to list")
	communitiesCmd.Flags().IntVar(&processesLimit, "limit", 200, "most rows to list")
	processCmd.Flags().BoolVar(&processMermaid, "mermaid", false, "print a mermaid flowchart")
	rootCmd.AddCommand(processesCmd, processCmd, communitiesCmd)
}

// Result cells as Go values.
var (
	str = graph.String
	num = graph.Int
	flt = graph.Float
)
