//! System variables: `SHOW VARIABLES`, `SELECT @@x`, `SET [GLOBAL|SESSION] x = v`.
//!
//! Every variable is declared once in [`DEFINITIONS`] with its scope, whether it can change at
//! run time, its kind (which validates and normalises assigned values) and its default. The
//! configuration (`cohort serve` flags and the TOML file) writes the same names through
//! [`SystemVariables::set_startup`], so every setting is visible here.
//!
//! Locking: global values live in one `RwLock<Vec>` (by position in `DEFINITIONS`); reads take
//! it shared. Session values live in the session (`SessionState::session_vars`) and take no
//! lock.

use crate::error::{Error, Result};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use parking_lot::RwLock;
use std::collections::HashMap;

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Only `@@global.x`.
    Global,
    /// Only `@@session.x` (its global value is the default for new sessions, but SET GLOBAL fails).
    Session,
    /// Both: SET GLOBAL changes the default for new sessions.
    Both,
}

/// What values a variable accepts.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Bool,
    /// An unsigned integer in `[min, max]`.
    UInt {
        min: u64,
        max: u64,
    },
    /// One of a fixed set of words (compared case-insensitively, stored as given in the list).
    Enum(&'static [&'static str]),
    /// Free text.
    Text,
    /// Computed from the server's state each time it is read (`gtid_binlog_pos`, …):
    /// read-only; [`SystemVariables::set_live`] installs what computes it.
    Live,
    /// A fractional number of seconds in `[0, max]` with microsecond precision, stored as a
    /// `Decimal` of scale 6 (`max_statement_time` shows `0.000000`, as in MariaDB).
    Seconds {
        max: u64,
    },
}

/// One variable's declaration.
pub struct VarDef {
    pub name: &'static str,
    pub scope: Scope,
    /// False: only set at startup (flags / config file); SET fails with 1238.
    pub dynamic: bool,
    pub kind: Kind,
    pub default: &'static str,
}

const fn var(
    name: &'static str,
    scope: Scope,
    dynamic: bool,
    kind: Kind,
    default: &'static str,
) -> VarDef {
    VarDef {
        name,
        scope,
        dynamic,
        kind,
        default,
    }
}

const U32: u64 = u32::MAX as u64;
const CHARSETS: &[&str] = &["utf8mb4", "utf8mb3", "utf8", "latin1", "binary", "ascii"];
/// The collations a session's `collation_*` variables may name: Cohort's own, and latin1's
/// and ascii's two (a connection in those character sets reads and writes them; its literals
/// compare as utf8mb4_general_ci).
const COLLATIONS: &[&str] = &[
    "utf8mb4_general_ci",
    "utf8mb4_bin",
    "utf8mb4_unicode_ci",
    "utf8mb4_unicode_520_ci",
    "utf8mb3_general_ci",
    "utf8mb3_bin",
    "utf8mb3_unicode_ci",
    "utf8mb3_unicode_520_ci",
    "latin1_swedish_ci",
    "latin1_bin",
    "ascii_general_ci",
    "ascii_bin",
    "binary",
];

