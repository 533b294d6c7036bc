//! Packet sequences against a live server, at every connection phase.
//!
//! `tests/interop/bad_input.py` sends a fixed list of bad packets; this generalises it: each
//! case is a random sequence of raw writes, either right after the greeting (pre-auth: a
//! HandshakeResponse41 — captured or built, mutated or not — possibly asking for another
//! plugin so that the auth-switch exchange follows, then more packets) or after a real
//! login (post-auth: commands of every kind, valid or mutated, with wrong sequence ids,
//! lying length headers, empty packets, split or pipelined writes, COM_QUIT in the middle).
//!
//! The oracle, after every case ([`super::super::sql::session::Session`] does the server
//! part): no panic or death in the server, a fresh connection still runs `SELECT 1`, and
//! what the server sent before closing the connection ends at a packet boundary. Two
//! templates check semantic rules with a canary row: commands pipelined after COM_QUIT, and
//! after a COM_CHANGE_USER that failed, must not run (MySQL closes the connection) — if the
//! canary `INSERT` ran, that is a finding.
//!
//! Case `i` of seed `s` comes from `Rng::derive(s, 3, i)`: `--target wire --case i`
//! replays it.

use super::mutate::mutate;
use super::targets::handshake_response_bytes;
use crate::client::{Client, Login, Reply};
use crate::oracle::{Finding, Kind};
use crate::rng::Rng;
use crate::sql::session::Session;
use crate::sql::values;
use cohort_protocol::write_packet;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// When the writes start.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// Right after reading the greeting.
    PreAuth,
    /// After logging in as this user (password known to the fuzzer).
    PostAuth { user: String, password: String },
}

