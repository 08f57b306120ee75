package cmd

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph/schema"
)

var versionCmd = &cobra.Command{
	Use:     "version",
	Short:   "Print the gitnexus version, the index schema it reads, and the Go runtime",
	Example: `  gitnexus version --json`,
	Args:    cobra.NoArgs,
	RunE: func(c *cobra.Command, args []string) error {
		v := struct {
			Version       string `json:"version"`
			SchemaVersion int    `json:"schema_version"`
			Go            string `json:"go"`
			Platform      string `json:"platform"`
		}{Version, schema.Version, runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH}
		if flagJSON {
			return printJSON(v)
		}
		fmt.Printf("gitnexus %s (index schema v%d, %s, %s)\n", v.Version, v.SchemaVersion, v.Go, v.Platform)
		return nil
	},
}

func init() { rootCmd.AddCommand(versionCmd) }
