//! The session: one client connection as a sans-IO state machine.
//!
//! Bytes in, bytes out. The socket owner (thread-per-connection in [`crate::net`], or the pool
//! of threads in [`crate::sched`]) feeds received bytes to [`Session::on_bytes`] and writes
//! whatever it appends to the output buffer; the session never touches a socket, so every
//! scheduler drives the same code. In the pool a command whose commit is deferred ends with
//! [`Flow::AwaitCommit`]: its response is held until [`Session::on_commit_done`] (see
//! [`commit`]).
//!
//! ```text
//!            start()                HandshakeResponse            auth ok
//!   ──────► Greeting sent ──────────────────────────► [AuthSwitch] ──────► Ready ◄─┐
//!                          │ over max_connections → ERR 1040, Close        │  command│
//!                          │ bad password → ERR 1045, Close                └─────────┘
//!                          │ unknown db → ERR 1049, Close          COM_QUIT / fatal → Close
//! ```
//!
//! TLS: when the server has TLS configured the greeting offers `CLIENT_SSL`; a client's
//! SSLRequest moves the connection into a [`crate::tls::Link`] (see [`crate::tls`]) and from
//! then on `on_bytes` takes and returns ciphertext: it decrypts into the packet reader, serves
//! as before into a plaintext buffer, and seals that into the output. Every entry point that
//! produces output (`on_bytes`, `on_commit_done`) goes through [`Session::sealed`], so both
//! schedulers need nothing TLS-specific. A TLS error answers rustls's alert and closes.
//!
//! Closing is final: once a command answers `Close` (COM_QUIT, a failed COM_CHANGE_USER, a
//! fatal error) the session is `Closed` and no packet the client pipelined behind it is
//! served, whichever scheduler drives it.
//!
//! In `Ready`, each command packet is answered by exactly one response (or none, for
//! COM_STMT_CLOSE / COM_STMT_SEND_LONG_DATA / COM_QUIT). Statement semantics:
//!
//! 1. The statement runs in the session's transaction (started on first use).
//! 2. On error, [`crate::error::Error::action`] says what to undo: the statement (the SQL
//!    layer already rolled back to its savepoint), the whole transaction (deadlock), or the
//!    connection.
//! 3. After the statement, in autocommit mode outside BEGIN … COMMIT, the transaction commits.
//!
//! Memory: what a connection may hold — prepared statements, long data, user variables, what
//! a statement builds, responses waiting to be written — is bounded; [`memory`] lists each
//! bound and gives the most one connection can hold as a formula of `max_session_mem_used`
//! and `max_allowed_packet`. Pipelined commands are served until their responses reach
//! [`memory::OUTPUT_BATCH`]; the session then pauses ([`Session::has_buffered_commands`]) so
//! the scheduler writes them before serving the rest.

mod annotate;
mod bulk;
#[cfg(test)]
mod bulk_tests;
pub mod charsets;
#[cfg(test)]
mod charsets_tests;
pub mod commit;
mod connect;
mod dispatch;
mod dump;
#[cfg(test)]
mod dump_tests;
mod kill;
#[cfg(test)]
mod last_statement_tests;
pub mod memory;
#[cfg(test)]
mod memory_tests;
mod multi;
#[cfg(test)]
mod multi_kill_tests;
#[cfg(test)]
mod prepare_sql_tests;
pub mod processlist;
mod results;
pub mod state;
#[cfg(test)]
mod statement_time_tests;
mod statements;
pub mod table_locks;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tls_tests;
pub mod track;
#[cfg(test)]
mod track_tests;
pub mod user_locks;

pub use state::{ServerContext, SessionState, Warning};

use crate::status::StatusCounter;
use cohort_protocol::{PacketReader, PacketWriter, SCRAMBLE_LEN};
use statements::Statements;
use std::sync::Arc;

/// What the socket owner does after feeding bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep reading.
    Continue,
    /// The client just logged in: switch from the connect timeout to the idle timeout.
    Authenticated,
    /// Write the output, then close the connection.
    Close,
    /// Write the output, then read nothing more: the last command's commit was deferred and
    /// its response is held until [`Session::on_commit_done`] (pool of threads only).
    AwaitCommit,
    /// Write the output, then run the dump [`Session::take_dump`] gives on this connection:
    /// the session serves it no more (see [`crate::replication`]).
    Dump,
}

/// Where the connection is in its life.
enum Phase {
    /// Greeting sent; waiting for HandshakeResponse41.
    AwaitResponse,
    /// AuthSwitchRequest sent; waiting for the native-password token.
    AwaitAuthSwitch(connect::PendingLogin),
    /// Logged in; commands are served.
    Ready,
    /// LOAD DATA LOCAL asked for the client's file: its packets are fed to the statement
    /// until an empty one (the statement's Annotate_rows text waits here).
    LoadLocal(Option<(usize, String)>),
    /// Nothing more is read.
    Closed,
}

