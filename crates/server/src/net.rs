//! Sockets: binding, and one thread per connection.
//!
//! This module and [`crate::sched`] are the only ones that read or write sockets. Accepting is
//! shared by both `thread_handling` modes ([`crate::sched::accept`]: back-pressure, the extra
//! port). With `one-thread-per-connection` each connection thread runs a blocking loop around
//! the sans-IO [`Session`]: read bytes → `Session::on_bytes` → write the response buffer once.
//! With `pool-of-threads` the pool drives the same `Session` from epoll readiness.
//!
//! Connection limit: a connection beyond `max_connections` still gets the handshake, its
//! response is read, and it is answered with ER_CON_COUNT_ERROR (1040) — what clients expect
//! (an error before the handshake confuses the `mariadb` CLI). Connections on `extra_port` are
//! counted apart, against `extra_max_connections`.

use crate::accounts::Accounts;
use crate::config::Config;
use crate::log::binlog::BinlogFiles;
use crate::log::device::{FsDir, LogDir};
use crate::log::recovery::recover_one_log;
use crate::log::recovery_classic::recover_classic;
use crate::log::CommitPipeline;
use crate::sched::accept::{self, Doors};
use crate::session::{Flow, ServerContext, Session};
use crate::status::StatusCounter;
use crate::storage::Engine;
use crate::vars::SystemVariables;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Seconds a client has to complete the handshake.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Stack of a connection thread: the SQL parser and binder recurse on nested expressions.
pub const CONNECTION_STACK: usize = 2 << 20;

/// Build the server context, bind the listener(s) and serve until the process is killed.
pub fn serve(cfg: Config) -> io::Result<()> {
    let signals = crate::shutdown::block_signals();
    let ctx = Arc::new(open_context(&cfg)?);
    crate::shutdown::spawn_waiter(signals, ctx.clone());
    crate::log::checkpointer::spawn(ctx.clone());
    let listener = TcpListener::bind((cfg.bind_address.as_str(), cfg.port))?;
    raise_backlog(&listener);
    let extra_port = ctx.vars.global_u64("extra_port") as u16;
    let extra = match extra_port {
        0 => None,
        port => {
            let l = TcpListener::bind((cfg.bind_address.as_str(), port))?;
            raise_backlog(&l);
            Some(l)
        }
    };
    accept::raise_fd_limit(&ctx.vars);
    let pool =
        ctx.vars.global("thread_handling") == Some(crate::types::Value::str("pool-of-threads"));
    tracing::info!(
        "cohort {} listening on {}:{}{} (datadir {}; thread_handling {})",
        crate::VERSION,
        cfg.bind_address,
        cfg.port,
        if extra_port > 0 {
            format!(", extra port {extra_port}")
        } else {
            String::new()
        },
        cfg.datadir.display(),
        if pool {
            "pool-of-threads"
        } else {
            "one-thread-per-connection"
        },
    );
    let doors = Doors::new(listener, extra)?;
    if pool {
        crate::sched::serve_pool(ctx, doors)
    } else {
        accept::accept_forever(&ctx, doors, |admitted| {
            spawn_connection_thread(&ctx, admitted)
        })
    }
}

/// std listens with a backlog of 128; bursts of connects (sysbench at 1024 threads) overflow it
/// and clients retry a second later. Listening again on a listening socket raises the backlog
/// (the kernel caps it at `net.core.somaxconn`).
fn raise_backlog(listener: &TcpListener) {
    use std::os::fd::AsRawFd;
    // SAFETY: listen(2) on a valid, owned listening socket; no memory is passed.
    let rc = unsafe { libc::listen(listener.as_raw_fd(), 4096) };
    if rc != 0 {
        tracing::warn!(
            "cannot raise the listen backlog: {}",
            io::Error::last_os_error()
        );
    }
}

/// Create the data directory, load accounts, apply the configuration.
pub fn open_context(cfg: &Config) -> io::Result<ServerContext> {
    crate::datadir::create_dir_all(&cfg.datadir)?;
    if let Some(w) = crate::datadir::exposure_warning(&cfg.datadir) {
        tracing::warn!("{w}");
    }
    let vars = SystemVariables::new();
    cfg.apply(&vars).map_err(to_io)?;
    let accounts = Accounts::open(&cfg.datadir, &cfg.root_password).map_err(to_io)?;
    crate::log::failpoint::arm_from_env().map_err(io::Error::other)?;
    crate::wait::set_enabled(vars.global_bool("performance_schema"));
    // Before recovery: a certificate problem is reported at once.
    let tls = crate::tls::start(&vars, &cfg.datadir, &cfg.bind_address, cfg.ssl)
        .map_err(io::Error::other)?;
    let mode = LogMode::of(&vars)?;
    check_log_mode(&cfg.datadir, mode)?;
    let (engine, pipeline, next_xid) = match mode {
        LogMode::OneLog => open_one_log(cfg, &vars)?,
        LogMode::Classic => open_classic(cfg, &vars)?,
        LogMode::RedoOnly => open_redo_only(cfg, &vars)?,
    };
    let ctx = ServerContext::with_pipeline(engine, pipeline, vars, accounts);
    ctx.next_xid.store(next_xid, Ordering::Relaxed);
    ctx.set_tls(tls.map(Arc::new));
    Ok(ctx)
}

