package resolve

import (
	"path"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
	"github.com/gitnexus/gitnexus/ingest/lang"
)

// fileScope is what a file's imports make visible in it.
type fileScope struct {
	f *lang.Facts
	// modules maps a local name (Go package name or alias, Python module
	// alias, JS namespace/default import, Rust path, C# alias) to the files
	// it stands for.
	modules map[string][]string
	// external holds local names bound to imports outside the repository.
	external map[string]bool
	// names maps imported names to the symbols they denote.
	names map[string][]*sym
	// open lists files whose top-level names are all visible here (Go dot
	// imports, wildcard imports, C includes, Ruby requires, using
	// namespaces).
	open []string
}

// imports resolves the imports of f, emits its IMPORTS edges and returns its
// scope.
func (r *resolver) imports(f *lang.Facts) *fileScope {
	sc := &fileScope{f: f, modules: map[string][]string{}, external: map[string]bool{}, names: map[string][]*sym{}}
	seen := map[string]bool{}
	link := func(targets []string, line int) {
		for _, t := range targets {
			if t != f.Path && !seen[t] {
				seen[t] = true
				r.fileEdge(f.Path, t, 0.9, schema.ReasonModuleRule, line)
			}
		}
	}
	for _, imp := range f.Imports {
		r.out.Stats.Imports++
		var targets []string
		switch f.Language {
		case "go":
			targets = r.goImport(sc, imp)
		case "python":
			targets = r.pyImport(sc, imp)
		case "javascript", "typescript", "tsx":
			targets = r.jsImport(sc, imp)
		case "java":
			targets = r.javaImport(sc, imp)
		case "csharp":
			targets = r.nsImport(sc, imp, "csharp", ".")
		case "php":
			targets = r.phpImport(sc, imp)
		case "rust":
			targets = r.rustImport(sc, imp)
		case "c", "cpp":
			targets = r.includeImport(sc, imp)
		case "ruby":
			targets = r.rubyImport(sc, imp)
		}
		if len(targets) > 0 {
			r.out.Stats.ImportsIn++
		}
		link(targets, imp.Line)
	}
	return sc
}

// bindNames binds each imported name ("X" or "X as Y") to the top-level
// symbols called X in files.
func (r *resolver) bindNames(sc *fileScope, names []string, files []string) {
	for _, n := range names {
		name, alias := n, n
		if i := strings.Index(n, " as "); i > 0 {
			name, alias = strings.TrimSpace(n[:i]), strings.TrimSpace(n[i+4:])
		}
		if name == "*" {
			sc.open = append(sc.open, files...)
			continue
		}
		for _, file := range files {
			sc.names[alias] = append(sc.names[alias], r.topLevel(file, name)...)
		}
	}
}

// topLevel returns the functions and types called name in file.
func (r *resolver) topLevel(file, name string) []*sym {
	var out []*sym
	out = append(out, r.funcsByFile[file][name]...)
	out = append(out, r.typesByFile[file][name]...)
	return out
}

// ---- Go ----

type goModule struct{ path, dir string }

// goImport binds a Go import: the package's files, under its package name
// (or alias); "." opens them; an import outside every module of the
// repository is external.
func (r *resolver) goImport(sc *fileScope, imp lang.Import) []string {
	dir, ok := r.goDir(imp.Spec)
	var files []string
	if ok {
		for _, p := range r.dirs[dir] {
			if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				files = append(files, p)
			}
		}
	}
	local := imp.Alias
	if local == "" && len(files) > 0 {
		if f := r.files[files[0]]; f != nil {
			local = f.Package
		}
	}
	if local == "" {
		local = goDefaultName(imp.Spec)
	}
	switch {
	case local == "_":
	case local == ".":
		sc.open = append(sc.open, files...)
	case len(files) == 0:
		sc.external[local] = true
	default:
		sc.modules[local] = files
	}
	return files
}

