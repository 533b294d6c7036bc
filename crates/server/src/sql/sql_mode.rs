//! `sql_mode`: what `SET sql_mode = …` accepts and how the value reads back, as MariaDB 10.11
//! has it, and which modes Cohort honours.
//!
//! * **Value.** A comma-separated list of mode names (any case, no spaces: MariaDB names a
//!   padded item in its 1231), or the number of the modes' bits. Combination modes add their
//!   parts (`TRADITIONAL` is `STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,…`). The
//!   value is kept in MariaDB's canonical form: upper case, in bit order, so `@@sql_mode`
//!   reads back as on MariaDB. An unknown name is 1231 "Variable 'sql_mode' can't be set to
//!   the value of 'x'".
//! * **Honoured**: STRICT_TRANS_TABLES / STRICT_ALL_TABLES (every table is transactional, so
//!   the two are one), ERROR_FOR_DIVISION_BY_ZERO, NO_ZERO_DATE and NO_ZERO_IN_DATE (when a
//!   DATE / DATETIME / TIMESTAMP value is stored: `expr/convert.rs`), NO_AUTO_VALUE_ON_ZERO
//!   (`exec/dml.rs`), NO_ENGINE_SUBSTITUTION and NO_AUTO_CREATE_USER (an unknown ENGINE and a
//!   GRANT to a missing user are errors here in any mode), TRADITIONAL (only its parts
//!   act), ONLY_FULL_GROUP_BY (checked when a grouped SELECT is bound:
//!   `exec/full_group_by.rs`; the statement cache binds such a plan again when the mode
//!   changes).
//! * **Honoured, how text is read** ([`ParseMode`], `parse/dialect.rs`): ANSI_QUOTES (`"x"` is
//!   an identifier), PIPES_AS_CONCAT (`a || b` is `concat(a, b)`, binding tighter than `^`),
//!   NO_BACKSLASH_ESCAPES (a backslash is an ordinary character in strings; the OK / EOF
//!   packets carry SERVER_STATUS_NO_BACKSLASH_ESCAPES so that client libraries escape
//!   accordingly), HIGH_NOT_PRECEDENCE (`NOT` binds as `!`), REAL_AS_FLOAT (the type `REAL`
//!   is FLOAT), IGNORE_SPACE (a space between a function's name and its `(`: Cohort reads
//!   `f (x)` as a call in every mode). The statement cache keys on these bits, a prepared
//!   statement is read under the mode of its PREPARE, SET STATEMENT's inner statement under
//!   the mode it was sent in (as MariaDB, which parses it before the SET), and stored text is
//!   kept as the default mode reads it: CHECK / DEFAULT / generated expressions are printed
//!   (`exec/expr_print.rs`), a view body is rewritten (`parse/view.rs`; `||` as
//!   concatenation in a view is 1235), and logged DDL carries its mode for recovery's replay
//!   (`log/ddl_session.rs`, read back without strictness: [`without_strictness`]).
//! * NO_DIR_IN_CREATE: CREATE TABLE's DATA / INDEX DIRECTORY are ignored with warning 1618
//!   (refused with 1235 without it).
//! * **Honoured, what SHOW CREATE prints** (`exec/show_mode.rs`): ANSI_QUOTES,
//!   NO_TABLE_OPTIONS, NO_FIELD_OPTIONS, NO_KEY_OPTIONS (Cohort prints no index options).
//! * **Combinations** honoured as their parts: ANSI, POSTGRESQL, MSSQL, DB2, MYSQL323,
//!   MYSQL40 (and TRADITIONAL).
//! * **Refused** (1235 on SET): every other mode — ORACLE (it changes far too much), MAXDB
//!   (TIMESTAMP columns become DATETIME), IGNORE_BAD_TABLE_OPTIONS, NO_UNSIGNED_SUBTRACTION,
//!   ALLOW_INVALID_DATES, PAD_CHAR_TO_FULL_LENGTH, EMPTY_STRING_IS_NULL,
//!   SIMULTANEOUS_ASSIGNMENT, TIME_ROUND_FRACTIONAL: accepting them would silently give other
//!   answers.