/// One connection's protocol state and session state.
pub struct Session {
    ctx: Arc<ServerContext>,
    phase: Phase,
    conn_id: u32,
    /// Client address, for account matching and error messages.
    host: String,
    scramble: [u8; SCRAMBLE_LEN],
    /// Refuse the login with 1040 (over `max_connections`).
    over_limit: bool,
    client_caps: u32,
    /// The collation id of the client's HandshakeResponse: every new `SessionState` starts
    /// with its character sets (see [`charsets`]).
    client_collation: u8,
    /// The client negotiated MARIADB_CLIENT_STMT_BULK_OPERATIONS: COM_STMT_BULK_EXECUTE is
    /// served (`bulk.rs`), else refused with 1295 as MariaDB refuses it.
    bulk: bool,
    reader: PacketReader,
    writer: PacketWriter,
    /// Present once logged in.
    state: Option<SessionState>,
    statements: Statements,
    /// The scheduler's notifier for deferred commits, copied into every new `SessionState`.
    commit_notifier: Option<commit::CommitNotifier>,
    /// The response of the command whose commit is pending, and the sequence id it started at
    /// (Some while held).
    held: Vec<u8>,
    held_seq: Option<u8>,
    /// The connection phase ended (logged in, or refused and counted in Aborted_connects); a
    /// connection that closes before this is an aborted connect too.
    connect_done: bool,
    /// Serving stopped with commands still buffered because [`memory::OUTPUT_BATCH`] bytes of
    /// responses were waiting: the scheduler writes them, then calls [`Session::on_bytes`]
    /// again (with no new bytes) before it reads more.
    paused: bool,
    /// An accepted COM_BINLOG_DUMP, until the socket owner takes it.
    dump: Option<crate::replication::DumpRequest>,
    /// The TLS the greeting offered (`CLIENT_SSL`), if the server has TLS configured.
    tls_offer: Option<Arc<crate::tls::Tls>>,
    /// The connection's TLS, from its SSLRequest on: every byte in and out goes through it.
    tls: Option<Box<crate::tls::Link>>,
    /// The SSLRequest was just served: stop serving packets, the rest of the input is TLS.
    tls_starting: bool,
    /// The TLS handshake completed (counted once in `Ssl_finished_accepts`).
    tls_established: bool,
    /// Responses waiting to be sealed (inside TLS), kept between calls for its allocation.
    plain_out: Vec<u8>,
    /// The connection's entry in the process list (SHOW PROCESSLIST, KILL).
    registration: processlist::Registration,
    /// Several statements per COM_QUERY (`CLIENT_MULTI_STATEMENTS`, COM_SET_OPTION): see
    /// [`multi`].
    multi_statements: bool,
    /// The session's transaction slot was handed to its process-list entry (for KILL).
    slot_hooked: bool,
    /// The error the current command answered, if it did.
    last_error: Option<cohort_protocol::ErrorCode>,
}

impl Session {
    /// A new connection: returns the session and the greeting to send.
    pub fn start(
        ctx: Arc<ServerContext>,
        conn_id: u32,
        host: String,
        over_limit: bool,
    ) -> (Session, Vec<u8>) {
        let max = ctx.vars.global_u64("max_allowed_packet") as usize;
        let tls_offer = ctx.tls();
        let registration = ctx.processes.register(conn_id, &host);
        let mut s = Session {
            ctx,
            phase: Phase::AwaitResponse,
            conn_id,
            host,
            scramble: connect::new_scramble(),
            over_limit,
            client_caps: 0,
            client_collation: 0,
            bulk: false,
            reader: PacketReader::new(max),
            writer: PacketWriter::new(),
            state: None,
            statements: Statements::default(),
            commit_notifier: None,
            held: Vec::new(),
            held_seq: None,
            connect_done: false,
            paused: false,
            dump: None,
            tls_offer,
            tls: None,
            tls_starting: false,
            tls_established: false,
            plain_out: Vec::new(),
            registration,
            multi_statements: false,
            slot_hooked: false,
            last_error: None,
        };
        let greeting = s.greeting();
        (s, greeting)
    }

