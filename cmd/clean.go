package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph"
)

var cleanAll, cleanYes bool

var cleanCmd = &cobra.Command{
	Use:   "clean [PATH]",
	Short: "Delete the index of a repository (or of every registered one with --all) and unregister it",
	Long: `clean deletes the index (.gitnexus/) of the repository at PATH, or of the one
containing the working directory, and removes it from the registry. --all
cleans every registered repository: on a terminal it asks first; scripts
(stdin not a terminal) must say --yes.`,
	Example: `  gitnexus clean
  gitnexus clean --all --yes`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		reg, err := graph.LoadRegistry()
		if err != nil {
			return err
		}
		var targets []graph.RepoEntry
		if cleanAll {
			if len(args) > 0 {
				return Usage("give either PATH or --all, not both")
			}
			targets = reg.List()
			if len(targets) > 0 && !cleanYes {
				if err := confirmCleanAll(targets); err != nil {
					return err
				}
			}
		} else {
			var p string
			if len(args) == 1 {
				p = args[0]
			}
			e, err := resolveRepo(p)
			if err != nil {
				return err
			}
			targets = []graph.RepoEntry{e}
		}
		type result struct {
			Name    string `json:"name"`
			Path    string `json:"path"`
			Removed bool   `json:"removed"`
			Error   string `json:"error,omitempty"`
		}
		var results []result
		failed := 0
		for _, e := range targets {
			r := result{Name: e.Name, Path: e.Path}
			if err := graph.RemoveIndex(e.Path); err != nil && !errors.Is(err, graph.ErrNoIndex) {
				r.Error = err.Error()
				failed++
			} else {
				r.Removed = err == nil
				if err := reg.Remove(e.Path); err != nil && !errors.Is(err, graph.ErrUnknownRepo) {
					r.Error = err.Error()
					failed++
				}
			}
			results = append(results, r)
		}
		if flagJSON {
			if err := printJSON(map[string]any{"cleaned": results}); err != nil {
				return err
			}
		} else {
			if len(results) == 0 {
				fmt.Println("Nothing to clean: no repositories registered.")
			}
			for _, r := range results {
				switch {
				case r.Error != "":
					fmt.Printf("%s: %s\n", r.Path, r.Error)
				case r.Removed:
					fmt.Printf("removed the index of %s (%s)\n", r.Name, r.Path)
				default:
					fmt.Printf("%s had no index; unregistered\n", r.Path)
				}
			}
		}
		if failed > 0 {
			return Fail(ExitError, "%d of %d could not be cleaned", failed, len(results))
		}
		return nil
	},
}

// confirmCleanAll asks on a terminal before --all deletes every index;
// without a terminal it refuses (say --yes).
func confirmCleanAll(targets []graph.RepoEntry) error {
	if !isTerminal(os.Stdin) {
		return Usage("clean --all deletes %d indexes: add --yes to confirm (stdin is not a terminal to ask on)", len(targets))
	}
	fmt.Fprintf(os.Stderr, "This deletes the index of %d repositories:\n", len(targets))
	for _, e := range targets {
		fmt.Fprintf(os.Stderr, "  %s  %s\n", e.Name, e.Path)
	}
	fmt.Fprint(os.Stderr, "Delete them all? [y/N] ")
	answer, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return Fail(ExitError, "clean --all cancelled: nothing deleted")
}

func init() {
	cleanCmd.Flags().BoolVar(&cleanAll, "all", false, "clean every registered repository (asks first on a terminal)")
	cleanCmd.Flags().BoolVarP(&cleanYes, "yes", "y", false, "do not ask: --all deletes without confirmation")
	rootCmd.AddCommand(cleanCmd)
}
