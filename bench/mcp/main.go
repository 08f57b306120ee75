// Command mcpbench measures an MCP server the way an agent uses it: the
// time from spawning it to a completed initialize handshake, the warm
// per-call latency of query, context and impact, and the server's resident
// memory before and after a long soak of calls. It speaks to any stdio MCP
// server with the reference tool's tool names, so gitnexus and the
// reference GitNexus are measured by the same client.
//
//	go run ./bench/mcp -label ours -repo prometheus -- bin/gitnexus mcp
//	go run ./bench/mcp -label peer -repo m7-prometheus -- gitnexus mcp
//
// See bench/mcp/README.md for the figures and how they were taken.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Workload: questions and symbols of the prometheus corpus (-corpus gin
// or -corpus linux switches to gin's or the kernel's).
var (
	queries = []string{"scrape target labels", "tsdb compaction", "rule evaluation", "remote write queue",
		"parse promql expression", "alertmanager notification", "kubernetes service discovery", "label matcher",
		"head block append", "query engine timeout", "config reload", "web api handler"}
	// qualifiers make the measured query calls distinct from one another
	// and from the warm-up: a server's result cache (ours has one) then
	// never answers them, and "query" measures searching. "query_cached"
	// repeats warm-up questions to measure the cache.
	qualifiers = []string{"error", "test", "config", "metrics", "storage", "http", "cache", "index", "timeout",
		"series", "options", "context", "client", "reader", "writer", "manager", "handler", "state", "limit", "batch"}
	symbols = []string{"LoadFile", "NewEngine", "NewFanout", "OpenDBReadOnly", "FromMap", "PopulateLabels",
		"ParseMetricSelector", "Intersect", "NewMergeSeriesSet", "RegisterConfig", "SanitizeLabelName",
		"AlertmanagerFromGroup", "MetricTextToWriteRequest", "NewDBStats", "NewBlockWriter"}
)

// ginQueries and ginSymbols are the workload on the gin corpus.
var (
	ginQueries = []string{"router group", "context json render", "recovery middleware", "binding validation",
		"static file server", "route tree lookup", "query string parameters", "multipart form upload",
		"html template render", "logger middleware", "redirect trailing slash", "basic auth"}
	ginSymbols = []string{"New", "Default", "ServeHTTP", "Use", "Group", "JSON", "Bind", "Recovery", "Logger",
		"Next", "Abort", "ShouldBindJSON", "Render", "LoadHTMLGlob", "Run"}
)

// linuxQueries and linuxSymbols are the workload on the Linux kernel
// (issue 16's figures: warm query, context of vfs_read, server RSS).
var (
	linuxQueries = []string{"read system call", "page cache writeback", "tcp congestion control", "block device request queue",
		"scheduler load balancing", "usb device enumeration", "ext4 journal commit", "memory cgroup reclaim",
		"network device transmit", "file descriptor table", "interrupt handler registration", "spinlock debugging"}
	linuxSymbols = []string{"vfs_read", "ksys_read", "kmalloc", "schedule", "copy_from_user", "tcp_sendmsg",
		"submit_bio", "mutex_lock", "alloc_pages", "do_sys_open", "netif_receive_skb", "ext4_file_write_iter",
		"request_irq", "wake_up_process", "kfree"}
)

type stats struct {
	N      int     `json:"n"`
	Errors int     `json:"errors"`
	P50    float64 `json:"p50_ms"`
	P95    float64 `json:"p95_ms"`
	Mean   float64 `json:"mean_ms"`
}

type report struct {
	Label      string           `json:"label"`
	Command    string           `json:"command"`
	Repo       string           `json:"repo"`
	Initialize stats            `json:"spawn_to_initialize"`
	Calls      map[string]stats `json:"warm_calls"`
	Soak       *soak            `json:"soak,omitempty"`
	FirstError string           `json:"first_error,omitempty"`
}

type soak struct {
	Calls     int     `json:"calls"`
	Errors    int     `json:"errors"`
	RSSStart  float64 `json:"rss_start_mb"`
	RSSEnd    float64 `json:"rss_end_mb"`
	RSSGrowth float64 `json:"rss_growth_mb"`
	Seconds   float64 `json:"seconds"`
	// FirstError is the first tool error of the soak, if any.
	FirstError string `json:"first_error,omitempty"`
	// Hostile calls (-hostile): raw lines the SDK client cannot send
	// (garbage, batches, odd ids, no "jsonrpc") and tool calls with bad
	// arguments, mixed into the soak; each must be refused with an answer
	// and the server must keep serving.
	Hostile         int    `json:"hostile,omitempty"`
	HostileRaw      int    `json:"hostile_raw_lines,omitempty"`
	HostileAnswered int    `json:"hostile_raw_answered,omitempty"`
	HostileWrong    int    `json:"hostile_wrong,omitempty"`
	FirstWrong      string `json:"first_wrong,omitempty"`
	ServerExited    bool   `json:"server_exited"`
}

