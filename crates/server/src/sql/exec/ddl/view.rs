//! Views: CREATE / ALTER / DROP VIEW, SHOW CREATE VIEW, and planning a view where a statement
//! names it.
//!
//! A view is stored as the text of its query (`storage/views.rs`) and planned again, in its
//! own database, each time a statement that names it is planned: the plan reads it as a
//! derived table (`exec/query.rs`), so it always sees the current definitions of the tables
//! under it, and MariaDB's MERGE and TEMPTABLE algorithms give the same rows. A cached plan
//! that read a view is stale as soon as any view changes ([`view_changes`]).
//!
//! Honoured: `OR REPLACE`, `IF NOT EXISTS`, a column list, `ALGORITHM` / `DEFINER` /
//! `SQL SECURITY` (kept and shown; the invoker's privileges are checked on the tables
//! under the view), views over views, joins, set operations and CTEs. UPDATE and DELETE
//! through a single-table view are `exec/view_dml.rs` (with `WITH CHECK OPTION` checked on
//! each changed row, 1369; at CREATE, 1368 on a view MariaDB cannot change through); refused:
//! INSERT through a view and UPDATE / DELETE through other views (1235). View DDL is logged
//! as its text and replayed, and views are in checkpoints.

use crate::error::{Error, Result};
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::env::{Env, SessView};
use crate::sql::exec::query::{self, QueryPlan};
use crate::sql::parse::view::ViewStmt;
use crate::sql::parse::{self, Stmt};
use crate::sql::plan::{self, check_db_access};
use crate::storage::ViewDef;
use cohort_protocol::ErrorCode;
use sqlparser::ast::{self, Statement};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Views nested deeper than this in one statement are refused (1462, as a recursion).
const MAX_VIEW_DEPTH: usize = 32;

/// Raised on every view change in this process: a plan that read a view remembers the value
/// it planned with and is stale once it moved.
static VIEW_CHANGES: AtomicU64 = AtomicU64::new(0);

pub fn view_changes() -> u64 {
    VIEW_CHANGES.load(Ordering::Acquire)
}

fn changed() {
    VIEW_CHANGES.fetch_add(1, Ordering::AcqRel);
}

thread_local! {
    /// The views being planned on this thread, outermost first (recursion check).
    static EXPANDING: RefCell<Vec<(String, String)>> = const { RefCell::new(Vec::new()) };
}

/// The view `db`.`name`'s query, planned in the view's database.
pub fn plan_view(env: &Env<'_>, db: &str, view: &ViewDef) -> Result<QueryPlan> {
    plan_view_body(env, db, view).map_err(|e| invalid_view(e, db, &view.name))
}

/// [`plan_view`] with the body's own error (CHECK TABLE shows it before the 1356).
pub fn plan_view_body(env: &Env<'_>, db: &str, view: &ViewDef) -> Result<QueryPlan> {
    let key = (db.to_string(), view.name.clone());
    let recursive = EXPANDING.with(|e| {
        let e = e.borrow();
        e.contains(&key) || e.len() >= MAX_VIEW_DEPTH
    });
    if recursive {
        return Err(Error::new(
            ErrorCode::ViewRecursive,
            format!("`{db}`.`{}` contains view recursion", view.name),
        ));
    }
    EXPANDING.with(|e| e.borrow_mut().push(key));
    // SQL SECURITY DEFINER: the view's tables are read with its definer's privileges.
    let definer = (view.security != "INVOKER")
        .then_some((view.definer_user.as_str(), view.definer_host.as_str()));
    let r = plan_query_text(env, db, &view.query, definer);
    EXPANDING.with(|e| e.borrow_mut().pop());
    r
}

/// A view whose body no longer binds (a column or table gone, a function missing, its
/// definer or invoker lacking a privilege) is 1356 when used, as in MariaDB; the cause stays
/// hidden from the user of the view.
fn invalid_view(e: Error, db: &str, name: &str) -> Error {
    use ErrorCode::*;
    match e.code() {
        BadField | NoSuchTable | SpDoesNotExist | TableaccessDenied | ColumnaccessDenied
        | BadDb => Error::new(
            ViewInvalid,
            format!(
                "View '{db}.{name}' references invalid table(s) or column(s) or function(s) or \
                 definer/invoker of view lack rights to use them"
            ),
        ),
        _ => e,
    }
}