/// One raw write; `pause`: read what the server sends (briefly) before the next one.
#[derive(Clone, Debug, PartialEq)]
pub struct WireWrite {
    pub bytes: Vec<u8>,
    pub pause: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WireCase {
    pub phase: Phase,
    pub writes: Vec<WireWrite>,
    /// A canary row id that must NOT exist afterwards, and the rule it checks.
    pub canary: Option<(u64, &'static str)>,
    /// The most the server's resident memory may grow while the connection is open, MiB.
    pub rss_growth_limit_mb: Option<u64>,
}

/// How long to wait for more bytes once the server has gone quiet.
const IDLE: Duration = Duration::from_millis(15);

/// Case `index` of `seed`.
pub fn case(seed: u64, index: u64) -> WireCase {
    let mut rng = Rng::derive(seed, 3, index);
    let canary_id = (seed.rotate_left(20) ^ index) & (i64::MAX as u64);
    match rng.weighted(&[300, 600, 100, 100, 1, 1]) {
        0 => pre_auth(&mut rng),
        1 => post_auth(&mut rng),
        2 => quit_canary(&mut rng, canary_id),
        3 => change_user_canary(&mut rng, canary_id),
        4 => long_data_memory(),
        _ => multi_packet(&mut rng),
    }
}

fn root() -> Phase {
    Phase::PostAuth {
        user: "root".into(),
        password: String::new(),
    }
}

fn framed(seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut s = seq;
    write_packet(&mut out, &mut s, payload);
    out
}

fn pre_auth(rng: &mut Rng) -> WireCase {
    let mut resp = handshake_response_bytes(rng);
    if rng.chance(2, 3) {
        let n = rng.range(1, 6) as usize;
        mutate(rng, &mut resp, n, &[]);
    }
    let mut writes = vec![WireWrite {
        bytes: frame_oddly(rng, 1, &resp),
        pause: true,
    }];
    // Whatever follows: an auth-switch answer, commands, garbage.
    for _ in 0..rng.below(4) {
        let payload = match rng.below(3) {
            0 => {
                let n = rng.index(40);
                rng.bytes(n)
            }
            1 => command(rng),
            _ => Vec::new(),
        };
        let seq = rng.one(&[3u8, 0, 2, 255]);
        writes.push(WireWrite {
            bytes: frame_oddly(rng, seq, &payload),
            pause: rng.bool(),
        });
    }
    WireCase {
        phase: Phase::PreAuth,
        writes,
        canary: None,
        rss_growth_limit_mb: None,
    }
}

fn post_auth(rng: &mut Rng) -> WireCase {
    let phase = if rng.chance(3, 4) {
        root()
    } else {
        Phase::PostAuth {
            user: crate::sql::grammar::USER.into(),
            password: crate::sql::grammar::USER_PASSWORD.into(),
        }
    };
    let steps = rng.range(1, 12);
    let pipelined = rng.chance(1, 3);
    let mut writes: Vec<WireWrite> = Vec::new();
    for _ in 0..steps {
        let mut payload = command(rng);
        if rng.chance(1, 3) {
            let n = rng.range(1, 4) as usize;
            mutate(rng, &mut payload, n, &[]);
        }
        let seq = if rng.chance(1, 12) { rng.u8() } else { 0 };
        let bytes = frame_oddly(rng, seq, &payload);
        match writes.last_mut() {
            Some(last) if pipelined => last.bytes.extend(bytes),
            _ => writes.push(WireWrite {
                bytes,
                pause: rng.chance(1, 2),
            }),
        }
    }
    // Sometimes split one write in two at a random point (a packet across reads).
    if rng.chance(1, 4) {
        let i = rng.index(writes.len());
        if writes[i].bytes.len() > 1 {
            let at = rng.range(1, writes[i].bytes.len() as u64 - 1) as usize;
            let tail = writes[i].bytes.split_off(at);
            writes.insert(
                i + 1,
                WireWrite {
                    bytes: tail,
                    pause: rng.bool(),
                },
            );
            writes[i].pause = rng.bool();
        }
    }
    WireCase {
        phase,
        writes,
        canary: None,
        rss_growth_limit_mb: None,
    }
}

/// Valid commands, COM_QUIT, then an INSERT of the canary, all in one write.
fn quit_canary(rng: &mut Rng, id: u64) -> WireCase {
    let mut bytes = Vec::new();
    for _ in 0..rng.below(3) {
        bytes.extend(framed(
            0,
            &query(rng.one(&["SELECT 1", "DO 1", "SET @a = 1"])),
        ));
    }
    bytes.extend(framed(0, &[0x01]));
    bytes.extend(framed(
        0,
        &query(&format!("INSERT INTO fz.canary VALUES ({id})")),
    ));
    WireCase {
        phase: root(),
        writes: vec![WireWrite { bytes, pause: true }],
        canary: Some((id, "commands pipelined after COM_QUIT were executed")),
        rss_growth_limit_mb: None,
    }
}

/// A COM_QUERY whose payload needs more than one packet (16 MiB − 1 bytes and around it),
/// written in pieces: the server's reassembly with real sizes, and its limit at the edge.
fn multi_packet(rng: &mut Rng) -> WireCase {
    let size = rng.one(&[0xFF_FFFE_usize, 0xFF_FFFF, 0x100_0000, 0x100_0001]);
    let mut payload = b"\x03SELECT LENGTH('".to_vec();
    payload.resize(size - 2, b'x');
    payload.extend_from_slice(b"')");
    let bytes = framed(0, &payload);
    let cut = rng.range(1, bytes.len() as u64 - 1) as usize;
    WireCase {
        phase: root(),
        writes: vec![
            WireWrite {
                bytes: bytes[..cut].to_vec(),
                pause: false,
            },
            WireWrite {
                bytes: bytes[cut..].to_vec(),
                pause: true,
            },
        ],
        canary: None,
        rss_growth_limit_mb: None,
    }
}

/// 64 chunks of 8 MiB of COM_STMT_SEND_LONG_DATA for one parameter: 512 MiB that the server
/// must not hold (MySQL bounds a parameter's long data by max_allowed_packet).
fn long_data_memory() -> WireCase {
    let mut prepare = vec![0x16];
    prepare.extend_from_slice(b"SELECT ?");
    let mut writes = vec![WireWrite {
        bytes: framed(0, &prepare),
        pause: true,
    }];
    let mut chunk = vec![0x18];
    chunk.extend_from_slice(&1u32.to_le_bytes());
    chunk.extend_from_slice(&0u16.to_le_bytes());
    chunk.resize(7 + (8 << 20), b'L');
    let packet = framed(0, &chunk);
    for _ in 0..64 {
        writes.push(WireWrite {
            bytes: packet.clone(),
            pause: false,
        });
    }
    WireCase {
        phase: root(),
        writes,
        canary: None,
        rss_growth_limit_mb: Some(128),
    }
}

/// COM_CHANGE_USER with a wrong password, then the canary INSERT, in one write.
fn change_user_canary(rng: &mut Rng, id: u64) -> WireCase {
    let mut payload = vec![0x11];
    payload.extend_from_slice(b"fzu\0");
    payload.push(20);
    payload.extend(rng.bytes(20));
    payload.extend_from_slice(b"fz\0");
    payload.extend_from_slice(&45u16.to_le_bytes());
    payload.extend_from_slice(b"mysql_native_password\0");
    let mut bytes = framed(0, &payload);
    bytes.extend(framed(
        0,
        &query(&format!("INSERT INTO fz.canary VALUES ({id})")),
    ));
    WireCase {
        phase: root(),
        writes: vec![WireWrite { bytes, pause: true }],
        canary: Some((
            id,
            "a command pipelined after a failed COM_CHANGE_USER was executed",
        )),
        rss_growth_limit_mb: None,
    }
}

fn query(sql: &str) -> Vec<u8> {
    let mut p = vec![0x03];
    p.extend_from_slice(sql.as_bytes());
    p
}

/// Frames `payload`, sometimes wrongly: a lying length, an empty packet first, a header
/// announcing a full 16 MiB chunk, or the header alone.
fn frame_oddly(rng: &mut Rng, seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = framed(seq, payload);
    match rng.below(24) {
        0 => {
            let len = rng.one(&[0u32, 1, payload.len() as u32 + 1, 0xFF_FFFF, 0xFF_FFFE]);
            out[..3].copy_from_slice(&len.to_le_bytes()[..3]);
        }
        1 => out.splice(0..0, framed(seq, &[])).for_each(drop),
        2 => out.truncate(4),
        3 => out.truncate(rng.index(out.len())),
        _ => {}
    }
    out
}

/// One command payload of any kind, with plausible arguments.
fn command(rng: &mut Rng) -> Vec<u8> {
    let stmt = |rng: &mut Rng| rng.one(&[1u32, 2, 3, 0, u32::MAX]).to_le_bytes();
    let mut p = Vec::new();
    match rng.below(20) {
        0..=2 => {
            p = query(rng.one(&[
                "SELECT 1",
                "SELECT * FROM fz.canary",
                "SET @a = 1",
                "BEGIN",
                "COMMIT",
                "ROLLBACK",
                "SHOW TABLES FROM fz",
                "SELECT SLEEP(0.01)",
                "USE fz",
                "SELECT @@max_allowed_packet",
                "",
                "SELECT 1; SELECT 2",
            ]))
        }
        3 | 4 => {
            p.push(0x16);
            p.extend_from_slice(
                rng.one(&[
                    "SELECT ?",
                    "SELECT ?, ?, ?",
                    "SELECT 1",
                    "SELECT * FROM fz.canary WHERE id = ?",
                    "DO ?",
                    "garbage ?",
                ])
                .as_bytes(),
            );
        }
        5..=7 => {
            let n = rng.range(0, 4) as usize;
            let params: Vec<values::Param> = (0..n).map(|_| values::param(rng)).collect();
            let id = u32::from_le_bytes(stmt(rng));
            p = values::execute_payload(id, &params, rng.chance(3, 4));
            if rng.chance(1, 6) {
                p[5] = rng.one(&[1u8, 2, 4, 0xFF]); // cursor flags
            }
        }
        8 | 9 => {
            p.push(0x18);
            p.extend_from_slice(&stmt(rng));
            p.extend_from_slice(&rng.one(&[0u16, 1, 2, 65535]).to_le_bytes());
            let n = rng.size(16, 70_000) as usize;
            p.extend(rng.bytes(n));
        }
        10 => {
            p.push(rng.one(&[0x19u8, 0x1a]));
            p.extend_from_slice(&stmt(rng));
        }
        11 => {
            p.push(0x1c);
            p.extend_from_slice(&stmt(rng));
            p.extend_from_slice(&rng.one(&[0u32, 1, u32::MAX]).to_le_bytes());
        }
        12 => {
            p.push(0x04);
            p.extend_from_slice(rng.one(&[
                &b"canary\0"[..],
                b"canary\0%",
                b"nosuch\0",
                b"\0",
                b"canary",
                b"\xff\xfe\0",
            ]));
        }
        13 => {
            p.push(0x02);
            p.extend_from_slice(rng.one(&[
                &b"fz"[..],
                b"nosuch",
                b"",
                b"\xff",
                b"information_schema",
            ]));
        }
        14 => {
            p.push(0x11);
            let user: &[u8] = rng.one(&[&b"fzu"[..], b"root", b"nosuch", b""]);
            p.extend_from_slice(user);
            p.push(0);
            let n = rng.one(&[0usize, 20, 255]);
            p.push(n as u8);
            p.extend(rng.bytes(n));
            p.extend_from_slice(rng.one(&[&b"fz\0"[..], b"\0", b"nosuch\0"]));
            if rng.bool() {
                p.extend_from_slice(&rng.one(&[45u16, 8, 63, 0, 65535]).to_le_bytes());
                p.extend_from_slice(b"mysql_native_password\0");
            }
        }
        15 => {
            p.push(0x1b);
            p.extend_from_slice(&rng.one(&[0u16, 1, 2, 65535]).to_le_bytes());
        }
        16 => p.push(rng.one(&[0x0eu8, 0x09, 0x1f, 0x01])),
        17 => p.push(rng.one(&[
            0x00u8, 0x05, 0x06, 0x07, 0x08, 0x0a, 0x0b, 0x0c, 0x0d, 0x0f, 0x10, 0x12, 0x13, 0x14,
            0x15, 0x1d, 0x1e, 0x20, 0xFF,
        ])),
        18 => p = Vec::new(),
        _ => {
            let n = rng.size(8, 200) as usize;
            p = rng.bytes(n);
        }
    }
    p
}

/// What the server sent, and whether it closed the connection.
pub struct Received {
    pub bytes: Vec<u8>,
    pub closed: bool,
    /// Resident memory growth of the server while the connection was open, KiB (when the
    /// case limits it).
    pub rss_growth_kib: Option<u64>,
}

/// The resident memory of process `pid`, KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// Runs a case against the server at `addr` (process `pid`, for memory checks).
pub fn run(
    addr: SocketAddr,
    pid: Option<u32>,
    case: &WireCase,
    timeout: Duration,
) -> Result<Received, String> {
    let mut stream = match &case.phase {
        Phase::PreAuth => {
            let mut s = TcpStream::connect_timeout(&addr, timeout).map_err(|e| e.to_string())?;
            // The greeting: one packet.
            let mut header = [0u8; 4];
            s.set_read_timeout(Some(timeout))
                .map_err(|e| e.to_string())?;
            s.read_exact(&mut header)
                .map_err(|e| format!("greeting: {e}"))?;
            let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
            let mut greeting = vec![0u8; len];
            s.read_exact(&mut greeting)
                .map_err(|e| format!("greeting: {e}"))?;
            s
        }
        Phase::PostAuth { user, password } => {
            let login = Login {
                user: user.clone(),
                password: password.clone(),
                database: None,
            };
            Client::connect(addr, &login, timeout)
                .map_err(|e| format!("login as {user}: {e}"))?
                .into_stream()
        }
    };
    let _ = stream.set_nodelay(true);
    let mut received = Received {
        bytes: Vec::new(),
        closed: false,
        rss_growth_kib: None,
    };
    let rss_before = pid
        .filter(|_| case.rss_growth_limit_mb.is_some())
        .and_then(rss_kib);
    for w in &case.writes {
        if stream.write_all(&w.bytes).is_err() {
            received.closed = true;
            break;
        }
        if w.pause {
            read_until_idle(&mut stream, &mut received);
            if received.closed {
                break;
            }
        }
    }
    if !received.closed {
        read_until_idle(&mut stream, &mut received);
    }
    if let (Some(before), Some(pid)) = (rss_before, pid) {
        received.rss_growth_kib = rss_kib(pid).map(|after| after.saturating_sub(before));
    }
    Ok(received)
}

fn read_until_idle(stream: &mut TcpStream, r: &mut Received) {
    let deadline = Instant::now() + Duration::from_secs(3);
    let _ = stream.set_read_timeout(Some(IDLE));
    let mut buf = [0u8; 65536];
    while Instant::now() < deadline {
        match stream.read(&mut buf) {
            Ok(0) => {
                r.closed = true;
                return;
            }
            Ok(n) => r.bytes.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => {
                r.closed = true;
                return;
            }
        }
    }
}

/// Judges a case: the server (log, process, liveness), the framing of what it sent, and the
/// canary.
pub fn judge(
    session: &mut Session,
    case: &WireCase,
    result: Result<Received, String>,
) -> Option<Finding> {
    if let Some(f) = session.check_server() {
        return Some(f);
    }
    let received = match result {
        Ok(r) => r,
        Err(e) => {
            return session
                .liveness()
                .err()
                .or_else(|| Some(Finding::new(Kind::Unresponsive, "cannot start the case", e)))
        }
    };
    if let Err(f) = session.liveness() {
        return Some(f);
    }
    if let (Some(limit), Some(grown)) = (case.rss_growth_limit_mb, received.rss_growth_kib) {
        if grown / 1024 > limit {
            return Some(Finding::new(
                Kind::Memory,
                format!("one connection grew the server by more than {limit} MiB"),
                format!(
                    "VmRSS grew by {} MiB while the connection was open",
                    grown / 1024
                ),
            ));
        }
    }
    if received.closed {
        if let Some(why) = framing_error(&received.bytes) {
            return Some(Finding::new(
                Kind::Malformed,
                "the server's output ends inside a packet",
                why,
            ));
        }
    }
    let (id, rule) = case.canary?;
    match canary_present(session, id) {
        Ok(false) => None,
        Ok(true) => Some(Finding::new(
            Kind::AfterClose,
            rule,
            format!("canary row {id} exists"),
        )),
        Err(f) => Some(f),
    }
}

/// Whether the bytes are whole packets.
fn framing_error(bytes: &[u8]) -> Option<String> {
    let mut at = 0;
    while at < bytes.len() {
        if bytes.len() - at < 4 {
            return Some(format!("{} stray bytes after {at}", bytes.len() - at));
        }
        let len = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], 0]) as usize;
        if bytes.len() - at - 4 < len {
            return Some(format!(
                "a packet at {at} announces {len} bytes, {} follow",
                bytes.len() - at - 4
            ));
        }
        at += 4 + len;
    }
    None
}

