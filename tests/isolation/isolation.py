#!/usr/bin/env python3
"""Differential isolation tests: multi-session scenarios run step by step against a server.

Each scenario in scenarios/*.txt drives several sessions (T1, T2, ...), one connection and one
thread each, through a list of steps, once per isolation level it names. The runner records
per step what the session saw: the rows of a SELECT, "ok (affected N)", or "error CODE: text";
a statement that waits for a lock is recorded as "blocked", and later as "released at step K"
with its result once it completes. The transcript of a scenario (all its levels) is compared
with expected/NAME.out, which was recorded by running the same scenario against MariaDB 10.11
(InnoDB). So the expectations are InnoDB's behaviour, and the checker runs against either
server:

    isolation.py --port 3506 --record          # MariaDB: (re)write expected/*.out
    isolation.py --port 4560 --password pw     # Cohort (or MariaDB): compare, exit 1 on a diff
    isolation.py --port 4560 --only lost_update --levels RR

Scenario format:

    # comment
    title: G0 dirty write (Hermitage)
    levels: RU RC RR SER                   (default: all four)
    setup:                                  (run on a separate connection, autocommit)
    create table test (id int primary key, value int)
    insert into test values (1, 10), (2, 20)
    steps:
    T1: begin
    T2: update test set value = 12 where id = 1
    ...

Before the steps each session runs SET SESSION TRANSACTION ISOLATION LEVEL <level> and
SET SESSION innodb_lock_wait_timeout = LOCK_WAIT_TIMEOUT (the scenario may set it again).

Blocking is decided without guessing from time alone: a statement that has not answered
within BLOCK_MS is "blocked" only once information_schema.INNODB_TRX shows its connection in
LOCK WAIT twice, CONFIRM_MS apart (MariaDB refreshes that table at most every 100 ms, so the
runner reads it after the wait; the second look lets a short wait end, such as one on a
deadlock victim that is being rolled back). After every step the runner waits SETTLE_MS for blocked statements to finish; those
that have not must again be in LOCK WAIT, else it keeps waiting (a released statement that is
still running). A statement that neither finishes nor waits for a lock within HANG_S fails the
scenario.
"""

import argparse
import concurrent.futures
import difflib
import os
import queue
import sys
import threading
import time
from decimal import Decimal

import pymysql

HERE = os.path.dirname(os.path.abspath(__file__))
LEVELS = {
    "RU": "READ UNCOMMITTED",
    "RC": "READ COMMITTED",
    "RR": "REPEATABLE READ",
    "SER": "SERIALIZABLE",
}
LEVEL_ORDER = ["RU", "RC", "RR", "SER"]
DB = "isolation_test"
BLOCK_MS = int(os.environ.get("BLOCK_MS", "300"))
SETTLE_MS = int(os.environ.get("SETTLE_MS", "300"))
CONFIRM_MS = int(os.environ.get("CONFIRM_MS", "200"))
HANG_S = float(os.environ.get("HANG_S", "20"))
LOCK_WAIT_TIMEOUT = int(os.environ.get("LOCK_WAIT_TIMEOUT", "30"))


class Scenario:
    def __init__(self, name, text):
        self.name = name
        self.title = name
        self.levels = list(LEVEL_ORDER)
        self.setup = []
        self.steps = []  # (session, sql)
        section = None
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("title:"):
                self.title = line[6:].strip()
            elif line.startswith("levels:"):
                self.levels = line[7:].split()
                for lv in self.levels:
                    if lv not in LEVELS:
                        raise ValueError(f"{name}:{lineno}: unknown level {lv}")
            elif line == "setup:":
                section = "setup"
            elif line == "steps:":
                section = "steps"
            elif section == "setup":
                self.setup.append(line)
            elif section == "steps":
                sess, sep, sql = line.partition(":")
                if not sep or not sess.strip().startswith("T"):
                    raise ValueError(f"{name}:{lineno}: a step is 'Tn: statement'")
                self.steps.append((sess.strip(), sql.strip()))
            else:
                raise ValueError(f"{name}:{lineno}: text outside setup:/steps:")


def fmt_value(v):
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, Decimal):
        return str(v)
    return str(v)


def fmt_result(r):
    kind = r[0]
    if kind == "rows":
        rows = r[1]
        if not rows:
            return ["(no rows)"]
        return [" | ".join(fmt_value(v) for v in row) for row in rows]
    if kind == "ok":
        return [f"ok (affected {r[1]})"]
    if kind == "error":
        return [f"error {r[1]}: {r[2]}"]
    return [repr(r)]


