#!/usr/bin/env python3
"""csample_score.py: precision and recall from a judged C sample (bench/csample.py).

    csample_score.py GITNEXUS REPO SAMPLE_DIR

Reads SAMPLE_DIR/edges.md (each edge judged `right: yes|no`) and SAMPLE_DIR/sites.md (each site
judged `call: yes|no` with `defs: file:line, ...`). Precision is the share of judged edges that are
right. Recall is, over the sites that are calls of functions defined in the tree, the share for
which the index has a CALLS edge from the enclosing function to one of the listed definitions (a
Function whose filePath and startLine match; the judge gives the line of the definition's name,
which may sit a line or two below the symbol's startLine when the return type is on its own
line, so a startLine up to 3 lines above counts). Prints a markdown summary with every miss, and
the judged edges the index lacks (an index built after a change: the wrong ones it dropped, the right
ones it lost).
"""
import json
import os
import re
import subprocess
import sys


def cypher(exe, repo, query):
    out = subprocess.run([exe, "cypher", "--json", "-r", repo, "-n", "5000", "--max-tokens", "100000", query],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"csample_score: cypher failed: {out.stderr.strip()}")
    return json.loads(out.stdout)["rows"]


def q(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def blocks(path, prefix):
    text = open(path).read()
    parts = re.split(r"^## ", text, flags=re.M)[1:]
    return [p for p in parts if p.startswith(prefix)]


def main():
    exe, repo, d = sys.argv[1:4]
    sample = json.load(open(os.path.join(d, "sample.json")))
    # precision, and which judged edges this index still has (an index
    # built after a change: the sample's wrong edges it dropped, its right
    # ones it lost)
    judged = right = 0
    wrong = []
    kept = {True: 0, False: 0}
    kept_of = {True: 0, False: 0}
    gone = []
    head = re.compile(r"^E(\d+)\. `(.+?)` \((.+?):(\d+)-\d+\) line (\d+) → `(.+?)` \((.+?):(\d+)\)")
    for b in blocks(os.path.join(d, "edges.md"), "E"):
        m = re.search(r"^right:\s*(yes|no)\b(.*)$", b, flags=re.M)
        if not m:
            continue
        judged += 1
        ok = m.group(1) == "yes"
        if ok:
            right += 1
        else:
            wrong.append(b.split("\n", 1)[0] + " — " + m.group(2).strip())
        h = head.match(b)
        if h:
            _, _, ap, ast, line, bn, bp, bst = h.groups()
            rows = cypher(exe, repo, f"MATCH (a:Function)-[r:CALLS]->(b:Function) WHERE a.filePath = {q(ap)} AND a.startLine = {ast} "
                                     f"AND b.filePath = {q(bp)} AND b.startLine = {bst} AND r.line = {line} RETURN count(*)")
            kept_of[ok] += 1
            if rows and rows[0][0] > 0:
                kept[ok] += 1
            else:
                gone.append(("right" if ok else "wrong") + ": " + b.split("\n", 1)[0])
    # recall
    calls = found = 0
    missed = []
    sites = {f"S{i}": s for i, s in enumerate(sample["sites"], 1)}
    for b in blocks(os.path.join(d, "sites.md"), "S"):
        sid = b.split(".", 1)[0]
        m = re.search(r"^call:\s*(yes|no)\b.*?defs:\s*(.*)$", b, flags=re.M)
        if not m or m.group(1) != "yes":
            continue
        defs = re.findall(r"([\w./+-]+\.[ch]):(\d+)", m.group(2))
        if not defs:
            continue
        calls += 1
        path, ln, name, fname, fst, _ = sites[sid]
        rows = cypher(exe, repo, f"MATCH (a:Function)-[r:CALLS]->(b) WHERE a.filePath = {q(path)} AND a.startLine = {fst} "
                                 "RETURN b.filePath, b.startLine, b.name, r.line")
        hit = any(bp == dp and 0 <= int(dl) - bs <= 3 for bp, bs, bn, _ in rows for dp, dl in defs)
        if hit:
            found += 1
        else:
            missed.append(f"{sid} `{name}` at {path}:{ln} in `{fname}` → {', '.join(p + ':' + l for p, l in defs)}")
    print(f"| measure | value |\n| --- | --- |")
    print(f"| precision (edges judged right) | {right}/{judged} = {right / max(judged, 1):.3f} |")
    tables = sum(1 for w in wrong if w.split(" — ", 1)[-1].startswith("reason: table"))
    print(f"| precision, table registrations counted as the callbacks they hand over | {right + tables}/{judged} = {(right + tables) / max(judged, 1):.3f} |")
    print(f"| recall (calls of in-tree functions with an edge) | {found}/{calls} = {found / max(calls, 1):.3f} |")
    print(f"| judged edges still in this index: right | {kept[True]}/{kept_of[True]} |")
    print(f"| judged edges still in this index: wrong | {kept[False]}/{kept_of[False]} |")
    if kept[True] + kept[False]:
        print(f"| precision of the sample's edges still in this index | {kept[True]}/{kept[True] + kept[False]} = {kept[True] / (kept[True] + kept[False]):.3f} |")
    print("\nWrong edges:\n")
    for w in wrong:
        print(f"- {w}")
    if gone:
        print("\nJudged edges this index lacks (the same caller, call line and callee definition):\n")
        for g in gone:
            print(f"- {g}")
    print("\nMissed calls:\n")
    for w in missed:
        print(f"- {w}")


if __name__ == "__main__":
    main()
