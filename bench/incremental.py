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
to `gitnexus query --json` (keyword) naming it in its definitions, asked
once the watcher prints its update; and to a running `gitnexus mcp`'s query
tool naming it (the update's time plus that call's).
Each figure is the median of REPS runs (default 5), each on a fresh edit;
"load in place" counts the runs whose database was updated in place
(graph.LoadStats) rather than loaded whole; "pack nodes reused" the nodes
the search pack took from the live one (query.PackStats, medians).
Writes bench/results/incremental-<corpus>-<UTC stamp>.md.

BASE=/path/to/old/gitnexus compares two binaries on this machine's noise:
each gets its own copy of the corpus and its own GITNEXUS_HOME, every
edit is made in both copies, and the two analyze runs of each step
alternate (base first on even runs, new first on odd ones); the two
watchers run side by side, each edit measured on one then the other.
The table then has a row per binary and step. Sequential runs of two
binaries (one whole benchmark after the other) have disagreed here by more
than the change measured: the machine's load moves between them.
"""
import json
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "bin", "gitnexus"))
CORPUS = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/gitnexus-corpora/prometheus")
REPS = int(os.environ.get("REPS", "5"))
BASE = os.environ.get("BASE")


class Side:
    """One binary under test: its executable, its copy of the corpus, its GITNEXUS_HOME."""

    def __init__(self, label, exe, scratch):
        self.label, self.exe = label, os.path.abspath(exe)
        self.repo = os.path.join(scratch, label, os.path.basename(CORPUS.rstrip("/")))
        shutil.copytree(CORPUS, self.repo, ignore=shutil.ignore_patterns(".gitnexus"))
        self.env = dict(os.environ, GITNEXUS_HOME=tempfile.mkdtemp(prefix="gnx-home-"))


def analyze(side, *flags):
    """Runs analyze under GNU time; returns (wall s, peak RSS MiB, summary)."""
    tf = tempfile.NamedTemporaryFile(delete=False)
    tf.close()
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", tf.name, side.exe, "analyze", "--skip-embeddings", "--json", *flags, side.repo],
                         env=side.env, capture_output=True, text=True, check=True).stdout
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


def in_turn(sides, r):
    """The sides in the order of run r: alternating, so neither always goes first."""
    return sides if r % 2 == 0 else sides[::-1]


def watch_start(side):
    """Starts `analyze --watch` (its JSON lines read on a thread into side.updates) and an MCP server."""
    w = subprocess.Popen([side.exe, "analyze", "--watch", "--skip-embeddings", "--json", side.repo], env=side.env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    side.updates = queue.Queue()
    threading.Thread(target=lambda: [side.updates.put(line) for line in w.stdout], daemon=True).start()
    side.updates.get(timeout=300)  # the first update
    side.mcp = Mcp(side)
    return w


class Mcp:
    """A `gitnexus mcp` server over stdio, for the query tool."""

    def __init__(self, side):
        self.side = side
        self.p = subprocess.Popen([side.exe, "mcp"], env=side.env, cwd=side.repo, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.n = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def call(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.n:
                return msg

    def defines(self, name):
        """Whether the query tool's definitions name name."""
        r = self.call("tools/call", {"name": "query", "arguments": {"search_query": name, "mode": "keyword",
                                                                     "repo": self.side.repo}})
        for c in r.get("result", {}).get("content", []):
            try:
                if any(d.get("name") == name for d in json.loads(c.get("text", "")).get("definitions", [])):
                    return True
            except (json.JSONDecodeError, AttributeError):
                pass
        return False

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def cli_defines(side, name):
    q = subprocess.run([side.exe, "query", "--json", "--mode", "keyword", "-r", side.repo, name], env=side.env,
                       capture_output=True, text=True)
    try:
        return any(d.get("name") == name for d in json.loads(q.stdout).get("definitions", []))
    except json.JSONDecodeError:
        return False


def watch_latency(side, path, name):
    """Seconds from writing a new function into path to `gitnexus query`, and to the MCP query tool, finding it.

    After the write the bench waits for the watcher's next update line, then asks once (the CLI, then
    the MCP server); if the update did not hold the function yet, it waits for the next. Polling with
    queries instead would have them take CPU from the re-analyze they wait for (2 cores: measured
    1.9-2.0 s polling against 1.3-1.6 s so on prometheus, session 18)."""
    while not side.updates.empty():  # nothing stale in the queue
        side.updates.get()
    t0 = time.time()
    add_func(path, name)
    while True:
        side.updates.get(timeout=60)
        t1 = time.time()
        if cli_defines(side, name):
            cli = time.time() - t0
            m0 = time.time()
            if not side.mcp.defines(name):
                raise SystemExit("watch (%s): the CLI finds %s, the MCP server does not" % (side.label, name))
            return cli, (t1 - t0) + (time.time() - m0)


