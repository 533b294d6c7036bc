#!/usr/bin/env python3
"""Record a golden script's expected output from MariaDB (the oracle).

    mariadb_golden.py SOURCE.sql OUT.test [--port 3306] [--meta]

SOURCE.sql holds the statements of a golden script (see golden.rs): `#` comment lines and
blank lines are kept; a statement may span lines and ends at a line ending in `;`; a `meta `
prefix also records the result's column types, a `values ` prefix leaves out the warning count. Each statement runs on a fresh database of a
MariaDB server on 127.0.0.1 (user root, no password), and its outcome is written in the
golden format, so `cargo test -p cohort-server sql::golden` then checks Cohort against what
MariaDB answered. Regenerate after editing SOURCE.sql; never edit OUT.test by hand.
"""

import argparse
import sys

import pymysql
import pymysql.err

# Capture the SQLSTATE of error packets (PyMySQL keeps only code and message).
_last_sqlstate = ["HY000"]
_orig_raise = pymysql.err.raise_mysql_exception


def _raise(data):
    if len(data) > 9 and data[3:4] == b"#":
        _last_sqlstate[0] = data[4:9].decode()
    else:
        _last_sqlstate[0] = "HY000"
    _orig_raise(data)


pymysql.err.raise_mysql_exception = _raise
pymysql.connections.err.raise_mysql_exception = _raise


def statements(text):
    """(comment lines, statement) items in order."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.startswith("#"):
            yield ("comment", line)
            i += 1
            continue
        cmd = line
        while not cmd.rstrip().endswith(";") and i + 1 < len(lines):
            i += 1
            cmd += "\n" + lines[i]
        yield ("stmt", cmd)
        i += 1


def fmt(v):
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


def mask_json(text, names):
    """`"name": value[,]` lines of a JSON text become `"name": #[,]` (see golden.rs)."""
    out = []
    for line in text.split("\n"):
        t = line.lstrip()
        indent = line[: len(line) - len(t)]
        for n in names:
            prefix = f'"{n}": '
            if t.startswith(prefix):
                line = indent + prefix + "#" + ("," if t.endswith(",") else "")
                break
        out.append(line)
    return "\n".join(out)


def run(conn, cmd):
    # `mask a,b `: `#` for the values of columns a, b and of JSON members "a", "b".
    masked = []
    if cmd.startswith("mask "):
        names, _, cmd = cmd[5:].partition(" ")
        masked = names.split(",")
    meta = cmd.startswith("meta ")
    sql = cmd[5:] if meta else cmd
    # `values `: the result without its warning count (see golden.rs).
    values_only = sql.startswith("values ")
    sql = sql[7:] if values_only else sql
    sql = sql.rstrip().rstrip(";")
    cur = conn.cursor()
    try:
        cur.execute(sql)
    except pymysql.err.MySQLError as e:
        code, msg = e.args[0], e.args[1]
        return [f"ERROR {code} ({_last_sqlstate[0]}): {msg}"]
    res = cur._result
    warnings = res.warning_count if res else 0
    if cur.description is None:
        s = f"OK affected={cur.rowcount}"
        if res.insert_id:
            s += f" last_insert_id={res.insert_id}"
        if warnings:
            s += f" warnings={warnings}"
        if res.message:
            info = res.message.decode() if isinstance(res.message, bytes) else res.message
            # With session tracking the info string arrives length-prefixed.
            if info and ord(info[0]) == len(info) - 1:
                info = info[1:]
            s += f' info="{info}"'
        return [s]
    out = []
    if meta:
        for f in res.fields:
            f.db, f.org_table, f.org_name = (fmt(f.db), fmt(f.org_table), fmt(f.org_name))
            out.append(
                f"meta {f.name}: type={f.type_code} len={f.length} charset={f.charsetnr} "
                f"flags=0x{f.flags:04x} dec={f.scale} org={f.db}.{f.org_table}.{f.org_name}"
            )
    out.append(" | ".join(d[0] for d in cur.description))
    rows = cur.fetchall()
    for row in rows:
        cells = []
        for v, d in zip(row, cur.description):
            cell = fmt(v)
            if d[0] in masked:
                cell = "#"
            elif masked and cell.startswith("{"):
                cell = mask_json(cell, masked)
            cells.append(cell)
        out.append(" | ".join(cells))
    if sql.strip().upper() == "SHOW WARNINGS":
        # MariaDB's EOF reports 0 here; golden.rs prints the session's warning count, which
        # is the number of warnings listed. Checked: the listed warnings themselves.
        warnings = len(rows)
    if warnings and not values_only:
        out.append(f"({warnings} warnings)")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("out")
    ap.add_argument("--port", type=int, default=3306)
    args = ap.parse_args()
    conn = pymysql.connect(
        host="127.0.0.1", port=args.port, user="root", conv={}, autocommit=True
    )
    with conn.cursor() as c:
        c.execute("DROP DATABASE IF EXISTS golden_src")
        c.execute("CREATE DATABASE golden_src")
        c.execute("USE golden_src")
    # `[name] SQL;` runs in another session (a new connection as root, no default
    # database), as golden.rs does; `[name as user@host]` is not supported here.
    sessions = {"main": conn}

    def session(item):
        name = item[1 : item.index("]")].strip() if item.startswith("[") else "main"
        if name not in sessions:
            sessions[name] = pymysql.connect(
                host="127.0.0.1", port=args.port, user="root", conv={}, autocommit=True
            )
        return sessions[name]

    def session_body(item):
        return item[item.index("]") + 1 :].lstrip() if item.startswith("[") else item

    text = open(args.source).read()
    out = []
    for kind, item in statements(text):
        if kind == "comment":
            out.append(item)
            continue
        out.append(item)
        out.append("----")
        out.extend(run(session(item), session_body(item)))
        out.append("")
    with conn.cursor() as c:
        c.execute("DROP DATABASE IF EXISTS golden_src")
    open(args.out, "w").write("\n".join(out).rstrip() + "\n")


if __name__ == "__main__":
    sys.exit(main())
