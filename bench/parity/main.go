// Command parity checks the promise that `gitnexus query --json` prints
// what the MCP query tool returns: it runs 100 queries (the labeled
// queries of a corpus, each with several variants: mode, filters, limits,
// task_context/goal) through the CLI and through the MCP server over
// stdio, and counts the answers with identical ranked ids and identical
// JSON. It also compares `gitnexus processes --json` with the server's
// processes resource, and `process ID --json` with the process resource.
//
//	go run ./bench/parity -bin bin/gitnexus -repo qcli-prom -out bench/results/parity-DATE.txt
//
// The repository must be indexed and registered in $GITNEXUS_HOME (both
// sides read the same index). The exit status is 1 when any answer
// differs.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// labeledFile is query/testdata/labeled.json's shape (the fields used).
type labeledFile struct {
	Queries []struct {
		Corpus string `json:"corpus"`
		Query  string `json:"query"`
	} `json:"queries"`
}

// variant is one way of asking: CLI flags and the same input as tool
// arguments.
type variant struct {
	name string
	cli  []string
	args map[string]any
}

// variants are applied to the labeled queries; ctx is another labeled
// query, used as task_context.
func variants(ctx string) []variant {
	return []variant{
		{"plain", nil, map[string]any{}},
		{"keyword", []string{"--mode", "keyword"}, map[string]any{"mode": "keyword"}},
		{"kind function,method", []string{"--kind", "function,method"}, map[string]any{"kind": []string{"function", "method"}}},
		{"lang go", []string{"--lang", "go"}, map[string]any{"lang": []string{"go"}}},
		{"n3 flows2", []string{"-n", "3", "--flows", "2"}, map[string]any{"max_symbols": 3, "limit": 2}},
		{"n25 flows10", []string{"-n", "25", "--flows", "10"}, map[string]any{"max_symbols": 25, "limit": 10}},
		{"task_context", []string{"--task-context", ctx}, map[string]any{"task_context": ctx}},
		{"task_context+goal", []string{"--task-context", ctx, "--goal", "find the implementation"}, map[string]any{"task_context": ctx, "goal": "find the implementation"}},
		{"path tsdb/", []string{"--path", "tsdb/"}, map[string]any{"path": "tsdb/"}},
		{"min_score 0.3", []string{"--min-score", "0.3"}, map[string]any{"min_score": 0.3}},
		{"files", []string{"--files"}, map[string]any{"include_files": true}},
		{"kind struct,interface name *e*", []string{"--kind", "struct,interface", "--name", "*e*"}, map[string]any{"kind": []string{"struct", "interface"}, "name": "*e*"}},
	}
}

