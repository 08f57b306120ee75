#!/usr/bin/env python3
"""bench/incremental.py: re-analyze after small edits, and analyze --watch latency.

    usage: python3 bench/incremental.py [BIN] [CORPUS]
           (default bin/gitnexus, ~/.cache/gitnexus-corpora/prometheus)

Copies CORPUS into a scratch directory, then measures, whole process, wall
seconds and peak RSS (GNU time):
  cold      `analyze --skip-embeddings --force` (every file parsed)
  body      one function body changed in one file (a call inserted)
  newfunc   one new function with a call to an existing one
  files50   a new function in each of 50 files
  none      nothing changed
and `analyze --watch` latency: from the write of a file with a new function
to the first `gitnexus query --json` (keyword) whose definitions name it.
Each figure is the median of REPS runs (default 5), each on a fresh edit;
"load in place" counts the runs whose database was updated in place
(graph.LoadStats) rather than loaded whole; "pack nodes reused" the nodes
the search pack took from the live one (query.PackStats, medians).
Writes bench/results/incremental-<corpus>-<UTC stamp>.md.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "bin", "gitnexus"))
CORPUS = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/gitnexus-corpora/prometheus")
REPS = int(os.environ.get("REPS", "5"))
ENV = dict(os.environ, GITNEXUS_HOME=tempfile.mkdtemp(prefix="gnx-home-"))


def analyze(repo, *flags):
    """Runs analyze under GNU time; returns (wall s, peak RSS MiB, summary)."""
    tf = tempfile.NamedTemporaryFile(delete=False)
    tf.close()
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", tf.name, BIN, "analyze", "--skip-embeddings", "--json", *flags, repo],
                         env=ENV, capture_output=True, text=True, check=True).stdout
    wall, rss = open(tf.name).read().split()[-2:]
    os.unlink(tf.name)
    return float(wall), int(rss) / 1024, json.loads(out)


def generated(path):
    """Whether the file says it is generated (analyze skips it: an edit of it changes nothing)."""
    head = open(path, errors="replace").read(4096)
    return "Code generated" in head and "DO NOT EDIT" in head


def go_files(repo):
    out = []
    for d, dirs, files in os.walk(repo):
        dirs[:] = sorted(x for x in dirs if x not in (".git", ".gitnexus", "vendor", "testdata"))
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".go") and not f.endswith("_test.go")]
    return [p for p in out if not generated(p)]


def first_func(text):
    m = re.search(r"^func ([A-Za-z_]\w*)\(", text, re.M)
    return m.group(1) if m else "init"


def add_func(path, name):
    text = open(path).read()
    open(path, "w").write(text + "\nfunc %s() {\n\t%s()\n}\n" % (name, first_func(text)))


def touch_body(path, n):
    text = open(path).read()
    i = text.index("\nfunc ")
    j = text.index("{\n", i) + 2
    open(path, "w").write(text[:j] + "\tgnxTouched%d()\n" % n + text[j:])


def med(xs):
    return statistics.median(xs)


def main():
    scratch = tempfile.mkdtemp(prefix="gnx-incr-")
    repo = os.path.join(scratch, os.path.basename(CORPUS.rstrip("/")))
    shutil.copytree(CORPUS, repo, ignore=shutil.ignore_patterns(".gitnexus"))
    files = go_files(repo)
    rows = {}
    cold = [analyze(repo, "--force") for _ in range(REPS)]
    rows["cold (--force)"] = cold
    rows["nothing changed"] = [analyze(repo) for _ in range(REPS)]
    body, newf, f50 = [], [], []
    for r in range(REPS):
        touch_body(files[100 + r], r)
        body.append(analyze(repo))
        add_func(files[200 + r], "gnxNewFunc%d" % r)
        newf.append(analyze(repo))
        for i, p in enumerate((files * 3)[50 * r: 50 * r + 50]):
            add_func(p, "gnxBatch%d_%d" % (r, i))
        f50.append(analyze(repo))
    rows["one function body changed"] = body
    rows["one new function with a call"] = newf
    rows["50 files changed"] = f50

    # analyze --watch: save → found by query.
    w = subprocess.Popen([BIN, "analyze", "--watch", "--skip-embeddings", "--json", repo], env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    w.stdout.readline()  # the first update
    lat = []
    for r in range(REPS):
        # a name of letters only: the keyword index splits digits off
        name = "zqxWatched" + ["Orchid", "Falcon", "Meadow", "Copper", "Harbor", "Lantern", "Quartz"][r % 7]
        t0 = time.time()
        add_func(files[(450 + r) % len(files)], name)
        while True:
            q = subprocess.run([BIN, "query", "--json", "--mode", "keyword", "-r", repo, name], env=ENV, capture_output=True, text=True)
            try:
                if any(d.get("name") == name for d in json.loads(q.stdout).get("definitions", [])):
                    break
            except json.JSONDecodeError:
                pass
            if time.time() - t0 > 60:
                raise SystemExit("watch: %s not found after 60 s" % name)
            time.sleep(0.05)
        lat.append(time.time() - t0)
        time.sleep(1)
    w.send_signal(2)
    w.wait()

    stamp = time.strftime("%Y-%m-%dT%H%M%SZ", time.gmtime())
    ver = subprocess.run([BIN, "version"], capture_output=True, text=True).stdout.strip()
    lines = ["# incremental re-analyze, %s (%s)" % (os.path.basename(repo), stamp), "",
             "binary: `%s` (%s); %d cores; medians of %d runs, whole process (GNU time); `python3 bench/incremental.py`." % (BIN, ver, os.cpu_count(), REPS), "",
             "| run | wall s | runs (s) | peak RSS MiB | files parsed | reused | load in place | pack nodes reused | phases (s) |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for k, rs in rows.items():
        ph = {p: round(med([x[2]["phases"].get(p, 0) for x in rs]), 2) for p in ("parse", "resolve", "processes", "load", "pack")}
        inplace = sum(1 for x in rs if x[2].get("load", {}).get("in_place"))
        pack = "%d of %d" % (med([x[2].get("pack", {}).get("reused", 0) for x in rs]), med([x[2].get("pack", {}).get("nodes", 0) for x in rs]))
        lines.append("| %s | %.2f | %s | %.0f | %d | %d | %d of %d | %s | %s |" % (
            k, med([x[0] for x in rs]), " ".join("%.2f" % x[0] for x in rs), med([x[1] for x in rs]),
            med([x[2]["parsed"] for x in rs]), med([x[2]["reused"] for x in rs]), inplace, len(rs), pack,
            ", ".join("%s %s" % kv for kv in ph.items())))
    lines += ["", "`analyze --watch`, write → `gitnexus query` finds the new function: median %.2f s (runs: %s)." %
              (med(lat), ", ".join("%.2f" % x for x in lat))]
    out = os.path.join(ROOT, "bench", "results", "incremental-%s-%s.md" % (os.path.basename(repo), stamp))
    open(out, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
