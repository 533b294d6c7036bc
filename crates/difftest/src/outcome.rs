//! What a server answered to one statement, and how two answers compare.
//!
//! Rows are compared value by value as the text protocol sends them (bytes), in order when the
//! query's ORDER BY fixes the order completely and as multisets otherwise. The one allowance is
//! for FLOAT / DOUBLE columns: values that parse as numbers are equal within a relative 1e-9,
//! because summing doubles in a different order may change the last digits. Errors are equal
//! when both servers fail with the same code (messages may differ in detail).

use mysql::consts::ColumnType;
use mysql::prelude::Queryable;
use mysql::{Conn, Value};
use std::fmt::Write as _;

/// Cohort's "not supported yet" (ER_NOT_SUPPORTED_YET).
pub const NOT_SUPPORTED: u16 = 1235;
/// Cohort's statement stopped by the tester's watchdog (KILL QUERY: 1317).
pub const QUERY_INTERRUPTED: u16 = 1317;
/// MariaDB's max_statement_time exceeded.
pub const STATEMENT_TIMEOUT: u16 = 1969;

/// Errors a server raises from a value it computes (not from the statement's shape): out of
/// range (1690), a scalar subquery of more than one row (1242), division by zero in strict mode
/// (1365), an incorrect value (1292, 1366, 1411). Whether one is raised depends on which rows
/// and expressions a server's plan evaluates.
pub const DATA_ERRORS: &[u16] = &[1690, 1242, 1365, 1292, 1366, 1411];

pub type Row = Vec<Option<Vec<u8>>>;

/// One server failed with a data error and the other returned rows, or both failed with
/// different data errors (see [`DATA_ERRORS`]): which of two failing expressions a server
/// evaluates first (`POW(x, x)` out of range, 1690, or a subquery of two rows, 1242) is its
/// plan's choice.
pub fn evaluation_order(a: &Outcome, b: &Outcome) -> bool {
    let data_error = |o: &Outcome| o.error_code().is_some_and(|c| DATA_ERRORS.contains(&c));
    let rows = |o: &Outcome| matches!(o, Outcome::Rows { .. });
    (data_error(a) && rows(b))
        || (rows(a) && data_error(b))
        || (data_error(a) && data_error(b) && a.error_code() != b.error_code())
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Rows {
        /// Per column: whether it is FLOAT / DOUBLE.
        float: Vec<bool>,
        rows: Vec<Row>,
    },
    Error {
        code: u16,
        message: String,
    },
    /// The connection failed (a server crash or hang); the text says how.
    Lost(String),
}

