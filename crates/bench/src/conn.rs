//! A sans-IO MySQL client connection: bytes in, events out; requests in, bytes out.
//!
//! [`ClientConn`] follows one connection through the login (greeting, native-password
//! response, optional auth switch, OK) and then through one request at a time. It never
//! touches a socket: the caller reads into [`ClientConn::read_buf`] / [`ClientConn::advance`],
//! writes [`ClientConn::output`] and reports [`ClientConn::consume`]. [`ClientConn::poll`]
//! turns whatever complete packets have arrived into [`Event`]s. The same machine runs
//! under the mio event loop ([`crate::driver`]) and under the blocking [`SyncClient`] used
//! for set-up, status queries and checks.
//!
//! Result sets of binary (prepared) executes are only counted, like sysbench does; rows of
//! a text query are kept as strings when the request asks for them.

use cohort_protocol::{
    encode_execute, encode_prepare, encode_query, AuthSwitchRequest, Cell, ColumnDefinition,
    Handshake, HandshakeResponse, PacketReader, PacketWriter, ResponseDecoder, ResponseEvent,
};
use std::fmt;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Largest response payload the client accepts.
const MAX_PAYLOAD: usize = 64 * 1024 * 1024;

/// Login parameters.
#[derive(Clone, Debug)]
pub struct Login {
    pub user: String,
    pub password: String,
    pub database: Option<String>,
}

/// What a finished request produced.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    Ok {
        affected_rows: u64,
        last_insert_id: u64,
        status: u16,
    },
    Err(ServerError),
    /// A result set: number of rows, and the rows themselves if they were asked for.
    Rows {
        count: u64,
        columns: Vec<String>,
        rows: Vec<Vec<Option<String>>>,
    },
    Prepared {
        stmt_id: u32,
        params: u16,
        columns: u16,
    },
}

/// An ERR packet from the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerError {
    pub code: u16,
    pub sqlstate: String,
    pub message: String,
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code, self.sqlstate, self.message
        )
    }
}

/// What [`ClientConn::poll`] reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Login succeeded; requests may be sent.
    Ready,
    /// The request in flight finished.
    Done(Response),
}

/// Why the connection cannot go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnError {
    /// The server refused the login (or another error during the handshake).
    Login(ServerError),
    /// Bytes that do not follow the protocol.
    Protocol(String),
    /// A request was made in the wrong state (a bug in the caller).
    Busy,
}

impl fmt::Display for ConnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnError::Login(e) => write!(f, "login failed: {e}"),
            ConnError::Protocol(m) => write!(f, "protocol error: {m}"),
            ConnError::Busy => write!(f, "request sent while another is in flight"),
        }
    }
}

impl std::error::Error for ConnError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Greeting,
    Auth,
    Ready,
    /// A request is in flight.
    Busy {
        capture: bool,
        prepare: bool,
    },
    Closed,
}

/// The client side of one connection.
pub struct ClientConn {
    state: State,
    login: Login,
    reader: PacketReader,
    writer: PacketWriter,
    decoder: ResponseDecoder,
    caps: u32,
    server_version: String,
    connection_id: u32,
    // Current result set.
    rows: u64,
    column_count: usize,
    columns: Vec<String>,
    data: Vec<Vec<Option<String>>>,
    prepared: Option<(u32, u16, u16)>,
}

impl ClientConn {
    /// A connection waiting for the server's greeting.
    pub fn new(login: Login) -> ClientConn {
        let mut reader = PacketReader::new(MAX_PAYLOAD);
        reader.set_next_seq(0);
        ClientConn {
            state: State::Greeting,
            login,
            reader,
            writer: PacketWriter::new(),
            decoder: ResponseDecoder::new(),
            caps: 0,
            server_version: String::new(),
            connection_id: 0,
            rows: 0,
            column_count: 0,
            columns: Vec::new(),
            data: Vec::new(),
            prepared: None,
        }
    }

    pub fn server_version(&self) -> &str {
        &self.server_version
    }

    pub fn connection_id(&self) -> u32 {
        self.connection_id
    }

    /// True once the server's greeting has arrived.
    pub fn greeted(&self) -> bool {
        self.state != State::Greeting
    }

    /// True when logged in with no request in flight.
    pub fn is_ready(&self) -> bool {
        self.state == State::Ready
    }

