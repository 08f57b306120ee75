package lang

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// DefaultFileTimeout bounds the parse of one file. Tree-sitter parses
// megabytes a second; a file that takes longer is pathological (minified
// or generated) and is recorded with status error rather than stalling a
// worker.
const DefaultFileTimeout = 20 * time.Second

// readChunk is the most bytes handed to tree-sitter per read callback
// where Parse goes through the binding (cParseOK false). The binding copies
// every chunk into C memory that lives until the parse ends, so chunks are
// bounded rather than "the rest of the file".
const readChunk = 64 << 10

// ErrParseAborted is wrapped by Parse's error when the parser gave no tree
// because the context was done or the per-file timeout passed.
var ErrParseAborted = errors.New("parse aborted")

// Parser parses files and extracts their Facts. It holds one tree-sitter
// parser per language, created on first use and reused. A Parser is not safe
// for concurrent use: give each worker goroutine its own, and Close it when
// the worker ends.
type Parser struct {
	// FileTimeout bounds one file's parse; zero means DefaultFileTimeout.
	FileTimeout time.Duration

	parsers map[string]*sitter.Parser
	// scratch holds the facts' lists of the last file extracted, emptied:
	// the next file's are appended to them (Facts.startFrom, takeInto).
	scratch Facts
	// masked is the storage of the last text a Language.Mask copied.
	masked []byte
}

// NewParser returns a Parser with no tree-sitter parsers yet.
func NewParser() *Parser {
	return &Parser{parsers: map[string]*sitter.Parser{}}
}

// Close frees every tree-sitter parser. The Parser must not be used after.
func (p *Parser) Close() {
	for name, sp := range p.parsers {
		sp.Close()
		delete(p.parsers, name)
	}
}

func (p *Parser) parserFor(l *Language) (*sitter.Parser, error) {
	if sp, ok := p.parsers[l.Name]; ok {
		return sp, nil
	}
	sp := sitter.NewParser()
	if err := sp.SetLanguage(fastGrammar(l.Grammar())); err != nil {
		sp.Close()
		return nil, fmt.Errorf("set %s grammar: %w", l.Name, err)
	}
	p.parsers[l.Name] = sp
	return sp, nil
}

// Parse parses src (the content of the repo-relative path) as language l and
// runs l's extractor. The status is:
//
//   - ParseOK: a clean tree;
//   - ParsePartial: the tree has ERROR or MISSING nodes; the Facts hold what
//     the extractor found around them;
//   - ParseError: no tree (ctx done, FileTimeout passed) or the extractor
//     panicked; err says why and names the path, and Facts hold only the
//     path and language;
//   - ParseNoGrammar: l is nil or has no grammar; err is nil.
//
// A non-nil err always comes with ParseError; callers record the status and
// go on with the next file.
func (p *Parser) Parse(ctx context.Context, path string, l *Language, src []byte) (facts Facts, status schema.ParseStatus, err error) {
	if l == nil || (l.Source == nil && (l.Grammar == nil || l.Extract == nil)) {
		name := ""
		if l != nil {
			name = l.Name
		}
		return Facts{Path: path, Language: name}, schema.ParseNoGrammar, nil
	}
	empty := Facts{Path: path, Language: l.Name}
	if err := ctx.Err(); err != nil {
		return empty, schema.ParseError, fmt.Errorf("parse %s: %w: %w", path, ErrParseAborted, err)
	}
	if l.Source != nil {
		// A parser of Go's own (go/parser) runs in time linear in the
		// file, tens of MB/s: no timeout of its own.
		return p.extract(path, l, src, schema.ParseOK, l.Source)
	}
	if l.Inert != nil && l.Inert(src) {
		return empty, schema.ParseOK, nil
	}
	sp, err := p.parserFor(l)
	if err != nil {
		return empty, schema.ParseError, fmt.Errorf("parse %s: %w", path, err)
	}

	timeout := p.FileTimeout
	if timeout <= 0 {
		timeout = DefaultFileTimeout
	}
	text, err := p.mask(path, l, src) // what the grammar parses; the extractor reads src
	if err != nil {
		return empty, schema.ParseError, err
	}
	var tree *sitter.Tree
	timedOut := false
	if cParseOK {
		tree, timedOut = parseC(ctx, sp, text, timeout)
	} else {
		deadline := time.Now().Add(timeout)
		calls := 0
		opts := &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool {
			calls++
			if ctx.Err() != nil {
				return true
			}
			if calls&63 == 0 && time.Now().After(deadline) { // time.Now is not free
				timedOut = true
				return true
			}
			return false
		}}
		n := len(text)
		tree = sp.ParseWithOptions(func(i int, _ sitter.Point) []byte {
			if i >= n {
				return nil
			}
			return text[i:min(n, i+readChunk)]
		}, nil, opts)
	}
	if tree == nil {
		sp.Reset() // an aborted parse leaves state behind for resumption
		cause := ctx.Err()
		switch {
		case cause != nil:
		case timedOut:
			cause = fmt.Errorf("timeout after %s", timeout)
		default:
			cause = errors.New("parser returned no tree")
		}
		return empty, schema.ParseError, fmt.Errorf("parse %s: %w: %w", path, ErrParseAborted, cause)
	}
	defer tree.Close()

	root := tree.RootNode()
	status = schema.ParseOK
	if root.HasError() {
		status = schema.ParsePartial
	}

	return p.extract(path, l, src, status, func(f *File) bool { l.Extract(f, root); return false })
}

// mask is the text l's grammar parses for src (Language.Mask; src when
// l has none). A panic in the mask is the file's error, as one in an
// extractor is (extract).
func (p *Parser) mask(path string, l *Language, src []byte) (text []byte, err error) {
	if l.Mask == nil {
		return src, nil
	}
	defer func() {
		if r := recover(); r != nil {
			text, err = nil, fmt.Errorf("mask %s (%s): panic: %v\n%s", path, l.Name, r, debug.Stack())
		}
	}()
	text = l.Mask(src, p.masked)
	if len(text) > 0 && &text[0] != &src[0] {
		p.masked = text[:0]
	}
	return text, nil
}

// extract runs an extractor, run, on a File of src and returns its
// facts with status, ParsePartial when run reports the source partial.
// A panic in run is the file's ParseError, with empty facts.
func (p *Parser) extract(path string, l *Language, src []byte, status schema.ParseStatus, run func(f *File) (partial bool)) (facts Facts, st schema.ParseStatus, err error) {
	defer func() {
		if r := recover(); r != nil {
			facts, st = Facts{Path: path, Language: l.Name}, schema.ParseError
			err = fmt.Errorf("extract %s (%s): panic: %v\n%s", path, l.Name, r, debug.Stack())
		}
	}()
	f := NewFile(path, l.Name, src)
	f.Facts.startFrom(&p.scratch)
	if run(f) {
		status = schema.ParsePartial
	}
	return f.Facts.takeInto(&p.scratch), status, nil
}
