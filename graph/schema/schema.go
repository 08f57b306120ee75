// Package schema is the vocabulary of the code graph: the node labels, the
// relationship types, the records that ingest produces and graph stores, and
// the Kuzu DDL that gives them tables.
//
// It is the one place these names are spelled. Every other package speaks in
// these types; none of them spells a table name as a literal.
//
// The package is pure Go (no cgo) so that ingest and its tests do not link
// Kuzu.
package schema

import (
	"strconv"
	"strings"
)

// Version is the version of everything an index stores, written into
// meta.json: the node and relationship tables (DDL, from the records and
// Rels), the vector table (LabelEmbedding) and the
// search pack beside the database (which carries this number too). Bump it
// whenever any of them changes (a table, a property, a column's meaning,
// the pack's format); an index with another version is rebuilt rather than
// read.
const Version = 11

// Label is a node table.
type Label string

// Node tables. Constructs that are not literally functions, classes, methods
// or interfaces map onto these with a precise Kind (see the Kind constants).
const (
	LabelFile      Label = "File"
	LabelFolder    Label = "Folder"
	LabelFunction  Label = "Function"
	LabelClass     Label = "Class"
	LabelMethod    Label = "Method"
	LabelInterface Label = "Interface"
	LabelCommunity Label = "Community"
	LabelProcess   Label = "Process"
)

// SymbolLabels are the node tables that hold code symbols, in a fixed order.
var SymbolLabels = []Label{LabelFunction, LabelClass, LabelMethod, LabelInterface}

// IsSymbol reports whether l is a symbol table (not File, Folder, Community
// or Process).
func (l Label) IsSymbol() bool {
	switch l {
	case LabelFunction, LabelClass, LabelMethod, LabelInterface:
		return true
	}
	return false
}

// Kind is the precise construct a symbol node stands for.
type Kind string

// Symbol kinds. The comment says which Label each maps onto.
const (
	KindFunction    Kind = "function"    // Function
	KindMethod      Kind = "method"      // Method
	KindConstructor Kind = "constructor" // Method
	KindClass       Kind = "class"       // Class
	KindStruct      Kind = "struct"      // Class
	KindEnum        Kind = "enum"        // Class
	KindRecord      Kind = "record"      // Class
	KindUnion       Kind = "union"       // Class
	KindTypeAlias   Kind = "type_alias"  // Class (a named type that is not a struct or interface)
	KindModule      Kind = "module"      // Class (Ruby module, Rust mod with body, PHP/C# namespace-level containers are not symbols)
	KindInterface   Kind = "interface"   // Interface
	KindTrait       Kind = "trait"       // Interface
	KindProtocol    Kind = "protocol"    // Interface
)

// Kinds lists every Kind, in the order of the constants above.
var Kinds = []Kind{KindFunction, KindMethod, KindConstructor, KindClass, KindStruct, KindEnum,
	KindRecord, KindUnion, KindTypeAlias, KindModule, KindInterface, KindTrait, KindProtocol}

// LabelOf is the node table a kind is stored in.
func LabelOf(k Kind) Label {
	switch k {
	case KindFunction:
		return LabelFunction
	case KindMethod, KindConstructor:
		return LabelMethod
	case KindInterface, KindTrait, KindProtocol:
		return LabelInterface
	default:
		return LabelClass
	}
}

// RelType is a relationship table.
type RelType string

// Relationship tables. Each is typed: its FROM/TO pairs are listed in Rels.
const (
	RelContains      RelType = "CONTAINS"        // Folder → Folder|File
	RelDefines       RelType = "DEFINES"         // File → symbol
	RelHasMethod     RelType = "HAS_METHOD"      // Class|Interface → Method
	RelImports       RelType = "IMPORTS"         // File → File
	RelCalls         RelType = "CALLS"           // Function|Method → Function|Method
	RelExtends       RelType = "EXTENDS"         // Class|Interface → Class|Interface
	RelImplements    RelType = "IMPLEMENTS"      // Class → Interface
	RelMemberOf      RelType = "MEMBER_OF"       // symbol → Community
	RelStepInProcess RelType = "STEP_IN_PROCESS" // symbol → Process
)

// Pair is one FROM/TO pair of a relationship table.
type Pair struct{ From, To Label }

