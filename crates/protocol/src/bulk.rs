//! COM_STMT_BULK_EXECUTE (MariaDB's extension, capability
//! [`crate::flags::mariadb_capability::STMT_BULK_OPERATIONS`]): one prepared statement run
//! for many rows of parameters in one packet.
//!
//! ```text
//! FA | stmt_id u32 | bulk flags u16
//! if flags & SEND_TYPES_TO_SERVER (128): num_params × (type u8, flags u8)   0x80 = unsigned
//! until the end of the packet, one row after another:
//!     num_params × (indicator u8, then the value in its type's binary encoding if NONE)
//! ```
//!
//! Indicators: 0 NONE (a value follows), 1 NULL, 2 DEFAULT, 3 IGNORE. `SEND_UNIT_RESULTS`
//! (64) asks for a result set of per-row affected rows and ids, which needs the
//! BULK_UNIT_RESULTS capability (MariaDB 11.5+).
//!
//! Rows are decoded one at a time from the packet ([`BulkRows`]): a packet of a million rows
//! costs one row of decoded values, not a million. Types are remembered by the caller for
//! the statement (clients send them with the first bulk only), as for COM_STMT_EXECUTE.

use crate::codec::Reader;
use crate::column::ColumnType;
use crate::error::{ProtocolError, Result};
use crate::execute::ParamType;
use crate::row::read_binary_value;
use crate::value::ParamValue;

/// Bulk flags (the u16 after the statement id).
pub mod bulk_flag {
    /// Answer a result set of per-row affected rows and insert ids.
    pub const SEND_UNIT_RESULTS: u16 = 64;
    /// Parameter types precede the rows.
    pub const SEND_TYPES_TO_SERVER: u16 = 128;
}

/// One parameter of one row.
#[derive(Clone, Debug, PartialEq)]
pub enum BulkParam {
    Value(ParamValue),
    Null,
    /// The column's default (INSERT, UPDATE).
    Default,
    /// The column's default for INSERT; the column left as it is for UPDATE.
    Ignore,
}

/// The header of a COM_STMT_BULK_EXECUTE payload (after the command byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BulkHeader<'a> {
    pub stmt_id: u32,
    pub flags: u16,
    /// The types (if sent) and the rows.
    pub body: &'a [u8],
}

impl<'a> BulkHeader<'a> {
    pub fn parse(payload: &'a [u8]) -> Result<BulkHeader<'a>> {
        let mut r = Reader::new(payload);
        let stmt_id = r.u32("COM_STMT_BULK_EXECUTE statement id")?;
        let flags = r.u16("COM_STMT_BULK_EXECUTE flags")?;
        Ok(BulkHeader {
            stmt_id,
            flags,
            body: r.rest(),
        })
    }
}

/// The rows of a bulk body. `types` are the statement's: read from the body when
/// `SEND_TYPES_TO_SERVER` is set ([`BulkRows::new`] replaces them), else the remembered ones
/// ([`ProtocolError::MissingParamTypes`] if there are none for every parameter).
pub struct BulkRows<'a> {
    r: Reader<'a>,
    types: Vec<ParamType>,
    failed: bool,
}

