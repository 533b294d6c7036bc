//! Clean shutdown on SIGTERM or SIGINT, as `mariadbd` does.
//!
//! 1. [`block_signals`], first thing in `serve`: SIGTERM and SIGINT are blocked in the calling
//!    thread, so every thread started afterwards inherits the mask and none is killed by them.
//! 2. [`spawn_waiter`]: one thread takes the signal with `sigwait`, closes the logs through
//!    [`crate::log::CommitPipeline::shutdown`] (Stop event, zero fill cut, sync; the log
//!    stays locked so nothing is written after the Stop event) and exits the process.
//!
//! Every acknowledged commit was synced before its OK, so exiting never loses one; sessions in
//! the middle of a commit get no answer and their transactions are not applied.

use crate::session::ServerContext;
use std::sync::Arc;

/// The signals that stop the server.
pub struct ShutdownSignals(libc::sigset_t);

/// Block SIGTERM and SIGINT in this thread and every thread it starts later.
pub fn block_signals() -> ShutdownSignals {
    // SAFETY: sigset_t is plain data, initialised by sigemptyset before use; pthread_sigmask
    // only changes the calling thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        ShutdownSignals(set)
    }
}

/// COM_SHUTDOWN: raise SIGTERM at this process in a moment (the requesting connection's OK is
/// written first), so the stop goes through [`spawn_waiter`]'s one path.
pub fn request_soon() {
    let spawned = std::thread::Builder::new()
        .name("shutdown-request".into())
        .spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(100));
            // SAFETY: kill with our own pid and a valid signal number has no memory effects.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGTERM);
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot start the shutdown request: {e}");
    }
}

/// Wait for a stop signal on a thread of its own; then close the logs and exit.
pub fn spawn_waiter(signals: ShutdownSignals, ctx: Arc<ServerContext>) {
    let spawned = std::thread::Builder::new()
        .name("shutdown".into())
        .spawn(move || {
            let mut sig: libc::c_int = 0;
            // SAFETY: the set was initialised by block_signals; sig is a valid out-pointer.
            let rc = unsafe { libc::sigwait(&signals.0, &mut sig) };
            if rc != 0 {
                tracing::error!("sigwait failed ({rc}); the server stops without closing its logs");
                return;
            }
            tracing::info!("signal {sig}: shutting down");
            ctx.pipeline.shutdown();
            tracing::info!("logs closed; bye");
            std::process::exit(0);
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot start the shutdown thread: {e}");
    }
}
