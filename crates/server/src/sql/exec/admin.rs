//! Session and administration statements: transactions, SET (system and user variables,
//! NAMES, TRANSACTION, PASSWORD), USE, accounts and grants, table maintenance, DO.

use crate::accounts::{GrantTarget, Level, Privs, TransportRequirement};
use crate::error::{Error, Result};
use crate::session::state::{ServerContext, SessionState};
use crate::sql::bind::Binder;
use crate::sql::env::{Env, SessView};
use crate::sql::expr::RowCtx;
use crate::sql::parse::{GrantOn, PrivList, SetItem, SetTarget, SetValue, TxScope, UserHost};
use crate::sql::plan::{check_db_access, database_exists, is_system_schema};
use crate::sql::QueryResult;
use crate::storage::IsolationLevel;
use crate::types::Value;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use std::time::Duration;

/// 1227 unless the session holds one of `privs` on `*.*`; `names` is how MariaDB's message
/// lists them (e.g. "SUPER, CONNECTION ADMIN").
pub fn need_global(
    ctx: &ServerContext,
    sess: &SessionState,
    privs: Privs,
    names: &str,
) -> Result<()> {
    if ctx.accounts.has_global(&sess.user, &sess.host, privs) {
        return Ok(());
    }
    Err(need_error(names))
}

/// 1227 unless the session holds on `*.*` one of the privileges `names` lists, as MariaDB's
/// message does ("SUPER, BINLOG ADMIN").
pub(super) fn need_admin(ctx: &ServerContext, sess: &SessionState, names: &str) -> Result<()> {
    need_global(ctx, sess, privs_named(names), names)
}

/// The privileges a comma-separated list of names means.
pub fn privs_named(names: &str) -> Privs {
    let mut p = Privs::NONE;
    for n in names.split(',') {
        p |= Privs::by_name(n.trim()).unwrap_or(Privs::SUPER);
    }
    p
}

/// 1227: "you need (at least one of) the X privilege(s)".
pub fn need_error(names: &str) -> Error {
    Error::new(
        ErrorCode::SpecificAccessDenied,
        format!(
            "Access denied; you need (at least one of) the {names} privilege(s) for this operation"
        ),
    )
}

/// Evaluate one constant expression (no table) in the session's environment; its effects
/// (warnings, `@x :=`) go to the session.
pub(in crate::sql) fn eval_constant(
    ctx: &ServerContext,
    sess: &mut SessionState,
    params: &[Value],
    parsed: &crate::sql::parse::Parsed,
    e: &ast::Expr,
    is_do: bool,
) -> Result<Value> {
    let prev = sess.warnings.len();
    {
        let env = Env::new(ctx, SessView::of(sess, prev), params).with_set_aside(&parsed.set_aside);
        env.subq.allowed.set(true);
        let x = {
            let mut b = Binder::new(&env, &parsed.params, None);
            b.clause = if is_do { "DO" } else { "SET" };
            b.bind(e)?.0
        };
        if env.subq.bound.borrow().is_empty() {
            let v = x.eval(&RowCtx::EMPTY, &env)?;
            env.into_effects().apply(sess);
            return Ok(v);
        }
    }
    eval_as_select(ctx, sess, params, parsed, e, prev, is_do)
}

/// A value of `EXECUTE … USING`: a constant expression; a subquery is refused with 1970, as
/// MariaDB refuses it there.
pub(in crate::sql) fn eval_using(
    ctx: &ServerContext,
    sess: &mut SessionState,
    parsed: &crate::sql::parse::Parsed,
    e: &ast::Expr,
) -> Result<Value> {
    let prev = sess.warnings.len();
    let env = Env::new(ctx, SessView::of(sess, prev), &[]).with_set_aside(&parsed.set_aside);
    env.subq.allowed.set(true);
    let x = {
        let mut b = Binder::new(&env, &parsed.params, None);
        b.clause = "EXECUTE";
        b.bind(e)?.0
    };
    if !env.subq.bound.borrow().is_empty() {
        return Err(Error::new(
            ErrorCode::SubqueryNotSupportedInCheck,
            "EXECUTE..USING does not support subqueries or stored functions",
        ));
    }
    let v = x.eval(&RowCtx::EMPTY, &env)?;
    env.into_effects().apply(sess);
    Ok(v)
}

/// An expression with a subquery (`SET @v = (SELECT …)`, `DO (SELECT …)`): run as
/// `SELECT <expr>` with the session's transaction, as a SELECT's subqueries run. `DO` reports
/// an error of the run (not of the binding) as a warning of level Error and succeeds, as
/// MariaDB's DO does.
fn eval_as_select(
    ctx: &ServerContext,
    sess: &mut SessionState,
    params: &[Value],
    parsed: &crate::sql::parse::Parsed,
    e: &ast::Expr,
    prev: usize,
    is_do: bool,
) -> Result<Value> {
    use sqlparser::parser::Parser;
    let template = Parser::parse_sql(&sqlparser::dialect::MySqlDialect {}, "SELECT 1")
        .map_err(|_| Error::internal("SELECT template"))?;
    let Some(ast::Statement::Query(mut q)) = template.into_iter().next() else {
        return Err(Error::internal("SELECT template"));
    };
    let ast::SetExpr::Select(sel) = q.body.as_mut() else {
        return Err(Error::internal("SELECT template"));
    };
    sel.projection = vec![ast::SelectItem::UnnamedExpr(e.clone())];
    let (txn, view) = crate::sql::env::split_session(ctx, sess, prev);
    let env = Env::new(ctx, view, params).with_set_aside(&parsed.set_aside);
    env.subq.allowed.set(true);
    let plan =
        crate::sql::exec::select::plan_select(&env, &parsed.params, &q, &[e.to_string()], None)?;
    for db in plan.databases() {
        check_db_access(&env, db)?;
    }
    let rows = crate::sql::exec::select::run_select(&plan, &env, Some(txn));
    env.into_effects().apply(sess);
    let rows = match rows {
        Err(err) if is_do && err.action() == crate::error::Action::RollbackStatement => {
            sess.warnings.push(crate::session::Warning {
                level: "Error",
                code: err.code().number(),
                message: err.message().to_string(),
            });
            Vec::new()
        }
        r => r?,
    };
    Ok(rows
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().next())
        .unwrap_or(Value::Null))
}