/// Every system variable, sorted by name.
pub static DEFINITIONS: &[VarDef] = &[
    // Only 1 is honoured; other values are refused (1235, `exec/admin.rs`).
    var(
        "auto_increment_increment",
        Scope::Both,
        true,
        Kind::UInt { min: 1, max: 65535 },
        "1",
    ),
    // Only 1 is honoured; other values are refused (1235, `exec/admin.rs`).
    var(
        "auto_increment_offset",
        Scope::Both,
        true,
        Kind::UInt { min: 1, max: 65535 },
        "1",
    ),
    var("autocommit", Scope::Both, true, Kind::Bool, "ON"),
    var(
        "bind_address",
        Scope::Global,
        false,
        Kind::Text,
        "127.0.0.1",
    ),
    // Annotate_rows events (the statement's text) before the rows events, as MariaDB.
    var(
        "binlog_annotate_row_events",
        Scope::Both,
        true,
        Kind::Bool,
        "ON",
    ),
    // Every event carries a CRC32; other algorithms are refused.
    var(
        "binlog_checksum",
        Scope::Global,
        true,
        Kind::Enum(&["CRC32"]),
        "CRC32",
    ),
    var(
        "binlog_commit_wait_count",
        Scope::Global,
        true,
        Kind::UInt { min: 0, max: U32 },
        "0",
    ),
    var(
        "binlog_commit_wait_usec",
        Scope::Global,
        true,
        Kind::UInt { min: 0, max: U32 },
        "100000",
    ),
    var(
        "binlog_expire_logs_seconds",
        Scope::Global,
        true,
        Kind::UInt { min: 0, max: U32 },
        "0",
    ),
    var(
        "binlog_format",
        Scope::Global,
        false,
        Kind::Enum(&["ROW"]),
        "ROW",
    ),
    var(
        "binlog_optimize_thread_scheduling",
        Scope::Global,
        true,
        Kind::Bool,
        "ON",
    ),
    var("binlog_preallocate", Scope::Global, false, Kind::Bool, "ON"),
    // Rows events carry whole rows (before and after images); other images are refused.
    var(
        "binlog_row_image",
        Scope::Both,
        true,
        Kind::Enum(&["FULL"]),
        "FULL",
    ),
    // Table_map optional metadata (`cohort_binlog::tablemeta`); MariaDB's default.
    var(
        "binlog_row_metadata",
        Scope::Global,
        true,
        Kind::Enum(&["NO_LOG", "MINIMAL", "FULL"]),
        "NO_LOG",
    ),
    var(
        "character_set_client",
        Scope::Both,
        true,
        Kind::Enum(CHARSETS),
        "utf8mb4",
    ),
    var(
        "character_set_connection",
        Scope::Both,
        true,
        Kind::Enum(CHARSETS),
        "utf8mb4",
    ),
    var(
        "character_set_database",
        Scope::Both,
        true,
        Kind::Enum(CHARSETS),
        "utf8mb4",
    ),
    var(
        "character_set_results",
        Scope::Both,
        true,
        Kind::Enum(CHARSETS),
        "utf8mb4",
    ),
    var(
        "character_set_server",
        Scope::Both,
        true,
        Kind::Enum(CHARSETS),
        "utf8mb4",
    ),
    var(
        "character_set_system",
        Scope::Global,
        false,
        Kind::Text,
        "utf8mb3",
    ),
    // OFF: CHECK constraints are not evaluated (`sql/exec/check.rs`).
    var(
        "check_constraint_checks",
        Scope::Both,
        true,
        Kind::Bool,
        "ON",
    ),
    var(
        "checkpoint_interval_seconds",
        Scope::Global,
        true,
        Kind::UInt { min: 1, max: 86400 },
        "60",
    ),
    var(
        "checkpoint_log_bytes",
        Scope::Global,
        true,
        Kind::UInt {
            min: 4096,
            max: u64::MAX,
        },
        "268435456",
    ),
    var(
        "collation_connection",
        Scope::Both,
        true,
        Kind::Enum(COLLATIONS),
        "utf8mb4_general_ci",
    ),
    var(
        "collation_database",
        Scope::Both,
        true,
        Kind::Enum(COLLATIONS),
        "utf8mb4_general_ci",
    ),
    var(
        "collation_server",
        Scope::Both,
        true,
        Kind::Enum(COLLATIONS),
        "utf8mb4_general_ci",
    ),
    var(
        "commit_mode",
        Scope::Global,
        false,
        Kind::Enum(&["one-log", "classic"]),
        "one-log",
    ),
    var(
        "commit_wakeup",
        Scope::Global,
        true,
        Kind::Enum(&["targeted", "broadcast"]),
        "targeted",
    ),
    // Only NO_CHAIN is honoured; CHAIN and RELEASE are refused (1235, `exec/replay_vars.rs`).
    var(
        "completion_type",
        Scope::Both,
        true,
        Kind::Enum(&["NO_CHAIN", "CHAIN", "RELEASE"]),
        "NO_CHAIN",
    ),
    var(
        "concurrency_queue",
        Scope::Global,
        true,
        Kind::Enum(&["fifo", "adaptive-sleep"]),
        "fifo",
    ),
    var("datadir", Scope::Global, false, Kind::Text, "./cohort-data"),
    var("debug_failpoint", Scope::Global, true, Kind::Text, ""),
    var(
        "default_storage_engine",
        Scope::Both,
        true,
        Kind::Enum(&["InnoDB"]),
        "InnoDB",
    ),
    // TIMESTAMP columns take the defaults they declare (ON); OFF is refused (1235).
    var(
        "explicit_defaults_for_timestamp",
        Scope::Both,
        true,
        Kind::Bool,
        "ON",
    ),
    var(
        "extra_max_connections",
        Scope::Global,
        true,
        Kind::UInt {
            min: 1,
            max: 100000,
        },
        "1",
    ),
    var(
        "extra_port",
        Scope::Global,
        false,
        Kind::UInt { min: 0, max: 65535 },
        "0",
    ),
    // GTID state (`crate::log::gtid`). The positions are computed when read; a primary has no
    // replica position. The domain applies to the groups written after it is set.
    // OFF: FOREIGN KEYs are neither checked nor cascaded (`sql/exec/fk.rs`); restores set it.
    var("foreign_key_checks", Scope::Both, true, Kind::Bool, "ON"),
    var("gtid_binlog_pos", Scope::Global, false, Kind::Live, ""),
    var("gtid_binlog_state", Scope::Global, false, Kind::Live, ""),
    var("gtid_current_pos", Scope::Global, false, Kind::Live, ""),
    var(
        "gtid_domain_id",
        Scope::Both,
        true,
        Kind::UInt { min: 0, max: U32 },
        "0",
    ),
    // `mariadb-binlog` output sets it before each transaction (`exec/replay_vars.rs`).
    var(
        "gtid_seq_no",
        Scope::Session,
        true,
        Kind::UInt {
            min: 0,
            max: u64::MAX,
        },
        "0",
    ),
    var("gtid_slave_pos", Scope::Global, false, Kind::Text, ""),
    // Cohort writes GTIDs strictly in order in one sequence, which is what strict mode asks.
    var("gtid_strict_mode", Scope::Global, true, Kind::Bool, "OFF"),
    // TLS (crate::tls): YES once it is configured at startup; have_openssl says the same, as
    // in MariaDB (the library is rustls: version_ssl_library).
    var("have_openssl", Scope::Global, false, Kind::Text, "DISABLED"),
    var("have_ssl", Scope::Global, false, Kind::Text, "DISABLED"),
    var("hostname", Scope::Global, false, Kind::Text, "localhost"),
    var(
        "innodb_adaptive_max_sleep_delay",
        Scope::Global,
        true,
        Kind::UInt {
            min: 0,
            max: 1000000,
        },
        "150000",
    ),
    var(
        "innodb_concurrency_tickets",
        Scope::Global,
        true,
        Kind::UInt { min: 1, max: U32 },
        "5000",
    ),
    var(
        "innodb_flush_log_at_trx_commit",
        Scope::Global,
        true,
        Kind::UInt { min: 0, max: 2 },
        "1",
    ),
    var(
        "innodb_lock_wait_timeout",
        Scope::Both,
        true,
        Kind::UInt {
            min: 0,
            max: 1073741824,
        },
        "50",
    ),
    var(
        "innodb_rollback_on_timeout",
        Scope::Global,
        false,
        Kind::Bool,
        "OFF",
    ),
    var(
        "innodb_thread_concurrency",
        Scope::Global,
        true,
        Kind::UInt { min: 0, max: 1000 },
        "0",
    ),
    var(
        "innodb_thread_sleep_delay",
        Scope::Global,
        true,
        Kind::UInt {
            min: 0,
            max: 1000000,
        },
        "10000",
    ),
    // Only 0 (no forced value): statement-based replay is refused (1235).
    var(
        "insert_id",
        Scope::Session,
        true,
        Kind::UInt {
            min: 0,
            max: u64::MAX,
        },
        "0",
    ),
    var(
        "interactive_timeout",
        Scope::Both,
        true,
        Kind::UInt {
            min: 1,
            max: 31536000,
        },
        "28800",
    ),
    // Read and set through the session's LAST_INSERT_ID() (`sql/env.rs`).
    var(
        "last_insert_id",
        Scope::Session,
        true,
        Kind::UInt {
            min: 0,
            max: u64::MAX,
        },
        "0",
    ),
    // Month and day names are English: only en_US (or its number, 0) is taken.
    var(
        "lc_time_names",
        Scope::Both,
        true,
        Kind::Enum(&["en_US"]),
        "en_US",
    ),
    var("license", Scope::Global, false, Kind::Text, "Apache-2.0"),
    // LOAD DATA LOCAL INFILE is served (when the client also allows it).
    var("local_infile", Scope::Global, true, Kind::Bool, "ON"),
    var(
        "lock_wait_timeout",
        Scope::Both,
        true,
        Kind::UInt {
            min: 0,
            max: 31536000,
        },
        "86400",
    ),
    var("log_bin", Scope::Global, false, Kind::Bool, "ON"),
    var("log_bin_basename", Scope::Global, false, Kind::Text, ""),
    var(
        "log_flush_placement",
        Scope::Global,
        true,
        Kind::Enum(&["group", "prepare"]),
        "group",
    ),
    var(
        "log_sync_delay_us",
        Scope::Global,
        true,
        Kind::UInt {
            min: 0,
            max: 10000000,
        },
        "0",
    ),
    var(
        "lower_case_table_names",
        Scope::Global,
        false,
        Kind::UInt { min: 0, max: 0 },
        "0",
    ),
    var(
        "max_allowed_packet",
        Scope::Both,
        true,
        Kind::UInt {
            min: 1024,
            max: 1073741824,
        },
        "16777216",
    ),
    var(
        "max_binlog_size",
        Scope::Global,
        true,
        Kind::UInt {
            min: 4096,
            max: 1073741824,
        },
        "1073741824",
    ),
    var(
        "max_connections",
        Scope::Global,
        true,
        Kind::UInt {
            // MariaDB's floor: `SET GLOBAL max_connections = 0` becomes 10 with a 1292
            // warning, so an administrator cannot lock every client out.
            min: 10,
            max: 100000,
        },
        "151",
    ),
    var(
        "max_delayed_threads",
        Scope::Both,
        true,
        Kind::UInt { min: 0, max: 16384 },
        "20",
    ),
    var(
        "max_join_size",
        Scope::Both,
        true,
        Kind::UInt {
            min: 1,
            max: u64::MAX,
        },
        "18446744073709551615",
    ),
    var(
        "max_prepared_stmt_count",
        Scope::Global,
        true,
        Kind::UInt { min: 0, max: U32 },
        "16382",
    ),
    // Rounds of a recursive CTE (MariaDB 10.11's bound; past it the result is cut, 1931).
    var(
        "max_recursive_iterations",
        Scope::Both,
        true,
        Kind::UInt { min: 0, max: U32 },
        "1000",
    ),
    // MariaDB's variable; its default there is unlimited. Cohort bounds a connection by
    // default (see the session module doc for what it covers).
    var(
        "max_session_mem_used",
        Scope::Both,
        true,
        Kind::UInt {
            min: 8192,
            max: i64::MAX as u64,
        },
        "1073741824",
    ),
    // Seconds a statement may run before it ends with 1969 (0: no limit); see
    // `crate::interrupt`.
    var(
        "max_statement_time",
        Scope::Both,
        true,
        Kind::Seconds { max: 31536000 },
        "0",
    ),
    var(
        "net_buffer_length",
        Scope::Both,
        true,
        Kind::UInt {
            min: 1024,
            max: 1048576,
        },
        "16384",
    ),
    var(
        "net_read_timeout",
        Scope::Both,
        true,
        Kind::UInt {
            min: 1,
            max: 31536000,
        },
        "30",
    ),
    var(
        "net_write_timeout",
        Scope::Both,
        true,
        Kind::UInt {
            min: 1,
            max: 31536000,
        },
        "60",
    ),
    var("performance_schema", Scope::Global, true, Kind::Bool, "ON"),
    var(
        "port",
        Scope::Global,
        false,
        Kind::UInt { min: 0, max: 65535 },
        "3306",
    ),
    var("protocol_version", Scope::Global, false, Kind::Text, "10"),
    // Set by `mariadb-binlog` output around its BINLOG statements (`exec/binlog_stmt`).
    var("pseudo_slave_mode", Scope::Session, true, Kind::Bool, "OFF"),
    // The session's CONNECTION_ID(); reads as the connection id until set (`sql/env.rs`).
    var(
        "pseudo_thread_id",
        Scope::Session,
        true,
        Kind::UInt { min: 0, max: U32 },
        "0",
    ),
    // Statement-based replay of RAND() is refused: only reads (0) (`exec/replay_vars.rs`).
    var(
        "rand_seed1",
        Scope::Session,
        true,
        Kind::UInt { min: 0, max: U32 },
        "0",
    ),
    var(
        "rand_seed2",
        Scope::Session,
        true,
        Kind::UInt { min: 0, max: U32 },
        "0",
    ),
    // ON: connections outside TLS are refused (3159). Defaults ON when bind_address is not a
    // loopback address (crate::config); SET GLOBAL ON needs TLS configured (4167).
    var(
        "require_secure_transport",
        Scope::Global,
        true,
        Kind::Bool,
        "OFF",
    ),
    // Semi-synchronous replication (`crate::log::semisync`). MariaDB's default wait point is
    // AFTER_COMMIT; Cohort's is AFTER_SYNC, the one that loses nothing when the primary fails.
    var(
        "rpl_semi_sync_master_enabled",
        Scope::Global,
        true,
        Kind::Bool,
        "OFF",
    ),
    var(
        "rpl_semi_sync_master_timeout",
        Scope::Global,
        true,
        Kind::UInt { min: 0, max: U32 },
        "10000",
    ),
    var(
        "rpl_semi_sync_master_wait_no_slave",
        Scope::Global,
        true,
        Kind::Bool,
        "ON",
    ),
    var(
        "rpl_semi_sync_master_wait_point",
        Scope::Global,
        true,
        Kind::Enum(&["AFTER_SYNC", "AFTER_COMMIT"]),
        "AFTER_SYNC",
    ),
    // The directory LOAD DATA INFILE may read server files from; empty (the default): reading
    // server files is refused (1290). Unlike MariaDB, where an unset value allows any file.
    var("secure_file_priv", Scope::Global, false, Kind::Text, ""),
    var(
        "server_id",
        Scope::Both,
        true,
        Kind::UInt { min: 1, max: U32 },
        "1",
    ),
    // Session state tracking (CLIENT_SESSION_TRACK, `session::track`): what OK packets report.
    var("session_track_schema", Scope::Both, true, Kind::Bool, "ON"),
    var(
        "session_track_state_change",
        Scope::Both,
        true,
        Kind::Bool,
        "OFF",
    ),
    // A list of variable names or `*`; kept sorted and without duplicates, as MariaDB shows it.
    var(
        "session_track_system_variables",
        Scope::Both,
        true,
        Kind::Text,
        "autocommit,character_set_client,character_set_connection,character_set_results,time_zone",
    ),
    // STATE and CHARACTERISTICS are refused with 1235 (`sql/exec/admin.rs`).
    var(
        "session_track_transaction_info",
        Scope::Both,
        true,
        Kind::Enum(&["OFF", "STATE", "CHARACTERISTICS"]),
        "OFF",
    ),
    // No parallel applier to skip: accepted, as on a server that is no replica.
    var(
        "skip_parallel_replication",
        Scope::Session,
        true,
        Kind::Bool,
        "OFF",
    ),
    var("socket", Scope::Global, false, Kind::Text, ""),
    var("sql_auto_is_null", Scope::Both, true, Kind::Bool, "OFF"),
    // Only OFF: ON (DDL as IF EXISTS) is refused (1235).
    var("sql_if_exists", Scope::Both, true, Kind::Bool, "OFF"),
    var(
        "sql_mode",
        Scope::Both,
        true,
        Kind::Text,
        "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",
    ),
    // OFF: notes (warnings of level Note) are not kept (see session::dispatch).
    var("sql_notes", Scope::Both, true, Kind::Bool, "ON"),
    // OFF: SHOW CREATE TABLE quotes only the identifiers that need it (see exec::show).
    var("sql_quote_show_create", Scope::Both, true, Kind::Bool, "ON"),
    var("sql_safe_updates", Scope::Both, true, Kind::Bool, "OFF"),
    var(
        "sql_select_limit",
        Scope::Both,
        true,
        Kind::UInt {
            min: 0,
            max: u64::MAX,
        },
        "18446744073709551615",
    ),
    // The certificate files in use (the generated ones included) and the CAs that client
    // certificates must chain to; the others are MariaDB's and stay empty (not settable).
    var("ssl_ca", Scope::Global, false, Kind::Text, ""),
    var("ssl_capath", Scope::Global, false, Kind::Text, ""),
    var("ssl_cert", Scope::Global, false, Kind::Text, ""),
    var("ssl_cipher", Scope::Global, false, Kind::Text, ""),
    var("ssl_crl", Scope::Global, false, Kind::Text, ""),
    var("ssl_crlpath", Scope::Global, false, Kind::Text, ""),
    var("ssl_key", Scope::Global, false, Kind::Text, ""),
    var(
        "storage_engine",
        Scope::Both,
        true,
        Kind::Enum(&["InnoDB"]),
        "InnoDB",
    ),
    var(
        "sync_binlog",
        Scope::Global,
        true,
        Kind::UInt { min: 0, max: U32 },
        "1",
    ),
    var("system_time_zone", Scope::Global, false, Kind::Text, "UTC"),
    // No system-versioned tables: only OFF (1235).
    var(
        "system_versioning_insert_history",
        Scope::Both,
        true,
        Kind::Bool,
        "OFF",
    ),
    var(
        "thread_handling",
        Scope::Global,
        false,
        Kind::Enum(&["one-thread-per-connection", "pool-of-threads"]),
        "one-thread-per-connection",
    ),
    var(
        "thread_pool_idle_timeout",
        Scope::Global,
        true,
        Kind::UInt { min: 1, max: U32 },
        "60",
    ),
    // Not MariaDB's 65536: Linux's default vm.max_map_count (65530) allows about 32k thread
    // stacks, and more workers than sessions that can block at once (max_connections) never
    // help. See `crate::sched`.
    var(
        "thread_pool_max_threads",
        Scope::Global,
        true,
        Kind::UInt { min: 1, max: 65536 },
        "10000",
    ),
    var(
        "thread_pool_oversubscribe",
        Scope::Global,
        true,
        Kind::UInt { min: 1, max: 1000 },
        "3",
    ),
    var(
        "thread_pool_prio_kickup_timer",
        Scope::Global,
        true,
        Kind::UInt { min: 0, max: U32 },
        "1000",
    ),
    var(
        "thread_pool_priority",
        Scope::Global,
        true,
        Kind::Enum(&["high", "low", "auto"]),
        "auto",
    ),
    // 0 = the number of CPUs, resolved at startup (SHOW VARIABLES shows the number in force).
    // Dynamic from 1 up to the pool's group table (`crate::sched`, "Resizing").
    var(
        "thread_pool_size",
        Scope::Global,
        true,
        Kind::UInt {
            min: 0,
            max: 100000,
        },
        "0",
    ),
    var(
        "thread_pool_stall_limit",
        Scope::Global,
        true,
        Kind::UInt { min: 1, max: U32 },
        "500",
    ),
    // Cohort's own: serve each connection in the group of its client's CPU, with group g's
    // workers pinned to CPU g or not (`crate::sched::steer`). Startup only.
    var(
        "thread_pool_steering",
        Scope::Global,
        false,
        Kind::Enum(&["OFF", "ON", "PINNED"]),
        "ON",
    ),
    var("time_zone", Scope::Both, true, Kind::Text, "SYSTEM"),
    var(
        "tls_version",
        Scope::Global,
        false,
        Kind::Text,
        crate::tls::TLS_VERSIONS,
    ),
    var(
        "transaction_isolation",
        Scope::Both,
        true,
        Kind::Enum(ISOLATION_LEVELS),
        "REPEATABLE-READ",
    ),
    var(
        "transaction_read_only",
        Scope::Both,
        true,
        Kind::Bool,
        "OFF",
    ),
    var(
        "tx_isolation",
        Scope::Both,
        true,
        Kind::Enum(ISOLATION_LEVELS),
        "REPEATABLE-READ",
    ),
    var("tx_read_only", Scope::Both, true, Kind::Bool, "OFF"),
    // OFF lets an engine skip uniqueness checks of secondary indexes during bulk loads (it may,
    // it need not: MariaDB's InnoDB checks where it must); Cohort always checks.
    var("unique_checks", Scope::Both, true, Kind::Bool, "ON"),
    var("version", Scope::Global, false, Kind::Text, crate::VERSION),
    var(
        "version_comment",
        Scope::Global,
        false,
        Kind::Text,
        "Cohort OLTP server",
    ),
    var(
        "version_compile_machine",
        Scope::Global,
        false,
        Kind::Text,
        std::env::consts::ARCH,
    ),
    var(
        "version_compile_os",
        Scope::Global,
        false,
        Kind::Text,
        std::env::consts::OS,
    ),
    var(
        "version_ssl_library",
        Scope::Global,
        false,
        Kind::Text,
        crate::tls::LIBRARY,
    ),
    var(
        "wait_timeout",
        Scope::Both,
        true,
        Kind::UInt {
            min: 1,
            max: 31536000,
        },
        "28800",
    ),
];

