//! Reading the binlog while it is written: the committed end, published without the log
//! mutex, and a streaming, bounded-memory event reader up to it.
//!
//! # Why
//!
//! Readers of the binlog — `SHOW BINLOG EVENTS`, and later the dump threads that stream it to
//! replicas — must never hold up commits, and must only ever see what a client could have been
//! told is committed. Holding the log mutex while copying a file does both wrong: commits wait
//! for the copy, and the copy includes bytes of a group that may still fail.
//!
//! # The committed end ([`BinlogEnd`])
//!
//! The commit pipeline publishes, for the file being written, the offset just past the last
//! group that passed its commit point (with `sync_binlog = 1`: synced; otherwise written, the
//! point at which those settings acknowledge), the offset up to which the file is *synced*,
//! the GTID state at the committed end, and the list of files in the index. It does so under
//! the leader's log mutex, but into a small mutex of its own (never held across I/O), so a
//! reader takes only that:
//!
//! | field | set by | when |
//! |---|---|---|
//! | `end`, `gtids` | leader (`BinlogFiles::publish_committed`) | after a group's commit point |
//! | `synced` | leader, or a dump thread's sync for replicas (`BinlogFiles::publish_synced`) | after each fsync of the current file |
//! | `files`, `end`, `synced` | `BinlogFiles::rotate`, `purge_*` | after the index is rewritten |
//! | `closed` | [`BinlogEnd::close`] | shutdown: readers stop |
//!
//! A failed group never moves `end`, and its bytes are cut from the file before anyone is told
//! (see "Failures" in [`crate::log`]): bytes below `end` are exactly those recovery replays
//! after a restart of the process. Closed files (all but the last) are complete and synced:
//! read to their length.
//!
//! # What may leave the server: the *sendable* end
//!
//! Replicas and CDC clients must only ever receive what survives a crash of the machine:
//! an event a replica applied and the primary then lost would make the two diverge for good
//! (the replica holds a transaction, and a GTID, the primary will reuse). So dump threads
//! read up to [`CommittedEnd::sendable`], not `end`:
//!
//! - **one-log mode: always the synced end.** The binlog *is* the redo log: an unsynced group
//!   may vanish in a machine crash, and recovery would not replay it. With `sync_binlog = 1`
//!   the synced end is the committed end. With `0` or `N` it lags, and a dump thread that has
//!   sent everything up to it while `end` is further asks the pipeline for one fsync
//!   (`CommitPipeline::sync_for_replicas`, coalesced over dump threads): replicas get what is
//!   committed once it is durable, at the price of the syncs those settings meant to save —
//!   only while a replica follows.
//! - **classic mode: the committed end**, as MariaDB: with `sync_binlog = 1` it is the synced
//!   end; with `0` / `N` the setting already says that a machine crash may lose acknowledged
//!   commits from both the binlog and the engine (MariaDB sends at write then too).
//!
//! [`BinlogEnd::wait_change`] lets a reader that reached what it may read sleep until a
//! publication changes it (a dump thread's wait for new events, woken by group commit: no
//! polling); publishing wakes it only if someone waits.
//!
//! # Files in use
//!
//! A reader registers the file it reads ([`BinlogEnd::reader`], [`ReaderGuard::set_file`]):
//! PURGE never removes it or any later file (MariaDB keeps a file a dump thread reads, and
//! says nothing). Registering checks the file is still in the index under the same lock PURGE
//! holds while it rewrites the index, so a reader either registers a file before PURGE
//! decides, or sees it gone.

use super::binlog::LogPosition;
use super::device::{LogDir, LogRead};
use super::gtid::GtidState;
use cohort_binlog::{
    BinlogPos, DecodeError, EventDecoder, EventHeader, EventType, CHECKSUM_LEN, HEADER_LEN,
};
use parking_lot::{Condvar, Mutex};
use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What the last publication said: the files of the index and the ends of the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommittedEnd {
    /// The index, oldest first; the last one is being written.
    pub files: Arc<Vec<String>>,
    /// Offset just past the last committed group in the last file.
    pub end: u64,
    /// Offset up to which the last file is synced (≤ `end`).
    pub synced: u64,
    /// The binlog GTID state at `end`.
    pub gtids: Arc<GtidState>,
    /// Dump threads follow `synced` (one-log mode), not `end` (module doc).
    pub follow_synced: bool,
    /// The server is shutting down: readers stop.
    pub closed: bool,
}

impl CommittedEnd {
    /// The position of the committed end.
    pub fn position(&self) -> LogPosition {
        LogPosition {
            file: self.files.last().cloned().unwrap_or_default(),
            pos: self.end,
        }
    }

    /// Is `name` the file being written?
    pub fn is_current(&self, name: &str) -> bool {
        self.files.last().is_some_and(|f| f == name)
    }

