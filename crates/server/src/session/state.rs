//! Per-connection state and the server-wide services a statement can reach.
//!
//! `SessionState` is owned by one connection and touched only by the thread serving it.
//! `ServerContext` is shared (`Arc`) by all connections; each service in it documents its own
//! locking.

use crate::accounts::Accounts;
use crate::error::Result;
use crate::error::{Action, Error};
use crate::log::CommitPipeline;
use crate::sched::admission::{self, Gate};
use crate::session::memory::{self, SessionMemory};
use crate::status::Status;
use crate::storage::{Engine, IsolationLevel, Txn, TxnOptions, TxnSlot};
use crate::types::Value;
use crate::vars::SystemVariables;
use crate::wait::{self, WaitStats};
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

/// The services shared by every session.
pub struct ServerContext {
    pub engine: Arc<Engine>,
    /// Makes commits durable (or, in tests, just visible).
    pub pipeline: Arc<CommitPipeline>,
    /// Next XID; unique per transaction.
    pub next_xid: AtomicU64,
    pub vars: SystemVariables,
    pub accounts: Accounts,
    pub status: Status,
    pub started: Instant,
    /// The admission gate (`innodb_thread_concurrency`); follows SET GLOBAL.
    pub admission: Arc<Gate>,
    /// The wait summary this server's sessions record into (the process-wide one, except in
    /// tests that run several servers in one process).
    pub waits: Arc<WaitStats>,
    /// The pool of threads, when `thread_handling = pool-of-threads` started one
    /// (`information_schema.THREAD_POOL_GROUPS` reads it).
    pub thread_pool: OnceLock<Weak<crate::sched::PoolShared>>,
    /// Registered replicas and running binlog dumps ([`crate::replication`]).
    pub replication: crate::replication::Replication,
    /// Every connection (SHOW PROCESSLIST, KILL): see [`crate::session::processlist`].
    pub processes: Arc<crate::session::processlist::ProcessList>,
    /// LOCK TABLES of all sessions: see [`crate::session::table_locks`].
    pub table_locks: crate::session::table_locks::TableLocks,
    /// GET_LOCK and friends: see [`crate::session::user_locks`].
    pub user_locks: crate::session::user_locks::UserLocks,
    /// TLS, when configured (`have_ssl = YES`): greetings offer `CLIENT_SSL` and SSLRequests
    /// are accepted. Read (shared) once per connection, at its greeting.
    tls: parking_lot::RwLock<Option<Arc<crate::tls::Tls>>>,
}

impl ServerContext {
    /// A context whose commits are not logged (memory only).
    pub fn new(engine: Arc<Engine>, vars: SystemVariables, accounts: Accounts) -> ServerContext {
        let pipeline = Arc::new(CommitPipeline::memory(engine.clone()));
        ServerContext::with_pipeline(engine, pipeline, vars, accounts)
    }

    pub fn with_pipeline(
        engine: Arc<Engine>,
        pipeline: Arc<CommitPipeline>,
        vars: SystemVariables,
        accounts: Accounts,
    ) -> ServerContext {
        let waits = wait::global_stats();
        ServerContext::build(engine, pipeline, vars, accounts, waits)
    }