use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;

/// MariaDB's modes, in bit order (bit i is `1 << i`).
const MODES: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

/// The modes a combination mode adds (besides itself).
const COMBINATIONS: &[(&str, &[&str])] = &[
    (
        "ANSI",
        &[
            "REAL_AS_FLOAT",
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
        ],
    ),
    (
        "TRADITIONAL",
        &[
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "NO_AUTO_CREATE_USER",
            "NO_ENGINE_SUBSTITUTION",
        ],
    ),
    (
        "ORACLE",
        &[
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
            "NO_KEY_OPTIONS",
            "NO_TABLE_OPTIONS",
            "NO_FIELD_OPTIONS",
            "NO_AUTO_CREATE_USER",
            "SIMULTANEOUS_ASSIGNMENT",
        ],
    ),
    ("POSTGRESQL", DIALECT),
    ("MSSQL", DIALECT),
    ("DB2", DIALECT),
    (
        "MAXDB",
        &[
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
            "NO_KEY_OPTIONS",
            "NO_TABLE_OPTIONS",
            "NO_FIELD_OPTIONS",
            "NO_AUTO_CREATE_USER",
        ],
    ),
    ("MYSQL323", &["HIGH_NOT_PRECEDENCE"]),
    ("MYSQL40", &["HIGH_NOT_PRECEDENCE"]),
];

const DIALECT: &[&str] = &[
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
];

/// The modes Cohort acts on (module doc).
const HONOURED: &[&str] = &[
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "NO_ZERO_DATE",
    "NO_ZERO_IN_DATE",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_ENGINE_SUBSTITUTION",
    "NO_AUTO_CREATE_USER",
    "TRADITIONAL",
    "ONLY_FULL_GROUP_BY",
    // How statements are read (`parse_bits`, `parse/dialect.rs`).
    "ANSI_QUOTES",
    "PIPES_AS_CONCAT",
    "NO_BACKSLASH_ESCAPES",
    "IGNORE_SPACE",
    "HIGH_NOT_PRECEDENCE",
    "REAL_AS_FLOAT",
    "ANSI",
    "MYSQL323",
    "MYSQL40",
    // What SHOW CREATE prints (`exec/show_mode.rs`).
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "POSTGRESQL",
    "MSSQL",
    "DB2",
    // DATA / INDEX DIRECTORY ignored with a warning (`exec/ddl/mod.rs`).
    "NO_DIR_IN_CREATE",
];

/// The parse-affecting modes, as the bits of [`ParseMode`].
pub mod parse_bit {
    /// `"x"` is an identifier.
    pub const ANSI_QUOTES: u8 = 1;
    /// `||` is concatenation (binding tighter than `^`), not OR.
    pub const PIPES_AS_CONCAT: u8 = 2;
    /// A backslash in a string is an ordinary character.
    pub const NO_BACKSLASH_ESCAPES: u8 = 4;
    /// `NOT` binds as tightly as `!`.
    pub const HIGH_NOT_PRECEDENCE: u8 = 8;
    /// The type name `REAL` is FLOAT (not DOUBLE).
    pub const REAL_AS_FLOAT: u8 = 16;
    /// Not how text is read, but how logged DDL must run again (NO_DIR_IN_CREATE: a DATA
    /// DIRECTORY it ignored is refused without it): carried with the parse bits.
    pub const NO_DIR_IN_CREATE: u8 = 32;
}

/// The bits of `sql_mode` that change how a statement's text is read: the same text is
/// another statement under another value (the statement cache keys on them, a prepared
/// statement keeps those of its PREPARE). 0 in the default mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParseMode(pub u8);