impl Outcome {
    pub fn error_code(&self) -> Option<u16> {
        match self {
            Outcome::Error { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// Runs one statement (text protocol) and collects its answer.
pub fn run(conn: &mut Conn, sql: &str) -> Outcome {
    let mut result = match conn.query_iter(sql) {
        Ok(r) => r,
        Err(e) => return from_error(e),
    };
    let float: Vec<bool> = result
        .columns()
        .as_ref()
        .iter()
        .map(|c| {
            matches!(
                c.column_type(),
                ColumnType::MYSQL_TYPE_DOUBLE | ColumnType::MYSQL_TYPE_FLOAT
            )
        })
        .collect();
    let mut rows = Vec::new();
    for row in result.by_ref() {
        match row {
            Ok(r) => rows.push(
                r.unwrap()
                    .into_iter()
                    .map(|v| match v {
                        Value::NULL => None,
                        Value::Bytes(b) => Some(b),
                        other => Some(other.as_sql(true).into_bytes()),
                    })
                    .collect(),
            ),
            Err(e) => return from_error(e),
        }
    }
    Outcome::Rows { float, rows }
}

fn from_error(e: mysql::Error) -> Outcome {
    match e {
        mysql::Error::MySqlError(m) => Outcome::Error {
            code: m.code,
            message: m.message,
        },
        other => Outcome::Lost(other.to_string()),
    }
}

/// Whether two answers agree (see the module doc). `ordered`: compare rows in order.
pub fn same(a: &Outcome, b: &Outcome, ordered: bool) -> bool {
    match (a, b) {
        (Outcome::Error { code: x, .. }, Outcome::Error { code: y, .. }) => x == y,
        (
            Outcome::Rows {
                float: fa,
                rows: ra,
            },
            Outcome::Rows {
                float: fb,
                rows: rb,
            },
        ) => {
            if fa.len() != fb.len() || ra.len() != rb.len() {
                return false;
            }
            if ra.iter().chain(rb.iter()).any(|r| r.len() != fa.len()) {
                return false;
            }
            let float: Vec<bool> = fa.iter().zip(fb).map(|(x, y)| *x || *y).collect();
            if ordered {
                return ra.iter().zip(rb).all(|(x, y)| row_eq(x, y, &float));
            }
            let mut sa = ra.clone();
            let mut sb = rb.clone();
            sa.sort_by_cached_key(|x| row_key(x, &float));
            sb.sort_by_cached_key(|x| row_key(x, &float));
            if sa.iter().zip(&sb).all(|(x, y)| row_eq(x, y, &float)) {
                return true;
            }
            // Approximate floats may sort apart; fall back to matching row by row.
            float.iter().any(|f| *f) && multiset_match(&sa, &sb, &float)
        }
        _ => false,
    }
}

fn value_eq(a: &Option<Vec<u8>>, b: &Option<Vec<u8>>, float: bool) -> bool {
    match (a, b) {
        (Some(x), Some(y)) if x != y && float => match (parse_f64(x), parse_f64(y)) {
            (Some(p), Some(q)) => p == q || (p - q).abs() <= 1e-9 * p.abs().max(q.abs()),
            _ => false,
        },
        _ => a == b,
    }
}

fn parse_f64(b: &[u8]) -> Option<f64> {
    std::str::from_utf8(b).ok()?.parse().ok()
}

fn row_eq(a: &Row, b: &Row, float: &[bool]) -> bool {
    a.iter()
        .zip(b)
        .zip(float)
        .all(|((x, y), f)| value_eq(x, y, *f))
}

/// A sort key: exact bytes, floats rounded to 8 significant digits.
fn row_key(r: &Row, float: &[bool]) -> Vec<Option<Vec<u8>>> {
    r.iter()
        .zip(float)
        .map(|(v, f)| match (v, f) {
            (Some(b), true) => match parse_f64(b) {
                Some(x) => Some(format!("{x:.8e}").into_bytes()),
                None => Some(b.clone()),
            },
            _ => v.clone(),
        })
        .collect()
}

fn multiset_match(a: &[Row], b: &[Row], float: &[bool]) -> bool {
    let mut used = vec![false; b.len()];
    'rows: for x in a {
        for (i, y) in b.iter().enumerate() {
            if !used[i] && row_eq(x, y, float) {
                used[i] = true;
                continue 'rows;
            }
        }
        return false;
    }
    true
}

/// The answer as text, for reports (at most `max_rows` rows).
pub fn render(o: &Outcome, max_rows: usize) -> String {
    match o {
        Outcome::Error { code, message } => format!("ERROR {code}: {message}"),
        Outcome::Lost(e) => format!("CONNECTION LOST: {e}"),
        Outcome::Rows { rows, .. } => {
            let mut s = format!("{} row(s)", rows.len());
            for r in rows.iter().take(max_rows) {
                let cells: Vec<String> = r
                    .iter()
                    .map(|v| match v {
                        None => "NULL".to_string(),
                        Some(b) => match std::str::from_utf8(b) {
                            Ok(t) => format!("'{t}'"),
                            Err(_) => format!(
                                "X'{}'",
                                b.iter().map(|x| format!("{x:02X}")).collect::<String>()
                            ),
                        },
                    })
                    .collect();
                let _ = write!(s, "\n  ({})", cells.join(", "));
            }
            if rows.len() > max_rows {
                let _ = write!(s, "\n  … {} more", rows.len() - max_rows);
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(float: bool, v: &[&[Option<&str>]]) -> Outcome {
        Outcome::Rows {
            float: vec![float; v.first().map_or(1, |r| r.len())],
            rows: v
                .iter()
                .map(|r| r.iter().map(|c| c.map(|s| s.as_bytes().to_vec())).collect())
                .collect(),
        }
    }

    #[test]
    fn order_matters_only_when_asked() {
        let a = rows(false, &[&[Some("1")], &[Some("2")], &[None]]);
        let b = rows(false, &[&[None], &[Some("2")], &[Some("1")]]);
        assert!(same(&a, &b, false));
        assert!(!same(&a, &b, true));
        // Multisets: duplicates count.
        let c = rows(false, &[&[Some("1")], &[Some("1")], &[None]]);
        assert!(!same(&a, &c, false));
    }

    #[test]
    fn values_compare_as_bytes_except_doubles() {
        assert!(!same(
            &rows(false, &[&[Some("1.0")]]),
            &rows(false, &[&[Some("1")]]),
            true
        ));
        assert!(same(
            &rows(true, &[&[Some("0.30000000000000004")]]),
            &rows(true, &[&[Some("0.3")]]),
            true
        ));
        assert!(!same(
            &rows(true, &[&[Some("0.31")]]),
            &rows(true, &[&[Some("0.3")]]),
            true
        ));
        assert!(!same(
            &rows(true, &[&[Some("1")]]),
            &rows(true, &[&[None]]),
            false
        ));
    }

    #[test]
    fn errors_compare_by_code() {
        let e = |code| Outcome::Error {
            code,
            message: String::new(),
        };
        assert!(same(&e(1054), &e(1054), true));
        assert!(!same(&e(1054), &e(1064), true));
        assert!(!same(&e(1054), &rows(false, &[]), true));
    }
}
