package processes

// This file owns a Result kept for the next analyze: Key, the digest of
// everything Run reads, and Save/LoadSaved, which write a Result with its
// key and read it back for a graph whose key is the same. Run is
// deterministic (see the package doc), so a graph with the key of a saved
// Result gets exactly that Result from Run, without the work: on
// kubernetes 0.6-0.7 s of CPU after a one-function body edit that left the
// call graph as it was.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// savedVersion changes whenever Run's output for one key could change
// without a change of the key's inputs (a new rule, a new field): a
// Result saved by another version is never loaded. index.Build also keeps
// saved results to one gitnexus build.
const savedVersion = "processes-1"

// keyLen is the length of a Key: a SHA-256 in hex.
const keyLen = 2 * sha256.Size

// Key is the digest of everything Run(g, opts) reads: every node's
// properties but StartLine (which no algorithm reads: a line inserted
// above a function changes no flow), the CALLS arcs out of and into each
// node with their confidence and flags, the undirected weighted neighbours
// communities are found on, and opts. Two graphs with one Key give one
// Result.
func (g *Graph) Key(opts Options) string {
	h := sha256.New()
	w := keyWriter{h: h}
	w.str(savedVersion)
	w.str(fmt.Sprintf("%+v", opts))
	w.int(len(g.Nodes))
	for i := range g.Nodes {
		n := &g.Nodes[i]
		w.str(n.ID)
		w.str(string(n.Label))
		w.str(string(n.Kind))
		w.str(n.Name)
		w.str(n.QualifiedName)
		w.str(n.Doc)
		w.str(n.FilePath)
		w.str(n.Language)
		w.str(n.Signature)
		w.bools(n.IsExported, n.IsTest, n.Goroutine, n.Returned)
		w.int(len(n.Decorators))
		for _, d := range n.Decorators {
			w.str(d)
		}
		for _, arcs := range [2][]arc{g.out[i], g.in[i]} {
			w.int(len(arcs))
			for _, a := range arcs {
				w.int(a.to)
				w.float(a.conf)
				w.bools(a.callback, a.later)
			}
		}
		w.int(len(g.und[i]))
		for _, e := range g.und[i] {
			w.int(e.to)
			w.float(e.w)
		}
	}
	w.flush()
	return hex.EncodeToString(h.Sum(nil))
}

// keyWriter feeds Key's hash, every string length-prefixed, through a
// buffer: a Write per field cost more than the hashing (kubernetes: 150 ms
// for 42k symbols).
type keyWriter struct {
	h   hash.Hash
	buf []byte
}

func (w *keyWriter) int(n int) { w.buf = binary.AppendVarint(w.buf, int64(n)); w.spill() }

func (w *keyWriter) str(s string) {
	w.buf = binary.AppendVarint(w.buf, int64(len(s)))
	w.buf = append(w.buf, s...)
	w.spill()
}

func (w *keyWriter) float(f float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(f))
	w.spill()
}

func (w *keyWriter) bools(bs ...bool) {
	var b byte
	for i, v := range bs {
		if v {
			b |= 1 << i
		}
	}
	w.buf = append(w.buf, b)
	w.spill()
}

// spill hashes the buffer once it holds 64 KiB.
func (w *keyWriter) spill() {
	if len(w.buf) >= 64<<10 {
		w.flush()
	}
}

// flush hashes what the buffer holds.
func (w *keyWriter) flush() {
	w.h.Write(w.buf)
	w.buf = w.buf[:0]
}

// saved is what Save writes, as JSON (which keeps a nil slice apart from
// an empty one, as the rows do): a Result without its graph, the members
// and steps as node indexes of a graph with Key.
type saved struct {
	Communities []schema.Community
	Processes   []schema.Process
	Entries     []EntryPoint
	Stats       Stats
	Members     [][]int
	Steps       [][]int
}

