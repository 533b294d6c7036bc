//! Dumps against a server on the simulated log device, read by a test client over a socket
//! pair. What a real MariaDB 10.11 primary sends was captured (see the module doc); the
//! interop suite (`tests/interop/replication.sh`) runs real replicas and CDC clients.

use super::socket::DumpSocket;
use super::{DumpRequest, ReplicaVars};
use crate::log::device::{LogDir, SimDir};
use crate::log::tests::{context_on, run, setup};
use crate::session::{ServerContext, SessionState};
use crate::types::Value;
use cohort_binlog::{EventType, HEADER_LEN};
use cohort_protocol::replication::{dump_flags, BinlogDump, SemiSyncAck};
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The dump's end of a socket pair.
struct TestSocket(UnixStream);

impl DumpSocket for TestSocket {
    fn write_all(&mut self, b: &[u8]) -> io::Result<()> {
        self.0.write_all(b)
    }
    fn reader(&self) -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(self.0.try_clone()?))
    }
    fn shutdown(&self) {
        let _ = self.0.shutdown(std::net::Shutdown::Both);
    }
}

/// One packet of a dump, as the client sees it.
#[derive(Debug, Clone)]
enum Got {
    Event(Ev),
    Eof,
    Err(u16, String),
    Closed,
    Idle,
}

#[derive(Debug, Clone)]
struct Ev {
    seq: u8,
    /// Semi-sync: the ack flag (None without the header).
    ack: Option<u8>,
    t: EventType,
    timestamp: u32,
    flags: u16,
    next_pos: u32,
    body: Vec<u8>,
    bytes: Vec<u8>,
}

impl Ev {
    fn name(&self) -> &'static str {
        self.t.name()
    }
}

/// The replica side.
struct Client {
    s: UnixStream,
    buf: Vec<u8>,
}

impl Client {
    fn read_exact(&mut self, n: usize, timeout: Duration) -> Option<Vec<u8>> {
        let deadline = Instant::now() + timeout;
        while self.buf.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            self.s.set_read_timeout(Some(left)).unwrap();
            let mut chunk = [0u8; 65536];
            match self.s.read(&mut chunk) {
                Ok(0) => return Some(Vec::new()),
                Ok(k) => self.buf.extend_from_slice(&chunk[..k]),
                Err(e)
                    if e.kind() == io::ErrorKind::WouldBlock
                        || e.kind() == io::ErrorKind::TimedOut =>
                {
                    return None
                }
                Err(_) => return Some(Vec::new()),
            }
        }
        Some(self.buf.drain(..n).collect())
    }

    fn next(&mut self, timeout: Duration) -> Got {
        let Some(h) = self.read_exact(4, timeout) else {
            return Got::Idle;
        };
        if h.is_empty() {
            return Got::Closed;
        }
        let n = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
        let Some(p) = self.read_exact(n, Duration::from_secs(10)) else {
            return Got::Idle;
        };
        match p[0] {
            0xff => Got::Err(
                u16::from_le_bytes([p[1], p[2]]),
                String::from_utf8_lossy(&p[9..]).into_owned(),
            ),
            0xfe if p.len() < 9 => Got::Eof,
            _ => {
                let (ack, e) = if p.get(1) == Some(&0xef) {
                    (Some(p[2]), &p[3..])
                } else {
                    (None, &p[1..])
                };
                let u32_at = |i: usize| u32::from_le_bytes(e[i..i + 4].try_into().unwrap());
                Got::Event(Ev {
                    seq: h[3],
                    ack,
                    t: EventType(e[4]),
                    timestamp: u32_at(0),
                    flags: u16::from_le_bytes([e[17], e[18]]),
                    next_pos: u32_at(13),
                    body: e[HEADER_LEN..].to_vec(),
                    bytes: e.to_vec(),
                })
            }
        }
    }

    fn event(&mut self) -> Ev {
        match self.next(Duration::from_secs(10)) {
            Got::Event(e) => e,
            other => panic!("expected an event, got {other:?}"),
        }
    }

    /// Events up to the end (EOF or ERR) or until nothing comes for `idle`.
    fn all(&mut self, idle: Duration) -> (Vec<Ev>, Got) {
        let mut out = Vec::new();
        loop {
            match self.next(idle) {
                Got::Event(e) => out.push(e),
                end => return (out, end),
            }
        }
    }

    fn send(&mut self, payload: &[u8]) {
        let mut b = Vec::new();
        cohort_protocol::write_packet(&mut b, &mut 0, payload);
        self.s.write_all(&b).unwrap();
    }

    fn ack(&mut self, file: &str, pos: u64) {
        let mut p = Vec::new();
        SemiSyncAck {
            pos,
            file: file.into(),
        }
        .encode(&mut p);
        self.send(&p);
    }
}

fn replica() -> ReplicaVars {
    ReplicaVars {
        checksum: Some("CRC32".into()),
        capability: 4,
        ..ReplicaVars::default()
    }
}

/// Start a dump on its own thread; returns the client end.
/// A dump on a connection id of its own: the registry forgets a dump by its connection id, so
/// two dumps sharing one (the next starting while the last is still ending) would let
/// `wait_for_no_dump` return while the later one still reads.
fn dump(ctx: &Arc<ServerContext>, file: &str, pos: u32, flags: u16, vars: ReplicaVars) -> Client {
    static NEXT_CONN: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1000);
    let conn_id = NEXT_CONN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    dump_as(ctx, conn_id, 100, file, pos, flags, vars)
}

