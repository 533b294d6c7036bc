//! Column definitions (Protocol::ColumnDefinition41) and the wire type codes.
//!
//! ColumnDefinition41 payload:
//!
//! ```text
//! lenenc "def" | lenenc schema | lenenc table | lenenc org_table | lenenc name | lenenc org_name
//! | 0c (length of the fixed fields) | charset u16 | column_length u32 | type u8 | flags u16
//! | decimals u8 | 00 00
//! ```
//!
//! Parameter definitions after PREPARE_OK use the same layout ([`ColumnDefinition::param`]).
//!
//! With MariaDB's `MARIADB_CLIENT_EXTENDED_METADATA` negotiated, a block of extended type info
//! follows `org_name` (MariaDB 10.5+; [`ExtendedTypeInfo`]):
//!
//! ```text
//! … | lenenc org_name | lenenc length of the block | { u8 key | lenenc value }* | 0c | …
//! key 0: the data type name ("point", "inet6", "uuid"), key 1: the format ("json")
//! ```
//!
//! The block is there, empty (`00`), for every column of such a client.

use crate::codec::{put_lenenc_bytes, put_u16, put_u32, Reader};
use crate::error::{ProtocolError, Result};
use std::borrow::Cow;

/// The catalog field, always "def".
const CATALOG: &[u8] = b"def";
/// Length of the fixed-size block after the names.
const FIXED_FIELDS_LEN: u8 = 0x0c;

/// A MySQL wire type code (`MYSQL_TYPE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColumnType(pub u8);

impl ColumnType {
    pub const DECIMAL: ColumnType = ColumnType(0x00);
    pub const TINY: ColumnType = ColumnType(0x01);
    pub const SHORT: ColumnType = ColumnType(0x02);
    pub const LONG: ColumnType = ColumnType(0x03);
    pub const FLOAT: ColumnType = ColumnType(0x04);
    pub const DOUBLE: ColumnType = ColumnType(0x05);
    pub const NULL: ColumnType = ColumnType(0x06);
    pub const TIMESTAMP: ColumnType = ColumnType(0x07);
    pub const LONGLONG: ColumnType = ColumnType(0x08);
    pub const INT24: ColumnType = ColumnType(0x09);
    pub const DATE: ColumnType = ColumnType(0x0a);
    pub const TIME: ColumnType = ColumnType(0x0b);
    pub const DATETIME: ColumnType = ColumnType(0x0c);
    pub const YEAR: ColumnType = ColumnType(0x0d);
    pub const VARCHAR: ColumnType = ColumnType(0x0f);
    pub const BIT: ColumnType = ColumnType(0x10);
    pub const JSON: ColumnType = ColumnType(0xf5);
    pub const NEWDECIMAL: ColumnType = ColumnType(0xf6);
    pub const ENUM: ColumnType = ColumnType(0xf7);
    pub const SET: ColumnType = ColumnType(0xf8);
    pub const TINY_BLOB: ColumnType = ColumnType(0xf9);
    pub const MEDIUM_BLOB: ColumnType = ColumnType(0xfa);
    pub const LONG_BLOB: ColumnType = ColumnType(0xfb);
    pub const BLOB: ColumnType = ColumnType(0xfc);
    pub const VAR_STRING: ColumnType = ColumnType(0xfd);
    pub const STRING: ColumnType = ColumnType(0xfe);
    pub const GEOMETRY: ColumnType = ColumnType(0xff);

    /// True for the temporal types whose `decimals` give the fractional-second digits.
    pub fn has_fractional_seconds(self) -> bool {
        matches!(
            self,
            ColumnType::DATETIME | ColumnType::TIMESTAMP | ColumnType::TIME
        )
    }
}

/// Column flags (`*_FLAG` in MySQL).
pub mod column_flags {
    pub const NOT_NULL: u16 = 0x0001;
    pub const PRI_KEY: u16 = 0x0002;
    pub const UNIQUE_KEY: u16 = 0x0004;
    pub const MULTIPLE_KEY: u16 = 0x0008;
    pub const BLOB: u16 = 0x0010;
    pub const UNSIGNED: u16 = 0x0020;
    pub const ZEROFILL: u16 = 0x0040;
    pub const BINARY: u16 = 0x0080;
    pub const AUTO_INCREMENT: u16 = 0x0200;
    pub const TIMESTAMP: u16 = 0x0400;
    pub const NO_DEFAULT_VALUE: u16 = 0x1000;
    pub const ON_UPDATE_NOW: u16 = 0x2000;
    pub const PART_KEY: u16 = 0x4000;
    pub const NUM: u16 = 0x8000;
    /// An ENUM column.
    pub const ENUM: u16 = 0x0100;
    /// A SET column.
    pub const SET: u16 = 0x0800;
}

