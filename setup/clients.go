package setup

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Format is a config file's syntax.
type Format string

const (
	JSON  Format = "json"  // strict JSON: no comments or trailing commas are added
	JSONC Format = "jsonc" // JSON with comments and trailing commas
	TOML  Format = "toml"
	YAML  Format = "yaml"
)

// Client is one MCP client: where its config lives and how a stdio server
// entry looks there. Each entry cites the client's documentation.
type Client struct {
	Name   string // the --client name
	Title  string
	Format Format
	// User is the user-level config file (env: the environment, for
	// XDG_CONFIG_HOME, APPDATA, CODEX_HOME); "" when there is none.
	User func(env Env) string
	// Project is the repo-relative project config file; "" when the
	// client has none.
	Project string
	// Key is the path of the object holding servers by name.
	Key []string
	// Entry is the server entry for command and args: an ordered JSON
	// object, or for TOML the table's key lines.
	Entry func(command string, args []string) any
	// Detect lists what shows the client is installed: directories or
	// files (any existing) and executables on PATH.
	Dirs func(env Env) []string
	Bins []string
}

// Env is what client locations depend on: the home directory, the OS and
// environment variables (tests pass their own).
type Env struct {
	Home   string
	GOOS   string
	Getenv func(string) string
	// LookPath reports whether an executable is on PATH.
	LookPath func(string) bool
}

// DefaultEnv is the running user's environment.
func DefaultEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{Home: home, GOOS: runtime.GOOS, Getenv: os.Getenv, LookPath: func(name string) bool {
		_, err := execLookPath(name)
		return err == nil
	}}
}

