//! information_schema's schema objects: SCHEMATA, TABLES, COLUMNS, STATISTICS,
//! KEY_COLUMN_USAGE, TABLE_CONSTRAINTS, REFERENTIAL_CONSTRAINTS, CHECK_CONSTRAINTS, from the
//! catalog (FOREIGN KEYs by name, as InnoDB lists them). A user sees the databases it may
//! use (as MariaDB shows only what the user has some privilege on).

use super::{opt, text};
use crate::error::Result;
use crate::sql::env::Env;
use crate::sql::exec::show::{collation_name, default_text, extra_text, key_text, type_text};
use crate::storage::{ColumnDefault, TableDef};
use crate::types::{Collation, DataType, Value};
use std::sync::Arc;

/// The databases the statement's user may see, sorted.
fn visible_databases(env: &Env<'_>) -> Vec<String> {
    env.ctx
        .engine
        .databases()
        .into_iter()
        .filter(|db| {
            env.ctx
                .accounts
                .can_access_db(env.sess.user, env.sess.host, db)
        })
        .collect()
}

/// Every visible table with its definition and row count, by database and name.
fn visible_tables(env: &Env<'_>) -> Vec<(String, Arc<crate::storage::Table>, Arc<TableDef>)> {
    let mut out = Vec::new();
    let e = env.ctx.accounts.effective(env.sess.user, env.sess.host);
    for db in visible_databases(env) {
        for name in env.ctx.engine.tables(&db).unwrap_or_default() {
            if !e.any_on_table(&db, &name) {
                continue;
            }
            if let Ok(t) = env.ctx.engine.table(&db, &name) {
                let def = t.def();
                out.push((db.clone(), t, def));
            }
        }
    }
    out
}

pub(super) fn schemata(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut dbs = visible_databases(env);
    dbs.push("information_schema".to_string());
    dbs.sort();
    Ok(dbs
        .iter()
        .map(|db| {
            let (cs, coll) = match db.as_str() {
                "information_schema" => ("utf8mb3", "utf8mb3_general_ci"),
                _ => {
                    let c = env.ctx.engine.database_collation(db);
                    (c.charset().name(), c.name())
                }
            };
            vec![
                text("def"),
                text(db),
                text(cs),
                text(coll),
                Value::Null,
                text(""),
            ]
        })
        .collect())
}

pub(super) fn tables(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for (db, t, def) in visible_tables(env) {
        let n = t.approx_rows();
        let ai = def
            .auto_increment_column()
            .map_or(Value::Null, |_| Value::UInt(t.auto_increment_peek()));
        rows.push(vec![
            text("def"),
            text(&db),
            text(&def.name),
            text("BASE TABLE"),
            text(&def.engine),
            Value::UInt(10),
            text("Dynamic"),
            Value::UInt(n),
            Value::UInt(data_length(&def, n).checked_div(n).unwrap_or(0)),
            Value::UInt(data_length(&def, n)),
            Value::UInt(0),
            Value::UInt(0),
            Value::UInt(0),
            ai,
            Value::Null,
            Value::Null,
            Value::Null,
            text(def.default_collation.name()),
            Value::Null,
            text(""),
            text(def.comment.as_deref().unwrap_or("")),
            Value::UInt(0),
            text("N"),
        ]);
    }
    let e = env.ctx.accounts.effective(env.sess.user, env.sess.host);
    for db in visible_databases(env) {
        for v in env.ctx.engine.views_in(&db) {
            if !e.any_on_table(&db, &v.name) {
                continue;
            }
            let mut row = vec![text("def"), text(&db), text(&v.name), text("VIEW")];
            row.extend(std::iter::repeat_n(Value::Null, 16));
            row.extend([text("VIEW"), Value::Null, Value::Null]);
            rows.push(row);
        }
    }
    for name in super::names("information_schema") {
        rows.push(system_table_row("information_schema", &name));
    }
    Ok(rows)
}