/// The values of `tx_isolation` / `transaction_isolation`, in MariaDB's order (`SET
/// tx_isolation = 2` is REPEATABLE-READ).
const ISOLATION_LEVELS: &[&str] = &[
    "READ-UNCOMMITTED",
    "READ-COMMITTED",
    "REPEATABLE-READ",
    "SERIALIZABLE",
];

/// Variables whose session value a session cannot change (MariaDB: 1621). A session's
/// `max_allowed_packet` bounds what it may build (see [`crate::session::memory`]).
pub const SESSION_READ_ONLY: &[&str] = &["max_allowed_packet"];

/// Other names of variables, sorted: `(alias, variable)`. The InnoDB admission settings are
/// also known by their short names (the `cohort serve` flags and the bench use those).
pub static ALIASES: &[(&str, &str)] = &[
    (
        "adaptive_max_sleep_delay",
        "innodb_adaptive_max_sleep_delay",
    ),
    ("concurrency_tickets", "innodb_concurrency_tickets"),
    ("thread_concurrency", "innodb_thread_concurrency"),
    ("thread_sleep_delay", "innodb_thread_sleep_delay"),
];

/// Look up a variable's declaration by (case-insensitive) name or alias.
pub fn definition(name: &str) -> Option<&'static VarDef> {
    position(name).map(|i| &DEFINITIONS[i])
}

