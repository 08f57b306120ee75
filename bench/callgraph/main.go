// Command callgraph is the call-graph accuracy harness: it computes a
// reference call graph of a Go module with golang.org/x/tools (oracle) and
// scores the CALLS edges of code-graph tools against it (compare).
//
//	callgraph oracle -o gin.oracle.json DIR
//	callgraph compare -oracle gin.oracle.json -tool ours=ours.json -tool peer:0=peer.json
//
// See README.md for the method and its limits.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gitnexus/gitnexus/bench/callgraph/compare"
	"github.com/gitnexus/gitnexus/bench/callgraph/oracle"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "callgraph:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

const usage = `usage:
  callgraph oracle [-o FILE] MODULE_DIR
  callgraph compare -oracle FILE -tool NAME[:LINEBASE]=CYPHER_JSON ... [-min-confidence X] [-curve] [-misses N]`

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{usage}
	}
	switch args[0] {
	case "oracle":
		return runOracle(ctx, args[1:], stdout)
	case "compare":
		return runCompare(args[1:], stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown subcommand %q\n%s", args[0], usage)}
}

func runOracle(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("oracle", flag.ContinueOnError)
	out := fs.String("o", "", "write the oracle graph JSON to this file (default stdout)")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return usageError{"oracle: want one MODULE_DIR\n" + usage}
	}
	g, err := oracle.Build(ctx, fs.Arg(0), oracle.Options{})
	if err != nil {
		return err
	}
	if *out == "" {
		return g.Write(stdout)
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".oracle-*.json")
	if err != nil {
		return fmt.Errorf("oracle: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := g.Write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("oracle: %w", err)
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return fmt.Errorf("oracle: %w", err)
	}
	return nil
}

// toolSpec is one -tool flag: NAME[:LINEBASE]=FILE.
type toolSpec struct {
	name     string
	lineBase int
	file     string
}

type toolFlags []toolSpec

func (t *toolFlags) String() string { return fmt.Sprint(*t) }

func (t *toolFlags) Set(v string) error {
	name, file, ok := strings.Cut(v, "=")
	if !ok || name == "" || file == "" {
		return fmt.Errorf("want NAME[:LINEBASE]=FILE, got %q", v)
	}
	spec := toolSpec{name: name, lineBase: 1, file: file}
	if n, base, ok := strings.Cut(name, ":"); ok {
		b, err := strconv.Atoi(base)
		if err != nil || (b != 0 && b != 1) {
			return fmt.Errorf("line base in %q must be 0 or 1", v)
		}
		spec.name, spec.lineBase = n, b
	}
	*t = append(*t, spec)
	return nil
}

func runCompare(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	oraclePath := fs.String("oracle", "", "oracle graph JSON written by `callgraph oracle`")
	var tools toolFlags
	fs.Var(&tools, "tool", "NAME[:LINEBASE]=FILE: a tool's cypher output (caller file, caller line, callee file, callee line[, confidence[, reason]]); LINEBASE is 1 (default) or 0; repeatable")
	minConf := fs.Float64("min-confidence", 0, "score only edges with at least this confidence")
	curve := fs.Bool("curve", false, "also print precision and recall at every confidence threshold")
	examples := fs.Int("misses", 15, "print this many missed and wrong edges per tool")
	asJSON := fs.Bool("json", false, "print the scores as one JSON object instead of the report")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *oraclePath == "" || len(tools) == 0 || fs.NArg() != 0 {
		return usageError{"compare: want -oracle FILE and at least one -tool\n" + usage}
	}
	g, err := oracle.ReadFile(*oraclePath)
	if err != nil {
		return err
	}
	o := compare.NewOracle(g)
	var scores []compare.Score
	var curves [][]compare.Score
	for _, t := range tools {
		f, err := os.Open(t.file)
		if err != nil {
			return fmt.Errorf("compare: tool %s: %w", t.name, err)
		}
		edges, err := compare.ReadCypher(f, t.lineBase)
		f.Close()
		if err != nil {
			return fmt.Errorf("compare: tool %s (%s): %w", t.name, t.file, err)
		}
		scores = append(scores, compare.Compute(o, t.name, edges, *minConf))
		if *curve {
			curves = append(curves, compare.Curve(o, t.name, edges))
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Module    string            `json:"module"`
			Functions int               `json:"functions"`
			Static    int               `json:"static"`
			CHA       int               `json:"cha"`
			Scores    []compare.Score   `json:"scores"`
			Curves    [][]compare.Score `json:"curves,omitempty"`
		}{g.Module, len(g.Funcs), len(g.Static), len(g.CHA), scores, curves})
	}
	if err := compare.WriteReport(stdout, o, scores, *examples); err != nil {
		return err
	}
	for _, c := range curves {
		fmt.Fprintln(stdout)
		if err := compare.WriteCurve(stdout, c); err != nil {
			return err
		}
	}
	return nil
}
