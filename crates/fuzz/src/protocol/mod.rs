//! The protocol fuzzer.
//!
//! * [`corpus`]: real packets from the captured traces;
//! * [`mutate`]: byte-level mutations aimed at length fields and terminators;
//! * [`targets`]: every decoder of `cohort-protocol` behind a `fn(&[u8])`;
//! * [`inproc`]: cases run in process under `catch_unwind`;
//! * [`wire`]: packet sequences against a live `cohort serve`, at every connection phase.
//!
//! With `--target both` each seed's time is split evenly between the two.

pub mod corpus;
pub mod inproc;
pub mod mutate;
pub mod targets;
pub mod wire;

use crate::common::{Common, Report, Tally};
use crate::oracle::Finding;
use crate::shrink::{shrink_bytes, shrink_seq, Budget};
use crate::sql::session::Session;
use corpus::Corpus;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    InProcess,
    Wire,
    Both,
}

impl Target {
    pub fn parse(s: &str) -> Result<Target, String> {
        match s {
            "in-process" => Ok(Target::InProcess),
            "wire" => Ok(Target::Wire),
            "both" => Ok(Target::Both),
            other => Err(format!("--target {other:?}: in-process, wire or both")),
        }
    }

    fn in_process(self) -> bool {
        self != Target::Wire
    }

    fn wire(self) -> bool {
        self != Target::InProcess
    }
}

/// Runs every seed; true when no (unsuppressed) finding was made.
pub fn run(
    common: &Common,
    target: Target,
    only_case: Option<u64>,
    traces: &[PathBuf],
) -> Result<bool, String> {
    let mut dirs = Corpus::default_dirs();
    dirs.extend(traces.iter().cloned());
    let corpus = Corpus::load(&dirs);
    println!("protocol: corpus: {}", corpus.summary());
    if target.in_process() {
        inproc::install_panic_hook();
    }
    let mut tally = Tally::default();
    for &seed in &common.seeds {
        println!("protocol: seed {seed}");
        let deadline = common.seed_deadline();
        // With both targets, the first half of the seed's time goes to the codec in process.
        let split = match (deadline, target) {
            (Some(d), Target::Both) => {
                let now = Instant::now();
                Some(now + (d.saturating_duration_since(now)) / 2)
            }
            _ => deadline,
        };
        if target.in_process() {
            run_in_process(common, seed, only_case, split, &corpus, &mut tally);
        }
        if target.wire() {
            run_wire(common, seed, only_case, deadline, &mut tally)?;
        }
    }
    Ok(tally.finish("protocol fuzzer"))
}

/// Counts that stop a loop: `--case` runs exactly one, else time and `--iterations`.
fn stop_at(
    common: &Common,
    only_case: Option<u64>,
    deadline: Option<Instant>,
) -> impl Fn(u64) -> bool + '_ {
    move |i| match only_case {
        Some(c) => i > c,
        None => common.done(i, deadline),
    }
}

