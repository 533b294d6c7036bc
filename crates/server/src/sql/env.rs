//! The environment a statement executes in: a read-only view of the session, the parameter
//! values, the statement's warnings and the things computed once per statement (the current
//! time, strict mode).
//!
//! The session's open transaction is borrowed mutably beside this view (see
//! [`split_session`]), so a scan can evaluate expressions that read session variables while it
//! holds the transaction.

use crate::error::{Error, Result};
use crate::session::state::{ServerContext, SessionState, Warning};
use crate::storage::Txn;
use crate::types::{DateTime, Value};
use cohort_protocol::ErrorCode;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;

/// Warnings one statement keeps (an OK packet counts at most this many).
pub const MAX_WARNINGS: usize = u16::MAX as usize;
/// Bytes of a warning's message (MariaDB's MYSQL_ERRMSG_SIZE).
const MAX_MESSAGE: usize = 512;

/// What a statement may read of its session.
#[derive(Clone, Copy)]
pub struct SessView<'a> {
    pub conn_id: u32,
    pub user: &'a str,
    pub host: &'a str,
    pub db: Option<&'a str>,
    pub autocommit: bool,
    pub in_transaction: bool,
    pub last_insert_id: u64,
    /// `ROW_COUNT()`: rows the previous statement changed (-1 after a SELECT or an error).
    pub row_count: i64,
    /// FOUND_ROWS(): see `exec/found_rows.rs`.
    pub last_found_rows: u64,
    pub session_vars: &'a HashMap<String, Value>,
    pub user_vars: &'a HashMap<String, Value>,
    /// Number of warnings of the previous statement (`@@warning_count`).
    pub prev_warnings: usize,
    /// The connection's TLS (`Ssl_version`, `Ssl_cipher`).
    pub tls: Option<crate::tls::TlsInfo>,
    /// `CLIENT_FOUND_ROWS`: an UPDATE reports the rows it matched as affected.
    pub found_rows: bool,
    /// The tables the session locked with LOCK TABLES, if it did.
    pub locked_tables: Option<&'a [crate::session::table_locks::LockedTable]>,
    /// The client's address (MariaDB names it in 1142).
    pub client_host: &'a str,
    /// The session's TEMPORARY tables.
    pub temp_tables: &'a [std::sync::Arc<crate::storage::Table>],
    /// The effective `sql_mode` in upper case, if the session has it cached and current
    /// ([`SessionState::sql_mode_upper`]); otherwise [`Env::sql_mode`] reads it.
    pub sql_mode: Option<&'a str>,
    /// `SET timestamp`: the session's fixed clock ([`SessionState::fixed_time`]).
    pub fixed_time: Option<DateTime>,
    /// The connection's character sets (the collation literals take).
    pub charsets: crate::session::charsets::ConnCharsets,
}

impl SessView<'_> {
    /// The session's TEMPORARY table `db.name`, if it has one.
    pub fn temp_table(
        &self,
        db: &str,
        name: &str,
    ) -> Option<&std::sync::Arc<crate::storage::Table>> {
        if self.temp_tables.is_empty() {
            return None;
        }
        self.temp_tables
            .iter()
            .find(|t| t.db() == db && t.name() == name)
    }

    /// `@@pseudo_thread_id`, what CONNECTION_ID() answers: the connection id until a
    /// session sets it (`mariadb-binlog` output does).
    pub fn pseudo_thread_id(&self) -> u64 {
        match self.session_vars.get("pseudo_thread_id") {
            Some(Value::UInt(u)) => *u,
            Some(Value::Int(i)) => *i as u64,
            _ => self.conn_id as u64,
        }
    }
}

