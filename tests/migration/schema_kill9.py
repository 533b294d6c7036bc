#!/usr/bin/env python3
"""Schema-migration crash test (issue 21, must-show): ALTERs under a light write load, kill -9.

    schema_kill9.py --bin target/release/cohort [--mode one-log|classic|redo-only]
                    [--rounds 12] [--port 3517] [--rows 20000] [--seed N]

A Cohort server gets table mig.t (id, v, pad) with --rows rows. A cycle of migrations
(ADD COLUMN, MODIFY, ADD INDEX, RENAME COLUMN, DROP INDEX, CHANGE, MODIFY back, DROP COLUMN)
leads back to the first schema; its SHOW CREATE TABLE after each step is recorded once with no
crash. Then each round: start the server, run writers (autocommit INSERTs, each id recorded
once the server acknowledged it) and the next ALTERs of the cycle, kill -9 the server at a
random moment, restart it, and check:

  * the schema is the one after the last acknowledged ALTER, or after the ALTER that was in
    flight (never anything between);
  * every acknowledged row is there;
  * (binlog modes) every binlog file decodes with mariadb-binlog.

Prints "PASS: ..." / "FAIL: ..." lines and exits non-zero on any failure.
"""

import argparse
import glob
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pymysql

MIGRATIONS = [
    "ALTER TABLE mig.t ADD COLUMN c1 INT NOT NULL DEFAULT 1 AFTER id",
    "ALTER TABLE mig.t MODIFY v BIGINT",
    "ALTER TABLE mig.t ADD INDEX iv (v)",
    "ALTER TABLE mig.t RENAME COLUMN pad TO pad2",
    "ALTER TABLE mig.t DROP INDEX iv, ADD UNIQUE KEY uid (id, v)",
    "ALTER TABLE mig.t CHANGE pad2 pad VARCHAR(30) DEFAULT 'p'",
    "ALTER TABLE mig.t MODIFY v INT, DROP KEY uid",
    "ALTER TABLE mig.t DROP COLUMN c1, MODIFY pad VARCHAR(20) DEFAULT 'p'",
]

FAILED = []


def check(name, ok, detail=""):
    if ok:
        print(f"PASS: {name}", flush=True)
    else:
        FAILED.append(name)
        print(f"FAIL: {name}: {detail}", flush=True)


class Server:
    def __init__(self, binary, datadir, port, mode):
        self.binary, self.datadir, self.port, self.mode = binary, datadir, port, mode
        self.proc = None

    def start(self):
        args = [self.binary, "serve", "--port", str(self.port), "--datadir", self.datadir]
        if self.mode == "classic":
            args += ["--commit-mode", "classic"]
        elif self.mode == "redo-only":
            args += ["--log-bin", "OFF"]
        log = open(os.path.join(self.datadir, "..", f"server-{self.port}.log"), "ab")
        self.proc = subprocess.Popen(args, stdout=log, stderr=log)
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                connect(self.port).close()
                return
            except pymysql.err.OperationalError:
                if self.proc.poll() is not None:
                    with open(os.path.join(self.datadir, "..", f"server-{self.port}.log"), "rb") as f:
                        tail = f.read()[-2000:].decode(errors="replace")
                    raise RuntimeError(f"server exited with {self.proc.returncode}:\n{tail}")
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


def connect(port):
    return pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                           autocommit=True, connect_timeout=5, read_timeout=600)


def show_create(c):
    with c.cursor() as cur:
        cur.execute("SHOW CREATE TABLE mig.t")
        return cur.fetchone()[1]


def setup(port, rows):
    c = connect(port)
    with c.cursor() as cur:
        cur.execute("CREATE DATABASE mig")
        cur.execute("CREATE TABLE mig.t (id INT PRIMARY KEY, v INT, pad VARCHAR(20) DEFAULT 'p')")
        for start in range(0, rows, 1000):
            values = ",".join(f"({i}, {i % 97}, 'x{i}')" for i in range(start, min(rows, start + 1000)))
            cur.execute(f"INSERT INTO mig.t (id, v, pad) VALUES {values}")
    c.close()


