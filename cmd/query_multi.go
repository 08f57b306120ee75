package cmd

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/gitnexus/gitnexus/graph"
	"github.com/gitnexus/gitnexus/query"
	"github.com/gitnexus/gitnexus/tools"
)

// multiResult is `query --all` / `-r a,b`: the hits of every repository
// searched, merged by score, each tagged with its repository; repositories
// that failed are listed (and named on stderr) instead of failing the whole
// query: the exit code is 0 when at least one repository answered.
type multiResult struct {
	Query          string            `json:"query"`
	Repos          []string          `json:"repos"`
	Processes      []repoProcess     `json:"processes"`
	ProcessSymbols []repoProcessSym  `json:"process_symbols"`
	Definitions    []repoHit         `json:"definitions"`
	Files          []repoFile        `json:"files"`
	Failed         []repoFailure     `json:"failed"`
	Notices        map[string]string `json:"notices,omitempty"`
}

type repoHit struct {
	Repo string `json:"repo"`
	query.Hit
}

type repoFile struct {
	Repo string `json:"repo"`
	query.RankedFile
}

type repoProcessSym struct {
	Repo string `json:"repo"`
	query.ProcessSymbol
}

type repoProcess struct {
	Repo string `json:"repo"`
	query.Process
}

type repoFailure struct {
	Repo  string `json:"repo"`
	Error string `json:"error"`
}

// runMultiQuery runs the query tool with the same input on several
// repositories in parallel and merges the answers.
func runMultiQuery(ctx context.Context, in tools.QueryInput) error {
	var targets []string
	if queryFlags.all {
		reg, err := graph.LoadRegistry()
		if err != nil {
			return err
		}
		for _, e := range reg.List() {
			targets = append(targets, e.Path)
		}
		if len(targets) == 0 {
			return Fail(ExitNotFound, "no repositories registered: index one with `gitnexus analyze PATH`")
		}
	} else {
		for _, t := range strings.Split(flagRepo, ",") {
			if t = strings.TrimSpace(t); t != "" {
				targets = append(targets, t)
			}
		}
	}
	cwd, _ := os.Getwd()
	type outcome struct {
		name string
		res  *query.Result
		err  error
	}
	outs := make([]outcome, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i].name = t
			e, err := graph.Resolve(t, cwd)
			if err != nil {
				outs[i].err = err
				return
			}
			outs[i].name = e.Name
			outs[i].res, outs[i].err = searchRepo(ctx, e.Path, in)
		}()
	}
	wg.Wait()

	m := multiResult{Query: strings.TrimSpace(in.SearchQuery), Repos: []string{}, Processes: []repoProcess{}, ProcessSymbols: []repoProcessSym{},
		Definitions: []repoHit{}, Files: []repoFile{}, Failed: []repoFailure{}}
	for _, o := range outs {
		if o.err != nil {
			m.Failed = append(m.Failed, repoFailure{o.name, o.err.Error()})
			continue
		}
		m.Repos = append(m.Repos, o.name)
		for _, p := range o.res.Processes {
			m.Processes = append(m.Processes, repoProcess{o.name, p})
		}
		for _, ps := range o.res.ProcessSymbols {
			m.ProcessSymbols = append(m.ProcessSymbols, repoProcessSym{o.name, ps})
		}
		for _, d := range o.res.Definitions {
			m.Definitions = append(m.Definitions, repoHit{o.name, d})
		}
		for _, f := range o.res.Files {
			m.Files = append(m.Files, repoFile{o.name, f})
		}
		if len(o.res.Notices) > 0 {
			if m.Notices == nil {
				m.Notices = map[string]string{}
			}
			m.Notices[o.name] = strings.Join(o.res.Notices, "; ")
		}
	}
	// Scores are normalised per repository (the best hit of each is 1), so
	// merging by score interleaves the repositories' best answers.
	sort.SliceStable(m.Processes, func(i, j int) bool { return m.Processes[i].Score > m.Processes[j].Score })
	sort.SliceStable(m.Definitions, func(i, j int) bool { return m.Definitions[i].Score > m.Definitions[j].Score })
	sort.SliceStable(m.Files, func(i, j int) bool { return m.Files[i].Score > m.Files[j].Score })
	if len(m.Definitions) > in.MaxSymbols && in.MaxSymbols > 0 {
		m.Definitions = m.Definitions[:in.MaxSymbols]
	}
	for _, f := range m.Failed {
		fmt.Fprintf(os.Stderr, "gitnexus: %s: %s\n", f.Repo, f.Error)
	}
	if len(m.Repos) == 0 {
		return Fail(ExitNotFound, "no repository could be searched")
	}
	var err error
	if flagJSON {
		err = printJSON(m)
	} else {
		scr := stdout()
		if len(m.Processes) == 0 && len(m.Definitions) == 0 {
			scr.linef("no matches for %q in %d repositories", in.SearchQuery, len(m.Repos))
		}
		if len(m.Processes) > 0 {
			scr.line(scr.paint(styleBold, "Flows"))
			for i, p := range m.Processes {
				scr.linef("  %d. [%s] %s  (%s, %d steps, score %.2f)", i+1, p.Repo, p.Summary, p.ProcessType, p.StepCount, p.Score)
			}
			scr.line("")
		}
		if len(m.Definitions) > 0 {
			scr.line(scr.paint(styleBold, "Definitions"))
			for _, d := range m.Definitions {
				scr.linef("  %.2f  [%s] %-10s %s %s", d.Score, d.Repo, d.Kind, pad(d.Name, 32), location(d.Hit))
			}
		}
	}
	if err == nil && len(m.Processes) == 0 && len(m.Definitions) == 0 {
		return noMatches(in.SearchQuery)
	}
	return err
}
