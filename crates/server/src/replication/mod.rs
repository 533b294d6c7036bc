//! Serving the binlog to replicas and change-data-capture clients: MariaDB's dump protocol.
//!
//! Cohort builds no cluster of its own: MariaDB 10.11 replicas, `mariadb-binlog
//! --read-from-remote-server` and CDC clients (python-mysql-replication, Debezium, Maxwell)
//! follow it as they follow a MariaDB primary. What they send and expect was captured from a
//! real MariaDB 10.11.19 primary (see `cohort_protocol::replication` for the packets).
//!
//! # A replica's session
//!
//! ```text
//! SELECT UNIX_TIMESTAMP(); SHOW VARIABLES LIKE 'SERVER_ID'
//! SET @master_heartbeat_period = <ns>; SET @master_binlog_checksum = @@global.binlog_checksum
//! SET @mariadb_slave_capability = 4; SELECT @@GLOBAL.gtid_domain_id
//! SET @slave_connect_state = '0-1-5'      (GTID mode; file mode: SELECT BINLOG_GTID_POS(f, p))
//! SET @slave_gtid_strict_mode = 0; SET @slave_gtid_ignore_duplicates = 0
//! [SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled'; SET @rpl_semi_sync_slave = 1]
//! COM_REGISTER_SLAVE                       → OK; listed by SHOW SLAVE HOSTS   (hosts)
//! COM_BINLOG_DUMP pos, flags, server id, file   (GTID mode: file and pos ignored; a
//!                                             reconnecting replica names where it was)
//!   ← fake Rotate (file, start position; timestamp 0, LOG_EVENT_ARTIFICIAL_F)
//!   ← Format_description of the file (in-use flag cleared; `created` and `next_pos` zeroed
//!     when the stream does not start at the file's beginning)
//!   ← GTID start: the file's Gtid_list and Binlog_checkpoint; the groups up to the
//!     replica's position are skipped, then a fake Gtid_list (the position) is sent
//!   ← every event, as written; at each Rotate, a fake Rotate and the next file's
//!     Format_description
//!   ← heartbeats (type 0x1b) while idle; EOF when non-blocking and done; ERR 1236 on error
//! ```
//!
//! The variables are the session's user variables, read when the dump starts
//! ([`DumpRequest`]). The start is resolved by [`start`]; the stream is built by
//! [`stream`]; [`dump`] is the loop; [`ack`] reads what the client sends meanwhile
//! (semi-sync acknowledgements; anything else is ignored).
//!
//! # Who runs a dump
//!
//! A dump is the connection's last command: once COM_BINLOG_DUMP is accepted, the session
//! answers [`crate::session::Flow::Dump`] and the connection leaves its scheduler. With a
//! thread per connection, the connection's thread runs the dump. In the pool of threads the
//! connection is taken out of its group (epoll, connection table) and given a thread of its
//! own ([`spawn`]) — MariaDB's "dump thread" — so a dump waiting for new events never pins a
//! pool worker: it sleeps on the binlog's end ([`crate::log::binlog_reader::BinlogEnd`]) and
//! is woken by the group commit that moves it. Each dump also has a reader thread ([`ack`]),
//! which blocks reading the socket: it takes semi-sync acknowledgements, notices the client
//! going away, and wakes the dump.
//!
//! # What is sent
//!
//! Only durable events (see "What may leave the server" in
//! [`crate::log::binlog_reader`]): a dump never reads past the sendable end, and never holds
//! the log mutex while it reads or sends — the files are read through their own descriptors,
//! a bounded window at a time.
//!
//! # How a dump ends
//!
//! On a write error or the client closing (its reader sees EOF), at shutdown (the binlog's end
//! is closed), when a new dump registers with the same server id (ERR 4052, as MariaDB), and
//! with ERR 1236 when what it must read is gone (a file purged before the dump opened it:
//! PURGE keeps every file a dump reads and those after it). Cohort has no KILL statement, so
//! a dump cannot be killed otherwise.

pub mod ack;
pub mod dump;
pub mod hosts;
pub mod socket;
pub mod start;
pub mod stream;
#[cfg(test)]
mod tests;

pub use dump::{serve, spawn};
pub use socket::DumpSocket;

