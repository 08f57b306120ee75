package gate

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// fuzzLimits are tighter than the defaults so that every input handed to
// Kuzu is small and shallow (Kuzu segfaults on deep nesting).
var fuzzLimits = Limits{MaxBytes: 4096, MaxDepth: 32}

// FuzzGate is a differential test of the gate against Kuzu 0.11.3's own
// parser and planner, over an index with the project's schema opened
// read-only. Properties:
//
//   - Check never panics, and refuses with an error wrapping ErrRejected.
//   - If Check admits s, Kuzu sees exactly one statement: Prepare(s) does
//     not fail with "multiple statements"; and if Kuzu prepares it, its
//     plan (EXPLAIN) holds no writing, file, extension or session operator
//     and no table function outside allowedCalls.
//   - If Check refuses s only for holding more than one statement, Kuzu
//     does not parse s as one statement (its Prepare fails with
//     "multiple statements" or a parser error, never binds it).
//
// Kuzu only ever gets inputs that passed the gate's lexer, so within
// fuzzLimits; inputs with long numbers are not planned (constant folding
// of range(1, 100000000) would exhaust memory at plan time).
func FuzzGate(f *testing.F) {
	for _, s := range attacks {
		f.Add(s)
	}
	for _, s := range legit {
		f.Add(s)
	}
	o := openOracle(f)
	f.Fuzz(func(t *testing.T, s string) {
		if dbg := os.Getenv("GATE_FUZZ_TRACE"); dbg != "" {
			_ = os.WriteFile(fmt.Sprintf("%s.%d", dbg, os.Getpid()), []byte(s), 0o644)
		}
		err := Check(s, fuzzLimits)
		if err != nil {
			if !strings.Contains(err.Error(), "statement refused: ") {
				t.Fatalf("refusal does not wrap ErrRejected: %v", err)
			}
			if strings.Contains(err.Error(), "one statement per call") && !bigNumbers(s) {
				if kerr := o.prepare(s); kuzuParsedOne(s, kerr) {
					t.Fatalf("gate sees more than one statement in %q, Kuzu parses one (%v)", s, kerr)
				}
			}
			return
		}
		if bigNumbers(s) {
			return
		}
		kerr := o.prepare(s)
		if kerr != nil {
			if strings.Contains(kerr.Error(), errMultiple) {
				t.Fatalf("gate admits %q, Kuzu sees several statements: %v", s, kerr)
			}
			if strings.Contains(kerr.Error(), "read-only") {
				t.Fatalf("gate admits %q, Kuzu classes it as a write: %v", s, kerr)
			}
			return
		}
		v, perr := o.planViolation(s)
		if perr != nil {
			return
		}
		if v != "" {
			t.Fatalf("gate admits %q, Kuzu's plan has %s", s, v)
		}
	})
}

// bigNumbers reports whether s has a number literal of more than three
// digits, which the fuzzer does not hand to Kuzu's planner.
func bigNumbers(s string) bool {
	toks, err := lex(s, fuzzLimits.MaxDepth)
	if err != nil {
		return true
	}
	for _, t := range toks {
		if t.kind == kNumber && len(t.text) > 3 {
			return true
		}
	}
	return false
}

// kuzuParsedOne reports whether Prepare's answer kerr shows that Kuzu
// parsed s as one statement: it prepared it, or got as far as binding it.
// A binder error is no proof when s holds a CALL: Kuzu binds standalone
// calls while parsing, before it counts statements (found by FuzzGate:
// "CALL file_info();RETURN 0" answers "Binder exception: Only standalone
// table functions can be called without return statement.").
func kuzuParsedOne(s string, kerr error) bool {
	if kerr == nil {
		return true
	}
	if !strings.HasPrefix(kerr.Error(), "Binder exception") {
		return false
	}
	toks, err := lex(s, fuzzLimits.MaxDepth)
	if err != nil {
		return false
	}
	for _, t := range toks {
		if t.kind == kWord && t.upperWord == "CALL" {
			return false
		}
	}
	return true
}