    /// How far a dump thread may read the current file (module doc).
    pub fn sendable(&self) -> u64 {
        if self.follow_synced {
            self.synced
        } else {
            self.end
        }
    }
}

/// Which end of the current file a reader reads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// What clients were told is committed (SHOW BINLOG EVENTS, SHOW MASTER STATUS).
    Committed,
    /// What may leave the server ([`CommittedEnd::sendable`]).
    Sendable,
}

/// The binlog's committed end and files, readable without the log mutex (module docs).
pub struct BinlogEnd {
    dir: Arc<dyn LogDir>,
    /// Protected by this mutex (held for a clone or a store, never across I/O).
    state: Mutex<CommittedEnd>,
    /// Signalled when `state` changes and someone waits.
    moved: Condvar,
    /// Readers sleeping in `wait_*` (relaxed; publishers skip the signal when 0).
    waiting: AtomicUsize,
    /// Protected by this mutex: the file each registered reader reads. PURGE holds it while
    /// it decides and rewrites the index (I/O, but only PURGE and registering readers take it).
    readers: Mutex<Vec<(u64, Option<String>)>>,
    next_reader: AtomicU64,
}

impl BinlogEnd {
    pub(super) fn new(dir: Arc<dyn LogDir>, files: Vec<String>, end: u64) -> BinlogEnd {
        BinlogEnd {
            dir,
            state: Mutex::new(CommittedEnd {
                files: Arc::new(files),
                end,
                synced: end,
                gtids: Arc::new(GtidState::default()),
                follow_synced: false,
                closed: false,
            }),
            moved: Condvar::new(),
            waiting: AtomicUsize::new(0),
            readers: Mutex::new(Vec::new()),
            next_reader: AtomicU64::new(1),
        }
    }

    /// The directory the files live in.
    pub fn dir(&self) -> &Arc<dyn LogDir> {
        &self.dir
    }

    /// The latest publication.
    pub fn get(&self) -> CommittedEnd {
        self.state.lock().clone()
    }

    /// Dump threads follow the synced end (one-log mode) or the committed end (module doc).
    pub(super) fn set_follow_synced(&self, on: bool) {
        self.state.lock().follow_synced = on;
    }

    /// A group of the current file passed its commit point; it ends at `end`, the file is
    /// synced up to `synced`, and `gtids` is the state after it.
    pub(super) fn advance(&self, end: u64, synced: u64, gtids: Arc<GtidState>) {
        let mut st = self.state.lock();
        st.end = st.end.max(end);
        st.synced = st.synced.max(synced).min(st.end);
        st.gtids = gtids;
        drop(st);
        self.wake();
    }

    /// The current file is synced up to `synced` (an fsync for readers).
    pub(super) fn advance_synced(&self, synced: u64) {
        let mut st = self.state.lock();
        st.synced = st.synced.max(synced).min(st.end);
        drop(st);
        self.wake();
    }

    /// The index changed (rotation, purge); the current file's committed and synced end is
    /// `end`.
    pub(super) fn set_files(&self, files: Vec<String>, end: u64, gtids: Arc<GtidState>) {
        let mut st = self.state.lock();
        st.files = Arc::new(files);
        st.end = end;
        st.synced = end;
        st.gtids = gtids;
        drop(st);
        self.wake();
    }

    /// Shutdown: every reader waiting, and every later wait, returns at once with `closed`.
    pub fn close(&self) {
        self.state.lock().closed = true;
        self.moved.notify_all();
    }

    fn wake(&self) {
        if self.waiting.load(Ordering::Acquire) > 0 {
            self.moved.notify_all();
        }
    }

    /// Wait (at most `timeout`) until the committed end is past `pos` — further in the same
    /// file, or in a later file; returns the publication then.
    pub fn wait_past(&self, pos: &LogPosition, timeout: Duration) -> CommittedEnd {
        self.wait_until(timeout, |st| {
            !(st.is_current(&pos.file) && st.end <= pos.pos)
        })
    }

    /// Wait (at most `timeout`) until a publication differs from `seen` (a file added or
    /// removed, an end moved, shutdown) or `interrupted` says so after a
    /// [`BinlogEnd::wake_readers`]; returns the publication then.
    pub fn wait_change(
        &self,
        seen: &CommittedEnd,
        timeout: Duration,
        interrupted: &dyn Fn() -> bool,
    ) -> CommittedEnd {
        self.wait_until(timeout, |st| {
            interrupted()
                || !Arc::ptr_eq(&st.files, &seen.files)
                || st.end != seen.end
                || st.synced != seen.synced
        })
    }

    /// Wake every waiting reader, to check what interrupts it (a dump told to stop).
    pub fn wake_readers(&self) {
        let _st = self.state.lock();
        self.moved.notify_all();
    }