fn dump_as(
    ctx: &Arc<ServerContext>,
    conn_id: u32,
    server_id: u32,
    file: &str,
    pos: u32,
    flags: u16,
    vars: ReplicaVars,
) -> Client {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let req = DumpRequest {
        conn_id,
        user: "root".into(),
        host: "127.0.0.1".into(),
        command: BinlogDump {
            pos,
            flags,
            server_id,
            file: file.into(),
        },
        vars,
        unread: Vec::new(),
        tls: None,
    };
    super::spawn(
        ctx.clone(),
        req,
        Box::new(TestSocket(theirs)),
        Vec::new(),
        None,
    );
    Client {
        s: ours,
        buf: Vec::new(),
    }
}

fn names(evs: &[Ev]) -> Vec<&'static str> {
    evs.iter().map(Ev::name).collect()
}

/// A server with `d.t` and `rows` inserted rows (one transaction each).
fn server(rows: usize) -> (SimDir, Arc<ServerContext>, SessionState) {
    let dir = SimDir::new();
    let ctx = Arc::new(context_on(&dir));
    let mut s = setup(&ctx);
    for i in 0..rows {
        run(&ctx, &mut s, &format!("INSERT INTO d.t VALUES ({i}, 'x')")).unwrap();
    }
    (dir, ctx, s)
}

const NB: u16 = dump_flags::NON_BLOCK;

/// Until the dump threads have ended (a non-blocking dump ends just after its EOF).
fn wait_for_no_dump(ctx: &ServerContext) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while ctx.replication.running_dumps() > 0 {
        assert!(Instant::now() < deadline, "a dump did not end");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_file_dump_opens_as_mariadbs_and_ends_with_eof_when_non_blocking() {
    let (_, ctx, _) = server(2);
    let mut c = dump(&ctx, "binlog.000001", 4, NB, replica());
    let (evs, end) = c.all(Duration::from_secs(10));
    assert!(matches!(end, Got::Eof), "{end:?}");
    assert_eq!(
        names(&evs),
        [
            "Rotate",
            "Format_desc",
            "Gtid_list",
            "Binlog_checkpoint",
            "Gtid",
            "Query",
            "Gtid",
            "Query",
            "Gtid",
            "Table_map",
            "Write_rows_v1",
            "Xid",
            "Gtid",
            "Table_map",
            "Write_rows_v1",
            "Xid"
        ],
        "Annotate_rows are in the file but were not asked for"
    );
    // The fake Rotate: timestamp 0, LOG_EVENT_ARTIFICIAL_F, next_pos 0, position 4 + name.
    let r = &evs[0];
    assert_eq!((r.timestamp, r.flags, r.next_pos), (0, 0x20, 0));
    assert_eq!(&r.body[..8], &4u64.to_le_bytes());
    assert_eq!(&r.body[8..r.body.len() - 4], b"binlog.000001");
    // The Format_description: in-use flag cleared (the file is being written), next_pos kept
    // from position 4, its checksum still valid.
    let fde = &evs[1];
    assert_eq!(fde.flags & 1, 0);
    assert_eq!(fde.next_pos, 4 + fde.bytes.len() as u32);
    let n = fde.bytes.len();
    let crc = u32::from_le_bytes(fde.bytes[n - 4..].try_into().unwrap());
    assert_eq!(cohort_binlog::event_crc32(&fde.bytes[..n - 4]), crc);
    assert_eq!(
        &fde.body[2..2 + crate::VERSION.len()],
        crate::VERSION.as_bytes()
    );
    // Sequence ids continue from the command's.
    assert_eq!(
        evs.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=evs.len() as u8).collect::<Vec<_>>()
    );
}

/// A session logged in as `user` (password `pw`), as a client's.
fn login(ctx: &Arc<ServerContext>, conn_id: u32, user: &str, pw: &str) -> crate::session::Session {
    use cohort_protocol::{write_packet, Handshake, HandshakeResponse, PacketReader};
    let (mut s, greeting) =
        crate::session::Session::start(ctx.clone(), conn_id, "127.0.0.1".into(), false);
    let mut reader = PacketReader::new(1 << 24);
    reader.feed(&greeting);
    let hs = Handshake::parse(reader.next_packet().unwrap().unwrap().payload).unwrap();
    let mut payload = Vec::new();
    HandshakeResponse::native(user, pw, None, &hs).encode(&mut payload);
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 1, &payload);
    let mut out = Vec::new();
    assert_eq!(
        s.on_bytes(&bytes, &mut out),
        crate::session::Flow::Authenticated
    );
    s
}

/// Send one command payload; returns the flow and the first packet's payload.
fn command(s: &mut crate::session::Session, payload: &[u8]) -> (crate::session::Flow, Vec<u8>) {
    let mut bytes = Vec::new();
    cohort_protocol::write_packet(&mut bytes, &mut 0, payload);
    let mut out = Vec::new();
    let flow = s.on_bytes(&bytes, &mut out);
    let first = if out.len() >= 4 {
        let n = u32::from_le_bytes([out[0], out[1], out[2], 0]) as usize;
        out[4..4 + n].to_vec()
    } else {
        Vec::new()
    };
    (flow, first)
}

