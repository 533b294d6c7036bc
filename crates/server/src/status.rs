//! Server status counters: what `SHOW GLOBAL STATUS` reports.
//!
//! Each counter is one relaxed atomic; incrementing never takes a lock. Gauges that are derived
//! from other state (uptime) are computed when the list is read.
//!
//! Connection and thread counters, the same in both `thread_handling` modes:
//!
//! | counter | meaning | maintained by |
//! |---|---|---|
//! | Connections | connection attempts (accepted sockets) | [`crate::net::ConnectionSlot`] |
//! | Threads_connected | connections open now | `ConnectionSlot` (taken at accept, given back at close) |
//! | Max_used_connections | high-water mark of Threads_connected (admitted ones) | `ConnectionSlot` |
//! | Aborted_connects | failed logins, and connections closed during the handshake | the session |
//! | Threads_running | sessions executing a command now (a held deferred commit included) | the session |
//! | Threads_created | threads created to serve connections: one per connection (thread-per-connection, extra port), one per pool worker | `net`, [`crate::sched`] |
//! | Threadpool_threads | pool workers alive (listeners included); 0 without the pool | `sched` |
//! | Threadpool_idle_threads | pool workers not running a connection: sleeping, listening, or blocked in a wait (MariaDB's meaning); 0 without the pool | `sched` |
//! | Threadpool_steered | connections moved to the group of their client's CPU (`thread_pool_steering`) | `sched` |
//! | Ssl_accepts | SSLRequests accepted (TLS handshakes begun) | the session |
//! | Ssl_finished_accepts | TLS handshakes completed | the session |
//!
//! `Ssl_version` and `Ssl_cipher` are the showing session's own (as in MariaDB, also under
//! SHOW GLOBAL STATUS): `crate::sql::show` adds them.
//!
//! Subsystems that keep their own counters add rows through the provider
//! (`ServerContext` installs it): the commit pipeline (`Binlog_*`, `Redo_log_*`,
//! `Checkpoint*`) and the admission gate (`Admission_*`, listed in
//! [`crate::sched::admission`]).

use crate::types::Value;
use std::sync::atomic::{AtomicU64, Ordering};

macro_rules! counters {
    ($($variant:ident => $name:literal,)*) => {
        /// A named status counter.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum StatusCounter { $($variant,)* }

        impl StatusCounter {
            pub const ALL: &'static [StatusCounter] = &[$(StatusCounter::$variant,)*];

            /// The name shown by `SHOW STATUS`.
            pub fn name(self) -> &'static str {
                match self { $(StatusCounter::$variant => $name,)* }
            }
        }
    };
}

counters! {
    AbortedClients => "Aborted_clients",
    AbortedConnects => "Aborted_connects",
    BytesReceived => "Bytes_received",
    BytesSent => "Bytes_sent",
    ComBegin => "Com_begin",
    ComCommit => "Com_commit",
    ComCreateTable => "Com_create_table",
    ComDeallocSql => "Com_dealloc_sql",
    ComDelete => "Com_delete",
    ComDeleteMulti => "Com_delete_multi",
    ComDropTable => "Com_drop_table",
    ComExecuteSql => "Com_execute_sql",
    ComInsert => "Com_insert",
    ComOther => "Com_other",
    ComPrepareSql => "Com_prepare_sql",
    ComReleaseSavepoint => "Com_release_savepoint",
    ComReplace => "Com_replace",
    ComRollback => "Com_rollback",
    ComRollbackToSavepoint => "Com_rollback_to_savepoint",
    ComSavepoint => "Com_savepoint",
    ComSelect => "Com_select",
    ComSet => "Com_set_option",
    ComShow => "Com_show_status",
    ComStmtClose => "Com_stmt_close",
    ComStmtExecute => "Com_stmt_execute",
    ComStmtPrepare => "Com_stmt_prepare",
    ComUpdate => "Com_update",
    ComUpdateMulti => "Com_update_multi",
    Connections => "Connections",
    MaxUsedConnections => "Max_used_connections",
    PreparedStmtCount => "Prepared_stmt_count",
    Questions => "Questions",
    SslAccepts => "Ssl_accepts",
    SslFinishedAccepts => "Ssl_finished_accepts",
    ThreadsConnected => "Threads_connected",
    ThreadsCreated => "Threads_created",
    ThreadsRunning => "Threads_running",
    ThreadpoolIdleThreads => "Threadpool_idle_threads",
    ThreadpoolSteered => "Threadpool_steered",
    ThreadpoolThreads => "Threadpool_threads",
}

/// All counters, indexed by `StatusCounter as usize`.
pub struct Status {
    values: Vec<AtomicU64>,
    started: std::time::Instant,
    /// Rows computed by other subsystems (the commit pipeline) when the list is read.
    provider: parking_lot::RwLock<Option<Provider>>,
}

/// A source of extra status rows.
pub type Provider = Box<dyn Fn() -> Vec<(String, Value)> + Send + Sync>;

impl Default for Status {
    fn default() -> Self {
        Self::new()
    }
}

impl Status {
    pub fn new() -> Status {
        Status {
            values: StatusCounter::ALL
                .iter()
                .map(|_| AtomicU64::new(0))
                .collect(),
            started: std::time::Instant::now(),
            provider: parking_lot::RwLock::new(None),
        }
    }

    /// Install the source of extra rows.
    pub fn set_provider(&self, p: Provider) {
        *self.provider.write() = Some(p);
    }

    pub fn incr(&self, c: StatusCounter) {
        self.add(c, 1);
    }

    pub fn add(&self, c: StatusCounter, n: u64) {
        self.values[c as usize].fetch_add(n, Ordering::Relaxed);
    }

    pub fn sub(&self, c: StatusCounter, n: u64) {
        self.values[c as usize].fetch_sub(n, Ordering::Relaxed);
    }

    pub fn get(&self, c: StatusCounter) -> u64 {
        self.values[c as usize].load(Ordering::Relaxed)
    }

    /// Add 1 unless the counter is already at `limit` (a count of things held, such as
    /// Prepared_stmt_count, that must never pass its limit even under concurrency).
    pub fn incr_below(&self, c: StatusCounter, limit: u64) -> bool {
        self.values[c as usize]
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < limit).then_some(n + 1)
            })
            .is_ok()
    }

    /// Raise a high-water mark (e.g. Max_used_connections) to at least `v`.
    pub fn raise_to(&self, c: StatusCounter, v: u64) {
        self.values[c as usize].fetch_max(v, Ordering::Relaxed);
    }

    /// Every counter and gauge, sorted by name.
    pub fn list(&self) -> Vec<(String, Value)> {
        let mut out: Vec<(String, Value)> = StatusCounter::ALL
            .iter()
            .map(|&c| (c.name().to_string(), Value::UInt(self.get(c))))
            .collect();
        out.push((
            "Uptime".to_string(),
            Value::UInt(self.started.elapsed().as_secs()),
        ));
        if let Some(p) = self.provider.read().as_ref() {
            out.extend(p());
        }
        out.sort_by_key(|(name, _)| name.to_ascii_lowercase());
        out
    }
}
