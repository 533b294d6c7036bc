//! The process list: every connection, what it runs, and how to kill it.
//!
//! A connection is listed from its greeting ([`ProcessList::register`]) until its
//! [`Registration`] is dropped (with the [`super::Session`]). SHOW PROCESSLIST,
//! information_schema.PROCESSLIST, COM_STATISTICS (`Threads`) read the list; KILL and
//! COM_PROCESS_KILL find their target in it.
//!
//! Killing (see [`crate::interrupt`] for where a statement notices): the target's
//! [`KillFlag`] is set, its transaction slot is woken (a lock wait ends now), and for a
//! connection kill its socket is shut down, so that an idle connection — blocked in a read,
//! in either scheduler — sees end-of-file and closes at once, as MariaDB closes it.
//!
//! Locks: `ProcessList::entries` (the map) is taken briefly and never while a
//! `Process::shown` / `Process::hooks` mutex is held; those two are leaves.

use crate::interrupt::{Kill, KillFlag};
use crate::storage::TxnSlot;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::{Arc, Weak};
use std::time::Instant;

/// All connections, by id.
#[derive(Default)]
pub struct ProcessList {
    entries: Mutex<BTreeMap<u32, Arc<Process>>>,
}

/// One connection as the process list shows it.
pub struct Process {
    pub id: u32,
    pub host: String,
    pub kill: Arc<KillFlag>,
    shown: Mutex<Shown>,
    hooks: Mutex<Hooks>,
}

/// What SHOW PROCESSLIST shows of a connection that changes as it runs.
/// The largest statement-text buffer a connection keeps between commands.
const SPARE_MAX: usize = 4096;

#[derive(Clone, Debug)]
pub struct Shown {
    pub user: String,
    pub db: Option<String>,
    /// `Sleep`, `Query`, `Connect`, `Binlog Dump`, `Killed`.
    pub command: &'static str,
    /// Since when `command` runs (the `Time` column).
    pub since: Instant,
    /// The statement being run.
    pub info: Option<String>,
    /// The buffer of the last `info`, kept for the next command's text (no allocation per
    /// statement).
    spare: String,
}

/// How a kill reaches a connection that is not looking at its flag.
#[derive(Default)]
struct Hooks {
    /// Its transaction slot: woken so that a lock wait notices the kill.
    slot: Option<Weak<TxnSlot>>,
    /// Its socket's descriptor, shut down by a connection kill. Not a duplicate (which would
    /// double the descriptors a connection holds): the connection's owner clears it
    /// ([`Process::clear_socket`]) before the socket is closed, under this mutex, so a kill
    /// never reaches a descriptor that was closed and reused.
    socket: Option<std::os::fd::RawFd>,
}

/// A connection's entry; dropping it takes the connection out of the list.
pub struct Registration {
    list: Weak<ProcessList>,
    pub process: Arc<Process>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        // The session goes before its socket (schedulers drop it first): no kill after this
        // may shut the descriptor down.
        self.process.clear_socket();
        if let Some(list) = self.list.upgrade() {
            list.entries.lock().remove(&self.process.id);
        }
    }
}

/// Why a KILL was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum KillRefused {
    /// 1094: no such connection.
    NoSuchThread,
    /// 1095: another user's connection, and the killer is not an administrator.
    NotOwner,
}

impl ProcessList {
    /// List a new connection (before it logs in: `unauthenticated user`, `Connect`).
    pub fn register(self: &Arc<Self>, id: u32, host: &str) -> Registration {
        let process = Arc::new(Process {
            id,
            host: host.to_string(),
            kill: Arc::new(KillFlag::default()),
            shown: Mutex::new(Shown {
                user: "unauthenticated user".to_string(),
                db: None,
                command: "Connect",
                since: Instant::now(),
                info: None,
                spare: String::new(),
            }),
            hooks: Mutex::new(Hooks::default()),
        });
        self.entries.lock().insert(id, process.clone());
        Registration {
            list: Arc::downgrade(self),
            process,
        }
    }

    /// Every connection, by id.
    pub fn snapshot(&self) -> Vec<Arc<Process>> {
        self.entries.lock().values().cloned().collect()
    }

    pub fn len(&self) -> usize {
        self.entries.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// KILL `id` on behalf of `user` (`admin`: may kill anyone's connection).
    pub fn kill(&self, id: u32, kill: Kill, user: &str, admin: bool) -> Result<(), KillRefused> {
        let target = self.entries.lock().get(&id).cloned();
        let Some(target) = target else {
            return Err(KillRefused::NoSuchThread);
        };
        if !admin && target.shown.lock().user != user {
            return Err(KillRefused::NotOwner);
        }
        target.deliver(kill);
        Ok(())
    }
}

impl Process {
    pub fn shown(&self) -> Shown {
        self.shown.lock().clone()
    }

