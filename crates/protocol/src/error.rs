//! [`ProtocolError`]: why a payload could not be decoded (or a response encoded).
//!
//! Decoders in this crate never panic on input: anything short, inconsistent or out of
//! range comes back as one of these. [`ProtocolError::error_code`] suggests the MySQL error
//! the server should answer with, and [`ProtocolError::is_fatal`] says whether the byte stream
//! itself is broken (the connection must be closed after answering).

use crate::error_code::ErrorCode;
use std::fmt;

/// A decode (or encode) failure. `what` names the field or packet being handled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// The payload ended before a field it must contain.
    Truncated { what: &'static str },
    /// A field holds a value the protocol does not allow.
    Malformed { what: &'static str },
    /// A packet header announced a payload bigger than the reader's limit (1153).
    /// `size` is the logical payload size announced so far; `seq` is the offending header's
    /// sequence id (reply with `seq + 1`).
    PacketTooLarge { size: usize, max: usize, seq: u8 },
    /// A packet arrived with an unexpected sequence id (1156).
    OutOfOrder { expected: u8, got: u8 },
    /// COM_STMT_EXECUTE named a parameter type this crate cannot decode.
    UnsupportedType { type_code: u8 },
    /// COM_STMT_EXECUTE sent no parameter types and none were remembered for the statement.
    MissingParamTypes,
    /// The client sent an SSLRequest where a HandshakeResponse41 was expected: TLS is not
    /// offered, or the connection is already inside TLS.
    SslRequested,
    /// Encoding a row: cell `column` cannot be sent as the column's wire type `type_code`.
    CellTypeMismatch { column: usize, type_code: u8 },
    /// Encoding a row: the number of cells differs from the number of columns.
    ColumnCountMismatch { columns: usize, cells: usize },
}

/// Result alias used by every decoder in this crate.
pub type Result<T, E = ProtocolError> = std::result::Result<T, E>;

impl ProtocolError {
    /// The MySQL error the server should send for this failure.
    ///
    /// Context may call for a more specific code: a bad HandshakeResponse is better answered
    /// with 1043 (`HandshakeError`), a bad COM_STMT_EXECUTE body with 1210 (`WrongArguments`).
    pub fn error_code(&self) -> ErrorCode {
        match self {
            ProtocolError::PacketTooLarge { .. } => ErrorCode::NetPacketTooLarge,
            ProtocolError::OutOfOrder { .. } => ErrorCode::NetPacketsOutOfOrder,
            ProtocolError::Truncated { .. }
            | ProtocolError::Malformed { .. }
            | ProtocolError::UnsupportedType { .. } => ErrorCode::MalformedPacket,
            ProtocolError::MissingParamTypes => ErrorCode::WrongArguments,
            ProtocolError::SslRequested => ErrorCode::HandshakeError,
            ProtocolError::CellTypeMismatch { .. } | ProtocolError::ColumnCountMismatch { .. } => {
                ErrorCode::Unknown
            }
        }
    }

    /// True when the byte stream can no longer be trusted: answer, then close the connection.
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            ProtocolError::PacketTooLarge { .. }
                | ProtocolError::OutOfOrder { .. }
                | ProtocolError::SslRequested
        )
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::Truncated { what } => write!(f, "malformed packet: {what} is truncated"),
            ProtocolError::Malformed { what } => write!(f, "malformed packet: bad {what}"),
            ProtocolError::PacketTooLarge { size, max, .. } => write!(
                f,
                "Got a packet bigger than 'max_allowed_packet' bytes ({size} > {max})"
            ),
            ProtocolError::OutOfOrder { expected, got } => write!(
                f,
                "Got packets out of order (expected sequence id {expected}, got {got})"
            ),
            ProtocolError::UnsupportedType { type_code } => {
                write!(f, "unsupported parameter type 0x{type_code:02x}")
            }
            ProtocolError::MissingParamTypes => {
                write!(f, "parameter types were never sent for this statement")
            }
            ProtocolError::SslRequested => {
                write!(f, "the client requested TLS where it is not offered")
            }
            ProtocolError::CellTypeMismatch { column, type_code } => write!(
                f,
                "value of column {column} cannot be sent as wire type 0x{type_code:02x}"
            ),
            ProtocolError::ColumnCountMismatch { columns, cells } => {
                write!(f, "row has {cells} values for {columns} columns")
            }
        }
    }
}

impl std::error::Error for ProtocolError {}
