//! The pool of threads (`--thread-handling pool-of-threads`) against the real binary:
//!
//! - 10 000 concurrent connections, most idle, some committing, all answered, on a few threads;
//! - asynchronous commit completion: hundreds of connections waiting for durable commits hold
//!   no thread, and every acknowledged commit is there;
//! - a session stuck on a row lock does not stall its group (even with stall detection out of
//!   the way), and the extra port serves when the pool cannot.
//!
//! Ports: `COHORT_TEST_PORTS=FIRST-LAST` restricts the servers to that range (otherwise the
//! kernel picks free ones).

mod common;

use cohort_protocol::{
    encode_query, write_packet, Handshake, HandshakeResponse, ResponseDecoder, ResponseEvent,
};
use common::{free_port, opts};
use mysql::prelude::*;
use mysql::Conn;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// A server process.

struct Server {
    child: Child,
    port: u16,
    datadir: PathBuf,
}

impl Server {
    fn start(name: &str, flags: &[&str]) -> Server {
        Server::start_with(name, "pool-of-threads", flags)
    }

    fn start_with(name: &str, thread_handling: &str, flags: &[&str]) -> Server {
        for _ in 0..5 {
            let port = free_port();
            let datadir = std::env::temp_dir()
                .join(format!("cohort-pool-{name}-{}-{port}", std::process::id()));
            let _ = std::fs::remove_dir_all(&datadir);
            let log = std::fs::File::create(datadir.with_extension("log")).unwrap();
            let child = Command::new(env!("CARGO_BIN_EXE_cohort"))
                .args(["serve", "--port", &port.to_string(), "--datadir"])
                .arg(&datadir)
                .args(["--thread-handling", thread_handling])
                .args(flags)
                .stdout(Stdio::null())
                .stderr(Stdio::from(log))
                .spawn()
                .expect("start cohort");
            let mut server = Server {
                child,
                port,
                datadir,
            };
            if server.wait_ready() {
                return server;
            }
        }
        panic!("the server did not start");
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if Conn::new(opts(self.port)).is_ok() {
                return true;
            }
            if let Ok(Some(_)) = self.child.try_wait() {
                return false; // the port was taken meanwhile: try another
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    fn conn(&self) -> Conn {
        Conn::new(opts(self.port)).unwrap()
    }

    /// Threads of the server process (/proc/PID/status).
    fn threads(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .map(|v| v.trim().parse().unwrap())
            .unwrap()
    }

    fn status(&self, c: &mut Conn, name: &str) -> u64 {
        let v: Option<(String, String)> = c
            .query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))
            .unwrap();
        v.unwrap_or_else(|| panic!("no status {name}"))
            .1
            .parse()
            .unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.datadir);
    }
}

/// Open files for this process: soft limit up to the hard one.
fn raise_fd_limit(needed: u64) {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read or write one rlimit struct.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl), 0);
        rl.rlim_cur = rl.rlim_max;
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &rl), 0);
    }
    assert!(
        rl.rlim_cur >= needed,
        "this test needs {needed} open files; the hard limit is {} (ulimit -Hn)",
        rl.rlim_cur
    );
}

// ---------------------------------------------------------------------------------------------
// A bare-bones client, cheap enough to hold 10 000 of.

struct RawConn {
    s: TcpStream,
}

impl RawConn {
    fn login(port: u16) -> std::io::Result<RawConn> {
        RawConn::login_as(port, "")
    }

    fn login_as(port: u16, password: &str) -> std::io::Result<RawConn> {
        let s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_read_timeout(Some(Duration::from_secs(60)))?;
        let mut c = RawConn { s };
        let (_, greeting) = c.read_packet()?;
        let hs = Handshake::parse(&greeting).map_err(std::io::Error::other)?;
        let mut payload = Vec::new();
        HandshakeResponse::native("root", password, None, &hs).encode(&mut payload);
        c.write(&payload, 1)?;
        let (_, ok) = c.read_packet()?;
        if ok.first() != Some(&0) {
            return Err(std::io::Error::other(format!("login refused: {ok:?}")));
        }
        Ok(c)
    }