/// ERR packet → (code, message).
fn err_of(p: &[u8]) -> (u16, String) {
    assert_eq!(p[0], 0xff, "{p:?}");
    (
        u16::from_le_bytes([p[1], p[2]]),
        String::from_utf8_lossy(&p[9..]).into_owned(),
    )
}

/// Run `sql` through a logged-in session, as a client would (statement texts are kept for
/// Annotate_rows by the session).
fn client_query(ctx: &Arc<ServerContext>, sql: &str) {
    let mut s = login(ctx, 50, "root", "");
    let mut q = Vec::new();
    cohort_protocol::encode_query(&mut q, sql);
    let (_, first) = command(&mut s, &q);
    assert_eq!(first[0], 0, "{sql}: {:?}", String::from_utf8_lossy(&first));
}

/// MariaDB 10.11's answers to a user granted `ALL ON d.*` only.
#[test]
fn replication_commands_need_mariadbs_privileges() {
    let (_, ctx, _) = server(0);
    ctx.accounts.create_user("u1", "%", "p", false).unwrap();
    ctx.accounts.grant_all("u1", "%", Some("d")).unwrap();
    let mut s = login(&ctx, 60, "u1", "p");
    let mut reg = vec![0x15];
    cohort_protocol::replication::RegisterSlave {
        server_id: 5,
        host: String::new(),
        user: String::new(),
        password: Vec::new(),
        port: 3333,
        rank: 0,
        master_id: 0,
    }
    .encode(&mut reg);
    let (_, p) = command(&mut s, &reg);
    assert_eq!(
        err_of(&p),
        (
            1045,
            "Access denied for user 'u1'@'%' (using password: YES)".into()
        )
    );
    let mut dump = vec![0x12];
    BinlogDump {
        pos: 4,
        flags: 0,
        server_id: 5,
        file: "binlog.000001".into(),
    }
    .encode(&mut dump);
    let (flow, p) = command(&mut s, &dump);
    assert_eq!(flow, crate::session::Flow::Continue);
    assert_eq!(
        err_of(&p),
        (1227, "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this operation".into())
    );
    let mut q = Vec::new();
    cohort_protocol::encode_query(&mut q, "SHOW SLAVE HOSTS");
    let (_, p) = command(&mut s, &q);
    assert_eq!(
        err_of(&p),
        (1227, "Access denied; you need (at least one of) the REPLICATION MASTER ADMIN privilege(s) for this operation".into())
    );
    // MySQL's GTID dump: an unknown command, as MariaDB answers it.
    let (_, p) = command(&mut s, &[0x1e, 0, 0, 5, 0, 0, 0]);
    assert_eq!(err_of(&p), (1047, "Unknown command".into()));
}

/// A registered replica is listed while it streams; its dump takes the connection over.
#[test]
fn a_registered_replica_is_listed_while_its_dump_runs() {
    let (_, ctx, mut s) = server(0);
    let mut sess = login(&ctx, 61, "root", "");
    let mut reg = vec![0x15];
    cohort_protocol::replication::RegisterSlave {
        server_id: 5,
        host: String::new(),
        user: String::new(),
        password: Vec::new(),
        port: 3333,
        rank: 0,
        master_id: 0,
    }
    .encode(&mut reg);
    let (_, p) = command(&mut sess, &reg);
    assert_eq!(p[0], 0, "OK");
    let hosts = |s: &mut SessionState| match run(&ctx, s, "SHOW REPLICA HOSTS").unwrap() {
        crate::sql::QueryResult::Rows { rows, .. } => rows,
        _ => panic!(),
    };
    assert!(hosts(&mut s).is_empty(), "not streaming yet");
    let mut q = Vec::new();
    cohort_protocol::encode_query(&mut q, "SET @mariadb_slave_capability = 4");
    command(&mut sess, &q);
    let mut q = Vec::new();
    cohort_protocol::encode_query(
        &mut q,
        "SET @master_binlog_checksum = @@global.binlog_checksum",
    );
    command(&mut sess, &q);
    let mut dump = vec![0x12];
    BinlogDump {
        pos: 4,
        flags: 0,
        server_id: 5,
        file: String::new(),
    }
    .encode(&mut dump);
    let (flow, _) = command(&mut sess, &dump);
    assert_eq!(flow, crate::session::Flow::Dump);
    let req = sess.take_dump().unwrap();
    assert_eq!(req.vars.capability, 4);
    assert_eq!(req.vars.checksum.as_deref(), Some("CRC32"));
    assert_eq!(req.vars.connect_state, None);
    let (ours, theirs) = UnixStream::pair().unwrap();
    super::spawn(
        ctx.clone(),
        req,
        Box::new(TestSocket(theirs)),
        Vec::new(),
        None,
    );
    let mut c = Client {
        s: ours,
        buf: Vec::new(),
    };
    let _ = c.all(Duration::from_millis(50));
    assert_eq!(
        hosts(&mut s),
        vec![vec![
            Value::UInt(5),
            Value::str("127.0.0.1"),
            Value::UInt(3333),
            Value::UInt(1)
        ]]
    );
    drop(c);
    wait_for_no_dump(&ctx);
    assert!(hosts(&mut s).is_empty(), "unregistered with its connection");
}

