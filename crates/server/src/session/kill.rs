//! The administrative commands: COM_PROCESS_KILL, COM_STATISTICS, COM_SET_OPTION; and the
//! socket handle a connection kill shuts down (see [`super::processlist`]).

use super::results::status_flags;
use super::{Flow, Session};
use crate::error::Error;
use crate::interrupt::Kill;
use crate::session::processlist::kill;
use crate::status::StatusCounter;
use cohort_protocol::ErrorCode;

impl Session {
    /// Give the process list a handle on this connection's socket: `KILL CONNECTION` shuts
    /// it down so that the scheduler sees end-of-file and closes the connection at once.
    /// The caller must keep the socket open until [`Session::on_disconnect`] or the session's
    /// drop, which clear it.
    pub fn set_kill_socket(&self, fd: std::os::fd::RawFd) {
        self.registration.process.set_socket(fd);
    }

    /// COM_PROCESS_KILL: `KILL CONNECTION id`.
    pub(super) fn on_process_kill(&mut self, id: u32) -> Flow {
        let ctx = self.ctx.clone();
        let state = self.state.as_ref().expect("logged in");
        match kill(&ctx, &state.user, &state.host, id, Kill::Connection) {
            Ok(()) if id == self.conn_id => {
                // Killing oneself: MariaDB answers 1927 and closes.
                let e = Error::new(ErrorCode::ConnectionKilled, "Connection was killed");
                self.reply_error(&e);
                Flow::Close
            }
            Ok(()) => self.reply_ok_packet(),
            Err(e) => self.reply_error(&e),
        }
    }

    /// COM_SHUTDOWN (`mariadb-admin shutdown`): with the global SHUTDOWN privilege (else
    /// 1227), answer OK and stop the server as SIGTERM does (`crate::shutdown`). The signal is
    /// raised once the answer has had time to leave, as MariaDB answers before it stops.
    pub(super) fn on_shutdown(&mut self) -> Flow {
        let ctx = self.ctx.clone();
        let state = self.state.as_ref().expect("logged in");
        let allowed =
            (ctx.accounts).has_global(&state.user, &state.host, crate::accounts::Privs::SHUTDOWN);
        if !allowed {
            let e = Error::new(
                ErrorCode::SpecificAccessDenied,
                "Access denied; you need (at least one of) the SHUTDOWN privilege(s) for this operation",
            );
            return self.reply_error(&e);
        }
        tracing::info!("COM_SHUTDOWN from connection {}", self.conn_id);
        crate::shutdown::request_soon();
        self.reply_ok_packet();
        Flow::Close
    }

    /// COM_STATISTICS: one line of text, no OK header (`mariadb-admin status`).
    pub(super) fn on_statistics(&mut self) -> Flow {
        let ctx = &self.ctx;
        let uptime = ctx.started.elapsed().as_secs().max(1);
        let questions = ctx.status.get(StatusCounter::Questions);
        let tables: usize = (ctx.engine.databases().iter())
            .map(|db| ctx.engine.tables(db).map_or(0, |t| t.len()))
            .sum();
        let line = format!(
            "Uptime: {uptime}  Threads: {}  Questions: {questions}  Slow queries: 0  \
             Opens: {tables}  Open tables: {tables}  Queries per second avg: {:.3}",
            ctx.processes.len(),
            questions as f64 / uptime as f64
        );
        self.writer.write_payload(line.as_bytes());
        Flow::Continue
    }

    /// COM_SET_OPTION: 0 turns multi-statements on, 1 off; answered with EOF as MariaDB.
    pub(super) fn on_set_option(&mut self, option: u16) -> Flow {
        match option {
            0 | 1 => {
                self.multi_statements = option == 0;
                let flags = status_flags(self.state.as_ref().expect("logged in"));
                self.writer.write_eof(0, flags);
            }
            _ => self
                .writer
                .write_err(ErrorCode::UnknownCom, "Unknown command"),
        }
        Flow::Continue
    }
}
