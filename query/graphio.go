package query

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gitnexus/gitnexus/graph/schema"
)

// This file holds the Cypher the search runs besides the full-text calls.
// Values are inlined with cypherList, never bound as parameters (see
// cypherList).

// neighbors returns the nodes adjacent to ids over rels, both directions,
// at most fanout per (node, type, direction), ordered by id for
// determinism. Files are left out unless files is set.
func neighbors(ctx context.Context, q Querier, ids []string, rels []schema.RelType, fanout int, files bool) ([]Neighbor, error) {
	if len(ids) == 0 || len(rels) == 0 {
		return nil, nil
	}
	types := make([]string, len(rels))
	for i, r := range rels {
		types[i] = string(r)
	}
	var out []Neighbor
	for _, dir := range []struct {
		out     bool
		pattern string
	}{{true, "(a)-[r:%s]->(b)"}, {false, "(a)<-[r:%s]-(b)"}} {
		stmt := fmt.Sprintf("MATCH "+dir.pattern+" WHERE a.id IN %s "+
			"RETURN a.id, label(r), b.id, label(b), b.name, b.kind, b.filePath, b.path, b.startLine, b.endLine, b.language "+
			"ORDER BY a.id, label(r), b.id",
			strings.Join(types, "|"), schema.QuoteList(ids))
		res, err := q.Query(ctx, stmt, nil)
		if err != nil {
			return nil, err
		}
		// Kuzu 0.11.3 does not keep this ORDER BY across the several
		// relationship tables a pattern spans (the fan-out cut below then
		// kept different neighbors from run to run): sort here.
		rows := res.Rows
		sort.SliceStable(rows, func(i, j int) bool {
			a, b := rows[i], rows[j]
			for k := 0; k < 3 && k < len(a) && k < len(b); k++ {
				if x, y := str(a[k]), str(b[k]); x != y {
					return x < y
				}
			}
			return false
		})
		count := map[string]int{}
		for _, row := range rows {
			if len(row) < 11 {
				return nil, fmt.Errorf("neighbors: short row %v", row)
			}
			label := str(row[3])
			if label == string(schema.LabelFile) && !files {
				continue
			}
			if label != string(schema.LabelFile) && !schema.Label(label).IsSymbol() {
				continue // Folder, Community, Process: not search results
			}
			key := str(row[0]) + "\x00" + str(row[1])
			if count[key] >= fanout {
				continue
			}
			count[key]++
			h := Hit{
				ID: str(row[2]), Label: label, Name: str(row[4]), Kind: str(row[5]),
				FilePath: str(row[6]), StartLine: num(row[8]), EndLine: num(row[9]), Language: str(row[10]),
			}
			if label == string(schema.LabelFile) {
				h.Kind, h.FilePath, h.StartLine = "file", str(row[7]), 1
			}
			out = append(out, Neighbor{From: str(row[0]), Rel: schema.RelType(str(row[1])), Out: dir.out, Hit: h})
		}
	}
	return out, nil
}

// fillContent sets Signature and Content of the symbol hits.
func fillContent(ctx context.Context, q Querier, hits []Hit) error {
	byLabel := map[string][]string{}
	for _, h := range hits {
		if schema.Label(h.Label).IsSymbol() {
			byLabel[h.Label] = append(byLabel[h.Label], h.ID)
		}
	}
	got := map[string][2]string{}
	for _, l := range schema.SymbolLabels {
		ids := byLabel[string(l)]
		if len(ids) == 0 {
			continue
		}
		res, err := q.Query(ctx, fmt.Sprintf("MATCH (n:%s) WHERE n.id IN %s RETURN n.id, n.signature, n.content", l, schema.QuoteList(ids)), nil)
		if err != nil {
			return fmt.Errorf("read content: %w", err)
		}
		for _, row := range res.Rows {
			got[str(row[0])] = [2]string{str(row[1]), str(row[2])}
		}
	}
	for i := range hits {
		if c, ok := got[hits[i].ID]; ok {
			hits[i].Signature, hits[i].Content = c[0], c[1]
		}
	}
	return nil
}

// processesOf finds the STEP_IN_PROCESS memberships of the hits and
// describes each process they are in, with all its steps. An index without
// processes yields none.
func processesOf(ctx context.Context, q Querier, hits []Hit) ([]Membership, map[string]Process, error) {
	var ids []string
	for _, h := range hits {
		if schema.Label(h.Label).IsSymbol() {
			ids = append(ids, h.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	res, err := q.Query(ctx, fmt.Sprintf(
		"MATCH (s)-[r:%s]->(p:%s) WHERE s.id IN %s RETURN s.id, p.id, r.step",
		schema.RelStepInProcess, schema.LabelProcess, schema.QuoteList(ids)), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("read process memberships: %w", err)
	}
	var members []Membership
	pids := map[string]bool{}
	for _, row := range res.Rows {
		m := Membership{SymbolID: str(row[0]), ProcessID: str(row[1]), Step: num(row[2])}
		members = append(members, m)
		pids[m.ProcessID] = true
	}
	if len(members) == 0 {
		return nil, nil, nil
	}
	sortMemberships(members)
	var plist []string
	for p := range pids {
		plist = append(plist, p)
	}
	sort.Strings(plist)
	res, err = q.Query(ctx, fmt.Sprintf(
		"MATCH (s)-[r:%s]->(p:%s) WHERE p.id IN %s "+
			"RETURN p.id, p.label, p.priority, p.processType, p.stepCount, r.step, s.id, s.name, s.filePath ORDER BY p.id, r.step",
		schema.RelStepInProcess, schema.LabelProcess, schema.QuoteList(plist)), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("read processes: %w", err)
	}
	procs := map[string]Process{}
	for _, row := range res.Rows {
		id := str(row[0])
		p, ok := procs[id]
		if !ok {
			p = Process{ID: id, Summary: str(row[1]), Priority: flt(row[2]), ProcessType: str(row[3]), StepCount: num(row[4])}
		}
		p.Steps = append(p.Steps, Step{Index: num(row[5]), ID: str(row[6]), Name: str(row[7]), FilePath: str(row[8])})
		procs[id] = p
	}
	// Kuzu 0.11.3 does not keep ORDER BY r.step across the
	// Function→Process and Method→Process tables of one pattern (seen on
	// prometheus: steps 5, 6, 1, 2, ...): order the steps here.
	sortSteps(procs)
	return members, procs, nil
}
