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
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/internal/recfile"
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
	w := fieldWriter{w: h}
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

// fieldWriter writes fields (internal/recfile's strings, varints,
// little-endian floats, flags packed in a byte) to w through a buffer
// that goes to w once it holds 64 KiB: Key feeds its hash with it (a
// Write per field cost more than the hashing: kubernetes, 150 ms for 42k
// symbols) and Save its body (the Linux kernel's result is never whole
// in memory twice). err is w's first error.
type fieldWriter struct {
	w   io.Writer
	buf []byte
	err error
}

func (w *fieldWriter) int(n int) { w.buf = binary.AppendVarint(w.buf, int64(n)); w.spill() }

func (w *fieldWriter) uint(n int) { w.buf = binary.AppendUvarint(w.buf, uint64(n)); w.spill() }

func (w *fieldWriter) str(s string) {
	w.buf = recfile.AppendStr(w.buf, s)
	w.spill()
}

func (w *fieldWriter) float(f float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(f))
	w.spill()
}

// bools writes up to eight flags as one byte, the first the lowest bit.
func (w *fieldWriter) bools(bs ...bool) {
	var b byte
	for i, v := range bs {
		if v {
			b |= 1 << i
		}
	}
	w.buf = append(w.buf, b)
	w.spill()
}

// count writes a slice's length: n plus one, 0 for a nil slice.
func (w *fieldWriter) count(n int, isNil bool) {
	if isNil {
		w.uint(0)
	} else {
		w.uint(n + 1)
	}
}

func (w *fieldWriter) strs(ss []string) {
	w.count(len(ss), ss == nil)
	for _, s := range ss {
		w.str(s)
	}
}

func (w *fieldWriter) ints(lists [][]int) {
	w.count(len(lists), lists == nil)
	for _, l := range lists {
		w.count(len(l), l == nil)
		for _, v := range l {
			w.int(v)
		}
	}
}

// spill writes the buffer once it holds 64 KiB.
func (w *fieldWriter) spill() {
	if len(w.buf) >= 64<<10 {
		w.flush()
	}
}

// flush writes what the buffer holds.
func (w *fieldWriter) flush() {
	if w.err == nil {
		_, w.err = w.w.Write(w.buf)
	}
	w.buf = w.buf[:0]
}

// savedMagic starts a saved Result; the key (hex, keyLen bytes) follows,
// then the body (writeBody's), then a CRC-32C of the key and the body.
// The key comes before the body so that a Result of another graph (after
// any edit of the call graph) is refused without decoding it. The number
// is the body's format: a file of another format is not a saved result.
const savedMagic = "gitnexus processes 2\x00"

// maxSaved bounds the file LoadSaved reads (the Linux kernel's is tens of
// megabytes).
const maxSaved = 1 << 30

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// The body is binary (internal/recfile's varints and strings): the
// communities, processes, entry points and the members and steps as node
// indexes of a graph with the key, then the Stats as JSON (a few hundred
// bytes whose fields change with the traces). A slice is its length plus
// one, 0 for nil, so that a nil slice stays apart from an empty one, as
// the rows keep them. It had been JSON: on kubernetes 4 MB whose decode
// was 0.15 of a reused phase's 0.5 CPU-seconds, on the Linux kernel
// 103 MB.
//
// savedFields counts the fields of each record the body holds: a field
// added to one of them must be added to writeBody and readBody too
// (TestSavedBodyHasEveryField).
var savedFields = map[string]int{"Community": 5, "Process": 9, "EntryPoint": 4, "Result": 7}

// writeBody writes r's body to w.
func (r *Result) writeBody(w io.Writer) error {
	b := &fieldWriter{w: w, buf: make([]byte, 0, 80<<10)}
	b.count(len(r.Communities), r.Communities == nil)
	for _, c := range r.Communities {
		b.str(c.ID)
		b.str(c.Label)
		b.strs(c.Keywords)
		b.float(c.Cohesion)
		b.int(c.SymbolCount)
	}
	b.count(len(r.Processes), r.Processes == nil)
	for _, p := range r.Processes {
		b.str(p.ID)
		b.str(p.Label)
		b.str(p.Description)
		b.str(p.ProcessType)
		b.int(p.StepCount)
		b.strs(p.Communities)
		b.str(p.EntryPointID)
		b.str(p.TerminalID)
		b.float(p.Priority)
	}
	b.count(len(r.Entries), r.Entries == nil)
	for _, e := range r.Entries {
		b.int(e.Node)
		b.float(e.Score)
		b.strs(e.Reasons)
		b.bools(e.Closure)
	}
	b.ints(r.members)
	b.ints(r.steps)
	stats, err := json.Marshal(r.Stats)
	if err != nil {
		return err
	}
	b.str(string(stats))
	b.flush()
	return b.err
}

