// Command bench times the embedding step on a corpus's symbols: tokenize,
// chunk, batch, run ONNX Runtime, pool (the pipeline, through
// embed.Embedder.EmbedTokenIDs), against raw ORT runs of the very same
// batches (inputs prepared ahead, only Run timed, in a second session with
// the same options). The issue asks the pipeline to reach >= 90% of raw
// ORT throughput.
//
// It is a tool, not a test. Typical use, with a random-weight model of the
// real shape (never committed):
//
//	/usr/bin/python3 embed/testdata/gen_fixture.py --full /tmp/bench-full.onnx
//	go run ./embed/bench -model /tmp/bench-full.onnx -corpus ~/.cache/gitnexus-corpora/prometheus -max 400
//
// The machine is shared, so a single pipeline-then-raw comparison mostly
// measures who else was running. The tool therefore interleaves the two
// (round 1 pipeline first, round 2 raw first, ...), reports every round,
// the median of the per-round ratios and the best rounds, the process's
// CPU seconds, and the CPU seconds other processes used on the machine
// during each measurement (from /proc/stat): a round in which others used
// a core says so.
//
// Two ORT sessions of one process may not be equally fast: in one check
// on 2 cores the session opened first ran ~10% faster whichever side it
// served (a later run did not show it). -raw-session-first opens the raw
// side's session before the embedder's; bench/run.sh runs both orders and
// takes the geometric mean.
//
// With -json the figures are printed as one JSON object on stdout (the
// human-readable lines go to stderr); bench/run.sh reads it.
//
// The tokenizer comes from -tokenizer (default: the shared real tokenizer
// files found above the working directory).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gitnexus/gitnexus/embed"
	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest"
)

