#!/usr/bin/env python3
"""Before/after table for docs/reliability.md from two runner results (run.py's results.json).

    reliability/table.py BEFORE/results.json AFTER/results.json

Per family: checks tried, failing cases before, how many of those pass after ("fixed"), and failing
cases after (with the kinds). A case is a media file, a recipe or a scenario; it fails when any
of its checks fails. Python 3 standard library only.
"""
import json
import sys


def failing(fam):
    return {}.fromkeys(x["case"] for x in fam["failures"])


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 64
    before, after = (json.load(open(p)) for p in sys.argv[1:])
    print(f"| family | cases | checks | failing before (`{before['commit']}`) | fixed | failing after (`{after['commit']}`) | kinds after |")
    print("|---|---:|---:|---:|---:|---:|---|")
    tot = [0, 0, 0, 0, 0]
    for name in sorted(set(before["families"]) | set(after["families"])):
        b = before["families"].get(name, {"failures": [], "tried": 0, "cases": 0})
        a = after["families"].get(name, {"failures": [], "tried": 0, "cases": 0})
        fb, fa = failing(b), failing(a)
        fixed = len([c for c in fb if c not in fa])
        kinds = {}
        for x in a["failures"]:
            kinds[x["kind"]] = kinds.get(x["kind"], 0) + 1
        print(f"| {name} | {a['cases'] or b['cases']} | {a['tried']} | {len(fb)} | {fixed} | {len(fa)} | "
              f"{', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))} |")
        for i, v in enumerate([a["cases"] or b["cases"], a["tried"], len(fb), fixed, len(fa)]):
            tot[i] += v
    print(f"| **all** | {tot[0]} | {tot[1]} | {tot[2]} | {tot[3]} | {tot[4]} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