    /// Space to read received bytes into; report the count with [`ClientConn::advance`].
    pub fn read_buf(&mut self, min: usize) -> &mut [u8] {
        self.reader.read_buf(min)
    }

    pub fn advance(&mut self, n: usize) {
        self.reader.advance(n);
    }

    /// Appends received bytes (copying; [`ClientConn::read_buf`] avoids the copy).
    pub fn feed(&mut self, bytes: &[u8]) {
        self.reader.feed(bytes);
    }

    /// Bytes waiting to be sent.
    pub fn output(&self) -> &[u8] {
        self.writer.bytes()
    }

    /// `n` bytes of [`ClientConn::output`] were sent.
    pub fn consume(&mut self, n: usize) {
        if n >= self.writer.len() {
            self.writer.clear();
        } else {
            self.writer.consume(n);
        }
    }

    fn start(&mut self, capture: bool, prepare: bool) -> Result<(), ConnError> {
        if self.state != State::Ready {
            return Err(ConnError::Busy);
        }
        self.state = State::Busy { capture, prepare };
        self.decoder = if prepare {
            ResponseDecoder::for_prepare()
        } else {
            ResponseDecoder::new()
        };
        self.rows = 0;
        self.column_count = 0;
        self.columns.clear();
        self.data.clear();
        self.prepared = None;
        self.writer.set_seq(0);
        Ok(())
    }

    fn sent(&mut self) {
        self.reader.set_next_seq(self.writer.seq());
    }

    /// Sends COM_QUERY. With `capture`, result rows are kept (as text).
    pub fn query(&mut self, sql: &str, capture: bool) -> Result<(), ConnError> {
        self.start(capture, false)?;
        self.writer.write_with(|out| encode_query(out, sql));
        self.sent();
        Ok(())
    }

    /// Sends COM_QUERY with the text already in bytes.
    pub fn query_bytes(&mut self, sql: &[u8]) -> Result<(), ConnError> {
        self.start(false, false)?;
        self.writer.write_with(|out| {
            out.push(cohort_protocol::command_code::QUERY);
            out.extend_from_slice(sql);
        });
        self.sent();
        Ok(())
    }

    /// Sends COM_STMT_PREPARE; the answer is [`Response::Prepared`] or an error.
    pub fn prepare(&mut self, sql: &str) -> Result<(), ConnError> {
        self.start(false, true)?;
        self.writer.write_with(|out| encode_prepare(out, sql));
        self.sent();
        Ok(())
    }

    /// Sends COM_STMT_EXECUTE; `send_types` on the first execute of a statement.
    pub fn execute(
        &mut self,
        stmt_id: u32,
        params: &[Cell],
        send_types: bool,
    ) -> Result<(), ConnError> {
        self.start(false, false)?;
        self.writer
            .write_with(|out| encode_execute(out, stmt_id, params, send_types));
        self.sent();
        Ok(())
    }

    /// Queues COM_QUIT; the connection is closed afterwards.
    pub fn quit(&mut self) {
        self.writer.set_seq(0);
        self.writer
            .write_with(|out| out.push(cohort_protocol::command_code::QUIT));
        self.state = State::Closed;
    }

