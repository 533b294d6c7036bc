//! `CREATE TABLE t [AS] SELECT …` (any query expression: set operations, WITH, derived tables).
//!
//! The query is bound first (its result columns give the new table's columns: each result
//! type becomes the column type MariaDB derives, [`column_type`]), then the table is created
//! under the DDL locks, then the rows are inserted by the ordinary INSERT … SELECT path in the
//! statement's transaction, and the transaction is committed (a DDL statement ends it). The
//! binlog gets what MariaDB writes in ROW format: the table's CREATE TABLE statement as
//! generated (`SHOW CREATE TABLE`'s text, not the statement's, which a replica would run
//! again), then the row events. The CREATE is logged only once the rows are in; if inserting
//! fails, the table is dropped again and nothing is logged, as MariaDB leaves no table.
//!
//! Columns and keys declared before the query (`CREATE TABLE t (id INT PRIMARY KEY) SELECT …`)
//! are merged with the query's columns as MariaDB does (`ddl::table_def_merged`): the declared
//! columns the query does not produce come first and take their defaults, a query column of a
//! declared name takes the declared definition.
//!
//! Table options are those of CREATE TABLE (`ddl::apply_table_options`). `IF NOT EXISTS` on a
//! table or view that exists is Note 1050 and inserts nothing; `OR REPLACE` drops the table
//! of the name first, as a DDL statement of its own (`sql::drop_for_replace`), so a failed
//! query leaves neither table, as in MariaDB 10.11. Refused (1235): `LIKE`.
//!
//! `CREATE TEMPORARY TABLE t SELECT …` makes a session's temporary table the same way, without
//! DDL locks, commit or logging ([`run_temporary`], `temporary.rs`).

use crate::error::{Error, Result};
use crate::session::state::{ServerContext, SessionState};
use crate::sql::bind::decimal_precision;
use crate::sql::bind::sqltype::{Class, SqlType, FLOATING_POINT_DECIMALS};
use crate::sql::env::{Env, SessView};
use crate::sql::exec::dml::{InsertKind, InsertPlan, InsertSource};
use crate::sql::exec::query;
use crate::sql::parse::Parsed;
use crate::sql::{plan, QueryResult};
use crate::storage::{ColumnDef, ColumnDefault, TableDef};
use crate::types::IntDisplay;
use crate::types::{Collation, DataType, Decimal, Value};
use cohort_protocol::column::ColumnType;
use cohort_protocol::ColumnDefinition;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use std::sync::Arc;

fn unsupported(what: &str) -> Error {
    Error::unsupported(what)
}

