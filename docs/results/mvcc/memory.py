#!/usr/bin/env python3
"""Memory of multi-version rows, for docs/results/mvcc/README.md.

    memory.py COHORT_BIN [ROWS_PER_TABLE] [LOAD_SECONDS]

1. Memory per row: a fresh `cohort serve` (durable defaults), RSS once it answers, then
   sysbench prepares 4 tables x ROWS_PER_TABLE rows (oltp schema: id, k, c CHAR(120),
   pad CHAR(60), secondary index on k); (RSS after - RSS before) / rows.
2. A long-running REPEATABLE READ snapshot: one connection runs START TRANSACTION WITH
   CONSISTENT SNAPSHOT and a read, and stays open while sysbench oltp_update_non_index
   (16 threads) runs for LOAD_SECONDS; RSS and Innodb_history_list_length are sampled each
   second. Then the snapshot commits, and the samples go on until the history is purged:
   the purge rate is versions purged per second (Innodb_purged_versions) over that time.
RSS is VmRSS from /proc/PID/status. A binary without REPEATABLE READ (main before issue 19)
gives only part 1.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pymysql

BIN = sys.argv[1]
ROWS = int(sys.argv[2]) if len(sys.argv) > 2 else 250000
LOAD_S = int(sys.argv[3]) if len(sys.argv) > 3 else 30
PORT = 3790
SB = ["--mysql-host=127.0.0.1", f"--mysql-port={PORT}", "--mysql-user=sb", "--mysql-password=sb",
      "--mysql-db=sbtest", "--tables=4", f"--table-size={ROWS}"]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def status(conn):
    with conn.cursor() as c:
        c.execute("SHOW GLOBAL STATUS WHERE Variable_name IN "
                  "('Innodb_history_list_length', 'Innodb_purged_versions')")
        return {k: int(v) for k, v in c.fetchall()}


def main():
    d = tempfile.mkdtemp(prefix="mvcc-mem-", dir=os.environ.get("WORK", "/tmp"))
    srv = subprocess.Popen([BIN, "serve", "--datadir", d, "--port", str(PORT),
                            "--max-connections", "10000"],
                           stdout=subprocess.DEVNULL, stderr=open(d + ".log", "w"))
    try:
        for _ in range(200):
            try:
                root = pymysql.connect(host="127.0.0.1", port=PORT, user="root", autocommit=True)
                break
            except pymysql.err.MySQLError:
                time.sleep(0.1)
        with root.cursor() as c:
            c.execute("create database sbtest")
            c.execute("create user 'sb'@'%' identified by 'sb'")
            c.execute("grant all on *.* to 'sb'@'%'")
        time.sleep(1)
        r0 = rss_kib(srv.pid)
        subprocess.run(["sysbench", "oltp_update_non_index", *SB, "--threads=4", "prepare"],
                       check=True, stdout=subprocess.DEVNULL)
        time.sleep(2)
        r1 = rss_kib(srv.pid)
        rows = 4 * ROWS
        print(f"rows={rows} rss_empty_kib={r0} rss_loaded_kib={r1} "
              f"bytes_per_row={(r1 - r0) * 1024 / rows:.0f}", flush=True)

        snap = pymysql.connect(host="127.0.0.1", port=PORT, user="root", database="sbtest")
        with snap.cursor() as c:
            try:
                c.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            except pymysql.err.MySQLError as e:
                print(f"no REPEATABLE READ snapshot in this build ({e.args[0]}): stopping")
                return
            c.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            c.execute("SELECT SUM(k) FROM sbtest1")
            first = c.fetchone()[0]
        load = subprocess.Popen(["sysbench", "oltp_update_non_index", *SB, "--threads=16",
                                 f"--time={LOAD_S}", "--report-interval=0", "run"],
                                stdout=subprocess.PIPE, text=True)
        t0 = time.monotonic()
        print("phase t_s rss_kib history purged", flush=True)
        while load.poll() is None:
            s = status(root)
            print(f"load {time.monotonic() - t0:.0f} {rss_kib(srv.pid)} "
                  f"{s.get('Innodb_history_list_length', '')} {s.get('Innodb_purged_versions', '')}",
                  flush=True)
            time.sleep(1)
        out = load.stdout.read()
        txn = [line for line in out.splitlines() if "transactions:" in line]
        print("sysbench:", txn[0].strip() if txn else "?", flush=True)
        with snap.cursor() as c:
            c.execute("SELECT SUM(k) FROM sbtest1")
            again = c.fetchone()[0]
        print(f"snapshot sum before/after the load: {first} / {again} "
              f"({'frozen' if first == again else 'MOVED'})", flush=True)
        peak = rss_kib(srv.pid)
        s0 = status(root)
        snap.commit()
        t1 = time.monotonic()
        last = s0
        while time.monotonic() - t1 < 120:
            time.sleep(0.5)
            last = status(root)
            print(f"purge {time.monotonic() - t1:.1f} {rss_kib(srv.pid)} "
                  f"{last.get('Innodb_history_list_length', '')} "
                  f"{last.get('Innodb_purged_versions', '')}", flush=True)
            if last.get("Innodb_history_list_length", 0) == 0:
                break
        dt = time.monotonic() - t1
        if "Innodb_purged_versions" in s0:
            purged = last["Innodb_purged_versions"] - s0["Innodb_purged_versions"]
            print(f"held under the snapshot: peak rss {peak} kib (+{peak - r1} kib over loaded), "
                  f"history {s0['Innodb_history_list_length']} versions; purged {purged} versions "
                  f"in {dt:.1f} s = {purged / dt:.0f} versions/s; rss after purge "
                  f"{rss_kib(srv.pid)} kib", flush=True)
        else:
            print(f"peak rss {peak} kib (+{peak - r1} kib over loaded)", flush=True)
    finally:
        srv.terminate()
        srv.wait()
        shutil.rmtree(d, ignore_errors=True)
        try:
            os.unlink(d + ".log")
        except OSError:
            pass


if __name__ == "__main__":
    main()