// goDefaultName guesses the package name of an import path: its last
// element without a major-version suffix or a "go-" prefix.
func goDefaultName(spec string) string {
	parts := strings.Split(spec, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	last = strings.TrimPrefix(last, "go-")
	if i := strings.IndexByte(last, '.'); i > 0 {
		last = last[:i]
	}
	return strings.ReplaceAll(last, "-", "_")
}

// goDir maps an import path to a repository directory through the go.mod
// files (longest module path wins).
func (r *resolver) goDir(spec string) (string, bool) {
	best := -1
	for i, m := range r.goMods {
		if spec == m.path || strings.HasPrefix(spec, m.path+"/") {
			if best < 0 || len(m.path) > len(r.goMods[best].path) {
				best = i
			}
		}
	}
	if best < 0 {
		return "", false
	}
	m := r.goMods[best]
	rel := strings.TrimPrefix(strings.TrimPrefix(spec, m.path), "/")
	d := path.Join(m.dir, rel)
	if d == "" {
		d = "."
	}
	_, ok := r.dirs[d]
	return d, ok
}

// ---- Python ----

func (r *resolver) pyModuleFile(mod string) (string, bool) {
	if f, ok := r.pyMods[mod]; ok {
		return f, true
	}
	// a src/ layout or a repository that is itself inside a package: the
	// module whose dotted path ends with ".mod", when unique.
	var hit string
	n := 0
	for m, f := range r.pyMods {
		if strings.HasSuffix(m, "."+mod) {
			hit = f
			n++
		}
	}
	return hit, n == 1
}

func (r *resolver) pyImport(sc *fileScope, imp lang.Import) []string {
	mod := imp.Spec
	if imp.Kind == "relative" || strings.HasPrefix(mod, ".") {
		dots := len(mod) - len(strings.TrimLeft(mod, "."))
		base := sc.f.Package
		if !strings.HasSuffix(sc.f.Path, "__init__.py") {
			base = parentModule(base)
		}
		for i := 1; i < dots; i++ {
			base = parentModule(base)
		}
		rest := mod[dots:]
		if rest != "" {
			mod = schema.Qualify(base, rest)
		} else {
			mod = base
		}
	}
	var targets []string
	file, ok := r.pyModuleFile(mod)
	if len(imp.Names) == 0 {
		local := imp.Alias
		if local == "" {
			local = mod
		}
		if ok {
			sc.modules[local] = []string{file}
			targets = append(targets, file)
		} else {
			sc.external[strings.SplitN(local, ".", 2)[0]] = true
		}
		return targets
	}
	if ok {
		targets = append(targets, file)
	}
	for _, n := range imp.Names {
		name, alias := n, n
		if i := strings.Index(n, " as "); i > 0 {
			name, alias = n[:i], n[i+4:]
		}
		if name == "*" {
			if ok {
				sc.open = append(sc.open, file)
			}
			continue
		}
		if ok {
			if s := r.topLevel(file, name); len(s) > 0 {
				sc.names[alias] = append(sc.names[alias], s...)
				continue
			}
		}
		if sub, ok2 := r.pyModuleFile(schema.Qualify(mod, name)); ok2 { // a submodule
			sc.modules[alias] = []string{sub}
			targets = append(targets, sub)
			continue
		}
		if !ok {
			sc.external[alias] = true
		}
	}
	return targets
}

func parentModule(m string) string {
	if i := strings.LastIndexByte(m, '.'); i >= 0 {
		return m[:i]
	}
	return ""
}

// ---- JavaScript / TypeScript ----

var jsExts = []string{"", ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}

// jsFile resolves a module specifier to a repository file: relative paths
// from the importing file, then tsconfig paths/baseUrl; with extension and
// index resolution. Bare package names are external.
func (r *resolver) jsFile(from, spec string) (string, bool) {
	var bases []string
	switch {
	case strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == "..":
		bases = []string{path.Join(path.Dir(from), spec)}
	case strings.HasPrefix(spec, "/"):
		bases = []string{strings.TrimPrefix(spec, "/")}
	default:
		bases = r.tsPaths.candidates(spec)
	}
	for _, b := range bases {
		var cands []string
		if path.Ext(b) != "" {
			cands = append(cands, b)
			switch path.Ext(b) { // TS sources import "./x.js" meaning x.ts
			case ".js", ".jsx", ".mjs", ".cjs":
				b = strings.TrimSuffix(b, path.Ext(b))
			}
		}
		for _, ext := range jsExts[1:] {
			cands = append(cands, b+ext)
		}
		for _, ext := range jsExts[1:] {
			cands = append(cands, path.Join(b, "index"+ext))
		}
		for _, c := range cands {
			if r.paths[c] {
				return c, true
			}
		}
	}
	return "", false
}

func (r *resolver) jsImport(sc *fileScope, imp lang.Import) []string {
	file, ok := r.jsFile(sc.f.Path, imp.Spec)
	if !ok {
		if imp.Alias != "" {
			sc.external[imp.Alias] = true
		}
		for _, n := range imp.Names {
			_, alias := splitAs(n)
			sc.external[alias] = true
		}
		return nil
	}
	if imp.Alias != "" {
		sc.modules[imp.Alias] = []string{file}
		// a default import binds the module's default export: the symbol of
		// that name, or the file's only exported function or class.
		if s := r.topLevel(file, imp.Alias); len(s) > 0 {
			sc.names[imp.Alias] = s
		} else if d := r.defaultExport(file); d != nil {
			sc.names[imp.Alias] = []*sym{d}
		}
	}
	for _, n := range imp.Names {
		name, alias := splitAs(n)
		if name == "default" {
			if d := r.defaultExport(file); d != nil {
				sc.names[alias] = append(sc.names[alias], d)
			}
			continue
		}
		r.bindNames(sc, []string{name + " as " + alias}, []string{file})
	}
	return []string{file}
}

func splitAs(n string) (string, string) {
	if i := strings.Index(n, " as "); i > 0 {
		return strings.TrimSpace(n[:i]), strings.TrimSpace(n[i+4:])
	}
	return n, n
}

func (r *resolver) defaultExport(file string) *sym {
	var only *sym
	count := 0
	for _, m := range []map[string][]*sym{r.funcsByFile[file], r.typesByFile[file]} {
		for _, ss := range m {
			for _, s := range ss {
				if s.IsExported {
					only = s
					count++
				}
			}
		}
	}
	if count == 1 {
		return only
	}
	return nil
}

// ---- Java, C#, PHP: packages and namespaces ----

func (r *resolver) javaImport(sc *fileScope, imp lang.Import) []string {
	spec := strings.TrimSuffix(imp.Spec, ".*")
	if imp.Kind == "wildcard" || strings.HasSuffix(imp.Spec, ".*") {
		files := r.byPackage[key("java", spec)]
		if len(files) == 0 { // Outer.* : nested types of a class
			files = r.typeFiles("java", spec)
		}
		sc.open = append(sc.open, files...)
		return files
	}
	pkg, name := splitLast(spec, ".")
	if imp.Kind == "static" { // import static a.b.Util.helper
		cls, member := pkg, name
		cpkg, cname := splitLast(cls, ".")
		for _, t := range r.typesIn(r.byPackage[key("java", cpkg)], cname) {
			sc.names[member] = append(sc.names[member], r.methodsOf[t.ID][member]...)
		}
		return r.byPackage[key("java", cpkg)]
	}
	types := r.typesIn(r.byPackage[key("java", pkg)], name)
	if len(types) == 0 {
		sc.external[name] = true
		return nil
	}
	sc.names[name] = append(sc.names[name], types...)
	var files []string
	for _, t := range types {
		files = append(files, t.FilePath)
	}
	return files
}

// typeFiles finds the files declaring the type whose dotted name is spec.
func (r *resolver) typeFiles(fam, spec string) []string {
	pkg, name := splitLast(spec, ".")
	var out []string
	for _, t := range r.typesIn(r.byPackage[key(fam, pkg)], name) {
		out = append(out, t.FilePath)
	}
	return out
}

func (r *resolver) typesIn(files []string, name string) []*sym {
	var out []*sym
	for _, f := range files {
		out = append(out, r.typesByFile[f][name]...)
	}
	if len(out) > 1 {
		r.sortActiveFirst(out)
	}
	return out
}

func splitLast(s, sep string) (string, string) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):]
	}
	return "", s
}