/// The position in [`DEFINITIONS`] of a variable, by (case-insensitive) name or alias.
fn position(name: &str) -> Option<usize> {
    // Both tables are sorted by (lower-case) name: binary searches, no allocation. The
    // server's own look-ups name variables in lower case: plain comparisons for them.
    if !name.bytes().any(|b| b.is_ascii_uppercase()) {
        if let Ok(i) = DEFINITIONS.binary_search_by(|d| d.name.cmp(name)) {
            return Some(i);
        }
        let i = ALIASES
            .binary_search_by(|(alias, _)| alias.cmp(&name))
            .ok()?;
        return position(ALIASES[i].1);
    }
    let lower = || name.bytes().map(|b| b.to_ascii_lowercase());
    if let Ok(i) = DEFINITIONS.binary_search_by(|d| d.name.bytes().cmp(lower())) {
        return Some(i);
    }
    let i = ALIASES
        .binary_search_by(|(alias, _)| alias.bytes().cmp(lower()))
        .ok()?;
    position(ALIASES[i].1)
}

/// Global values of all system variables.
pub struct SystemVariables {
    /// By position in [`DEFINITIONS`] (no hashing on a lookup). Protected by its own lock;
    /// read on `SELECT @@x`, at session start and on some hot paths.
    globals: RwLock<Vec<Value>>,
    /// Told after `SET GLOBAL` changed one of their variables (registered at server start).
    watchers: RwLock<Vec<Watcher>>,
    /// Bumped by every change of a global value: sessions that cache values derived from the
    /// variables (the characteristics of their next transaction) look again when it moved.
    generation: std::sync::atomic::AtomicU64,
    /// Ranges narrower than the definition's that `SET GLOBAL` must respect, known only once
    /// the server runs (e.g. `thread_pool_size` up to the pool's group table).
    run_time_bounds: RwLock<HashMap<&'static str, (u64, u64)>>,
    /// Computes the [`Kind::Live`] variables (installed at server start).
    live: RwLock<Option<LiveProvider>>,
    /// Checks a `SET GLOBAL` value must pass, known only once the server runs (e.g.
    /// `require_secure_transport = ON` needs TLS configured).
    vetoes: RwLock<Vec<Veto>>,
}