impl<'a> SessView<'a> {
    pub fn of(sess: &'a SessionState, prev_warnings: usize) -> SessView<'a> {
        SessView {
            conn_id: sess.conn_id,
            user: &sess.user,
            host: &sess.host,
            db: sess.db.as_deref(),
            autocommit: sess.autocommit,
            in_transaction: sess.in_transaction(),
            last_insert_id: sess.last_insert_id,
            row_count: sess.row_count,
            last_found_rows: sess.last_found_rows,
            session_vars: &sess.session_vars,
            user_vars: &sess.user_vars,
            prev_warnings,
            tls: sess.tls,
            found_rows: sess.found_rows,
            locked_tables: sess.locked_tables.as_deref(),
            client_host: sess.client_host(),
            temp_tables: &sess.temp_tables,
            sql_mode: None,
            fixed_time: sess.fixed_time,
            charsets: sess.charsets,
        }
    }
}

/// Borrow the statement's transaction (starting it if needed) and a view of the rest of the
/// session at the same time.
pub fn split_session<'s>(
    ctx: &ServerContext,
    sess: &'s mut SessionState,
    prev_warnings: usize,
) -> (&'s mut Txn, SessView<'s>) {
    sess.txn(ctx);
    sess.sql_mode_upper(ctx);
    let in_transaction = true;
    let SessionState {
        conn_id,
        user,
        host,
        db,
        autocommit,
        txn,
        last_insert_id,
        session_vars,
        user_vars,
        row_count,
        last_found_rows,
        tls,
        found_rows,
        locked_tables,
        client_host,
        temp_tables,
        sql_mode_upper,
        fixed_time,
        charsets,
        ..
    } = sess;
    let view = SessView {
        conn_id: *conn_id,
        user,
        host,
        db: db.as_deref(),
        autocommit: *autocommit,
        in_transaction,
        last_insert_id: *last_insert_id,
        row_count: *row_count,
        last_found_rows: *last_found_rows,
        session_vars,
        user_vars,
        prev_warnings,
        tls: *tls,
        found_rows: *found_rows,
        locked_tables: locked_tables.as_deref(),
        client_host: client_host.as_deref().unwrap_or(host),
        temp_tables,
        sql_mode: sql_mode_upper.as_ref().map(|(_, m)| m.as_str()),
        fixed_time: *fixed_time,
        charsets: *charsets,
    };
    (txn.as_mut().expect("started above"), view)
}

/// What a statement changes in its session besides data.
#[derive(Default)]
pub struct Effects {
    pub warnings: Vec<Warning>,
    pub last_insert_id: Option<u64>,
    pub user_vars: Vec<(String, Value)>,
    /// FOUND_ROWS() after the statement, when it counted them (`exec/found_rows.rs`).
    pub found_rows: Option<u64>,
}

impl Effects {
    /// Apply to the session.
    pub fn apply(self, sess: &mut SessionState) {
        let room = MAX_WARNINGS.saturating_sub(sess.warnings.len());
        sess.warnings.extend(self.warnings.into_iter().take(room));
        if let Some(id) = self.last_insert_id {
            sess.last_insert_id = id;
        }
        for (n, v) in self.user_vars {
            sess.store_user_var(n, v);
        }
        if let Some(n) = self.found_rows {
            sess.last_found_rows = n;
        }
    }
}

/// The per-statement environment of expression evaluation.
pub struct Env<'a> {
    pub ctx: &'a ServerContext,
    pub sess: SessView<'a>,
    pub params: &'a [Value],
    /// The expression nodes the parser set aside (see `parse/dialect.rs`), for the binder.
    pub set_aside: &'a [sqlparser::ast::Expr],
    pub warnings: RefCell<Vec<Warning>>,
    /// True for INSERT / UPDATE / REPLACE: division by zero is an error in strict mode.
    pub writes: bool,
    /// Set by `LAST_INSERT_ID(expr)`.
    pub last_insert_id_set: Cell<Option<u64>>,
    /// `@x := v` assignments made by the statement, applied to the session at its end.
    pub user_var_sets: RefCell<Vec<(String, Value)>>,
    /// The rows FOUND_ROWS() answers after this statement, once it counted them
    /// (`exec/found_rows.rs`).
    pub found_rows: Cell<Option<u64>>,
    /// Subqueries: binding scopes, outer rows and per-execution results (`expr/subquery.rs`).
    pub subq: super::expr::subquery::State,
    now: OnceCell<DateTime>,
    sql_mode: OnceCell<String>,
    /// The session's `time_zone` when it is not SYSTEM (read at first use).
    zone: OnceCell<Option<std::sync::Arc<super::time_zone::Zone>>>,
    /// Set when binding reads or writes a TIMESTAMP column: whether the session's zone was
    /// other than SYSTEM then (such a plan is bound again if that changes: see
    /// [`Env::zone_bound`]).
    pub zone_bound: Cell<Option<bool>>,
    /// Set when binding checks a grouped SELECT against `sql_mode` ONLY_FULL_GROUP_BY: whether
    /// the mode was on then (a cached plan is bound again if that changes).
    pub full_group_by_bound: Cell<Option<bool>>,
}

