package query

import (
	"regexp"
	"strings"
)

// Mentions are the places in the repository a query names outright: what
// an agent pastes from an issue — a file path or a link to one
// (".../blob/<sha>/xarray/core/nanops.py", "fitsrec.py"), a traceback
// frame (`File "astropy/io/fits/card.py", line 1, in fromstring`), a
// qualified name (`Header.fromstring`, `DataArray.integrate`). Parse finds
// them; the keyword retriever lifts what they name (mentionBoost).
type Mentions struct {
	// Files are path-shaped mentions, each its '/'-separated segments as
	// written ("xarray/core/nanops.py" → [xarray core nanops.py]).
	Files [][]string
	// Qualified are dotted names of at least two parts, each as its
	// parts (`Header.fromstring` → [Header fromstring]).
	Qualified [][]string
	// Names are identifiers written as code: in backticks (`polyval`) or
	// called (`pairplot(`). (Also taking every snake_case or camelCase
	// word measured no different on the dev set.)
	Names []string
}

// empty reports whether the query mentions nothing.
func (m Mentions) empty() bool {
	return len(m.Files) == 0 && len(m.Qualified) == 0 && len(m.Names) == 0
}

// maxMentions bounds each kind of mention a query contributes.
const maxMentions = 16

var (
	reFileMention = regexp.MustCompile(`(?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.(?:py|pyi|go|js|jsx|mjs|ts|tsx|java|kt|rb|rs|c|h|cc|cpp|hpp|cs|php|scala|swift)\b`)
	reQualified   = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+`)
	reTicked      = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*)(?:\\(\\))?`")
	reCalled      = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\(`)
)

// parseMentions finds the file paths and qualified names in q.
func parseMentions(q string) Mentions {
	var m Mentions
	seen := map[string]bool{}
	for _, s := range reFileMention.FindAllString(q, -1) {
		if len(m.Files) >= maxMentions {
			break
		}
		s = strings.Trim(s, "./")
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		m.Files = append(m.Files, strings.Split(s, "/"))
	}
	rest := reFileMention.ReplaceAllString(q, " ") // a path's dots are not a qualified name's
	for _, s := range reQualified.FindAllString(rest, -1) {
		if len(m.Qualified) >= maxMentions {
			break
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		m.Qualified = append(m.Qualified, strings.Split(s, "."))
	}
	for _, re := range []*regexp.Regexp{reTicked, reCalled} {
		for _, sm := range re.FindAllStringSubmatch(rest, -1) {
			if len(m.Names) >= maxMentions {
				break
			}
			if n := sm[1]; !seen["name:"+n] {
				seen["name:"+n] = true
				m.Names = append(m.Names, n)
			}
		}
	}
	return m
}

// maxMentionTargets is the most nodes one mention may lift: a mention that
// fits more (`utils.py` in a repository with forty) says too little.
const maxMentionTargets = 4

// mentionTargets returns the indexes of the nodes the query's mentions name:
// for a path, the files whose path ends with the longest suffix of it that
// some file has (at most maxMentionTargets of them); for a qualified name,
// the symbols whose qualified name ends with its last two parts
// (`xr.core.Dataset.copy` → Dataset.copy), or else, a module-level symbol
// named by the last part in a file or directory named by the one before
// (`units.quantity_input` → quantity_input in .../units/...).
func mentionTargets(nodes []node, m Mentions) []int32 {
	if m.empty() {
		return nil
	}
	var out []int32
	seenName := map[string]bool{}
	for _, segs := range m.Files {
		for start := 0; start < len(segs); start++ {
			suffix := strings.Join(segs[start:], "/")
			var hits []int32
			for i := range nodes {
				n := &nodes[i]
				if n.Label == "File" && (n.FilePath == suffix || strings.HasSuffix(n.FilePath, "/"+suffix)) {
					hits = append(hits, int32(i))
				}
			}
			if len(hits) > 0 {
				if len(hits) <= maxMentionTargets {
					out = append(out, hits...)
				}
				break
			}
		}
	}
	for _, parts := range m.Qualified {
		last := parts[len(parts)-1]
		owner := parts[len(parts)-2]
		var hits []int32
		for i := range nodes {
			n := &nodes[i]
			if n.Name != last || n.Label == "File" {
				continue
			}
			if strings.HasSuffix(qualifiedOf(n.ID), owner+"."+last) {
				hits = append(hits, int32(i))
			}
		}
		if len(hits) == 0 {
			for i := range nodes {
				n := &nodes[i]
				if n.Name != last || n.Label == "File" || strings.Contains(qualifiedOf(n.ID), ".") {
					continue
				}
				if strings.Contains("/"+n.FilePath, "/"+owner+"/") || strings.HasSuffix(n.FilePath, "/"+owner+".py") {
					hits = append(hits, int32(i))
				}
			}
		}
		if len(hits) == 0 {
			// `xr.where`: an alias of the package; a module-level symbol of
			// that name
			for i := range nodes {
				n := &nodes[i]
				if n.Name == last && n.Label != "File" && !strings.Contains(qualifiedOf(n.ID), ".") {
					hits = append(hits, int32(i))
				}
			}
		}
		if len(hits) > 0 && len(hits) <= maxMentionTargets {
			out = append(out, hits...)
		}
	}
	for _, name := range m.Names {
		if seenName[name] {
			continue
		}
		seenName[name] = true
		var hits []int32
		for i := range nodes {
			if nodes[i].Name == name && nodes[i].Label != "File" {
				hits = append(hits, int32(i))
			}
		}
		if len(hits) > 0 && len(hits) <= maxMentionTargets {
			out = append(out, hits...)
		}
	}
	return dedupeIdx(out)
}

// dedupeIdx keeps the first of each index, in order.
func dedupeIdx(xs []int32) []int32 {
	seen := map[int32]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// qualifiedOf is the qualified name inside a symbol id
// ("path#Qualified.name:kind" → "Qualified.name"); "" for a file id.
func qualifiedOf(id string) string {
	_, rest, ok := strings.Cut(id, "#")
	if !ok {
		return ""
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// mentionBoost adds weight × the best score in byDoc to every node the
// mentions name and, for a named file, to every symbol defined in it (a
// file named in an issue is where its functions are looked for). It
// returns the nodes that were not in byDoc yet, in node order.
func mentionBoost(nodes []node, m Mentions, byDoc map[int32]float64, weight float64) []int32 {
	targets := mentionTargets(nodes, m)
	if len(targets) == 0 {
		return nil
	}
	best := 0.0
	for _, s := range byDoc {
		best = max(best, s)
	}
	if best == 0 {
		best = 1
	}
	lift := map[int32]bool{}
	files := map[string]bool{}
	for _, t := range targets {
		lift[t] = true
		if nodes[t].Label == "File" {
			files[nodes[t].FilePath] = true
		}
	}
	var added []int32
	for i := range nodes {
		d := int32(i)
		if !lift[d] && !(files[nodes[i].FilePath] && byDoc[d] > 0) {
			continue
		}
		if _, ok := byDoc[d]; !ok {
			added = append(added, d)
		}
		byDoc[d] += weight * best
	}
	return added
}
