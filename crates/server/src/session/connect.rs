//! The connection phase: greeting, HandshakeResponse41, AuthSwitch, login checks.
//!
//! Order of checks, as MySQL does them: connection limit (1040, after reading the response,
//! so that every client reports it cleanly), then `require_secure_transport` (3159 for a
//! connection outside TLS), then the password and the account's `REQUIRE` (1045, the same
//! answer for both, as MariaDB), then the initial database (1049 unknown, 1044 not granted).
//! Any failure closes the connection.
//!
//! An SSLRequest in place of the HandshakeResponse (only when the greeting offered
//! `CLIENT_SSL`) starts TLS: nothing is answered, the session reads on inside TLS and expects
//! the HandshakeResponse there, with sequence id 2 (see [`crate::tls`]).

use super::{Flow, Phase, Session};
use crate::accounts::TransportRequirement;
use crate::status::StatusCounter;
use cohort_protocol::{
    capability, check_native, scramble_from_random, status, AuthSwitchRequest, ErrorCode,
    Handshake, HandshakeResponse, OkPacket, SslRequest, NATIVE_PASSWORD_PLUGIN, SCRAMBLE_LEN,
    SERVER_CAPABILITIES, SERVER_MARIADB_CAPABILITIES,
};

/// A login waiting for the client's answer to AuthSwitchRequest.
pub(super) struct PendingLogin {
    user: String,
    database: Option<String>,
}

pub(super) fn new_scramble() -> [u8; SCRAMBLE_LEN] {
    scramble_from_random(rand::random())
}

impl Session {
    /// HandshakeV10, as one framed packet with sequence id 0.
    pub(super) fn greeting(&mut self) -> Vec<u8> {
        let mut hs = Handshake::new(crate::HANDSHAKE_VERSION, self.conn_id, self.scramble);
        if self.tls_offer.is_some() {
            hs.capabilities |= capability::SSL;
        }
        self.writer.set_seq(0);
        self.writer.write_with(|out| hs.encode(out));
        let bytes = self.writer.bytes().to_vec();
        self.writer.clear();
        // The client's HandshakeResponse continues the greeting's sequence.
        self.reader.set_next_seq(1);
        bytes
    }

    pub(super) fn on_handshake_response(&mut self, payload: &[u8]) -> Flow {
        if SslRequest::parse(payload).is_some() {
            return self.on_ssl_request();
        }
        let resp = match HandshakeResponse::parse(payload) {
            Ok(r) => r,
            Err(e) => return self.refuse(e.error_code(), "Bad handshake"),
        };
        self.client_caps = resp.capabilities & SERVER_CAPABILITIES;
        self.client_collation = resp.charset;
        // MariaDB's extended column metadata, when the client asked for it (its
        // capabilities are read only with CLIENT_MYSQL clear: `HandshakeResponse::parse`).
        let extended = resp.mariadb_capabilities
            & SERVER_MARIADB_CAPABILITIES
            & cohort_protocol::mariadb_capability::EXTENDED_METADATA;
        self.writer.set_extended_metadata(extended != 0);
        self.bulk = resp.mariadb_capabilities
            & SERVER_MARIADB_CAPABILITIES
            & cohort_protocol::mariadb_capability::STMT_BULK_OPERATIONS
            != 0;
        self.multi_statements =
            self.client_caps & cohort_protocol::capability::MULTI_STATEMENTS != 0;
        if self.over_limit {
            return self.refuse(ErrorCode::ConCount, "Too many connections");
        }
        if self.tls.is_none() && self.ctx.vars.global_bool("require_secure_transport") {
            return self.refuse(
                ErrorCode::SecureTransportRequired,
                "Connections using insecure transport are prohibited while \
                 --require_secure_transport=ON.",
            );
        }
        let plugin = resp
            .auth_plugin
            .as_deref()
            .unwrap_or(NATIVE_PASSWORD_PLUGIN);
        if plugin != NATIVE_PASSWORD_PLUGIN && !plugin.is_empty() {
            // The client proposed another plugin: ask for mysql_native_password instead.
            let req = AuthSwitchRequest::native(&self.scramble);
            self.writer.write_with(|out| req.encode(out));
            self.reader.set_next_seq(self.writer.seq());
            self.phase = Phase::AwaitAuthSwitch(PendingLogin {
                user: resp.user,
                database: resp.database,
            });
            return Flow::Continue;
        }
        self.login(&resp.user, &resp.auth_response, resp.database)
    }