    fn wait_until(&self, timeout: Duration, done: impl Fn(&CommittedEnd) -> bool) -> CommittedEnd {
        let deadline = std::time::Instant::now() + timeout;
        let mut st = self.state.lock();
        self.waiting.fetch_add(1, Ordering::AcqRel);
        while !st.closed && !done(&st) {
            if self.moved.wait_until(&mut st, deadline).timed_out() {
                break;
            }
        }
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        st.clone()
    }

    /// The size a reader may read of `name`: the committed (or sendable) end of the current
    /// file, the length of a closed one. None if the index does not name it.
    pub fn readable_len(&self, end: &CommittedEnd, name: &str) -> io::Result<Option<u64>> {
        self.readable_len_to(end, name, Bound::Committed)
    }

    /// [`BinlogEnd::readable_len`] to the given bound.
    pub fn readable_len_to(
        &self,
        end: &CommittedEnd,
        name: &str,
        bound: Bound,
    ) -> io::Result<Option<u64>> {
        if !end.files.iter().any(|f| f == name) {
            return Ok(None);
        }
        if end.is_current(name) {
            return Ok(Some(match bound {
                Bound::Committed => end.end,
                Bound::Sendable => end.sendable(),
            }));
        }
        self.dir.open_read(name).and_then(|f| f.size()).map(Some)
    }

    /// Register a reader: PURGE keeps the file it names, and every later one, until the
    /// guard is dropped.
    pub fn reader(self: &Arc<Self>) -> ReaderGuard {
        let id = self.next_reader.fetch_add(1, Ordering::Relaxed);
        self.readers.lock().push((id, None));
        ReaderGuard {
            end: self.clone(),
            id,
        }
    }

    /// The readers' oldest file, by its place in `files` (PURGE's bound), with the readers'
    /// lock held so that nobody registers an older one until the guard is dropped.
    pub(super) fn lock_readers(&self) -> parking_lot::MutexGuard<'_, Vec<(u64, Option<String>)>> {
        self.readers.lock()
    }
}

/// A registered reader (see [`BinlogEnd::reader`]).
pub struct ReaderGuard {
    end: Arc<BinlogEnd>,
    id: u64,
}

impl ReaderGuard {
    /// The reader now reads `name`; false if the index no longer names it (purged).
    pub fn set_file(&self, name: &str) -> bool {
        let mut readers = self.end.readers.lock();
        if !self.end.state.lock().files.iter().any(|f| f == name) {
            return false;
        }
        if let Some(r) = readers.iter_mut().find(|(id, _)| *id == self.id) {
            r.1 = Some(name.to_string());
        }
        true
    }
}

impl Drop for ReaderGuard {
    fn drop(&mut self) {
        self.end.readers.lock().retain(|(id, _)| *id != self.id);
    }
}

/// How many bytes a reader reads at once (its buffer, unless one event is larger).
pub const WINDOW: usize = 64 << 10;

/// The largest event a server with `max_allowed_packet` writes: a statement's text or one
/// row's values are at most a packet, plus the event's own framing.
pub fn max_event_size(max_allowed_packet: u64) -> usize {
    (max_allowed_packet as usize).saturating_add(WINDOW)
}

/// Why a stream cannot go on.
#[derive(Debug)]
pub enum StreamError {
    /// The file is not in the index (or was purged).
    NotFound,
    /// The start position is past the readable end (`size`).
    PastEnd {
        from: u64,
        size: u64,
    },
    /// The bytes at `pos` are not an event: the start position is not an event's first byte,
    /// or the file is damaged there.
    NotAnEvent {
        pos: u64,
        error: DecodeError,
    },
    Io(io::Error),
}

impl From<io::Error> for StreamError {
    fn from(e: io::Error) -> StreamError {
        if e.kind() == io::ErrorKind::NotFound {
            StreamError::NotFound
        } else {
            StreamError::Io(e)
        }
    }
}

/// One event of a stream: verified framing and checksum, raw bytes.
pub struct RawEvent<'a> {
    pub pos: BinlogPos,
    pub header: EventHeader,
    /// The whole event: header, body, checksum (if the file has them).
    pub bytes: &'a [u8],
    /// Where the body ends in `bytes`.
    body_end: usize,
}

impl RawEvent<'_> {
    /// Offset just past the event.
    pub fn end(&self) -> u64 {
        self.pos.0 + self.bytes.len() as u64
    }

    /// The body, without header and checksum.
    pub fn body(&self) -> &[u8] {
        &self.bytes[HEADER_LEN..self.body_end]
    }
}

