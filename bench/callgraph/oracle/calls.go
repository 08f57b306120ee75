package oracle

import (
	"context"
	"go/token"
	"go/types"
	"sort"
	"strconv"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
	"golang.org/x/tools/go/types/typeutil"
)

// resolve computes the static and CHA edges of every source function.
//
// Why not simply go/callgraph/static and go/callgraph/cha: both start from
// ssautil.AllFunctions-like root sets that leave out code a source-level
// tool sees. static.CallGraph reaches a closure only when it is called
// directly, so the calls inside a callback (sort.Slice(xs, func...),
// r.GET("/", func(c *Context) {...})) would be missing from the recall
// yardstick; cha.CallGraph (through ssautil.AllFunctions) skips methods of
// unexported types that are never converted to an interface nor referenced,
// so their calls would be missing from the precision yardstick and every
// tool would be wrongly blamed for reporting them. So the callers here are
// all source functions, and the callees are resolved by the rules of those
// two packages: a call with a static callee (ssa.CallCommon.StaticCallee)
// is a static edge and a CHA edge; an interface method call reaches every
// method of that name and package of every type in the program that
// implements the interface; a call of any other function value reaches
// every function of its signature (the algorithm of
// golang.org/x/tools/go/callgraph/internal/chautil, whose universe here is
// ssautil.AllFunctions plus every source function and every method of the
// module's named types). The tests check that the edges of static.CallGraph
// and cha.CallGraph, projected the same way, are a subset of these.
func (b *builder) resolve(ctx context.Context) error {
	universe := ssautil.AllFunctions(b.prog)
	for _, fn := range b.src {
		universe[fn] = true
	}
	for _, t := range b.types {
		for sel := range b.prog.MethodSets.MethodSet(t).Methods() {
			if sel.Obj().(*types.Func).Signature().TypeParams() == nil {
				universe[b.prog.MethodValue(sel)] = true
			}
		}
	}
	r := newCHA(universe)
	memo := map[memoKey][]int{}

	type pair struct{ from, to int }
	firstSite := make(map[pair]token.Pos)
	static := make(map[pair]StaticEdge)
	cha := make(map[pair]bool)
	for n, fn := range b.src {
		if n%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		from := b.caller(fn)
		if from < 0 {
			continue
		}
		for _, blk := range fn.Blocks {
			for _, instr := range blk.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				common := site.Common()
				if g := common.StaticCallee(); g != nil {
					for _, to := range b.callees(r, g, true, memo, map[*ssa.Function]bool{}) {
						if to == from {
							continue
						}
						p := pair{from, to}
						cha[p] = true
						pos := common.Pos()
						if old, ok := firstSite[p]; ok && !b.before(pos, old) {
							continue
						}
						firstSite[p] = pos
						static[p] = b.staticEdge(from, to, fn, common, g)
					}
					continue
				}
				for _, g := range r.callees(site) {
					for _, to := range b.callees(r, g, false, memo, map[*ssa.Function]bool{}) {
						if to != from {
							cha[pair{from, to}] = true
						}
					}
				}
			}
		}
	}

	b.static = make([]StaticEdge, 0, len(static))
	for _, e := range static {
		b.static = append(b.static, e)
	}
	sort.Slice(b.static, func(i, j int) bool {
		x, y := b.static[i], b.static[j]
		if x.Caller != y.Caller {
			return x.Caller < y.Caller
		}
		return x.Callee < y.Callee
	})
	b.cha = make([][2]int, 0, len(cha))
	for p := range cha {
		b.cha = append(b.cha, [2]int{p.from, p.to})
	}
	sort.Slice(b.cha, func(i, j int) bool {
		if b.cha[i][0] != b.cha[j][0] {
			return b.cha[i][0] < b.cha[j][0]
		}
		return b.cha[i][1] < b.cha[j][1]
	})
	return nil
}

// before orders positions by file, line and column, unadjusted.
func (b *builder) before(x, y token.Pos) bool {
	px, py := b.fset.PositionFor(x, false), b.fset.PositionFor(y, false)
	if px.Filename != py.Filename {
		return px.Filename < py.Filename
	}
	if px.Line != py.Line {
		return px.Line < py.Line
	}
	return px.Column < py.Column
}

type memoKey struct {
	fn         *ssa.Function
	staticOnly bool
}

