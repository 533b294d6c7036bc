//! Query-event status variables: the session settings a statement ran with, so that a replica
//! whose defaults differ applies DDL the same way (a `CREATE TABLE` takes the character set
//! and the SQL mode of the session that ran it, not the replica's).
//!
//! The block is a sequence of `code u8 | value`, each code with a fixed or self-described
//! length. What MariaDB 10.11 writes for DDL, in its order (captured, see the tests):
//!
//! | code | name | value |
//! |---:|---|---|
//! | 0 | Q_FLAGS2_CODE | u32: session option bits (`sql_auto_is_null` 0x4000, `foreign_key_checks = 0` 0x0400_0000, `unique_checks = 0` 0x0800_0000, `explicit_defaults_for_timestamp` 0x0100_0000) |
//! | 1 | Q_SQL_MODE_CODE | u64: the `sql_mode` bits |
//! | 6 | Q_CATALOG_NZ_CODE | u8 length + `std` |
//! | 4 | Q_CHARSET_CODE | u16 × 3: `character_set_client` (its default collation), `collation_connection`, `collation_server` |
//! | 5 | Q_TIME_ZONE_CODE | u8 length + the time zone's name |
//! | 128 | Q_HRNOW | u24: the microseconds of the statement's time, when it read its clock (the seconds are the event header's timestamp) |
//! | 129 | Q_XID | u64: the statement's XID (crash recovery of DDL) |
//!
//! Decoding knows the length of every code MariaDB and MySQL define, so it skips the ones it
//! does not keep; an unknown code stops it (the rest cannot be delimited), as in MariaDB.

use crate::wire::Cursor;

/// Status variable codes.
pub mod code {
    pub const FLAGS2: u8 = 0;
    pub const SQL_MODE: u8 = 1;
    pub const CATALOG: u8 = 2;
    pub const AUTO_INCREMENT: u8 = 3;
    pub const CHARSET: u8 = 4;
    pub const TIME_ZONE: u8 = 5;
    pub const CATALOG_NZ: u8 = 6;
    pub const LC_TIME_NAMES: u8 = 7;
    pub const CHARSET_DATABASE: u8 = 8;
    pub const TABLE_MAP_FOR_UPDATE: u8 = 9;
    pub const MASTER_DATA_WRITTEN: u8 = 10;
    pub const INVOKER: u8 = 11;
    pub const UPDATED_DB_NAMES: u8 = 12;
    pub const MICROSECONDS: u8 = 13;
    pub const HRNOW: u8 = 128;
    pub const XID: u8 = 129;
}

/// `Q_FLAGS2_CODE` bits (MariaDB's option bits).
pub mod flags2 {
    pub const AUTO_IS_NULL: u32 = 1 << 14;
    pub const EXPLICIT_DEFAULTS_FOR_TIMESTAMP: u32 = 1 << 24;
    pub const NO_FOREIGN_KEY_CHECKS: u32 = 1 << 26;
    pub const RELAXED_UNIQUE_CHECKS: u32 = 1 << 27;
}

/// The status variables of a Query event that Cohort writes and reads.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct QueryStatus {
    pub flags2: Option<u32>,
    pub sql_mode: Option<u64>,
    /// Q_CATALOG_NZ_CODE `std` (MariaDB always writes it).
    pub catalog: bool,
    /// (client charset's default collation, collation_connection, collation_server).
    pub charset: Option<[u16; 3]>,
    pub time_zone: Option<String>,
    /// Q_HRNOW: the microseconds of the statement's time (0..1_000_000).
    pub hrnow: Option<u32>,
    pub xid: Option<u64>,
}

