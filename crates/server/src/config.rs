//! Configuration of `cohort serve`: command-line flags and a TOML file with the same names.
//!
//! Precedence: built-in default < config file < command-line flag. Every setting except the
//! root password is a system variable of the same name (`--max-connections` is
//! `max_connections`), written into [`SystemVariables`] at startup, so `SHOW VARIABLES` shows
//! the value in force; the dynamic ones can change with `SET GLOBAL`. An unknown key in the
//! file is an error, never ignored. The InnoDB admission settings also answer to their short
//! names (`--thread-concurrency`, `thread_concurrency = 4`: [`crate::vars::ALIASES`]).

use crate::error::{Error, Result};
use crate::types::Value;
use crate::vars::SystemVariables;
use std::path::{Path, PathBuf};

/// `cohort serve` flags. Each flag's TOML key is its name with `_` for `-`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ServeArgs {
    /// TOML configuration file; keys are the flag names below with `_` (e.g. `max_connections = 500`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// TCP port to listen on [default: 3306].
    #[arg(long)]
    pub port: Option<u16>,
    /// Address to bind [default: 127.0.0.1]. With an empty root password only loopback is allowed.
    #[arg(long = "bind", visible_alias = "bind-address", value_name = "ADDR")]
    pub bind_address: Option<String>,
    /// Data directory: accounts (and, with durability, logs and checkpoints) [default: ./cohort-data].
    #[arg(long)]
    pub datadir: Option<PathBuf>,
    /// Password of the `root` account [default: empty, which restricts the server to loopback].
    #[arg(long, value_name = "PASSWORD")]
    pub root_password: Option<String>,
    /// TLS: ON offers it to clients (with the certificate below, or one generated in the data
    /// directory); OFF serves only in clear (have_ssl = DISABLED) [default: ON].
    #[arg(long, value_name = "ON|OFF")]
    pub ssl: Option<String>,
    /// TLS certificate chain, PEM (with --ssl-key) [default: DATADIR/server-cert.pem,
    /// generated on first start].
    #[arg(long, value_name = "FILE")]
    pub ssl_cert: Option<String>,
    /// Private key of --ssl-cert, PEM [default: DATADIR/server-key.pem, generated].
    #[arg(long, value_name = "FILE")]
    pub ssl_key: Option<String>,
    /// CA certificates, PEM, that client certificates must chain to (REQUIRE X509); clients
    /// then may present one, and one that does not verify is refused [default: none].
    #[arg(long, value_name = "FILE")]
    pub ssl_ca: Option<String>,
    /// TLS protocol versions offered [default: TLSv1.2,TLSv1.3].
    #[arg(long, value_name = "LIST")]
    pub tls_version: Option<String>,
    /// ON: refuse connections outside TLS (error 3159) [default: OFF when bound to a loopback
    /// address; ON otherwise, so that passwords' exchange and data never cross the network in
    /// clear unless this is set OFF explicitly].
    #[arg(long, value_name = "ON|OFF")]
    pub require_secure_transport: Option<String>,
    /// The directory whose files LOAD DATA INFILE (without LOCAL) may read [default: none:
    /// reading server files is refused with 1290].
    #[arg(long, value_name = "DIR")]
    pub secure_file_priv: Option<String>,
    /// Maximum simultaneous client connections; one more is answered with error 1040
    /// [default: 151; 10000 with --thread-handling pool-of-threads].
    #[arg(long)]
    pub max_connections: Option<u64>,
    /// Largest packet (statement) accepted, in bytes; larger ones get error 1153 [default: 16777216].
    #[arg(long)]
    pub max_allowed_packet: Option<u64>,
    /// Prepared statements all connections together may hold; one more is answered with
    /// error 1461 [default: 16382].
    #[arg(long, value_name = "N")]
    pub max_prepared_stmt_count: Option<String>,
    /// Bytes one connection may hold (prepared statements, long data, user variables, the
    /// result being built); beyond it a statement fails with error 1290 [default: 1073741824].
    #[arg(long, value_name = "BYTES")]
    pub max_session_mem_used: Option<String>,
    /// Seconds a statement waits for a row lock before error 1205 [default: 50].
    #[arg(long)]
    pub innodb_lock_wait_timeout: Option<u64>,
    /// Seconds an idle connection is kept before the server closes it [default: 28800].
    #[arg(long)]
    pub wait_timeout: Option<u64>,
    /// Server id written into logs [default: 1].
    #[arg(long)]
    pub server_id: Option<u64>,
    /// Time every wait for the wait summary: ON or OFF [default: ON].
    #[arg(long, value_name = "ON|OFF")]
    pub performance_schema: Option<String>,
    /// Write the binary log, which is also the redo log (one-log commit; see --commit-mode):
    /// ON or OFF [default: ON].
    #[arg(long, value_name = "ON|OFF")]
    pub log_bin: Option<String>,
    /// Keep 8 MiB of synced zeros written ahead of the binlog's end, so a commit's fdatasync
    /// overwrites existing blocks and has no file metadata to commit: ON or OFF [default: ON].
    #[arg(long, value_name = "ON|OFF")]
    pub binlog_preallocate: Option<String>,
    /// fsync the binlog every N commit groups; 1 = every group (durable), 0 = never [default: 1].
    #[arg(long, value_name = "N")]
    pub sync_binlog: Option<String>,
    /// Rotate to a new binlog file past this many bytes [default: 1073741824].
    #[arg(long, value_name = "BYTES")]
    pub max_binlog_size: Option<String>,
    /// Remove binlog files older than this many seconds at rotation; 0 = keep [default: 0].
    #[arg(long, value_name = "SECONDS")]
    pub binlog_expire_logs_seconds: Option<String>,
    /// ON: the group leader commits the whole group in the engine; OFF: each member commits
    /// itself and wakes the next (chained) [default: ON].
    #[arg(long, value_name = "ON|OFF")]
    pub binlog_optimize_thread_scheduling: Option<String>,
    /// How finished commits wake their sessions: targeted or broadcast [default: targeted].
    #[arg(long, value_name = "targeted|broadcast")]
    pub commit_wakeup: Option<String>,
    /// A group leader waits for this many members before writing (0 = don't wait) [default: 0].
    #[arg(long, value_name = "N")]
    pub binlog_commit_wait_count: Option<String>,
    /// ... but at most this many microseconds [default: 100000].
    #[arg(long, value_name = "USEC")]
    pub binlog_commit_wait_usec: Option<String>,
    /// Test knob: microseconds added to every log sync, to emulate a slower device [default: 0].
    #[arg(long, value_name = "USEC")]
    pub log_sync_delay_us: Option<String>,
    /// Engine redo log (binlog off, or classic mode): 1 = fsync it at every commit group (or
    /// prepare); 0 or 2 = once a second (a crash may lose up to a second of commits; in
    /// classic mode, binlog transactions whose engine changes are lost) [default: 1].
    #[arg(long, value_name = "0|1|2")]
    pub innodb_flush_log_at_trx_commit: Option<String>,
    /// Startup, with log_bin=ON: one-log (the binlog is the redo log) or classic (two-phase
    /// commit: engine redo Prepare records, then the binlog as coordinator) [default: one-log].
    #[arg(long, value_name = "one-log|classic")]
    pub commit_mode: Option<String>,
    /// Classic mode: where the redo Prepare records are synced: group (once per commit group,
    /// by the leader, before the binlog write; MySQL 5.7) or prepare (by each session at
    /// prepare; MySQL 5.6) [default: group].
    #[arg(long, value_name = "group|prepare")]
    pub log_flush_placement: Option<String>,
    /// Take a fuzzy checkpoint this often while commits happen, once the binlog written since
    /// the last one is as large as that checkpoint (log/checkpointer.rs) [default: 60].
    #[arg(long, value_name = "SECONDS")]
    pub checkpoint_interval_seconds: Option<String>,
    /// ... or once this many binlog bytes were written since the last one, or as many as the
    /// last checkpoint's size if larger (at most 4x this) [default: 268435456].
    #[arg(long, value_name = "BYTES")]
    pub checkpoint_log_bytes: Option<String>,
    /// Who runs connections: one-thread-per-connection, or pool-of-threads (thread groups over
    /// epoll; a commit waiting for durability holds no thread) [default: one-thread-per-connection].
    #[arg(long, value_name = "one-thread-per-connection|pool-of-threads")]
    pub thread_handling: Option<String>,
    /// Pool: number of thread groups; 0 = number of CPUs [default: 0].
    #[arg(long, value_name = "N")]
    pub thread_pool_size: Option<String>,
    /// Pool: serve each connection from this host in group g when its client sends from the
    /// g-th CPU (while thread_pool_size = the number of CPUs); PINNED also runs group g's
    /// workers on CPU g only [default: ON].
    #[arg(long, value_name = "OFF|ON|PINNED")]
    pub thread_pool_steering: Option<String>,
    /// Pool: a group runs new work only while it has fewer than 1 + N active (not blocked)
    /// workers [default: 3].
    #[arg(long, value_name = "N")]
    pub thread_pool_oversubscribe: Option<String>,
    /// Pool: milliseconds without progress after which a group with queued work is stalled and
    /// gets another worker [default: 500].
    #[arg(long, value_name = "MS")]
    pub thread_pool_stall_limit: Option<String>,
    /// Pool: most worker threads in all groups (each group may always have 2) [default: 10000].
    #[arg(long, value_name = "N")]
    pub thread_pool_max_threads: Option<String>,
    /// Pool: seconds an idle worker waits for work before it exits [default: 60].
    #[arg(long, value_name = "SECONDS")]
    pub thread_pool_idle_timeout: Option<String>,
    /// Pool: queue priority: high, low, or auto (high inside a transaction) [default: auto].
    #[arg(long, value_name = "high|low|auto")]
    pub thread_pool_priority: Option<String>,
    /// Pool: milliseconds after which a queued low-priority connection moves to the
    /// high-priority queue [default: 1000].
    #[arg(long, value_name = "MS")]
    pub thread_pool_prio_kickup_timer: Option<String>,
    /// A second TCP port served one thread per connection (administration when the pool is
    /// saturated); 0 = off [default: 0].
    #[arg(long, value_name = "PORT")]
    pub extra_port: Option<String>,
    /// Connections allowed on --extra-port; one more is answered with error 1040 [default: 1].
    #[arg(long, value_name = "N")]
    pub extra_max_connections: Option<String>,
    /// Admission control: at most N sessions do engine work at once; 0 = off [default: 0].
    #[arg(long, value_name = "N", visible_alias = "thread-concurrency")]
    pub innodb_thread_concurrency: Option<String>,
    /// How sessions wait at the admission gate: fifo (a queue, starvation-free) or
    /// adaptive-sleep (InnoDB's sleep-and-retry) [default: fifo].
    #[arg(long, value_name = "fifo|adaptive-sleep")]
    pub concurrency_queue: Option<String>,
    /// Row operations a session may do per pass through the admission gate [default: 5000].
    #[arg(long, value_name = "N", visible_alias = "concurrency-tickets")]
    pub innodb_concurrency_tickets: Option<String>,
    /// adaptive-sleep: the first sleep of a waiting session, µs [default: 10000].
    #[arg(long, value_name = "USEC", visible_alias = "thread-sleep-delay")]
    pub innodb_thread_sleep_delay: Option<String>,
    /// adaptive-sleep: the sleep delay's cap, µs; 0 = do not adapt [default: 150000].
    #[arg(long, value_name = "USEC", visible_alias = "adaptive-max-sleep-delay")]
    pub innodb_adaptive_max_sleep_delay: Option<String>,
    /// The replication domain of the GTIDs this server writes [default: 0].
    #[arg(long, value_name = "N")]
    pub gtid_domain_id: Option<String>,
    /// Table_map optional metadata for replicas and CDC clients: NO_LOG, MINIMAL (signedness,
    /// character sets) or FULL (also column names and the primary key) [default: NO_LOG].
    #[arg(long, value_name = "NO_LOG|MINIMAL|FULL")]
    pub binlog_row_metadata: Option<String>,
    /// Write each statement's text (Annotate_rows) before its row changes: ON or OFF
    /// [default: ON].
    #[arg(long, value_name = "ON|OFF")]
    pub binlog_annotate_row_events: Option<String>,
    /// Semi-synchronous replication: answer a commit only once a replica has it: ON or OFF
    /// [default: OFF].
    #[arg(long, value_name = "ON|OFF")]
    pub rpl_semi_sync_master_enabled: Option<String>,
    /// Semi-sync: milliseconds to wait for a replica's acknowledgement before falling back to
    /// asynchronous replication [default: 10000].
    #[arg(long, value_name = "MS")]
    pub rpl_semi_sync_master_timeout: Option<String>,
    /// Semi-sync: AFTER_SYNC (the commit is visible only once a replica has it) or
    /// AFTER_COMMIT (only the answer waits) [default: AFTER_SYNC].
    #[arg(long, value_name = "AFTER_SYNC|AFTER_COMMIT")]
    pub rpl_semi_sync_master_wait_point: Option<String>,
    /// Semi-sync: wait for a replica even when none is connected: ON or OFF [default: ON].
    #[arg(long, value_name = "ON|OFF")]
    pub rpl_semi_sync_master_wait_no_slave: Option<String>,
    /// The isolation level of new sessions (tx_isolation) [default: REPEATABLE-READ].
    #[arg(
        long,
        value_name = "READ-UNCOMMITTED|READ-COMMITTED|REPEATABLE-READ|SERIALIZABLE"
    )]
    pub transaction_isolation: Option<String>,
    /// A lock wait timeout (1205) rolls back the whole transaction, not only the statement
    /// [default: OFF].
    #[arg(long, value_name = "OFF|ON")]
    pub innodb_rollback_on_timeout: Option<String>,
}

