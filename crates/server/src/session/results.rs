//! Encoding statement results: OK packets and text / binary result sets.

use super::SessionState;
use crate::sql::QueryResult;
use crate::types::Value;
use cohort_protocol::{
    status, Cell, ColumnDefinition, ColumnType, Date as WDate, DateTime as WDateTime, OkPacket,
    PacketWriter, SessionStateChanges,
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
    // The statement variables are read again after each statement (a SET sql_mode shows in
    // its own OK packet, as on MariaDB): NO_BACKSLASH_ESCAPES and ANSI_QUOTES are flags.
    if let Some((_, v)) = &state.stmt_vars {
        use crate::sql::sql_mode::parse_bit;
        if v.parse_mode.has(parse_bit::NO_BACKSLASH_ESCAPES) {
            s |= status::NO_BACKSLASH_ESCAPES;
        }
        if v.parse_mode.has(parse_bit::ANSI_QUOTES) {
            s |= status::ANSI_QUOTES;
        }
    }
    s
}

/// `status` with SERVER_SESSION_STATE_CHANGED when there are session state changes to send.
pub(super) fn state_changed_flag(status: u16, changes: &Option<SessionStateChanges>) -> u16 {
    match changes {
        Some(_) => status | status::SESSION_STATE_CHANGED,
        None => status,
    }
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
    extra_flags: u16,
    changes: Option<SessionStateChanges>,
) {
    let flags = status_flags(state) | extra_flags;
    let warnings = state.warnings.len().min(u16::MAX as usize) as u16;
    match result {
        QueryResult::Ok {
            affected_rows,
            last_insert_id,
            info,
        } => w.write_ok(&OkPacket {
            affected_rows: *affected_rows,
            last_insert_id: *last_insert_id,
            status: state_changed_flag(flags, &changes),
            warnings,
            info: info.as_deref().unwrap_or("").as_bytes(),
            session_state: changes.as_ref().map_or(&[], |c| c.as_bytes()),
        }),
        QueryResult::Rows { columns, rows } => {
            // In the client's character set (nothing to do for most: see `charsets`).
            let cs = &state.charsets;
            let columns = &*cs.columns(columns);
            w.write_result_set_start_names(columns, flags, &|n| cs.name(n));
            // Checked once per result set: BIT columns send their values as bytes.
            let has_bit = columns.iter().any(|c| c.column_type == ColumnType::BIT);
            let convert = cs.converts_values().then_some(cs);
            for row in rows {
                match convert {
                    None => write_row(w, columns, row, format, has_bit),
                    Some(cs) => {
                        let row = converted_row(cs, columns, row);
                        write_row(w, columns, &row, format, has_bit)
                    }
                }
            }
            w.write_result_set_end(warnings, flags);
        }
    }
}

/// A row with its character columns' text in the client's `character_set_results`.
fn converted_row(
    cs: &super::charsets::ConnCharsets,
    columns: &[ColumnDefinition],
    row: &[Value],
) -> Vec<Value> {
    row.iter()
        .zip(columns)
        .map(|(v, c)| match v {
            Value::Bytes(b) => Value::Bytes(cs.value(c, b).into_owned()),
            v => v.clone(),
        })
        .collect()
}