    /// Feed received bytes (none, to resume after a pause); appends the response bytes to
    /// `out`. Serving stops once [`memory::OUTPUT_BATCH`] bytes of responses wait in `out`:
    /// see [`Session::has_buffered_commands`].
    pub fn on_bytes(&mut self, data: &[u8], out: &mut Vec<u8>) -> Flow {
        if self.tls.is_some() {
            return self.on_ciphertext(data, out);
        }
        let flow = self.on_plaintext(data, out);
        if !self.tls_starting {
            return flow;
        }
        // The SSLRequest was the last packet served: what the reader still holds is the
        // start of the client's TLS handshake.
        self.tls_starting = false;
        let handshake = self.reader.take_buffered();
        self.on_ciphertext(&handshake, out)
    }

    /// Plaintext bytes in (from the socket, or decrypted), plaintext responses out.
    fn on_plaintext(&mut self, data: &[u8], out: &mut Vec<u8>) -> Flow {
        self.reader.feed(data);
        self.paused = false;
        if self.held_seq.is_some() {
            // A response is held: commands received meanwhile wait their turn.
            return Flow::AwaitCommit;
        }
        self.serve_buffered(out)
    }

    /// Inside TLS: decrypt `data` into the reader, serve, seal the responses into `out`.
    fn on_ciphertext(&mut self, data: &[u8], out: &mut Vec<u8>) -> Flow {
        let link = self.tls.as_mut().expect("inside TLS");
        let opened = match link.open(data, &mut self.reader, out) {
            Ok(opened) => opened,
            Err(e) => {
                // rustls's alert is in `out`; this connection only is closed.
                tracing::debug!("connection {}: TLS: {e}", self.conn_id);
                self.phase = Phase::Closed;
                return Flow::Close;
            }
        };
        if !self.tls_established && link.info().is_some() {
            self.tls_established = true;
            self.ctx.status.incr(StatusCounter::SslFinishedAccepts);
        }
        let flow = self.sealed(out, |s, plain| s.on_plaintext(&[], plain));
        if opened.peer_closed && matches!(flow, Flow::Continue | Flow::Authenticated) {
            // close_notify: the client sends nothing more.
            self.phase = Phase::Closed;
            return Flow::Close;
        }
        flow
    }

    /// Run `serve`, which appends responses to the buffer it is given; inside TLS they are
    /// sealed into `out` (with close_notify after the last, when the connection closes),
    /// otherwise `serve` appends to `out` directly.
    fn sealed(
        &mut self,
        out: &mut Vec<u8>,
        serve: impl FnOnce(&mut Session, &mut Vec<u8>) -> Flow,
    ) -> Flow {
        if self.tls.is_none() {
            return serve(self, out);
        }
        let mut plain = std::mem::take(&mut self.plain_out);
        let flow = serve(self, &mut plain);
        let link = self.tls.as_mut().expect("inside TLS");
        link.seal(&plain, out);
        if flow == Flow::Close {
            link.close(out);
        }
        plain.clear();
        if plain.capacity() > 4 * memory::OUTPUT_BATCH {
            // One large response grew it: do not keep that much for an idle connection.
            plain = Vec::new();
        }
        self.plain_out = plain;
        flow
    }

    /// Append `plain` — packets produced outside the command loop, such as a binlog dump's
    /// event stream — to `out` as the connection must carry them: sealed inside TLS, as they
    /// are otherwise. Whoever writes to the socket directly must go through this.
    pub fn seal_output(&mut self, plain: &[u8], out: &mut Vec<u8>) {
        match self.tls.as_mut() {
            Some(link) => link.seal(plain, out),
            None => out.extend_from_slice(plain),
        }
    }

    /// The connection's negotiated TLS, if it is inside TLS (handshake done).
    pub fn tls_info(&self) -> Option<crate::tls::TlsInfo> {
        self.tls.as_ref()?.info()
    }

    /// Did serving stop with commands buffered, so that the responses waiting could be
    /// written first? Then the scheduler writes `out` and calls [`Session::on_bytes`] with no
    /// new bytes before reading: responses of pipelined commands never pile up unwritten
    /// beyond [`memory::OUTPUT_BATCH`] (and one response).
    pub fn has_buffered_commands(&self) -> bool {
        self.paused
    }