/// Which logs a data directory is written with (`log_bin`, `commit_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LogMode {
    OneLog,
    Classic,
    RedoOnly,
}

impl LogMode {
    fn of(vars: &SystemVariables) -> io::Result<LogMode> {
        let classic = matches!(
            vars.global("commit_mode"),
            Some(crate::types::Value::Bytes(b)) if b == b"classic"
        );
        match (vars.global_bool("log_bin"), classic) {
            (true, false) => Ok(LogMode::OneLog),
            (true, true) => Ok(LogMode::Classic),
            (false, false) => Ok(LogMode::RedoOnly),
            (false, true) => Err(io::Error::other(
                "commit_mode=classic needs the binary log (log_bin=ON): classic two-phase \
                 commit uses the binlog as its coordinator; with log_bin=OFF use the default \
                 commit_mode=one-log, which then commits with the engine redo log alone",
            )),
        }
    }

    /// The word in the `log_mode` marker file.
    fn marker(self) -> &'static str {
        match self {
            LogMode::OneLog => "binlog",
            LogMode::Classic => "classic",
            LogMode::RedoOnly => "redo",
        }
    }

    /// The settings that select this mode, for error messages.
    fn settings(self) -> &'static str {
        match self {
            LogMode::OneLog => "log_bin=ON, commit_mode=one-log",
            LogMode::Classic => "log_bin=ON, commit_mode=classic",
            LogMode::RedoOnly => "log_bin=OFF",
        }
    }

    fn from_marker(word: &str) -> Option<LogMode> {
        [LogMode::OneLog, LogMode::Classic, LogMode::RedoOnly]
            .into_iter()
            .find(|m| m.marker() == word)
    }
}

/// The log a data directory was created with must be the one it is opened with: recovery reads
/// only that log, so switching `log_bin` or `commit_mode` would silently drop commits.
fn check_log_mode(datadir: &std::path::Path, mode: LogMode) -> io::Result<()> {
    let marker = datadir.join("log_mode");
    let wanted = mode.marker();
    match std::fs::read_to_string(&marker) {
        Ok(found) if found.trim() == wanted => Ok(()),
        Ok(found) => {
            let settings =
                LogMode::from_marker(found.trim()).map_or("(unknown)", LogMode::settings);
            Err(io::Error::other(format!(
                "refusing to start: the data directory {} was written in log mode '{}' ({}); \
                 start it with those settings (or use a new data directory)",
                datadir.display(),
                found.trim(),
                settings,
            )))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // The marker, then the directory entry: durable before any log is written.
            let mut f = crate::datadir::create_file(&marker)?;
            std::io::Write::write_all(&mut f, format!("{wanted}\n").as_bytes())?;
            f.sync_all()?;
            std::fs::File::open(datadir)?.sync_all()
        }
        Err(e) => Err(e),
    }
}

/// A recovered engine, its pipeline, and the next XID to allocate.
type Opened = (Arc<Engine>, Arc<CommitPipeline>, u64);

/// Redo segment files are this large before the next one starts.
const REDO_SEGMENT_SIZE: u64 = 64 << 20;

/// Binlog off: recover from the checkpoint and the redo log.
fn open_redo_only(cfg: &Config, vars: &SystemVariables) -> io::Result<Opened> {
    let dir: Arc<dyn LogDir> = Arc::new(FsDir::open(&cfg.datadir)?);
    let delay = Arc::new(std::sync::atomic::AtomicU64::new(
        vars.global_u64("log_sync_delay_us"),
    ));
    let started = std::time::Instant::now();
    let (engine, redo, report) = crate::log::recovery::recover_redo_only(
        dir.clone(),
        REDO_SEGMENT_SIZE,
        delay.clone(),
        &crate::sql::SqlDdlReplay::default(),
    )
    .map_err(to_io)?;
    tracing::info!(
        "recovery: checkpoint {}, then replayed {} transactions and {} DDL statements from the redo log in {:.1?}",
        report.checkpoint.as_deref().unwrap_or("(none)"),
        report.transactions,
        report.ddl,
        started.elapsed()
    );
    let pipeline = CommitPipeline::redo_only(engine.clone(), redo, delay, dir);
    Ok((engine, Arc::new(pipeline), report.max_xid + 1))
}

