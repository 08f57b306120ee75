#!/usr/bin/env bash
# bench/run.sh: measure gitnexus (ours, bin/gitnexus) beside the reference tool (GitNexus on npm,
# driven through ../shared/bench/peer.sh) on identical copies of real corpora, in one run, and
# print a markdown report (also written to bench/out/<UTC stamp>.md). See bench/README.md.
#
#   usage: bash bench/run.sh [corpus...]        (or: make bench)
#
# Exit status: 0 when every measurement ran; 1 when a run failed (a crash, a non-zero exit, a
# time-out of ours, a missing tool); 2 on bad usage. A missed target (10x faster, a fifth of the
# memory) is reported in the table, never turned into a failure: machines are noisy.
#
# Environment (all optional):
#   BENCH_CORPORA   corpus names, space or comma separated (default: gin prometheus django;
#                   kubernetes is opt-in). Arguments on the command line win over it.
#   BENCH_RUNS      runs per tool per corpus (default 3; 1 for kubernetes). Medians are reported.
#   BENCH_SKIP      sections to skip, space or comma separated: analyze query mcp embeddings callgraph
#   BENCH_PEER      0 = measure ours only (no reference tool)
#   BENCH_TIMEOUT   seconds one analyze may take before it is killed (default 3600)
#   BENCH_TMP       scratch directory for the corpus copies (default: mktemp -d); removed at the end
#                   unless BENCH_KEEP=1
#   BENCH_OUT       report directory (default bench/out); raw logs go to BENCH_OUT/<stamp>/
#   OURS            our binary (default bin/gitnexus, built by `make build`)
#   PEER_SH         the reference tool's driver (default ../shared/bench/peer.sh)
#   CORPORA_SH      the corpus fetcher (default ../shared/bench/corpora.sh)
#   BENCH_EMBED_CORPUS  corpus of the embeddings section (default: prometheus if in the run, else the first)
#   BENCH_EMBED_MAX     chunks embed/bench times, spread over the corpus (default 400; 0: all, slow)
#   BENCH_EMBED_ROUNDS  interleaved pipeline/raw rounds of embed/bench (default 3)
#   BENCH_PYTHON        python with onnx + numpy, to generate the benchmark model (default /usr/bin/python3)
#   BENCH_TOKENIZER     directory with the real tokenizer.json (default ../shared/models/snowflake-arctic-embed-xs)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OURS=${OURS:-$ROOT/bin/gitnexus}
PEER_SH=${PEER_SH:-$ROOT/../shared/bench/peer.sh}
CORPORA_SH=${CORPORA_SH:-$ROOT/../shared/bench/corpora.sh}
BENCH_PEER=${BENCH_PEER:-1}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-3600}
BENCH_OUT=${BENCH_OUT:-$ROOT/bench/out}
BENCH_KEEP=${BENCH_KEEP:-0}
TIME=/usr/bin/time

STAMP=$(date -u +%Y-%m-%dT%H%M%SZ)
REPORT=$BENCH_OUT/$STAMP.md
LOGS=$BENCH_OUT/$STAMP
FAILED=0

# ---------------------------------------------------------------- helpers

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }
# out: append to the report and echo to stdout.
out() { printf '%s\n' "$*" | tee -a "$REPORT"; }
words() { printf '%s\n' "${1//,/ }" | tr -s ' \t' '\n' | sed '/^$/d'; }
skipped() { words "${BENCH_SKIP:-}" | grep -qx "$1"; }