impl<'a> BulkRows<'a> {
    pub fn new(
        body: &'a [u8],
        flags: u16,
        num_params: usize,
        types: &mut Vec<ParamType>,
    ) -> Result<BulkRows<'a>> {
        let mut r = Reader::new(body);
        if flags & bulk_flag::SEND_TYPES_TO_SERVER != 0 {
            let raw = r.bytes(num_params * 2, "bulk parameter types")?;
            *types = raw
                .chunks_exact(2)
                .map(|pair| ParamType {
                    column_type: ColumnType(pair[0]),
                    flags: pair[1],
                })
                .collect();
        } else if types.len() != num_params {
            return Err(ProtocolError::MissingParamTypes);
        }
        if num_params == 0 || r.is_empty() {
            return Err(ProtocolError::Truncated { what: "bulk rows" });
        }
        Ok(BulkRows {
            r,
            types: types.clone(),
            failed: false,
        })
    }

    fn row(&mut self) -> Result<Vec<BulkParam>> {
        let mut row = Vec::with_capacity(self.types.len());
        for ty in &self.types {
            row.push(match self.r.u8("bulk parameter indicator")? {
                0 => {
                    let cell = read_binary_value(&mut self.r, ty.column_type, ty.is_unsigned())?;
                    BulkParam::Value(ParamValue::from_cell(cell))
                }
                1 => BulkParam::Null,
                2 => BulkParam::Default,
                3 => BulkParam::Ignore,
                _ => {
                    return Err(ProtocolError::Malformed {
                        what: "bulk parameter indicator",
                    })
                }
            });
        }
        Ok(row)
    }
}

impl Iterator for BulkRows<'_> {
    type Item = Result<Vec<BulkParam>>;

    /// The next row; after an error, nothing more.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.r.is_empty() {
            return None;
        }
        let row = self.row();
        self.failed = row.is_err();
        Some(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_with_each_indicator() {
        let mut v = vec![0u8];
        v.extend_from_slice(&7i64.to_le_bytes());
        let b = {
            let mut x = vec![8, 0, 253, 0];
            x.extend_from_slice(&v);
            x.extend_from_slice(&[0, 2, b'a', b'b', 1, 2, 3, 0, 1, b'x']);
            x
        };
        let mut types = Vec::new();
        let rows: Vec<_> = BulkRows::new(&b, bulk_flag::SEND_TYPES_TO_SERVER, 2, &mut types)
            .unwrap()
            .collect::<Result<_>>()
            .unwrap();
        assert_eq!(types.len(), 2);
        assert_eq!(
            rows,
            vec![
                vec![
                    BulkParam::Value(ParamValue::Int(7)),
                    BulkParam::Value(ParamValue::Bytes(b"ab".to_vec()))
                ],
                vec![BulkParam::Null, BulkParam::Default],
                vec![
                    BulkParam::Ignore,
                    BulkParam::Value(ParamValue::Bytes(b"x".to_vec()))
                ],
            ]
        );
        // The remembered types serve the next bulk.
        let again: Vec<_> = BulkRows::new(&[1, 1], 0, 2, &mut types).unwrap().collect();
        assert_eq!(again, vec![Ok(vec![BulkParam::Null, BulkParam::Null])]);
    }

    #[test]
    fn malformed_bodies_are_errors() {
        let mut none = Vec::new();
        assert!(matches!(
            BulkRows::new(&[1], 0, 1, &mut none).err(),
            Some(ProtocolError::MissingParamTypes)
        ));
        let mut types = Vec::new();
        // Types cut short; no rows; a zero-parameter statement.
        assert!(BulkRows::new(&[8], 128, 1, &mut types).is_err());
        assert!(BulkRows::new(&[8, 0], 128, 1, &mut types).is_err());
        assert!(BulkRows::new(&[1], 128, 0, &mut types).is_err());
        // A bad indicator, a value cut short: one error, then the end.
        let mut rows = BulkRows::new(&[8, 0, 1, 9], 128, 1, &mut types).unwrap();
        assert_eq!(rows.next(), Some(Ok(vec![BulkParam::Null])));
        assert!(matches!(rows.next(), Some(Err(_))));
        assert_eq!(rows.next(), None);
        let mut rows = BulkRows::new(&[8, 0, 0, 1, 2], 128, 1, &mut types).unwrap();
        assert!(matches!(rows.next(), Some(Err(_))));
        assert_eq!(rows.next(), None);
        // A string whose length runs past the packet.
        let mut rows = BulkRows::new(&[253, 0, 0, 0xfe, 1, 2], 128, 1, &mut types).unwrap();
        assert!(matches!(rows.next(), Some(Err(_))));
    }
}