    fn write(&mut self, payload: &[u8], mut seq: u8) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        write_packet(&mut bytes, &mut seq, payload);
        self.s.write_all(&bytes)
    }

    fn read_packet(&mut self) -> std::io::Result<(u8, Vec<u8>)> {
        let mut h = [0u8; 4];
        self.s.read_exact(&mut h)?;
        let len = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
        let mut payload = vec![0; len];
        self.s.read_exact(&mut payload)?;
        Ok((h[3], payload))
    }

    fn send_query(&mut self, sql: &str) -> std::io::Result<()> {
        let mut payload = Vec::new();
        encode_query(&mut payload, sql);
        self.write(&payload, 0)
    }

    /// One response: "ok", "err CODE" or the first column of the first row.
    fn read_response(&mut self) -> std::io::Result<String> {
        let mut d = ResponseDecoder::new();
        let mut answer = String::new();
        while !d.is_done() {
            let (_, p) = self.read_packet()?;
            match d.decode(&p).map_err(std::io::Error::other)? {
                ResponseEvent::Ok(_) => answer = "ok".into(),
                ResponseEvent::Err(e) => answer = format!("err {}", e.code),
                ResponseEvent::Row(r) if answer.is_empty() => {
                    let v = cohort_protocol::parse_text_row(r, 1).map_err(std::io::Error::other)?;
                    answer = String::from_utf8_lossy(v[0].unwrap_or(b"NULL")).into_owned();
                }
                _ => {}
            }
        }
        Ok(answer)
    }
}

/// `n` connections committing UPDATEs (one row each) until `stop`; returns the handles, each
/// giving its number of acknowledged commits.
fn committers(port: u16, n: u64, stop: &Arc<AtomicBool>) -> Vec<std::thread::JoinHandle<u64>> {
    (0..n)
        .map(|i| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut c = Conn::new(opts(port)).unwrap();
                let mut done = 0;
                while !stop.load(Ordering::Relaxed) {
                    c.exec_drop("UPDATE d.t SET v = v + 1 WHERE id = ?", (i,))
                        .unwrap();
                    done += 1;
                }
                done
            })
        })
        .collect()
}

fn create_table(c: &mut Conn, rows: u64) {
    c.query_drop("CREATE DATABASE d").unwrap();
    c.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, v BIGINT NOT NULL)")
        .unwrap();
    for i in 0..rows {
        c.exec_drop("INSERT INTO d.t VALUES (?, 0)", (i,)).unwrap();
    }
}

fn sum_v(c: &mut Conn) -> u64 {
    let v: Option<u64> = c.query_first("SELECT SUM(v) FROM d.t").unwrap();
    v.unwrap()
}

// ---------------------------------------------------------------------------------------------

/// 10 000 connections, most idle, 16 committing; every idle one is asked a question twice
/// and answers; the server runs them on a few threads.
#[test]
fn ten_thousand_connections_on_a_few_threads() {
    const IDLE: usize = 10_000;
    raise_fd_limit(IDLE as u64 + 500);
    let server = Server::start(
        "10k",
        &["--thread-pool-size", "2", "--max-connections", "10100"],
    );
    let mut control = server.conn();
    create_table(&mut control, 16);
    let stop = Arc::new(AtomicBool::new(false));
    let busy = committers(server.port, 16, &stop);

    let started = Instant::now();
    let mut idle: Vec<RawConn> = (0..IDLE)
        .map(|i| RawConn::login(server.port).unwrap_or_else(|e| panic!("login {i}: {e}")))
        .collect();
    println!("{IDLE} logins in {:.1?}", started.elapsed());
    let mut max_threads = server.threads();
    for round in 0..2 {
        let t = Instant::now();
        for c in idle.iter_mut() {
            c.send_query("SELECT 1").unwrap();
        }
        max_threads = max_threads.max(server.threads());
        for (i, c) in idle.iter_mut().enumerate() {
            let answer = c
                .read_response()
                .unwrap_or_else(|e| panic!("connection {i}: {e}"));
            assert_eq!(answer, "1", "connection {i}");
        }
        max_threads = max_threads.max(server.threads());
        println!("round {round}: {IDLE} answers in {:.1?}", t.elapsed());
    }
    let connected = server.status(&mut control, "Threads_connected");
    assert!(connected > IDLE as u64, "Threads_connected {connected}");
    let pool_threads = server.status(&mut control, "Threadpool_threads");
    stop.store(true, Ordering::Relaxed);
    let commits: u64 = busy.into_iter().map(|h| h.join().unwrap()).sum();
    println!(
        "server threads at most {max_threads} (pool workers {pool_threads}) for {connected} \
         connections; {commits} commits meanwhile"
    );
    assert!(commits > 0);
    assert_eq!(
        sum_v(&mut control),
        commits,
        "every acknowledged commit is there"
    );
    assert!(
        max_threads < 64,
        "{max_threads} server threads for {connected} connections"
    );
    drop(idle);
}

