package oracle

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/static"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// Options configure Build.
type Options struct {
	// Patterns are the package patterns to load, relative to the module
	// directory; default "./...".
	Patterns []string
	// Env is the environment of the go command; default os.Environ().
	Env []string
	// Logger receives progress; default slog.Default().
	Logger *slog.Logger
}

// Build loads the Go module in dir and computes its static and CHA call
// graphs, projected onto the functions declared in the module's non-test
// files (see the package documentation for the rules).
func Build(ctx context.Context, dir string, opts Options) (*Graph, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return nil, fmt.Errorf("oracle: %s is not a module root (no go.mod): %w", root, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	patterns := opts.Patterns
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}

	cfg := &packages.Config{
		Context: ctx,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
			packages.NeedImports | packages.NeedTypes | packages.NeedTypesSizes |
			packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
		Dir:   root,
		Env:   env,
		Tests: false,
	}
	log.Info("oracle: loading packages", "dir", root, "patterns", patterns)
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("oracle: load %s: %w", root, err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("oracle: no packages match %v in %s", patterns, root)
	}
	g := &Graph{Version: FormatVersion, Tools: toolsVersion(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			g.LoadErrors = append(g.LoadErrors, e.Error())
		}
	})
	if len(g.LoadErrors) > 0 {
		log.Warn("oracle: packages have errors; continuing with what type-checks", "errors", len(g.LoadErrors), "first", g.LoadErrors[0])
	}
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Main {
			g.Module = p.Module.Path
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	log.Info("oracle: building SSA", "packages", len(pkgs))
	prog, ssaPkgs := ssautil.Packages(pkgs, ssa.BuilderMode(0))
	prog.Build()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	b := newBuilder(root, prog.Fset)
	for i, p := range pkgs {
		if ssaPkgs[i] == nil {
			continue
		}
		g.Packages++
		b.addPackage(p)
	}

	log.Info("oracle: static call graph")
	g.Static = b.staticEdges(static.CallGraph(prog))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	log.Info("oracle: CHA call graph")
	g.CHA = b.chaEdges(cha.CallGraph(prog))
	g.Funcs = b.funcs
	sort.Strings(b.files)
	g.Files = b.files
	g.Collisions = b.collisions
	log.Info("oracle: done", "module", g.Module, "functions", len(g.Funcs), "static", len(g.Static), "cha", len(g.CHA))
	return g, nil
}

func toolsVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "golang.org/x/tools" {
				return d.Path + " " + d.Version
			}
		}
	}
	return "golang.org/x/tools (unknown version)"
}

// key names a declared function: its file relative to the module root and
// the line of its func keyword.
type key struct {
	file string
	line int
}

type builder struct {
	root string
	fset *token.FileSet

	files      []string
	funcs      []Func
	index      map[key]int                 // key -> index in funcs (before sorting: see finish)
	callExprs  map[token.Pos]*ast.CallExpr // Lparen -> call expression, all loaded files
	infos      map[*types.Package]*types.Info
	collisions int

	sorted bool
	memo   map[*ssa.Function][]int // synthetic function -> declared functions it reaches
}

func newBuilder(root string, fset *token.FileSet) *builder {
	return &builder{
		root:      root,
		fset:      fset,
		index:     make(map[key]int),
		callExprs: make(map[token.Pos]*ast.CallExpr),
		infos:     make(map[*types.Package]*types.Info),
	}
}

// relFile returns the module-relative '/' path of the file at pos, or ""
// when the file is outside the module, a test file, or under testdata.
func (b *builder) relFile(pos token.Pos) (string, int) {
	if !pos.IsValid() {
		return "", 0
	}
	// Unadjusted: //line directives must not move a function away from the
	// file and line a syntax tree of the raw file shows.
	p := b.fset.PositionFor(pos, false)
	rel, err := filepath.Rel(b.root, p.Filename)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", 0
	}
	rel = filepath.ToSlash(rel)
	if strings.HasSuffix(rel, "_test.go") || rel == "testdata" || strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/") {
		return "", 0
	}
	return rel, p.Line
}

// addPackage records the declared functions and call expressions of one
// loaded package.
func (b *builder) addPackage(p *packages.Package) {
	if p.TypesInfo != nil {
		b.infos[p.Types] = p.TypesInfo
	}
	for _, f := range p.Syntax {
		if file, _ := b.relFile(f.FileStart); file != "" {
			b.files = append(b.files, file)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			file, line := b.relFile(fd.Pos()) // FuncDecl.Pos is its func keyword
			if file == "" {
				continue
			}
			k := key{file, line}
			if _, dup := b.index[k]; dup {
				b.collisions++
				continue
			}
			b.index[k] = len(b.funcs)
			b.funcs = append(b.funcs, Func{File: file, Line: line, Name: declName(p.Name, fd)})
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				b.callExprs[c.Lparen] = c
			}
			return true
		})
	}
}

func declName(pkg string, fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return pkg + "." + fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	recv := "?"
	if id, ok := t.(*ast.Ident); ok {
		recv = id.Name
	}
	if star != "" {
		return pkg + ".(*" + recv + ")." + fd.Name.Name
	}
	return pkg + "." + recv + "." + fd.Name.Name
}