    fn build(
        engine: Arc<Engine>,
        pipeline: Arc<CommitPipeline>,
        vars: SystemVariables,
        accounts: Accounts,
        waits: Arc<WaitStats>,
    ) -> ServerContext {
        let admission = Arc::new(Gate::new(admission::Settings::from_vars(&vars)));
        let gate = admission.clone();
        vars.watch(admission::VARIABLES, move |v| {
            gate.configure(&admission::Settings::from_vars(v))
        });
        waits.set_enabled(vars.global_bool("performance_schema"));
        let w = waits.clone();
        vars.watch(&["performance_schema"], move |v| {
            w.set_enabled(v.global_bool("performance_schema"))
        });
        pipeline.attach();
        pipeline.follow_settings(&vars);
        let p = pipeline.clone();
        vars.watch(&["rpl_semi_sync_master_enabled"], move |v| {
            p.follow_settings(v)
        });
        let p = pipeline.clone();
        vars.set_live(Box::new(move |name| {
            crate::replication::live_variable(&p, name)
        }));
        let status = Status::new();
        let (p, g, e) = (pipeline.clone(), admission.clone(), engine.clone());
        status.set_provider(Box::new(move || {
            let mut rows = p.status();
            rows.extend(g.status());
            rows.extend(e.status());
            rows
        }));
        ServerContext {
            engine,
            pipeline,
            next_xid: AtomicU64::new(1),
            vars,
            accounts,
            status,
            started: Instant::now(),
            admission,
            waits,
            processes: Arc::default(),
            table_locks: Default::default(),
            user_locks: Default::default(),
            thread_pool: OnceLock::new(),
            replication: crate::replication::Replication::default(),
            tls: parking_lot::RwLock::new(None),
        }
    }

    /// TLS as configured, if it is.
    pub fn tls(&self) -> Option<Arc<crate::tls::Tls>> {
        self.tls.read().clone()
    }

    /// Offer TLS to the connections that start from now on.
    pub fn set_tls(&self, tls: Option<Arc<crate::tls::Tls>>) {
        *self.tls.write() = tls;
    }

    /// A context with an empty engine, default variables and `root@%` without a password. It
    /// has a wait summary of its own: threads that serve it bind to it
    /// ([`wait::bind_thread_stats`]), so that tests running side by side do not see each
    /// other's waits.
    pub fn for_tests() -> ServerContext {
        let engine = Engine::new();
        let pipeline = Arc::new(CommitPipeline::memory(engine.clone()));
        let waits = Arc::new(WaitStats::new());
        ServerContext::build(
            engine,
            pipeline,
            SystemVariables::new(),
            Accounts::in_memory(""),
            waits,
        )
    }
}

/// A transaction's statements with rows-event flags ([`SessionState::statement_flags`]).
pub type StatementFlagList = Vec<(usize, u16)>;

/// The variables read around every statement, read once and kept until a variable changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StmtVars {
    /// `binlog_annotate_row_events = ON` (see [`crate::session::annotate`]).
    pub annotate_rows: bool,
    /// `sql_notes = OFF`: notes are not kept.
    pub notes_off: bool,
    /// `max_session_mem_used`.
    pub mem_limit: u64,
    /// `max_statement_time` in microseconds (0: no limit).
    pub max_statement_us: u64,
    /// Rows-event flags for the binlog: NO_FOREIGN_KEY_CHECKS_F with `foreign_key_checks`
    /// off, RELAXED_UNIQUE_CHECKS_F with `unique_checks` off (0 normally).
    pub rows_flags: u16,
    /// `sql_select_limit`: the most rows a top-level SELECT without its own LIMIT returns
    /// (`u64::MAX`, the default: no limit).
    pub select_limit: u64,
    /// The parse-affecting bits of `sql_mode` (ANSI_QUOTES, …): how statement text is read.
    pub parse_mode: crate::sql::sql_mode::ParseMode,
}

/// The session's transaction characteristics (`tx_isolation`, `tx_read_only`,
/// `innodb_lock_wait_timeout`), read once and kept until a variable changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxnDefaults {
    pub isolation: IsolationLevel,
    pub read_only: bool,
    pub lock_wait_timeout: Duration,
    pub mdl_timeout: Duration,
}

/// The characteristics the next transaction takes instead of the session's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NextTxn {
    pub isolation: Option<IsolationLevel>,
    pub read_only: Option<bool>,
}

/// A note attached to the last statement (`SHOW WARNINGS`).
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    pub level: &'static str,
    pub code: u16,
    pub message: String,
}

