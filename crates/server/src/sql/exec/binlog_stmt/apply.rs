//! Step 2 of BINLOG: the rows of decoded rows events written through the DML path (see the
//! module doc of `binlog_stmt`).

use super::decode::RowsStep;
use crate::error::{Error, Result};
use crate::log::rowimage::{from_bin, kind_of, to_bin};
use crate::sql::env::Env;
use crate::sql::exec::dml::{dup_entry_error, InsertKind, InsertPlan, InsertSource, RowSink};
use crate::sql::exec::fk::FkWork;
use crate::sql::plan::{self, TableRef};
use crate::storage::{
    InsertOutcome, KeyRange, LockMode, ReadLock, Row, RowHandle, ScanControl, Txn, WaitPolicy,
};
use crate::types::Value;
use cohort_binlog::{BinValue, ColumnKind, RowChange, RowsKind};
use cohort_protocol::ErrorCode;

/// Apply every rows event in order.
pub fn apply_all(env: &Env<'_>, txn: &mut Txn, steps: &[RowsStep]) -> Result<()> {
    for s in steps {
        apply_event(env, txn, s)?;
    }
    Ok(())
}

fn apply_event(env: &Env<'_>, txn: &mut Txn, step: &RowsStep) -> Result<()> {
    let command = match step.rows.kind {
        RowsKind::Write => "INSERT",
        RowsKind::Update => "UPDATE",
        RowsKind::Delete => "DELETE",
    };
    let t = plan::resolve_target(env, &step.map.db, &step.map.table, None, command)?;
    check_columns(step, &t)?;
    match step.rows.kind {
        RowsKind::Write => write_rows(env, txn, step, t),
        RowsKind::Update => update_rows(env, txn, step, &t),
        RowsKind::Delete => delete_rows(env, txn, step, &t),
    }
}

/// The event's table must have the table's columns, of the same types (a replica without
/// `slave_type_conversions`): 1532 for another column count, 1677 for another type.
fn check_columns(step: &RowsStep, t: &TableRef) -> Result<()> {
    let (ours, theirs) = (t.def.columns.len(), step.map.columns.len());
    if ours != theirs || step.rows.column_count != theirs {
        return Err(Error::new(
            ErrorCode::BinlogRowWrongTableDef,
            format!(
                "Table definition on master and slave does not match: Table '{}.{}' has {ours} columns, the event has {theirs}",
                t.db, t.def.name
            ),
        ));
    }
    for (i, (c, col)) in step.map.columns.iter().zip(&t.def.columns).enumerate() {
        let want = kind_of(&col.data_type);
        if !same_type(&c.kind, &want) {
            return Err(conversion_error(i, t, &c.kind, &want));
        }
    }
    Ok(())
}

/// Same column type, lengths of strings aside (each value is checked against the column).
fn same_type(a: &ColumnKind, b: &ColumnKind) -> bool {
    use ColumnKind as K;
    match (a, b) {
        (K::Tiny { .. }, K::Tiny { .. })
        | (K::Short { .. }, K::Short { .. })
        | (K::Int24 { .. }, K::Int24 { .. })
        | (K::Long { .. }, K::Long { .. })
        | (K::LongLong { .. }, K::LongLong { .. })
        | (K::String { .. }, K::String { .. })
        | (K::VarString { .. }, K::VarString { .. })
        | (K::Blob { .. }, K::Blob { .. }) => true,
        _ => a == b,
    }
}

fn conversion_error(i: usize, t: &TableRef, from: &ColumnKind, to: &ColumnKind) -> Error {
    Error::new(
        ErrorCode::SlaveConversionFailed,
        format!(
            "Column {i} of table '{}.{}' cannot be converted from type '{}' to type '{}'",
            t.db,
            t.def.name,
            kind_name(from),
            kind_name(to)
        ),
    )
}

fn kind_name(k: &ColumnKind) -> String {
    use ColumnKind as K;
    match k {
        K::Tiny { .. } => "tinyint".into(),
        K::Short { .. } => "smallint".into(),
        K::Int24 { .. } => "mediumint".into(),
        K::Long { .. } => "int".into(),
        K::LongLong { .. } => "bigint".into(),
        K::Float => "float".into(),
        K::Double => "double".into(),
        K::NewDecimal { precision, scale } => format!("decimal({precision},{scale})"),
        K::String { max_bytes } => format!("char({max_bytes} octets)"),
        K::VarString { max_bytes } => format!("varchar({max_bytes} octets)"),
        K::Blob { len_bytes } => format!("blob({len_bytes})"),
        K::Date => "date".into(),
        K::DateTime2 { fsp } => format!("datetime({fsp})"),
        K::Timestamp2 { fsp } => format!("timestamp({fsp})"),
        K::Year => "year".into(),
        K::Enum { .. } => "enum".into(),
        K::Set { .. } => "set".into(),
        K::Time2 { fsp } => format!("time({fsp})"),
        K::Bit { bits } => format!("bit({bits})"),
    }
}

