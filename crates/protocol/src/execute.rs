//! COM_STMT_EXECUTE: decoding parameters (server) and encoding the request (client).
//!
//! ```text
//! 17 | stmt_id u32 | flags u8 (cursor type; 0) | iteration_count u32 (1)
//! if num_params > 0:
//!     NULL bitmap: (num_params + 7) / 8 bytes, parameter i at bit i
//!     new_params_bound_flag u8
//!     if 1: num_params × (type u8, flags u8)      flags 0x80 = unsigned
//!     values of the non-NULL parameters, in the binary encoding of their types
//! ```
//!
//! Clients send the types only when they (re)bind: sysbench sends them on the first
//! execute and never again, so the statement must remember them — the caller keeps a
//! `Vec<ParamType>` per statement and passes it to every [`parse_params`] call.
//!
//! Parameters sent earlier with COM_STMT_SEND_LONG_DATA have no value in the execute
//! packet; the caller keeps the accumulated data per parameter (`long_data`) and this module
//! takes it (leaving `None`) when the execute arrives.
//!
//! `num_params` comes from the prepared statement, found by the id: read it first with
//! [`peek_stmt_id`] (or from [`crate::Command::StmtExecute`]).

use crate::codec::{put_u32, Reader};
use crate::column::ColumnType;
use crate::command::command_code;
use crate::error::{ProtocolError, Result};
use crate::row::{read_binary_value, write_binary_value};
use crate::value::{Cell, ParamValue};

/// The flag bit marking an unsigned parameter type.
pub const UNSIGNED_PARAM_FLAG: u8 = 0x80;

/// A parameter's wire type, as bound by the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamType {
    pub column_type: ColumnType,
    /// The flags byte; [`UNSIGNED_PARAM_FLAG`] is the only defined bit.
    pub flags: u8,
}

impl ParamType {
    pub fn new(column_type: ColumnType, unsigned: bool) -> ParamType {
        ParamType {
            column_type,
            flags: if unsigned { UNSIGNED_PARAM_FLAG } else { 0 },
        }
    }

    pub fn is_unsigned(&self) -> bool {
        self.flags & UNSIGNED_PARAM_FLAG != 0
    }

    /// The type a client would bind `cell` as (NULL for `Cell::Null`).
    pub fn for_cell(cell: &Cell) -> ParamType {
        let (ty, unsigned) = match cell {
            Cell::Null => (ColumnType::NULL, false),
            Cell::Int(_) => (ColumnType::LONGLONG, false),
            Cell::UInt(_) => (ColumnType::LONGLONG, true),
            Cell::Float(_) => (ColumnType::FLOAT, false),
            Cell::Double(_) => (ColumnType::DOUBLE, false),
            Cell::Bytes(_) => (ColumnType::VAR_STRING, false),
            Cell::Date(_) => (ColumnType::DATE, false),
            Cell::DateTime(_) => (ColumnType::DATETIME, false),
            Cell::Time(_) => (ColumnType::TIME, false),
        };
        ParamType::new(ty, unsigned)
    }
}

/// A decoded COM_STMT_EXECUTE request.
#[derive(Clone, Debug, PartialEq)]
pub struct Execute {
    pub stmt_id: u32,
    /// Cursor flags (0 = no cursor).
    pub flags: u8,
    pub iteration_count: u32,
    pub params: Vec<ParamValue>,
}

/// The statement id of a COM_STMT_EXECUTE payload (command byte included), so the caller
/// can look up the statement before decoding parameters.
pub fn peek_stmt_id(payload: &[u8]) -> Result<u32> {
    let mut r = Reader::new(payload);
    if r.u8("command")? != command_code::STMT_EXECUTE {
        return Err(ProtocolError::Malformed {
            what: "COM_STMT_EXECUTE command byte",
        });
    }
    r.u32("statement id")
}

/// Decodes a whole COM_STMT_EXECUTE payload (command byte included).
pub fn parse_execute(
    payload: &[u8],
    num_params: usize,
    types: &mut Vec<ParamType>,
    long_data: &mut [Option<Vec<u8>>],
) -> Result<Execute> {
    let stmt_id = peek_stmt_id(payload)?;
    let mut r = Reader::new(payload);
    r.skip(5, "execute header")?;
    let flags = r.u8("execute flags")?;
    let iteration_count = r.u32("iteration count")?;
    let params = parse_params(r.rest(), num_params, types, long_data)?;
    Ok(Execute {
        stmt_id,
        flags,
        iteration_count,
        params,
    })
}

