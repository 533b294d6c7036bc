//! A blocking MySQL client over `cohort-protocol`, strict about what the server sends.
//!
//! The fuzzers need what a library client hides: raw bytes in statements, COM_STMT_EXECUTE
//! parameters of any wire type and value, COM_STMT_SEND_LONG_DATA, and an exact account of
//! how a request ended. So this client is built on the project's own sans-IO codec:
//! [`Client::connect`] logs in (native password, auth switch allowed), and each request
//! writes one command at sequence id 0 and follows the response with
//! [`cohort_protocol::ResponseDecoder`], checking sequence ids, every column definition and
//! every row (text or binary) on the way. A response that does not decode is a
//! [`Fail::Malformed`]: the server broke the protocol, which the fuzzers report.
//!
//! Every read has a deadline; a request that does not complete in time is [`Fail::Timeout`].

use cohort_protocol::{
    parse_binary_row, parse_text_row, scramble_native, write_packet, AuthSwitchRequest,
    ColumnDefinition, Handshake, HandshakeResponse, PacketReader, ResponseDecoder, ResponseEvent,
};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// The largest response payload accepted (the server's limit is lower).
const MAX_RESPONSE: usize = 1 << 30;

/// How a request failed to complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fail {
    /// The server closed the connection (end of stream or reset) before answering.
    Closed(String),
    /// No complete answer before the deadline.
    Timeout,
    /// The answer does not follow the protocol.
    Malformed(String),
    /// The login was refused, or the TCP connection could not be made.
    Refused(String),
}

impl std::fmt::Display for Fail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fail::Closed(why) => write!(f, "connection closed by the server ({why})"),
            Fail::Timeout => write!(f, "no answer before the deadline"),
            Fail::Malformed(why) => write!(f, "malformed response: {why}"),
            Fail::Refused(why) => write!(f, "connection refused: {why}"),
        }
    }
}

/// A complete answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Ok,
    Err {
        code: u16,
        sqlstate: String,
        message: String,
    },
    Rows {
        columns: usize,
        rows: usize,
        /// The first column of the first row, as text (for liveness checks).
        first: Option<Vec<u8>>,
    },
    Prepared {
        stmt_id: u32,
        params: u16,
        columns: u16,
    },
}

impl Reply {
    /// Short text for logs and reports.
    pub fn summary(&self) -> String {
        match self {
            Reply::Ok => "OK".into(),
            Reply::Err {
                code,
                sqlstate,
                message,
            } => format!("ERROR {code} ({sqlstate}): {message}"),
            Reply::Rows { columns, rows, .. } => format!("{rows} row(s) of {columns} column(s)"),
            Reply::Prepared {
                stmt_id, params, ..
            } => format!("prepared #{stmt_id} with {params} parameter(s)"),
        }
    }
}

/// Login parameters.
#[derive(Clone, Debug)]
pub struct Login {
    pub user: String,
    pub password: String,
    pub database: Option<String>,
}

impl Login {
    pub fn root() -> Login {
        Login {
            user: "root".into(),
            password: String::new(),
            database: None,
        }
    }
}

/// One logged-in connection.
pub struct Client {
    stream: TcpStream,
    reader: PacketReader,
    timeout: Duration,
    out: Vec<u8>,
}

impl Client {
    /// Connects and logs in; every step must finish within `timeout`.
    pub fn connect(addr: SocketAddr, login: &Login, timeout: Duration) -> Result<Client, Fail> {
        let stream = TcpStream::connect_timeout(&addr, timeout)
            .map_err(|e| Fail::Refused(format!("connect: {e}")))?;
        let _ = stream.set_nodelay(true);
        let mut c = Client {
            stream,
            reader: PacketReader::new(MAX_RESPONSE),
            timeout,
            out: Vec::new(),
        };
        c.login(login)?;
        Ok(c)
    }