/// Settings given as text and validated by the variable table (name, flag field).
macro_rules! text_settings {
    ($m:ident) => {
        $m!(
            max_prepared_stmt_count,
            max_session_mem_used,
            log_bin,
            binlog_preallocate,
            sync_binlog,
            max_binlog_size,
            binlog_expire_logs_seconds,
            binlog_optimize_thread_scheduling,
            commit_wakeup,
            binlog_commit_wait_count,
            binlog_commit_wait_usec,
            log_sync_delay_us,
            checkpoint_interval_seconds,
            checkpoint_log_bytes,
            innodb_flush_log_at_trx_commit,
            commit_mode,
            log_flush_placement,
            thread_handling,
            thread_pool_size,
            thread_pool_steering,
            thread_pool_oversubscribe,
            thread_pool_stall_limit,
            thread_pool_max_threads,
            thread_pool_idle_timeout,
            thread_pool_priority,
            thread_pool_prio_kickup_timer,
            extra_port,
            extra_max_connections,
            innodb_thread_concurrency,
            concurrency_queue,
            innodb_concurrency_tickets,
            innodb_thread_sleep_delay,
            innodb_adaptive_max_sleep_delay,
            gtid_domain_id,
            binlog_row_metadata,
            binlog_annotate_row_events,
            rpl_semi_sync_master_enabled,
            rpl_semi_sync_master_timeout,
            rpl_semi_sync_master_wait_point,
            rpl_semi_sync_master_wait_no_slave,
            ssl_cert,
            ssl_key,
            ssl_ca,
            tls_version,
            require_secure_transport,
            transaction_isolation,
            innodb_rollback_on_timeout,
            secure_file_priv
        )
    };
}