/// 240 connections committing at once, with slow syncs: the commits that wait for
/// durability hold no thread, and every acknowledged one is there.
#[test]
fn connections_waiting_for_durability_hold_no_thread() {
    const CONNS: usize = 240;
    raise_fd_limit(CONNS as u64 + 200);
    let server = Server::start(
        "async",
        &["--thread-pool-size", "2", "--log-sync-delay-us", "3000"],
    );
    let mut control = server.conn();
    create_table(&mut control, CONNS as u64);
    let mut conns: Vec<RawConn> = (0..CONNS)
        .map(|_| RawConn::login(server.port).unwrap())
        .collect();
    let mut max_threads = 0;
    let mut acked = 0u64;
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(3) {
        for (i, c) in conns.iter_mut().enumerate() {
            c.send_query(&format!("UPDATE d.t SET v = v + 1 WHERE id = {i}"))
                .unwrap();
        }
        // All of them are now waiting for a durable commit.
        std::thread::sleep(Duration::from_millis(2));
        max_threads = max_threads.max(server.threads());
        for c in conns.iter_mut() {
            assert_eq!(c.read_response().unwrap(), "ok");
            acked += 1;
        }
    }
    let groups = server.status(&mut control, "Binlog_group_commits");
    let commits = server.status(&mut control, "Binlog_commits");
    println!(
        "{acked} commits in {groups} groups; at most {max_threads} server threads for {CONNS} \
         committing connections"
    );
    assert_eq!(sum_v(&mut control), acked);
    assert!(
        commits >= 2 * groups,
        "parked commits should share groups: {commits} commits in {groups} groups"
    );
    assert!(
        max_threads < 40,
        "{max_threads} server threads for {CONNS} connections waiting for commits"
    );
}

