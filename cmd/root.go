// Package cmd holds the cobra commands of the gitnexus binary. Commands are
// thin: they parse flags, call into ingest, graph, embed, processes, query,
// tools or mcp, and print. The commands that answer a question about an
// index (context, impact, trace, detect-changes, cypher, processes,
// process, communities) are one generic runner over package tools
// (runTool), so their --json is the tools' JSON, the MCP server's answer.
// Each command lives in its own file and adds itself to the root in an init
// function.
//
// Conventions every command follows:
//   - --json prints exactly one JSON object on stdout, keys in snake_case
//     (but the reference location fields filePath, startLine, endLine);
//     logs and progress go to stderr.
//   - A command acts on the indexed repo containing the working directory
//     unless -r NAME|PATH says otherwise.
//   - One flag vocabulary (vocab.go): -n/--limit, --depth, NAME or --uid,
//     --file, --kind lists; enum values are checked and the allowed ones
//     listed; tool messages are put in CLI words (cliText).
//   - Exit codes: see the Exit constants. Nothing found and ambiguous
//     (candidates printed) are ExitNotFound; the answer stays printed
//     (Error.Answered).
//   - Text output goes through a screen (term.go): cut to the terminal's
//     width with "…", messages word-wrapped, colour unless NO_COLOR.
package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/gitnexus/gitnexus/tools"
	"github.com/spf13/cobra"
)

// Version is the tool version, set at build time with -ldflags
// "-X github.com/gitnexus/gitnexus/cmd.Version=...".
var Version = "dev"

// Exit codes. Scripts rely on them.
const (
	ExitOK          = 0   // success
	ExitError       = 1   // the command failed (I/O, database, internal error)
	ExitUsage       = 2   // bad flags or arguments
	ExitNotFound    = 3   // nothing found: no index, unknown repo, no match, no path; or several matches (candidates listed)
	ExitLocked      = 4   // another analyze holds the repo's lock
	ExitInterrupted = 130 // Ctrl-C or SIGTERM
)

// Global flags, shared by every command.
var (
	flagJSON    bool
	flagRepo    string
	flagVerbose bool
	flagQuiet   bool
)

var rootCmd = &cobra.Command{
	Use:   "gitnexus",
	Short: "Code knowledge graph: index a repository, then search it by meaning and by flow",
	Long: `gitnexus indexes a repository into an embedded graph database (files, symbols,
imports, calls, inheritance, communities and execution flows) and answers
questions about it from the terminal or, for coding agents, over MCP.

Start with:  gitnexus analyze .   then:  gitnexus query "what you are looking for"`,
	SilenceUsage:  true,
	SilenceErrors: true,
	PersistentPreRun: func(cmd *cobra.Command, args []string) {
		level := slog.LevelWarn
		if flagVerbose {
			level = slog.LevelDebug
		}
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	},
}

func init() {
	pf := rootCmd.PersistentFlags()
	pf.BoolVar(&flagJSON, "json", false, "print one JSON object on stdout (logs stay on stderr)")
	pf.StringVarP(&flagRepo, "repo", "r", "", "indexed repository to act on: registered NAME or PATH (default: the one containing the working directory)")
	pf.BoolVarP(&flagVerbose, "verbose", "v", false, "debug logging on stderr")
	pf.BoolVarP(&flagQuiet, "quiet", "q", false, "no progress output")
	rootCmd.Version = Version
	rootCmd.SetFlagErrorFunc(flagError)
}

// Error is an error with an exit code. Commands return it (via Fail) when
// the code should be other than ExitError.
type Error struct {
	Code int
	Err  error
	// Answered: the command printed its answer (with --json, the one JSON
	// object) before failing, e.g. the candidates of an ambiguous name:
	// it says why, so nothing more is printed.
	Answered bool
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Fail wraps err with an exit code.
func Fail(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// OneShot reports whether args (os.Args[1:]) run a command that answers
// one question and exits: a search, a graph lookup, a listing. Its heap is
// what it reads plus the answer, all of it live to the end, so a garbage
// collection would only scan it; main turns the collector off for these
// (measured on prometheus: keyword query p50 32.9 → 23.2 ms). analyze, mcp
// and the model commands are not one-shot: their heaps churn.
func OneShot(args []string) bool {
	c, _, err := rootCmd.Find(args)
	if err != nil || c == nil {
		return false
	}
	switch c.Name() {
	case "query", "context", "impact", "trace", "detect-changes", "cypher",
		"processes", "process", "communities", "community", "status", "list":
		return true
	}
	return false
}

// Server reports whether args run the MCP server: a long-lived process
// whose heap is mostly what it keeps (the search packs of the indexes it
// has open, and the tables its tools decode from them) plus each call's
// garbage. main has its collector run when the heap has grown by a
// quarter over what was live (GOGC=25) rather than doubled: with the
// Linux kernel open, RSS 2.3–2.7 GB under the default, 1.8 GB with it.
func Server(args []string) bool {
	c, _, err := rootCmd.Find(args)
	return err == nil && c != nil && c.Name() == "mcp"
}

// Execute runs the root command and returns the process exit code.
func Execute() int {
	rootCmd.Version = Version
	registerCompletions()
	cmd, err := rootCmd.ExecuteC()
	if err == nil {
		return ExitOK
	}
	code := ExitError
	var ce *Error
	if errors.As(err, &ce) {
		code = ce.Code
	} else if cmd != nil && isUsageError(err) {
		code = ExitUsage
	}
	reportError(err, code)
	if code == ExitUsage && cmd != nil {
		fmt.Fprintf(os.Stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// reportError prints a failed command's error: as {"error", "code"} on
// stdout with --json, and always as one line on stderr; an error whose
// answer was printed (Error.Answered) adds nothing.
func reportError(err error, code int) {
	var ce *Error
	if errors.As(err, &ce) && ce.Answered {
		return // the answer printed says it: candidates, "no matches", "no path"
	}
	msg := cliText(err.Error())
	if flagJSON {
		writeJSON(os.Stdout, map[string]any{"error": msg, "code": code})
	}
	newScreen(os.Stderr).message("gitnexus: " + msg)
}

// isUsageError recognizes cobra's own flag and argument errors.
func isUsageError(err error) bool {
	var ue *usageError
	if errors.As(err, &ue) {
		return true
	}
	msg := err.Error()
	for _, p := range []string{"unknown flag", "unknown command", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

// Usage returns an error that exits with ExitUsage.
func Usage(format string, args ...any) error {
	return &Error{Code: ExitUsage, Err: &usageError{fmt.Sprintf(format, args...)}}
}

// writeJSON prints v as one indented JSON object.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printAnswer prints a tool's output as the MCP server returns it
// (tools.Answer: null arrays as [], other nulls left out).
func printAnswer(out any) error {
	v, err := tools.Answer(out)
	if err != nil {
		return err
	}
	return printJSON(v)
}

// printJSON is what commands call for --json output.
func printJSON(v any) error { return writeJSON(os.Stdout, v) }