fn run_in_process(
    common: &Common,
    seed: u64,
    only_case: Option<u64>,
    deadline: Option<Instant>,
    corpus: &Corpus,
    tally: &mut Tally,
) {
    let t0 = Instant::now();
    let mut next = only_case.unwrap_or(0);
    let mut total = 0;
    let mut deadline = deadline;
    let mut counts = vec![(0u64, 0u64); targets::TARGETS.len()];
    loop {
        let out = inproc::run_cases(seed, corpus, next, stop_at(common, only_case, deadline));
        total += out.cases;
        for (sum, c) in counts.iter_mut().zip(&out.counts) {
            sum.0 += c.0;
            sum.1 += c.1;
        }
        let Some((i, finding, case)) = out.finding else {
            break;
        };
        let t = Instant::now();
        let stop = report_in_process(common, seed, i, finding, &case, tally);
        deadline = deadline.map(|d| d + t.elapsed());
        if stop {
            break;
        }
        next = i + 1;
    }
    println!(
        "protocol: seed {seed}: {total} in-process cases in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    // How many inputs each decoder accepted: mutations must not only produce garbage.
    let shares: Vec<String> = targets::TARGETS
        .iter()
        .zip(&counts)
        .filter(|(_, c)| c.0 > 0)
        .map(|(t, c)| format!("{} {}/{}", t.name, c.1, c.0))
        .collect();
    println!("  accepted/cases: {}", shares.join(", "));
}

/// Reports an in-process finding; true when the seed must stop.
fn report_in_process(
    common: &Common,
    seed: u64,
    i: u64,
    finding: Finding,
    case: &inproc::Case,
    tally: &mut Tally,
) -> bool {
    println!("\nprotocol: seed {seed}, in-process case {i}: FINDING {finding}");
    if common.suppress.matches(&finding) || tally.seen(&finding) {
        println!("  (suppressed or already reported)");
        if !tally.seen(&finding) {
            tally.suppressed.push(finding);
        }
        return false;
    }
    let mut budget = Budget::new(Duration::from_secs(common.shrink_seconds), 200_000);
    let small = inproc::minimise(case, &finding, &mut budget);
    let reproducer = format!(
        "  target {}: {} input bytes minimised to {} ({} tries):\n    {}\n  reproduce: cohort-fuzz protocol --target in-process --seed {seed} --case {i}\n",
        case.target.name,
        case.input.len(),
        small.len(),
        budget.tries,
        crate::sql::values::hex_full(&small)
    );
    println!("{reproducer}");
    tally.reports.push(Report {
        finding,
        seed,
        iteration: i,
        reproducer,
    });
    !common.keep_going
}

fn start_session(common: &Common, dir: &std::path::Path, port: u16) -> Result<Session, String> {
    crate::common::ensure_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Session::start(
        common.server.clone(),
        port,
        &dir.join("data"),
        &dir.join("server.log"),
        common.request_timeout,
        common.max_rss_mb,
    )
    .map_err(|f| format!("cannot start the server under test:\n{f}"))
}

fn run_wire(
    common: &Common,
    seed: u64,
    only_case: Option<u64>,
    mut deadline: Option<Instant>,
    tally: &mut Tally,
) -> Result<(), String> {
    let dir = common.workdir.join(format!("protocol-seed-{seed}"));
    crate::common::ensure_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let port = common.port();
    let mut session = start_session(common, &dir, port)?;
    let t0 = Instant::now();
    let mut i = only_case.unwrap_or(0);
    let mut count = 0;
    let stop = |i: u64, d: Option<Instant>| match only_case {
        Some(c) => i > c,
        None => common.done(i, d),
    };
    while !stop(i, deadline) {
        let case = wire::case(seed, i);
        let result = wire::run(
            session.server.addr(),
            session.server.pid(),
            &case,
            common.request_timeout,
        );
        count += 1;
        if let Some(finding) = wire::judge(&mut session, &case, result) {
            let t = Instant::now();
            let stop_seed = report_wire(common, &dir, seed, i, finding, &case, tally);
            deadline = deadline.map(|d| d + t.elapsed());
            if stop_seed {
                session.stop();
                return Ok(());
            }
            // A server that still answers keeps serving the next cases.
            if session.check_server().is_some() || session.liveness().is_err() {
                session.stop();
                session = start_session(common, &dir, port)?;
            }
        }
        i += 1;
    }
    session.stop();
    println!(
        "protocol: seed {seed}: {count} wire cases in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Replays a wire case on a fresh server: does it give the same finding?
fn wire_fails(
    common: &Common,
    dir: &std::path::Path,
    case: &wire::WireCase,
    want: &Finding,
) -> bool {
    let replay = dir.join("replay");
    let port = crate::server::free_port();
    let Ok(mut s) = start_session(common, &replay, port) else {
        return false;
    };
    let result = wire::run(
        s.server.addr(),
        s.server.pid(),
        case,
        common.request_timeout,
    );
    let found = wire::judge(&mut s, case, result);
    s.stop();
    let _ = std::fs::remove_dir_all(replay.join("data"));
    let _ = std::fs::remove_file(replay.join("server.log"));
    found.is_some_and(|f| f.key() == want.key())
}

fn report_wire(
    common: &Common,
    dir: &std::path::Path,
    seed: u64,
    i: u64,
    finding: Finding,
    case: &wire::WireCase,
    tally: &mut Tally,
) -> bool {
    println!("\nprotocol: seed {seed}, wire case {i}: FINDING {finding}");
    if common.suppress.matches(&finding) || tally.seen(&finding) {
        println!("  (suppressed or already reported)");
        if !tally.seen(&finding) {
            tally.suppressed.push(finding);
        }
        return false;
    }
    let mut budget = Budget::new(Duration::from_secs(common.shrink_seconds), 2_000);
    budget.take();
    let reproduced = wire_fails(common, dir, case, &finding);
    let mut small = case.clone();
    // A canary case is a fixed template whose every packet matters (shrinking it could
    // remove the COM_QUIT and keep the INSERT, which then rightly runs).
    if reproduced && case.canary.is_none() && case.rss_growth_limit_mb.is_none() {
        small.writes = shrink_seq(small.writes.clone(), &mut budget, |w| {
            let c = wire::WireCase {
                writes: w.to_vec(),
                ..small.clone()
            };
            wire_fails(common, dir, &c, &finding)
        });
        for k in 0..small.writes.len() {
            let bytes = small.writes[k].bytes.clone();
            let shrunk = shrink_bytes(bytes, &mut budget, |b| {
                let mut c = small.clone();
                c.writes[k].bytes = b.to_vec();
                wire_fails(common, dir, &c, &finding)
            });
            small.writes[k].bytes = shrunk;
        }
    }
    let reproducer = format!(
        "  {} ({} tries):\n{}  reproduce: cohort-fuzz protocol --target wire --seed {seed} --case {i}\n",
        match (
            reproduced,
            case.canary.is_some() || case.rss_growth_limit_mb.is_some(),
        ) {
            (true, true) => "reproduced on a fresh server (a fixed template, not minimised)",
            (true, false) => "minimised on fresh servers",
            (false, _) => "NOT reproduced on a fresh server; the case as run",
        },
        budget.tries,
        indent(&wire::describe(&small))
    );
    println!("{reproducer}");
    tally.reports.push(Report {
        finding,
        seed,
        iteration: i,
        reproducer,
    });
    !common.keep_going
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {l}\n")).collect()
}