/// Plan `text` (a query) as if `db` were the current database (and `as_user` the session's
/// account, for a view's definer).
fn plan_query_text(
    env: &Env<'_>,
    db: &str,
    text: &str,
    as_user: Option<(&str, &str)>,
) -> Result<QueryPlan> {
    let parsed = parse::parse(text)?;
    let Stmt::Sql(st) = &parsed.stmt else {
        return Err(Error::internal("a view's text is not a query"));
    };
    let Statement::Query(q) = st.as_ref() else {
        return Err(Error::internal("a view's text is not a query"));
    };
    let (user, host) = as_user.unwrap_or((env.sess.user, env.sess.host));
    let sess = SessView {
        db: Some(db),
        user,
        host,
        ..env.sess
    };
    let inner = Env::new(env.ctx, sess, &[]).with_set_aside(&parsed.set_aside);
    // A view's query may hold subqueries wherever a SELECT may (`bind/subquery.rs`).
    inner.subq.allowed.set(true);
    let plan = query::plan_query(&inner, &parsed.params, q, &parsed.item_texts, None)?;
    let effects = inner.into_effects();
    env.warnings.borrow_mut().extend(effects.warnings);
    Ok(plan)
}

fn is_view_error(db: &str, name: &str) -> Error {
    Error::new(ErrorCode::ItIsAView, format!("'{db}.{name}' is a view"))
}

/// The view a table name names, if any (`None` while no view exists: no lookup).
pub fn view_named(env: &Env<'_>, name: &ast::ObjectName) -> Result<Option<(String, Arc<ViewDef>)>> {
    if !env.ctx.engine.has_views() {
        return Ok(None);
    }
    let (db, t) = plan::split_name(name, env.sess.db)?;
    Ok(env.ctx.engine.view(&db, &t).map(|v| (db, v)))
}

/// INSERT / UPDATE / DELETE / DROP TABLE / TRUNCATE of a name that is a view.
pub fn refuse_view_target(env: &Env<'_>, db: &str, name: &str, what: &str) -> Result<()> {
    if env.ctx.engine.view(db, name).is_none() {
        return Ok(());
    }
    match what {
        "DROP TABLE" => Err(is_view_error(db, name)),
        _ => Err(Error::unsupported(&format!("{what} through a view"))),
    }
}

