//! One connection of the pool: its non-blocking socket and its session, served by whichever
//! worker holds it.
//!
//! # Who holds a connection
//!
//! A connection has at most one *holder* at a time: a worker serving it, a group queue, or the
//! commit rendezvous (*parked*, waiting for a deferred commit: no thread). Only its holder
//! touches its session and buffers; the `io` mutex is therefore never contended, it only
//! proves that to the compiler. The socket stays registered in its group's epoll,
//! edge-triggered for reading, so nothing is re-armed between two requests. The `claim` word
//! decides who holds it:
//!
//! | `claim` | meaning |
//! |---|---|
//! | `FREE` | nobody holds it; whoever receives its next event takes it (`FREE` → `HELD`) |
//! | `HELD` | somebody holds it |
//! | `NOTIFIED` | held, and an event arrived meanwhile |
//!
//! - The listener (or a worker polling) *claims* the connection of each event it receives; if
//!   the connection is held it marks it `NOTIFIED` instead and forgets the event.
//! - The holder lets go only when it knows the socket is drained — its last read returned
//!   fewer bytes than asked (unless an event said the peer hung up: one edge can carry the
//!   last bytes and the end-of-file, so then it reads on to EOF), or would block — and only
//!   after any change of registration
//!   (waiting to write, which is one-shot). Letting go is `HELD` → `FREE`; if that fails the
//!   state was `NOTIFIED`: bytes came after the last read, and the holder serves again.
//!
//! So bytes that arrive at any moment are either read by the holder or reported to a claimer
//! who takes the connection: none is stranded, and no connection is served by two workers.
//! The timer may shut the socket down (timeouts), which makes epoll report it and its next
//! holder close it.
//!
//! A worker serving a connection loops (at most [`ROUNDS`] times, then queues it again to be
//! fair): send unsent bytes (socket full → wait to write); if a commit outcome is waiting,
//! give it to the session; otherwise read (nothing → let go; EOF → close), feed the session,
//! and go round again to send its answer — after a short read, send it and let go at once,
//! also when the answer was held for a deferred commit (no read for would-block in between).

use super::epoll::Interest;
use super::group::ThreadGroup;
use super::{PoolShared, Priority};
use crate::error::Result;
use crate::net::{Admitted, ConnectionSlot, CONNECT_TIMEOUT};
use crate::session::{Flow, Session};
use crate::status::StatusCounter;
use parking_lot::Mutex;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{
    AtomicBool, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering::AcqRel, Ordering::Acquire,
    Ordering::Relaxed,
};
use std::sync::{Arc, Weak};

/// Reads per turn before the connection goes back to epoll (fairness under pipelining).
const ROUNDS: usize = 16;

/// A worker's scratch buffers (connections keep only what the socket did not take).
pub struct Buffers {
    read: Vec<u8>,
    out: Vec<u8>,
}

impl Buffers {
    pub fn new() -> Buffers {
        Buffers {
            read: vec![0; 16 * 1024],
            out: Vec::with_capacity(16 * 1024),
        }
    }
}

/// One client connection in the pool.
pub struct PoolConn {
    /// Key in the group's connection table and epoll data.
    pub token: u64,
    shared: Arc<PoolShared>,
    /// Index of the connection's group in [`PoolShared::groups`]. Changed only by the
    /// connection's holder ([`PoolConn::move_to`]); anyone who reads it without holding the
    /// connection reads it while nobody can move it (a claimer that won `FREE` → `HELD`, the
    /// commit notifier of a parked connection).
    group_ix: AtomicUsize,
    /// The client runs on this host (loopback, or our own address): steering applies.
    same_host: bool,
    /// Pool-clock millisecond of the connection's last request (steering: only a busy
    /// connection's incoming CPU says where its client runs now). Only the holder touches it.
    last_request_ms: AtomicU64,
    /// Busy requests left before steering reads the client's CPU again (one in
    /// [`super::steer::CHECK_EVERY`]; 0: at the next). Only the holder touches it.
    steer_skip: AtomicU32,
    io: Mutex<ConnIo>,
    /// The commit rendezvous (see the module doc of `sched`).
    rendezvous: Mutex<Rendezvous>,
    /// Pool-clock millisecond after which the timer closes the connection; 0 = none (it is
    /// queued, being served or parked). Set before arming, cleared by the listener.
    pub deadline_ms: AtomicU64,
    /// The session was inside a transaction when last served (queue priority).
    in_transaction: AtomicBool,
    claim: Claim,
    /// An event said the peer hung up: a short read no longer proves the socket drained (the
    /// end-of-file may still be unread), so the holder reads until EOF or would-block.
    hung_up: AtomicBool,
    /// Declared last, so dropped last: the session (in `io`) clears the descriptor it gave the
    /// process list for KILL before the socket closes.
    stream: TcpStream,
}