# wall_seconds FILE: the last "Elapsed (wall clock)" of a `/usr/bin/time -v` output, in seconds.
wall_seconds() {
  sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1" | tail -n 1 |
    awk -F: 'NF==3{printf "%.2f\n", $1*3600+$2*60+$3} NF==2{printf "%.2f\n", $1*60+$2}'
}
# rss_mib FILE: the last "Maximum resident set size" of a `/usr/bin/time -v` output, in MiB.
rss_mib() {
  sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1" | tail -n 1 |
    awk '{printf "%.1f\n", $1/1024}'
}
# cpu_pct FILE: the last "Percent of CPU this job got" of a `/usr/bin/time -v` output. Far below
# 100% x the tool's parallelism means the machine was busy with something else.
cpu_pct() {
  sed -n 's/^[[:space:]]*Percent of CPU this job got: //p' "$1" | tail -n 1
}
# median: of the numbers on stdin, one a line; empty when there are none.
median() {
  sort -g | awk '{v[NR]=$1} END{if(NR==0)exit; if(NR%2)print v[(NR+1)/2]; else printf "%.2f\n",(v[NR/2]+v[NR/2+1])/2}'
}
# ratio A B [FMT]: A/B, or "-" when either is missing or B is zero.
ratio() {
  awk -v a="${1:-}" -v b="${2:-}" -v f="${3:-%.1f}" \
    'BEGIN{if(a==""||b==""||b+0==0){print "-"; exit} printf f"\n", a/b}'
}
# json_count FILE KEY: KEY from our JSON output, top level or under .stats/.counts; a map of
# counts (nodes by label, edges by type) is summed; "-" if absent.
json_count() {
  jq -r --arg k "$2" '[.[$k], .stats[$k]?, .counts[$k]?] | map(select(. != null)) | first
    | if type == "object" then ([.[]] | add // 0) elif . == null then "-" else . end' \
    "$1" 2>/dev/null || echo "-"
}
# ext_summary DIR: "N ext, N ext, ..." for the 6 most common extensions among git-tracked files.
ext_summary() {
  git -C "$1" ls-files | sed -n 's/.*\.\([A-Za-z0-9]*\)$/\1/p' | sort | uniq -c | sort -rn |
    head -n 6 | awk '{printf "%s%s .%s", (NR>1?", ":""), $1, $2} END{print ""}'
}

runs_for() { # corpus
  if [ -n "${BENCH_RUNS:-}" ]; then echo "$BENCH_RUNS"
  elif [ "$1" = kubernetes ]; then echo 1
  else echo 3; fi
}

# corpus_dir NAME: the corpus checkout, fetched on first use by corpora.sh.
corpus_dir() {
  local line
  line=$(bash "$CORPORA_SH" "$1") || die "corpora.sh $1 failed"
  printf '%s\n' "${line#*$'\t'}"
}

# make_copies NAME SRC DEST: DEST/ours and DEST/peer, identical git repos of SRC. The git repo is
# made once, the way peer.sh makes one (init, add -A, commit), then copied with its .git, so
# both tools see the same files, the same .gitignore rules and the same commit, in git mode.
make_copies() {
  local name=$1 src=$2 dest=$3
  mkdir -p "$dest"
  cp -r "$src" "$dest/base"
  rm -rf "$dest/base/.gitnexus"
  if ! git -C "$dest/base" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$dest/base" init -q
    git -C "$dest/base" add -A
    git -C "$dest/base" -c user.name=bench -c user.email=bench@localhost commit -qm snapshot
  fi
  cp -a "$dest/base" "$dest/ours"
  mv "$dest/base" "$dest/peer"
  log "$name: copies in $dest (ours, peer)"
}

# bench_name COPY: the name our analyze registers COPY under. Copies of different corpora share base
# names (ours, peer) and the registry refuses a name another path holds, so the parent joins it.
bench_name() { printf 'bench-%s-%s' "$(basename "$(dirname "$1")")" "$(basename "$1")"; }

# run_ours COPY LOGPREFIX: one cold analyze by our binary. Writes LOGPREFIX.{json,err,time}.
run_ours() {
  local copy=$1 p=$2 rc=0
  rm -rf "$copy/.gitnexus"
  timeout "$BENCH_TIMEOUT" "$TIME" -v -o "$p.time" \
    "$OURS" analyze --skip-embeddings --json --name "$(bench_name "$copy")" "$copy" >"$p.json" 2>"$p.err" || rc=$?
  return "$rc"
}

# run_peer COPY NAME LOGPREFIX: one cold analyze by the reference tool (peer.sh removes its
# index first). peer.sh prints /usr/bin/time -v on stderr. Writes LOGPREFIX.{out,err}.
run_peer() {
  local copy=$1 name=$2 p=$3 rc=0
  timeout "$BENCH_TIMEOUT" bash "$PEER_SH" analyze "$copy" "$name" >"$p.out" 2>"$p.err" || rc=$?
  return "$rc"
}

# ---------------------------------------------------------------- section: analyze

# Cold `analyze` wall time and peak RSS, ours vs the reference tool, BENCH_RUNS runs each,
# interleaved (odd runs ours first, even runs peer first) so that drift in machine load hits
# both alike; medians reported.
section_analyze() {
  local corpora=("$@") c
  local rows=() counts=() details=()
  out ""
  out "## analyze (cold, --skip-embeddings; medians of interleaved runs)"
  for c in "${corpora[@]}"; do
    local src dir n files exts i
    src=$(corpus_dir "$c")
    dir=$TMPD/$c
    make_copies "$c" "$src" "$dir"
    files=$(git -C "$dir/ours" ls-files | wc -l | tr -d ' ')
    exts=$(ext_summary "$dir/ours")
    n=$(runs_for "$c")
    local ow=() orss=() ocpu=() pw=() prss=() pcpu=() ofail="" pfail="" ojson=""
    for ((i = 1; i <= n; i++)); do
      local order=(ours peer) who
      ((i % 2)) || order=(peer ours)
      for who in "${order[@]}"; do
        local p=$LOGS/$c-$who-$i rc=0
        if [ "$who" = ours ]; then
          log "$c run $i/$n: ours"
          run_ours "$dir/ours" "$p" || rc=$?
          if [ "$rc" -ne 0 ]; then
            ofail=$([ "$rc" -eq 124 ] && echo "timeout >${BENCH_TIMEOUT}s" || echo "exit $rc")
            log "$c: ours failed ($ofail); see $p.err"; tail -n 5 "$p.err" >&2 || true
            FAILED=1; continue
          fi
          ow+=("$(wall_seconds "$p.time")"); orss+=("$(rss_mib "$p.time")"); ocpu+=("$(cpu_pct "$p.time")"); ojson=$p.json
        elif [ "$BENCH_PEER" != 0 ]; then
          log "$c run $i/$n: peer"
          run_peer "$dir/peer" "bench-$c" "$p" || rc=$?
          if [ "$rc" -ne 0 ]; then
            pfail=$([ "$rc" -eq 124 ] && echo "timeout >${BENCH_TIMEOUT}s" || echo "exit $rc")
            log "$c: peer failed ($pfail); see $p.err"; tail -n 5 "$p.err" >&2 || true
            # A reference tool that outlives the time-out is a result, not a harness failure.
            [ "$rc" -eq 124 ] || FAILED=1
            continue
          fi
          pw+=("$(wall_seconds "$p.err")"); prss+=("$(rss_mib "$p.err")"); pcpu+=("$(cpu_pct "$p.err")")
        fi
      done
    done
    local ows orm pws prm
    ows=$(printf '%s\n' "${ow[@]}" | sed '/^$/d' | median)
    orm=$(printf '%s\n' "${orss[@]}" | sed '/^$/d' | median)
    pws=$(printf '%s\n' "${pw[@]}" | sed '/^$/d' | median)
    prm=$(printf '%s\n' "${prss[@]}" | sed '/^$/d' | median)
    local speed rr target
    speed=$(ratio "$pws" "$ows" "%.1fx"); rr=$(ratio "$orm" "$prm" "%.3f")
    # The peer outlived the time-out on every run: the speedup is at least timeout/ours.
    if [ -z "$pws" ] && [ -n "$ows" ] && [ "${pfail#timeout}" != "$pfail" ]; then
      speed=">$(ratio "$BENCH_TIMEOUT" "$ows" "%.1fx")"
    fi
    if [ "$speed" = - ] || [ "$rr" = - ]; then target="-"
    elif awk -v s="${speed%x}" -v r="$rr" 'BEGIN{exit !(s>=10 && r<=0.2)}'; then target="met"
    else target="missed"; fi
    # Issue 2 sets the target for prometheus only; elsewhere it is a reading.
    [ "$c" = prometheus ] || [ "$target" = - ] || target="no target ($target)"
    rows+=("| $c | $files | ${ows:-${ofail:--}} | ${pws:-${pfail:--}} | $speed | ${orm:--} | ${prm:--} | $rr | $target |")

    # Counts: ours from the --json object of the last good run, the peer's from its meta.json.
    local pm on oe of pn pe pf
    if [ -n "$ojson" ] && [ -s "$ojson" ]; then
      of=$(json_count "$ojson" files); on=$(json_count "$ojson" nodes); oe=$(json_count "$ojson" edges)
    else of=-; on=-; oe=-; fi
    pm=$dir/peer/.gitnexus/meta.json
    if [ -f "$pm" ]; then
      pf=$(jq -r '.stats.files // "-"' "$pm"); pn=$(jq -r '.stats.nodes // "-"' "$pm"); pe=$(jq -r '.stats.edges // "-"' "$pm")
      cp "$pm" "$LOGS/$c-peer-meta.json"
    else pf=-; pn=-; pe=-; fi
    counts+=("| $c | $of | $pf | $on | $pn | $oe | $pe |")
    details+=("- $c: $files git-tracked files ($exts); runs: ours wall [${ow[*]:-}] s, RSS [${orss[*]:-}] MiB, CPU [${ocpu[*]:-}]; peer wall [${pw[*]:-}] s, RSS [${prss[*]:-}] MiB, CPU [${pcpu[*]:-}]")

    if [ "$BENCH_PEER" != 0 ]; then # drop the copy from the peer's registry; best effort
      (eval "$(bash "$PEER_SH" env)" && gitnexus remove "$dir/peer") >/dev/null 2>&1 || true
    fi
    [ "$BENCH_KEEP" = 1 ] || rm -rf "$dir"
  done
  out ""
  out "| corpus | files | ours wall (s) | peer wall (s) | speedup | ours RSS (MiB) | peer RSS (MiB) | RSS ratio | target on prometheus (>=10x, <=0.2) |"
  out "|---|--:|--:|--:|--:|--:|--:|--:|---|"
  local r; for r in "${rows[@]}"; do out "$r"; done
  out ""
  out "Graph size (ours from \`analyze --json\`, the peer's from its \`.gitnexus/meta.json\` stats):"
  out ""
  out "| corpus | ours files | peer files | ours nodes | peer nodes | ours edges | peer edges |"
  out "|---|--:|--:|--:|--:|--:|--:|"
  for r in "${counts[@]}"; do out "$r"; done
  out ""
  out "Per-run figures:"
  out ""
  for r in "${details[@]}"; do out "$r"; done
}

# ---------------------------------------------------------------- sections to come
# Each later issue replaces one of these with a real measurement. Until then they say so in the
# report rather than print numbers.

# Whole-process `gitnexus query` latency (spawn, open, search, print) on prometheus, keyword mode,
# over the labeled prometheus queries of query/testdata/labeled.json; the peer's `query` on the same
# queries beside it (offline it cannot load its full-text extension and returns nothing, so its time
# is that of an empty answer).
section_query() {
  local c=prometheus dir tmp q t0 t1 n=0
  out ""; out "## query latency (whole process, $c, keyword mode)"
  dir=$(corpus_dir "$c"); tmp="$TMPD/query-$c"
  make_copies "$c" "$dir" "$tmp"
  "$OURS" analyze --skip-embeddings --json --name "$(bench_name "$tmp/ours")" "$tmp/ours" >"$LOGS/query-analyze.json" 2>"$LOGS/query-analyze.err" ||
    { out "_our analyze failed: see $LOGS/query-analyze.err_"; FAILED=1; return; }
  mapfile -t qs < <(jq -r --arg c "$c" '.queries[] | select(.corpus == $c) | .query' "$ROOT/query/testdata/labeled.json")
  : >"$LOGS/query-ours.ms"
  for q in "${qs[@]}"; do
    t0=$(date +%s%N)
    "$OURS" query -r "$tmp/ours" --mode keyword --json "$q" >/dev/null 2>>"$LOGS/query-ours.err" || FAILED=1
    t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)) >>"$LOGS/query-ours.ms"; n=$((n + 1))
  done
  # The same queries with --content: the search pack, plus the database opened (read-only) for
  # each hit's source text, the one thing keyword search still reads from Kuzu.
  : >"$LOGS/query-ours-content.ms"
  for q in "${qs[@]}"; do
    t0=$(date +%s%N)
    "$OURS" query -r "$tmp/ours" --mode keyword --content --json "$q" >/dev/null 2>>"$LOGS/query-ours.err" || FAILED=1
    t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)) >>"$LOGS/query-ours-content.ms"
  done
  local ours50 ours90 content50 peer50="-" peer90="-"
  ours50=$(median <"$LOGS/query-ours.ms")
  ours90=$(sort -n "$LOGS/query-ours.ms" | awk '{v[NR]=$1} END{print v[int(NR*0.9+0.5)]}')
  content50=$(median <"$LOGS/query-ours-content.ms")
  if [ "$BENCH_PEER" != 0 ]; then
    log "$c: peer analyze for the query section"
    if run_peer "$tmp/peer" "bench-query-$c" "$LOGS/query-peer-analyze"; then
      : >"$LOGS/query-peer.ms"
      for q in "${qs[@]}"; do
        t0=$(date +%s%N)
        (eval "$(bash "$PEER_SH" env)" && cd "$tmp/peer" && timeout 60 gitnexus query "$q") >/dev/null 2>>"$LOGS/query-peer.err" || true
        t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)) >>"$LOGS/query-peer.ms"
      done
      peer50=$(median <"$LOGS/query-peer.ms")
      peer90=$(sort -n "$LOGS/query-peer.ms" | awk '{v[NR]=$1} END{print v[int(NR*0.9+0.5)]}')
    fi
  fi
  out ""
  out "| queries | ours p50 (ms) | ours p90 (ms) | ours --content p50 (ms) | peer p50 (ms) | peer p90 (ms) | target p50 ≤ 150 ms |"
  out "|--:|--:|--:|--:|--:|--:|---|"
  out "| $n | $ours50 | $ours90 | $content50 | $peer50 | $peer90 | $(awk -v a="$ours50" 'BEGIN{print (a<=150)?"met":"missed"}') |"
  out ""
  out "_ours: keyword mode reads only the search pack analyze writes beside the database (query/doc.go); \"--content\": the same queries with each hit's source text, which opens the database read-only beside the pack._"
}