// Rels lists every relationship table with its FROM/TO pairs, in load order.
var Rels = []struct {
	Type  RelType
	Pairs []Pair
}{
	{RelContains, []Pair{{LabelFolder, LabelFolder}, {LabelFolder, LabelFile}}},
	{RelDefines, cross([]Label{LabelFile}, SymbolLabels)},
	{RelHasMethod, cross([]Label{LabelClass, LabelInterface}, []Label{LabelMethod})},
	{RelImports, []Pair{{LabelFile, LabelFile}}},
	{RelCalls, cross([]Label{LabelFunction, LabelMethod}, []Label{LabelFunction, LabelMethod})},
	{RelExtends, cross([]Label{LabelClass, LabelInterface}, []Label{LabelClass, LabelInterface})},
	{RelImplements, []Pair{{LabelClass, LabelInterface}}},
	{RelMemberOf, cross(SymbolLabels, []Label{LabelCommunity})},
	{RelStepInProcess, cross(SymbolLabels, []Label{LabelProcess})},
}

func cross(from, to []Label) []Pair {
	var ps []Pair
	for _, f := range from {
		for _, t := range to {
			ps = append(ps, Pair{f, t})
		}
	}
	return ps
}

// ParseStatus is how a file's parse went.
type ParseStatus string

const (
	ParseOK        ParseStatus = "ok"         // clean tree
	ParsePartial   ParseStatus = "partial"    // tree has ERROR or MISSING nodes; symbols outside them are kept
	ParseError     ParseStatus = "error"      // the parser gave no tree (timeout, cancellation, read error)
	ParseNoGrammar ParseStatus = "no_grammar" // a file we index as a File node but cannot parse
)

// Folder is a directory of the repository. ID is its path ("" is never used:
// the root folder has Path ".").
type Folder struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	Name string `json:"name"`
}

// File is one indexed file. ID is its repo-relative path with '/'.
type File struct {
	ID          string      `json:"id"`
	Path        string      `json:"path"`
	Name        string      `json:"name"`
	Language    string      `json:"language"`
	Size        int64       `json:"size"`
	Lines       int         `json:"lines"`
	ParseStatus ParseStatus `json:"parseStatus"`
	ContentHash string      `json:"contentHash"`
	// Unresolved counts call sites in this file that resolution could not
	// link to any symbol (issue: cross-file resolution). Never silently 0
	// when resolution did not run: -1 means "not computed".
	Unresolved int `json:"unresolved"`
	// SearchText is the pre-split path text (graph/text.SearchText), kept
	// as a property for users' Cypher.
	SearchText string `json:"searchText"`
	// IsTest says the file is test code: IsTestPath(Path), decided once by
	// ingest. Readers use this property, never the path.
	IsTest bool `json:"isTest"`
}

// Symbol is a code symbol: a row of Function, Class, Method or Interface.
//
// ID is stable across runs: path + "#" + qualified name + ":" + kind, with
// "~N" appended (N = 2, 3, ...) for the Nth overload of the same name in the
// same file, in source order. Use SymbolID to build it.
type Symbol struct {
	ID            string `json:"id"`
	Label         Label  `json:"-"`
	Kind          Kind   `json:"kind"`
	Name          string `json:"name"`
	QualifiedName string `json:"qualifiedName"` // e.g. "Engine.ServeHTTP", "pkg.mod.Class.method"
	FilePath      string `json:"filePath"`
	StartLine     int    `json:"startLine"` // 1-based
	EndLine       int    `json:"endLine"`   // 1-based, inclusive
	Language      string `json:"language"`
	Signature     string `json:"signature"`
	DocComment    string `json:"docComment"`
	IsExported    bool   `json:"isExported"`
	// Content is the symbol's source, capped at ContentCap bytes. Not a
	// column: the build keeps it beside the rows for the search pack, which
	// holds it (graph's rowtext.go).
	Content     string `json:"-"`
	ContentHash string `json:"contentHash"`
	// ParentID is the enclosing class/interface for methods (the HAS_METHOD
	// source), "" otherwise. Not stored as a property.
	ParentID string `json:"-"`
	// SearchText is the pre-split identifier text the search pack's name
	// field indexes (graph/text.SearchText). Ingest fills
	// it (text.SearchText of name, qualified name and path) when an
	// extractor left it empty.
	SearchText string `json:"searchText"`
	// IsTest says the symbol is test code: IsTestPath(FilePath), decided
	// once by ingest (the same answer as its File's). Readers (entry
	// points, ranking, impact) use this property, never the path.
	IsTest bool `json:"isTest"`
}

