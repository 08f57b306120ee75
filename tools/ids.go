package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
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

// resolveRef applies the rule above to table (Process or Community, bound
// to the variable v in cols and order): the rows of cols for the matches
// of the first rule that matched anything, best first by order, at most
// maxCandidates+1 (so a caller can tell there are more); none when
// nothing matched.
func resolveRef(ctx context.Context, db Querier, table schema.Label, v, ref, cols, order string) ([][]any, error) {
	q := schema.Quote(ref)
	lower := schema.Quote(strings.ToLower(ref))
	for _, where := range []string{
		v + ".id = " + q,
		v + ".id STARTS WITH " + q,
		v + ".label = " + q,
		"lower(" + v + ".label) CONTAINS " + lower,
	} {
		res, err := db.Query(ctx, fmt.Sprintf("MATCH (%s:%s) WHERE %s RETURN %s ORDER BY %s, %s.id LIMIT %d", v, table, where, cols, order, v, maxCandidates+1), nil)
		if err != nil {
			return nil, fmt.Errorf("find %s %.80q: %w", strings.ToLower(string(table)), ref, err)
		}
		if len(res.Rows) > 0 {
			return res.Rows, nil
		}
	}
	return nil, nil
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
