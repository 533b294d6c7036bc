//! Step 1 of BINLOG: base64 text → events (see the module doc of `binlog_stmt`).

use super::syntax_error;
use crate::error::{Error, Result};
use cohort_binlog::{
    BinlogPos, DecodeError, Event, EventDecoder, EventType, RowsEvent, TableMap, HEADER_LEN,
};
use cohort_protocol::ErrorCode;

/// One rows event with the Table_map it was decoded with.
#[derive(Debug)]
pub struct RowsStep {
    pub map: TableMap,
    pub rows: RowsEvent,
}

/// The payload's bytes; 1575 if it is not base64, 1149 if empty. Whitespace is skipped, and
/// the text may be several padded chunks one after the other (`mariadb-binlog` encodes each
/// event on its own), as MariaDB's decoder allows for BINLOG.
pub fn base64(text: &[u8]) -> Result<Vec<u8>> {
    let bad = || {
        Error::new(
            ErrorCode::Base64DecodeError,
            "Decoding of base64 string failed",
        )
    };
    let digit = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let chars: Vec<u8> = text
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    if !chars.len().is_multiple_of(4) {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(chars.len() / 4 * 3);
    for q in chars.chunks(4) {
        // `=` only at the end of a group: `xx==` gives one byte, `xxx=` two.
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 {
            return Err(bad());
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            n = n << 6 | digit(c).ok_or_else(bad)?;
        }
        n <<= 6 * pad as u32;
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    if out.is_empty() {
        return Err(syntax_error());
    }
    Ok(out)
}

/// Decode every event of the payload, in order, with the session's decoder (which keeps the
/// Format_description and the Table_maps). Only rows events are returned; nothing is applied
/// unless all decode.
pub fn events(decoder: &mut EventDecoder, bytes: &[u8]) -> Result<Vec<RowsStep>> {
    let mut out = Vec::new();
    let mut off = 0usize;
    while off < bytes.len() {
        let data = &bytes[off..];
        if decoder.checksums().is_none() {
            let ty = data.get(4).copied().map(EventType);
            if data.len() >= HEADER_LEN && ty != Some(EventType::FORMAT_DESCRIPTION) {
                let name = ty.map_or("Unknown", |t| t.name());
                return Err(Error::new(
                    ErrorCode::NoFormatDescriptionEventBeforeBinlogStatement,
                    format!(
                        "The BINLOG statement of type {name} was not preceded by a format description BINLOG statement"
                    ),
                ));
            }
        }
        let ev = decoder
            .decode(BinlogPos(off as u64), data)
            .map_err(decode_error)?;
        let size = ev.header.event_size as usize;
        if size == 0 {
            return Err(syntax_error());
        }
        off += size;
        match ev.event {
            Event::FormatDescription(_) | Event::TableMap(_) => {}
            Event::Rows(rows) => {
                let map = decoder
                    .table(rows.table_id)
                    .cloned()
                    .ok_or_else(syntax_error)?;
                out.push(RowsStep { map, rows });
            }
            other => {
                return Err(Error::new(
                    ErrorCode::OnlyFdAndRbrEventsAllowedInBinlogStatement,
                    format!(
                        "Only Format_description_log_event and row events are allowed in BINLOG statements (but {} was provided)",
                        other.event_type().name()
                    ),
                ))
            }
        }
    }
    Ok(out)
}

/// Every decoding failure is MariaDB's 1149.
fn decode_error(_e: DecodeError) -> Error {
    syntax_error()
}
