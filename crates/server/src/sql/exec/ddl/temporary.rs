//! TEMPORARY tables: `CREATE TEMPORARY TABLE [IF NOT EXISTS] t (…) | LIKE s`,
//! `DROP [TEMPORARY] TABLE [IF EXISTS] t, …`.
//!
//! A temporary table belongs to its session (`SessionState::temp_tables`): it is built like a
//! base table (`Engine::create_temporary_table`) but never enters the catalog, so no other
//! session, SHOW TABLES nor information_schema sees it; the session's name lookups
//! (`plan::resolve_table`) find it before a base table of the same name, which it shadows.
//! It goes away with the session (and so after a restart: nothing to recover).
//!
//! As MariaDB with `binlog_format = ROW`: neither its DDL nor its rows are logged (the commit
//! leaves out its changes; a transaction that changed only temporary tables writes nothing),
//! and CREATE / DROP TEMPORARY TABLE do not commit the open transaction. Its rows are
//! transactional (ROLLBACK undoes them, as InnoDB temporary tables).
//!
//! While the session has temporary tables, COM_QUERY statements are not taken from the
//! statement cache and prepared statements are bound again at each execution (a plan made
//! before may name the shadowed base table). `CREATE TEMPORARY TABLE
//! … SELECT` is `create_select.rs`; ALTER, RENAME, TRUNCATE and CREATE / DROP INDEX of a
//! temporary table are `temporary_ddl.rs`. Refused (1235): FOREIGN KEYs on them, and the
//! statements that would otherwise reach the shadowed base table instead (LOCK TABLES, CHECK /
//! ANALYZE on a temporary table, a statement naming temporary and base tables together). SHOW CREATE TABLE
//! (as `CREATE TEMPORARY TABLE`), SHOW COLUMNS / INDEX and DESCRIBE show it.

use super::{check_ident, table_def};
use crate::error::{Error, Result};
use crate::session::state::{ServerContext, SessionState};
use crate::sql::env::{Env, SessView};
use crate::sql::plan::{self, check_db_access, is_system_schema};
use crate::sql::QueryResult;
use cohort_protocol::ErrorCode;
use sqlparser::ast;

/// CREATE TEMPORARY TABLE.
pub fn create(
    ctx: &ServerContext,
    sess: &mut SessionState,
    ct: &ast::CreateTable,
    parsed: &crate::sql::parse::Parsed,
    prev: usize,
) -> Result<QueryResult> {
    if ct.query.is_some() {
        return super::create_select::run(ctx, sess, ct, parsed, prev);
    }
    if ct.or_replace {
        // OR REPLACE: the temporary table of the name goes first (MariaDB).
        let (db, name) = plan::split_name(&ct.name, sess.db.as_deref())?;
        drop_named(sess, &db, &name);
    }
    let env = Env::new(ctx, SessView::of(sess, prev), &[]);
    let (db, name) = plan::split_name(&ct.name, env.sess.db)?;
    check_ident(&name)?;
    check_db_access(&env, &db)?;
    if is_system_schema(&db) {
        return Err(Error::unsupported(&format!("creating tables in {db}")));
    }
    if env.sess.temp_table(&db, &name).is_some() {
        let msg = format!("Table '{name}' already exists");
        if ct.if_not_exists {
            env.warn("Note", ErrorCode::TableExists, msg);
            let effects = env.into_effects();
            effects.apply(sess);
            return Ok(QueryResult::ok());
        }
        return Err(Error::new(ErrorCode::TableExists, msg));
    }
    let def = match &ct.like {
        Some(ast::CreateTableLikeKind::Plain(l))
        | Some(ast::CreateTableLikeKind::Parenthesized(l)) => {
            let (sdb, sname) = plan::split_name(&l.name, env.sess.db)?;
            check_db_access(&env, &sdb)?;
            let src = match env.sess.temp_table(&sdb, &sname) {
                Some(t) => t.clone(),
                None => ctx.engine.table(&sdb, &sname)?,
            };
            let mut def = (*src.def()).clone();
            def.name = name.clone();
            def.auto_increment_start = 1;
            def.foreign_keys = Vec::new();
            def
        }
        None => table_def(&env, ct, &db, &name)?,
    };
    if !def.foreign_keys.is_empty() {
        return Err(Error::unsupported("FOREIGN KEY on a TEMPORARY table"));
    }
    let table = ctx.engine.create_temporary_table(&db, def)?;
    let effects = env.into_effects();
    effects.apply(sess);
    sess.temp_tables.push(table);
    sess.track.state_changed();
    Ok(QueryResult::ok())
}

/// DROP [TEMPORARY] TABLE: None when no name is a temporary table (and TEMPORARY was not
/// said): the statement is a base-table DROP.
pub fn drop(
    sess: &mut SessionState,
    names: &[ast::ObjectName],
    if_exists: bool,
    temporary: bool,
) -> Option<Result<QueryResult>> {
    if !temporary && sess.temp_tables.is_empty() {
        return None;
    }
    let mut targets = Vec::with_capacity(names.len());
    for n in names {
        match plan::split_name(n, sess.db.as_deref()) {
            Ok(x) => targets.push(x),
            Err(e) => return Some(Err(e)),
        }
    }
    let is_temp = |sess: &SessionState, db: &str, t: &str| {
        sess.temp_tables
            .iter()
            .any(|x| x.db() == db && x.name() == t)
    };
    let found = targets.iter().filter(|(d, t)| is_temp(sess, d, t)).count();
    if !temporary {
        if found == 0 {
            return None;
        }
        if found < targets.len() {
            return Some(Err(Error::unsupported(
                "DROP TABLE of TEMPORARY and base tables in one statement",
            )));
        }
    }
    let mut missing = Vec::new();
    for (d, t) in &targets {
        if !is_temp(sess, d, t) {
            missing.push(format!("{d}.{t}"));
        }
    }
    if !missing.is_empty() && !if_exists {
        return Some(Err(Error::new(
            ErrorCode::BadTable,
            format!("Unknown table '{}'", missing.join(",")),
        )));
    }
    for (d, t) in &targets {
        if let Some(i) = sess
            .temp_tables
            .iter()
            .position(|x| x.db() == d && x.name() == t)
        {
            let gone = sess.temp_tables.remove(i);
            gone.drop_temporary();
            sess.track.state_changed();
        }
    }
    for m in missing {
        sess.warnings.push(crate::session::Warning {
            level: "Note",
            code: ErrorCode::BadTable.number(),
            message: format!("Unknown table '{m}'"),
        });
    }
    Some(Ok(QueryResult::ok()))
}

/// Drop the session's temporary table `db.name` if there is one (CREATE OR REPLACE).
pub fn drop_named(sess: &mut SessionState, db: &str, name: &str) {
    if let Some(i) = sess
        .temp_tables
        .iter()
        .position(|x| x.db() == db && x.name() == name)
    {
        let gone = sess.temp_tables.remove(i);
        gone.drop_temporary();
        sess.track.state_changed();
    }
}

/// 1235 if a statement that only knows base tables names one of the session's temporary
/// tables (see the module doc).
pub fn refuse_on_temporary(sess: &SessionState, targets: &[(String, String)]) -> Result<()> {
    for (d, t) in targets {
        if sess
            .temp_tables
            .iter()
            .any(|x| x.db() == d && x.name() == t)
        {
            return Err(Error::unsupported(&format!(
                "this statement on a TEMPORARY table (here: {d}.{t})"
            )));
        }
    }
    Ok(())
}
