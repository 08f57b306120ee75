// Command bench times the embedding step on a corpus's symbols: tokenize,
// chunk, batch, run ONNX Runtime, pool (the pipeline), against raw ORT runs
// of the very same batches (inputs prepared ahead, only Run timed). The
// issue asks the pipeline to reach >= 90% of raw ORT throughput.
//
// It is a tool, not a test. Typical use, with a random-weight model of the
// real shape (never committed):
//
//	/usr/bin/python3 embed/testdata/gen_fixture.py --full /tmp/bench-full.onnx
//	go run ./embed/bench -model /tmp/bench-full.onnx -corpus ~/.cache/gitnexus-corpora/gin -max 2000
//
// The tokenizer comes from -tokenizer (default: the shared real tokenizer
// files found above the working directory).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
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
	maxChunks := flag.Int("max", 2000, "embed at most this many chunks (the first symbols in path order)")
	batch := flag.Int("batch", embed.DefaultBatchSize, "sequences per ORT run")
	budget := flag.Int("tokens", embed.DefaultMaxBatchTokens, "rows × padded length per ORT run")
	threads := flag.Int("threads", 0, "ORT intra-op threads (0: all cores)")
	stream := flag.Int("stream", 1024, "symbols per pipeline call (the streaming slice)")
	rounds := flag.Int("rounds", 2, "timed rounds of each (after a warm-up); medians reported")
	planOnly := flag.Bool("plan-only", false, "only report the padding the batch plan gives (no ORT runs)")
	flag.Parse()
	if *model == "" || *corpus == "" {
		log.Fatal("need -model and -corpus (see the package comment)")
	}
	if *tokDir == "" {
		*tokDir = findShared()
	}
	ctx := context.Background()

	// Symbols of the corpus, in path order.
	t0 := time.Now()
	var sink collect
	if _, err := ingest.Run(ctx, *corpus, &sink, ingest.Options{}); err != nil {
		log.Fatalf("ingest %s: %v", *corpus, err)
	}
	sort.SliceStable(sink.syms, func(i, j int) bool { return sink.syms[i].FilePath < sink.syms[j].FilePath })
	fmt.Printf("corpus %s: %d symbols (ingest %.1fs)\n", *corpus, len(sink.syms), time.Since(t0).Seconds())

	e, err := embed.New(embed.Options{ModelDir: *tokDir, ModelFile: *model, Device: embed.DeviceCPU,
		Threads: *threads, BatchSize: *batch, MaxBatchTokens: *budget})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	tok := e.Tokenizer()

	// Which symbols fit in -max chunks (chunking once, untimed, to choose).
	var syms []schema.Symbol
	n := 0
	for _, s := range sink.syms {
		c := len(tok.SymbolChunks(s))
		if n+c > *maxChunks {
			break
		}
		syms, n = append(syms, s), n+c
	}

	if *planOnly {
		var real, padded, nb int
		for i := 0; i < len(syms); i += *stream {
			var lengths []int
			for _, s := range syms[i:min(i+*stream, len(syms))] {
				for _, c := range tok.SymbolChunks(s) {
					lengths = append(lengths, len(c.IDs))
				}
			}
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
		fmt.Printf("plan: %d chunks, %d batches, %d real tokens, padding overhead %.1f%%\n", n, nb, real, 100*float64(padded-real)/float64(real))
		return
	}

	// The pipeline: per streaming slice, chunk the symbols and embed them.
	pipeline := func() (time.Duration, [][][]int32, int) {
		var slices [][][]int32
		chunks := 0
		start := time.Now()
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
			slices = append(slices, seqs)
		}
		return time.Since(start), slices, chunks
	}

	// Raw ORT: the same batches, tensors made ahead, only Run timed.
	raw := func(streamSlices [][][]int32) (time.Duration, float64) {
		sess, err := ort.NewDynamicAdvancedSession(*model,
			[]string{"input_ids", "attention_mask", "token_type_ids"}, []string{"last_hidden_state"}, sessionOptions(*threads))
		if err != nil {
			log.Fatal(err)
		}
		defer sess.Destroy()
		var inputs [][]ort.Value
		for _, seqs := range streamSlices {
			lengths := make([]int, len(seqs))
			for i, s := range seqs {
				lengths[i] = len(s)
			}
			for _, idx := range embed.PlanBatches(lengths, *batch, *budget) {
				inputs = append(inputs, tensors(seqs, idx))
			}
		}
		var total time.Duration
		c0 := cpuSeconds()
		for _, in := range inputs {
			out := []ort.Value{nil}
			t := time.Now()
			if err := sess.Run(in, out); err != nil {
				log.Fatal(err)
			}
			total += time.Since(t)
			out[0].Destroy()
			for _, v := range in {
				v.Destroy()
			}
		}
		return total, cpuSeconds() - c0
	}

	// Pipeline rounds first (after one warm-up), so the peak RSS read after
	// them is the pipeline's own; then the raw rounds on the same batches.
	var pTimes, rTimes, pCPU, rCPU, inORT []float64
	var chunks int
	var sl [][][]int32
	pipeline()
	for range *rounds {
		c0 := cpuSeconds()
		o0 := e.Stats().ORTTime
		d, s, c := pipeline()
		pTimes, pCPU = append(pTimes, d.Seconds()), append(pCPU, cpuSeconds()-c0)
		inORT = append(inORT, (e.Stats().ORTTime-o0).Seconds()/d.Seconds())
		chunks, sl = c, s
	}
	hwmPipeline := peakRSS()
	raw(sl)
	for range *rounds {
		r, rc := raw(sl)
		rTimes, rCPU = append(rTimes, r.Seconds()), append(rCPU, rc)
	}
	st := e.Stats()
	p, r := median(pTimes), median(rTimes)
	fmt.Printf("model %s, ORT %s, %d threads, batch %d, token budget %d, %d cores\n",
		filepath.Base(*model), embed.ORTVersion(), max(*threads, 0), *batch, *budget, runtime.NumCPU())
	fmt.Printf("chunks %d from %d symbols; real tokens/chunk %.1f; padding overhead %.1f%%\n",
		chunks, len(syms), float64(st.Tokens)/float64(st.Sequences), 100*float64(st.PaddedTokens-st.Tokens)/float64(st.Tokens))
	fmt.Printf("pipeline (tokenize+chunk+batch+ORT+pool): %.2fs = %.1f chunks/s   (rounds %v)\n", p, float64(chunks)/p, pTimes)
	fmt.Printf("raw ORT Run on the same batches:           %.2fs = %.1f chunks/s   (rounds %v)\n", r, float64(chunks)/r, rTimes)
	fmt.Printf("pipeline / raw throughput: %.1f%% (wall clock, medians); %.1f%% (best rounds)\n", 100*r/p, 100*slices.Min(rTimes)/slices.Min(pTimes))
	fmt.Printf("share of pipeline wall time inside ORT Run, same round (noise-robust pipeline/raw): %.1f%%  (rounds %.3f)\n", 100*median(inORT), inORT)
	fmt.Printf("process CPU seconds: pipeline %.1f, raw phase %.1f (raw: the Run loop only); CPU ratio raw/pipeline %.1f%%\n",
		median(pCPU), median(rCPU), 100*median(rCPU)/median(pCPU))
	fmt.Printf("peak RSS: %s after the pipeline rounds, %s at the end\n", hwmPipeline, peakRSS())
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

func sessionOptions(threads int) *ort.SessionOptions {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	o, err := ort.NewSessionOptions()
	if err != nil {
		log.Fatal(err)
	}
	o.SetIntraOpNumThreads(threads)
	o.SetInterOpNumThreads(1)
	o.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll)
	o.AddSessionConfigEntry("session.intra_op.allow_spinning", "0") // as embed does
	return o
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

// peakRSS is VmHWM from /proc/self/status.
func peakRSS() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
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
