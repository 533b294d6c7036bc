//! Where a dump starts: a file and position, or a GTID position.
//!
//! **File/position mode** (`@slave_connect_state` unset or NULL): the named file (an empty
//! name: the first file of the index) from the position. The file must be in the index and the
//! position within it (4 is its first event); whether an event starts there is found out by
//! reading it.
//!
//! **GTID mode** (`@slave_connect_state` set, even to ''): the file and position of the
//! command are ignored, as MariaDB ignores them. A MariaDB replica names the file and position
//! it last read when it *re*connects (only its first connection sends an empty name); after an
//! interruption inside a group that position is inside the group, and the replica counts on
//! being sent the group again from its GTID event (it skips the part it already has: "GTID
//! event skip N"). Streaming from that position instead would start with the group's middle,
//! and the replica stops with 1595 ("The current group of events starts with a non-GTID
//! Write_rows_v1 event"). The replica's position is one GTID per domain. MariaDB's rules,
//! checked against the binlog's GTID state:
//!
//! 1. A GTID of a domain the binlog does not have is left out (nothing to send for it).
//! 2. A GTID the binlog has — its (domain, server) wrote that far — is a valid position.
//! 3. Otherwise ERR 1236: "…which is not in the master's binlog", and if the binlog has
//!    higher sequence numbers in that domain, "…the slave has diverged…".
//! 4. The dump starts at the beginning of the newest file whose Gtid_list (the state before
//!    it) is at or before the position in every domain it lists, and whose domains the
//!    position all has (a domain the replica has nothing of must be read from its start). No
//!    such file: ERR 1236 "Could not find GTID state requested by slave in any binlog files…"
//!    (purged).
//! 5. From there, every group of a domain whose GTID is at or before the position is skipped;
//!    once the position is reached in every domain, a fake Gtid_list (the position) tells the
//!    replica where it is.

use crate::log::binlog_reader::{max_event_size, BinlogEnd, CommittedEnd, EventStream};
use crate::log::gtid::{parse_position, GtidParseError, GtidState, GtidText};
use cohort_binlog::{Event, EventDecoder, Gtid};
use cohort_protocol::ErrorCode;
use std::collections::BTreeMap;

/// Where reading starts, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    pub file: String,
    pub pos: u64,
    /// GTID mode: what to skip.
    pub gtid: Option<GtidSkip>,
}

impl Start {
    /// The Format_description is sent with `created` zeroed: the stream does not start at
    /// the beginning of the binlog (position mode past 4, or GTID mode skipping groups), so
    /// the replica must not take it for a fresh start of the primary.
    pub fn clear_created(&self) -> bool {
        match &self.gtid {
            Some(g) => !g.pending.is_empty(),
            None => self.pos > 4,
        }
    }

    /// The Format_description is sent with `next_pos` zeroed (position mode past 4): the
    /// replica must not move its position to the FDE's end.
    pub fn zero_fde_position(&self) -> bool {
        self.gtid.is_none() && self.pos > 4
    }
}

/// GTID mode: the replica's position and the domains still to skip to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GtidSkip {
    /// The position as the replica sent it (what the fake Gtid_list says).
    pub position: Vec<Gtid>,
    /// Domain → the sequence number up to which its groups are skipped.
    pub pending: BTreeMap<u32, u64>,
}

/// Why a dump cannot start.
#[derive(Debug, PartialEq, Eq)]
pub struct StartError {
    pub code: ErrorCode,
    pub message: String,
    /// Append MariaDB's "; the first event … the last byte read …" coordinates.
    pub with_coords: bool,
}

fn fatal(message: impl Into<String>) -> StartError {
    StartError {
        code: ErrorCode::MasterFatalErrorReadingBinlog,
        message: message.into(),
        with_coords: false,
    }
}

/// The position past the file: MariaDB's words (with coordinates).
pub fn impossible_position() -> StartError {
    StartError {
        with_coords: true,
        ..fatal("Client requested master to start replication from impossible position")
    }
}

const NO_FILE: &str = "Could not find first log file name in binary log index file";
const PURGED: &str = "Could not find GTID state requested by slave in any binlog files. \
                      Probably the slave state is too old and required binlog files have been purged.";

/// Resolve the start of a dump (module doc).
pub fn resolve(
    binlog: &BinlogEnd,
    end: &CommittedEnd,
    file: &str,
    pos: u64,
    connect_state: Option<&str>,
    max_allowed_packet: u64,
) -> Result<Start, StartError> {
    match connect_state {
        Some(state) => gtid_start(binlog, end, state, max_allowed_packet),
        None => file_start(binlog, end, file, pos),
    }
}