/// Everything one connection remembers between statements.
pub struct SessionState {
    pub conn_id: u32,
    pub user: String,
    pub host: String,
    /// The default database (`USE db`).
    pub db: Option<String>,
    pub autocommit: bool,
    /// The open transaction, explicit or implicit. None between transactions.
    pub txn: Option<Txn>,
    /// The session's entry in the engine's transaction registry (its read views, lock
    /// waits, INNODB_TRX), registered at the first statement.
    pub trx_slot: Option<Arc<TxnSlot>>,
    /// `SET TRANSACTION …` without a scope and `START TRANSACTION READ ONLY | READ WRITE`:
    /// characteristics of the next transaction only, taken when it starts.
    pub next_txn: NextTxn,
    /// The session's transaction characteristics as its variables give them, and the
    /// generation of the global variables they were read at (cleared by any SET SESSION).
    pub txn_defaults: Option<(u64, TxnDefaults)>,
    /// The variables read around every statement, and the generation of the global
    /// variables they were read at (cleared by any SET SESSION).
    pub stmt_vars: Option<(u64, StmtVars)>,
    /// The effective `sql_mode` in upper case, as statements read it (`Env::sql_mode`), and
    /// the generation of the global variables it was read at (cleared by any SET SESSION).
    pub sql_mode_upper: Option<(u64, String)>,
    /// True after BEGIN / START TRANSACTION until COMMIT / ROLLBACK.
    pub explicit_txn: bool,
    /// `LAST_INSERT_ID()`: the first value generated by the last INSERT that generated one.
    pub last_insert_id: u64,
    /// `ROW_COUNT()`: rows changed by the previous statement, -1 after a result set or error.
    pub row_count: i64,
    /// What FOUND_ROWS() answers (see `sql/exec/found_rows.rs`); 0 in a new session.
    pub last_found_rows: u64,
    /// Session values of system variables that differ from the global value.
    pub session_vars: HashMap<String, Value>,
    /// The connection's character sets as the variables say ([`Self::refresh_charsets`]).
    pub charsets: super::charsets::ConnCharsets,
    /// The collation id `character_set_results` was set with (the handshake's, or SET
    /// NAMES'), which column definitions carry while it is of that character set.
    pub results_collation: Option<u16>,
    /// `@name` user variables.
    pub user_vars: HashMap<String, Value>,
    /// Warnings of the last statement.
    pub warnings: Vec<Warning>,
    /// Set by a scheduler that can hold a response without a thread (the pool of threads):
    /// commits that end a statement are then deferred (see [`crate::session::commit`]).
    pub commit_notifier: Option<crate::session::commit::CommitNotifier>,
    /// A deferred commit was handed to the pipeline and its outcome is not known yet: the
    /// statement's response is held until it is.
    pub pending_commit: bool,
    /// The connection's TLS (`Ssl_version`, `Ssl_cipher`), None outside TLS.
    pub tls: Option<crate::tls::TlsInfo>,
    /// What the connection holds between commands (see [`crate::session::memory`]).
    pub memory: SessionMemory,
    /// The open transaction's statements that changed rows, for the binlog's Annotate_rows
    /// events (`binlog_annotate_row_events`): (the transaction's change count when the
    /// statement began, its text), ascending. Cleared when the transaction ends.
    pub annotations: Vec<(usize, String)>,
    /// The open transaction's statements that changed rows with `foreign_key_checks` or
    /// `unique_checks` off: (change count when the statement began, rows-event flags),
    /// ascending ([`crate::log::encode::StatementFlags`]). Usually empty.
    pub statement_flags: Vec<(usize, u16)>,
    /// COM_QUERY statements already parsed and bound, by normalized text
    /// ([`crate::sql::StmtCache`]).
    pub stmt_cache: crate::sql::StmtCache,
    /// PREPARE'd statements by name ([`crate::sql::NamedStatements`]); their count is in
    /// `Prepared_stmt_count` until they are cleared (the session layer clears them when the
    /// connection closes, resets or changes user).
    pub named_statements: crate::sql::NamedStatements,
    /// The connection's process-list entry (None for sessions without a connection: tests,
    /// tools).
    pub process: Option<Arc<crate::session::processlist::Process>>,
    /// `CLIENT_FOUND_ROWS`: an UPDATE's affected rows are the rows it matched.
    pub found_rows: bool,
    /// The tables this session locked with LOCK TABLES (None: it holds no table locks).
    pub locked_tables: Option<Vec<crate::session::table_locks::LockedTable>>,
    /// The address the client connected from (MariaDB names it in 1142); None: `host`.
    pub client_host: Option<String>,
    /// `CLIENT_LOCAL_FILES`: the client serves LOAD DATA LOCAL INFILE.
    pub local_infile: bool,
    /// A LOAD DATA LOCAL waiting for the client's file (`sql/exec/load.rs`).
    pub pending_load: Option<Box<crate::sql::LoadJob>>,
    /// The session's TEMPORARY tables (`sql/exec/ddl/temporary.rs`); they shadow base tables
    /// of the same name and go away with the session.
    pub temp_tables: Vec<Arc<crate::storage::Table>>,
    /// `SET timestamp = N`: the time every statement reads as its clock (NOW(),
    /// CURRENT_TIMESTAMP) until `SET timestamp = DEFAULT`; UTC.
    pub fixed_time: Option<crate::types::DateTime>,
    /// What the current statement changed, for a client with CLIENT_SESSION_TRACK
    /// ([`super::track`]).
    pub track: super::track::Tracker,
    /// What the session's BINLOG statements decoded so far (`sql/exec/binlog_stmt`); None
    /// until the first.
    pub binlog_replay: Option<Box<crate::sql::BinlogReplayState>>,
    /// Rows-event flags the current statement adds to those of its variables: a BINLOG
    /// statement's rows that were written without foreign key checks keep that flag in
    /// this server's binlog. Taken by [`SessionState::annotate`], cleared at statement end.
    pub extra_rows_flags: u16,
}