/// information_schema.VIEWS: the views of the databases the user sees, their query as
/// written (MariaDB shows the text it rewrote).
pub(super) fn views(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    let e = env.ctx.accounts.effective(env.sess.user, env.sess.host);
    for db in visible_databases(env) {
        for v in env.ctx.engine.views_in(&db) {
            if !e.any_on_table(&db, &v.name) {
                continue;
            }
            rows.push(vec![
                text("def"),
                text(&db),
                text(&v.name),
                text(&v.query),
                text(&v.check_option),
                text("NO"),
                text(&format!("{}@{}", v.definer_user, v.definer_host)),
                text(&v.security),
                text("utf8mb4"),
                text("utf8mb4_general_ci"),
                text(&v.algorithm),
            ]);
        }
    }
    Ok(rows)
}

/// A system view's TABLES row (`SYSTEM VIEW`, no counts).
fn system_table_row(db: &str, name: &str) -> Vec<Value> {
    let mut row = vec![
        text("def"),
        text(db),
        text(name),
        text("SYSTEM VIEW"),
        text("MEMORY"),
        Value::UInt(11),
        text("Fixed"),
    ];
    row.extend(std::iter::repeat_n(Value::Null, 10));
    row.extend([
        text("utf8mb3_general_ci"),
        Value::Null,
        text(""),
        text(""),
        Value::Null,
        text("Y"),
    ]);
    row
}

/// An estimate of a table's data bytes: rows times the declared width of a row (strings at
/// their declared length), as MariaDB's numbers are estimates too.
pub(crate) fn data_length(def: &TableDef, rows: u64) -> u64 {
    let width: u64 = def
        .columns
        .iter()
        .map(|c| match &c.data_type {
            DataType::TinyInt { .. } => 1,
            DataType::SmallInt { .. } => 2,
            DataType::MediumInt { .. } => 3,
            DataType::Int { .. } | DataType::Float { .. } | DataType::Date => 4,
            DataType::BigInt { .. } | DataType::Double { .. } => 8,
            DataType::Decimal { precision, .. } => u64::from(*precision) / 2 + 1,
            DataType::Char { len, .. } | DataType::VarChar { len, .. } => u64::from(*len) + 2,
            DataType::Binary { len } | DataType::VarBinary { len } => u64::from(*len) + 2,
            DataType::Text { .. } | DataType::Blob { .. } => 20,
            _ => 8,
        })
        .sum();
    rows * (width + 20)
}

/// (DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION,
/// NUMERIC_SCALE, DATETIME_PRECISION, CHARACTER_SET_NAME, COLLATION_NAME) of a column type.
fn type_facts(dt: &DataType) -> [Value; 8] {
    let base = type_text(dt);
    let name = base
        .split(['(', ' '])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let u = |n: u64| Value::UInt(n);
    let chars = |len: u64, c: &Collation| match c {
        Collation::Binary => (u(len), u(len), Value::Null, Value::Null),
        other => (
            u(len),
            u(len * u64::from(other.mbmaxlen())),
            text(other.charset().name()),
            text(collation_name(*other)),
        ),
    };
    let none = Value::Null;
    let (max, octet, cs, coll) = match dt {
        DataType::Char { len, collation } | DataType::VarChar { len, collation } => {
            chars(u64::from(*len), collation)
        }
        DataType::Text {
            max_bytes,
            collation,
        } => {
            let (_, _, cs, coll) = chars(0, collation);
            // MariaDB gives a TEXT's byte limit as its character length too.
            (u(*max_bytes), u(*max_bytes), cs, coll)
        }
        DataType::Binary { len } | DataType::VarBinary { len } => (
            u(u64::from(*len)),
            u(u64::from(*len)),
            none.clone(),
            none.clone(),
        ),
        DataType::Blob { max_bytes } => (u(*max_bytes), u(*max_bytes), none.clone(), none.clone()),
        DataType::Enum { collation, .. } | DataType::Set { collation, .. } => {
            chars(u64::from(crate::types::enumset::max_chars(dt)), collation)
        }
        _ => (none.clone(), none.clone(), none.clone(), none.clone()),
    };
    let (precision, scale) = match dt {
        DataType::TinyInt { .. } => (u(3), u(0)),
        DataType::SmallInt { .. } => (u(5), u(0)),
        DataType::MediumInt { unsigned, .. } => (u(if *unsigned { 8 } else { 7 }), u(0)),
        DataType::Int { .. } => (u(10), u(0)),
        DataType::BigInt { unsigned, .. } => (u(if *unsigned { 20 } else { 19 }), u(0)),
        DataType::Decimal { precision, scale } => (u(u64::from(*precision)), u(u64::from(*scale))),
        DataType::Float {
            m_d: Some((m, d)), ..
        }
        | DataType::Double {
            m_d: Some((m, d)), ..
        } => (u(u64::from(*m)), u(u64::from(*d))),
        DataType::Float { .. } => (u(12), none.clone()),
        DataType::Double { .. } => (u(22), none.clone()),
        DataType::Bit { width } => (u(u64::from(*width)), none.clone()),
        _ => (none.clone(), none.clone()),
    };
    let datetime = match dt {
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => u(u64::from(*fsp)),
        DataType::Time { fsp } => u(u64::from(*fsp)),
        _ => none,
    };
    [
        text(&name),
        max,
        octet,
        precision,
        scale,
        datetime,
        cs,
        coll,
    ]
}

