package lang

import (
	"path"
	"sort"
	"strings"
)

// registry holds every language; each language file adds itself in init.
var registry = map[string]*Language{}

func register(l *Language) {
	if _, dup := registry[l.Name]; dup {
		panic("lang: duplicate language " + l.Name)
	}
	registry[l.Name] = l
}

// ByName returns the language called name, or nil.
func ByName(name string) *Language { return registry[name] }

// All returns every registered language, sorted by name.
func All() []*Language {
	out := make([]*Language, 0, len(registry))
	for _, l := range registry {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Detect returns the language of a repo-relative path, or nil when no
// registered language claims it. Exact file names win over extensions, and
// the longest matching extension wins (".d.ts" before ".ts").
func Detect(p string) *Language {
	base := path.Base(p)
	for _, l := range registry {
		for _, n := range l.FileNames {
			if n == base {
				return l
			}
		}
	}
	var best *Language
	bestLen := 0
	lower := strings.ToLower(base)
	for _, l := range registry {
		for _, ext := range l.Extensions {
			if len(ext) > bestLen && strings.HasSuffix(lower, ext) {
				best, bestLen = l, len(ext)
			}
		}
	}
	return best
}
