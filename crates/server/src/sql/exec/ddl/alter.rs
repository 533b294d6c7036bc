//! ALTER TABLE: every operation of one statement is applied to a working copy of the table's
//! definition ([`Draft`]), in the order written; then, if all of them were valid, the table is
//! rebuilt once (`storage/rebuild.rs`): each committed row is converted to the new shape and
//! every index is built from the new rows. The statement is atomic: an error in any operation,
//! in any row's conversion (strict mode), or in a key of the new rows (1062) leaves the table
//! as it was, and the rebuild is journalled so a failing log write undoes it too.
//!
//! Columns carry their origin through the draft (`DraftCol::src`), so ADD / DROP / MODIFY /
//! CHANGE / RENAME / FIRST / AFTER compose; keys name their columns by name until the end, so
//! a renamed column stays in its keys and a dropped one leaves them (a key left with no column
//! is dropped, as in MariaDB).
//!
//! Conversion follows MariaDB's copy: a value is stored into the new column as an INSERT
//! would store it (`convert::store_value`), with MariaDB's ALTER wording for a string that is
//! no number (1292 "Truncated incorrect INTEGER value"); NULL into NOT NULL is 1265. In strict
//! mode the first problem aborts the statement; otherwise each is a warning.
//!
//! `ALGORITHM=` is checked against what the statement does, with MariaDB's 1846: a type
//! change is a copy (no INSTANT / INPLACE / NOCOPY), a new key is no INSTANT. Every rebuild
//! here copies the rows under the table's exclusive metadata lock, so `LOCK=NONE` and
//! `LOCK=SHARED` cannot be honoured on a table with rows: refused (1846), never ignored.

use super::{
    charset_named, check_auto_increment, check_ident, collation_named, column_def, column_default,
    engine_name, multiple_pk, table_constraints, with_collation, Keys,
};
use crate::error::{Error, Result};
use crate::sql::env::Env;
use crate::sql::expr::convert::{self, StoreCtx, Strict};
use crate::sql::parse::alter::{AlterOp, AlterTable, ColumnPos};
use crate::sql::plan::is_system_schema;
use crate::storage::{ColumnDef, ColumnDefault, IndexDef, IndexPart, Row, TableDef};
use crate::types::{Collation, DataType, Value};
use cohort_protocol::ErrorCode;
use std::cell::RefCell;
use std::sync::Arc;

/// What the statement reports: rows copied (0 when no value was converted), and the OK
/// packet's info text.
pub struct AlterOutcome {
    pub affected: u64,
    pub info: String,
    /// The rebuilt object of a session's TEMPORARY table, for the caller to put in the
    /// session's list in place of the old one (`temporary_ddl.rs`).
    pub rebuilt_temporary: Option<Arc<crate::storage::Table>>,
}

/// One column of the draft: its new definition and where its values come from.
#[derive(Clone)]
struct DraftCol {
    def: ColumnDef,
    /// Position in the old table, or None for an added column.
    src: Option<usize>,
}

/// A key of the draft, by column names.
#[derive(Clone)]
struct DraftKey {
    name: String,
    parts: Vec<(String, Option<u32>)>,
    unique: bool,
    /// Made for a FOREIGN KEY (`implicit_index.rs`).
    implicit: bool,
}

impl DraftKey {
    /// Does this key lead with the whole columns `cols` (as a foreign key needs)?
    fn serves(&self, cols: &[(String, Option<u32>)]) -> bool {
        self.parts.len() >= cols.len()
            && cols
                .iter()
                .zip(&self.parts)
                .all(|((c, _), (n, pl))| pl.is_none() && n.eq_ignore_ascii_case(c))
    }
}

/// The working copy of the definition.
struct Draft {
    table: String,
    cols: Vec<DraftCol>,
    primary: Option<DraftKey>,
    indexes: Vec<DraftKey>,
    engine: String,
    comment: Option<String>,
    auto_increment: Option<u64>,
    /// Values must be converted (a type changed): the statement copies rows.
    converts: bool,
    /// The primary key changed: rows are re-keyed.
    rekeys: bool,
    /// A column became NOT NULL: its NULLs must be checked (without a type change, MariaDB
    /// does it in place: no rows counted).
    narrows: bool,
    algorithm: Option<String>,
    lock: Option<String>,
    /// The table's FOREIGN KEYs (child columns by name), and the ones the statement adds.
    fks: Vec<crate::storage::ForeignKeyDef>,
    new_fks: Vec<sqlparser::ast::ForeignKeyConstraint>,
    /// The table's CHECK constraints, and the ones the statement adds.
    checks: Vec<crate::storage::CheckDef>,
    new_checks: Vec<crate::sql::exec::check::Declared>,
    /// The table's default collation (changed by `[DEFAULT] CHARSET=` / `CONVERT TO`).
    default_collation: crate::types::Collation,
}

fn unknown_column(col: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::BadField,
        format!("Unknown column '{col}' in '{table}'"),
    )
}

fn cant_drop(what: &str, name: &str) -> Error {
    Error::new(
        ErrorCode::CantDropFieldOrKey,
        format!("Can't DROP {what} `{name}`; check that it exists"),
    )
}

fn dup_column(name: &str) -> Error {
    Error::new(
        ErrorCode::DupFieldName,
        format!("Duplicate column name '{name}'"),
    )
}