    /// Processes the packets received so far; `Ok(None)` when more bytes are needed.
    pub fn poll(&mut self) -> Result<Option<Event>, ConnError> {
        loop {
            let state = self.state;
            if matches!(state, State::Ready | State::Closed) {
                return Ok(None);
            }
            let packet = match self.reader.next_packet() {
                Ok(Some(p)) => p,
                Ok(None) => return Ok(None),
                Err(e) => return Err(ConnError::Protocol(e.to_string())),
            };
            let seq = packet.next_seq();
            // Copy out what we need so the reader can be borrowed again.
            let payload = packet.payload;
            match state {
                State::Greeting => {
                    if payload.first() == Some(&0xFF) {
                        // Refused before the greeting (1040 Too many connections, …).
                        self.state = State::Closed;
                        return Err(ConnError::Login(parse_err(payload)?));
                    }
                    let hs = Handshake::parse(payload)
                        .map_err(|e| ConnError::Protocol(format!("greeting: {e}")))?;
                    self.server_version = hs.server_version.clone();
                    self.connection_id = hs.connection_id;
                    let resp = HandshakeResponse::native(
                        &self.login.user,
                        &self.login.password,
                        self.login.database.as_deref(),
                        &hs,
                    );
                    self.caps = resp.capabilities;
                    self.writer.set_seq(seq);
                    self.writer.write_with(|out| resp.encode(out));
                    self.reader.set_next_seq(self.writer.seq());
                    self.state = State::Auth;
                }
                State::Auth => match payload.first() {
                    Some(0x00) => {
                        self.state = State::Ready;
                        return Ok(Some(Event::Ready));
                    }
                    Some(0xFF) => {
                        let e = parse_err(payload)?;
                        self.state = State::Closed;
                        return Err(ConnError::Login(e));
                    }
                    Some(0xFE) => {
                        let sw = AuthSwitchRequest::parse(payload)
                            .map_err(|e| ConnError::Protocol(format!("auth switch: {e}")))?;
                        if sw.plugin != cohort_protocol::NATIVE_PASSWORD_PLUGIN {
                            return Err(ConnError::Protocol(format!(
                                "server wants auth plugin {}; only mysql_native_password is supported",
                                sw.plugin
                            )));
                        }
                        let scramble = sw.scramble();
                        let token = if self.login.password.is_empty() || scramble.len() < 20 {
                            Vec::new()
                        } else {
                            let mut s = [0u8; 20];
                            s.copy_from_slice(&scramble[..20]);
                            cohort_protocol::scramble_native(&self.login.password, &s).to_vec()
                        };
                        self.writer.set_seq(seq);
                        self.writer.write_payload(&token);
                        self.reader.set_next_seq(self.writer.seq());
                    }
                    _ => {
                        return Err(ConnError::Protocol(format!(
                            "unexpected packet during login (first byte {:#04x})",
                            payload.first().copied().unwrap_or(0)
                        )))
                    }
                },
                State::Busy { capture, prepare } => {
                    let ev = self
                        .decoder
                        .decode(payload)
                        .map_err(|e| ConnError::Protocol(e.to_string()))?;
                    match ev {
                        ResponseEvent::Ok(ok) => {
                            if self.decoder.is_done() {
                                self.state = State::Ready;
                                return Ok(Some(Event::Done(Response::Ok {
                                    affected_rows: ok.affected_rows,
                                    last_insert_id: ok.last_insert_id,
                                    status: ok.status,
                                })));
                            }
                        }
                        ResponseEvent::Err(err) => {
                            let e = ServerError {
                                code: err.code,
                                sqlstate: String::from_utf8_lossy(&err.sqlstate).into_owned(),
                                message: err.message_text(),
                            };
                            self.state = State::Ready;
                            return Ok(Some(Event::Done(Response::Err(e))));
                        }
                        ResponseEvent::ColumnCount(n) => {
                            self.column_count = n as usize;
                        }
                        ResponseEvent::Column(c) => {
                            if capture && !prepare {
                                let name = ColumnDefinition::parse(c)
                                    .map(|d| d.name.to_string())
                                    .unwrap_or_default();
                                self.columns.push(name);
                            }
                        }
                        ResponseEvent::Row(row) => {
                            self.rows += 1;
                            if capture {
                                let fields =
                                    cohort_protocol::parse_text_row(row, self.column_count)
                                        .map_err(|e| ConnError::Protocol(format!("row: {e}")))?;
                                self.data.push(
                                    fields
                                        .into_iter()
                                        .map(|f| f.map(|b| String::from_utf8_lossy(b).into_owned()))
                                        .collect(),
                                );
                            }
                        }
                        ResponseEvent::RowsEnd(_) => {
                            if self.decoder.is_done() {
                                self.state = State::Ready;
                                return Ok(Some(Event::Done(Response::Rows {
                                    count: self.rows,
                                    columns: std::mem::take(&mut self.columns),
                                    rows: std::mem::take(&mut self.data),
                                })));
                            }
                        }
                        ResponseEvent::PrepareOk(p) => {
                            self.prepared = Some((p.stmt_id, p.num_params, p.num_columns));
                        }
                        ResponseEvent::ColumnsEnd(_)
                        | ResponseEvent::Param(_)
                        | ResponseEvent::ParamsEnd(_) => {}
                    }
                    if prepare && self.decoder.is_done() {
                        if let Some((stmt_id, params, columns)) = self.prepared {
                            self.state = State::Ready;
                            return Ok(Some(Event::Done(Response::Prepared {
                                stmt_id,
                                params,
                                columns,
                            })));
                        }
                    }
                }
                State::Ready | State::Closed => unreachable!(),
            }
        }
    }
}

