//! A server and the fuzzer's connection to it: runs actions and judges what happens (the
//! SQL fuzzer's oracle). The live run and every replay of the shrinker go through here, so a
//! replay reproduces a finding exactly when the live run would have reported it.
//!
//! After each action, in this order (the first evidence wins, so a panic explains the
//! dropped connection it caused):
//! 1. the server log since the previous action: a panic, stack overflow, allocation
//!    failure, or an ERROR line ([`crate::oracle::scan_log`]);
//! 2. the process: it must still run;
//! 3. the request: a close without a prior ERR of class 08 is a dropped connection; a
//!    request with no answer in time is a hang (if others are still served) or an
//!    unresponsive server; a response that does not decode is malformed;
//! 4. the resident memory against the limit.
//!
//! [`Action::Restart`] kills (SIGKILL) or stops (SIGTERM) the server — after a pause that
//! lets the background checkpointer run — and requires it to come back on the same data
//! directory: not coming back is [`Kind::Bricked`].

use super::action::{run_on, Action};
use super::grammar::{DB, USER, USER_PASSWORD};
use crate::client::{ping, Client, Fail, Login, Reply};
use crate::oracle::{scan_log, Finding, Kind};
use crate::server::{Server, ServerSpec, StartFailure};
use std::path::Path;
use std::time::{Duration, Instant};

pub struct Session {
    pub server: Server,
    /// Replies by kind ("OK", "rows", "ERROR 1064", …), for coverage statistics.
    pub outcomes: std::collections::BTreeMap<String, u64>,
    conn: Option<Client>,
    /// The main connection's @@max_allowed_packet (fixed at connect time).
    max_packet: usize,
    last_reply: Option<Reply>,
    timeout: Duration,
    max_rss_mb: u64,
}

/// Statements that prepare a fresh data directory for the fuzzer.
const SETUP: &[&str] = &[
    "CREATE DATABASE IF NOT EXISTS fz",
    "CREATE USER IF NOT EXISTS 'fzu'@'%' IDENTIFIED BY 'fzpw'",
    "GRANT ALL PRIVILEGES ON fz.* TO 'fzu'@'%'",
    // The protocol fuzzer's canary: a row appears if a command that must not run did.
    "CREATE TABLE IF NOT EXISTS fz.canary (id BIGINT PRIMARY KEY)",
];

impl Session {
    /// Starts a server on a fresh `datadir` and prepares it.
    pub fn start(
        spec: ServerSpec,
        port: u16,
        datadir: &Path,
        log: &Path,
        timeout: Duration,
        max_rss_mb: u64,
    ) -> Result<Session, Finding> {
        let _ = std::fs::remove_dir_all(datadir);
        let server = Server::start(spec, port, datadir, log).map_err(start_finding)?;
        let mut s = Session {
            server,
            outcomes: Default::default(),
            conn: None,
            max_packet: usize::MAX,
            last_reply: None,
            timeout,
            max_rss_mb,
        };
        s.setup()?;
        Ok(s)
    }

    fn setup(&mut self) -> Result<(), Finding> {
        let mut c = self.connect_root()?;
        for sql in SETUP {
            let mut payload = vec![0x03];
            payload.extend_from_slice(sql.as_bytes());
            c.request(&payload, false, false)
                .map_err(|e| self.judge_fail(e, sql.as_bytes()))?;
        }
        Ok(())
    }

    fn connect_root(&mut self) -> Result<Client, Finding> {
        let login = Login {
            database: None,
            ..Login::root()
        };
        Client::connect(self.server.addr(), &login, self.timeout)
            .map_err(|e| self.judge_connect(e, "root"))
    }

    /// The main connection, (re)connected and in the fuzzer's database.
    fn conn(&mut self) -> Result<&mut Client, Finding> {
        if self.conn.is_none() {
            let mut c = self.connect_root()?;
            let mut payload = vec![0x03];
            payload.extend_from_slice(format!("USE {DB}").as_bytes());
            // The database may be gone or refused; statements then fail, which is fine.
            c.request(&payload, false, false)
                .map_err(|e| self.judge_fail(e, b"USE fz"))?;
            self.max_packet = max_allowed_packet(&mut c)
                .map_err(|e| self.judge_fail(e, b"SELECT @@max_allowed_packet"))?;
            self.last_reply = None;
            self.conn = Some(c);
        }
        Ok(self.conn.as_mut().expect("connected above"))
    }

