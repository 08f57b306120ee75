package graph

import (
	"bufio"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// idSet holds 64-bit hashes of the node ids added per label: about 40 bytes
// per node instead of the id itself. A hash collision can only let a dangling
// edge through to COPY, which then falls back to ignore_errors.
type idSet struct {
	seed maphash.Seed
	m    map[schema.Label]map[uint64]struct{}
}

func newIDSet() idSet {
	return idSet{seed: maphash.MakeSeed(), m: map[schema.Label]map[uint64]struct{}{}}
}

func (s idSet) add(l schema.Label, id string) {
	set := s.m[l]
	if set == nil {
		set = map[uint64]struct{}{}
		s.m[l] = set
	}
	set[maphash.String(s.seed, id)] = struct{}{}
}

func (s idSet) has(l schema.Label, id string) bool {
	_, ok := s.m[l][maphash.String(s.seed, id)]
	return ok
}

// hasBytes is has for an id held as bytes (the same hash: maphash.Bytes
// of a string's bytes is maphash.String of it).
func (s idSet) hasBytes(l schema.Label, id []byte) bool {
	_, ok := s.m[l][maphash.Bytes(s.seed, id)]
	return ok
}

// filterDangling streams rf, of rel type rt, and checks every edge's
// endpoints against the id sets of pair p; the sound ones go into the row
// digest (hashed with h). It returns the file to COPY (rf's own when every
// edge is sound, else a filtered copy), the edges kept, and a few dropped
// ones for the log. Calls on different files may run at once.
func (b *Build) filterDangling(h *edgeHasher, rf *rowFile, rt schema.RelType, p schema.Pair) (path string, kept int, sample string, err error) {
	// sound reports whether the edge on line has both endpoints, and its
	// source. It reads the endpoints in place (edgeEnds) where the line
	// has appendEdgeLine's form: parsing every edge into strings was most
	// of a re-analyze's Prepare (kubernetes: 0.5 s of CPU for 330k edges).
	sound := func(line []byte) (from []byte, ok bool, err error) {
		if from, to, ok := edgeEnds(line); ok {
			return from, b.ids.hasBytes(p.From, from) && b.ids.hasBytes(p.To, to), nil
		}
		e, err := parseEdgeLine(line)
		if err != nil {
			return nil, false, fmt.Errorf("read back %s: %w", rf.path, err)
		}
		return []byte(e.From), b.ids.has(p.From, e.From) && b.ids.has(p.To, e.To), nil
	}
	var samples []string
	dangling := 0
	key := relKey(rt, p.From, p.To)
	err = eachLine(rf.path, func(line []byte) error {
		from, ok, err := sound(line)
		if ok {
			b.digest.addEdge(h, p.From, from, key, line)
		}
		if !ok && err == nil {
			dangling++
			if len(samples) < 3 {
				samples = append(samples, strings.TrimSpace(string(line)))
			}
		}
		return err
	})
	if err != nil {
		return "", 0, "", err
	}
	if dangling == 0 {
		return rf.path, rf.rows, "", nil
	}
	out, err := createRowFile(strings.TrimSuffix(rf.path, ".json") + "-sound.json")
	if err != nil {
		return "", 0, "", err
	}
	defer out.close()
	err = eachLine(rf.path, func(line []byte) error {
		_, ok, err := sound(line)
		if ok && err == nil {
			err = out.write(line)
		}
		return err
	})
	if err == nil {
		err = out.close()
	}
	if err != nil {
		return "", 0, "", err
	}
	return out.path, out.rows, strings.Join(samples, " | "), nil
}

// eachLine calls fn with every line of the file, newline included. The
// line is valid only until fn returns (it is the reader's buffer, not a
// copy: a re-analyze reads a million edge lines of kubernetes' rows, and a
// slice allocated for each was garbage at once); fn copies what it keeps.
func eachLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read back row file: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	var long []byte // a line longer than the buffer, put together
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read back %s: %w", path, err)
		}
	}
}
