#!/usr/bin/env bash
# run.sh: the call-graph accuracy benchmark on one Go corpus, end to end.
#   usage: bench/callgraph/run.sh CORPUS        (gin, prometheus, kubernetes: see corpora.sh)
# 1. fetches the corpus (corpora.sh), computes the x/tools oracle on a copy (cached in
#    $ORACLE_CACHE, keyed by corpus and harness source),
# 2. indexes a copy with our binary (`$GITNEXUS analyze --skip-embeddings`) and dumps its
#    CALLS edges and its flows' steps (consecutive STEP_IN_PROCESS pairs) with `cypher --json`,
#    paged (bench/cypher_dump.py),
# 3. indexes a copy with the reference tool (peer.sh analyze) and dumps its CALLS edges,
# 4. prints both side by side (bench/out/callgraph/CORPUS/report.txt, scores.json).
# Environment:
#   TOOLS="ours peer"   which tools to score (drop one to skip it; empty: compute the oracle only)
#   GITNEXUS            our binary (default: REPO/bin/gitnexus)
#   SHARED              the shared bench scripts (default: REPO/../shared/bench)
#   ORACLE_CACHE        (default: $HOME/.cache/gitnexus-oracle)
#   WORK                copies of the corpus (default: /tmp/gitnexus-callgraph)
#   MISSES              missed/wrong edges printed per tool (default 25)
set -euo pipefail
corpus=${1:?usage: run.sh CORPUS (gin, prometheus, kubernetes)}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
TOOLS=${TOOLS-ours peer}
GITNEXUS=${GITNEXUS:-$repo/bin/gitnexus}
SHARED=${SHARED:-$repo/../shared/bench}
ORACLE_CACHE=${ORACLE_CACHE:-$HOME/.cache/gitnexus-oracle}
WORK=${WORK:-/tmp/gitnexus-callgraph}
MISSES=${MISSES:-25}
out=$repo/bench/out/callgraph/$corpus
mkdir -p "$out" "$ORACLE_CACHE" "$WORK"
log() { printf 'callgraph[%s]: %s\n' "$corpus" "$*" >&2; }

src=$(bash "$SHARED/corpora.sh" "$corpus" | cut -f2)
[ -f "$src/go.mod" ] || { log "$src has no go.mod: the harness measures Go modules only"; exit 2; }

# fresh copy $1 of the corpus (the module cache copy may be read-only; tools write into it)
copy() {
  rm -rf "$1" && mkdir -p "$(dirname "$1")" && cp -r "$src" "$1" && chmod -R u+w "$1"
}

log "building the harness"
(cd "$here" && go build -o "$out/callgraph" .)

key=$( (cat "$here"/go.mod "$here"/oracle/*.go; go version) | sha256sum | cut -c1-12)
oracle=$ORACLE_CACHE/$corpus-$key.json
if [ ! -s "$oracle" ]; then
  log "computing the oracle (x/tools static + CHA); first run downloads and compiles dependencies"
  copy "$WORK/$corpus-oracle"
  (cd "$WORK/$corpus-oracle" && GOFLAGS=-mod=mod GOWORK=off "$out/callgraph" oracle -o "$oracle" .)
else
  log "oracle cached: $oracle"
fi

args=(-oracle "$oracle" -curve -misses "$MISSES")
for tool in $TOOLS; do
  case $tool in
    ours)
      [ -x "$GITNEXUS" ] || { log "no $GITNEXUS: build it (make build) or set TOOLS=peer"; exit 2; }
      copy "$WORK/$corpus-ours"
      log "indexing with $GITNEXUS"
      /usr/bin/time -v "$GITNEXUS" analyze --skip-embeddings "$WORK/$corpus-ours" 2>"$out/ours-analyze.log" >/dev/null ||
        { tail -20 "$out/ours-analyze.log" >&2; exit 1; }
      # paged: one cypher answer is bounded (rows and tokens)
      python3 "$repo/bench/cypher_dump.py" "$GITNEXUS" "$WORK/$corpus-ours" \
        "MATCH (a)-[r:CALLS]->(b) RETURN a.filePath, a.startLine, b.filePath, b.startLine, r.confidence, r.reason ORDER BY a.filePath, a.startLine, b.filePath, b.startLine, r.confidence, r.reason" \
        >"$out/ours.json"
      args+=(-tool "ours=$out/ours.json")
      # the steps of our flows (processes): each pair of consecutive steps, once per flow it is
      # in; scored like CALLS edges, so "precision" is the flows' step precision
      python3 "$repo/bench/cypher_dump.py" "$GITNEXUS" "$WORK/$corpus-ours" \
        "MATCH (a)-[r1:STEP_IN_PROCESS]->(p:Process)<-[r2:STEP_IN_PROCESS]-(b) WHERE r2.step = r1.step + 1 RETURN a.filePath, a.startLine, b.filePath, b.startLine, 1.0 AS confidence, 'step' AS reason, p.id, r1.step ORDER BY p.id, r1.step" \
        >"$out/flows.json"
      args+=(-tool "flows=$out/flows.json") ;;
    peer)
      eval "$(bash "$SHARED/peer.sh" env)"
      command -v gitnexus >/dev/null || bash "$SHARED/peer.sh" install >&2
      copy "$WORK/$corpus-peer"
      log "indexing with the reference tool ($(gitnexus --version))"
      bash "$SHARED/peer.sh" analyze "$WORK/$corpus-peer" "callgraph-$corpus" >"$out/peer-analyze.log" 2>&1 ||
        { tail -20 "$out/peer-analyze.log" >&2; exit 1; }
      # -r PATH, not NAME: the peer's registry is shared and allows duplicate names.
      # Its startLine is 0-based: hence peer:0.
      gitnexus cypher -r "$WORK/$corpus-peer" \
        "MATCH (a)-[r:CodeRelation {type:'CALLS'}]->(b) RETURN a.filePath, a.startLine, b.filePath, b.startLine, r.confidence, r.reason" \
        2>"$out/peer-cypher.log" >"$out/peer.json"
      args+=(-tool "peer:0=$out/peer.json") ;;
    *) log "unknown tool $tool (want ours, peer)"; exit 2 ;;
  esac
done

if [ -z "${TOOLS// }" ]; then log "oracle: $oracle (TOOLS is empty: nothing to compare)"; exit 0; fi
"$out/callgraph" compare "${args[@]}" | tee "$out/report.txt"
"$out/callgraph" compare "${args[@]}" -json >"$out/scores.json"
log "report: $out/report.txt, scores: $out/scores.json"