/// Computes a [`Kind::Live`] variable's value from its (canonical) name.
pub type LiveProvider = Box<dyn Fn(&str) -> Option<Value> + Send + Sync>;

/// A run-time check of `SET GLOBAL name = value` (the value as normalised).
struct Veto {
    name: &'static str,
    check: VetoCheck,
}

type VetoCheck = Box<dyn Fn(&Value) -> Result<()> + Send + Sync>;

/// A subsystem that keeps its own copy of some settings (e.g. in atomics on a hot path).
struct Watcher {
    names: &'static [&'static str],
    on_change: Box<dyn Fn(&SystemVariables) + Send + Sync>,
}

impl Default for SystemVariables {
    fn default() -> Self {
        Self::new()
    }
}

impl SystemVariables {
    /// Every variable at its declared default.
    pub fn new() -> SystemVariables {
        let globals = DEFINITIONS
            .iter()
            .map(|d| match d.kind {
                Kind::Live => Value::str(d.default),
                _ => normalise(d, Value::str(d.default)).expect("valid default"),
            })
            .collect();
        SystemVariables {
            globals: RwLock::new(globals),
            // Each set of variables starts its generations apart from every other's, so a
            // cache keyed by generation (and address) never takes one for another.
            generation: std::sync::atomic::AtomicU64::new(
                GENERATION_BASE.fetch_add(1 << 32, std::sync::atomic::Ordering::Relaxed),
            ),
            watchers: RwLock::new(Vec::new()),
            run_time_bounds: RwLock::new(HashMap::new()),
            live: RwLock::new(None),
            vetoes: RwLock::new(Vec::new()),
        }
    }