/// CREATE [OR REPLACE] VIEW / ALTER VIEW.
pub fn create_view(env: &Env<'_>, v: &ViewStmt) -> Result<()> {
    let db = match &v.db {
        Some(d) => d.clone(),
        None => env.sess.db.ok_or_else(Error::no_db)?.to_string(),
    };
    plan::check_table_priv(env, &db, &v.name, crate::accounts::Privs::CREATE_VIEW)?;
    if !env.ctx.engine.database_exists(&db) {
        return Err(Error::bad_db(&db));
    }
    let existing = env.ctx.engine.view(&db, &v.name);
    if v.alter && existing.is_none() {
        return Err(Error::new(
            ErrorCode::NoSuchTable,
            format!("Table '{db}.{}' doesn't exist", v.name),
        ));
    }
    if existing.is_some() && v.if_not_exists && !v.or_replace && !v.alter {
        env.warn(
            "Note",
            ErrorCode::TableExists,
            format!("Table '{}' already exists", v.name),
        );
        return Ok(());
    }
    let plan = plan_query_text(env, &db, &v.query, None)?;
    let algorithm = keep_algorithm(v, existing.as_deref());
    if v.check_option.is_some() && !crate::sql::exec::view_dml::updatable(&algorithm, &plan) {
        return Err(Error::new(
            ErrorCode::ViewNonupdCheck,
            format!(
                "CHECK OPTION on non-updatable view {}.{}",
                quote(&db),
                quote(&v.name)
            ),
        ));
    }
    if !v.columns.is_empty() && v.columns.len() != plan.columns.len() {
        return Err(Error::new(
            ErrorCode::ViewWrongList,
            "View's SELECT and view's field list have different column counts",
        ));
    }
    let names: Vec<&str> = match v.columns.is_empty() {
        true => plan.columns.iter().map(|c| c.name.as_str()).collect(),
        false => v.columns.iter().map(String::as_str).collect(),
    };
    for (i, n) in names.iter().enumerate() {
        if names[..i].iter().any(|m| m.eq_ignore_ascii_case(n)) {
            return Err(Error::new(
                ErrorCode::DupFieldName,
                format!("Duplicate column name '{n}'"),
            ));
        }
    }
    let old = existing.as_deref();
    let keep = |new: &Option<String>, old: Option<&String>, default: &str| {
        new.clone()
            .or_else(|| old.cloned())
            .unwrap_or_else(|| default.to_string())
    };
    let (user, host) = match &v.definer {
        Some((u, h)) => {
            // Another account as the definer: SET USER (or SUPER), as MariaDB.
            if (u.as_str(), h.as_str()) != (env.sess.user, env.sess.host)
                && !env.ctx.accounts.has_global(
                    env.sess.user,
                    env.sess.host,
                    crate::accounts::Privs::SUPER | crate::accounts::Privs::SET_USER,
                )
            {
                return Err(crate::sql::exec::admin::need_error("SUPER, SET USER"));
            }
            (u.clone(), h.clone())
        }
        None if v.alter => old.map_or_else(
            || (env.sess.user.to_string(), env.sess.host.to_string()),
            |o| (o.definer_user.clone(), o.definer_host.clone()),
        ),
        None => (env.sess.user.to_string(), env.sess.host.to_string()),
    };
    let alter_old = |f: fn(&ViewDef) -> &String| if v.alter { old.map(f) } else { None };
    let def = ViewDef {
        name: v.name.clone(),
        query: super::view_star::freeze(env, &db, &v.query),
        columns: v.columns.clone(),
        algorithm,
        definer_user: user,
        definer_host: host,
        security: keep(&v.security, alter_old(|o| &o.security), "DEFINER"),
        check_option: v.check_option.clone().unwrap_or_else(|| "NONE".into()),
    };
    env.ctx
        .engine
        .create_view(&db, def, v.or_replace || v.alter)?;
    changed();
    Ok(())
}

/// The algorithm a CREATE / ALTER VIEW gives the view (ALTER keeps the old one if none).
fn keep_algorithm(v: &ViewStmt, old: Option<&ViewDef>) -> String {
    match (&v.algorithm, old) {
        (Some(a), _) => a.clone(),
        (None, Some(o)) if v.alter => o.algorithm.clone(),
        _ => "UNDEFINED".to_string(),
    }
}

/// DROP VIEW [IF EXISTS] a, b: the views that exist are dropped; the others are 4092 (notes
/// with IF EXISTS).
pub fn drop_views(env: &Env<'_>, names: &[ast::ObjectName], if_exists: bool) -> Result<()> {
    let mut missing = Vec::new();
    for n in names {
        let (db, name) = plan::split_name(n, env.sess.db)?;
        plan::check_table_priv(env, &db, &name, crate::accounts::Privs::DROP)?;
        if !env.ctx.engine.drop_view(&db, &name)? {
            missing.push(format!("{db}.{name}"));
        }
    }
    changed();
    if missing.is_empty() {
        return Ok(());
    }
    let msg = format!("Unknown VIEW: '{}'", missing.join(","));
    if if_exists {
        for m in &missing {
            env.warn(
                "Note",
                ErrorCode::UnknownView,
                format!("Unknown VIEW: '{m}'"),
            );
        }
        return Ok(());
    }
    Err(Error::new(ErrorCode::UnknownView, msg))
}