use cohort_protocol::replication::BinlogDump;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The value of a GTID position variable (`gtid_binlog_pos`, `gtid_binlog_state`,
/// `gtid_current_pos`) now: the committed GTID state. A primary has no replica position, so
/// its current position is its binlog position.
pub fn live_variable(
    pipeline: &crate::log::CommitPipeline,
    name: &str,
) -> Option<crate::types::Value> {
    use crate::log::gtid::GtidText;
    let state = pipeline.binlog_end().map(|e| e.get().gtids)?;
    let text = match name {
        "gtid_binlog_pos" | "gtid_current_pos" => GtidText(&state.positions()).to_string(),
        "gtid_binlog_state" => GtidText(&state.list()).to_string(),
        _ => return None,
    };
    Some(crate::types::Value::str(&text))
}

/// `BINLOG_GTID_POS(file, pos)`: the GTID position (the last GTID of each domain) at `pos`
/// of `file` — the file's Gtid_list and the GTIDs before `pos`. None if the binlog does not
/// have the file or `pos` is not the first byte of an event (or its end) in its committed part.
pub fn gtid_position_at(
    pipeline: &crate::log::CommitPipeline,
    file: &str,
    pos: u64,
) -> Option<String> {
    use crate::log::binlog_reader::{max_event_size, EventStream};
    use crate::log::gtid::{GtidState, GtidText};
    use cohort_binlog::{DecodedEvent, Event, EventType, Gtid, GtidSeq};
    let binlog = pipeline.binlog_end()?;
    let end = binlog.get();
    let max = max_event_size(pipeline_max_packet());
    let mut stream = EventStream::open(binlog, &end, Some(file), 4, max).ok()?;
    let mut decoder = cohort_binlog::EventDecoder::with_checksums(stream.checksums());
    let mut state = GtidState::default();
    let mut boundary = false;
    while let Some(ev) = stream.next_event() {
        let ev = ev.ok()?;
        let t = ev.header.event_type;
        boundary |= ev.pos.0 == pos;
        // The Gtid_list describes the file's start: read it even for a position before it.
        if ev.pos.0 >= pos && t != EventType::GTID_LIST && t != EventType::FORMAT_DESCRIPTION {
            break;
        }
        if t == EventType::GTID_LIST {
            if let Ok(DecodedEvent {
                event: Event::GtidList(l),
                ..
            }) = decoder.decode(ev.pos, ev.bytes)
            {
                l.gtids.iter().for_each(|g| state.record(*g));
            }
        } else if t == EventType::GTID && ev.pos.0 < pos {
            let b = ev.body();
            if b.len() >= 12 {
                state.record(Gtid {
                    domain_id: u32::from_le_bytes(b[8..12].try_into().ok()?),
                    server_id: ev.header.server_id,
                    seq: GtidSeq(u64::from_le_bytes(b[..8].try_into().ok()?)),
                });
            }
        }
    }
    boundary |= stream.position() == pos;
    boundary.then(|| GtidText(&state.positions()).to_string())
}

/// Events are never larger than the largest packet there can be (1 GiB).
fn pipeline_max_packet() -> u64 {
    1 << 30
}

/// The user variables a replica sets before COM_BINLOG_DUMP (read at the dump's start).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplicaVars {
    /// `@master_binlog_checksum`: what the replica handles (`CRC32`, `NONE`); None: unset,
    /// the replica does not know checksums.
    pub checksum: Option<String>,
    /// `@mariadb_slave_capability`.
    pub capability: u64,
    /// `@slave_connect_state`: None when unset (file/position mode).
    pub connect_state: Option<String>,
    /// `@master_heartbeat_period`, in nanoseconds (0: no heartbeats).
    pub heartbeat_ns: u64,
    /// `@rpl_semi_sync_slave`.
    pub semi_sync: bool,
    /// `@slave_gtid_strict_mode`.
    pub gtid_strict: bool,
    /// `@slave_gtid_ignore_duplicates`.
    pub ignore_duplicates: bool,
}

/// Everything a dump needs from the session that accepted COM_BINLOG_DUMP.
#[derive(Debug)]
pub struct DumpRequest {
    pub conn_id: u32,
    pub user: String,
    pub host: String,
    pub command: BinlogDump,
    pub vars: ReplicaVars,
    /// Bytes the client sent after the command (the reader thread reads them first).
    pub unread: Vec<u8>,
    /// The connection's TLS, when it is inside TLS: the dump seals its stream with it.
    pub tls: Option<Box<crate::tls::Link>>,
}

/// Why a running dump must stop (set by someone else).
pub struct StopFlag {
    stop: AtomicBool,
    /// What to tell the client, if anything (ERR 4052 for a replaced dump).
    reason: Mutex<Option<cohort_protocol::ErrorCode>>,
}

impl StopFlag {
    fn new() -> Arc<StopFlag> {
        Arc::new(StopFlag {
            stop: AtomicBool::new(false),
            reason: Mutex::new(None),
        })
    }

    pub fn is_set(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    pub fn set(&self, reason: Option<cohort_protocol::ErrorCode>) {
        if let Some(r) = reason {
            self.reason.lock().get_or_insert(r);
        }
        self.stop.store(true, Ordering::Release);
    }

    pub fn reason(&self) -> Option<cohort_protocol::ErrorCode> {
        *self.reason.lock()
    }
}

/// One running dump.
struct DumpEntry {
    conn_id: u32,
    server_id: u32,
    stop: Arc<StopFlag>,
}

/// The server's replication state: registered replicas and running dumps.
#[derive(Default)]
pub struct Replication {
    /// Protected by this mutex: COM_REGISTER_SLAVE registrations, one per server id.
    hosts: Mutex<Vec<hosts::SlaveHost>>,
    /// Protected by this mutex: the running dumps.
    dumps: Mutex<Vec<DumpEntry>>,
}

impl Replication {
    /// A dump starts: an older dump with the same server id is told to stop (ERR 4052), as
    /// MariaDB does when a replica reconnects before its old connection is gone.
    fn dump_started(&self, conn_id: u32, server_id: u32) -> Arc<StopFlag> {
        let stop = StopFlag::new();
        let mut dumps = self.dumps.lock();
        // server id 0 (mariadb-binlog without --stop-never) never replaces anyone.
        if server_id != 0 {
            for d in dumps.iter().filter(|d| d.server_id == server_id) {
                d.stop.set(Some(cohort_protocol::ErrorCode::SlaveSameId));
            }
        }
        dumps.push(DumpEntry {
            conn_id,
            server_id,
            stop: stop.clone(),
        });
        stop
    }

    fn dump_ended(&self, conn_id: u32) {
        self.dumps.lock().retain(|d| d.conn_id != conn_id);
    }

    /// Dumps running now.
    pub fn running_dumps(&self) -> usize {
        self.dumps.lock().len()
    }
}
