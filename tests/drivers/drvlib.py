"""Shared helpers of the Python driver suites (tests/drivers/*.py).

Each suite runs against one server given by DRV_HOST, DRV_PORT, DRV_USER, DRV_PASSWORD and is
labelled DRV_TARGET (cohort or mariadb); every case prints one line, `PASS: target/suite/case`,
`FAIL: target/suite/case: why` or `SKIP: target/suite/case: why`.
"""
import os
import sys
import traceback

TARGET = os.environ.get("DRV_TARGET", "server")
HOST = os.environ.get("DRV_HOST", "127.0.0.1")
PORT = int(os.environ.get("DRV_PORT", "3306"))
USER = os.environ.get("DRV_USER", "root")
PASSWORD = os.environ.get("DRV_PASSWORD", "")
VERBOSE = os.environ.get("DRV_VERBOSE") == "1"

_counts = {"pass": 0, "fail": 0, "skip": 0}


def _label(suite, name):
    return f"{TARGET}/{suite}/{name}"


def passed(suite, name):
    _counts["pass"] += 1
    print(f"PASS: {_label(suite, name)}", flush=True)


def failed(suite, name, why):
    _counts["fail"] += 1
    why = " ".join(str(why).split())[:400]
    print(f"FAIL: {_label(suite, name)}: {why}", flush=True)


def skipped(suite, name, why):
    _counts["skip"] += 1
    print(f"SKIP: {_label(suite, name)}: {why}", flush=True)


def run_case(suite, name, fn, *args):
    """Runs fn(*args); an exception or a false assertion is a failure."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - every error is a failed case
        if VERBOSE:
            traceback.print_exc()
        failed(suite, name, f"{type(e).__name__}: {e}")
        return False
    passed(suite, name)
    return True


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def exit_status():
    return 1 if _counts["fail"] else 0


def finish():
    sys.exit(exit_status())