    fn login(&mut self, login: &Login) -> Result<(), Fail> {
        let deadline = Instant::now() + self.timeout;
        self.reader.set_next_seq(0);
        let greeting = self.next_payload(deadline)?;
        let hs =
            Handshake::parse(&greeting).map_err(|e| Fail::Malformed(format!("greeting: {e}")))?;
        let resp =
            HandshakeResponse::native(&login.user, &login.password, login.database.as_deref(), &hs);
        let mut payload = Vec::new();
        resp.encode(&mut payload);
        self.send_payload(1, &payload)?;
        self.reader.set_next_seq(2);
        loop {
            let p = self.next_payload(deadline)?;
            match p.first() {
                Some(0x00) => return Ok(()),
                Some(0xFF) => {
                    return Err(Fail::Refused(describe_err(&p)));
                }
                Some(0xFE) => {
                    let switch = AuthSwitchRequest::parse(&p)
                        .map_err(|e| Fail::Malformed(format!("auth switch: {e}")))?;
                    let token = if login.password.is_empty() {
                        Vec::new()
                    } else {
                        scramble_native(&login.password, switch.scramble()).to_vec()
                    };
                    let seq = self.reader.next_seq();
                    self.send_payload(seq, &token)?;
                    self.reader.set_next_seq(seq.wrapping_add(1));
                }
                _ => return Err(Fail::Malformed("unexpected packet during login".into())),
            }
        }
    }

    /// The socket, for raw writes after the login (nothing is buffered after a login).
    pub fn into_stream(self) -> TcpStream {
        self.stream
    }

    /// Sends one command payload (sequence id 0) without reading anything.
    pub fn send_command(&mut self, payload: &[u8]) -> Result<(), Fail> {
        self.send_payload(0, payload)?;
        self.reader.set_next_seq(1);
        Ok(())
    }

    fn send_payload(&mut self, seq: u8, payload: &[u8]) -> Result<(), Fail> {
        self.out.clear();
        let mut s = seq;
        write_packet(&mut self.out, &mut s, payload);
        self.stream.write_all(&self.out).map_err(io_fail)
    }

    /// Sends a command and reads its whole response. `binary` says that rows are binary
    /// (COM_STMT_EXECUTE); `prepare` that the response is a PREPARE response.
    pub fn request(&mut self, payload: &[u8], binary: bool, prepare: bool) -> Result<Reply, Fail> {
        if let Err(e) = self.send_command(payload) {
            // The server may have answered (ERR 1153 for a packet over max_allowed_packet)
            // and closed before reading everything: that answer counts.
            return match self.read_response(binary, prepare) {
                Ok(err @ Reply::Err { .. }) => Ok(err),
                _ => Err(e),
            };
        }
        self.read_response(binary, prepare)
    }

    /// Reads one response to the command last sent.
    pub fn read_response(&mut self, binary: bool, prepare: bool) -> Result<Reply, Fail> {
        let deadline = Instant::now() + self.timeout;
        let mut decoder = if prepare {
            ResponseDecoder::for_prepare()
        } else {
            ResponseDecoder::new()
        };
        let mut columns: Vec<ColumnDefinition> = Vec::new();
        let mut reply: Option<Reply> = None;
        let mut rows = 0usize;
        let mut first: Option<Vec<u8>> = None;
        loop {
            let payload = self.next_payload(deadline)?;
            let event = decoder
                .decode(&payload)
                .map_err(|e| Fail::Malformed(format!("response: {e}")))?;
            match event {
                ResponseEvent::Ok(_) => {
                    reply.get_or_insert(Reply::Ok);
                }
                ResponseEvent::Err(e) => {
                    reply = Some(Reply::Err {
                        code: e.code,
                        sqlstate: String::from_utf8_lossy(&e.sqlstate).into_owned(),
                        message: e.message_text(),
                    })
                }
                ResponseEvent::ColumnCount(n) => {
                    if n > 4096 {
                        return Err(Fail::Malformed(format!("{n} columns")));
                    }
                    columns.clear();
                }
                ResponseEvent::Column(c) => {
                    let def = ColumnDefinition::parse(c)
                        .map_err(|e| Fail::Malformed(format!("column definition: {e}")))?;
                    columns.push(def);
                }
                ResponseEvent::Row(row) => {
                    let value = check_row(row, &columns, binary)?;
                    if rows == 0 {
                        first = value;
                    }
                    rows += 1;
                }
                ResponseEvent::ColumnsEnd(_) | ResponseEvent::ParamsEnd(_) => {}
                ResponseEvent::RowsEnd(_) => {
                    if !matches!(reply, Some(Reply::Err { .. })) {
                        reply = Some(Reply::Rows {
                            columns: columns.len(),
                            rows,
                            first: first.clone(),
                        });
                    }
                }
                ResponseEvent::PrepareOk(ok) => {
                    reply = Some(Reply::Prepared {
                        stmt_id: ok.stmt_id,
                        params: ok.num_params,
                        columns: ok.num_columns,
                    })
                }
                ResponseEvent::Param(p) => {
                    ColumnDefinition::parse(p)
                        .map_err(|e| Fail::Malformed(format!("parameter definition: {e}")))?;
                }
            }
            if decoder.is_done() {
                return reply.ok_or_else(|| Fail::Malformed("empty response".into()));
            }
        }
    }

