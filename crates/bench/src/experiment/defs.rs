//! The six experiments: what each measures, its variants (server flags) and its sections.
//!
//! Variant flags use the field's variable names where they exist (DESIGN.md §2: "every
//! policy the literature toggles is a server variable"); a Cohort build that does not know
//! a flag refuses to start, and the report shows that variant as "not available" with the
//! server's own message. Every experiment also runs `cohort (default)`, the server with no
//! flags, which must sit on the winning side.

use crate::pacer::Arrival;
use crate::rand::Distribution;
use crate::workload::WorkloadOptions;

/// Which server a variant runs.
#[derive(Clone, Debug)]
pub enum Engine {
    /// `cohort serve` with these extra flags.
    Cohort(Vec<String>),
    /// `mariadbd` (with `--with-mariadb`) with these extra flags, or the `--mariadb` URL.
    MariaDb(Vec<String>),
}

#[derive(Clone, Debug)]
pub struct VariantDef {
    pub name: String,
    pub about: String,
    pub engine: Engine,
}

/// How load is applied in a section.
#[derive(Clone, Copy, Debug)]
pub enum Load {
    /// Flat out.
    Closed,
    /// Fixed rate: this fraction of the flat-out throughput measured at 16 connections on
    /// the first variant (sized for roughly half the machine's CPU).
    RateFraction(f64),
}

#[derive(Clone, Debug)]
pub struct SectionDef {
    pub title: String,
    pub about: String,
    pub workload: String,
    pub opts: WorkloadOptions,
    pub load: Load,
    pub connections: Vec<usize>,
    /// Run the server in a network namespace behind veth + netem (the "remote client").
    pub remote: bool,
}

#[derive(Clone, Debug)]
pub struct ExperimentDef {
    pub name: &'static str,
    pub title: &'static str,
    pub about: String,
    /// Keep the servers' data on /dev/shm (RAM disk) instead of the temp directory.
    pub on_shm: bool,
    pub variants: Vec<VariantDef>,
    pub sections: Vec<SectionDef>,
    /// Seconds per point.
    pub time: f64,
    pub warmup: f64,
}

pub const NAMES: &[&str] = &[
    "group-commit-scheduling",
    "admission-control",
    "log-flush-placement",
    "commit-wakeup",
    "pool-of-threads",
    "headline",
    "tpcc",
];

