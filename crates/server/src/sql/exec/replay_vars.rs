//! The session variables `mariadb-binlog` output sets, as MariaDB 10.11 takes them.
//!
//! Each Query event and GTID of a binlog comes out as `SET @@session.x = …` statements:
//! numeric collation ids (`collation_connection=33`, `collation_server=45`), `lc_time_names=0`,
//! `pseudo_thread_id`, `server_id`, `gtid_domain_id`, `gtid_seq_no`, and flags such as
//! `sql_if_exists` and `explicit_defaults_for_timestamp`. [`before_set`] runs before
//! `SET [SESSION]` stores one: privileges, numbers turned into names, and the values Cohort
//! does not honour refused with 1235 rather than kept and ignored. [`after_set`] does what
//! setting one changes beside it (a collation sets its character set, as MariaDB does).
//!
//! | variable | taken |
//! |---|---|
//! | `pseudo_thread_id`, `server_id`, `gtid_domain_id`, `gtid_seq_no` (session) | with SUPER or BINLOG REPLAY (else 1227); `pseudo_thread_id` is what CONNECTION_ID() answers |
//! | `collation_connection` / `_server` / `_database` | a name or a MariaDB collation id (1273 for an unknown id); sets `character_set_*` alike |
//! | `lc_time_names` | `en_US` or 0; other locales 1235 |
//! | `last_insert_id` | sets LAST_INSERT_ID() |
//! | `completion_type` | NO_CHAIN (0); CHAIN and RELEASE 1235 |
//! | `sql_if_exists`, `system_versioning_insert_history` | OFF; ON 1235 |
//! | `explicit_defaults_for_timestamp` | ON; OFF 1235 |
//! | `insert_id` | 0; another value (statement-based replay) 1235 |
//! | `rand_seed1`, `rand_seed2` | refused (1235): statement-based replay of RAND() |
//!
//! Cohort writes its own GTIDs: a session's `server_id`, `gtid_domain_id` and `gtid_seq_no`
//! are kept and read back but do not rename the transactions it commits.

use crate::error::{Error, Result};
use crate::session::{ServerContext, SessionState};
use crate::types::Value;
use cohort_protocol::ErrorCode;