fn quote(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// The statement SHOW CREATE VIEW shows.
pub fn create_text(v: &ViewDef) -> String {
    let cols = match v.columns.is_empty() {
        true => String::new(),
        false => {
            let c: Vec<String> = v.columns.iter().map(|c| quote(c)).collect();
            format!("({})", c.join(","))
        }
    };
    let check = match v.check_option.as_str() {
        "CASCADED" | "LOCAL" => format!(" WITH {} CHECK OPTION", v.check_option),
        _ => String::new(),
    };
    format!(
        "CREATE ALGORITHM={} DEFINER={}@{} SQL SECURITY {} VIEW {}{} AS {}{}",
        v.algorithm,
        quote(&v.definer_user),
        quote(&v.definer_host),
        v.security,
        quote(&v.name),
        cols,
        v.query,
        check
    )
}

/// The view SHOW CREATE VIEW / SHOW CREATE TABLE names: 1347 for a table, 1146 for nothing.
pub fn show_create(env: &Env<'_>, db: &str, name: &str) -> Result<Option<Arc<ViewDef>>> {
    check_db_access(env, db)?;
    if env.ctx.engine.view(db, name).is_some() {
        // MariaDB: SHOW VIEW and SELECT on the view.
        plan::check_table_priv(
            env,
            db,
            name,
            crate::accounts::Privs::SHOW_VIEW | crate::accounts::Privs::SELECT,
        )?;
    }
    Ok(env.ctx.engine.view(db, name))
}

/// 1347 (a table) or 1146 (nothing) for SHOW CREATE VIEW of something that is no view.
pub fn not_a_view(env: &Env<'_>, db: &str, name: &str) -> Error {
    if env.ctx.engine.table(db, name).is_ok() {
        return Error::new(
            ErrorCode::WrongObject,
            format!("'{db}.{name}' is not of type 'VIEW'"),
        );
    }
    Error::new(
        ErrorCode::NoSuchTable,
        format!("Table '{db}.{name}' doesn't exist"),
    )
}

/// A view's columns for SHOW COLUMNS / DESCRIBE: (name, type as MariaDB prints it, nullable).
pub fn columns(env: &Env<'_>, db: &str, view: &ViewDef) -> Result<Vec<(String, String, bool)>> {
    let plan = plan_view(env, db, view)?;
    Ok(plan
        .columns
        .iter()
        .zip(&plan.types)
        .enumerate()
        .map(|(i, (c, t))| {
            let name = view
                .columns
                .get(i)
                .cloned()
                .unwrap_or_else(|| c.name.clone());
            (name, type_text(t), t.nullable)
        })
        .collect())
}

/// The column type a value of `t` is stored as, in MariaDB's words.
fn type_text(t: &SqlType) -> String {
    use cohort_protocol::column::ColumnType as W;
    let unsigned = if t.unsigned { " unsigned" } else { "" };
    let int = |name: &str| format!("{name}({}){unsigned}", t.length);
    let chars = t.length / 4;
    match (t.class, t.wire) {
        (Class::Null, _) => "binary(0)".into(),
        (Class::Int, W::TINY) => int("tinyint"),
        (Class::Int, W::SHORT) => int("smallint"),
        (Class::Int, W::INT24) => int("mediumint"),
        (Class::Int, W::LONGLONG) => int("bigint"),
        (Class::Int, W::YEAR) => "year(4)".into(),
        (Class::Int, W::BIT) => format!("bit({})", t.length),
        (Class::Int, _) => int("int"),
        (Class::Decimal, _) => {
            let scale = u32::from(t.decimals);
            let sign = u32::from(!t.unsigned);
            let point = u32::from(scale > 0);
            let precision = t.length.saturating_sub(sign + point).max(1);
            format!("decimal({precision},{scale}){unsigned}")
        }
        (Class::Double, W::FLOAT) => "float".into(),
        (Class::Double, _) => "double".into(),
        (Class::Str, W::STRING) => format!("char({chars})"),
        (Class::Str, W::BLOB) => lob_name(u64::from(chars), "text"),
        (Class::Str, _) => format!("varchar({chars})"),
        (Class::Bin, W::STRING) => format!("binary({})", t.length),
        (Class::Bin, W::BLOB) => lob_name(u64::from(t.length), "blob"),
        (Class::Bin, _) => format!("varbinary({})", t.length),
        (Class::Date, _) => "date".into(),
        (Class::DateTime, W::TIMESTAMP) if t.decimals > 0 => format!("timestamp({})", t.decimals),
        (Class::DateTime, W::TIMESTAMP) => "timestamp".into(),
        (Class::DateTime, _) if t.decimals > 0 => format!("datetime({})", t.decimals),
        (Class::DateTime, _) => "datetime".into(),
        (Class::Time, _) if t.decimals > 0 => format!("time({})", t.decimals),
        (Class::Time, _) => "time".into(),
    }
}

fn lob_name(max: u64, base: &str) -> String {
    match max {
        0..=255 => format!("tiny{base}"),
        256..=65535 => base.to_string(),
        65536..=16_777_215 => format!("medium{base}"),
        _ => format!("long{base}"),
    }
}
