//! `cohort-difftest`: a differential query tester, Cohort against MariaDB.
//!
//! From a seed it generates random schemas (tables with every column type Cohort supports,
//! NULLs, duplicates, primary, unique and plain indexes) and data ([`schema`]), loads the same
//! into a `cohort serve` child and into MariaDB 10.11, then generates random queries
//! ([`gen`], by feature level) and runs each against both ([`driver`]), comparing the answers
//! ([`outcome`]). A difference is minimized ([`shrink`]), printed with the seed and both
//! answers, and written to a file; the exit status is then 1.
//!
//! Layout: [`rng`] (the seeded PRNG), [`schema`] (tables and rows), [`ast`] (query trees and
//! their SQL), [`gen`] (query generation), [`outcome`] (answers and comparison), [`shrink`]
//! (minimization), [`servers`] (the child processes), [`driver`] (the loop and reports).
//! See `crates/difftest/README.md`.

mod ast;
mod driver;
mod gen;
mod outcome;
use cohort_testkit::rng;
mod schema;
mod servers;
mod shrink;

use clap::Parser;
use driver::{Options, Pair, Tally};
use gen::Features;
use servers::{Endpoint, Process};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "cohort-difftest",
    about = "Differential query tester: Cohort against MariaDB"
)]
struct Cli {
    /// Seed (repeatable; also comma-separated). `date` = today as YYYYMMDD, `random` = from
    /// the clock (printed). Default: random.
    #[arg(long = "seed", value_delimiter = ',')]
    seeds: Vec<String>,
    /// Time budget in seconds for all seeds together (minimizing comes on top).
    #[arg(long)]
    seconds: Option<u64>,
    /// Queries per seed.
    #[arg(long)]
    queries: Option<u64>,
    /// Query features: `base` (single-table SELECT: what Cohort has today), or a comma list
    /// of join, subquery, setop, cte, window, or `all`.
    #[arg(long, default_value = "base")]
    features: String,
    /// Queries against each generated schema before the next one.
    #[arg(long, default_value_t = 300)]
    queries_per_schema: u64,
    /// The `cohort` binary [default: the workspace's target/release/cohort].
    #[arg(long)]
    server: Option<PathBuf>,
    /// Extra `cohort serve` flag (repeatable), e.g. `--server-flag=--thread-handling
    /// --server-flag=pool-of-threads`.
    #[arg(long = "server-flag", allow_hyphen_values = true)]
    server_flags: Vec<String>,
    /// Test a Cohort already running at HOST:PORT (root, no password) instead of starting one.
    #[arg(long)]
    cohort: Option<String>,
    /// Compare with a MariaDB already running at HOST:PORT (root, no password) instead of
    /// starting a throwaway `mariadbd`.
    #[arg(long)]
    mariadb: Option<String>,
    /// Work directory (data directories, logs, findings) [default: a new /tmp/cohort-difftest.*].
    #[arg(long)]
    workdir: Option<PathBuf>,
    /// Time to minimize each difference.
    #[arg(long, default_value_t = 60)]
    shrink_seconds: u64,
    /// Stop a seed after this many differences (each minimized and reported).
    #[arg(long, default_value_t = 1)]
    max_diffs: u64,
    /// Run only one case, SCHEMA:QUERY (as printed in a report), of the given seed.
    #[arg(long)]
    only: Option<String>,
    /// Fail (exit 1) when fewer queries than this were compared in all (CI's floor: a slow
    /// run must not pass by testing little).
    #[arg(long, default_value_t = 0)]
    min_queries: u64,
    /// Pass when at most this many differences were found (a ratchet for known open classes;
    /// a lost connection or a load difference always fails).
    #[arg(long, default_value_t = 0)]
    allow_diffs: u64,
    /// Print every query and its verdict.
    #[arg(long)]
    verbose: bool,
}

fn parse_seed(s: &str) -> Result<u64, String> {
    match s {
        "date" => Ok(date_seed()),
        "random" => Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64 ^ u64::from(std::process::id()))
            .unwrap_or(1)),
        n => n
            .parse()
            .map_err(|_| format!("bad seed {n:?}: a number, `date` or `random`")),
    }
}

/// Today (UTC) as the number YYYYMMDD.
fn date_seed() -> u64 {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y * 10_000 + m * 100 + d) as u64
}

fn parse_only(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s.split_once(':').ok_or("--only: expected SCHEMA:QUERY")?;
    Ok((
        a.parse().map_err(|_| "--only: bad schema number")?,
        b.parse().map_err(|_| "--only: bad query number")?,
    ))
}

