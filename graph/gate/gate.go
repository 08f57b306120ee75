package gate

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Limits bound a statement before it is lexed. Zero fields take the
// defaults.
type Limits struct {
	// MaxBytes is the longest statement accepted, in bytes.
	MaxBytes int
	// MaxDepth is the deepest nesting of (), [] and {} accepted. Kuzu
	// 0.11.3 segfaults near 5,000 and hangs at 20,000.
	MaxDepth int
}

// Defaults.
const (
	DefaultMaxBytes = 64 << 10
	DefaultMaxDepth = 64
)

// DefaultLimits are the limits the CLI and the MCP server use.
var DefaultLimits = Limits{MaxBytes: DefaultMaxBytes, MaxDepth: DefaultMaxDepth}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// ErrRejected is wrapped by every error Check returns.
var ErrRejected = errors.New("statement refused")

// Allowed says what Check admits; every refusal ends with it.
var Allowed = "allowed: one read-only query built from MATCH, OPTIONAL MATCH, WHERE, WITH, UNWIND, RETURN, ORDER BY, SKIP, LIMIT, UNION [ALL], EXISTS { MATCH ... }, COUNT { MATCH ... } and CALL of " +
	strings.ToLower(strings.Join(sortedKeys(allowedCalls), "(), ")) + "()"

// startWords are the words a statement may begin with: the first clause of
// a read query, or CALL of an allowed table function.
var startWords = map[string]bool{
	"MATCH": true, "OPTIONAL": true, "UNWIND": true, "WITH": true, "RETURN": true, "CALL": true,
}

// deniedWords are the keywords of every Kuzu 0.11.3 statement or clause
// that writes, touches files, loads extensions or controls transactions or
// the database (Cypher.g4: oC_Statement alternatives, oC_UpdatingClause,
// kU_LoadFrom), plus openCypher's REMOVE and SQL's TRUNCATE. Kuzu lets
// most of them double as names, so a name spelt like one must be
// backquoted (`set`) unless it follows a '.' (n.set) or a '$' ($set).
var deniedWords = map[string]string{
	"LOAD":        "reads files or loads extensions",
	"COPY":        "reads or writes files",
	"EXPORT":      "writes files",
	"IMPORT":      "reads files and writes the database",
	"ATTACH":      "opens other databases",
	"DETACH":      "deletes nodes or detaches databases",
	"USE":         "switches databases",
	"INSTALL":     "installs extensions",
	"UNINSTALL":   "removes extensions",
	"UPDATE":      "updates extensions",
	"FORCE":       "installs extensions",
	"EXTENSION":   "loads extensions",
	"DATABASE":    "names a database to export, import or attach",
	"CHECKPOINT":  "writes the database files",
	"CREATE":      "writes the database",
	"MERGE":       "writes the database",
	"SET":         "writes the database",
	"DELETE":      "writes the database",
	"REMOVE":      "writes the database",
	"DROP":        "writes the database",
	"ALTER":       "writes the database",
	"RENAME":      "writes the database",
	"TRUNCATE":    "writes the database",
	"COMMENT":     "writes the catalog",
	"BEGIN":       "controls transactions",
	"COMMIT":      "controls transactions",
	"ROLLBACK":    "controls transactions",
	"TRANSACTION": "controls transactions",
	"EXPLAIN":     "is not a query",
	"PROFILE":     "runs a query outside the gate's row limits",
	"COPY_JSON":   "is internal and crashes Kuzu 0.11.3 (copy_json() segfaults)",
}

// allowedCalls are the table functions CALL may name: Kuzu 0.11.3's
// read-only catalog listings and index lookups. Left out on purpose:
// functions that read files (READ_CSV_*, READ_PARQUET, READ_NPY,
// JSON_SCAN, FILE_INFO), show server paths or settings (CURRENT_SETTING,
// SHOW_ATTACHED_DATABASES), dump storage internals (STORAGE_INFO,
// STATS_INFO, FSM_INFO, BM_INFO), list or need extensions or projected
// graphs (SHOW_LOADED_EXTENSIONS, SHOW_OFFICIAL_EXTENSIONS, PROJECT_GRAPH
// and the graph algorithms), every standalone function (they change
// state: CREATE_FTS_INDEX, CLEAR_WARNINGS, ...) and configuration
// (CALL threads=1).
var allowedCalls = map[string]bool{
	"SHOW_TABLES":        true,
	"TABLE_INFO":         true,
	"SHOW_CONNECTION":    true,
	"SHOW_INDEXES":       true,
	"SHOW_FUNCTIONS":     true,
	"SHOW_SEQUENCES":     true,
	"SHOW_WARNINGS":      true,
	"DB_VERSION":         true,
	"QUERY_FTS_INDEX":    true,
	"QUERY_VECTOR_INDEX": true,
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s; %s", ErrRejected, fmt.Sprintf(format, args...), Allowed)
}