    /// From now on `SET GLOBAL name` must pass `check` (its error is the statement's).
    pub fn veto(&self, name: &str, check: impl Fn(&Value) -> Result<()> + Send + Sync + 'static) {
        if let Some(def) = definition(name) {
            self.vetoes.write().push(Veto {
                name: def.name,
                check: Box::new(check),
            });
        }
    }

    /// Install what computes the [`Kind::Live`] variables.
    pub fn set_live(&self, provider: LiveProvider) {
        *self.live.write() = Some(provider);
    }

    fn live_value(&self, def: &VarDef) -> Value {
        let live = self.live.read();
        live.as_ref()
            .and_then(|f| f(def.name))
            .unwrap_or_else(|| Value::str(def.default))
    }

    /// Call `on_change` after every `SET GLOBAL` of one of `names` (canonical names).
    pub fn watch(
        &self,
        names: &'static [&'static str],
        on_change: impl Fn(&SystemVariables) + Send + Sync + 'static,
    ) {
        self.watchers.write().push(Watcher {
            names,
            on_change: Box::new(on_change),
        });
    }

    /// From now on `SET GLOBAL name` accepts only `min..=max` (1231 otherwise): a subsystem
    /// can follow a change only within limits it fixed when it started.
    pub fn bound(&self, name: &str, min: u64, max: u64) {
        if let Some(def) = definition(name) {
            self.run_time_bounds.write().insert(def.name, (min, max));
        }
    }

    pub fn exists(&self, name: &str) -> bool {
        definition(name).is_some()
    }

    /// The global value (also the session default), by lower-case name.
    pub fn global(&self, name: &str) -> Option<Value> {
        let i = position(name)?;
        let def = &DEFINITIONS[i];
        if matches!(def.kind, Kind::Live) {
            return Some(self.live_value(def));
        }
        self.globals.read().get(i).cloned()
    }

    /// A global value as an unsigned integer (for numeric settings the server reads).
    pub fn global_u64(&self, name: &str) -> u64 {
        let as_u64 = |v: &Value| match v {
            Value::UInt(v) => *v,
            Value::Int(v) => (*v).max(0) as u64,
            _ => 0,
        };
        match position(name) {
            Some(i) if !matches!(DEFINITIONS[i].kind, Kind::Live) => {
                self.globals.read().get(i).map_or(0, as_u64)
            }
            _ => self.global(name).as_ref().map_or(0, as_u64),
        }
    }

    /// A global ON/OFF value as a bool.
    pub fn global_bool(&self, name: &str) -> bool {
        let on = |v: &Value| matches!(v, Value::Bytes(b) if b == b"ON");
        match position(name) {
            Some(i) if !matches!(DEFINITIONS[i].kind, Kind::Live) => {
                self.globals.read().get(i).is_some_and(on)
            }
            _ => self.global(name).as_ref().is_some_and(on),
        }
    }

    /// Apply a configuration setting at startup: read-only variables may be set here.
    /// Changes with every change of a global value.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }

    pub fn set_startup(&self, name: &str, value: Value) -> Result<()> {
        let i = position(name).ok_or_else(|| unknown(name))?;
        let def = &DEFINITIONS[i];
        let v = normalise(def, value)?;
        self.globals.write()[i] = v;
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(())
    }

    /// `SET GLOBAL name = value`.
    /// What [`Self::set_global`] would refuse, without setting anything (SET's first pass):
    /// an unknown, read-only or session-only variable, a value of the wrong type or out of
    /// its run-time bounds, a veto.
    pub fn check_global_set(&self, name: &str, value: Value) -> Result<Value> {
        let def = self.global_definition(name)?;
        let v = normalise(def, value)?;
        self.check_run_time_bound(def.name, &v)?;
        for veto in self.vetoes.read().iter().filter(|x| x.name == def.name) {
            (veto.check)(&v)?;
        }
        Ok(v)
    }

    /// The definition of a variable SET GLOBAL may change.
    fn global_definition(&self, name: &str) -> Result<&'static VarDef> {
        let def = definition(name).ok_or_else(|| unknown(name))?;
        if !def.dynamic {
            return Err(read_only(def.name));
        }
        if def.scope == Scope::Session {
            return Err(Error::new(
                ErrorCode::LocalVariable,
                format!(
                    "Variable '{}' is a SESSION variable and can't be used with SET GLOBAL",
                    def.name
                ),
            ));
        }
        Ok(def)
    }

    pub fn set_global(&self, name: &str, value: Value) -> Result<()> {
        let def = self.global_definition(name)?;
        let v = normalise(def, value)?;
        self.check_run_time_bound(def.name, &v)?;
        for veto in self.vetoes.read().iter().filter(|x| x.name == def.name) {
            (veto.check)(&v)?;
        }
        apply_side_effect(def.name, &v)?;
        self.globals.write()[position(def.name).expect("declared")] = v;
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        for w in self.watchers.read().iter() {
            if w.names.contains(&def.name) {
                (w.on_change)(self);
            }
        }
        Ok(())
    }

    fn check_run_time_bound(&self, name: &'static str, v: &Value) -> Result<()> {
        let (Some(&(min, max)), Value::UInt(n)) = (self.run_time_bounds.read().get(name), v) else {
            return Ok(());
        };
        if (min..=max).contains(n) {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::WrongValueForVar,
            format!("Variable '{name}' can't be set to the value of '{n}' (while the server runs: {min} to {max})"),
        ))
    }

    /// Validate `SET SESSION name = value`; returns the normalised value to store in the session.
    pub fn check_session_set(&self, name: &str, value: Value) -> Result<Value> {
        let def = definition(name).ok_or_else(|| unknown(name))?;
        if !def.dynamic {
            return Err(read_only(def.name));
        }
        if SESSION_READ_ONLY.contains(&def.name) {
            return Err(Error::new(
                ErrorCode::VariableIsReadonly,
                format!(
                    "SESSION variable '{}' is read-only. Use SET GLOBAL to assign the value",
                    def.name
                ),
            ));
        }
        if def.scope == Scope::Global {
            return Err(Error::new(
                ErrorCode::GlobalVariable,
                format!(
                    "Variable '{}' is a GLOBAL variable and should be set with SET GLOBAL",
                    def.name
                ),
            ));
        }
        normalise(def, value)
    }

    /// All global values, sorted by name.
    pub fn list_global(&self) -> Vec<(String, Value)> {
        let g = self.globals.read();
        DEFINITIONS
            .iter()
            .zip(g.iter())
            .map(|(d, v)| match d.kind {
                Kind::Live => (d.name.to_string(), self.live_value(d)),
                _ => (d.name.to_string(), v.clone()),
            })
            .collect()
    }
}