/// `max_connections` by default with `thread_handling = pool-of-threads`.
pub const POOL_MAX_CONNECTIONS: u64 = 10000;

/// The resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub port: u16,
    pub bind_address: String,
    pub datadir: PathBuf,
    pub root_password: String,
    /// Offer TLS (`--ssl`).
    pub ssl: bool,
    /// (variable name, value) pairs to apply to the system variables.
    pub variables: Vec<(String, Value)>,
}

impl Config {
    /// Merge defaults, the config file and the flags.
    pub fn resolve(args: &ServeArgs) -> Result<Config> {
        let mut merged = match &args.config {
            Some(path) => read_file(path)?,
            None => ServeArgs::default(),
        };
        overlay(&mut merged, args);
        let mut cfg = Config {
            port: merged.port.unwrap_or(3306),
            bind_address: merged.bind_address.clone().unwrap_or("127.0.0.1".into()),
            datadir: merged.datadir.clone().unwrap_or("./cohort-data".into()),
            root_password: merged.root_password.clone().unwrap_or_default(),
            ssl: on_off("ssl", merged.ssl.as_deref(), true)?,
            variables: variables_of(&merged),
        };
        cfg.check_bind_policy()?;
        cfg.apply_transport_policy(merged.require_secure_transport.as_deref())?;
        Ok(cfg)
    }

