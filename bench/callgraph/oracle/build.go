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
	"strings"

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
	g, _, err := build(ctx, dir, opts)
	return g, err
}

// build is Build, also returning the builder (and through it the SSA
// program) for tests.
func build(ctx context.Context, dir string, opts Options) (*Graph, *builder, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("oracle: %w", err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return nil, nil, fmt.Errorf("oracle: %s is not a module root (no go.mod): %w", root, err)
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
		return nil, nil, fmt.Errorf("oracle: load %s: %w", root, err)
	}
	if len(pkgs) == 0 {
		return nil, nil, fmt.Errorf("oracle: no packages match %v in %s", patterns, root)
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
		return nil, nil, err
	}

	log.Info("oracle: building SSA", "packages", len(pkgs))
	prog, ssaPkgs := ssautil.Packages(pkgs, ssa.BuilderMode(0))
	prog.Build()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}

	b := newBuilder(root, prog)
	for i, p := range pkgs {
		if ssaPkgs[i] == nil {
			continue
		}
		g.Packages++
		b.addPackage(p, ssaPkgs[i])
	}
	b.finish()

	log.Info("oracle: call graphs", "functions", len(b.funcs))
	if err := b.resolve(ctx); err != nil {
		return nil, nil, err
	}
	// Mark the static edges that go/callgraph/static itself finds (it
	// misses those made inside closures passed as values; see resolve).
	xs := project(b, static.CallGraph(prog))
	for i, e := range b.static {
		b.static[i].XTools = xs[[2]int{e.Caller, e.Callee}]
	}
	g.Static, g.CHA = b.static, b.cha
	g.Funcs = b.funcs
	sort.Strings(b.files)
	g.Files = b.files
	g.Collisions = b.collisions
	log.Info("oracle: done", "module", g.Module, "functions", len(g.Funcs), "static", len(g.Static), "cha", len(g.CHA))
	return g, b, nil
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
	prog *ssa.Program
	fset *token.FileSet

	// src are the module's source functions: every declared function and
	// method of a loaded non-test file, and their closures.
	src []*ssa.Function
	// types are the module's non-generic, non-interface named types.
	types []types.Type

	files      []string
	funcs      []Func
	index      map[key]int                 // key -> index in funcs (before sorting: see finish)
	callExprs  map[token.Pos]*ast.CallExpr // Lparen -> call expression, all loaded files
	infos      map[*types.Package]*types.Info
	collisions int

	sorted bool

	// Results of resolve.
	static []StaticEdge
	cha    [][2]int
}

func newBuilder(root string, prog *ssa.Program) *builder {
	return &builder{
		root:      root,
		prog:      prog,
		fset:      prog.Fset,
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
func (b *builder) addPackage(p *packages.Package, sp *ssa.Package) {
	if p.TypesInfo != nil {
		b.infos[p.Types] = p.TypesInfo
	}
	for _, m := range sp.Members {
		if t, ok := m.(*ssa.Type); ok {
			if named, ok := t.Type().(*types.Named); ok && named.TypeParams() == nil && !types.IsInterface(named) {
				b.types = append(b.types, named, types.NewPointer(named))
			}
		}
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
			if obj, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
				if fn := b.prog.FuncValue(obj); fn != nil {
					b.addSource(fn)
				}
			}
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

// addSource records fn and its closures, recursively, as source functions.
func (b *builder) addSource(fn *ssa.Function) {
	b.src = append(b.src, fn)
	for _, anon := range fn.AnonFuncs {
		b.addSource(anon)
	}
}

// finish sorts funcs by (file, line) and renumbers the index.
func (b *builder) finish() {
	if b.sorted {
		return
	}
	order := make([]int, len(b.funcs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool {
		x, y := b.funcs[order[i]], b.funcs[order[j]]
		if x.File != y.File {
			return x.File < y.File
		}
		return x.Line < y.Line
	})
	perm := make([]int, len(b.funcs))
	sorted := make([]Func, len(b.funcs))
	for newI, oldI := range order {
		perm[oldI] = newI
		sorted[newI] = b.funcs[oldI]
	}
	b.funcs = sorted
	for k, i := range b.index {
		b.index[k] = perm[i]
	}
	b.sorted = true
}
