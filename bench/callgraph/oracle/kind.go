package oracle

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Kind is the syntactic kind of a call site, inferred from the call
// expression and the type checker's view of it. It is what a reader needs to
// know about a missed edge: which resolution rule of a tree-sitter tool
// would have had to find it.
type Kind string

// Call-site kinds, most specific first (classify returns the first that
// applies).
const (
	KindGeneric       Kind = "generic-instance"      // a non-generic caller calls an instance of a generic function or method
	KindPromoted      Kind = "promoted-method"       // x.M() where M is promoted from an embedded field
	KindMethodExpr    Kind = "method-expression"     // T.M(x) or (*T).M(x)
	KindFunc          Kind = "func"                  // f() — a function of the same package
	KindFuncValue     Kind = "local-func-value"      // f := x.M; f() — SSA knows the callee from local value flow
	KindPkgFunc       Kind = "pkg-qualified-func"    // pkg.F() — a function of another package
	KindMethodOnVar   Kind = "method-on-variable"    // x.M() — x a variable, parameter or receiver
	KindMethodOnField Kind = "method-on-field"       // x.f.M() — the receiver is a field selection
	KindMethodOnCall  Kind = "method-on-call-result" // f().M() — the receiver is a call result
	KindMethodOnOther Kind = "method-on-expression"  // a[i].M(), (*p).M(), T{}.M(), x.(T).M(), ...
	KindOther         Kind = "other"                 // no call expression found at the site
)

// classify returns the kind of the static call site whose call expression
// is call (nil if none was found), calling callee, in a package whose type
// information is info. inGeneric reports that the caller is itself generic:
// there, a call of a sibling generic method is classified by its syntax.
func classify(call *ast.CallExpr, info *types.Info, callee *ssa.Function, inGeneric bool) Kind {
	if callee.TypeArgs() != nil && !inGeneric {
		return KindGeneric
	}
	if call == nil {
		return KindOther
	}
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr, *ast.IndexListExpr:
		return KindGeneric
	case *ast.Ident:
		if _, ok := info.Uses[f].(*types.Var); ok {
			return KindFuncValue
		}
		return KindFunc
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[f]; ok {
			switch sel.Kind() {
			case types.MethodExpr:
				return KindMethodExpr
			case types.MethodVal:
				if len(sel.Index()) > 1 {
					return KindPromoted
				}
				return receiverKind(f.X, info)
			}
			return KindOther // a call of a func-typed field is not static
		}
		if id, ok := f.X.(*ast.Ident); ok {
			if _, ok := info.Uses[id].(*types.PkgName); ok {
				return KindPkgFunc
			}
		}
	}
	return KindOther
}

func receiverKind(x ast.Expr, info *types.Info) Kind {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		return KindMethodOnVar
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			return KindMethodOnField
		}
		if id, ok := x.X.(*ast.Ident); ok {
			if _, ok := info.Uses[id].(*types.PkgName); ok {
				return KindMethodOnVar // pkg.Var.M()
			}
		}
		return KindMethodOnOther
	case *ast.CallExpr:
		return KindMethodOnCall
	}
	return KindMethodOnOther
}