/// With one thread group and stall detection out of the way (60 s), six sessions blocked on
/// a row lock do not keep a seventh from being answered promptly.
#[test]
fn a_session_stuck_on_a_row_lock_does_not_stall_its_group() {
    let server = Server::start(
        "stall",
        &[
            "--thread-pool-size",
            "1",
            "--thread-pool-stall-limit",
            "60000",
            "--innodb-lock-wait-timeout",
            "40",
        ],
    );
    let mut holder = server.conn();
    create_table(&mut holder, 1);
    // Everybody logs in first: new connections would get a thread of their own anyway.
    let mut asker = RawConn::login(server.port).unwrap();
    let blocked: Vec<Conn> = (0..6).map(|_| server.conn()).collect();
    holder.query_drop("BEGIN").unwrap();
    holder
        .query_drop("UPDATE d.t SET v = 1 WHERE id = 0")
        .unwrap();
    let done = Arc::new(AtomicU64::new(0));
    let waiters: Vec<_> = blocked
        .into_iter()
        .map(|mut c| {
            let done = done.clone();
            std::thread::spawn(move || {
                c.query_drop("UPDATE d.t SET v = v + 10 WHERE id = 0")
                    .unwrap();
                done.fetch_add(1, Ordering::Relaxed);
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        done.load(Ordering::Relaxed),
        0,
        "they wait for the row lock"
    );
    asker
        .s
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut slowest = Duration::ZERO;
    for _ in 0..20 {
        let t = Instant::now();
        asker.send_query("SELECT 1").unwrap();
        assert_eq!(asker.read_response().unwrap(), "1");
        slowest = slowest.max(t.elapsed());
    }
    println!("slowest SELECT 1 while 6 sessions wait on a row lock: {slowest:?}");
    assert!(
        slowest < Duration::from_secs(2),
        "slowest answer {slowest:?}"
    );
    assert_eq!(done.load(Ordering::Relaxed), 0, "still waiting");
    holder.query_drop("COMMIT").unwrap();
    waiters.into_iter().for_each(|h| h.join().unwrap());
    assert_eq!(sum_v(&mut holder), 61);
}

/// The extra port is served one thread per connection: it answers while every pool worker
/// is blocked (`thread_pool_max_threads` reached), and refuses past `extra_max_connections`.
#[test]
fn extra_port_answers_when_the_pool_cannot() {
    let extra = free_port();
    let server = Server::start(
        "extra",
        &[
            "--thread-pool-size",
            "1",
            "--thread-pool-max-threads",
            "1",
            "--thread-pool-stall-limit",
            "60000",
            "--extra-port",
            &extra.to_string(),
            "--extra-max-connections",
            "2",
        ],
    );
    // The lock holder comes through the extra port: its COMMIT must get through while the
    // pool is saturated.
    let mut holder = Conn::new(opts(extra)).unwrap();
    create_table(&mut holder, 1);
    let mut asker = RawConn::login(server.port).unwrap();
    let blocked: Vec<Conn> = (0..2).map(|_| server.conn()).collect();
    holder.query_drop("BEGIN").unwrap();
    holder
        .query_drop("UPDATE d.t SET v = 1 WHERE id = 0")
        .unwrap();
    let waiters: Vec<_> = blocked
        .into_iter()
        .map(|mut c| {
            std::thread::spawn(move || c.query_drop("UPDATE d.t SET v = v + 1 WHERE id = 0"))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // Both workers a group may have are blocked: the main port does not answer now...
    asker.send_query("SELECT 1").unwrap();
    asker
        .s
        .set_read_timeout(Some(Duration::from_millis(700)))
        .unwrap();
    assert!(asker.read_response().is_err(), "the pool is saturated");
    // ...the extra port does, with a thread of its own...
    let mut admin = Conn::new(opts(extra)).unwrap();
    let port: Option<u64> = admin.query_first("SELECT @@extra_port").unwrap();
    assert_eq!(port, Some(extra as u64));
    // ...for extra_max_connections (2) clients: the next gets 1040 after the handshake.
    match Conn::new(opts(extra)) {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1040),
        other => panic!("a second extra-port connection: {:?}", other.map(|_| ())),
    }
    holder.query_drop("COMMIT").unwrap();
    for w in waiters {
        w.join().unwrap().unwrap();
    }
    asker
        .s
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    assert_eq!(
        asker.read_response().unwrap(),
        "1",
        "answered once unblocked"
    );
    assert_eq!(sum_v(&mut admin), 3);
}

/// The connection and thread counters of SHOW GLOBAL STATUS, in both modes.
#[test]
fn connection_and_thread_counters_in_both_modes() {
    for mode in ["one-thread-per-connection", "pool-of-threads"] {
        let server = Server::start_with("counters", mode, &["--thread-pool-size", "2"]);
        let mut c = server.conn();
        create_table(&mut c, 1);
        let st = |c: &mut Conn, name: &str| server.status(c, name);
        // Connections from startup (the readiness probe) are gone once this settles.
        let settle = |c: &mut Conn, want: u64| {
            let t = Instant::now();
            while st(c, "Threads_connected") != want && t.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(20));
            }
            st(c, "Threads_connected")
        };
        assert_eq!(settle(&mut c, 1), 1, "{mode}");
        let (connections, created) = (st(&mut c, "Connections"), st(&mut c, "Threads_created"));
        let aborted = st(&mut c, "Aborted_connects");
        let raw: Vec<RawConn> = (0..5)
            .map(|_| RawConn::login(server.port).unwrap())
            .collect();
        assert_eq!(st(&mut c, "Threads_connected"), 6, "{mode}");
        assert_eq!(st(&mut c, "Connections"), connections + 5, "{mode}");
        assert!(st(&mut c, "Max_used_connections") >= 6, "{mode}");
        let (threads, idle) = (
            st(&mut c, "Threadpool_threads"),
            st(&mut c, "Threadpool_idle_threads"),
        );
        let created_now = st(&mut c, "Threads_created");
        if mode == "pool-of-threads" {
            assert!(
                threads >= 1 && idle < threads,
                "{mode}: {threads} threads, {idle} idle"
            );
            assert!(
                created_now < created + 5,
                "{mode}: no thread per connection"
            );
        } else {
            assert_eq!((threads, idle), (0, 0), "{mode}");
            assert_eq!(
                created_now,
                created + 5,
                "{mode}: one thread per connection"
            );
        }
        // Threads_running: this SHOW STATUS, and a session waiting on a row lock.
        assert_eq!(st(&mut c, "Threads_running"), 1, "{mode}");
        c.query_drop("BEGIN").unwrap();
        c.query_drop("UPDATE d.t SET v = 1 WHERE id = 0").unwrap();
        let mut other = server.conn();
        let waiter = std::thread::spawn(move || {
            other
                .query_drop("UPDATE d.t SET v = 2 WHERE id = 0")
                .unwrap();
        });
        let t = Instant::now();
        while st(&mut c, "Threads_running") != 2 && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(st(&mut c, "Threads_running"), 2, "{mode}");
        c.query_drop("COMMIT").unwrap();
        waiter.join().unwrap();
        // Aborted_connects: a wrong password, and a client leaving during the handshake.
        assert!(RawConn::login_as(server.port, "wrong").is_err());
        let mut gone = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        gone.read_exact(&mut [0u8; 4]).unwrap();
        drop(gone);
        let t = Instant::now();
        while st(&mut c, "Aborted_connects") < aborted + 2 && t.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(st(&mut c, "Aborted_connects"), aborted + 2, "{mode}");
        drop(raw);
        assert_eq!(
            settle(&mut c, 1),
            1,
            "{mode}: closed connections are counted out"
        );
    }
}

/// A request that arrives while the connection's previous commit is pending is answered after
/// the commit's OK, whenever it comes: in the same read as the UPDATE, while nobody holds the
/// connection, or around the moment the commit completes — when the worker that completes it
/// may let go without reading again, and the SELECT's bytes must have marked the connection
/// notified so that letting go fails and the worker reads them.
#[test]
fn a_request_sent_while_a_commit_is_pending_is_answered() {
    let server = Server::start("during-commit", &[]);
    let mut c = server.conn();
    create_table(&mut c, 2);
    // A lone commit waits 200 ms for a second member of its group.
    c.query_drop("SET GLOBAL binlog_commit_wait_count = 2")
        .unwrap();
    c.query_drop("SET GLOBAL binlog_commit_wait_usec = 200000")
        .unwrap();
    let mut raw = RawConn::login(server.port).unwrap();
    raw.s
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let around_completion = (190..=210).step_by(2);
    let delays_ms = [0, 0, 50, 150].into_iter().chain(around_completion);
    for (round, delay) in delays_ms.enumerate() {
        raw.send_query(&format!("UPDATE d.t SET v = {round} WHERE id = 1"))
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        raw.send_query("SELECT v FROM d.t WHERE id = 1").unwrap();
        assert_eq!(raw.read_response().unwrap(), "ok", "round {round}");
        assert_eq!(raw.read_response().unwrap(), round.to_string());
    }
}

/// Pipelined requests and answers bigger than the socket buffers: a connection's bytes that
/// arrive while a worker holds it are never stranded (the socket stays armed edge-triggered
/// between requests), and a connection whose client does not read waits to write without a
/// thread.
#[test]
fn pipelined_requests_and_blocked_writes_lose_nothing() {
    let server = Server::start("pipeline", &[]);
    let port = server.port;
    let clients: Vec<_> = (0..8u64)
        .map(|c| {
            std::thread::spawn(move || {
                let mut raw = RawConn::login(port).unwrap();
                raw.s
                    .set_read_timeout(Some(Duration::from_secs(10)))
                    .unwrap();
                for round in 0..5u64 {
                    // 200 queries of 4 kB each (800 kB), written by another thread while this
                    // one reads the answers: a worker reads 256 kB in one turn, then queues
                    // the connection again with bytes still unread.
                    let base = c * 1_000_000 + round * 1000;
                    let pad = "x".repeat(4000);
                    let mut writer = raw.s.try_clone().unwrap();
                    let sender = std::thread::spawn(move || {
                        let mut bytes = Vec::new();
                        for i in 0..200u64 {
                            let mut payload = Vec::new();
                            let sql = format!("SELECT {} /* {pad} */", base + i);
                            encode_query(&mut payload, &sql);
                            write_packet(&mut bytes, &mut 0, &payload);
                        }
                        writer.write_all(&bytes).unwrap();
                    });
                    for i in 0..200u64 {
                        assert_eq!(raw.read_response().unwrap(), (base + i).to_string());
                    }
                    sender.join().unwrap();
                    // Answers of 12 MB in all, read only after a pause: the server's socket
                    // fills up and the connection waits to write.
                    for _ in 0..200 {
                        raw.send_query("SELECT REPEAT('x', 60000)").unwrap();
                    }
                    std::thread::sleep(Duration::from_millis(100));
                    for _ in 0..200 {
                        assert_eq!(raw.read_response().unwrap().len(), 60000);
                    }
                }
                // Ping-pong: each request arrives right after the previous answer went out,
                // often before the worker has let go of the connection.
                for i in 0..2000u64 {
                    raw.send_query(&format!("SELECT {i}")).unwrap();
                    assert_eq!(raw.read_response().unwrap(), i.to_string());
                }
                raw.send_query("SELECT 'done'").unwrap();
                raw.read_response().unwrap()
            })
        })
        .collect();
    for c in clients {
        assert_eq!(c.join().unwrap(), "done");
    }
}

/// The CPUs this test process may run on.
fn allowed_cpus() -> Vec<usize> {
    cohort_server::sched::steer::allowed_cpus().unwrap()
}

/// Run the calling thread on `cpu` only.
fn pin_to(cpu: usize) {
    // SAFETY: `set` is a plain bit set on the stack, zeroed before use.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        assert_eq!(
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set),
            0
        );
    }
}

