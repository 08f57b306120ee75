#!/usr/bin/env python3
"""flowsample.py: a random sample of an index's flows, written out for judging.

    flowsample.py GITNEXUS REPO N SEED > sample.md

Lists N processes drawn at random (Python's random.Random(SEED) over the
process ids, sorted) with each step's name, kind, file and line, and an
empty judgement line per flow. The processes issue judges such samples by
reading the source: each step after the first is a call the previous step
really makes (step precision), and the flow as a whole is scored 0–2 for
what it tells a newcomer (meaningfulness; the rubric is in the header).
"""
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

RUBRIC = """Judge each flow by reading the source at the listed lines.

- Steps: for each arrow, is it a call the earlier step really makes (directly, or inside a
  func/def it returns when the flow is labelled "(returned func)")? Count wrong arrows.
- Meaningfulness, 0–2: 2 = a behaviour a newcomer benefits from seeing (a real entry point
  reaching the code that does the work); 1 = real but thin (set-up, a trivial helper chain, or cut
  before the interesting part); 0 = tells nothing (utility chains, wrong steps, noise).
"""


def dump(exe, repo, query):
    out = subprocess.run([sys.executable, os.path.join(HERE, "cypher_dump.py"), exe, repo, query],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["rows"]


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: flowsample.py GITNEXUS REPO N SEED")
    exe, repo, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    procs = dump(exe, repo, "MATCH (p:Process) RETURN p.id, p.label, p.description ORDER BY p.id")
    steps = dump(exe, repo, "MATCH (s)-[r:STEP_IN_PROCESS]->(p:Process) "
                            "RETURN p.id, r.step, s.name, label(s), s.filePath, s.startLine ORDER BY p.id, r.step")
    by = {}
    for pid, step, name, kind, path, line in steps:
        by.setdefault(pid, []).append((step, name, kind, path, line))
    pick = random.Random(seed).sample(procs, min(n, len(procs)))
    print(f"# Flow sample: {os.path.basename(os.path.abspath(repo))}, {len(pick)} of {len(procs)} flows, seed {seed}\n")
    print(RUBRIC)
    for i, (pid, label, desc) in enumerate(pick, 1):
        print(f"## {i}. {label}  ({pid})\n")
        if desc:
            print(f"_{desc}_\n")
        for step, name, kind, path, line in sorted(by.get(pid, [])):
            print(f"{step}. {kind} `{name}` — {path}:{line}")
        print("\nwrong steps: ?  meaningfulness: ?  note: \n")


if __name__ == "__main__":
    main()
