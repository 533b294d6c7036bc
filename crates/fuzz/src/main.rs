//! `cohort-fuzz`: seeded, time-bounded fuzzers for Cohort.
//!
//! * `cohort-fuzz sql`: grammar-aware SQL (DDL, DML, SELECT, SET, SHOW, transactions,
//!   accounts, prepared statements with parameters of every wire type) against a
//!   `cohort serve` child process, with liveness checks, kill/restart checks of the data
//!   directory, and minimised reproducers ([`sql`]).
//! * `cohort-fuzz protocol`: the sans-IO codec in process (every decoder, from mutated
//!   captured packets and random bytes, under `catch_unwind`), and mutated packet sequences
//!   against a live server at every connection phase ([`protocol`]).
//!
//! Both print the seed first; a failure prints the seed, the iteration and a minimised
//! reproducer, and the exit status is 1. See `crates/fuzz/README.md`.

mod client;
mod common;
mod oracle;
mod protocol;
use cohort_testkit::rng;
mod server;
mod shrink;
mod sql;
mod tree;

use clap::{Args, Parser, Subcommand};
use common::Common;
use oracle::Suppress;
use server::ServerSpec;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "cohort-fuzz",
    about = "Seeded, time-bounded fuzzers for Cohort"
)]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Grammar-aware SQL against a `cohort serve` child process.
    Sql {
        #[command(flatten)]
        common: CommonArgs,
        /// A fresh connection must run SELECT 1 after every this many actions.
        #[arg(long, default_value_t = 50)]
        batch: u64,
        /// Kill (or stop) and restart the server on its data directory every this many actions.
        #[arg(long, default_value_t = 300)]
        restart_every: u64,
        /// Start a fresh data directory (and the next server configuration) after this many actions.
        #[arg(long, default_value_t = 1200)]
        epoch: u64,
        /// LOCAL TRIAGE ONLY: do not run generated actions whose text contains this
        /// (repeatable), e.g. `--skip ' && 1 && 1 && 1'` to look past a known class that kills
        /// the server. Never used in CI.
        #[arg(long)]
        skip: Vec<String>,
        /// LOCAL TRIAGE ONLY: do not generate the recursion-depth statements (1 000–100 000
        /// terms or nesting levels). Never used in CI.
        #[arg(long)]
        no_deep: bool,
    },
    /// The protocol codec in process, and mutated packet sequences against a live server.
    Protocol {
        #[command(flatten)]
        common: CommonArgs,
        /// in-process, wire, or both (time split evenly).
        #[arg(long, default_value = "both")]
        target: String,
        /// Run only this case number (reproduce a reported case).
        #[arg(long)]
        case: Option<u64>,
        /// More trace directories for the seed corpus (besides crates/protocol/tests/data).
        #[arg(long)]
        traces: Vec<PathBuf>,
    },
}

#[derive(Args)]
struct CommonArgs {
    /// Seed (repeatable; also comma-separated). `date` = today as YYYYMMDD, `random` = from
    /// the clock (printed). Default: random.
    #[arg(long = "seed", value_delimiter = ',')]
    seeds: Vec<String>,
    /// Time budget in seconds for all seeds together (shrinking comes on top).
    #[arg(long)]
    seconds: Option<u64>,
    /// Iterations (actions / cases) per seed.
    #[arg(long)]
    iterations: Option<u64>,
    /// The `cohort` binary [default: next to this binary, else target/release/cohort].
    #[arg(long)]
    server: Option<PathBuf>,
    /// Extra `cohort serve` flag for the server under test (repeatable), e.g.
    /// `--server-flag=--thread-handling --server-flag=pool-of-threads`.
    #[arg(long = "server-flag", allow_hyphen_values = true)]
    server_flags: Vec<String>,
    /// Port of the server under test [default: a free one].
    #[arg(long)]
    port: Option<u16>,
    /// Work directory (data directories, logs, findings) [default: a new /tmp/cohort-fuzz.*].
    #[arg(long)]
    workdir: Option<PathBuf>,
    /// Keep the work directory's data directories at the end.
    #[arg(long)]
    keep_workdir: bool,
    /// LOCAL TRIAGE ONLY: skip findings whose kind, signature or detail contains this text
    /// (repeatable). Never used in CI.
    #[arg(long)]
    suppress: Vec<String>,
    /// Continue after a finding, collecting distinct findings.
    #[arg(long)]
    keep_going: bool,
    /// Time to minimise each finding.
    #[arg(long, default_value_t = 120)]
    shrink_seconds: u64,
    /// Seconds one request may take before it counts as a hang.
    #[arg(long, default_value_t = 20)]
    request_timeout: u64,
    /// Resident memory of the server above which it is a finding (MiB; 0 = no check).
    #[arg(long, default_value_t = 2048)]
    max_rss_mb: u64,
    /// Address-space limit of the server process (MiB; 0 = none).
    #[arg(long, default_value_t = 8192)]
    mem_limit_mb: u64,
    /// Print every action / case.
    #[arg(long)]
    verbose: bool,
}