/// One row image as the table's values: `None` for a column the image does not have
/// (`present` false). Each value must fit its column as the table declares it (1677), and
/// NULL only a nullable column (1048).
fn image(t: &TableRef, present: &[bool], values: &[BinValue<'_>]) -> Result<Vec<Option<Value>>> {
    let mut out = Vec::with_capacity(t.def.columns.len());
    let mut vals = values.iter();
    let mut buf = Vec::new();
    for (i, col) in t.def.columns.iter().enumerate() {
        if !present.get(i).copied().unwrap_or(false) {
            out.push(None);
            continue;
        }
        let Some(b) = vals.next() else {
            return Err(super::syntax_error());
        };
        if matches!(b, BinValue::Null) {
            if !col.nullable {
                return Err(Error::new(
                    ErrorCode::BadNull,
                    format!("Column '{}' cannot be null", col.name),
                ));
            }
            out.push(Some(Value::Null));
            continue;
        }
        // The value as the column holds it must be one the column can hold (a string no
        // longer than the column, an integer in its range).
        let v = from_bin(&col.data_type, b);
        let kind = kind_of(&col.data_type);
        buf.clear();
        if cohort_binlog::encode_value(&kind, &to_bin(&col.data_type, &v), &mut buf).is_err() {
            return Err(conversion_error(i, t, &kind, &kind));
        }
        out.push(Some(v));
    }
    if vals.next().is_some() {
        return Err(super::syntax_error());
    }
    Ok(out)
}

fn write_rows(env: &Env<'_>, txn: &mut Txn, step: &RowsStep, t: TableRef) -> Result<()> {
    let ncols = t.def.columns.len();
    let plan = InsertPlan {
        table: t,
        kind: InsertKind::Insert,
        columns: (0..ncols).collect(),
        source: InsertSource::Values(Vec::new()),
        on_dup: Vec::new(),
        subq: None,
        returning: None,
        view_version: None,
        view_check: None,
    };
    let mut sink = RowSink::new(&plan, env, false)?;
    for (n, change) in step.rows.rows.iter().enumerate() {
        let RowChange::Insert(values) = change else {
            return Err(super::syntax_error());
        };
        let img = image(&plan.table, &step.rows.columns_present, values)?;
        let mut given: Vec<bool> = img.iter().map(Option::is_some).collect();
        let all = given.iter().all(|g| *g);
        let row: Vec<Value> = img.into_iter().map(|v| v.unwrap_or(Value::Null)).collect();
        let given = if all { None } else { Some(&mut given[..]) };
        sink.insert(txn, row, n as u64 + 1, given)?;
    }
    Ok(())
}

fn update_rows(env: &Env<'_>, txn: &mut Txn, step: &RowsStep, t: &TableRef) -> Result<()> {
    let fk = FkWork::of(env, &t.table, &t.def, true);
    for change in &step.rows.rows {
        let RowChange::Update { before, after } = change else {
            return Err(super::syntax_error());
        };
        let before = image(t, &step.rows.columns_present, before)?;
        let after_present = match step.rows.columns_present_after.is_empty() {
            true => &step.rows.columns_present,
            false => &step.rows.columns_present_after,
        };
        let after = image(t, after_present, after)?;
        let (h, latest) = find(env, txn, t, &before)?;
        let mut new = latest.to_vec();
        for (slot, v) in new.iter_mut().zip(after) {
            if let Some(v) = v {
                *slot = v;
            }
        }
        if new[..] == latest[..] {
            continue;
        }
        let after_fk = (!fk.none()).then(|| new.clone());
        match t.table.update(txn, &h, new)? {
            InsertOutcome::Inserted(_) => {
                if let Some(new) = after_fk {
                    fk.after_update(env, txn, &t.table, &latest, &new)?;
                }
            }
            InsertOutcome::Duplicate {
                index, attempted, ..
            } => {
                if let Some(new) = after_fk {
                    fk.before_duplicate(env, txn, &t.table, &latest, &new)?;
                }
                return Err(dup_entry_error(&t.table, index, &attempted, env));
            }
        }
    }
    Ok(())
}

fn delete_rows(env: &Env<'_>, txn: &mut Txn, step: &RowsStep, t: &TableRef) -> Result<()> {
    let fk = FkWork::of(env, &t.table, &t.def, true);
    for change in &step.rows.rows {
        let RowChange::Delete(before) = change else {
            return Err(super::syntax_error());
        };
        let before = image(t, &step.rows.columns_present, before)?;
        let (h, old) = find(env, txn, t, &before)?;
        t.table.delete(txn, &h)?;
        if !fk.none() {
            fk.after_delete(env, txn, &t.table, &old)?;
        }
    }
    Ok(())
}

/// The row a before image names, locked for writing: by the primary key when the image has
/// all of it, otherwise the first row equal to the image in every column it has. 1032 when
/// there is none.
fn find(
    env: &Env<'_>,
    txn: &mut Txn,
    t: &TableRef,
    before: &[Option<Value>],
) -> Result<(RowHandle, Row)> {
    let lock = ReadLock {
        mode: LockMode::Exclusive,
        wait: WaitPolicy::Wait,
        semi_consistent: false,
    };
    let _ = env;
    let pk: Option<Vec<Value>> = t.def.primary_key.as_ref().and_then(|pk| {
        pk.parts
            .iter()
            .map(|p| before.get(p.column).cloned().flatten())
            .collect()
    });
    let found = match pk {
        Some(key) => t.table.get(txn, &key, lock)?,
        None => {
            let cols = &t.def.columns;
            let mut filter = |row: &Row| -> Result<bool> {
                Ok(before.iter().enumerate().all(|(i, b)| match b {
                    None => true,
                    Some(b) => to_bin(&cols[i].data_type, &row[i]) == to_bin(&cols[i].data_type, b),
                }))
            };
            let mut found = None;
            t.table.scan(
                txn,
                None,
                &KeyRange::all(),
                false,
                lock,
                &mut filter,
                &mut |h, r| {
                    found = Some((h.clone(), r.clone()));
                    Ok(ScanControl::Stop)
                },
            )?;
            found
        }
    };
    found.ok_or_else(|| {
        Error::new(
            ErrorCode::KeyNotFound,
            format!("Can't find record in '{}'", t.def.name),
        )
    })
}