func main() {
	model := flag.String("model", "", "ONNX model to time (e.g. from gen_fixture.py --full)")
	tokDir := flag.String("tokenizer", "", "directory with tokenizer.json or vocab.txt (default: shared/models/snowflake-arctic-embed-xs above cwd)")
	corpus := flag.String("corpus", "", "source tree whose symbols are embedded")
	maxChunks := flag.Int("max", 600, "embed at most this many chunks, a sample spread evenly over the corpus (0: all)")
	batch := flag.Int("batch", embed.DefaultBatchSize, "sequences per ORT run")
	budget := flag.Int("tokens", embed.DefaultMaxBatchTokens, "rows × padded length per ORT run")
	threads := flag.Int("threads", 0, "ORT intra-op threads (0: all cores)")
	stream := flag.Int("stream", 1024, "symbols per pipeline call (the streaming slice)")
	rounds := flag.Int("rounds", 3, "timed rounds of each, interleaved (after a short warm-up); medians reported")
	warm := flag.Int("warmup", 64, "chunks each side runs once, untimed, before the rounds")
	planOnly := flag.Bool("plan-only", false, "only report the padding the batch plan gives (no ORT runs)")
	rawFirst := flag.Bool("raw-session-first", false, "open the raw side's ORT session before the embedder's")
	asJSON := flag.Bool("json", false, "print the figures as one JSON object on stdout (text goes to stderr)")
	flag.Parse()
	if *model == "" || *corpus == "" {
		log.Fatal("need -model and -corpus (see the package comment)")
	}
	if *tokDir == "" {
		*tokDir = findShared()
	}
	if *threads <= 0 {
		*threads = runtime.NumCPU()
	}
	if *rounds < 1 {
		*rounds = 1
	}
	var text io.Writer = os.Stdout
	if *asJSON {
		text = os.Stderr
	}
	say := func(format string, a ...any) { fmt.Fprintf(text, format+"\n", a...) }
	ctx := context.Background()

	// Symbols of the corpus, in path order.
	t0 := time.Now()
	var sink collect
	if _, err := ingest.Run(ctx, *corpus, &sink, ingest.Options{}); err != nil {
		log.Fatalf("ingest %s: %v", *corpus, err)
	}
	sort.SliceStable(sink.syms, func(i, j int) bool { return sink.syms[i].FilePath < sink.syms[j].FilePath })
	say("corpus %s: %d symbols (ingest %.1fs)", *corpus, len(sink.syms), time.Since(t0).Seconds())

	// The raw side's session; -raw-session-first opens it before the
	// embedder's (to check that which session came first does not decide
	// the comparison).
	var sess *ort.DynamicAdvancedSession
	openRaw := func() {
		var err error
		sess, err = ort.NewDynamicAdvancedSession(*model,
			[]string{"input_ids", "attention_mask", "token_type_ids"}, []string{"last_hidden_state"}, sessionOptions(*threads))
		if err != nil {
			log.Fatal(err)
		}
	}
	if *rawFirst {
		if err := embed.InitORT(); err != nil {
			log.Fatal(err)
		}
		openRaw()
	}
	e, err := embed.New(embed.Options{ModelDir: *tokDir, ModelFile: *model, Device: embed.DeviceCPU,
		Threads: *threads, BatchSize: *batch, MaxBatchTokens: *budget})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	tok := e.Tokenizer()

	// Which symbols: about -max chunks' worth spread evenly over the corpus
	// in path order (chunking once, untimed, to choose), so that the sample
	// has the corpus's mix of short and long symbols.
	counts := make([]int, len(sink.syms))
	total := 0
	for i, s := range sink.syms {
		counts[i] = len(tok.SymbolChunks(s))
		total += counts[i]
	}
	var syms []schema.Symbol
	n := 0
	step, next, cum := 1.0, 0.0, 0
	if *maxChunks > 0 && total > *maxChunks {
		step = float64(total) / float64(*maxChunks)
	}
	for i, s := range sink.syms {
		c := counts[i]
		if float64(cum) >= next && (*maxChunks <= 0 || n+c <= *maxChunks) {
			syms, n = append(syms, s), n+c
			next += step * float64(c)
		}
		cum += c
	}
	say("timing %d of the corpus's %d chunks (%d symbols of %d)", n, total, len(syms), len(sink.syms))

	// The pipeline's streaming slices, chunked untimed: the raw side's input.
	var streamSlices [][][]int32
	for i := 0; i < len(syms); i += *stream {
		var seqs [][]int32
		for _, s := range syms[i:min(i+*stream, len(syms))] {
			for _, c := range tok.SymbolChunks(s) {
				seqs = append(seqs, c.IDs)
			}
		}
		streamSlices = append(streamSlices, seqs)
	}

	if *planOnly {
		var real, padded, nb int
		for _, seqs := range streamSlices {
			lengths := lengthsOf(seqs)
			for _, idx := range embed.PlanBatches(lengths, *batch, *budget) {
				longest := 0
				for _, k := range idx {
					real += lengths[k]
					longest = max(longest, lengths[k])
				}
				padded += len(idx) * longest
				nb++
			}
		}
		say("plan: %d chunks, %d batches, %d real tokens, padding overhead %.1f%%", n, nb, real, 100*float64(padded-real)/float64(real))
		return
	}

	// The pipeline: per streaming slice, chunk the symbols and embed them.
	pipeline := func(syms []schema.Symbol) int {
		chunks := 0
		for i := 0; i < len(syms); i += *stream {
			var seqs [][]int32
			for _, s := range syms[i:min(i+*stream, len(syms))] {
				for _, c := range tok.SymbolChunks(s) {
					seqs = append(seqs, c.IDs)
				}
			}
			vs, err := e.EmbedTokenIDs(ctx, seqs)
			if err != nil {
				log.Fatal(err)
			}
			chunks += len(vs)
		}
		return chunks
	}
	// Warm-up: the first symbols worth -warmup chunks.
	var warmSyms []schema.Symbol
	for i, w := 0, 0; i < len(syms) && w < *warm; i++ {
		warmSyms, w = append(warmSyms, syms[i]), w+len(tok.SymbolChunks(syms[i]))
	}
	pipeline(warmSyms)
	hwmPipeline := peakRSS()

	// Raw ORT: its own session, same options, the same batches with the
	// tensors made ahead; only Run is timed.
	if sess == nil {
		openRaw()
	}
	defer sess.Destroy()
	var inputs [][]ort.Value
	for _, seqs := range streamSlices {
		for _, idx := range embed.PlanBatches(lengthsOf(seqs), *batch, *budget) {
			inputs = append(inputs, tensors(seqs, idx))
		}
	}
	defer func() {
		for _, in := range inputs {
			for _, v := range in {
				v.Destroy()
			}
		}
	}()
	raw := func(inputs [][]ort.Value) time.Duration {
		var total time.Duration
		for _, in := range inputs {
			out := []ort.Value{nil}
			t := time.Now()
			if err := sess.Run(in, out); err != nil {
				log.Fatal(err)
			}
			total += time.Since(t)
			out[0].Destroy()
		}
		return total
	}
	warmBatches := 0
	for w := 0; warmBatches < len(inputs) && w < *warm; warmBatches++ {
		w += int(inputs[warmBatches][0].GetShape()[0])
	}
	raw(inputs[:warmBatches])

	// Interleaved rounds: odd rounds pipeline first, even rounds raw first.
	type measure struct {
		Wall    float64 `json:"wall_s"`
		CPU     float64 `json:"cpu_s"`        // this process, user+system
		Others  float64 `json:"others_cpu_s"` // every other process on the machine
		InORT   float64 `json:"in_ort,omitempty"`
		Chunks  int     `json:"chunks"`
		PerSec  float64 `json:"chunks_per_s"`
		IsFirst bool    `json:"ran_first"`
	}
	type round struct {
		Pipeline measure `json:"pipeline"`
		Raw      measure `json:"raw"`
		Ratio    float64 `json:"pipeline_over_raw"`
	}
	var rs []round
	st0 := e.Stats()
	for r := range *rounds {
		var rd round
		runP := func(first bool) {
			c0, m0, o0 := cpuSeconds(), machineBusy(), e.Stats().ORTTime
			t := time.Now()
			rd.Pipeline.Chunks = pipeline(syms)
			d := time.Since(t).Seconds()
			c := cpuSeconds() - c0
			rd.Pipeline = measure{Wall: d, CPU: c, Others: max(0, machineBusy()-m0-c), Chunks: rd.Pipeline.Chunks,
				InORT: (e.Stats().ORTTime - o0).Seconds() / d, PerSec: float64(rd.Pipeline.Chunks) / d, IsFirst: first}
		}
		runR := func(first bool) {
			c0, m0 := cpuSeconds(), machineBusy()
			d := raw(inputs).Seconds()
			c := cpuSeconds() - c0
			rd.Raw = measure{Wall: d, CPU: c, Others: max(0, machineBusy()-m0-c), Chunks: n, PerSec: float64(n) / d, IsFirst: first}
		}
		if r%2 == 0 {
			runP(true)
			runR(false)
		} else {
			runR(true)
			runP(false)
		}
		rd.Ratio = rd.Raw.Wall / rd.Pipeline.Wall
		rs = append(rs, rd)
		say("round %d: pipeline %.2fs (%.1f chunks/s, CPU %.1fs, others %.1fs, %.1f%% in ORT Run)  raw %.2fs (%.1f chunks/s, CPU %.1fs, others %.1fs)  pipeline/raw %.1f%%",
			r+1, rd.Pipeline.Wall, rd.Pipeline.PerSec, rd.Pipeline.CPU, rd.Pipeline.Others, 100*rd.Pipeline.InORT,
			rd.Raw.Wall, rd.Raw.PerSec, rd.Raw.CPU, rd.Raw.Others, 100*rd.Ratio)
	}
	st := e.Stats()
	col := func(f func(round) float64) []float64 {
		var xs []float64
		for _, r := range rs {
			xs = append(xs, f(r))
		}
		return xs
	}
	pWall, rWall := col(func(r round) float64 { return r.Pipeline.Wall }), col(func(r round) float64 { return r.Raw.Wall })
	pCPU, rCPU := col(func(r round) float64 { return r.Pipeline.CPU }), col(func(r round) float64 { return r.Raw.CPU })
	ratios := col(func(r round) float64 { return r.Ratio })
	inORT := col(func(r round) float64 { return r.Pipeline.InORT })
	others := col(func(r round) float64 { return r.Pipeline.Others + r.Raw.Others })
	tokens, padded := st.Tokens-st0.Tokens, st.PaddedTokens-st0.PaddedTokens
	// Quiet rounds: other processes used under 10% of the machine during
	// both measurements.
	var quiet []float64
	for _, r := range rs {
		if r.Pipeline.Others < 0.1*r.Pipeline.Wall*float64(runtime.NumCPU()) && r.Raw.Others < 0.1*r.Raw.Wall*float64(runtime.NumCPU()) {
			quiet = append(quiet, r.Ratio)
		}
	}
	quietPct := -1.0
	if len(quiet) > 0 {
		quietPct = 100 * median(quiet)
	}
	sum := summary{
		Model: filepath.Base(*model), ORT: embed.ORTVersion(), Threads: *threads, Cores: runtime.NumCPU(),
		Batch: *batch, TokenBudget: *budget, CorpusChunks: total, CorpusSymbols: len(sink.syms),
		Chunks: n, Symbols: len(syms), Batches: len(inputs), Rounds: len(rs),
		TokensPerChunk:   float64(tokens) / float64(st.Sequences-st0.Sequences),
		PaddingPct:       100 * float64(padded-tokens) / float64(tokens),
		PipelinePerS:     float64(n) / median(pWall),
		RawPerS:          float64(n) / median(rWall),
		RatioMedianPct:   100 * median(ratios),
		RatioBestPct:     100 * slices.Min(rWall) / slices.Min(pWall),
		InORTPct:         100 * median(inORT),
		CPURatioPct:      100 * median(rCPU) / median(pCPU),
		OthersCPUMaxS:    slices.Max(others),
		QuietRounds:      len(quiet),
		RatioQuietPct:    quietPct,
		PeakRSSPipelineK: hwmPipeline, PeakRSSEndK: peakRSS(),
		RoundsDetail: rs,
	}
	say("model %s, ORT %s, %d intra-op threads, batch %d, token budget %d, %d cores",
		sum.Model, sum.ORT, sum.Threads, sum.Batch, sum.TokenBudget, sum.Cores)
	say("chunks %d of the corpus's %d (%d symbols, %d ORT batches); real tokens/chunk %.1f; padding overhead %.1f%%",
		n, total, len(syms), len(inputs), sum.TokensPerChunk, sum.PaddingPct)
	say("pipeline (tokenize+chunk+batch+ORT+pool): median %.2fs = %.1f chunks/s   (rounds %.2f)", median(pWall), sum.PipelinePerS, pWall)
	say("raw ORT Run on the same batches:           median %.2fs = %.1f chunks/s   (rounds %.2f)", median(rWall), sum.RawPerS, rWall)
	say("pipeline / raw throughput: %.1f%% (median of per-round ratios), %.1f%% (best round of each)", sum.RatioMedianPct, sum.RatioBestPct)
	say("share of pipeline wall time inside ORT Run: %.1f%%; CPU seconds raw/pipeline %.1f%% (pipeline %.1f, raw %.1f, medians)",
		sum.InORTPct, sum.CPURatioPct, median(pCPU), median(rCPU))
	say("other processes' CPU during a round (pipeline + raw): at most %.1fs; %d quiet round(s) (others < 10%% of the machine in both), their median ratio %.1f%% (-1: none)",
		sum.OthersCPUMaxS, sum.QuietRounds, sum.RatioQuietPct)
	say("peak RSS: %d KiB after the pipeline's warm-up (embedder only), %d KiB at the end (with the raw session and its inputs)",
		sum.PeakRSSPipelineK, sum.PeakRSSEndK)
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		if err := enc.Encode(sum); err != nil {
			log.Fatal(err)
		}
	}
}

