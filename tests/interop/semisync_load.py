#!/usr/bin/env python3
"""Concurrent autocommit inserts into semi.acked until the server goes away; writes the id of
every insert whose OK arrived (an acknowledged commit) to --out, one per line."""
import argparse
import threading

import pymysql


def worker(port, base, acked, lock):
    try:
        c = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
        cur = c.cursor()
    except pymysql.err.MySQLError:
        return
    i = 0
    while True:
        i += 1
        ident = base + i
        try:
            cur.execute("INSERT INTO semi.acked VALUES (%s, 'x')", (ident,))
        except Exception:  # noqa: BLE001 -- the server was killed: stop
            return
        with lock:
            acked.append(ident)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    acked, lock = [], threading.Lock()
    threads = [
        threading.Thread(target=worker, args=(a.port, (t + 1) * 10_000_000, acked, lock), daemon=True)
        for t in range(a.threads)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open(a.out, "w") as f:
        for ident in acked:
            f.write(f"{ident}\n")
    print(f"{len(acked)} acknowledged inserts")


main()
