//! The SQL fuzzer's main loop, per seed.
//!
//! ```text
//! epoch (fresh data directory, server flags chosen by seed and epoch number):
//!     every action:            generate, run, judge (see `session`)
//!     every `batch` actions:   a fresh connection must run SELECT 1
//!     every `restart` actions: SIGKILL or SIGTERM the server, and it must come back on the
//!                              same data directory (recorded as an action, so replays
//!                              restart at the same points)
//!     after `epoch` actions:   next epoch
//! ```
//!
//! Epochs rotate through the log configurations whose recovery paths differ: one-log (the
//! binlog is the redo log) with a checkpoint after nearly every commit, `--log-bin OFF`
//! (redo only), classic two-phase commit, and the pool of threads with tiny binlog files.
//!
//! A finding is minimised ([`super::repro`]) and reported with the seed and iteration; then
//! the seed stops, unless `--keep-going` (a new epoch begins; a finding already seen is only
//! counted).

use super::action::Action;
use super::grammar::Generator;
use super::repro::Replayer;
use super::session::Session;
use crate::common::{Common, Report, Tally};
use crate::oracle::Finding;
use crate::server::ServerSpec;
use crate::shrink::Budget;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Loop shape.
#[derive(Clone, Debug)]
pub struct SqlOptions {
    pub batch: u64,
    pub restart_every: u64,
    pub epoch: u64,
    /// Local triage: generated actions whose text contains one of these are not run (a
    /// known class that would otherwise end every epoch early).
    pub skip: Vec<String>,
    /// Local triage: no recursion-depth statements.
    pub no_deep: bool,
}

/// `cohort serve` flags per epoch (rotating).
const CONFIGS: &[&[&str]] = &[
    &["--checkpoint-log-bytes", "4096"],
    &["--log-bin", "OFF"],
    &["--commit-mode", "classic", "--checkpoint-log-bytes", "4096"],
    &[
        "--thread-handling",
        "pool-of-threads",
        "--checkpoint-log-bytes",
        "4096",
        "--max-binlog-size",
        "8192",
    ],
];

fn spec_for(base: &ServerSpec, seed: u64, epoch: u64) -> ServerSpec {
    let mut spec = base.clone();
    let i = (seed.wrapping_add(epoch) % CONFIGS.len() as u64) as usize;
    spec.flags.extend(CONFIGS[i].iter().map(|s| s.to_string()));
    spec
}

/// Runs every seed; true when no (unsuppressed) finding was made.
pub fn run(common: &Common, opts: &SqlOptions) -> Result<bool, String> {
    let mut tally = Tally::default();
    for &seed in &common.seeds {
        let deadline = common.seed_deadline();
        println!("sql: seed {seed} (reproduce with: cohort-fuzz sql --seed {seed} …)");
        // A seed stops at its first finding (unless --keep-going); the next seeds still run.
        run_seed(common, opts, seed, deadline, &mut tally)?;
    }
    Ok(tally.finish("sql fuzzer"))
}

struct Epoch {
    number: u64,
    session: Session,
    history: Vec<Action>,
    spec: ServerSpec,
}

fn start_epoch(
    common: &Common,
    dir: &Path,
    seed: u64,
    number: u64,
    port: u16,
) -> Result<Epoch, String> {
    let spec = spec_for(&common.server, seed, number);
    let session = Session::start(
        spec.clone(),
        port,
        &dir.join("data"),
        &dir.join(format!("server-epoch-{number}.log")),
        common.request_timeout,
        common.max_rss_mb,
    )
    .map_err(|f| {
        format!(
            "cannot start the server under test ({}):\n{f}",
            spec.flags.join(" ")
        )
    })?;
    if common.verbose {
        println!("  epoch {number}: cohort serve {}", spec.flags.join(" "));
    }
    Ok(Epoch {
        number,
        session,
        history: Vec::new(),
        spec,
    })
}

