#!/usr/bin/env python3
"""bench/cliquery.py: whole-process `gitnexus query` latency on an indexed repository.

    usage: python3 bench/cliquery.py [BIN] [REPO]
           (default bin/gitnexus, ~/.cache/gitnexus-corpora/linux, which must
           have been analyzed: `gitnexus analyze --skip-embeddings REPO`)

Runs `BIN query --json --mode keyword Q` in REPO (the repository the
working directory is in, as a user would) for each query of the workload,
REPS rounds (default 5; the first round is a warm-up of the page cache and
is not counted), and reports, whole process under GNU time: wall p50 and
p90, peak RSS p50 and max, and the p50 of each query. The workload is
bench/mcp's for the corpus (the kernel's questions and symbols when REPO
is a Linux tree; prometheus's otherwise). Writes
bench/results/cliquery-<corpus>-<UTC stamp>.md.

Queries run back to back, as an agent's burst does; a query within two
seconds of another on the same index takes that one's staleness check
(graph.CheckStaleShared) instead of stat'ing the tree. GAP=S sleeps S
seconds before each query: GAP=2.2 measures isolated queries, each with
its own check.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "bin", "gitnexus"))
REPO = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/gitnexus-corpora/linux"))
REPS = int(os.environ.get("REPS", "5"))
GAP = float(os.environ.get("GAP", "0"))

LINUX = ["read system call", "page cache writeback", "tcp congestion control", "block device request queue",
         "scheduler load balancing", "usb device enumeration", "ext4 journal commit", "memory cgroup reclaim",
         "vfs_read", "ksys_read", "kmalloc", "copy_from_user", "submit_bio", "alloc_pages"]
PROMETHEUS = ["scrape target labels", "tsdb compaction", "rule evaluation", "remote write queue",
              "parse promql expression", "label matcher", "LoadFile", "NewEngine", "PopulateLabels", "Intersect"]


def run(q):
    tf = tempfile.NamedTemporaryFile(delete=False)
    tf.close()
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf.name, BIN, "query", "--json", "--mode", "keyword", q],
                       cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - t0
    rss = int(open(tf.name).read().split()[-1]) / 1024
    os.unlink(tf.name)
    if p.returncode not in (0, 3):
        sys.exit("query %r failed (%d): %s" % (q, p.returncode, p.stderr[-500:]))
    return wall * 1000, rss


def pct(xs, p):
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p * (len(s) - 1))))]


def main():
    linux = os.path.exists(os.path.join(REPO, "kernel", "sched"))
    work = LINUX if linux else PROMETHEUS
    per = {q: [] for q in work}
    walls, rsss = [], []
    for rnd in range(REPS + 1):
        for q in work:
            if GAP:
                time.sleep(GAP)
            w, r = run(q)
            if rnd == 0:
                continue
            per[q].append(w)
            walls.append(w)
            rsss.append(r)
    corpus = "linux" if linux else os.path.basename(REPO)
    stamp = time.strftime("%Y-%m-%dT%H%M%SZ", time.gmtime())
    ver = subprocess.run([BIN, "version"], capture_output=True, text=True).stdout.strip()
    lines = ["# whole-process `gitnexus query` on %s" % corpus, "",
             "binary: `%s` (%s); repo: `%s`; %d rounds after a warm-up, keyword mode, `--json`; %s" % (
                 BIN, ver, REPO, REPS, "%.1f s before each query (isolated)" % GAP if GAP else "back to back"),
             "", "| queries | wall p50 | wall p90 | peak RSS p50 | peak RSS max |", "| --- | --- | --- | --- | --- |",
             "| %d | %.0f ms | %.0f ms | %.0f MiB | %.0f MiB |" % (len(walls), statistics.median(walls), pct(walls, 0.9),
                                                              statistics.median(rsss), max(rsss)),
             "", "| query | wall p50 |", "| --- | --- |"]
    lines += ["| %s | %.0f ms |" % (q, statistics.median(v)) for q, v in per.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    out = os.path.join(ROOT, "bench", "results", "cliquery-%s-%s.md" % (corpus, stamp))
    open(out, "w").write(text)
    print("wrote", out)


if __name__ == "__main__":
    main()