impl QueryStatus {
    /// The block, in MariaDB's order.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(40);
        if let Some(f) = self.flags2 {
            out.push(code::FLAGS2);
            out.extend_from_slice(&f.to_le_bytes());
        }
        if let Some(m) = self.sql_mode {
            out.push(code::SQL_MODE);
            out.extend_from_slice(&m.to_le_bytes());
        }
        if self.catalog {
            out.extend_from_slice(&[code::CATALOG_NZ, 3, b's', b't', b'd']);
        }
        if let Some(cs) = self.charset {
            out.push(code::CHARSET);
            for c in cs {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        if let Some(tz) = &self.time_zone {
            let tz = &tz.as_bytes()[..tz.len().min(255)];
            out.push(code::TIME_ZONE);
            out.push(tz.len() as u8);
            out.extend_from_slice(tz);
        }
        if let Some(us) = self.hrnow {
            out.push(code::HRNOW);
            out.extend_from_slice(&us.min(999_999).to_le_bytes()[..3]);
        }
        if let Some(x) = self.xid {
            out.push(code::XID);
            out.extend_from_slice(&x.to_le_bytes());
        }
        out
    }

    /// Reads a block, keeping the variables this type has and skipping the others.
    pub fn decode(block: &[u8]) -> Result<QueryStatus, String> {
        let mut c = Cursor::new(block);
        let mut st = QueryStatus::default();
        while !c.is_empty() {
            match c.u8()? {
                code::FLAGS2 => st.flags2 = Some(c.u32()?),
                code::SQL_MODE => st.sql_mode = Some(c.u64()?),
                code::CATALOG_NZ => {
                    let n = c.u8()? as usize;
                    st.catalog = c.take(n)? == b"std";
                }
                code::CHARSET => st.charset = Some([c.u16()?, c.u16()?, c.u16()?]),
                code::TIME_ZONE => {
                    let n = c.u8()? as usize;
                    st.time_zone = Some(crate::wire::utf8(c.take(n)?, "time zone")?);
                }
                code::XID => st.xid = Some(c.u64()?),
                code::CATALOG => {
                    // Length byte, name, NUL (pre-5.0.4 servers).
                    let n = c.u8()? as usize;
                    c.take(n + 1)?;
                }
                code::AUTO_INCREMENT => drop(c.take(4)?),
                code::LC_TIME_NAMES | code::CHARSET_DATABASE => drop(c.take(2)?),
                code::TABLE_MAP_FOR_UPDATE => drop(c.take(8)?),
                code::MASTER_DATA_WRITTEN => drop(c.take(4)?),
                code::INVOKER => {
                    let n = c.u8()? as usize;
                    c.take(n)?;
                    let n = c.u8()? as usize;
                    c.take(n)?;
                }
                code::UPDATED_DB_NAMES => {
                    let n = c.u8()?;
                    // 254 (OVER_MAX_DBS_IN_EVENT_MTS) means none follow.
                    if n != 254 {
                        for _ in 0..n {
                            while c.u8()? != 0 {}
                        }
                    }
                }
                code::HRNOW => {
                    let b = c.take(3)?;
                    st.hrnow = Some(u32::from_le_bytes([b[0], b[1], b[2], 0]));
                }
                code::MICROSECONDS => drop(c.take(3)?),
                other => return Err(format!("unknown query status variable {other}")),
            }
        }
        Ok(st)
    }
}

/// MariaDB's `sql_mode` bits, by name (the Q_SQL_MODE_CODE value).
pub const SQL_MODE_BITS: &[(&str, u64)] = &[
    ("REAL_AS_FLOAT", 1),
    ("PIPES_AS_CONCAT", 1 << 1),
    ("ANSI_QUOTES", 1 << 2),
    ("IGNORE_SPACE", 1 << 3),
    ("IGNORE_BAD_TABLE_OPTIONS", 1 << 4),
    ("ONLY_FULL_GROUP_BY", 1 << 5),
    ("NO_UNSIGNED_SUBTRACTION", 1 << 6),
    ("NO_DIR_IN_CREATE", 1 << 7),
    ("POSTGRESQL", 1 << 8),
    ("ORACLE", 1 << 9),
    ("MSSQL", 1 << 10),
    ("DB2", 1 << 11),
    ("MAXDB", 1 << 12),
    ("NO_KEY_OPTIONS", 1 << 13),
    ("NO_TABLE_OPTIONS", 1 << 14),
    ("NO_FIELD_OPTIONS", 1 << 15),
    ("MYSQL323", 1 << 16),
    ("MYSQL40", 1 << 17),
    ("ANSI", 1 << 18),
    ("NO_AUTO_VALUE_ON_ZERO", 1 << 19),
    ("NO_BACKSLASH_ESCAPES", 1 << 20),
    ("STRICT_TRANS_TABLES", 1 << 21),
    ("STRICT_ALL_TABLES", 1 << 22),
    ("NO_ZERO_IN_DATE", 1 << 23),
    ("NO_ZERO_DATE", 1 << 24),
    ("INVALID_DATES", 1 << 25),
    ("ERROR_FOR_DIVISION_BY_ZERO", 1 << 26),
    ("TRADITIONAL", 1 << 27),
    ("NO_AUTO_CREATE_USER", 1 << 28),
    ("HIGH_NOT_PRECEDENCE", 1 << 29),
    ("NO_ENGINE_SUBSTITUTION", 1 << 30),
    ("PAD_CHAR_TO_FULL_LENGTH", 1 << 31),
    ("EMPTY_STRING_IS_NULL", 1 << 32),
    ("SIMULTANEOUS_ASSIGNMENT", 1 << 33),
    ("TIME_ROUND_FRACTIONAL", 1 << 34),
];

/// The Q_SQL_MODE_CODE value of a `sql_mode` text (comma-separated names, any case). Names
/// without a bit are left out.
pub fn sql_mode_bits(text: &str) -> u64 {
    text.split(',')
        .map(str::trim)
        .filter_map(|name| {
            SQL_MODE_BITS
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, b)| *b)
        })
        .fold(0, |a, b| a | b)
}