/// Run `CREATE TABLE … SELECT`.
pub fn run(
    ctx: &ServerContext,
    sess: &mut SessionState,
    ct: &ast::CreateTable,
    parsed: &Parsed,
    prev: usize,
) -> Result<QueryResult> {
    let Some(q) = &ct.query else {
        return Err(Error::internal("CREATE TABLE … SELECT without a query"));
    };
    if ct.like.is_some() {
        return Err(unsupported("CREATE TABLE … LIKE … SELECT"));
    }
    let declared = !ct.columns.is_empty() || !ct.constraints.is_empty();
    let (db, name) = plan::split_name(&ct.name, sess.db.as_deref())?;
    // Bind the query and derive the table from its result columns.
    let (qplan, def, positions) = {
        let env = Env::new(ctx, SessView::of(sess, prev), &[]).with_set_aside(&parsed.set_aside);
        // The query may hold subqueries wherever a SELECT may (`bind/subquery.rs`).
        env.subq.allowed.set(true);
        // CREATE and INSERT on the new table (MariaDB names both when both are missing).
        let need = crate::accounts::Privs::CREATE | crate::accounts::Privs::INSERT;
        plan::check_table_priv(&env, &db, &name, need)?;
        crate::sql::parse::surface::top_query(q)?;
        let mut qplan = query::plan_query(&env, &parsed.params, q, &[], None)?;
        if crate::sql::parse::surface::calc_found_rows(q) {
            crate::sql::exec::found_rows::count_query(&mut qplan);
        }
        let selected = table_def(&name, &qplan)?;
        let (mut def, positions) = if declared {
            super::table_def_merged(&env, ct, &db, &name, selected.columns)?
        } else {
            let all = (0..selected.columns.len()).collect();
            (selected, all)
        };
        super::apply_table_options(&env, ct, &mut def)?;
        (qplan, def, positions)
    };
    if ct.if_not_exists && !ct.temporary && exists(ctx, &db, &name) {
        sess.warnings.push(crate::session::Warning {
            level: "Note",
            code: ErrorCode::TableExists.number(),
            message: format!("Table '{name}' already exists"),
        });
        return Ok(QueryResult::ok());
    }
    if ct.or_replace && ct.temporary {
        let old = SessView::of(sess, prev).temp_table(&db, &name).cloned();
        if let Some(old) = old {
            let reads = qplan
                .table_refs()
                .iter()
                .any(|t| Arc::ptr_eq(&t.table, &old));
            if reads {
                // MariaDB: the temporary table cannot be opened twice.
                return Err(Error::new(
                    ErrorCode::CantReopenTable,
                    format!("Can't reopen table: '{name}'"),
                ));
            }
        }
        super::temporary::drop_named(sess, &db, &name);
    } else if ct.or_replace {
        if let Ok(old) = ctx.engine.table(&db, &name) {
            let reads = qplan
                .table_refs()
                .iter()
                .any(|t| Arc::ptr_eq(&t.table, &old));
            if reads {
                return Err(Error::new(
                    ErrorCode::UpdateTableUsed,
                    format!("Table '{name}' is specified twice, both as a target for 'CREATE' and as a separate source for data"),
                ));
            }
        }
        crate::sql::drop_for_replace(ctx, sess, prev, &ct.name)?;
    }
    if ct.temporary {
        if ct.if_not_exists && SessView::of(sess, prev).temp_table(&db, &name).is_some() {
            // MariaDB: a Note, the existing table kept and nothing inserted.
            sess.warnings.push(crate::session::Warning {
                level: "Note",
                code: ErrorCode::TableExists.number(),
                message: format!("Table '{name}' already exists"),
            });
            return Ok(QueryResult::ok());
        }
        return run_temporary(ctx, sess, prev, &db, &name, def, (qplan, positions));
    }
    let text = qualified_create_text(&def, &db);
    let targets = vec![(db.clone(), name.clone())];
    // Create it (not logged yet: see the module doc).
    let created_def = def.clone();
    crate::sql::ddl(ctx, sess, targets.clone(), prev, None, &[], |env| {
        if plan::is_system_schema(&db) {
            return Err(unsupported(&format!("creating tables in {db}")));
        }
        env.ctx
            .engine
            .create_table(&db, created_def, false)
            .map(|_| ())
    })?;
    let inserted = insert_rows(ctx, sess, prev, &db, &name, (qplan, positions));
    let logged = inserted.and_then(|r| {
        crate::session::commit::log_ddl(ctx, sess, Some(&db), &text, None)?;
        sess.commit(ctx)?;
        Ok(r)
    });
    match logged {
        Ok(r) => Ok(r),
        Err(e) => {
            sess.rollback(ctx);
            // Leave no table behind (unlogged, like its creation).
            let _ = crate::sql::ddl(ctx, sess, targets, prev, None, &[], |env| {
                env.ctx.engine.drop_table(&db, &name, true).map(|_| ())
            });
            Err(e)
        }
    }
}

/// A base table or a view of the name exists.
fn exists(ctx: &ServerContext, db: &str, name: &str) -> bool {
    ctx.engine.table(db, name).is_ok() || ctx.engine.view(db, name).is_some()
}

