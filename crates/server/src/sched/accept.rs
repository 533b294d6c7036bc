//! Accepting connections, for both `thread_handling` modes.
//!
//! One thread (the server's main thread) polls the listening sockets and hands each accepted
//! connection, counted in a [`ConnectionSlot`], to the scheduler: a thread of its own
//! (thread-per-connection, and always for the extra port) or the pool.
//!
//! Back-pressure instead of spinning:
//!
//! - While the main port has `max_connections + REFUSAL_SLACK` connections open, its listening
//!   socket is not polled: new clients wait in the kernel's backlog. The slack lets a few
//!   connections over the limit in, so that they get the handshake and then ERR 1040, which is
//!   what clients expect; beyond that, refusing costs more than waiting.
//! - When `accept` fails for lack of resources (EMFILE, ENFILE, ENOBUFS, ENOMEM) the acceptor
//!   sleeps [`RESOURCE_BACKOFF`] before trying again, and says so at most every 10 s.
//!
//! At startup [`raise_fd_limit`] raises RLIMIT_NOFILE to what `max_connections` needs.

use crate::net::{Admitted, ConnectionSlot};
use crate::session::ServerContext;
use crate::status::StatusCounter;
use crate::vars::SystemVariables;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Connections over `max_connections` that may be open at once, being refused with 1040.
pub const REFUSAL_SLACK: u64 = 64;
/// File descriptors kept for everything that is not a client socket (logs, checkpoints,
/// listeners, epoll instances).
const RESERVED_FDS: u64 = 256;
/// Pause after `accept` failed for lack of resources.
const RESOURCE_BACKOFF: Duration = Duration::from_millis(100);
/// Pause while the main port is full and there is no extra port to watch.
const FULL_BACKOFF: Duration = Duration::from_millis(20);
/// Longest poll, so that a change of `max_connections` is seen.
const POLL_TIMEOUT_MS: i32 = 250;

/// The listening sockets and what the acceptor counts.
pub struct Doors {
    main: TcpListener,
    extra: Option<TcpListener>,
    /// Open connections that came through the extra port.
    extra_open: Arc<AtomicU64>,
    next_id: AtomicU32,
    /// When a resource failure was last reported.
    last_warning: Option<Instant>,
}

impl Doors {
    pub fn new(main: TcpListener, extra: Option<TcpListener>) -> io::Result<Doors> {
        main.set_nonblocking(true)?;
        if let Some(l) = &extra {
            l.set_nonblocking(true)?;
        }
        Ok(Doors {
            main,
            extra,
            extra_open: Arc::new(AtomicU64::new(0)),
            next_id: AtomicU32::new(1),
            last_warning: None,
        })
    }

    /// Main-port connections open now.
    fn main_open(&self, ctx: &ServerContext) -> u64 {
        let all = ctx.status.get(StatusCounter::ThreadsConnected);
        all.saturating_sub(self.extra_open.load(Ordering::Relaxed))
    }
}

/// Accept forever: main-port connections go to `on_main`, extra-port ones to a thread each.
pub fn accept_forever(
    ctx: &Arc<ServerContext>,
    mut doors: Doors,
    mut on_main: impl FnMut(Admitted),
) -> io::Result<()> {
    loop {
        let cap = ctx.vars.global_u64("max_connections") + REFUSAL_SLACK;
        let main_room = doors.main_open(ctx) < cap;
        let (main_ready, extra_ready) = poll_doors(&doors, main_room)?;
        if main_ready {
            accept_batch(ctx, &mut doors, false, &mut on_main);
        }
        if extra_ready {
            accept_batch(ctx, &mut doors, true, &mut |a| {
                crate::net::spawn_connection_thread(ctx, a)
            });
        }
    }
}

/// Wait until a listening socket we watch is readable. The main port is watched only while it
/// has room.
fn poll_doors(doors: &Doors, main_room: bool) -> io::Result<(bool, bool)> {
    let mut fds = Vec::with_capacity(2);
    if main_room {
        fds.push(pollfd(&doors.main));
    }
    if let Some(extra) = &doors.extra {
        fds.push(pollfd(extra));
    }
    if fds.is_empty() {
        std::thread::sleep(FULL_BACKOFF);
        return Ok((false, false));
    }
    // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs that poll(2) may write.
    let rc = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, POLL_TIMEOUT_MS) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::Interrupted => Ok((false, false)),
            _ => Err(e),
        };
    }
    if !main_room && doors.extra.is_none() {
        return Ok((false, false));
    }
    let ready = |i: usize| fds.get(i).is_some_and(|f| f.revents != 0);
    Ok(if main_room {
        (ready(0), ready(1))
    } else {
        (false, ready(0))
    })
}

fn pollfd(l: &TcpListener) -> libc::pollfd {
    libc::pollfd {
        fd: l.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    }
}