impl ParseMode {
    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// The parse bits of a canonical (or any upper-case) `sql_mode` text.
    pub fn of(upper: &str) -> ParseMode {
        if upper.is_empty() {
            return ParseMode(0);
        }
        let mut bits = 0;
        for item in upper.split(',') {
            bits |= match item {
                "ANSI_QUOTES" => parse_bit::ANSI_QUOTES,
                "PIPES_AS_CONCAT" => parse_bit::PIPES_AS_CONCAT,
                "NO_BACKSLASH_ESCAPES" => parse_bit::NO_BACKSLASH_ESCAPES,
                "HIGH_NOT_PRECEDENCE" => parse_bit::HIGH_NOT_PRECEDENCE,
                "REAL_AS_FLOAT" => parse_bit::REAL_AS_FLOAT,
                "NO_DIR_IN_CREATE" => parse_bit::NO_DIR_IN_CREATE,
                _ => 0,
            };
        }
        ParseMode(bits)
    }

    /// The mode names of these bits, comma-separated (for `SET sql_mode`).
    pub fn names(self) -> String {
        let mut out: Vec<&str> = Vec::new();
        for (bit, name) in [
            (parse_bit::REAL_AS_FLOAT, "REAL_AS_FLOAT"),
            (parse_bit::PIPES_AS_CONCAT, "PIPES_AS_CONCAT"),
            (parse_bit::ANSI_QUOTES, "ANSI_QUOTES"),
            (parse_bit::NO_BACKSLASH_ESCAPES, "NO_BACKSLASH_ESCAPES"),
            (parse_bit::HIGH_NOT_PRECEDENCE, "HIGH_NOT_PRECEDENCE"),
            (parse_bit::NO_DIR_IN_CREATE, "NO_DIR_IN_CREATE"),
        ] {
            if self.has(bit) {
                out.push(name);
            }
        }
        out.join(",")
    }
}

fn wrong_value(item: &str) -> Error {
    Error::new(
        ErrorCode::WrongValueForVar,
        format!("Variable 'sql_mode' can't be set to the value of '{item}'"),
    )
}

/// The bit mask of a textual value; 1231 for an unknown name.
fn parse_names(text: &str) -> Result<u64> {
    let mut bits = 0u64;
    for item in text.split(',') {
        if item.is_empty() {
            continue;
        }
        let upper = item.to_ascii_uppercase();
        let Some(i) = MODES.iter().position(|m| *m == upper) else {
            return Err(wrong_value(item));
        };
        bits |= 1 << i;
    }
    Ok(bits)
}

/// Add the parts of the combination modes set in `bits`.
fn expand(mut bits: u64) -> u64 {
    for (combo, parts) in COMBINATIONS {
        let Some(i) = MODES.iter().position(|m| m == combo) else {
            continue;
        };
        if bits & (1 << i) != 0 {
            for p in *parts {
                if let Some(j) = MODES.iter().position(|m| m == p) {
                    bits |= 1 << j;
                }
            }
        }
    }
    bits
}

/// The canonical text of a mask.
fn names(bits: u64) -> String {
    let mut out: Vec<&str> = Vec::new();
    for (i, m) in MODES.iter().enumerate() {
        if bits & (1 << i) != 0 {
            out.push(m);
        }
    }
    out.join(",")
}

/// The value `SET sql_mode = v` keeps: text or a number, canonical; 1231 for an unknown name
/// or bit, 1235 for a mode Cohort does not honour.
pub fn canonical(v: &crate::types::Value) -> Result<String> {
    use crate::types::Value;
    let bits = match v {
        Value::Int(n) if *n >= 0 => *n as u64,
        Value::UInt(n) => *n,
        Value::Int(n) => return Err(wrong_value(&n.to_string())),
        Value::Bytes(_) => parse_names(&crate::sql::value_text(v))?,
        other => return Err(wrong_value(&crate::sql::value_text(other))),
    };
    if bits >> MODES.len() != 0 {
        return Err(wrong_value(&bits.to_string()));
    }
    let bits = expand(bits);
    for (i, m) in MODES.iter().enumerate() {
        if bits & (1 << i) != 0 && !HONOURED.contains(m) {
            return Err(Error::unsupported(&format!("sql_mode {m}")));
        }
    }
    Ok(names(bits))
}

