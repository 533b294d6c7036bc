//! FOREIGN KEY definitions at CREATE TABLE and ALTER TABLE, with InnoDB's (MariaDB 10.11's)
//! rules and errors:
//!
//! * the constraint is named by `CONSTRAINT name`, else by the MySQL index name
//!   (`FOREIGN KEY name (…)`), else `<table>_ibfk_<n>` (n one past the largest such number
//!   the table has);
//! * the child columns need an index that starts with them: if none is declared, one is
//!   added where the FOREIGN KEY is written, named as the constraint (or the first column);
//! * with `foreign_key_checks` on, the parent must exist, its columns must lead an index (in
//!   order), and each pair of columns must have the same type (strings: same collation, any
//!   length), and SET NULL needs nullable child columns; otherwise 1005 with errno 150
//!   ("Foreign key constraint is incorrectly formed"). A name another table of the database
//!   uses for a foreign key is 1005 with errno 121, as InnoDB's names are per database.
//! * `ON … SET DEFAULT` (which MariaDB accepts and silently treats as RESTRICT) and `MATCH`
//!   clauses (accepted and ignored) are refused: 1235.
//!
//! Enforcement is in `sql/exec/fk.rs`.

use crate::error::{Error, Result};
use crate::sql::env::Env;
use crate::storage::{ColumnDef, FkAction, ForeignKeyDef, IndexDef, TableDef};
use crate::types::DataType;
use cohort_protocol::ErrorCode;
use sqlparser::ast;

/// 1005 "Can't create table `db`.`t` (errno: 150 …)".
pub(crate) fn incorrectly_formed(db: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::CantCreateTable,
        format!(
            "Can't create table `{db}`.`{table}` (errno: 150 \"Foreign key constraint is incorrectly formed\")"
        ),
    )
}

fn duplicate_name(db: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::CantCreateTable,
        format!(
            "Can't create table `{db}`.`{table}` (errno: 121 \"Duplicate key on write or update\")"
        ),
    )
}

/// Is `foreign_key_checks` on in this session?
pub(crate) fn checks_on(env: &Env<'_>) -> bool {
    match env.sys_var("foreign_key_checks", false) {
        Ok(v) => crate::sql::expr::convert::to_num(&v).to_i128() != 0,
        Err(_) => true,
    }
}

fn action(a: &Option<ast::ReferentialAction>) -> Result<FkAction> {
    Ok(match a {
        None | Some(ast::ReferentialAction::Restrict) => FkAction::Restrict,
        Some(ast::ReferentialAction::NoAction) => FkAction::NoAction,
        Some(ast::ReferentialAction::Cascade) => FkAction::Cascade,
        Some(ast::ReferentialAction::SetNull) => FkAction::SetNull,
        Some(ast::ReferentialAction::SetDefault) => {
            return Err(Error::unsupported(
                "ON DELETE / ON UPDATE SET DEFAULT (InnoDB does not support it)",
            ))
        }
    })
}

/// The number n of a generated name `<table>_ibfk_<n>`.
fn ibfk_number(table: &str, name: &str) -> Option<u32> {
    let prefix = format!("{table}_ibfk_");
    if name.len() <= prefix.len() || !name[..prefix.len()].eq_ignore_ascii_case(&prefix) {
        return None;
    }
    name[prefix.len()..].parse().ok()
}

/// The constraint's own name, if the statement gives one (CONSTRAINT name, else the index
/// name).
pub(crate) fn given_name(fk: &ast::ForeignKeyConstraint) -> Option<String> {
    fk.name
        .as_ref()
        .or(fk.index_name.as_ref())
        .map(|i| i.value.clone())
}

