//! The run: for each seed, schemas one after another (each loaded into both servers), and
//! queries against each schema, compared; a difference is minimized, printed and written to a
//! file.
//!
//! Reproducibility: schema `e` of seed `s` comes from the stream `(s, 1, e)` and its query `i`
//! from `(s, 2, e * 2^20 + i)`, so `--seed s --schema e --query i` regenerates one case.
//!
//! Verdicts: *equal* (same rows, or both failed with the same code), *different*, *refused*
//! (Cohort answered 1235, not supported yet: counted apart, never a pass), *timeout* (MariaDB's
//! max_statement_time, or the tester's KILL QUERY of Cohort after the same 3 s, cut it short:
//! neither), *evaluation order* (one server failed with a data
//! error — out of range, a subquery of more than one row, … — and the other returned rows: the
//! error came from a row or expression the other never evaluated, which SQL leaves to each
//! server's plan; counted apart, never a pass). A lost connection to Cohort is a difference (a
//! crash or hang), and ends the seed.

use crate::ast::Query;
use crate::gen::{Features, Gen};
use crate::outcome::{self, Outcome, NOT_SUPPORTED, QUERY_INTERRUPTED, STATEMENT_TIMEOUT};
use crate::rng::Rng;
use crate::schema::Schema;
use crate::servers::Endpoint;
use crate::shrink;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The time either server may spend on one statement (MariaDB's max_statement_time; a
/// watchdog's KILL QUERY for Cohort).
const STATEMENT_SECONDS: u64 = 3;

/// The database both servers use.
const DB: &str = "difftest";

pub struct Options {
    pub seeds: Vec<u64>,
    pub seconds: Option<u64>,
    pub queries: Option<u64>,
    pub features: Features,
    pub queries_per_schema: u64,
    pub shrink_seconds: u64,
    /// Stop a seed after this many differences.
    pub max_diffs: u64,
    pub workdir: PathBuf,
    pub verbose: bool,
    /// Regenerate a single case: (schema, query).
    pub only: Option<(u64, u64)>,
}

#[derive(Default, Debug)]
pub struct Tally {
    pub queries: u64,
    pub equal_rows: u64,
    pub equal_errors: u64,
    pub different: u64,
    pub refused: u64,
    pub timeouts: u64,
    pub evaluation_order: u64,
    pub load_differences: u64,
    /// Connections to Cohort lost (a crash or hang): never allowed.
    pub lost: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Verdict {
    EqualRows,
    EqualErrors,
    Different,
    Refused,
    Timeout,
    EvaluationOrder,
}

/// The two connections.
pub struct Pair {
    cohort_ep: Endpoint,
    cohort: Conn,
    maria: Conn,
}

impl Pair {
    pub fn connect(cohort_ep: Endpoint, maria_ep: Endpoint) -> Result<Pair, String> {
        let t = Duration::from_secs(60);
        let cohort = cohort_ep.connect(None, t)?;
        let maria = maria_ep.connect(None, t)?;
        Ok(Pair {
            cohort_ep,
            cohort,
            maria,
        })
    }

    fn reconnect_cohort(&mut self) -> Result<(), String> {
        self.cohort = self.cohort_ep.connect(Some(DB), Duration::from_secs(60))?;
        session_setup(&mut self.cohort);
        Ok(())
    }

    fn run(&mut self, sql: &str) -> (Outcome, Outcome) {
        (self.run_cohort(sql), outcome::run(&mut self.maria, sql))
    }

    /// Cohort's answer, with the time MariaDB's max_statement_time allows it: a watchdog
    /// sends KILL QUERY past [`STATEMENT_SECONDS`] (the answer is then 1317, counted as a
    /// timeout), so a statement that runs away cannot hold the server for the queries after it.
    fn run_cohort(&mut self, sql: &str) -> Outcome {
        let id = self.cohort.connection_id();
        let ep = self.cohort_ep.clone();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let watchdog = std::thread::spawn(move || {
            let limit = Duration::from_secs(STATEMENT_SECONDS);
            if done_rx.recv_timeout(limit) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
                if let Ok(mut c) = ep.connect(None, Duration::from_secs(10)) {
                    let _ = c.query_drop(format!("KILL QUERY {id}"));
                }
            }
        });
        let out = outcome::run(&mut self.cohort, sql);
        let _ = done_tx.send(());
        let _ = watchdog.join();
        out
    }

    /// A fresh database holding `schema`; the load's statements must agree too. Returns the
    /// differences (statement, Cohort's answer, MariaDB's).
    fn load(&mut self, schema: &Schema) -> Result<Vec<(String, Outcome, Outcome)>, String> {
        for c in [&mut self.cohort, &mut self.maria] {
            c.query_drop(format!("DROP DATABASE IF EXISTS {DB}"))
                .map_err(|e| e.to_string())?;
            c.query_drop(format!(
                "CREATE DATABASE {DB} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
            ))
            .map_err(|e| e.to_string())?;
            c.query_drop(format!("USE {DB}"))
                .map_err(|e| e.to_string())?;
            session_setup(c);
        }
        let _ = self
            .maria
            .query_drop(format!("SET max_statement_time = {STATEMENT_SECONDS}"));
        let mut diffs = Vec::new();
        for stmt in schema.script(None) {
            let (a, b) = self.run(&stmt);
            if let Outcome::Lost(e) = &a {
                return Err(format!(
                    "Cohort's connection was lost during the load ({stmt}): {e}"
                ));
            }
            let ok = outcome::same(&a, &b, true) || a.error_code() == Some(NOT_SUPPORTED);
            if !ok {
                diffs.push((stmt, a, b));
            }
        }
        Ok(diffs)
    }
}

/// Settings both sessions share: UTC, and utf8mb4_general_ci for literals.
fn session_setup(c: &mut Conn) {
    let _ = c.query_drop("SET time_zone = '+00:00'");
    let _ = c.query_drop("SET NAMES utf8mb4 COLLATE utf8mb4_general_ci");
}

fn verdict(a: &Outcome, b: &Outcome, ordered: bool) -> Verdict {
    if a.error_code() == Some(NOT_SUPPORTED) {
        return Verdict::Refused;
    }
    if b.error_code() == Some(STATEMENT_TIMEOUT) || a.error_code() == Some(QUERY_INTERRUPTED) {
        return Verdict::Timeout;
    }
    if outcome::evaluation_order(a, b) {
        return Verdict::EvaluationOrder;
    }
    if outcome::same(a, b, ordered) {
        if a.error_code().is_some() {
            Verdict::EqualErrors
        } else {
            Verdict::EqualRows
        }
    } else {
        Verdict::Different
    }
}

/// Runs every seed; true when no difference was found.
pub fn run(opts: &Options, pair: &mut Pair, tally: &mut Tally) -> Result<bool, String> {
    let mut clean = true;
    let per_seed = opts
        .seconds
        .map(|s| Duration::from_secs(s) / opts.seeds.len().max(1) as u32);
    for &seed in &opts.seeds {
        let deadline = per_seed.map(|d| Instant::now() + d);
        clean &= run_seed(opts, pair, tally, seed, deadline)?;
    }
    Ok(clean)
}

fn run_seed(
    opts: &Options,
    pair: &mut Pair,
    tally: &mut Tally,
    seed: u64,
    deadline: Option<Instant>,
) -> Result<bool, String> {
    let mut diffs = 0;
    let mut done = 0u64;
    let mut epoch = opts.only.map_or(0, |(e, _)| e);
    loop {
        let mut srng = Rng::derive(seed, 1, epoch);
        let schema = Schema::random(&mut srng);
        for (stmt, a, b) in pair.load(&schema)? {
            tally.load_differences += 1;
            diffs += 1;
            report_load(opts, seed, epoch, &stmt, &a, &b);
        }
        if diffs >= opts.max_diffs {
            return Ok(false);
        }
        let range = match opts.only {
            Some((_, q)) => q..q + 1,
            None => 0..opts.queries_per_schema,
        };
        for i in range {
            if opts.queries.is_some_and(|n| done >= n)
                || deadline.is_some_and(|d| Instant::now() >= d)
            {
                return Ok(diffs == 0);
            }
            let mut qrng = Rng::derive(seed, 2, (epoch << 20) + i);
            let q = Gen::new(&mut qrng, &schema, opts.features).query();
            let sql = q.to_string();
            let (a, b) = pair.run(&sql);
            done += 1;
            tally.queries += 1;
            let v = verdict(&a, &b, q.ordered());
            if opts.verbose {
                println!("[{seed}/{epoch}/{i}] {v:?}: {sql}");
            }
            match v {
                Verdict::EqualRows => tally.equal_rows += 1,
                Verdict::EqualErrors => tally.equal_errors += 1,
                Verdict::Refused => tally.refused += 1,
                Verdict::Timeout => tally.timeouts += 1,
                Verdict::EvaluationOrder => tally.evaluation_order += 1,
                Verdict::Different => {
                    tally.different += 1;
                    diffs += 1;
                    let lost = matches!(a, Outcome::Lost(_));
                    tally.lost += u64::from(lost);
                    report_difference(opts, pair, &schema, seed, epoch, i, &q, lost);
                    if lost {
                        pair.reconnect_cohort()
                            .map_err(|e| format!("Cohort is gone after a lost connection: {e}"))?;
                    }
                    if diffs >= opts.max_diffs {
                        return Ok(false);
                    }
                }
            }
        }
        if opts.only.is_some() {
            return Ok(diffs == 0);
        }
        epoch += 1;
    }
}

fn report_load(opts: &Options, seed: u64, epoch: u64, stmt: &str, a: &Outcome, b: &Outcome) {
    let text = format!(
        "-- cohort-difftest: load difference, seed {seed}, schema {epoch}\n{stmt};\n-- Cohort:  {}\n-- MariaDB: {}\n",
        outcome::render(a, 10).replace('\n', "\n--   "),
        outcome::render(b, 10).replace('\n', "\n--   ")
    );
    println!("\nDIFFERENCE while loading the schema:\n{text}");
    write_finding(opts, &format!("load-{seed}-{epoch}"), &text);
}

#[allow(clippy::too_many_arguments)]
fn report_difference(
    opts: &Options,
    pair: &mut Pair,
    schema: &Schema,
    seed: u64,
    epoch: u64,
    i: u64,
    q: &Query,
    lost: bool,
) {
    let original = q.to_string();
    let (small, tried) = if lost {
        (q.clone(), 0)
    } else {
        let deadline = Instant::now() + Duration::from_secs(opts.shrink_seconds);
        shrink::minimize(q, deadline, |v| {
            let (a, b) = pair.run(&v.to_string());
            if matches!(a, Outcome::Lost(_)) {
                let _ = pair.reconnect_cohort();
            }
            verdict(&a, &b, v.ordered()) == Verdict::Different
        })
    };
    let sql = small.to_string();
    let (a, b) = pair.run(&sql);
    let tables: Vec<String> = schema
        .tables
        .iter()
        .map(|t| t.name.clone())
        .filter(|n| {
            sql.contains(&format!("{n} "))
                || sql.contains(&format!("{n}."))
                || sql.ends_with(n.as_str())
        })
        .collect();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "-- cohort-difftest: difference, seed {seed}, schema {epoch}, query {i} (features {})",
        opts.features.describe()
    );
    let _ = writeln!(
        text,
        "-- reproduce: cohort-difftest --seed {seed} --only {epoch}:{i} --features {}",
        opts.features.describe()
    );
    let _ = writeln!(
        text,
        "-- compared {}",
        if small.ordered() {
            "in order"
        } else {
            "as multisets"
        }
    );
    let _ = writeln!(text, "-- original query:\n--   {original}");
    let _ = writeln!(text, "-- minimized ({tried} variants tried):\n{sql};");
    let _ = writeln!(
        text,
        "-- Cohort:  {}",
        outcome::render(&a, 20).replace('\n', "\n--   ")
    );
    let _ = writeln!(
        text,
        "-- MariaDB: {}",
        outcome::render(&b, 20).replace('\n', "\n--   ")
    );
    let _ = writeln!(
        text,
        "-- schema and data (tables the minimized query uses):"
    );
    for stmt in schema.script(Some(&tables)) {
        let _ = writeln!(text, "{stmt};");
    }
    println!("\nDIFFERENCE:\n{text}");
    write_finding(opts, &format!("diff-{seed}-{epoch}-{i}"), &text);
}

fn write_finding(opts: &Options, name: &str, text: &str) {
    let path = opts.workdir.join(format!("{name}.sql"));
    match std::fs::write(&path, text) {
        Ok(()) => println!("written to {}", path.display()),
        Err(e) => eprintln!("cannot write {}: {e}", path.display()),
    }
}
