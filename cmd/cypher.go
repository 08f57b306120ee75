package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/tools"
)

var (
	cypherIn     tools.CypherInput
	cypherParams string
)

var cypherCmd = &cobra.Command{
	Use:   `cypher "<statement>"`,
	Short: "Run a read-only Cypher statement against a repository's graph",
	Long: `cypher runs one read-only Cypher statement on the index and prints the result
as a table, or with --json what the MCP cypher tool returns
({"columns": [...], "rows": [[...], ...], "row_count": N, ...}).

` + tools.SchemaSummary() + ` Example:

  gitnexus cypher "MATCH (f:Function) WHERE f.name STARTS WITH 'Handle' RETURN f.name, f.filePath LIMIT 10"`,
	Args: cobra.ExactArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		in := cypherIn
		in.Statement = strings.TrimSpace(args[0])
		if cypherParams != "" {
			// Decoded as the MCP server decodes a tool's arguments (numbers
			// are float64), so the child it runs each cypher call in binds
			// the same values as the server would.
			if err := json.Unmarshal([]byte(cypherParams), &in.Params); err != nil {
				return Usage("--params must be a JSON object of placeholder values: %v", err)
			}
		}
		return runTool(c.Context(), in, onDB(tools.Cypher), printCypher)
	},
}

func printCypher(out *tools.CypherOutput) error {
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(out.Columns, "\t"))
	for _, row := range out.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = cell(v)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "(%d rows)\n", out.RowCount)
	printNotices(out.Notices)
	return nil
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

func init() {
	cypherCmd.Flags().StringVar(&cypherParams, "params", "", `values of $name placeholders as a JSON object, e.g. '{"name": "Save"}'`)
	cypherCmd.Flags().IntVar(&cypherIn.Limit, "limit", tools.DefaultCypherRows, fmt.Sprintf("most rows returned (max %d); more are cut with a notice", tools.MaxRows))
	rootCmd.AddCommand(cypherCmd)
}
