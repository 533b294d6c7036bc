//! Deeply nested and very long expressions through a real server (one thread per connection,
//! with the server's connection stack), by text protocol and by prepared statement: every
//! statement gets a result or a clean error, and the server stays up.

mod common;

use cohort_server::session::ServerContext;
use common::{root, serve_on_loopback};
use mysql::prelude::*;
use mysql::{Conn, Value};

const N: usize = 100_000;

fn chain(term: &str, op: &str, n: usize) -> String {
    let mut s = String::with_capacity((term.len() + op.len()) * n);
    for i in 0..n {
        if i > 0 {
            s.push_str(op);
        }
        s.push_str(term);
    }
    s
}

fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

/// What a statement answered: a first value, or an error code.
#[derive(Debug, PartialEq)]
enum Answer {
    /// The first column of the first row, as text (so both protocols compare equal).
    Value(Option<String>),
    Ok,
    Error(u16),
}

fn text(c: &mut Conn, sql: &str) -> Answer {
    match c.query_iter(sql) {
        Ok(mut r) => {
            let mut first = None;
            if let Some(set) = r.iter() {
                for row in set {
                    let row = row.unwrap();
                    if first.is_none() {
                        first = Some(as_text(row.as_ref(0)));
                    }
                }
                if first.is_some() {
                    return Answer::Value(first);
                }
            }
            Answer::Ok
        }
        Err(mysql::Error::MySqlError(e)) => Answer::Error(e.code),
        Err(other) => panic!("{}: {other:?}", &sql[..sql.len().min(80)]),
    }
}

fn prepared(c: &mut Conn, sql: &str) -> Answer {
    let stmt = match c.prep(sql) {
        Ok(s) => s,
        Err(mysql::Error::MySqlError(e)) => return Answer::Error(e.code),
        Err(other) => panic!("{}: {other:?}", &sql[..sql.len().min(80)]),
    };
    let r: mysql::Result<Vec<mysql::Row>> = c.exec(&stmt, ());
    let _ = c.close(stmt);
    match r {
        Ok(rows) => match rows.first() {
            Some(row) => Answer::Value(Some(as_text(row.as_ref(0)))),
            None => Answer::Ok,
        },
        Err(mysql::Error::MySqlError(e)) => Answer::Error(e.code),
        Err(other) => panic!("{}: {other:?}", &sql[..sql.len().min(80)]),
    }
}

fn as_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::NULL) => "NULL".into(),
        Some(Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        Some(Value::Int(i)) => i.to_string(),
        Some(Value::UInt(u)) => u.to_string(),
        Some(other) => format!("{other:?}"),
    }
}

fn int(v: i64) -> Answer {
    Answer::Value(Some(v.to_string()))
}

fn string(v: &str) -> Answer {
    Answer::Value(Some(v.to_string()))
}

fn check_alive(c: &mut Conn) {
    let one: Option<i64> = c.query_first("SELECT 1").unwrap();
    assert_eq!(one, Some(1));
}

/// Long operator chains are evaluated, whatever their length, by both protocols.
#[test]
fn long_chains_are_evaluated() {
    let port = serve_on_loopback(ServerContext::for_tests());
    let mut c = root(port);
    let cases = [
        (format!("SELECT {}", chain("1", "+", N)), N as i64),
        (format!("SELECT {}", chain("1", " AND ", N)), 1),
        (format!("SELECT {}", chain("0", " OR ", N)), 0),
        (format!("SELECT {}", chain("0", " || ", N)), 0),
        (format!("SELECT {}", chain("1", " && ", N)), 1),
        (
            format!("SELECT 5 - {}", chain("1", "-", N)),
            4 - N as i64 + 1,
        ),
        (format!("SELECT {}", chain("2", " * ", 62)), 1 << 62),
        (format!("SELECT {} = 1", chain("1", " DIV ", N)), 1),
        (format!("SELECT 1 IN ({})", chain("2", ",", N)), 0),
        (format!("SELECT CONCAT({}) = ''", chain("''", ",", N)), 1),
    ];
    for (sql, want) in &cases {
        assert_eq!(text(&mut c, sql), int(*want), "text: {}", &sql[..60]);
        assert_eq!(
            prepared(&mut c, sql),
            int(*want),
            "prepared: {}",
            &sql[..60]
        );
    }
    check_alive(&mut c);
}

