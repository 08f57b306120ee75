#!/usr/bin/env python3
"""cypher_dump.py: the whole answer of one read-only Cypher query, paged.

`gitnexus cypher` bounds every answer (rows and tokens: its callers include
agents), so a benchmark that needs all the rows pages through them with
SKIP/LIMIT and merges the pages into one `{"columns", "rows"}` object.

    cypher_dump.py GITNEXUS REPO "MATCH ... RETURN ... ORDER BY ..." > out.json

The query must order its rows totally (ORDER BY every returned column) so
that the pages neither overlap nor skip. A page the token budget cut is
asked again with half the rows; a single row over the budget is an error,
never a silent short dump.
"""
import json
import subprocess
import sys

PAGE = 2000


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: cypher_dump.py GITNEXUS REPO QUERY")
    exe, repo, query = sys.argv[1:]
    columns, rows, skip, size = None, [], 0, PAGE
    while True:
        q = f"{query} SKIP {skip} LIMIT {size}"
        out = subprocess.run([exe, "cypher", "--json", "-r", repo, "-n", str(size), "--max-tokens", "100000", q],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"cypher_dump: {exe} cypher failed ({out.returncode}): {out.stderr.strip()}")
        page = json.loads(out.stdout)
        if page.get("truncated"):  # wide rows: the token budget cut the page; ask for fewer
            if size == 1:
                sys.exit(f"cypher_dump: one row at {skip} is over the token budget ({page.get('budget')})")
            size = max(1, size // 2)
            continue
        columns = columns or page["columns"]
        rows.extend(page["rows"])
        if len(page["rows"]) < size:
            break
        skip += size
    json.dump({"columns": columns, "rows": rows}, sys.stdout)


if __name__ == "__main__":
    main()
