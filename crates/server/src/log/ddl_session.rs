//! How a logged DDL statement ran: the session state its replay must reproduce.
//!
//! Recovery replays DDL by executing its text again (`recovery::DdlReplay`). Most DDL gives
//! the same result whenever it runs, but some reads the session it ran in:
//!
//! * **its clock**: `ALTER TABLE … ADD c DATETIME DEFAULT CURRENT_TIMESTAMP` (or a default
//!   `(now() + interval 1 day)`) fills the existing rows with the statement's time. Replayed at
//!   recovery time, the rows would get another time than the one clients read before the
//!   crash;
//! * **its time zone**: the same fill in local time, and `MODIFY` between DATETIME and
//!   TIMESTAMP, convert with `time_zone`;
//! * **its `sql_mode`**: how the text parses (`ANSI_QUOTES`, `PIPES_AS_CONCAT`,
//!   `NO_BACKSLASH_ESCAPES`) and how values convert.
//!
//! So each DDL record carries them, as MariaDB's Query event does for a replica:
//!
//! | log | time | sql_mode | time_zone |
//! |---|---|---|---|
//! | binlog Query event | header timestamp (seconds) + `Q_HRNOW` (microseconds, written when the statement read its clock) | `Q_SQL_MODE_CODE` bits | `Q_TIME_ZONE_CODE` (absent: SYSTEM) |
//! | redo `Ddl` / `PreparedDdl` | the trailing block below | | |
//!
//! Redo trailing block (after `str sql`; records written before it have none and replay as
//! they always did: current time, default mode and zone): `u8 1 | varint when+1 (0: none) |
//! u8 has_mode | [str sql_mode] | u8 has_zone | [str time_zone]`.

use super::valuecodec::{put_str, put_varint, CodecResult, Reader};

/// The session state a DDL statement ran with (module doc). `Default` is "unknown": replay
/// runs with the current time and default settings, as for records of older versions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DdlSession {
    /// The statement's time, microseconds since the Unix epoch, if it read its clock (the
    /// binlog always has the seconds; then this is that second when the clock went unread).
    pub when_us: Option<u64>,
    /// `sql_mode` as names (`ANSI_QUOTES,STRICT_TRANS_TABLES`).
    pub sql_mode: Option<String>,
    /// `time_zone` when it was not SYSTEM.
    pub time_zone: Option<String>,
}

const BLOCK_VERSION: u8 = 1;

impl DdlSession {
    /// From a Query event: its header timestamp and status variables.
    pub fn of_query_event(header_secs: u32, status_vars: &[u8]) -> DdlSession {
        let st = cohort_binlog::querystatus::QueryStatus::decode(status_vars).unwrap_or_default();
        DdlSession {
            when_us: Some(header_secs as u64 * 1_000_000 + st.hrnow.unwrap_or(0) as u64),
            sql_mode: st.sql_mode.map(cohort_binlog::querystatus::sql_mode_names),
            time_zone: st.time_zone,
        }
    }

    /// Append the redo trailing block.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(BLOCK_VERSION);
        put_varint(out, self.when_us.map_or(0, |w| w.saturating_add(1)));
        for s in [&self.sql_mode, &self.time_zone] {
            out.push(s.is_some() as u8);
            if let Some(s) = s {
                put_str(out, s);
            }
        }
    }

    /// Read the redo trailing block, if the record has one.
    pub fn decode(r: &mut Reader<'_>) -> CodecResult<DdlSession> {
        if r.is_empty() {
            return Ok(DdlSession::default());
        }
        let v = r.u8()?;
        if v != BLOCK_VERSION {
            return Err(r.error(format!("unknown DDL session block version {v}")));
        }
        let when = r.varint()?;
        let mut opt =
            || -> CodecResult<Option<String>> { Ok(if r.bool()? { Some(r.str()?) } else { None }) };
        let sql_mode = opt()?;
        let time_zone = opt()?;
        Ok(DdlSession {
            when_us: when.checked_sub(1),
            sql_mode,
            time_zone,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redo_block_round_trips_and_is_optional() {
        let s = DdlSession {
            when_us: Some(1_000_000_000_123_456),
            sql_mode: Some("ANSI_QUOTES".into()),
            time_zone: None,
        };
        let mut b = Vec::new();
        s.encode(&mut b);
        assert_eq!(DdlSession::decode(&mut Reader::new(&b)).unwrap(), s);
        let empty = DdlSession::default();
        let mut b = Vec::new();
        empty.encode(&mut b);
        assert_eq!(DdlSession::decode(&mut Reader::new(&b)).unwrap(), empty);
        assert_eq!(
            DdlSession::decode(&mut Reader::new(&[])).unwrap(),
            empty,
            "a record of an older version"
        );
        assert!(DdlSession::decode(&mut Reader::new(&[9])).is_err());
    }

    #[test]
    fn query_event_gives_seconds_and_microseconds() {
        let st = cohort_binlog::querystatus::QueryStatus {
            hrnow: Some(250_000),
            sql_mode: Some(cohort_binlog::querystatus::sql_mode_bits("ANSI_QUOTES")),
            time_zone: Some("+05:00".into()),
            ..Default::default()
        };
        let s = DdlSession::of_query_event(1_000_000_000, &st.encode());
        assert_eq!(s.when_us, Some(1_000_000_000_250_000));
        assert_eq!(s.sql_mode.as_deref(), Some("ANSI_QUOTES"));
        assert_eq!(s.time_zone.as_deref(), Some("+05:00"));
    }
}