// nsImport handles `using A.B;` (open the namespace) and `using X = A.B.C;`.
func (r *resolver) nsImport(sc *fileScope, imp lang.Import, fam, sep string) []string {
	if files := r.byPackage[key(fam, imp.Spec)]; len(files) > 0 && imp.Alias == "" {
		sc.open = append(sc.open, files...)
		return files
	}
	ns, name := splitLast(imp.Spec, sep)
	types := r.typesIn(r.byPackage[key(fam, ns)], name)
	local := imp.Alias
	if local == "" {
		local = name
	}
	if len(types) == 0 {
		if files := r.byPackage[key(fam, imp.Spec)]; len(files) > 0 {
			sc.modules[local] = files
			return files
		}
		sc.external[local] = true
		return nil
	}
	sc.names[local] = append(sc.names[local], types...)
	var files []string
	for _, t := range types {
		files = append(files, t.FilePath)
	}
	return files
}

func (r *resolver) phpImport(sc *fileScope, imp lang.Import) []string {
	if imp.Kind == "require" || strings.HasSuffix(imp.Spec, ".php") {
		p := path.Clean(path.Join(path.Dir(sc.f.Path), imp.Spec))
		if r.paths[p] {
			sc.open = append(sc.open, p)
			return []string{p}
		}
		if f := r.bySuffix("/" + strings.TrimPrefix(imp.Spec, "/")); f != "" {
			sc.open = append(sc.open, f)
			return []string{f}
		}
		return nil
	}
	spec := strings.TrimPrefix(imp.Spec, "\\")
	if _, last := splitLast(spec, "\\"); len(imp.Names) == 1 && strings.HasPrefix(imp.Names[0], last) {
		// use A\B\C (as D): the name is the spec's own last segment
		_, alias := splitAs(imp.Names[0])
		if alias == last {
			alias = imp.Alias
		}
		return r.phpClass(sc, spec, alias)
	}
	if len(imp.Names) > 0 { // use A\B\{C, D}
		var out []string
		for _, n := range imp.Names {
			name, alias := splitAs(n)
			out = append(out, r.phpClass(sc, spec+"\\"+name, alias)...)
		}
		return out
	}
	return r.phpClass(sc, spec, imp.Alias)
}