/// Reads the events of one binlog file from a position up to a fixed bound (module docs).
pub struct EventStream {
    name: String,
    file: Box<dyn LogRead>,
    /// Never read at or past this offset.
    limit: u64,
    /// The next event starts here.
    pos: u64,
    /// File bytes `[buf_start, buf_start + buf.len())`.
    buf: Vec<u8>,
    buf_start: u64,
    decoder: EventDecoder,
    /// No event is larger (a larger size field is not an event: e.g. `FROM` pointing into row
    /// data that looks like a header), so the buffer never grows past it.
    max_event: usize,
    /// The largest the buffer has been (for tests of bounded memory).
    peak: usize,
    failed: bool,
}

impl EventStream {
    /// Open `name` (None: the first file of the index) for reading from `from` (below 4:
    /// the first event) up to what `end` says is readable. Events are at most `max_event`
    /// bytes (the server writes none larger than a packet).
    pub fn open(
        binlog: &BinlogEnd,
        end: &CommittedEnd,
        name: Option<&str>,
        from: u64,
        max_event: usize,
    ) -> Result<EventStream, StreamError> {
        EventStream::open_to(binlog, end, name, from, max_event, Bound::Committed)
    }

    /// [`EventStream::open`], reading the current file up to `bound`.
    pub fn open_to(
        binlog: &BinlogEnd,
        end: &CommittedEnd,
        name: Option<&str>,
        from: u64,
        max_event: usize,
        bound: Bound,
    ) -> Result<EventStream, StreamError> {
        let name = match name {
            Some(n) => n.to_string(),
            None => end.files.first().cloned().ok_or(StreamError::NotFound)?,
        };
        let mut limit = binlog
            .readable_len_to(end, &name, bound)?
            .ok_or(StreamError::NotFound)?;
        if bound == Bound::Sendable && from > limit && end.is_current(&name) && from <= end.end {
            // Committed but not yet sendable: nothing to read yet (see `extend_to`).
            limit = from;
        }
        let file = binlog.dir.open_read(&name)?;
        let mut s = EventStream {
            name,
            file,
            limit,
            pos: 4,
            buf: Vec::new(),
            buf_start: 0,
            decoder: EventDecoder::new(),
            max_event,
            peak: 0,
            failed: false,
        };
        // The Format_description says whether events carry checksums.
        match s.next_event() {
            Some(Ok(_)) | None => {}
            Some(Err(e)) => return Err(e),
        }
        let from = from.max(4);
        if from > limit {
            return Err(StreamError::PastEnd { from, size: limit });
        }
        s.pos = from;
        Ok(s)
    }

    /// The file read.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The offset reading stops at.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// More of the file became readable (a later publication): read on to `limit`.
    pub fn extend_to(&mut self, limit: u64) {
        self.limit = self.limit.max(limit);
    }

    /// The offset of the next event.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Whether the file's events carry checksums (its Format_description says).
    pub fn checksums(&self) -> bool {
        self.decoder.checksums() == Some(true)
    }

    /// The largest the read buffer has been.
    pub fn peak_buffer(&self) -> usize {
        self.peak
    }

    /// The next event, or None at the bound. After an error, None.
    pub fn next_event(&mut self) -> Option<Result<RawEvent<'_>, StreamError>> {
        if self.failed || self.pos >= self.limit {
            return None;
        }
        #[cfg(test)]
        pause::reached(self.pos);
        match self.frame() {
            Ok((header, size)) => {
                let at = (self.pos - self.buf_start) as usize;
                let crc = self.checksums() || header.event_type == EventType::FORMAT_DESCRIPTION;
                let ev = RawEvent {
                    pos: BinlogPos(self.pos),
                    header,
                    bytes: &self.buf[at..at + size],
                    body_end: size - if crc { CHECKSUM_LEN } else { 0 },
                };
                self.pos += size as u64;
                Some(Ok(ev))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }

    /// Verify the event at `pos`, reading more of the file as it needs.
    fn frame(&mut self) -> Result<(EventHeader, usize), StreamError> {
        let mut want = HEADER_LEN;
        loop {
            self.fill(want)?;
            let at = (self.pos - self.buf_start) as usize;
            match self.decoder.frame(BinlogPos(self.pos), &self.buf[at..]) {
                Ok(framed) => {
                    if framed.0.event_type == EventType::FORMAT_DESCRIPTION {
                        let bytes = &self.buf[at..at + framed.1];
                        let decoded = self.decoder.decode(BinlogPos(self.pos), bytes);
                        decoded.map_err(|error| self.not_an_event(error))?;
                    }
                    return Ok(framed);
                }
                Err(DecodeError::Truncated { needed, .. })
                    if self.pos + needed <= self.limit
                        && needed as usize > want
                        && needed as usize <= self.max_event =>
                {
                    want = needed as usize;
                }
                Err(error) => return Err(self.not_an_event(error)),
            }
        }
    }

    fn not_an_event(&self, error: DecodeError) -> StreamError {
        StreamError::NotAnEvent {
            pos: self.pos,
            error,
        }
    }

    /// Make the buffer hold at least `want` bytes from `pos` (fewer at the bound): drop what
    /// lies before `pos`, then read a window (or what `want` needs) at its end.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        let at = (self.pos - self.buf_start) as usize;
        let avail = self.buf.len().saturating_sub(at);
        let room = (self.limit - self.pos) as usize;
        let want = want.min(room);
        if avail >= want {
            return Ok(());
        }
        self.buf.drain(..at.min(self.buf.len()));
        self.buf_start = self.pos;
        let target = want.max(WINDOW).min(room);
        let mut have = self.buf.len();
        self.buf.resize(target, 0);
        while have < target {
            let n = self
                .file
                .read_at(self.buf_start + have as u64, &mut self.buf[have..])?;
            if n == 0 {
                break;
            }
            have += n;
        }
        self.buf.truncate(have);
        if self.buf.capacity() > target.max(WINDOW) * 2 {
            self.buf.shrink_to(target.max(WINDOW));
        }
        self.peak = self.peak.max(self.buf.capacity());
        Ok(())
    }
}