/// Classic mode: recover from the checkpoint, the binlog's XIDs and the redo log, then open a
/// new binlog file for this run.
fn open_classic(cfg: &Config, vars: &SystemVariables) -> io::Result<Opened> {
    let dir = binlog_dir(cfg, vars)?;
    let basename = "binlog";
    let path = crate::types::Value::str(&dir.display_path(basename));
    vars.set_startup("log_bin_basename", path).map_err(to_io)?;
    let delay = Arc::new(std::sync::atomic::AtomicU64::new(
        vars.global_u64("log_sync_delay_us"),
    ));
    let started = std::time::Instant::now();
    let (engine, redo, report) = recover_classic(
        dir.clone(),
        basename,
        REDO_SEGMENT_SIZE,
        delay.clone(),
        &crate::sql::SqlDdlReplay::default(),
    )
    .map_err(to_io)?;
    tracing::info!(
        "recovery: checkpoint {}, then replayed {} transactions and {} DDL statements from the redo log \
         ({} prepared transactions committed from the binlog, {} rolled back) in {:.1?}",
        report.checkpoint.as_deref().unwrap_or("(none)"),
        report.transactions,
        report.ddl,
        report.prepared_committed,
        report.prepared_rolled_back,
        started.elapsed()
    );
    let server_id = vars.global_u64("server_id") as u32;
    let binlog = BinlogFiles::open(dir.clone(), basename, server_id, report.gtids)?;
    let pipeline = CommitPipeline::classic(
        engine.clone(),
        binlog,
        report.next_gtid_seq,
        redo,
        delay,
        dir,
    );
    Ok((engine, Arc::new(pipeline), report.max_xid + 1))
}

/// The data directory, zero-filling binlog files ahead of their end per `binlog_preallocate`.
fn binlog_dir(cfg: &Config, vars: &SystemVariables) -> io::Result<Arc<dyn LogDir>> {
    let zero_fill = vars.global_bool("binlog_preallocate");
    Ok(Arc::new(
        FsDir::open(&cfg.datadir)?.with_zero_fill(zero_fill),
    ))
}

/// Recover from the binlog, then open a new binlog file for this run.
fn open_one_log(cfg: &Config, vars: &SystemVariables) -> io::Result<Opened> {
    let dir = binlog_dir(cfg, vars)?;
    let basename = "binlog";
    let path = crate::types::Value::str(&dir.display_path(basename));
    vars.set_startup("log_bin_basename", path).map_err(to_io)?;
    let started = std::time::Instant::now();
    let (engine, report) =
        recover_one_log(dir.as_ref(), basename, &crate::sql::SqlDdlReplay::default())
            .map_err(to_io)?;
    tracing::info!(
        "recovery: checkpoint {}, then replayed {} transactions and {} DDL statements from the binlog in {:.1?}",
        report.checkpoint.as_deref().unwrap_or("(none)"),
        report.transactions,
        report.ddl,
        started.elapsed()
    );
    let opening = std::time::Instant::now();
    let server_id = vars.global_u64("server_id") as u32;
    let binlog = BinlogFiles::open(dir, basename, server_id, report.gtids)?;
    tracing::info!(
        "binlog {} opened in {:.1?}",
        binlog.current_name(),
        opening.elapsed()
    );
    let pipeline = CommitPipeline::one_log(engine.clone(), binlog, report.next_gtid_seq);
    Ok((engine, Arc::new(pipeline), 1))
}

fn to_io(e: crate::error::Error) -> io::Error {
    io::Error::other(e.message().to_string())
}

/// Accept connections forever, one thread each (thread-per-connection, no extra port).
pub fn accept_loop(ctx: Arc<ServerContext>, listener: TcpListener) -> io::Result<()> {
    let doors = Doors::new(listener, None)?;
    accept::accept_forever(&ctx, doors, |admitted| {
        spawn_connection_thread(&ctx, admitted)
    })
}

/// A connection accepted and counted, before its session starts.
pub struct Admitted {
    pub stream: TcpStream,
    pub conn_id: u32,
    pub host: String,
    /// Answer the login with 1040.
    pub over_limit: bool,
    pub slot: ConnectionSlot,
}

/// One open connection in the connection counters: taken at accept, given back on drop.
pub struct ConnectionSlot {
    ctx: Arc<ServerContext>,
    /// The extra port's own count, for connections that came through it.
    extra: Option<Arc<AtomicU64>>,
}