class Session:
    """One connection served by its own thread; statements go in through a queue."""

    def __init__(self, name, args, db):
        self.name = name
        self.conn = connect(args, db)
        with self.conn.cursor() as c:
            c.execute("SELECT CONNECTION_ID()")
            self.thread_id = c.fetchone()[0]
        self.inbox = queue.Queue()
        self.done = queue.Queue()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            sql = self.inbox.get()
            if sql is None:
                return
            try:
                with self.conn.cursor() as c:
                    c.execute(sql)
                    if c.description is not None:
                        res = ("rows", [tuple(r) for r in c.fetchall()])
                    else:
                        res = ("ok", c.rowcount)
            except pymysql.err.MySQLError as e:
                code = e.args[0] if e.args else 0
                msg = e.args[1] if len(e.args) > 1 else str(e)
                res = ("error", code, msg)
            except Exception as e:  # connection lost and the like
                res = ("error", -1, f"{type(e).__name__}: {e}")
            self.done.put(res)

    def close(self):
        try:
            self.conn.close()
        except Exception:
            pass
        self.inbox.put(None)


def connect(args, db=DB):
    return pymysql.connect(
        host=args.host,
        port=args.port,
        user=args.user,
        password=args.password,
        database=db,
        autocommit=True,
        connect_timeout=10,
        read_timeout=HANG_S + LOCK_WAIT_TIMEOUT + 30,
    )


class Monitor:
    """A separate connection that reads INNODB_TRX."""

    def __init__(self, args, db):
        self.conn = connect(args, db)

    def lock_waiting(self):
        with self.conn.cursor() as c:
            c.execute(
                "SELECT trx_mysql_thread_id FROM information_schema.INNODB_TRX "
                "WHERE trx_state = 'LOCK WAIT'"
            )
            return {r[0] for r in c.fetchall()}


def run_level(args, sc, level, db=DB):
    admin = connect(args, db=None)
    with admin.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {db}")
        c.execute(f"CREATE DATABASE {db}")
        c.execute(f"USE {db}")
        for sql in sc.setup:
            c.execute(sql)
    admin.close()
    monitor = Monitor(args, db)
    names = []
    for s, _ in sc.steps:
        if s not in names:
            names.append(s)
    sessions = {}
    out = [f"== {LEVELS[level]}"]
    try:
        for n in names:
            sess = Session(n, args, db)
            sessions[n] = sess
            try:
                with sess.conn.cursor() as c:
                    c.execute(f"SET SESSION TRANSACTION ISOLATION LEVEL {LEVELS[level]}")
                    c.execute(f"SET SESSION innodb_lock_wait_timeout = {LOCK_WAIT_TIMEOUT}")
            except pymysql.err.MySQLError as e:
                out.append(f"    SESSION SETUP ERROR {n}: {e}")
                return out
        outstanding = {}  # session name -> step number of its blocked statement
        for i, (s, sql) in enumerate(sc.steps, 1):
            out.append(f"[{i}] {s}: {sql}")
            sess = sessions[s]
            if s in outstanding:
                out.append(f"    SCENARIO ERROR: {s} is still blocked in step {outstanding[s]}")
                break
            sess.inbox.put(sql)
            res = wait_for(sess, monitor, BLOCK_MS)
            if res is None:
                out.append("    blocked")
                outstanding[s] = i
            else:
                out.extend("    " + line for line in fmt_result(res))
            released = settle(sessions, outstanding, monitor, skip=s if res is None else None)
            # Statements released by the same step are listed by the step that issued them
            # (the order they finished in is a race between their threads).
            released.sort(key=lambda x: x[1])
            for name, step, r in released:
                lines = fmt_result(r)
                out.append(f"    -> {name} (step {step}) released: {lines[0]}")
                out.extend("       " + line for line in lines[1:])
        for name, step in sorted(outstanding.items()):
            out.append(f"    {name} (step {step}) still blocked at the end")
    finally:
        for sess in sessions.values():
            sess.close()
        monitor.conn.close()
    return out


def wait_for(sess, monitor, block_ms):
    """The statement's result, or None once it is waiting for a lock."""
    deadline = time.monotonic() + HANG_S
    timeout = block_ms / 1000.0
    while True:
        try:
            return sess.done.get(timeout=timeout)
        except queue.Empty:
            pass
        if sess.thread_id in monitor.lock_waiting():
            # Seen waiting: make sure it is not a short wait about to end (a deadlock victim
            # being rolled back), then look once more.
            try:
                return sess.done.get(timeout=CONFIRM_MS / 1000.0)
            except queue.Empty:
                pass
            if sess.thread_id in monitor.lock_waiting():
                try:
                    return sess.done.get_nowait()
                except queue.Empty:
                    return None
        if time.monotonic() > deadline:
            return ("error", -2, f"neither finished nor waiting for a lock in {HANG_S} s")
        timeout = 0.05


