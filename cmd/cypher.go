package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
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
	Example: `  gitnexus cypher "MATCH (f:Function) RETURN f.name, f.filePath LIMIT 5"
  gitnexus cypher "MATCH (a)-[c:CALLS]->(b {name: $n}) RETURN a, c.reason" --params '{"n": "Save"}'`,
	Args: argsNamed("STATEMENT"),
	RunE: func(c *cobra.Command, args []string) error {
		in := cypherIn
		in.Statement = strings.TrimSpace(args[0])
		if cypherParams != "" {
			// Decoded as the MCP server decodes a tool's arguments (numbers
			// are float64), so the child it runs each cypher call in binds
			// the same values as the server would.
			if err := json.Unmarshal([]byte(cypherParams), &in.Params); err != nil {
				var te *json.UnmarshalTypeError
				if errors.As(err, &te) {
					return Usage(`--params must be a JSON object of placeholder values, e.g. '{"name": "Save"}' (got a JSON %s)`, te.Value)
				}
				return Usage(`--params must be a JSON object of placeholder values, e.g. '{"name": "Save"}': %v`, err)
			}
		}
		if err := checkRange("--limit", in.Limit, 1, tools.MaxRows); err != nil {
			return err
		}
		return runTool(c.Context(), in, onDB(tools.Cypher), printCypher)
	},
}

func printCypher(out *tools.CypherOutput) error {
	scr := stdout()
	fw := &fitWriter{s: scr}
	defer fw.Flush()
	tw := tabwriter.NewWriter(fw, 0, 4, 2, ' ', 0)
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

// fitWriter passes whole lines to a screen (which cuts them to its
// width), holding a partial line until its newline comes; Flush prints
// what is left.
type fitWriter struct {
	s       *screen
	partial string
}

func (f *fitWriter) Write(p []byte) (int, error) {
	text := f.partial + string(p)
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		f.s.line(text[:i])
		text = text[i+1:]
	}
	f.partial = text
	return len(p), nil
}

// Flush prints a last line that had no newline.
func (f *fitWriter) Flush() {
	if f.partial != "" {
		f.s.line(f.partial)
		f.partial = ""
	}
}

// cell renders one value on one line: nodes as (:Label {id: …, name: …}),
// relationships as [:TYPE {…}], lists as [a, b], no Go syntax.
func cell(v any) string {
	s := value(v)
	s = strings.ReplaceAll(s, "\n", `\n`)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// nodeKeysFirst are the properties a node or relationship shows first.
var nodeKeysFirst = []string{"id", "name", "kind", "filePath", "startLine", "label", "reason", "confidence", "step", "line"}

// nodeKeysHidden are internal or bulky properties left out of a cell.
var nodeKeysHidden = map[string]bool{"_id": true, "_label": true, "_src": true, "_dst": true, "searchText": true, "contentHash": true}

func value(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = value(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		var keys []string
		for _, k := range nodeKeysFirst {
			if e, ok := x[k]; ok && e != nil && e != "" {
				keys = append(keys, k)
			}
		}
		for _, k := range sortedKeys(x) {
			if e := x[k]; !nodeKeysHidden[k] && !slices.Contains(nodeKeysFirst, k) && e != nil && e != "" && e != false {
				keys = append(keys, k)
			}
		}
		props := make([]string, len(keys))
		for i, k := range keys {
			props[i] = k + ": " + value(x[k])
		}
		body := "{" + strings.Join(props, ", ") + "}"
		label, _ := x["_label"].(string)
		switch {
		case label == "":
			return body
		case x["_src"] != nil:
			return "[:" + label + " " + body + "]"
		}
		return "(:" + label + " " + body + ")"
	}
	return fmt.Sprint(v)
}

func init() {
	budgetFlag(cypherCmd.Flags(), &cypherIn.Budget)
	cypherCmd.Flags().StringVar(&cypherParams, "params", "", `values of $name placeholders as a JSON object, e.g. '{"name": "Save"}'`)
	cypherCmd.Flags().IntVarP(&cypherIn.Limit, "limit", "n", tools.DefaultCypherRows, fmt.Sprintf("most rows returned (max %d); more are cut with a notice", tools.MaxRows))
	rootCmd.AddCommand(cypherCmd)
}