/// One seed; `Ok(true)` when it stopped on a finding.
fn run_seed(
    common: &Common,
    opts: &SqlOptions,
    seed: u64,
    mut deadline: Option<Instant>,
    tally: &mut Tally,
) -> Result<bool, String> {
    let dir = common.workdir.join(format!("sql-seed-{seed}"));
    crate::common::ensure_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let port = common.port();
    let mut gen = Generator::new(seed);
    gen.deep = !opts.no_deep;
    let mut stats = Outcomes::new();
    let mut epoch = start_epoch(common, &dir, seed, 0, port)?;
    let mut since_epoch = 0u64;
    let mut i = 0u64;
    let t0 = Instant::now();
    while !common.done(i, deadline) {
        if since_epoch > 0 && since_epoch.is_multiple_of(opts.restart_every) {
            let restart = Action::Restart {
                kill: (since_epoch / opts.restart_every) % 2 == 1,
            };
            if let Err(f) = record_step(&mut epoch, restart) {
                let t = Instant::now();
                if handle(common, &dir, seed, i, &epoch, f, tally) {
                    return Ok(true);
                }
                // Minimising is not fuzzing time.
                deadline = deadline.map(|d| d + t.elapsed());
                epoch = next_epoch(common, &dir, seed, epoch, port, &mut gen, &mut stats)?;
                since_epoch = 0;
                continue;
            }
        }
        let mut action = gen.action();
        if !opts.skip.is_empty() {
            let text = action.describe();
            if opts.skip.iter().any(|s| text.contains(s.as_str())) {
                action = Action::Query(crate::tree::tok("DO 0"));
            }
        }
        let shown = common.verbose.then(|| abbreviated(&action));
        let t = Instant::now();
        let mut result = record_step(&mut epoch, action);
        if let Some(shown) = shown {
            let reply = epoch
                .session
                .last_reply()
                .map(|r| r.summary())
                .unwrap_or_default();
            println!(
                "  #{i} [{} ms]: {shown}\n      -> {reply}",
                t.elapsed().as_millis()
            );
        }
        if result.is_ok() && (i + 1).is_multiple_of(opts.batch) {
            result = epoch.session.liveness();
        }
        i += 1;
        since_epoch += 1;
        if let Err(f) = result {
            let t = Instant::now();
            if handle(common, &dir, seed, i - 1, &epoch, f, tally) {
                return Ok(true);
            }
            deadline = deadline.map(|d| d + t.elapsed());
            epoch = next_epoch(common, &dir, seed, epoch, port, &mut gen, &mut stats)?;
            since_epoch = 0;
        } else if since_epoch >= opts.epoch {
            epoch = next_epoch(common, &dir, seed, epoch, port, &mut gen, &mut stats)?;
            since_epoch = 0;
        }
    }
    merge(&mut stats, &epoch.session.outcomes);
    epoch.session.stop();
    println!(
        "sql: seed {seed}: {i} actions in {:.1} s, no more findings",
        t0.elapsed().as_secs_f64()
    );
    print_outcomes(&stats, common.verbose);
    if !common.keep_workdir {
        let _ = std::fs::remove_dir_all(dir.join("data"));
    }
    Ok(false)
}

type Outcomes = std::collections::BTreeMap<String, u64>;

fn merge(into: &mut Outcomes, from: &Outcomes) {
    for (k, v) in from {
        *into.entry(k.clone()).or_default() += v;
    }
}

/// How the server answered: the share of successes tells whether the generator gets past
/// the parser and the binder often enough.
fn print_outcomes(stats: &Outcomes, all: bool) {
    let total: u64 = stats.values().sum();
    if total == 0 {
        return;
    }
    let mut by_count: Vec<(&String, &u64)> = stats.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1));
    let shown: Vec<String> = by_count
        .iter()
        .take(if all { usize::MAX } else { 8 })
        .map(|(k, v)| format!("{k}: {:.1}%", **v as f64 * 100.0 / total as f64))
        .collect();
    println!("  replies: {}", shown.join(", "));
}

fn record_step(epoch: &mut Epoch, action: Action) -> Result<(), Finding> {
    epoch.history.push(action);
    let action = epoch.history.last().expect("just pushed");
    epoch.session.step(action)
}

fn next_epoch(
    common: &Common,
    dir: &Path,
    seed: u64,
    old: Epoch,
    port: u16,
    gen: &mut Generator,
    stats: &mut Outcomes,
) -> Result<Epoch, String> {
    let number = old.number + 1;
    merge(stats, &old.session.outcomes);
    old.session.stop();
    gen.reset_schema();
    start_epoch(common, dir, seed, number, port)
}

