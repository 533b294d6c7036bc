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
    let ctx = Arc::new(open_context(&cfg)?);
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
    let log_bin = vars.global_bool("log_bin");
    check_log_mode(&cfg.datadir, log_bin)?;
    let (engine, pipeline) = if log_bin {
        open_one_log(cfg, &vars)?
    } else {
        open_redo_only(cfg, &vars)?
    };
    Ok(ServerContext::with_pipeline(
        engine, pipeline, vars, accounts,
    ))
}

/// The log a data directory was created with must be the one it is opened with: recovery reads
/// only that log, so switching `log_bin` would silently drop commits.
fn check_log_mode(datadir: &std::path::Path, log_bin: bool) -> io::Result<()> {
    let marker = datadir.join("log_mode");
    let wanted = if log_bin { "binlog" } else { "redo" };
    match std::fs::read_to_string(&marker) {
        Ok(found) if found.trim() == wanted => Ok(()),
        Ok(found) => {
            Err(io::Error::other(format!(
            "refusing to start: the data directory {} was written with the {} log (log_bin={}); \
             start it with log_bin={} (or use a new data directory)",
            datadir.display(),
            found.trim(),
            if found.trim() == "binlog" { "ON" } else { "OFF" },
            if found.trim() == "binlog" { "ON" } else { "OFF" },
        )))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::write(&marker, format!("{wanted}\n"))?;
            std::fs::File::open(datadir)?.sync_all()
        }
        Err(e) => Err(e),
    }
}

/// Binlog off: recover from the checkpoint and the redo log.
fn open_redo_only(
    cfg: &Config,
    vars: &SystemVariables,
) -> io::Result<(Arc<Engine>, Arc<CommitPipeline>)> {
    let dir: Arc<dyn LogDir> = Arc::new(FsDir::open(&cfg.datadir)?);
    let delay = Arc::new(std::sync::atomic::AtomicU64::new(
        vars.global_u64("log_sync_delay_us"),
    ));
    let started = std::time::Instant::now();
    let (engine, redo, report) =
        crate::log::recovery::recover_redo_only(dir.clone(), 64 << 20, delay.clone())
            .map_err(to_io)?;
    tracing::info!(
        "recovery: checkpoint {}, then replayed {} transactions and {} DDL statements from the redo log in {:.1?}",
        report.checkpoint.as_deref().unwrap_or("(none)"),
        report.transactions,
        report.ddl,
        started.elapsed()
    );
    let pipeline = CommitPipeline::redo_only(engine.clone(), redo, delay, dir);
    Ok((engine, Arc::new(pipeline)))
}

/// Recover from the binlog, then open a new binlog file for this run.
fn open_one_log(
    cfg: &Config,
    vars: &SystemVariables,
) -> io::Result<(Arc<Engine>, Arc<CommitPipeline>)> {
    let dir: Arc<dyn LogDir> = Arc::new(FsDir::open(&cfg.datadir)?);
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
    let binlog = BinlogFiles::open(dir, basename, vars.global_u64("server_id") as u32)?;
    let pipeline = CommitPipeline::one_log(engine.clone(), binlog, report.next_gtid_seq);
    Ok((engine, Arc::new(pipeline)))
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
    let _waits = crate::wait::bind_thread_stats(Some(ctx.waits.clone()));
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
