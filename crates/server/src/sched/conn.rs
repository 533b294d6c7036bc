//! One connection of the pool: its non-blocking socket and its session, served by whichever
//! worker holds it.
//!
//! Ownership: at any moment a connection is in exactly one place — armed in its group's
//! epoll (one-shot), in a group queue, held by one worker, or *parked* waiting for a deferred
//! commit (no thread, not polled). Only its holder touches its session and buffers; the `io`
//! mutex is therefore never contended, it only proves that to the compiler. The timer may
//! shut the socket down (timeouts), which makes epoll report it and its next holder close it.
//!
//! A worker serving a connection loops (at most [`ROUNDS`] times, then re-arms to be fair):
//! send unsent bytes (socket full → arm for writing); if a commit outcome is waiting, give it
//! to the session; otherwise read (nothing → arm for reading; EOF → close), feed the session,
//! and go round again to send its answer — after a short read, send it and re-arm at once.

use super::epoll::Interest;
use super::group::ThreadGroup;
use super::Priority;
use crate::error::Result;
use crate::net::{Admitted, ConnectionSlot, CONNECT_TIMEOUT};
use crate::session::{Flow, Session};
use crate::status::StatusCounter;
use parking_lot::Mutex;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
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
    group: Arc<ThreadGroup>,
    stream: TcpStream,
    io: Mutex<ConnIo>,
    /// The commit rendezvous (see the module doc of `sched`).
    rendezvous: Mutex<Rendezvous>,
    /// Pool-clock millisecond after which the timer closes the connection; 0 = none (it is
    /// queued, being served or parked). Set before arming, cleared by the listener.
    pub deadline_ms: AtomicU64,
    /// The session was inside a transaction when last served (queue priority).
    in_transaction: AtomicBool,
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
}

#[derive(Default)]
struct Rendezvous {
    /// The worker released the connection to wait for `outcome`.
    parked: bool,
    outcome: Option<Result<()>>,
}

/// Where a connection goes after a worker served it.
enum Next {
    Poll(Interest),
    AwaitCommit,
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
        let conn = Arc::new_cyclic(|me: &Weak<PoolConn>| {
            let me = me.clone();
            session.defer_commits(Arc::new(move |outcome| {
                if let Some(conn) = me.upgrade() {
                    conn.commit_done(outcome);
                }
            }));
            PoolConn {
                token,
                group: group.clone(),
                stream,
                io: Mutex::new(ConnIo {
                    session,
                    unsent: Vec::new(),
                    authenticated: false,
                    idle_timeout_ms: 0,
                    slot: Some(slot),
                    closed: false,
                }),
                rendezvous: Mutex::new(Rendezvous::default()),
                deadline_ms: AtomicU64::new(0),
                in_transaction: AtomicBool::new(false),
            }
        });
        group.conns.lock().insert(token, conn.clone());
        group.connection_added();
        let mut io = conn.io.lock();
        let mut out = greeting;
        let next = match conn.flush(&mut io, &mut out) {
            Flushed::All => Next::Poll(Interest::Read),
            Flushed::Blocked => Next::Poll(Interest::Write),
            Flushed::Failed => Next::Close,
        };
        match next {
            Next::Poll(interest) => conn.arm(&mut io, interest, true),
            _ => conn.close(&mut io),
        }
    }

    /// Serve the connection (the caller got it from the queue, the listener or a poll).
    pub fn serve(self: &Arc<Self>, bufs: &mut Buffers) {
        let mut io = self.io.lock();
        if io.closed {
            return;
        }
        self.deadline_ms.store(0, Relaxed);
        loop {
            match self.run(&mut io, bufs) {
                Next::Poll(interest) => return self.arm(&mut io, interest, false),
                Next::Close => return self.close(&mut io),
                Next::AwaitCommit => {
                    if self.park() {
                        return;
                    }
                }
            }
        }
    }

    /// A worker panicked while serving: close the connection (its session rolls back).
    pub fn abort(&self) {
        let mut io = self.io.lock();
        if !io.closed {
            self.close(&mut io);
        }
    }

    fn run(&self, io: &mut ConnIo, bufs: &mut Buffers) -> Next {
        for _ in 0..ROUNDS {
            match self.flush(io, &mut bufs.out) {
                Flushed::All => {}
                Flushed::Blocked => return Next::Poll(Interest::Write),
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
                continue;
            }
            match (&self.stream).read(&mut bufs.read) {
                Ok(0) => return Next::Close,
                Ok(n) => {
                    let status = &self.group.shared.ctx.status;
                    status.add(StatusCounter::BytesReceived, n as u64);
                    let flow = io.session.on_bytes(&bufs.read[..n], &mut bufs.out);
                    if let Some(next) = self.after(io, flow, &mut bufs.out) {
                        return next;
                    }
                    if n < bufs.read.len() && !io.session.awaiting_commit() {
                        // Most likely all the client sent: answer and go back to epoll rather
                        // than read again for EAGAIN (level-triggered: more data reports at once).
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    return Next::Poll(Interest::Read)
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Next::Close,
            }
        }
        match self.flush(io, &mut bufs.out) {
            // The last round deferred a commit: the connection waits for that, not for input.
            Flushed::All if io.session.awaiting_commit() => Next::AwaitCommit,
            Flushed::All => Next::Poll(Interest::Read),
            Flushed::Blocked => Next::Poll(Interest::Write),
            Flushed::Failed => Next::Close,
        }
    }

    /// What the session's flow means for the connection (None: go round again).
    fn after(&self, io: &mut ConnIo, flow: Flow, out: &mut Vec<u8>) -> Option<Next> {
        match flow {
            Flow::Continue | Flow::AwaitCommit => None,
            Flow::Authenticated => {
                io.authenticated = true;
                let vars = &self.group.shared.ctx.vars;
                io.idle_timeout_ms = vars.global_u64("wait_timeout").max(1) * 1000;
                None
            }
            Flow::Close => {
                // The last answer (an ERR, usually) goes out if the socket takes it now.
                let _ = self.flush(io, out);
                Some(Next::Close)
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
        let status = &self.group.shared.ctx.status;
        status.add(StatusCounter::BytesSent, done as u64);
        Ok(done)
    }

    /// Hand the connection back to epoll, with the deadline of what it waits for.
    fn arm(&self, io: &mut ConnIo, interest: Interest, first: bool) {
        let shared = &self.group.shared;
        let timeout_ms = match interest {
            Interest::Read if io.authenticated => io.idle_timeout_ms,
            Interest::Read => CONNECT_TIMEOUT.as_millis() as u64,
            Interest::Write => shared.net_write_timeout_ms(),
        };
        self.in_transaction
            .store(io.session.in_transaction(), Relaxed);
        // Before arming: once armed, the listener may take the connection and clear it.
        self.deadline_ms
            .store(shared.now_ms() + timeout_ms, Relaxed);
        let fd = self.stream.as_raw_fd();
        let armed = match first {
            true => self.group.epoll.add(fd, self.token, interest),
            false => self.group.epoll.rearm(fd, self.token, interest),
        };
        if let Err(e) = armed {
            tracing::warn!("thread pool: cannot poll a connection: {e}");
            self.close(io);
        }
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
        let high = self.group.shared.limits().priority != Priority::Low;
        self.group.enqueue(self.clone(), high);
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
        let _ = self.group.epoll.remove(self.stream.as_raw_fd());
        self.group.forget(self.token);
        io.session.on_disconnect();
        let _ = self.stream.shutdown(Shutdown::Both);
        io.slot = None;
        // The descriptor closes when the last reference (the timer may hold one) goes.
    }
}