#[test]
fn annotate_rows_are_sent_only_when_asked_for() {
    let (_, ctx, _) = server(0);
    client_query(&ctx, "INSERT INTO d.t VALUES (0, 'x')");
    let mut c = dump(
        &ctx,
        "binlog.000001",
        4,
        NB | dump_flags::SEND_ANNOTATE_ROWS,
        replica(),
    );
    let (evs, _) = c.all(Duration::from_secs(10));
    let at = evs
        .iter()
        .position(|e| e.t == EventType::ANNOTATE_ROWS)
        .unwrap();
    assert_eq!(
        evs[at].body[..evs[at].body.len() - 4],
        *b"INSERT INTO d.t VALUES (0, 'x')"
    );
    assert_eq!(evs[at + 1].t, EventType::TABLE_MAP);
}

#[test]
fn a_position_past_four_zeroes_the_fde_position_and_created_time() {
    let (_, ctx, _) = server(2);
    let (evs, _) = dump(&ctx, "binlog.000001", 4, NB, replica()).all(Duration::from_secs(10));
    let gtid3 = evs
        .iter()
        .filter(|e| e.t == EventType::GTID)
        .nth(3)
        .unwrap();
    let at = gtid3.next_pos - gtid3.bytes.len() as u32;
    let mut c = dump(&ctx, "binlog.000001", at, NB, replica());
    let (evs, _) = c.all(Duration::from_secs(10));
    assert_eq!(
        names(&evs),
        [
            "Rotate",
            "Format_desc",
            "Gtid",
            "Table_map",
            "Write_rows_v1",
            "Xid"
        ]
    );
    assert_eq!(&evs[0].body[..8], &(at as u64).to_le_bytes());
    assert_eq!(
        evs[1].next_pos, 0,
        "the replica must not move to the FDE's end"
    );
    assert_eq!(&evs[1].body[52..56], &[0, 0, 0, 0], "created");
}