fn parse_seed(s: &str) -> Result<u64, String> {
    match s {
        "date" => Ok(common::date_seed()),
        "random" => Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64 ^ u64::from(std::process::id()))
            .unwrap_or(1)),
        n => n
            .parse()
            .map_err(|_| format!("bad seed {n:?}: a number, `date` or `random`")),
    }
}

impl CommonArgs {
    fn resolve(self, mode: &str) -> Result<Common, String> {
        let mut seeds = self
            .seeds
            .iter()
            .map(|s| parse_seed(s))
            .collect::<Result<Vec<_>, _>>()?;
        if seeds.is_empty() {
            seeds.push(parse_seed("random")?);
        }
        let seconds = match (self.seconds, self.iterations) {
            (None, None) => Some(60),
            (s, _) => s,
        };
        let workdir = match self.workdir {
            Some(w) => w,
            None => std::env::temp_dir().join(format!("cohort-fuzz.{mode}.{}", std::process::id())),
        };
        common::ensure_dir(&workdir).map_err(|e| format!("{}: {e}", workdir.display()))?;
        let bin = self.server.unwrap_or_else(server::default_server_bin);
        Ok(Common {
            seeds,
            seconds,
            iterations: self.iterations,
            server: ServerSpec {
                bin,
                flags: self.server_flags,
                mem_limit_mb: self.mem_limit_mb,
                start_timeout: Duration::from_secs(60),
            },
            port: self.port,
            workdir,
            keep_workdir: self.keep_workdir,
            suppress: Suppress::new(self.suppress),
            keep_going: self.keep_going,
            shrink_seconds: self.shrink_seconds,
            request_timeout: Duration::from_secs(self.request_timeout),
            max_rss_mb: self.max_rss_mb,
            verbose: self.verbose,
        })
    }
}

fn banner(mode: &str, c: &Common) {
    let seeds: Vec<String> = c.seeds.iter().map(u64::to_string).collect();
    println!(
        "cohort-fuzz {mode}: seeds {} | {} | server {} {} | work dir {}",
        seeds.join(","),
        match (c.seconds, c.iterations) {
            (Some(s), Some(n)) => format!("{s} s or {n} iterations per seed"),
            (Some(s), None) => format!("{s} s"),
            (None, Some(n)) => format!("{n} iterations per seed"),
            (None, None) => "unbounded".into(),
        },
        c.server.bin.display(),
        c.server.flags.join(" "),
        c.workdir.display()
    );
    if !c.suppress.is_empty() {
        println!("WARNING: --suppress given: known findings are skipped (local triage only)");
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.mode {
        Mode::Sql {
            common,
            batch,
            restart_every,
            epoch,
            skip,
            no_deep,
        } => common.resolve("sql").and_then(|c| {
            banner("sql", &c);
            if !skip.is_empty() || no_deep {
                println!("WARNING: --skip given: some generated statements are not run (local triage only)");
            }
            let opts = sql::driver::SqlOptions {
                batch: batch.max(1),
                restart_every: restart_every.max(1),
                epoch: epoch.max(1),
                skip,
                no_deep,
            };
            let r = sql::driver::run(&c, &opts);
            cleanup(&c);
            r
        }),
        Mode::Protocol {
            common,
            target,
            case,
            traces,
        } => common.resolve("protocol").and_then(|c| {
            banner("protocol", &c);
            let target = protocol::Target::parse(&target)?;
            let r = protocol::run(&c, target, case, &traces);
            cleanup(&c);
            r
        }),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("cohort-fuzz: {e}");
            ExitCode::from(2)
        }
    }
}

fn cleanup(c: &Common) {
    if c.keep_workdir {
        return;
    }
    // Keep findings and logs; drop data directories.
    if let Ok(entries) = std::fs::read_dir(&c.workdir) {
        for e in entries.flatten() {
            let _ = std::fs::remove_dir_all(e.path().join("data"));
            let _ = std::fs::remove_dir_all(e.path().join("replay-data"));
        }
    }
}
