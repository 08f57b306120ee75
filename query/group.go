package query

import "sort"

// Membership says that symbol SymbolID is step Step (1-based) of process
// ProcessID: one STEP_IN_PROCESS edge.
type Membership struct {
	SymbolID  string
	ProcessID string
	Step      int
}

// Group splits ranked hits into the processes they take part in and the
// definitions that are in none of them. procs describes the processes by id
// (a process missing from it is still reported, with its id only).
// Processes are ordered by Score (the sum of their hits' scores: a flow
// through three matches beats a flow through one), then priority, then id,
// and only the first maxProcesses are kept (0: all); a hit in none of the
// kept processes is a definition. ProcessSymbols follow process order, then
// step; Definitions keep the hits' order. Processes is never nil, so it
// encodes as [] in JSON.
func Group(hits []Hit, members []Membership, procs map[string]Process, maxProcesses int) ([]Process, []ProcessSymbol, []Hit) {
	bySymbol := map[string][]Membership{}
	for _, m := range members {
		bySymbol[m.SymbolID] = append(bySymbol[m.SymbolID], m)
	}
	pmap := map[string]*Process{}
	var plist []*Process
	var psyms []ProcessSymbol
	for _, h := range hits {
		ms := bySymbol[h.ID]
		seen := map[string]bool{}
		for _, m := range ms {
			if seen[m.ProcessID] {
				continue // a symbol repeated in one flow is listed at its first step
			}
			seen[m.ProcessID] = true
			p := pmap[m.ProcessID]
			if p == nil {
				pr := procs[m.ProcessID]
				pr.ID = m.ProcessID
				pr.SymbolCount = 0
				pr.Score = 0
				p = &pr
				pmap[m.ProcessID] = p
				plist = append(plist, p)
			}
			p.SymbolCount++
			p.Score += h.Score
			psyms = append(psyms, ProcessSymbol{Hit: h, ProcessID: m.ProcessID, StepIndex: m.Step})
		}
	}
	sort.SliceStable(plist, func(i, j int) bool {
		a, b := plist[i], plist[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		return a.ID < b.ID
	})
	if maxProcesses > 0 && len(plist) > maxProcesses {
		plist = plist[:maxProcesses]
	}
	rank := map[string]int{}
	processes := make([]Process, len(plist))
	for i, p := range plist {
		rank[p.ID] = i
		processes[i] = *p
	}
	kept := psyms[:0]
	inKept := map[string]bool{}
	for _, ps := range psyms {
		if _, ok := rank[ps.ProcessID]; ok {
			kept = append(kept, ps)
			inKept[ps.ID] = true
		}
	}
	psyms = kept
	defs := []Hit{}
	for _, h := range hits {
		if !inKept[h.ID] {
			defs = append(defs, h)
		}
	}
	sort.SliceStable(psyms, func(i, j int) bool {
		a, b := psyms[i], psyms[j]
		if rank[a.ProcessID] != rank[b.ProcessID] {
			return rank[a.ProcessID] < rank[b.ProcessID]
		}
		return a.StepIndex < b.StepIndex
	})
	if psyms == nil {
		psyms = []ProcessSymbol{}
	}
	return processes, psyms, defs
}