// ---------------------------------------------------------------------------------------------
// SET

/// One assignment of a SET, evaluated and checked, ready to take effect.
enum Checked {
    User(String, Value),
    /// The session's fixed clock (`None`: the real one).
    Timestamp(Option<crate::types::DateTime>),
    Global(String, Value),
    /// A checked value (`None` for DEFAULT), and the text as typed where its order matters
    /// (`session_track_system_variables`).
    Session(String, Option<Value>, Option<String>),
    /// Nothing left to apply (the first pass did it).
    Done,
    /// The character set, and the `collation_connection` value it brings.
    Names(String, Option<Value>),
}

/// `SET a = x, b = y, …` in MariaDB's two passes: every value is evaluated and checked first,
/// then all take effect in order. So the values read the variables as they were before the
/// statement (`SET @a = 1, @b = @a` gives @b the old @a), and an error in any assignment
/// leaves every variable as it was.
pub fn set(
    ctx: &ServerContext,
    sess: &mut SessionState,
    items: &[SetItem],
    params: &[Value],
    parsed: &crate::sql::parse::Parsed,
) -> Result<()> {
    let mut checked = Vec::with_capacity(items.len());
    for item in items {
        let value = match &item.value {
            SetValue::Expr(e) => Some(eval_constant(ctx, sess, params, parsed, e, false)?),
            SetValue::Default => None,
        };
        checked.push(check_item(ctx, sess, &item.target, value)?);
    }
    for c in checked {
        match c {
            Checked::User(name, v) => sess.set_user_var(ctx, &name, v)?,
            Checked::Timestamp(t) => sess.fixed_time = t,
            Checked::Global(name, v) => apply_global(ctx, &name, v)?,
            Checked::Session(name, v, typed) => apply_session(ctx, sess, &name, v, typed)?,
            Checked::Names(cs, coll) => apply_names(ctx, sess, &cs, coll)?,
            Checked::Done => {}
        }
    }
    Ok(())
}

fn check_item(
    ctx: &ServerContext,
    sess: &mut SessionState,
    target: &SetTarget,
    value: Option<Value>,
) -> Result<Checked> {
    Ok(match target {
        SetTarget::User(name) => Checked::User(name.clone(), value.unwrap_or(Value::Null)),
        SetTarget::Sys { name, global } if name == "timestamp" => {
            Checked::Timestamp(check_timestamp(sess, *global, value)?)
        }
        SetTarget::Sys { name, global: true } => {
            Checked::Global(name.clone(), check_global(ctx, sess, name, value)?)
        }
        SetTarget::Sys {
            name,
            global: false,
        } => {
            let typed = (name == "session_track_system_variables")
                .then(|| value.as_ref().filter(|v| matches!(v, Value::Bytes(_))))
                .flatten()
                .map(crate::sql::value_text);
            match check_session(ctx, sess, name, value)? {
                Some(v) => Checked::Session(name.clone(), v, typed),
                None => Checked::Done,
            }
        }
        SetTarget::Names { charset, collation } => {
            let (cs, coll) = check_names(ctx, charset, collation.as_deref())?;
            Checked::Names(cs, coll)
        }
    })
}

/// `SET timestamp = N` fixes the session's clock at N seconds (fractions to the microsecond)
/// since the epoch; `DEFAULT`, 0 or a negative value (with a 1292 warning) free it again, and
/// a value past 2147483647 is that (1292), as in MariaDB 10.11. Only numbers are taken
/// (1232); it has no global value (1228).
fn check_timestamp(
    sess: &mut SessionState,
    global: bool,
    value: Option<Value>,
) -> Result<Option<crate::types::DateTime>> {
    if global {
        return Err(Error::new(
            ErrorCode::LocalVariable,
            "Variable 'timestamp' is a SESSION variable and can't be used with SET GLOBAL",
        ));
    }
    let micros: i128 = match &value {
        None => 0,
        Some(Value::Int(i)) => *i as i128 * 1_000_000,
        Some(Value::UInt(u)) => *u as i128 * 1_000_000,
        Some(v @ Value::Decimal(_)) => decimal_micros(&crate::sql::value_text(v)),
        Some(Value::Double(f)) if f.is_finite() => (f * 1e6).clamp(-1e30, 1e30) as i128,
        _ => {
            return Err(Error::new(
                ErrorCode::WrongTypeForVar,
                "Incorrect argument type to variable 'timestamp'",
            ))
        }
    };
    const MAX: i128 = 2_147_483_647 * 1_000_000;
    if !(0..=MAX).contains(&micros) {
        let text = value
            .as_ref()
            .map(crate::sql::value_text)
            .unwrap_or_default();
        warn_clamped(
            sess,
            Some(format!("Truncated incorrect timestamp value: '{text}'")),
        );
    }
    Ok(match micros {
        m if m <= 0 => None,
        m => {
            let m = m.min(MAX) as i64;
            Some(crate::sql::expr::convert::datetime_from_unix(
                m / 1_000_000,
                (m % 1_000_000) as u32,
            ))
        }
    })
}

