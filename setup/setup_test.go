package setup

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const testCommand = "/opt/gitnexus/bin/gitnexus"

// testEnv is a Linux home at dir with nothing on PATH.
func testEnv(dir string) Env {
	return Env{Home: dir, GOOS: "linux", Getenv: func(string) string { return "" }, LookPath: func(string) bool { return false }}
}

// parseConfig parses a config file with its format's own parser: strict
// encoding/json for JSON (no comment or trailing comma may appear),
// hujson (a JSONC parser independent of ours) for JSONC, BurntSushi/toml
// for TOML, yaml.v3 for YAML.
func parseConfig(t *testing.T, f Format, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	switch f {
	case JSON:
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("strict JSON parse: %v\n%s", err, data)
		}
	case JSONC:
		std, err := hujson.Standardize(bytes.Clone(data)) // it standardizes in place
		if err != nil {
			t.Fatalf("JSONC parse: %v\n%s", err, data)
		}
		if err := json.Unmarshal(std, &v); err != nil {
			t.Fatal(err)
		}
	case TOML:
		if _, err := toml.Decode(string(data), &v); err != nil {
			t.Fatalf("TOML parse: %v\n%s", err, data)
		}
	case YAML:
		if err := yaml.Unmarshal(data, &v); err != nil {
			t.Fatalf("YAML parse: %v\n%s", err, data)
		}
	}
	return v
}

// dig follows keys through nested maps.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		switch m := v.(type) {
		case map[string]any:
			v = m[k]
		case map[any]any: // yaml.v3, for a mapping with a non-string key
			v = m[k]
		default:
			return nil
		}
	}
	return v
}

// serverCommand reads the command line a client's config gives our
// server.
func serverCommand(c *Client, cfg map[string]any) []string {
	e, ok := dig(cfg, append(append([]string{}, c.Key...), ServerName)...).(map[string]any)
	if !ok {
		return nil
	}
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
	case []any: // OpenCode: one array
		for _, a := range cmd {
			argv = append(argv, a.(string))
		}
	}
	return argv
}

// without is cfg with our entry deleted, through JSON (so values from
// every parser compare alike).
func without(c *Client, cfg map[string]any) map[string]any {
	data, _ := json.Marshal(cfg)
	var cp map[string]any
	json.Unmarshal(data, &cp)
	if m, ok := dig(cp, c.Key...).(map[string]any); ok {
		delete(m, ServerName)
		if len(m) == 0 && len(c.Key) == 1 {
			delete(cp, c.Key[0])
		}
	}
	return cp
}