/// What to store for `SET SESSION name = value` (None: DEFAULT); `Ok(None)` from `Some`:
/// the assignment is done already.
pub(super) fn before_set(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
) -> Result<Option<Option<Value>>> {
    match name {
        "pseudo_thread_id" | "server_id" | "gtid_domain_id" | "gtid_seq_no" => {
            super::admin::need_admin(ctx, sess, "SUPER, BINLOG REPLAY")?;
        }
        _ => {}
    }
    let Some(v) = value else {
        return Ok(Some(None));
    };
    let refused = |what: &str| Err(Error::unsupported(what));
    let text = || crate::sql::value_text(&v).to_ascii_uppercase();
    let number = || match &v {
        Value::Int(i) => Some(*i as i128),
        Value::UInt(u) => Some(*u as i128),
        _ => None,
    };
    let on = || number().map_or_else(|| matches!(text().as_str(), "ON" | "TRUE"), |n| n != 0);
    match name {
        "collation_connection" | "collation_server" | "collation_database" => {
            if let Some(n) = number() {
                let c = collation_name(n).ok_or_else(|| {
                    Error::new(
                        ErrorCode::UnknownCollation,
                        format!("Unknown collation: '{n}'"),
                    )
                })?;
                return Ok(Some(Some(Value::str(c))));
            }
            let t = text().to_ascii_lowercase();
            // `utf8_…` is utf8mb3's, as MariaDB shows it.
            if let Some(rest) = t.strip_prefix("utf8_") {
                return Ok(Some(Some(Value::str(&format!("utf8mb3_{rest}")))));
            }
            // Not a collation at all: 1273 (one Cohort lacks is 1231 from the list).
            if matches!(&v, Value::Bytes(_)) && charset_of(&t).is_none() && !t.contains('_') {
                return Err(Error::new(
                    ErrorCode::UnknownCollation,
                    format!("Unknown collation: '{}'", crate::sql::value_text(&v)),
                ));
            }
        }
        "lc_time_names" => {
            if number() == Some(0) || text() == "EN_US" {
                return Ok(Some(Some(Value::str("en_US"))));
            }
            return refused("lc_time_names other than en_US");
        }
        "last_insert_id" => {
            let n = number().ok_or_else(|| {
                Error::new(
                    ErrorCode::WrongTypeForVar,
                    "Incorrect argument type to variable 'last_insert_id'",
                )
            })?;
            sess.last_insert_id = n.clamp(0, u64::MAX as i128) as u64;
            return Ok(None);
        }
        "completion_type" => {
            let t = text();
            if number() == Some(0) || t == "NO_CHAIN" {
                return Ok(Some(Some(v)));
            }
            if matches!(number(), Some(1 | 2)) || t == "CHAIN" || t == "RELEASE" {
                return refused("completion_type other than NO_CHAIN");
            }
        }
        // Accepted, and, as on a server that applies no replication events now, with
        // MariaDB's warning that it changes nothing.
        "pseudo_slave_mode" if on() => sess.warnings.push(crate::session::Warning {
            level: "Warning",
            code: ErrorCode::WrongValueForVar.number(),
            message: "Slave applier execution mode not active, statement ineffective.".into(),
        }),
        "sql_if_exists" if on() => return refused("sql_if_exists = ON"),
        "system_versioning_insert_history" if on() => {
            return refused("system_versioning_insert_history = ON (system-versioned tables)")
        }
        "explicit_defaults_for_timestamp" if !on() => {
            return refused("explicit_defaults_for_timestamp = OFF")
        }
        "insert_id" if number() != Some(0) => {
            return refused("insert_id other than 0 (statement-based binlog replay)")
        }
        "rand_seed1" | "rand_seed2" => {
            return refused("rand_seed1 / rand_seed2 (statement-based binlog replay)")
        }
        _ => {}
    }
    Ok(Some(Some(v)))
}

/// After `SET SESSION name` stored `value` (None: DEFAULT): a collation's character set.
pub(super) fn after_set(sess: &mut SessionState, name: &str, value: Option<&Value>) {
    let cs = match name {
        "collation_connection" => "character_set_connection",
        "collation_server" => "character_set_server",
        "collation_database" => "character_set_database",
        _ => return,
    };
    match value {
        None => {
            sess.session_vars.remove(cs);
        }
        Some(v) => {
            let c = crate::sql::value_text(v);
            if let Some(charset) = charset_of(&c) {
                sess.session_vars
                    .insert(cs.to_string(), Value::str(charset));
            }
        }
    }
}

/// MariaDB's id of a collation Cohort may know (the name is then checked as any name is).
fn collation_name(id: i128) -> Option<&'static str> {
    Some(match id {
        8 => "latin1_swedish_ci",
        11 => "ascii_general_ci",
        33 => "utf8mb3_general_ci",
        45 => "utf8mb4_general_ci",
        46 => "utf8mb4_bin",
        47 => "latin1_bin",
        65 => "ascii_bin",
        63 => "binary",
        83 => "utf8mb3_bin",
        192 => "utf8mb3_unicode_ci",
        214 => "utf8mb3_unicode_520_ci",
        224 => "utf8mb4_unicode_ci",
        246 => "utf8mb4_unicode_520_ci",
        _ => return None,
    })
}

/// The character set of a collation name.
fn charset_of(collation: &str) -> Option<&'static str> {
    let c = collation.to_ascii_lowercase();
    Some(if c == "binary" {
        "binary"
    } else if c.starts_with("utf8mb4_") {
        "utf8mb4"
    } else if c.starts_with("utf8mb3_") || c.starts_with("utf8_") {
        "utf8mb3"
    } else if c.starts_with("latin1_") {
        "latin1"
    } else if c.starts_with("ascii_") {
        "ascii"
    } else {
        return None;
    })
}
