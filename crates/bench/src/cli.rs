//! Command-line interface of `cohort bench`.

use crate::driver::IgnoreErrors;
use crate::pacer::Arrival;
use crate::rand::{DistParams, Distribution};
use crate::url::DbUrl;
use crate::workload::WorkloadOptions;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// `cohort bench`: load generator and experiment runner for MySQL-compatible servers.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub command: BenchCommand,
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Create and load a workload's tables (like `sysbench … prepare`).
    Prepare(PrepareArgs),
    /// Run a workload, optionally over several connection counts.
    Run(Box<RunArgs>),
    /// Drop a workload's tables (like `sysbench … cleanup`).
    Cleanup(PrepareArgs),
    /// Run one of the experiments against Cohort variants (and MariaDB) and write a report.
    Experiment(ExperimentArgs),
    /// Print the ratio table of two result files (B relative to A).
    Compare(CompareArgs),
}

/// Which server and which tables.
#[derive(Args, Debug, Clone)]
pub struct WorkloadArgs {
    /// Workload: oltp_point_select, oltp_read_only, oltp_read_write, oltp_write_only,
    /// oltp_update_index, oltp_update_non_index, oltp_insert, oltp_delete, replace, bank,
    /// tpcc.
    #[arg(value_name = "WORKLOAD", required_unless_present = "workload_flag")]
    pub workload_pos: Option<String>,
    /// The workload, as a flag (`--workload tpcc`).
    #[arg(
        long = "workload",
        id = "workload_flag",
        value_name = "WORKLOAD",
        conflicts_with = "workload_pos"
    )]
    pub workload_flag: Option<String>,
    /// The workload's name (from WORKLOAD or --workload).
    #[arg(skip)]
    pub workload: String,
    /// Server URL: mysql://user:password@host:port/database.
    #[arg(long, default_value = "mysql://root@127.0.0.1:3306/sbtest")]
    pub url: String,
    /// Number of tables.
    #[arg(long, default_value_t = 1)]
    pub tables: u32,
    /// Rows per table (accounts per table for `bank`).
    #[arg(long, default_value_t = 10_000)]
    pub table_size: u32,
    /// Distribution of row ids.
    #[arg(long, value_enum, default_value_t = Distribution::Special)]
    pub rand_type: Distribution,
    /// Iterations of the gaussian (and of the gaussian part of `special`).
    #[arg(long, default_value_t = 12)]
    pub rand_spec_iter: u32,
    /// Percentage of the range the special values fall into.
    #[arg(long, default_value_t = 1)]
    pub rand_spec_pct: u32,
    /// Percentage of special values.
    #[arg(long, default_value_t = 75)]
    pub rand_spec_res: u32,
    /// Pareto shape parameter.
    #[arg(long, default_value_t = 0.2)]
    pub rand_pareto_h: f64,
    /// Point selects per transaction.
    #[arg(long, default_value_t = 10)]
    pub point_selects: u32,
    #[arg(long, default_value_t = 1)]
    pub simple_ranges: u32,
    #[arg(long, default_value_t = 1)]
    pub sum_ranges: u32,
    #[arg(long, default_value_t = 1)]
    pub order_ranges: u32,
    #[arg(long, default_value_t = 1)]
    pub distinct_ranges: u32,
    #[arg(long, default_value_t = 1)]
    pub index_updates: u32,
    #[arg(long, default_value_t = 1)]
    pub non_index_updates: u32,
    #[arg(long, default_value_t = 1)]
    pub delete_inserts: u32,
    /// Rows per range query.
    #[arg(long, default_value_t = 100)]
    pub range_size: u32,
    /// Run the range queries (on|off).
    #[arg(long, default_value = "on", value_parser = parse_on_off)]
    pub range_selects: bool,
    /// Drop BEGIN/COMMIT (on|off).
    #[arg(long, default_value = "off", value_parser = parse_on_off)]
    pub skip_trx: bool,
    /// Create the secondary index on k (on|off).
    #[arg(long, default_value = "on", value_parser = parse_on_off)]
    pub create_secondary: bool,
    /// Storage engine named in CREATE TABLE.
    #[arg(long, default_value = "innodb")]
    pub storage_engine: String,
    /// tpcc: number of warehouses (the scale).
    #[arg(long, default_value_t = 1)]
    pub warehouses: u32,
    /// tpcc: load 1 000 items and 300 customers and orders per district (smoke tests).
    #[arg(long)]
    pub test_scale: bool,
    /// tpcc: send each of the specification's joins as two single-table statements.
    #[arg(long)]
    pub split_joins: bool,
}

fn parse_on_off(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Ok(true),
        "off" | "false" | "0" | "no" => Ok(false),
        _ => Err(format!("'{s}': expected on or off")),
    }
}

impl WorkloadArgs {
    /// Fills `workload` from the positional name or `--workload` (after parsing).
    pub fn resolve(&mut self) {
        self.workload = self
            .workload_pos
            .clone()
            .or_else(|| self.workload_flag.clone())
            .unwrap_or_default();
    }

    pub fn url(&self) -> Result<DbUrl, String> {
        DbUrl::parse(&self.url)
    }

