#!/usr/bin/env python3
"""Self and inclusive instructions per function of a callgrind dump (inlined code counted in
the function it was inlined into), divided by a transaction count.

    cg-functions.py DUMP TXNS [TOP]          # one dump
    cg-functions.py A.cg TXNS_A B.cg TXNS_B [TOP]   # two dumps side by side, by difference
"""
import re
import sys
from collections import defaultdict


def load(path):
    names = {}
    self_cost = defaultdict(int)
    incl = defaultdict(int)
    fn = None
    cfn = None
    calls_pending = False
    total = 0

    def name_of(tok):
        m = re.match(r"\((\d+)\)(?: (.*))?", tok)
        if not m:
            return tok
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), tok)

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("fn="):
                fn = name_of(line[3:])
                continue
            if line.startswith("cfn="):
                cfn = name_of(line[4:])
                continue
            if line.startswith("calls="):
                calls_pending = True
                continue
            if line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
                continue
            if line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                if len(parts) < 2:
                    continue
                cost = int(parts[1])
                if calls_pending:
                    if cfn != fn:
                        incl[fn] += cost
                    calls_pending = False
                else:
                    self_cost[fn] += cost
                    incl[fn] += cost
    return self_cost, incl, total


def short(n):
    n = re.sub(r"<[^<>]*>", "<>", n)
    n = re.sub(r"<[^<>]*>", "<>", n)
    return n[:110]


def main():
    a = sys.argv[1:]
    if len(a) in (2, 3):
        s, i, t = load(a[0])
        n = float(a[1])
        top = int(a[2]) if len(a) == 3 else 40
        print(f"total {t / n:.0f} instr/txn")
        print("self/txn  incl/txn  function")
        for f, c in sorted(s.items(), key=lambda x: -x[1])[:top]:
            print(f"{c / n:8.0f} {i[f] / n:9.0f}  {short(f)}")
        print("-- inclusive")
        for f, c in sorted(i.items(), key=lambda x: -x[1])[:top]:
            print(f"{s[f] / n:8.0f} {c / n:9.0f}  {short(f)}")
    else:
        s1, i1, t1 = load(a[0])
        n1 = float(a[1])
        s2, i2, t2 = load(a[2])
        n2 = float(a[3])
        top = int(a[4]) if len(a) == 5 else 40
        print(f"total {t1 / n1:.0f} -> {t2 / n2:.0f} instr/txn")
        keys = set(s1) | set(s2)
        d = {k: s2.get(k, 0) / n2 - s1.get(k, 0) / n1 for k in keys}
        print("self A/txn  self B/txn   delta  incl A  incl B  function")
        for k in sorted(keys, key=lambda k: -abs(d[k]))[:top]:
            print(f"{s1.get(k, 0) / n1:9.0f} {s2.get(k, 0) / n2:10.0f} {d[k]:7.0f} {i1.get(k, 0) / n1:7.0f} {i2.get(k, 0) / n2:7.0f}  {short(k)}")


main()
