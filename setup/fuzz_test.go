package setup

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"
)

// FuzzJSONEdit: on any input our parser accepts as an object, the edit
// gives a file hujson (an independent JSONC parser) reads with the entry
// set and every other top-level member unchanged, and deleting the entry
// again gives a file without it.
func FuzzJSONEdit(f *testing.F) {
	for _, name := range []string{"claude-code", "cursor", "vscode", "opencode", "zed", "gemini"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name+".before")); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{"{}", `{"mcpServers":{"a":1,}}`, "{\n  \"mcpServers\": [] }", "{\"mcpServers\": {\"gitnexus\": 1}}", "// c\n{/*x*/}"} {
		f.Add([]byte(s))
	}
	path := []string{"mcpServers", ServerName}
	entry := orderedObject{{"command", "/x/gitnexus"}, {"args", []string{"mcp"}}}
	f.Fuzz(func(t *testing.T, src []byte) {
		root, err := parseJSONC(src)
		if err != nil || root == nil || root.kind != '{' {
			return
		}
		before, err := standard(src)
		if err != nil {
			return // our parser is laxer than hujson here: nothing to compare
		}
		out, _, err := jsonSet(src, path, entry)
		if err != nil {
			return // refused (e.g. mcpServers is not an object)
		}
		after, err := standard(out)
		if err != nil {
			t.Fatalf("edit broke the file: %v\n%q\n%q", err, src, out)
		}
		if got := dig(after, "mcpServers", ServerName, "command"); got != "/x/gitnexus" {
			t.Fatalf("entry not set (%v):\n%q", got, out)
		}
		for k, v := range before {
			if k != "mcpServers" && !reflect.DeepEqual(after[k], v) {
				t.Fatalf("member %q changed:\n%q\n%q", k, src, out)
			}
		}
		back, _, err := jsonDelete(out, path)
		if err != nil {
			t.Fatalf("delete: %v", err)
		}
		if back == nil {
			return
		}
		undone, err := standard(back)
		if err != nil {
			t.Fatalf("delete broke the file: %v\n%q", err, back)
		}
		if dig(undone, "mcpServers", ServerName) != nil {
			t.Fatalf("entry still there:\n%q", back)
		}
	})
}

func standard(src []byte) (map[string]any, error) {
	std, err := hujson.Standardize(bytes.Clone(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))))
	if err != nil {
		return nil, err
	}
	var v map[string]any
	err = json.Unmarshal(std, &v)
	return v, err
}

// FuzzTOMLEdit: on any TOML input BurntSushi/toml reads, the edit gives a
// file it still reads, with the table set and the other tables unchanged.
func FuzzTOMLEdit(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "codex.before")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{"", "a = 1", "[mcp_servers.gitnexus]\ncommand = 'x'\n", "[x]\ns = '''\n[y]\n'''\n"} {
		f.Add([]byte(s))
	}
	path := []string{"mcp_servers", ServerName}
	body := "command = \"/x/gitnexus\"\nargs = [\"mcp\"]\n"
	f.Fuzz(func(t *testing.T, src []byte) {
		var before map[string]any
		if _, err := toml.Decode(string(src), &before); err != nil {
			return
		}
		out, _, err := tomlSet(src, path, body)
		if err != nil {
			return
		}
		var after map[string]any
		if _, err := toml.Decode(string(out), &after); err != nil {
			t.Fatalf("edit broke the file: %v\n%q\n%q", err, src, out)
		}
		if dig(after, "mcp_servers", ServerName, "command") != "/x/gitnexus" {
			t.Fatalf("table not set:\n%q", out)
		}
		for k, v := range before {
			if k != "mcp_servers" && !reflect.DeepEqual(after[k], v) {
				t.Fatalf("table %q changed:\n%q\n%q", k, src, out)
			}
		}
	})
}

// FuzzYAMLEdit: on any YAML input yaml.v3 reads as a mapping, the edit
// gives a file it still reads, with the entry set and the other top-level
// keys unchanged.
func FuzzYAMLEdit(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "goose.before")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{"", "a: 1", "extensions: {}\n", "extensions:\n  x:\n    y: 1\n# c\n", "extensions:\n    gitnexus:\n        cmd: x\n"} {
		f.Add([]byte(s))
	}
	body := ClientByName("goose").Entry("/x/gitnexus", []string{"mcp"}).(string)
	f.Fuzz(func(t *testing.T, src []byte) {
		var before map[string]any
		if err := yaml.Unmarshal(src, &before); err != nil {
			return
		}
		out, _, err := yamlSet(src, "extensions", ServerName, body)
		if err != nil {
			return
		}
		var after map[string]any
		if err := yaml.Unmarshal(out, &after); err != nil {
			t.Fatalf("edit broke the file: %v\n%q\n%q", err, src, out)
		}
		if dig(after, "extensions", ServerName, "cmd") != "/x/gitnexus" {
			t.Fatalf("entry not set:\n%q\n%q", src, out)
		}
		for k, v := range before {
			if k != "extensions" && !reflect.DeepEqual(after[k], v) {
				t.Fatalf("key %q changed:\n%q\n%q", k, src, out)
			}
		}
	})
}
