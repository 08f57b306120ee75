#!/usr/bin/env python3
"""cypher_dump.py: the whole answer of one read-only Cypher query, paged.

`gitnexus cypher` bounds every answer (rows and tokens: its callers include
agents), so a benchmark that needs all the rows pages through them with
SKIP/LIMIT and merges the pages into one `{"columns", "rows"}` object.

    cypher_dump.py GITNEXUS REPO "MATCH ... RETURN ... ORDER BY ..." > out.json

The query must order its rows totally (ORDER BY every returned column) so
that the pages neither overlap nor skip. A page the tool still cut (a row
too wide for the token budget) is an error, never a silent short dump.
"""
import json
import subprocess
import sys

PAGE = 2000


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: cypher_dump.py GITNEXUS REPO QUERY")
    exe, repo, query = sys.argv[1:]
    columns, rows, skip = None, [], 0
    while True:
        q = f"{query} SKIP {skip} LIMIT {PAGE}"
        out = subprocess.run([exe, "cypher", "--json", "-r", repo, "-n", str(PAGE), "--max-tokens", "100000", q],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"cypher_dump: {exe} cypher failed ({out.returncode}): {out.stderr.strip()}")
        page = json.loads(out.stdout)
        if page.get("truncated"):
            sys.exit(f"cypher_dump: page at {skip} was cut ({page.get('budget') or page.get('notices')}): lower PAGE")
        columns = columns or page["columns"]
        rows.extend(page["rows"])
        if len(page["rows"]) < PAGE:
            break
        skip += PAGE
    json.dump({"columns": columns, "rows": rows}, sys.stdout)


if __name__ == "__main__":
    main()
