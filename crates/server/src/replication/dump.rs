//! The dump loop: one replica's stream (see the module doc of [`crate::replication`]).
//!
//! ```text
//! resolve the start ──► for each file: fake Rotate, Format_description, events to the
//!                       sendable end ──► at the end of the current file: flush, then
//!                       EOF (non-blocking) | sleep until a group commit moves the end
//!                       (heartbeat when the period passes) ──► at a Rotate: the next file
//! ```
//!
//! Errors MariaDB reports with the dump's coordinates end in "; the first event 'F' at P,
//! the last event read from 'F' at P, the last byte read from 'F' at P." (the requested start,
//! the event being read, how far reading got).

use super::ack::{self, Shared};
use super::socket::DumpSocket;
use super::start::{self, Start, StartError};
use super::stream::Outbox;
use super::{DumpRequest, StopFlag};
use crate::log::binlog::LogPosition;
use crate::log::binlog_reader::{
    max_event_size, BinlogEnd, Bound, CommittedEnd, EventStream, RawEvent, ReaderGuard, StreamError,
};
use crate::net::ConnectionSlot;
use crate::session::ServerContext;
use cohort_binlog::{
    event_crc32, gtid_flags, DecodeError, Event, EventType, GtidListEvent, RotateEvent,
    CHECKSUM_LEN, HEADER_LEN, LOG_EVENT_BINLOG_IN_USE_F,
};
use cohort_protocol::replication::dump_flags;
use cohort_protocol::ErrorCode;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How long a dump without heartbeats sleeps at a time (it wakes earlier for any change).
const IDLE_WAIT: Duration = Duration::from_secs(3600);

/// Give the dump its own thread (the pool of threads: the connection left its group).
/// `unsent` are bytes of earlier answers the socket had not taken yet; `slot` keeps the
/// connection counted until the dump ends.
pub fn spawn(
    ctx: Arc<ServerContext>,
    req: DumpRequest,
    mut sock: Box<dyn DumpSocket>,
    unsent: Vec<u8>,
    slot: Option<ConnectionSlot>,
) {
    let name = format!("dump-{}", req.conn_id);
    let spawned = std::thread::Builder::new().name(name).spawn(move || {
        let _slot = slot;
        let _waits = crate::wait::bind_thread_stats(Some(ctx.waits.clone()));
        if sock.write_raw(&unsent).is_ok() {
            serve(&ctx, req, sock.as_mut());
        }
        sock.shutdown();
    });
    if let Err(e) = spawned {
        tracing::warn!("cannot start a dump thread: {e}");
    }
}

/// Run a dump on this thread until it ends (module doc).
pub fn serve(ctx: &Arc<ServerContext>, req: DumpRequest, sock: &mut dyn DumpSocket) {
    let conn_id = req.conn_id;
    let stop = ctx.replication.dump_started(conn_id, req.command.server_id);
    tracing::info!(
        "binlog dump to replica {} (connection {conn_id}, {}@{}): file '{}', position {}, connect state {:?}",
        req.command.server_id,
        req.user,
        req.host,
        req.command.file,
        req.command.pos,
        req.vars.connect_state,
    );
    let ended = run(ctx, req, sock, &stop);
    ctx.replication.dump_ended(conn_id);
    ctx.replication.unregister(conn_id);
    tracing::info!("binlog dump on connection {conn_id} ended: {ended}");
}

