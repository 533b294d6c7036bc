//! SQL-level PREPARE shares `max_prepared_stmt_count` and `Prepared_stmt_count` with the
//! binary protocol's statements, and its statements go with the connection: at disconnect,
//! COM_RESET_CONNECTION and COM_CHANGE_USER (see `sql/exec/prepare_sql.rs`).

use super::memory_tests::{command, error_of, prepare, session};
use crate::status::StatusCounter;

fn query(s: &mut super::Session, sql: &str) -> Option<(u16, String)> {
    let mut p = vec![0x03];
    p.extend_from_slice(sql.as_bytes());
    error_of(&command(s, &p))
}

#[test]
fn named_and_protocol_statements_share_the_limit() {
    let (ctx, mut s) = session(&[("max_prepared_stmt_count", 2)]);
    assert_eq!(query(&mut s, "PREPARE a FROM 'SELECT 1'"), None);
    prepare(&mut s, "SELECT 2").unwrap();
    assert_eq!(ctx.status.get(StatusCounter::PreparedStmtCount), 2);
    let (code, msg) = query(&mut s, "PREPARE b FROM 'SELECT 3'").expect("over the limit");
    assert_eq!(code, 1461);
    assert_eq!(
        msg,
        "#42000Can't create more than max_prepared_stmt_count statements (current value: 2)"
    );
    assert_eq!(prepare(&mut s, "SELECT 4").unwrap_err().0, 1461);
    // Re-preparing a name frees its slot first.
    assert_eq!(query(&mut s, "PREPARE a FROM 'SELECT 5'"), None);
    assert_eq!(query(&mut s, "DEALLOCATE PREPARE a"), None);
    assert_eq!(ctx.status.get(StatusCounter::PreparedStmtCount), 1);
    assert_eq!(ctx.status.get(StatusCounter::ComPrepareSql), 3);
    assert_eq!(ctx.status.get(StatusCounter::ComDeallocSql), 1);
}

#[test]
fn reset_connection_and_disconnect_forget_named_statements() {
    let (ctx, mut s) = session(&[]);
    assert_eq!(query(&mut s, "PREPARE a FROM 'SELECT 1'"), None);
    assert_eq!(query(&mut s, "PREPARE b FROM 'SELECT 2'"), None);
    assert_eq!(ctx.status.get(StatusCounter::PreparedStmtCount), 2);
    assert!(error_of(&command(&mut s, &[0x1F])).is_none());
    assert_eq!(ctx.status.get(StatusCounter::PreparedStmtCount), 0);
    assert_eq!(query(&mut s, "EXECUTE a").map(|e| e.0), Some(1243));
    assert_eq!(query(&mut s, "PREPARE c FROM 'SELECT 3'"), None);
    assert_eq!(query(&mut s, "EXECUTE c"), None);
    s.on_disconnect();
    assert_eq!(ctx.status.get(StatusCounter::PreparedStmtCount), 0);
}
