//! Sockets: the accept loop and one thread per connection.
//!
//! This is the only module that reads or writes sockets. Each connection thread runs a blocking
//! loop around the sans-IO [`Session`]: read bytes → split into packets → `Session::handle` →
//! write the response buffer once. The pool-of-threads scheduler will drive the same
//! `Session` from epoll readiness instead.
//!
//! Connection limit: a connection beyond `max_connections` still gets the handshake, its
//! response is read, and it is answered with ER_CON_COUNT_ERROR (1040) — what clients expect
//! (an error before the handshake confuses the `mariadb` CLI).

use crate::accounts::Accounts;
use crate::config::Config;
use crate::log::binlog::BinlogFiles;
use crate::log::device::{FsDir, LogDir};
use crate::log::recovery::recover_one_log;
use crate::log::recovery_classic::recover_classic;
use crate::log::CommitPipeline;
use crate::session::{Flow, ServerContext, Session};
use crate::status::StatusCounter;
use crate::storage::Engine;
use crate::vars::SystemVariables;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Seconds a client has to complete the handshake.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Stack of a connection thread: the SQL parser and binder recurse on nested expressions.
const CONNECTION_STACK: usize = 2 << 20;

/// Build the server context, bind the listener and serve until the process is killed.
pub fn serve(cfg: Config) -> io::Result<()> {
    let signals = crate::shutdown::block_signals();
    let ctx = Arc::new(open_context(&cfg)?);
    crate::shutdown::spawn_waiter(signals, ctx.clone());
    crate::log::checkpointer::spawn(ctx.clone());
    let listener = TcpListener::bind((cfg.bind_address.as_str(), cfg.port))?;
    raise_backlog(&listener);
    tracing::info!(
        "cohort {} listening on {}:{} (datadir {})",
        crate::VERSION,
        cfg.bind_address,
        cfg.port,
        cfg.datadir.display()
    );
    accept_loop(ctx, listener)
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
    std::fs::create_dir_all(&cfg.datadir)?;
    let vars = SystemVariables::new();
    cfg.apply(&vars).map_err(to_io)?;
    let accounts = Accounts::open(&cfg.datadir, &cfg.root_password).map_err(to_io)?;
    crate::log::failpoint::arm_from_env().map_err(io::Error::other)?;
    crate::wait::set_enabled(vars.global_bool("performance_schema"));
    let mode = LogMode::of(&vars)?;
    check_log_mode(&cfg.datadir, mode)?;
    let (engine, pipeline, next_xid) = match mode {
        LogMode::OneLog => open_one_log(cfg, &vars)?,
        LogMode::Classic => open_classic(cfg, &vars)?,
        LogMode::RedoOnly => open_redo_only(cfg, &vars)?,
    };
    let ctx = ServerContext::with_pipeline(engine, pipeline, vars, accounts);
    ctx.next_xid.store(next_xid, Ordering::Relaxed);
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
            std::fs::write(&marker, format!("{wanted}\n"))?;
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
    let (engine, redo, report) =
        crate::log::recovery::recover_redo_only(dir.clone(), REDO_SEGMENT_SIZE, delay.clone())
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
    let (engine, redo, report) =
        recover_classic(dir.clone(), basename, REDO_SEGMENT_SIZE, delay.clone()).map_err(to_io)?;
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
    let binlog = BinlogFiles::open(dir.clone(), basename, vars.global_u64("server_id") as u32)?;
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
    let (engine, report) = recover_one_log(dir.as_ref(), basename).map_err(to_io)?;
    tracing::info!(
        "recovery: checkpoint {}, then replayed {} transactions and {} DDL statements from the binlog in {:.1?}",
        report.checkpoint.as_deref().unwrap_or("(none)"),
        report.transactions,
        report.ddl,
        started.elapsed()
    );
    let opening = std::time::Instant::now();
    let binlog = BinlogFiles::open(dir, basename, vars.global_u64("server_id") as u32)?;
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

/// Accept connections forever, one thread each.
pub fn accept_loop(ctx: Arc<ServerContext>, listener: TcpListener) -> io::Result<()> {
    let next_id = AtomicU32::new(1);
    loop {
        let (stream, peer) = match listener.accept() {
            Ok(s) => s,
            Err(e) => {
                // EMFILE and friends: back off instead of spinning.
                tracing::warn!("accept failed: {e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let conn_id = next_id.fetch_add(1, Ordering::Relaxed);
        let ctx = ctx.clone();
        let host = peer.ip().to_string();
        let spawned = std::thread::Builder::new()
            .name(format!("conn-{conn_id}"))
            .stack_size(CONNECTION_STACK)
            .spawn(move || run_connection(&ctx, stream, conn_id, host));
        if let Err(e) = spawned {
            tracing::warn!("cannot start a connection thread: {e}");
        }
    }
}

/// Counts the connection for its lifetime (Threads_connected).
struct ConnectedGuard<'a>(&'a ServerContext);

impl Drop for ConnectedGuard<'_> {
    fn drop(&mut self) {
        self.0.status.sub(StatusCounter::ThreadsConnected, 1);
    }
}

/// Serve one connection until it quits or fails.
pub fn run_connection(ctx: &Arc<ServerContext>, mut stream: TcpStream, conn_id: u32, host: String) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(CONNECT_TIMEOUT));
    ctx.status.incr(StatusCounter::Connections);
    ctx.status.incr(StatusCounter::ThreadsCreated);
    let connected = ctx.status.get(StatusCounter::ThreadsConnected) + 1;
    ctx.status.add(StatusCounter::ThreadsConnected, 1);
    let _guard = ConnectedGuard(ctx);
    let over_limit = connected > ctx.vars.global_u64("max_connections");
    if !over_limit {
        ctx.status
            .raise_to(StatusCounter::MaxUsedConnections, connected);
    }
    let (mut session, greeting) = Session::start(ctx.clone(), conn_id, host, over_limit);
    if stream.write_all(&greeting).is_err() {
        return;
    }
    let mut buf = vec![0u8; 16 * 1024];
    let mut out = Vec::with_capacity(16 * 1024);
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        ctx.status.add(StatusCounter::BytesReceived, n as u64);
        out.clear();
        let flow = session.on_bytes(&buf[..n], &mut out);
        if !out.is_empty() {
            ctx.status.add(StatusCounter::BytesSent, out.len() as u64);
            if stream.write_all(&out).is_err() {
                break;
            }
        }
        match flow {
            Flow::Continue => {}
            Flow::Authenticated => {
                let idle = ctx.vars.global_u64("wait_timeout").max(1);
                let _ = stream.set_read_timeout(Some(Duration::from_secs(idle)));
            }
            Flow::Close => break,
        }
    }
    session.on_disconnect();
    let _ = stream.shutdown(Shutdown::Both);
}
