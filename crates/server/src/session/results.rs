//! Encoding statement results: OK packets and text / binary result sets.

use super::SessionState;
use crate::sql::QueryResult;
use crate::types::Value;
use cohort_protocol::{
    status, Cell, ColumnDefinition, ColumnType, Date as WDate, DateTime as WDateTime, OkPacket,
    PacketWriter,
};

/// The status flags every OK / EOF carries.
pub(super) fn status_flags(state: &SessionState) -> u16 {
    let mut s = 0;
    if state.in_transaction() {
        s |= status::IN_TRANS;
    }
    if state.autocommit {
        s |= status::AUTOCOMMIT;
    }
    s
}

/// Which row encoding a result set uses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum RowFormat {
    Text,
    Binary,
}

pub(super) fn write_result(
    w: &mut PacketWriter,
    state: &SessionState,
    result: &QueryResult,
    format: RowFormat,
) {
    let flags = status_flags(state);
    let warnings = state.warnings.len().min(u16::MAX as usize) as u16;
    match result {
        QueryResult::Ok {
            affected_rows,
            last_insert_id,
            info,
        } => w.write_ok(&OkPacket {
            affected_rows: *affected_rows,
            last_insert_id: *last_insert_id,
            status: flags,
            warnings,
            info: info.as_deref().unwrap_or("").as_bytes(),
        }),
        QueryResult::Rows { columns, rows } => {
            w.write_result_set_start(columns, flags);
            for row in rows {
                write_row(w, columns, row, format);
            }
            w.write_result_set_end(warnings, flags);
        }
    }
}

fn write_row(w: &mut PacketWriter, columns: &[ColumnDefinition], row: &[Value], format: RowFormat) {
    // Decimals and other values without a borrowed form get their text here first.
    let texts: Vec<Option<String>> = row.iter().map(owned_text).collect();
    let cells: Vec<Cell> = row
        .iter()
        .zip(&texts)
        .zip(columns)
        .map(|((v, t), c)| to_cell(v, t.as_deref(), c.column_type))
        .collect();
    let written = match format {
        RowFormat::Text => w.write_text_row(columns, &cells),
        RowFormat::Binary => w.write_binary_row(columns, &cells),
    };
    if let Err(e) = written {
        // A value that does not fit its column's wire type is a server bug; say so rather
        // than send a row the client would misread.
        debug_assert!(false, "row encoding failed: {e}");
        tracing::error!("row encoding failed: {e}");
    }
}

fn owned_text(v: &Value) -> Option<String> {
    match v {
        Value::Decimal(d) => Some(d.to_string()),
        _ => None,
    }
}

/// The wire form of one value for a column of wire type `ty`.
fn to_cell<'a>(v: &'a Value, text: Option<&'a str>, ty: ColumnType) -> Cell<'a> {
    match v {
        Value::Null => Cell::Null,
        Value::Int(i) => Cell::Int(*i),
        Value::UInt(u) => Cell::UInt(*u),
        Value::Double(d) if ty == ColumnType::FLOAT => Cell::Float(*d as f32),
        Value::Double(d) => Cell::Double(*d),
        Value::Decimal(_) => Cell::Bytes(text.unwrap_or("").as_bytes()),
        Value::Bytes(b) => Cell::Bytes(b),
        Value::Date(d) => Cell::Date(WDate {
            year: d.year,
            month: d.month,
            day: d.day,
        }),
        Value::DateTime(dt) => Cell::DateTime(WDateTime {
            year: dt.date.year,
            month: dt.date.month,
            day: dt.date.day,
            hour: dt.hour,
            minute: dt.minute,
            second: dt.second,
            micros: dt.micros,
        }),
    }
}
