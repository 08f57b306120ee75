package resolve

import (
	"go/build/constraint"
	"path"
	"strings"

	"github.com/gitnexus/gitnexus/ingest/lang"
)

// The build gitnexus assumes when a name is declared in several build
// variants of one Go package (labels.go / labels_stringlabels.go, say):
// the default build of a linux/amd64 machine with cgo and the current Go.
const (
	goOS   = "linux"
	goArch = "amd64"
)

var knownOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true,
	"illumos": true, "ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true,
	"openbsd": true, "plan9": true, "solaris": true, "wasip1": true, "windows": true, "zos": true,
}

var knownArch = map[string]bool{
	"386": true, "amd64": true, "arm": true, "arm64": true, "loong64": true, "mips": true,
	"mipsle": true, "mips64": true, "mips64le": true, "ppc64": true, "ppc64le": true,
	"riscv64": true, "s390x": true, "wasm": true,
}

// Active reports whether the default build includes a file: for Go, its
// `//go:build` line and its _GOOS/_GOARCH name suffixes; every other file
// is active. A constraint that does not parse counts as active.
func Active(f *lang.Facts) bool {
	if f.Language != "go" {
		return true
	}
	name := strings.TrimSuffix(path.Base(f.Path), ".go")
	name = strings.TrimSuffix(name, "_test")
	parts := strings.Split(name, "_")
	if n := len(parts); n >= 2 {
		last := parts[n-1]
		if knownArch[last] {
			if last != goArch {
				return false
			}
			if n >= 3 && knownOS[parts[n-2]] && parts[n-2] != goOS {
				return false
			}
		} else if knownOS[last] && last != goOS {
			return false
		}
	}
	if f.BuildConstraint == "" {
		return true
	}
	expr, err := constraint.Parse("//go:build " + f.BuildConstraint)
	if err != nil {
		return true
	}
	return expr.Eval(func(tag string) bool {
		switch tag {
		case goOS, goArch, "unix", "gc", "cgo":
			return true
		}
		if v, ok := strings.CutPrefix(tag, "go1."); ok {
			return len(v) > 0 && len(v) <= 2 && v <= "99" // every go1.N release tag holds for a current toolchain
		}
		return false
	})
}

// preferActive keeps the symbols of active files when there are some,
// else returns ss unchanged.
func (r *resolver) preferActive(ss []*sym) []*sym {
	if len(ss) < 2 {
		return ss
	}
	var out []*sym
	for _, s := range ss {
		if !r.inactive[s.FilePath] {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return ss
	}
	return out
}