impl ConnectionSlot {
    /// Count a new connection (Connections, Threads_connected, Max_used_connections) and say
    /// whether it is over its limit. `extra_open` counts the open extra-port connections;
    /// with `via_extra` this one is one of them and is held to `extra_max_connections`,
    /// otherwise the others are held to `max_connections`.
    pub fn take(
        ctx: &Arc<ServerContext>,
        extra_open: &Arc<AtomicU64>,
        via_extra: bool,
    ) -> (ConnectionSlot, bool) {
        let status = &ctx.status;
        status.incr(StatusCounter::Connections);
        let connected = status.get(StatusCounter::ThreadsConnected) + 1;
        status.add(StatusCounter::ThreadsConnected, 1);
        let over_limit = if via_extra {
            let n = extra_open.fetch_add(1, Ordering::Relaxed) + 1;
            n > ctx.vars.global_u64("extra_max_connections")
        } else {
            let main = connected.saturating_sub(extra_open.load(Ordering::Relaxed));
            main > ctx.vars.global_u64("max_connections")
        };
        if !over_limit {
            status.raise_to(StatusCounter::MaxUsedConnections, connected);
        }
        let slot = ConnectionSlot {
            ctx: ctx.clone(),
            extra: via_extra.then(|| extra_open.clone()),
        };
        (slot, over_limit)
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.ctx.status.sub(StatusCounter::ThreadsConnected, 1);
        if let Some(count) = &self.extra {
            count.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Thread-per-connection (and the extra port): a thread of its own for `admitted`.
pub fn spawn_connection_thread(ctx: &Arc<ServerContext>, admitted: Admitted) {
    let conn_ctx = ctx.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("conn-{}", admitted.conn_id))
        .stack_size(CONNECTION_STACK)
        .spawn(move || run_connection(&conn_ctx, admitted));
    match spawned {
        Ok(_) => ctx.status.incr(StatusCounter::ThreadsCreated),
        Err(e) => tracing::warn!("cannot start a connection thread: {e}"),
    }
}

/// A dump on this connection's thread (thread per connection), until it ends.
fn run_dump(ctx: &Arc<ServerContext>, session: &mut Session, stream: &TcpStream) {
    let Some(mut req) = session.take_dump() else {
        return;
    };
    let timeout = Duration::from_secs(ctx.vars.global_u64("net_write_timeout"));
    let tls = req.tls.take();
    let socket = stream
        .try_clone()
        .and_then(|s| crate::replication::socket::for_stream(s, tls, timeout));
    match socket {
        Ok(mut socket) => {
            crate::replication::serve(ctx, req, socket.as_mut());
            socket.shutdown();
        }
        Err(e) => tracing::warn!("cannot start a binlog dump: {e}"),
    }
}

/// Serve one connection until it quits or fails.
pub fn run_connection(ctx: &Arc<ServerContext>, admitted: Admitted) {
    let Admitted {
        mut stream,
        conn_id,
        host,
        over_limit,
        slot: _slot,
    } = admitted;
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(CONNECT_TIMEOUT));
    let _waits = crate::wait::bind_thread_stats(Some(ctx.waits.clone()));
    let (mut session, greeting) = Session::start(ctx.clone(), conn_id, host, over_limit);
    // `session` is declared after `stream`, so it is dropped (and clears this) first.
    session.set_kill_socket(std::os::fd::AsRawFd::as_raw_fd(&stream));
    if stream.write_all(&greeting).is_err() {
        session.on_disconnect();
        return;
    }
    let mut buf = vec![0u8; 16 * 1024];
    let mut out = Vec::with_capacity(16 * 1024);
    'connection: loop {
        let n = match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        ctx.status.add(StatusCounter::BytesReceived, n as u64);
        let mut data = &buf[..n];
        // Serve what came; if the session pauses with commands buffered (their responses
        // reached its output batch), write and serve again before reading more.
        loop {
            out.clear();
            let flow = session.on_bytes(data, &mut out);
            data = &[];
            if !out.is_empty() {
                ctx.status.add(StatusCounter::BytesSent, out.len() as u64);
                if stream.write_all(&out).is_err() {
                    break 'connection;
                }
            }
            match flow {
                Flow::Continue => {}
                Flow::Authenticated => {
                    let idle = ctx.vars.global_u64("wait_timeout").max(1);
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(idle)));
                }
                Flow::Close => break 'connection,
                Flow::AwaitCommit => {
                    unreachable!("commits are deferred only in the pool of threads")
                }
                Flow::Dump => {
                    // The connection's thread becomes the dump thread.
                    run_dump(ctx, &mut session, &stream);
                    break 'connection;
                }
            }
            if !session.has_buffered_commands() {
                break;
            }
        }
        if out.capacity() > crate::session::memory::OUTPUT_BATCH * 4 {
            // One large response grew it: do not keep that much for an idle connection.
            out = Vec::with_capacity(16 * 1024);
        }
    }
    session.on_disconnect();
    let _ = stream.shutdown(Shutdown::Both);
}