// declared returns the index of the declared function fn stands for, or -1.
// Instances stand for their generic origin. fn must not be a closure.
func (b *builder) declared(fn *ssa.Function) int {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok {
		return -1
	}
	file, line := b.relFile(fd.Pos())
	if file == "" {
		return -1
	}
	if i, ok := b.index[key{file, line}]; ok {
		return i
	}
	return -1
}

// caller returns the declared function whose body contains fn's code: fn
// itself, or for a closure the declared function enclosing it; -1 for
// synthetic functions and code outside the module.
func (b *builder) caller(fn *ssa.Function) int {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if fn.Synthetic != "" && fn.Origin() == nil {
		return -1
	}
	return b.declared(fn)
}

// callees returns the declared functions a call to g reaches: g itself if
// declared, the declared functions a synthetic wrapper calls (transitively),
// or nothing (closures, external functions).
func (b *builder) callees(cg *callgraph.Graph, g *ssa.Function, visiting map[*ssa.Function]bool) []int {
	if g.Parent() != nil {
		return nil // a closure: calling it is not calling its enclosing function
	}
	if i := b.declared(g); i >= 0 {
		return []int{i}
	}
	if g.Synthetic == "" || g.Origin() != nil {
		return nil
	}
	if r, ok := b.memo[g]; ok {
		return r
	}
	if visiting[g] {
		return nil
	}
	visiting[g] = true
	defer delete(visiting, g)
	var out []int
	seen := map[int]bool{}
	if n := cg.Nodes[g]; n != nil {
		for _, e := range n.Out {
			for _, c := range b.callees(cg, e.Callee.Func, visiting) {
				if !seen[c] {
					seen[c] = true
					out = append(out, c)
				}
			}
		}
	}
	b.memo[g] = out
	return out
}

// finish sorts funcs by (file, line) once and returns the old->new index
// permutation.
func (b *builder) finish() []int {
	perm := make([]int, len(b.funcs))
	if b.sorted {
		for i := range perm {
			perm[i] = i
		}
		return perm
	}
	order := make([]int, len(b.funcs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool {
		a, c := b.funcs[order[i]], b.funcs[order[j]]
		if a.File != c.File {
			return a.File < c.File
		}
		return a.Line < c.Line
	})
	sortedFuncs := make([]Func, len(b.funcs))
	for newI, oldI := range order {
		perm[oldI] = newI
		sortedFuncs[newI] = b.funcs[oldI]
	}
	b.funcs = sortedFuncs
	for k, i := range b.index {
		b.index[k] = perm[i]
	}
	b.sorted = true
	return perm
}

// staticEdges projects the static call graph. It is called first, and sorts
// the function table.
func (b *builder) staticEdges(cg *callgraph.Graph) []StaticEdge {
	b.finish()
	b.memo = make(map[*ssa.Function][]int)
	type pair struct{ from, to int }
	first := make(map[pair]StaticEdge)
	firstPos := make(map[pair]token.Position)
	for fn, n := range cg.Nodes {
		if fn == nil {
			continue
		}
		from := b.caller(fn)
		if from < 0 {
			continue
		}
		for _, e := range n.Out {
			for _, to := range b.callees(cg, e.Callee.Func, map[*ssa.Function]bool{}) {
				if to == from {
					continue
				}
				p := pair{from, to}
				pos := b.fset.PositionFor(e.Site.Common().Pos(), false)
				if old, ok := firstPos[p]; ok && !before(pos, old) {
					continue
				}
				firstPos[p] = pos
				first[p] = b.staticEdge(from, to, fn, e)
			}
		}
	}
	out := make([]StaticEdge, 0, len(first))
	for _, e := range first {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Caller != out[j].Caller {
			return out[i].Caller < out[j].Caller
		}
		return out[i].Callee < out[j].Callee
	})
	return out
}

func before(a, b token.Position) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Column < b.Column
}

func (b *builder) staticEdge(from, to int, fn *ssa.Function, e *callgraph.Edge) StaticEdge {
	pos := e.Site.Common().Pos()
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
	var info *types.Info
	if root.Pkg != nil {
		info = b.infos[root.Pkg.Pkg]
	}
	kind := KindOther
	if info != nil {
		kind = classify(b.callExprs[pos], info, e.Callee.Func)
	}
	return StaticEdge{Caller: from, Callee: to, Kind: kind, Site: site, InClosure: fn.Parent() != nil}
}

// chaEdges projects the CHA call graph.
func (b *builder) chaEdges(cg *callgraph.Graph) [][2]int {
	b.finish()
	b.memo = make(map[*ssa.Function][]int)
	seen := make(map[[2]int]bool)
	for fn, n := range cg.Nodes {
		if fn == nil {
			continue
		}
		from := b.caller(fn)
		if from < 0 {
			continue
		}
		for _, e := range n.Out {
			for _, to := range b.callees(cg, e.Callee.Func, map[*ssa.Function]bool{}) {
				if to != from {
					seen[[2]int{from, to}] = true
				}
			}
		}
	}
	out := make([][2]int, 0, len(seen))
	for e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}
