//! The wait summary of a real durable server (binlog on, files in a temporary directory),
//! read over the wire: `performance_schema.events_waits_summary_global_by_event_name` shows the
//! commit pipeline's waits, and the broadcast wakeups of experiment 4 show up as `COND_done`
//! sleeps that the targeted form does not have.

mod common;

use cohort_server::config::{Config, ServeArgs};
use common::{root as connect, serve_on_loopback};
use mysql::prelude::*;
use mysql::Conn;
use std::collections::HashMap;

fn start_server(datadir: &std::path::Path) -> u16 {
    let cfg = Config::resolve(&ServeArgs {
        datadir: Some(datadir.to_path_buf()),
        ..Default::default()
    })
    .unwrap();
    serve_on_loopback(cohort_server::net::open_context(&cfg).unwrap())
}

/// 8 sessions × 20 durable commits, each sync made 2 ms slower so that commits queue up.
fn commit_load(port: u16, base: u32) {
    let threads: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut c = connect(port);
                for i in 0..20 {
                    let id = base + t * 100 + i;
                    c.query_drop(format!("INSERT INTO w.t VALUES ({id}, 1)"))
                        .unwrap();
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
}

fn counts(c: &mut Conn) -> HashMap<String, u64> {
    c.query::<(String, u64), _>(
        "SELECT EVENT_NAME, COUNT_STAR FROM performance_schema.events_waits_summary_global_by_event_name",
    )
    .unwrap()
    .into_iter()
    .collect()
}

#[test]
fn commit_pipeline_waits_appear_in_the_summary() {
    let dir = std::env::temp_dir().join(format!("cohort-waits-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let port = start_server(&dir);
    let mut admin = connect(port);
    admin.query_drop("CREATE DATABASE w").unwrap();
    admin
        .query_drop("CREATE TABLE w.t (id INT PRIMARY KEY, v INT)")
        .unwrap();
    admin
        .query_drop("SET GLOBAL log_sync_delay_us = 2000")
        .unwrap();

    // Broadcast wakeups (MySQL Bug #76686).
    admin
        .query_drop("SET GLOBAL commit_wakeup = 'broadcast'")
        .unwrap();
    admin
        .query_drop("TRUNCATE TABLE performance_schema.events_waits_summary_global_by_event_name")
        .unwrap();
    commit_load(port, 0);
    let b = counts(&mut admin);
    assert!(b["wait/io/file/cohort/binlog_sync"] >= 1, "{b:?}");
    assert!(b["wait/synch/cond/cohort/commit_done"] >= 1, "{b:?}");
    assert!(b["wait/synch/cond/cohort/COND_done"] >= 1, "{b:?}");
    assert!(b["wait/synch/mutex/cohort/LOCK_log"] >= 1, "{b:?}");
    assert_eq!(b["wait/synch/cond/cohort/commit_ticket"], 0, "{b:?}");

    // Targeted wakeups: each waiter sleeps on its own condition variable.
    admin
        .query_drop("SET GLOBAL commit_wakeup = 'targeted'")
        .unwrap();
    admin
        .query_drop("TRUNCATE TABLE performance_schema.events_waits_summary_global_by_event_name")
        .unwrap();
    commit_load(port, 10_000);
    let t = counts(&mut admin);
    assert!(t["wait/synch/cond/cohort/commit_ticket"] >= 1, "{t:?}");
    assert_eq!(t["wait/synch/cond/cohort/COND_done"], 0, "{t:?}");
    assert_eq!(t["wait/synch/mutex/cohort/LOCK_done"], 0, "{t:?}");

    // The question of experiment 4, as asked of MySQL: the top waits by total time.
    let top: Vec<(String, u64)> = admin
        .query(
            "SELECT EVENT_NAME, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name \
             WHERE COUNT_STAR > 0 ORDER BY SUM_TIMER_WAIT DESC LIMIT 10",
        )
        .unwrap();
    assert!(!top.is_empty() && top.len() <= 10);
    assert!(top.windows(2).all(|w| w[0].1 >= w[1].1), "{top:?}");
    let total: u64 = admin
        .query_first("SELECT COUNT(*) FROM w.t")
        .unwrap()
        .unwrap();
    assert_eq!(total, 320);
    std::fs::remove_dir_all(&dir).unwrap();
}
