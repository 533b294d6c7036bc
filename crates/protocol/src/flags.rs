//! Bit flags: capability flags (handshake) and server status flags (OK / EOF packets).
//!
//! Capabilities are a `u32` exchanged in the handshake; what both sides may use is
//! `client & server`. Clients send bits the server did not offer (libmariadb always sends
//! `MULTI_STATEMENTS`, `SESSION_TRACK`, `LOCAL_FILES`), so always mask before relying on one.
//!
//! MariaDB's extended capabilities ([`mariadb_capability`]) travel in the last 4 of the
//! reserved bytes of the greeting and of HandshakeResponse41, and count only when the
//! sender leaves `CLIENT_MYSQL` (`LONG_PASSWORD`) clear — which is how MariaDB servers say
//! they have them. Cohort's greeting does so and offers [`SERVER_MARIADB_CAPABILITIES`].

/// Capability flags (`CLIENT_*`).
pub mod capability {
    /// `CLIENT_LONG_PASSWORD`; MariaDB calls it `CLIENT_MYSQL`. A MariaDB server leaves it
    /// clear in its greeting to say the greeting carries [`super::mariadb_capability`] flags
    /// (a client that clears it in its response sends its own); Cohort's greeting does too.
    pub const LONG_PASSWORD: u32 = 0x0000_0001;
    pub const FOUND_ROWS: u32 = 0x0000_0002;
    pub const LONG_FLAG: u32 = 0x0000_0004;
    pub const CONNECT_WITH_DB: u32 = 0x0000_0008;
    pub const NO_SCHEMA: u32 = 0x0000_0010;
    pub const COMPRESS: u32 = 0x0000_0020;
    pub const ODBC: u32 = 0x0000_0040;
    pub const LOCAL_FILES: u32 = 0x0000_0080;
    pub const IGNORE_SPACE: u32 = 0x0000_0100;
    pub const PROTOCOL_41: u32 = 0x0000_0200;
    pub const INTERACTIVE: u32 = 0x0000_0400;
    pub const SSL: u32 = 0x0000_0800;
    pub const IGNORE_SIGPIPE: u32 = 0x0000_1000;
    pub const TRANSACTIONS: u32 = 0x0000_2000;
    pub const RESERVED: u32 = 0x0000_4000;
    pub const SECURE_CONNECTION: u32 = 0x0000_8000;
    pub const MULTI_STATEMENTS: u32 = 0x0001_0000;
    pub const MULTI_RESULTS: u32 = 0x0002_0000;
    pub const PS_MULTI_RESULTS: u32 = 0x0004_0000;
    pub const PLUGIN_AUTH: u32 = 0x0008_0000;
    pub const CONNECT_ATTRS: u32 = 0x0010_0000;
    pub const PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 0x0020_0000;
    pub const CAN_HANDLE_EXPIRED_PASSWORDS: u32 = 0x0040_0000;
    pub const SESSION_TRACK: u32 = 0x0080_0000;
    pub const DEPRECATE_EOF: u32 = 0x0100_0000;
    pub const QUERY_ATTRIBUTES: u32 = 0x0800_0000;
}

/// What Cohort advertises in HandshakeV10: `0x00bfa68e`.
///
/// FOUND_ROWS, LONG_FLAG, CONNECT_WITH_DB, LOCAL_FILES (LOAD DATA LOCAL INFILE), PROTOCOL_41,
/// INTERACTIVE, TRANSACTIONS, SECURE_CONNECTION, MULTI_STATEMENTS, MULTI_RESULTS,
/// PS_MULTI_RESULTS, PLUGIN_AUTH, CONNECT_ATTRS, PLUGIN_AUTH_LENENC_CLIENT_DATA, SESSION_TRACK
/// (OK packets carry their info as a length-encoded string and, with
/// `SERVER_SESSION_STATE_CHANGED`, the session state changes: [`crate::session_state`]).
/// `LONG_PASSWORD` (`CLIENT_MYSQL`) is clear, as in MariaDB's greeting: the greeting carries
/// [`SERVER_MARIADB_CAPABILITIES`]. Deliberately absent: COMPRESS, DEPRECATE_EOF,
/// QUERY_ATTRIBUTES; and SSL, which the server adds to a greeting only when it has TLS
/// configured.
pub const SERVER_CAPABILITIES: u32 = capability::FOUND_ROWS
    | capability::MULTI_STATEMENTS
    | capability::LONG_FLAG
    | capability::CONNECT_WITH_DB
    | capability::LOCAL_FILES
    | capability::PROTOCOL_41
    | capability::INTERACTIVE
    | capability::TRANSACTIONS
    | capability::SECURE_CONNECTION
    | capability::MULTI_RESULTS
    | capability::PS_MULTI_RESULTS
    | capability::PLUGIN_AUTH
    | capability::CONNECT_ATTRS
    | capability::PLUGIN_AUTH_LENENC_CLIENT_DATA
    | capability::SESSION_TRACK;

