//! A hostile client against the per-connection memory bound, over TCP under both schedulers,
//! watched through the process's resident memory (VmRSS): the two floods — 64
//! COM_STMT_SEND_LONG_DATA chunks of 8 MiB to one parameter, and prepared statements of 1 MiB
//! one after another — and a pipeline of commands whose responses the client does not read
//! until it has sent them all. One test, so that nothing else in this process moves VmRSS
//! meanwhile.

mod common;

use cohort_server::session::ServerContext;
use cohort_server::types::Value;
use common::{payloads, serve_with, RawClient, Sched, SCHEDULERS};
use std::io::Read;

const MIB: u64 = 1 << 20;

/// As in the `cohort` binary: the counting allocator, which the bound relies on.
#[global_allocator]
static ALLOCATOR: cohort_server::memory::Counting<std::alloc::System> =
    cohort_server::memory::Counting(std::alloc::System);

fn vm_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

fn command(c: &mut RawClient, payload: &[u8]) {
    c.send(&RawClient::frame(payload));
}

/// The first payload of the next response, and the rest of that response drained.
fn response(c: &mut RawClient) -> Vec<u8> {
    let first = c.read_payloads(1).remove(0);
    match first[0] {
        0x00 | 0xFF => first,
        columns => {
            c.read_payloads(columns as usize + 1);
            loop {
                let p = c.read_payloads(1).remove(0);
                if p[0] == 0xFE && p.len() < 9 {
                    return first;
                }
            }
        }
    }
}

fn code(p: &[u8]) -> Option<u16> {
    (p[0] == 0xFF).then(|| u16::from_le_bytes([p[1], p[2]]))
}

fn prepare(c: &mut RawClient, sql: &str) -> Result<u32, u16> {
    let mut p = vec![0x16];
    p.extend_from_slice(sql.as_bytes());
    command(c, &p);
    let r = c.read_payloads(1).remove(0);
    if let Some(e) = code(&r) {
        return Err(e);
    }
    // PREPARE_OK, then parameter and column definitions, each list ended by EOF.
    let params = u16::from_le_bytes([r[7], r[8]]) as usize;
    let columns = u16::from_le_bytes([r[5], r[6]]) as usize;
    for n in [params, columns] {
        if n > 0 {
            c.read_payloads(n + 1);
        }
    }
    Ok(u32::from_le_bytes([r[1], r[2], r[3], r[4]]))
}

fn long_data_flood(sched: Sched) {
    let port = serve_with(sched, ServerContext::for_tests());
    let mut c = RawClient::login(port, "root", "");
    let id = prepare(&mut c, "SELECT LENGTH(?)").unwrap();
    let mut chunk = vec![0x18];
    chunk.extend_from_slice(&id.to_le_bytes());
    chunk.extend_from_slice(&0u16.to_le_bytes());
    chunk.extend(std::iter::repeat_n(b'x', 8 << 20));
    let chunk = RawClient::frame(&chunk);
    let before = vm_rss();
    for _ in 0..64 {
        c.send(&chunk);
    }
    let mut execute = vec![0x17];
    execute.extend_from_slice(&id.to_le_bytes());
    execute.extend_from_slice(&[0, 1, 0, 0, 0, 0, 1, 0xFE, 0]);
    command(&mut c, &execute);
    assert_eq!(code(&response(&mut c)), Some(1105), "{sched:?}");
    let grew = vm_rss().saturating_sub(before);
    eprintln!(
        "{sched:?}: 64 × 8 MiB of long data: VmRSS +{} MiB",
        grew / MIB
    );
    // One parameter holds at most max_allowed_packet (16 MiB); the packets come and go.
    assert!(
        grew < 96 * MIB,
        "{sched:?}: 512 MiB of long data grew VmRSS by {} MiB",
        grew / MIB
    );
}

fn prepared_flood(sched: Sched) {
    let ctx = ServerContext::for_tests();
    ctx.vars
        .set_global("max_session_mem_used", Value::UInt(64 * MIB))
        .unwrap();
    let port = serve_with(sched, ctx);
    let mut c = RawClient::login(port, "root", "");
    let before = vm_rss();
    let mut refused = None;
    for i in 0..100 {
        let sql = format!("SELECT '{}' AS c{i}", "s".repeat(MIB as usize));
        match prepare(&mut c, &sql) {
            Ok(_) => {}
            Err(e) => {
                refused = Some((i, e));
                break;
            }
        }
    }
    let grew = vm_rss().saturating_sub(before);
    let (n, e) = refused.expect("max_session_mem_used refused a statement");
    eprintln!(
        "{sched:?}: {n} statements of 1 MiB, then {e}: VmRSS +{} MiB",
        grew / MIB
    );
    assert_eq!(e, 1290, "{sched:?}");
    assert!(n < 40, "{sched:?}: {n} statements of 1 MiB fit in 64 MiB");
    assert!(
        grew < 160 * MIB,
        "{sched:?}: {n} prepared statements grew VmRSS by {} MiB",
        grew / MIB
    );
    // The connection still serves.
    command(&mut c, &RawClient::query("SELECT 1"));
    assert_eq!(code(&response(&mut c)), None);
}

fn unread_pipeline(sched: Sched) {
    let port = serve_with(sched, ServerContext::for_tests());
    let mut c = RawClient::login(port, "root", "");
    let mut bytes = Vec::new();
    for _ in 0..3000 {
        bytes.extend(RawClient::frame(&RawClient::query(
            "SELECT REPEAT('x', 10000)",
        )));
    }
    // Send everything from another thread while this one reads, as a pipelining client does.
    let mut writer = c.stream.try_clone().unwrap();
    let sender = std::thread::spawn(move || std::io::Write::write_all(&mut writer, &bytes));
    let mut got = 0;
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    while got < 3000 {
        let n = c.stream.read(&mut chunk).unwrap();
        assert!(n > 0, "{sched:?}: closed after {got} responses");
        buf.extend_from_slice(&chunk[..n]);
        // Count complete responses (a result set ends with its second EOF).
        let whole = whole_packets(&buf);
        let eofs = payloads(&buf[..whole])
            .iter()
            .filter(|p| p[0] == 0xFE && p.len() < 9)
            .count();
        got = eofs / 2;
    }
    sender.join().unwrap().unwrap();
}

/// Bytes of `buf` that make whole packets.
fn whole_packets(buf: &[u8]) -> usize {
    let mut at = 0;
    while at + 4 <= buf.len() {
        let len = u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], 0]) as usize;
        if at + 4 + len > buf.len() {
            break;
        }
        at += 4 + len;
    }
    at
}

#[test]
fn hostile_clients_stay_within_the_bound() {
    for sched in SCHEDULERS {
        long_data_flood(sched);
        prepared_flood(sched);
        unread_pipeline(sched);
    }
}