    /// Runs one action; `Err` is a finding.
    pub fn step(&mut self, action: &Action) -> Result<(), Finding> {
        let result = match action {
            Action::Restart { kill } => self.restart(*kill),
            Action::AsUser(_) => self.as_user(action),
            Action::Query(_) | Action::Prepared(_) => {
                let rendered = action_text(action);
                let conn = self.conn()?;
                match run_on(conn, action) {
                    Ok(reply) => {
                        *self.outcomes.entry(outcome_key(&reply)).or_default() += 1;
                        self.last_reply = Some(reply);
                        Ok(())
                    }
                    Err(e) => {
                        self.conn = None;
                        // Closing is the server's right after an ERR of class 08 (connection
                        // exception), and for a packet over max_allowed_packet (whose ERR
                        // may be lost when the server resets the connection mid-write).
                        let expected_close = matches!(e, Fail::Closed(_))
                            && (matches!(&self.last_reply, Some(Reply::Err { sqlstate, .. }) if sqlstate.starts_with("08"))
                                || rendered.len() + 1 > self.max_packet);
                        if expected_close {
                            self.last_reply = None;
                            Ok(())
                        } else {
                            Err(self.judge_fail(e, &rendered))
                        }
                    }
                }
            }
        };
        // A failed request was judged with the log already (a panic explains the failure
        // it caused); after a successful one, the log and the process may still tell of a
        // panic elsewhere (another thread) or a death.
        result?;
        match self.check_server() {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// The last reply on the main connection, for verbose output.
    pub fn last_reply(&self) -> Option<&Reply> {
        self.last_reply.as_ref()
    }

    fn as_user(&mut self, action: &Action) -> Result<(), Finding> {
        let login = Login {
            user: USER.into(),
            password: USER_PASSWORD.into(),
            database: Some(DB.into()),
        };
        let mut c = match Client::connect(self.server.addr(), &login, self.timeout) {
            Ok(c) => c,
            // The account or its database may be gone; nothing to test then.
            Err(Fail::Refused(_)) => return Ok(()),
            Err(e) => return Err(self.judge_connect(e, USER)),
        };
        // Rows locked by the main connection's open transaction, or tables it locked with
        // LOCK TABLES, must not stall us.
        let setup = b"\x03SET SESSION innodb_lock_wait_timeout = 1, lock_wait_timeout = 1";
        let max_packet = c
            .request(setup, false, false)
            .and_then(|_| max_allowed_packet(&mut c))
            .map_err(|e| self.judge_fail(e, setup))?;
        let text = action_text(action);
        match run_on(&mut c, action) {
            Ok(_) => Ok(()),
            // Over max_allowed_packet the server may reset the connection mid-write.
            Err(Fail::Closed(_)) if text.len() + 1 > max_packet => Ok(()),
            Err(e) => Err(self.judge_fail(e, &text)),
        }
    }

    fn restart(&mut self, kill: bool) -> Result<(), Finding> {
        self.conn = None;
        // Let the checkpointer (which polls every 100 ms) write what it wants to.
        std::thread::sleep(Duration::from_millis(300));
        if let Some(f) = self.check_server() {
            return Err(f);
        }
        if kill {
            self.server.kill();
        } else {
            let how = self.server.terminate();
            if how != "exit status 0" {
                let log = self.server.new_log();
                if let Some(f) = scan_log(&log) {
                    return Err(f);
                }
                return Err(Finding::new(
                    Kind::Died,
                    "clean shutdown failed",
                    format!("after SIGTERM: {how}\n{}", self.server.log_tail(20)),
                ));
            }
        }
        self.server.restart().map_err(|e| {
            let mut f = start_finding(e);
            f.detail = format!(
                "after {}: {}",
                if kill { "SIGKILL" } else { "SIGTERM" },
                f.detail
            );
            f
        })?;
        Ok(())
    }

    /// Log, process and memory checks; a finding if anything is wrong.
    pub fn check_server(&mut self) -> Option<Finding> {
        let log = self.server.new_log();
        if let Some(f) = scan_log(&log) {
            return Some(self.with_exit(f));
        }
        if let Some(exit) = self.server.exit_status() {
            // Give the last words of a dying process a moment to reach the log.
            std::thread::sleep(Duration::from_millis(100));
            let log = self.server.new_log();
            if let Some(f) = scan_log(&log) {
                return Some(self.with_exit(f));
            }
            return Some(Finding::new(
                Kind::Died,
                format!("server {exit}"),
                self.server.log_tail(20),
            ));
        }
        if self.max_rss_mb > 0 {
            if let Some(kib) = self.server.rss_kib() {
                if kib / 1024 > self.max_rss_mb {
                    return Some(Finding::new(
                        Kind::Memory,
                        format!("resident memory above {} MiB", self.max_rss_mb),
                        format!("VmRSS {} MiB", kib / 1024),
                    ));
                }
            }
        }
        None
    }

    fn with_exit(&mut self, mut f: Finding) -> Finding {
        if let Some(exit) = self.server.exit_status() {
            f.detail.push_str(&format!("\n(server process: {exit})"));
        }
        f
    }

    /// Turns a failed request into a finding, after waiting briefly for a dying server.
    fn judge_fail(&mut self, e: Fail, what: &[u8]) -> Finding {
        // A dropped connection may be a dying server whose last words are not yet in the
        // log: look again for a moment.
        let deadline = Instant::now() + Duration::from_millis(300);
        loop {
            if let Some(f) = self.check_server() {
                return f;
            }
            if !matches!(e, Fail::Closed(_)) || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let stmt = super::action::printable(&what[..what.len().min(300)]);
        match e {
            Fail::Closed(why) => Finding::new(
                Kind::ConnectionDrop,
                "connection closed without an ERR packet",
                format!("{why}; while running: {stmt}"),
            ),
            Fail::Timeout => {
                if ping(self.server.addr(), &Login::root(), Duration::from_secs(5)).is_ok() {
                    Finding::new(
                        Kind::Hang,
                        "request not answered in time",
                        format!("no answer within {:?} to: {stmt}", self.timeout),
                    )
                } else {
                    Finding::new(
                        Kind::Unresponsive,
                        "server stopped answering",
                        format!("no answer within {:?} to: {stmt}, and a fresh connection cannot run SELECT 1", self.timeout),
                    )
                }
            }
            Fail::Malformed(why) => Finding::new(
                Kind::Malformed,
                first_words(&why),
                format!("{why}; answering: {stmt}"),
            ),
            Fail::Refused(why) => Finding::new(Kind::Unresponsive, "connection refused", why),
        }
    }

    fn judge_connect(&mut self, e: Fail, user: &str) -> Finding {
        if let Some(f) = self.check_server() {
            return f;
        }
        match e {
            Fail::Refused(why) => {
                Finding::new(Kind::Unresponsive, format!("{user} cannot log in"), why)
            }
            other => self.judge_fail(other, format!("(login as {user})").as_bytes()),
        }
    }

    /// A fresh connection must run SELECT 1.
    pub fn liveness(&mut self) -> Result<(), Finding> {
        match ping(self.server.addr(), &Login::root(), Duration::from_secs(10)) {
            Ok(()) => Ok(()),
            Err(e) => {
                if let Some(f) = self.check_server() {
                    return Err(f);
                }
                Err(Finding::new(
                    Kind::Unresponsive,
                    "a fresh connection cannot run SELECT 1",
                    e.to_string(),
                ))
            }
        }
    }

    pub fn stop(mut self) {
        self.conn = None;
        self.server.kill();
    }
}

/// The connection's @@max_allowed_packet (`usize::MAX` if it cannot be read).
fn max_allowed_packet(c: &mut Client) -> Result<usize, Fail> {
    Ok(
        match c.request(b"\x03SELECT @@max_allowed_packet", false, false)? {
            Reply::Rows { first: Some(v), .. } => {
                String::from_utf8_lossy(&v).parse().unwrap_or(usize::MAX)
            }
            _ => usize::MAX,
        },
    )
}

fn action_text(action: &Action) -> Vec<u8> {
    match action {
        Action::Query(n) | Action::AsUser(n) => n.render(),
        Action::Prepared(p) => p.sql.render(),
        Action::Restart { .. } => b"(restart)".to_vec(),
    }
}

fn outcome_key(r: &Reply) -> String {
    match r {
        Reply::Ok => "OK".into(),
        Reply::Rows { .. } => "rows".into(),
        Reply::Prepared { .. } => "prepared".into(),
        Reply::Err { code, .. } => format!("ERROR {code}"),
    }
}

fn first_words(s: &str) -> String {
    s.split(':').next().unwrap_or(s).trim().to_string()
}

/// A server that does not start again: keyed by why (a panic during recovery, or the
/// reason it gives for refusing), without the numbers and paths that vary.
fn start_finding(e: StartFailure) -> Finding {
    let why = match scan_log(&e.log_tail) {
        Some(t) if t.kind != Kind::ErrorLog => t.key(),
        _ => e
            .log_tail
            .lines()
            .rev()
            .find(|l| l.starts_with("cohort serve:"))
            .map(|l| normalise(l.trim_start_matches("cohort serve:")))
            .unwrap_or_else(|| normalise(&e.reason)),
    };
    Finding::new(
        Kind::Bricked,
        format!("the server does not start again: {why}"),
        format!(
            "{}\n--- server log since the start (tail)\n{}",
            e.reason, e.log_tail
        ),
    )
}

/// A message without what varies between occurrences: numbers, paths, quoted names.
fn normalise(message: &str) -> String {
    message
        .split_whitespace()
        .map(|w| {
            if w.contains('/') || w.starts_with('\'') || w.starts_with('`') {
                "…".to_string()
            } else if w.chars().any(|c| c.is_ascii_digit()) {
                let punct: String = w
                    .chars()
                    .rev()
                    .take_while(|c| c.is_ascii_punctuation())
                    .collect();
                format!("#{punct}")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bricking_is_keyed_by_the_reason() {
        let f = start_finding(StartFailure {
            reason: "the server exited during startup: exit status 1".into(),
            log_tail: "cohort serve: refusing to start: the checkpoint cannot be read: checkpoint file '/d/checkpoint.000003' is corrupt at offset 574: bad decimal flags 0x001d0000".into(),
        });
        assert_eq!(
            f.signature,
            "the server does not start again: refusing to start: the checkpoint cannot be read: checkpoint file … is corrupt at offset #: bad decimal flags #"
        );
        let g = start_finding(StartFailure {
            reason: "x".into(),
            log_tail: "cohort serve: Internal error: cannot read /d/accounts.txt: line 9: expected 4 fields".into(),
        });
        assert!(
            g.signature
                .ends_with("Internal error: cannot read … line #: expected # fields"),
            "{}",
            g.signature
        );
    }
}