/// The `sql_mode` text of a Q_SQL_MODE_CODE value: the names of its bits in bit order,
/// comma-separated (bits without a name are left out).
pub fn sql_mode_names(bits: u64) -> String {
    SQL_MODE_BITS
        .iter()
        .filter(|(_, b)| bits & b != 0)
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// The status block of `create table m.q2 (a int)` on MariaDB 10.11.19 with its default
    /// session (utf8mb3 client), and of one run after `SET NAMES latin1; SET sql_mode =
    /// 'ANSI_QUOTES'`.
    #[test]
    fn encodes_mariadbs_blocks() {
        let default_mode = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION";
        let q2 = QueryStatus {
            flags2: Some(flags2::EXPLICIT_DEFAULTS_FOR_TIMESTAMP),
            sql_mode: Some(sql_mode_bits(default_mode)),
            catalog: true,
            charset: Some([33, 33, 45]),
            time_zone: None,
            hrnow: None,
            xid: Some(0x1bb),
        };
        let bytes = q2.encode();
        assert_eq!(
            hex(&bytes),
            "0000000001010000205400000000060373746404210021002d0081bb01000000000000"
        );
        assert_eq!(QueryStatus::decode(&bytes).unwrap(), q2);
        let q1 = QueryStatus {
            sql_mode: Some(sql_mode_bits("ansi_quotes")),
            charset: Some([8, 8, 45]),
            xid: Some(0x1b9),
            ..q2
        };
        assert_eq!(
            hex(&q1.encode()),
            "0000000001010400000000000000060373746404080008002d0081b901000000000000"
        );
    }

    #[test]
    fn sql_mode_names_invert_the_bits() {
        let text = "ANSI_QUOTES,STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION";
        assert_eq!(sql_mode_names(sql_mode_bits(text)), text);
        assert_eq!(sql_mode_names(0), "");
    }

    #[test]
    fn skips_known_codes_and_stops_at_unknown_ones() {
        // lc_time_names, microseconds, updated db names ("d"), then the time zone.
        let block = [
            7, 0, 0, 13, 1, 2, 3, 12, 1, b'd', 0, 5, 6, b'+', b'0', b'0', b':', b'0', b'0',
        ];
        let st = QueryStatus::decode(&block).unwrap();
        assert_eq!(st.time_zone.as_deref(), Some("+00:00"));
        assert!(QueryStatus::decode(&[200, 1]).is_err());
        let hr = QueryStatus {
            hrnow: Some(123_456),
            xid: Some(7),
            ..QueryStatus::default()
        };
        assert_eq!(hex(&hr.encode()), "8040e201810700000000000000");
        assert_eq!(QueryStatus::decode(&hr.encode()).unwrap(), hr);
        assert!(QueryStatus::decode(&[1, 0, 0]).is_err(), "truncated");
    }
}
