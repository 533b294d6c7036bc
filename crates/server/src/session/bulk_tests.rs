//! COM_STMT_BULK_EXECUTE (0xFA) is not implemented: Cohort does not advertise
//! MARIADB_CLIENT_STMT_BULK_OPERATIONS, and a bulk command is answered as MariaDB 10.11 answers
//! a client that did not negotiate it (1295), the session staying usable.

use super::memory_tests::{command, error_of, prepare, session};

#[test]
fn bulk_execute_is_refused_with_1295() {
    let (_ctx, mut s) = session(&[]);
    let id = prepare(&mut s, "SELECT ?").unwrap();
    let mut p = vec![0xFA];
    p.extend_from_slice(&id.to_le_bytes());
    p.extend_from_slice(&128u16.to_le_bytes());
    p.extend_from_slice(&[8, 0, 0]);
    p.extend_from_slice(&1i64.to_le_bytes());
    let (code, msg) = error_of(&command(&mut s, &p)).expect("an error");
    assert_eq!(code, 1295);
    assert!(msg.ends_with("This command is not supported in the prepared statement protocol yet"));
    // The session goes on.
    assert!(error_of(&command(&mut s, b"\x03SELECT 1")).is_none());
}