// ContentCap is the most bytes of source kept in Symbol.Content.
const ContentCap = 8 << 10

// SymbolID builds the stable id of a symbol. overload is 1 for the first
// symbol of that path, qualified name and kind, 2 for the second, and so on.
func SymbolID(path, qualifiedName string, kind Kind, overload int) string {
	id := path + "#" + qualifiedName + ":" + string(kind)
	if overload > 1 {
		id += "~" + strconv.Itoa(overload)
	}
	return id
}

// SymbolPath is the path SymbolID built id from, when id tells it without
// doubt: it holds exactly one "#" (a path or a qualified name with a "#"
// of its own makes the split ambiguous, and ok is false).
func SymbolPath(id string) (path string, ok bool) {
	path, rest, found := strings.Cut(id, "#")
	if !found || strings.Contains(rest, "#") {
		return "", false
	}
	return path, true
}

// Qualify joins a qualifier and a name with "." ("Engine", "ServeHTTP" →
// "Engine.ServeHTTP"); an empty qualifier gives the name alone. It is the
// one join behind Symbol.QualifiedName (every extractor builds its names
// with it) and behind the names resolution looks up, so the two always
// agree.
func Qualify(qualifier, name string) string {
	if qualifier == "" {
		return name
	}
	return qualifier + "." + name
}

// Confidence reasons for resolved edges (IMPORTS, CALLS, EXTENDS,
// IMPLEMENTS). Structural edges (CONTAINS, DEFINES, HAS_METHOD) carry
// confidence 1 and reason ReasonStructural.
const (
	ReasonStructural    = "structural"
	ReasonSameFile      = "same-file"
	ReasonImportScoped  = "import-scoped"
	ReasonReceiverTyped = "receiver-typed"
	ReasonPackage       = "same-package"
	ReasonGlobalName    = "global-name"
	ReasonReference     = "reference"
	ReasonMethodSet     = "method-set" // Go implicit interface satisfaction
	// ReasonInterface marks a CALLS edge from a call on a Go interface value
	// to the method of one of the interface's few implementations in the
	// repository (class-hierarchy analysis): a call that may happen, kept
	// apart from the static edges the precision figures score.
	ReasonInterface    = "interface-impl"
	ReasonDeclared     = "declared" // explicit extends/implements clause
	ReasonModuleRule   = "module-rule"
	ReasonFieldPointer = "field-pointer" // C call through a struct member, linked to the functions stored in it
)

// Edge is one relationship row. From and To are node ids; FromLabel and
// ToLabel say which tables they live in (a typed rel table needs both).
type Edge struct {
	Type       RelType `json:"-"`
	From       string  `json:"from"`
	To         string  `json:"to"`
	FromLabel  Label   `json:"-"`
	ToLabel    Label   `json:"-"`
	Confidence float64 `json:"confidence"`
	Reason     string  `json:"reason"`
	// Step is the 1-based step of STEP_IN_PROCESS; 0 elsewhere.
	Step int `json:"step"`
	// Line is the 1-based source line of the call/import site, 0 if none.
	Line int `json:"line"`
}

// Community is a cluster of symbols (processes issue).
type Community struct {
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	Keywords    []string `json:"keywords"`
	Cohesion    float64  `json:"cohesion"`
	SymbolCount int      `json:"symbolCount"`
}

// Process is an execution flow traced from an entry point (processes issue).
type Process struct {
	ID           string   `json:"id"`
	Label        string   `json:"label"`       // the path: "ServeHTTP → handleHTTPRequest → … → Next"
	Description  string   `json:"description"` // what it does, in words (processes.describe)
	ProcessType  string   `json:"processType"` // cross_community | intra_community
	StepCount    int      `json:"stepCount"`
	Communities  []string `json:"communities"`
	EntryPointID string   `json:"entryPointId"`
	TerminalID   string   `json:"terminalId"`
	Priority     float64  `json:"priority"`
}