    /// SSLRequest: continue inside TLS (if the greeting offered it, and only once).
    fn on_ssl_request(&mut self) -> Flow {
        let offered = self.tls_offer.as_ref().filter(|_| self.tls.is_none());
        let Some(tls) = offered else {
            return self.refuse(ErrorCode::HandshakeError, "Bad handshake");
        };
        self.tls = Some(Box::new(tls.link()));
        self.tls_starting = true;
        self.ctx.status.incr(StatusCounter::SslAccepts);
        self.phase = Phase::AwaitResponse;
        Flow::Continue
    }

    pub(super) fn on_auth_switch_response(&mut self, pending: PendingLogin, token: &[u8]) -> Flow {
        self.login(&pending.user, token, pending.database)
    }

    /// Check the password and the initial database; on success the session is Ready.
    fn login(&mut self, user: &str, token: &[u8], database: Option<String>) -> Flow {
        let Some(account) = self.authenticate(user, token) else {
            let using = if token.is_empty() { "NO" } else { "YES" };
            let msg = format!(
                "Access denied for user '{user}'@'{}' (using password: {using})",
                self.host
            );
            return self.refuse(ErrorCode::AccessDenied, &msg);
        };
        if let Some(db) = &database {
            if let Err(e) = self.check_db_access(&account.user, &account.host, db) {
                return self.refuse(e.code(), e.message());
            }
        }
        let mut state = self.new_state(&account.user, &account.host, database);
        // A login with a database reports it as the schema (session_track_schema).
        if state.db.is_some() {
            state.track.schema_changed();
        }
        let changes = super::track::take_changes(&self.ctx, &mut state);
        self.writer.write_ok(&OkPacket {
            session_state: changes.as_ref().map_or(&[], |c| c.as_bytes()),
            ..OkPacket::new(super::results::state_changed_flag(
                status::AUTOCOMMIT,
                &changes,
            ))
        });
        self.state = Some(state);
        self.phase = Phase::Ready;
        self.connect_done = true;
        Flow::Authenticated
    }

    /// The account this user logs in as, if the token proves the password and the connection
    /// meets the account's `REQUIRE` (TLS; a verified client certificate for X509).
    pub(super) fn authenticate(
        &self,
        user: &str,
        token: &[u8],
    ) -> Option<crate::accounts::Account> {
        let account = self.ctx.accounts.lookup(user, &self.host)?;
        let ok = match &account.hash {
            None => token.is_empty(),
            Some(stored) => check_native(stored, &self.scramble, token),
        };
        let tls = self.tls_info();
        let transport_ok = match account.require {
            TransportRequirement::None => true,
            TransportRequirement::Ssl => tls.is_some(),
            TransportRequirement::X509 => tls.is_some_and(|t| t.client_verified),
        };
        (ok && transport_ok).then_some(account)
    }

    /// 1049 for a database that does not exist, 1044 for one not granted.
    pub(super) fn check_db_access(
        &self,
        user: &str,
        host: &str,
        db: &str,
    ) -> crate::error::Result<()> {
        // Every account may use information_schema (CDC clients log in to it).
        if db.eq_ignore_ascii_case("information_schema") {
            return Ok(());
        }
        // The system schemas (mysql, performance_schema, sys) exist too, as for SQL's USE
        // (mariadb-check --all-databases selects each database SHOW DATABASES lists).
        if !crate::sql::database_exists(&self.ctx, db) {
            return Err(crate::error::Error::bad_db(db));
        }
        if !self.ctx.accounts.can_access_db(user, host, db) {
            return Err(crate::error::Error::new(
                ErrorCode::DbAccessDenied,
                format!("Access denied for user '{user}'@'{host}' to database '{db}'"),
            ));
        }
        Ok(())
    }

    /// Send ERR and close (failed connection phase).
    fn refuse(&mut self, code: ErrorCode, message: &str) -> Flow {
        self.ctx.status.incr(StatusCounter::AbortedConnects);
        self.connect_done = true;
        self.writer.write_err(code, message);
        self.phase = Phase::Closed;
        Flow::Close
    }
}