/// COLUMN_DEFAULT as MariaDB 10.11 shows it: quoted strings, `NULL` for a nullable column's
/// NULL default, SQL NULL for no default. A TIMESTAMP default (kept in UTC) is shown in the
/// session's time zone.
fn column_default(col: &crate::storage::ColumnDef, env: &Env<'_>) -> Value {
    let mut local = None;
    if let (DataType::Timestamp { .. }, ColumnDefault::Value(Value::DateTime(dt)), Some(z)) =
        (&col.data_type, &col.default, env.zone())
    {
        if *dt != crate::types::DateTime::default() {
            let mut c = col.clone();
            c.default = ColumnDefault::Value(Value::DateTime(z.to_local(dt)));
            local = Some(c);
        }
    }
    let col = local.as_ref().unwrap_or(col);
    match &col.default {
        ColumnDefault::None => Value::Null,
        ColumnDefault::Value(Value::Null) => text("NULL"),
        ColumnDefault::Value(
            Value::Bytes(_) | Value::Time(_) | Value::Date(_) | Value::DateTime(_),
        ) => {
            let t = default_text(col).unwrap_or_default();
            text(&format!("'{}'", t.replace('\'', "''")))
        }
        ColumnDefault::Value(_) => opt(default_text(col)),
        ColumnDefault::CurrentTimestamp => {
            text(&crate::sql::exec::show::current_timestamp_text(col))
        }
        ColumnDefault::Expr(e) => text(e),
    }
}

/// A view column's COLUMN_DEFAULT as MariaDB gives it: the default of the table column it
/// shows (an AUTO_INCREMENT column's: 0); for an expression, the type's zero when NOT NULL
/// ('0', '').
fn view_defaults(
    env: &Env<'_>,
    cols: &[cohort_protocol::column::ColumnDefinition],
    def: &mut TableDef,
) {
    for (c, col) in cols.iter().zip(def.columns.iter_mut()) {
        let base = (!c.org_table.is_empty() && !c.org_name.is_empty())
            .then(|| env.ctx.engine.table(&c.schema, &c.org_table).ok())
            .flatten()
            .and_then(|t| {
                let d = t.def();
                d.column_index(&c.org_name)
                    .map(|i| (d.columns[i].default.clone(), d.columns[i].auto_increment))
            });
        let zero = || crate::sql::exec::ddl::create_select::zero_default(&col.data_type);
        col.default = match base {
            Some((_, true)) => zero(),
            Some((d, false)) => d,
            None if !col.nullable => zero(),
            None => col.default.clone(),
        };
    }
}