fn parse_err(payload: &[u8]) -> Result<ServerError, ConnError> {
    let e = cohort_protocol::ErrPacket::parse(payload)
        .map_err(|e| ConnError::Protocol(e.to_string()))?;
    Ok(ServerError {
        code: e.code,
        sqlstate: String::from_utf8_lossy(&e.sqlstate).into_owned(),
        message: e.message_text(),
    })
}

/// Capability flags in force on this connection (client's masked with the server's).
impl ClientConn {
    pub fn capabilities(&self) -> u32 {
        self.caps
    }

    pub fn has_capability(&self, flag: u32) -> bool {
        self.caps & flag != 0
    }
}

/// A blocking client over [`ClientConn`]: for set-up, checks and status queries.
pub struct SyncClient {
    stream: TcpStream,
    conn: ClientConn,
}

/// Errors of the blocking client.
#[derive(Debug)]
pub enum ClientError {
    Io(std::io::Error),
    Conn(ConnError),
    Server(ServerError),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Io(e) => write!(f, "{e}"),
            ClientError::Conn(e) => write!(f, "{e}"),
            ClientError::Server(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl ClientError {
    /// The server's error code, if the server answered with an error.
    pub fn code(&self) -> Option<u16> {
        match self {
            ClientError::Server(e) | ClientError::Conn(ConnError::Login(e)) => Some(e.code),
            _ => None,
        }
    }
}

impl From<std::io::Error> for ClientError {
    fn from(e: std::io::Error) -> Self {
        ClientError::Io(e)
    }
}

impl From<ConnError> for ClientError {
    fn from(e: ConnError) -> Self {
        ClientError::Conn(e)
    }
}

impl SyncClient {
    /// Connects and logs in.
    pub fn connect(url: &crate::url::DbUrl) -> Result<SyncClient, ClientError> {
        let addr = url
            .socket_addr()
            .map_err(|e| ClientError::Io(std::io::Error::other(e)))?;
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(10))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(600)))?;
        let mut c = SyncClient {
            stream,
            conn: ClientConn::new(Login {
                user: url.user.clone(),
                password: url.password.clone(),
                database: url.database.clone(),
            }),
        };
        match c.wait()? {
            Event::Ready => Ok(c),
            Event::Done(_) => Err(ConnError::Protocol("response before login".into()).into()),
        }
    }

    pub fn server_version(&self) -> &str {
        self.conn.server_version()
    }

    pub fn connection_id(&self) -> u32 {
        self.conn.connection_id()
    }

    fn flush(&mut self) -> Result<(), ClientError> {
        let out = self.conn.output();
        if !out.is_empty() {
            self.stream.write_all(out)?;
            let n = out.len();
            self.conn.consume(n);
        }
        Ok(())
    }

    fn wait(&mut self) -> Result<Event, ClientError> {
        loop {
            self.flush()?;
            if let Some(ev) = self.conn.poll()? {
                self.flush()?;
                return Ok(ev);
            }
            self.flush()?;
            let buf = self.conn.read_buf(64 * 1024);
            let n = self.stream.read(buf)?;
            if n == 0 {
                return Err(ClientError::Io(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "server closed the connection",
                )));
            }
            self.conn.advance(n);
        }
    }

    fn response(&mut self) -> Result<Response, ClientError> {
        match self.wait()? {
            Event::Done(Response::Err(e)) => Err(ClientError::Server(e)),
            Event::Done(r) => Ok(r),
            Event::Ready => Err(ConnError::Protocol("unexpected login event".into()).into()),
        }
    }

    /// Runs a statement; a server error is an `Err`.
    pub fn execute(&mut self, sql: &str) -> Result<Response, ClientError> {
        self.conn.query(sql, false)?;
        self.response()
    }

    /// Runs a query and returns its rows as text.
    pub fn query(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, ClientError> {
        self.conn.query(sql, true)?;
        match self.response()? {
            Response::Rows { rows, .. } => Ok(rows),
            _ => Ok(Vec::new()),
        }
    }

    /// The first column of the first row.
    pub fn query_value(&mut self, sql: &str) -> Result<Option<String>, ClientError> {
        Ok(self
            .query(sql)?
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten()))
    }

    /// Name/value pairs of a two-column result (`SHOW GLOBAL STATUS`, `SHOW VARIABLES`).
    pub fn query_pairs(&mut self, sql: &str) -> Result<Vec<(String, String)>, ClientError> {
        Ok(self
            .query(sql)?
            .into_iter()
            .filter_map(|r| {
                let mut it = r.into_iter();
                let k = it.next().flatten()?;
                let v = it.next().flatten().unwrap_or_default();
                Some((k, v))
            })
            .collect())
    }

    /// Sends COM_QUIT and closes.
    pub fn close(mut self) {
        self.conn.quit();
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_protocol::{
        charset, scramble_from_random, ColumnType, HandshakeResponse as HR, OkPacket, PacketWriter,
    };

    fn login() -> Login {
        Login {
            user: "sb".into(),
            password: "sb".into(),
            database: Some("sbtest".into()),
        }
    }

    /// The server side of a conversation, written with the protocol crate's encoders.
    fn greeting() -> (Vec<u8>, [u8; 20]) {
        let scramble = scramble_from_random([7; 20]);
        let hs = Handshake::new("8.0.36-test", 42, scramble);
        let mut w = PacketWriter::new();
        w.write_with(|o| hs.encode(o));
        (w.take(), scramble)
    }

    fn take_packets(conn: &mut ClientConn) -> Vec<(u8, Vec<u8>)> {
        let mut r = PacketReader::new(1 << 20);
        let bytes = conn.output().to_vec();
        conn.consume(bytes.len());
        if let Some(&seq) = bytes.get(3) {
            r.set_next_seq(seq);
        }
        r.feed(&bytes);
        let mut out = Vec::new();
        loop {
            r.set_next_seq(r.next_seq());
            match r.next_packet() {
                Ok(Some(p)) => out.push((p.seq, p.payload.to_vec())),
                _ => break,
            }
        }
        out
    }

    fn logged_in() -> ClientConn {
        let mut c = ClientConn::new(login());
        let (g, _) = greeting();
        c.feed(&g);
        assert_eq!(c.poll().unwrap(), None);
        let _ = take_packets(&mut c);
        let mut w = PacketWriter::new();
        w.set_seq(2);
        w.write_ok(&OkPacket::new(2));
        c.feed(w.bytes());
        assert_eq!(c.poll().unwrap(), Some(Event::Ready));
        c
    }

    #[test]
    fn logs_in_with_native_password() {
        let mut c = ClientConn::new(login());
        assert_eq!(c.poll().unwrap(), None);
        let (g, scramble) = greeting();
        // Bytes may arrive in pieces.
        c.feed(&g[..5]);
        assert_eq!(c.poll().unwrap(), None);
        c.feed(&g[5..]);
        assert_eq!(c.poll().unwrap(), None);
        assert_eq!(c.server_version(), "8.0.36-test");
        assert_eq!(c.connection_id(), 42);
        let sent = take_packets(&mut c);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].0, 1, "handshake response has sequence id 1");
        let resp = HR::parse(&sent[0].1).unwrap();
        assert_eq!(resp.user, "sb");
        assert_eq!(resp.database.as_deref(), Some("sbtest"));
        let stored = cohort_protocol::native_password_hash("sb");
        assert!(cohort_protocol::check_native(
            &stored,
            &scramble,
            &resp.auth_response
        ));
        let mut w = PacketWriter::new();
        w.set_seq(2);
        w.write_ok(&OkPacket::new(2));
        c.feed(w.bytes());
        assert_eq!(c.poll().unwrap(), Some(Event::Ready));
        assert!(c.is_ready());
    }

    #[test]
    fn follows_an_auth_switch_and_reports_login_errors() {
        let mut c = ClientConn::new(login());
        let (g, _) = greeting();
        c.feed(&g);
        c.poll().unwrap();
        take_packets(&mut c);
        let scramble = scramble_from_random([9; 20]);
        let mut w = PacketWriter::new();
        w.set_seq(2);
        w.write_with(|o| AuthSwitchRequest::native(&scramble).encode(o));
        c.feed(w.bytes());
        assert_eq!(c.poll().unwrap(), None);
        let sent = take_packets(&mut c);
        assert_eq!(sent[0].0, 3);
        assert_eq!(
            sent[0].1,
            cohort_protocol::scramble_native("sb", &scramble).to_vec()
        );
        let mut w = PacketWriter::new();
        w.set_seq(4);
        w.write_err(cohort_protocol::ErrorCode::AccessDenied, "Access denied");
        c.feed(w.bytes());
        match c.poll() {
            Err(ConnError::Login(e)) => assert_eq!(e.code, 1045),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn prepare_execute_and_result_sets_against_scripted_bytes() {
        let mut c = logged_in();
        c.prepare("SELECT c FROM sbtest1 WHERE id=?").unwrap();
        let sent = take_packets(&mut c);
        assert_eq!(sent[0].1[0], 0x16);
        assert!(c.execute(1, &[], false).is_err(), "one request at a time");
        let cols = [ColumnDefinition::simple(
            "c",
            ColumnType::STRING,
            charset::UTF8MB4_GENERAL_CI,
            480,
        )];
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_prepare_ok(3, 1, &cols, 0, 2);
        // Deliver byte by byte: the machine must not care how bytes are split.
        for b in w.bytes().to_vec() {
            c.feed(&[b]);
            if let Some(ev) = c.poll().unwrap() {
                assert_eq!(
                    ev,
                    Event::Done(Response::Prepared {
                        stmt_id: 3,
                        params: 1,
                        columns: 1
                    })
                );
            }
        }
        assert!(c.is_ready());

        c.execute(3, &[Cell::Int(6)], true).unwrap();
        let sent = take_packets(&mut c);
        assert_eq!(
            sent[0].1,
            [0x17, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 8, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        );
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_result_set_start(&cols, 3);
        w.write_binary_row(&cols, &[Cell::str("x")]).unwrap();
        w.write_binary_row(&cols, &[Cell::str("y")]).unwrap();
        w.write_result_set_end(0, 3);
        c.feed(w.bytes());
        match c.poll().unwrap() {
            Some(Event::Done(Response::Rows { count, rows, .. })) => {
                assert_eq!(count, 2);
                assert!(rows.is_empty(), "binary rows are only counted");
            }
            other => panic!("{other:?}"),
        }

        c.query("SHOW GLOBAL STATUS", true).unwrap();
        take_packets(&mut c);
        let cols = [
            ColumnDefinition::simple("Variable_name", ColumnType::VAR_STRING, 45, 256),
            ColumnDefinition::simple("Value", ColumnType::VAR_STRING, 45, 256),
        ];
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_result_set_start(&cols, 2);
        w.write_text_row(&cols, &[Cell::str("Binlog_commits"), Cell::str("17")])
            .unwrap();
        w.write_text_row(&cols, &[Cell::str("Uptime"), Cell::Null])
            .unwrap();
        w.write_result_set_end(0, 2);
        c.feed(w.bytes());
        match c.poll().unwrap() {
            Some(Event::Done(Response::Rows {
                count,
                columns,
                rows,
            })) => {
                assert_eq!(count, 2);
                assert_eq!(columns, ["Variable_name", "Value"]);
                assert_eq!(rows[0], [Some("Binlog_commits".into()), Some("17".into())]);
                assert_eq!(rows[1], [Some("Uptime".into()), None]);
            }
            other => panic!("{other:?}"),
        }

        c.query("UPDATE sbtest1 SET k=k+1 WHERE id=5", false)
            .unwrap();
        take_packets(&mut c);
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_err(cohort_protocol::ErrorCode::LockDeadlock, "Deadlock found");
        c.feed(w.bytes());
        match c.poll().unwrap() {
            Some(Event::Done(Response::Err(e))) => assert_eq!(e.code, 1213),
            other => panic!("{other:?}"),
        }
        c.query("COMMIT", false).unwrap();
        take_packets(&mut c);
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_ok(&OkPacket {
            affected_rows: 1,
            last_insert_id: 9,
            status: 2,
            ..OkPacket::default()
        });
        c.feed(w.bytes());
        assert_eq!(
            c.poll().unwrap(),
            Some(Event::Done(Response::Ok {
                affected_rows: 1,
                last_insert_id: 9,
                status: 2
            }))
        );
    }

    #[test]
    fn garbage_is_a_protocol_error() {
        let mut c = logged_in();
        c.query("SELECT 1", false).unwrap();
        take_packets(&mut c);
        c.feed(&[1, 0, 0, 7, 0]); // wrong sequence id
        assert!(matches!(c.poll(), Err(ConnError::Protocol(_))));
    }
}