impl SessionState {
    /// The client's address, or the account's host for a session without a connection.
    pub fn client_host(&self) -> &str {
        self.client_host.as_deref().unwrap_or(&self.host)
    }

    pub fn new(conn_id: u32, user: &str, host: &str, db: Option<String>) -> SessionState {
        SessionState {
            conn_id,
            user: user.to_string(),
            host: host.to_string(),
            db,
            autocommit: true,
            txn: None,
            trx_slot: None,
            next_txn: NextTxn::default(),
            txn_defaults: None,
            stmt_vars: None,
            sql_mode_upper: None,
            explicit_txn: false,
            last_insert_id: 0,
            row_count: -1,
            last_found_rows: 0,
            session_vars: HashMap::new(),
            charsets: super::charsets::ConnCharsets::default(),
            results_collation: None,
            user_vars: HashMap::new(),
            warnings: Vec::new(),
            commit_notifier: None,
            pending_commit: false,
            tls: None,
            memory: SessionMemory::default(),
            annotations: Vec::new(),
            statement_flags: Vec::new(),
            stmt_cache: crate::sql::StmtCache::default(),
            named_statements: crate::sql::NamedStatements::default(),
            process: None,
            client_host: None,
            found_rows: false,
            locked_tables: None,
            local_infile: false,
            pending_load: None,
            temp_tables: Vec::new(),
            fixed_time: None,
            track: super::track::Tracker::default(),
            binlog_replay: None,
            extra_rows_flags: 0,
        }
    }

