package compare

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gitnexus/gitnexus/bench/callgraph/oracle"
)

// WriteReport prints the scores of several tools side by side, then the
// recall by call-site kind, the precision by reason, and up to examples
// missed and wrong edges per tool.
func WriteReport(w io.Writer, o *Oracle, scores []Score, examples int) error {
	g := o.Graph
	var b strings.Builder
	fmt.Fprintf(&b, "module %s: %d functions, %d static edges, %d CHA edges (%s, %s/%s, %d packages)\n\n",
		g.Module, len(g.Funcs), len(g.Static), len(g.CHA), g.Tools, g.GOOS, g.GOARCH, g.Packages)

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, f func(s Score) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, s := range scores {
			fmt.Fprintf(tw, "%s\t", f(s))
		}
		fmt.Fprintln(tw)
	}
	row("", func(s Score) string { return s.Tool })
	row("min confidence", func(s Score) string { return fmt.Sprintf("%.2f", s.MinConfidence) })
	row("CALLS rows", func(s Score) string { return fmt.Sprint(s.Rows) })
	row("distinct edges", func(s Score) string { return fmt.Sprint(s.Edges) })
	row("self-edges (dropped)", func(s Score) string { return fmt.Sprint(s.SelfEdges) })
	row("outside oracle set", func(s Score) string { return fmt.Sprint(s.Outside.Total) })
	row("  test files", func(s Score) string { return fmt.Sprint(s.Outside.TestFile) })
	row("  no line (file-level)", func(s Score) string { return fmt.Sprint(s.Outside.NoLine) })
	row("  file not loaded", func(s Score) string { return fmt.Sprint(s.Outside.FileNotLoaded) })
	row("  off by one line", func(s Score) string { return fmt.Sprint(s.Outside.OffByOne) })
	row("  not a function", func(s Score) string { return fmt.Sprint(s.Outside.Other) })
	row("scored edges", func(s Score) string { return fmt.Sprint(s.Scored) })
	row("recall (static)", func(s Score) string {
		return fmt.Sprintf("%.3f (%d/%d)", s.Recall, s.StaticFound, s.StaticTotal)
	})
	row("  over static.CallGraph's edges", func(s Score) string {
		return fmt.Sprintf("%.3f (%d/%d)", s.RecallXTools, s.XToolsFound, s.XToolsTotal)
	})
	row("precision (CHA)", func(s Score) string {
		return fmt.Sprintf("%.3f (%d/%d)", s.Precision, s.CHACorrect, s.Scored)
	})
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(&b, "\nrecall by call-site kind of the static edge\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "kind\tstatic\t")
	for _, s := range scores {
		fmt.Fprintf(tw, "%s\t", s.Tool)
	}
	fmt.Fprintln(tw)
	for _, k := range kindOrder(scores) {
		total := 0
		for _, s := range scores {
			for _, ks := range s.ByKind {
				if ks.Kind == k {
					total = ks.Total
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t", k, total)
		for _, s := range scores {
			found := 0
			for _, ks := range s.ByKind {
				if ks.Kind == k {
					found = ks.Found
				}
			}
			fmt.Fprintf(tw, "%s\t", ratio(found, total))
		}
		fmt.Fprintln(tw)
	}
	for _, label := range []string{"(first site in a closure)"} {
		fmt.Fprintf(tw, "%s\t%d\t", label, countClosure(g.Static))
		for _, s := range scores {
			missed := 0
			for _, m := range s.Misses {
				if m.InClosure {
					missed++
				}
			}
			n := countClosure(g.Static)
			fmt.Fprintf(tw, "%s\t", ratio(n-missed, n))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	for _, s := range scores {
		fmt.Fprintf(&b, "\n%s: precision by reason (edges, in CHA)\n", s.Tool)
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range s.ByReason {
			reason := r.Reason
			if reason == "" {
				reason = "(none)"
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\n", reason, r.Edges, ratio(r.Correct, r.Edges))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if examples <= 0 {
			continue
		}
		if len(s.Misses) > 0 {
			fmt.Fprintf(&b, "%s: missed static edges (%d; first %d)\n", s.Tool, len(s.Misses), min(examples, len(s.Misses)))
			for _, m := range s.Misses[:min(examples, len(s.Misses))] {
				cl := ""
				if m.InClosure {
					cl = " in closure"
				}
				fmt.Fprintf(&b, "  %s -> %s  [%s%s at %s]\n", m.Caller, m.Callee, m.Kind, cl, m.Site)
			}
		}
		if len(s.Wrong) > 0 {
			fmt.Fprintf(&b, "%s: edges not in CHA (%d; first %d)\n", s.Tool, len(s.Wrong), min(examples, len(s.Wrong)))
			for _, x := range s.Wrong[:min(examples, len(s.Wrong))] {
				fmt.Fprintf(&b, "  %s -> %s  [%s %.2f]\n", x.Caller, x.Callee, x.Reason, x.Confidence)
			}
		}
		if len(s.Outside.Examples) > 0 {
			fmt.Fprintf(&b, "%s: outside the oracle set, file not loaded or not a function (%d; first %d)\n", s.Tool, s.Outside.FileNotLoaded+s.Outside.Other, len(s.Outside.Examples))
			for _, e := range s.Outside.Examples {
				fmt.Fprintf(&b, "  %s -> %s  [%s]\n", e.From, e.To, o.outsideEnds(e))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCurve prints precision and recall at each confidence threshold.
func WriteCurve(w io.Writer, curve []Score) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "tool\tmin confidence\tscored edges\tprecision\trecall\t\n")
	for _, s := range curve {
		fmt.Fprintf(tw, "%s\t%.2f\t%d\t%.3f\t%.3f\t\n", s.Tool, s.MinConfidence, s.Scored, s.Precision, s.Recall)
	}
	return tw.Flush()
}

func ratio(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (%d)", float64(n)/float64(d), n)
}

func countClosure(es []oracle.StaticEdge) int {
	n := 0
	for _, e := range es {
		if e.InClosure {
			n++
		}
	}
	return n
}

func kindOrder(scores []Score) []oracle.Kind {
	total := make(map[oracle.Kind]int)
	for _, s := range scores {
		for _, k := range s.ByKind {
			total[k.Kind] = k.Total
		}
	}
	ks := make([]oracle.Kind, 0, len(total))
	for k := range total {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if total[ks[i]] != total[ks[j]] {
			return total[ks[i]] > total[ks[j]]
		}
		return ks[i] < ks[j]
	})
	return ks
}

// outsideEnds says which ends of e are not oracle functions.
func (o *Oracle) outsideEnds(e Edge) string {
	_, from := o.index[e.From]
	_, to := o.index[e.To]
	switch {
	case !from && !to:
		return "caller and callee outside"
	case !from:
		return "caller outside"
	}
	return "callee outside"
}
