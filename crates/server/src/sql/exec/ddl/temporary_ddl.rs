//! DDL on a session's TEMPORARY table: ALTER TABLE, CREATE / DROP INDEX, TRUNCATE and
//! RENAME TABLE, as MariaDB 10.11 runs them.
//!
//! Each commits the open transaction first, as MariaDB does (only CREATE and DROP TEMPORARY
//! TABLE leave it open), and nothing is logged: with `binlog_format = ROW` a temporary table
//! never reaches the binlog. No metadata lock is taken: no other session can reach the table.
//!
//! | statement | how |
//! |---|---|
//! | ALTER TABLE | the ALTER of base tables (`alter.rs`), whose last step builds a new temporary object (`Engine::rebuild_temporary`) that replaces the old one in the session's list |
//! | CREATE / DROP INDEX | the table's index is built or dropped in place |
//! | TRUNCATE | the rows go in place, AUTO_INCREMENT restarts |
//! | RENAME TABLE | a rebuilt object under the new name; 1050 if another temporary table has it (a base table of the name is shadowed, as in MariaDB) |
//!
//! A statement that names temporary and base tables together (`TRUNCATE tmp, base`,
//! `RENAME TABLE tmp TO a, base TO b`) is not taken here, and is refused by the caller
//! (`temporary::refuse_on_temporary`).
//!
//! The old object of a rebuilt or changed table is marked dropped or has its schema version
//! bumped, so a prepared statement bound to it binds again.

use super::alter::{alter_table, AlterOutcome};
use crate::error::{Error, Result};
use crate::session::state::{ServerContext, SessionState};
use crate::sql::env::{Env, SessView};
use crate::sql::parse::alter::{AlterTable, RenameTable};
use crate::sql::parse::{Parsed, Stmt};
use crate::sql::plan;
use crate::sql::QueryResult;
use crate::storage::{IndexDef, Table};
use cohort_protocol::ErrorCode;
use sqlparser::ast::{self, ObjectType, Statement};
use std::sync::Arc;

