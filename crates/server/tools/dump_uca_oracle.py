#!/usr/bin/env python3
"""UCA 4.0.0 primary weights of every BMP code point, as MariaDB 10.11 reports them for
utf8mb4_unicode_ci (WEIGHT_STRING), in allkeys.txt's line format, for gen_uca.py.

Unicode's allkeys-4.0.0.txt could not be reached from where Cohort is built, so the DUCET 4.0.0
primary weights were listed through the oracle instead (data, not code: the weights are
Unicode's). Code points whose weights are UCA's implicit ones are left out, as gen_uca.py
computes those.

    python3 crates/server/tools/dump_uca_oracle.py PORT > allkeys-4.0.0-oracle.txt
    python3 crates/server/tools/gen_uca.py allkeys-4.0.0-oracle.txt 400 \
        crates/server/src/types/collation_uca400_table.rs
"""
import sys

import pymysql


def implicit(cp):
    base = 0xFB40 if 0x4E00 <= cp <= 0x9FA5 else 0xFB80 if 0x3400 <= cp <= 0x4DB5 else 0xFBC0
    return ["%04X" % (base + (cp >> 15)), "%04X" % ((cp & 0x7FFF) | 0x8000)]


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 3306
    cur = pymysql.connect(host="127.0.0.1", port=port, user="root").cursor()
    cps = [cp for cp in range(0x10000) if not (0xD800 <= cp <= 0xDFFF)]
    print("@version 4.0.0")
    for i in range(0, len(cps), 500):
        chunk = cps[i:i + 500]
        cols = ",".join(
            "HEX(WEIGHT_STRING(CONVERT(_utf32 0x%08X USING utf8mb4) COLLATE utf8mb4_unicode_ci))" % cp
            for cp in chunk)
        cur.execute("SELECT " + cols)
        for cp, h in zip(chunk, cur.fetchone()):
            ws = [h[k:k + 4] for k in range(0, len(h), 4)]
            if ws == implicit(cp):
                continue
            ces = "".join("[.%s.0020.0002]" % w for w in ws) or "[.0000.0000.0000]"
            print("%04X ; %s" % (cp, ces))


if __name__ == "__main__":
    main()