/// The definitions of the FOREIGN KEYs a statement declares for table `db`.`def.name` (whose
/// columns are final), appended to `def.foreign_keys` after the ones it has.
pub(crate) fn add_foreign_keys(
    env: &Env<'_>,
    db: &str,
    def: &mut TableDef,
    declared: &[ast::ForeignKeyConstraint],
) -> Result<()> {
    let mut next = def
        .foreign_keys
        .iter()
        .filter_map(|f| ibfk_number(&def.name, &f.name))
        .max()
        .unwrap_or(0);
    let first_new = def.foreign_keys.len();
    for fk in declared {
        if fk.match_kind.is_some() || fk.characteristics.is_some() {
            return Err(Error::unsupported("MATCH / DEFERRABLE in a FOREIGN KEY"));
        }
        let mut columns = Vec::with_capacity(fk.columns.len());
        for c in &fk.columns {
            let Some(i) = def.column_index(&c.value) else {
                return Err(Error::new(
                    ErrorCode::KeyColumnDoesNotExist,
                    format!("Key column '{}' doesn't exist in table", c.value),
                ));
            };
            columns.push(def.columns[i].name.clone());
        }
        let (parent_db, parent_table) = crate::sql::plan::split_name(&fk.foreign_table, Some(db))?;
        // REFERENCES on the parent table (1142), as MariaDB.
        let references = crate::accounts::Privs::REFERENCES;
        crate::sql::plan::check_table_priv(env, &parent_db, &parent_table, references)?;
        let name = match given_name(fk) {
            Some(n) => n,
            None => {
                next += 1;
                format!("{}_ibfk_{next}", def.name)
            }
        };
        def.foreign_keys.push(ForeignKeyDef {
            name,
            columns,
            parent_db,
            parent_table,
            parent_columns: fk
                .referred_columns
                .iter()
                .map(|c| c.value.clone())
                .collect(),
            on_delete: action(&fk.on_delete)?,
            on_update: action(&fk.on_update)?,
        });
    }
    // Names are unique in the table (errno 150 within a statement) and in the database
    // (errno 121).
    for i in first_new..def.foreign_keys.len() {
        let n = &def.foreign_keys[i].name;
        if def.foreign_keys[..i]
            .iter()
            .any(|f| f.name.eq_ignore_ascii_case(n))
        {
            return Err(incorrectly_formed(db, &def.name));
        }
        for other in env.ctx.engine.tables(db).unwrap_or_default() {
            if other == def.name {
                continue;
            }
            let Ok(t) = env.ctx.engine.table(db, &other) else {
                continue;
            };
            if t.def()
                .foreign_keys
                .iter()
                .any(|f| f.name.eq_ignore_ascii_case(n))
            {
                return Err(duplicate_name(db, &def.name));
            }
        }
    }
    for i in first_new..def.foreign_keys.len() {
        validate(env, db, def, &def.foreign_keys[i])?;
    }
    Ok(())
}

/// An index of `def` whose leading columns are `cols`, in order: None = the primary key.
pub(crate) fn index_for(def: &TableDef, cols: &[String]) -> Option<Option<usize>> {
    let leads = |idx: &IndexDef| {
        idx.parts.len() >= cols.len()
            && cols.iter().zip(&idx.parts).all(|(c, p)| {
                p.prefix_len.is_none() && def.columns[p.column].name.eq_ignore_ascii_case(c)
            })
    };
    if def.primary_key.as_ref().is_some_and(leads) {
        return Some(None);
    }
    def.indexes.iter().position(leads).map(Some)
}

/// Column types a foreign key may pair (InnoDB: the same type; strings of the same
/// collation, any length).
fn compatible(a: &ColumnDef, b: &ColumnDef) -> bool {
    use DataType as D;
    match (&a.data_type, &b.data_type) {
        (
            D::Char { collation: x, .. } | D::VarChar { collation: x, .. },
            D::Char { collation: y, .. } | D::VarChar { collation: y, .. },
        ) => x == y,
        (D::Binary { .. } | D::VarBinary { .. }, D::Binary { .. } | D::VarBinary { .. }) => true,
        (D::Text { .. } | D::Blob { .. }, _) | (_, D::Text { .. } | D::Blob { .. }) => false,
        (x, y) => x.storage() == y.storage(),
    }
}

