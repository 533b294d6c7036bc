//! FOUND_ROWS() and `SELECT SQL_CALC_FOUND_ROWS`, as MariaDB 10.11 answers them.
//!
//! The session keeps one number, [`SessionState::last_found_rows`], which FOUND_ROWS()
//! returns (BIGINT, never NULL; 0 in a new session). What sets it:
//!
//! * a SELECT statement (a set operation, `SELECT … INTO @v` too): the rows it returned
//!   (after `sql_select_limit`); with SQL_CALC_FOUND_ROWS on its first SELECT, the rows it
//!   would have returned without its LIMIT (and OFFSET): [`count`] moves that LIMIT out of the
//!   plan, and the rows are counted before it cuts them ([`CountedLimit::apply`]);
//! * INSERT … SELECT and CREATE TABLE … SELECT: the rows their query returned, counted the
//!   same way;
//! * the SHOW statements MariaDB answers from `information_schema` (SHOW TABLES, COLUMNS,
//!   VARIABLES, STATUS…) and DESCRIBE: their rows ([`counts_show`]).
//!
//! Everything else leaves it alone: INSERT / UPDATE / DELETE (RETURNING too), SET, DO, DDL,
//! SHOW WARNINGS, SHOW CREATE…, EXPLAIN, and statements that fail.
//!
//! MariaDB's one quirk kept: a UNION ALL (every operator ALL) with a LIMIT and no ORDER BY
//! stops reading once it has its rows, so its "found" rows are the rows it returned.
//!
//! SQL_CALC_FOUND_ROWS anywhere but the statement's first SELECT (a subquery, a derived table,
//! a later operand of a UNION) is 1234, checked with the rest of the surface
//! (`parse/surface.rs`).
//!
//! [`SessionState::last_found_rows`]: crate::session::state::SessionState::last_found_rows

use super::query::{Node, QueryPlan};
use super::select::{self, SelectPlan};
use crate::error::Result;
use crate::sql::env::Env;
use crate::sql::expr::Expr;
use crate::sql::parse::Show;
use crate::types::Value;

/// The LIMIT / OFFSET of a `SELECT SQL_CALC_FOUND_ROWS`, applied once its rows are counted.
pub struct CountedLimit {
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
}

impl CountedLimit {
    /// Note how many `rows` there are (FOUND_ROWS() after the statement), then cut them.
    pub fn apply(&self, mut rows: Vec<Vec<Value>>, env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
        let limit = select::eval_count(&self.limit, env)?;
        let offset = select::eval_count(&self.offset, env)?.unwrap_or(0);
        env.found_rows.set(Some(rows.len() as u64));
        let start = offset.min(rows.len() as u64) as usize;
        let end = match limit {
            Some(l) => start.saturating_add(l.min(usize::MAX as u64) as usize),
            None => rows.len(),
        }
        .min(rows.len());
        rows.truncate(end);
        rows.drain(..start);
        Ok(rows)
    }
}

/// Make a SELECT's plan count its rows before its LIMIT.
pub fn count_select(p: &mut SelectPlan) {
    let limit = p.limit.take();
    let offset = p.offset.take();
    p.counted = Some(Box::new(CountedLimit { limit, offset }));
}

/// Make a query expression's plan count its rows before its LIMIT (see the module doc for
/// UNION ALL).
pub fn count_query(q: &mut QueryPlan) {
    match &mut q.node {
        Node::Select(s) => count_select(s),
        Node::Sorted(s) => {
            let stops_early = s.order.is_empty()
                && matches!(&s.input.node, Node::SetOp(op) if op.ops.iter().all(|(_, all)| *all));
            s.counts_found_rows = !stops_early;
        }
        // No LIMIT of its own: the rows it returns.
        Node::SetOp(_) | Node::Recursive(_) => {}
    }
}

