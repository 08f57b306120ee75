package resolve

import (
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// heritageEdges turns extends/implements/embeds/include clauses into
// EXTENDS and IMPLEMENTS edges. The relation follows the labels: a class
// (or struct) over an interface (or trait) is IMPLEMENTS, anything else
// EXTENDS — so a Go struct embedding an interface implements it, a Ruby
// class including a module extends it, a PHP class using a trait
// implements it.
func (r *resolver) heritageEdges() {
	ids := make([]string, 0, len(r.heritage))
	for id := range r.heritage {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	seen := map[[2]string]bool{}
	for _, id := range ids {
		child := r.syms[id]
		if child == nil {
			continue
		}
		sc := r.scopeOf(child.FilePath)
		for _, h := range r.heritage[id] {
			p := r.typeNamed(ctx{sc: sc}, h.Parent)
			if p == nil || p.ID == child.ID || seen[[2]string{child.ID, p.ID}] {
				continue
			}
			seen[[2]string{child.ID, p.ID}] = true
			r.heritageEdge(child, p, h.Line)
		}
	}
	// Rust: impl Trait for Type where Type is declared in another file.
	for _, im := range r.impls {
		sc := r.scopeOf(im.file)
		if sc == nil {
			continue
		}
		child, parent := r.typeNamed(ctx{sc: sc}, im.tf.Name), r.typeNamed(ctx{sc: sc}, im.tf.Type)
		if child == nil || parent == nil || child.ID == parent.ID || seen[[2]string{child.ID, parent.ID}] {
			continue
		}
		seen[[2]string{child.ID, parent.ID}] = true
		r.heritageEdge(child, parent, im.tf.Line)
	}
}

func (r *resolver) heritageEdge(child, parent *sym, line int) {
	t := schema.RelExtends
	if child.Label == schema.LabelClass && parent.Label == schema.LabelInterface {
		t = schema.RelImplements
	}
	if child.Label == schema.LabelInterface && parent.Label == schema.LabelClass {
		return // not a pair the schema has (TS interface extending a class): skip
	}
	r.edge(t, child, parent, 1, schema.ReasonDeclared, line)
}

// goImplements draws IMPLEMENTS edges for Go's implicit interface
// satisfaction: a named non-interface type whose method set (its methods
// plus those promoted from embedded types) has every method of the
// interface (its method elements plus embedded interfaces'). Methods are
// matched by name and parameter count; empty interfaces are skipped (every
// type satisfies them, which says nothing).
func (r *resolver) goImplements() {
	type entry struct {
		t    *sym
		meth map[string]int // name → parameter count (-1 unknown)
	}
	var ifaces, types []entry
	for _, f := range r.in.Files {
		if f.Language != "go" {
			continue
		}
		for i := range f.Symbols {
			s := &f.Symbols[i]
			switch {
			case s.Label == schema.LabelInterface:
				ifaces = append(ifaces, entry{s, r.goIfaceMethods(s, 0)})
			case s.Label == schema.LabelClass:
				types = append(types, entry{s, r.goTypeMethods(s, 0)})
			}
		}
	}
	byMethod := map[string][]int{}
	for i, e := range types {
		for m := range e.meth {
			byMethod[m] = append(byMethod[m], i)
		}
	}
	for _, it := range ifaces {
		if len(it.meth) == 0 {
			continue
		}
		rarest := ""
		for m := range it.meth {
			if rarest == "" || len(byMethod[m]) < len(byMethod[rarest]) || len(byMethod[m]) == len(byMethod[rarest]) && m < rarest {
				rarest = m
			}
		}
	next:
		for _, ti := range byMethod[rarest] {
			t := types[ti]
			for m, n := range it.meth {
				tn, ok := t.meth[m]
				if !ok || n >= 0 && tn >= 0 && n != tn {
					continue next
				}
			}
			r.edge(schema.RelImplements, t.t, it.t, 0.85, schema.ReasonMethodSet, 0)
			r.implementers[it.t.ID] = append(r.implementers[it.t.ID], t.t)
		}
	}
}

// goIfaceMethods is an interface's method set: its method elements and
// those of embedded interfaces.
func (r *resolver) goIfaceMethods(s *sym, depth int) map[string]int {
	out := map[string]int{}
	for _, tf := range r.facts[s.ID] {
		if tf.Kind == "method" {
			out[tf.Name] = paramCount(tf.Type)
		}
	}
	for _, m := range r.methodsOf[s.ID] { // interface methods as Method nodes, if the extractor made them
		for _, ms := range m {
			out[ms.Name] = paramCount(strings.TrimPrefix(ms.Signature, "func "))
		}
	}
	if depth < 4 {
		for _, p := range r.parents(s) {
			if p.Label == schema.LabelInterface {
				for k, v := range r.goIfaceMethods(p, depth+1) {
					out[k] = v
				}
			}
		}
	}
	return out
}

// goTypeMethods is a named type's method set, promoted methods included.
func (r *resolver) goTypeMethods(s *sym, depth int) map[string]int {
	out := map[string]int{}
	if depth < 4 {
		for _, p := range r.parents(s) {
			var inner map[string]int
			if p.Label == schema.LabelInterface {
				inner = r.goIfaceMethods(p, depth+1)
			} else {
				inner = r.goTypeMethods(p, depth+1)
			}
			for k, v := range inner {
				out[k] = v
			}
		}
	}
	for name, ms := range r.methodsOf[s.ID] {
		out[name] = paramCount(methodParams(ms[0].Signature))
	}
	return out
}

// methodParams strips a Go method signature's receiver:
// "func (s *T) Name(a int) error" → "Name(a int) error".
func methodParams(sig string) string {
	sig = strings.TrimPrefix(sig, "func ")
	if strings.HasPrefix(sig, "(") {
		if i := strings.IndexByte(sig, ')'); i > 0 {
			sig = strings.TrimSpace(sig[i+1:])
		}
	}
	return sig
}

// paramCount counts the parameters in "Name(a, b int, c string) error":
// 3. -1 when there is no parameter list to read.
func paramCount(sig string) int {
	i := strings.IndexByte(sig, '(')
	if i < 0 {
		return -1
	}
	depth, n, any := 0, 0, false
	for _, c := range sig[i:] {
		switch c {
		case '(', '[', '{':
			depth++
			if depth == 1 {
				continue
			}
		case ')', ']', '}':
			depth--
			if depth == 0 {
				if any {
					n++
				}
				return n
			}
		case ',':
			if depth == 1 {
				n++
				continue
			}
		}
		if depth >= 1 && c != ' ' && c != '\t' && c != '\n' {
			any = true
		}
	}
	return -1
}
