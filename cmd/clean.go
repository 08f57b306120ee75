package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph"
)

var cleanAll bool

var cleanCmd = &cobra.Command{
	Use:   "clean [PATH]",
	Short: "Delete the index of a repository (or of every registered one with --all) and unregister it",
	Args:  cobra.MaximumNArgs(1),
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

func init() {
	cleanCmd.Flags().BoolVar(&cleanAll, "all", false, "clean every registered repository")
	rootCmd.AddCommand(cleanCmd)
}