/// Microseconds of a decimal's text (`-12.3456789` is -12345678), saturating.
fn decimal_micros(text: &str) -> i128 {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let frac: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
    let us = int
        .parse::<i128>()
        .ok()
        .and_then(|i| i.checked_mul(1_000_000))
        .and_then(|i| i.checked_add(frac.parse::<i128>().unwrap_or(0)))
        .unwrap_or(i128::MAX);
    if neg {
        -us
    } else {
        us
    }
}

/// One `SET GLOBAL name = value` (both passes).
fn set_global(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
) -> Result<()> {
    let v = check_global(ctx, sess, name, value)?;
    apply_global(ctx, name, v)
}

/// One `SET SESSION name = value` (both passes).
fn set_session(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
) -> Result<()> {
    match check_session(ctx, sess, name, value)? {
        Some(v) => apply_session(ctx, sess, name, v, None),
        None => Ok(()),
    }
}

/// SET GLOBAL's first pass: the privilege, and the value as the variable would take it.
fn check_global(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
) -> Result<Value> {
    need_admin(ctx, sess, set_global_privileges(name))?;
    let value = match value {
        Some(v) => v,
        None => match crate::vars::definition(name) {
            Some(d) => Value::str(d.default),
            None => return Err(unknown_var(name)),
        },
    };
    let value = refuse_unhonoured(name, value)?;
    ctx.vars.check_global_set(name, value.clone())?;
    warn_clamped(sess, crate::vars::clamp_warning(name, &value));
    Ok(value)
}

fn apply_global(ctx: &ServerContext, name: &str, value: Value) -> Result<()> {
    ctx.vars.set_global(name, value.clone())?;
    if let Some(t) = twin(name) {
        ctx.vars.set_global(t, value)?;
    }
    Ok(())
}

/// What SET GLOBAL `name` needs, as MariaDB 10.11 names it (one of the list).
fn set_global_privileges(name: &str) -> &'static str {
    const BINLOG: &[&str] = &[
        "expire_logs_days",
        "max_binlog_size",
        "sync_binlog",
        "max_binlog_cache_size",
        "max_binlog_stmt_cache_size",
        "log_bin_trust_function_creators",
    ];
    const MASTER: &[&str] = &["server_id", "gtid_domain_id", "master_verify_checksum"];
    const CONNECTION: &[&str] = &[
        "max_connections",
        "connect_timeout",
        "init_connect",
        "max_connect_errors",
        "extra_max_connections",
        "max_password_errors",
        "disconnect_on_expired_password",
        "proxy_protocol_networks",
    ];
    if name == "read_only" {
        "READ_ONLY ADMIN"
    } else if name.starts_with("binlog_") || BINLOG.contains(&name) {
        "SUPER, BINLOG ADMIN"
    } else if name.starts_with("rpl_semi_sync_master") || MASTER.contains(&name) {
        "SUPER, REPLICATION MASTER ADMIN"
    } else if name.starts_with("slave_")
        || name.starts_with("rpl_semi_sync_slave")
        || name.starts_with("gtid_slave")
        || name == "gtid_strict_mode"
        || name.starts_with("replicate_")
    {
        "SUPER, REPLICATION SLAVE ADMIN"
    } else if name.starts_with("thread_pool_") || CONNECTION.contains(&name) {
        "SUPER, CONNECTION ADMIN"
    } else {
        "SUPER"
    }
}

/// A numeric setting outside its range is clamped into it with MySQL's 1292 warning.
fn warn_clamped(sess: &mut SessionState, message: Option<String>) {
    if let Some(message) = message {
        sess.warnings.push(crate::session::Warning {
            level: "Warning",
            code: ErrorCode::TruncatedWrongValue.number(),
            message,
        });
    }
}

fn unknown_var(name: &str) -> Error {
    Error::new(
        ErrorCode::UnknownSystemVariable,
        format!("Unknown system variable '{name}'"),
    )
}

/// `tx_isolation` / `transaction_isolation` and `tx_read_only` / `transaction_read_only` are
/// two names of one setting: setting one sets the other.
fn twin(name: &str) -> Option<&'static str> {
    match name {
        "tx_isolation" => Some("transaction_isolation"),
        "transaction_isolation" => Some("tx_isolation"),
        "tx_read_only" => Some("transaction_read_only"),
        "transaction_read_only" => Some("tx_read_only"),
        _ => None,
    }
}

