#!/usr/bin/env bash
# bench/evaldev.sh: the search quality table on the localization dev set (../shared/eval-dev: 66 real
# GitHub issues over 4 Python repositories, the files and functions their fix changed), keyword mode.
#
#   usage: bash bench/evaldev.sh [BIN]          (default bin/gitnexus)
#
# Needs the four repositories' snapshots under MIRROR_ROOT (default /work/.mirror: <owner>+<name>/repo,
# brought with the tool library's `fetch`). Analyzes each (repo, commit) tree once per binary under
# EVAL_SCRATCH (default a fresh temporary folder; set it to reuse trees), runs every issue's query,
# scores file and function recall per repository, and writes the table to
# bench/results/evaldev-<UTC stamp>.md.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$(realpath "${1:-$ROOT/bin/gitnexus}")
EVAL=${EVAL_DEV:-$ROOT/../shared/eval-dev}
export MIRROR_ROOT=${MIRROR_ROOT:-/work/.mirror}
scratch=${EVAL_SCRATCH:-$(mktemp -d)}
export EVAL_SCRATCH=$scratch
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
preds=$scratch/preds-$stamp.jsonl
python3 "$EVAL/run.py" "$BIN" "$preds" --mode keyword --limit 20 >&2
out=$ROOT/bench/results/evaldev-$stamp.md
{
  echo "# eval-dev, keyword mode ($stamp)"
  echo
  echo "binary: \`$BIN\` ($("$BIN" version 2>/dev/null || echo unknown)); 2 cores; plain BM25 baseline (README of the set): file R@5 0.614, MRR 0.532, R@10 0.742; function R@10 0.415."
  echo
  echo '```'
  python3 "$EVAL/score.py" "$preds" --by repo
  echo '```'
} | tee "$out"
