//! The statement cache against the uncached path: the same statements on two identical
//! servers, one session with the cache and one without, must give identical results, result
//! metadata, errors and warnings — across the literal classes, with a statement repeated
//! with other literals (cache hits), and around schema and privilege changes.

use super::super::{execute_text, QueryResult};
use crate::session::state::{ServerContext, SessionState};

const SCHEMA: &[&str] = &[
    "CREATE DATABASE db",
    "USE db",
    "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, i INT, d DECIMAL(10,2), s VARCHAR(20), \
     b VARBINARY(10), f DOUBLE, dt DATETIME, u BIGINT UNSIGNED, KEY ks (s), KEY ki (i))",
    "INSERT INTO t VALUES (1, 3, 1.50, 'abc', 'A', 1.5, '2020-01-01 10:00:00', 18446744073709551615), \
     (2, -2, -0.50, 'ABC', 'B', 1, '2020-01-01 00:00:00', 0), \
     (3, NULL, 2.00, '', NULL, NULL, NULL, 9223372036854775808), \
     (4, 9223372, 0.00, '5', 'x', -2.5, '2021-06-30 23:59:59', 5), \
     (5, 0, NULL, NULL, '', 0, '2020-01-01 10:00:00', NULL)",
];

/// Statement families: each line is run with every literal variant in turn (the `{}` filled
/// from the list), so the first of a family fills the cache and the others hit it.
const FAMILIES: &[(&str, &[&str])] = &[
    (
        "SELECT id, s FROM t WHERE id = {}",
        &["1", "2", "-1", "99", "'2'", "2.0", "'2x'"],
    ),
    (
        "SELECT id FROM t WHERE i = {} ORDER BY id",
        &["3", "'3'", "'3abc'", "3.0", "-2", "'-2'", "0", "'a'"],
    ),
    (
        "SELECT id FROM t WHERE s = {} ORDER BY id",
        &["'abc'", "'ABC'", "'abc '", "5", "''", "'5'", "0"],
    ),
    (
        "SELECT id FROM t WHERE d = {} ORDER BY id",
        &["1.5", "1.50", "'1.5'", "2", "-0.5", "0"],
    ),
    (
        "SELECT id FROM t WHERE d > {} ORDER BY id",
        &["-0.5", "1", "'x'", "-1.005"],
    ),
    (
        "SELECT id FROM t WHERE id BETWEEN {} ORDER BY id",
        &["1 AND 3", "'2' AND 10", "3 AND 1", "-5 AND 2.5"],
    ),
    (
        "SELECT id FROM t WHERE id IN ({}) ORDER BY id",
        &["1,2", "3,4", "'1','4'", "1", "1, 2, 3", "-1, 5.0"],
    ),
    (
        "SELECT id FROM t WHERE s IN ({}) ORDER BY id",
        &["'abc', 'x'", "'', '5'", "5, 0"],
    ),
    (
        "SELECT id FROM t WHERE b = {} ORDER BY id",
        &["0x41", "X'41'", "'A'", "'a'", "b'01000010'"],
    ),
    (
        "SELECT id FROM t WHERE s = {} ORDER BY id",
        &["_utf8mb4'abc'", "N'abc'", "_binary'abc'", "_latin1'abc'"],
    ),
    (
        "SELECT {}, id FROM t WHERE id = 1",
        &[
            "1+1",
            "'x'",
            "-5",
            "1.50",
            "0x41",
            "1e3",
            "i = 3",
            "N'n'",
            "_binary'b'",
        ],
    ),
    (
        "SELECT id FROM t WHERE u = {} ORDER BY id",
        &["18446744073709551615", "-1", "9223372036854775808", "5"],
    ),
    (
        "SELECT id FROM t WHERE i < {} ORDER BY id",
        &[
            "9223372036854775807",
            "-9223372036854775808",
            "99999999999999999999",
            "-99999999999999999999.5",
        ],
    ),
    ("SELECT id FROM t ORDER BY {} LIMIT 2", &["1", "2"]),
    (
        "SELECT id FROM t WHERE i > {} ORDER BY id LIMIT 2",
        &["-5", "2"],
    ),
    (
        "SELECT id FROM t ORDER BY id LIMIT {}",
        &["1", "3", "1, 2", "0"],
    ),
    (
        "SELECT COUNT(*) FROM t WHERE dt = {}",
        &[
            "'2020-01-01 10:00:00'",
            "'2020-01-01'",
            "'bad'",
            "20200101100000",
            "DATE '2020-01-01'",
        ],
    ),
    (
        "SELECT id FROM t WHERE f = {} ORDER BY id",
        &["1.5", "1e0", "-2.5", "'1.5'"],
    ),
    (
        "SELECT id, CAST(d AS DECIMAL(5,{})) FROM t WHERE id = 1",
        &["1", "3"],
    ),
    (
        "SELECT id FROM t WHERE ROUND(d, {}) = 2 ORDER BY id",
        &["0", "1"],
    ),
    (
        "SELECT id FROM t WHERE s LIKE {} ORDER BY id",
        &["'a%'", "'A_C'"],
    ),
    ("SELECT id FROM t WHERE id = {} FOR UPDATE", &["1", "4"]),
    (
        "SELECT id FROM t WHERE i = 3 OR s = {} ORDER BY id",
        &["'5'", "''"],
    ),
    (
        "SELECT SUM(i) FROM t WHERE id BETWEEN 1 AND {}",
        &["3", "5"],
    ),
    (
        "SELECT DISTINCT i FROM t WHERE id <> {} ORDER BY i",
        &["1", "2"],
    ),
    ("SELECT nosuch FROM t WHERE id = {}", &["1", "2"]),
    ("SELECT id FROM nosuch WHERE id = {}", &["1", "2"]),
    (
        "UPDATE t SET i = {} WHERE id = 5",
        &["5", "'7'", "'x'", "-1", "2.5", "99999999999"],
    ),
    (
        "UPDATE t SET d = {} WHERE id = 5",
        &["1.234", "'x'", "12345678901", "-3"],
    ),
    (
        "UPDATE t SET s = {} WHERE id = 5",
        &[
            "'short'",
            "'this string is far too long for twenty'",
            "42",
            "-4.5",
        ],
    ),
    (
        "INSERT INTO t (id, i, s) VALUES ({})",
        &[
            "10, 1, 'a'",
            "11, '2', 'bb'",
            "12, 'x', 'c'",
            "10, 1, 'dup'",
            "13, NULL, 'n'",
        ],
    ),
    (
        "INSERT INTO t (id, d) VALUES ({}) ON DUPLICATE KEY UPDATE d = 7.5",
        &["10, 1", "20, 2"],
    ),
    (
        "REPLACE INTO t (id, s) VALUES ({})",
        &["21, 'r'", "21, 'q'"],
    ),
    // Increments (the number a parameter): values, rounding, overflow, warnings alike.
    (
        "UPDATE t SET d = d + {} WHERE id = 1",
        &[
            "1.25",
            "2",
            "0.005",
            "12345678901.5",
            "99999999999999999999",
        ],
    ),
    (
        "UPDATE t SET i = i - {}, f = f + {} WHERE id = 2",
        &["1", "2.5", "9223372036854775807", "0.1"],
    ),
    (
        "UPDATE t SET u = u + {} WHERE id = 4",
        &["1", "18446744073709551610", "0.5"],
    ),
    (
        "UPDATE t SET s = s + {}, b = b - {} WHERE id = 1",
        &["1", "0.25", "7"],
    ),
    (
        "UPDATE t SET dt = dt + {} WHERE id = 1",
        &["1", "100", "0.5"],
    ),
    (
        "UPDATE t SET i = id + {} WHERE id >= 3",
        &["1", "-0", "2.5"],
    ),
    ("DELETE FROM t WHERE id = {}", &["10", "'11'", "99"]),
    ("SELECT * FROM t WHERE id >= {} ORDER BY id", &["1", "10"]),
];

