package lang

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// fullParse parses src as C through the grammar even where Inert would
// skip it.
func fullParse(t *testing.T, p *Parser, path string, src []byte) (Facts, schema.ParseStatus) {
	t.Helper()
	l := *ByName("c")
	l.Inert = nil
	facts, status, err := p.Parse(context.Background(), path, &l, src)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return facts, status
}

// TestCDefinesOnly checks which sources the C fast path takes, and that
// each one it takes parses through the grammar to no facts and no error.
func TestCDefinesOnly(t *testing.T) {
	cases := []struct {
		src  string
		want bool
	}{
		{"", true},
		{"/* SPDX */\n#ifndef _REG_H\n#define _REG_H\n\n#define mmA 0x0010 /* a */\n#define mmB_MASK 0x00ff0000L\n#define mmC \\\n\t(1 << 3)\n#undef mmC\n#endif /* _REG_H */\n", true},
		{"/*\n * a\n * long comment\n */\n#define X 1\n", true},
		{"#  define X 1\n#ifdef Y\n#define Z 2 /* z */\n#endif\n", true},
		{"#define X 1\r\n#define Y 2\r\n", true},
		{"#define F(x) ((x) + 1)\n", false},                // function-like: the extractor keeps its name
		{"#include <linux/types.h>\n#define X 1\n", false}, // an import
		{"#define X 1\nint x;\n", false},                   // code
		{"#if defined(X)\n#define Y\n#endif\n", false},     // an expression
		{"#ifndef X\n#define X\n", false},                  // unbalanced
		{"#endif\n", false},
		{"#ifdef\n#endif\n", false},
		{"#defineX 1\n", false},
		{"#define\n", false},
		{"#endif junk\n", false},
		{"#ifdef 1\n#endif\n", false},
		{"#pragma once\n#define X 1\n", false},
		{"/* open\n#define X 1\n", false},
		{"#define X 1 /* open\n still comment */\n", false},
		{"static int f(void) { return 0; }\n", false},
		// Seen in the kernel: the grammar marks these partial.
		{"#define CRT_ID_PINNACLE\t\t0x35ACDA16\t/* Pinnacle FXe */ \n", false},
		{"#define MODES \\\n\t/* both */ \\\n\tMODE_A, \\\n\tMODE_B\n", false},
		{"#define X 1 // x\n", false},
	}
	p := NewParser()
	defer p.Close()
	for _, c := range cases {
		if got := cDefinesOnly([]byte(c.src)); got != c.want {
			t.Errorf("cDefinesOnly(%q) = %v, want %v", c.src, got, c.want)
		}
		if !c.want {
			continue
		}
		facts, status := fullParse(t, p, "reg.h", []byte(c.src))
		if want := (Facts{Path: "reg.h", Language: "c"}); status != schema.ParseOK || !reflect.DeepEqual(facts, want) {
			t.Errorf("%q: the grammar gives %s and %+v, the fast path ParseOK and no facts", c.src, status, facts)
		}
		fast, fstatus, err := p.Parse(context.Background(), "reg.h", ByName("c"), []byte(c.src))
		if err != nil || fstatus != schema.ParseOK || !reflect.DeepEqual(fast, Facts{Path: "reg.h", Language: "c"}) {
			t.Errorf("%q: Parse gives %s, %v, %+v", c.src, fstatus, err, fast)
		}
	}
}

// TestCDefinesOnlyKernel checks the fast path against the grammar on
// every file of the Linux kernel it takes, when the corpus is present
// (`../shared/bench/corpora.sh linux`).
func TestCDefinesOnlyKernel(t *testing.T) {
	root := corpusRoot(t, "linux")
	p := NewParser()
	defer p.Close()
	taken, bytes, small, smallBytes := 0, 0, 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(path, ".c") && !strings.HasSuffix(path, ".h") || !d.Type().IsRegular() {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !cDefinesOnly(src) {
			return err
		}
		taken++
		bytes += len(src)
		if len(src) <= 1<<20 {
			small++
			smallBytes += len(src)
		}
		rel, _ := filepath.Rel(root, path)
		facts, status := fullParse(t, p, rel, src)
		if status != schema.ParseOK || !reflect.DeepEqual(facts, Facts{Path: rel, Language: "c"}) {
			t.Errorf("%s: taken by the fast path, but the grammar gives %s with %d symbols, %d calls, %d macros",
				rel, status, len(facts.Symbols), len(facts.Calls), len(facts.Macros))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kernel: the fast path takes %d files, %d MB (%d files, %d MB within analyze's default 1 MiB cap)", taken, bytes>>20, small, smallBytes>>20)
	if taken == 0 {
		t.Error("the fast path took no kernel file: its register headers should be taken")
	}
}