/// Does this SHOW set FOUND_ROWS() (MariaDB answers it with a SELECT on
/// `information_schema`)?
pub fn counts_show(s: &Show) -> bool {
    match s {
        Show::Databases(_)
        | Show::Tables { .. }
        | Show::Columns { .. }
        | Show::Index { .. }
        | Show::Variables { .. }
        | Show::Status(_)
        | Show::Engines
        | Show::TableStatus { .. }
        | Show::Collation(_)
        | Show::Charset(_) => true,
        Show::CreateTable { .. }
        | Show::CreateView { .. }
        | Show::CreateDatabase(..)
        | Show::CreateUser(_)
        | Show::Warnings { .. }
        | Show::ProcessList { .. }
        | Show::Grants(_)
        | Show::BinaryLogs
        | Show::MasterStatus
        | Show::SlaveHosts
        | Show::BinlogEvents { .. } => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::session::state::{ServerContext, SessionState};
    use crate::sql::{self, QueryResult};
    use crate::testkit::{root_session, rows, run_all};
    use crate::types::Value;

    fn server() -> (ServerContext, SessionState) {
        let ctx = ServerContext::for_tests();
        let mut sess = root_session(1);
        run_all(
            &ctx,
            &mut sess,
            &[
                "CREATE DATABASE d",
                "USE d",
                "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
                "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)",
            ],
        );
        (ctx, sess)
    }

    fn found(ctx: &ServerContext, sess: &mut SessionState) -> Value {
        rows(ctx, sess, "SELECT FOUND_ROWS()").remove(0).remove(0)
    }

    #[test]
    fn a_new_session_has_found_no_rows() {
        let ctx = ServerContext::for_tests();
        let mut sess = root_session(1);
        assert_eq!(found(&ctx, &mut sess), Value::Int(0));
        // The SELECT FOUND_ROWS() itself returned a row.
        assert_eq!(found(&ctx, &mut sess), Value::Int(1));
    }

    /// The statement cache runs the same text with other LIMIT values as parameters: each
    /// run counts with its own.
    #[test]
    fn cached_statements_count_with_their_own_limit() {
        let (ctx, mut sess) = server();
        for (limit, offset, n) in [(2, 0, 2), (1, 3, 1), (0, 0, 0), (9, 4, 1)] {
            let sql =
                format!("SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE v > 0 LIMIT {offset}, {limit}");
            assert_eq!(rows(&ctx, &mut sess, &sql).len(), n, "{sql}");
            assert_eq!(found(&ctx, &mut sess), Value::Int(5), "{sql}");
            let plain = format!("SELECT id FROM t WHERE v > 0 LIMIT {offset}, {limit}");
            rows(&ctx, &mut sess, &plain);
            assert_eq!(found(&ctx, &mut sess), Value::Int(n as i64), "{plain}");
        }
        assert!(sess.stmt_cache.hits() > 0);
    }

    /// COM_STMT_EXECUTE of a prepared SELECT SQL_CALC_FOUND_ROWS with its LIMIT a parameter,
    /// and of a prepared SELECT FOUND_ROWS().
    #[test]
    fn prepared_statements_count_and_answer() {
        let (ctx, mut sess) = server();
        let counted = sql::prepare(
            &ctx,
            &mut sess,
            "SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE id > ? LIMIT ?",
        )
        .unwrap();
        let answer = sql::prepare(&ctx, &mut sess, "SELECT FOUND_ROWS()").unwrap();
        let exec = |sess: &mut SessionState, p: &sql::Prepared, params: &[Value]| {
            let r = sql::execute_prepared(&ctx, sess, p, params);
            sess.end_statement(&ctx, r.is_ok()).unwrap();
            match r.unwrap() {
                QueryResult::Rows { rows, .. } => rows,
                other => panic!("not rows: {other:?}"),
            }
        };
        let got = exec(&mut sess, &counted, &[Value::Int(1), Value::Int(1)]);
        assert_eq!(got, vec![vec![Value::Int(2)]]);
        assert_eq!(exec(&mut sess, &answer, &[]), vec![vec![Value::Int(4)]]);
        let got = exec(&mut sess, &counted, &[Value::Int(3), Value::Int(0)]);
        assert!(got.is_empty());
        assert_eq!(exec(&mut sess, &answer, &[]), vec![vec![Value::Int(2)]]);
        // The previous statement was the prepared SELECT FOUND_ROWS(): one row.
        assert_eq!(exec(&mut sess, &answer, &[]), vec![vec![Value::Int(1)]]);
    }

    /// A failed statement, and a failed SELECT SQL_CALC_FOUND_ROWS, leave the count alone.
    #[test]
    fn errors_leave_it_alone() {
        let (ctx, mut sess) = server();
        rows(
            &ctx,
            &mut sess,
            "SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 1",
        );
        let e = crate::testkit::run(
            &ctx,
            &mut sess,
            "SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE id IN (SELECT SQL_CALC_FOUND_ROWS 1)",
        )
        .unwrap_err();
        assert_eq!(e.code().number(), 1234);
        let e = crate::testkit::run(
            &ctx,
            &mut sess,
            "SELECT SQL_CALC_FOUND_ROWS 1 / nope FROM t",
        )
        .unwrap_err();
        assert_eq!(e.code().number(), 1054);
        assert_eq!(found(&ctx, &mut sess), Value::Int(5));
    }
}
