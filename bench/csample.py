#!/usr/bin/env python3
"""csample.py: random samples of C call edges and C call sites, written out for judging.

    csample.py GITNEXUS REPO N_EDGES N_SITES SEED OUT_DIR

The Linux kernel issue measures C call accuracy by reading code:

- precision: N_EDGES CALLS edges drawn uniformly from those whose caller and callee are in C files
  (.c/.h). Each is listed with the caller, the call's line and the callee's definition; a judge
  says whether the call at that line reaches that definition (edges-N.md).
- recall: N_SITES call sites drawn uniformly from the direct calls written in the tree's .c files
  (an identifier followed by "(" inside a function's lines, not after "->" or ".", not a C
  keyword, not an ALL_CAPS name), each with its enclosing function. A judge says whether it is a
  call of a function defined in the tree and lists the definitions it can reach (sites-N.md);
  csample_score.py then looks for the CALLS edge in the index.

The draw is reproducible (random.Random(SEED)); the index is only read (gitnexus cypher, paged
through bench/cypher_dump.py).
"""
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
C_EXT = (".c", ".h")
KEYWORDS = set("""if for while switch return sizeof typeof __typeof__ alignof _Alignof __alignof__ do else
case goto defined asm __asm__ volatile __volatile__ __attribute__ _Static_assert static_assert
__builtin_expect likely unlikely offsetof""".split())
CALL = re.compile(r"(?<![\w>.])([a-z_][a-z0-9_]*)\s*\(")


def cypher(exe, repo, query):
    out = subprocess.run([exe, "cypher", "--json", "-r", repo, "-n", "5000", "--max-tokens", "100000", query],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"csample: cypher failed: {out.stderr.strip()}")
    page = json.loads(out.stdout)
    if page.get("truncated"):
        sys.exit(f"csample: answer cut: {query}")
    return page["rows"]