/// Variables that switch something outside this table when set.
fn apply_side_effect(name: &str, v: &Value) -> Result<()> {
    match name {
        "debug_failpoint" => crate::log::failpoint::arm(&display(v)).map_err(|msg| {
            Error::new(
                ErrorCode::WrongValueForVar,
                format!("Variable 'debug_failpoint': {msg}"),
            )
        }),
        _ => Ok(()),
    }
}

fn unknown(name: &str) -> Error {
    Error::new(
        ErrorCode::UnknownSystemVariable,
        format!("Unknown system variable '{name}'"),
    )
}

fn read_only(name: &str) -> Error {
    Error::new(
        ErrorCode::IncorrectGlobalLocalVar,
        format!("Variable '{name}' is a read only variable"),
    )
}

fn wrong_value(name: &str, v: &Value) -> Error {
    Error::new(
        ErrorCode::WrongValueForVar,
        format!(
            "Variable '{name}' can't be set to the value of '{}'",
            display(v)
        ),
    )
}

fn wrong_type(name: &str) -> Error {
    Error::new(
        ErrorCode::WrongTypeForVar,
        format!("Incorrect argument type to variable '{name}'"),
    )
}

/// Text form of a value for messages and `SHOW VARIABLES`.
pub fn display(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Double(d) => d.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Date(d) => d.to_string(),
        Value::DateTime(d) => d.to_string(),
        Value::Time(t) => crate::sql::time_value::format(*t, None),
    }
}

/// The text of MySQL's 1292 warning when a numeric setting is out of its range and will be
/// clamped into it (`Truncated incorrect max_connections value: '0'`); `None` when it fits or
/// is not a number setting.
pub fn clamp_warning(name: &str, value: &Value) -> Option<String> {
    let def = definition(name)?;
    if let Kind::Seconds { max } = def.kind {
        let shown = match value {
            Value::Int(i) => i.to_string(),
            Value::UInt(u) => u.to_string(),
            Value::Double(_) | Value::Decimal(_) => display(value),
            _ => return None,
        };
        let secs: f64 = shown.parse().ok()?;
        return (!(0.0..=max as f64).contains(&secs))
            .then(|| format!("Truncated incorrect {} value: '{shown}'", def.name));
    }
    let Kind::UInt { min, max } = def.kind else {
        return None;
    };
    let (fits, shown) = match value {
        Value::Int(i) => (*i >= 0 && (min..=max).contains(&(*i as u64)), i.to_string()),
        Value::UInt(u) => ((min..=max).contains(u), u.to_string()),
        Value::Bytes(b) => {
            let t = String::from_utf8_lossy(b).trim().to_string();
            let n: u64 = t.parse().ok()?;
            ((min..=max).contains(&n), t)
        }
        _ => return None,
    };
    (!fits).then(|| format!("Truncated incorrect {} value: '{shown}'", def.name))
}