fn canary_present(session: &mut Session, id: u64) -> Result<bool, Finding> {
    let mut c = Client::connect(
        session.server.addr(),
        &Login::root(),
        Duration::from_secs(10),
    )
    .map_err(|e| Finding::new(Kind::Unresponsive, "root cannot log in", e.to_string()))?;
    let sql = format!("\x03SELECT COUNT(*) FROM fz.canary WHERE id = {id}");
    match c.request(sql.as_bytes(), false, false) {
        Ok(Reply::Rows { first: Some(v), .. }) => Ok(v != b"0"),
        Ok(_) => Ok(false),
        Err(e) => Err(Finding::new(
            Kind::Unresponsive,
            "canary query failed",
            e.to_string(),
        )),
    }
}

/// A readable account of a case for reports.
pub fn describe(case: &WireCase) -> String {
    let mut s = match &case.phase {
        Phase::PreAuth => "connect, read the greeting, then write:\n".to_string(),
        Phase::PostAuth { user, .. } => format!("log in as {user}, then write:\n"),
    };
    let mut i = 0;
    while i < case.writes.len() {
        let w = &case.writes[i];
        // Identical writes in a row are shown once.
        let same = case.writes[i..].iter().take_while(|x| *x == w).count();
        let which = if same > 1 {
            format!("writes {i}–{} (identical)", i + same - 1)
        } else {
            format!("write {i}")
        };
        s.push_str(&format!(
            "  {which}{}: {}\n",
            if w.pause { " (then read)" } else { "" },
            values::hex(&w.bytes)
        ));
        for p in packets(&w.bytes) {
            s.push_str(&format!("      {p}\n"));
        }
        i += same;
    }
    if let Some((id, rule)) = case.canary {
        s.push_str(&format!(
            "  then: the row {id} must not be in fz.canary ({rule})\n"
        ));
    }
    if let Some(limit) = case.rss_growth_limit_mb {
        s.push_str(&format!(
            "  then: the server's VmRSS must not have grown by more than {limit} MiB\n"
        ));
    }
    s
}

