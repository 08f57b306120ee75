package discover

import (
	"context"
	"fmt"
	"testing"
)

// TestTopRulesEverythingIgnored is the Debian kernel tree: a top-level
// .gitignore ending in "/*" hides every file, so nothing is indexed and
// nothing is "skipped"; Result must say how many files were hidden and by
// which line of which file. Walk mode (no repository, as in an unpacked
// source package) and git mode (an untracked tree).
func TestTopRulesEverythingIgnored(t *testing.T) {
	for _, useGit := range []bool{false, true} {
		root := t.TempDir()
		write(t, root, ".gitignore", "# build products\n*.o\n/*\n!.gitignore\n")
		for i := range 30 {
			write(t, root, fmt.Sprintf("drivers/d%d/x.c", i%5), "int x;\n")
			write(t, root, fmt.Sprintf("kernel/k%d.c", i), "int k;\n")
		}
		write(t, root, "Makefile", "all:\n")
		if useGit {
			needGit(t)
			run(t, root, "init", "-q")
		}
		res, err := Discover(context.Background(), root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The .gitignore itself is re-included by "!.gitignore".
		if got := paths(res.Files); !equalStrings(got, []string{".gitignore"}) {
			t.Errorf("git=%v: files %q, want only .gitignore", useGit, got)
		}
		wantFiles := 30 + 5 + 1 // kernel/*.c, drivers/d*/x.c, Makefile
		if res.Ignored != wantFiles {
			t.Errorf("git=%v: Ignored = %d, want %d", useGit, res.Ignored, wantFiles)
		}
		if len(res.TopRules) == 0 {
			t.Fatalf("git=%v: no TopRules", useGit)
		}
		if top := res.TopRules[0]; top != (RuleCount{Rule: ".gitignore:3", Reason: ReasonIgnored, Files: wantFiles}) {
			t.Errorf("git=%v: TopRules[0] = %+v, want .gitignore:3 hiding %d files", useGit, top, wantFiles)
		}
	}
}

// TestTopRulesExcludes counts the rules of gitnexus's own layers: default
// excludes, .gitnexusignore lines and --exclude, most files first.
func TestTopRulesExcludes(t *testing.T) {
	for _, useGit := range []bool{false, true} {
		root := t.TempDir()
		for i := range 4 {
			write(t, root, fmt.Sprintf("vendor/m%d/a.go", i), "package m\n")
		}
		for i := range 3 {
			write(t, root, fmt.Sprintf("docs/d%d.md", i), "# d\n")
		}
		write(t, root, "gen/x.go", "package gen\n")
		write(t, root, "gen/y.go", "package gen\n")
		write(t, root, ".gitnexusignore", "# generated\ngen/\n")
		write(t, root, "main.go", "package main\n")
		if useGit {
			needGit(t)
			run(t, root, "init", "-q")
			run(t, root, "add", "-A")
		}
		res, err := Discover(context.Background(), root, Options{Excludes: []string{"docs/"}})
		if err != nil {
			t.Fatal(err)
		}
		want := []RuleCount{
			{Rule: "default exclude vendor/", Reason: ReasonDefaultExclude, Files: 4},
			{Rule: "--exclude docs/", Reason: ReasonUserExclude, Files: 3},
			{Rule: ".gitnexusignore:2", Reason: ReasonGitnexusIgnore, Files: 2},
		}
		if fmt.Sprint(res.TopRules) != fmt.Sprint(want) {
			t.Errorf("git=%v: TopRules = %+v, want %+v", useGit, res.TopRules, want)
		}
		if res.Ignored != 0 {
			t.Errorf("git=%v: Ignored = %d, want 0", useGit, res.Ignored)
		}
	}
}