/// Why a connection changes group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Regroup {
    /// To the group of its client's CPU (`Threadpool_steered`).
    Steered,
    /// `thread_pool_size` changed: to its home group.
    Resized,
}

/// The claim word: `FREE`, `HELD` or `NOTIFIED` (see the module doc).
struct Claim(AtomicU8);

const FREE: u8 = 0;
const HELD: u8 = 1;
const NOTIFIED: u8 = 2;

impl Claim {
    fn held() -> Claim {
        Claim(AtomicU8::new(HELD))
    }

    /// An event arrived: take the connection (true), or, if it is held, notify the holder.
    fn take_or_notify(&self) -> bool {
        loop {
            match self.0.compare_exchange(FREE, HELD, AcqRel, Acquire) {
                Ok(_) => return true,
                Err(NOTIFIED) => return false,
                Err(_) => {
                    if self
                        .0
                        .compare_exchange(HELD, NOTIFIED, AcqRel, Acquire)
                        .is_ok()
                    {
                        return false;
                    }
                    // Let go meanwhile: try to take it again.
                }
            }
        }
    }

    /// The holder lets go (true); false if it was notified — it still holds the connection.
    fn let_go(&self) -> bool {
        if self.0.compare_exchange(HELD, FREE, AcqRel, Acquire).is_ok() {
            return true;
        }
        self.0.store(HELD, Relaxed);
        false
    }
}

/// What only the connection's holder touches.
struct ConnIo {
    session: Session,
    /// Bytes the socket did not take yet.
    unsent: Vec<u8>,
    authenticated: bool,
    /// `wait_timeout` in ms, read at login.
    idle_timeout_ms: u64,
    /// The connection's place in the counters; given back at close.
    slot: Option<ConnectionSlot>,
    closed: bool,
    /// What the socket is registered for in epoll (None: not yet).
    registered: Option<Interest>,
    /// The last read was short: the socket held nothing more then. Bytes that came after it
    /// marked the claim `NOTIFIED`, so after a deferred commit the holder may let go without
    /// reading for would-block (see [`PoolConn::run`]).
    last_read_short: bool,
}

#[derive(Default)]
struct Rendezvous {
    /// The worker released the connection to wait for `outcome`.
    parked: bool,
    outcome: Option<Result<()>>,
}

/// Where a connection goes after a worker served it.
enum Next {
    /// Let go until epoll reports it (the socket is drained, or full when writing).
    Wait(Interest),
    /// Served [`ROUNDS`] times and may have more to read: back of the queue.
    Yield,
    AwaitCommit,
    /// The session accepted a binlog dump: the connection leaves the pool.
    Dump,
    Close,
}

enum Flushed {
    All,
    Blocked,
    Failed,
}