    /// A bind beyond loopback must not carry passwords' exchange or data in clear unless the
    /// operator says so: there `require_secure_transport` defaults ON, and only an explicit
    /// OFF serves clients in clear. ON needs TLS (`--ssl ON`).
    fn apply_transport_policy(&mut self, given: Option<&str>) -> Result<()> {
        let required = match given {
            Some(text) => on_off("require_secure_transport", Some(text), false)?,
            None if is_loopback(&self.bind_address) => false,
            None => {
                if !self.ssl {
                    return Err(config_error(format!(
                        "refusing to bind {} without TLS (--ssl OFF): passwords' exchange and                          data would cross the network in clear. Enable TLS, or say so                          explicitly with --require-secure-transport OFF",
                        self.bind_address
                    )));
                }
                self.variables
                    .push(("require_secure_transport".into(), Value::str("ON")));
                true
            }
        };
        if required && !self.ssl {
            return Err(config_error(
                "No secure transports are configured, unable to set \
                 --require_secure_transport=ON (TLS is off: --ssl OFF)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Apply every setting to the system variables (also the read-only ones).
    pub fn apply(&self, vars: &SystemVariables) -> Result<()> {
        vars.set_startup("port", Value::UInt(self.port as u64))?;
        vars.set_startup("bind_address", Value::str(&self.bind_address))?;
        vars.set_startup("datadir", Value::str(&self.datadir.display().to_string()))?;
        for (name, v) in &self.variables {
            vars.set_startup(name, v.clone())?;
        }
        self.apply_pool_defaults(vars)
    }

    /// Defaults that depend on other settings: with the pool of threads `max_connections`
    /// defaults to 10000 (thread-per-connection keeps MariaDB's 151, since every connection
    /// costs a thread there); `thread_pool_size = 0` means the number of CPUs.
    fn apply_pool_defaults(&self, vars: &SystemVariables) -> Result<()> {
        let given = |name: &str| self.variables.iter().any(|(n, _)| n == name);
        let pool = vars.global("thread_handling") == Some(Value::str("pool-of-threads"));
        if pool && !given("max_connections") {
            vars.set_startup("max_connections", Value::UInt(POOL_MAX_CONNECTIONS))?;
        }
        if vars.global_u64("thread_pool_size") == 0 {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            vars.set_startup("thread_pool_size", Value::UInt(cpus as u64))?;
        }
        Ok(())
    }

    /// An empty root password is only safe on loopback.
    fn check_bind_policy(&self) -> Result<()> {
        if !self.root_password.is_empty() || is_loopback(&self.bind_address) {
            return Ok(());
        }
        Err(config_error(format!(
            "refusing to bind {} with an empty root password: anyone who can reach this \
             address would be root. Set --root-password (or root_password in the config file), \
             or bind 127.0.0.1",
            self.bind_address
        )))
    }
}

/// An ON/OFF setting (also 1/0, TRUE/FALSE), `default` when not given.
fn on_off(name: &str, text: Option<&str>, default: bool) -> Result<bool> {
    match text.map(|t| t.to_ascii_uppercase()).as_deref() {
        None => Ok(default),
        Some("ON" | "1" | "TRUE" | "YES") => Ok(true),
        Some("OFF" | "0" | "FALSE" | "NO") => Ok(false),
        Some(other) => Err(config_error(format!(
            "{name}: expected ON or OFF, not '{other}'"
        ))),
    }
}

fn is_loopback(addr: &str) -> bool {
    match addr {
        "localhost" => true,
        a => a
            .parse::<std::net::IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false),
    }
}

fn config_error(msg: String) -> Error {
    Error::new(cohort_protocol::ErrorCode::Unknown, msg)
}

/// Flags given on the command line override the file.
fn overlay(base: &mut ServeArgs, flags: &ServeArgs) {
    macro_rules! take {
        ($($f:ident),*) => { $( if flags.$f.is_some() { base.$f = flags.$f.clone(); } )* };
    }
    macro_rules! take_text { ($($f:ident),*) => { take!($($f),*) }; }
    text_settings!(take_text);
    take!(
        port,
        bind_address,
        datadir,
        root_password,
        ssl,
        max_connections,
        max_allowed_packet,
        innodb_lock_wait_timeout,
        wait_timeout,
        server_id,
        performance_schema
    );
}

fn variables_of(a: &ServeArgs) -> Vec<(String, Value)> {
    let mut v = Vec::new();
    let mut num = |name: &str, x: Option<u64>| {
        if let Some(x) = x {
            v.push((name.to_string(), Value::UInt(x)));
        }
    };
    num("max_connections", a.max_connections);
    num("max_allowed_packet", a.max_allowed_packet);
    num("innodb_lock_wait_timeout", a.innodb_lock_wait_timeout);
    num("wait_timeout", a.wait_timeout);
    num("server_id", a.server_id);
    if let Some(p) = &a.performance_schema {
        v.push(("performance_schema".into(), Value::str(p)));
    }
    macro_rules! push_text {
        ($($f:ident),*) => { $( if let Some(x) = &a.$f { v.push((stringify!($f).to_string(), Value::str(x))); } )* };
    }
    text_settings!(push_text);
    // tx_isolation is the other name of transaction_isolation.
    if let Some(x) = &a.transaction_isolation {
        v.push(("tx_isolation".to_string(), Value::str(x)));
    }
    v
}

/// Parse the TOML file into the same shape as the flags. Unknown keys are errors.
fn read_file(path: &Path) -> Result<ServeArgs> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| config_error(format!("cannot read config file {}: {e}", path.display())))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e| config_error(format!("config file {}: {e}", path.display())))?;
    let mut out = ServeArgs::default();
    for (key, value) in &table {
        let bad = || {
            config_error(format!(
                "config file {}: bad value for '{key}'",
                path.display()
            ))
        };
        let int = || {
            value
                .as_integer()
                .filter(|i| *i >= 0)
                .map(|i| i as u64)
                .ok_or_else(bad)
        };
        let text = || value.as_str().map(str::to_string).ok_or_else(bad);
        match key.as_str() {
            "port" => out.port = Some(u16::try_from(int()?).map_err(|_| bad())?),
            "bind" | "bind_address" => out.bind_address = Some(text()?),
            "datadir" => out.datadir = Some(PathBuf::from(text()?)),
            "root_password" => out.root_password = Some(text()?),
            "max_connections" => out.max_connections = Some(int()?),
            "max_allowed_packet" => out.max_allowed_packet = Some(int()?),
            "innodb_lock_wait_timeout" => out.innodb_lock_wait_timeout = Some(int()?),
            "wait_timeout" => out.wait_timeout = Some(int()?),
            "server_id" => out.server_id = Some(int()?),
            "performance_schema" => {
                out.performance_schema = Some(match value {
                    toml::Value::Boolean(b) => if *b { "ON" } else { "OFF" }.to_string(),
                    _ => text()?,
                })
            }
            "ssl" => {
                out.ssl = Some(match value {
                    toml::Value::Boolean(b) => if *b { "ON" } else { "OFF" }.to_string(),
                    _ => text()?,
                })
            }
            other => {
                if set_text_setting(&mut out, canonical_name(other), value) {
                    continue;
                }
                return Err(config_error(format!(
                    "config file {}: unknown setting '{key}'",
                    path.display()
                )));
            }
        }
    }
    Ok(out)
}