#[test]
fn bad_starts_get_mariadbs_errors() {
    let (_, ctx, _) = server(1);
    let err = |file: &str, pos: u32, vars: ReplicaVars| {
        let (_, end) = dump(&ctx, file, pos, NB, vars).all(Duration::from_secs(10));
        match end {
            Got::Err(code, msg) => (code, msg),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        err("nope.000001", 4, replica()),
        (
            1236,
            "Could not find first log file name in binary log index file".into()
        )
    );
    let size = ctx.pipeline.binlog_end().unwrap().get().end;
    let past = format!(
        "Client requested master to start replication from impossible position; the first event 'binlog.000001' at {}, the last event read from 'binlog.000001' at 4, the last byte read from 'binlog.000001' at 4.",
        size + 1
    );
    assert_eq!(
        err("binlog.000001", size as u32 + 1, replica()),
        (1236, past)
    );
    assert_eq!(
        err("binlog.000001", 5, replica()),
        (1236, "bogus data in log event; the first event 'binlog.000001' at 5, the last event read from 'binlog.000001' at 5, the last byte read from 'binlog.000001' at 24.".into())
    );
    let unaware = ReplicaVars {
        checksum: None,
        ..replica()
    };
    let (code, msg) = err("binlog.000001", 4, unaware);
    assert_eq!(code, 1236);
    assert!(msg.starts_with("Slave can not handle replication events with the checksum that master is configured to log; the first event 'binlog.000001' at 4"), "{msg}");
    let old = ReplicaVars {
        capability: 0,
        ..replica()
    };
    assert_eq!(err("binlog.000001", 4, old).0, 1236);
    let gtid = |state: &str| {
        err(
            "",
            4,
            ReplicaVars {
                connect_state: Some(state.into()),
                ..replica()
            },
        )
    };
    assert_eq!(gtid("junk"), (1941, "Could not parse GTID list".into()));
    assert_eq!(
        gtid("0-1-3,0-1-4"),
        (
            1943,
            "GTID 0-1-4 and 0-1-3 conflict (duplicate domain id 0)".into()
        )
    );
    assert_eq!(
        gtid("0-1-99").1,
        "Error: connecting slave requested to start from GTID 0-1-99, which is not in the master's binlog"
    );
    assert!(gtid("0-2-1")
        .1
        .ends_with("the slave has diverged due to executing extra erroneous transactions"));
}

#[test]
fn gtid_mode_skips_to_the_position_and_then_says_where_it_is() {
    let (_, ctx, mut s) = server(3);
    // GTIDs: 1 CREATE DATABASE, 2 CREATE TABLE, 3..5 the inserts.
    let vars = |state: &str| ReplicaVars {
        connect_state: Some(state.into()),
        ..replica()
    };
    let (evs, end) = dump(&ctx, "", 4, NB, vars("0-1-4")).all(Duration::from_secs(10));
    assert!(matches!(end, Got::Eof));
    assert_eq!(
        names(&evs),
        [
            "Rotate",
            "Format_desc",
            "Gtid_list",
            "Binlog_checkpoint",
            "Gtid_list",
            "Gtid",
            "Table_map",
            "Write_rows_v1",
            "Xid"
        ]
    );
    assert_eq!(
        &evs[1].body[52..56],
        &[0, 0, 0, 0],
        "created: not a fresh start"
    );
    let fake = &evs[4];
    assert_eq!((fake.timestamp, fake.flags), (0, 0x20));
    assert_eq!(&fake.body[..4], &1u32.to_le_bytes());
    assert_eq!(
        &fake.body[12..20],
        &4u64.to_le_bytes(),
        "the replica's position 0-1-4"
    );
    assert_eq!(fake.next_pos, evs[5].next_pos - evs[5].bytes.len() as u32);
    assert_eq!(&evs[5].body[..8], &5u64.to_le_bytes());
    // At the end of the binlog: the fake Gtid_list ends at the end; nothing else.
    let (evs, _) = dump(&ctx, "", 4, NB, vars("0-1-5")).all(Duration::from_secs(10));
    assert_eq!(names(&evs)[4..], ["Gtid_list"]);
    // A domain the binlog does not have: everything, from the first file.
    let (evs, _) = dump(&ctx, "", 4, NB, vars("7-1-5")).all(Duration::from_secs(10));
    assert_eq!(evs.iter().filter(|e| e.t == EventType::GTID).count(), 5);
    // After a rotation the dump starts in the file whose Gtid_list covers the position.
    run(&ctx, &mut s, "FLUSH BINARY LOGS").unwrap();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (100, 'y')").unwrap();
    let (evs, _) = dump(&ctx, "", 4, NB, vars("0-1-5")).all(Duration::from_secs(10));
    assert_eq!(&evs[0].body[8..21], b"binlog.000002");
    assert_eq!(
        names(&evs),
        [
            "Rotate",
            "Format_desc",
            "Gtid_list",
            "Binlog_checkpoint",
            "Gtid",
            "Table_map",
            "Write_rows_v1",
            "Xid"
        ]
    );
    // Files before it purged: an older position is gone. (The dumps above have ended: none
    // holds a file.)
    wait_for_no_dump(&ctx);
    ctx.pipeline
        .with_binlog(|b| b.set_recovery_floor("binlog.000002"));
    run(&ctx, &mut s, "PURGE BINARY LOGS TO 'binlog.000002'").unwrap();
    let (_, end) = dump(&ctx, "", 4, NB, vars("0-1-3")).all(Duration::from_secs(10));
    assert!(
        matches!(&end, Got::Err(1236, m) if m.starts_with("Could not find GTID state requested by slave in any binlog files")),
        "{end:?}"
    );
}

/// What a MariaDB 10.11 replica in GTID mode sends when it reconnects after an interruption
/// inside a group: COM_BINLOG_DUMP with the file and the position it last read (inside the
/// group) *and* `@slave_connect_state`, its last complete GTID. It then counts on the group
/// from its GTID event, and skips the events it already has ("GTID event skip N"). MariaDB
/// ignores the file and position when `@slave_connect_state` is set (captured from 10.11.19:
/// state 0-1-6 with 'binlog.000002' at 1000000, inside 0-1-7, gets exactly what state 0-1-6
/// with no file gets). Streaming from the named position instead starts with the group's
/// middle, and the replica stops with 1595 "The current group of events starts with a non-GTID
/// Write_rows_v1 event" (tests/interop/gtid_reconnect.sh).
///
/// Here the group opens its file (whose Gtid_list is the replica's position: nothing to skip)
/// and the primary restarted after writing it, as in that script: MariaDB sends the fake
/// Rotate to the file at 4, its Format_description as written (`next_pos` kept: the stream
/// starts at the file's beginning), the file's own Gtid_list and Binlog_checkpoint, the whole
/// group, and no fake Gtid_list; then, the file having no Rotate of its own, the next file
/// with a fake Rotate.
#[test]
fn a_gtid_reconnect_inside_a_group_gets_the_group_again_from_its_gtid_event() {
    let (dir, ctx, mut s) = server(2);
    // GTIDs: 1 CREATE DATABASE, 2 CREATE TABLE, 3 and 4 the inserts; 5 opens binlog.000002.
    run(&ctx, &mut s, "FLUSH BINARY LOGS").unwrap();
    run(&ctx, &mut s, "BEGIN").unwrap();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (10, 'a')").unwrap();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (11, 'b')").unwrap();
    run(&ctx, &mut s, "COMMIT").unwrap();
    // The primary restarts (binlog.000003 is opened); binlog.000002 ends without a Rotate.
    let ctx = Arc::new(context_on(&dir.restart_image()));
    let (file, _) = dump(&ctx, "binlog.000002", 4, NB, replica()).all(Duration::from_secs(10));
    assert_eq!(
        names(&file)[..8],
        [
            "Rotate",
            "Format_desc",
            "Gtid_list",
            "Binlog_checkpoint",
            "Gtid",
            "Table_map",
            "Write_rows_v1",
            "Xid"
        ]
    );
    // The replica read the group's GTID and Table_map: it names the Write_rows' position.
    let inside = file[6].next_pos - file[6].bytes.len() as u32;
    let vars = ReplicaVars {
        connect_state: Some("0-1-4".into()),
        ..replica()
    };
    let (evs, end) = dump(&ctx, "binlog.000002", inside, NB, vars).all(Duration::from_secs(10));
    assert!(matches!(end, Got::Eof), "{end:?}");
    assert_eq!(
        names(&evs),
        [
            "Rotate",
            "Format_desc",
            "Gtid_list",
            "Binlog_checkpoint",
            "Gtid",
            "Table_map",
            "Write_rows_v1",
            "Xid",
            "Rotate",
            "Format_desc",
            "Gtid_list",
            "Binlog_checkpoint"
        ]
    );
    let rotate = &evs[0];
    assert_eq!(
        (rotate.timestamp, rotate.flags, rotate.next_pos),
        (0, 0x20, 0)
    );
    assert_eq!(&rotate.body[..8], &4u64.to_le_bytes(), "the file's start");
    assert_eq!(&rotate.body[8..rotate.body.len() - 4], b"binlog.000002");
    // From the Format_description to the Xid: the file as a dump from 4 sends it, byte for
    // byte (`created` and `next_pos` as written, the real Gtid_list: 0-1-4, not artificial).
    for (got, want) in evs[1..8].iter().zip(&file[1..8]) {
        assert_eq!(got.bytes, want.bytes, "{}", got.name());
    }
    assert_eq!(evs[1].next_pos, 4 + evs[1].bytes.len() as u32);
    let list = &evs[2];
    assert_eq!(list.flags, 0);
    assert_eq!(&list.body[..4], &1u32.to_le_bytes());
    assert_eq!(&list.body[4..8], &0u32.to_le_bytes(), "domain 0");
    assert_eq!(&list.body[12..20], &4u64.to_le_bytes(), "0-1-4");
    assert_eq!(
        &evs[4].body[..8],
        &5u64.to_le_bytes(),
        "the group, from its GTID"
    );
    assert!(
        evs.iter()
            .all(|e| e.flags & 0x20 == 0 || e.t == EventType::ROTATE),
        "no fake Gtid_list: the file's Gtid_list is the position"
    );
    // Then the file the restart opened.
    let next = &evs[8];
    assert_eq!((next.timestamp, next.flags), (0, 0x20));
    assert_eq!(&next.body[8..next.body.len() - 4], b"binlog.000003");
    // The same request with no file: the same stream.
    let vars = ReplicaVars {
        connect_state: Some("0-1-4".into()),
        ..replica()
    };
    let (again, _) = dump(&ctx, "", 4, NB, vars).all(Duration::from_secs(10));
    assert_eq!(
        again.iter().map(|e| &e.bytes).collect::<Vec<_>>(),
        evs.iter().map(|e| &e.bytes).collect::<Vec<_>>()
    );
}