/// MariaDB's extended capability flags (`MARIADB_CLIENT_*`, documented as bits 32.. of a
/// 64-bit set; here the upper half alone, as sent in the 4 handshake bytes).
pub mod mariadb_capability {
    pub const PROGRESS: u32 = 0x0000_0001;
    pub const COM_MULTI: u32 = 0x0000_0002;
    pub const STMT_BULK_OPERATIONS: u32 = 0x0000_0004;
    /// Column definitions carry a block of extended type info after `org_name`
    /// ([`crate::column::ExtendedTypeInfo`]).
    pub const EXTENDED_METADATA: u32 = 0x0000_0008;
    pub const CACHE_METADATA: u32 = 0x0000_0010;
    pub const BULK_UNIT_RESULTS: u32 = 0x0000_0020;
}

/// The MariaDB extended capabilities Cohort offers: EXTENDED_METADATA and
/// STMT_BULK_OPERATIONS (COM_STMT_BULK_EXECUTE, [`crate::bulk`]).
pub const SERVER_MARIADB_CAPABILITIES: u32 =
    mariadb_capability::EXTENDED_METADATA | mariadb_capability::STMT_BULK_OPERATIONS;

/// What this crate's client side (the bench) asks for; `CONNECT_WITH_DB` is added when a
/// database is given. Everything here is understood by this crate's decoders.
pub const CLIENT_CAPABILITIES: u32 = capability::LONG_PASSWORD
    | capability::LONG_FLAG
    | capability::PROTOCOL_41
    | capability::TRANSACTIONS
    | capability::SECURE_CONNECTION
    | capability::MULTI_RESULTS
    | capability::PS_MULTI_RESULTS
    | capability::PLUGIN_AUTH
    | capability::CONNECT_ATTRS
    | capability::PLUGIN_AUTH_LENENC_CLIENT_DATA;

/// Server status flags (`SERVER_STATUS_*`, `SERVER_*`), sent in OK and EOF packets.
///
/// Keep `IN_TRANS` and `AUTOCOMMIT` accurate in every OK/EOF: PyMySQL derives its
/// autocommit state from them.
pub mod status {
    pub const IN_TRANS: u16 = 0x0001;
    pub const AUTOCOMMIT: u16 = 0x0002;
    pub const MORE_RESULTS_EXISTS: u16 = 0x0008;
    pub const NO_GOOD_INDEX_USED: u16 = 0x0010;
    pub const NO_INDEX_USED: u16 = 0x0020;
    pub const CURSOR_EXISTS: u16 = 0x0040;
    pub const LAST_ROW_SENT: u16 = 0x0080;
    pub const DB_DROPPED: u16 = 0x0100;
    pub const NO_BACKSLASH_ESCAPES: u16 = 0x0200;
    pub const METADATA_CHANGED: u16 = 0x0400;
    pub const QUERY_WAS_SLOW: u16 = 0x0800;
    pub const PS_OUT_PARAMS: u16 = 0x1000;
    pub const IN_TRANS_READONLY: u16 = 0x2000;
    pub const SESSION_STATE_CHANGED: u16 = 0x4000;
    /// MariaDB's SERVER_STATUS_ANSI_QUOTES: `sql_mode` has ANSI_QUOTES (Connector/C and its
    /// kin quote identifiers by it).
    pub const ANSI_QUOTES: u16 = 0x8000;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_capabilities_are_the_recommended_set_with_multi_statements_and_local_files() {
        assert_eq!(
            SERVER_CAPABILITIES,
            (0x003e_a60f | capability::MULTI_STATEMENTS | capability::LOCAL_FILES)
                & !capability::LONG_PASSWORD
                | capability::SESSION_TRACK
        );
        assert_eq!(SERVER_CAPABILITIES, 0x00bf_a68e);
        assert_eq!(SERVER_CAPABILITIES & capability::LONG_PASSWORD, 0);
        assert_eq!(SERVER_CAPABILITIES & capability::DEPRECATE_EOF, 0);
        assert_eq!(SERVER_CAPABILITIES & capability::SSL, 0);
    }

    #[test]
    fn client_capabilities_are_a_subset_of_the_server_set() {
        // LONG_PASSWORD is the one exception: the bench client sends it (MySQL's meaning),
        // and masking with a MariaDB-style greeting clears it.
        assert_eq!(
            CLIENT_CAPABILITIES & !SERVER_CAPABILITIES,
            capability::LONG_PASSWORD
        );
    }
}