/// Run `parsed` if it is DDL on the session's temporary tables only; None otherwise.
pub fn run(
    ctx: &ServerContext,
    sess: &mut SessionState,
    parsed: &Parsed,
    prev: usize,
) -> Option<Result<QueryResult>> {
    match &parsed.stmt {
        Stmt::AlterTable(at) => {
            let db = at.db.clone().or_else(|| sess.db.clone())?;
            find(sess, &db, &at.table)?;
            Some(alter(ctx, sess, at, prev))
        }
        Stmt::RenameTable(r) => {
            let froms = r
                .pairs
                .iter()
                .map(|((d, t), _)| (d.clone().or_else(|| sess.db.clone()), t));
            let temps = froms
                .filter(|(d, t)| d.as_ref().is_some_and(|d| find(sess, d, t).is_some()))
                .count();
            (temps == r.pairs.len()).then(|| rename(ctx, sess, r))
        }
        Stmt::Sql(st) => match st.as_ref() {
            Statement::CreateIndex(ci) => {
                let (db, t) = plan::split_name(&ci.table_name, sess.db.as_deref()).ok()?;
                let table = find(sess, &db, &t)?;
                Some(in_place(ctx, sess, prev, |env| {
                    copied(&table, create_index(env, &table, ci)?)
                }))
            }
            Statement::Drop {
                object_type: ObjectType::Index,
                names,
                table: Some(on),
                if_exists,
                ..
            } => {
                let (db, t) = plan::split_name(on, sess.db.as_deref()).ok()?;
                let table = find(sess, &db, &t)?;
                Some(in_place(ctx, sess, prev, |env| {
                    copied(&table, drop_indexes(env, &table, names, *if_exists)?)
                }))
            }
            Statement::Truncate(tr) => {
                let mut tables = Vec::new();
                for target in &tr.table_names {
                    let (db, t) = plan::split_name(&target.name, sess.db.as_deref()).ok()?;
                    tables.push(find(sess, &db, &t)?);
                }
                let r = in_place(ctx, sess, prev, |_| {
                    for t in &tables {
                        t.truncate().finish();
                    }
                    Ok(None)
                });
                Some(r)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The session's temporary table `db`.`name`.
fn find(sess: &SessionState, db: &str, name: &str) -> Option<Arc<Table>> {
    sess.temp_tables
        .iter()
        .find(|t| t.db() == db && t.name() == name)
        .cloned()
}

/// Commit, then run `f` on the session's view; its warnings reach the session on success.
/// `f` answers the rows it copied for an index change (MariaDB rebuilds a temporary table
/// for each, and reports them as an ALTER does), None for a statement without that info.
fn in_place(
    ctx: &ServerContext,
    sess: &mut SessionState,
    prev: usize,
    f: impl FnOnce(&Env<'_>) -> Result<Option<u64>>,
) -> Result<QueryResult> {
    sess.commit(ctx)?;
    let (r, effects) = {
        let env = Env::new(ctx, SessView::of(sess, prev), &[]);
        let r = f(&env);
        (r, env.into_effects())
    };
    let copied = r?;
    let warnings = effects.warnings.len();
    effects.apply(sess);
    Ok(match copied {
        None => QueryResult::ok(),
        Some(n) => QueryResult::Ok {
            affected_rows: n,
            last_insert_id: 0,
            info: Some(format!("Records: {n}  Duplicates: 0  Warnings: {warnings}")),
        },
    })
}

/// The rows a changed table holds (its copy), or 0 when nothing changed.
fn copied(table: &Table, changed: bool) -> Result<Option<u64>> {
    let n = match changed {
        true => table.committed_rows()?.len() as u64,
        false => 0,
    };
    Ok(Some(n))
}

fn alter(
    ctx: &ServerContext,
    sess: &mut SessionState,
    at: &AlterTable,
    prev: usize,
) -> Result<QueryResult> {
    sess.commit(ctx)?;
    let (r, effects) = {
        let env = Env::new(ctx, SessView::of(sess, prev), &[]);
        let r = alter_table(&env, at);
        (r, env.into_effects())
    };
    let AlterOutcome {
        affected,
        info,
        rebuilt_temporary,
    } = r?;
    if let Some(new) = rebuilt_temporary {
        swap(sess, new)?;
    }
    effects.apply(sess);
    Ok(QueryResult::Ok {
        affected_rows: affected,
        last_insert_id: 0,
        info: (!info.is_empty()).then_some(info),
    })
}

/// Put `new` in the place of the session's temporary table of the same id, whose old object
/// is marked dropped (plans bound to it bind again).
fn swap(sess: &mut SessionState, new: Arc<Table>) -> Result<()> {
    let old = replace_in(&mut sess.temp_tables, new)?;
    old.drop_temporary();
    sess.track.state_changed();
    Ok(())
}

/// Replace the table of `new`'s id in `list` by `new`, returning the old object; 1050 if `new`
/// took the name of another table of the list.
fn replace_in(list: &mut [Arc<Table>], new: Arc<Table>) -> Result<Arc<Table>> {
    let clash = list
        .iter()
        .any(|t| t.id() != new.id() && t.db() == new.db() && t.name() == new.name());
    if clash {
        return Err(Error::new(
            ErrorCode::TableExists,
            format!("Table '{}' already exists", new.name()),
        ));
    }
    let i = list
        .iter()
        .position(|t| t.id() == new.id())
        .ok_or_else(|| Error::internal("rebuilt temporary table left its session"))?;
    Ok(std::mem::replace(&mut list[i], new))
}

/// RENAME TABLE of temporary tables only: one pair after the other (`a TO x, b TO a` works),
/// all or nothing: the renames are made on a copy of the session's list, which replaces it
/// only when every pair succeeded.
fn rename(ctx: &ServerContext, sess: &mut SessionState, r: &RenameTable) -> Result<QueryResult> {
    sess.commit(ctx)?;
    let mut list = sess.temp_tables.clone();
    let cur = sess.db.clone();
    for ((fd, from), (td, to)) in &r.pairs {
        let from_db = fd.clone().or_else(|| cur.clone()).ok_or_else(no_db)?;
        let to_db = td.clone().or_else(|| cur.clone()).ok_or_else(no_db)?;
        super::check_ident(to)?;
        let old = list
            .iter()
            .find(|t| t.db() == from_db && t.name() == from)
            .cloned()
            .ok_or_else(|| Error::no_such_table(&from_db, from))?;
        let mut def = (*old.def()).clone();
        def.name = to.clone();
        let rows = old.committed_rows()?;
        let next = old.auto_increment_peek();
        let new = ctx
            .engine
            .rebuild_temporary(&old, &to_db, def, rows, next)?;
        replace_in(&mut list, new)?;
    }
    let before = std::mem::replace(&mut sess.temp_tables, list);
    for old in before {
        if !sess.temp_tables.iter().any(|t| Arc::ptr_eq(t, &old)) {
            old.drop_temporary();
        }
    }
    sess.track.state_changed();
    Ok(QueryResult::ok())
}

fn no_db() -> Error {
    Error::new(ErrorCode::NoDb, "No database selected")
}

/// CREATE INDEX on a temporary table, built in place; false if IF NOT EXISTS found it.
fn create_index(env: &Env<'_>, table: &Table, ci: &ast::CreateIndex) -> Result<bool> {
    let def = table.def();
    let parts = super::index_parts(&ci.columns, &def.columns)?;
    let first = def.columns[parts[0].column].name.clone();
    let wanted = ci
        .name
        .as_ref()
        .map(|n| n.to_string().trim_matches('`').to_string());
    let name = match super::index_name(&def.indexes, wanted, &first) {
        Ok(n) => n,
        Err(e) if ci.if_not_exists => {
            env.warn("Note", e.code(), e.message());
            return Ok(false);
        }
        Err(e) => return Err(e),
    };
    table.create_index(IndexDef {
        name,
        parts,
        unique: ci.unique,
        implicit: false,
    })?;
    Ok(true)
}

/// DROP INDEX on a temporary table, in place (1091 for a missing one, a note with IF
/// EXISTS); whether one was dropped.
fn drop_indexes(
    env: &Env<'_>,
    table: &Table,
    names: &[ast::ObjectName],
    if_exists: bool,
) -> Result<bool> {
    let mut dropped = false;
    for n in names {
        let name = n.to_string().trim_matches('`').to_string();
        match table.drop_index(&name) {
            Err(e) if if_exists && e.code() == ErrorCode::CantDropFieldOrKey => {
                env.warn("Note", e.code(), e.message())
            }
            other => {
                other?;
                dropped = true;
            }
        }
    }
    Ok(dropped)
}
