package main

// End-to-end tests of `gitnexus setup`: for every client, setup into a
// temporary HOME with the real binary, parse the config it wrote with the
// format's own parser, start the server that config names, and check it
// answers tools/list (and, with --guidance, that the agent block is
// written once).

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"

	"github.com/gitnexus/gitnexus/setup"
)

// setupEnv is an environment with HOME and GITNEXUS_HOME at home, no
// XDG/CODEX/APPDATA overrides, and a PATH without any client on it.
func setupEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "GITNEXUS_HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA", "PATH":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "GITNEXUS_HOME="+filepath.Join(home, ".gitnexus-home"), "PATH=/usr/bin:/bin")
}

type setupOut struct {
	Command string         `json:"command"`
	Results []setup.Result `json:"results"`
}

func runSetup(t *testing.T, home, dir string, args ...string) setupOut {
	t.Helper()
	c := exec.Command(binary, append([]string{"setup", "--json"}, args...)...)
	c.Env, c.Dir = setupEnv(home), dir
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("setup %v: %v\n%s%s", args, err, out, stderr.String())
	}
	var o setupOut
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("setup --json: %v\n%s", err, out)
	}
	return o
}

// configuredArgv parses path in format f with that format's own parser
// and returns the command line its gitnexus entry names.
func configuredArgv(t *testing.T, c *setup.Client, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	switch c.Format {
	case setup.JSON:
		err = json.Unmarshal(data, &cfg)
	case setup.JSONC:
		var std []byte
		if std, err = hujson.Standardize(data); err == nil {
			err = json.Unmarshal(std, &cfg)
		}
	case setup.TOML:
		_, err = toml.Decode(string(data), &cfg)
	case setup.YAML:
		err = yaml.Unmarshal(data, &cfg)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	var v any = cfg
	for _, k := range append(append([]string{}, c.Key...), setup.ServerName) {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	e, _ := v.(map[string]any)
	var argv []string
	cmd := e["command"]
	if c, ok := e["cmd"]; ok { // Goose
		cmd = c
	}
	switch cmd := cmd.(type) {
	case string:
		argv = append(argv, cmd)
		args, _ := e["args"].([]any)
		for _, a := range args {
			argv = append(argv, a.(string))
		}
	case []any:
		for _, a := range cmd {
			argv = append(argv, a.(string))
		}
	}
	if len(argv) == 0 {
		t.Fatalf("%s names no gitnexus server:\n%s", path, data)
	}
	return argv
}

// answersToolsList starts argv as an MCP server over stdio and lists its
// tools.
func answersToolsList(t *testing.T, home string, argv []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Dir = setupEnv(home), home
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "setup-e2e", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list from %v: %v", argv, err)
	}
	names := map[string]bool{}
	for _, tl := range res.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"query", "context", "impact", "list_repos"} {
		if !names[want] {
			t.Errorf("%v lists no %s tool: %v", argv, want, names)
		}
	}
}

// TestSetupEveryClient: user-level setup for each client, then the
// written config starts a server that answers tools/list; a second run
// changes nothing; uninstall removes what the first added.
func TestSetupEveryClient(t *testing.T) {
	for _, c := range setup.Clients {
		t.Run(c.Name, func(t *testing.T) {
			home := t.TempDir()
			o := runSetup(t, home, home, "--client", c.Name)
			if len(o.Results) != 1 || o.Results[0].Action != setup.Added {
				t.Fatalf("%+v", o.Results)
			}
			if !filepath.IsAbs(o.Command) {
				t.Errorf("command %q is not absolute", o.Command)
			}
			path := o.Results[0].Path
			if !strings.HasPrefix(path, home) {
				t.Fatalf("wrote %s, outside HOME %s", path, home)
			}
			argv := configuredArgv(t, c, path)
			if argv[0] != o.Command || argv[len(argv)-1] != "mcp" {
				t.Errorf("config names %v", argv)
			}
			answersToolsList(t, home, argv)
			if o := runSetup(t, home, home, "--client", c.Name); o.Results[0].Action != setup.Unchanged {
				t.Errorf("second run: %+v", o.Results)
			}
			if o := runSetup(t, home, home, "--client", c.Name, "--uninstall"); o.Results[0].Action != setup.Removed {
				t.Errorf("uninstall: %+v", o.Results)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("uninstall left %s, which setup created", path)
			}
		})
	}
}

// TestSetupProjectAndGuidance: --project writes each client's
// project-level file in the repository, each starts a server answering
// tools/list, and --guidance writes the agent block once.
func TestSetupProjectAndGuidance(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	sub := filepath.Join(repo, "pkg")
	os.MkdirAll(sub, 0o755)
	var names []string
	for _, c := range setup.Clients {
		if c.Project != "" {
			names = append(names, c.Name)
		}
	}
	o := runSetup(t, home, sub, "--project", "--guidance", "--client", strings.Join(names, ","))
	canon, _ := filepath.EvalSymlinks(repo)
	for _, r := range o.Results {
		if r.Action != setup.Added || !strings.HasPrefix(r.Path, canon+string(filepath.Separator)) {
			t.Errorf("%+v (repo %s)", r, canon)
			continue
		}
		if r.Client == "guidance" {
			if filepath.Base(r.Path) != "AGENTS.md" {
				t.Errorf("guidance went to %s", r.Path)
			}
			continue
		}
		answersToolsList(t, home, configuredArgv(t, setup.ClientByName(r.Client), r.Path))
	}
	if len(o.Results) != len(names)+1 {
		t.Errorf("%d results for %d clients and the guidance", len(o.Results), len(names))
	}
	o = runSetup(t, home, sub, "--project", "--guidance", "--client", strings.Join(names, ","))
	for _, r := range o.Results {
		if r.Action != setup.Unchanged {
			t.Errorf("second run: %+v", r)
		}
	}
	agents, _ := os.ReadFile(filepath.Join(repo, "AGENTS.md"))
	if strings.Count(string(agents), "<!-- gitnexus:start -->") != 1 || !strings.Contains(string(agents), "`impact`") {
		t.Errorf("AGENTS.md:\n%s", agents)
	}
}

// TestSetupCLI: exit codes, dry run, detection.
func TestSetupCLI(t *testing.T) {
	home := t.TempDir()
	c := exec.Command(binary, "setup", "--client", "emacs")
	c.Env = setupEnv(home)
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "claude-code") {
		t.Errorf("unknown client: %v\n%s", err, out)
	}
	// Only Cursor looks installed: the dry run shows its diff and writes
	// nothing.
	os.MkdirAll(filepath.Join(home, ".cursor"), 0o755)
	c = exec.Command(binary, "setup", "--dry-run")
	c.Env = setupEnv(home)
	out, err = c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "would add") || !strings.Contains(string(out), "+++ "+filepath.Join(home, ".cursor", "mcp.json")) ||
		strings.Count(string(out), "skipped") != len(setup.Clients)-1 {
		t.Errorf("dry run: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".cursor", "mcp.json")); err == nil {
		t.Errorf("dry run wrote the config")
	}
	// A broken config: exit 1, file untouched, the others still done.
	os.WriteFile(filepath.Join(home, ".cursor", "mcp.json"), []byte("{broken"), 0o644)
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	c = exec.Command(binary, "setup")
	c.Env = setupEnv(home)
	out, err = c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "not valid JSON") {
		t.Errorf("broken config: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json")); string(b) != "{broken" {
		t.Errorf("broken config rewritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "settings.json")); err != nil {
		t.Errorf("gemini not configured beside the broken cursor config: %v", err)
	}
}