// phpClass binds a fully qualified class name: through the namespaces the
// repository's files declare, or, when none declares it, through
// composer.json's PSR-4 autoload map (App\Models\User → app/Models/User.php).
func (r *resolver) phpClass(sc *fileScope, fqcn, alias string) []string {
	before := len(sc.names) + len(sc.modules)
	files := r.nsImport(sc, lang.Import{Spec: fqcn, Alias: alias}, "php", "\\")
	if len(files) > 0 || len(sc.names)+len(sc.modules) > before {
		return files
	}
	_, name := splitLast(fqcn, "\\")
	local := alias
	if local == "" {
		local = name
	}
	for prefix, dirs := range r.psr4 {
		rest, ok := strings.CutPrefix(fqcn, prefix)
		if !ok {
			continue
		}
		for _, d := range dirs {
			p := path.Join(d, strings.ReplaceAll(rest, "\\", "/")+".php")
			if r.paths[p] {
				delete(sc.external, local)
				sc.names[local] = append(sc.names[local], r.typesByFile[p][name]...)
				return []string{p}
			}
		}
	}
	return nil
}

// ---- Rust ----

func (r *resolver) rustImport(sc *fileScope, imp lang.Import) []string {
	cur := sc.f.Package
	if imp.Kind == "mod" {
		for _, m := range []string{joinRust(cur, imp.Spec), imp.Spec} {
			if f, ok := r.rustMod[m]; ok {
				return []string{f}
			}
		}
		return nil
	}
	if imp.Kind == "crate" {
		return nil
	}
	mod := r.rustPath(cur, imp.Spec)
	var files []string
	if f, ok := r.rustMod[mod]; ok {
		files = []string{f}
	}
	switch {
	case imp.Kind == "wildcard":
		sc.open = append(sc.open, files...)
	case len(imp.Names) > 0:
		for _, n := range imp.Names {
			name, alias := splitAs(n)
			if name == "self" {
				sc.modules[lastRust(mod)] = files
				continue
			}
			var found []*sym
			for _, f := range files {
				found = append(found, r.topLevel(f, name)...)
			}
			if len(found) > 0 {
				sc.names[alias] = append(sc.names[alias], found...)
			} else if f, ok := r.rustMod[joinRust(mod, name)]; ok {
				sc.modules[alias] = []string{f}
				files = append(files, f)
			} else if len(files) == 0 {
				sc.external[alias] = true
			}
		}
	default: // use a::b;  binds b (a module or an item of a)
		local := imp.Alias
		if local == "" {
			local = lastRust(mod)
		}
		if len(files) > 0 {
			sc.modules[local] = files
		} else if parent, ok := r.rustMod[parentRust(mod)]; ok {
			if s := r.topLevel(parent, lastRust(mod)); len(s) > 0 {
				sc.names[local] = s
				files = []string{parent}
			}
		} else {
			sc.external[local] = true
		}
	}
	return files
}