/// Character set / collation ids used in column definitions.
pub mod charset {
    /// utf8mb4_general_ci: every character column.
    pub const UTF8MB4_GENERAL_CI: u16 = 45;
    /// utf8mb3_general_ci (what the CLI asks for).
    pub const UTF8_GENERAL_CI: u16 = 33;
    /// utf8mb4_bin.
    pub const UTF8MB4_BIN: u16 = 46;
    /// binary: numbers, dates, binary strings.
    pub const BINARY: u16 = 63;
}

/// MariaDB's extended type info of a column (sent only to clients that asked for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ExtendedTypeInfo {
    /// Nothing to add: an empty block.
    #[default]
    None,
    /// Format "json": a JSON column or the result of a JSON function (its wire type is a
    /// string or blob type).
    Json,
    /// A data type name: types sent as another wire type (`point`, `inet6`, `uuid`).
    TypeName(&'static str),
}

/// Keys inside the extended type info block.
mod extended_key {
    pub const TYPE_NAME: u8 = 0;
    pub const FORMAT: u8 = 1;
}

/// Type names this crate recognises when parsing the block (client side).
const KNOWN_TYPE_NAMES: &[&str] = &[
    "point",
    "linestring",
    "polygon",
    "multipoint",
    "multilinestring",
    "multipolygon",
    "geometrycollection",
    "inet4",
    "inet6",
    "uuid",
];

impl ExtendedTypeInfo {
    /// Appends the block (with its length).
    fn encode(self, out: &mut Vec<u8>) {
        let (key, value) = match self {
            ExtendedTypeInfo::None => return out.push(0),
            ExtendedTypeInfo::Json => (extended_key::FORMAT, "json"),
            ExtendedTypeInfo::TypeName(name) => (extended_key::TYPE_NAME, name),
        };
        // A name is short: one length byte each.
        let value = &value.as_bytes()[..value.len().min(250)];
        out.push((2 + value.len()) as u8);
        out.push(key);
        put_lenenc_bytes(out, value);
    }

    /// Reads a block (client side). Unknown names and keys read as `None`.
    fn parse(r: &mut Reader<'_>) -> Result<ExtendedTypeInfo> {
        let mut block = Reader::new(r.lenenc_bytes("column extended metadata")?);
        let mut info = ExtendedTypeInfo::None;
        while !block.is_empty() {
            let key = block.u8("column extended metadata key")?;
            let value = block.lenenc_bytes("column extended metadata value")?;
            match key {
                extended_key::FORMAT if value == b"json" => info = ExtendedTypeInfo::Json,
                extended_key::TYPE_NAME => {
                    if let Some(n) = KNOWN_TYPE_NAMES.iter().find(|n| n.as_bytes() == value) {
                        info = ExtendedTypeInfo::TypeName(n);
                    }
                }
                _ => {}
            }
        }
        Ok(info)
    }
}

/// One column of a result set, as sent in ColumnDefinition41.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDefinition {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    pub charset: u16,
    /// Maximum display length in bytes (`column_length`).
    pub column_length: u32,
    pub column_type: ColumnType,
    pub flags: u16,
    pub decimals: u8,
    /// MariaDB's extended type info, for clients that negotiated it.
    pub extended: ExtendedTypeInfo,
}

impl ColumnDefinition {
    /// A column with only a name and a type; the other fields are empty.
    pub fn simple(
        name: &str,
        column_type: ColumnType,
        charset: u16,
        column_length: u32,
    ) -> ColumnDefinition {
        ColumnDefinition {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: name.to_string(),
            org_name: String::new(),
            charset,
            column_length,
            column_type,
            flags: 0,
            decimals: 0,
            extended: ExtendedTypeInfo::None,
        }
    }
}

impl ColumnDefinition {
    /// A prepared statement's parameter definition as MariaDB sends it: name and org_name
    /// "?", charset binary (63), length 0, type NULL (6), flags BINARY. Clients ignore its
    /// contents, but one must be sent per parameter.
    pub fn param() -> ColumnDefinition {
        ColumnDefinition {
            name: "?".to_string(),
            org_name: "?".to_string(),
            flags: column_flags::BINARY,
            ..ColumnDefinition::simple("", ColumnType::NULL, charset::BINARY, 0)
        }
    }

    /// Appends the ColumnDefinition41 payload (no extended metadata).
    pub fn encode(&self, out: &mut Vec<u8>) {
        self.encode_with(out, false);
    }

    /// Appends the ColumnDefinition41 payload, with the extended type info block when the
    /// client negotiated `MARIADB_CLIENT_EXTENDED_METADATA` (`extended`).
    pub fn encode_with(&self, out: &mut Vec<u8>, extended: bool) {
        self.encode_names_with(out, extended, &|name| Cow::Borrowed(name.as_bytes()));
    }