pub(super) fn columns(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    let mut defs: Vec<(String, Arc<TableDef>)> = visible_tables(env)
        .into_iter()
        .map(|(db, _, def)| (db, def))
        .collect();
    // A view's columns are those of its query, typed as CREATE TABLE … SELECT would type
    // them (MariaDB lists them too; mariadb-dump --xml and ORMs' reflection read them). A
    // view that no longer plans (a table gone) has no rows.
    if env.ctx.engine.has_views() {
        let e = env.ctx.accounts.effective(env.sess.user, env.sess.host);
        for db in visible_databases(env) {
            for v in env.ctx.engine.views_in(&db) {
                if !e.any_on_table(&db, &v.name) {
                    continue;
                }
                // (MariaDB warns 1356 about a broken view only when the query's WHERE picks
                // it by name; no warning here either way.)
                let Ok(mut plan) = crate::sql::exec::ddl::view::plan_view(env, &db, &v) else {
                    continue;
                };
                for (c, n) in plan.columns.iter_mut().zip(&v.columns) {
                    c.name = n.clone();
                }
                if let Ok(mut def) = crate::sql::exec::ddl::create_select::table_def(&v.name, &plan)
                {
                    view_defaults(env, &plan.columns, &mut def);
                    defs.push((db.clone(), Arc::new(def)));
                }
            }
        }
    }
    for (db, def) in defs {
        for (i, col) in def.columns.iter().enumerate() {
            let mut row = vec![
                text("def"),
                text(&db),
                text(&def.name),
                text(&col.name),
                Value::UInt(i as u64 + 1),
                column_default(col, env),
                text(if col.nullable { "YES" } else { "NO" }),
            ];
            row.extend(type_facts(&col.data_type));
            row.extend([
                text(&type_text(&col.data_type)),
                text(key_text(&def, i)),
                text(&extra_text(col)),
                text("select,insert,update,references"),
                text(col.comment.as_deref().unwrap_or("")),
                text(if col.generated.is_some() {
                    "ALWAYS"
                } else {
                    "NEVER"
                }),
                match &col.generated {
                    Some(g) => text(&g.expr),
                    None => Value::Null,
                },
            ]);
            rows.push(row);
        }
    }
    Ok(rows)
}

/// Each index of a table: (name, unique, parts).
fn indexes(def: &TableDef) -> Vec<(&str, bool, &[crate::storage::IndexPart])> {
    indexes_at(def).into_iter().map(|(_, i)| i).collect()
}

/// [`indexes`] with each index's position for the statistics (None: the primary key).
#[allow(clippy::type_complexity)]
fn indexes_at(def: &TableDef) -> Vec<(Option<usize>, (&str, bool, &[crate::storage::IndexPart]))> {
    def.primary_key
        .iter()
        .map(|i| (None, i))
        .chain(def.indexes.iter().enumerate().map(|(n, i)| (Some(n), i)))
        .map(|(n, i)| (n, (i.name.as_str(), i.unique, i.parts.as_slice())))
        .collect()
}

pub(super) fn statistics(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for (db, t, def) in visible_tables(env) {
        let stats = t.stats();
        for (which, (name, unique, parts)) in indexes_at(&def) {
            for (k, part) in parts.iter().enumerate() {
                let col = &def.columns[part.column];
                rows.push(vec![
                    text("def"),
                    text(&db),
                    text(&def.name),
                    Value::Int(i64::from(!unique)),
                    text(&db),
                    text(name),
                    Value::Int(k as i64 + 1),
                    text(&col.name),
                    text("A"),
                    Value::Int(stats.cardinality(which, k + 1) as i64),
                    part.prefix_len
                        .map_or(Value::Null, |n| Value::Int(i64::from(n))),
                    Value::Null,
                    text(if col.nullable { "YES" } else { "" }),
                    text("BTREE"),
                    text(""),
                    text(""),
                    text("NO"),
                ]);
            }
        }
    }
    Ok(rows)
}