/// Check `value` against the variable's kind and return its canonical stored form:
/// booleans as "ON"/"OFF", integers as `UInt`, enums as the declared spelling.
fn normalise(def: &VarDef, value: Value) -> Result<Value> {
    match def.kind {
        Kind::Bool => normalise_bool(def.name, &value),
        Kind::UInt { min, max } => normalise_uint(def.name, &value, min, max),
        Kind::Enum(words) => {
            // An enum also takes the position of its value, as in MariaDB.
            let pos = match &value {
                Value::Int(i) => usize::try_from(*i).ok(),
                Value::UInt(u) => usize::try_from(*u).ok(),
                _ => None,
            };
            if matches!(value, Value::Int(_) | Value::UInt(_)) {
                return pos
                    .and_then(|p| words.get(p))
                    .map(|w| Value::str(w))
                    .ok_or_else(|| wrong_value(def.name, &value));
            }
            let b = match &value {
                Value::Bytes(b) => b,
                // NULL: "can't be set to the value of 'NULL'", as MariaDB, but for
                // character_set_results, where NULL means no conversion of results.
                Value::Null if def.name == "character_set_results" => return Ok(Value::Null),
                Value::Null => return Err(wrong_value(def.name, &value)),
                _ => return Err(wrong_type(def.name)),
            };
            let s = String::from_utf8_lossy(b);
            words
                .iter()
                .find(|w| w.eq_ignore_ascii_case(&s))
                .map(|w| Value::str(w))
                .ok_or_else(|| wrong_value(def.name, &value))
        }
        Kind::Text => match value {
            Value::Null => Err(wrong_value(def.name, &value)),
            v => Ok(Value::str(&display(&v))),
        },
        Kind::Live => Err(read_only(def.name)),
        Kind::Seconds { max } => normalise_seconds(def.name, &value, max),
    }
}

/// A [`Kind::Seconds`] value: negative values become 0 and large ones `max`, as MariaDB
/// clamps them.
fn normalise_seconds(name: &str, value: &Value, max: u64) -> Result<Value> {
    let secs: f64 = match value {
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Double(d) => *d,
        Value::Decimal(d) => d.to_string().parse().map_err(|_| wrong_type(name))?,
        Value::Bytes(b) => String::from_utf8_lossy(b)
            .trim()
            .parse()
            .map_err(|_| wrong_type(name))?,
        _ => return Err(wrong_type(name)),
    };
    if secs.is_nan() {
        return Err(wrong_type(name));
    }
    let micros = (secs.clamp(0.0, max as f64) * 1e6).round() as i128;
    Ok(Value::Decimal(crate::types::Decimal::new(micros, 6)))
}

/// Microseconds of a [`Kind::Seconds`] value as stored (0 for anything else).
pub fn seconds_micros(v: &Value) -> u64 {
    match v {
        Value::Decimal(d) => d
            .to_string()
            .parse::<f64>()
            .map_or(0, |s| (s * 1e6).round().max(0.0) as u64),
        Value::UInt(u) => u.saturating_mul(1_000_000),
        _ => 0,
    }
}

fn normalise_bool(name: &str, value: &Value) -> Result<Value> {
    let on = match value {
        Value::Int(0) | Value::UInt(0) => false,
        Value::Int(1) | Value::UInt(1) => true,
        Value::Bytes(b) => match String::from_utf8_lossy(b).to_ascii_uppercase().as_str() {
            "ON" | "TRUE" | "1" => true,
            "OFF" | "FALSE" | "0" => false,
            _ => return Err(wrong_value(name, value)),
        },
        Value::Double(_) | Value::Decimal(_) => return Err(wrong_type(name)),
        _ => return Err(wrong_value(name, value)),
    };
    Ok(Value::str(if on { "ON" } else { "OFF" }))
}

fn normalise_uint(name: &str, value: &Value, min: u64, max: u64) -> Result<Value> {
    let n: u64 = match value {
        Value::Int(i) if *i >= 0 => *i as u64,
        Value::Int(_) => min,
        Value::UInt(u) => *u,
        Value::Bytes(b) => String::from_utf8_lossy(b)
            .trim()
            .parse()
            .map_err(|_| wrong_type(name))?,
        _ => return Err(wrong_type(name)),
    };
    // MySQL clamps numeric settings into range (with a warning) rather than failing.
    Ok(Value::UInt(n.clamp(min, max)))
}

/// Where the next set of variables starts counting its generations (see `SystemVariables`).
static GENERATION_BASE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_sorted_and_defaults_valid() {
        let names: Vec<_> = DEFINITIONS.iter().map(|d| d.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        let vars = SystemVariables::new();
        assert_eq!(vars.global("AUTOCOMMIT"), Some(Value::str("ON")));
        assert_eq!(vars.global("socket"), Some(Value::str("")));
        assert_eq!(vars.global_u64("max_allowed_packet"), 16 << 20);
    }

    #[test]
    fn set_global_validates() {
        let vars = SystemVariables::new();
        vars.set_global("max_connections", Value::Int(500)).unwrap();
        assert_eq!(vars.global_u64("max_connections"), 500);
        let e = vars.set_global("port", Value::Int(1)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::IncorrectGlobalLocalVar);
        let e = vars.set_global("nope", Value::Int(1)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::UnknownSystemVariable);
        let e = vars
            .set_global("autocommit", Value::str("maybe"))
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::WrongValueForVar);
        let e = vars
            .check_session_set("max_connections", Value::Int(3))
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::GlobalVariable);
        assert_eq!(
            vars.check_session_set("transaction_isolation", Value::str("read-committed"))
                .unwrap(),
            Value::str("READ-COMMITTED")
        );
    }

    #[test]
    fn run_time_bounds_refuse_what_the_server_cannot_follow() {
        let vars = SystemVariables::new();
        vars.bound("thread_pool_size", 1, 128);
        vars.set_global("thread_pool_size", Value::Int(4)).unwrap();
        assert_eq!(vars.global_u64("thread_pool_size"), 4);
        for bad in [0, 129] {
            let e = vars
                .set_global("thread_pool_size", Value::Int(bad))
                .unwrap_err();
            assert_eq!(e.code(), ErrorCode::WrongValueForVar);
        }
        assert_eq!(vars.global_u64("thread_pool_size"), 4, "unchanged");
    }
}