/// `CREATE TEMPORARY TABLE t SELECT …`: the query was bound before the table exists (so it
/// reads a base table the new one will shadow); the table joins the session's temporary
/// tables and the rows go in inside the session's transaction, without a commit and
/// unlogged (`temporary.rs`). If inserting fails the table is forgotten again.
fn run_temporary(
    ctx: &ServerContext,
    sess: &mut SessionState,
    prev: usize,
    db: &str,
    name: &str,
    def: TableDef,
    qplan: (query::QueryPlan, Vec<usize>),
) -> Result<QueryResult> {
    if plan::is_system_schema(db) {
        return Err(unsupported(&format!("creating tables in {db}")));
    }
    if SessView::of(sess, prev).temp_table(db, name).is_some() {
        return Err(Error::new(
            ErrorCode::TableExists,
            format!("Table '{name}' already exists"),
        ));
    }
    let table = ctx.engine.create_temporary_table(db, def)?;
    sess.temp_tables.push(table.clone());
    sess.track.state_changed();
    let r = insert_rows(ctx, sess, prev, db, name, qplan);
    if r.is_err() {
        sess.temp_tables
            .retain(|t| !std::sync::Arc::ptr_eq(t, &table));
        table.drop_temporary();
    }
    r
}

/// Insert the query's rows into the new table through INSERT … SELECT, into the columns at
/// the given positions.
fn insert_rows(
    ctx: &ServerContext,
    sess: &mut SessionState,
    prev: usize,
    db: &str,
    name: &str,
    (qplan, columns): (query::QueryPlan, Vec<usize>),
) -> Result<QueryResult> {
    let table = {
        let env = Env::new(ctx, SessView::of(sess, prev), &[]);
        plan::resolve_target(&env, db, name, None, "INSERT")?
    };
    let iplan = InsertPlan {
        table,
        kind: InsertKind::Insert,
        columns,
        source: InsertSource::Query(Box::new(qplan)),
        on_dup: Vec::new(),
        subq: None,
        returning: None,
        view_version: None,
        view_check: None,
    };
    crate::sql::run_dml(ctx, sess, &[], prev, db, |env, txn| {
        crate::sql::exec::dml::run_insert(&iplan, env, txn)
    })
}

/// `SHOW CREATE TABLE`'s text, with the database named (the log's default database may be
/// another).
fn qualified_create_text(def: &TableDef, db: &str) -> String {
    let text = crate::sql::exec::show::create_table_text(def, 1, db);
    let plain = format!("CREATE TABLE `{}`", def.name.replace('`', "``"));
    match text.strip_prefix(&plain) {
        Some(rest) => format!(
            "CREATE TABLE `{}`.`{}`{rest}",
            db.replace('`', "``"),
            def.name.replace('`', "``")
        ),
        None => text,
    }
}

/// The new table: one column per result column, named as the result column.
pub(in crate::sql) fn table_def(name: &str, q: &query::QueryPlan) -> Result<TableDef> {
    // A set operation's NOT NULL columns come from MariaDB's result table, with a zero default.
    let set_op = match &q.node {
        query::Node::SetOp(_) => true,
        query::Node::Sorted(s) => matches!(s.input.node, query::Node::SetOp(_)),
        _ => false,
    };
    let mut columns: Vec<ColumnDef> = Vec::with_capacity(q.columns.len());
    for (c, t) in q.columns.iter().zip(&q.types) {
        if columns.iter().any(|x| x.name.eq_ignore_ascii_case(&c.name)) {
            return Err(Error::new(
                ErrorCode::DupFieldName,
                format!("Duplicate column name '{}'", c.name),
            ));
        }
        let nullable = t.nullable || t.class == Class::Null;
        let data_type = column_type(t, c);
        let default = match (nullable, set_op) {
            (true, _) => ColumnDefault::Value(Value::Null),
            (false, true) => zero_default(&data_type),
            (false, false) => ColumnDefault::None,
        };
        columns.push(ColumnDef {
            name: c.name.clone(),
            data_type,
            nullable,
            default,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: None,
            generated: None,
        });
    }
    Ok(TableDef {
        name: name.to_string(),
        columns,
        primary_key: None,
        indexes: Vec::new(),
        engine: "InnoDB".into(),
        auto_increment_start: 1,
        comment: None,
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        default_collation: crate::types::Collation::Utf8mb4GeneralCi,
    })
}

