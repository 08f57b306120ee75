package cmd

import (
	"log/slog"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/graph"
)

// Exe is the gitnexus executable, set by main. analyze hands the database
// a re-analyze replaced (graph.BuildOptions.Retire) to `Exe
// remove-retired DIR`, a process of its own that the command does not
// wait for: removing a large file costs the page cache's pages of it
// (kubernetes: 0.2-0.3 s). "" (tests that run commands in process, where
// the executable is a test binary) removes it before analyze returns.
var Exe string

// removeRetiredCmd is analyze's background remover; not for users.
var removeRetiredCmd = &cobra.Command{
	Use:    "remove-retired DIR",
	Short:  "Remove a database that a re-analyze replaced (run by analyze itself)",
	Hidden: true,
	Args:   cobra.ExactArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		return graph.RemoveRetired(args[0])
	},
}

func init() {
	rootCmd.AddCommand(removeRetiredCmd)
}

// retireDetached is analyze's graph.BuildOptions.Retire: the retired
// directory goes to a detached `Exe remove-retired`, or is removed here
// when there is no Exe or the process cannot start. nil without Exe.
func retireDetached() func(dir string) {
	if Exe == "" {
		return nil
	}
	return func(dir string) {
		c := exec.Command(Exe, "remove-retired", dir)
		c.Env = childEnv()
		detach(c)
		if err := c.Start(); err != nil {
			slog.Debug("retired database removed in process", "err", err)
			removeRetired(dir)
			return
		}
		c.Process.Release()
	}
}

// retireConcurrently is analyze --watch's Retire: the process stays, so a
// goroutine removes the directory beside the next update.
func retireConcurrently(dir string) { go removeRetired(dir) }

// removeRetired removes a retired directory here, a failure a warning.
func removeRetired(dir string) {
	if err := graph.RemoveRetired(dir); err != nil {
		slog.Warn("could not remove the previous database", "err", err)
	}
}

// childEnv is this process's environment without the profiling variables
// (main's GITNEXUS_CPUPROFILE would have the child overwrite the profile).
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GITNEXUS_CPUPROFILE=") || strings.HasPrefix(kv, "GITNEXUS_HEAPPROFILE=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}