/// PRIMARY KEY and UNIQUE constraints.
fn constraints(def: &TableDef) -> Vec<(&str, &'static str, &[crate::storage::IndexPart])> {
    indexes(def)
        .into_iter()
        .filter(|(_, unique, _)| *unique)
        .map(|(name, _, parts)| {
            let kind = if name == "PRIMARY" {
                "PRIMARY KEY"
            } else {
                "UNIQUE"
            };
            (name, kind, parts)
        })
        .collect()
}

pub(super) fn key_column_usage(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for (db, _, def) in visible_tables(env) {
        for (name, _, parts) in constraints(&def) {
            for (k, part) in parts.iter().enumerate() {
                rows.push(vec![
                    text("def"),
                    text(&db),
                    text(name),
                    text("def"),
                    text(&db),
                    text(&def.name),
                    text(&def.columns[part.column].name),
                    Value::Int(k as i64 + 1),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ]);
            }
        }
        for fk in foreign_keys(&def) {
            for (k, (c, p)) in fk.columns.iter().zip(&fk.parent_columns).enumerate() {
                rows.push(vec![
                    text("def"),
                    text(&db),
                    text(&fk.name),
                    text("def"),
                    text(&db),
                    text(&def.name),
                    text(c),
                    Value::Int(k as i64 + 1),
                    Value::Int(k as i64 + 1),
                    text(&fk.parent_db),
                    text(&fk.parent_table),
                    text(p),
                ]);
            }
        }
    }
    Ok(rows)
}

/// A table's FOREIGN KEYs in name order.
fn foreign_keys(def: &TableDef) -> Vec<&crate::storage::ForeignKeyDef> {
    let mut v: Vec<_> = def.foreign_keys.iter().collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

pub(super) fn referential_constraints(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for (db, _, def) in visible_tables(env) {
        for fk in foreign_keys(&def) {
            // The parent's index the constraint uses.
            let unique = env
                .ctx
                .engine
                .table(&fk.parent_db, &fk.parent_table)
                .ok()
                .and_then(|p| {
                    let pdef = p.def();
                    crate::sql::exec::ddl::fk::index_for(&pdef, &fk.parent_columns).map(|i| match i
                    {
                        None => "PRIMARY".to_string(),
                        Some(i) => pdef.indexes[i].name.clone(),
                    })
                });
            rows.push(vec![
                text("def"),
                text(&db),
                text(&fk.name),
                text("def"),
                text(&fk.parent_db),
                opt(unique),
                text("NONE"),
                text(fk.on_update.sql()),
                text(fk.on_delete.sql()),
                text(&def.name),
                text(&fk.parent_table),
            ]);
        }
    }
    Ok(rows)
}

pub(super) fn check_constraints(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for (db, _, def) in visible_tables(env) {
        for c in &def.checks {
            rows.push(vec![
                text("def"),
                text(&db),
                text(&def.name),
                text(&c.name),
                text(if c.column.is_some() {
                    "Column"
                } else {
                    "Table"
                }),
                text(&c.expr),
            ]);
        }
    }
    Ok(rows)
}

pub(super) fn table_constraints(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for (db, _, def) in visible_tables(env) {
        for (name, kind, _) in constraints(&def) {
            rows.push(vec![
                text("def"),
                text(&db),
                text(name),
                text(&db),
                text(&def.name),
                text(kind),
            ]);
        }
        for c in &def.checks {
            rows.push(vec![
                text("def"),
                text(&db),
                text(&c.name),
                text(&db),
                text(&def.name),
                text("CHECK"),
            ]);
        }
        for fk in foreign_keys(&def) {
            rows.push(vec![
                text("def"),
                text(&db),
                text(&fk.name),
                text(&db),
                text(&def.name),
                text("FOREIGN KEY"),
            ]);
        }
    }
    Ok(rows)
}