#[test]
fn every_file_starts_with_the_gtid_state_and_binlog_gtid_pos_reads_it() {
    let (dir, ctx, mut s) = server(2);
    run(&ctx, &mut s, "FLUSH BINARY LOGS").unwrap();
    let file = cohort_binlog::read_all(&dir.read("binlog.000002").unwrap());
    let list = file
        .events
        .iter()
        .find_map(|e| match &e.event {
            cohort_binlog::Event::GtidList(l) => Some(l.gtids.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(crate::log::gtid::GtidText(&list).to_string(), "0-1-4");
    let pos = |file: &str, p: u64| super::gtid_position_at(&ctx.pipeline, file, p);
    assert_eq!(pos("binlog.000002", 4).as_deref(), Some("0-1-4"));
    assert_eq!(pos("binlog.000001", 4).as_deref(), Some(""));
    assert_eq!(pos("binlog.000001", 5), None);
    assert_eq!(pos("binlog.000009", 4), None);
    let first = cohort_binlog::read_all(&dir.read("binlog.000001").unwrap());
    let third_gtid = first
        .events
        .iter()
        .filter(|e| matches!(e.event, cohort_binlog::Event::Gtid(_)))
        .nth(2)
        .unwrap()
        .pos
        .0;
    assert_eq!(pos("binlog.000001", third_gtid).as_deref(), Some("0-1-2"));
    // What a restart rebuilds: the next file starts with the same state.
    let ctx2 = context_on(&dir.restart_image());
    let b = ctx2.pipeline.binlog_end().unwrap().get();
    assert_eq!(
        crate::log::gtid::GtidText(&b.gtids.list()).to_string(),
        "0-1-4"
    );
    let mut s2 = SessionState::new(3, "root", "%", None);
    run(&ctx2, &mut s2, "INSERT INTO d.t VALUES (9, 'z')").unwrap();
    let b = ctx2.pipeline.binlog_end().unwrap().get();
    assert_eq!(
        crate::log::gtid::GtidText(&b.gtids.positions()).to_string(),
        "0-1-5"
    );
}

#[test]
fn a_waiting_dump_is_woken_by_a_commit_and_sends_heartbeats_while_idle() {
    let (_, ctx, _) = server(0);
    let vars = ReplicaVars {
        heartbeat_ns: 50_000_000,
        ..replica()
    };
    let mut c = dump(&ctx, "binlog.000001", 4, 0, vars);
    let (evs, _) = c.all(Duration::from_millis(30));
    let end_pos = evs.last().unwrap().next_pos;
    let hb = c.event();
    assert_eq!(hb.t, EventType::HEARTBEAT);
    assert_eq!((hb.timestamp, hb.next_pos), (0, end_pos));
    assert_eq!(&hb.body[..hb.body.len() - 4], b"binlog.000001");
    let c2 = ctx.clone();
    let t = std::thread::spawn(move || {
        let mut w = SessionState::new(9, "root", "%", None);
        run(&c2, &mut w, "INSERT INTO d.t VALUES (1, 'woken')").unwrap();
        Instant::now()
    });
    let mut got = Vec::new();
    while got.last().map(Ev::name) != Some("Xid") {
        let e = c.event();
        if e.t != EventType::HEARTBEAT {
            got.push(e);
        }
    }
    let committed = t.join().unwrap();
    assert_eq!(names(&got), ["Gtid", "Table_map", "Write_rows_v1", "Xid"]);
    assert!(committed.elapsed() < Duration::from_secs(5));
}

/// One-log mode with `sync_binlog = 0`: a group is acknowledged at its write, but it leaves
/// the server only once it is durable (the dump asks for the fsync).
#[test]
fn one_log_sends_a_group_only_once_it_is_synced() {
    let (dir, ctx, mut s) = server(0);
    run(&ctx, &mut s, "SET GLOBAL sync_binlog = 0").unwrap();
    let mut c = dump(&ctx, "binlog.000001", 4, 0, replica());
    let _ = c.all(Duration::from_millis(50));
    let syncs = dir.sync_count();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (42, 'durable')").unwrap();
    let mut last = c.event();
    while last.t != EventType::XID {
        last = c.event();
    }
    // The moment the replica has it, the machine may crash: it must be in what survives.
    let crashed = context_on(&dir.crash_image());
    let mut s2 = SessionState::new(3, "root", "%", None);
    match run(&crashed, &mut s2, "SELECT v FROM d.t WHERE id = 42").unwrap() {
        crate::sql::QueryResult::Rows { rows, .. } => {
            assert_eq!(rows, vec![vec![Value::str("durable")]])
        }
        _ => panic!(),
    }
    assert!(dir.sync_count() > syncs, "the dump asked for an fsync");
}

#[test]
fn purge_keeps_every_file_from_the_one_a_reader_reads() {
    let (dir, ctx, mut s) = server(1);
    run(&ctx, &mut s, "FLUSH BINARY LOGS").unwrap();
    run(&ctx, &mut s, "FLUSH BINARY LOGS").unwrap();
    ctx.pipeline
        .with_binlog(|b| b.set_recovery_floor("binlog.000003"));
    let end = ctx.pipeline.binlog_end().unwrap().clone();
    let reader = end.reader();
    assert!(reader.set_file("binlog.000002"));
    run(&ctx, &mut s, "PURGE BINARY LOGS TO 'binlog.000003'").unwrap();
    assert!(s.warnings.is_empty(), "silently, as MariaDB");
    assert_eq!(*end.get().files, ["binlog.000002", "binlog.000003"]);
    assert!(dir.read("binlog.000002").is_ok());
    drop(reader);
    run(&ctx, &mut s, "PURGE BINARY LOGS TO 'binlog.000003'").unwrap();
    assert_eq!(*end.get().files, ["binlog.000003"]);
    let late = end.reader();
    assert!(
        !late.set_file("binlog.000002"),
        "a purged file cannot be registered"
    );
}

#[test]
fn a_rotation_continues_in_the_next_file_with_a_fake_rotate() {
    let (_, ctx, mut s) = server(1);
    let mut c = dump(&ctx, "binlog.000001", 4, 0, replica());
    let _ = c.all(Duration::from_millis(50));
    run(&ctx, &mut s, "FLUSH BINARY LOGS").unwrap();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (7, 'next')").unwrap();
    let mut evs = Vec::new();
    while evs.last().map(Ev::name) != Some("Xid") {
        evs.push(c.event());
    }
    assert_eq!(
        names(&evs),
        [
            "Rotate",
            "Rotate",
            "Format_desc",
            "Gtid_list",
            "Binlog_checkpoint",
            "Gtid",
            "Table_map",
            "Write_rows_v1",
            "Xid"
        ]
    );
    assert_eq!(
        (evs[0].timestamp != 0, evs[0].flags),
        (true, 0),
        "the file's own Rotate"
    );
    assert_eq!(
        (evs[1].timestamp, evs[1].flags),
        (0, 0x20),
        "then a fake one"
    );
    assert_eq!(&evs[1].body[8..21], b"binlog.000002");
}

#[test]
fn what_a_client_sends_during_a_dump_is_ignored() {
    let (_, ctx, mut s) = server(0);
    let mut c = dump(&ctx, "binlog.000001", 4, 0, replica());
    let _ = c.all(Duration::from_millis(50));
    c.send(b"\x03SELECT 1");
    c.send(&[0xef, 1, 2]);
    c.send(&vec![b'x'; 100_000]);
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (3, 'still')").unwrap();
    // The dump goes on: the insert's events arrive, ending with its Xid (waiting up to 10 s
    // on a loaded host, where one idle window may end before they are sent).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut evs = Vec::new();
    loop {
        let (more, end) = c.all(Duration::from_millis(300));
        assert!(matches!(end, Got::Idle), "{end:?}");
        evs.extend(more);
        if evs.last().is_some_and(|e| e.t == EventType::XID) || std::time::Instant::now() > deadline
        {
            break;
        }
    }
    assert_eq!(evs.last().map(|e| e.t), Some(EventType::XID));
}

#[test]
fn a_new_dump_with_the_same_server_id_replaces_the_old_one() {
    let (_, ctx, _) = server(0);
    let mut old = dump_as(&ctx, 7, 5, "binlog.000001", 4, 0, replica());
    let _ = old.all(Duration::from_millis(50));
    let mut new = dump_as(&ctx, 8, 5, "binlog.000001", 4, 0, replica());
    let (_, end) = old.all(Duration::from_secs(5));
    assert!(
        matches!(&end, Got::Err(4052, m) if m.starts_with("A slave with the same server_uuid/server_id as this slave has connected to the master; the first event 'binlog.000001' at 4")),
        "{end:?}"
    );
    let (evs, _) = new.all(Duration::from_millis(50));
    assert!(!evs.is_empty());
}

/// AFTER_SYNC: a commit is answered, and visible to others, only once the replica has it.
#[test]
fn semi_sync_answers_a_commit_once_the_replica_acknowledges_it() {
    let (_, ctx, mut s) = server(0);
    run(&ctx, &mut s, "SET GLOBAL rpl_semi_sync_master_enabled = ON").unwrap();
    let vars = ReplicaVars {
        semi_sync: true,
        ..replica()
    };
    let mut c = dump(&ctx, "binlog.000001", 4, 0, vars);
    let (catch_up, _) = c.all(Duration::from_millis(50));
    assert!(
        catch_up.iter().all(|e| e.ack.is_some()),
        "every packet has the header"
    );
    let c2 = ctx.clone();
    let t = std::thread::spawn(move || {
        let mut w = SessionState::new(9, "root", "%", None);
        run(&c2, &mut w, "INSERT INTO d.t VALUES (1, 'acked')").unwrap();
    });
    let mut evs = Vec::new();
    while evs.last().map(Ev::name) != Some("Xid") {
        evs.push(c.event());
    }
    let xid = evs.last().unwrap();
    assert_eq!(xid.ack, Some(1), "the group's last event asks for an ack");
    assert!(evs[..evs.len() - 1].iter().all(|e| e.ack == Some(0)));
    std::thread::sleep(Duration::from_millis(100));
    assert!(!t.is_finished(), "answered before the replica had it");
    let mut other = SessionState::new(10, "root", "%", None);
    let invisible = run(&ctx, &mut other, "SELECT COUNT(*) FROM d.t").unwrap();
    assert!(
        matches!(invisible, crate::sql::QueryResult::Rows { ref rows, .. } if rows[0][0] == Value::Int(0)),
        "visible before the replica had it"
    );
    c.ack("binlog.000001", xid.next_pos as u64);
    t.join().unwrap();
    let status = |name: &str| crate::log::tests::status(&ctx, name);
    assert_eq!(status("Rpl_semi_sync_master_yes_tx"), 1);
    assert_eq!(status("Rpl_semi_sync_master_clients"), 1);
    // The sequence restarts after an ack request.
    run(
        &ctx,
        &mut s,
        "SET GLOBAL rpl_semi_sync_master_enabled = OFF",
    )
    .unwrap();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (2, 'async')").unwrap();
    assert_eq!(c.event().seq, 1);
}

#[test]
fn semi_sync_falls_back_to_async_after_the_timeout_and_comes_back() {
    let (_, ctx, mut s) = server(0);
    run(
        &ctx,
        &mut s,
        "SET GLOBAL rpl_semi_sync_master_timeout = 100",
    )
    .unwrap();
    run(&ctx, &mut s, "SET GLOBAL rpl_semi_sync_master_enabled = ON").unwrap();
    let vars = ReplicaVars {
        semi_sync: true,
        ..replica()
    };
    let mut c = dump(&ctx, "binlog.000001", 4, 0, vars);
    let _ = c.all(Duration::from_millis(50));
    let t0 = Instant::now();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (1, 'timed out')").unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(100));
    let status = |name: &str| crate::log::tests::status(&ctx, name);
    assert_eq!(status("Rpl_semi_sync_master_no_tx"), 1);
    assert_eq!(status("Rpl_semi_sync_master_no_times"), 1);
    let t1 = Instant::now();
    run(&ctx, &mut s, "INSERT INTO d.t VALUES (2, 'async')").unwrap();
    assert!(t1.elapsed() < Duration::from_millis(100), "off: no wait");
    // The replica catches up and acknowledges the end: on again.
    let mut last = None;
    while let Got::Event(e) = c.next(Duration::from_millis(200)) {
        last = Some(e);
    }
    let last = last.unwrap();
    assert_eq!(last.ack, Some(1));
    c.ack("binlog.000001", last.next_pos as u64);
    let deadline = Instant::now() + Duration::from_secs(5);
    let on = || {
        ctx.pipeline
            .status()
            .into_iter()
            .any(|(n, v)| n == "Rpl_semi_sync_master_status" && v == Value::str("ON"))
    };
    while !on() {
        assert!(Instant::now() < deadline, "semi-sync did not come back");
        std::thread::sleep(Duration::from_millis(5));
    }
}