/// Chains in every statement kind that holds expressions.
#[test]
fn long_chains_in_every_statement_kind() {
    let port = serve_on_loopback(ServerContext::for_tests());
    let mut c = root(port);
    let sum = chain("1", "+", N);
    let and = chain("id > 0", " AND ", N);
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop("USE d").unwrap();
    let ddl = format!(
        "CREATE TABLE t (id INT PRIMARY KEY, v INT DEFAULT ({}))",
        chain("1", "+", 1000)
    );
    assert_eq!(text(&mut c, &ddl), Answer::Ok);
    for (sql, want) in [
        ("INSERT INTO t (id) VALUES (1)".to_string(), Answer::Ok),
        (format!("INSERT INTO t VALUES (2, {sum})"), Answer::Ok),
        (
            format!("UPDATE t SET v = {sum} - v + 1 WHERE {and}"),
            Answer::Ok,
        ),
        (format!("SELECT SUM(v) FROM t WHERE {and}"), string("99002")),
        (
            format!("SELECT v FROM t WHERE {and} ORDER BY {sum} + v LIMIT 1"),
            int(1),
        ),
        (format!("SET @x = {sum}"), Answer::Ok),
        (format!("SELECT @x = {sum}"), int(1)),
        (format!("DO {sum}"), Answer::Ok),
        (
            format!("SHOW DATABASES WHERE {}", chain("1", " AND ", N)),
            string("d"),
        ),
        (format!("DELETE FROM t WHERE {and} AND id = 2"), Answer::Ok),
    ] {
        assert_eq!(text(&mut c, &sql), want, "{}", &sql[..60]);
    }
    for (sql, want) in [
        (format!("SELECT COUNT(*) FROM t WHERE {and}"), int(1)),
        (format!("UPDATE t SET v = {sum} WHERE {and}"), Answer::Ok),
        (format!("SELECT v = {sum} FROM t WHERE {and}"), int(1)),
    ] {
        assert_eq!(prepared(&mut c, &sql), want, "{}", &sql[..60]);
    }
    check_alive(&mut c);
}

/// Deep nesting is evaluated up to a limit, then refused cleanly (1064 from the parser, 1436
/// from the binder), never crashing.
#[test]
fn deep_nesting_answers_or_refuses_cleanly() {
    let port = serve_on_loopback(ServerContext::for_tests());
    let mut c = root(port);
    // MariaDB evaluates about 590 nested function calls and 32 000 parentheses.
    let ok = [
        format!("SELECT {}", nest("(", "1", ")", 990)),
        format!("SELECT {}", nest("ABS(", "1", ")", 900)),
        format!("SELECT {}", nest("(1+", "0", ")", 450)),
        format!("SELECT {}", nest("CASE WHEN 1 THEN ", "1", " END", 600)),
        format!("SELECT {}", nest("COALESCE(NULL, ", "1", ")", 600)),
        format!("SELECT 1{} = 0", " IS NULL".repeat(1500)),
        format!("SELECT {}1", "- ".repeat(990)),
        format!("SELECT {}1", "NOT ".repeat(989)),
    ];
    for sql in &ok {
        let want = text(&mut c, sql);
        assert!(
            matches!(want, Answer::Value(Some(_))),
            "{}: {want:?}",
            &sql[..40]
        );
        assert_eq!(prepared(&mut c, sql), want, "{}", &sql[..40]);
    }
    let refused = [
        format!("SELECT {}", nest("(", "1", ")", N)),
        format!("SELECT {}", nest("ABS(", "1", ")", N)),
        format!("SELECT {}", nest("(1+", "0", ")", N)),
        format!("SELECT {}", nest("CASE WHEN 1 THEN ", "1", " END", N)),
        format!("SELECT {}", nest("(SELECT ", "1", ")", N)),
        format!("SELECT {}1", "- ".repeat(N)),
        format!("SELECT {}1", "NOT ".repeat(N)),
        format!("SELECT {}1", "~".repeat(N)),
        format!("SELECT 1{}", " IS NULL".repeat(N)),
        format!("SELECT 1{}", " = 1".repeat(N)),
        format!("SELECT 1{}", " XOR 1".repeat(N)),
        format!("SELECT 'a'{}", " COLLATE utf8mb4_bin".repeat(N)),
        format!("SELECT 1{}", " BETWEEN 0 AND 2".repeat(N)),
        format!("SELECT 1{}", " LIKE 1".repeat(N)),
        format!("SELECT 1{}", " IN (1)".repeat(N)),
        format!("SELECT {} FROM", chain("1", "+", N)),
        format!("SELECT {} +", chain("1", "+", N)),
        format!("SELECT ({}", chain("1", "+", N)),
    ];
    for sql in &refused {
        for a in [text(&mut c, sql), prepared(&mut c, sql)] {
            assert!(
                // 1290: the session's memory bound refuses a text whose parse would cost more
                // than max_session_mem_used (100 000 nested subqueries) before parsing.
                matches!(a, Answer::Error(1064 | 1436 | 1235 | 1290)),
                "{}: {a:?}",
                &sql[..40]
            );
        }
        check_alive(&mut c);
    }
}