def record_states(port):
    """SHOW CREATE TABLE before and after each migration (state i = after i migrations)."""
    c = connect(port)
    states = [show_create(c)]
    with c.cursor() as cur:
        for sql in MIGRATIONS:
            cur.execute(sql)
            states.append(show_create(c))
    c.close()
    if states[-1] != states[0]:
        raise RuntimeError("the migration cycle does not return to its first schema")
    return states[:-1]


def writer(port, next_id, acked, stop):
    try:
        c = connect(port)
        with c.cursor() as cur:
            while not stop.is_set():
                with next_id[1]:
                    i = next_id[0]
                    next_id[0] += 1
                cur.execute(f"INSERT INTO mig.t (id, v) VALUES ({i}, {i % 97})")
                acked.add(i)
                time.sleep(0.002)
    except Exception:
        pass  # the server was killed


def migrator(port, done, inflight, stop):
    try:
        c = connect(port)
        with c.cursor() as cur:
            while not stop.is_set():
                k = done[0]
                inflight[0] = k
                cur.execute(MIGRATIONS[k % len(MIGRATIONS)])
                done[0] = k + 1
                inflight[0] = None
    except Exception:
        pass


def decode_binlogs(datadir):
    files = sorted(f for f in glob.glob(os.path.join(datadir, "**", "*bin*.0*"), recursive=True))
    if not files:
        return False, "no binlog file found"
    for f in files:
        r = subprocess.run(["mariadb-binlog", "-vv", f], capture_output=True)
        if r.returncode != 0:
            return False, f"{f}: {r.stderr.decode()[:300]}"
    return True, f"{len(files)} files"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--mode", default="one-log", choices=["one-log", "classic", "redo-only"])
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--port", type=int, default=3517)
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    print(f"seed {a.seed}, mode {a.mode}", flush=True)
    work = tempfile.mkdtemp(prefix="cohort-mig-")
    datadir = os.path.join(work, "data")
    os.makedirs(datadir)
    srv = Server(a.bin, datadir, a.port, a.mode)
    try:
        srv.start()
        setup(a.port, a.rows)
        states = record_states(a.port)
        acked = set()
        next_id = [10_000_000, threading.Lock()]
        done = [0]
        for rnd in range(a.rounds):
            stop = threading.Event()
            inflight = [None]
            threads = [threading.Thread(target=writer, args=(a.port, next_id, acked, stop))
                       for _ in range(2)]
            threads.append(threading.Thread(target=migrator, args=(a.port, done, inflight, stop)))
            for t in threads:
                t.start()
            time.sleep(rng.uniform(0.05, 1.5))
            srv.kill9()
            stop.set()
            for t in threads:
                t.join()
            # Read after the threads ended: every acknowledgement that arrived is counted.
            before_kill = done[0]
            flying = inflight[0]
            srv.start()
            c = connect(a.port)
            schema = show_create(c)
            allowed = {states[before_kill % len(states)]}
            if flying is not None:
                allowed.add(states[(flying + 1) % len(states)])
            ok = schema in allowed
            check(f"round {rnd}: schema is before or after the ALTER in flight "
                  f"({before_kill} acknowledged)", ok, schema)
            if ok and flying is not None and schema == states[(flying + 1) % len(states)] \
                    and flying + 1 != before_kill:
                done[0] = flying + 1  # the in-flight ALTER survived
            with c.cursor() as cur:
                cur.execute("SELECT id FROM mig.t WHERE id >= 10000000")
                present = {r[0] for r in cur.fetchall()}
                cur.execute("SELECT COUNT(*) FROM mig.t WHERE id < 10000000")
                seeded = cur.fetchone()[0]
            missing = sorted(acked - present)
            check(f"round {rnd}: no acknowledged row lost ({len(acked)} acknowledged)",
                  not missing and seeded == a.rows, f"missing {missing[:10]}, seeded {seeded}")
            acked |= present
            c.close()
            if a.mode != "redo-only":
                ok, detail = decode_binlogs(datadir)
                check(f"round {rnd}: binlog decodes", ok, detail)
    finally:
        srv.stop()
        if FAILED and os.environ.get("KEEP_FAILED"):
            print(f"kept {work} (KEEP_FAILED)", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{'FAILED' if FAILED else 'OK'}: {len(FAILED)} failures", flush=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