/// The zero value of a column type as its default (none for dates).
pub(in crate::sql) fn zero_default(dt: &DataType) -> ColumnDefault {
    match dt {
        DataType::TinyInt { .. }
        | DataType::SmallInt { .. }
        | DataType::MediumInt { .. }
        | DataType::Int { .. }
        | DataType::BigInt { .. } => ColumnDefault::Value(Value::Int(0)),
        DataType::Decimal { scale, .. } => ColumnDefault::Value(Value::Decimal(
            Decimal::ZERO.rescale(*scale).unwrap_or(Decimal::ZERO),
        )),
        DataType::Float { .. } | DataType::Double { .. } => {
            ColumnDefault::Value(Value::Double(0.0))
        }
        DataType::Char { .. }
        | DataType::VarChar { .. }
        | DataType::Binary { .. }
        | DataType::VarBinary { .. } => ColumnDefault::Value(Value::Bytes(Vec::new())),
        _ => ColumnDefault::None,
    }
}

/// The column type MariaDB gives a result column of type `t` in CREATE TABLE … SELECT.
fn column_type(t: &SqlType, c: &ColumnDefinition) -> DataType {
    let unsigned = t.unsigned;
    let text_bytes = |bytes: u64| match bytes {
        0..=255 => 255,
        256..=65_535 => 65_535,
        65_536..=16_777_215 => 16_777_215,
        _ => 4_294_967_295,
    };
    if let Some(dt) = &t.enumset {
        return (**dt).clone();
    }
    // A table column read as is keeps its display width and ZEROFILL (what its result
    // column says); an expression's width is its length (`SELECT 1` makes an int(1)).
    let display = match c.org_name.is_empty() {
        false => IntDisplay {
            width: c.column_length.min(255) as u8,
            zerofill: c.flags & cohort_protocol::column_flags::ZEROFILL != 0,
        },
        true => IntDisplay::width(t.length.min(255) as u8),
    };
    match t.class {
        Class::Null => DataType::Binary { len: 0 },
        Class::Int => match t.wire {
            ColumnType::TINY => DataType::TinyInt { unsigned, display },
            ColumnType::SHORT => DataType::SmallInt { unsigned, display },
            ColumnType::INT24 => DataType::MediumInt { unsigned, display },
            ColumnType::LONG => DataType::Int { unsigned, display },
            ColumnType::YEAR => DataType::Year,
            ColumnType::BIT => DataType::Bit {
                width: t.length.clamp(1, 64) as u8,
            },
            _ => DataType::BigInt { unsigned, display },
        },
        Class::Decimal => {
            let scale = t.decimals.min(30);
            let precision = decimal_precision(t).clamp(u32::from(scale).max(1), 65);
            DataType::Decimal {
                precision: precision as u8,
                scale,
            }
        }
        // Fixed decimals (a FLOAT(M,D) column, `ROUND(x, 2)`) make a DOUBLE(length, D).
        Class::Double => {
            let m_d = (t.decimals < FLOATING_POINT_DECIMALS)
                .then(|| (t.length.clamp(u32::from(t.decimals), 255) as u8, t.decimals));
            match t.wire {
                ColumnType::FLOAT => DataType::Float { unsigned, m_d },
                _ => DataType::Double { unsigned, m_d },
            }
        }
        Class::Date => DataType::Date,
        Class::Time => DataType::Time {
            fsp: t.decimals.min(6),
        },
        Class::DateTime if t.wire == ColumnType::TIMESTAMP => DataType::Timestamp {
            fsp: t.decimals.min(6),
        },
        Class::DateTime => DataType::DateTime {
            fsp: t.decimals.min(6),
        },
        Class::Str => {
            let collation = match t.collation {
                Collation::Binary => Collation::Utf8mb4GeneralCi,
                c => c,
            };
            let chars = t.char_len();
            if t.wire == ColumnType::BLOB || chars > 16_383 {
                DataType::Text {
                    max_bytes: text_bytes(u64::from(t.length / 4)),
                    collation,
                }
            } else if t.wire == ColumnType::STRING && chars <= 255 {
                DataType::Char {
                    len: chars,
                    collation,
                }
            } else {
                DataType::VarChar {
                    len: chars,
                    collation,
                }
            }
        }
        Class::Bin => {
            if t.wire == ColumnType::BLOB || t.length > 65_532 {
                DataType::Blob {
                    max_bytes: text_bytes(u64::from(t.length)),
                }
            } else if t.wire == ColumnType::STRING && t.length <= 255 {
                DataType::Binary { len: t.length }
            } else {
                DataType::VarBinary { len: t.length }
            }
        }
    }
}
