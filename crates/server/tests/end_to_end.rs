//! End to end over loopback with the Rust `mysql` crate: login, text and prepared statements,
//! transactions and their status flags, errors with codes, COM_RESET_CONNECTION, limits.

mod common;

use cohort_server::session::ServerContext;
use common::{opts, root, serve_on_loopback};
use mysql::prelude::*;
use mysql::{Conn, Pool, PoolConstraints, PoolOpts, Value};

/// Start a server on an ephemeral loopback port; returns the port.
fn start_server(configure: impl FnOnce(&ServerContext)) -> u16 {
    let ctx = ServerContext::for_tests();
    configure(&ctx);
    serve_on_loopback(ctx)
}

fn server_code(e: mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(e) => e.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

#[test]
fn text_and_prepared_statements_round_trip() {
    let port = start_server(|_| {});
    let mut c = root(port);
    c.query_drop("CREATE DATABASE app").unwrap();
    c.query_drop("USE app").unwrap();
    c.query_drop(
        "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20), \
         amount DECIMAL(10,2), born DATE, k BIGINT UNSIGNED, KEY kn (name))",
    )
    .unwrap();
    c.exec_drop(
        "INSERT INTO t (name, amount, born, k) VALUES (?, ?, ?, ?)",
        ("alice", "12.50", "2001-02-03", 18446744073709551615u64),
    )
    .unwrap();
    assert_eq!(c.last_insert_id(), 1);
    c.query_drop("INSERT INTO t (name) VALUES ('bob'), (NULL)")
        .unwrap();
    let rows: Vec<(u32, Option<String>)> = c.query("SELECT id, name FROM t ORDER BY id").unwrap();
    assert_eq!(
        rows,
        vec![
            (1, Some("alice".into())),
            (2, Some("bob".into())),
            (3, None)
        ]
    );
    let row: Option<(String, Value, u64)> = c
        .exec_first("SELECT amount, born, k FROM t WHERE id = ?", (1,))
        .unwrap();
    assert_eq!(
        row,
        Some((
            "12.50".into(),
            Value::Date(2001, 2, 3, 0, 0, 0, 0),
            u64::MAX
        ))
    );
    let n: Option<i64> = c
        .query_first("SELECT COUNT(*) FROM t WHERE name IS NULL")
        .unwrap();
    assert_eq!(n, Some(1));
    let socket: Option<String> = c.query_first("SELECT @@socket").unwrap();
    assert_eq!(socket, Some(String::new()));
}

#[test]
fn transactions_isolate_and_report_status() {
    let port = start_server(|_| {});
    let mut a = root(port);
    a.query_drop("CREATE DATABASE bank").unwrap();
    a.query_drop("CREATE TABLE bank.acct (id INT PRIMARY KEY, bal INT NOT NULL)")
        .unwrap();
    a.query_drop("INSERT INTO bank.acct VALUES (1, 100), (2, 100)")
        .unwrap();
    let mut b = root(port);
    let mut tx = a.start_transaction(mysql::TxOpts::default()).unwrap();
    tx.query_drop("UPDATE bank.acct SET bal = bal - 10 WHERE id = 1")
        .unwrap();
    // No dirty read from another session.
    let seen: Option<i32> = b
        .query_first("SELECT bal FROM bank.acct WHERE id = 1")
        .unwrap();
    assert_eq!(seen, Some(100));
    tx.query_drop("UPDATE bank.acct SET bal = bal + 10 WHERE id = 2")
        .unwrap();
    tx.commit().unwrap();
    let total: Option<String> = b.query_first("SELECT SUM(bal) FROM bank.acct").unwrap();
    assert_eq!(total.as_deref(), Some("200"));
    let seen: Option<i32> = b
        .query_first("SELECT bal FROM bank.acct WHERE id = 1")
        .unwrap();
    assert_eq!(seen, Some(90));
}

#[test]
fn lock_wait_timeout_and_duplicate_key_codes() {
    let port = start_server(|_| {});
    let mut a = root(port);
    a.query_drop("CREATE DATABASE d").unwrap();
    a.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
        .unwrap();
    a.query_drop("INSERT INTO d.t VALUES (1, 1)").unwrap();
    let e = a.query_drop("INSERT INTO d.t VALUES (1, 2)").unwrap_err();
    assert_eq!(server_code(e), 1062);
    let e = a.query_drop("SELECT * FROM d.nope").unwrap_err();
    assert_eq!(server_code(e), 1146);
    let e = a.query_drop("SELEC 1").unwrap_err();
    assert_eq!(server_code(e), 1064);

    a.query_drop("BEGIN").unwrap();
    a.query_drop("UPDATE d.t SET v = 5 WHERE id = 1").unwrap();
    let mut b = root(port);
    b.query_drop("SET SESSION innodb_lock_wait_timeout = 1")
        .unwrap();
    let e = b
        .query_drop("UPDATE d.t SET v = 6 WHERE id = 1")
        .unwrap_err();
    assert_eq!(server_code(e), 1205);
    a.query_drop("COMMIT").unwrap();
    b.query_drop("UPDATE d.t SET v = 6 WHERE id = 1").unwrap();
    let v: Option<i32> = a.query_first("SELECT v FROM d.t WHERE id = 1").unwrap();
    assert_eq!(v, Some(6));
}

#[test]
fn wrong_password_unknown_db_and_too_many_connections() {
    let port = start_server(|ctx| {
        ctx.accounts.create_user("sb", "%", "sb", false).unwrap();
        ctx.accounts.grant_all("sb", "%", None).unwrap();
        ctx.vars
            .set_global("max_connections", mysql_value_u64(10)) // MariaDB's floor
            .unwrap();
    });
    let e = Conn::new(opts(port, "sb", "wrong", None)).unwrap_err();
    assert_eq!(server_code(e), 1045);
    let e = Conn::new(opts(port, "sb", "sb", Some("nodb"))).unwrap_err();
    assert_eq!(server_code(e), 1049);
    let held: Vec<Conn> = (0..10)
        .map(|_| Conn::new(opts(port, "sb", "sb", None)).unwrap())
        .collect();
    let e = Conn::new(opts(port, "sb", "sb", None)).unwrap_err();
    assert_eq!(server_code(e), 1040);
    drop(held);
}

fn mysql_value_u64(v: u64) -> cohort_server::types::Value {
    cohort_server::types::Value::UInt(v)
}

#[test]
fn pool_resets_connections_and_prepared_params_are_remembered() {
    let port = start_server(|_| {});
    let pool_opts = PoolOpts::default()
        .with_constraints(PoolConstraints::new(1, 2).unwrap())
        .with_reset_connection(true);
    let pool = Pool::new(opts(port, "root", "", None).pool_opts(pool_opts)).unwrap();
    {
        let mut c = pool.get_conn().unwrap();
        c.query_drop("CREATE DATABASE p").unwrap();
        c.query_drop("CREATE TABLE p.t (id BIGINT PRIMARY KEY, s CHAR(10))")
            .unwrap();
        let stmt = c.prep("INSERT INTO p.t VALUES (?, ?)").unwrap();
        for i in 0..20i64 {
            c.exec_drop(&stmt, (i, format!("s{i}"))).unwrap();
        }
        c.query_drop("SET @marker = 42").unwrap();
    }
    let mut c = pool.get_conn().unwrap();
    let marker: Option<Value> = c.query_first("SELECT @marker").unwrap();
    assert_eq!(
        marker,
        Some(Value::NULL),
        "COM_RESET_CONNECTION clears user variables"
    );
    let rows: Vec<(i64, String)> = c
        .exec(
            "SELECT id, s FROM p.t WHERE id BETWEEN ? AND ? ORDER BY id",
            (5, 7),
        )
        .unwrap();
    assert_eq!(
        rows,
        vec![(5, "s5".into()), (6, "s6".into()), (7, "s7".into())]
    );
}