/// Why a dump ended (for the log).
fn run(
    ctx: &Arc<ServerContext>,
    req: DumpRequest,
    sock: &mut dyn DumpSocket,
    stop: &Arc<StopFlag>,
) -> String {
    let vars = &req.vars;
    // A replica that asked for semi-sync gets the header on every packet, whether or not the
    // primary has semi-sync on now (MariaDB's replica insists); acknowledgements are asked
    // for while it is on.
    let semi = vars.semi_sync;
    let checksum = vars
        .checksum
        .as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case("CRC32"));
    let server_id = ctx.vars.global_u64("server_id") as u32;
    let mut out = Outbox::new(semi, checksum, server_id);
    let Some(binlog) = ctx.pipeline.binlog_end().cloned() else {
        let _ = out.error(
            sock,
            ErrorCode::MasterFatalErrorReadingBinlog,
            "Binary log is not open",
        );
        return "no binlog".into();
    };
    // A dump this one replaced (same server id) may be waiting: let it see its stop flag.
    binlog.wake_readers();
    if vars.capability < 4 {
        let msg = "Cohort streams MariaDB's GTID, Gtid_list and Binlog_checkpoint events as \
                   written: the client must declare it reads them (SET @mariadb_slave_capability = 4)";
        let _ = out.error(sock, ErrorCode::MasterFatalErrorReadingBinlog, msg);
        return "capability below 4".into();
    }
    let max_packet = ctx.vars.global_u64("max_allowed_packet");
    let end = binlog.get();
    let cmd = &req.command;
    let first = Coord {
        file: if cmd.file.is_empty() {
            ".".into()
        } else {
            cmd.file.clone()
        },
        pos: cmd.pos as u64,
    };
    let start = match start::resolve(
        &binlog,
        &end,
        &cmd.file,
        cmd.pos as u64,
        vars.connect_state.as_deref(),
        max_packet,
    ) {
        Ok(s) => s,
        Err(e) => {
            let here = Coord {
                file: if cmd.file.is_empty() {
                    end.files.first().cloned().unwrap_or_default()
                } else {
                    cmd.file.clone()
                },
                pos: 4,
            };
            let coords = Coords {
                first: first.clone(),
                event: here.clone(),
                byte: here,
            };
            let msg = coords.message(&e);
            let _ = out.error(sock, e.code, &msg);
            return msg;
        }
    };
    let shared = Arc::new(Shared {
        stop: stop.clone(),
        binlog: binlog.clone(),
        semi: semi.then(|| ctx.pipeline.clone()),
        asked: Default::default(),
    });
    let reader = match sock.reader() {
        Ok(input) => {
            let (shared, unread) = (shared.clone(), req.unread);
            std::thread::Builder::new()
                .name(format!("dump-reader-{}", req.conn_id))
                .spawn(move || ack::read_until_closed(input, unread, &shared))
                .ok()
        }
        Err(_) => None,
    };
    if semi {
        ctx.pipeline.semisync_client(&ctx.vars, true);
    }
    let mut d = Dump {
        ctx,
        binlog: binlog.clone(),
        guard: binlog.reader(),
        sock,
        out,
        shared: shared.clone(),
        coords: Coords {
            event: Coord {
                file: start.file.clone(),
                pos: 4,
            },
            byte: Coord {
                file: start.file.clone(),
                pos: 4,
            },
            first,
        },
        skip: start.gtid.clone().map(|g| Skipper {
            pending: g.pending,
            position: g.position,
            group: None,
            announce: false,
        }),
        annotate: cmd.flags & dump_flags::SEND_ANNOTATE_ROWS != 0,
        non_block: cmd.flags & dump_flags::NON_BLOCK != 0,
        checksum_aware: vars.checksum.is_some(),
        heartbeat: (vars.heartbeat_ns > 0).then(|| Duration::from_nanos(vars.heartbeat_ns)),
        semi,
        max_event: max_event_size(max_packet),
    };
    let ended = d.stream_from(start);
    let ended = match ended {
        Ok(why) => why.to_string(),
        Err(End::Error { code, message }) => {
            let _ = d.out.error(d.sock, code, &message);
            message
        }
        Err(End::Gone) => match stop.reason() {
            Some(code) => {
                let msg = d.coords.with(
                    "A slave with the same server_uuid/server_id as this slave has connected to the master",
                );
                let _ = d.out.error(d.sock, code, &msg);
                msg
            }
            None => "the client went away".into(),
        },
    };
    if semi {
        ctx.pipeline.semisync_client(&ctx.vars, false);
    }
    // Unblock the reader, then wait for it.
    stop.set(None);
    d.sock.shutdown();
    if let Some(r) = reader {
        let _ = r.join();
    }
    ended
}

/// A position in a file, for error messages.
#[derive(Clone, Debug)]
struct Coord {
    file: String,
    pos: u64,
}

/// The dump's coordinates, as MariaDB's errors give them.
struct Coords {
    first: Coord,
    event: Coord,
    byte: Coord,
}

impl Coords {
    fn with(&self, msg: &str) -> String {
        format!(
            "{msg}; the first event '{}' at {}, the last event read from '{}' at {}, the last byte read from '{}' at {}.",
            self.first.file, self.first.pos, self.event.file, self.event.pos, self.byte.file, self.byte.pos
        )
    }

    fn message(&self, e: &StartError) -> String {
        if e.with_coords {
            self.with(&e.message)
        } else {
            e.message.clone()
        }
    }
}

/// How a dump stopped early.
enum End {
    /// Tell the client (ERR), then stop.
    Error { code: ErrorCode, message: String },
    /// The client is gone, or the dump was told to stop.
    Gone,
}