func (e Env) get(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// xdgConfig is $XDG_CONFIG_HOME, else ~/.config (Linux and macOS tools
// that follow XDG: Zed, OpenCode).
func (e Env) xdgConfig() string {
	if d := e.get("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(e.Home, ".config")
}

// appConfig is the per-user application-support folder of an Electron
// app named app: ~/Library/Application Support on macOS, %APPDATA% on
// Windows, else $XDG_CONFIG_HOME.
func (e Env) appConfig(app string) string {
	switch e.GOOS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support", app)
	case "windows":
		if d := e.get("APPDATA"); d != "" {
			return filepath.Join(d, app)
		}
		return filepath.Join(e.Home, "AppData", "Roaming", app)
	}
	return filepath.Join(e.xdgConfig(), app)
}

func stdioEntry(command string, args []string) any {
	return orderedObject{{"command", command}, {"args", args}}
}

// Clients are the MCP clients setup knows, by name.
var Clients = []*Client{
	{
		// https://docs.anthropic.com/en/docs/claude-code/mcp (scopes): user
		// scope is "mcpServers" at the top of ~/.claude.json, project scope
		// the repo's .mcp.json; entries {"type": "stdio", "command",
		// "args", "env"}.
		Name: "claude-code", Title: "Claude Code", Format: JSON,
		User:    func(e Env) string { return filepath.Join(e.Home, ".claude.json") },
		Project: ".mcp.json",
		Key:     []string{"mcpServers"},
		Entry: func(c string, a []string) any {
			return orderedObject{{"type", "stdio"}, {"command", c}, {"args", a}, {"env", orderedObject{}}}
		},
		Dirs: func(e Env) []string {
			return []string{filepath.Join(e.Home, ".claude"), filepath.Join(e.Home, ".claude.json")}
		},
		Bins: []string{"claude"},
	},
	{
		// https://modelcontextprotocol.io/quickstart/user:
		// claude_desktop_config.json in ~/Library/Application Support/Claude
		// (macOS) or %APPDATA%\Claude (Windows); Linux builds use
		// ~/.config/Claude. "mcpServers": {name: {"command", "args"}}.
		Name: "claude-desktop", Title: "Claude Desktop", Format: JSON,
		User:  func(e Env) string { return filepath.Join(e.appConfig("Claude"), "claude_desktop_config.json") },
		Key:   []string{"mcpServers"},
		Entry: stdioEntry,
		Dirs:  func(e Env) []string { return []string{e.appConfig("Claude")} },
	},
	{
		// https://docs.cursor.com/context/model-context-protocol: global
		// ~/.cursor/mcp.json, project .cursor/mcp.json; "mcpServers":
		// {name: {"command", "args", "env"}}.
		Name: "cursor", Title: "Cursor", Format: JSON,
		User:    func(e Env) string { return filepath.Join(e.Home, ".cursor", "mcp.json") },
		Project: filepath.Join(".cursor", "mcp.json"),
		Key:     []string{"mcpServers"},
		Entry:   stdioEntry,
		Dirs:    func(e Env) []string { return []string{filepath.Join(e.Home, ".cursor")} },
		Bins:    []string{"cursor"},
	},
	{
		// https://code.visualstudio.com/docs/copilot/reference/mcp-configuration:
		// mcp.json in the workspace (.vscode/mcp.json) or the user profile
		// (Code/User/mcp.json); top-level "servers": {name: {"type":
		// "stdio", "command", "args"}}. JSONC (VS Code allows comments).
		Name: "vscode", Title: "VS Code", Format: JSONC,
		User:    func(e Env) string { return filepath.Join(e.appConfig("Code"), "User", "mcp.json") },
		Project: filepath.Join(".vscode", "mcp.json"),
		Key:     []string{"servers"},
		Entry: func(c string, a []string) any {
			return orderedObject{{"type", "stdio"}, {"command", c}, {"args", a}}
		},
		Dirs: func(e Env) []string { return []string{filepath.Join(e.appConfig("Code"), "User")} },
		Bins: []string{"code"},
	},
	{
		// https://developers.openai.com/codex/mcp: [mcp_servers.NAME] tables
		// with command and args in ~/.codex/config.toml ($CODEX_HOME), or
		// .codex/config.toml in a trusted project.
		Name: "codex", Title: "Codex CLI", Format: TOML,
		User: func(e Env) string {
			if d := e.get("CODEX_HOME"); filepath.IsAbs(d) {
				return filepath.Join(d, "config.toml")
			}
			return filepath.Join(e.Home, ".codex", "config.toml")
		},
		Project: filepath.Join(".codex", "config.toml"),
		Key:     []string{"mcp_servers"},
		Entry: func(c string, a []string) any {
			q := make([]string, len(a))
			for i, s := range a {
				q[i] = tomlString(s)
			}
			return "command = " + tomlString(c) + "\nargs = [" + strings.Join(q, ", ") + "]\n"
		},
		Dirs: func(e Env) []string {
			if d := e.get("CODEX_HOME"); filepath.IsAbs(d) {
				return []string{d}
			}
			return []string{filepath.Join(e.Home, ".codex")}
		},
		Bins: []string{"codex"},
	},
	{
		// https://geminicli.com/docs/tools/mcp-server/ and
		// https://geminicli.com/docs/cli/configuration: "mcpServers" in
		// ~/.gemini/settings.json or the project's .gemini/settings.json.
		Name: "gemini", Title: "Gemini CLI", Format: JSON,
		User:    func(e Env) string { return filepath.Join(e.Home, ".gemini", "settings.json") },
		Project: filepath.Join(".gemini", "settings.json"),
		Key:     []string{"mcpServers"},
		Entry:   stdioEntry,
		Dirs:    func(e Env) []string { return []string{filepath.Join(e.Home, ".gemini")} },
		Bins:    []string{"gemini"},
	},
	{
		// https://docs.windsurf.com/windsurf/cascade/mcp:
		// ~/.codeium/windsurf/mcp_config.json, "mcpServers": {name:
		// {"command", "args"}}; no project-level file.
		Name: "windsurf", Title: "Windsurf", Format: JSON,
		User:  func(e Env) string { return filepath.Join(e.Home, ".codeium", "windsurf", "mcp_config.json") },
		Key:   []string{"mcpServers"},
		Entry: stdioEntry,
		Dirs:  func(e Env) []string { return []string{filepath.Join(e.Home, ".codeium", "windsurf")} },
		Bins:  []string{"windsurf"},
	},
	{
		// https://opencode.ai/docs/mcp-servers and https://opencode.ai/docs/config:
		// "mcp": {name: {"type": "local", "command": [cmd, args...],
		// "enabled": true}} in ~/.config/opencode/opencode.json (or
		// .jsonc) or the project's opencode.json.
		Name: "opencode", Title: "OpenCode", Format: JSONC,
		User: func(e Env) string {
			dir := filepath.Join(e.xdgConfig(), "opencode")
			if _, err := os.Stat(filepath.Join(dir, "opencode.jsonc")); err == nil {
				return filepath.Join(dir, "opencode.jsonc")
			}
			return filepath.Join(dir, "opencode.json")
		},
		Project: "opencode.json",
		Key:     []string{"mcp"},
		Entry: func(c string, a []string) any {
			return orderedObject{{"type", "local"}, {"command", append([]string{c}, a...)}, {"enabled", true}}
		},
		Dirs: func(e Env) []string { return []string{filepath.Join(e.xdgConfig(), "opencode")} },
		Bins: []string{"opencode"},
	},
	{
		// https://zed.dev/docs/ai/mcp: "context_servers": {name: {"source":
		// "custom", "command", "args", "env"}} in settings.json
		// (~/.config/zed/settings.json, or .zed/settings.json in a
		// project). JSONC.
		Name: "zed", Title: "Zed", Format: JSONC,
		User: func(e Env) string {
			if e.GOOS == "windows" {
				return filepath.Join(e.appConfig("Zed"), "settings.json")
			}
			return filepath.Join(e.xdgConfig(), "zed", "settings.json")
		},
		Project: filepath.Join(".zed", "settings.json"),
		Key:     []string{"context_servers"},
		Entry: func(c string, a []string) any {
			return orderedObject{{"source", "custom"}, {"command", c}, {"args", a}, {"env", orderedObject{}}}
		},
		Dirs: func(e Env) []string {
			if e.GOOS == "windows" {
				return []string{e.appConfig("Zed")}
			}
			return []string{filepath.Join(e.xdgConfig(), "zed")}
		},
		Bins: []string{"zed", "zeditor"},
	},
	{
		// https://block.github.io/goose/docs/guides/config-files (and
		// documentation/docs/guides/config-files.md in aaif-goose/goose):
		// ~/.config/goose/config.yaml (%APPDATA%\Block\goose\config on
		// Windows), "extensions": {name: {type: stdio, name, cmd, args,
		// enabled, timeout}}; no project-level file.
		Name: "goose", Title: "Goose", Format: YAML,
		User: func(e Env) string { return filepath.Join(gooseDir(e), "config.yaml") },
		Key:  []string{"extensions"},
		Entry: func(c string, a []string) any {
			q := make([]string, len(a))
			for i, s := range a {
				q[i] = yamlString(s)
			}
			return "type: stdio\nname: " + ServerName + "\ncmd: " + yamlString(c) + "\nargs: [" + strings.Join(q, ", ") + "]\nenabled: true\ntimeout: 300\n"
		},
		Dirs: func(e Env) []string { return []string{gooseDir(e)} },
		Bins: []string{"goose"},
	},
}

func gooseDir(e Env) string {
	if e.GOOS == "windows" {
		return filepath.Join(e.appConfig(filepath.Join("Block", "goose")), "config")
	}
	return filepath.Join(e.xdgConfig(), "goose")
}

// ClientNames lists the known clients' names, sorted.
func ClientNames() []string {
	var out []string
	for _, c := range Clients {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

// ClientByName finds a client by its --client name.
func ClientByName(name string) *Client {
	for _, c := range Clients {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Installed reports whether the client appears installed for the user:
// one of its config directories exists or one of its executables is on
// PATH.
func (c *Client) Installed(e Env) bool {
	for _, d := range c.Dirs(e) {
		if _, err := os.Stat(d); err == nil {
			return true
		}
	}
	for _, b := range c.Bins {
		if e.LookPath != nil && e.LookPath(b) {
			return true
		}
	}
	return false
}