/// Accept what is waiting on one port (at most a batch, so the other port gets its turn).
fn accept_batch(
    ctx: &Arc<ServerContext>,
    doors: &mut Doors,
    via_extra: bool,
    dispatch: &mut dyn FnMut(Admitted),
) {
    for _ in 0..64 {
        let listener = match (via_extra, &doors.extra) {
            (true, Some(l)) => l,
            _ => &doors.main,
        };
        let (stream, peer) = match listener.accept() {
            Ok(s) => s,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
            Err(e) if out_of_resources(&e) => {
                warn_rate_limited(doors, &e);
                std::thread::sleep(RESOURCE_BACKOFF);
                return;
            }
            // The client gave up before we accepted it (ECONNABORTED), a signal, …: next one.
            Err(_) => continue,
        };
        dispatch(admit(ctx, doors, stream, peer.ip().to_string(), via_extra));
        if !via_extra {
            let cap = ctx.vars.global_u64("max_connections") + REFUSAL_SLACK;
            if doors.main_open(ctx) >= cap {
                return;
            }
        }
    }
}

fn admit(
    ctx: &Arc<ServerContext>,
    doors: &Doors,
    stream: TcpStream,
    host: String,
    via_extra: bool,
) -> Admitted {
    let conn_id = doors.next_id.fetch_add(1, Ordering::Relaxed);
    let (slot, over_limit) = ConnectionSlot::take(ctx, &doors.extra_open, via_extra);
    Admitted {
        stream,
        conn_id,
        host,
        over_limit,
        slot,
    }
}

fn out_of_resources(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

fn warn_rate_limited(doors: &mut Doors, e: &io::Error) {
    let now = Instant::now();
    if doors
        .last_warning
        .is_some_and(|t| now - t < Duration::from_secs(10))
    {
        return;
    }
    doors.last_warning = Some(now);
    tracing::warn!(
        "accept failed: {e}; not accepting for {RESOURCE_BACKOFF:?} (open files limit: {})",
        fd_limit().map_or("unknown".to_string(), |(soft, _)| soft.to_string())
    );
}

/// The soft and hard RLIMIT_NOFILE.
fn fd_limit() -> Option<(u64, u64)> {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit struct, which `rl` is.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) };
    (rc == 0).then_some((rl.rlim_cur, rl.rlim_max))
}

fn set_fd_limit(soft: u64, hard: u64) -> io::Result<()> {
    let rl = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: setrlimit reads one rlimit struct.
    match unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &rl) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// File descriptors the configured connection limits need.
pub fn wanted_fds(vars: &SystemVariables) -> u64 {
    let extra = match vars.global_u64("extra_port") {
        0 => 0,
        _ => vars.global_u64("extra_max_connections") + REFUSAL_SLACK,
    };
    vars.global_u64("max_connections") + REFUSAL_SLACK + extra + RESERVED_FDS
}

/// Raise the soft RLIMIT_NOFILE to what the connection limits need (up to the hard limit; as
/// root, the hard limit too). Warns when that is not possible: connections beyond the limit
/// are then refused at accept (see the module doc) rather than served.
pub fn raise_fd_limit(vars: &SystemVariables) {
    let wanted = wanted_fds(vars);
    let Some((soft, hard)) = fd_limit() else {
        tracing::warn!("cannot read the open files limit (RLIMIT_NOFILE)");
        return;
    };
    if soft >= wanted {
        return;
    }
    let reached = if hard >= wanted {
        set_fd_limit(wanted, hard).map(|_| wanted)
    } else {
        // Raising the hard limit needs CAP_SYS_RESOURCE; otherwise take what the hard limit allows.
        set_fd_limit(wanted, wanted)
            .map(|_| wanted)
            .or_else(|_| set_fd_limit(hard, hard).map(|_| hard))
    };
    match reached {
        Ok(n) if n >= wanted => {
            tracing::info!("open files limit raised from {soft} to {n}");
        }
        Ok(n) => tracing::warn!(
            "open files limit is {n} (hard limit), below the {wanted} that max_connections = {} \
             needs: about {} clients can connect at once; raise it with `ulimit -n` or \
             LimitNOFILE=",
            vars.global_u64("max_connections"),
            clients_within(n)
        ),
        Err(e) => tracing::warn!(
            "cannot raise the open files limit from {soft} to {wanted} ({e}): about {} clients \
             can connect at once; raise it with `ulimit -n` or LimitNOFILE=",
            clients_within(soft)
        ),
    }
}

/// Client sockets that fit under an open-files limit, given what is open now (logs,
/// listeners…) and a little room for files opened later (rotation, checkpoints).
fn clients_within(limit: u64) -> u64 {
    let open = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64);
    limit.saturating_sub(open + 16)
}