impl From<std::io::Error> for End {
    fn from(_: std::io::Error) -> End {
        End::Gone
    }
}

/// GTID mode: skipping to the replica's position ([`super::start`], rule 5).
struct Skipper {
    /// Domain → skip its groups up to this sequence number.
    pending: BTreeMap<u32, u64>,
    position: Vec<cohort_binlog::Gtid>,
    /// Inside a group: (skipped, ends at its Query (standalone) rather than its Xid, the
    /// domain it completes when it ends).
    group: Option<Group>,
    /// The position was reached: send the fake Gtid_list before the next event.
    announce: bool,
}

struct Group {
    skipped: bool,
    standalone: bool,
    /// The replica's exact GTID: its domain is reached when the group ends.
    completes: Option<u32>,
}

impl Skipper {
    /// Should `ev` be skipped? Updates the state.
    fn skip(&mut self, ev: &RawEvent<'_>) -> bool {
        let body = ev.body();
        if ev.header.event_type == EventType::GTID && body.len() >= 13 {
            let seq = u64::from_le_bytes(body[..8].try_into().expect("8 bytes"));
            let domain = u32::from_le_bytes(body[8..12].try_into().expect("4 bytes"));
            let standalone = body[12] & gtid_flags::STANDALONE != 0;
            let mut group = Group {
                skipped: false,
                standalone,
                completes: None,
            };
            if let Some(&upto) = self.pending.get(&domain) {
                if seq <= upto {
                    group.skipped = true;
                    group.completes = (seq == upto).then_some(domain);
                } else {
                    self.reached(domain);
                }
            }
            let skipped = group.skipped;
            self.group = Some(group);
            return skipped;
        }
        let Some(group) = self.group.as_ref() else {
            return false;
        };
        let skipped = group.skipped;
        let ends = match ev.header.event_type {
            EventType::XID => true,
            EventType::QUERY => group.standalone,
            _ => false,
        };
        if ends {
            if let Some(d) = self.group.take().and_then(|g| g.completes) {
                self.reached(d);
            }
        }
        skipped
    }

    fn reached(&mut self, domain: u32) {
        if self.pending.remove(&domain).is_some() && self.pending.is_empty() {
            self.announce = true;
        }
    }
}

/// One dump's state.
struct Dump<'a> {
    ctx: &'a Arc<ServerContext>,
    binlog: Arc<BinlogEnd>,
    /// The file being read, registered against PURGE.
    guard: ReaderGuard,
    sock: &'a mut dyn DumpSocket,
    out: Outbox,
    shared: Arc<Shared>,
    coords: Coords,
    skip: Option<Skipper>,
    annotate: bool,
    non_block: bool,
    checksum_aware: bool,
    heartbeat: Option<Duration>,
    semi: bool,
    max_event: usize,
}

