//! The PASS/FAIL report, and the connect, pool and error checks.

use std::sync::atomic::{AtomicUsize, Ordering};

use mysql::prelude::Queryable;
use mysql::{Conn, Error, OptsBuilder, Pool};

use crate::Config;

/// Prints one line per check and keeps the totals.
pub struct Report {
    prefix: &'static str,
    passed: AtomicUsize,
    failed: AtomicUsize,
}

impl Report {
    pub fn new(prefix: &'static str) -> Report {
        Report {
            prefix,
            passed: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
        }
    }

    /// Records a check; `detail` is only evaluated and printed on failure.
    pub fn check(&self, name: &str, ok: bool, detail: impl FnOnce() -> String) -> bool {
        if ok {
            self.passed.fetch_add(1, Ordering::Relaxed);
            println!("PASS: {}/{name}", self.prefix);
        } else {
            self.failed.fetch_add(1, Ordering::Relaxed);
            println!(
                "FAIL: {}/{name}: {}",
                self.prefix,
                detail().replace('\n', " ")
            );
        }
        ok
    }

    pub fn fail(&self, name: &str, detail: String) {
        self.check(name, false, || detail);
    }

    pub fn totals(&self) -> (usize, usize) {
        (
            self.passed.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
        )
    }
}

/// The server error code of `e`, if it is a server error.
pub fn server_code(e: &Error) -> Option<u16> {
    match e {
        Error::MySqlError(m) => Some(m.code),
        _ => None,
    }
}

/// Opens a plain connection and checks it answers `SELECT 1` through both protocols.
pub fn connect(cfg: &Config, report: &Report) {
    match Conn::new(cfg.opts()) {
        Ok(mut conn) => {
            let text: Result<Option<i64>, _> = conn.query_first("SELECT 1");
            report.check("connect/select-1-text", matches!(text, Ok(Some(1))), || {
                format!("got {text:?}")
            });
            let bin: Result<Option<i64>, _> = conn.exec_first("SELECT ?", (1,));
            report.check("connect/select-param-binary", matches!(bin, Ok(Some(1))), || {
                format!("SELECT ? with 1: got {bin:?}")
            });
        }
        Err(e) => report.fail(
            "connect",
            format!("{e} (prefer_socket(false); the crate runs SELECT @@max_allowed_packet and SELECT @@socket)"),
        ),
    }
}

/// Inside TLS (`COHORT_SSL_CA`): the session says so.
pub fn tls(cfg: &Config, report: &Report) {
    let status = |conn: &mut Conn, name: &str| -> String {
        let row: Result<Option<(String, String)>, _> =
            conn.query_first(format!("SHOW STATUS LIKE '{name}'"));
        row.ok().flatten().map(|r| r.1).unwrap_or_default()
    };
    match Conn::new(cfg.opts()) {
        Ok(mut conn) => {
            let version = status(&mut conn, "Ssl_version");
            report.check("tls/ssl-version", version.starts_with("TLSv1."), || {
                format!("Ssl_version is '{version}'")
            });
            let cipher = status(&mut conn, "Ssl_cipher");
            report.check("tls/ssl-cipher", !cipher.is_empty(), || {
                "Ssl_cipher is empty".to_string()
            });
        }
        Err(e) => report.fail("tls/connect", format!("{e}")),
    }
}

/// The pool resets a returned connection with COM_RESET_CONNECTION and keeps it (same id);
/// the reset rolls back the open transaction.
pub fn pool_reset(cfg: &Config, report: &Report) {
    let result = (|| -> Result<(), String> {
        let pool = Pool::new(cfg.pool_opts(1, 1)).map_err(|e| format!("pool: {e}"))?;
        let mut conn = pool.get_conn().map_err(|e| format!("get_conn: {e}"))?;
        conn.query_drop("DROP TABLE IF EXISTS rust_pool")
            .map_err(|e| e.to_string())?;
        conn.query_drop("CREATE TABLE rust_pool (id INT NOT NULL PRIMARY KEY)")
            .map_err(|e| e.to_string())?;
        let id1 = conn.connection_id();
        // An open transaction left behind when the connection goes back to the pool.
        conn.query_drop("BEGIN").map_err(|e| e.to_string())?;
        conn.exec_drop("INSERT INTO rust_pool (id) VALUES (?)", (1,))
            .map_err(|e| e.to_string())?;
        drop(conn); // COM_RESET_CONNECTION (or COM_CHANGE_USER fallback); on failure the pool drops it
        let mut conn = pool
            .get_conn()
            .map_err(|e| format!("get_conn again: {e}"))?;
        let id2 = conn.connection_id();
        report.check("pool/reset-keeps-connection", id1 == id2, || {
            format!("connection {id1} was not reused (got {id2}): the reset on return to the pool failed")
        });
        let n: Option<i64> = conn
            .query_first("SELECT COUNT(*) FROM rust_pool")
            .map_err(|e| e.to_string())?;
        report.check("pool/reset-rolls-back", n == Some(0), || {
            format!("uncommitted row survived the connection reset: COUNT(*) = {n:?}")
        });
        // Prepared statements work after the reset (the crate forgets its cached ones).
        let one: Option<i64> = conn
            .exec_first("SELECT COUNT(*) FROM rust_pool WHERE id = ?", (1,))
            .map_err(|e| e.to_string())?;
        report.check("pool/prepare-after-reset", one == Some(0), || {
            format!("got {one:?}")
        });
        conn.query_drop("DROP TABLE rust_pool")
            .map_err(|e| e.to_string())?;
        Ok(())
    })();
    if let Err(e) = result {
        report.fail("pool", e);
    }
}