def settle(sessions, outstanding, monitor, skip):
    """Statements blocked in earlier steps that finished after this step, in session order."""
    released = []
    if not outstanding:
        return released
    time.sleep(SETTLE_MS / 1000.0)
    deadline = time.monotonic() + HANG_S
    while True:
        pending = []
        for name, step in sorted(outstanding.items()):
            try:
                r = sessions[name].done.get_nowait()
                released.append((name, step, r))
            except queue.Empty:
                pending.append(name)
        for name, _, _ in released:
            outstanding.pop(name, None)
        if not pending:
            return released
        waiting = monitor.lock_waiting()
        if all(sessions[n].thread_id in waiting for n in pending):
            # Still waiting; a result may have raced in meanwhile.
            for name in pending:
                try:
                    r = sessions[name].done.get_nowait()
                    released.append((name, outstanding.pop(name), r))
                except queue.Empty:
                    pass
            return released
        if time.monotonic() > deadline:
            for name in pending:
                released.append((name, outstanding.pop(name), ("error", -2, "hung")))
            return released
        time.sleep(0.05)


def load(only):
    d = os.path.join(HERE, "scenarios")
    out = []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".txt"):
            continue
        name = f[:-4]
        if only and name not in only:
            continue
        with open(os.path.join(d, f)) as fh:
            out.append(Scenario(name, fh.read()))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default=os.environ.get("COHORT_HOST", "127.0.0.1"))
    ap.add_argument("--port", type=int, default=int(os.environ.get("COHORT_PORT", "3306")))
    ap.add_argument("--user", default=os.environ.get("COHORT_USER", "root"))
    ap.add_argument("--password", default=os.environ.get("COHORT_PASSWORD", ""))
    ap.add_argument("--record", action="store_true", help="write expected/*.out")
    ap.add_argument("--only", nargs="*", help="scenario names")
    ap.add_argument("--levels", nargs="*", help="subset of RU RC RR SER")
    ap.add_argument("--show", action="store_true", help="print every transcript")
    ap.add_argument("--timings", action="store_true", help="each scenario's time, on stderr")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("ISOLATION_JOBS", "1")),
                    help="scenarios run at once, each in its own database")
    args = ap.parse_args()
    failures = 0
    scenarios = load(args.only)

    # Scenarios run --jobs at a time, each in its own database (the sessions of different
    # scenarios never touch the same rows, and blocking is decided per connection), and are
    # reported in name order.
    dbs = queue.Queue()
    for k in range(max(1, args.jobs)):
        dbs.put(DB if k == 0 else f"{DB}_{k}")

    def transcript(sc):
        db = dbs.get()
        t0 = time.monotonic()
        try:
            levels = [lv for lv in sc.levels if not args.levels or lv in args.levels]
            lines = [f"# {sc.title}"]
            for lv in levels:
                lines.extend(run_level(args, sc, lv, db))
            return levels, "\n".join(lines) + "\n"
        finally:
            dbs.put(db)
            if args.timings:
                print(f"  {sc.name}: {time.monotonic() - t0:.1f} s", file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(transcript, sc) for sc in scenarios]
        for sc, fut in zip(scenarios, futures):
            levels, text = fut.result()
            failures += report(args, sc, levels, text)
    print(f"{len(scenarios) - failures if not args.record else len(scenarios)} passed, "
          f"{failures} failed")
    sys.exit(1 if failures else 0)


def report(args, sc, levels, text):
    """Record or compare one scenario's transcript; 1 on a failure."""
    path = os.path.join(HERE, "expected", sc.name + ".out")
    if args.show:
        print(text)
    if args.record:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
        print(f"RECORDED: {sc.name}")
        return 0
    try:
        with open(path) as fh:
            expected = fh.read()
    except FileNotFoundError:
        print(f"FAIL: {sc.name}: no expected/{sc.name}.out (record it against MariaDB)")
        return 1
    if args.levels:
        expected = select_levels(expected, [LEVELS[lv] for lv in levels])
    if text == expected:
        print(f"PASS: isolation {sc.name}")
        return 0
    print(f"FAIL: isolation {sc.name}: differs from expected/{sc.name}.out")
    diff = difflib.unified_diff(
        expected.splitlines(), text.splitlines(), "expected", "got", lineterm=""
    )
    for line in diff:
        print("    " + line)
    return 1


def select_levels(text, names):
    """The title and the sections of the named levels."""
    out = []
    keep = True
    for line in text.splitlines():
        if line.startswith("== "):
            keep = line[3:] in names
        if keep or line.startswith("# "):
            out.append(line)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
