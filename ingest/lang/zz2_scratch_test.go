package lang

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

func TestZZErrorKinds(t *testing.T) {
	root := os.Getenv("ZZROOT")
	if root == "" {
		t.Skip()
	}
	sp, _ := NewParser().parserFor(ByName("c"))
	cnt := map[string]int{}
	samples := map[string][]string{}
	word := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".c") || strings.HasSuffix(path, ".h")) {
			return nil
		}
		b, _ := os.ReadFile(path)
		if len(b) > 1<<20 {
			return nil
		}
		m := cMask(b, nil)
		tr, _ := parseC(context.Background(), sp, m, time.Minute)
		walkNamed(tr.RootNode(), func(c *sitter.Node) bool {
			if c.IsError() || c.IsMissing() {
				s := c.StartByte()
				ls := bytes.LastIndexByte(b[:s], '\n') + 1
				le := bytes.IndexByte(b[s:], '\n')
				if le < 0 {
					le = len(b) - int(s)
				}
				line := string(b[ls : int(s)+le])
				w := word.FindString(string(b[s:min(int(s)+60, len(b))]))
				lw := word.FindString(strings.TrimSpace(line))
				k := fmt.Sprintf("%s | first=%s", w, lw)
				cnt[k]++
				if len(samples[k]) < 2 {
					samples[k] = append(samples[k], fmt.Sprintf("%s:%d: %s", path[len(root):], bytes.Count(b[:s], []byte("\n"))+1, strings.TrimSpace(line)))
				}
				return false
			}
			return c.HasError()
		})
		tr.Close()
		return nil
	})
	type kv struct {
		k string
		v int
	}
	var kvs []kv
	for k, v := range cnt {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v })
	for _, x := range kvs[:min(40, len(kvs))] {
		fmt.Println(x.v, x.k, samples[x.k])
	}
}