// summary is what -json prints.
type summary struct {
	Model            string  `json:"model"`
	ORT              string  `json:"ort"`
	Threads          int     `json:"threads"`
	Cores            int     `json:"cores"`
	Batch            int     `json:"batch"`
	TokenBudget      int     `json:"token_budget"`
	CorpusChunks     int     `json:"corpus_chunks"`
	CorpusSymbols    int     `json:"corpus_symbols"`
	Chunks           int     `json:"chunks"`
	Symbols          int     `json:"symbols"`
	Batches          int     `json:"batches"`
	Rounds           int     `json:"rounds"`
	TokensPerChunk   float64 `json:"tokens_per_chunk"`
	PaddingPct       float64 `json:"padding_pct"`
	PipelinePerS     float64 `json:"pipeline_chunks_per_s"`
	RawPerS          float64 `json:"raw_chunks_per_s"`
	RatioMedianPct   float64 `json:"ratio_median_pct"`
	RatioBestPct     float64 `json:"ratio_best_pct"`
	InORTPct         float64 `json:"in_ort_pct"`
	CPURatioPct      float64 `json:"cpu_raw_over_pipeline_pct"`
	OthersCPUMaxS    float64 `json:"others_cpu_max_s"`
	QuietRounds      int     `json:"quiet_rounds"`
	RatioQuietPct    float64 `json:"ratio_quiet_pct"` // median over quiet rounds; -1: none
	PeakRSSPipelineK int64   `json:"peak_rss_pipeline_kib"`
	PeakRSSEndK      int64   `json:"peak_rss_end_kib"`
	RoundsDetail     any     `json:"rounds_detail"`
}