fn file_start(
    binlog: &BinlogEnd,
    end: &CommittedEnd,
    file: &str,
    pos: u64,
) -> Result<Start, StartError> {
    let name = if file.is_empty() {
        end.files.first().cloned().ok_or_else(|| fatal(NO_FILE))?
    } else {
        file.to_string()
    };
    let len = match binlog.readable_len(end, &name) {
        Ok(Some(len)) => len,
        Ok(None) => return Err(fatal(NO_FILE)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(fatal(NO_FILE)),
        Err(e) => return Err(fatal(format!("I/O error reading the binlog: {e}"))),
    };
    if pos < 4 || pos > len {
        return Err(impossible_position());
    }
    Ok(Start {
        file: name,
        pos,
        gtid: None,
    })
}

fn gtid_start(
    binlog: &BinlogEnd,
    end: &CommittedEnd,
    state: &str,
    max_allowed_packet: u64,
) -> Result<Start, StartError> {
    let position = parse_position(state).map_err(|e| match e {
        GtidParseError::Syntax => StartError {
            code: ErrorCode::IncorrectGtidState,
            message: "Could not parse GTID list".into(),
            with_coords: false,
        },
        GtidParseError::DuplicateDomain { first, second } => StartError {
            code: ErrorCode::DuplicateGtidDomain,
            message: format!(
                "GTID {second} and {first} conflict (duplicate domain id {})",
                first.domain_id
            ),
            with_coords: false,
        },
    })?;
    let wanted = check_position(&end.gtids, &position)?;
    let max_event = max_event_size(max_allowed_packet);
    for name in end.files.iter().rev() {
        let Some(list) = file_gtid_list(binlog, end, name, max_event) else {
            continue;
        };
        if !covers(&wanted, &list) {
            continue;
        }
        let pending = wanted
            .iter()
            .filter(|(d, seq)| {
                let at_start = list
                    .iter()
                    .filter(|l| l.domain_id == **d)
                    .map(|l| l.seq.0)
                    .max();
                at_start.is_none_or(|s| s < **seq)
            })
            .map(|(d, s)| (*d, *s))
            .collect();
        return Ok(Start {
            file: name.clone(),
            pos: 4,
            gtid: Some(GtidSkip { position, pending }),
        });
    }
    Err(fatal(PURGED))
}

/// Rules 1–3 of the module doc: the position per domain the binlog has.
fn check_position(state: &GtidState, position: &[Gtid]) -> Result<BTreeMap<u32, u64>, StartError> {
    let mut wanted = BTreeMap::new();
    for g in position {
        if !state.has_domain(g.domain_id) {
            continue;
        }
        let found = state.entry(g).is_some_and(|e| e.seq >= g.seq);
        if !found && g.seq.0 > 0 {
            let mut msg = format!(
                "Error: connecting slave requested to start from GTID {g}, which is not in the master's binlog"
            );
            if g.seq.0 < state.max_seq(g.domain_id) {
                msg.push_str(
                    ". Since the master's binlog contains GTIDs with higher sequence numbers, it \
                     probably means that the slave has diverged due to executing extra erroneous \
                     transactions",
                );
            }
            return Err(fatal(msg));
        }
        wanted.insert(g.domain_id, g.seq.0);
    }
    Ok(wanted)
}

/// Rule 4: does a file whose Gtid_list is `list` start at or before the position?
fn covers(wanted: &BTreeMap<u32, u64>, list: &[Gtid]) -> bool {
    list.iter()
        .all(|l| wanted.get(&l.domain_id).is_some_and(|&seq| l.seq.0 <= seq))
}

/// The Gtid_list a file starts with (None: the file cannot be read, or has none).
fn file_gtid_list(
    binlog: &BinlogEnd,
    end: &CommittedEnd,
    name: &str,
    max_event: usize,
) -> Option<Vec<Gtid>> {
    let mut stream = EventStream::open(binlog, end, Some(name), 4, max_event).ok()?;
    let mut decoder = EventDecoder::with_checksums(stream.checksums());
    // The FDE, then the Gtid_list.
    for _ in 0..2 {
        let ev = stream.next_event()?.ok()?;
        if let Ok(d) = decoder.decode(ev.pos, ev.bytes) {
            if let Event::GtidList(l) = d.event {
                return Some(l.gtids);
            }
        }
    }
    None
}

/// The fake Gtid_list's text, for logs.
pub fn describe(position: &[Gtid]) -> String {
    GtidText(position).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_binlog::{GtidSeq, ServerId};

    fn g(d: u32, s: u32, q: u64) -> Gtid {
        Gtid {
            domain_id: d,
            server_id: ServerId(s),
            seq: GtidSeq(q),
        }
    }

    /// MariaDB 10.11.19's answers with `gtid_binlog_state = 0-1-9` (see the module doc).
    #[test]
    fn positions_are_checked_as_mariadb() {
        let state = GtidState::from_list(&[g(0, 1, 9)]);
        let err = |p: &[Gtid]| check_position(&state, p).unwrap_err().message;
        assert_eq!(
            err(&[g(0, 1, 100)]),
            "Error: connecting slave requested to start from GTID 0-1-100, which is not in the master's binlog"
        );
        assert_eq!(
            err(&[g(0, 2, 5)]),
            "Error: connecting slave requested to start from GTID 0-2-5, which is not in the master's binlog. Since the master's binlog contains GTIDs with higher sequence numbers, it probably means that the slave has diverged due to executing extra erroneous transactions"
        );
        assert_eq!(
            check_position(&state, &[g(0, 1, 5)]).unwrap(),
            [(0, 5)].into()
        );
        assert_eq!(
            check_position(&state, &[g(1, 1, 5)]).unwrap(),
            BTreeMap::new()
        );
        assert_eq!(
            check_position(&state, &[g(0, 1, 0)]).unwrap(),
            [(0, 0)].into()
        );
    }

    #[test]
    fn a_file_covers_a_position_at_or_after_its_gtid_list() {
        let wanted: BTreeMap<u32, u64> = [(0, 10)].into();
        assert!(covers(&wanted, &[]));
        assert!(covers(&wanted, &[g(0, 1, 10)]));
        assert!(!covers(&wanted, &[g(0, 1, 11)]));
        assert!(
            !covers(&wanted, &[g(0, 1, 3), g(2, 1, 1)]),
            "domain 2 from its start"
        );
        assert!(!covers(&BTreeMap::new(), &[g(0, 1, 1)]));
    }
}