fn server() -> (ServerContext, SessionState) {
    let ctx = ServerContext::for_tests();
    let mut sess = SessionState::new(1, "root", "%", None);
    for sql in SCHEMA {
        run(&ctx, &mut sess, sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    (ctx, sess)
}

/// What a statement answers: its result (or error) and its warnings.
type Answer = (Result<QueryResult, (u16, String)>, Vec<(u16, String)>);

fn run(ctx: &ServerContext, sess: &mut SessionState, sql: &str) -> Result<QueryResult, String> {
    let a = answer(ctx, sess, sql);
    a.0.map_err(|(c, m)| format!("{c} {m}"))
}

fn answer(ctx: &ServerContext, sess: &mut SessionState, sql: &str) -> Answer {
    let r = match execute_text(ctx, sess, sql) {
        Ok(r) => sess.end_statement(ctx, true).map(|_| r),
        Err(e) => {
            sess.statement_failed(ctx, &e);
            Err(e)
        }
    };
    let r = r.map_err(|e| (e.code().number(), e.message().to_string()));
    let w = sess
        .warnings
        .iter()
        .map(|w| (w.code, w.message.clone()))
        .collect();
    (r, w)
}

/// Two identical servers, one session each: `plain` without the cache, `cached` with it.
struct Pair {
    plain: (ServerContext, SessionState),
    cached: (ServerContext, SessionState),
}

impl Pair {
    fn new() -> Pair {
        let mut plain = server();
        let (_, s) = &mut plain;
        s.stmt_cache.set_enabled(false, &mut s.memory);
        Pair {
            plain,
            cached: server(),
        }
    }

    /// Run `sql` on both; they must answer alike.
    fn same(&mut self, sql: &str) -> Answer {
        let (pc, ps) = &mut self.plain;
        let want = answer(pc, ps, sql);
        let (cc, cs) = &mut self.cached;
        let got = answer(cc, cs, sql);
        // Per-row warnings (1292 for each string read as a number) follow the order the rows
        // are read in, which a cached plan may choose differently: compared as a set.
        let sorted = |a: &Answer| {
            let mut w = a.1.clone();
            w.sort();
            w
        };
        assert_eq!(got.0, want.0, "cached and uncached differ on: {sql}");
        assert_eq!(
            sorted(&got),
            sorted(&want),
            "cached and uncached warn differently on: {sql}"
        );
        got
    }

    fn hits(&self) -> u64 {
        self.cached.1.stmt_cache.hits()
    }
}

#[test]
fn cached_statements_answer_as_uncached_ones_across_literal_classes() {
    let mut p = Pair::new();
    for (template, variants) in FAMILIES {
        for v in *variants {
            let sql = template.replace("{}", v);
            let _ = p.same(&sql);
            // And once more: now certainly from the cache if it is cacheable.
            if !sql.starts_with("INSERT") && !sql.starts_with("REPLACE") {
                let _ = p.same(&sql);
            }
        }
    }
    assert!(p.hits() > 100, "the cache served {} statements", p.hits());
    assert_eq!(p.plain.1.stmt_cache.hits(), 0);
}

#[test]
fn a_point_select_hits_and_still_uses_its_key() {
    let mut p = Pair::new();
    let entries = p.cached.1.stmt_cache.len();
    let _ = p.same("SELECT s FROM t WHERE id = 1");
    let before = p.hits();
    let (r, _) = p.same("SELECT s FROM t WHERE id = 2");
    assert_eq!(
        p.hits(),
        before + 1,
        "the second literal is served from the cache"
    );
    let QueryResult::Rows { rows, .. } = r.unwrap() else {
        panic!("rows")
    };
    assert_eq!(rows, vec![vec![crate::types::Value::str("ABC")]]);
    assert_eq!(p.cached.1.stmt_cache.len(), entries + 1);
    assert!(p.cached.1.memory.stmt_cache > 0, "the entry is counted");
}

#[test]
fn schema_changes_between_executions_rebind() {
    let mut p = Pair::new();
    let q = "SELECT * FROM t2 WHERE a = 1";
    for sql in [
        "CREATE TABLE t2 (a INT, b INT)",
        "INSERT INTO t2 VALUES (1, 10), (2, 20)",
        q,
        q,
        "CREATE INDEX ia ON t2 (a)",
        q,
        "DROP INDEX ia ON t2",
        q,
        "DROP TABLE t2",
        q,
        "CREATE TABLE t2 (c VARCHAR(5), a INT, PRIMARY KEY (a))",
        "INSERT INTO t2 VALUES ('x', 1)",
        q,
        "TRUNCATE TABLE t2",
        q,
        "ALTER TABLE t2 ADD INDEX ic (c)",
        "SELECT a FROM t2 WHERE c = 'x'",
        "INSERT INTO t2 VALUES ('x', 3)",
        "SELECT a FROM t2 WHERE c = 'x'",
        "ALTER TABLE t2 DROP INDEX ic",
        "SELECT a FROM t2 WHERE c = 'x'",
        "DROP DATABASE db",
        q,
    ] {
        let _ = p.same(sql);
    }
}

#[test]
fn revoked_access_is_checked_again() {
    let (ctx, mut root) = server();
    ctx.accounts.create_user("u", "%", "", false).unwrap();
    ctx.accounts.grant_all("u", "%", Some("db")).unwrap();
    let mut sess = SessionState::new(2, "u", "%", Some("db".into()));
    let sql = "SELECT s FROM t WHERE id = 1";
    run(&ctx, &mut sess, sql).unwrap();
    run(&ctx, &mut sess, "SELECT s FROM t WHERE id = 2").unwrap();
    assert_eq!(sess.stmt_cache.hits(), 1);
    ctx.accounts.revoke_all("u", "%", Some("db")).unwrap();
    let e = run(&ctx, &mut sess, sql).unwrap_err();
    assert!(e.starts_with("1142"), "{e}");
    run(&ctx, &mut root, "SELECT 1").unwrap();
}

/// A prepared statement and a cached one are bound again after a GRANT or REVOKE: a table
/// grant lets them run, its revocation stops them (1142), with no check at each execution.
#[test]
fn table_grants_apply_to_prepared_and_cached_plans() {
    let (ctx, _root) = server();
    ctx.accounts.create_user("u", "%", "", false).unwrap();
    let t = crate::accounts::GrantTarget::Table("db", "t");
    let select = crate::accounts::Privs::SELECT;
    ctx.accounts.grant("u", "%", t, select, None).unwrap();
    let mut sess = SessionState::new(2, "u", "%", Some("db".into()));
    let p = super::super::prepare(&ctx, &mut sess, "SELECT s FROM t WHERE id = ?").unwrap();
    let exec = |sess: &mut SessionState| {
        let r = super::super::execute_prepared(&ctx, sess, &p, &[crate::types::Value::Int(1)]);
        let _ = sess.end_statement(&ctx, r.is_ok());
        r.map_err(|e| e.code().number())
    };
    exec(&mut sess).unwrap();
    run(&ctx, &mut sess, "SELECT s FROM t WHERE id = 1").unwrap();
    run(&ctx, &mut sess, "SELECT s FROM t WHERE id = 2").unwrap();
    ctx.accounts.revoke("u", "%", t, select).unwrap();
    assert_eq!(exec(&mut sess).unwrap_err(), 1142);
    let e = run(&ctx, &mut sess, "SELECT s FROM t WHERE id = 1").unwrap_err();
    assert!(e.starts_with("1142"), "{e}");
    let e = run(&ctx, &mut sess, "UPDATE t SET s = 'x' WHERE id = 1").unwrap_err();
    assert!(e.starts_with("1142 UPDATE command denied"), "{e}");
    ctx.accounts.grant("u", "%", t, select, None).unwrap();
    exec(&mut sess).unwrap();
}

#[test]
fn the_database_is_part_of_the_key() {
    let (ctx, mut sess) = server();
    for sql in [
        "CREATE DATABASE db2",
        "CREATE TABLE db2.t (id INT PRIMARY KEY, s VARCHAR(5))",
        "INSERT INTO db2.t VALUES (1, 'other')",
    ] {
        run(&ctx, &mut sess, sql).unwrap();
    }
    let q = "SELECT s FROM t WHERE id = 1";
    let first = run(&ctx, &mut sess, q).unwrap();
    run(&ctx, &mut sess, "USE db2").unwrap();
    let second = run(&ctx, &mut sess, q).unwrap();
    assert_ne!(first, second);
}

#[test]
fn the_cache_is_bounded() {
    let (ctx, mut sess) = server();
    for i in 0..(super::STMT_CACHE_ENTRIES + 20) {
        let sql = format!("SELECT id AS c{i} FROM t WHERE id = 1");
        run(&ctx, &mut sess, &sql).unwrap();
    }
    assert_eq!(sess.stmt_cache.len(), super::STMT_CACHE_ENTRIES);
    // A session near its memory limit keeps nothing.
    let (ctx, mut sess) = server();
    run(&ctx, &mut sess, "SET SESSION max_session_mem_used = 8192").unwrap();
    for i in 0..10 {
        let sql = format!("SELECT id AS c{i} FROM t WHERE id = 1");
        run(&ctx, &mut sess, &sql).unwrap();
        assert!(sess.memory.held() <= 8192, "{:?}", sess.memory);
    }
    assert!(sess.stmt_cache.len() < 10, "{}", sess.stmt_cache.len());
}

#[test]
fn a_join_plan_is_made_again_when_its_statistics_move() {
    let (ctx, mut s) = server();
    run(
        &ctx,
        &mut s,
        "CREATE TABLE j (id INT PRIMARY KEY, k INT, KEY k (k))",
    )
    .unwrap();
    let fill = |ctx: &ServerContext, s: &mut SessionState, ids: std::ops::Range<i32>| {
        let rows: Vec<String> = ids.map(|i| format!("({i}, {})", i % 5)).collect();
        let sql = format!("INSERT INTO j VALUES {}", rows.join(", "));
        run(ctx, s, &sql).unwrap();
    };
    fill(&ctx, &mut s, 0..200);
    let q = |n: i32| format!("SELECT t.id, j.id FROM t, j WHERE j.k = t.id AND t.id = {n}");
    run(&ctx, &mut s, &q(1)).unwrap();
    let h = s.stmt_cache.hits();
    run(&ctx, &mut s, &q(2)).unwrap();
    assert_eq!(s.stmt_cache.hits(), h + 1, "a cached join plan");
    // 20 new rows (10%) keep the plan; 1 more (over 10%) makes it again, once.
    fill(&ctx, &mut s, 200..220);
    run(&ctx, &mut s, &q(3)).unwrap();
    assert_eq!(s.stmt_cache.hits(), h + 2);
    fill(&ctx, &mut s, 220..221);
    run(&ctx, &mut s, &q(4)).unwrap();
    assert_eq!(
        s.stmt_cache.hits(),
        h + 2,
        "planned again after the statistics moved"
    );
    let r = run(&ctx, &mut s, &q(3)).unwrap();
    assert_eq!(s.stmt_cache.hits(), h + 3);
    let QueryResult::Rows { rows, .. } = r else {
        panic!("rows")
    };
    assert_eq!(rows.len(), 44, "j.k = 3: 40 ids below 200, then 203 … 218");
    // Unique lookups only (TPC-C New-Order's customer and warehouse): no statistics used, no
    // new plan however much the tables change.
    let u = |n: i32| format!("SELECT t.s, j.k FROM t, j WHERE t.id = {n} AND j.id = {n}");
    run(&ctx, &mut s, &u(1)).unwrap();
    let h = s.stmt_cache.hits();
    fill(&ctx, &mut s, 300..400);
    run(&ctx, &mut s, &u(2)).unwrap();
    assert_eq!(s.stmt_cache.hits(), h + 1);
}
