//! The binlog's GTID state, as MariaDB keeps it.
//!
//! A MariaDB GTID is `domain-server-seq`. The *binlog state* is, for every (domain, server)
//! that ever wrote to the binlog, the last GTID it wrote; within a domain the entries are kept
//! in the order they were last written, so the last one is the domain's current position.
//! It is what every binlog file starts with (its Gtid_list event: the state before the file's
//! first transaction) and what `@@gtid_binlog_state` shows; `@@gtid_binlog_pos` shows the
//! last GTID of each domain.
//!
//! Sequence numbers are per domain: the next transaction of domain `d` gets the largest
//! sequence number `d` has + 1, whichever server wrote it.
//!
//! Who keeps it: [`super::binlog::BinlogFiles`], under the log mutex — the leader records each
//! group's GTIDs after writing it, rotation writes the state into the next file's Gtid_list,
//! and recovery rebuilds it (the Gtid_list of the first file it reads, then every GTID event
//! after it). Readers get a copy of the committed state with the committed end
//! ([`super::binlog_reader::BinlogEnd`]).

use cohort_binlog::{Gtid, GtidSeq, ServerId};
use std::collections::BTreeMap;
use std::fmt;

/// The last GTID of every (domain, server), domains in order, servers in the order they last
/// wrote (module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GtidState {
    domains: BTreeMap<u32, Vec<Gtid>>,
}

impl GtidState {
    /// A state from a Gtid_list (its order is kept).
    pub fn from_list(list: &[Gtid]) -> GtidState {
        let mut s = GtidState::default();
        for g in list {
            s.record(*g);
        }
        s
    }

    /// `g` was written: it becomes its (domain, server)'s entry and the domain's last.
    pub fn record(&mut self, g: Gtid) {
        let d = self.domains.entry(g.domain_id).or_default();
        d.retain(|e| e.server_id != g.server_id);
        d.push(g);
    }

    /// The sequence number the next transaction of `domain` gets.
    pub fn next_seq(&self, domain: u32) -> u64 {
        self.domains
            .get(&domain)
            .and_then(|d| d.iter().map(|g| g.seq.0).max())
            .map_or(1, |s| s + 1)
    }

    /// The largest sequence number `domain` has (0 if none).
    pub fn max_seq(&self, domain: u32) -> u64 {
        self.next_seq(domain) - 1
    }

    /// Every entry, as a Gtid_list lists them.
    pub fn list(&self) -> Vec<Gtid> {
        self.domains.values().flatten().copied().collect()
    }

    /// The last GTID of every domain (`@@gtid_binlog_pos`).
    pub fn positions(&self) -> Vec<Gtid> {
        self.domains
            .values()
            .filter_map(|d| d.last().copied())
            .collect()
    }

    /// Does the domain exist in the state?
    pub fn has_domain(&self, domain: u32) -> bool {
        self.domains.contains_key(&domain)
    }

    /// The entry of `g`'s (domain, server), if any.
    pub fn entry(&self, g: &Gtid) -> Option<Gtid> {
        let d = self.domains.get(&g.domain_id)?;
        d.iter().find(|e| e.server_id == g.server_id).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.domains.is_empty()
    }
}

/// A list of GTIDs in MariaDB's text form: `0-1-5,1-2-7` (empty: none).
pub struct GtidText<'a>(pub &'a [Gtid]);

impl fmt::Display for GtidText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, g) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{g}")?;
        }
        Ok(())
    }
}

/// Why a GTID position text was refused (MariaDB's errors).
#[derive(Debug, PartialEq, Eq)]
pub enum GtidParseError {
    /// 1941 "Could not parse GTID list".
    Syntax,
    /// 1943: two GTIDs of one domain.
    DuplicateDomain { first: Gtid, second: Gtid },
}

/// Parse a GTID *position* (at most one GTID per domain), as `@slave_connect_state` and
/// `MASTER_GTID_WAIT` take it: comma-separated `domain-server-seq`, spaces around each
/// allowed; empty text is the empty position.
pub fn parse_position(text: &str) -> Result<Vec<Gtid>, GtidParseError> {
    let mut out: Vec<Gtid> = Vec::new();
    if text.trim().is_empty() {
        return Ok(out);
    }
    for part in text.split(',') {
        let g = parse_one(part.trim()).ok_or(GtidParseError::Syntax)?;
        if let Some(first) = out.iter().find(|e| e.domain_id == g.domain_id) {
            return Err(GtidParseError::DuplicateDomain {
                first: *first,
                second: g,
            });
        }
        out.push(g);
    }
    Ok(out)
}

fn parse_one(s: &str) -> Option<Gtid> {
    let mut it = s.splitn(3, '-');
    let num = |p: Option<&str>| -> Option<u64> {
        let p = p?;
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        p.parse().ok()
    };
    let domain = u32::try_from(num(it.next())?).ok()?;
    let server = u32::try_from(num(it.next())?).ok()?;
    let seq = num(it.next())?;
    Some(Gtid {
        domain_id: domain,
        server_id: ServerId(server),
        seq: GtidSeq(seq),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(d: u32, s: u32, q: u64) -> Gtid {
        Gtid {
            domain_id: d,
            server_id: ServerId(s),
            seq: GtidSeq(q),
        }
    }

    /// As MariaDB 10.11: after 0-5-54 and 0-1-55, `@@gtid_binlog_state` is
    /// `0-5-54,0-1-55` and `@@gtid_binlog_pos` is `0-1-55`.
    #[test]
    fn state_keeps_the_last_per_server_most_recent_last() {
        let mut s = GtidState::default();
        s.record(g(0, 1, 53));
        s.record(g(0, 5, 54));
        s.record(g(0, 1, 55));
        s.record(g(2, 1, 7));
        assert_eq!(GtidText(&s.list()).to_string(), "0-5-54,0-1-55,2-1-7");
        assert_eq!(GtidText(&s.positions()).to_string(), "0-1-55,2-1-7");
        assert_eq!(s.next_seq(0), 56);
        assert_eq!(s.next_seq(2), 8);
        assert_eq!(s.next_seq(9), 1);
        assert_eq!(GtidState::from_list(&s.list()), s);
        assert_eq!(s.entry(&g(0, 5, 1)), Some(g(0, 5, 54)));
        assert_eq!(s.entry(&g(0, 7, 1)), None);
    }

    /// MariaDB's answers to `SET @slave_connect_state` values at COM_BINLOG_DUMP.
    #[test]
    fn positions_parse_as_mariadb() {
        assert_eq!(parse_position(""), Ok(vec![]));
        assert_eq!(parse_position("0-1-5"), Ok(vec![g(0, 1, 5)]));
        assert_eq!(
            parse_position(" 0-1-5 , 1-2-3"),
            Ok(vec![g(0, 1, 5), g(1, 2, 3)])
        );
        assert_eq!(parse_position("junk"), Err(GtidParseError::Syntax));
        assert_eq!(parse_position("0-1"), Err(GtidParseError::Syntax));
        assert_eq!(parse_position("0-1-5,"), Err(GtidParseError::Syntax));
        assert_eq!(parse_position("0--1-5"), Err(GtidParseError::Syntax));
        assert_eq!(
            parse_position("4294967296-1-1"),
            Err(GtidParseError::Syntax)
        );
        assert_eq!(
            parse_position("0-1-3,0-1-4"),
            Err(GtidParseError::DuplicateDomain {
                first: g(0, 1, 3),
                second: g(0, 1, 4)
            })
        );
    }
}