// callees returns the declared functions a call to g reaches: g itself if
// declared (an instance stands for its generic origin), the declared
// functions a synthetic wrapper calls, transitively (through its static
// calls only when staticOnly), or nothing (closures, functions outside the
// module).
func (b *builder) callees(r *chaResolver, g *ssa.Function, staticOnly bool, memo map[memoKey][]int, visiting map[*ssa.Function]bool) []int {
	if g.Parent() != nil {
		return nil // a closure: calling it is not calling its enclosing function
	}
	if i := b.declared(g); i >= 0 {
		return []int{i}
	}
	if g.Synthetic == "" || g.Origin() != nil {
		return nil
	}
	k := memoKey{g, staticOnly}
	if out, ok := memo[k]; ok {
		return out
	}
	if visiting[g] {
		return nil
	}
	visiting[g] = true
	defer delete(visiting, g)
	var out []int
	seen := map[int]bool{}
	add := func(h *ssa.Function) {
		for _, c := range b.callees(r, h, staticOnly, memo, visiting) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	for _, blk := range g.Blocks {
		for _, instr := range blk.Instrs {
			site, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			if h := site.Common().StaticCallee(); h != nil {
				add(h)
			} else if !staticOnly {
				for _, h := range r.callees(site) {
					add(h)
				}
			}
		}
	}
	memo[k] = out
	return out
}

func (b *builder) staticEdge(from, to int, fn *ssa.Function, common *ssa.CallCommon, callee *ssa.Function) StaticEdge {
	pos := common.Pos()
	site := ""
	if file, line := b.relFile(pos); file != "" {
		site = file + ":" + strconv.Itoa(line)
	}
	root := fn
	for root.Parent() != nil {
		root = root.Parent()
	}
	if o := root.Origin(); o != nil {
		root = o
	}
	kind := KindOther
	if root.Pkg != nil {
		if info := b.infos[root.Pkg.Pkg]; info != nil {
			kind = classify(b.callExprs[pos], info, callee, root.TypeParams().Len() > 0)
		}
	}
	return StaticEdge{Caller: from, Callee: to, Kind: kind, Site: site, InClosure: fn.Parent() != nil}
}

// chaResolver resolves dynamic call sites by class hierarchy analysis over
// a universe of functions. It follows
// golang.org/x/tools/go/callgraph/internal/chautil.LazyCallees
// (BSD-style licence, The Go Authors), which is internal to x/tools.
type chaResolver struct {
	funcsBySig  typeutil.Map // *types.Signature -> []*ssa.Function
	methodsByID map[string][]*ssa.Function
	memo        map[imethod][]*ssa.Function
}

type imethod struct {
	iface *types.Interface
	id    string
}

func newCHA(universe map[*ssa.Function]bool) *chaResolver {
	r := &chaResolver{methodsByID: map[string][]*ssa.Function{}, memo: map[imethod][]*ssa.Function{}}
	for f := range universe {
		if f.Signature.Recv() == nil {
			// Package initializers can never be address-taken.
			if f.Name() == "init" && f.Synthetic == "package initializer" {
				continue
			}
			fs, _ := r.funcsBySig.At(f.Signature).([]*ssa.Function)
			r.funcsBySig.Set(f.Signature, append(fs, f))
		} else if obj := f.Object(); obj != nil {
			id := obj.(*types.Func).Id()
			r.methodsByID[id] = append(r.methodsByID[id], f)
		}
	}
	return r
}

// callees returns the functions a call site may call: for an interface
// method call, the methods of that id of every type that implements the
// interface; for a call of a function value, every function of that
// signature; for a static call, its callee.
func (r *chaResolver) callees(site ssa.CallInstruction) []*ssa.Function {
	call := site.Common()
	if call.IsInvoke() {
		iface := call.Value.Type().Underlying().(*types.Interface)
		k := imethod{iface, call.Method.Id()}
		ms, ok := r.memo[k]
		if !ok {
			for _, f := range r.methodsByID[k.id] {
				if types.Implements(f.Signature.Recv().Type(), iface) {
					ms = append(ms, f)
				}
			}
			r.memo[k] = ms
		}
		return ms
	}
	if g := call.StaticCallee(); g != nil {
		return []*ssa.Function{g}
	}
	if _, ok := call.Value.(*ssa.Builtin); ok {
		return nil
	}
	fs, _ := r.funcsBySig.At(call.Signature()).([]*ssa.Function)
	return fs
}

// project applies the oracle's projection rules to an x/tools call graph:
// callers folded to their declared function, wrappers seen through along
// the graph's own edges, closures and outside functions dropped, no
// self-edges.
func project(b *builder, cg *callgraph.Graph) map[[2]int]bool {
	var targets func(g *ssa.Function, visiting map[*ssa.Function]bool) []int
	targets = func(g *ssa.Function, visiting map[*ssa.Function]bool) []int {
		if g.Parent() != nil {
			return nil
		}
		if i := b.declared(g); i >= 0 {
			return []int{i}
		}
		if g.Synthetic == "" || g.Origin() != nil || visiting[g] {
			return nil
		}
		visiting[g] = true
		defer delete(visiting, g)
		var out []int
		if n := cg.Nodes[g]; n != nil {
			for _, e := range n.Out {
				out = append(out, targets(e.Callee.Func, visiting)...)
			}
		}
		return out
	}
	edges := map[[2]int]bool{}
	for fn, n := range cg.Nodes {
		if fn == nil {
			continue
		}
		from := b.caller(fn)
		if from < 0 {
			continue
		}
		for _, e := range n.Out {
			for _, to := range targets(e.Callee.Func, map[*ssa.Function]bool{}) {
				if to != from {
					edges[[2]int{from, to}] = true
				}
			}
		}
	}
	return edges
}