/// `thread_pool_steering`: a connection is served by the group pinned to the CPU its client
/// sends from, and follows the client when it moves to another CPU — exactly one move per
/// change of CPU, and every answer right.
#[test]
fn connections_follow_their_client_to_its_cpu() {
    let cpus = allowed_cpus();
    assert!(
        cpus.len() >= 2,
        "this test needs 2 CPUs to move a client between"
    );
    let (a, b) = (cpus[0], cpus[1]);
    let server = Server::start("steering", &["--thread-pool-steering", "PINNED"]);
    // The observer stays on CPU a: after its first request its connection stays in a's group.
    pin_to(a);
    let mut admin = server.conn();
    let steered = |admin: &mut Conn| server.status(admin, "Threadpool_steered");
    steered(&mut admin);
    let before = steered(&mut admin);
    let (to_client, from_test) = std::sync::mpsc::channel::<Option<usize>>();
    let (to_test, done) = std::sync::mpsc::channel::<()>();
    let port = server.port;
    let client = std::thread::spawn(move || {
        pin_to(b);
        let mut raw = RawConn::login(port).unwrap();
        let mut n = 0u64;
        while let Some(cpu) = from_test.recv().unwrap() {
            pin_to(cpu);
            for _ in 0..100 {
                raw.send_query(&format!("SELECT {n}")).unwrap();
                assert_eq!(raw.read_response().unwrap(), n.to_string());
                n += 1;
            }
            to_test.send(()).unwrap();
        }
    });
    let mut phase = |cpu: usize| {
        to_client.send(Some(cpu)).unwrap();
        done.recv().unwrap();
        steered(&mut admin)
    };
    let on_b = phase(b);
    assert!(
        on_b - before <= 1,
        "at most one move into b's group: {before} → {on_b}"
    );
    let on_a = phase(a);
    assert_eq!(on_a - on_b, 1, "the client moved to CPU a: one move");
    let back_on_b = phase(b);
    assert_eq!(back_on_b - on_a, 1, "and back to CPU b: one move");
    assert_eq!(phase(b), back_on_b, "no move while it stays");
    to_client.send(None).unwrap();
    client.join().unwrap();
}

