//! Session and administration statements: transactions, SET (system and user variables,
//! NAMES, TRANSACTION, PASSWORD), USE, accounts and grants, table maintenance, DO.

use crate::accounts::TransportRequirement;
use crate::error::{Error, Result};
use crate::session::state::{ServerContext, SessionState};
use crate::sql::bind::Binder;
use crate::sql::env::{Env, SessView};
use crate::sql::expr::RowCtx;
use crate::sql::parse::{GrantOn, SetItem, SetTarget, SetValue, TxScope, UserHost};
use crate::sql::plan::{check_db_access, database_exists, is_system_schema};
use crate::sql::QueryResult;
use crate::storage::IsolationLevel;
use crate::types::Value;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use std::time::Duration;

pub(super) fn need_admin(ctx: &ServerContext, sess: &SessionState, privilege: &str) -> Result<()> {
    if ctx.accounts.is_admin(&sess.user, &sess.host) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::SpecificAccessDenied,
        format!("Access denied; you need (at least one of) the {privilege} privilege(s) for this operation"),
    ))
}

/// Evaluate one constant expression (no table) in the session's environment; its effects
/// (warnings, `@x :=`) go to the session.
fn eval_constant(
    ctx: &ServerContext,
    sess: &mut SessionState,
    params: &[Value],
    parsed: &crate::sql::parse::Parsed,
    e: &ast::Expr,
) -> Result<Value> {
    let env = Env::new(ctx, SessView::of(sess, sess.warnings.len()), params)
        .with_set_aside(&parsed.set_aside);
    let v = {
        let mut b = Binder::new(&env, &parsed.params, None);
        let (x, _) = b.bind(e)?;
        x.eval(&RowCtx::EMPTY, &env)?
    };
    env.into_effects().apply(sess);
    Ok(v)
}

// ---------------------------------------------------------------------------------------------
// SET

pub fn set(
    ctx: &ServerContext,
    sess: &mut SessionState,
    items: &[SetItem],
    params: &[Value],
    parsed: &crate::sql::parse::Parsed,
) -> Result<()> {
    // Assignments take effect in order: `SET @a = 1, @b = @a + 1` sees the new @a.
    for item in items {
        let value = match &item.value {
            SetValue::Expr(e) => Some(eval_constant(ctx, sess, params, parsed, e)?),
            SetValue::Default => None,
        };
        match &item.target {
            SetTarget::User(name) => {
                sess.set_user_var(ctx, name, value.unwrap_or(Value::Null))?;
            }
            SetTarget::Sys { name, global: true } => set_global(ctx, sess, name, value)?,
            SetTarget::Sys {
                name,
                global: false,
            } => set_session(ctx, sess, name, value)?,
        }
    }
    Ok(())
}

fn set_global(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
) -> Result<()> {
    need_admin(ctx, sess, "SUPER")?;
    let value = match value {
        Some(v) => v,
        None => match crate::vars::definition(name) {
            Some(d) => Value::str(d.default),
            None => return Err(unknown_var(name)),
        },
    };
    let clamped = crate::vars::clamp_warning(name, &value);
    ctx.vars.set_global(name, value.clone())?;
    if let Some(t) = twin(name) {
        ctx.vars.set_global(t, value)?;
    }
    warn_clamped(sess, clamped);
    Ok(())
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

fn set_session(
    ctx: &ServerContext,
    sess: &mut SessionState,
    name: &str,
    value: Option<Value>,
) -> Result<()> {
    // The cached transaction characteristics and statement variables may change.
    sess.txn_defaults = None;
    sess.stmt_vars = None;
    sess.sql_mode_upper = None;
    let Some(value) = value else {
        // DEFAULT: back to the global value.
        if !ctx.vars.exists(name) {
            return Err(unknown_var(name));
        }
        sess.session_vars.remove(name);
        if let Some(t) = twin(name) {
            sess.session_vars.remove(t);
        }
        if name == "autocommit" {
            let on = ctx.vars.global("autocommit") != Some(Value::str("OFF"));
            return set_autocommit(ctx, sess, on);
        }
        return Ok(());
    };
    let clamped = crate::vars::clamp_warning(name, &value);
    let v = ctx.vars.check_session_set(name, value)?;
    check_own_memory_limit(ctx, sess, name, &v)?;
    warn_clamped(sess, clamped);
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
    let cs = charset.to_ascii_lowercase();
    if !matches!(
        cs.as_str(),
        "utf8" | "utf8mb3" | "utf8mb4" | "latin1" | "binary" | "ascii"
    ) {
        return Err(Error::new(
            ErrorCode::WrongValueForVar,
            format!("Variable 'character_set_client' can't be set to the value of '{charset}'"),
        ));
    }
    for var in [
        "character_set_client",
        "character_set_connection",
        "character_set_results",
    ] {
        let v = ctx.vars.check_session_set(var, Value::str(&cs))?;
        sess.session_vars.insert(var.to_string(), v);
    }
    let coll = collation
        .map(|c| c.to_ascii_lowercase())
        .or_else(|| default_collation(&cs).map(str::to_string));
    if let Some(c) = coll {
        if let Ok(v) = ctx
            .vars
            .check_session_set("collation_connection", Value::str(&c))
        {
            sess.session_vars.insert("collation_connection".into(), v);
        }
    }
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

pub fn grant(
    ctx: &ServerContext,
    sess: &SessionState,
    on: &GrantOn,
    users: &[(UserHost, Option<String>)],
    require: Option<TransportRequirement>,
) -> Result<()> {
    need_admin(ctx, sess, "GRANT OPTION")?;
    let db = match on {
        GrantOn::Global => None,
        GrantOn::Db(d) => Some(d.as_str()),
    };
    for (u, pw) in users {
        if let Some(pw) = pw {
            ctx.accounts.create_user(&u.user, &u.host, pw, true)?;
            ctx.accounts.alter_user_password(&u.user, &u.host, pw)?;
        }
        ctx.accounts
            .grant_all_requiring(&u.user, &u.host, db, require)?;
    }
    Ok(())
}

pub fn revoke(
    ctx: &ServerContext,
    sess: &SessionState,
    on: Option<&GrantOn>,
    users: &[UserHost],
) -> Result<()> {
    need_admin(ctx, sess, "GRANT OPTION")?;
    for u in users {
        match on {
            Some(GrantOn::Global) => ctx.accounts.revoke_all(&u.user, &u.host, None)?,
            Some(GrantOn::Db(d)) => ctx.accounts.revoke_all(&u.user, &u.host, Some(d))?,
            None => {
                ctx.accounts.revoke_all(&u.user, &u.host, None)?;
                for db in ctx.engine.databases() {
                    ctx.accounts.revoke_all(&u.user, &u.host, Some(&db))?;
                }
            }
        }
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
        check_db_access(&env, &db)?;
        let name = format!("{db}.{t}");
        let exists = !is_system_schema(&db) && ctx.engine.table(&db, t).is_ok();
        let (kind, msg) = if exists {
            ("status", "OK".to_string())
        } else {
            ("Error", format!("Table '{name}' doesn't exist"))
        };
        rows.push(vec![
            Value::str(&name),
            Value::str(op),
            Value::str(kind),
            Value::str(&msg),
        ]);
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
        eval_constant(ctx, sess, params, parsed, e)?;
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