# Communities and processes: counts beside the peer's (from its analyze output), process ids
# compared across two analyzes of identical copies, and any community labelled Cluster_N.
section_processes() {
  local corpora=("$@") c dir tmp
  out ""; out "## communities and processes"; out ""
  out "| corpus | communities | processes | entry points ranked / traced | ids identical across 2 runs | Cluster_N labels | peer communities | peer processes |"
  out "|---|--:|--:|---|---|--:|--:|--:|"
  for c in "${corpora[@]}"; do
    dir=$(corpus_dir "$c"); tmp="$TMPD/proc-$c"
    make_copies "$c" "$dir" "$tmp"
    local ok=1 k
    for k in ours peer; do
      "$OURS" analyze --skip-embeddings --json --name "$(bench_name "$tmp/$k")" "$tmp/$k" >"$LOGS/proc-$c-$k.json" 2>"$LOGS/proc-$c-$k.err" || ok=0
      "$OURS" processes -r "$tmp/$k" --limit 1000000 --json | jq -r '.processes[].id' | sort >"$LOGS/proc-$c-$k.ids" || ok=0
    done
    [ "$ok" = 1 ] || { out "| $c | failed | | | | | | |"; FAILED=1; continue; }
    local same comms procs ranked traced clusters pc="-" pp="-"
    same=$(cmp -s "$LOGS/proc-$c-ours.ids" "$LOGS/proc-$c-peer.ids" && echo "yes ($(wc -l <"$LOGS/proc-$c-ours.ids"))" || echo "NO")
    comms=$(jq -r '.processes.communities' "$LOGS/proc-$c-ours.json")
    procs=$(jq -r '.processes.trace.processes' "$LOGS/proc-$c-ours.json")
    ranked=$(jq -r '.processes.trace.ranked' "$LOGS/proc-$c-ours.json")
    traced=$(jq -r '.processes.trace.traced' "$LOGS/proc-$c-ours.json")
    clusters=$("$OURS" communities -r "$tmp/ours" --limit 1000000 --json | jq '[.communities[] | select(.label | test("^Cluster_"))] | length')
    if [ -f "$ROOT/bench/results/peer-$c.txt" ]; then
      pc=$(sed -n 's/.*| \([0-9,]*\) clusters | \([0-9,]*\) flows.*/\1/p' "$ROOT/bench/results/peer-$c.txt" | head -n 1)
      pp=$(sed -n 's/.*| \([0-9,]*\) clusters | \([0-9,]*\) flows.*/\2/p' "$ROOT/bench/results/peer-$c.txt" | head -n 1)
    fi
    out "| $c | $comms | $procs | $ranked / $traced | $same | $clusters | ${pc:--} | ${pp:--} |"
  done
  out ""; out "_peer figures: its own analyze summary, from bench/results/peer-CORPUS.txt (same corpus version, recorded earlier on this machine kind)._"
}

