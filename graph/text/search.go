package text

import "strings"

// SearchText is the searchText column of a symbol or file: the words of its
// name, qualified name and path, each multi-word identifier also kept whole,
// in that order, each word once, separated by single spaces.
//
//	SearchText("getUserById", "UserService.getUserById", "src/user_service.ts")
//	  = "get user by id getuserbyid service userservice src ts"
//
// Aliases are a query-side expansion only and never appear here. A file
// passes its base name as name, "" as qualifiedName and its path as path.
// more are words that name the symbol as its definition is written
// besides its name, after the path (a C function a SYSCALL_DEFINEn macro
// defines is a "syscall").
func SearchText(name, qualifiedName, path string, more ...string) string {
	var b builder
	b.segments(name)
	b.segments(qualifiedName)
	b.segments(path)
	for _, m := range more {
		b.segments(m)
	}
	return strings.Join(b.out, " ")
}

// builder collects distinct index terms in order.
type builder struct {
	out  []string
	seen map[string]bool
}

func (b *builder) add(term string) {
	if term == "" {
		return
	}
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	if b.seen[term] {
		return
	}
	b.seen[term] = true
	b.out = append(b.out, term)
}

// segments adds the words of every segment of s (an identifier, a dotted or
// '::'-qualified name, a path) and each segment's whole form.
func (b *builder) segments(s string) {
	for _, seg := range Segments(s) {
		words := SplitIdentifier(seg)
		for _, w := range words {
			b.add(w)
		}
		b.add(Joined(words))
	}
}