fn command_name(b: u8) -> String {
    let name = match b {
        0x00 => "COM_SLEEP",
        0x01 => "COM_QUIT",
        0x02 => "COM_INIT_DB",
        0x03 => "COM_QUERY",
        0x04 => "COM_FIELD_LIST",
        0x09 => "COM_STATISTICS",
        0x0e => "COM_PING",
        0x11 => "COM_CHANGE_USER",
        0x12 => "COM_BINLOG_DUMP",
        0x16 => "COM_STMT_PREPARE",
        0x17 => "COM_STMT_EXECUTE",
        0x18 => "COM_STMT_SEND_LONG_DATA",
        0x19 => "COM_STMT_CLOSE",
        0x1a => "COM_STMT_RESET",
        0x1b => "COM_SET_OPTION",
        0x1c => "COM_STMT_FETCH",
        0x1f => "COM_RESET_CONNECTION",
        _ => return format!("byte 0x{b:02x}"),
    };
    name.to_string()
}

/// Packet-by-packet description of a write (best effort).
fn packets(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= bytes.len() {
        let len = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], 0]) as usize;
        let seq = bytes[at + 3];
        let body = &bytes[at + 4..bytes.len().min(at + 4 + len)];
        let what = match body.first() {
            Some(&b @ (0x03 | 0x16)) => format!(
                "{} {:?}",
                command_name(b),
                String::from_utf8_lossy(&body[1..body.len().min(80)])
            ),
            Some(&b) => format!("{}, {} bytes", command_name(b), body.len()),
            None => "empty".into(),
        };
        out.push(format!("packet seq={seq} len={len}: {what}"));
        at += 4 + len;
    }
    if at < bytes.len() {
        out.push(format!("{} trailing bytes", bytes.len() - at));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_reproducible() {
        for i in 0..200 {
            assert_eq!(case(5, i), case(5, i));
        }
    }

    #[test]
    fn framing_check() {
        assert_eq!(framing_error(&[1, 0, 0, 1, 0xFE]), None);
        assert!(framing_error(&[5, 0, 0, 1, 0xFE]).is_some());
        assert!(framing_error(&[1, 0, 0]).is_some());
    }
}