fn write_row(
    w: &mut PacketWriter,
    columns: &[ColumnDefinition],
    row: &[Value],
    format: RowFormat,
    has_bit: bool,
) {
    // Decimals have no borrowed wire form: their text is built here first (only for rows
    // that hold one).
    // So is a DOUBLE of fixed decimals (`ROUND(2.5e0, 2)` is 2.50 in the text protocol).
    let fixed_double = |v: &Value, c: &ColumnDefinition| {
        format == RowFormat::Text && matches!(v, Value::Double(_)) && is_fixed_double(c)
    };
    let texts: Vec<Option<String>> = if row
        .iter()
        .zip(columns)
        .any(|(v, c)| matches!(v, Value::Decimal(_)) || fixed_double(v, c))
    {
        row.iter()
            .zip(columns)
            .map(|(v, c)| match v {
                Value::Double(f) if fixed_double(v, c) => {
                    Some(crate::sql::format_double_fixed(*f, c.decimals))
                }
                _ => decimal_text(v, c),
            })
            .collect()
    } else {
        Vec::new()
    };
    // BIT values go out as their big-endian bytes (only for result sets with a BIT column).
    let bits: Vec<Option<Vec<u8>>> = if has_bit {
        row.iter()
            .zip(columns)
            .map(|(v, c)| bit_bytes(v, c))
            .collect()
    } else {
        Vec::new()
    };
    let cells: Vec<Cell> = row
        .iter()
        .enumerate()
        .zip(columns)
        .map(|((i, v), c)| {
            let text = texts.get(i).and_then(|t| t.as_deref());
            if let Some(Some(b)) = bits.get(i) {
                return Cell::Bytes(b);
            }
            if format == RowFormat::Text && crate::sql::is_year_0000(v, c) {
                return Cell::Bytes(b"0000");
            }
            // A DOUBLE of fixed decimals carried as a decimal of that scale (PERCENT_RANK):
            // its text is the decimal's.
            if format == RowFormat::Text
                && is_fixed_double(c)
                && matches!(v, Value::Decimal(_) | Value::Double(_))
            {
                if let Some(t) = text {
                    return Cell::Bytes(t.as_bytes());
                }
            }
            to_cell(v, text, c.column_type)
        })
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

/// A DOUBLE column of fixed decimals: fewer than FLOATING_POINT_DECIMALS (31).
fn is_fixed_double(c: &ColumnDefinition) -> bool {
    matches!(c.column_type, ColumnType::DOUBLE | ColumnType::FLOAT) && c.decimals < 31
}

/// The bytes of a value in a BIT(n) column: the number big-endian in `(n + 7) / 8` bytes.
fn bit_bytes(v: &Value, c: &ColumnDefinition) -> Option<Vec<u8>> {
    if c.column_type != ColumnType::BIT {
        return None;
    }
    let n = match v {
        Value::Int(i) => *i as u64,
        Value::UInt(u) => *u,
        _ => return None,
    };
    let len = (c.column_length.clamp(1, 64) as usize).div_ceil(8);
    Some(n.to_be_bytes()[8 - len..].to_vec())
}

/// The text of a decimal: at the column's scale for a DECIMAL column (MariaDB prints every
/// value of a column with the column's digits).
fn decimal_text(v: &Value, c: &ColumnDefinition) -> Option<String> {
    let Value::Decimal(d) = v else { return None };
    if c.column_type == ColumnType::NEWDECIMAL
        && c.decimals != d.scale()
        && c.decimals <= cohort_decimal::MAX_SCALE
    {
        if let Ok(r) = d.rescale(c.decimals) {
            return Some(r.to_string());
        }
    }
    Some(d.to_string())
}

/// The wire form of one value for a column of wire type `ty`.
fn to_cell<'a>(v: &'a Value, text: Option<&'a str>, ty: ColumnType) -> Cell<'a> {
    // A TIME column's value that is not a TIME (a string from a mixed expression): read as
    // one, so the binary protocol can carry it.
    if ty == ColumnType::TIME && !matches!(v, Value::Time(_) | Value::Null) {
        let t = crate::sql::time_value::from_value(v).map_or(0, |(t, _)| t);
        return time_cell(t);
    }
    match v {
        Value::Null => Cell::Null,
        Value::Int(i) => Cell::Int(*i),
        Value::UInt(u) => Cell::UInt(*u),
        Value::Double(d) if ty == ColumnType::FLOAT => Cell::Float(*d as f32),
        Value::Double(d) => Cell::Double(*d),
        Value::Decimal(d) => decimal_cell(d, text, ty),
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
        Value::Time(t) => time_cell(*t),
    }
}

/// The wire form of a TIME (signed microseconds): days, then hours below 24.
fn time_cell(t: i64) -> Cell<'static> {
    let a = t.unsigned_abs();
    let secs = a / 1_000_000;
    Cell::Time(cohort_protocol::Time {
        negative: t < 0,
        days: (secs / 86_400) as u32,
        hours: ((secs / 3600) % 24) as u8,
        minutes: ((secs / 60) % 60) as u8,
        seconds: (secs % 60) as u8,
        micros: (a % 1_000_000) as u32,
    })
}

/// A decimal in a column whose wire type is not DECIMAL (a value the binder typed as an
/// integer or a double, e.g. `FLOOR` of a large decimal): converted so the binary protocol can
/// carry it; text otherwise.
fn decimal_cell<'a>(
    d: &cohort_decimal::Decimal,
    text: Option<&'a str>,
    ty: ColumnType,
) -> Cell<'a> {
    use cohort_decimal::Rounding;
    match ty {
        ColumnType::TINY
        | ColumnType::SHORT
        | ColumnType::INT24
        | ColumnType::LONG
        | ColumnType::LONGLONG => match d.to_i128(Rounding::HalfUp) {
            Some(i) if i < 0 => Cell::Int(i.max(i64::MIN as i128) as i64),
            Some(i) => Cell::UInt(i.min(u64::MAX as i128) as u64),
            None if d.is_negative() => Cell::Int(i64::MIN),
            None => Cell::UInt(u64::MAX),
        },
        ColumnType::FLOAT | ColumnType::DOUBLE => Cell::Double(d.to_f64()),
        _ => Cell::Bytes(text.unwrap_or("").as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::status_flags;
    use crate::session::state::ServerContext;
    use crate::testkit::{root_session, run};
    use cohort_protocol::flags::status;

    /// sql_mode's ANSI_QUOTES and NO_BACKSLASH_ESCAPES travel as status flags 0x8000 and
    /// 0x0200 (MariaDB's), from the OK of the SET that sets them on.
    #[test]
    fn quoting_modes_are_status_flags() {
        let ctx = ServerContext::for_tests();
        let mut s = root_session(1);
        let flags = |s: &mut crate::session::state::SessionState, mode: &str| {
            run(&ctx, s, &format!("SET sql_mode = '{mode}'")).unwrap();
            s.stmt_vars(&ctx);
            status_flags(s) & (status::ANSI_QUOTES | status::NO_BACKSLASH_ESCAPES)
        };
        assert_eq!(flags(&mut s, "ANSI_QUOTES"), status::ANSI_QUOTES);
        assert_eq!(flags(&mut s, "ANSI,NO_BACKSLASH_ESCAPES"), 0x8200);
        assert_eq!(
            flags(&mut s, "NO_BACKSLASH_ESCAPES"),
            status::NO_BACKSLASH_ESCAPES
        );
        assert_eq!(flags(&mut s, ""), 0);
    }
}