// collect is an ingest.Sink that keeps the symbols.
type collect struct{ syms []schema.Symbol }

func (c *collect) AddFolder(schema.Folder) error { return nil }
func (c *collect) AddFile(schema.File) error     { return nil }
func (c *collect) AddEdge(schema.Edge) error     { return nil }
func (c *collect) AddSymbol(s schema.Symbol) error {
	c.syms = append(c.syms, s)
	return nil
}

// sessionOptions are embed's CPU session options (embed/session.go).
func sessionOptions(threads int) *ort.SessionOptions {
	o, err := ort.NewSessionOptions()
	if err != nil {
		log.Fatal(err)
	}
	for _, err := range []error{
		o.SetIntraOpNumThreads(threads),
		o.SetInterOpNumThreads(1),
		o.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll),
		o.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"),
	} {
		if err != nil {
			log.Fatal(err)
		}
	}
	return o
}

func lengthsOf(seqs [][]int32) []int {
	l := make([]int, len(seqs))
	for i, s := range seqs {
		l[i] = len(s)
	}
	return l
}

func tensors(seqs [][]int32, idx []int) []ort.Value {
	L := 0
	for _, i := range idx {
		L = max(L, len(seqs[i]))
	}
	ids := make([]int64, len(idx)*L)
	mask := make([]int64, len(idx)*L)
	types := make([]int64, len(idx)*L)
	for r, i := range idx {
		for j, id := range seqs[i] {
			ids[r*L+j], mask[r*L+j] = int64(id), 1
		}
	}
	shape := ort.NewShape(int64(len(idx)), int64(L))
	var out []ort.Value
	for _, d := range [][]int64{ids, mask, types} {
		t, err := ort.NewTensor(shape, d)
		if err != nil {
			log.Fatal(err)
		}
		out = append(out, t)
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// cpuSeconds is the user+system CPU time of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// machineBusy is the CPU seconds all processes have used since boot (the
// non-idle fields of /proc/stat's first line, in USER_HZ = 100).
func machineBusy() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	var busy float64
	for i, v := range f[1:] {
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest time is already in user (steal counts)
			continue
		}
		x, _ := strconv.ParseFloat(v, 64)
		busy += x
	}
	return busy / 100
}

// peakRSS is VmHWM from /proc/self/status, in KiB.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			k, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return k
		}
	}
	return -1
}

func findShared() string {
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "shared", "models", "snowflake-arctic-embed-xs")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(dir) == dir {
			log.Fatal("no -tokenizer and no shared/models/snowflake-arctic-embed-xs above cwd")
		}
		dir = filepath.Dir(dir)
	}
}