/// Test hook: run a closure when a stream on this thread reaches an event (to hold a reader
/// still in the middle of a file while other threads commit).
#[cfg(test)]
pub(crate) mod pause {
    use std::cell::RefCell;

    type Hook = Box<dyn FnMut(u64)>;

    thread_local! {
        static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
    }

    /// Call `f(offset)` at every event a stream on this thread reads (None: stop).
    pub(crate) fn set(f: Option<Hook>) {
        HOOK.with(|h| *h.borrow_mut() = f);
    }

    pub(super) fn reached(pos: u64) {
        HOOK.with(|h| {
            if let Some(f) = h.borrow_mut().as_mut() {
                f(pos)
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::device::SimDir;
    use super::super::tests::{context_on, run, setup};
    use super::*;
    use crate::session::{ServerContext, SessionState};
    use crate::types::Value;
    use cohort_protocol::ErrorCode;
    use std::time::Instant;

    use crate::testkit::rows;

    /// (Pos, Event_type, End_log_pos) of SHOW BINLOG EVENTS rows.
    fn listed(rows: &[Vec<Value>]) -> Vec<(u64, String, u64)> {
        rows.iter()
            .map(|r| match (&r[1], &r[2], &r[4]) {
                (Value::UInt(p), Value::Bytes(t), Value::UInt(e)) => {
                    (*p, String::from_utf8(t.clone()).unwrap(), *e)
                }
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// The events of a whole file as the binlog crate decodes it.
    fn decoded(dir: &SimDir, name: &str) -> Vec<(u64, String, u64)> {
        let out = cohort_binlog::read_all(&dir.read(name).unwrap());
        out.events
            .iter()
            .map(|e| (e.pos.0, e.header.event_type.name().to_string(), e.end().0))
            .collect()
    }

    fn server_with_rows(n: usize) -> (SimDir, ServerContext, SessionState) {
        let dir = SimDir::new();
        let ctx = context_on(&dir);
        let mut s = setup(&ctx);
        for i in 0..n {
            run(&ctx, &mut s, &format!("INSERT INTO d.t VALUES ({i}, 'x')")).unwrap();
        }
        (dir, ctx, s)
    }

    /// MariaDB 10.11's answers, taken from a user granted `ALL ON d.*` only.
    #[test]
    fn binlog_statements_need_mariadbs_global_privileges() {
        let (_, ctx, _) = server_with_rows(1);
        ctx.accounts.create_user("u1", "%", "p", false).unwrap();
        ctx.accounts.grant_all("u1", "%", Some("d")).unwrap();
        let mut u = SessionState::new(5, "u1", "%", None);
        let need = |privs: &str| {
            format!("Access denied; you need (at least one of) the {privs} privilege(s) for this operation")
        };
        for (sql, privs) in [
            ("SHOW BINLOG EVENTS", "BINLOG MONITOR"),
            (
                "SHOW BINLOG EVENTS IN 'binlog.000001' LIMIT 1",
                "BINLOG MONITOR",
            ),
            ("SHOW BINLOG EVENTS IN 'nope'", "BINLOG MONITOR"),
            ("SHOW BINARY LOGS", "SUPER, BINLOG MONITOR"),
            ("SHOW MASTER LOGS", "SUPER, BINLOG MONITOR"),
            ("SHOW MASTER STATUS", "SUPER, BINLOG MONITOR"),
            ("SHOW BINLOG STATUS", "SUPER, BINLOG MONITOR"),
            (
                "PURGE BINARY LOGS TO 'binlog.000001'",
                "SUPER, BINLOG ADMIN",
            ),
            (
                "PURGE MASTER LOGS BEFORE '2020-01-01'",
                "SUPER, BINLOG ADMIN",
            ),
            ("FLUSH BINARY LOGS", "RELOAD"),
            ("FLUSH LOGS", "RELOAD"),
        ] {
            let e = run(&ctx, &mut u, sql).unwrap_err();
            assert_eq!(e.code(), ErrorCode::SpecificAccessDenied, "{sql}");
            assert_eq!(e.code().number(), 1227);
            assert_eq!(e.message(), need(privs), "{sql}");
        }
        // The user's own database works; a global grant opens the binlog statements.
        run(&ctx, &mut u, "SELECT * FROM d.t").unwrap();
        ctx.accounts.grant_all("u1", "%", None).unwrap();
        assert!(!rows(&ctx, &mut u, "SHOW BINLOG EVENTS").is_empty());
        assert!(!rows(&ctx, &mut u, "SHOW BINARY LOGS").is_empty());
    }

    #[test]
    fn show_binlog_events_lists_the_file_and_honours_in_from_and_limit() {
        let (dir, ctx, mut s) = server_with_rows(5);
        run(&ctx, &mut s, "FLUSH BINARY LOGS").unwrap();
        run(&ctx, &mut s, "INSERT INTO d.t VALUES (100, 'second')").unwrap();
        let all = decoded(&dir, "binlog.000001");
        assert!(all.len() > 20);
        let first = listed(&rows(&ctx, &mut s, "SHOW BINLOG EVENTS"));
        assert_eq!(first, all, "no IN: the first file, every event");
        let q = |sql: &str, s: &mut SessionState| listed(&rows(&ctx, s, sql));
        assert_eq!(q("SHOW BINLOG EVENTS LIMIT 3", &mut s), all[..3]);
        assert_eq!(q("SHOW BINLOG EVENTS LIMIT 2, 4", &mut s), all[2..6]);
        assert_eq!(q("SHOW BINLOG EVENTS LIMIT 0", &mut s), []);
        assert_eq!(q("SHOW BINLOG EVENTS LIMIT 1000, 5", &mut s), []);
        let at = all[7].0;
        let sql = format!("SHOW BINLOG EVENTS IN 'binlog.000001' FROM {at} LIMIT 1, 2");
        assert_eq!(q(&sql, &mut s), all[8..10]);
        assert_eq!(q("SHOW BINLOG EVENTS FROM 0 LIMIT 1", &mut s), all[..1]);
        let size = all.last().unwrap().2;
        assert_eq!(q(&format!("SHOW BINLOG EVENTS FROM {size}"), &mut s), []);
        let second = decoded(&dir, "binlog.000002");
        let rows2 = rows(&ctx, &mut s, "SHOW BINLOG EVENTS IN 'binlog.000002'");
        assert_eq!(listed(&rows2), second);
        assert!(rows2.iter().all(|r| r[0] == Value::str("binlog.000002")));
        // MariaDB's errors (1220).
        for (sql, msg) in [
            (
                format!("SHOW BINLOG EVENTS FROM {}", at + 1),
                "Wrong offset or I/O error".to_string(),
            ),
            (
                format!("SHOW BINLOG EVENTS FROM {}", size + 1),
                format!(
                    "Invalid pos specified. Requested from pos:{} is greater than actual file size:{size}",
                    size + 1
                ),
            ),
            (
                "SHOW BINLOG EVENTS IN 'nope'".to_string(),
                "Could not find target log".to_string(),
            ),
        ] {
            let e = run(&ctx, &mut s, &sql).unwrap_err();
            assert_eq!(e.code().number(), 1220, "{sql}");
            assert_eq!(
                e.message(),
                format!("Error when executing command SHOW BINLOG EVENTS: {msg}"),
                "{sql}"
            );
        }
        // SHOW BINARY LOGS and SHOW MASTER STATUS give the committed sizes.
        let files = rows(&ctx, &mut s, "SHOW BINARY LOGS");
        assert_eq!(
            files[0],
            vec![Value::str("binlog.000001"), Value::UInt(size)]
        );
        let end = second.last().unwrap().2;
        assert_eq!(
            files[1],
            vec![Value::str("binlog.000002"), Value::UInt(end)]
        );
        let status = rows(&ctx, &mut s, "SHOW MASTER STATUS");
        assert_eq!(
            status[0][..2],
            [Value::str("binlog.000002"), Value::UInt(end)]
        );
    }

    /// A reader never takes the log mutex, and sees only committed groups: while a leader
    /// holds the mutex through a slow sync, SHOW statements answer at once, without the
    /// group being synced.
    #[test]
    fn show_statements_neither_wait_for_the_log_mutex_nor_see_an_unsynced_group() {
        let (_, ctx, mut s) = server_with_rows(3);
        let ctx = Arc::new(ctx);
        let before = rows(&ctx, &mut s, "SHOW BINLOG EVENTS");
        let status = rows(&ctx, &mut s, "SHOW MASTER STATUS");
        run(&ctx, &mut s, "SET GLOBAL log_sync_delay_us = 1500000").unwrap();
        let bytes = ctx.pipeline.stats.binlog_bytes.load(Ordering::Relaxed);
        let c = ctx.clone();
        let writer = std::thread::spawn(move || {
            let mut w = SessionState::new(9, "root", "%", None);
            run(&c, &mut w, "INSERT INTO d.t VALUES (77, 'slow')").unwrap();
        });
        // Wait until the group is written and its leader sleeps in the sync, holding the
        // log mutex.
        let deadline = Instant::now() + Duration::from_secs(10);
        while ctx.pipeline.stats.binlog_bytes.load(Ordering::Relaxed) == bytes
            || !ctx.pipeline.log_mutex_held()
        {
            assert!(
                Instant::now() < deadline,
                "the group never started its sync"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let t = Instant::now();
        for sql in [
            "SHOW BINLOG EVENTS",
            "SHOW MASTER STATUS",
            "SHOW BINARY LOGS",
        ] {
            let now = rows(&ctx, &mut s, sql);
            if sql == "SHOW BINLOG EVENTS" {
                assert_eq!(now, before, "the unsynced group is not listed");
            }
            if sql == "SHOW MASTER STATUS" {
                assert_eq!(now, status);
            }
        }
        assert!(
            t.elapsed() < Duration::from_millis(1000),
            "SHOW waited for the log mutex: {:?}",
            t.elapsed()
        );
        writer.join().unwrap();
        assert!(rows(&ctx, &mut s, "SHOW BINLOG EVENTS").len() > before.len());
    }

    /// SHOW BINLOG EVENTS paused in the middle of a file holds nothing a commit needs.
    #[test]
    fn a_commit_completes_while_a_reader_is_paused_in_the_middle_of_a_file() {
        let (_, ctx, mut s) = server_with_rows(20);
        let ctx = Arc::new(ctx);
        let c = ctx.clone();
        let events_seen = Arc::new(AtomicUsize::new(0));
        let seen = events_seen.clone();
        pause::set(Some(Box::new(move |_pos| {
            if seen.fetch_add(1, Ordering::Relaxed) != 30 {
                return;
            }
            let c = c.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let mut w = SessionState::new(9, "root", "%", None);
                let _ = tx.send(run(&c, &mut w, "INSERT INTO d.t VALUES (500, 'during')"));
            });
            let r = rx.recv_timeout(Duration::from_secs(20));
            assert!(matches!(r, Ok(Ok(_))), "the commit did not complete: {r:?}");
        })));
        let listing = rows(&ctx, &mut s, "SHOW BINLOG EVENTS");
        pause::set(None);
        assert!(events_seen.load(Ordering::Relaxed) > 30);
        // The listing ends where the committed end was when it began.
        let last = listed(&listing).last().unwrap().2;
        let now = ctx.pipeline.binlog_end().unwrap().get().end;
        assert!(last < now, "{last} {now}");
    }

    /// `FROM` pointing into row data shaped like an event header with a huge size: the
    /// reader refuses it (1220) without growing its buffer past the largest possible event.
    #[test]
    fn a_forged_event_header_in_row_data_cannot_grow_the_buffer() {
        let forged = |pos: u64| {
            let size: u32 = 2 << 20;
            let mut h = vec![0u8; 4];
            h.push(0x02);
            h.extend_from_slice(&1u32.to_le_bytes());
            h.extend_from_slice(&size.to_le_bytes());
            h.extend_from_slice(&(pos as u32 + size).to_le_bytes());
            h.extend_from_slice(&[0, 0]);
            h.iter().map(|b| format!("{b:02x}")).collect::<String>()
        };
        let build = |payload: &str| {
            let dir = SimDir::new();
            let ctx = context_on(&dir);
            let mut s = setup(&ctx);
            run(&ctx, &mut s, "SET GLOBAL max_allowed_packet = 1048576").unwrap();
            run(
                &ctx,
                &mut s,
                "CREATE TABLE d.b (id INT PRIMARY KEY, v VARBINARY(64))",
            )
            .unwrap();
            run(
                &ctx,
                &mut s,
                &format!("INSERT INTO d.b VALUES (1, x'{payload}')"),
            )
            .unwrap();
            let mut i = 0;
            while ctx.pipeline.binlog_end().unwrap().get().end < 3 << 20 {
                let values: Vec<String> =
                    (0..50).map(|k| format!("({}, 'x')", i * 50 + k)).collect();
                run(
                    &ctx,
                    &mut s,
                    &format!("INSERT INTO d.t VALUES {}", values.join(",")),
                )
                .unwrap();
                i += 1;
            }
            (dir, ctx, s)
        };
        // Learn where the value lands, then write the forged header there.
        let marker = "ab".repeat(19);
        let (dir, _, _) = build(&marker);
        let file = dir.read("binlog.000001").unwrap();
        let at = file.windows(19).position(|w| w == [0xab; 19]).unwrap() as u64;
        let (dir, ctx, mut s) = build(&forged(at));
        assert_eq!(&dir.read("binlog.000001").unwrap()[at as usize + 4], &0x02);
        let read = dir.bytes_read();
        let e = run(&ctx, &mut s, &format!("SHOW BINLOG EVENTS FROM {at}")).unwrap_err();
        assert_eq!(e.code().number(), 1220);
        assert!(
            e.message().ends_with("Wrong offset or I/O error"),
            "{}",
            e.message()
        );
        let touched = dir.bytes_read() - read;
        assert!(
            touched < 2 << 20,
            "{touched} bytes read for a forged 2 MiB event"
        );
    }

    /// A reader at the committed end (a future dump thread) sleeps until a commit moves it,
    /// and then reads exactly the new group.
    #[test]
    fn a_reader_at_the_end_wakes_when_a_group_commits() {
        let (_, ctx, mut s) = server_with_rows(2);
        let binlog = ctx.pipeline.binlog_end().unwrap().clone();
        let at = binlog.get().position();
        let quiet = binlog.wait_past(&at, Duration::from_millis(20));
        assert_eq!(
            quiet.position(),
            at,
            "nothing committed: the wait times out"
        );
        let waiter = {
            let (binlog, at) = (binlog.clone(), at.clone());
            std::thread::spawn(move || binlog.wait_past(&at, Duration::from_secs(20)))
        };
        std::thread::sleep(Duration::from_millis(20));
        run(&ctx, &mut s, "INSERT INTO d.t VALUES (9, 'new')").unwrap();
        let moved = waiter.join().unwrap();
        assert!(moved.end > at.pos, "woken by the commit");
        let mut stream =
            EventStream::open(&binlog, &moved, Some(&at.file), at.pos, 1 << 20).unwrap();
        let mut types = Vec::new();
        while let Some(ev) = stream.next_event() {
            types.push(ev.unwrap().header.event_type.name().to_string());
        }
        assert_eq!(types, ["Gtid", "Table_map", "Write_rows_v1", "Xid"]);
    }

    /// A reader's memory is one window (or one event when larger), however large the file;
    /// a LIMIT reads no further than it needs.
    #[test]
    fn a_reader_holds_a_bounded_buffer_over_a_large_binlog() {
        let (dir, ctx, mut s) = server_with_rows(0);
        run(
            &ctx,
            &mut s,
            "CREATE TABLE d.big (id INT PRIMARY KEY, b LONGTEXT)",
        )
        .unwrap();
        // One event far larger than the window.
        let big = "y".repeat(300 << 10);
        run(
            &ctx,
            &mut s,
            &format!("INSERT INTO d.big VALUES (1, '{big}')"),
        )
        .unwrap();
        let mut i = 0;
        while ctx.pipeline.binlog_end().unwrap().get().end < 3 << 20 {
            let values: Vec<String> = (0..50).map(|k| format!("({}, 'x')", i * 50 + k)).collect();
            run(
                &ctx,
                &mut s,
                &format!("INSERT INTO d.t VALUES {}", values.join(",")),
            )
            .unwrap();
            i += 1;
        }
        let binlog = ctx.pipeline.binlog_end().unwrap().clone();
        let end = binlog.get();
        let mut stream = EventStream::open(&binlog, &end, None, 4, 1 << 30).unwrap();
        let (mut n, mut largest) = (0, 0);
        while let Some(ev) = stream.next_event() {
            largest = largest.max(ev.unwrap().bytes.len());
            n += 1;
        }
        assert!(largest > 300 << 10, "{largest}");
        assert!(n > 1000);
        assert!(
            stream.peak_buffer() <= largest + 2 * WINDOW,
            "peak {} for a largest event of {largest} in a file of {}",
            stream.peak_buffer(),
            end.end
        );
        // A listing with a LIMIT touches the beginning of the file only.
        let read = dir.bytes_read();
        assert_eq!(rows(&ctx, &mut s, "SHOW BINLOG EVENTS LIMIT 5").len(), 5);
        let touched = dir.bytes_read() - read;
        assert!(
            touched <= 2 * WINDOW as u64,
            "{touched} bytes read for LIMIT 5"
        );
    }
}