impl Draft {
    fn of(def: &TableDef) -> Draft {
        let key = |i: &IndexDef| DraftKey {
            name: i.name.clone(),
            parts: i
                .parts
                .iter()
                .map(|p| (def.columns[p.column].name.clone(), p.prefix_len))
                .collect(),
            unique: i.unique,
            implicit: i.implicit,
        };
        Draft {
            table: def.name.clone(),
            cols: def
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| DraftCol {
                    def: c.clone(),
                    src: Some(i),
                })
                .collect(),
            primary: def.primary_key.as_ref().map(key),
            indexes: def.indexes.iter().map(key).collect(),
            engine: def.engine.clone(),
            comment: def.comment.clone(),
            auto_increment: None,
            converts: false,
            rekeys: false,
            narrows: false,
            algorithm: None,
            lock: None,
            fks: def.foreign_keys.clone(),
            new_fks: Vec::new(),
            checks: def.checks.clone(),
            new_checks: Vec::new(),
            default_collation: def.default_collation,
        }
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.cols
            .iter()
            .position(|c| c.def.name.eq_ignore_ascii_case(name))
    }

    fn column_defs(&self) -> Vec<ColumnDef> {
        self.cols.iter().map(|c| c.def.clone()).collect()
    }

    /// Where a column goes: FIRST, AFTER x (1054 if x is unknown), or `default`.
    fn position(&self, pos: &Option<ColumnPos>, default: usize) -> Result<usize> {
        match pos {
            None => Ok(default),
            Some(ColumnPos::First) => Ok(0),
            Some(ColumnPos::After(c)) => self
                .find(c)
                .map(|i| i + 1)
                .ok_or_else(|| unknown_column(c, &self.table)),
        }
    }

    fn keys(&self) -> impl Iterator<Item = &DraftKey> {
        self.primary.iter().chain(self.indexes.iter())
    }

    fn keys_mut(&mut self) -> impl Iterator<Item = &mut DraftKey> {
        self.primary.iter_mut().chain(self.indexes.iter_mut())
    }

    fn index_named(&self, name: &str) -> Option<usize> {
        self.indexes
            .iter()
            .position(|i| i.name.eq_ignore_ascii_case(name))
    }

    /// Add the keys an inline column definition or a constraint declared.
    fn add_keys(&mut self, keys: Keys, columns: &[ColumnDef]) -> Result<()> {
        let mut keys = keys;
        keys.settle_implicit();
        self.new_fks.append(&mut keys.fks);
        self.new_checks.append(&mut keys.checks);
        let named = |parts: &[IndexPart]| -> Vec<(String, Option<u32>)> {
            parts
                .iter()
                .map(|p| (columns[p.column].name.clone(), p.prefix_len))
                .collect()
        };
        if let Some((parts, _)) = keys.primary {
            if self.primary.is_some() {
                return Err(multiple_pk());
            }
            for (c, _) in named(&parts) {
                if let Some(i) = self.find(&c) {
                    let d = &mut self.cols[i].def;
                    if d.nullable && matches!(d.default, ColumnDefault::Value(Value::Null)) {
                        d.default = ColumnDefault::None;
                    }
                    self.narrows |= d.nullable;
                    d.nullable = false;
                }
            }
            let pk = DraftKey {
                name: "PRIMARY".into(),
                parts: named(&parts),
                unique: true,
                implicit: false,
            };
            self.indexes
                .retain(|k| !(k.implicit && pk.serves(&k.parts)));
            self.primary = Some(pk);
            self.rekeys = true;
        }
        for (name, parts, unique, implicit) in keys.indexes {
            if implicit {
                let cols: Vec<String> = parts
                    .iter()
                    .map(|p| columns[p.column].name.clone())
                    .collect();
                let served = self.keys().any(|k| {
                    k.parts.len() >= cols.len()
                        && cols
                            .iter()
                            .zip(&k.parts)
                            .all(|(c, (n, pl))| pl.is_none() && n.eq_ignore_ascii_case(c))
                });
                if served {
                    continue;
                }
            }
            let first = columns[parts[0].column].name.clone();
            let name = self.free_index_name(name, &first)?;
            let key = DraftKey {
                name,
                parts: named(&parts),
                unique,
                implicit,
            };
            if !implicit {
                // A key made for a FOREIGN KEY that this one serves goes (`implicit_index.rs`).
                self.indexes
                    .retain(|k| !(k.implicit && key.serves(&k.parts)));
            }
            // MariaDB lists UNIQUE keys before the others.
            let at = if unique {
                self.indexes
                    .iter()
                    .position(|i| !i.unique)
                    .unwrap_or(self.indexes.len())
            } else {
                self.indexes.len()
            };
            self.indexes.insert(at, key);
        }
        Ok(())
    }

    fn free_index_name(&self, wanted: Option<String>, first_col: &str) -> Result<String> {
        let taken = |n: &str| n.eq_ignore_ascii_case("PRIMARY") || self.index_named(n).is_some();
        if let Some(n) = wanted {
            if taken(&n) {
                return Err(Error::new(
                    ErrorCode::DupKeyName,
                    format!("Duplicate key name '{n}'"),
                ));
            }
            return Ok(n);
        }
        let mut name = first_col.to_string();
        let mut k = 2;
        while taken(&name) {
            name = format!("{first_col}_{k}");
            k += 1;
        }
        Ok(name)
    }

    /// The final definition: key parts resolved to positions (1072 for a column that is not
    /// there).
    fn finish(&self) -> Result<TableDef> {
        let resolve = |k: &DraftKey| -> Result<IndexDef> {
            let parts = k
                .parts
                .iter()
                .map(|(c, prefix_len)| {
                    let column = self.find(c).ok_or_else(|| {
                        Error::new(
                            ErrorCode::KeyColumnDoesNotExist,
                            format!("Key column '{c}' doesn't exist in table"),
                        )
                    })?;
                    Ok(IndexPart {
                        column,
                        prefix_len: *prefix_len,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(IndexDef {
                name: k.name.clone(),
                parts,
                unique: k.unique,
                implicit: k.implicit,
            })
        };
        let mut def = TableDef {
            name: self.table.clone(),
            columns: self.column_defs(),
            primary_key: self.primary.as_ref().map(resolve).transpose()?,
            indexes: self
                .indexes
                .iter()
                .map(resolve)
                .collect::<Result<Vec<_>>>()?,
            engine: self.engine.clone(),
            auto_increment_start: 1,
            comment: self.comment.clone(),
            foreign_keys: self.fks.clone(),
            checks: self.checks.clone(),
            default_collation: self.default_collation,
        };
        def.sort_keys();
        Ok(def)
    }
}

/// Run an ALTER TABLE (module doc).
pub fn alter_table(env: &Env<'_>, at: &AlterTable) -> Result<AlterOutcome> {
    let db = match &at.db {
        Some(d) => d.clone(),
        None => env
            .sess
            .db
            .map(str::to_string)
            .ok_or_else(|| Error::new(ErrorCode::NoDb, "No database selected"))?,
    };
    crate::sql::plan::check_table_priv(env, &db, &at.table, crate::accounts::Privs::ALTER)?;
    if is_system_schema(&db) {
        return Err(Error::unsupported(&format!("altering tables of {db}")));
    }
    for op in &at.ops {
        if let AlterOp::Unsupported(what) = op {
            return Err(Error::unsupported(what));
        }
    }
    let temporary = env.sess.temp_table(&db, &at.table).cloned();
    let table = match temporary.map_or_else(|| env.ctx.engine.table(&db, &at.table), Ok) {
        Ok(t) => t,
        Err(e) if at.if_exists && e.code() == ErrorCode::NoSuchTable => {
            env.warn("Note", e.code(), e.message());
            return Ok(AlterOutcome {
                affected: 0,
                info: String::new(),
                rebuilt_temporary: None,
            });
        }
        Err(e) => return Err(e),
    };
    if !at.ops.is_empty() && at.ops.iter().all(|o| matches!(o, AlterOp::Keys)) {
        env.warn(
            "Note",
            ErrorCode::IllegalHa,
            format!(
                "Storage engine InnoDB of the table `{db}`.`{}` doesn't have this option",
                at.table
            ),
        );
        return Ok(AlterOutcome {
            affected: 0,
            info: String::new(),
            rebuilt_temporary: None,
        });
    }
    let warnings_before = env.warnings.borrow().len();
    let old = table.def();
    let mut draft = Draft::of(&old);
    let mut new_db = db.clone();
    for op in &at.ops {
        apply_op(env, &mut draft, &mut new_db, op)?;
    }
    if draft.cols.is_empty() {
        return Err(Error::new(
            ErrorCode::CantRemoveAllFields,
            "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
        ));
    }
    let mut def = draft.finish()?;
    if table.is_temporary() && !draft.new_fks.is_empty() {
        return Err(Error::unsupported("FOREIGN KEY on a TEMPORARY table"));
    }
    if !table.is_temporary() {
        super::fk::rename_table(env, &db, &at.table, &new_db, &mut def)?;
    }
    check_lob_keys(&def)?;
    check_auto_increment(&def)?;
    super::row_size::check(&def)?;
    if !draft.new_checks.is_empty() {
        crate::sql::exec::check::add_checks(env, &new_db, &mut def, &draft.new_checks)?;
    }
    if !draft.new_fks.is_empty() {
        super::fk::add_foreign_keys(env, &new_db, &mut def, &draft.new_fks)?;
    }
    if !def.checks.is_empty() && !def.foreign_keys.is_empty() {
        crate::sql::exec::check::check_against_foreign_keys(&def)?;
    }
    // A temporary table has no FOREIGN KEY and none can name it (a base table of its name may
    // be referenced: that is not this table).
    let fks_anywhere = !old.foreign_keys.is_empty()
        || !def.foreign_keys.is_empty()
        || env.ctx.engine.any_foreign_keys();
    if fks_anywhere && !table.is_temporary() {
        super::fk::check_alter(env, &db, &old, &def, &new_db)?;
    }
    let (gen_recompute, gen_copy) = generated_changed(&draft, &old, &def)?;
    crate::sql::exec::gencol::validate(env, &new_db, &def)?;
    crate::sql::exec::default_expr::validate(env, &new_db, &def)?;
    let rows = table.committed_rows()?;
    if !draft.new_fks.is_empty() && super::fk::checks_on(env) {
        let first_new = def.foreign_keys.len() - draft.new_fks.len();
        crate::sql::exec::fk::check_existing_rows(env, &new_db, &def, &rows, first_new)?;
    }
    check_algorithm(&draft, &old, &def, !rows.is_empty())?;
    let copied = rows.len() as u64;
    let (mut rows, max_ai) = convert_rows(env, &draft, &old, &def, rows, (&db, &old.name))?;
    let added_exprs = added_default_exprs(&draft);
    if !added_exprs.is_empty() && !rows.is_empty() {
        rows = fill_added_defaults(env, &new_db, &def, &added_exprs, rows)?;
    }
    if gen_recompute {
        rows = crate::sql::exec::gencol::recompute(env, &new_db, &def, rows)?;
    }
    if !def.checks.is_empty() {
        // Copied rows meet every constraint (MariaDB checks them all as it copies).
        crate::sql::exec::check::check_rows(env, &new_db, &def, &rows)?;
    }
    let mut auto_inc = table.auto_increment_peek();
    if def.auto_increment_column().is_some() {
        auto_inc = auto_inc.max(max_ai.saturating_add(1));
    }
    if let Some(n) = draft.auto_increment {
        auto_inc = n.max(max_ai.saturating_add(1)).max(1);
    }
    let rebuilt_temporary = if table.is_temporary() {
        let engine = &env.ctx.engine;
        Some(engine.rebuild_temporary(&table, &new_db, def, rows, auto_inc)?)
    } else {
        let engine = &env.ctx.engine;
        engine.replace_table(&table, &new_db, def, rows, auto_inc)?;
        None
    };
    let warnings = env.warnings.borrow().len() - warnings_before;
    // MariaDB counts the rows only when it copies them (a type change).
    // Adding a CHECK, or a checked FOREIGN KEY, copies too.
    let fk_copy =
        (!draft.new_fks.is_empty() && super::fk::checks_on(env)) || !draft.new_checks.is_empty();
    // A temporary table is always copied (MariaDB has no in-place ALTER for one).
    let copies = draft.converts || fk_copy || gen_copy || !added_exprs.is_empty();
    let affected = if copies || rebuilt_temporary.is_some() {
        copied
    } else {
        0
    };
    // A bare RENAME is no table change: MariaDB sends no info text for it.
    let only_rename = at.ops.iter().all(|o| matches!(o, AlterOp::RenameTo { .. }));
    Ok(AlterOutcome {
        affected,
        info: match only_rename {
            true => String::new(),
            false => format!("Records: {affected}  Duplicates: 0  Warnings: {warnings}"),
        },
        rebuilt_temporary,
    })
}

fn apply_op(env: &Env<'_>, d: &mut Draft, new_db: &mut String, op: &AlterOp) -> Result<()> {
    match op {
        AlterOp::AddColumn {
            if_not_exists,
            def,
            pos,
        } => {
            if d.find(&def.name.value).is_some() {
                if *if_not_exists {
                    env.warn(
                        "Note",
                        ErrorCode::DupFieldName,
                        dup_column(&def.name.value).message(),
                    );
                    return Ok(());
                }
                return Err(dup_column(&def.name.value));
            }
            let mut keys = Keys::default();
            let at = d.position(pos, d.cols.len())?;
            let col = column_def(env, def, at, &mut keys, d.default_collation)?;
            d.cols.insert(
                at,
                DraftCol {
                    def: col,
                    src: None,
                },
            );
            let cols = d.column_defs();
            d.add_keys(keys, &cols)?;
        }
        AlterOp::DropColumn { if_exists, name } => {
            let Some(i) = d.find(name) else {
                if *if_exists {
                    env.warn(
                        "Note",
                        ErrorCode::CantDropFieldOrKey,
                        cant_drop("COLUMN", name).message(),
                    );
                    return Ok(());
                }
                return Err(cant_drop("COLUMN", name));
            };
            let gone = d.cols.remove(i).def.name;
            d.checks.retain(|c| {
                !c.column
                    .as_deref()
                    .is_some_and(|n| n.eq_ignore_ascii_case(&gone))
            });
            let in_pk = d
                .primary
                .as_ref()
                .is_some_and(|k| k.parts.iter().any(|(c, _)| c.eq_ignore_ascii_case(&gone)));
            d.rekeys |= in_pk;
            for k in d.keys_mut() {
                k.parts.retain(|(c, _)| !c.eq_ignore_ascii_case(&gone));
            }
            if d.primary.as_ref().is_some_and(|k| k.parts.is_empty()) {
                d.primary = None;
            }
            d.indexes.retain(|k| !k.parts.is_empty());
        }
        AlterOp::ChangeColumn {
            if_exists,
            old,
            def,
            pos,
        } => {
            let old_name = old.clone().unwrap_or_else(|| def.name.value.clone());
            let Some(i) = d.find(&old_name) else {
                if *if_exists {
                    env.warn(
                        "Note",
                        ErrorCode::BadField,
                        unknown_column(&old_name, &d.table).message(),
                    );
                    return Ok(());
                }
                return Err(unknown_column(&old_name, &d.table));
            };
            let new_name = &def.name.value;
            if !new_name.eq_ignore_ascii_case(&old_name) && d.find(new_name).is_some() {
                return Err(dup_column(new_name));
            }
            let mut keys = Keys::default();
            let col = column_def(env, def, i, &mut keys, d.default_collation)?;
            // The new definition replaces the column's own CHECK (MariaDB drops it; a JSON
            // column gets its json_valid() again from `column_def`).
            d.checks.retain(|c| {
                !c.column
                    .as_deref()
                    .is_some_and(|n| n.eq_ignore_ascii_case(&old_name))
            });
            let mut moved = d.cols.remove(i);
            if !same_type_but_collation(&moved.def.data_type, &col.data_type) {
                d.converts = true;
            }
            let mut col = col;
            // A primary key column stays NOT NULL whatever the new definition says (MariaDB
            // too: `MODIFY id BIGINT` on the key gives `id bigint(20) NOT NULL`).
            let in_pk = d.primary.as_ref().is_some_and(|k| {
                k.parts
                    .iter()
                    .any(|(c, _)| c.eq_ignore_ascii_case(&old_name))
            });
            if in_pk && col.nullable {
                col.nullable = false;
                if matches!(col.default, ColumnDefault::Value(Value::Null)) {
                    col.default = ColumnDefault::None;
                }
            }
            d.narrows |= moved.def.nullable && !col.nullable;
            moved.def = col;
            for k in d.keys_mut() {
                for (c, _) in &mut k.parts {
                    if c.eq_ignore_ascii_case(&old_name) {
                        *c = new_name.clone();
                    }
                }
            }
            rename_fk_columns(&mut d.fks, &old_name, new_name);
            rename_in_generated(d, &old_name, new_name);
            let at = match d.position(pos, i) {
                Ok(at) => at,
                Err(e) => {
                    d.cols.insert(i, moved);
                    return Err(e);
                }
            };
            d.cols.insert(at, moved);
            let cols = d.column_defs();
            d.add_keys(keys, &cols)?;
        }
        AlterOp::RenameColumn { old, new } => {
            let Some(i) = d.find(old) else {
                return Err(unknown_column(old, &d.table));
            };
            check_ident(new)?;
            if !new.eq_ignore_ascii_case(old) && d.find(new).is_some() {
                return Err(dup_column(new));
            }
            d.cols[i].def.name = new.clone();
            for k in d.keys_mut() {
                for (c, _) in &mut k.parts {
                    if c.eq_ignore_ascii_case(old) {
                        *c = new.clone();
                    }
                }
            }
            rename_fk_columns(&mut d.fks, old, new);
            rename_in_generated(d, old, new);
        }
        AlterOp::SetDefault { column, value } => {
            let Some(i) = d.find(column) else {
                return Err(unknown_column(column, &d.table));
            };
            let col = d.cols[i].def.clone();
            d.cols[i].def.default = column_default(env, &col, Some(value.as_ref()))?;
        }
        AlterOp::DropDefault { column } => {
            let Some(i) = d.find(column) else {
                return Err(unknown_column(column, &d.table));
            };
            let c = &mut d.cols[i].def;
            c.default = if c.nullable {
                ColumnDefault::Value(Value::Null)
            } else {
                ColumnDefault::None
            };
        }
        AlterOp::AddConstraint(tc) => {
            let cols = d.column_defs();
            let mut keys = Keys::default();
            table_constraints(std::slice::from_ref(tc.as_ref()), &cols, &mut keys)?;
            d.add_keys(keys, &cols)?;
        }
        AlterOp::DropPrimaryKey => {
            if d.primary.take().is_none() {
                return Err(cant_drop("INDEX", "PRIMARY"));
            }
            d.rekeys = true;
        }
        AlterOp::DropIndex { if_exists, name } => {
            if name.eq_ignore_ascii_case("PRIMARY") {
                return apply_op(env, d, new_db, &AlterOp::DropPrimaryKey);
            }
            match d.index_named(name) {
                Some(i) => {
                    d.indexes.remove(i);
                }
                None if *if_exists => env.warn(
                    "Note",
                    ErrorCode::CantDropFieldOrKey,
                    cant_drop("INDEX", name).message(),
                ),
                None => return Err(cant_drop("INDEX", name)),
            }
        }
        AlterOp::DropConstraint { if_exists, name } => match d.index_named(name) {
            _ if d
                .checks
                .iter()
                .any(|c| c.column.is_none() && c.name.eq_ignore_ascii_case(name)) =>
            {
                d.checks
                    .retain(|c| !(c.column.is_none() && c.name.eq_ignore_ascii_case(name)));
            }
            _ if d.fks.iter().any(|f| f.name.eq_ignore_ascii_case(name)) => {
                d.fks.retain(|f| !f.name.eq_ignore_ascii_case(name));
            }
            Some(i) if d.indexes[i].unique => {
                d.indexes.remove(i);
            }
            _ if *if_exists => env.warn(
                "Note",
                ErrorCode::CantDropFieldOrKey,
                cant_drop("CONSTRAINT", name).message(),
            ),
            _ => return Err(cant_drop("CONSTRAINT", name)),
        },
        AlterOp::DropForeignKey(name) => {
            match d.fks.iter().position(|f| f.name.eq_ignore_ascii_case(name)) {
                Some(i) => {
                    d.fks.remove(i);
                }
                None => return Err(cant_drop("FOREIGN KEY", name)),
            }
        }
        AlterOp::RenameIndex { old, new } => {
            let Some(i) = d.index_named(old) else {
                return Err(Error::new(
                    ErrorCode::KeyDoesNotExist,
                    format!("Key '{old}' doesn't exist in table '{}'", d.table),
                ));
            };
            if !old.eq_ignore_ascii_case(new)
                && (new.eq_ignore_ascii_case("PRIMARY") || d.index_named(new).is_some())
            {
                return Err(Error::new(
                    ErrorCode::DupKeyName,
                    format!("Duplicate key name '{new}'"),
                ));
            }
            d.indexes[i].name = new.clone();
        }
        AlterOp::RenameTo { db, table } => {
            check_ident(table)?;
            if let Some(db) = db {
                crate::sql::plan::check_table_priv(
                    env,
                    db,
                    table,
                    crate::accounts::Privs::CREATE | crate::accounts::Privs::INSERT,
                )?;
                *new_db = db.clone();
            }
            d.table = table.clone();
        }
        AlterOp::Engine(e) => d.engine = engine_name(e)?,
        AlterOp::Comment(c) => d.comment = (!c.is_empty()).then(|| c.clone()),
        AlterOp::AutoIncrement(n) => d.auto_increment = Some(*n),
        AlterOp::Charset {
            convert,
            charset,
            collate,
        } => charset_op(d, *convert, charset.as_deref(), collate.as_deref())?,
        AlterOp::Algorithm(a) => {
            if !matches!(
                a.as_str(),
                "DEFAULT" | "COPY" | "INPLACE" | "NOCOPY" | "INSTANT"
            ) {
                return Err(Error::parse(a, 1));
            }
            d.algorithm = Some(a.clone());
        }
        AlterOp::Lock(l) => {
            if !matches!(l.as_str(), "DEFAULT" | "NONE" | "SHARED" | "EXCLUSIVE") {
                return Err(Error::parse(l, 1));
            }
            d.lock = Some(l.clone());
        }
        AlterOp::Force => d.rekeys = true,
        AlterOp::Keys => {}
        AlterOp::Unsupported(what) => return Err(Error::unsupported(what)),
    }
    Ok(())
}

/// A renamed column keeps its place in the table's FOREIGN KEYs (child side).
fn rename_fk_columns(fks: &mut [crate::storage::ForeignKeyDef], old: &str, new: &str) {
    for f in fks {
        for c in &mut f.columns {
            if c.eq_ignore_ascii_case(old) {
                *c = new.to_string();
            }
        }
    }
}

/// `[DEFAULT] CHARSET / COLLATE` (the table default, for columns added later) and
/// `CONVERT TO CHARACTER SET` (every character column converted too; a TEXT grows to the
/// next TEXT type when the new character set needs more bytes for its characters, as
/// MariaDB does; values a utf8mb3 column cannot hold are 1366).
fn charset_op(
    d: &mut Draft,
    convert: bool,
    charset: Option<&str>,
    collate: Option<&str>,
) -> Result<()> {
    let cs = charset.map(charset_named).transpose()?;
    let coll = collate.map(collation_named).transpose()?;
    let Some(coll) = super::charset_and_collation(cs, coll)? else {
        return Ok(());
    };
    d.default_collation = coll;
    if !convert {
        return Ok(());
    }
    for c in &mut d.cols {
        let old = c.def.data_type.clone();
        if !(old.is_text() || old.is_enum_or_set()) {
            continue;
        }
        let mut new = with_collation(old.clone(), coll);
        if let DataType::Text { max_bytes, .. } = &mut new {
            let (from, to) = (old.collation().mbmaxlen(), coll.mbmaxlen());
            if to > from {
                let need = *max_bytes / from as u64 * to as u64;
                *max_bytes = [255u64, 65_535, 16_777_215, 4_294_967_295]
                    .into_iter()
                    .find(|&m| m >= need)
                    .unwrap_or(4_294_967_295);
            }
        }
        if !same_type_but_collation(&old, &new) {
            d.converts = true;
        }
        c.def.data_type = new;
    }
    Ok(())
}

/// Two types that differ at most in collation: values need no conversion (MariaDB changes
/// them in place).
/// So do a FLOAT's or DOUBLE's (M,D) alone: MariaDB keeps the stored values as they are.
fn same_type_but_collation(a: &DataType, b: &DataType) -> bool {
    let float_kind = |t: &DataType| match t {
        DataType::Float { unsigned, .. } => Some((false, *unsigned)),
        DataType::Double { unsigned, .. } => Some((true, *unsigned)),
        _ => None,
    };
    if let (Some(x), Some(y)) = (float_kind(a), float_kind(b)) {
        return x == y;
    }
    with_collation(a.storage(), Collation::Utf8mb4GeneralCi)
        == with_collation(b.storage(), Collation::Utf8mb4GeneralCi)
        && a.is_binary() == b.is_binary()
        && a.collation().charset() == b.collation().charset()
}

/// A BLOB / TEXT column in a key needs a prefix length (1170), also after MODIFY made it one.
fn check_lob_keys(def: &TableDef) -> Result<()> {
    for idx in def.primary_key.iter().chain(&def.indexes) {
        for p in &idx.parts {
            let c = &def.columns[p.column];
            let lob = matches!(c.data_type, DataType::Text { .. } | DataType::Blob { .. });
            if lob && p.prefix_len.is_none() {
                return Err(Error::new(
                    ErrorCode::BlobKeyWithoutLength,
                    format!(
                        "BLOB/TEXT column '{}' used in key specification without a key length",
                        c.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// ALGORITHM / LOCK against what the statement does (module doc), with MariaDB's errors.
/// `rows`: the table has rows, so the statement copies them under its exclusive metadata
/// lock: no LOCK=NONE / SHARED then (DML waits for the copy).
fn check_algorithm(d: &Draft, old: &TableDef, new: &TableDef, rows: bool) -> Result<()> {
    let adds_index = new.indexes.iter().any(|i| {
        !old.indexes
            .iter()
            .any(|o| o.name == i.name && o.parts == i.parts)
    });
    let not_supported = |what: String, reason: &str, instead: &str| {
        Error::new(
            ErrorCode::AlterOperationNotSupportedReason,
            format!("{what} is not supported. Reason: {reason}. Try {instead}"),
        )
    };
    let change = "Cannot change column type";
    match d.algorithm.as_deref() {
        Some(a @ ("INSTANT" | "INPLACE" | "NOCOPY")) if d.converts => {
            return Err(not_supported(
                format!("ALGORITHM={a}"),
                change,
                "ALGORITHM=COPY",
            ))
        }
        Some("INSTANT") if adds_index || d.rekeys => {
            return Err(not_supported(
                "ALGORITHM=INSTANT".into(),
                "ADD INDEX",
                "ALGORITHM=NOCOPY",
            ))
        }
        _ => {}
    }
    let reason = if d.converts {
        change
    } else {
        "COPY algorithm requires a lock"
    };
    match d.lock.as_deref() {
        Some("NONE") if rows || d.converts => {
            Err(not_supported("LOCK=NONE".into(), reason, "LOCK=SHARED"))
        }
        Some("SHARED") if rows || d.converts => Err(not_supported(
            "LOCK=SHARED".into(),
            reason,
            "LOCK=EXCLUSIVE",
        )),
        _ => Ok(()),
    }
}

/// The rows in the new shape, and the largest value of the AUTO_INCREMENT column.
fn convert_rows(
    env: &Env<'_>,
    d: &Draft,
    old: &TableDef,
    def: &TableDef,
    rows: Vec<Row>,
    named: (&str, &str),
) -> Result<(Vec<Row>, u64)> {
    let identity = d.cols.len() == rows.first().map_or(0, |r| r.len())
        && d.cols.iter().enumerate().all(|(i, c)| c.src == Some(i))
        && !d.converts
        && !d.narrows;
    let ai = def.auto_increment_column();
    let mut max_ai = 0u64;
    let note_ai = |v: &Value, max: &mut u64| match v {
        Value::Int(i) if *i > 0 => *max = (*max).max(*i as u64),
        Value::UInt(u) => *max = (*max).max(*u),
        Value::Double(f) if *f >= 1.0 => *max = (*max).max(*f as u64),
        _ => {}
    };
    if identity {
        if let Some(c) = ai {
            rows.iter().for_each(|r| note_ai(&r[c], &mut max_ai));
        }
        return Ok((rows, max_ai));
    }
    let warnings = RefCell::new(Vec::new());
    let mut out = Vec::with_capacity(rows.len());
    let mut next_ai = 0u64;
    for (n, row) in rows.iter().enumerate() {
        let sc = StoreCtx {
            strict: Strict::Mode(env),
            row: n as u64 + 1,
            warnings: &warnings,
            // Values are copied as stored (a TIMESTAMP stays UTC)…
            zone: None,
            table: None,
        };
        // … except into a TIMESTAMP from another type: that value is local time.
        let into_timestamp = StoreCtx {
            zone: env.zone(),
            ..sc
        };
        let mut new = Vec::with_capacity(d.cols.len());
        for (i, c) in d.cols.iter().enumerate() {
            let v = match c.src {
                Some(s) => {
                    let from = &old.columns[s].data_type;
                    let v = enum_into(from, &c.def.data_type, &row[s]);
                    match (is_timestamp(from), is_timestamp(&c.def.data_type)) {
                        (true, false) => convert_value(local_of(env, v), &c.def, &sc),
                        (false, true) => convert_value(v, &c.def, &into_timestamp),
                        _ => convert_value(v, &c.def, &sc),
                    }
                    .map_err(|e| {
                        match string_value_named(e.message(), named) {
                            Some(m) => Error::new(ErrorCode::TruncatedWrongValueForField, m),
                            None => e,
                        }
                    })?
                }
                None if c.def.auto_increment => {
                    next_ai += 1;
                    match c.def.data_type.is_unsigned() {
                        true => Value::UInt(next_ai),
                        false => Value::Int(next_ai as i64),
                    }
                }
                None => added_value(env, &c.def),
            };
            if Some(i) == ai {
                note_ai(&v, &mut max_ai);
            }
            new.push(v);
        }
        out.push(Arc::from(new));
        for mut w in warnings.borrow_mut().drain(..) {
            if let Some((code, message)) = alter_wording(w.code, &w.message) {
                w.code = code.number();
                w.message = message;
            } else if let Some(m) = string_value_named(&w.message, named) {
                w.message = m;
            }
            let mut all = env.warnings.borrow_mut();
            if all.len() < crate::sql::env::MAX_WARNINGS {
                all.push(w);
            }
        }
    }
    Ok((out, max_ai))
}

fn is_timestamp(t: &DataType) -> bool {
    matches!(t, DataType::Timestamp { .. })
}

/// A TIMESTAMP column's value (kept in UTC) as the session reads it: in its time zone.
/// Recovery replays the ALTER in the same zone (`log/ddl_session.rs`).
fn local_of(env: &Env<'_>, v: Value) -> Value {
    match (env.zone(), v) {
        (Some(z), Value::DateTime(dt)) if dt != crate::types::DateTime::default() => {
            Value::DateTime(z.to_local(&dt))
        }
        (_, v) => v,
    }
}

/// An ENUM / SET value going into a numeric column is its number (member position,
/// bitmask), as MariaDB's copy converts it; anything else as it is.
fn enum_into(from: &DataType, to: &DataType, v: &Value) -> Value {
    match v {
        Value::Bytes(b)
            if from.is_enum_or_set()
                && (to.is_integer()
                    || matches!(
                        to,
                        DataType::Decimal { .. }
                            | DataType::Float { .. }
                            | DataType::Double { .. }
                            | DataType::Year
                    )) =>
        {
            Value::Int(crate::types::enumset::number_of(from, b) as i64)
        }
        _ => v.clone(),
    }
}

/// One value into its new column: as an INSERT stores it; NULL into NOT NULL is 1265 (strict)
/// or the type's implicit default with a warning.
fn convert_value(v: Value, col: &ColumnDef, sc: &StoreCtx<'_>) -> Result<Value> {
    if v.is_null() {
        if col.nullable {
            return Ok(v);
        }
        let msg = format!("Data truncated for column '{}' at row {}", col.name, sc.row);
        if sc.strict.get() {
            return Err(Error::new(ErrorCode::WarnDataTruncated, msg));
        }
        sc.warnings
            .borrow_mut()
            .push(crate::session::state::Warning {
                level: "Warning",
                code: ErrorCode::WarnDataTruncated.number(),
                message: msg,
            });
        return Ok(convert::implicit_default(&col.data_type));
    }
    // A BIT value too wide stays 1406 "Data too long" in MariaDB's copy.
    if matches!(col.data_type, crate::types::DataType::Bit { .. }) {
        return convert::store_value(v, col, sc);
    }
    convert::store_value(v, col, sc).map_err(|e| {
        match alter_wording(e.code().number(), e.message()) {
            Some((code, message)) => Error::new(code, message),
            None => e,
        }
    })
}

/// A character that the new column's character set cannot hold (1366 "Incorrect string
/// value", utf8mb4 into utf8mb3): MariaDB names the column with its database and table.
fn string_value_named(message: &str, (db, table): (&str, &str)) -> Option<String> {
    let rest = message.strip_prefix("Incorrect string value: '")?;
    let (value, rest) = rest.rsplit_once("' for column '")?;
    let (col, row) = rest.rsplit_once("' at row ")?;
    Some(format!(
        "Incorrect string value: '{value}' for column `{}`.`{}`.`{}` at row {row}",
        db.replace('`', "``"),
        table.replace('`', "``"),
        col.replace('`', "``")
    ))
}

/// MariaDB's copy reports a string that is no number as 1292 "Truncated incorrect INTEGER
/// value: 'x'" (an INSERT says 1366 "Incorrect integer value: 'x' for column …").
fn alter_wording(code: u16, message: &str) -> Option<(ErrorCode, String)> {
    if code == ErrorCode::DataTooLong.number() {
        // "Data too long for column 'c' at row 3" → 1265 "Data truncated for …".
        let rest = message.strip_prefix("Data too long")?;
        return Some((
            ErrorCode::WarnDataTruncated,
            format!("Data truncated{rest}"),
        ));
    }
    if code != ErrorCode::TruncatedWrongValueForField.number()
        || message.starts_with("Incorrect string value")
    {
        return None;
    }
    let rest = message.strip_prefix("Incorrect ")?;
    let (what, rest) = rest.split_once(" value: '")?;
    let (value, _) = rest.rsplit_once("' for column ")?;
    Some((
        ErrorCode::TruncatedWrongValue,
        format!(
            "Truncated incorrect {} value: '{value}'",
            what.to_ascii_uppercase()
        ),
    ))
}

/// The added columns whose default is an expression (`default_expr.rs`).
fn added_default_exprs(d: &Draft) -> Vec<usize> {
    d.cols
        .iter()
        .enumerate()
        .filter(|(_, c)| c.src.is_none() && matches!(c.def.default, ColumnDefault::Expr(_)))
        .map(|(i, _)| i)
        .collect()
}

/// The expression defaults of the `added` columns, computed over each copied row (refused
/// when the value is not a function of the row: `default_expr.rs`).
fn fill_added_defaults(
    env: &Env<'_>,
    db: &str,
    def: &TableDef,
    added: &[usize],
    rows: Vec<Row>,
) -> Result<Vec<Row>> {
    for &c in added {
        crate::sql::exec::default_expr::check_fill(&def.columns[c])?;
    }
    let Some(defaults) = crate::sql::exec::default_expr::Defaults::of(env, db, def)? else {
        return Ok(rows);
    };
    let mut out = Vec::with_capacity(rows.len());
    for (n, r) in rows.into_iter().enumerate() {
        let mut v = r.to_vec();
        let mut given = vec![true; v.len()];
        for &c in added {
            given[c] = false;
        }
        let sc = StoreCtx {
            strict: Strict::Mode(env),
            row: n as u64 + 1,
            warnings: &env.warnings,
            zone: None,
            table: None,
        };
        defaults.fill(env, def, &mut v, &mut given, &sc)?;
        for &c in added {
            if v[c].is_null() && !def.columns[c].nullable {
                v[c] = convert::implicit_default(&def.columns[c].data_type);
            }
        }
        out.push(Arc::from(v));
    }
    Ok(out)
}

/// The value an added column takes in the existing rows: its default, or the type's implicit
/// default for a NOT NULL column without one.
fn added_value(env: &Env<'_>, col: &ColumnDef) -> Value {
    match &col.default {
        ColumnDefault::Value(v) => v.clone(),
        ColumnDefault::CurrentTimestamp => crate::sql::exec::dml::current_timestamp(col, env),
        // Computed over the new row after the copy (`fill_added_defaults`).
        ColumnDefault::Expr(_) => Value::Null,
        ColumnDefault::None if col.nullable => Value::Null,
        ColumnDefault::None => convert::implicit_default(&col.data_type),
    }
}

/// The generated columns after ALTER TABLE: (compute them again, count the rows as copied),
/// as MariaDB decides: a column may not change between VIRTUAL, STORED and ordinary except
/// ordinary to STORED and back (1907); a new STORED one, a changed STORED or indexed one, or
/// a STORED one made ordinary copies the rows (counted). Cohort also computes a new or changed
/// VIRTUAL one (it keeps its value in the row) without counting, as MariaDB adds it in place.
fn generated_changed(d: &Draft, old: &TableDef, def: &TableDef) -> Result<(bool, bool)> {
    if !def.has_generated() && !old.has_generated() {
        return Ok((false, false));
    }
    let mut recompute = def.has_generated()
        && (old.columns.len() != def.columns.len()
            || d.cols.iter().enumerate().any(|(i, c)| c.src != Some(i)));
    let mut count = false;
    for (i, (dc, c)) in d.cols.iter().zip(&def.columns).enumerate() {
        let Some(s) = dc.src else {
            if let Some(g) = &c.generated {
                recompute = true;
                count |= g.stored;
            }
            continue;
        };
        let o = &old.columns[s];
        match (&o.generated, &c.generated) {
            (None, None) => {}
            (None, Some(g)) | (Some(g), None) if !g.stored => {
                return Err(Error::new(
                    ErrorCode::UnsupportedActionOnGeneratedColumn,
                    "This is not yet supported for generated columns",
                ))
            }
            (Some(a), Some(b)) if a.stored != b.stored => {
                return Err(Error::new(
                    ErrorCode::UnsupportedActionOnGeneratedColumn,
                    "This is not yet supported for generated columns",
                ))
            }
            (None, Some(_)) => {
                recompute = true;
                count = true;
            }
            (Some(_), None) => count = true,
            (Some(a), Some(b)) => {
                // The old expression with the renames of this ALTER: a rename alone is no
                // change.
                let mut renamed = a.expr.clone();
                for (x, y) in d.cols.iter().zip(&def.columns) {
                    if let Some(s) = x.src {
                        if old.columns[s].name != y.name {
                            renamed = crate::sql::exec::gencol::rename_column(
                                &renamed,
                                &old.columns[s].name,
                                &y.name,
                            );
                        }
                    }
                }
                if renamed != b.expr || o.data_type != c.data_type {
                    recompute = true;
                    let indexed = def
                        .indexes
                        .iter()
                        .any(|x| x.parts.iter().any(|p| p.column == i));
                    count |= b.stored || indexed;
                }
            }
        }
    }
    Ok((recompute, count))
}

/// A renamed column, in the expressions of the generated columns and defaults that read it.
fn rename_in_generated(d: &mut Draft, old: &str, new: &str) {
    if old == new {
        return;
    }
    for c in &mut d.cols {
        if let Some(g) = &mut c.def.generated {
            g.expr = crate::sql::exec::gencol::rename_column(&g.expr, old, new);
        }
        // MariaDB follows the rename in an expression default too.
        if let ColumnDefault::Expr(e) = &mut c.def.default {
            *e = crate::sql::exec::gencol::rename_column(e, old, new);
        }
    }
}