/// Decodes the parameter block (everything after the iteration count).
///
/// `types` holds the statement's remembered types: replaced when the packet binds new
/// ones, otherwise used as they are ([`ProtocolError::MissingParamTypes`] if there are none).
/// `long_data[i]`, when `Some`, is taken as parameter `i`'s value.
pub fn parse_params(
    block: &[u8],
    num_params: usize,
    types: &mut Vec<ParamType>,
    long_data: &mut [Option<Vec<u8>>],
) -> Result<Vec<ParamValue>> {
    if num_params == 0 {
        return Ok(Vec::new());
    }
    let mut r = Reader::new(block);
    let null_bitmap = r.bytes(num_params.div_ceil(8), "parameter NULL bitmap")?;
    if r.u8("new_params_bound flag")? != 0 {
        *types = read_param_types(&mut r, num_params)?;
    } else if types.len() != num_params {
        return Err(ProtocolError::MissingParamTypes);
    }
    let mut params = Vec::with_capacity(num_params);
    for (i, ty) in types.iter().enumerate() {
        let long = long_data.get_mut(i).and_then(Option::take);
        params.push(if let Some(data) = long {
            ParamValue::Bytes(data)
        } else if null_bitmap[i / 8] & (1 << (i % 8)) != 0 {
            ParamValue::Null
        } else {
            let cell = read_binary_value(&mut r, ty.column_type, ty.is_unsigned())?;
            ParamValue::from_cell(cell)
        });
    }
    Ok(params)
}

fn read_param_types(r: &mut Reader<'_>, num_params: usize) -> Result<Vec<ParamType>> {
    let raw = r.bytes(num_params * 2, "parameter types")?;
    Ok(raw
        .chunks_exact(2)
        .map(|pair| ParamType {
            column_type: ColumnType(pair[0]),
            flags: pair[1],
        })
        .collect())
}