// TestGoldenPerClient: for every client, setup into a home holding the
// fixture config gives the golden file; the client's own parser reads
// it, with our entry and every other setting; a second run changes
// nothing and does not touch the file; uninstall gives the fixture back
// byte for byte.
func TestGoldenPerClient(t *testing.T) {
	ctx := context.Background()
	for _, c := range Clients {
		t.Run(c.Name, func(t *testing.T) {
			home := t.TempDir()
			env := testEnv(home)
			before, err := os.ReadFile(filepath.Join("testdata", c.Name+".before"))
			if err != nil {
				t.Fatal(err)
			}
			path := c.User(env)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if len(before) > 0 { // an empty fixture: no file yet
				if err := os.WriteFile(path, before, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if !c.Installed(env) {
				t.Fatalf("%s not detected with %s present", c.Name, path)
			}
			opts := Options{Env: env, Command: testCommand, Args: []string{"mcp"}}
			res := runOne(t, ctx, opts, c.Name)
			if res.Action != Added || res.Path != path {
				t.Fatalf("install: %+v", res)
			}
			after, _ := os.ReadFile(path)
			golden := filepath.Join("testdata", c.Name+".golden")
			if *update {
				os.WriteFile(golden, after, 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, want) {
				t.Errorf("differs from %s:\n%s", golden, UnifiedDiff(golden, want, after))
			}
			if fi, _ := os.Stat(path); len(before) > 0 && fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the file's 0600", fi.Mode().Perm())
			}
			if b, _ := os.ReadFile(res.Backup); len(before) > 0 && !bytes.Equal(b, before) {
				t.Errorf("backup %s does not hold the previous file", res.Backup)
			}

			cfg := parseConfig(t, c.Format, after)
			if got := serverCommand(c, cfg); !reflect.DeepEqual(got, []string{testCommand, "mcp"}) {
				t.Errorf("server command %v", got)
			}
			if len(before) > 0 {
				if prev := without(c, parseConfig(t, c.Format, before)); !reflect.DeepEqual(without(c, cfg), prev) {
					t.Errorf("other settings changed:\nbefore %v\nafter  %v", prev, without(c, cfg))
				}
			}

			fi1, _ := os.Stat(path)
			if r := runOne(t, ctx, opts, c.Name); r.Action != Unchanged {
				t.Errorf("second run: %+v", r)
			}
			fi2, _ := os.Stat(path)
			if !os.SameFile(fi1, fi2) || !fi1.ModTime().Equal(fi2.ModTime()) {
				t.Errorf("second run rewrote the file")
			}

			opts.Uninstall = true
			if r := runOne(t, ctx, opts, c.Name); r.Action != Removed {
				t.Errorf("uninstall: %+v", r)
			}
			got, err := os.ReadFile(path)
			if len(before) == 0 && err == nil {
				t.Errorf("uninstall left the file it created: %q", got)
			}
			if len(before) > 0 && !bytes.Equal(got, before) {
				t.Errorf("uninstall did not give the file back:\n%s", UnifiedDiff(path, before, got))
			}
			if r := runOne(t, ctx, opts, c.Name); r.Action != Absent {
				t.Errorf("second uninstall: %+v", r)
			}
		})
	}
}

func runOne(t *testing.T, ctx context.Context, o Options, client string) Result {
	t.Helper()
	o.Clients = []string{client}
	res, err := Run(ctx, o)
	if err != nil || len(res) != 1 {
		t.Fatalf("Run: %v %+v", err, res)
	}
	if res[0].Action == Failed {
		t.Fatalf("%s failed: %s", client, res[0].Note)
	}
	return res[0]
}

// TestUpdateInPlace: an entry of our name pointing elsewhere (a moved
// binary) is updated where it stands: its command and args are replaced,
// the user's other settings of that entry (env, timeouts) and the rest of
// the file stay.
func TestUpdateInPlace(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	env := testEnv(home)
	for _, tc := range []struct {
		client, before string
	}{
		{"cursor", "{\n  \"mcpServers\": {\n    \"gitnexus\": {\"command\": \"/old/gitnexus\", \"args\": [\"mcp\"], \"env\": {\"K\": \"v\"}, /* mine */ \"disabled\": false},\n    \"b\": {\"command\": \"b\"}\n  }\n}\n"},
		{"codex", "[mcp_servers.gitnexus]\ncommand = \"/old/gitnexus\"\nstartup_timeout_sec = 20 # slow disk\nargs = [\n  \"mcp\",\n]\n\n[mcp_servers.gitnexus.env]\nX = \"1\"\n\n# next\n[other]\na = 1\n"},
		{"goose", "extensions:\n    gitnexus:\n        cmd: /old/gitnexus   # moved\n        args:\n          - mcp\n        envs: {K: v}\n        available_tools: [query]\nGOOSE_MODE: auto\n"},
	} {
		c := ClientByName(tc.client)
		path := c.User(env)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(tc.before), 0o644)
		r := runOne(t, ctx, Options{Env: env, Command: testCommand, Args: []string{"mcp"}}, tc.client)
		if r.Action != Updated {
			t.Errorf("%s: %+v", tc.client, r)
		}
		after, _ := os.ReadFile(path)
		cfg := parseConfig(t, c.Format, after)
		if got := serverCommand(c, cfg); !reflect.DeepEqual(got, []string{testCommand, "mcp"}) {
			t.Errorf("%s: command %v\n%s", tc.client, got, after)
		}
		if strings.Contains(string(after), "/old/") || strings.Count(string(after), `"gitnexus":`)+strings.Count(string(after), "[mcp_servers.gitnexus]")+strings.Count(string(after), " gitnexus:\n") != 1 {
			t.Errorf("%s: old entry left or duplicated:\n%s", tc.client, after)
		}
	}
	// The rest of each file, by the parsers.
	cfg := parseConfig(t, TOML, mustRead(t, ClientByName("codex").User(env)))
	if dig(cfg, "other", "a") != int64(1) || dig(cfg, "mcp_servers", "gitnexus", "env", "X") != "1" ||
		dig(cfg, "mcp_servers", "gitnexus", "startup_timeout_sec") != int64(20) ||
		!strings.Contains(string(mustRead(t, ClientByName("codex").User(env))), "startup_timeout_sec = 20 # slow disk\n") {
		t.Errorf("codex after update: %v", cfg)
	}
	goose := mustRead(t, ClientByName("goose").User(env))
	cfg = parseConfig(t, YAML, goose)
	if dig(cfg, "extensions", "gitnexus", "envs", "K") != "v" || dig(cfg, "GOOSE_MODE") != "auto" ||
		!strings.Contains(string(goose), "        available_tools: [query]\n") || !strings.Contains(string(goose), "        type: stdio\n") {
		t.Errorf("goose after update:\n%s", goose)
	}
	cfg = parseConfig(t, JSON, mustRead(t, ClientByName("cursor").User(env)))
	if dig(cfg, "mcpServers", "b", "command") != "b" || dig(cfg, "mcpServers", "gitnexus", "env", "K") != "v" ||
		dig(cfg, "mcpServers", "gitnexus", "disabled") != false {
		t.Errorf("cursor after update: %v", cfg)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJSONEdgeCases: the JSON editor on the shapes files take; every
// result parses, holds the entry, and uninstall restores the input when
// the servers object was already there.
func TestJSONEdgeCases(t *testing.T) {
	entry := orderedObject{{"command", testCommand}, {"args", []string{"mcp"}}}
	path := []string{"mcpServers", ServerName}
	for _, tc := range []struct {
		name, src string
		restore   bool // uninstall gives src back
		strict    bool // src is strict JSON: the result must be too
	}{
		{"missing file", "", false, true},
		{"empty object", "{}", false, true},
		{"empty servers", `{"mcpServers": {}}`, false, true},                         // the emptied servers object goes too
		{"empty servers multiline", "{\n  \"mcpServers\": {\n  }\n}\n", false, true}, // comes back as {}
		{"one line", `{"a": 1, "mcpServers": {"x": {"command": "x"}}}`, true, true},
		{"one line trailing comma", `{"mcpServers": {"x": 1,}}`, true, false},
		{"comment after last", "{\n  \"mcpServers\": {\n    \"x\": 1 // keep me\n  }\n}\n", true, false},
		{"trailing comma and comment", "{\n  \"mcpServers\": {\n    \"x\": 1, // keep me\n  },\n}\n", true, false},
		{"comments only", "// nothing yet\n", false, false},
		{"tabs", "{\n\t\"mcpServers\": {\n\t\t\"x\": 1\n\t}\n}", true, true},
		{"crlf", "{\r\n  \"mcpServers\": {\r\n    \"x\": 1\r\n  }\r\n}\r\n", true, true},
		{"bom", "\xef\xbb\xbf{\"mcpServers\": {\"x\": 1}}", true, false},
		{"string with slashes", "{\"url\": \"http://a/*b*/\", \"mcpServers\": {\"x\": \"//\"}}", true, true},
		{"nested missing", "{\n  \"a\": [1, 2]\n}\n", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var src []byte
			if tc.src != "" {
				src = []byte(tc.src)
			}
			out, changed, err := jsonSet(src, path, entry)
			if err != nil || !changed {
				t.Fatalf("set: %v %v", changed, err)
			}
			body := bytes.TrimPrefix(out, []byte("\xef\xbb\xbf"))
			var v map[string]any
			if tc.strict {
				if err := json.Unmarshal(body, &v); err != nil {
					t.Fatalf("not strict JSON any more: %v\n%s", err, out)
				}
			} else {
				std, err := hujson.Standardize(bytes.Clone(body))
				if err != nil {
					t.Fatalf("not JSONC: %v\n%s", err, out)
				}
				json.Unmarshal(std, &v)
			}
			if dig(v, "mcpServers", ServerName, "command") != testCommand {
				t.Fatalf("entry missing:\n%s", out)
			}
			if tc.restore && !strings.Contains(string(out), strings.TrimPrefix(tc.src[:min(len(tc.src), 8)], "\xef\xbb\xbf")) {
				t.Errorf("the start of the file changed:\n%s", out)
			}
			again, changed, err := jsonSet(out, path, entry)
			if err != nil || changed || !bytes.Equal(again, out) {
				t.Errorf("second set changed it: %v\n%s", err, again)
			}
			back, changed, err := jsonDelete(out, path)
			if err != nil || !changed {
				t.Fatalf("delete: %v %v", changed, err)
			}
			if tc.restore && string(back) != tc.src {
				t.Errorf("delete did not restore:\n%q\n%q", tc.src, back)
			}
		})
	}
}

// TestRefused: files setup must not edit are reported and left alone.
func TestRefused(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	env := testEnv(home)
	for _, tc := range []struct{ client, src, want string }{
		{"cursor", `{"mcpServers": [1, 2]}`, "not an object"},
		{"cursor", `{"mcpServers": {`, "not valid JSON"},
		{"cursor", `[1]`, "not an object"},
		{"cursor", `{"a": 1} {"b": 2}`, "not valid JSON"},
		{"cursor", strings.Repeat("[", 1000), "nested deeper"},
		{"zed", "{\n  /* unterminated\n}", "unterminated"},
		{"codex", "[mcp_servers]\ngitnexus = { command = \"x\" }\n", "defined by the line"},
		{"codex", "mcp_servers.gitnexus.command = \"x\"\n", "defined by the line"},
		{"codex", "[mcp_servers.gitnexus]\ncommand = \"x\"\n[mcp_servers.gitnexus]\n", "defined twice"},
		{"codex", "[mcp_servers\n", "unterminated"},
		{"goose", "extensions: {developer: {}}\n", "not a block mapping"},
		{"goose", "extensions: &ext\n  a: 1\n", "not a block mapping"},
		{"goose", "extensions:\n\tgitnexus: 1\n", "tab"},
		{"goose", "a: 1\n---\nb: 2\n", "several YAML documents"},
		{"goose", "extensions:\n  gitnexus: {cmd: x}\n", "not a block mapping"},
		{"goose", "extensions:\n  - gitnexus\n", "does not read"},
	} {
		c := ClientByName(tc.client)
		path := c.User(env)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(tc.src), 0o644)
		res, err := Run(ctx, Options{Env: env, Command: testCommand, Args: []string{"mcp"}, Clients: []string{tc.client}})
		if err != nil || res[0].Action != Failed || !strings.Contains(res[0].Note, tc.want) {
			t.Errorf("%s %q: %v %+v", tc.client, tc.src, err, res)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.src {
			t.Errorf("%s %q: file changed to %q", tc.client, tc.src, got)
		}
		if _, err := os.Stat(path + ".gitnexus-backup"); err == nil {
			t.Errorf("%s: a backup was written for a refused file", tc.client)
		}
	}
	// A directory where the file should be, and a file too large.
	c := ClientByName("gemini")
	p := c.User(env)
	os.MkdirAll(p, 0o755)
	if res, _ := Run(ctx, Options{Env: env, Command: testCommand, Clients: []string{"gemini"}}); res[0].Action != Failed {
		t.Errorf("directory as config: %+v", res)
	}
	if _, err := Run(ctx, Options{Env: env, Command: "gitnexus", Clients: []string{"gemini"}}); err == nil {
		t.Errorf("a relative command was accepted")
	}
	if _, err := Run(ctx, Options{Env: testEnv(""), Command: testCommand, Clients: []string{"cursor"}}); err == nil || !strings.Contains(err.Error(), "no home directory") {
		t.Errorf("no HOME: %v", err)
	}
	if _, err := Run(ctx, Options{Env: env, Command: testCommand, Clients: []string{"emacs"}}); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("unknown client: %v", err)
	}
}

// TestDryRunSymlinkDetect: a dry run writes nothing but gives the diff;
// a symlinked config is edited through its link; undetected clients are
// skipped unless named; --project writes project files.
func TestDryRunSymlinkDetect(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	env := testEnv(home)
	os.MkdirAll(filepath.Join(home, ".cursor"), 0o755)
	res, err := Run(ctx, Options{Env: env, Command: testCommand, Args: []string{"mcp"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		switch r.Client {
		case "cursor":
			if r.Action != Added || !strings.Contains(r.Diff, "+      \"command\": \"/opt/gitnexus/bin/gitnexus\",") || !strings.HasPrefix(r.Diff, "--- /dev/null\n") {
				t.Errorf("cursor dry run: %+v", r)
			}
		default:
			if r.Action != Skipped {
				t.Errorf("%s not installed but %s", r.Client, r.Action)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".cursor", "mcp.json")); err == nil {
		t.Errorf("dry run wrote a file")
	}

	// Symlink: ~/.gemini/settings.json -> dotfiles/gemini.json.
	dot := filepath.Join(home, "dotfiles", "gemini.json")
	os.MkdirAll(filepath.Dir(dot), 0o755)
	os.WriteFile(dot, []byte("{\"theme\": \"x\"}\n"), 0o644)
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	link := filepath.Join(home, ".gemini", "settings.json")
	if err := os.Symlink(dot, link); err != nil {
		t.Fatal(err)
	}
	runOne(t, ctx, Options{Env: env, Command: testCommand, Args: []string{"mcp"}}, "gemini")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced")
	}
	if !strings.Contains(string(mustRead(t, dot)), testCommand) {
		t.Errorf("the link's target was not edited")
	}

	// Project files.
	repo := t.TempDir()
	res, err = Run(ctx, Options{Env: env, Command: testCommand, Args: []string{"mcp"}, Project: repo, Clients: []string{"claude-code", "vscode", "codex", "windsurf"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"claude-code": ".mcp.json", "vscode": ".vscode/mcp.json", "codex": ".codex/config.toml"}
	for _, r := range res {
		if w, ok := want[r.Client]; ok {
			if r.Action != Added || r.Path != filepath.Join(repo, w) {
				t.Errorf("project %s: %+v", r.Client, r)
			}
		} else if r.Action != Failed || !strings.Contains(r.Note, "no project-level config") {
			t.Errorf("project %s: %+v", r.Client, r)
		}
	}
}

// TestGuidance: the block is written once, rewritten in place when its
// text changes, the file untouched when nothing changed, and removed by
// uninstall.
func TestGuidance(t *testing.T) {
	repo := t.TempDir()
	agents := filepath.Join(repo, "AGENTS.md")
	orig := "# Agents\n\nRun `make test` before committing.\n"
	os.WriteFile(agents, []byte(orig), 0o644)
	tools := []string{"query", "context", "impact"}

	res, err := Guidance(repo, tools, false, false)
	if err != nil || len(res) != 1 || res[0].Action != Added {
		t.Fatalf("first: %v %+v", err, res)
	}
	first := string(mustRead(t, agents))
	if !strings.HasPrefix(first, orig+"\n"+guidanceStart) || !strings.Contains(first, "`impact`") || strings.Contains(first, "`cypher`") {
		t.Errorf("first block:\n%s", first)
	}

	// Nothing changed: not rewritten (same inode and mtime), not appended.
	fi1, _ := os.Stat(agents)
	res, _ = Guidance(repo, tools, false, false)
	fi2, _ := os.Stat(agents)
	if res[0].Action != Unchanged || !os.SameFile(fi1, fi2) || !fi1.ModTime().Equal(fi2.ModTime()) {
		t.Errorf("unchanged run touched the file: %+v", res)
	}

	// User text after the block, then a new tool: rewritten in place.
	os.WriteFile(agents, []byte(first+"\n## Mine\nkeep\n"), 0o644)
	res, _ = Guidance(repo, append(tools, "trace", "shiny_new_tool"), false, false)
	second := string(mustRead(t, agents))
	if res[0].Action != Updated || strings.Count(second, guidanceStart) != 1 || !strings.Contains(second, "`trace`") ||
		!strings.Contains(second, "`shiny_new_tool`") || !strings.HasSuffix(second, "\n## Mine\nkeep\n") || !strings.HasPrefix(second, orig) {
		t.Errorf("in-place rewrite:\n%s", second)
	}

	// CLAUDE.md exists too: both get it; neither twice.
	os.WriteFile(filepath.Join(repo, "CLAUDE.md"), []byte("Be terse."), 0o644)
	res, _ = Guidance(repo, tools, false, false)
	if len(res) != 2 || res[1].Action != Added {
		t.Errorf("CLAUDE.md: %+v", res)
	}
	for i := 0; i < 3; i++ {
		Guidance(repo, tools, false, false)
	}
	for _, f := range []string{"AGENTS.md", "CLAUDE.md"} {
		if n := strings.Count(string(mustRead(t, filepath.Join(repo, f))), guidanceStart); n != 1 {
			t.Errorf("%s has %d blocks", f, n)
		}
	}

	// Uninstall gives AGENTS.md back (with the user's later section).
	Guidance(repo, tools, true, false)
	if got := string(mustRead(t, agents)); got != orig+"\n## Mine\nkeep\n" {
		t.Errorf("uninstall:\n%q", got)
	}
	if got := string(mustRead(t, filepath.Join(repo, "CLAUDE.md"))); got != "Be terse.\n" {
		t.Errorf("uninstall CLAUDE.md: %q", got)
	}

	// Broken markers: refused, untouched.
	broken := "x\n" + guidanceStart + "\nno end\n"
	os.WriteFile(agents, []byte(broken), 0o644)
	res, _ = Guidance(repo, tools, false, false)
	if res[0].Action != Failed || string(mustRead(t, agents)) != broken {
		t.Errorf("broken markers: %+v", res)
	}

	// No file at all: AGENTS.md is created.
	empty := t.TempDir()
	res, _ = Guidance(empty, tools, false, true)
	if len(res) != 1 || res[0].Action != Added || !strings.Contains(res[0].Diff, "+"+guidanceStart) {
		t.Errorf("dry run in an empty repo: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(empty, "AGENTS.md")); err == nil {
		t.Errorf("dry run created AGENTS.md")
	}
	Guidance(empty, tools, false, false)
	if res, _ := Guidance(empty, tools, true, false); len(res) != 1 || res[0].Action != Removed {
		t.Errorf("uninstall in an empty repo: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(empty, "AGENTS.md")); err == nil {
		t.Errorf("uninstall left the AGENTS.md setup created")
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n"
	got := UnifiedDiff("f", []byte(a), []byte(b))
	want := "--- f\n+++ f\n@@ -2,9 +2,10 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n+11\n"
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if UnifiedDiff("f", []byte(a), []byte(a)) != "" {
		t.Errorf("equal files give a diff")
	}
}