func main() {
	label := flag.String("label", "server", "name of this run in the report")
	repo := flag.String("repo", "", "repo argument passed to every tool")
	spawns := flag.Int("spawns", 10, "spawn→initialize measurements")
	calls := flag.Int("calls", 100, "warm calls per tool")
	soakN := flag.Int("soak", 0, "calls in the memory soak (0: none)")
	out := flag.String("out", "", "write the JSON report here too")
	stderrPath := flag.String("stderr", "", "append the server's stderr to this file (default: discard)")
	corpus := flag.String("corpus", "prometheus", "workload: prometheus, gin or linux")
	hostileEvery := flag.Int("hostile", 0, "in the soak, make every Nth call a hostile one (0: none)")
	flag.Parse()
	switch *corpus {
	case "gin":
		queries, symbols = ginQueries, ginSymbols
	case "linux":
		queries, symbols = linuxQueries, linuxSymbols
	case "prometheus":
	default:
		log.Fatalf("-corpus %q: prometheus, gin or linux", *corpus)
	}
	argv := flag.Args()
	if *stderrPath != "" {
		f, err := os.OpenFile(*stderrPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		serverStderr = f
	}
	if len(argv) == 0 {
		log.Fatal("usage: mcpbench [flags] -- SERVER COMMAND...")
	}
	ctx := context.Background()
	rep := report{Label: *label, Command: strings.Join(argv, " "), Repo: *repo, Calls: map[string]stats{}}

	// 1. Spawn → initialize.
	var inits []float64
	for i := 0; i < *spawns; i++ {
		start := time.Now()
		cs, _, err := connect(ctx, argv)
		if err != nil {
			log.Fatalf("connect: %v", err)
		}
		inits = append(inits, ms(time.Since(start)))
		cs.Close()
	}
	rep.Initialize = summarize(inits, 0)

	// 2. Warm calls.
	var raw *rawLines
	var cs *sdk.ClientSession
	var cmd *exec.Cmd
	var err error
	if *hostileEvery > 0 && *soakN > 0 {
		cs, cmd, raw, err = connectRaw(ctx, argv)
	} else {
		cs, cmd, err = connect(ctx, argv)
	}
	if err != nil {
		log.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	args := func(tool string, i int) map[string]any {
		a := map[string]any{}
		if *repo != "" {
			a["repo"] = *repo
		}
		switch tool {
		case "query":
			a["search_query"] = queries[i%len(queries)] + " " + qualifiers[(i/len(queries))%len(qualifiers)]
		case "query_cached":
			a["search_query"] = queries[i%len(queries)]
		case "context":
			a["name"] = symbols[i%len(symbols)]
		case "impact":
			a["target"] = symbols[i%len(symbols)]
			a["direction"] = "upstream"
		}
		return a
	}
	for _, bench := range []string{"query", "query_cached", "context", "impact"} {
		tool := bench
		if bench == "query_cached" {
			tool = "query"
		}
		// Warm up: every question and symbol once (the measured "query"
		// calls ask other, qualified, questions).
		for i := 0; i < len(queries)+len(symbols); i++ {
			w := bench
			if bench == "query" {
				w = "query_cached"
			}
			callOnce(ctx, cs, tool, args(w, i))
		}
		var lat []float64
		errs := 0
		for i := 0; i < *calls; i++ {
			start := time.Now()
			msg := callOnce(ctx, cs, tool, args(bench, i))
			lat = append(lat, ms(time.Since(start)))
			if msg != "" {
				errs++
				if rep.FirstError == "" {
					rep.FirstError = tool + ": " + msg
				}
			}
		}
		rep.Calls[bench] = summarize(lat, errs)
	}

	// 3. Soak: memory before and after many calls.
	if *soakN > 0 {
		s := &soak{Calls: *soakN, RSSStart: rssMB(cmd.Process.Pid)}
		start := time.Now()
		tools := []string{"query", "context", "impact"}
		for i := 0; i < *soakN; i++ {
			if *hostileEvery > 0 && i%*hostileEvery == 0 {
				s.Hostile++
				if msg := hostileCall(ctx, cs, raw, *repo, s.Hostile); msg != "" {
					s.HostileWrong++
					if s.FirstWrong == "" {
						s.FirstWrong = fmt.Sprintf("call %d: %s", i, msg)
					}
				}
				continue
			}
			if msg := callOnce(ctx, cs, tools[i%3], args(tools[i%3], i/3)); msg != "" {
				s.Errors++
				if s.FirstError == "" {
					s.FirstError = fmt.Sprintf("call %d %s: %s", i, tools[i%3], msg)
				}
			}
		}
		if raw != nil {
			// Every raw hostile line must have been answered: a ping
			// after them is answered after their answers.
			callOnce(ctx, cs, "list_repos", map[string]any{})
			s.HostileAnswered = raw.answered()
			raw.mu.Lock()
			s.HostileRaw = raw.sent
			s.HostileWrong += raw.wrong
			if s.FirstWrong == "" && raw.first != "" {
				s.FirstWrong = "raw line answered wrongly: " + raw.first
			}
			raw.mu.Unlock()
		}
		s.Seconds = time.Since(start).Seconds()
		s.RSSEnd = rssMB(cmd.Process.Pid)
		s.RSSGrowth = s.RSSEnd - s.RSSStart
		s.ServerExited = exited(cmd.Process.Pid)
		rep.Soak = s
	}

	data, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(data))
	if *out != "" {
		if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Fprintf(os.Stderr, "%-6s spawn→initialize p50 %.0f ms | warm p50/p95 ms: query %.1f/%.1f (repeated: %.1f/%.1f)  context %.1f/%.1f  impact %.1f/%.1f",
		rep.Label, rep.Initialize.P50, rep.Calls["query"].P50, rep.Calls["query"].P95, rep.Calls["query_cached"].P50, rep.Calls["query_cached"].P95,
		rep.Calls["context"].P50, rep.Calls["context"].P95, rep.Calls["impact"].P50, rep.Calls["impact"].P95)
	if rep.Soak != nil {
		fmt.Fprintf(os.Stderr, " | soak %d calls: RSS %.0f → %.0f MB (%+.1f)", rep.Soak.Calls, rep.Soak.RSSStart, rep.Soak.RSSEnd, rep.Soak.RSSGrowth)
		if rep.Soak.Hostile > 0 {
			fmt.Fprintf(os.Stderr, ", %d hostile (%d raw lines, %d answered, %d answered wrongly), server exited: %v",
				rep.Soak.Hostile, rep.Soak.HostileRaw, rep.Soak.HostileAnswered, rep.Soak.HostileWrong, rep.Soak.ServerExited)
		}
	}
	fmt.Fprintln(os.Stderr)
	if rep.FirstError != "" {
		fmt.Fprintf(os.Stderr, "errors: %s\n", rep.FirstError)
	}
	for tool, st := range rep.Calls {
		if st.N > 0 && st.Errors == st.N {
			fmt.Fprintf(os.Stderr, "every %s call failed: the latencies measure errors, not answers\n", tool)
			os.Exit(1)
		}
	}
}

// serverStderr receives the server's stderr (nil: discarded).
var serverStderr *os.File

func connect(ctx context.Context, argv []string) (*sdk.ClientSession, *exec.Cmd, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if serverStderr != nil {
		cmd.Stderr = serverStderr
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	return cs, cmd, err
}

// callOnce calls a tool and returns "" or its error text.
func callOnce(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any) string {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err.Error()
	}
	if res.IsError {
		for _, c := range res.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				return t.Text
			}
		}
		return "tool error"
	}
	return ""
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func summarize(v []float64, errs int) stats {
	if len(v) == 0 {
		return stats{Errors: errs}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	pct := func(p float64) float64 { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return stats{N: len(s), Errors: errs, P50: pct(0.5), P95: pct(0.95), Mean: sum / float64(len(s))}
}

// rssMB is the resident memory of pid and its children (the reference
// tool's launcher may fork), in MiB, from /proc.
func rssMB(pid int) float64 {
	total := 0.0
	seen := map[int]bool{}
	var walk func(int)
	walk = func(p int) {
		if seen[p] {
			return
		}
		seen[p] = true
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "VmRSS:") {
				f := strings.Fields(line)
				if len(f) >= 2 {
					kb, _ := strconv.ParseFloat(f[1], 64)
					total += kb / 1024
				}
			}
		}
		kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", p, p))
		for _, k := range strings.Fields(string(kids)) {
			if c, err := strconv.Atoi(k); err == nil {
				walk(c)
			}
		}
	}
	walk(pid)
	return total
}