/// Clients that hop between CPUs while they query and commit: their connections move between
/// groups all the time (often with a commit outcome on its way), and no answer or commit is
/// lost or doubled.
#[test]
fn clients_hopping_between_cpus_lose_nothing() {
    let cpus = allowed_cpus();
    let server = Server::start("hopping", &["--thread-pool-steering", "ON"]);
    let mut admin = server.conn();
    create_table(&mut admin, 8);
    let port = server.port;
    let clients: Vec<_> = (0..8usize)
        .map(|c| {
            let cpus = cpus.clone();
            std::thread::spawn(move || {
                let mut raw = RawConn::login(port).unwrap();
                let mut updates = 0u64;
                for i in 0..1500usize {
                    if i % 25 == 0 {
                        pin_to(cpus[(c + i / 25) % cpus.len()]);
                    }
                    if i % 3 == 0 {
                        raw.send_query(&format!("UPDATE d.t SET v = v + 1 WHERE id = {c}"))
                            .unwrap();
                        assert_eq!(raw.read_response().unwrap(), "ok");
                        updates += 1;
                    } else {
                        raw.send_query(&format!("SELECT {i}")).unwrap();
                        assert_eq!(raw.read_response().unwrap(), i.to_string());
                    }
                }
                updates
            })
        })
        .collect();
    let updates: u64 = clients.into_iter().map(|c| c.join().unwrap()).sum();
    assert_eq!(sum_v(&mut admin), updates);
    let moves = server.status(&mut admin, "Threadpool_steered");
    assert!(
        cpus.len() < 2 || moves >= 8,
        "connections moved as their clients hopped: {moves}"
    );
}