// bodyReader reads a body (writeBody's) on a recfile.Decoder.
type bodyReader struct{ recfile.Decoder }

// count reads a slice's length (fieldWriter.count): -1 for nil. A length
// past what is left to read, at least min bytes an element, fails: what
// a damaged file makes the reader allocate stays within a few times its
// size.
func (d *bodyReader) count(min uint64) int {
	n := d.Uint()
	if n == 0 || d.Err != nil {
		return -1
	}
	if n-1 > uint64(len(d.B)-d.Pos)/min {
		d.Fail("count")
		return -1
	}
	return int(n - 1)
}

// The fewest bytes writeBody writes for one element of each kind.
const (
	minCommunity = 4 + 8     // three lengths and a varint, the cohesion
	minProcess   = 8 + 8     // eight lengths and varints, the priority
	minEntry     = 3 + 8     // the node, the reasons' length, the flag, the score
	minString    = 1         // a length
	minInt       = 1         // a varint
	minList      = minString // a list's length
)

func (d *bodyReader) float() float64 { return math.Float64frombits(d.U64()) }

func (d *bodyReader) bool() bool {
	b := d.Bytes(1)
	if b != nil && b[0] > 1 {
		d.Fail("bool")
	}
	return b != nil && b[0] == 1
}

func (d *bodyReader) int() int {
	v := d.Int()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.Fail("integer")
		return 0
	}
	return int(v)
}

func (d *bodyReader) strs() []string {
	n := d.count(minString)
	if n < 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.Str()
	}
	return ss
}

func (d *bodyReader) ints() [][]int {
	n := d.count(minList)
	if n < 0 {
		return nil
	}
	lists := make([][]int, n)
	for i := range lists {
		if m := d.count(minInt); m >= 0 {
			lists[i] = make([]int, m)
			for j := range lists[i] {
				lists[i][j] = d.int()
			}
		}
	}
	return lists
}

// readBody decodes a body (writeBody's) into a Result without its graph.
func readBody(body []byte) (*Result, error) {
	d := &bodyReader{recfile.Decoder{B: body}}
	r := &Result{}
	if n := d.count(minCommunity); n >= 0 {
		r.Communities = make([]schema.Community, n)
		for i := range r.Communities {
			c := &r.Communities[i]
			c.ID, c.Label, c.Keywords, c.Cohesion, c.SymbolCount = d.Str(), d.Str(), d.strs(), d.float(), d.int()
		}
	}
	if n := d.count(minProcess); n >= 0 {
		r.Processes = make([]schema.Process, n)
		for i := range r.Processes {
			p := &r.Processes[i]
			p.ID, p.Label, p.Description, p.ProcessType, p.StepCount = d.Str(), d.Str(), d.Str(), d.Str(), d.int()
			p.Communities, p.EntryPointID, p.TerminalID, p.Priority = d.strs(), d.Str(), d.Str(), d.float()
		}
	}
	if n := d.count(minEntry); n >= 0 {
		r.Entries = make([]EntryPoint, n)
		for i := range r.Entries {
			e := &r.Entries[i]
			e.Node, e.Score, e.Reasons, e.Closure = d.int(), d.float(), d.strs(), d.bool()
		}
	}
	r.members, r.steps = d.ints(), d.ints()
	stats := d.StrBytes()
	if d.Err == nil && d.Pos != len(d.B) {
		d.Fail("end")
	}
	if d.Err != nil {
		return nil, d.Err
	}
	if err := json.Unmarshal(stats, &r.Stats); err != nil {
		return nil, err
	}
	return r, nil
}

// Save writes r, with key (its graph's Key for the options Run had), to
// path. The body is written through to the file as it is checksummed, not
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
	w := io.MultiWriter(bw, sum) // the key and the body are checksummed
	if _, err := bw.WriteString(savedMagic); err != nil {
		return fmt.Errorf("save processes: %w", err)
	}
	if _, err := io.WriteString(w, key); err != nil {
		return fmt.Errorf("save processes: %w", err)
	}
	if err := r.writeBody(w); err != nil {
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
	res, err := readBody(body[keyLen:])
	if err != nil {
		return nil, fmt.Errorf("saved processes: damaged: %w", err)
	}
	if len(res.members) != len(res.Communities) || len(res.steps) != len(res.Processes) {
		return nil, errors.New("saved processes: damaged (counts)")
	}
	for _, list := range [][][]int{res.members, res.steps} {
		for _, ns := range list {
			for _, n := range ns {
				if n < 0 || n >= len(g.Nodes) {
					return nil, errors.New("saved processes: damaged (a node out of range)")
				}
			}
		}
	}
	for _, e := range res.Entries {
		if e.Node < 0 || e.Node >= len(g.Nodes) {
			return nil, errors.New("saved processes: damaged (an entry out of range)")
		}
	}
	res.Stats.Reused, res.g = true, g
	return res, nil
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
