#!/usr/bin/env python3
"""Count `perf script` call stacks by lock site: the innermost cohort_server frame that is not
the mutex itself. Frames perf left unresolved ("[unknown] (BINARY)", as it does for some
release builds) are resolved with addr2line (perf prints file offsets: the executable
segment's vaddr - offset is added back).
    perf script -i X.data | yield-sites.py"""
import collections, re, subprocess, sys

FRAME = re.compile(r"^\s+([0-9a-f]+) (.*?) \((.*)\)$")
SKIP = re.compile(r"wait::(Parking)?Mutex|lock_api|parking_lot|std::sys::sync")

def text_bias(binary):
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and f[-2] == "E":  # flags "R E": the executable segment
            return int(f[2], 16) - int(f[1], 16)
    return 0

samples, cur = [], None
for line in sys.stdin:
    if line and not line[0].isspace():
        if line.strip():
            cur = []
            samples.append(cur)
        continue
    m = FRAME.match(line.rstrip("\n"))
    if m and cur is not None:
        cur.append((int(m.group(1), 16), m.group(2), m.group(3)))

unknown = collections.defaultdict(set)
for s in samples:
    for addr, sym, dso in s:
        if sym.startswith("[unknown]") and dso.startswith("/"):
            unknown[dso].add(addr)
names = {}
for dso, addrs in unknown.items():
    bias, addrs = text_bias(dso), sorted(addrs)
    out = subprocess.run(["addr2line", "-f", "-C", "-i", "-e", dso],
                         input="".join("%x\n@@\n" % (a + bias) for a in addrs),
                         capture_output=True, text=True).stdout
    # addr2line prints "??" pairs for the "@@" separators: split on them.
    chunks = out.split("??\n??:0\n")
    for a, chunk in zip(addrs, chunks):
        lines = chunk.strip("\n").split("\n")
        names[(dso, a)] = lines[0::2]

sites = collections.Counter()
for s in samples:
    site = "(no cohort frame)"
    for addr, sym, dso in s:
        chain = names.get((dso, addr), [re.sub(r"\+0x[0-9a-f]+$", "", sym)])
        hit = next((f for f in chain if "cohort_server::" in f and not SKIP.search(f)), None)
        if hit:
            site = hit
            break
    sites[site] += 1
total = sum(sites.values())
for site, n in sites.most_common():
    print("%6d %5.1f%%  %s" % (n, 100.0 * n / total, site))
print("%6d total" % total)