/// A canonical `sql_mode` without its strictness (`STRICT_*`, `TRADITIONAL`), as recovery
/// replays logged DDL: what changes how the text parses and how values convert stays, and a
/// statement that succeeded once is not refused for values it converted with warnings.
pub fn without_strictness(mode: &str) -> String {
    mode.split(',')
        .filter(|m| !m.starts_with("STRICT_") && *m != "TRADITIONAL")
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::canonical;

    #[test]
    fn replay_mode_drops_strictness_only() {
        assert_eq!(
            super::without_strictness("ANSI_QUOTES,STRICT_TRANS_TABLES,NO_ZERO_DATE,TRADITIONAL"),
            "ANSI_QUOTES,NO_ZERO_DATE"
        );
        assert_eq!(super::without_strictness(""), "");
    }
    use crate::types::Value;

    #[test]
    fn canonical_forms() {
        let c = |s: &str| canonical(&Value::str(s)).map_err(|e| e.code().number());
        assert_eq!(
            c("traditional").unwrap(),
            "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,\
             ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
        );
        assert_eq!(
            c("no_engine_substitution,strict_trans_tables").unwrap(),
            "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"
        );
        assert_eq!(c("").unwrap(), "");
        assert_eq!(c("BOGUS"), Err(1231));
        assert_eq!(c(" STRICT_TRANS_TABLES"), Err(1231));
        assert_eq!(c("ORACLE"), Err(1235));
        assert_eq!(c("PAD_CHAR_TO_FULL_LENGTH"), Err(1235));
        assert_eq!(
            c("ansi").unwrap(),
            "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI"
        );
        assert_eq!(c("mysql40").unwrap(), "MYSQL40,HIGH_NOT_PRECEDENCE");
        assert_eq!(
            c("only_full_group_by,strict_trans_tables").unwrap(),
            "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES"
        );
        assert_eq!(
            canonical(&Value::Int(2_097_152)).unwrap(),
            "STRICT_TRANS_TABLES"
        );
        assert!(canonical(&Value::Int(1 << 40)).is_err());
    }

    use crate::session::state::{ServerContext, SessionState};
    use crate::sql::{execute_prepared, prepare};
    use crate::testkit::{rows_of as rows, run};

    /// A prepared statement is read under the mode of its PREPARE, whatever the mode at each
    /// execute (and when a changed table makes it parse again); the statement cache keeps one
    /// plan per mode for the same text.
    #[test]
    fn prepared_statements_keep_their_mode() {
        let ctx = ServerContext::for_tests();
        let mut sess = SessionState::new(1, "root", "%", None);
        for sql in [
            "CREATE DATABASE d",
            "USE d",
            "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10))",
            "INSERT INTO t VALUES (1, 'p')",
            "SET sql_mode = 'ANSI_QUOTES,PIPES_AS_CONCAT'",
        ] {
            run(&ctx, &mut sess, sql).unwrap();
        }
        let sql = "SELECT \"a\" || 'x' FROM t WHERE id = ?";
        let p = prepare(&ctx, &mut sess, sql).unwrap();
        run(&ctx, &mut sess, "SET sql_mode = DEFAULT").unwrap();
        let want = vec![vec![Value::str("px")]];
        assert_eq!(
            rows(execute_prepared(&ctx, &mut sess, &p, &[Value::Int(1)])),
            want
        );
        sess.end_statement(&ctx, true).unwrap();
        run(&ctx, &mut sess, "ALTER TABLE t ADD COLUMN b INT").unwrap();
        assert_eq!(
            rows(execute_prepared(&ctx, &mut sess, &p, &[Value::Int(1)])),
            want
        );
        sess.end_statement(&ctx, true).unwrap();
        // The cached text: a string, then a column, then a string again.
        let text = "SELECT \"a\" FROM t WHERE id = 1";
        let s = |x: &str| vec![vec![Value::str(x)]];
        assert_eq!(rows(run(&ctx, &mut sess, text)), s("a"));
        run(&ctx, &mut sess, "SET sql_mode = 'ANSI'").unwrap();
        assert_eq!(rows(run(&ctx, &mut sess, text)), s("p"));
        run(&ctx, &mut sess, "SET sql_mode = DEFAULT").unwrap();
        assert_eq!(rows(run(&ctx, &mut sess, text)), s("a"));
        assert!(sess.stmt_cache.hits() > 0);
    }
}
