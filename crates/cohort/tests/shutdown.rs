//! SIGTERM ends `cohort serve` cleanly (exit status 0), in every log mode: every thread the
//! process starts, including those started before `serve` blocks the signal (the allocator's
//! purge thread), leaves SIGTERM to the shutdown handler. A thread that did not block it would
//! take the signal's default action and kill the process (exit by signal 15).

mod common;

use common::Server;
use std::time::{Duration, Instant};

fn terminate(mut server: Server) -> std::process::ExitStatus {
    // SAFETY: kill(2) sends a signal to our own child's pid.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "no exit within 60 s of SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_is_a_clean_shutdown_in_every_log_mode() {
    for (name, flags) in [
        ("one-log", &[][..]),
        ("classic", &["--commit-mode", "classic"][..]),
        ("binlog-off", &["--log-bin", "OFF"][..]),
    ] {
        for round in 0..3 {
            let datadir = common::temp_datadir("shutdown", name);
            let server = Server::start(&datadir, flags);
            // Some threads of every kind exist by now (connections, log, checkpointer, purge).
            server.conn();
            let status = terminate(server);
            assert!(
                status.success(),
                "{name} round {round}: SIGTERM gave {status:?}, not a clean exit"
            );
            let _ = std::fs::remove_dir_all(&datadir);
        }
    }
}