    /// A statement that began when the transaction had changed `first` rows succeeded: keep
    /// its text for Annotate_rows if it changed rows. Statements recorded at or after `first`
    /// were rolled back (a savepoint) and are forgotten.
    /// Its rows-event flags ([`StmtVars::rows_flags`]) are kept alike. An empty `text` keeps
    /// no annotation (`binlog_annotate_row_events` is off).
    pub fn annotate(&mut self, first: usize, text: String) {
        let extra = std::mem::take(&mut self.extra_rows_flags);
        let Some(count) = self.txn.as_ref().map(|t| t.change_count()) else {
            return;
        };
        let keep = self.annotations.partition_point(|(f, _)| *f < first);
        for (_, t) in self.annotations.drain(keep..) {
            self.memory.annotations = self.memory.annotations.saturating_sub(t.len() as u64);
        }
        let keep = self.statement_flags.partition_point(|(f, _)| *f < first);
        self.statement_flags.truncate(keep);
        if count <= first {
            return;
        }
        if !text.is_empty() {
            self.memory.annotations += text.len() as u64;
            self.annotations.push((first, text));
        }
        // The flags the statement ran with: `stmt_vars` was made current when it began.
        let flags = self.stmt_vars.map_or(0, |(_, v)| v.rows_flags) | extra;
        if flags != 0 {
            self.statement_flags.push((first, flags));
        }
    }

    /// The annotations of the transaction that ends now.
    pub fn take_annotations(&mut self) -> Vec<(usize, String)> {
        self.memory.annotations = 0;
        self.statement_flags.clear();
        std::mem::take(&mut self.annotations)
    }

    /// The annotations and statement flags of the transaction that ends now.
    pub fn take_statements(&mut self) -> (Vec<(usize, String)>, StatementFlagList) {
        let flags = std::mem::take(&mut self.statement_flags);
        (self.take_annotations(), flags)
    }

    /// True while a transaction is open (the IN_TRANS status flag).
    pub fn in_transaction(&self) -> bool {
        self.explicit_txn || self.txn.is_some()
    }

    /// BEGIN / START TRANSACTION: commits any open transaction first (implicit commit).
    /// `read_only` (READ ONLY / READ WRITE) applies to this transaction only; WITH CONSISTENT
    /// SNAPSHOT takes the read view now (REPEATABLE READ and SERIALIZABLE).
    pub fn begin_explicit(
        &mut self,
        ctx: &ServerContext,
        read_only: Option<bool>,
        consistent_snapshot: bool,
    ) -> Result<()> {
        if consistent_snapshot {
            // The snapshot must see the commit of the transaction this ends: no deferral.
            self.commit(ctx)?;
        } else {
            self.commit_before_reply(ctx)?;
        }
        self.explicit_txn = true;
        if read_only.is_some() {
            self.next_txn.read_only = read_only;
        }
        if consistent_snapshot {
            self.txn(ctx).take_snapshot();
        }
        Ok(())
    }

    /// The session's registry slot (registered on first use).
    pub fn trx_slot(&mut self, ctx: &ServerContext) -> &Arc<TxnSlot> {
        let conn_id = self.conn_id;
        self.trx_slot
            .get_or_insert_with(|| ctx.engine.register_session(conn_id))
    }

    /// The transaction the current statement runs in, started on first use with the
    /// session's characteristics (or those set for the next transaction only).
    pub fn txn(&mut self, ctx: &ServerContext) -> &mut Txn {
        if self.txn.is_none() {
            let d = self.txn_defaults(ctx);
            let opts = TxnOptions {
                isolation: self.next_txn.isolation.take().unwrap_or(d.isolation),
                read_only: self.next_txn.read_only.take().unwrap_or(d.read_only),
                autocommit: self.autocommit && !self.explicit_txn,
                lock_wait_timeout: d.lock_wait_timeout,
                mdl_timeout: d.mdl_timeout,
            };
            let slot = self.trx_slot(ctx).clone();
            self.txn = Some(ctx.engine.begin_in(&slot, opts));
        }
        self.txn.as_mut().expect("just started")
    }

    /// The session's transaction characteristics, from its variables (cached: reading them
    /// costs a few map lookups, and a transaction starts with every autocommit statement).
    pub fn txn_defaults(&mut self, ctx: &ServerContext) -> TxnDefaults {
        let generation = ctx.vars.generation();
        if let Some((g, d)) = self.txn_defaults {
            if g == generation {
                return d;
            }
        }
        let d = TxnDefaults {
            isolation: self.isolation(ctx),
            read_only: self.var_on(ctx, "tx_read_only"),
            lock_wait_timeout: self.lock_wait_timeout(ctx),
            mdl_timeout: self.mdl_timeout(ctx),
        };
        self.txn_defaults = Some((generation, d));
        d
    }