fn main() -> ExitCode {
    match real_main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("cohort-difftest: {e}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<bool, String> {
    let cli = Cli::parse();
    let mut seeds = cli
        .seeds
        .iter()
        .map(|s| parse_seed(s))
        .collect::<Result<Vec<_>, _>>()?;
    if seeds.is_empty() {
        seeds.push(parse_seed("random")?);
    }
    let features = Features::parse(&cli.features)?;
    let only = cli.only.as_deref().map(parse_only).transpose()?;
    let seconds = match (cli.seconds, cli.queries, only) {
        (None, None, None) => Some(60),
        (s, _, _) => s,
    };
    let workdir = cli.workdir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("cohort-difftest.{}", std::process::id()))
    });
    std::fs::create_dir_all(&workdir).map_err(|e| format!("{}: {e}", workdir.display()))?;

    // The servers: started here unless given.
    let mut _cohort_proc = None;
    let cohort_ep = match &cli.cohort {
        Some(a) => Endpoint::parse(a)?,
        None => {
            let bin = cli
                .server
                .clone()
                .unwrap_or_else(servers::default_cohort_bin);
            let p = Process::cohort(&bin, &workdir, &cli.server_flags)?;
            let ep = p.endpoint.clone();
            _cohort_proc = Some(p);
            ep
        }
    };
    let mut _maria_proc = None;
    let maria_ep = match &cli.mariadb {
        Some(a) => Endpoint::parse(a)?,
        None => {
            let p = Process::mariadb(&workdir)?;
            let ep = p.endpoint.clone();
            _maria_proc = Some(p);
            ep
        }
    };
    let seed_text: Vec<String> = seeds.iter().map(u64::to_string).collect();
    println!(
        "cohort-difftest: seeds {} | features {} | {} | Cohort {}:{} | MariaDB {}:{} | work dir {}",
        seed_text.join(","),
        features.describe(),
        match (seconds, cli.queries) {
            (Some(s), Some(n)) => format!("{s} s or {n} queries per seed"),
            (Some(s), None) => format!("{s} s"),
            (None, Some(n)) => format!("{n} queries per seed"),
            (None, None) => "one case".into(),
        },
        cohort_ep.host,
        cohort_ep.port,
        maria_ep.host,
        maria_ep.port,
        workdir.display()
    );
    let mut pair = Pair::connect(cohort_ep, maria_ep)?;
    let opts = Options {
        seeds,
        seconds,
        queries: cli.queries,
        features,
        queries_per_schema: cli.queries_per_schema.max(1),
        shrink_seconds: cli.shrink_seconds,
        max_diffs: cli.max_diffs.max(1),
        workdir: workdir.clone(),
        verbose: cli.verbose,
        only,
    };
    let mut tally = Tally::default();
    let start = Instant::now();
    let result = driver::run(&opts, &mut pair, &mut tally);
    let secs = start.elapsed().as_secs_f64();
    println!(
        "\n{} queries in {:.1} s ({:.0} queries/s): {} equal ({} with rows, {} both failing alike), {} different, {} refused by Cohort (1235), {} timed out on MariaDB, {} evaluation-order (a data error on one side only); {} load differences",
        tally.queries,
        secs,
        tally.queries as f64 / secs.max(1e-9),
        tally.equal_rows + tally.equal_errors,
        tally.equal_rows,
        tally.equal_errors,
        tally.different,
        tally.refused,
        tally.timeouts,
        tally.evaluation_order,
        tally.load_differences
    );
    if let Some(p) = &mut _cohort_proc {
        if let Some(exit) = p.exited() {
            println!("Cohort exited: {exit}\n{}", p.log_tail(40));
            return Ok(false);
        }
    }
    let clean = result?;
    let allowed =
        tally.lost == 0 && tally.load_differences == 0 && tally.different <= cli.allow_diffs;
    if !clean && allowed {
        println!(
            "KNOWN GAP: {} differences, at most {} allowed by --allow-diffs (reports in {})",
            tally.different,
            cli.allow_diffs,
            workdir.display()
        );
        return Ok(tally.queries >= cli.min_queries);
    }
    if !clean {
        println!(
            "FAILED: differences found (reports in {})",
            workdir.display()
        );
    }
    if tally.queries < cli.min_queries {
        println!(
            "FAILED: only {} queries compared, fewer than --min-queries {}",
            tally.queries, cli.min_queries
        );
        return Ok(false);
    }
    Ok(clean)
}
