//! The pool's timer: every `thread_pool_stall_limit` ms it refreshes the cached settings and
//! runs each group's stall check ([`super::group::GroupState::check_stall`]); about once a
//! second it closes connections past their deadline (`wait_timeout` idle, 10 s in the
//! handshake, `net_write_timeout` blocked writing).

use super::group::ThreadGroup;
use super::Pool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often deadlines are checked (at most; a stall limit above it checks at each tick).
const DEADLINE_SCAN: Duration = Duration::from_secs(1);

pub fn spawn_timer(pool: Arc<Pool>) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("pool-timer".into())
        .spawn(move || run(&pool))
        .map(|_| ())
}

fn run(pool: &Pool) {
    let mut last_scan = Instant::now();
    loop {
        std::thread::sleep(pool.shared.limits().stall_limit);
        pool.shared.settings.refresh(&pool.shared.ctx.vars);
        let limits = pool.shared.limits();
        let now = Instant::now();
        for group in pool.shared.started_groups() {
            group.check_stall(now, &limits);
        }
        if now.duration_since(last_scan) >= DEADLINE_SCAN {
            last_scan = now;
            let now_ms = pool.shared.now_ms();
            for group in pool.shared.started_groups() {
                expire_connections(group, now_ms);
            }
        }
    }
}

/// Close the group's connections whose deadline passed.
fn expire_connections(group: &ThreadGroup, now_ms: u64) {
    let expired: Vec<_> = group
        .conns
        .lock()
        .values()
        .filter(|c| c.expired(now_ms))
        .cloned()
        .collect();
    for conn in expired {
        conn.expire();
    }
}