/// `max_session_mem_used` bounds what a session may hold against its own client: a session
/// may lower it, but only an administrator may raise it above the global value. (MariaDB lets
/// any session raise it; there it only protects a client from itself.)
fn check_own_memory_limit(
    ctx: &ServerContext,
    sess: &SessionState,
    name: &str,
    v: &Value,
) -> Result<()> {
    if name != "max_session_mem_used" {
        return Ok(());
    }
    let wanted = match v {
        Value::UInt(n) => *n,
        _ => 0,
    };
    if wanted <= ctx.vars.global_u64("max_session_mem_used") {
        return Ok(());
    }
    need_admin(ctx, sess, "SUPER")
}

/// `max_join_size` is not applied: any value but its default (the largest) is refused with
/// 1235 rather than accepted and ignored.
///
/// `time_zone` takes SYSTEM, an offset or a zone the system's zoneinfo knows, kept in its
/// canonical spelling (`+05:30`, `Europe/Paris`); anything else is MariaDB's 1298.
///
/// `sql_mode` is kept canonical, its unknown names 1231 and the modes Cohort does not honour
/// 1235 (`sql/sql_mode.rs`).
///
/// `session_track_system_variables` is kept normalised (`session::track`);
/// `session_track_transaction_info` other than OFF is refused with 1235.
fn refuse_unhonoured(name: &str, value: Value) -> Result<Value> {
    if name == "time_zone" {
        return check_time_zone(&value);
    }
    if name == "session_track_system_variables" && matches!(value, Value::Bytes(_)) {
        let text = crate::sql::value_text(&value);
        return crate::session::track::normalise_tracked_list(&text).map(|l| Value::str(&l));
    }
    if name == "session_track_transaction_info" {
        let text = crate::sql::value_text(&value);
        let other = ["STATE", "CHARACTERISTICS", "1", "2"];
        if other.iter().any(|o| text.eq_ignore_ascii_case(o)) {
            return Err(Error::unsupported(
                "session_track_transaction_info other than OFF",
            ));
        }
    }
    if matches!(name, "auto_increment_increment" | "auto_increment_offset")
        && !matches!(value, Value::Int(1) | Value::UInt(1))
        && !crate::sql::value_text(&value).eq_ignore_ascii_case("DEFAULT")
    {
        return Err(Error::unsupported(&format!("{name} other than 1")));
    }
    if name == "sql_mode" && !value.is_null() {
        return crate::sql::sql_mode::canonical(&value).map(|m| Value::str(&m));
    }
    if name != "max_join_size" {
        return Ok(value);
    }
    let max = u64::MAX.to_string();
    let text = crate::sql::value_text(&value);
    if text == max || text.eq_ignore_ascii_case("DEFAULT") {
        return Ok(value);
    }
    Err(Error::unsupported(&format!("{name} other than {max}")))
}

fn check_time_zone(value: &Value) -> Result<Value> {
    match value {
        // NULL: the variables' own 1231.
        Value::Null => return Ok(Value::Null),
        Value::Bytes(_) => {}
        _ => {
            return Err(Error::new(
                ErrorCode::WrongTypeForVar,
                "Incorrect argument type to variable 'time_zone'",
            ))
        }
    }
    let text = crate::sql::value_text(value);
    match crate::sql::time_zone::canonical(&text) {
        Some(c) => Ok(Value::str(&c)),
        _ => Err(Error::new(
            ErrorCode::UnknownTimeZone,
            format!("Unknown or incorrect time zone: '{text}'"),
        )),
    }
}

/// SET SESSION's first pass: the value as the variable would take it (`Some(None)`:
/// DEFAULT; `None`: nothing more to do, as for `last_insert_id`, which `mariadb-binlog`
/// output sets: `replay_vars.rs`).
fn check_session(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
) -> Result<Option<Option<Value>>> {
    let Some(value) = super::replay_vars::before_set(ctx, sess, name, value)? else {
        return Ok(None);
    };
    check_session_value(ctx, sess, name, value).map(Some)
}

fn check_session_value(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
) -> Result<Option<Value>> {
    let Some(value) = value else {
        if !ctx.vars.exists(name) {
            return Err(unknown_var(name));
        }
        return Ok(None);
    };
    let value = refuse_unhonoured(name, value)?;
    let clamped = crate::vars::clamp_warning(name, &value);
    let v = ctx.vars.check_session_set(name, value)?;
    check_own_memory_limit(ctx, sess, name, &v)?;
    warn_clamped(sess, clamped);
    Ok(Some(v))
}

fn apply_session(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
    typed: Option<String>,
) -> Result<()> {
    let default = value.is_none();
    store_session(ctx, sess, name, value, typed)?;
    let stored = (!default)
        .then(|| sess.session_vars.get(name).cloned())
        .flatten();
    super::replay_vars::after_set(sess, name, stored.as_ref());
    if matches!(
        name,
        "character_set_client"
            | "character_set_connection"
            | "character_set_results"
            | "collation_connection"
    ) {
        if name == "character_set_results" {
            // Column definitions carry the character set's default collation now.
            sess.results_collation = None;
        }
        sess.refresh_charsets(ctx);
    }
    Ok(())
}