fn expect_error(
    report: &Report,
    conn: &mut Conn,
    name: &str,
    what: &str,
    result: Result<(), Error>,
    code: u16,
    state: &str,
) {
    match result {
        Ok(()) => report.fail(name, format!("{what} succeeded, want error {code}")),
        Err(Error::MySqlError(e)) => {
            report.check(name, e.code == code && e.state == state, || {
                format!("{what}: got {e}, want {code} ({state})")
            });
        }
        Err(e) => report.fail(name, format!("{what}: {e}, want server error {code}")),
    }
    let alive: Result<Option<i64>, _> = conn.query_first("SELECT 1");
    report.check(
        &format!("{name}/connection-usable"),
        matches!(alive, Ok(Some(1))),
        || format!("SELECT 1 after the error: {alive:?}"),
    );
}

pub fn errors(cfg: &Config, report: &Report) {
    let mut conn = match Conn::new(cfg.opts()) {
        Ok(c) => c,
        Err(e) => return report.fail("errors/connect", e.to_string()),
    };
    let setup = conn
        .query_drop("DROP TABLE IF EXISTS rust_err")
        .and_then(|_| conn.query_drop("CREATE TABLE rust_err (id INT NOT NULL PRIMARY KEY, v INT)"))
        .and_then(|_| conn.exec_drop("INSERT INTO rust_err (id, v) VALUES (?, ?)", (1, 10)));
    if let Err(e) = setup {
        return report.fail("errors/setup", e.to_string());
    }
    let r = conn.exec_drop("INSERT INTO rust_err (id, v) VALUES (?, ?)", (1, 11));
    expect_error(
        report,
        &mut conn,
        "errors/duplicate-key-1062",
        "prepared INSERT of a duplicate id",
        r,
        1062,
        "23000",
    );
    let r = conn.exec_drop("SELECT v FROM rust_no_such_table WHERE id = ?", (1,));
    expect_error(
        report,
        &mut conn,
        "errors/prepare-no-such-table-1146",
        "COM_STMT_PREPARE on a missing table",
        r,
        1146,
        "42S02",
    );
    let r = conn.query_drop("SELEKT 1");
    expect_error(
        report,
        &mut conn,
        "errors/syntax-1064",
        "SELEKT 1",
        r,
        1064,
        "42000",
    );
    let v: Result<Option<i64>, _> = conn.exec_first("SELECT v FROM rust_err WHERE id = ?", (1,));
    report.check("errors/row-intact", matches!(v, Ok(Some(10))), || {
        format!("row 1 after the failed duplicate insert: {v:?}")
    });
    let _ = conn.query_drop("DROP TABLE IF EXISTS rust_err");

    let wrong_pw: mysql::Opts = OptsBuilder::from_opts(cfg.opts())
        .pass(Some(format!("{}-wrong", cfg.password)))
        .into();
    let r = Conn::new(wrong_pw).map(|_| ());
    report.check(
        "errors/wrong-password-1045",
        matches!(&r, Err(e) if server_code(e) == Some(1045)),
        || format!("got {r:?}"),
    );
    let no_db: mysql::Opts = OptsBuilder::from_opts(cfg.opts())
        .db_name(Some("rust_no_such_db"))
        .into();
    let r = Conn::new(no_db).map(|_| ());
    report.check(
        "errors/unknown-database-1049",
        matches!(&r, Err(e) if server_code(e) == Some(1049)),
        || format!("got {r:?}"),
    );
}
