package embed

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Special tokens of a BERT vocabulary.
const (
	TokenPad  = "[PAD]"
	TokenUnk  = "[UNK]"
	TokenCLS  = "[CLS]"
	TokenSEP  = "[SEP]"
	TokenMask = "[MASK]"
)

// MaxSeqLen is the longest sequence the model takes, [CLS] and [SEP]
// included.
const MaxSeqLen = 512

// Tokenizer is an uncased BERT WordPiece tokenizer. It is safe for
// concurrent use: it holds no mutable state after loading.
type Tokenizer struct {
	vocab map[string]int32 // word-initial pieces
	cont  map[string]int32 // continuation pieces, keyed without the ## prefix
	inv   []string         // id → token as spelled in the vocabulary

	prefix       string // continuing-subword prefix, "##"
	maxWordChars int    // words longer than this (in runes) become [UNK]
	maxLen       int    // truncation length including [CLS] and [SEP]
	lowercase    bool
	stripAccents bool

	unk, cls, sep, pad int32
	specials           []special // added tokens matched verbatim in raw text
}

type special struct {
	text string
	id   int32
}

// LoadTokenizer reads the tokenizer of a model directory: tokenizer.json
// when present, else vocab.txt (with BERT-uncased defaults).
func LoadTokenizer(dir string) (*Tokenizer, error) {
	tj := filepath.Join(dir, "tokenizer.json")
	data, err := os.ReadFile(tj)
	if err == nil {
		t, err := ParseTokenizerJSON(data)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", tj, err)
		}
		return t, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	vt := filepath.Join(dir, "vocab.txt")
	f, err := os.Open(vt)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no tokenizer.json or vocab.txt in %s: %w", dir, err)
		}
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	defer f.Close()
	t, err := ParseVocab(f)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", vt, err)
	}
	return t, nil
}

// ParseVocab builds a tokenizer from a vocab.txt (one token per line, the
// line number being its id) with the settings of bert-base-uncased:
// lowercase, strip accents, "##" prefix, 100-rune words, 512 tokens.
func ParseVocab(r io.Reader) (*Tokenizer, error) {
	var tokens []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		tokens = append(tokens, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read vocab: %w", err)
	}
	vocab := make(map[string]int32, len(tokens))
	for i, tok := range tokens {
		if _, dup := vocab[tok]; !dup {
			vocab[tok] = int32(i)
		}
	}
	return newTokenizer(vocab, tokenizerConfig{})
}

// tokenizerConfig is what tokenizer.json can override; zero values mean
// the bert-base-uncased defaults.
type tokenizerConfig struct {
	unk          string
	prefix       string
	maxWordChars int
	maxLen       int
	noLowercase  bool
	noStrip      bool
	added        []string
}

