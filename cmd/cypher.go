package cmd

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

var cypherCmd = &cobra.Command{
	Use:   `cypher "<statement>"`,
	Short: "Run a read-only Cypher statement against a repository's graph",
	Long: `cypher runs one read-only Cypher statement on the index and prints the result
as a table, or with --json as {"columns": [...], "rows": [[...], ...]}.

Tables: File, Folder, Function, Class, Method, Interface, Community, Process;
relationships: CONTAINS, DEFINES, HAS_METHOD, IMPORTS, CALLS, EXTENDS,
IMPLEMENTS, MEMBER_OF, STEP_IN_PROCESS. Example:

  gitnexus cypher "MATCH (f:Function) WHERE f.name STARTS WITH 'Handle' RETURN f.name, f.filePath LIMIT 10"`,
	Args: cobra.ExactArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		stmt := strings.TrimSpace(args[0])
		if stmt == "" {
			return Usage("empty statement: give a Cypher query, e.g. \"MATCH (n:Function) RETURN n.name LIMIT 5\"")
		}
		db, err := openRepo(c.Context())
		if err != nil {
			return err
		}
		defer db.Close()
		res, err := db.Query(c.Context(), stmt, nil)
		if err != nil {
			return Fail(ExitUsage, "%v", err)
		}
		if flagJSON {
			return printJSON(res)
		}
		tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(res.Columns, "\t"))
		for _, row := range res.Rows {
			cells := make([]string, len(row))
			for i, v := range row {
				cells[i] = cell(v)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "(%d rows)\n", len(res.Rows))
		return nil
	},
}

// cell renders one value on one line.
func cell(v any) string {
	if v == nil {
		return "NULL"
	}
	s := fmt.Sprint(v)
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func init() { rootCmd.AddCommand(cypherCmd) }
