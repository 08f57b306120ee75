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
	var terms [smallTerms]string
	b := builder{out: terms[:0]}
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
	seen map[string]bool // the terms, once there are more than smallTerms
}

// smallTerms is how many terms a builder looks up by scanning them: a
// symbol's name, qualified name and path give about ten, and a map made
// for each symbol had been a twentieth of what the Linux kernel's parse
// allocated (0.96 of 25 GB).
const smallTerms = 32

func (b *builder) add(term string) {
	if term == "" {
		return
	}
	if b.seen == nil {
		for _, t := range b.out {
			if t == term {
				return
			}
		}
		if len(b.out) < smallTerms {
			b.out = append(b.out, term)
			return
		}
		b.seen = make(map[string]bool, 2*smallTerms)
		for _, t := range b.out {
			b.seen[t] = true
		}
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
