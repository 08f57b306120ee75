package discover

import (
	"strings"
	"testing"
)

// verdict runs the filter top-down over p's ancestors, as both listers do,
// and returns the reason p is left out ("" when kept).
func verdict(f *filter, p string) string {
	var s state
	parts := strings.Split(p, "/")
	for i := range parts {
		s = f.child(s, strings.Join(parts[:i+1], "/"), i < len(parts)-1)
	}
	r, _, _ := s.excluded()
	return r
}

func TestFilterLayering(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		gni  map[string]string // directory → .gitnexusignore content
		want map[string]string // path → reason, "" when kept
	}{
		{
			name: "defaults",
			want: map[string]string{
				"main.go": "", "node_modules/a/b.js": ReasonDefaultExclude,
				"web/node_modules/x.js": ReasonDefaultExclude, "vendor/x.go": ReasonDefaultExclude,
				"build/x.go": ReasonDefaultExclude, "pkg/build/x.go": "", "dist/a.js": ReasonDefaultExclude,
				"a/b/app.min.js": ReasonDefaultExclude, "go.sum": ReasonDefaultExclude, "sub/go.sum": ReasonDefaultExclude,
				"third_party/forked/x.go": ReasonDefaultExclude, "coverage/x": ReasonDefaultExclude,
				"internal/coverage/x.go": "",
			},
		},
		{
			name: "no defaults",
			opts: Options{NoDefaultExcludes: true},
			want: map[string]string{"node_modules/a.js": "", "go.sum": ""},
		},
		{
			name: "includes reach inside a default-excluded directory",
			opts: Options{Includes: []string{"vendor/github.com/foo/", "*.lock"}},
			want: map[string]string{
				"vendor/github.com/foo/a.go": "", "vendor/github.com/bar/a.go": ReasonDefaultExclude,
				"yarn.lock": "", "node_modules/x.lock": "", "package-lock.json": ReasonDefaultExclude,
			},
		},
		{
			name: "a .gitnexusignore negation brings a default back, but not from inside it",
			gni:  map[string]string{"": "!vendor/\n!node_modules/keep/\n"},
			want: map[string]string{
				"vendor/a.go": "", "node_modules/keep/a.js": ReasonDefaultExclude,
			},
		},
		{
			name: "gitignore semantics for .gitnexusignore: deeper wins, no re-include under an excluded dir",
			gni: map[string]string{
				"":    "*.txt\ngen/\n!gen/keep.go\n",
				"sub": "!*.txt\n",
			},
			want: map[string]string{
				"a.txt": ReasonGitnexusIgnore, "sub/a.txt": "", "gen/keep.go": ReasonGitnexusIgnore,
				"x/gen/a.go": ReasonGitnexusIgnore, "main.go": "",
			},
		},
		{
			name: "--exclude wins over .gitnexusignore; includes do not override either",
			opts: Options{Excludes: []string{"*.go", "!main.go"}, Includes: []string{"docs/"}},
			gni:  map[string]string{"": "!x.go\ndocs/\n"},
			want: map[string]string{
				"x.go": ReasonUserExclude, "main.go": "", "docs/a.md": ReasonGitnexusIgnore,
				"README": "",
			},
		},
		{
			name: "anchored patterns in a nested .gitnexusignore are relative to it",
			gni:  map[string]string{"a": "/b/\nc/d\n"},
			want: map[string]string{
				"a/b/x": ReasonGitnexusIgnore, "a/x/b/y": "", "a/c/d": ReasonGitnexusIgnore,
				"b/x": "", "a/z/c/d": "",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := newFilter(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for dir, content := range tc.gni {
				f.addIgnoreFile(dir, []byte(content))
			}
			for p, want := range tc.want {
				if got := verdict(f, p); got != want {
					t.Errorf("%s: reason %q, want %q", p, got, want)
				}
			}
		})
	}
}

func TestNewFilterRejectsEmptyPatterns(t *testing.T) {
	for _, o := range []Options{{Excludes: []string{""}}, {Includes: []string{"#x"}}, {Excludes: []string{"   "}}} {
		if _, err := newFilter(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