    /// [`Self::encode_with`], each name written as `names` makes it (the server converts
    /// them to the client's `character_set_results`).
    pub fn encode_names_with(
        &self,
        out: &mut Vec<u8>,
        extended: bool,
        names: &dyn Fn(&str) -> Cow<'_, [u8]>,
    ) {
        put_lenenc_bytes(out, CATALOG);
        for name in [
            &self.schema,
            &self.table,
            &self.org_table,
            &self.name,
            &self.org_name,
        ] {
            put_lenenc_bytes(out, &names(name));
        }
        if extended {
            self.extended.encode(out);
        }
        out.push(FIXED_FIELDS_LEN);
        put_u16(out, self.charset);
        put_u32(out, self.column_length);
        out.push(self.column_type.0);
        put_u16(out, self.flags);
        out.push(self.decimals);
        out.extend_from_slice(&[0, 0]);
    }

    /// Parses a ColumnDefinition41 payload (client side). Names are decoded lossily.
    pub fn parse(payload: &[u8]) -> Result<ColumnDefinition> {
        Self::parse_with(payload, false)
    }

    /// Parses a ColumnDefinition41 payload that carries the extended type info block when
    /// `extended` (`MARIADB_CLIENT_EXTENDED_METADATA` negotiated).
    pub fn parse_with(payload: &[u8], extended: bool) -> Result<ColumnDefinition> {
        let mut r = Reader::new(payload);
        r.lenenc_bytes("column catalog")?;
        let mut name = |what| -> Result<String> {
            Ok(String::from_utf8_lossy(r.lenenc_bytes(what)?).into_owned())
        };
        let schema = name("column schema")?;
        let table = name("column table")?;
        let org_table = name("column org_table")?;
        let col_name = name("column name")?;
        let org_name = name("column org_name")?;
        let ext = match extended {
            true => ExtendedTypeInfo::parse(&mut r)?,
            false => ExtendedTypeInfo::None,
        };
        if r.lenenc_int("column fixed length")? < 12 {
            return Err(ProtocolError::Malformed {
                what: "column fixed length",
            });
        }
        Ok(ColumnDefinition {
            schema,
            table,
            org_table,
            name: col_name,
            org_name,
            charset: r.u16("column charset")?,
            column_length: r.u32("column length")?,
            column_type: ColumnType(r.u8("column type")?),
            flags: r.u16("column flags")?,
            decimals: r.u8("column decimals")?,
            extended: ext,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JSON column `j` of `d1.x`, as MariaDB 10.11 sends it to a client that asked for
    /// extended metadata (and without it).
    #[test]
    fn json_column_is_mariadbs_bytes() {
        let col = ColumnDefinition {
            schema: "d1".into(),
            table: "x".into(),
            org_table: "x".into(),
            name: "j".into(),
            org_name: "j".into(),
            charset: charset::UTF8MB4_GENERAL_CI,
            column_length: u32::MAX,
            column_type: ColumnType::BLOB,
            flags: column_flags::BLOB | column_flags::BINARY,
            decimals: 0,
            extended: ExtendedTypeInfo::Json,
        };
        let mut out = Vec::new();
        col.encode_with(&mut out, true);
        let mut want = b"\x03def\x02d1\x01x\x01x\x01j\x01j".to_vec();
        want.extend_from_slice(b"\x06\x01\x04json");
        want.extend_from_slice(b"\x0c\x2d\x00\xff\xff\xff\xff\xfc\x90\x00\x00\x00\x00");
        assert_eq!(out, want);
        assert_eq!(ColumnDefinition::parse_with(&out, true).unwrap(), col);
        out.clear();
        col.encode(&mut out);
        assert_eq!(&out[..16], b"\x03def\x02d1\x01x\x01x\x01j\x01j\x0c");
        let plain = ColumnDefinition::parse(&out).unwrap();
        assert_eq!(plain.extended, ExtendedTypeInfo::None);
    }

    #[test]
    fn other_columns_carry_an_empty_block_and_type_names_a_key_0() {
        let mut col = ColumnDefinition::simple("n", ColumnType::LONG, charset::BINARY, 11);
        let mut out = Vec::new();
        col.encode_with(&mut out, true);
        assert_eq!(&out[..12], b"\x03def\x00\x00\x00\x01n\x00\x00\x0c");
        assert_eq!(ColumnDefinition::parse_with(&out, true).unwrap(), col);
        col.extended = ExtendedTypeInfo::TypeName("inet6");
        out.clear();
        col.encode_with(&mut out, true);
        assert_eq!(&out[10..19], b"\x07\x00\x05inet6\x0c");
        assert_eq!(ColumnDefinition::parse_with(&out, true).unwrap(), col);
        // A block that overruns the payload is an error, not a panic.
        assert!(ColumnDefinition::parse_with(&out[..13], true).is_err());
    }
}