// Check admits stmt only if it is exactly one read-only Cypher statement
// (a trailing ';' is allowed) within lim. It returns nil or an error that
// wraps ErrRejected and says what is allowed.
func Check(stmt string, lim Limits) error {
	lim = lim.withDefaults()
	if len(stmt) > lim.MaxBytes {
		return refuse("statement is %d bytes, more than the limit of %d", len(stmt), lim.MaxBytes)
	}
	toks, err := lex(stmt, lim.MaxDepth)
	if err != nil {
		return refuse("%v", err)
	}
	body, err := oneStatement(toks)
	if err != nil {
		return err
	}
	first := body[0]
	if first.kind != kWord || !startWords[first.upperWord] {
		return refuse("a statement cannot start with %s", first.text)
	}
	var open []string // enclosing brackets of body[k]
	for k, t := range body {
		if t.kind == kOp {
			switch t.text {
			case "(", "[", "{":
				open = append(open, t.text)
			case ")", "]", "}":
				open = open[:len(open)-1] // lex checked the balance
			}
		}
		if t.kind != kWord || nameOnly(body, k) {
			continue
		}
		if t.upperWord == "NULL" && len(open) > 0 && open[len(open)-1] == "(" && bareInParens(body, k) {
			return refuse("a bare NULL inside ( ) crashes Kuzu 0.11.3 when it is a function argument (labels(NULL), list_sum(NULL), ...): write CAST(NULL AS STRING) or leave the argument out")
		}
		if t.upperWord == "NULL" && (wordAt(body, k-1, "IN") || wordAt(body, k+1, "IN")) {
			return refuse("NULL as an operand of IN crashes Kuzu 0.11.3 (NULL IN NULL segfaults): write CAST(NULL AS STRING)")
		}
		if why, bad := deniedWords[t.upperWord]; bad {
			return refuse("%s %s (to use it as a name, backquote it: `%s`)", t.upperWord, why, t.text)
		}
		if t.upperWord == "CALL" {
			if err := checkCall(body, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// oneStatement returns the tokens of the only statement in toks: no ';'
// or one as the last token.
func oneStatement(toks []token) ([]token, error) {
	for k, t := range toks {
		if t.kind != kSemi {
			continue
		}
		if k != len(toks)-1 {
			return nil, refuse("one statement per call: text follows the ';' at byte %d", t.pos)
		}
		toks = toks[:k]
	}
	if len(toks) == 0 {
		return nil, refuse("empty statement")
	}
	return toks, nil
}

// nameOnly reports whether the word at body[k] can only be a name in
// Kuzu's grammar: a property key after '.' (n.set, n . set) or a
// parameter name directly after '$' ($set).
func nameOnly(body []token, k int) bool {
	if k == 0 {
		return false
	}
	p := body[k-1]
	if p.kind != kOp {
		return false
	}
	return p.text == "." || (p.text == "$" && p.end == body[k].pos)
}

// bareInParens reports whether body[k] is a whole argument or
// parenthesized expression: '(' or ',' before it and ')' or ',' after.
func bareInParens(body []token, k int) bool {
	if k == 0 || k+1 >= len(body) {
		return false
	}
	p, n := body[k-1], body[k+1]
	return p.kind == kOp && (p.text == "(" || p.text == ",") && n.kind == kOp && (n.text == ")" || n.text == ",")
}

// wordAt reports whether body[k] is the bare word w (upper case).
func wordAt(body []token, k int, w string) bool {
	return k >= 0 && k < len(body) && body[k].kind == kWord && body[k].upperWord == w
}

// checkCall admits CALL f( only for f in allowedCalls.
func checkCall(body []token, k int) error {
	if k+1 >= len(body) {
		return refuse("CALL needs a table function")
	}
	f := body[k+1]
	var name string
	switch f.kind {
	case kWord:
		name = f.upperWord
	case kName:
		name = upperASCII(strings.ReplaceAll(f.text[1:len(f.text)-1], "``", "`"))
	default:
		return refuse("CALL %s is not allowed", f.text)
	}
	if !allowedCalls[name] {
		return refuse("CALL %s is not allowed", f.text)
	}
	if k+2 >= len(body) || body[k+2].kind != kOp || body[k+2].text != "(" {
		return refuse("CALL %s must be followed by its arguments in ( )", f.text)
	}
	return nil
}