/// One foreign key of the child `def` checked against its parent (errno 150 when it does not
/// fit). With `foreign_key_checks` off, a missing parent is allowed.
fn validate(env: &Env<'_>, db: &str, def: &TableDef, fk: &ForeignKeyDef) -> Result<()> {
    let bad = || incorrectly_formed(db, &def.name);
    if fk.columns.len() != fk.parent_columns.len() {
        return Err(bad());
    }
    if fk.on_delete == FkAction::SetNull || fk.on_update == FkAction::SetNull {
        for c in &fk.columns {
            let i = def.column_index(c).ok_or_else(bad)?;
            if !def.columns[i].nullable {
                return Err(bad());
            }
        }
    }
    if index_for(def, &fk.columns).is_none() {
        return Err(bad());
    }
    let held;
    let parent: &TableDef = if fk.parent_db == db && fk.parent_table == def.name {
        def
    } else {
        match env.ctx.engine.table(&fk.parent_db, &fk.parent_table) {
            Ok(t) => {
                held = t.def();
                &held
            }
            Err(_) if !checks_on(env) => return Ok(()),
            Err(_) => return Err(bad()),
        }
    };
    for (c, p) in fk.columns.iter().zip(&fk.parent_columns) {
        let ci = def.column_index(c).ok_or_else(bad)?;
        let pi = parent.column_index(p).ok_or_else(bad)?;
        if !compatible(&def.columns[ci], &parent.columns[pi]) {
            return Err(bad());
        }
    }
    if index_for(parent, &fk.parent_columns).is_none() {
        return Err(bad());
    }
    Ok(())
}

/// The foreign keys of other tables that reference `db`.`name` (not the table's own).
pub(crate) fn referencing_fks(
    env: &Env<'_>,
    db: &str,
    name: &str,
) -> Vec<(String, String, ForeignKeyDef)> {
    let mut out = Vec::new();
    for t in env.ctx.engine.referencing(db, name) {
        if t.db() == db && t.name() == name {
            continue;
        }
        for f in &t.def().foreign_keys {
            if f.parent_db == db && f.parent_table == name {
                out.push((t.db().to_string(), t.name().to_string(), f.clone()));
            }
        }
    }
    // InnoDB keeps a table's referencing constraints ordered by name.
    out.sort_by(|a, b| a.2.name.cmp(&b.2.name));
    out
}

/// ALTER TABLE's checks of a new definition against the foreign keys: every index a foreign
/// key of the table, or of a table referencing it, needs is still there (1553, naming the old
/// index that served it), and no column a foreign key uses changed type (1832 child side,
/// 1833 parent side). Renaming a referenced column or table is refused (the referencing
/// definitions would have to follow).
pub(crate) fn check_alter(
    env: &Env<'_>,
    db: &str,
    old: &TableDef,
    new: &TableDef,
    new_db: &str,
) -> Result<()> {
    // Of the indexes a foreign key needs and the statement drops, the first is named
    // (MariaDB checks the old indexes in order).
    let needed_gone = || -> Option<Error> {
        let mut all: Vec<Vec<String>> =
            new.foreign_keys.iter().map(|f| f.columns.clone()).collect();
        for (_, _, f) in referencing_fks(env, db, &old.name) {
            all.push(f.parent_columns.clone());
        }
        for f in &new.foreign_keys {
            if f.parent_db == db && f.parent_table == old.name {
                all.push(f.parent_columns.clone());
            }
        }
        let lost: Vec<&Vec<String>> = all
            .iter()
            .filter(|cols| {
                cols.iter().any(|c| new.column_index(c).is_none()) || index_for(new, cols).is_none()
            })
            .collect();
        if lost.is_empty() {
            return None;
        }
        let serves = |idx: &IndexDef, cols: &[String]| {
            idx.parts.len() >= cols.len()
                && cols
                    .iter()
                    .zip(&idx.parts)
                    .all(|(c, p)| old.columns[p.column].name.eq_ignore_ascii_case(c))
        };
        let name = old
            .primary_key
            .iter()
            .chain(&old.indexes)
            .find(|idx| {
                !new.primary_key
                    .iter()
                    .chain(&new.indexes)
                    .any(|n| n.name == idx.name && n.parts.len() == idx.parts.len())
                    && lost.iter().any(|cols| serves(idx, cols))
            })
            .map_or("PRIMARY".to_string(), |i| i.name.clone());
        Some(Error::new(
            ErrorCode::DropIndexFk,
            format!("Cannot drop index '{name}': needed in a foreign key constraint"),
        ))
    };
    if let Some(e) = needed_gone() {
        return Err(e);
    }
    let dropped_index =
        |_: &[String]| -> Error { needed_gone().unwrap_or_else(|| Error::internal("index check")) };
    let type_of = |d: &TableDef, c: &str| d.column_index(c).map(|i| d.columns[i].clone());
    for fk in &new.foreign_keys {
        if fk.columns.iter().any(|c| new.column_index(c).is_none())
            || index_for(new, &fk.columns).is_none()
        {
            return Err(dropped_index(&fk.columns));
        }
        for c in &fk.columns {
            if let (Some(a), Some(b)) = (type_of(old, c), type_of(new, c)) {
                if a.data_type.storage() != b.data_type.storage() {
                    return Err(Error::new(
                        ErrorCode::FkColumnCannotChange,
                        format!(
                            "Cannot change column '{c}': used in a foreign key constraint '{}'",
                            fk.name
                        ),
                    ));
                }
            }
        }
    }
    let refs = referencing_fks(env, db, &old.name);
    let self_refs = new
        .foreign_keys
        .iter()
        .filter(|f| f.parent_db == new_db && f.parent_table == new.name)
        .map(|f| (db.to_string(), old.name.clone(), f.clone()));
    for (cdb, ct, fk) in refs.into_iter().chain(self_refs) {
        for p in &fk.parent_columns {
            let (Some(a), b) = (type_of(old, p), type_of(new, p)) else {
                continue;
            };
            let Some(b) = b else {
                if new.columns.len() < old.columns.len() {
                    return Err(dropped_index(&fk.parent_columns));
                }
                return Err(Error::unsupported(
                    "renaming a column a FOREIGN KEY references",
                ));
            };
            if a.data_type.storage() != b.data_type.storage() {
                return Err(Error::new(
                    ErrorCode::FkColumnCannotChangeChild,
                    format!(
                        "Cannot change column '{p}': used in a foreign key constraint '{}' of table '{cdb}.{ct}'",
                        fk.name
                    ),
                ));
            }
        }
        if index_for(new, &fk.parent_columns).is_none() {
            return Err(dropped_index(&fk.parent_columns));
        }
    }
    Ok(())
}