    pub fn options(&self) -> WorkloadOptions {
        WorkloadOptions {
            tables: self.tables.max(1),
            table_size: self.table_size,
            dist: DistParams {
                kind: self.rand_type,
                spec_iter: self.rand_spec_iter,
                spec_pct: self.rand_spec_pct,
                spec_res: self.rand_spec_res,
                pareto_h: self.rand_pareto_h,
            },
            point_selects: self.point_selects,
            simple_ranges: self.simple_ranges,
            sum_ranges: self.sum_ranges,
            order_ranges: self.order_ranges,
            distinct_ranges: self.distinct_ranges,
            index_updates: self.index_updates,
            non_index_updates: self.non_index_updates,
            delete_inserts: self.delete_inserts,
            range_size: self.range_size,
            range_selects: self.range_selects,
            skip_trx: self.skip_trx,
            create_secondary: self.create_secondary,
            storage_engine: self.storage_engine.clone(),
        }
    }
}

#[derive(Args, Debug)]
pub struct PrepareArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Connections used to load tables in parallel.
    #[arg(long, default_value_t = 4)]
    pub threads: usize,
}

/// How the load is applied.
#[derive(Args, Debug, Clone)]
pub struct LoadArgs {
    /// Connection counts to sweep, e.g. 1,16,64 (sysbench's --threads).
    #[arg(
        long,
        short = 'c',
        value_delimiter = ',',
        default_value = "1",
        alias = "threads"
    )]
    pub connections: Vec<usize>,
    /// Client event-loop threads [default: one per connection up to 64].
    #[arg(long)]
    pub client_threads: Option<usize>,
    /// Seconds measured per point (0: until --events).
    #[arg(long, default_value_t = 10.0, alias = "duration")]
    pub time: f64,
    /// Stop after this many transactions (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub events: u64,
    /// Seconds run before measuring.
    #[arg(long, default_value_t = 0.0)]
    pub warmup: f64,
    /// Open loop: total transactions per second (0: closed loop, flat out).
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// Arrival process of the open loop.
    #[arg(long, value_enum, default_value_t = Arrival::Poisson)]
    pub arrival: Arrival,
    /// Prepared statements: auto (server-side, sysbench's default) or disable (text).
    #[arg(long, default_value = "auto", value_parser = ["auto", "disable"])]
    pub ps_mode: String,
    /// Errors that restart the transaction: codes, `all` or `none`.
    #[arg(long, default_value = "1213,1020,1205")]
    pub ignore_errors: String,
    /// Seconds between progress lines (0: none).
    #[arg(long, default_value_t = 1.0)]
    pub report_interval: f64,
    /// Print progress lines even when stdout is not a terminal.
    #[arg(long)]
    pub progress: bool,
    /// Random seed (0: from the clock).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Handshakes in flight while connecting (all client threads together).
    #[arg(long, default_value_t = 128)]
    pub connect_concurrency: usize,
    /// Seconds to let transactions in flight finish at the end.
    #[arg(long, default_value_t = 5.0)]
    pub drain_timeout: f64,
    /// Pid of the server, for its CPU use [default: found from the port when local].
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Do not read SHOW GLOBAL STATUS before and after.
    #[arg(long)]
    pub no_server_status: bool,
}

impl LoadArgs {
    pub fn ignore(&self) -> Result<IgnoreErrors, String> {
        IgnoreErrors::parse(&self.ignore_errors)
    }
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Write results.json and results.csv into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Label of this run in the results (e.g. the server's name).
    #[arg(long, default_value = "run")]
    pub label: String,
    /// Prepare the tables first (and clean up afterwards).
    #[arg(long)]
    pub prepare: bool,
    /// tpcc: only check the consistency conditions of the loaded database.
    #[arg(long = "check-only")]
    pub tpcc_check_only: bool,
    /// tpcc: start a Cohort, load, kill it with SIGKILL this many seconds into the run,
    /// restart it and check (ignores --url).
    #[arg(long)]
    pub kill_after: Option<f64>,
    /// tpcc --kill-after: the cohort binary [default: the running executable].
    #[arg(long)]
    pub cohort_bin: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ExperimentArgs {
    /// group-commit-scheduling, admission-control, log-flush-placement, commit-wakeup,
    /// pool-of-threads, headline, or `all`.
    pub name: String,
    /// Short points and few connection counts: under 2 minutes per experiment (for CI).
    #[arg(long)]
    pub quick: bool,
    /// The cohort binary to start [default: the running executable].
    #[arg(long)]
    pub cohort_bin: Option<PathBuf>,
    /// Also measure this running MariaDB/MySQL (mysql://user:pass@host:port/db).
    #[arg(long)]
    pub mariadb: Option<String>,
    /// Also start the installed MariaDB (mariadbd) the way shared/tools/mariadb.sh does.
    #[arg(long)]
    pub with_mariadb: bool,
    /// Do not start Cohort (only the MariaDB variants).
    #[arg(long)]
    pub no_cohort: bool,
    /// Report directory; the experiment writes into <DIR>/<experiment>/.
    #[arg(long, default_value = "report")]
    pub out: PathBuf,
    /// Override the connection counts of the sweep.
    #[arg(long, value_delimiter = ',')]
    pub connections: Option<Vec<usize>>,
    /// Override the seconds per point.
    #[arg(long)]
    pub time: Option<f64>,
    /// Override the rows per table.
    #[arg(long)]
    pub table_size: Option<u32>,
    /// Only run the variants whose names contain one of these (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub variants: Option<Vec<String>>,
    /// First TCP port for the servers the experiment starts.
    #[arg(long, default_value_t = 4400)]
    pub base_port: u16,
    /// Keep the temporary data directories.
    #[arg(long)]
    pub keep_data: bool,
    /// Client event-loop threads.
    #[arg(long)]
    pub client_threads: Option<usize>,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Baseline results (results.json of a run or an experiment).
    pub a: PathBuf,
    /// Results to compare with the baseline.
    pub b: PathBuf,
}