fn flags(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn cohort(name: &str, about: &str, f: &[&str]) -> VariantDef {
    VariantDef {
        name: name.into(),
        about: about.into(),
        engine: Engine::Cohort(flags(f)),
    }
}

fn mariadb(name: &str, about: &str, f: &[&str]) -> VariantDef {
    VariantDef {
        name: name.into(),
        about: about.into(),
        engine: Engine::MariaDb(flags(f)),
    }
}

fn default_variant() -> VariantDef {
    cohort(
        "cohort (default)",
        "Cohort with no flags: whatever the build defaults to",
        &[],
    )
}

fn opts(tables: u32, table_size: u32) -> WorkloadOptions {
    WorkloadOptions {
        tables,
        table_size,
        ..WorkloadOptions::default()
    }
}

fn section(
    title: &str,
    about: &str,
    workload: &str,
    o: WorkloadOptions,
    conns: &[usize],
) -> SectionDef {
    SectionDef {
        title: title.into(),
        about: about.into(),
        workload: workload.into(),
        opts: o,
        load: Load::Closed,
        connections: conns.to_vec(),
        remote: false,
    }
}

/// A TPC-C section: `tables` carries the warehouses and `table_size` the items (the
/// scaled-down test population in quick mode).
fn tpcc_section(title: &str, warehouses: u32, quick: bool, conns: &[usize]) -> SectionDef {
    let items = if quick {
        crate::tpcc::Scale::TEST.items
    } else {
        crate::tpcc::Scale::FULL.items
    };
    section(
        &format!("TPC-C, {title}"),
        &format!(
            "{warehouses} warehouse(s), {items} items; NOPM and the latency of all transactions."
        ),
        "tpcc",
        opts(warehouses, items),
        conns,
    )
}

/// The definition of experiment `name`; `quick` shortens it to under two minutes.
pub fn get(name: &str, quick: bool) -> Option<ExperimentDef> {
    let q = |full: &[usize], short: &[usize]| -> Vec<usize> {
        if quick {
            short.to_vec()
        } else {
            full.to_vec()
        }
    };
    let size = |full: u32, short: u32| if quick { short } else { full };
    let (time, warmup) = if quick { (3.0, 1.0) } else { (10.0, 2.0) };
    let def = match name {
        "group-commit-scheduling" => {
            let mut o = opts(1, size(100_000, 10_000));
            o.dist.kind = Distribution::Uniform;
            ExperimentDef {
                name: NAMES[0],
                title: "Who runs the serial part of group commit (leader vs chained)",
                about: "MariaDB's `binlog_optimize_thread_scheduling`. Transactions must commit in the engine in binlog order. **Chained**: each thread commits itself and wakes the next, so the context switches sit inside the serial section. **Leader**: the first thread commits the whole group; the others only wait to be woken.\n\nWorkload: single-row `REPLACE INTO t (a,b) VALUES (?,?)` in autocommit, fully durable, data and logs on a RAM disk (`/dev/shm`) so the CPU is the bottleneck; QPS from 1 to 1024 connections for chained, leader and binlog off.\n\nPublished: leader about 10% ahead on 4 cores; over 20k commits/s on a 4-core desktop (Kristian Nielsen, 2011–2012).".into(),
                on_shm: true,
                variants: vec![
                    default_variant(),
                    cohort("leader", "the first committer commits the whole group in binlog order", &["--binlog-optimize-thread-scheduling", "ON"]),
                    cohort("chained", "each thread commits itself, then wakes the next", &["--binlog-optimize-thread-scheduling", "OFF"]),
                    cohort("binlog off", "no binary log: engine log only", &["--log-bin", "OFF"]),
                    mariadb("mariadb leader", "MariaDB 10.11, binlog_optimize_thread_scheduling=ON (its default)", &["--binlog-optimize-thread-scheduling=1"]),
                    mariadb("mariadb chained", "MariaDB 10.11, binlog_optimize_thread_scheduling=OFF", &["--binlog-optimize-thread-scheduling=0"]),
                    mariadb("mariadb binlog off", "MariaDB 10.11 without binlog", &["--skip-log-bin"]),
                ],
                sections: vec![section(
                    "REPLACE, durable, RAM disk",
                    "One `REPLACE INTO sbreplace1 (a, b) VALUES (?, ?)` per transaction (autocommit), `a` uniform over the table.",
                    "replace",
                    o,
                    &q(&[1, 4, 16, 64, 256, 1024], &[1, 16, 64]),
                )],
                time,
                warmup,
            }
        }
        "admission-control" => {
            let conns = q(&[16, 64, 256, 1024, 1536], &[16, 64, 256]);
            let o = opts(4, size(100_000, 10_000));
            let cpus = crate::server_probe::cpu_count().to_string();
            let cpus: &str = Box::leak(cpus.into_boxed_str());
            let mut sections = vec![section(
                "oltp_update_index",
                "sysbench `oltp_update_index`: `UPDATE sbtestN SET k=k+1 WHERE id=?`.",
                "oltp_update_index",
                o.clone(),
                &conns,
            )];
            if !quick {
                sections.insert(0, section("oltp_read_only", "sysbench `oltp_read_only`.", "oltp_read_only", o.clone(), &conns));
                sections.insert(1, section("oltp_read_write", "sysbench `oltp_read_write`.", "oltp_read_write", o.clone(), &conns));
                sections.push(section("oltp_point_select", "sysbench `oltp_point_select`.", "oltp_point_select", o.clone(), &conns));
            }
            ExperimentDef {
                name: NAMES[1],
                title: "Admission control (innodb_thread_concurrency)",
                about: format!("At most N threads do engine work at once; the rest queue. Two queue disciplines: a starvation-free **FIFO** wait queue with explicit events, and **adaptive sleep** polling on an atomic slot counter (+1 to the delay for a thread that waited more than one round, halved when a free slot is found and nobody sleeps, capped by `innodb_adaptive_max_sleep_delay`).\n\nWorkloads: OLTP read-only, read-write, update-index and point-select from 16 to 1536 connections, concurrency 0 (off) against N = CPUs ({cpus} here)."),
                on_shm: false,
                variants: vec![
                    default_variant(),
                    cohort("off", "innodb_thread_concurrency=0: no admission control", &["--thread-concurrency", "0"]),
                    cohort("fifo", "N = CPUs, FIFO queue with per-thread events", &["--thread-concurrency", cpus, "--concurrency-queue", "fifo"]),
                    cohort("adaptive sleep", "N = CPUs, adaptive sleep polling, max delay 150 ms", &["--thread-concurrency", cpus, "--concurrency-queue", "adaptive-sleep", "--adaptive-max-sleep-delay", "150000"]),
                    mariadb("mariadb", "MariaDB 10.11 (innodb_thread_concurrency was removed in 10.6)", &[]),
                ],
                sections,
                time,
                warmup,
            }
        }
        "log-flush-placement" => ExperimentDef {
            name: NAMES[2],
            title: "Where the engine log is flushed (MySQL 5.6 vs 5.7)",
            about: "**5.6 style**: the engine syncs its log in prepare (grouping point 1), then the binlog is synced (grouping point 2). **5.7 style**: prepare only writes to memory and the binlog leader flushes and syncs the engine log once for the whole group just before writing the binlog: one grouping point, bigger groups.\n\nWorkload: sysbench `oltp_update_non_index` on a small in-memory table with an fsync of about 3 ms (a consumer SSD), emulated by the server's fsync delay.\n\nPublished: 5.7 style 20–30% ahead.".into(),
            on_shm: false,
            variants: vec![
                default_variant(),
                cohort("5.6: sync in prepare", "engine log synced in prepare, then the binlog", &["--commit-mode", "classic", "--log-flush-placement", "prepare", "--log-sync-delay-us", "3000"]),
                cohort("5.7: leader syncs once", "the binlog leader flushes the engine log for the group", &["--commit-mode", "classic", "--log-flush-placement", "group", "--log-sync-delay-us", "3000"]),
                mariadb("mariadb", "MariaDB 10.11 (prepare-time redo sync, then binlog sync) with its real fsync of this disk (no 3 ms delay; for scale only)", &[]),
            ],
            sections: vec![section(
                "oltp_update_non_index, 3 ms fsync (Cohort variants)",
                "`UPDATE sbtest1 SET c=? WHERE id=?`, one table. The Cohort variants run the classic two-phase commit (engine redo log + binlog) with 3 ms added to every log sync; MariaDB runs with its real fsync and is shown for scale only.",
                "oltp_update_non_index",
                opts(1, size(10_000, 10_000)),
                &q(&[1, 4, 16, 64, 256], &[1, 16, 64]),
            )],
            time,
            warmup,
        },
        "commit-wakeup" => ExperimentDef {
            name: NAMES[3],
            title: "Wakeup contention of commit waiters (MySQL Bug #76686)",
            about: "All commit waiters share one mutex and condition variable (`LOCK_done` / `COND_done`): each signal broadcasts and every waiter wakes to check its own flag. The fix wakes each waiter (or partition) on its own. Found with `performance_schema.events_waits_summary_global_by_event_name`.\n\nWorkload: `oltp_update_non_index` on 10 tables of 100k rows, 16 to 256 connections.\n\nPublished: +1–5% at 64–256 threads; another tester saw a regression, so we measure it ourselves.".into(),
            on_shm: false,
            variants: vec![
                default_variant(),
                cohort("targeted", "each waiter is woken on its own", &["--commit-wakeup", "targeted"]),
                cohort("broadcast", "one shared condition variable, broadcast", &["--commit-wakeup", "broadcast"]),
                mariadb("mariadb", "MariaDB 10.11", &[]),
            ],
            sections: vec![section(
                "oltp_update_non_index, 10 tables",
                "sysbench `oltp_update_non_index`, 10 tables.",
                "oltp_update_non_index",
                opts(10, size(100_000, 10_000)),
                &q(&[16, 32, 64, 128, 256], &[16, 64]),
            )],
            time,
            warmup,
        },
        "pool-of-threads" => {
            let o = opts(4, size(100_000, 10_000));
            // Up to 10,000 connections: experiment 5 asks for them with `cohort bench`.
            let fixed = q(&[16, 64, 256, 1024, 2048, 4096, 10_000], &[16, 1024]);
            let mut sections = vec![
                SectionDef {
                    load: Load::RateFraction(0.5),
                    ..section(
                        "fixed rate, client on the same host",
                        "sysbench `oltp_read_only` at a fixed rate (open loop, Poisson arrivals) of half the flat-out throughput at 16 connections; latency from each transaction's intended start.",
                        "oltp_read_only",
                        o.clone(),
                        &fixed,
                    )
                },
                SectionDef {
                    load: Load::RateFraction(0.5),
                    remote: true,
                    ..section(
                        "fixed rate, remote client",
                        "The same, with the server in a network namespace joined by a veth pair with netem delay (a \"remote\" client on the same machine).",
                        "oltp_read_only",
                        o.clone(),
                        &fixed,
                    )
                },
            ];
            sections.push(section(
                "flat out, low connection counts",
                "Closed loop at low connection counts, where a pool used to cost 30–63%.",
                "oltp_read_only",
                o,
                &q(&[1, 4, 16, 64], &[16]),
            ));
            ExperimentDef {
                name: NAMES[4],
                title: "Pool of threads versus thread per connection (MySQL 6.0)",
                about: "Flat out, the pool cost up to 30–63% at low connection counts with the client on the same host. At a fixed transaction rate sized for about half the CPU, with connections varied up to 2048 and beyond: tps achieved, server %usr/%sys/%cpu, mean and 95th-percentile response time. The pool should win at high counts; MySQL 6.0's could not hold the target rate at 2048 connections and its response time grew with the connection count. Cohort must have neither flaw.".into(),
                on_shm: false,
                variants: vec![
                    default_variant(),
                    cohort("thread per connection", "one OS thread per connection", &["--thread-handling", "one-thread-per-connection"]),
                    cohort("pool of threads", "thread groups over epoll", &["--thread-handling", "pool-of-threads"]),
                    mariadb("mariadb thread per connection", "MariaDB 10.11", &[]),
                    mariadb("mariadb pool of threads", "MariaDB 10.11 thread pool", &["--thread-handling=pool-of-threads"]),
                ],
                sections,
                time,
                warmup,
            }
        }
        "headline" => ExperimentDef {
            name: NAMES[5],
            title: "Headline: durable oltp_update_non_index",
            about: "sysbench `oltp_update_non_index`, 4 tables × 100k rows, fully durable (binlog on, sync on every commit), 10 s per point — the sweep of DESIGN.md §6, where MariaDB 10.11 peaks at about 8k tps at 16 connections and falls to 3.3k at 2048 with one thread per connection.".into(),
            on_shm: false,
            variants: vec![
                default_variant(),
                mariadb("mariadb", "MariaDB 10.11, one thread per connection", &[]),
                mariadb("mariadb pool of threads", "MariaDB 10.11, thread pool", &["--thread-handling=pool-of-threads"]),
            ],
            sections: vec![section(
                "oltp_update_non_index, durable",
                "`UPDATE sbtestN SET c=? WHERE id=?`, autocommit.",
                "oltp_update_non_index",
                opts(4, size(100_000, 10_000)),
                &q(&[1, 4, 16, 64, 256, 1024, 2048], &[1, 16, 64]),
            )],
            time,
            warmup,
        },
        "tpcc" => ExperimentDef {
            name: NAMES[6],
            title: "TPC-C: new-orders per minute, durable",
            about: "TPC-C written from the specification (`cohort bench run tpcc`): the five transactions in the 45/43/4/4/4 mix, no think time, one terminal per connection bound to a home warehouse and district, every commit durable (MariaDB: binlog on, sync_binlog=1, innodb_flush_log_at_trx_commit=1). The result is NOPM, new-orders committed per minute; the consistency conditions 1–4 are checked after every point, and a violation fails the point. The issue's target: Cohort ≥ 3× MariaDB's NOPM at every point. Statements a server refuses with 1235 are listed in the result and their transactions counted as unsupported.".into(),
            on_shm: false,
            variants: vec![
                default_variant(),
                mariadb("mariadb", "MariaDB 10.11, one thread per connection", &[]),
            ],
            sections: vec![
                tpcc_section("1 warehouse", 1, quick, &q(&[16, 64, 256, 1024], &[16])),
                tpcc_section("10 warehouses", 10, quick, &q(&[16, 64, 256, 1024], &[16])),
            ],
            time,
            warmup,
        },
        _ => return None,
    };
    Some(def)
}

/// Arrival process of the fixed-rate sections.
pub const ARRIVAL: Arrival = Arrival::Poisson;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_experiment_is_defined() {
        for quick in [true, false] {
            for name in NAMES {
                let d = get(name, quick).unwrap();
                assert_eq!(d.name, *name);
                assert!(!d.sections.is_empty());
                assert!(d.variants.iter().any(|v| v.name == "cohort (default)"));
                for s in &d.sections {
                    assert!(
                        s.workload == "tpcc"
                            || crate::workload::by_name(&s.workload, &s.opts).is_ok()
                    );
                    assert!(!s.connections.is_empty());
                }
            }
        }
        assert!(get("nope", true).is_none());
        // Quick mode stays small: points × variants × seconds.
        for name in NAMES {
            let d = get(name, true).unwrap();
            let cohort_variants = d
                .variants
                .iter()
                .filter(|v| matches!(v.engine, Engine::Cohort(_)))
                .count();
            let points: usize = d.sections.iter().map(|s| s.connections.len()).sum();
            let secs = (points * cohort_variants) as f64 * (d.time + d.warmup);
            assert!(secs <= 80.0, "{name}: {secs}s");
        }
    }
}