/// The variable a file key names (`thread_concurrency` is `innodb_thread_concurrency`).
fn canonical_name(key: &str) -> &str {
    crate::vars::ALIASES
        .iter()
        .find(|(alias, _)| *alias == key)
        .map_or(key, |(_, name)| name)
}

/// A text-valued setting from the file (numbers and booleans are accepted as text too).
fn set_text_setting(out: &mut ServeArgs, key: &str, value: &toml::Value) -> bool {
    let text = match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Boolean(b) => if *b { "ON" } else { "OFF" }.to_string(),
        _ => return false,
    };
    macro_rules! set {
        ($($f:ident),*) => { match key { $( stringify!($f) => { out.$f = Some(text); true } )* _ => false } };
    }
    text_settings!(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_override_file_and_unknown_keys_fail() {
        let dir = std::env::temp_dir().join(format!("cohort-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("c.toml");
        std::fs::write(
            &f,
            "port = 4000\nmax_connections = 12\nperformance_schema = false\n",
        )
        .unwrap();
        let args = ServeArgs {
            config: Some(f.clone()),
            port: Some(4001),
            ..Default::default()
        };
        let cfg = Config::resolve(&args).unwrap();
        assert_eq!(cfg.port, 4001);
        let vars = SystemVariables::new();
        cfg.apply(&vars).unwrap();
        assert_eq!(vars.global_u64("max_connections"), 12);
        assert_eq!(vars.global("performance_schema"), Some(Value::str("OFF")));
        std::fs::write(&f, "prot = 1\n").unwrap();
        assert!(Config::resolve(&args).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pool_mode_raises_max_connections_unless_given() {
        let mut args = ServeArgs {
            thread_handling: Some("pool-of-threads".into()),
            ..Default::default()
        };
        let vars = SystemVariables::new();
        Config::resolve(&args).unwrap().apply(&vars).unwrap();
        assert_eq!(vars.global_u64("max_connections"), POOL_MAX_CONNECTIONS);
        assert!(vars.global_u64("thread_pool_size") >= 1, "autosized");
        args.max_connections = Some(300);
        args.thread_pool_size = Some("3".into());
        let vars = SystemVariables::new();
        Config::resolve(&args).unwrap().apply(&vars).unwrap();
        assert_eq!(vars.global_u64("max_connections"), 300);
        assert_eq!(vars.global_u64("thread_pool_size"), 3);
        let vars = SystemVariables::new();
        Config::resolve(&ServeArgs::default())
            .unwrap()
            .apply(&vars)
            .unwrap();
        assert_eq!(vars.global_u64("max_connections"), 151);
        args.thread_handling = Some("fibers".into());
        let vars = SystemVariables::new();
        assert!(Config::resolve(&args).unwrap().apply(&vars).is_err());
    }

    #[test]
    fn admission_flags_and_their_short_names() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            serve: ServeArgs,
        }
        let cli = Cli::parse_from([
            "serve",
            "--thread-concurrency",
            "4",
            "--concurrency-queue",
            "adaptive-sleep",
            "--adaptive-max-sleep-delay",
            "2000",
            "--innodb-thread-sleep-delay",
            "50",
        ]);
        let cfg = Config::resolve(&cli.serve).unwrap();
        let vars = SystemVariables::new();
        cfg.apply(&vars).unwrap();
        assert_eq!(vars.global_u64("innodb_thread_concurrency"), 4);
        assert_eq!(vars.global_u64("thread_concurrency"), 4);
        assert_eq!(
            vars.global("concurrency_queue"),
            Some(Value::str("adaptive-sleep"))
        );
        assert_eq!(vars.global_u64("innodb_adaptive_max_sleep_delay"), 2000);
        assert_eq!(vars.global_u64("innodb_thread_sleep_delay"), 50);
        assert_eq!(vars.global_u64("innodb_concurrency_tickets"), 5000);

        let dir = std::env::temp_dir().join(format!("cohort-cfg-adm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("c.toml");
        std::fs::write(&f, "thread_concurrency = 2\nconcurrency_queue = \"fifo\"\n").unwrap();
        let cfg = Config::resolve(&ServeArgs {
            config: Some(f),
            ..Default::default()
        })
        .unwrap();
        let vars = SystemVariables::new();
        cfg.apply(&vars).unwrap();
        assert_eq!(vars.global_u64("innodb_thread_concurrency"), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Beyond loopback, TLS is required unless the operator says otherwise explicitly.
    #[test]
    fn a_non_loopback_bind_requires_tls_unless_told_otherwise() {
        let rst = |args: &ServeArgs| {
            let vars = SystemVariables::new();
            Config::resolve(args).unwrap().apply(&vars).unwrap();
            vars.global_bool("require_secure_transport")
        };
        let mut args = ServeArgs {
            bind_address: Some("0.0.0.0".into()),
            root_password: Some("pw".into()),
            ..Default::default()
        };
        assert!(rst(&args), "0.0.0.0: ON by default");
        args.bind_address = Some("192.0.2.7".into());
        assert!(rst(&args), "one address: ON by default");
        args.require_secure_transport = Some("OFF".into());
        assert!(!rst(&args), "explicit OFF");
        args.require_secure_transport = None;
        args.bind_address = Some("127.0.0.1".into());
        assert!(!rst(&args), "loopback: OFF by default");
        args.require_secure_transport = Some("ON".into());
        assert!(rst(&args), "explicit ON on loopback");
        // Without TLS: ON cannot hold; a non-loopback bind then needs the explicit OFF.
        args.ssl = Some("OFF".into());
        let e = Config::resolve(&args).unwrap_err();
        assert!(e.message().contains("No secure transports"), "{e}");
        args.require_secure_transport = None;
        args.bind_address = Some("0.0.0.0".into());
        let e = Config::resolve(&args).unwrap_err();
        assert!(
            e.message().contains("--require-secure-transport OFF"),
            "{e}"
        );
        args.require_secure_transport = Some("OFF".into());
        assert!(!rst(&args));
        args.ssl = Some("maybe".into());
        assert!(Config::resolve(&args).is_err());
        // From the file too.
        let dir = std::env::temp_dir().join(format!("cohort-cfg-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("c.toml");
        std::fs::write(
            &f,
            "bind_address = \"0.0.0.0\"\nroot_password = \"x\"\nssl = true\n\
             require_secure_transport = false\nssl_ca = \"/ca.pem\"\ntls_version = \"TLSv1.3\"\n",
        )
        .unwrap();
        let cfg = Config::resolve(&ServeArgs {
            config: Some(f),
            ..Default::default()
        })
        .unwrap();
        let vars = SystemVariables::new();
        cfg.apply(&vars).unwrap();
        assert!(cfg.ssl);
        assert!(!vars.global_bool("require_secure_transport"));
        assert_eq!(vars.global("ssl_ca"), Some(Value::str("/ca.pem")));
        assert_eq!(vars.global("tls_version"), Some(Value::str("TLSv1.3")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn empty_root_password_only_on_loopback() {
        let mut args = ServeArgs {
            bind_address: Some("0.0.0.0".into()),
            ..Default::default()
        };
        assert!(Config::resolve(&args).is_err());
        args.root_password = Some("secret".into());
        assert!(Config::resolve(&args).is_ok());
        args.root_password = None;
        args.bind_address = Some("::1".into());
        assert!(Config::resolve(&args).is_ok());
    }
}
