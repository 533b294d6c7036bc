#!/usr/bin/env python3
"""Time an ALTER TABLE of a large table and the stall it causes to concurrent DML.

    alter_stall.py --port 3306 [--rows 1000000] [--rate 200] [--alter "ADD COLUMN x INT"]

Fills mig_stall.t (id INT PRIMARY KEY, k INT, c CHAR(60), KEY (k)) with --rows rows, then
runs a light UPDATE-by-primary-key load (--rate statements per second, one connection) and,
after two seconds, the ALTER. Prints the ALTER's duration and the DML latencies (median,
p99, max) before, during and after it: the longest DML latency is the stall.
"""

import argparse
import statistics
import threading
import time

import pymysql


def connect(port):
    return pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                           autocommit=True, read_timeout=3600)


def fill(port, rows):
    c = connect(port)
    with c.cursor() as cur:
        cur.execute("DROP DATABASE IF EXISTS mig_stall")
        cur.execute("CREATE DATABASE mig_stall")
        cur.execute("CREATE TABLE mig_stall.t (id INT PRIMARY KEY, k INT, c CHAR(60), KEY (k))")
        batch = 5000
        for start in range(0, rows, batch):
            values = ",".join(f"({i},{i % 1000},'c{i}')" for i in range(start, min(rows, start + batch)))
            cur.execute(f"INSERT INTO mig_stall.t VALUES {values}")
    c.close()


def load(port, rate, rows, stop, samples):
    c = connect(port)
    period = 1.0 / rate
    i = 0
    with c.cursor() as cur:
        while not stop.is_set():
            t0 = time.monotonic()
            cur.execute(f"UPDATE mig_stall.t SET k = k + 1 WHERE id = {(i * 7919) % rows}")
            t1 = time.monotonic()
            samples.append((t0, t1 - t0))
            i += 1
            time.sleep(max(0.0, period - (t1 - t0)))
    c.close()


def summary(name, lat):
    if not lat:
        return f"{name}: no statements"
    lat = sorted(lat)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    return (f"{name}: n={len(lat)} median={statistics.median(lat) * 1000:.2f} ms "
            f"p99={p99 * 1000:.2f} ms max={lat[-1] * 1000:.1f} ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=3306)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rate", type=int, default=200)
    ap.add_argument("--alter", default="ADD COLUMN x INT")
    a = ap.parse_args()
    t = time.monotonic()
    fill(a.port, a.rows)
    print(f"filled {a.rows} rows in {time.monotonic() - t:.1f} s", flush=True)
    stop, samples = threading.Event(), []
    th = threading.Thread(target=load, args=(a.port, a.rate, a.rows, stop, samples))
    th.start()
    time.sleep(2)
    c = connect(a.port)
    t0 = time.monotonic()
    with c.cursor() as cur:
        cur.execute(f"ALTER TABLE mig_stall.t {a.alter}")
    t1 = time.monotonic()
    time.sleep(2)
    stop.set()
    th.join()
    print(f"ALTER TABLE mig_stall.t {a.alter}: {t1 - t0:.3f} s", flush=True)
    before = [d for (s, d) in samples if s + d < t0]
    during = [d for (s, d) in samples if s + d >= t0 and s <= t1]
    after = [d for (s, d) in samples if s > t1]
    for name, lat in (("DML before", before), ("DML during", during), ("DML after", after)):
        print(summary(name, lat), flush=True)
    with c.cursor() as cur:
        cur.execute("DROP DATABASE mig_stall")
    c.close()


if __name__ == "__main__":
    main()