/// A table renamed from `db`.`old` to `new_db`.`new_def.name`: its own generated constraint
/// names follow (`old_ibfk_n` becomes `new_ibfk_n`, as InnoDB renames them) and so do its
/// references to itself. Other tables' references follow too: each referencing table is
/// rebuilt with its FOREIGN KEYs naming the new table (the statement holds their metadata
/// locks: `sql/mod.rs` `mdl_targets`; the rebuilds are journalled with the rename).
pub(crate) fn rename_table(
    env: &Env<'_>,
    db: &str,
    old: &str,
    new_db: &str,
    new_def: &mut TableDef,
) -> Result<()> {
    if new_db == db && new_def.name == old {
        return Ok(());
    }
    if env.ctx.engine.any_foreign_keys() {
        for child in env.ctx.engine.referencing(db, old) {
            if child.db() == db && child.name() == old {
                continue;
            }
            let mut def = (*child.def()).clone();
            for fk in &mut def.foreign_keys {
                if fk.parent_db == db && fk.parent_table == old {
                    fk.parent_db = new_db.to_string();
                    fk.parent_table = new_def.name.clone();
                }
            }
            let rows = child.committed_rows()?;
            let cdb = child.db().to_string();
            env.ctx
                .engine
                .replace_table(&child, &cdb, def, rows, child.auto_increment_peek())?;
        }
    }
    for fk in &mut new_def.foreign_keys {
        if let Some(n) = ibfk_number(old, &fk.name) {
            fk.name = format!("{}_ibfk_{n}", new_def.name);
        }
        if fk.parent_db == db && fk.parent_table == old {
            fk.parent_db = new_db.to_string();
            fk.parent_table = new_def.name.clone();
        }
    }
    Ok(())
}

/// DROP DATABASE: a table of another database referencing one of its tables stops it (1451).
pub(crate) fn check_drop_database(env: &Env<'_>, db: &str) -> Result<()> {
    if !env.ctx.engine.any_foreign_keys() || !checks_on(env) {
        return Ok(());
    }
    for t in env.ctx.engine.tables(db).unwrap_or_default() {
        if referencing_fks(env, db, &t)
            .iter()
            .any(|(cdb, _, _)| cdb != db)
        {
            return Err(crate::sql::exec::fk::parent_table_referenced());
        }
    }
    Ok(())
}