    /// Serve every complete packet buffered, in order; stop at a deferred commit, or once
    /// [`memory::OUTPUT_BATCH`] bytes of responses wait.
    fn serve_buffered(&mut self, out: &mut Vec<u8>) -> Flow {
        let mut flow = Flow::Continue;
        loop {
            if self.tls_starting {
                // What follows the SSLRequest is TLS, not packets (see `on_bytes`).
                break;
            }
            if matches!(self.phase, Phase::Closed) {
                flow = Flow::Close;
                break;
            }
            let command = matches!(self.phase, Phase::Ready);
            if command && out.len() + self.writer.len() >= memory::OUTPUT_BATCH {
                self.paused = self.reader.buffered() > 0;
                break;
            }
            if command {
                // Every command starts a new sequence at 0.
                self.reader.set_next_seq(0);
            }
            let packet = match self.reader.next_packet() {
                Ok(Some(p)) => p,
                Ok(None) => break,
                Err(e) => {
                    // The error answers the packet that broke the stream: an over-size one
                    // was announced (not consumed), so answer with its sequence id + 1, as
                    // MariaDB does; otherwise with the next id the reader expects.
                    let seq = match &e {
                        cohort_protocol::ProtocolError::PacketTooLarge { seq, .. } => {
                            seq.wrapping_add(1)
                        }
                        _ => self.reader.next_seq(),
                    };
                    self.writer.set_seq(seq);
                    self.writer
                        .write_err(e.error_code(), &protocol_error_message(&e));
                    self.phase = Phase::Closed;
                    flow = Flow::Close;
                    break;
                }
            };
            let seq = packet.next_seq();
            let payload = packet.payload.to_vec();
            self.writer.drain_into(out);
            self.writer.set_seq(seq);
            if command {
                self.ctx.status.incr(StatusCounter::ThreadsRunning);
            }
            let step = self.on_packet(&payload);
            if self.state.as_ref().is_some_and(|s| s.pending_commit) {
                // Still running (Threads_running) until the commit's outcome is known.
                self.writer.drain_into(&mut self.held);
                self.held_seq = Some(seq);
                return Flow::AwaitCommit;
            }
            if command {
                self.ctx.status.sub(StatusCounter::ThreadsRunning, 1);
            }
            if step == Flow::Close || step == Flow::Dump {
                // COM_QUIT, a failed COM_CHANGE_USER, a fatal error: whatever the client
                // pipelined after it is never served. A dump takes the connection over.
                self.phase = Phase::Closed;
                flow = step;
                break;
            }
            if step != Flow::Continue {
                flow = step;
            }
        }
        self.writer.drain_into(out);
        flow
    }

    /// True while a transaction is open (the pool of threads gives such connections priority).
    pub fn in_transaction(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.in_transaction())
    }

    /// A fresh `SessionState` for a login, carrying the scheduler's commit notifier.
    fn new_state(&self, user: &str, host: &str, db: Option<String>) -> SessionState {
        let mut state = SessionState::new(self.conn_id, user, host, db);
        let process = &self.registration.process;
        process.set_login(user, state.db.as_deref());
        state.process = Some(process.clone());
        state.found_rows = self.client_caps & cohort_protocol::capability::FOUND_ROWS != 0;
        state.local_infile = self.client_caps & cohort_protocol::capability::LOCAL_FILES != 0;
        state.track =
            track::Tracker::new(self.client_caps & cohort_protocol::capability::SESSION_TRACK != 0);
        state.commit_notifier = self.commit_notifier.clone();
        state.tls = self.tls_info();
        state.client_host = Some(self.host.clone());
        charsets::start(&self.ctx, &mut state, self.client_collation);
        state
    }

    /// The connection is gone: roll back whatever was open.
    pub fn on_disconnect(&mut self) {
        self.registration.process.clear_socket();
        self.ctx.replication.unregister(self.conn_id);
        if !self.connect_done {
            // Dropped or timed out during the handshake.
            self.connect_done = true;
            self.ctx.status.incr(StatusCounter::AbortedConnects);
        }
        if let Some(state) = self.state.as_mut() {
            state
                .named_statements
                .clear(&self.ctx.status, &mut state.memory);
            state.rollback(&self.ctx);
            table_locks::unlock_tables(&self.ctx, state);
            self.ctx.user_locks.release_all(self.conn_id);
        }
        self.statements
            .clear(&self.ctx, self.state.as_mut().map(|s| &mut s.memory));
        self.phase = Phase::Closed;
    }

    fn on_packet(&mut self, payload: &[u8]) -> Flow {
        match std::mem::replace(&mut self.phase, Phase::Closed) {
            Phase::AwaitResponse => self.on_handshake_response(payload),
            Phase::AwaitAuthSwitch(pending) => self.on_auth_switch_response(pending, payload),
            Phase::Ready => {
                self.phase = Phase::Ready;
                self.on_command(payload)
            }
            Phase::LoadLocal(annotation) => self.on_local_file(annotation, payload),
            Phase::Closed => Flow::Close,
        }
    }
}

fn protocol_error_message(e: &cohort_protocol::ProtocolError) -> String {
    use cohort_protocol::ProtocolError;
    match e {
        ProtocolError::PacketTooLarge { .. } => {
            "Got a packet bigger than 'max_allowed_packet' bytes".to_string()
        }
        ProtocolError::OutOfOrder { .. } => "Got packets out of order".to_string(),
        other => format!("Malformed communication packet: {other}"),
    }
}
