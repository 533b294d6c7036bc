//! Statement id 0xFFFFFFFF (-1): the statement the connection's last COM_STMT_PREPARE made, as
//! MariaDB answers it (MariaDB's Connector/Node.js sends the prepare and the execute together and
//! executes -1). Expected answers recorded from MariaDB 10.11 over the raw protocol.

use super::memory_tests::{binary_int, command, error_of, execute, long_data, prepare, session};

const LAST: u32 = u32::MAX;

fn unknown(what: &str) -> Option<(u16, String)> {
    Some((
        1243,
        format!("#HY000Unknown prepared statement handler (4294967295) given to {what}"),
    ))
}

#[test]
fn minus_one_is_the_last_prepared_statement() {
    let (_ctx, mut s) = session(&[]);
    // None prepared yet.
    assert_eq!(
        error_of(&execute(&mut s, LAST, Some(b"1"))),
        unknown("mysqld_stmt_execute")
    );
    let first = prepare(&mut s, "SELECT ? + 1").unwrap();
    assert_eq!(binary_int(&execute(&mut s, LAST, Some(b"41"))), 42);
    let second = prepare(&mut s, "SELECT ? * 2").unwrap();
    assert_ne!(first, second);
    assert_eq!(binary_int(&execute(&mut s, LAST, Some(b"21"))), 42);
    // The first is still there under its own id.
    assert_eq!(binary_int(&execute(&mut s, first, Some(b"1"))), 2);
    // Long data to -1 goes to the last statement.
    long_data(&mut s, LAST, 0, b"5");
    assert_eq!(binary_int(&execute(&mut s, second, None)), 10);
}

#[test]
fn a_failed_prepare_or_a_close_leaves_minus_one_unknown() {
    let (_ctx, mut s) = session(&[]);
    prepare(&mut s, "SELECT ? + 1").unwrap();
    assert_eq!(prepare(&mut s, "SELEC 1").unwrap_err().0, 1064);
    assert_eq!(
        error_of(&execute(&mut s, LAST, Some(b"1"))),
        unknown("mysqld_stmt_execute")
    );
    let id = prepare(&mut s, "SELECT ? + 2").unwrap();
    let mut close = vec![0x19];
    close.extend_from_slice(&LAST.to_le_bytes());
    assert!(command(&mut s, &close).is_empty());
    // Closing -1 closed the last statement, and -1 names nothing now.
    assert_eq!(
        error_of(&execute(&mut s, id, Some(b"1"))),
        Some((
            1243,
            format!("#HY000Unknown prepared statement handler ({id}) given to mysqld_stmt_execute")
        ))
    );
    assert_eq!(
        error_of(&execute(&mut s, LAST, Some(b"1"))),
        unknown("mysqld_stmt_execute")
    );
    let mut reset = vec![0x1A];
    reset.extend_from_slice(&LAST.to_le_bytes());
    assert_eq!(
        error_of(&command(&mut s, &reset)),
        unknown("mysqld_stmt_reset")
    );
}