impl PoolConn {
    /// Start serving an accepted connection in `group`: greet it, register it, make sure the
    /// group has a thread to notice it.
    pub fn open(group: &Arc<ThreadGroup>, token: u64, a: Admitted) {
        let Admitted {
            stream,
            conn_id,
            host,
            over_limit,
            slot,
        } = a;
        if let Err(e) = stream.set_nonblocking(true) {
            tracing::warn!("thread pool: cannot make a socket non-blocking: {e}");
            return;
        }
        let _ = stream.set_nodelay(true);
        let ctx = group.shared.ctx.clone();
        let (mut session, greeting) = Session::start(ctx, conn_id, host, over_limit);
        session.set_kill_socket(std::os::fd::AsRawFd::as_raw_fd(&stream));
        let conn = Arc::new_cyclic(|me: &Weak<PoolConn>| {
            let me = me.clone();
            session.defer_commits(Arc::new(move |outcome| {
                if let Some(conn) = me.upgrade() {
                    conn.commit_done(outcome);
                }
            }));
            PoolConn {
                token,
                shared: group.shared.clone(),
                group_ix: AtomicUsize::new(group.id),
                same_host: super::steer::is_same_host(&stream),
                last_request_ms: AtomicU64::new(0),
                steer_skip: AtomicU32::new(0),
                stream,
                io: Mutex::new(ConnIo {
                    session,
                    unsent: Vec::new(),
                    authenticated: false,
                    idle_timeout_ms: 0,
                    slot: Some(slot),
                    closed: false,
                    registered: None,
                    last_read_short: false,
                }),
                rendezvous: Mutex::new(Rendezvous::default()),
                deadline_ms: AtomicU64::new(0),
                in_transaction: AtomicBool::new(false),
                claim: Claim::held(),
                hung_up: AtomicBool::new(false),
            }
        });
        group.conns.lock().insert(token, conn.clone());
        group.connection_added();
        // The acceptor holds the new connection until it is registered.
        let mut io = conn.io.lock();
        let mut out = greeting;
        let interest = match conn.flush(&mut io, &mut out) {
            Flushed::All => Interest::Read,
            Flushed::Blocked => Interest::Write,
            Flushed::Failed => return conn.close(&mut io),
        };
        if !conn.let_go(&mut io, interest) {
            // The client answered already: a worker serves it.
            drop(io);
            group.enqueue(conn.clone(), false);
        }
    }

    /// The connection's group now.
    fn group(&self) -> &Arc<ThreadGroup> {
        self.shared.group(self.group_ix.load(Relaxed))
    }

    /// Serve the connection (the caller got it from the queue, the listener or a poll).
    pub fn serve(self: &Arc<Self>, bufs: &mut Buffers) {
        let mut io = self.io.lock();
        if io.closed {
            return;
        }
        self.deadline_ms.store(0, Relaxed);
        // A connection resumed for its commit outcome was placed when its request came: the
        // client's CPU cannot have changed since, so no `getsockopt` a second time.
        let target = if io.session.awaiting_commit() {
            None
        } else {
            self.regroup_target()
        };
        if let Some((to, why)) = target {
            self.move_to(&mut io, to, why);
            drop(io);
            return self.group().enqueue(self.clone(), true);
        }
        loop {
            match self.run(&mut io, bufs) {
                Next::Wait(interest) => {
                    if self.let_go(&mut io, interest) {
                        return;
                    }
                }
                Next::Yield => {
                    let high = self.note_priority(&io);
                    drop(io);
                    return self.group().enqueue(self.clone(), high);
                }
                Next::Close => return self.close(&mut io),
                Next::Dump => return self.hand_over_dump(&mut io),
                Next::AwaitCommit => {
                    if self.park() {
                        return;
                    }
                }
            }
        }
    }

    /// The group the connection must move to before it is served, if any: its home group if
    /// `thread_pool_size` changed under it, or — while steering applies — the group of its
    /// client's CPU.
    fn regroup_target(&self) -> Option<(usize, Regroup)> {
        let ix = self.group_ix.load(Relaxed);
        let size = self.shared.size();
        let home = || PoolShared::home_group_of(self.token, size);
        if ix >= size {
            return Some((home(), Regroup::Resized));
        }
        match self.shared.steering_at(size) {
            Some(steering) => Some((self.steer_target(steering, ix)?, Regroup::Steered)),
            None => Some(home())
                .filter(|&h| h != ix)
                .map(|h| (h, Regroup::Resized)),
        }
    }

    /// For a busy client on this host: the group of the CPU the client last sent from, if
    /// that is not the connection's group `ix` and it has room (see [`super::steer`]).
    fn steer_target(&self, steering: &super::steer::Steering, ix: usize) -> Option<usize> {
        if !self.same_host {
            return None;
        }
        let now = self.shared.now_ms();
        let last = self.last_request_ms.swap(now, Relaxed);
        if now.saturating_sub(last) > super::steer::BUSY_WITHIN_MS {
            // Idle until now: its first busy request reads the CPU.
            self.steer_skip.store(0, Relaxed);
            return None;
        }
        // A client changes CPU far less often than it sends: read it (a system call) on one
        // busy request in CHECK_EVERY, the connection follows a move a few requests late.
        let skip = self.steer_skip.load(Relaxed);
        if skip > 0 {
            self.steer_skip.store(skip - 1, Relaxed);
            return None;
        }
        self.steer_skip
            .store(super::steer::CHECK_EVERY - 1, Relaxed);
        let to = steering.group_of_cpu(super::steer::incoming_cpu(&self.stream)?)?;
        if to == ix {
            return None;
        }
        let n = steering.groups();
        let members = |g: usize| self.shared.group(g).members.load(Relaxed);
        let total = (0..n).map(members).sum();
        super::steer::room_in(members(to), total, n).then_some(to)
    }