fn store_session(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
    typed: Option<String>,
) -> Result<()> {
    // The cached transaction characteristics and statement variables may change.
    sess.txn_defaults = None;
    sess.stmt_vars = None;
    sess.sql_mode_upper = None;
    sess.track.var_changed(name);
    let Some(v) = value else {
        // DEFAULT: back to the global value.
        sess.session_vars.remove(name);
        if let Some(t) = twin(name) {
            sess.session_vars.remove(t);
        }
        if name == "session_track_system_variables" {
            sess.track.set_order(None);
        }
        if name == "autocommit" {
            let on = ctx.vars.global("autocommit") != Some(Value::str("OFF"));
            return set_autocommit(ctx, sess, on);
        }
        return Ok(());
    };
    if typed.is_some() {
        sess.track.set_order(typed.as_deref());
    }
    if let Some(t) = twin(name) {
        sess.session_vars.insert(t.to_string(), v.clone());
    }
    match name {
        "autocommit" => set_autocommit(ctx, sess, v == Value::str("ON")),
        "innodb_lock_wait_timeout" => {
            let secs = match v {
                Value::UInt(s) => s,
                Value::Int(s) => s.max(0) as u64,
                _ => 50,
            };
            if let Some(t) = sess.txn.as_mut() {
                t.set_lock_wait_timeout(Duration::from_secs(secs));
            }
            sess.session_vars.insert(name.to_string(), v);
            Ok(())
        }
        _ => {
            sess.session_vars.insert(name.to_string(), v);
            Ok(())
        }
    }
}

/// `SET autocommit`: turning it on commits an open transaction.
fn set_autocommit(ctx: &ServerContext, sess: &mut SessionState, on: bool) -> Result<()> {
    if on && !sess.autocommit {
        sess.autocommit = true;
        return sess.commit_before_reply(ctx);
    }
    sess.autocommit = on;
    Ok(())
}

/// The collation a character set gets by default.
fn default_collation(charset: &str) -> Option<&'static str> {
    Some(match charset {
        "utf8mb4" => "utf8mb4_general_ci",
        "utf8" | "utf8mb3" => "utf8mb3_general_ci",
        "latin1" => "latin1_swedish_ci",
        "binary" => "binary",
        _ => return None,
    })
}

pub fn set_names(
    ctx: &ServerContext,
    sess: &mut SessionState,
    charset: &str,
    collation: Option<&str>,
) -> Result<()> {
    let (cs, coll) = check_names(ctx, charset, collation)?;
    apply_names(ctx, sess, &cs, coll)
}

/// `SET NAMES`' first pass: the character set (lower case) and the collation it asks for.
fn check_names(
    ctx: &ServerContext,
    charset: &str,
    collation: Option<&str>,
) -> Result<(String, Option<Value>)> {
    let cs = charset.to_ascii_lowercase();
    if !matches!(
        cs.as_str(),
        "utf8" | "utf8mb3" | "utf8mb4" | "latin1" | "binary" | "ascii"
    ) {
        // A name that is no character set at all is 1115, as in MariaDB.
        if let Err(e) = super::ddl::charset_named(&cs) {
            if e.code() == ErrorCode::UnknownCharacterSet {
                return Err(e);
            }
        }
        return Err(Error::new(
            ErrorCode::WrongValueForVar,
            format!("Variable 'character_set_client' can't be set to the value of '{charset}'"),
        ));
    }
    ctx.vars
        .check_session_set("character_set_client", Value::str(&cs))?;
    // `utf8_…` is utf8mb3's, as MariaDB shows it.
    let coll = collation
        .map(|c| c.to_ascii_lowercase())
        .map(|c| match c.strip_prefix("utf8_") {
            Some(rest) => format!("utf8mb3_{rest}"),
            None => c,
        })
        .or_else(|| default_collation(&cs).map(str::to_string));
    let coll = match coll {
        Some(c) => match ctx
            .vars
            .check_session_set("collation_connection", Value::str(&c))
        {
            Ok(v) => Some(v),
            // A collation named in COLLATE that Cohort cannot be is refused, never ignored.
            Err(e) if collation.is_some() => return Err(e),
            Err(_) => None,
        },
        None => None,
    };
    Ok((cs, coll))
}

fn apply_names(
    ctx: &ServerContext,
    sess: &mut SessionState,
    cs: &str,
    coll: Option<Value>,
) -> Result<()> {
    for var in [
        "character_set_client",
        "character_set_connection",
        "character_set_results",
    ] {
        let v = ctx.vars.check_session_set(var, Value::str(cs))?;
        sess.session_vars.insert(var.to_string(), v);
        sess.track.var_changed(var);
    }
    // Results carry the collation named (or the character set's default) in column
    // definitions, as MariaDB.
    sess.results_collation = coll
        .as_ref()
        .and_then(|v| crate::session::charsets::collation_id(&crate::sql::value_text(v)));
    if let Some(v) = coll {
        // (Not reported to session tracking: MariaDB reports only the three above.)
        sess.session_vars.insert("collation_connection".into(), v);
    }
    sess.refresh_charsets(ctx);
    Ok(())
}