/// Reports (or suppresses) a finding; true when the seed must stop.
fn handle(
    common: &Common,
    dir: &Path,
    seed: u64,
    iteration: u64,
    epoch: &Epoch,
    finding: Finding,
    tally: &mut Tally,
) -> bool {
    println!("\nsql: seed {seed}, iteration {iteration}: FINDING {finding}");
    if common.suppress.matches(&finding) {
        println!("  (suppressed by --suppress; continuing with a fresh data directory)");
        if !tally.seen(&finding) {
            tally.suppressed.push(finding);
        }
        return false;
    }
    if tally.seen(&finding) {
        // Already minimised and reported: go on looking for others.
        println!("  (already reported in this run)");
        return false;
    }
    let (reproducer, actions) = minimise(common, dir, epoch, &finding);
    println!("{reproducer}");
    let path = dir.join(format!("finding-{iteration}.txt"));
    let _ = std::fs::write(
        &path,
        format!("seed {seed} iteration {iteration}\n{finding}\n\n{reproducer}\n"),
    );
    let sql = dir.join(format!("finding-{iteration}.sql"));
    let _ = std::fs::write(&sql, raw_script(&actions));
    println!(
        "  (written to {}; the statements, byte-exact, in {})",
        path.display(),
        sql.display()
    );
    tally.reports.push(Report {
        finding,
        seed,
        iteration,
        reproducer,
    });
    !common.keep_going
}

/// The reproducer's statements as a script for `mariadb … fz < file` (prepared statements
/// and other actions as comments; statement bytes exactly as sent).
fn raw_script(actions: &[Action]) -> Vec<u8> {
    let mut out = b"USE fz;\n".to_vec();
    for a in actions {
        match a {
            Action::Query(n) => {
                out.extend(n.render());
                out.extend_from_slice(b";\n");
            }
            other => {
                for line in other.describe().lines() {
                    out.extend_from_slice(format!("-- {line}\n").as_bytes());
                }
            }
        }
    }
    out
}

fn minimise(
    common: &Common,
    dir: &Path,
    epoch: &Epoch,
    finding: &Finding,
) -> (String, Vec<Action>) {
    let mut replayer = Replayer {
        spec: epoch.spec.clone(),
        port: crate::server::free_port(),
        dir: PathBuf::from(dir),
        timeout: common.request_timeout,
        max_rss_mb: common.max_rss_mb,
        verbose: common.verbose,
        replays: 0,
    };
    let t0 = Instant::now();
    let mut budget = Budget::new(Duration::from_secs(common.shrink_seconds), 100_000);
    let m = replayer.minimise(&epoch.history, finding, &mut budget);
    let mut out = String::new();
    out.push_str(&format!(
        "  server: cohort serve {} (fresh data directory); connect as root, then USE fz\n",
        epoch.spec.flags.join(" ")
    ));
    if m.reproduced {
        out.push_str(&format!(
            "  minimised reproducer ({} of {} actions; {} replays, {:.1} s{}):\n",
            m.actions.len(),
            epoch.history.len(),
            m.replays,
            t0.elapsed().as_secs_f64(),
            if budget.spent() {
                "; shrink budget spent"
            } else {
                ""
            }
        ));
    } else {
        out.push_str(&format!(
            "  NOT reproduced on a fresh server ({} replays); the last action was:\n",
            m.replays
        ));
    }
    let shown: Vec<&Action> = if m.reproduced {
        m.actions.iter().collect()
    } else {
        epoch.history.last().into_iter().collect()
    };
    for a in &shown {
        for line in a.describe().lines() {
            out.push_str(&format!("    {line}\n"));
        }
    }
    (out, shown.into_iter().cloned().collect())
}

fn abbreviated(a: &Action) -> String {
    let d = a.describe().replace('\n', " ");
    if d.chars().count() > 200 {
        let cut: String = d.chars().take(200).collect();
        format!("{cut}… ({} bytes)", a.size())
    } else {
        d
    }
}