// ParseTokenizerJSON builds a tokenizer from a Hugging Face tokenizer.json
// with a WordPiece model and a BERT normalizer.
func ParseTokenizerJSON(data []byte) (*Tokenizer, error) {
	var tj struct {
		Truncation *struct {
			MaxLength int `json:"max_length"`
		} `json:"truncation"`
		AddedTokens []struct {
			Content    string `json:"content"`
			Normalized bool   `json:"normalized"`
		} `json:"added_tokens"`
		Normalizer *struct {
			Type         string `json:"type"`
			Lowercase    *bool  `json:"lowercase"`
			StripAccents *bool  `json:"strip_accents"`
		} `json:"normalizer"`
		Model struct {
			Type                    string           `json:"type"`
			UnkToken                string           `json:"unk_token"`
			ContinuingSubwordPrefix string           `json:"continuing_subword_prefix"`
			MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
			Vocab                   map[string]int32 `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &tj); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	if tj.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("tokenizer.json: model type %q, want WordPiece", tj.Model.Type)
	}
	if len(tj.Model.Vocab) == 0 {
		return nil, errors.New("tokenizer.json: empty vocabulary")
	}
	cfg := tokenizerConfig{
		unk:          tj.Model.UnkToken,
		prefix:       tj.Model.ContinuingSubwordPrefix,
		maxWordChars: tj.Model.MaxInputCharsPerWord,
	}
	if tj.Truncation != nil {
		cfg.maxLen = tj.Truncation.MaxLength
	}
	if n := tj.Normalizer; n != nil {
		if n.Type != "BertNormalizer" {
			return nil, fmt.Errorf("tokenizer.json: normalizer %q, want BertNormalizer", n.Type)
		}
		if n.Lowercase != nil && !*n.Lowercase {
			cfg.noLowercase = true
		}
		// strip_accents null means "follow lowercase".
		if n.StripAccents != nil && !*n.StripAccents || n.StripAccents == nil && cfg.noLowercase {
			cfg.noStrip = true
		}
	}
	for _, a := range tj.AddedTokens {
		if !a.Normalized {
			cfg.added = append(cfg.added, a.Content)
		}
	}
	return newTokenizer(tj.Model.Vocab, cfg)
}

func newTokenizer(vocab map[string]int32, cfg tokenizerConfig) (*Tokenizer, error) {
	if cfg.unk == "" {
		cfg.unk = TokenUnk
	}
	if cfg.prefix == "" {
		cfg.prefix = "##"
	}
	if cfg.maxWordChars <= 0 {
		cfg.maxWordChars = 100
	}
	if cfg.maxLen <= 2 || cfg.maxLen > MaxSeqLen {
		cfg.maxLen = MaxSeqLen
	}
	if cfg.added == nil {
		cfg.added = []string{TokenPad, TokenUnk, TokenCLS, TokenSEP, TokenMask}
	}
	t := &Tokenizer{
		vocab:        make(map[string]int32, len(vocab)),
		cont:         make(map[string]int32, len(vocab)/4),
		prefix:       cfg.prefix,
		maxWordChars: cfg.maxWordChars,
		maxLen:       cfg.maxLen,
		lowercase:    !cfg.noLowercase,
		stripAccents: !cfg.noStrip,
	}
	maxID := int32(-1)
	for tok, id := range vocab {
		if id < 0 {
			return nil, fmt.Errorf("negative id %d for token %q", id, tok)
		}
		maxID = max(maxID, id)
		if rest, ok := strings.CutPrefix(tok, cfg.prefix); ok && rest != "" {
			t.cont[rest] = id
		}
		t.vocab[tok] = id
	}
	t.inv = make([]string, maxID+1)
	for tok, id := range vocab {
		t.inv[id] = tok
	}
	var err error
	lookup := func(tok string) int32 {
		id, ok := vocab[tok]
		if !ok && err == nil {
			err = fmt.Errorf("vocabulary has no %s token", tok)
		}
		return id
	}
	t.unk, t.cls, t.sep, t.pad = lookup(cfg.unk), lookup(TokenCLS), lookup(TokenSEP), lookup(TokenPad)
	if err != nil {
		return nil, err
	}
	for _, s := range cfg.added {
		if id, ok := vocab[s]; ok && s != "" {
			t.specials = append(t.specials, special{s, id})
		}
	}
	return t, nil
}

// VocabSize is one more than the largest token id.
func (t *Tokenizer) VocabSize() int { return len(t.inv) }

// Token is the vocabulary spelling of id ("" when out of range).
func (t *Tokenizer) Token(id int32) string {
	if id < 0 || int(id) >= len(t.inv) {
		return ""
	}
	return t.inv[id]
}

// MaxLen is the truncation length, [CLS] and [SEP] included.
func (t *Tokenizer) MaxLen() int { return t.maxLen }

// CLS, SEP, PAD and UNK are the special token ids.
func (t *Tokenizer) CLS() int32 { return t.cls }
func (t *Tokenizer) SEP() int32 { return t.sep }
func (t *Tokenizer) PAD() int32 { return t.pad }
func (t *Tokenizer) UNK() int32 { return t.unk }

// Tokenize returns the WordPiece ids of text: no [CLS]/[SEP], no
// truncation. Special tokens spelled verbatim in text (e.g. "[SEP]") map
// to their ids, as in the reference tokenizer.
func (t *Tokenizer) Tokenize(text string) []int32 {
	ids := make([]int32, 0, len(text)/3+1)
	var b strings.Builder
	for text != "" {
		i, sp := t.nextSpecial(text)
		b.Reset()
		t.normalize(&b, text[:i])
		preTokenize(b.String(), func(w string) { ids = t.wordPiece(ids, w) })
		if sp == nil {
			break
		}
		ids = append(ids, sp.id)
		text = text[i+len(sp.text):]
	}
	return ids
}

// nextSpecial finds the first verbatim special token in s: its byte offset
// and the token, or len(s) and nil.
func (t *Tokenizer) nextSpecial(s string) (int, *special) {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '[')
		if i < 0 {
			return len(s), nil
		}
		off += i
		for k := range t.specials {
			if strings.HasPrefix(s[off:], t.specials[k].text) {
				return off, &t.specials[k]
			}
		}
		off++
	}
}

// Encode returns [CLS] + the ids of text truncated to MaxLen-2 + [SEP].
func (t *Tokenizer) Encode(text string) []int32 {
	return t.Wrap(t.Tokenize(text))
}

// Wrap adds [CLS] and [SEP] around ids, truncating ids on the right so the
// result is at most MaxLen long. It does not modify ids.
func (t *Tokenizer) Wrap(ids []int32) []int32 {
	if n := t.maxLen - 2; len(ids) > n {
		ids = ids[:n]
	}
	out := make([]int32, 0, len(ids)+2)
	out = append(out, t.cls)
	out = append(out, ids...)
	return append(out, t.sep)
}