    /// The session's isolation level (`tx_isolation`).
    pub fn isolation(&self, ctx: &ServerContext) -> IsolationLevel {
        self.var(ctx, "tx_isolation")
            .and_then(|v| IsolationLevel::parse(&crate::sql::value_text(&v)))
            .unwrap_or(IsolationLevel::RepeatableRead)
    }

    fn var_on(&self, ctx: &ServerContext, name: &str) -> bool {
        self.var(ctx, name)
            .is_some_and(|v| crate::sql::value_text(&v).eq_ignore_ascii_case("ON"))
    }

    /// SAVEPOINT: in a transaction, remember the point; in autocommit mode outside BEGIN the
    /// statement is its own transaction, so there is nothing to come back to.
    pub fn savepoint(&mut self, ctx: &ServerContext, name: &str) {
        if self.explicit_txn || !self.autocommit {
            self.txn(ctx).set_savepoint(name);
        }
    }

    /// ROLLBACK TO SAVEPOINT: 1305 if there is no such savepoint.
    pub fn rollback_to_savepoint(&mut self, name: &str) -> Result<()> {
        match self.txn.as_mut() {
            Some(t) => t.rollback_to_savepoint(name),
            None => Err(no_savepoint(name)),
        }
    }

    /// RELEASE SAVEPOINT: 1305 if there is no such savepoint.
    pub fn release_savepoint(&mut self, name: &str) -> Result<()> {
        match self.txn.as_mut() {
            Some(t) => t.release_savepoint(name),
            None => Err(no_savepoint(name)),
        }
    }

    /// After a failed statement (whose own effects the SQL layer already undid): a deadlock
    /// victim's transaction is rolled back; so is the transaction of a lock wait timeout with
    /// `innodb_rollback_on_timeout = ON`; otherwise, in autocommit mode, the statement's
    /// transaction ends.
    pub fn statement_failed(&mut self, ctx: &ServerContext, e: &Error) {
        let timeout_rolls_back = e.code() == cohort_protocol::ErrorCode::LockWaitTimeout
            && ctx.vars.global_bool("innodb_rollback_on_timeout");
        if e.action() == Action::RollbackTransaction || timeout_rolls_back {
            self.rollback(ctx);
        } else {
            let _ = self.end_statement(ctx, false);
        }
    }

    /// COMMIT: makes the open transaction's changes durable and visible before returning.
    pub fn commit(&mut self, ctx: &ServerContext) -> Result<()> {
        self.commit_with(ctx, false)
    }

    /// A commit that is the statement's last step before its response (COMMIT, BEGIN,
    /// `SET autocommit = 1`, the autocommit of a statement). With a commit notifier (pool of
    /// threads) it may be deferred: it returns once the transaction is queued, sets
    /// `pending_commit`, and the session holds the response until the outcome is known.
    /// Otherwise it is [`SessionState::commit`].
    pub fn commit_before_reply(&mut self, ctx: &ServerContext) -> Result<()> {
        self.commit_with(ctx, true)
    }

    fn commit_with(&mut self, ctx: &ServerContext, may_defer: bool) -> Result<()> {
        self.explicit_txn = false;
        let Some(txn) = self.txn.take() else {
            return Ok(());
        };
        if !txn.has_changes() {
            self.take_annotations();
            ctx.engine.rollback(txn);
            return Ok(());
        }
        crate::session::commit::commit_transaction(ctx, self, txn, may_defer)
    }

    /// ROLLBACK: discards the open transaction.
    pub fn rollback(&mut self, ctx: &ServerContext) {
        self.explicit_txn = false;
        self.take_annotations();
        if let Some(txn) = self.txn.take() {
            ctx.engine.rollback(txn);
        }
    }