    /// Logged in as `user`, or moved to database `db`.
    pub fn set_login(&self, user: &str, db: Option<&str>) {
        let mut s = self.shown.lock();
        s.user = user.to_string();
        s.db = db.map(str::to_string);
        s.command = "Sleep";
        s.since = Instant::now();
    }

    pub fn set_db(&self, db: Option<&str>) {
        let mut s = self.shown.lock();
        if s.db.as_deref() != db {
            s.db = db.map(str::to_string);
        }
    }

    /// A command starts (`info`: its statement text) or ends (`Sleep`, None).
    pub fn set_command(&self, command: &'static str, info: Option<&str>) {
        let mut s = self.shown.lock();
        s.command = command;
        s.since = Instant::now();
        match s.info.take() {
            // A long statement's buffer is not kept for an idle connection.
            Some(old) if old.capacity() <= SPARE_MAX => s.spare = old,
            _ => {}
        }
        if let Some(t) = info {
            let mut buf = std::mem::take(&mut s.spare);
            buf.clear();
            buf.push_str(t);
            s.info = Some(buf);
        }
    }

    /// The transaction slot a kill must wake.
    pub fn set_slot(&self, slot: &Arc<TxnSlot>) {
        self.hooks.lock().slot = Some(Arc::downgrade(slot));
    }

    /// The socket a connection kill shuts down (see `Hooks::socket`).
    pub fn set_socket(&self, fd: std::os::fd::RawFd) {
        self.hooks.lock().socket = Some(fd);
    }

    /// The socket is about to be closed: a kill must no longer touch its descriptor.
    pub fn clear_socket(&self) {
        self.hooks.lock().socket = None;
    }

    fn deliver(&self, kill: Kill) {
        self.kill.request(kill);
        let hooks = self.hooks.lock();
        if let Some(slot) = hooks.slot.as_ref().and_then(Weak::upgrade) {
            slot.wake_for_kill();
        }
        if kill == Kill::Connection {
            if let Some(fd) = hooks.socket {
                // SAFETY: shutdown(2) on a descriptor; it is still the connection's open
                // socket, since its owner clears `socket` under this mutex before closing it.
                unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
            }
        }
    }
}

/// KILL `id` on behalf of `user@host`: anyone may kill their own connections, an
/// administrator anyone's (MariaDB's CONNECTION ADMIN / SUPER).
pub fn kill(
    ctx: &crate::session::ServerContext,
    user: &str,
    host: &str,
    id: u32,
    what: Kill,
) -> crate::error::Result<()> {
    use crate::accounts::Privs;
    let admin = ctx
        .accounts
        .has_global(user, host, Privs::SUPER | Privs::CONNECTION_ADMIN);
    match ctx.processes.kill(id, what, user, admin) {
        Ok(()) => Ok(()),
        Err(KillRefused::NoSuchThread) => Err(crate::error::Error::new(
            cohort_protocol::ErrorCode::NoSuchThread,
            format!("Unknown thread id: {id}"),
        )),
        Err(KillRefused::NotOwner) => Err(crate::error::Error::new(
            cohort_protocol::ErrorCode::KillDenied,
            format!("You are not owner of thread {id}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_is_listed_until_its_registration_drops() {
        let list = Arc::new(ProcessList::default());
        let a = list.register(7, "h:1");
        let b = list.register(8, "h:2");
        a.process.set_login("alice", Some("db1"));
        b.process.set_login("bob", None);
        assert_eq!(list.len(), 2);
        assert_eq!(
            list.kill(8, Kill::Query, "alice", false),
            Err(KillRefused::NotOwner)
        );
        assert_eq!(
            list.kill(9, Kill::Query, "alice", true),
            Err(KillRefused::NoSuchThread)
        );
        assert_eq!(list.kill(8, Kill::Query, "alice", true), Ok(()));
        assert_eq!(b.process.kill.get(), Kill::Query);
        assert_eq!(list.kill(7, Kill::Connection, "alice", false), Ok(()));
        assert_eq!(a.process.kill.get(), Kill::Connection);
        drop(a);
        assert_eq!(
            list.snapshot().iter().map(|p| p.id).collect::<Vec<_>>(),
            [8]
        );
    }
}