/// Appends a COM_STMT_EXECUTE payload (command byte included) binding `params` by their
/// natural types ([`ParamType::for_cell`]): integers as LONGLONG, strings as VAR_STRING.
/// `send_types` = new_params_bound_flag: true on the first execute (or after a type change).
pub fn encode_execute(out: &mut Vec<u8>, stmt_id: u32, params: &[Cell], send_types: bool) {
    out.push(command_code::STMT_EXECUTE);
    put_u32(out, stmt_id);
    out.push(0); // no cursor
    put_u32(out, 1); // iteration count
    if params.is_empty() {
        return;
    }
    let bitmap_at = out.len();
    out.resize(bitmap_at + params.len().div_ceil(8), 0);
    for (i, p) in params.iter().enumerate() {
        if p.is_null() {
            out[bitmap_at + i / 8] |= 1 << (i % 8);
        }
    }
    out.push(u8::from(send_types));
    if send_types {
        for p in params {
            let ty = ParamType::for_cell(p);
            out.extend_from_slice(&[ty.column_type.0, ty.flags]);
        }
    }
    for p in params.iter().filter(|p| !p.is_null()) {
        // A cell always encodes as its own natural type.
        let _ = write_binary_value(out, p, ParamType::for_cell(p).column_type);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Date, DateTime, Time};

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn sysbench_first_and_later_executes() {
        let mut types = Vec::new();
        let first = hex("17030000000001000000000108000600000000000000");
        assert_eq!(peek_stmt_id(&first), Ok(3));
        let ex = parse_execute(&first, 1, &mut types, &mut []).unwrap();
        assert_eq!(ex.stmt_id, 3);
        assert_eq!(ex.params, vec![ParamValue::Int(6)]);
        assert_eq!(types, vec![ParamType::new(ColumnType::LONGLONG, false)]);
        let later = hex("1703000000000100000000000500000000000000");
        let ex = parse_execute(&later, 1, &mut types, &mut []).unwrap();
        assert_eq!(ex.params, vec![ParamValue::Int(5)]);
        // Without remembered types the same packet is an error.
        assert_eq!(
            parse_execute(&later, 1, &mut Vec::new(), &mut []),
            Err(ProtocolError::MissingParamTypes)
        );
    }

    #[test]
    fn no_params_no_block() {
        let payload = hex("17010000000001000000");
        let ex = parse_execute(&payload, 0, &mut Vec::new(), &mut []).unwrap();
        assert_eq!((ex.stmt_id, ex.flags, ex.iteration_count), (1, 0, 1));
        assert!(ex.params.is_empty());
    }

    #[test]
    fn unsigned_flag_and_nulls() {
        // Two params: LONGLONG unsigned = u64::MAX, TINY unsigned NULL.
        let mut payload = hex("1702000000000100000002010880");
        payload.extend_from_slice(&[0x01, 0x80]);
        payload.extend_from_slice(&[0xFF; 8]);
        let ex = parse_execute(&payload, 2, &mut Vec::new(), &mut []).unwrap();
        assert_eq!(
            ex.params,
            vec![ParamValue::UInt(u64::MAX), ParamValue::Null]
        );
        // Unsigned TINY 200 stays positive, signed TINY 200 is -56.
        let mut types = vec![ParamType::new(ColumnType::TINY, true)];
        let block = [0x00, 0x00, 200];
        assert_eq!(
            parse_params(&block, 1, &mut types, &mut []).unwrap(),
            [ParamValue::Int(200)]
        );
        let mut types = vec![ParamType::new(ColumnType::TINY, false)];
        assert_eq!(
            parse_params(&block, 1, &mut types, &mut []).unwrap(),
            [ParamValue::Int(-56)]
        );
    }

    #[test]
    fn long_data_replaces_the_value_and_is_consumed() {
        let mut types = vec![
            ParamType::new(ColumnType::BLOB, false),
            ParamType::new(ColumnType::LONGLONG, false),
        ];
        let mut long = vec![Some(b"big".to_vec()), None];
        let mut block = vec![0x00, 0x00];
        block.extend_from_slice(&7i64.to_le_bytes());
        let params = parse_params(&block, 2, &mut types, &mut long).unwrap();
        assert_eq!(
            params,
            vec![ParamValue::Bytes(b"big".to_vec()), ParamValue::Int(7)]
        );
        assert_eq!(long, vec![None, None]);
    }

    #[test]
    fn encode_then_parse_round_trips() {
        let cells = [
            Cell::Int(-1),
            Cell::Null,
            Cell::UInt(u64::MAX),
            Cell::Double(2.5),
            Cell::str("abc"),
            Cell::Date(Date {
                year: 2000,
                month: 1,
                day: 1,
            }),
            Cell::DateTime(DateTime {
                year: 2000,
                month: 1,
                day: 1,
                hour: 1,
                minute: 2,
                second: 3,
                micros: 4,
            }),
            Cell::Time(Time {
                negative: false,
                days: 0,
                hours: 5,
                minutes: 0,
                seconds: 0,
                micros: 0,
            }),
            Cell::Float(0.5),
        ];
        let mut out = Vec::new();
        encode_execute(&mut out, 9, &cells, true);
        let mut types = Vec::new();
        let ex = parse_execute(&out, cells.len(), &mut types, &mut []).unwrap();
        let expected: Vec<ParamValue> = cells.iter().map(|c| ParamValue::from_cell(*c)).collect();
        assert_eq!(ex.params, expected);
        // A later execute without types decodes the same with the remembered ones.
        out.clear();
        encode_execute(&mut out, 9, &cells, false);
        let ex = parse_execute(&out, cells.len(), &mut types, &mut []).unwrap();
        assert_eq!(ex.params, expected);
    }

    #[test]
    fn malformed_blocks_are_errors() {
        let mut types = Vec::new();
        assert!(parse_params(&[], 1, &mut types, &mut []).is_err());
        assert!(parse_params(&[0, 1, 0x08], 1, &mut types, &mut []).is_err());
        assert!(parse_params(&[0, 1, 0x08, 0, 1, 2], 1, &mut types, &mut []).is_err());
        assert_eq!(
            parse_params(&[0, 1, 0x33, 0], 1, &mut Vec::new(), &mut []),
            Err(ProtocolError::UnsupportedType { type_code: 0x33 })
        );
        assert!(peek_stmt_id(&[0x17, 1, 2]).is_err());
        assert!(peek_stmt_id(&[0x03, 1, 2, 3, 4]).is_err());
    }
}