impl Dump<'_> {
    fn gone(&self) -> bool {
        self.shared.stop.is_set()
    }

    fn fatal(&self, msg: &str) -> End {
        End::Error {
            code: ErrorCode::MasterFatalErrorReadingBinlog,
            message: self.coords.with(msg),
        }
    }

    /// Stream from `start`, file after file. Ok: the dump is complete (EOF sent, shutdown).
    fn stream_from(&mut self, start: Start) -> Result<&'static str, End> {
        let mut file = start.file.clone();
        let mut from = start.pos;
        let mut first = Some(&start);
        loop {
            if !self.guard.set_file(&file) {
                return Err(End::Error {
                    code: ErrorCode::MasterFatalErrorReadingBinlog,
                    message: "Could not find first log file name in binary log index file".into(),
                });
            }
            match self.stream_file(&file, from, first.take())? {
                Next::File(next) => {
                    file = next;
                    from = 4;
                }
                Next::Done(why) => return Ok(why),
            }
        }
    }

    /// One file: fake Rotate, Format_description, events; then where to go.
    fn stream_file(&mut self, file: &str, from: u64, start: Option<&Start>) -> Result<Next, End> {
        let fake = Event::Rotate(RotateEvent {
            position: cohort_binlog::BinlogPos(from),
            next_file: file.to_string(),
        });
        self.out.synthetic(self.sock, &fake, 0, 0, true)?;
        let mut end = self.binlog.get();
        let fde_end = self.send_format_description(file, &end, start)?;
        // From 4 the Format_description was just sent; any other start is read as asked.
        let mut stream = self.open(file, &end, if from == 4 { fde_end } else { from })?;
        loop {
            let limit = stream.limit();
            let event = match stream.next_event() {
                Some(Ok(ev)) => ev,
                Some(Err(e)) => return Err(self.stream_error(e)),
                None => {
                    if !end.is_current(file) {
                        return self.next_file(file, &end);
                    }
                    match self.wait_for_more(file, &mut end, &mut stream)? {
                        Some(done) => return Ok(Next::Done(done)),
                        None => continue,
                    }
                }
            };
            self.coords.event = Coord {
                file: file.to_string(),
                pos: event.pos.0,
            };
            self.coords.byte = Coord {
                file: file.to_string(),
                pos: event.end(),
            };
            let current = end.is_current(file);
            if let Some(next) = self.send_event(&event, limit, current, file)? {
                return Ok(Next::File(next));
            }
        }
    }

    /// Send one event read from `file` (or skip it); a Rotate names the next file.
    fn send_event(
        &mut self,
        ev: &RawEvent<'_>,
        limit: u64,
        current: bool,
        file: &str,
    ) -> Result<Option<String>, End> {
        let t = ev.header.event_type;
        if let Some(skip) = self.skip.as_mut() {
            if skip.skip(ev) {
                return Ok(None);
            }
        }
        self.announce_position(ev.pos.0)?;
        if t == EventType::ANNOTATE_ROWS && !self.annotate {
            return Ok(None);
        }
        let ends_txn = matches!(t, EventType::XID | EventType::QUERY);
        let ack = self.semi
            && current
            && ends_txn
            && ev.end() == limit
            && self.ctx.pipeline.semisync_enabled();
        self.out.event(self.sock, ev.bytes, ack)?;
        if ack {
            self.ctx.pipeline.semisync_asked();
            self.shared.asked_for(LogPosition {
                file: file.to_string(),
                pos: ev.end(),
            });
        }
        if t == EventType::ROTATE {
            let body = ev.body();
            if body.len() > 8 {
                return Ok(Some(String::from_utf8_lossy(&body[8..]).into_owned()));
            }
        }
        Ok(None)
    }

    /// GTID mode: the position was reached; tell the replica (fake Gtid_list ending at `at`).
    fn announce_position(&mut self, at: u64) -> Result<(), End> {
        let Some(skip) = self.skip.as_mut().filter(|s| s.announce) else {
            return Ok(());
        };
        let list = Event::GtidList(GtidListEvent {
            flags: 0,
            gtids: skip.position.clone(),
        });
        self.skip = None;
        self.out.synthetic(self.sock, &list, 0, at, true)?;
        Ok(())
    }

    /// The Format_description of `file`, as a dump sends it; returns where it ends.
    fn send_format_description(
        &mut self,
        file: &str,
        end: &CommittedEnd,
        start: Option<&Start>,
    ) -> Result<u64, End> {
        let mut stream = self.open(file, end, 4)?;
        let checksums = stream.checksums();
        let ev = match stream.next_event() {
            Some(Ok(ev)) => ev,
            Some(Err(e)) => return Err(self.stream_error(e)),
            None => return Err(self.fatal("bogus data in log event")),
        };
        let fde_end = ev.end();
        self.coords.event = Coord {
            file: file.to_string(),
            pos: 4,
        };
        self.coords.byte = Coord {
            file: file.to_string(),
            pos: fde_end,
        };
        if checksums && !self.checksum_aware {
            return Err(self.fatal(
                "Slave can not handle replication events with the checksum that master is configured to log",
            ));
        }
        let mut fde = ev.bytes.to_vec();
        let flags = u16::from_le_bytes([fde[17], fde[18]]) & !LOG_EVENT_BINLOG_IN_USE_F;
        fde[17..19].copy_from_slice(&flags.to_le_bytes());
        if let Some(s) = start {
            // `created` sits after the binlog version (2) and the server version (50).
            let created = HEADER_LEN + 2 + 50;
            if s.clear_created() && fde.len() >= created + 4 {
                fde[created..created + 4].fill(0);
            }
            if s.zero_fde_position() {
                fde[13..17].fill(0);
            }
        }
        let n = fde.len();
        let crc = event_crc32(&fde[..n - CHECKSUM_LEN]);
        fde[n - CHECKSUM_LEN..].copy_from_slice(&crc.to_le_bytes());
        self.out.event(self.sock, &fde, false)?;
        self.out.set_checksum(checksums);
        Ok(fde_end)
    }

    fn open(&self, file: &str, end: &CommittedEnd, from: u64) -> Result<EventStream, End> {
        EventStream::open_to(
            &self.binlog,
            end,
            Some(file),
            from,
            self.max_event,
            Bound::Sendable,
        )
        .map_err(|e| self.stream_error(e))
    }

    /// MariaDB's words for what stopped reading.
    fn stream_error(&self, e: StreamError) -> End {
        let (msg, header_only) = match &e {
            StreamError::NotFound => {
                return End::Error {
                    code: ErrorCode::MasterFatalErrorReadingBinlog,
                    message: "Could not find first log file name in binary log index file".into(),
                }
            }
            StreamError::PastEnd { .. } => {
                return self.fatal("Client requested master to start replication from impossible position")
            }
            StreamError::Io(_) => ("I/O error reading log event", true),
            StreamError::NotAnEvent { error, .. } => match error {
                DecodeError::Truncated { needed, .. } if *needed as usize > self.max_event => (
                    "log event entry exceeded max_allowed_packet; Increase max_allowed_packet on master",
                    true,
                ),
                DecodeError::Truncated { .. } => (
                    "binlog truncated in the middle of event; consider out of disk space on master",
                    true,
                ),
                DecodeError::BadHeader { detail, .. } if detail.starts_with("event size") => {
                    ("bogus data in log event", true)
                }
                DecodeError::BadHeader { .. } | DecodeError::BadChecksum { .. } => {
                    ("event read from binlog did not pass crc check", false)
                }
                _ => ("bogus data in log event", true),
            },
        };
        let mut coords = Coords {
            first: self.coords.first.clone(),
            event: self.coords.event.clone(),
            byte: self.coords.byte.clone(),
        };
        if let StreamError::NotAnEvent { pos, .. } = &e {
            coords.event.pos = *pos;
            if header_only {
                coords.byte = Coord {
                    file: coords.event.file.clone(),
                    pos: pos + HEADER_LEN as u64,
                };
            }
        }
        End::Error {
            code: ErrorCode::MasterFatalErrorReadingBinlog,
            message: coords.with(msg),
        }
    }

    /// A closed file was read to its end without a Rotate (it ended with Stop, after a
    /// restart): go on with the next file of the index.
    fn next_file(&self, file: &str, end: &CommittedEnd) -> Result<Next, End> {
        let at = end.files.iter().position(|f| f == file);
        match at.and_then(|i| end.files.get(i + 1)) {
            Some(next) => Ok(Next::File(next.clone())),
            None => Err(self.fatal("Could not find next log")),
        }
    }

    /// At the sendable end of the current file: EOF (non-blocking), or wait for a group
    /// commit (heartbeats meanwhile). Returns Some when the dump is complete.
    fn wait_for_more(
        &mut self,
        file: &str,
        end: &mut CommittedEnd,
        stream: &mut EventStream,
    ) -> Result<Option<&'static str>, End> {
        let here = stream.position();
        self.announce_position(here)?;
        self.out.flush(self.sock)?;
        if self.non_block {
            self.out.eof(self.sock)?;
            return Ok(Some("end of the binlog (non-blocking)"));
        }
        loop {
            if self.gone() {
                return Err(End::Gone);
            }
            if end.closed {
                return Ok(Some("shutdown"));
            }
            if end.follow_synced && end.end > end.synced && here >= end.synced {
                // One-log mode, sync_binlog != 1: committed but not yet durable.
                let at = LogPosition {
                    file: file.to_string(),
                    pos: end.end,
                };
                self.ctx.pipeline.sync_for_replicas(&self.ctx.vars, &at);
            }
            let timeout = self.heartbeat.unwrap_or(IDLE_WAIT);
            let shared = self.shared.clone();
            let next = self
                .binlog
                .wait_change(end, timeout, &|| shared.stop.is_set());
            if self.gone() {
                return Err(End::Gone);
            }
            if next.closed {
                return Ok(Some("shutdown"));
            }
            if next == *end {
                if self.heartbeat.is_some() {
                    let hb = Event::Heartbeat(file.to_string());
                    self.out.synthetic(self.sock, &hb, 0, here, false)?;
                    self.out.flush(self.sock)?;
                }
                continue;
            }
            *end = next;
            let limit = if end.is_current(file) {
                end.sendable()
            } else {
                match self.binlog.readable_len(end, file) {
                    Ok(Some(len)) => len,
                    _ => {
                        return Err(self
                            .fatal("Could not find first log file name in binary log index file"))
                    }
                }
            };
            if limit > here {
                stream.extend_to(limit);
                return Ok(None);
            }
            if !end.is_current(file) {
                return Ok(None);
            }
        }
    }
}

/// Where the stream goes after a file.
enum Next {
    File(String),
    Done(&'static str),
}
