package discover

import (
	"fmt"
	"path"
	"strings"
)

// filter layers gitnexus's own exclusions on top of git's view (or the
// .gitignore walk): the default excludes, Options.Includes,
// .gitnexusignore files and Options.Excludes.
//
// .gitnexusignore files and Options.Excludes behave like gitignore files
// (later rules win, deeper files win over shallower ones, the command line
// wins over files, and nothing inside an excluded directory can be
// re-included). The default excludes sit underneath them:
//
//   - a path is default-excluded when it or an ancestor directory matches a
//     default pattern, unless it is exempt;
//   - a "!" rule of a .gitnexusignore or Options.Excludes that matches the
//     default-excluded directory itself ("!vendor/") exempts it and all
//     below; like gitignore, a "!" rule cannot reach inside a directory that
//     is already excluded ("!vendor/x/" alone does not bring vendor/x back);
//   - Options.Includes is the explicit override and reaches anywhere: a
//     path is exempt when it or any ancestor matches an include, so
//     Includes "vendor/github.com/foo/" brings back that one module.
type filter struct {
	defaults []rule
	includes []rule
	user     []rule
	gni      map[string][]rule // directory → rules of its .gitnexusignore
	// noDefaults is Options.NoDefaultExcludes: no default excludes and no
	// content checks (Sniff).
	noDefaults bool
}

// sniffExempt reports whether a kept path in state s skips the content
// checks: default excludes are off, or an include or "!" rule exempts it.
func (f *filter) sniffExempt(s state) bool {
	return f.noDefaults || s.exempt
}

func newFilter(opts Options) (*filter, error) {
	f := &filter{gni: map[string][]rule{}, noDefaults: opts.NoDefaultExcludes}
	if !opts.NoDefaultExcludes {
		for _, p := range DefaultExcludes {
			r, ok := parseRule(p, "", ReasonDefaultExclude)
			if !ok {
				return nil, fmt.Errorf("bad default exclude pattern %q", p)
			}
			r.source = "default exclude " + p
			f.defaults = append(f.defaults, r)
		}
	}
	for _, p := range opts.Includes {
		r, ok := parseRule(p, "", "")
		if !ok {
			return nil, fmt.Errorf("include pattern %q is empty or a comment: give a gitignore-style pattern such as vendor/", p)
		}
		r.negate = false // "!x" and "x" both mean: bring x back
		r.source = "--include " + p
		f.includes = append(f.includes, r)
	}
	for _, p := range opts.Excludes {
		r, ok := parseRule(p, "", ReasonUserExclude)
		if !ok {
			return nil, fmt.Errorf("exclude pattern %q is empty or a comment: give a gitignore-style pattern such as '*.pb.go' or docs/", p)
		}
		r.source = "--exclude " + p
		f.user = append(f.user, r)
	}
	return f, nil
}

// addIgnoreFile adds the rules of the .gitnexusignore in directory dir.
func (f *filter) addIgnoreFile(dir string, content []byte) {
	rules := parseRules(content, dir, ReasonGitnexusIgnore, path.Join(dir, IgnoreFileName))
	if len(rules) > 0 {
		f.gni[dir] = rules
	}
}

// state is what the filter knows about a path given the chain of its
// ancestors; it is computed top-down, parent first.
type state struct {
	reason string // set when excluded by a .gitnexusignore or --exclude
	where  string // what that rule matched; directories end in "/"
	rule   string // that rule's source (rule.source)
	dflt   string // the first default-excluded path on the chain, "" if none
	dRule  string // the source of the default exclude that matched dflt
	exempt bool   // an include or negation exempts this path from defaults
}

// excludedBy is the source of the rule that excludes the path ("" when it
// is not excluded): "dir/.gitnexusignore:3", "--exclude x",
// "default exclude vendor/".
func (s state) excludedBy() string {
	if s.reason != "" {
		return s.rule
	}
	if s.dflt != "" && !s.exempt {
		return s.dRule
	}
	return ""
}

// excluded reports whether the path is left out, why, and which path (the
// file itself or an ancestor directory ending in "/") the rule matched.
func (s state) excluded() (reason, where string, ok bool) {
	if s.reason != "" {
		return s.reason, s.where, true
	}
	if s.dflt != "" && !s.exempt {
		return ReasonDefaultExclude, s.dflt, true
	}
	return "", "", false
}

// child computes the state of path (relative to the root, no trailing
// slash) from its parent directory's state.
func (f *filter) child(parent state, p string, isDir bool) state {
	if parent.reason != "" {
		return parent // nothing below an excluded directory comes back
	}
	s := parent
	name := path.Base(p)
	shown := p
	if isDir {
		shown += "/"
	}
	if r := f.lastLayered(p, name, isDir); r != nil {
		if !r.negate {
			s.reason, s.where, s.rule = r.reason, shown, r.source
			return s
		}
		if s.dflt == "" {
			s.exempt = true // "!vendor/": but not from inside an excluded dir
		}
	}
	if !s.exempt && lastMatch(f.includes, p, name, isDir) != nil {
		s.exempt = true
	}
	if s.dflt == "" && !s.exempt {
		if r := lastMatch(f.defaults, p, name, isDir); r != nil {
			s.dflt, s.dRule = shown, r.source
		}
	}
	return s
}

// lastLayered finds the deciding rule among the .gitnexusignore files of
// p's ancestors and Options.Excludes: the command line first, then the
// deepest file.
func (f *filter) lastLayered(p, name string, isDir bool) *rule {
	if r := lastMatch(f.user, p, name, isDir); r != nil {
		return r
	}
	if len(f.gni) == 0 {
		return nil
	}
	d := p
	for d != "" {
		d = parentDir(d)
		if rules := f.gni[d]; rules != nil {
			if r := lastMatch(rules, p, name, isDir); r != nil {
				return r
			}
		}
	}
	return nil
}

// parentDir returns the parent of a '/'-separated relative path, "" at the
// top.
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}