def dump(exe, repo, query):
    out = subprocess.run([sys.executable, os.path.join(HERE, "cypher_dump.py"), exe, repo, query],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["rows"]


def q(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def lines_of(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")


def sample_edges(exe, repo, n, rnd):
    per_file = dump(exe, repo, "MATCH (a)-[r:CALLS]->(b) WHERE (a.filePath ENDS WITH '.c' OR a.filePath ENDS WITH '.h') "
                               "AND (b.filePath ENDS WITH '.c' OR b.filePath ENDS WITH '.h') "
                               "RETURN a.filePath, count(*) ORDER BY a.filePath")
    total = sum(c for _, c in per_file)
    picks = sorted(rnd.randrange(total) for _ in range(n))
    out, acc, k = [], 0, 0
    for path, c in per_file:
        want = []
        while k < len(picks) and picks[k] < acc + c:
            want.append(picks[k] - acc)
            k += 1
        acc += c
        if not want:
            continue
        rows = dump(exe, repo, f"MATCH (a)-[r:CALLS]->(b) WHERE a.filePath = {q(path)} "
                                 "AND (b.filePath ENDS WITH '.c' OR b.filePath ENDS WITH '.h') "
                                 "RETURN a.name, a.startLine, a.endLine, r.line, b.name, b.filePath, b.startLine, "
                                 "r.confidence, r.reason ORDER BY a.startLine, r.line, b.filePath, b.startLine, b.name, r.reason")
        for i in want:
            out.append((path, *rows[i]))
    return out, total


def sample_sites(exe, repo, n, rnd):
    root = repo
    files = []
    for d, dirs, fs in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in fs:
            if f.endswith(".c"):
                files.append(os.path.relpath(os.path.join(d, f), root))
    files.sort()
    # every direct-call token of every .c file: (file index, line) pairs, counted per file
    counts = []
    for f in files:
        c = 0
        for line in lines_of(root, f):
            for m in CALL.finditer(line):
                if m.group(1) not in KEYWORDS:
                    c += 1
        counts.append(c)
    total = sum(counts)
    out = []
    tries = 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        r = rnd.randrange(total)
        fi = 0
        while r >= counts[fi]:
            r -= counts[fi]
            fi += 1
        path = files[fi]
        ls = lines_of(root, path)
        site = None
        for ln, line in enumerate(ls, 1):
            for m in CALL.finditer(line):
                if m.group(1) in KEYWORDS:
                    continue
                if r == 0:
                    site = (ln, m.group(1))
                    break
                r -= 1
            if site:
                break
        ln, name = site
        fn = cypher(exe, repo, f"MATCH (f:Function) WHERE f.filePath = {q(path)} AND f.startLine <= {ln} "
                               f"AND f.endLine >= {ln} RETURN f.name, f.startLine, f.endLine ORDER BY f.startLine DESC")
        if not fn or fn[0][1] == ln:  # not inside a function body (or the definition's own line)
            continue
        out.append((path, ln, name, fn[0][0], fn[0][1], ls[ln - 1].strip()))
    return out, total


RUBRIC_EDGES = """For each edge: open the caller at the call line. Is there a call there (directly, or through a
struct member `x->ops->fn(...)` when the reason is `field-pointer`) that can reach the listed callee
definition? Count it right when: the name called is the callee's and, among the definitions of that
name in the tree, the listed one is visible from the caller's translation unit (a `static` function of
another .c file is wrong; a definition for another architecture than the caller's arch/ directory is
wrong; one of several config variants of the same function is right); for `field-pointer` edges, the
callee is stored in that member of that struct type somewhere in the tree. A `reference` edge is a
function handed over as a value: right when the line names the callee (a callback argument, an
assignment); when the line instead hands over a table (`&foo_driver`) whose initializer stores the
callee, write `right: no  reason: table NAME` (counted wrong in the strict precision, right in the
one that counts table registrations as the callbacks they hand over). Fill in `right: yes|no` and a
short reason when no."""

RUBRIC_SITES = """For each site: the line is in the listed function. Decide whether the token is a call of a function
DEFINED in the tree (not a macro, not a function-pointer variable, not text in a comment or string).
If it is, list every definition it can reach as `file:line` (the line of the definition's name):
for a static function, the one in the same file or included header; for an exported one, its
definition(s) (several config or architecture variants: list those visible from the caller). Fill in
`call: yes|no (why)` and `defs: file:line, ...`."""


def main():
    if len(sys.argv) != 7:
        sys.exit("usage: csample.py GITNEXUS REPO N_EDGES N_SITES SEED OUT_DIR")
    exe, repo, ne, ns, seed, outdir = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    os.makedirs(outdir, exist_ok=True)
    rnd = random.Random(seed)
    edges, etotal = sample_edges(exe, repo, ne, rnd)
    with open(os.path.join(outdir, "edges.md"), "w") as f:
        f.write(f"# C CALLS edges: {len(edges)} drawn of {etotal} (C caller and callee), seed {seed}\n\n{RUBRIC_EDGES}\n\n")
        for i, (path, an, ast, aend, line, bn, bp, bst, conf, reason) in enumerate(edges, 1):
            f.write(f"## E{i}. `{an}` ({path}:{ast}-{aend}) line {line} → `{bn}` ({bp}:{bst})  [{reason} {conf:.2f}]\n\n")
            f.write("right: ?  reason: \n\n")
    sites, stotal = sample_sites(exe, repo, ns, rnd)
    with open(os.path.join(outdir, "sites.md"), "w") as f:
        f.write(f"# C call sites: {len(sites)} drawn of {stotal} direct-call tokens in .c files, seed {seed}\n\n{RUBRIC_SITES}\n\n")
        for i, (path, ln, name, fname, fst, text) in enumerate(sites, 1):
            f.write(f"## S{i}. `{name}` at {path}:{ln} in `{fname}` ({path}:{fst})\n\n    {text[:160]}\n\n")
            f.write("call: ?  defs: \n\n")
    json.dump({"edges": edges, "sites": sites, "edge_total": etotal, "site_total": stotal, "seed": seed},
              open(os.path.join(outdir, "sample.json"), "w"))


if __name__ == "__main__":
    main()
