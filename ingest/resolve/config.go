package resolve

import (
	"bufio"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// readGoModules reads the module path of every go.mod among paths.
func readGoModules(root string, paths []string) []goModule {
	var mods []goModule
	for _, p := range paths {
		if path.Base(p) != "go.mod" {
			continue
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
				mod := strings.Trim(strings.TrimSpace(rest), `"`)
				if i := strings.Index(mod, "//"); i >= 0 {
					mod = strings.TrimSpace(mod[:i])
				}
				if mod != "" {
					mods = append(mods, goModule{path: mod, dir: path.Dir(p)})
				}
				break
			}
		}
		f.Close()
	}
	return mods
}

// tsConfig is the part of tsconfig.json/jsconfig.json module resolution
// uses: baseUrl and paths.
type tsConfig struct {
	baseURL string              // repo-relative
	paths   map[string][]string // pattern → repo-relative targets
}

var jsonComment = regexp.MustCompile(`(?m)^\s*//.*$|/\*[\s\S]*?\*/`)
var trailingComma = regexp.MustCompile(`,(\s*[}\]])`)

// readTSConfig reads tsconfig.json (or jsconfig.json) at the root. Comments
// and trailing commas, which tsc accepts, are removed first; "extends" is
// not followed.
func readTSConfig(root string) *tsConfig {
	for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue
		}
		b = jsonComment.ReplaceAll(b, nil)
		b = trailingComma.ReplaceAll(b, []byte("$1"))
		var cfg struct {
			CompilerOptions struct {
				BaseURL string              `json:"baseUrl"`
				Paths   map[string][]string `json:"paths"`
			} `json:"compilerOptions"`
		}
		if json.Unmarshal(b, &cfg) != nil {
			continue
		}
		tc := &tsConfig{baseURL: path.Clean(cfg.CompilerOptions.BaseURL), paths: map[string][]string{}}
		if cfg.CompilerOptions.BaseURL == "" {
			tc.baseURL = "."
		}
		for pat, targets := range cfg.CompilerOptions.Paths {
			for _, t := range targets {
				tc.paths[pat] = append(tc.paths[pat], path.Join(tc.baseURL, t))
			}
		}
		return tc
	}
	return nil
}

// candidates returns the repo-relative bases a bare specifier may name:
// each matching paths pattern (one '*' wildcard), then baseUrl.
func (c *tsConfig) candidates(spec string) []string {
	if c == nil {
		return nil
	}
	var out []string
	for pat, targets := range c.paths {
		prefix, suffix, wild := strings.Cut(pat, "*")
		if !wild {
			if spec == pat {
				out = append(out, targets...)
			}
			continue
		}
		if strings.HasPrefix(spec, prefix) && strings.HasSuffix(spec, suffix) && len(spec) >= len(prefix)+len(suffix) {
			mid := spec[len(prefix) : len(spec)-len(suffix)]
			for _, t := range targets {
				out = append(out, strings.Replace(t, "*", mid, 1))
			}
		}
	}
	if c.baseURL != "" {
		out = append(out, path.Join(c.baseURL, spec))
	}
	return out
}

// readPSR4 reads composer.json's autoload (and autoload-dev) psr-4 map:
// namespace prefix (with its trailing backslash) → repo-relative
// directories.
func readPSR4(root string) map[string][]string {
	b, err := os.ReadFile(filepath.Join(root, "composer.json"))
	if err != nil {
		return nil
	}
	var cfg struct {
		Autoload struct {
			PSR4 map[string]json.RawMessage `json:"psr-4"`
		} `json:"autoload"`
		AutoloadDev struct {
			PSR4 map[string]json.RawMessage `json:"psr-4"`
		} `json:"autoload-dev"`
	}
	if json.Unmarshal(b, &cfg) != nil {
		return nil
	}
	out := map[string][]string{}
	for _, m := range []map[string]json.RawMessage{cfg.Autoload.PSR4, cfg.AutoloadDev.PSR4} {
		for prefix, raw := range m {
			var one string
			var many []string
			if json.Unmarshal(raw, &one) == nil {
				many = []string{one}
			} else if json.Unmarshal(raw, &many) != nil {
				continue
			}
			for _, d := range many {
				out[prefix] = append(out[prefix], path.Clean(strings.TrimSuffix(d, "/")))
			}
		}
	}
	return out
}
