// Package setup configures MCP clients to start the gitnexus server, and
// maintains an agent-guidance block in a repository's AGENTS.md /
// CLAUDE.md. `gitnexus setup` is its driver.
//
// # Clients
//
// Clients lists every client setup knows — Claude Code, Claude Desktop,
// Cursor, VS Code, Codex CLI, Gemini CLI, Windsurf, OpenCode, Zed, Goose — each
// with its documented config file (user level, and project level where
// the client has one), the object its servers live in, the entry format,
// and how to tell it is installed (a config directory, or an executable on
// PATH). Each entry cites the client's documentation.
//
// # Edits
//
// A config file is edited as text, never re-serialized: JSON and JSONC
// (comments, trailing commas) by a parser that keeps byte spans
// (jsonc.go), Codex's TOML by its [mcp_servers.gitnexus] table lines
// (toml.go), Goose's YAML by the indented lines of extensions.gitnexus
// (yaml.go). Only the "gitnexus" entry is added, updated or removed (in
// an existing entry only the keys setup writes change; the user's others,
// such as env or timeouts, stay); every other byte of the file stays.
// Uninstalling what setup installed gives the file back byte for byte:
// the servers object setup had to create goes too when it is left empty
// (so an empty one the user had goes as well), and a file setup created
// is removed. An entry already equal to what would
// be written is left alone and the file is not touched. A file setup
// cannot parse, or that defines the entry in a form it does not edit, is
// reported and left as it is.
//
// Writes: the previous file is copied to FILE.gitnexus-backup, the new
// text goes to a temporary file beside it and is renamed over it (a crash
// leaves the old or the new file); if the file changed while setup was
// editing it (a client saving its own config), nothing is written. A
// symlinked config file is edited through the link. Dry runs compute the
// same change and a unified diff of it, and write nothing.
//
// # Guidance
//
// Guidance writes a block between "<!-- gitnexus:start -->" and
// "<!-- gitnexus:end -->" lines, telling the agent when to use which of
// the served tools: replaced in place when present, appended once when
// not, the file untouched when the block already reads the same;
// uninstall removes the block (and the file when nothing else is left).
package setup
