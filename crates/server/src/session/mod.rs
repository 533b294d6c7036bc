//! The session: one client connection as a sans-IO state machine.
//!
//! Bytes in, bytes out. The socket owner (thread-per-connection in [`crate::net`], later the
//! pool) feeds received bytes to [`Session::on_bytes`] and writes whatever it appends to the
//! output buffer; the session never touches a socket, so every scheduler drives the same code.
//!
//! ```text
//!            start()                HandshakeResponse            auth ok
//!   ──────► Greeting sent ──────────────────────────► [AuthSwitch] ──────► Ready ◄─┐
//!                          │ over max_connections → ERR 1040, Close        │  command│
//!                          │ bad password → ERR 1045, Close                └─────────┘
//!                          │ unknown db → ERR 1049, Close          COM_QUIT / fatal → Close
//! ```
//!
//! In `Ready`, each command packet is answered by exactly one response (or none, for
//! COM_STMT_CLOSE / COM_STMT_SEND_LONG_DATA / COM_QUIT). Statement semantics:
//!
//! 1. The statement runs in the session's transaction (started on first use).
//! 2. On error, [`crate::error::Error::action`] says what to undo: the statement (the SQL
//!    layer already rolled back to its savepoint), the whole transaction (deadlock), or the
//!    connection.
//! 3. After the statement, in autocommit mode outside BEGIN … COMMIT, the transaction commits.

pub mod commit;
mod connect;
mod dispatch;
mod results;
pub mod state;
mod statements;

pub use state::{ServerContext, SessionState, Warning};

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
        };
        let greeting = s.greeting();
        (s, greeting)
    }

    /// Feed received bytes; appends the response bytes to `out`.
    pub fn on_bytes(&mut self, data: &[u8], out: &mut Vec<u8>) -> Flow {
        self.reader.feed(data);
        let mut flow = Flow::Continue;
        loop {
            if matches!(self.phase, Phase::Closed) {
                flow = Flow::Close;
                break;
            }
            if matches!(self.phase, Phase::Ready) {
                // Every command starts a new sequence at 0.
                self.reader.set_next_seq(0);
            }
            let packet = match self.reader.next_packet() {
                Ok(Some(p)) => p,
                Ok(None) => break,
                Err(e) => {
                    self.writer.set_seq(self.reader.next_seq());
                    self.writer
                        .write_err(e.error_code(), &protocol_error_message(&e));
                    self.phase = Phase::Closed;
                    flow = Flow::Close;
                    break;
                }
            };
            let seq = packet.next_seq();
            let payload = packet.payload.to_vec();
            self.writer.set_seq(seq);
            let step = self.on_packet(&payload);
            if step != Flow::Continue {
                flow = step;
            }
        }
        out.extend_from_slice(self.writer.bytes());
        self.writer.clear();
        flow
    }

    /// The connection is gone: roll back whatever was open.
    pub fn on_disconnect(&mut self) {
        if let Some(state) = self.state.as_mut() {
            state.rollback(&self.ctx);
        }
        self.statements.clear(&self.ctx);
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