# MCP server on prometheus, ours beside the peer's, driven by bench/mcp (the official Go SDK's
# client over stdio): spawn→initialize, warm per-call latency of query (distinct questions, so no
# result cache answers them; "repeated" asks warm-up questions again), context and impact, and the
# server's RSS across a soak of calls (BENCH_MCP_SOAK for ours, BENCH_MCP_PEER_SOAK for the peer,
# whose memory grows fast).
section_mcp() {
  local c=prometheus dir tmp bench rc
  out ""; out "## mcp (stdio server, $c)"
  dir=$(corpus_dir "$c"); tmp="$TMPD/mcp-$c"
  make_copies "$c" "$dir" "$tmp"
  bench="$TMPD/mcpbench"
  (cd "$ROOT" && go build -o "$bench" ./bench/mcp) 2>"$LOGS/mcp-build.err" ||
    { out "_bench/mcp failed to build: see $LOGS/mcp-build.err_"; FAILED=1; return; }
  "$OURS" analyze --skip-embeddings --json --name "$(bench_name "$tmp/ours")" "$tmp/ours" >"$LOGS/mcp-analyze.json" 2>"$LOGS/mcp-analyze.err" ||
    { out "_our analyze failed: see $LOGS/mcp-analyze.err_"; FAILED=1; return; }
  log "$c: mcp ours"
  rc=0
  (cd "$tmp/ours" && "$bench" -label ours -repo "$tmp/ours" -spawns 10 -calls 100 -soak "${BENCH_MCP_SOAK:-10000}" \
    -out "$LOGS/mcp-ours.json" -stderr "$LOGS/mcp-ours-server.err" -- "$OURS" mcp) >/dev/null 2>"$LOGS/mcp-ours.err" || rc=$?
  [ "$rc" = 0 ] || { out "_bench/mcp on ours failed (exit $rc): see $LOGS/mcp-ours.err_"; FAILED=1; }
  if [ "$BENCH_PEER" != 0 ]; then
    log "$c: peer analyze and mcp"
    if run_peer "$tmp/peer" "bench-mcp-$c" "$LOGS/mcp-peer-analyze"; then
      rc=0
      (eval "$(bash "$PEER_SH" env)" && cd "$tmp/peer" && "$bench" -label peer -repo "bench-mcp-$c" -spawns 10 -calls 100 \
        -soak "${BENCH_MCP_PEER_SOAK:-1000}" -out "$LOGS/mcp-peer.json" -- gitnexus mcp) >/dev/null 2>"$LOGS/mcp-peer.err" || rc=$?
      [ "$rc" = 0 ] || out "_bench/mcp on the peer failed (exit $rc): see $LOGS/mcp-peer.err_"
    fi
  fi
  local k f row
  out ""
  out "| server | spawn→initialize p50 (ms) | query p50 / p95 (ms) | query repeated p50 (ms) | context p50 / p95 (ms) | impact p50 / p95 (ms) | soak calls | RSS start → end (MB) | errors |"
  out "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
  for k in ours peer; do
    f="$LOGS/mcp-$k.json"
    [ -s "$f" ] || continue
    row=$(jq -r '"| \(.label) | \(.spawn_to_initialize.p50_ms|floor) | \(.warm_calls.query.p50_ms*10|round/10) / \(.warm_calls.query.p95_ms*10|round/10) | \(.warm_calls.query_cached.p50_ms*10|round/10) | \(.warm_calls.context.p50_ms*10|round/10) / \(.warm_calls.context.p95_ms*10|round/10) | \(.warm_calls.impact.p50_ms*10|round/10) / \(.warm_calls.impact.p95_ms*10|round/10) | \(.soak.calls // 0) | \(.soak.rss_start_mb // 0|round) → \(.soak.rss_end_mb // 0|round) (\(.soak.rss_growth_mb // 0|.*10|round/10)) | \([.warm_calls[].errors] + [.soak.errors // 0] | add) |"' "$f")
    out "$row"
  done
  if [ -s "$LOGS/mcp-ours.json" ]; then
    local q i g
    q=$(jq -r '.warm_calls.query.p50_ms' "$LOGS/mcp-ours.json"); i=$(jq -r '.spawn_to_initialize.p50_ms' "$LOGS/mcp-ours.json")
    g=$(jq -r '.soak.rss_growth_mb // "n/a"' "$LOGS/mcp-ours.json")
    out ""
    out "Targets (ours): warm query p50 ≤ 30 ms: $(awk -v a="$q" 'BEGIN{print (a<=30)?"met":"missed"}') ($q ms); spawn→initialize ≤ 200 ms: $(awk -v a="$i" 'BEGIN{print (a<=200)?"met":"missed"}') ($i ms); RSS growth over the soak ≤ 50 MB: $(awk -v a="$g" 'BEGIN{print (a!="n/a" && a<=50)?"met":"missed"}') ($g MB)."
  fi
  out ""; out "_The peer's query answers are empty offline (its full-text extension cannot be downloaded), so its query latency is that of an empty answer._"
}
# Embedding throughput (issue 5) on one corpus: BENCH_EMBED_CORPUS, else prometheus when the run
# includes it, else the first corpus. The model is a random-weight ONNX encoder with the shape of
# snowflake-arctic-embed-xs, generated here by embed/testdata/gen_fixture.py --full (never
# committed), in a model directory beside the real tokenizer (../shared/models/...), which is all
# `analyze --model-dir` needs. (a) one cold `analyze` with embeddings on a copy, after one with
# --skip-embeddings as the baseline: chunks, wall, peak RSS and an RSS sample every 5 s;
# (b) embed/bench on BENCH_EMBED_MAX chunks spread over the corpus: the pipeline
# (tokenize+chunk+batch+ORT+pool) against raw ORT Run on the same batches, interleaved rounds.
section_embeddings() {
  local corpora=("$@") c="${BENCH_EMBED_CORPUS:-}" x
  if [ -z "$c" ]; then
    c=${corpora[0]:-prometheus}
    for x in "${corpora[@]}"; do [ "$x" = prometheus ] && c=prometheus; done
  fi
  local py=${BENCH_PYTHON:-/usr/bin/python3} tokdir=${BENCH_TOKENIZER:-$ROOT/../shared/models/snowflake-arctic-embed-xs}
  local max=${BENCH_EMBED_MAX:-400} rounds=${BENCH_EMBED_ROUNDS:-3}
  out ""; out "## embeddings ($c; random-weight model of the real shape, CPU)"; out ""
  if ! "$py" -c 'import onnx, numpy' 2>/dev/null; then
    out "_not measured: $py cannot import onnx and numpy, needed to generate the benchmark model (apt-get install -y python3-onnx python3-numpy, or set BENCH_PYTHON)._"
    return
  fi
  if [ ! -f "$tokdir/tokenizer.json" ] && [ ! -f "$tokdir/vocab.txt" ]; then
    out "_not measured: no tokenizer.json or vocab.txt in $tokdir (set BENCH_TOKENIZER)._"; return
  fi
  [ -x "$OURS" ] || { out "_not measured: our binary $OURS is missing (make build)._"; FAILED=1; return; }
  command -v go >/dev/null || { out "_not measured: go is missing (needed to build embed/bench)._"; FAILED=1; return; }
  # The ORT library our binary loads; embed/bench loads the same one.
  local ortlib=${GITNEXUS_ORT_LIB:-}
  [ -n "$ortlib" ] || [ ! -f "$(dirname "$OURS")/libonnxruntime.so.1" ] || ortlib=$(dirname "$OURS")/libonnxruntime.so.1
  [ -n "$ortlib" ] || ortlib=$ROOT/lib/libonnxruntime.so.1

  local md=$TMPD/embed-model p=$LOGS/embed-$c
  mkdir -p "$md"
  log "embeddings: generating the random-weight model (gen_fixture.py --full)"
  "$py" "$ROOT/embed/testdata/gen_fixture.py" --full "$md/model.onnx" 2>"$p-gen.err" ||
    { out "_not measured: gen_fixture.py --full failed; see $p-gen.err_"; FAILED=1; return; }
  if [ -f "$tokdir/tokenizer.json" ]; then cp "$tokdir/tokenizer.json" "$md/"; else cp "$tokdir/vocab.txt" "$md/"; fi
  (cd "$ROOT" && go build -o "$TMPD/embbench" ./embed/bench) 2>"$p-build.err" ||
    { out "_not measured: go build ./embed/bench failed; see $p-build.err_"; FAILED=1; return; }

  # (a) analyze, cold: first --skip-embeddings (the baseline), then with embeddings.
  local src dir copy rc=0
  src=$(corpus_dir "$c"); dir=$TMPD/embed-$c
  make_copies "$c" "$src" "$dir"; rm -rf "$dir/peer"; copy=$dir/ours
  local home=$TMPD/embed-home # keeps the copies out of the user's repository registry
  log "embeddings: $c analyze --skip-embeddings (baseline)"
  GITNEXUS_HOME=$home run_ours "$copy" "$p-skip" ||
    { out "_analyze --skip-embeddings failed; see $p-skip.err_"; FAILED=1; return; }
  log "embeddings: $c analyze with embeddings (minutes: every symbol goes through the model)"
  rm -rf "$copy/.gitnexus"
  GITNEXUS_HOME=$home GITNEXUS_ORT_LIB=$ortlib timeout "$BENCH_TIMEOUT" "$TIME" -v -o "$p-analyze.time" \
    "$OURS" analyze --json --name "$(bench_name "$copy")" --model-dir "$md" "$copy" >"$p-analyze.json" 2>"$p-analyze.err" &
  local tpid=$! apid="" k
  for k in 1 2 3 4 5 6 7 8 9 10; do apid=$(pgrep -P "$(pgrep -P "$tpid" | head -n 1)" 2>/dev/null | head -n 1); [ -n "$apid" ] && break; sleep 0.2; done
  if [ -n "$apid" ]; then
    (t0=$(date +%s); while kill -0 "$apid" 2>/dev/null; do
      printf '%s %s\n' $(($(date +%s) - t0)) "$(awk '/VmRSS/{print $2}' "/proc/$apid/status" 2>/dev/null)"; sleep 5
    done) >"$p-analyze.rss" 2>/dev/null &
  fi
  wait "$tpid" || rc=$?
  if [ "$rc" -ne 0 ]; then
    out "_analyze with embeddings failed (exit $rc); see $p-analyze.err_"; tail -n 5 "$p-analyze.err" >&2 || true
    FAILED=1; return
  fi
  local meta=$copy/.gitnexus/meta.json chunks model w1 w0 r1 r0 tail_s rate marg cpu1
  chunks=$(jq -r '.embeddings.count // 0' "$meta"); model=$(jq -r '.embeddings.model // "-"' "$meta")
  tail_s=$(jq -r '.phases.embed // "-"' "$meta" | awk '$1!="-"{printf "%.1f", $1; next} {print}')
  w1=$(wall_seconds "$p-analyze.time"); w0=$(wall_seconds "$p-skip.time")
  r1=$(rss_mib "$p-analyze.time"); r0=$(rss_mib "$p-skip.time"); cpu1=$(cpu_pct "$p-analyze.time")
  rate=$(ratio "$chunks" "$w1" "%.1f")
  marg=$(awk -v c="$chunks" -v a="$w1" -v b="$w0" 'BEGIN{if(a-b>0) printf "%.1f\n", c/(a-b); else print "-"}')
  if [ "$chunks" = 0 ]; then
    out "_analyze ran but embedded nothing: $(jq -r '.embeddings' "$p-analyze.json")_"; FAILED=1; return
  fi

  # (b) pipeline against raw ORT on the same batches, in two processes: in one check the ORT
  # session opened first ran ~10% faster whichever side it served (not seen in a later run), so
  # one run opens the embedder's session first and the other the raw side's, and the headline is
  # the geometric mean of the two.
  local order b
  for order in embedder raw; do
    log "embeddings: $c embed/bench, $max chunks, $rounds interleaved rounds, $order session opened first"
    GITNEXUS_ORT_LIB=$ortlib "$TMPD/embbench" -json -model "$md/model.onnx" -tokenizer "$md" -corpus "$src" \
      -max "$max" -rounds "$rounds" -raw-session-first="$([ $order = raw ] && echo true || echo false)" \
      >"$p-bench-$order.json" 2>"$p-bench-$order.txt" ||
      { out "_embed/bench failed; see $p-bench-$order.txt_"; tail -n 5 "$p-bench-$order.txt" >&2 || true; FAILED=1; return; }
  done
  local be=$p-bench-embedder.json br=$p-bench-raw.json bc pr rr med target
  bc=$(jq -r '"\(.chunks) of \(.corpus_chunks)"' "$be")
  pr=$(jq -s '(.[0].pipeline_chunks_per_s * .[1].pipeline_chunks_per_s) | sqrt' "$be" "$br" | awk '{printf "%.1f", $1}')
  rr=$(jq -s '(.[0].raw_chunks_per_s * .[1].raw_chunks_per_s) | sqrt' "$be" "$br" | awk '{printf "%.1f", $1}')
  med=$(jq -s '(.[0].ratio_median_pct * .[1].ratio_median_pct) | sqrt' "$be" "$br" | awk '{printf "%.1f", $1}')
  target=$(awk -v m="$med" 'BEGIN{print (m>=90)?"met":"missed"}')

  out "| corpus | chunks | analyze wall (s), with / without embeddings | analyze embed step (chunks/s) | bench chunks timed | pipeline (chunks/s) | raw ORT (chunks/s) | pipeline/raw | peak RSS (MiB), with / without embeddings | target pipeline/raw >= 90% |"
  out "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"
  out "| $c | $chunks | $w1 / $w0 | $rate | $bc | $pr | $rr | $med% | $r1 / $r0 | $target |"
  out ""
  out "- analyze embed step: chunks ÷ the whole analyze wall time ($rate chunks/s); embedding runs beside parsing from the start and is the bottleneck, so this is the step's rate, a little pessimistic. Chunks ÷ (wall with − wall without embeddings): $marg chunks/s. meta.json's \`phases.embed\` (${tail_s}s) is only the tail after the graph load. CPU of the analyze: $cpu1. Model id: $model."
  out "- bench (pipeline, raw and pipeline/raw: geometric means of the two runs below): $(jq -r '"\(.tokens_per_chunk*10|round/10) real tokens/chunk, padding \(.padding_pct*10|round/10)%, \(.batches) ORT batches (batch \(.batch), token budget \(.token_budget)), \(.threads) intra-op threads, ORT \(.ort)"' "$be")."
  for order in embedder raw; do
    b=$p-bench-$order.json
    out "- $order session opened first: pipeline $(jq -r '.pipeline_chunks_per_s*10|round/10' "$b"), raw $(jq -r '.raw_chunks_per_s*10|round/10' "$b") chunks/s; pipeline/raw median of $rounds interleaved rounds $(jq -r '.ratio_median_pct*10|round/10' "$b")%, best rounds $(jq -r '.ratio_best_pct*10|round/10' "$b")%, quiet rounds (others < 10% of the machine) $(jq -r '.quiet_rounds' "$b"); pipeline time inside ORT Run $(jq -r '.in_ort_pct*10|round/10' "$b")%; CPU seconds raw/pipeline $(jq -r '.cpu_raw_over_pipeline_pct*10|round/10' "$b")%. Rounds: $(jq -r '[.rounds_detail | to_entries[] | "\(.key+1): pipeline \(.value.pipeline.wall_s*100|round/100)s (others \(.value.pipeline.others_cpu_s*10|round/10)s), raw \(.value.raw.wall_s*100|round/100)s (others \(.value.raw.others_cpu_s*10|round/10)s) → \(.value.pipeline_over_raw*1000|round/10)%"] | join("; ")' "$b")."
  done
  if [ -s "$p-analyze.rss" ]; then
    out "- analyze RSS over the run (sampled every 5 s; seconds: MiB): $(awk '$2!=""{t[++n]=$1; v[n]=$2}
      END{k=int((n+9)/10); for(i=1;i<=n;i+=k) printf "%s%ss: %.0f", (i>1?", ":""), t[i], v[i]/1024; if((n-1)%k) printf ", %ss: %.0f", t[n], v[n]/1024}' "$p-analyze.rss")"
  fi
  [ "$BENCH_KEEP" = 1 ] || rm -rf "$dir"
}
# Call-graph accuracy lives in bench/callgraph/ (its own owner): bench/callgraph/run.sh CORPUS
# scores ours and the peer against an x/tools oracle for one Go corpus and prints a text report.
section_callgraph() {
  local corpora=("$@") c ran=0
  out ""; out "## callgraph accuracy"
  if [ ! -f "$ROOT/bench/callgraph/run.sh" ]; then
    out ""; out "_not measured: bench/callgraph/run.sh does not exist._"; return
  fi
  for c in "${corpora[@]}"; do
    case $c in gin | prometheus | kubernetes) ;; *) continue ;; esac
    ran=1
    local rc=0 tools="ours peer"
    [ "$BENCH_PEER" != 0 ] || tools=ours
    log "$c: callgraph accuracy (bench/callgraph/run.sh)"
    TOOLS=$tools GITNEXUS=$OURS bash "$ROOT/bench/callgraph/run.sh" "$c" \
      >"$LOGS/callgraph-$c.txt" 2>"$LOGS/callgraph-$c.err" || rc=$?
    out ""; out "### $c"; out ""; out '```'
    tee -a "$REPORT" <"$LOGS/callgraph-$c.txt"
    out '```'
    if [ "$rc" -ne 0 ]; then
      out "_bench/callgraph/run.sh $c failed (exit $rc); see $LOGS/callgraph-$c.err_"
      tail -n 5 "$LOGS/callgraph-$c.err" >&2 || true
      FAILED=1
    fi
  done
  [ "$ran" = 1 ] || { out ""; out "_not measured: no Go corpus (gin, prometheus, kubernetes) in this run._"; }
}

