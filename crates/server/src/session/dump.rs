//! COM_REGISTER_SLAVE and COM_BINLOG_DUMP: the session's side of replication.
//!
//! Both need MariaDB's REPLICATION SLAVE privilege; Cohort's grants are all or nothing, so
//! that means `ALL ON *.*` — a user without it gets MariaDB's 1227. A registration is kept
//! for the connection ([`crate::replication::hosts`]). An accepted dump takes the connection
//! over: the session hands its request to the socket owner ([`Flow::Dump`],
//! [`Session::take_dump`]), which runs it ([`crate::replication`]) and never comes back to
//! the session.

use super::{Flow, Session};
use crate::error::Error;
use crate::replication::{DumpRequest, ReplicaVars};
use crate::types::Value;
use cohort_protocol::replication::{BinlogDump, RegisterSlave};
use cohort_protocol::ErrorCode;

impl Session {
    /// 1227 unless the session may replicate (REPLICATION SLAVE).
    fn need_replication_slave(&mut self) -> Result<(), Error> {
        let state = self.state.as_ref().expect("logged in");
        let slave = crate::accounts::Privs::REPL_SLAVE;
        if self
            .ctx
            .accounts
            .has_global(&state.user, &state.host, slave)
        {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::SpecificAccessDenied,
            "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this operation",
        ))
    }

    pub(super) fn on_register_slave(&mut self, r: RegisterSlave) -> Flow {
        if self.need_replication_slave().is_err() {
            // MariaDB 10.11 words this one as a failed login (1045).
            let state = self.state.as_ref().expect("logged in");
            let account = self.ctx.accounts.lookup(&state.user, &self.host);
            let password = account.is_some_and(|a| a.hash.is_some());
            let e = Error::new(
                ErrorCode::AccessDenied,
                format!(
                    "Access denied for user '{}'@'{}' (using password: {})",
                    state.user,
                    state.host,
                    if password { "YES" } else { "NO" }
                ),
            );
            return self.reply_error(&e);
        }
        self.ctx.replication.register(self.conn_id, &self.host, &r);
        self.reply_ok_packet()
    }

    pub(super) fn on_binlog_dump(&mut self, command: BinlogDump) -> Flow {
        if let Err(e) = self.need_replication_slave() {
            return self.reply_error(&e);
        }
        let state = self.state.as_ref().expect("logged in");
        let var = |name: &str| state.user_vars.get(name).filter(|v| **v != Value::Null);
        let text = |name: &str| var(name).map(crate::vars::display);
        let number = |name: &str| var(name).map_or(0, as_u64);
        let vars = ReplicaVars {
            checksum: text("master_binlog_checksum"),
            capability: number("mariadb_slave_capability"),
            connect_state: text("slave_connect_state"),
            heartbeat_ns: number("master_heartbeat_period"),
            semi_sync: number("rpl_semi_sync_slave") != 0,
            gtid_strict: number("slave_gtid_strict_mode") != 0,
            ignore_duplicates: number("slave_gtid_ignore_duplicates") != 0,
        };
        self.dump = Some(DumpRequest {
            conn_id: self.conn_id,
            user: state.user.clone(),
            host: state.host.clone(),
            command,
            vars,
            unread: self.reader.take_buffered(),
            tls: None,
        });
        Flow::Dump
    }

    /// The dump the last command asked for ([`Flow::Dump`]): the caller runs it on this
    /// connection, which the session no longer serves. The session's transaction (if any) is
    /// rolled back and its prepared statements freed; the replica's registration stays, for
    /// the dump to end.
    pub fn take_dump(&mut self) -> Option<DumpRequest> {
        let mut dump = self.dump.take()?;
        // Inside TLS the dump carries on the connection's TLS (taken only now: the answers
        // before the dump were sealed with it).
        dump.tls = self.tls.take();
        if let Some(state) = self.state.as_mut() {
            state.rollback(&self.ctx);
        }
        self.statements
            .clear(&self.ctx, self.state.as_mut().map(|s| &mut s.memory));
        self.connect_done = true;
        Some(dump)
    }
}

/// A user variable as a number (`SET @x = 5000000000`, `'4'`, `1.0`); 0 when it is none.
fn as_u64(v: &Value) -> u64 {
    match v {
        Value::Int(i) => (*i).max(0) as u64,
        Value::UInt(u) => *u,
        Value::Double(d) if *d > 0.0 => *d as u64,
        Value::Decimal(d) => d.to_f64().max(0.0) as u64,
        Value::Bytes(b) => String::from_utf8_lossy(b).trim().parse().unwrap_or(0),
        _ => 0,
    }
}