    /// Called after every statement: in autocommit mode outside BEGIN, the statement's
    /// transaction commits now (or rolls back if the statement failed).
    pub fn end_statement(&mut self, ctx: &ServerContext, succeeded: bool) -> Result<()> {
        self.extra_rows_flags = 0;
        if self.autocommit && !self.explicit_txn {
            if succeeded {
                return self.commit_before_reply(ctx);
            }
            self.rollback(ctx);
        }
        Ok(())
    }

    /// The variables every statement reads (cached like [`SessionState::txn_defaults`]: a
    /// look-up costs a hash and a binary search, an allocation for a text value).
    pub fn stmt_vars(&mut self, ctx: &ServerContext) -> StmtVars {
        let generation = ctx.vars.generation();
        if let Some((g, v)) = self.stmt_vars {
            if g == generation {
                return v;
            }
        }
        let v = StmtVars {
            annotate_rows: self
                .var(ctx, "binlog_annotate_row_events")
                .is_some_and(|v| v == Value::str("ON")),
            notes_off: matches!(self.var(ctx, "sql_notes"), Some(Value::Bytes(b)) if b == b"OFF"),
            mem_limit: self.mem_limit_uncached(ctx),
            max_statement_us: self
                .var(ctx, "max_statement_time")
                .map_or(0, |v| crate::vars::seconds_micros(&v)),
            rows_flags: self.rows_flags_uncached(ctx),
            select_limit: match self.var(ctx, "sql_select_limit") {
                Some(Value::UInt(n)) => n,
                Some(Value::Int(n)) => n.max(0) as u64,
                _ => u64::MAX,
            },
            parse_mode: match self.var(ctx, "sql_mode") {
                Some(m) => crate::sql::sql_mode::ParseMode::of(
                    &crate::sql::value_text(&m).to_ascii_uppercase(),
                ),
                None => Default::default(),
            },
        };
        self.stmt_vars = Some((generation, v));
        v
    }

    fn rows_flags_uncached(&self, ctx: &ServerContext) -> u16 {
        let off = |name| matches!(self.var(ctx, name), Some(Value::Bytes(b)) if b == b"OFF");
        let mut flags = 0;
        if off("foreign_key_checks") {
            flags |= cohort_binlog::NO_FOREIGN_KEY_CHECKS_F;
        }
        if off("unique_checks") {
            flags |= cohort_binlog::RELAXED_UNIQUE_CHECKS_F;
        }
        flags
    }

    /// Make [`SessionState::sql_mode_upper`] current (a DML statement reads `sql_mode` at
    /// least once: without the cache, a look-up and two allocations each time).
    pub fn sql_mode_upper(&mut self, ctx: &ServerContext) {
        let generation = ctx.vars.generation();
        if matches!(&self.sql_mode_upper, Some((g, _)) if *g == generation) {
            return;
        }
        let v = self.var(ctx, "sql_mode").unwrap_or(Value::Null);
        let upper = crate::sql::value_text(&v).to_ascii_uppercase();
        self.sql_mode_upper = Some((generation, upper));
    }

    /// `max_session_mem_used` for this session (from [`SessionState::stmt_vars`] when it is
    /// current).
    pub fn mem_limit(&self, ctx: &ServerContext) -> u64 {
        match self.stmt_vars {
            Some((g, v)) if g == ctx.vars.generation() => v.mem_limit,
            _ => self.mem_limit_uncached(ctx),
        }
    }

    fn mem_limit_uncached(&self, ctx: &ServerContext) -> u64 {
        match self.session_vars.get("max_session_mem_used") {
            Some(Value::UInt(n)) => *n,
            Some(Value::Int(n)) => (*n).max(0) as u64,
            _ => ctx.vars.global_u64("max_session_mem_used"),
        }
    }

