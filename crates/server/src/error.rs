//! The server's error type, modelled by what the caller must do.
//!
//! Every error carries the MySQL [`ErrorCode`] and message the client will see; what differs
//! is the consequence for the session, given by [`Error::action`]:
//!
//! | action | meaning | examples |
//! |---|---|---|
//! | `RollbackStatement` | undo the failed statement's effects; the transaction stays open | 1062, 1048, 1205, 1146 |
//! | `RollbackTransaction` | the whole transaction is already rolled back; forget it | 1213 |
//! | `CloseConnection` | send the error, then close the connection | 1153, 1156, malformed packet |
//!
//! The wire mapping is [`Error::code`] + [`Error::message`].

use cohort_protocol::ErrorCode;
use std::fmt;

/// What the session must do after an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    RollbackStatement,
    RollbackTransaction,
    CloseConnection,
}

/// A server error: a MySQL code, its message, and the action it calls for.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    code: ErrorCode,
    message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// What the caller must do about this error.
    pub fn action(&self) -> Action {
        match self.code {
            ErrorCode::LockDeadlock => Action::RollbackTransaction,
            ErrorCode::NetPacketTooLarge
            | ErrorCode::NetPacketsOutOfOrder
            | ErrorCode::NetReadError
            | ErrorCode::HandshakeError => Action::CloseConnection,
            _ => Action::RollbackStatement,
        }
    }

    // Constructors for the errors raised from more than one place.

    pub fn parse(near: &str, line: usize) -> Error {
        let near: String = near.chars().take(80).collect();
        Error::new(
            ErrorCode::ParseError,
            format!(
                "You have an error in your SQL syntax; check the manual that corresponds to your \
                 MariaDB server version for the right syntax to use near '{near}' at line {line}"
            ),
        )
    }

    pub fn unsupported(what: &str) -> Error {
        Error::new(
            ErrorCode::NotSupportedYet,
            format!("This version of Cohort doesn't yet support '{what}'"),
        )
    }

    pub fn no_db() -> Error {
        Error::new(ErrorCode::NoDb, "No database selected")
    }

    pub fn bad_db(db: &str) -> Error {
        Error::new(ErrorCode::BadDb, format!("Unknown database '{db}'"))
    }

    pub fn no_such_table(db: &str, table: &str) -> Error {
        Error::new(
            ErrorCode::NoSuchTable,
            format!("Table '{db}.{table}' doesn't exist"),
        )
    }

    pub fn lock_wait_timeout() -> Error {
        Error::new(
            ErrorCode::LockWaitTimeout,
            "Lock wait timeout exceeded; try restarting transaction",
        )
    }

    pub fn deadlock() -> Error {
        Error::new(
            ErrorCode::LockDeadlock,
            "Deadlock found when trying to get lock; try restarting transaction",
        )
    }

    pub fn dup_entry(entry: &str, key: &str) -> Error {
        Error::new(
            ErrorCode::DupEntry,
            format!("Duplicate entry '{entry}' for key '{key}'"),
        )
    }

    pub fn internal(what: impl fmt::Display) -> Error {
        Error::new(ErrorCode::Unknown, format!("Internal error: {what}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code.number(),
            self.code.sqlstate(),
            self.message
        )
    }
}

impl std::error::Error for Error {}