func main() {
	bin := flag.String("bin", "bin/gitnexus", "gitnexus binary (CLI and, with `mcp`, the server)")
	repo := flag.String("repo", "", "registered repository name (as -r and as the tools' repo)")
	corpus := flag.String("corpus", "prometheus", "corpus whose labeled queries are asked")
	labeled := flag.String("labeled", "query/testdata/labeled.json", "labeled queries")
	n := flag.Int("n", 100, "queries to run")
	outPath := flag.String("out", "", "also write the report here")
	flag.Parse()
	if *repo == "" {
		log.Fatal("parity: -repo is required (a registered repository name)")
	}
	var lf labeledFile
	b, err := os.ReadFile(*labeled)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, &lf); err != nil {
		log.Fatalf("%s: %v", *labeled, err)
	}
	var qs []string
	for _, q := range lf.Queries {
		if q.Corpus == *corpus {
			qs = append(qs, q.Query)
		}
	}
	if len(qs) == 0 {
		log.Fatalf("parity: no labeled query of corpus %q", *corpus)
	}

	ctx := context.Background()
	cmd := exec.Command(*bin, "mcp")
	cmd.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "parity", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		log.Fatalf("parity: start %s mcp: %v", *bin, err)
	}
	defer cs.Close()

	var rep strings.Builder
	out := io.MultiWriter(os.Stdout, &rep)
	fmt.Fprintf(out, "parity: %d queries on %s (%s labeled queries x variants), CLI `%s query --json` vs MCP query tool over stdio\n", *n, *repo, *corpus, *bin)
	nv := len(variants(""))
	sameIDs, sameJSON, nonEmpty, failed := 0, 0, 0, 0
	for i := 0; i < *n; i++ {
		// Pairs (i mod len(qs), 7i mod len(variants)) are distinct for
		// i < len(qs)*len(variants) when 7 is prime to len(variants).
		q := qs[i%len(qs)]
		v := variants(qs[(i+1)%len(qs)])[(7*i)%nv]
		cliOut, cliErr := runCLI(*bin, append(append([]string{"query", "--json", "-r", *repo}, v.cli...), q)...)
		args := map[string]any{"search_query": q, "repo": *repo}
		for k, x := range v.args {
			args[k] = x
		}
		toolOut, toolErr := callTool(ctx, cs, "query", args)
		if cliErr != nil || toolErr != nil {
			failed++
			fmt.Fprintf(out, "FAIL %3d %-40q %-32s cli error: %v; tool error: %v\n", i+1, q, v.name, cliErr, toolErr)
			continue
		}
		a, b := rankedIDs(cliOut), rankedIDs(toolOut)
		ids := slices.Equal(a, b)
		whole := reflect.DeepEqual(cliOut, toolOut)
		if ids {
			sameIDs++
		}
		if whole {
			sameJSON++
		}
		if len(a) > 0 {
			nonEmpty++
		}
		mark := "ok  "
		if !ids || !whole {
			mark = "DIFF"
		}
		fmt.Fprintf(out, "%s %3d %-40q %-32s %3d ids, same ids %v, same JSON %v\n", mark, i+1, q, v.name, len(a), ids, whole)
		if !ids {
			fmt.Fprintf(out, "     cli:  %v\n     tool: %v\n", a, b)
		}
	}
	fmt.Fprintf(out, "\nquery: identical ranked ids %d/%d, identical JSON %d/%d, non-empty answers %d, errors %d\n", sameIDs, *n, sameJSON, *n, nonEmpty, failed)

	// The listings the server gives as resources.
	procOK := true
	procs, err := runCLI(*bin, "processes", "--json", "-r", *repo)
	if err != nil {
		log.Fatalf("parity: processes: %v", err)
	}
	res, err := readResource(ctx, cs, "gitnexus://repo/"+*repo+"/processes")
	if err != nil {
		log.Fatalf("parity: processes resource: %v", err)
	}
	list, _ := procs["processes"].([]any)
	same := reflect.DeepEqual(procs, res)
	procOK = procOK && same && len(list) > 0
	fmt.Fprintf(out, "processes --json vs gitnexus://repo/%s/processes: %d processes (total %v), identical %v\n", *repo, len(list), procs["total"], same)
	if len(list) > 0 {
		id, _ := list[0].(map[string]any)["id"].(string)
		one, err := runCLI(*bin, "process", id, "--json", "-r", *repo)
		if err != nil {
			log.Fatalf("parity: process %s: %v", id, err)
		}
		r, err := readResource(ctx, cs, "gitnexus://repo/"+*repo+"/process/"+id)
		if err != nil {
			log.Fatalf("parity: process resource: %v", err)
		}
		same := reflect.DeepEqual(one, r)
		procOK = procOK && same
		fmt.Fprintf(out, "process %s --json vs gitnexus://repo/%s/process/%s: identical %v\n", id, *repo, id, same)
	}

	if *outPath != "" {
		if err := os.WriteFile(*outPath, []byte(rep.String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if sameIDs != *n || sameJSON != *n || !procOK {
		os.Exit(1)
	}
}

// rankedIDs lists an answer's ids in rank order: processes, then each
// process symbol with its process, then definitions.
func rankedIDs(r map[string]any) []string {
	var ids []string
	list := func(k string) []map[string]any {
		var out []map[string]any
		l, _ := r[k].([]any)
		for _, x := range l {
			if m, ok := x.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	for _, p := range list("processes") {
		ids = append(ids, fmt.Sprintf("P:%v", p["id"]))
	}
	for _, s := range list("process_symbols") {
		ids = append(ids, fmt.Sprintf("S:%v/%v", s["process_id"], s["id"]))
	}
	for _, d := range list("definitions") {
		ids = append(ids, fmt.Sprintf("D:%v", d["id"]))
	}
	return ids
}

// runCLI runs the CLI and decodes its one JSON object.
func runCLI(bin string, args ...string) (map[string]any, error) {
	c := exec.Command(bin, args...)
	var stderr strings.Builder
	c.Stderr = &stderr
	b, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w: %s", bin, args, err, strings.TrimSpace(stderr.String()))
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%s %v: %w", bin, args, err)
	}
	return v, nil
}

// callTool calls a tool and decodes its structured output.
func callTool(ctx context.Context, cs *sdk.ClientSession, name string, args map[string]any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
		return nil, fmt.Errorf("tool error: %s", b.String())
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	return v, json.Unmarshal(raw, &v)
}

// readResource reads a resource and decodes its JSON text.
func readResource(ctx context.Context, cs *sdk.ClientSession, uri string) (map[string]any, error) {
	r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, err
	}
	if len(r.Contents) == 0 {
		return nil, fmt.Errorf("%s: no contents", uri)
	}
	var v map[string]any
	return v, json.Unmarshal([]byte(r.Contents[0].Text), &v)
}