def main():
    scratch = tempfile.mkdtemp(prefix="gnx-incr-")
    sides = [Side("new" if BASE else "bin", BIN, scratch)]
    if BASE:
        sides = [Side("base", BASE, scratch)] + sides
    # The same edits in every copy: file lists by path relative to the copy.
    rel = [os.path.relpath(p, sides[0].repo) for p in go_files(sides[0].repo)]
    files = lambda side: [os.path.join(side.repo, p) for p in rel]
    rows = {}  # (step, side label) → runs

    def step(name, r, edit=None, *flags):
        for side in in_turn(sides, r):
            if edit:
                edit(files(side))
            rows.setdefault((name, side.label), []).append(analyze(side, *flags))

    for r in range(REPS):
        step("cold (--force)", r, None, "--force")
    for r in range(REPS):
        step("nothing changed", r)
    for r in range(REPS):
        step("one function body changed", r, lambda fs, r=r: touch_body(fs[100 + r], r))
        step("one new function with a call", r, lambda fs, r=r: add_func(fs[200 + r], "gnxNewFunc%d" % r))

        def batch(fs, r=r):
            for i, p in enumerate((fs * 3)[50 * r: 50 * r + 50]):
                add_func(p, "gnxBatch%d_%d" % (r, i))
        step("50 files changed", r, batch)

    # analyze --watch: save → found by query; the watchers run side by side.
    watchers = {side.label: watch_start(side) for side in sides}
    lat, mlat = {}, {}
    for r in range(REPS):
        # a name of letters only: the keyword index splits digits off
        name = "zqxWatched" + ["Orchid", "Falcon", "Meadow", "Copper", "Harbor", "Lantern", "Quartz"][r % 7]
        for side in in_turn(sides, r):
            cli, mcp = watch_latency(side, files(side)[(450 + r) % len(rel)], name)
            lat.setdefault(side.label, []).append(cli)
            mlat.setdefault(side.label, []).append(mcp)
            time.sleep(1)
    for side in sides:
        side.mcp.close()
    for w in watchers.values():
        w.send_signal(2)
        w.wait()

    stamp = time.strftime("%Y-%m-%dT%H%M%SZ", time.gmtime())
    corpus = os.path.basename(CORPUS.rstrip("/"))
    bins = []
    for side in sides:
        ver = subprocess.run([side.exe, "version"], capture_output=True, text=True).stdout.strip()
        bins.append("%s `%s` (%s)" % (side.label, side.exe, ver))
    how = "runs alternated between the binaries" if BASE else "one binary"
    lines = ["# incremental re-analyze, %s (%s)" % (corpus, stamp), "",
             "binaries: %s; %d cores; medians of %d runs, whole process (GNU time), %s; `%spython3 bench/incremental.py`." % (
                 "; ".join(bins), os.cpu_count(), REPS, how, "BASE=… " if BASE else ""), "",
             "| run | binary | wall s | runs (s) | peak RSS MiB | files parsed | reused | load in place | pack nodes reused | phases (s) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (k, label), rs in rows.items():
        ph = {p: round(med([x[2]["phases"].get(p, 0) for x in rs]), 2) for p in ("parse", "resolve", "processes", "load", "pack")}
        inplace = sum(1 for x in rs if x[2].get("load", {}).get("in_place"))
        pack = "%d of %d" % (med([x[2].get("pack", {}).get("reused", 0) for x in rs]), med([x[2].get("pack", {}).get("nodes", 0) for x in rs]))
        lines.append("| %s | %s | %.2f | %s | %.0f | %d | %d | %d of %d | %s | %s |" % (
            k, label, med([x[0] for x in rs]), " ".join("%.2f" % x[0] for x in rs), med([x[1] for x in rs]),
            med([x[2]["parsed"] for x in rs]), med([x[2]["reused"] for x in rs]), inplace, len(rs), pack,
            ", ".join("%s %s" % kv for kv in ph.items())))
    lines.append("")
    for side in sides:
        lines.append("`analyze --watch` (%s), write → `gitnexus query` finds the new function: median %.2f s (runs: %s);"
                     " → the MCP `query` tool finds it: median %.2f s (runs: %s)." %
                     (side.label, med(lat[side.label]), ", ".join("%.2f" % x for x in lat[side.label]),
                      med(mlat[side.label]), ", ".join("%.2f" % x for x in mlat[side.label])))
    out = os.path.join(ROOT, "bench", "results", "incremental-%s-%s.md" % (corpus, stamp))
    open(out, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