/// `SET [GLOBAL | SESSION] TRANSACTION ISOLATION LEVEL … | READ ONLY | READ WRITE`. Without a
/// scope it applies to the next transaction only, and is refused (1568) inside one.
pub fn set_transaction(
    ctx: &ServerContext,
    sess: &mut SessionState,
    scope: TxScope,
    isolation: Option<&str>,
    read_only: Option<bool>,
) -> Result<()> {
    let level = match isolation {
        Some(l) => Some(
            IsolationLevel::parse(l).ok_or_else(|| Error::internal("unknown isolation level"))?,
        ),
        None => None,
    };
    let on_off = |b: bool| Value::str(if b { "ON" } else { "OFF" });
    match scope {
        TxScope::Next => {
            if sess.in_transaction() {
                return Err(Error::new(
                    ErrorCode::CantChangeTxCharacteristics,
                    "Transaction characteristics can't be changed while a transaction is in progress",
                ));
            }
            if level.is_some() {
                sess.next_txn.isolation = level;
            }
            if read_only.is_some() {
                sess.next_txn.read_only = read_only;
            }
            Ok(())
        }
        TxScope::Session => {
            if let Some(l) = level {
                set_session(ctx, sess, "tx_isolation", Some(Value::str(l.var_name())))?;
            }
            if let Some(r) = read_only {
                set_session(ctx, sess, "tx_read_only", Some(on_off(r)))?;
            }
            Ok(())
        }
        TxScope::Global => {
            if let Some(l) = level {
                set_global(ctx, sess, "tx_isolation", Some(Value::str(l.var_name())))?;
            }
            if let Some(r) = read_only {
                set_global(ctx, sess, "tx_read_only", Some(on_off(r)))?;
            }
            Ok(())
        }
    }
}

pub fn set_password(
    ctx: &ServerContext,
    sess: &SessionState,
    user: Option<&UserHost>,
    password: &str,
) -> Result<()> {
    let (u, h) = match user {
        Some(uh) => (uh.user.as_str(), uh.host.as_str()),
        None => (sess.user.as_str(), sess.host.as_str()),
    };
    if u != sess.user || h != sess.host {
        need_admin(ctx, sess, "CREATE USER")?;
    }
    ctx.accounts.alter_user_password(u, h, password)
}

// ---------------------------------------------------------------------------------------------
// USE, accounts

pub fn use_db(ctx: &ServerContext, sess: &mut SessionState, db: &str) -> Result<()> {
    if !database_exists(ctx, db) {
        return Err(Error::bad_db(db));
    }
    {
        let env = Env::new(ctx, SessView::of(sess, 0), &[]);
        check_db_access(&env, db)?;
    }
    sess.db = Some(db.to_string());
    sess.track.schema_changed();
    Ok(())
}

/// A Note for the session (IF [NOT] EXISTS on accounts, as MariaDB gives them).
fn note(sess: &mut SessionState, code: ErrorCode, message: String) {
    sess.warnings.push(crate::session::state::Warning {
        level: "Note",
        code: code.number(),
        message,
    });
}

pub fn create_users(
    ctx: &ServerContext,
    sess: &mut SessionState,
    users: &[(UserHost, String)],
    if_not_exists: bool,
    require: Option<TransportRequirement>,
) -> Result<()> {
    need_admin(ctx, sess, "CREATE USER")?;
    let require = require.unwrap_or_default();
    for (u, pw) in users {
        let created = ctx
            .accounts
            .create_user_requiring(&u.user, &u.host, pw, require, false);
        match created {
            Err(e) if if_not_exists && e.code() == ErrorCode::CannotUser => note(
                sess,
                ErrorCode::UserCreateExists,
                format!(
                    "Can't create user '{}'@'{}'; it already exists",
                    u.user, u.host
                ),
            ),
            other => other?,
        }
    }
    Ok(())
}

/// ALTER USER: a user may change its own password; anything else (another account, a
/// `REQUIRE`) needs the administrator.
pub fn alter_users(
    ctx: &ServerContext,
    sess: &mut SessionState,
    users: &[(UserHost, Option<String>)],
    if_exists: bool,
    require: Option<TransportRequirement>,
) -> Result<()> {
    for (u, pw) in users {
        if u.user != sess.user || u.host != sess.host || require.is_some() {
            need_admin(ctx, sess, "CREATE USER")?;
        }
        match ctx
            .accounts
            .alter_user(&u.user, &u.host, pw.as_deref(), require)
        {
            Err(e) if if_exists && e.code() == ErrorCode::CannotUser => {
                note(sess, e.code(), e.message().to_string())
            }
            other => other?,
        }
    }
    Ok(())
}

pub fn drop_users(
    ctx: &ServerContext,
    sess: &mut SessionState,
    users: &[UserHost],
    if_exists: bool,
) -> Result<()> {
    need_admin(ctx, sess, "CREATE USER")?;
    for u in users {
        match ctx.accounts.drop_user(&u.user, &u.host, false) {
            Err(e) if if_exists && e.code() == ErrorCode::CannotUser => note(
                sess,
                ErrorCode::UserDropExists,
                format!(
                    "Can't drop user '{}'@'{}'; it doesn't exist",
                    u.user, u.host
                ),
            ),
            other => other?,
        }
    }
    Ok(())
}

/// The object of a GRANT / REVOKE, with the session's database filled in.
fn grant_object(sess: &SessionState, on: &GrantOn) -> Result<(Option<String>, Option<String>)> {
    let current = || sess.db.clone().ok_or_else(Error::no_db);
    Ok(match on {
        GrantOn::Global => (None, None),
        GrantOn::Db(d) => (Some(d.clone()), None),
        GrantOn::CurrentDb => (Some(current()?), None),
        GrantOn::Table(d, t) => (Some(d.clone().map_or_else(current, Ok)?), Some(t.clone())),
    })
}

fn target_of<'a>(obj: &'a (Option<String>, Option<String>)) -> GrantTarget<'a> {
    match obj {
        (None, _) => GrantTarget::Global,
        (Some(d), None) => GrantTarget::Database(d),
        (Some(d), Some(t)) => GrantTarget::Table(d, t),
    }
}

