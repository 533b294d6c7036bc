//! `interop-mysql`: the Rust `mysql` crate (28.x) against a MySQL-compatible server.
//!
//! What it checks (one `PASS: mysql-crate/...` or `FAIL: mysql-crate/...: why` line each):
//! * connect with `prefer_socket(false)` (the crate asks `@@max_allowed_packet` and `@@socket`);
//! * a concurrent bank through a [`Pool`]: every transfer takes a pooled connection, runs
//!   `START TRANSACTION`, locks both accounts with prepared `SELECT ... FOR UPDATE` in random
//!   order, moves money with prepared `UPDATE`s (affected rows must be 1), logs the transfer with
//!   a prepared `INSERT` (AUTO_INCREMENT id), commits, and returns the connection to the pool,
//!   which sends `COM_RESET_CONNECTION`. 1213/1205 are retried; anything else fails. An auditor
//!   reads all balances with a locking read and checks the total each time. Afterwards: total
//!   unchanged, no negative balance, the log equals the committed transfers, balances equal
//!   what the committed transfers imply;
//! * the pool: a returned connection is reset and reused (same connection id) and the reset
//!   rolls back an open transaction;
//! * type round-trips through prepared statements (binary protocol, both directions) and back
//!   through the text protocol: NULL, BIGINT limits, BIGINT UNSIGNED max, UTF-8 text, DECIMAL,
//!   DATE, DATETIME, DATETIME(6), DOUBLE, VARBINARY with NUL bytes;
//! * errors keep their code and SQLSTATE (1062, 1146 at prepare, 1064, 1045, 1049) and the
//!   connection stays usable.
//!
//! With `COHORT_SSL_CA` (a CA file, PEM) every connection above runs inside TLS (rustls),
//! verifying the server's certificate against that CA and its name (`COHORT_HOST`), and
//! `tls/...` checks that the session reports TLS (`Ssl_version`, `Ssl_cipher`).
//!
//! Configuration from the environment: `COHORT_HOST` [127.0.0.1], `COHORT_PORT` [3306],
//! `COHORT_USER` [sb], `COHORT_PASSWORD` [sb], `COHORT_DB` [sbtest], `RUST_BANK_THREADS` [8],
//! `RUST_BANK_ACCOUNTS` [20], `RUST_BANK_TRANSFERS` [200 per thread],
//! `RUST_BANK_DEADLINE` [180 s]. Exit status 1 when any check failed.

mod bank;
mod checks;
mod types;

use std::time::Duration;

use mysql::{Opts, OptsBuilder, PoolConstraints, PoolOpts, SslOpts};

use checks::Report;

/// Connection settings and workload size, from the environment.
#[derive(Clone, Debug)]
pub struct Config {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub db: String,
    pub threads: usize,
    pub accounts: i64,
    pub transfers: usize,
    pub deadline: Duration,
    /// `COHORT_SSL_CA`: connect inside TLS, verifying the server against this CA.
    pub ssl_ca: Option<std::path::PathBuf>,
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

impl Config {
    fn from_env() -> Config {
        Config {
            host: env_or("COHORT_HOST", "127.0.0.1"),
            port: env_num("COHORT_PORT", 3306),
            user: env_or("COHORT_USER", "sb"),
            password: env_or("COHORT_PASSWORD", "sb"),
            db: env_or("COHORT_DB", "sbtest"),
            threads: env_num("RUST_BANK_THREADS", 8),
            accounts: env_num("RUST_BANK_ACCOUNTS", 20),
            transfers: env_num("RUST_BANK_TRANSFERS", 200),
            deadline: Duration::from_secs(env_num("RUST_BANK_DEADLINE", 180)),
            ssl_ca: std::env::var_os("COHORT_SSL_CA").map(Into::into),
        }
    }

    /// Options for one connection; never the Unix socket, bounded timeouts.
    pub fn builder(&self) -> OptsBuilder {
        OptsBuilder::new()
            .ip_or_hostname(Some(self.host.clone()))
            .tcp_port(self.port)
            .user(Some(self.user.clone()))
            .pass(Some(self.password.clone()))
            .db_name(Some(self.db.clone()))
            .prefer_socket(false)
            .tcp_connect_timeout(Some(Duration::from_secs(10)))
            .read_timeout(Some(Duration::from_secs(120)))
            .write_timeout(Some(Duration::from_secs(120)))
            .ssl_opts(
                self.ssl_ca
                    .clone()
                    .map(|ca| SslOpts::default().with_root_cert_path(Some(ca))),
            )
    }

    pub fn opts(&self) -> Opts {
        self.builder().into()
    }

    /// Options for a pool of `min..=max` connections (reset on return: the default).
    pub fn pool_opts(&self, min: usize, max: usize) -> Opts {
        let constraints = PoolConstraints::new(min, max).expect("valid pool constraints");
        self.builder()
            .pool_opts(PoolOpts::default().with_constraints(constraints))
            .into()
    }
}

fn main() {
    let cfg = Config::from_env();
    let report = Report::new("mysql-crate");
    checks::connect(&cfg, &report);
    if cfg.ssl_ca.is_some() {
        checks::tls(&cfg, &report);
    }
    bank::run(&cfg, &report);
    checks::pool_reset(&cfg, &report);
    types::run(&cfg, &report);
    checks::errors(&cfg, &report);
    let (passed, failed) = report.totals();
    println!("interop-mysql: {passed} passed, {failed} failed");
    std::process::exit(if failed == 0 { 0 } else { 1 });
}
