package tools

import (
	"strings"
)

// How a process or community is named: the one rule every command and
// resource that takes such a reference follows, so an id one command
// prints is accepted by the others.
//
//  1. its id exactly (proc_…, comm_…);
//  2. else a prefix of its id (proc_f16e) that only one id starts with;
//  3. else its label exactly, when only one has that label;
//  4. else a piece of its label (case-insensitive), when only one label
//     contains it.
//
// A reference several match at the first rule that matches at all is
// ambiguous: the candidates are listed (best first), never one picked.

// resolveRef applies the rule above to items (processes or communities,
// each with an id and a label, sorted best first): the matches of the
// first rule that matched anything, in items' order, at most
// maxCandidates+1 (so a caller can tell there are more); none when
// nothing matched.
func resolveRef[T any](items []T, idLabel func(T) (id, label string), ref string) []T {
	lower := strings.ToLower(ref)
	for _, match := range []func(id, label string) bool{
		func(id, _ string) bool { return id == ref },
		func(id, _ string) bool { return strings.HasPrefix(id, ref) },
		func(_, label string) bool { return label == ref },
		func(_, label string) bool { return strings.Contains(strings.ToLower(label), lower) },
	} {
		var out []T
		for _, it := range items {
			if id, label := idLabel(it); match(id, label) {
				out = append(out, it)
				if len(out) > maxCandidates {
					break
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// checkRef refuses an empty or oversized reference.
func checkRef(what, ref string) error {
	if strings.TrimSpace(ref) == "" {
		return inputErr("id is required: a %s id (or a unique prefix of one), or a piece of its label", what)
	}
	if len(ref) > maxRefBytes {
		return inputErr("id is %d bytes long, at most %d", len(ref), maxRefBytes)
	}
	return nil
}