/// The privileges a list names at `level`: ALL is everything the level allows; a privilege
/// the level cannot hold is 1221 (database) or 1144 (table).
fn level_privs(list: &PrivList, level: Level) -> Result<Privs> {
    let mut p = list.privs;
    if list.all {
        p |= Privs::all_of(level);
    }
    if !(Privs::all_of(level) | Privs::GRANT).contains(p) {
        return Err(match level {
            Level::Database => Error::new(
                ErrorCode::WrongUsage,
                "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
            ),
            _ => Error::new(
                ErrorCode::IllegalGrantForTable,
                "Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used",
            ),
        });
    }
    Ok(p)
}

/// May the session grant (or revoke) `privs` on `target`: it must hold them and GRANT OPTION
/// there. MariaDB's errors: 1045 for `*.*`, 1044 for `db.*`, 1142 naming the first missing
/// privilege for a table.
fn check_grantor(
    ctx: &ServerContext,
    sess: &SessionState,
    target: GrantTarget<'_>,
    privs: Privs,
) -> Result<()> {
    let e = ctx.accounts.effective(&sess.user, &sess.host);
    let held = match target {
        GrantTarget::Global => e.global,
        GrantTarget::Database(d) => e.db_privs(d),
        GrantTarget::Table(d, t) => e.table_privs(d, t),
    };
    let need = privs | Privs::GRANT;
    if held.contains(need) {
        return Ok(());
    }
    Err(match target {
        GrantTarget::Global => {
            let pw = ctx
                .accounts
                .lookup_exact(&sess.user, &sess.host)
                .is_some_and(|a| a.hash.is_some());
            Error::new(
                ErrorCode::AccessDenied,
                format!(
                    "Access denied for user '{}'@'{}' (using password: {})",
                    sess.user,
                    sess.host,
                    if pw { "YES" } else { "NO" }
                ),
            )
        }
        GrantTarget::Database(d) => Error::new(
            ErrorCode::DbAccessDenied,
            format!(
                "Access denied for user '{}'@'{}' to database '{d}'",
                sess.user, sess.host
            ),
        ),
        GrantTarget::Table(d, t) => {
            let mut missing = need.without(held);
            if missing != Privs::GRANT {
                missing = missing.without(Privs::GRANT);
            }
            let names = crate::sql::plan::missing_names(missing);
            crate::sql::plan::table_denied(&names, &sess.user, sess.client_host(), d, t)
        }
    })
}

pub fn grant(
    ctx: &ServerContext,
    sess: &SessionState,
    list: &PrivList,
    on: &GrantOn,
    users: &[(UserHost, Option<String>)],
    require: Option<TransportRequirement>,
    grant_option: bool,
) -> Result<()> {
    let obj = grant_object(sess, on)?;
    if let Some(d) = obj
        .0
        .as_deref()
        .filter(|d| d.eq_ignore_ascii_case("information_schema"))
    {
        // Nothing to grant there: everyone reads it (1044, as MariaDB).
        return Err(Error::new(
            ErrorCode::DbAccessDenied,
            format!(
                "Access denied for user '{}'@'{}' to database '{d}'",
                sess.user, sess.host
            ),
        ));
    }
    let target = target_of(&obj);
    let mut privs = level_privs(list, target.level())?;
    if grant_option {
        privs |= Privs::GRANT;
    }
    check_grantor(ctx, sess, target, privs.without(Privs::GRANT))?;
    if require.is_some() {
        need_global(ctx, sess, Privs::CREATE_USER, "CREATE USER")?;
    }
    if let GrantTarget::Table(d, t) = target {
        let exists = ctx.engine.table(d, t).is_ok() || ctx.engine.view(d, t).is_some();
        if is_system_schema(d) || !exists {
            return Err(Error::new(
                ErrorCode::NoSuchTable,
                format!("Table '{d}.{t}' doesn't exist"),
            ));
        }
    }
    for (u, pw) in users {
        if let Some(pw) = pw {
            if ctx.accounts.lookup_exact(&u.user, &u.host).is_none()
                && !ctx
                    .accounts
                    .has_global(&sess.user, &sess.host, Privs::CREATE_USER)
            {
                return Err(Error::new(
                    ErrorCode::CantCreateUserWithGrant,
                    "You are not allowed to create a user with GRANT",
                ));
            }
            ctx.accounts.create_user(&u.user, &u.host, pw, true)?;
            ctx.accounts.alter_user_password(&u.user, &u.host, pw)?;
        }
        ctx.accounts
            .grant(&u.user, &u.host, target, privs, require)?;
    }
    Ok(())
}