// rustPath turns a use path into a module path relative to the crate root.
func (r *resolver) rustPath(cur, spec string) string {
	switch {
	case strings.HasPrefix(spec, "crate::"):
		return strings.TrimPrefix(spec, "crate::")
	case spec == "crate":
		return ""
	case strings.HasPrefix(spec, "self::"):
		return joinRust(cur, strings.TrimPrefix(spec, "self::"))
	case strings.HasPrefix(spec, "super::"):
		p := parentRust(cur)
		rest := strings.TrimPrefix(spec, "super::")
		for strings.HasPrefix(rest, "super::") {
			p, rest = parentRust(p), strings.TrimPrefix(rest, "super::")
		}
		return joinRust(p, rest)
	}
	if _, ok := r.rustMod[spec]; ok {
		return spec
	}
	if _, ok := r.rustMod[joinRust(cur, spec)]; ok {
		return joinRust(cur, spec)
	}
	return spec
}

func joinRust(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "::" + b
}

func parentRust(m string) string {
	if i := strings.LastIndex(m, "::"); i >= 0 {
		return m[:i]
	}
	return ""
}

func lastRust(m string) string {
	if i := strings.LastIndex(m, "::"); i >= 0 {
		return m[i+2:]
	}
	return m
}

// ---- C / C++ ----

func (r *resolver) includeImport(sc *fileScope, imp lang.Import) []string {
	if sc.f.Language == "c" {
		p := r.cIncludePath(sc.f.Path, imp.Spec, imp.Kind != "system")
		if p == "" {
			return nil
		}
		r.cAddInclude(sc.f.Path, p)
		sc.open = append(sc.open, p)
		return []string{p}
	}
	spec := path.Clean(imp.Spec)
	if imp.Kind != "system" {
		if p := path.Join(path.Dir(sc.f.Path), spec); r.paths[p] {
			sc.open = append(sc.open, p)
			return []string{p}
		}
	}
	if r.paths[spec] {
		sc.open = append(sc.open, spec)
		return []string{spec}
	}
	if f := r.bySuffix("/" + spec); f != "" {
		sc.open = append(sc.open, f)
		return []string{f}
	}
	return nil
}

// buildByBase builds byBase on first use.
func (r *resolver) buildByBase() {
	if r.byBase == nil {
		r.byBase = map[string][]string{}
		for p := range r.paths {
			r.byBase[path.Base(p)] = append(r.byBase[path.Base(p)], p)
		}
	}
}

// bySuffix finds the one indexed path ending with suffix, which starts
// with '/' ("" when there is none, or several: ambiguous).
func (r *resolver) bySuffix(suffix string) string {
	r.buildByBase()
	var hit string
	for _, p := range r.byBase[path.Base(suffix)] {
		if strings.HasSuffix("/"+p, suffix) {
			if hit != "" {
				return ""
			}
			hit = p
		}
	}
	return hit
}

// ---- Ruby ----

func (r *resolver) rubyImport(sc *fileScope, imp lang.Import) []string {
	spec := strings.TrimSuffix(imp.Spec, ".rb") + ".rb"
	if imp.Kind == "relative" {
		p := path.Clean(path.Join(path.Dir(sc.f.Path), spec))
		if r.paths[p] {
			sc.open = append(sc.open, p)
			return []string{p}
		}
		return nil
	}
	for _, p := range []string{spec, "lib/" + spec} {
		if r.paths[p] {
			sc.open = append(sc.open, p)
			return []string{p}
		}
	}
	if f := r.bySuffix("/" + spec); f != "" {
		sc.open = append(sc.open, f)
		return []string{f}
	}
	return nil
}