    /// Move the held connection to group `to`: out of its group's epoll and table, into the
    /// other's table (it is registered in the other's epoll when it is let go next).
    fn move_to(self: &Arc<Self>, io: &mut ConnIo, to: usize, why: Regroup) {
        let from = self.group();
        if io.registered.take().is_some() {
            let _ = from.epoll.remove(self.stream.as_raw_fd());
        }
        from.forget(self.token);
        self.group_ix.store(to, Relaxed);
        let group = self.group();
        group.conns.lock().insert(self.token, self.clone());
        group.members.fetch_add(1, Relaxed);
        if why == Regroup::Steered {
            let status = &group.shared.ctx.status;
            status.incr(StatusCounter::ThreadpoolSteered);
        }
    }

    /// An event arrived for this connection: take it (true), or, if somebody holds it, tell
    /// the holder to serve it again (false).
    pub fn claim(&self) -> bool {
        let taken = self.claim.take_or_notify();
        if taken {
            self.group().free_connections.fetch_sub(1, AcqRel);
        }
        taken
    }

    /// The listener saw the peer hang up (set before claiming).
    pub fn peer_hung_up(&self) {
        self.hung_up.store(true, Relaxed);
    }

    /// Let go of the connection (see the module doc) — first registering what it waits for,
    /// with the deadline of that wait. False: an event arrived since the last read, so the
    /// caller still holds it and serves it again.
    fn let_go(&self, io: &mut ConnIo, interest: Interest) -> bool {
        self.note_priority(io);
        let shared = &self.group().shared;
        let timeout_ms = match interest {
            Interest::Read if io.authenticated => io.idle_timeout_ms,
            Interest::Read => CONNECT_TIMEOUT.as_millis() as u64,
            Interest::Write => shared.net_write_timeout_ms(),
        };
        // Before letting go: once free, a claimer may take the connection and clear it.
        self.deadline_ms
            .store(shared.now_ms() + timeout_ms, Relaxed);
        if let Err(e) = self.register(io, interest) {
            tracing::warn!("thread pool: cannot poll a connection: {e}");
            self.close(io);
            return true;
        }
        let free = &self.group().free_connections;
        free.fetch_add(1, AcqRel);
        if self.claim.let_go() {
            return true;
        }
        free.fetch_sub(1, AcqRel);
        self.deadline_ms.store(0, Relaxed);
        false
    }

    /// Register the socket for `interest` unless it already is: reading stays armed between
    /// requests; writing is one-shot and armed every time.
    fn register(&self, io: &mut ConnIo, interest: Interest) -> io::Result<()> {
        let fd = self.stream.as_raw_fd();
        let epoll = &self.group().epoll;
        match io.registered {
            None => epoll.add(fd, self.token, interest)?,
            Some(Interest::Read) if interest == Interest::Read => {}
            Some(_) => epoll.rearm(fd, self.token, interest)?,
        }
        io.registered = Some(interest);
        Ok(())
    }

    /// Remember whether the session is inside a transaction (queue priority); the priority
    /// it gets now.
    fn note_priority(&self, io: &ConnIo) -> bool {
        self.in_transaction
            .store(io.session.in_transaction(), Relaxed);
        self.is_high_priority(self.shared.limits().priority)
    }

    /// A worker panicked while serving: close the connection (its session rolls back).
    pub fn abort(&self) {
        let mut io = self.io.lock();
        if !io.closed {
            self.close(&mut io);
        }
    }