# ---------------------------------------------------------------- main

main() {
  local corpora=()
  if [ $# -gt 0 ]; then corpora=("$@")
  else mapfile -t corpora < <(words "${BENCH_CORPORA:-gin prometheus django}"); fi
  [ ${#corpora[@]} -gt 0 ] || { echo "bench: no corpora given" >&2; exit 2; }
  local c
  for c in "${corpora[@]}"; do
    case $c in gin | prometheus | kubernetes | requests | flask | django) ;;
      *) echo "bench: unknown corpus '$c' (known: gin prometheus kubernetes requests flask django)" >&2; exit 2 ;;
    esac
  done
  local s
  for s in $(words "${BENCH_SKIP:-}"); do
    case $s in analyze | query | processes | mcp | embeddings | callgraph) ;;
      *) echo "bench: unknown section '$s' in BENCH_SKIP (known: analyze query processes mcp embeddings callgraph)" >&2; exit 2 ;;
    esac
  done

  command -v jq >/dev/null || die "jq is missing: apt-get install -y jq"
  command -v git >/dev/null || die "git is missing: apt-get install -y git"
  [ -x "$TIME" ] || die "$TIME is missing: apt-get install -y time"
  [ -f "$CORPORA_SH" ] || die "corpus fetcher not found: $CORPORA_SH (set CORPORA_SH)"
  if ! skipped analyze; then
    [ -x "$OURS" ] || die "our binary not found: $OURS (run \`make build\`, or set OURS)"
    if [ "$BENCH_PEER" != 0 ]; then
      [ -f "$PEER_SH" ] || die "reference tool driver not found: $PEER_SH (set PEER_SH, or BENCH_PEER=0)"
      (eval "$(bash "$PEER_SH" env)" && command -v gitnexus >/dev/null) ||
        die "reference tool not installed: run \`bash $PEER_SH install\` (or BENCH_PEER=0)"
    fi
  fi

  mkdir -p "$BENCH_OUT" "$LOGS"
  : >"$REPORT"
  if [ -n "${BENCH_TMP:-}" ]; then TMPD=$BENCH_TMP; mkdir -p "$TMPD"
  else TMPD=$(mktemp -d "${TMPDIR:-/tmp}/gitnexus-bench.XXXXXX"); fi
  [ "$BENCH_KEEP" = 1 ] || trap 'rm -rf "$TMPD"' EXIT

  local ours_version peer_version head
  ours_version=$("$OURS" --version 2>/dev/null | head -n 1 || true)
  peer_version=-
  if [ "$BENCH_PEER" != 0 ]; then
    peer_version=$( (eval "$(bash "$PEER_SH" env)" && gitnexus --version) 2>/dev/null || echo "?")
  fi
  head=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "?")
  git -C "$ROOT" diff --quiet HEAD 2>/dev/null || head="$head (with uncommitted changes)"

  out "# gitnexus benchmark, $STAMP"
  out ""
  out "- machine: $(uname -srm); $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //')); $(free -g 2>/dev/null | awk '/Mem:/{print $2}') GiB RAM; load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  out "- ours: $OURS (${ours_version:-?}), tree $head"
  out "- peer: GitNexus ${peer_version} via $PEER_SH"
  out "- corpora: ${corpora[*]}; raw logs: $LOGS"

  skipped analyze || section_analyze "${corpora[@]}"
  skipped query || section_query
  skipped processes || section_processes "${corpora[@]}"
  skipped mcp || section_mcp
  skipped embeddings || section_embeddings "${corpora[@]}"
  skipped callgraph || section_callgraph "${corpora[@]}"

  log "report written to $REPORT"
  if [ "$FAILED" -ne 0 ]; then log "some runs failed (see above and $LOGS)"; exit 1; fi
}

main "$@"
