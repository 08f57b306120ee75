package embed

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// Chunking: a document longer than the model's 512 tokens is embedded as
// several overlapping chunks. Each chunk is [CLS] header body-window [SEP]:
// the header (kind, name, path, signature, doc comment; at most
// MaxHeaderTokens of it) is repeated in every chunk so each one says what
// it belongs to, and consecutive body windows share ChunkOverlap tokens so
// no statement is only ever seen cut in half.
const (
	MaxHeaderTokens = 128
	ChunkOverlap    = 64
)

// Chunk is one embeddable piece of a symbol (or file).
type Chunk struct {
	OwnerID string // the symbol (or file) id
	Index   int    // 0, 1, ... within the owner
	IDs     []int32
	// Hash identifies the chunk's exact input (template version and token
	// ids): a stored vector with the same owner, index and hash can be
	// reused without running the model.
	Hash string
}

// ChunkIDs splits header+body into framed sequences of at most maxLen ids
// ([CLS] and [SEP] included). With everything fitting there is one chunk.
// Otherwise the header is cut to MaxHeaderTokens and the body is cut into
// windows of the remaining room, each starting `overlap` tokens before the
// previous one ended. The last window ends at the body's end.
func (t *Tokenizer) ChunkIDs(header, body []int32, maxLen, overlap int) [][]int32 {
	if maxLen <= 0 || maxLen > t.maxLen {
		maxLen = t.maxLen
	}
	room := maxLen - 2
	if len(header)+len(body) <= room {
		return [][]int32{t.frame(header, body)}
	}
	header = header[:min(len(header), MaxHeaderTokens, room/2)]
	window := room - len(header)
	overlap = max(0, min(overlap, window/2))
	stride := window - overlap
	var out [][]int32
	for start := 0; ; start += stride {
		end := min(start+window, len(body))
		out = append(out, t.frame(header, body[start:end]))
		if end == len(body) {
			return out
		}
	}
}

func (t *Tokenizer) frame(header, body []int32) []int32 {
	s := make([]int32, 0, len(header)+len(body)+2)
	s = append(s, t.cls)
	s = append(s, header...)
	s = append(s, body...)
	return append(s, t.sep)
}

// SymbolChunks tokenizes a symbol's document (see DocumentText) and splits
// it into chunks of at most 512 tokens.
func (t *Tokenizer) SymbolChunks(s schema.Symbol) []Chunk {
	header := t.Tokenize(DocumentHeader(s))
	var body []int32
	if s.Content != "" {
		body = t.Tokenize(s.Content)
	}
	return t.chunks(s.ID, header, body)
}

// FileChunks is the one chunk of a file summary (see FileSummaryText).
func (t *Tokenizer) FileChunks(f schema.File, defined []schema.Symbol) []Chunk {
	ids := t.Tokenize(FileSummaryText(f, defined))
	return t.chunks(f.ID, nil, ids[:min(len(ids), t.maxLen-2)])
}

func (t *Tokenizer) chunks(owner string, header, body []int32) []Chunk {
	seqs := t.ChunkIDs(header, body, t.maxLen, ChunkOverlap)
	out := make([]Chunk, len(seqs))
	for i, ids := range seqs {
		out[i] = Chunk{OwnerID: owner, Index: i, IDs: ids, Hash: chunkHash(ids)}
	}
	return out
}

// chunkHash is sha256 over the template version and the ids (16 bytes of it
// in hex is plenty for a cache key).
func chunkHash(ids []int32) string {
	h := sha256.New()
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], TemplateVersion)
	h.Write(b[:])
	for _, id := range ids {
		binary.LittleEndian.PutUint32(b[:], uint32(id))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