    fn run(&self, io: &mut ConnIo, bufs: &mut Buffers) -> Next {
        let mut drained = false;
        for _ in 0..ROUNDS {
            match self.flush(io, &mut bufs.out) {
                Flushed::All => {}
                Flushed::Blocked => return Next::Wait(Interest::Write),
                Flushed::Failed => return Next::Close,
            }
            if io.session.awaiting_commit() {
                let Some(outcome) = self.rendezvous.lock().outcome.take() else {
                    return Next::AwaitCommit;
                };
                let flow = io.session.on_commit_done(outcome, &mut bufs.out);
                if let Some(next) = self.after(io, flow, &mut bufs.out) {
                    return next;
                }
                if self.may_let_go_unread(io) {
                    // The read that brought the committed statement emptied the socket.
                    drained = true;
                    break;
                }
                continue;
            }
            if io.session.has_buffered_commands() {
                // The session paused to let its responses out (they are sent above): serve
                // the commands still buffered before reading more.
                let flow = io.session.on_bytes(&[], &mut bufs.out);
                if let Some(next) = self.after(io, flow, &mut bufs.out) {
                    return next;
                }
                continue;
            }
            match (&self.stream).read(&mut bufs.read) {
                Ok(0) => return Next::Close,
                Ok(n) => {
                    let status = &self.shared.ctx.status;
                    status.add(StatusCounter::BytesReceived, n as u64);
                    io.last_read_short = n < bufs.read.len();
                    let flow = io.session.on_bytes(&bufs.read[..n], &mut bufs.out);
                    if let Some(next) = self.after(io, flow, &mut bufs.out) {
                        return next;
                    }
                    if self.may_let_go_unread(io) {
                        // A short read emptied the socket: answer and let go rather than read
                        // again for EAGAIN (bytes that come later report a new edge).
                        drained = true;
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    return Next::Wait(Interest::Read)
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Next::Close,
            }
        }
        match self.flush(io, &mut bufs.out) {
            // The last round deferred a commit: the connection waits for that, not for input.
            Flushed::All if io.session.awaiting_commit() => Next::AwaitCommit,
            Flushed::All if drained => Next::Wait(Interest::Read),
            Flushed::All => Next::Yield,
            Flushed::Blocked => Next::Wait(Interest::Write),
            Flushed::Failed => Next::Close,
        }
    }

    /// May the holder answer and let go without reading again? Only when the last read was
    /// short, no commit is pending, and no event said the peer hung up (then the end-of-file
    /// may still be unread).
    fn may_let_go_unread(&self, io: &ConnIo) -> bool {
        io.last_read_short
            && !io.session.awaiting_commit()
            && !io.session.has_buffered_commands()
            && !self.hung_up.load(Relaxed)
    }

    /// What the session's flow means for the connection (None: go round again).
    fn after(&self, io: &mut ConnIo, flow: Flow, out: &mut Vec<u8>) -> Option<Next> {
        match flow {
            Flow::Continue | Flow::AwaitCommit => None,
            Flow::Authenticated => {
                io.authenticated = true;
                let vars = &self.shared.ctx.vars;
                io.idle_timeout_ms = vars.global_u64("wait_timeout").max(1) * 1000;
                None
            }
            Flow::Close => {
                // The last answer (an ERR, usually) goes out if the socket takes it now.
                let _ = self.flush(io, out);
                Some(Next::Close)
            }
            Flow::Dump => {
                // Answers before the dump go out first (what the socket does not take now,
                // the dump thread writes).
                let _ = self.flush(io, out);
                Some(Next::Dump)
            }
        }
    }

    /// A binlog dump takes the connection over: out of its group's epoll and table, onto a
    /// dump thread of its own, so that waiting for new events never pins a worker (see
    /// `crate::replication`). The socket is not shut down: the dump thread has it.
    fn hand_over_dump(&self, io: &mut ConnIo) {
        io.closed = true;
        if io.registered.take().is_some() {
            let _ = self.group().epoll.remove(self.stream.as_raw_fd());
        }
        self.group().forget(self.token);
        let Some(mut req) = io.session.take_dump() else {
            return;
        };
        let ctx = self.shared.ctx.clone();
        let timeout = std::time::Duration::from_secs(ctx.vars.global_u64("net_write_timeout"));
        let tls = req.tls.take();
        let socket = self
            .stream
            .try_clone()
            .and_then(|s| crate::replication::socket::for_stream(s, tls, timeout));
        match socket {
            Ok(socket) => {
                // Already sealed (inside TLS): written to the socket as they are.
                let unsent = std::mem::take(&mut io.unsent);
                crate::replication::spawn(ctx, req, socket, unsent, io.slot.take());
            }
            Err(e) => {
                tracing::warn!("thread pool: cannot hand a connection to a dump thread: {e}");
                let _ = self.stream.shutdown(Shutdown::Both);
                io.slot = None;
            }
        }
    }

    /// Send `io.unsent`, then `out`; what the socket does not take stays in `io.unsent`.
    fn flush(&self, io: &mut ConnIo, out: &mut Vec<u8>) -> Flushed {
        if !io.unsent.is_empty() {
            match self.write_some(&io.unsent) {
                Ok(n) if n == io.unsent.len() => io.unsent = Vec::new(),
                Ok(n) => {
                    io.unsent.drain(..n);
                    io.unsent.append(out);
                    return Flushed::Blocked;
                }
                Err(_) => return Flushed::Failed,
            }
        }
        if out.is_empty() {
            return Flushed::All;
        }
        let written = self.write_some(out);
        let result = match written {
            Ok(n) if n == out.len() => Flushed::All,
            Ok(n) => {
                io.unsent = out[n..].to_vec();
                Flushed::Blocked
            }
            Err(_) => Flushed::Failed,
        };
        out.clear();
        if out.capacity() > 4 * crate::session::memory::OUTPUT_BATCH {
            // One large response grew the worker's buffer: do not keep it.
            *out = Vec::with_capacity(16 * 1024);
        }
        result
    }

    /// Write as much of `bytes` as the socket takes without blocking.
    fn write_some(&self, bytes: &[u8]) -> io::Result<usize> {
        let mut done = 0;
        while done < bytes.len() {
            match (&self.stream).write(&bytes[done..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let status = &self.shared.ctx.status;
        status.add(StatusCounter::BytesSent, done as u64);
        Ok(done)
    }

    /// Park the connection until its commit outcome arrives; false if it is already here
    /// (then the caller goes on serving).
    fn park(&self) -> bool {
        let mut rv = self.rendezvous.lock();
        if rv.outcome.is_some() {
            return false;
        }
        rv.parked = true;
        true
    }

    /// The notifier of deferred commits (on the thread completing the commit group): keep the
    /// outcome; if the connection is parked, queue it (high priority unless priority is low).
    fn commit_done(self: &Arc<Self>, outcome: Result<()>) {
        let mut rv = self.rendezvous.lock();
        rv.outcome = Some(outcome);
        if !std::mem::take(&mut rv.parked) {
            return; // still being served: its worker sees the outcome before parking
        }
        drop(rv);
        let high = self.shared.limits().priority != Priority::Low;
        self.group().enqueue(self.clone(), high);
    }

    /// Queue priority when reported ready.
    pub fn is_high_priority(&self, priority: Priority) -> bool {
        priority.is_high(self.in_transaction.load(Relaxed))
    }

    /// The timer: is this connection past its deadline?
    pub fn expired(&self, now_ms: u64) -> bool {
        let d = self.deadline_ms.load(Relaxed);
        d != 0 && d <= now_ms
    }

    /// The timer: close an idle (or write-blocked) connection. Shutting the socket down makes
    /// epoll report it; the worker that takes it reads EOF and closes it.
    pub fn expire(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    fn close(&self, io: &mut ConnIo) {
        io.closed = true;
        let _ = self.group().epoll.remove(self.stream.as_raw_fd());
        self.group().forget(self.token);
        io.session.on_disconnect();
        let _ = self.stream.shutdown(Shutdown::Both);
        io.slot = None;
        // The descriptor closes when the last reference (the timer may hold one) goes.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_for_a_held_connection_makes_its_holder_serve_again() {
        let c = Claim::held();
        assert!(!c.take_or_notify(), "held: the event only notifies");
        assert!(!c.take_or_notify(), "a second event changes nothing");
        assert!(!c.let_go(), "notified: the holder serves again");
        assert!(c.let_go(), "no event since: it lets go");
        assert!(c.take_or_notify(), "free: the next event takes it");
        assert!(!c.take_or_notify(), "and it is held again");
    }
}
