package cmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitnexus/gitnexus/mcp"
	"github.com/gitnexus/gitnexus/setup"
)

var setupFlags struct {
	uninstall bool
	dryRun    bool
	clients   []string
	project   bool
	guidance  bool
}

var setupCmd = &cobra.Command{
	Use:   "setup [DIR]",
	Short: "Configure the MCP clients installed for you (Claude Code, Cursor, VS Code, Codex, ...) to use gitnexus",
	Long: `setup adds a "gitnexus" MCP server, started as "<this binary> mcp", to the
config of every MCP client installed for you: ` + strings.Join(setup.ClientNames(), ", ") + `.
A client counts as installed when its config directory exists or its
executable is on PATH; --client NAME (repeatable, or comma-separated)
picks clients whether or not they look installed.

Each file is edited in place: only the "gitnexus" entry changes, every
other byte (comments, trailing commas, order) stays. The previous file is
kept as FILE.gitnexus-backup and the new one written atomically. Running
setup again changes nothing; --uninstall removes the entry; --dry-run
prints the diff and writes nothing.

--project writes the repository's own config files instead (.mcp.json,
.cursor/mcp.json, .vscode/mcp.json, .codex/config.toml,
.gemini/settings.json, opencode.json, .zed/settings.json) in DIR's git
root (default: the working directory's). --guidance also writes a block
telling agents when to use which tool into the repository's AGENTS.md
and CLAUDE.md (whichever exist; AGENTS.md when neither does), rewritten
in place on later runs.`,
	Example: `  gitnexus setup --dry-run
  gitnexus setup --client cursor,codex
  gitnexus setup --project --guidance`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(c *cobra.Command, args []string) error {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("setup: where is this binary: %w", err)
		}
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		dir := "."
		if len(args) == 1 {
			dir = args[0]
		}
		root := ""
		if setupFlags.project || setupFlags.guidance {
			if root, err = repoRoot(dir); err != nil {
				return err
			}
		} else if len(args) == 1 {
			return Usage("DIR needs --project or --guidance")
		}
		opts := setup.Options{Env: setup.DefaultEnv(), Clients: setupFlags.clients, Command: exe, Args: []string{"mcp"},
			Uninstall: setupFlags.uninstall, DryRun: setupFlags.dryRun}
		if setupFlags.project {
			opts.Project = root
		}
		results, err := setup.Run(c.Context(), opts)
		if errors.Is(err, setup.ErrUnknownClient) {
			return Usage("%v", err)
		}
		if err != nil {
			return err
		}
		if setupFlags.guidance {
			srv := mcp.New(mcp.Options{Version: Version})
			names := srv.ToolNames()
			srv.Close()
			g, err := setup.Guidance(root, names, setupFlags.uninstall, setupFlags.dryRun)
			if err != nil {
				return err
			}
			results = append(results, g...)
		}
		failed := 0
		for _, r := range results {
			if r.Action == setup.Failed {
				failed++
			}
		}
		if flagJSON {
			if err := writeJSON(os.Stdout, map[string]any{"dry_run": setupFlags.dryRun, "command": exe, "results": results}); err != nil {
				return err
			}
		} else {
			printSetup(results)
			for _, r := range results {
				if !setupFlags.dryRun && r.Client != "guidance" && (r.Action == setup.Added || r.Action == setup.Updated || r.Action == setup.Removed) {
					fmt.Fprintln(os.Stderr, "gitnexus setup: restart the clients changed above to pick up the change")
					break
				}
			}
		}
		if failed > 0 {
			return Fail(ExitError, "setup: %d of %d files could not be edited (see above)", failed, len(results))
		}
		return nil
	},
}

func printSetup(results []setup.Result) {
	verb := map[setup.Action]string{}
	if setupFlags.dryRun {
		verb = map[setup.Action]string{setup.Added: "would add", setup.Updated: "would update", setup.Removed: "would remove"}
	}
	for _, r := range results {
		action := string(r.Action)
		if v, ok := verb[r.Action]; ok {
			action = v
		}
		line := fmt.Sprintf("%-15s %-13s %s", r.Client, action, r.Path)
		if r.Backup != "" {
			line += "  (previous file: " + r.Backup + ")"
		}
		if r.Note != "" {
			line += "  " + r.Note
		}
		fmt.Println(strings.TrimRight(line, " "))
		if setupFlags.dryRun && r.Diff != "" {
			fmt.Print(r.Diff)
		}
	}
}

// repoRoot is the git top level of dir, else dir itself (absolute).
func repoRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", Usage("%s is not a directory", dir)
	}
	out, err := exec.Command("git", "-C", abs, "rev-parse", "--show-toplevel").Output()
	if err == nil {
		if top := strings.TrimSpace(string(out)); top != "" {
			return top, nil
		}
	}
	return abs, nil
}

func init() {
	f := setupCmd.Flags()
	f.BoolVar(&setupFlags.uninstall, "uninstall", false, "remove the gitnexus entry (and, with --guidance, the guidance block)")
	f.BoolVar(&setupFlags.dryRun, "dry-run", false, "print what would change, as a diff; write nothing")
	f.StringSliceVar(&setupFlags.clients, "client", nil, "configure only these clients ("+strings.Join(setup.ClientNames(), ", ")+")")
	f.BoolVar(&setupFlags.project, "project", false, "write the repository's project-level config files instead of the user's")
	f.BoolVar(&setupFlags.guidance, "guidance", false, "also write the agent-guidance block into the repository's AGENTS.md / CLAUDE.md")
	rootCmd.AddCommand(setupCmd)
}