/// Connections per group, from `information_schema.THREAD_POOL_GROUPS` (groups that still
/// show, by id).
fn connections_per_group(c: &mut Conn) -> Vec<(u64, u64)> {
    c.query(
        "SELECT GROUP_ID, CONNECTIONS FROM information_schema.THREAD_POOL_GROUPS ORDER BY GROUP_ID",
    )
    .unwrap()
}

/// `SET GLOBAL thread_pool_size` grows and shrinks the pool while clients commit: new groups
/// start, every connection moves to its new home group at its next request, groups beyond
/// the new size empty, and no acknowledged commit is lost. Sizes beyond the group table and
/// 0 are refused with 1231.
#[test]
fn thread_pool_size_follows_set_global_while_clients_commit() {
    let server = Server::start(
        "resize",
        &["--thread-pool-size", "2", "--thread-pool-steering", "OFF"],
    );
    let mut admin = server.conn();
    create_table(&mut admin, 4);
    let stop = Arc::new(AtomicBool::new(false));
    let workers = committers(server.port, 4, &stop);
    let mut idle: Vec<Conn> = (0..8).map(|_| server.conn()).collect();
    // Every connection is served once after the resize, and so reaches its home group.
    let mut touch_all = |admin: &mut Conn| {
        for c in idle.iter_mut() {
            assert_eq!(c.query_first::<u64, _>("SELECT 7").unwrap(), Some(7));
        }
        admin.query_drop("DO 0").unwrap();
        std::thread::sleep(Duration::from_millis(200));
    };
    let total = 1 + 4 + 8;
    for size in [4u64, 1, 3, 2] {
        admin
            .query_drop(format!("SET GLOBAL thread_pool_size = {size}"))
            .unwrap();
        touch_all(&mut admin);
        let groups = connections_per_group(&mut admin);
        let in_size: u64 = groups.iter().filter(|g| g.0 < size).map(|g| g.1).sum();
        let beyond: u64 = groups.iter().filter(|g| g.0 >= size).map(|g| g.1).sum();
        assert_eq!((in_size, beyond), (total, 0), "size {size}: {groups:?}");
        let used = groups.iter().filter(|g| g.0 < size && g.1 > 0).count() as u64;
        assert_eq!(
            used, size,
            "connections spread over every group: {groups:?}"
        );
    }
    for bad in ["0", "129"] {
        let e = admin
            .query_drop(format!("SET GLOBAL thread_pool_size = {bad}"))
            .unwrap_err();
        assert!(e.to_string().contains("1231"), "{e}");
    }
    let size: Option<u64> = admin.query_first("SELECT @@thread_pool_size").unwrap();
    assert_eq!(size, Some(2));
    stop.store(true, Ordering::Relaxed);
    let acked: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();
    assert!(acked > 0);
    assert_eq!(sum_v(&mut admin), acked);
}
