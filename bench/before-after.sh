#!/usr/bin/env bash
# bench/before-after.sh: a change measured against the binary before it, on one corpus, with the runs
# interleaved (old, new, old, new, ...) so that drift in machine load lands on both alike.
#
#   usage: BASE=/path/to/old/bin/gitnexus bash bench/before-after.sh [corpus]   (default prometheus)
#
# Measures, for each binary on its own copy of the corpus:
#   - cold `analyze --skip-embeddings`: wall seconds and peak RSS (/usr/bin/time -v), RUNS runs each;
#   - whole-process `query --mode keyword --json` over the corpus's labeled queries
#     (query/testdata/labeled.json), QUERY_ROUNDS rounds each: p50 and p90 in ms.
# Prints a markdown table of medians and the ratios new/old, and writes it to
# bench/results/before-after-<corpus>-<UTC stamp>.md. Environment: BASE (required), NEW (default
# bin/gitnexus), RUNS (default 5), QUERY_ROUNDS (default 5), CORPORA_SH (default ../shared/bench/corpora.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE=${BASE:?set BASE to the old gitnexus binary}
NEW=${NEW:-$ROOT/bin/gitnexus}
RUNS=${RUNS:-5}
QUERY_ROUNDS=${QUERY_ROUNDS:-5}
CORPORA_SH=${CORPORA_SH:-$ROOT/../shared/bench/corpora.sh}
corpus=${1:-prometheus}
src=$(bash "$CORPORA_SH" "$corpus" | cut -f2)
[ -d "$src" ] || { echo "before-after: corpus $corpus not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GITNEXUS_HOME=$tmp/home
cp -r "$src" "$tmp/old"; cp -r "$src" "$tmp/new"
mapfile -t qs < <(jq -r --arg c "$corpus" '.queries[] | select(.corpus == $c) | .query' "$ROOT/query/testdata/labeled.json")

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) {print "-"; exit}; print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
pct() { sort -g | awk -v p="$1" '{a[NR]=$1} END {if (NR==0) {print "-"; exit}; i=int((NR-1)*p/100)+1; print a[i]}'; }

analyze() { # bin copy -> "seconds rss_mib"
  rm -rf "$2/.gitnexus"
  /usr/bin/time -v -o "$tmp/time" "$1" analyze --skip-embeddings --json "$2" >"$tmp/out.json" 2>"$tmp/err" \
    || { cat "$tmp/err" >&2; echo "before-after: analyze failed: $1 $2" >&2; exit 1; }
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$tmp/time")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$tmp/time")
  echo "$wall $rss"
}
: >"$tmp/a-old"; : >"$tmp/a-new"
for ((i = 0; i < RUNS; i++)); do
  analyze "$BASE" "$tmp/old" >>"$tmp/a-old"
  analyze "$NEW" "$tmp/new" >>"$tmp/a-new"
done
: >"$tmp/q-old"; : >"$tmp/q-new"
for ((r = 0; r < QUERY_ROUNDS; r++)); do
  for q in "${qs[@]}"; do
    for side in old new; do
      bin=$BASE; [ $side = new ] && bin=$NEW
      t0=$(date +%s%N)
      (cd "$tmp/$side" && "$bin" query --mode keyword --json "$q" >/dev/null) || { echo "before-after: query failed: $side $q" >&2; exit 1; }
      echo $(( ($(date +%s%N) - t0) / 1000 )) | awk '{printf "%.1f\n", $1/1000}' >>"$tmp/q-$side"
    done
  done
done
col() { # field file: the median of one column of the analyze runs
  cut -d' ' -f"$1" "$2" | median
}
ow=$(col 1 "$tmp/a-old"); nw=$(col 1 "$tmp/a-new")
orss=$(col 2 "$tmp/a-old"); nrss=$(col 2 "$tmp/a-new")
oq=$(median <"$tmp/q-old"); nq=$(median <"$tmp/q-new")
oq9=$(pct 90 <"$tmp/q-old"); nq9=$(pct 90 <"$tmp/q-new")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", b/a}'; }
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
report=$ROOT/bench/results/before-after-$corpus-$stamp.md
{
  echo "# before/after on $corpus ($stamp)"
  echo
  echo "old: \`$BASE\`; new: \`$NEW\` ($(git -C "$ROOT" rev-parse --short HEAD)). $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "analyze: $RUNS interleaved cold runs each (--skip-embeddings); query: ${#qs[@]} labeled queries x $QUERY_ROUNDS rounds, whole process, keyword mode."
  echo
  echo "| measure | old (median) | new (median) | new/old |"
  echo "| --- | --- | --- | --- |"
  echo "| analyze wall s | $ow | $nw | $(ratio "$ow" "$nw") |"
  echo "| analyze peak RSS MiB | $orss | $nrss | $(ratio "$orss" "$nrss") |"
  echo "| query p50 ms | $oq | $nq | $(ratio "$oq" "$nq") |"
  echo "| query p90 ms | $oq9 | $nq9 | $(ratio "$oq9" "$nq9") |"
  echo
  echo "analyze runs (s, MiB), old: $(tr '\n' ';' <"$tmp/a-old")"
  echo "analyze runs (s, MiB), new: $(tr '\n' ';' <"$tmp/a-new")"
} | tee "$report"
