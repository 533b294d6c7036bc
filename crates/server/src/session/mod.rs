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

pub mod commit;
mod connect;
mod dispatch;
pub mod memory;
#[cfg(test)]
mod memory_tests;
mod results;
pub mod state;
mod statements;
#[cfg(test)]
mod tests;

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
}

/// Where the connection is in its life.
enum Phase {
    /// Greeting sent; waiting for HandshakeResponse41.
    AwaitResponse,
    /// AuthSwitchRequest sent; waiting for the native-password token.
    AwaitAuthSwitch(connect::PendingLogin),
    /// Logged in; commands are served.
    Ready,
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
        let mut s = Session {
            ctx,
            phase: Phase::AwaitResponse,
            conn_id,
            host,
            scramble: connect::new_scramble(),
            over_limit,
            client_caps: 0,
            reader: PacketReader::new(max),
            writer: PacketWriter::new(),
            state: None,
            statements: Statements::default(),
            commit_notifier: None,
            held: Vec::new(),
            held_seq: None,
            connect_done: false,
            paused: false,
        };
        let greeting = s.greeting();
        (s, greeting)
    }

    /// Feed received bytes (none, to resume after a pause); appends the response bytes to
    /// `out`. Serving stops once [`memory::OUTPUT_BATCH`] bytes of responses wait in `out`:
    /// see [`Session::has_buffered_commands`].
    pub fn on_bytes(&mut self, data: &[u8], out: &mut Vec<u8>) -> Flow {
        self.reader.feed(data);
        self.paused = false;
        if self.held_seq.is_some() {
            // A response is held: commands received meanwhile wait their turn.
            return Flow::AwaitCommit;
        }
        self.serve_buffered(out)
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
            if step == Flow::Close {
                // COM_QUIT, a failed COM_CHANGE_USER, a fatal error: whatever the client
                // pipelined after it is never served.
                self.phase = Phase::Closed;
                flow = Flow::Close;
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
        state.commit_notifier = self.commit_notifier.clone();
        state
    }

    /// The connection is gone: roll back whatever was open.
    pub fn on_disconnect(&mut self) {
        if !self.connect_done {
            // Dropped or timed out during the handshake.
            self.connect_done = true;
            self.ctx.status.incr(StatusCounter::AbortedConnects);
        }
        if let Some(state) = self.state.as_mut() {
            state.rollback(&self.ctx);
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