pub fn revoke(
    ctx: &ServerContext,
    sess: &SessionState,
    list: &PrivList,
    on: Option<&GrantOn>,
    users: &[UserHost],
) -> Result<()> {
    let Some(on) = on else {
        // REVOKE ALL PRIVILEGES, GRANT OPTION FROM …: an account change.
        need_global(ctx, sess, Privs::CREATE_USER, "CREATE USER")?;
        // Every existing account is cleared; a missing one makes the statement 1269 (MariaDB).
        let mut missing = false;
        for u in users {
            match ctx.accounts.revoke_everything(&u.user, &u.host) {
                Err(e) if e.code() == ErrorCode::PasswordNoMatch => missing = true,
                r => r?,
            }
        }
        if missing {
            return Err(Error::new(
                ErrorCode::RevokeGrants,
                "Can't revoke all privileges for one or more of the requested users",
            ));
        }
        return Ok(());
    };
    let obj = grant_object(sess, on)?;
    let target = target_of(&obj);
    let privs = level_privs(list, target.level())?;
    check_grantor(ctx, sess, target, privs.without(Privs::GRANT))?;
    for u in users {
        // No such account: no such grant either (1141 at every level, as MariaDB).
        ctx.accounts
            .revoke(&u.user, &u.host, target, privs)
            .map_err(|e| match e.code() {
                ErrorCode::PasswordNoMatch => {
                    crate::accounts::no_such_grant(&u.user, &u.host, GrantTarget::Global)
                }
                _ => e,
            })?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Table maintenance, DO

pub fn table_maint(
    ctx: &ServerContext,
    sess: &SessionState,
    op: &str,
    tables: &[(Option<String>, String)],
) -> Result<QueryResult> {
    use crate::sql::bind::coldef::text_column;
    let env = Env::new(ctx, SessView::of(sess, 0), &[]);
    let mut rows = Vec::new();
    for (db, t) in tables {
        let db = match db {
            Some(d) => d.clone(),
            None => sess.db.clone().ok_or_else(Error::no_db)?,
        };
        // ANALYZE / OPTIMIZE / REPAIR: SELECT and INSERT; CHECK: SELECT (named "CHECK TABLE").
        let (need, what) = match op {
            "check" => (Privs::SELECT, Some("CHECK TABLE")),
            _ => (Privs::SELECT | Privs::INSERT, None),
        };
        if let Err(e) = crate::sql::plan::check_table_priv(&env, &db, t, need) {
            return Err(match what {
                Some(w) => {
                    crate::sql::plan::table_denied(w, &sess.user, sess.client_host(), &db, t)
                }
                None => e,
            });
        }
        let name = format!("{db}.{t}");
        let table = match is_system_schema(&db) {
            true => None,
            false => ctx.engine.table(&db, t).ok(),
        };
        let mut row = |kind: &str, msg: &str| {
            rows.push(vec![
                Value::str(&name),
                Value::str(op),
                Value::str(kind),
                Value::str(msg),
            ])
        };
        match table {
            // InnoDB's answers: OPTIMIZE rebuilds and analyzes (here: analyzes; the tree
            // needs no rebuild), REPAIR is not an InnoDB operation.
            Some(table) => match op {
                "repair" => row(
                    "note",
                    "The storage engine for the table doesn't support repair",
                ),
                "optimize" => {
                    table.analyze();
                    row(
                        "note",
                        "Table does not support optimize, doing recreate + analyze instead",
                    );
                    row("status", "OK");
                }
                _ => {
                    if op == "analyze" {
                        // Recompute the index statistics now (`storage/stats.rs`).
                        table.analyze();
                    }
                    row("status", "OK");
                }
            },
            // A view: CHECK TABLE checks that it still plans; the others are for tables.
            None if !is_system_schema(&db) && ctx.engine.view(&db, t).is_some() => {
                let planned = match op {
                    "check" => ctx.engine.view(&db, t).map(|view| {
                        crate::sql::exec::ddl::view::plan_view_body(&env, &db, &view).map(|_| ())
                    }),
                    _ => None,
                };
                if let Some(Ok(())) = planned {
                    row("status", "OK");
                } else if let Some(Err(e)) = planned {
                    row("Error", e.message());
                    row(
                        "Error",
                        &format!("View '{name}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them"),
                    );
                    row("error", "Corrupt");
                } else {
                    row("Error", &format!("'{name}' is not of type 'BASE TABLE'"));
                    row("status", "Operation failed");
                }
            }
            None => {
                row("Error", &format!("Table '{name}' doesn't exist"));
                row("status", "Operation failed");
            }
        }
    }
    Ok(QueryResult::Rows {
        columns: vec![
            text_column("Table", 128),
            text_column("Op", 10),
            text_column("Msg_type", 10),
            text_column("Msg_text", 255),
        ],
        rows,
    })
}

pub fn do_exprs(
    ctx: &ServerContext,
    sess: &mut SessionState,
    exprs: &[ast::Expr],
    params: &[Value],
    parsed: &crate::sql::parse::Parsed,
) -> Result<()> {
    for e in exprs {
        eval_constant(ctx, sess, params, parsed, e, true)?;
    }
    Ok(())
}

/// `KILL [CONNECTION | QUERY] id`: 1094 for an unknown id, 1095 for another user's connection
/// without administrator rights. Killing one's own connection ends this statement with 1927
/// and closes it (MariaDB); one's own query, with 1317 (the flag is seen at once).
pub fn kill(ctx: &ServerContext, sess: &SessionState, query_only: bool, id: u32) -> Result<()> {
    use crate::interrupt::Kill;
    let what = if query_only {
        Kill::Query
    } else {
        Kill::Connection
    };
    crate::session::processlist::kill(ctx, &sess.user, &sess.host, id, what)?;
    if id == sess.conn_id {
        return Err(match what {
            Kill::Connection => Error::new(ErrorCode::ConnectionKilled, "Connection was killed"),
            _ => crate::interrupt::interrupted(),
        });
    }
    Ok(())
}