// savedMagic starts a saved Result; the key (hex, keyLen bytes) follows,
// then the JSON, then a CRC-32C of the key and the JSON. The key comes
// before the JSON so that a Result of another graph (after any edit of the
// call graph) is refused without decoding it (kubernetes: 60 ms).
const savedMagic = "gitnexus processes\x00"

// maxSaved bounds the file LoadSaved reads (the Linux kernel's is tens of
// megabytes).
const maxSaved = 1 << 30

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes r, with key (its graph's Key for the options Run had), to
// path. The JSON is written through to the file as it is checksummed, not
// gathered with the header first: on the Linux kernel (a 103 MB file) the
// buffer that grew to hold it and the copy made to frame it had been
// 2.4 s and two hundred MB.
func (r *Result) Save(path, key string) (err error) {
	if len(key) != keyLen {
		return fmt.Errorf("save processes: a key of %d bytes, want %d", len(key), keyLen)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("save processes: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("save processes: %w", cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	sum := crc32.New(castagnoli)
	w := io.MultiWriter(bw, sum) // the key and the JSON are checksummed
	s := saved{Communities: r.Communities, Processes: r.Processes, Entries: r.Entries,
		Stats: r.Stats, Members: r.members, Steps: r.steps}
	if _, err := bw.WriteString(savedMagic); err != nil {
		return fmt.Errorf("save processes: %w", err)
	}
	if _, err := io.WriteString(w, key); err != nil {
		return fmt.Errorf("save processes: %w", err)
	}
	if err := json.NewEncoder(w).Encode(&s); err != nil {
		return fmt.Errorf("save processes: %w", err)
	}
	if _, err := bw.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32())); err != nil {
		return fmt.Errorf("save processes: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("save processes: %w", err)
	}
	return nil
}

// ErrKeyDiffers is LoadSaved's error when the saved Result is of another
// graph or other options.
var ErrKeyDiffers = errors.New("saved processes are of another graph")

// LoadSaved reads the Result saved at path for graph g, whose Key is key:
// exactly what Run would return for g (its Stats.Seconds the saved run's),
// with Stats.Reused set. It fails on a missing, damaged or foreign file,
// on another key (ErrKeyDiffers) and on node indexes outside g.
func LoadSaved(path string, g *Graph, key string) (*Result, error) {
	data, err := readBounded(path, maxSaved)
	if err != nil {
		return nil, err
	}
	body, ok := bytes.CutPrefix(data, []byte(savedMagic))
	if !ok || len(body) < keyLen+4 {
		return nil, errors.New("saved processes: not a saved result")
	}
	body, tail := body[:len(body)-4], body[len(body)-4:]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(tail) {
		return nil, errors.New("saved processes: damaged (checksum)")
	}
	if string(body[:keyLen]) != key {
		return nil, ErrKeyDiffers
	}
	body = body[keyLen:]
	var s saved
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, fmt.Errorf("saved processes: %w", err)
	}
	if len(s.Members) != len(s.Communities) || len(s.Steps) != len(s.Processes) {
		return nil, errors.New("saved processes: damaged (counts)")
	}
	for _, list := range [][][]int{s.Members, s.Steps} {
		for _, ns := range list {
			for _, n := range ns {
				if n < 0 || n >= len(g.Nodes) {
					return nil, errors.New("saved processes: damaged (a node out of range)")
				}
			}
		}
	}
	for _, e := range s.Entries {
		if e.Node < 0 || e.Node >= len(g.Nodes) {
			return nil, errors.New("saved processes: damaged (an entry out of range)")
		}
	}
	s.Stats.Reused = true
	return &Result{Communities: s.Communities, Processes: s.Processes, Entries: s.Entries, Stats: s.Stats,
		g: g, members: s.Members, steps: s.Steps}, nil
}

// readBounded reads the file at path, refusing one larger than limit.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("saved processes: %d bytes, more than %d", fi.Size(), limit)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}