impl<'a> Env<'a> {
    pub fn new(ctx: &'a ServerContext, sess: SessView<'a>, params: &'a [Value]) -> Env<'a> {
        Env {
            ctx,
            sess,
            params,
            set_aside: &[],
            warnings: RefCell::new(Vec::new()),
            writes: false,
            last_insert_id_set: Cell::new(None),
            user_var_sets: RefCell::new(Vec::new()),
            found_rows: Cell::new(None),
            subq: Default::default(),
            now: OnceCell::new(),
            sql_mode: OnceCell::new(),
            zone: OnceCell::new(),
            zone_bound: Cell::new(None),
            full_group_by_bound: Cell::new(None),
        }
    }

    /// The same environment binding expressions of a statement whose parse set nodes aside.
    pub fn with_set_aside(mut self, set_aside: &'a [sqlparser::ast::Expr]) -> Env<'a> {
        self.set_aside = set_aside;
        self
    }

    /// A user variable: the value assigned earlier in this statement, else the session's.
    pub fn user_var(&self, name: &str) -> Value {
        if let Some((_, v)) = self
            .user_var_sets
            .borrow()
            .iter()
            .rev()
            .find(|(n, _)| n == name)
        {
            return v.clone();
        }
        self.sess
            .user_vars
            .get(name)
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// What the statement leaves to its session: warnings, LAST_INSERT_ID, user variables.
    pub fn into_effects(self) -> Effects {
        Effects {
            warnings: self.warnings.into_inner(),
            last_insert_id: self.last_insert_id_set.get(),
            user_vars: self.user_var_sets.into_inner(),
            found_rows: self.found_rows.get(),
        }
    }

    /// The statement's current time (constant within a statement, as in MySQL).
    pub fn now(&self) -> DateTime {
        *self.now.get_or_init(|| {
            self.sess
                .fixed_time
                .unwrap_or_else(super::expr::convert::now_utc)
        })
    }

    /// The statement's time, if it read its clock (DDL logs it: `log/ddl_session.rs`).
    pub fn now_used(&self) -> Option<DateTime> {
        self.now.get().copied()
    }

    /// The statement's current time in the session's time zone (NOW(), CURDATE(), and
    /// CURRENT_TIMESTAMP for a DATETIME column).
    pub fn local_now(&self) -> DateTime {
        match self.zone() {
            None => self.now(),
            Some(z) => z.to_local(&self.now()),
        }
    }

    /// The session's time zone, None for SYSTEM (UTC: no conversion).
    pub fn zone(&self) -> Option<&super::time_zone::Zone> {
        self.zone
            .get_or_init(|| {
                let v = self
                    .sess
                    .session_vars
                    .get("time_zone")
                    .cloned()
                    .or_else(|| self.ctx.vars.global("time_zone"))?;
                match super::time_zone::lookup(&super::expr::convert::to_string(&v))? {
                    super::time_zone::Named::System => None,
                    // +00:00 converts nothing: bound and run as SYSTEM.
                    super::time_zone::Named::Zone(z) if z.is_utc_offset() => None,
                    super::time_zone::Named::Zone(z) => Some(z),
                }
            })
            .as_deref()
    }

    /// Binding met a TIMESTAMP column: the conversions it binds depend on the session's zone.
    /// True when the zone is not SYSTEM (its values are converted to and from local time).
    pub fn bind_zoned(&self) -> bool {
        let zoned = self.zone().is_some();
        self.zone_bound.set(Some(zoned));
        zoned
    }

    /// The effective `sql_mode`, upper case.
    pub fn sql_mode(&self) -> &str {
        if let Some(m) = self.sess.sql_mode {
            return m;
        }
        self.sql_mode.get_or_init(|| {
            let v = self
                .sess
                .session_vars
                .get("sql_mode")
                .cloned()
                .or_else(|| self.ctx.vars.global("sql_mode"))
                .unwrap_or(Value::Null);
            super::expr::convert::to_string(&v).to_ascii_uppercase()
        })
    }

    /// Strict mode: STRICT_TRANS_TABLES or STRICT_ALL_TABLES.
    pub fn strict(&self) -> bool {
        let m = self.sql_mode();
        m.contains("STRICT_TRANS_TABLES") || m.contains("STRICT_ALL_TABLES")
    }

    /// Add a warning. A statement keeps at most [`MAX_WARNINGS`] (the most an OK packet can
    /// count), each message cut to MariaDB's 512 bytes: a statement warning on every row of a
    /// large table, or about a long value, holds bounded memory.
    pub fn warn(&self, level: &'static str, code: ErrorCode, message: impl Into<String>) {
        let mut warnings = self.warnings.borrow_mut();
        if warnings.len() >= MAX_WARNINGS {
            return;
        }
        let mut message = message.into();
        if message.len() > MAX_MESSAGE {
            let mut end = MAX_MESSAGE;
            while !message.is_char_boundary(end) {
                end -= 1;
            }
            message = message[..end].to_string(); // not truncate: that keeps the capacity
        }
        warnings.push(Warning {
            level,
            code: code.number(),
            message,
        });
    }

    /// Division by zero: NULL with a warning, or error 1365 when a strict-mode write asks for it.
    pub fn division_by_zero(&self) -> Result<Value> {
        if self.writes && self.strict() && self.sql_mode().contains("ERROR_FOR_DIVISION_BY_ZERO") {
            return Err(Error::new(ErrorCode::DivisionByZero, "Division by 0"));
        }
        // Without ERROR_FOR_DIVISION_BY_ZERO the NULL is silent (MariaDB).
        if self.sql_mode().contains("ERROR_FOR_DIVISION_BY_ZERO") {
            self.warn("Warning", ErrorCode::DivisionByZero, "Division by 0");
        }
        Ok(Value::Null)
    }

    /// The value of a system variable as `@@name` / `@@session.name` / `@@global.name` reads it.
    pub fn sys_var(&self, name: &str, global: bool) -> Result<Value> {
        let v = if global {
            if name == "timestamp" {
                return Err(Error::new(
                    ErrorCode::IncorrectGlobalLocalVar,
                    "Variable 'timestamp' is a SESSION variable",
                ));
            }
            // A variable with no global value (`gtid_seq_no`, `pseudo_thread_id`…): 1238.
            if crate::vars::definition(name).is_some_and(|d| d.scope == crate::vars::Scope::Session)
            {
                return Err(Error::new(
                    ErrorCode::IncorrectGlobalLocalVar,
                    format!("Variable '{name}' is a SESSION variable"),
                ));
            }
            self.ctx.vars.global(name)
        } else {
            match name {
                "autocommit" => Some(Value::Int(self.sess.autocommit as i64)),
                "last_insert_id" | "identity" => Some(Value::UInt(self.sess.last_insert_id)),
                "warning_count" => Some(Value::UInt(self.sess.prev_warnings as u64)),
                "error_count" => Some(Value::UInt(0)),
                "in_transaction" => Some(Value::Int(self.sess.in_transaction as i64)),
                "pseudo_thread_id" => Some(Value::UInt(self.sess.pseudo_thread_id())),
                "timestamp" => Some(Value::Double(
                    super::expr::convert::unix_seconds(&self.now()) as f64
                        + self.now().micros as f64 / 1e6,
                )),
                _ => self
                    .sess
                    .session_vars
                    .get(name)
                    .cloned()
                    .or_else(|| self.ctx.vars.global(name)),
            }
        };
        let v = v.ok_or_else(|| {
            Error::new(
                ErrorCode::UnknownSystemVariable,
                format!("Unknown system variable '{name}'"),
            )
        })?;
        Ok(bool_var_as_int(name, v))
    }
}

/// Boolean variables are stored as ON/OFF; `@@x` reads them as 1/0 like MySQL.
fn bool_var_as_int(name: &str, v: Value) -> Value {
    let is_bool =
        crate::vars::definition(name).is_some_and(|d| matches!(d.kind, crate::vars::Kind::Bool));
    match (&v, is_bool) {
        (Value::Bytes(b), true) if b.eq_ignore_ascii_case(b"ON") => Value::Int(1),
        (Value::Bytes(b), true) if b.eq_ignore_ascii_case(b"OFF") => Value::Int(0),
        (Value::Null, _) if name == "socket" => Value::str(""),
        _ => v,
    }
}