    /// `SET @name = value`: refused with 1290 if the session would hold more than
    /// `max_session_mem_used`.
    pub fn set_user_var(&mut self, ctx: &ServerContext, name: &str, value: Value) -> Result<()> {
        let new = memory::user_var_cost(name, &value);
        let old = self
            .user_vars
            .get(name)
            .map_or(0, |v| memory::user_var_cost(name, v));
        let limit = self.mem_limit(ctx);
        if new > old && self.memory.held() - old + new > limit {
            return Err(crate::memory::over_limit(limit));
        }
        self.store_user_var(name.to_string(), value);
        Ok(())
    }

    /// Keep a user variable assigned by a statement (`@x := v`), counting it. Not refused:
    /// the statement built the value within its budget ([`crate::memory::check`]).
    pub fn store_user_var(&mut self, name: String, value: Value) {
        let new = memory::user_var_cost(&name, &value);
        let old = self
            .user_vars
            .get(&name)
            .map_or(0, |v| memory::user_var_cost(&name, v));
        self.user_vars.insert(name, value);
        self.track.state_changed();
        self.memory.user_vars = (self.memory.user_vars + new).saturating_sub(old);
    }

    /// The effective value of a system variable for this session.
    pub fn var(&self, ctx: &ServerContext, name: &str) -> Option<Value> {
        // The server's own look-ups name variables in lower case: no allocation for them.
        let key = match name.bytes().any(|b| b.is_ascii_uppercase()) {
            true => std::borrow::Cow::Owned(name.to_ascii_lowercase()),
            false => std::borrow::Cow::Borrowed(name),
        };
        self.session_vars
            .get(key.as_ref())
            .cloned()
            .or_else(|| ctx.vars.global(&key))
    }

    /// Read the connection's character sets again from their variables (after any of them
    /// changed).
    pub fn refresh_charsets(&mut self, ctx: &ServerContext) {
        use super::charsets::{literal_collation, WireCharset};
        let text = |name| {
            self.var(ctx, name)
                .filter(|v| !v.is_null())
                .map(|v| crate::sql::value_text(&v))
        };
        let named = |name| text(name).and_then(|t| WireCharset::named(&t));
        let results = named("character_set_results").map(|cs| {
            let id = self
                .results_collation
                .filter(|&id| super::charsets::id_charset(id) == Some(cs))
                .unwrap_or_else(|| cs.default_id());
            (cs, id)
        });
        self.charsets = super::charsets::ConnCharsets {
            client: named("character_set_client").unwrap_or(WireCharset::Utf8mb4),
            literal: text("collation_connection")
                .map_or(crate::types::Collation::Utf8mb4GeneralCi, |c| {
                    literal_collation(&c)
                }),
            results,
        };
    }

    /// `lock_wait_timeout`: how long a metadata-lock wait may last.
    pub fn mdl_timeout(&self, ctx: &ServerContext) -> Duration {
        let secs = match self.var(ctx, "lock_wait_timeout") {
            Some(Value::Int(s)) if s >= 0 => s as u64,
            Some(Value::UInt(s)) => s,
            _ => 86_400,
        };
        Duration::from_secs(secs)
    }

    pub fn lock_wait_timeout(&self, ctx: &ServerContext) -> Duration {
        let secs = match self.var(ctx, "innodb_lock_wait_timeout") {
            Some(Value::Int(s)) if s >= 0 => s as u64,
            Some(Value::UInt(s)) => s,
            _ => 50,
        };
        Duration::from_secs(secs)
    }
}

fn no_savepoint(name: &str) -> Error {
    Error::new(
        cohort_protocol::ErrorCode::SpDoesNotExist,
        format!("SAVEPOINT {name} does not exist"),
    )
}

impl crate::log::checkpointer::CheckpointHost for ServerContext {
    fn pipeline(&self) -> &crate::log::CommitPipeline {
        &self.pipeline
    }
    fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }
    fn vars(&self) -> &SystemVariables {
        &self.vars
    }
    fn next_xid(&self) -> u64 {
        self.next_xid.load(std::sync::atomic::Ordering::Relaxed)
    }
}