    /// The next complete payload, reading from the socket as needed.
    fn next_payload(&mut self, deadline: Instant) -> Result<Vec<u8>, Fail> {
        loop {
            match self.reader.next_packet() {
                Ok(Some(p)) => return Ok(p.payload.to_vec()),
                Ok(None) => {}
                Err(e) => return Err(Fail::Malformed(format!("framing: {e}"))),
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Fail::Timeout);
            }
            let _ = self
                .stream
                .set_read_timeout(Some((deadline - now).max(Duration::from_millis(1))));
            let buf = self.reader.read_buf(64 * 1024);
            match self.stream.read(buf) {
                Ok(0) => return Err(Fail::Closed("end of stream".into())),
                Ok(n) => self.reader.advance(n),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(io_fail(e)),
            }
        }
    }
}

fn io_fail(e: std::io::Error) -> Fail {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => Fail::Timeout,
        _ => Fail::Closed(e.to_string()),
    }
}

fn describe_err(payload: &[u8]) -> String {
    match cohort_protocol::ErrPacket::parse(payload) {
        Ok(e) => format!(
            "ERROR {} ({}): {}",
            e.code,
            String::from_utf8_lossy(&e.sqlstate),
            e.message_text()
        ),
        Err(e) => format!("undecodable ERR packet: {e}"),
    }
}

/// Checks that a row decodes against its columns; returns its first value as text.
fn check_row(
    row: &[u8],
    columns: &[ColumnDefinition],
    binary: bool,
) -> Result<Option<Vec<u8>>, Fail> {
    if binary {
        let cells = parse_binary_row(row, columns)
            .map_err(|e| Fail::Malformed(format!("binary row: {e}")))?;
        Ok(cells.first().map(|c| c.to_text().into_bytes()))
    } else {
        let fields = parse_text_row(row, columns.len())
            .map_err(|e| Fail::Malformed(format!("text row: {e}")))?;
        Ok(fields.first().and_then(|f| f.map(<[u8]>::to_vec)))
    }
}

/// Connects, logs in as `login` and checks that `SELECT 1` answers 1.
/// Take the global SHUTDOWN privilege from root. The fuzzers log in as root, and a COM_SHUTDOWN
/// (0x08) among random bytes would stop the server cleanly, as MariaDB's does, which the next
/// case would report as a death; without the privilege it is the 1227 path that gets fuzzed.
pub fn revoke_shutdown(addr: SocketAddr, timeout: Duration) -> Result<(), Fail> {
    let mut c = Client::connect(addr, &Login::root(), timeout)?;
    let mut payload = Vec::new();
    cohort_protocol::encode_query(&mut payload, "REVOKE SHUTDOWN ON *.* FROM 'root'@'%'");
    c.request(&payload, false, false).map(|_| ())
}

pub fn ping(addr: SocketAddr, login: &Login, timeout: Duration) -> Result<(), Fail> {
    let mut c = Client::connect(addr, login, timeout)?;
    let mut payload = Vec::new();
    cohort_protocol::encode_query(&mut payload, "SELECT 1");
    match c.request(&payload, false, false)? {
        Reply::Rows { first: Some(v), .. } if v == b"1" => Ok(()),
        other => Err(Fail::Malformed(format!(
            "SELECT 1 answered {}",
            other.summary()
        ))),
    }
}
