//! Table_map optional metadata: what `binlog_row_metadata = MINIMAL | FULL` adds after the
//! null bitmap, so that change-data-capture clients learn column names, signedness, character
//! sets and the primary key from the binlog alone.
//!
//! The block is a sequence of fields `type u8 | length lenenc | value`; readers skip fields
//! they do not know. The fields MariaDB 10.11 writes for the column types Cohort has (captured
//! from a real server, see `tests/golden.rs`), in this order:
//!
//! | type | field | written with | value |
//! |---:|---|---|---|
//! | 1 | SIGNEDNESS | MINIMAL, FULL | one bit per numeric column (integers, DECIMAL, FLOAT, DOUBLE), most significant bit first, 1 = unsigned |
//! | 2 | DEFAULT_CHARSET | MINIMAL, FULL | the most used collation id (lenenc), then `(index, collation)` lenenc pairs for the character columns that differ (index among character columns) |
//! | 3 | COLUMN_CHARSET | MINIMAL, FULL | one collation id (lenenc) per character column — instead of 2 when shorter |
//! | 10 | ENUM_AND_SET_DEFAULT_CHARSET | MINIMAL, FULL | as 2, over the ENUM and SET columns |
//! | 11 | ENUM_AND_SET_COLUMN_CHARSET | MINIMAL, FULL | as 3, over the ENUM and SET columns — instead of 10 when shorter |
//! | 4 | COLUMN_NAME | FULL | one lenenc string per column |
//! | 5 | SET_STR_VALUE | FULL | per SET column: the member count (lenenc), then each member as a lenenc string |
//! | 6 | ENUM_STR_VALUE | FULL | the same for each ENUM column |
//! | 8 | SIMPLE_PRIMARY_KEY | FULL | the key's column indexes (lenenc), in key order |
//! | 9 | PRIMARY_KEY_WITH_PREFIX | FULL | `(column, prefix length)` lenenc pairs, 0 = the whole column — instead of 8 when a part is a prefix |
//!
//! Character columns are CHAR, VARCHAR, TEXT and their binary forms (BINARY, VARBINARY, BLOB,
//! collation 63): every column whose kind is `String`, `VarString` or `Blob`. DEFAULT_CHARSET
//! is chosen when its encoding is no longer than COLUMN_CHARSET's; the most used collation is
//! the smallest id among the most frequent (MySQL's rule).

use crate::types::ColumnKind;
use crate::wire::{put_lenenc, utf8, Cursor};

/// Field types of the optional metadata block.
mod field {
    pub const SIGNEDNESS: u8 = 1;
    pub const DEFAULT_CHARSET: u8 = 2;
    pub const COLUMN_CHARSET: u8 = 3;
    pub const COLUMN_NAME: u8 = 4;
    pub const SET_STR_VALUE: u8 = 5;
    pub const ENUM_STR_VALUE: u8 = 6;
    pub const SIMPLE_PRIMARY_KEY: u8 = 8;
    pub const PRIMARY_KEY_WITH_PREFIX: u8 = 9;
    pub const ENUM_AND_SET_DEFAULT_CHARSET: u8 = 10;
    pub const ENUM_AND_SET_COLUMN_CHARSET: u8 = 11;
}

/// What `binlog_row_metadata` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RowMetadata {
    /// No optional metadata (MariaDB's default).
    #[default]
    NoLog,
    /// Signedness and character sets.
    Minimal,
    /// Also column names and the primary key.
    Full,
}

/// One part of a primary key: a column, and the prefix length it indexes (0: the whole
/// column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyPart {
    pub column: u32,
    pub prefix: u32,
}

/// The optional metadata of one Table_map. Each field is written when present; a decoded
/// Table_map has exactly the fields its event carried.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TableMeta {
    /// SIGNEDNESS: written when the table has a numeric column. The kinds of the columns carry
    /// the signedness itself ([`ColumnKind::is_unsigned`]).
    pub signedness: bool,
    /// The collation id of every character column, in column order.
    pub charsets: Option<Vec<u16>>,
    /// COLUMN_NAME: one per column.
    pub column_names: Option<Vec<String>>,
    /// The primary key, if the table has one.
    pub primary_key: Option<Vec<KeyPart>>,
    /// The collation id of every ENUM and SET column, in column order.
    pub enum_set_charsets: Option<Vec<u16>>,
    /// SET_STR_VALUE: the members of every SET column, in column order, as bytes of the
    /// column's character set (a latin1 column's are latin1, not UTF-8).
    pub set_values: Option<Vec<Vec<Vec<u8>>>>,
    /// ENUM_STR_VALUE: the members of every ENUM column, in column order (bytes, as SET's).
    pub enum_values: Option<Vec<Vec<Vec<u8>>>>,
}

impl TableMeta {
    /// Only SIGNEDNESS: what a reader needs to give back unsigned integers exactly.
    pub fn signedness() -> TableMeta {
        TableMeta {
            signedness: true,
            ..TableMeta::default()
        }
    }

    /// Appends the fields present. `kinds` are the table's columns.
    pub(crate) fn encode(&self, kinds: &[ColumnKind], out: &mut Vec<u8>) {
        let numeric: Vec<bool> = kinds
            .iter()
            .filter(|k| k.is_numeric())
            .map(|k| k.is_unsigned())
            .collect();
        if self.signedness && !numeric.is_empty() {
            let mut bits = vec![0u8; numeric.len().div_ceil(8)];
            for (i, _) in numeric.iter().enumerate().filter(|(_, u)| **u) {
                bits[i / 8] |= 0x80 >> (i % 8);
            }
            put_field(out, field::SIGNEDNESS, &bits);
        }
        if let Some(charsets) = self.charsets.as_deref().filter(|c| !c.is_empty()) {
            let (code, value) = charset_field(charsets);
            put_field(out, code, &value);
        }
        if let Some(charsets) = self.enum_set_charsets.as_deref().filter(|c| !c.is_empty()) {
            let (code, value) = charset_field(charsets);
            let code = if code == field::DEFAULT_CHARSET {
                field::ENUM_AND_SET_DEFAULT_CHARSET
            } else {
                field::ENUM_AND_SET_COLUMN_CHARSET
            };
            put_field(out, code, &value);
        }
        if let Some(names) = &self.column_names {
            let mut value = Vec::new();
            for n in names {
                put_lenenc(&mut value, n.len() as u64);
                value.extend_from_slice(n.as_bytes());
            }
            put_field(out, field::COLUMN_NAME, &value);
        }
        for (code, lists) in [
            (field::SET_STR_VALUE, &self.set_values),
            (field::ENUM_STR_VALUE, &self.enum_values),
        ] {
            let Some(lists) = lists.as_ref().filter(|l| !l.is_empty()) else {
                continue;
            };
            let mut value = Vec::new();
            for members in lists {
                put_lenenc(&mut value, members.len() as u64);
                for m in members {
                    put_lenenc(&mut value, m.len() as u64);
                    value.extend_from_slice(m);
                }
            }
            put_field(out, code, &value);
        }
        if let Some(parts) = &self.primary_key {
            let mut value = Vec::new();
            let prefixed = parts.iter().any(|p| p.prefix != 0);
            for p in parts {
                put_lenenc(&mut value, p.column as u64);
                if prefixed {
                    put_lenenc(&mut value, p.prefix as u64);
                }
            }
            let code = if prefixed {
                field::PRIMARY_KEY_WITH_PREFIX
            } else {
                field::SIMPLE_PRIMARY_KEY
            };
            put_field(out, code, &value);
        }
    }

    /// Reads the block (the rest of the event body); applies SIGNEDNESS to `kinds`. Unknown
    /// fields are skipped.
    pub(crate) fn decode(
        c: &mut Cursor<'_>,
        kinds: &mut [ColumnKind],
    ) -> Result<TableMeta, String> {
        let mut meta = TableMeta::default();
        let char_columns = kinds.iter().filter(|k| k.is_character()).count();
        while !c.is_empty() {
            let code = c.u8()?;
            let len = usize::try_from(c.lenenc()?).map_err(|_| "field length".to_string())?;
            let mut v = Cursor::new(c.take(len)?);
            match code {
                field::SIGNEDNESS => {
                    meta.signedness = true;
                    let numeric = kinds.iter_mut().filter(|k| k.is_numeric());
                    let bits = v.rest();
                    for (i, k) in numeric.enumerate() {
                        let byte = bits.get(i / 8).copied().unwrap_or(0);
                        *k = k.with_unsigned(byte & (0x80 >> (i % 8)) != 0);
                    }
                }
                field::DEFAULT_CHARSET => {
                    let default = lenenc_u16(&mut v)?;
                    let mut all = vec![default; char_columns];
                    while !v.is_empty() {
                        let i = v.lenenc()? as usize;
                        let cs = lenenc_u16(&mut v)?;
                        *all.get_mut(i).ok_or("charset of a column out of range")? = cs;
                    }
                    meta.charsets = Some(all);
                }
                field::COLUMN_CHARSET => {
                    let mut all = Vec::with_capacity(char_columns);
                    while !v.is_empty() && all.len() <= char_columns {
                        all.push(lenenc_u16(&mut v)?);
                    }
                    meta.charsets = Some(all);
                }
                field::ENUM_AND_SET_DEFAULT_CHARSET | field::ENUM_AND_SET_COLUMN_CHARSET => {
                    let n = kinds
                        .iter()
                        .filter(|k| matches!(k, ColumnKind::Enum { .. } | ColumnKind::Set { .. }))
                        .count();
                    let mut all = Vec::with_capacity(n);
                    if code == field::ENUM_AND_SET_DEFAULT_CHARSET {
                        let default = lenenc_u16(&mut v)?;
                        all = vec![default; n];
                        while !v.is_empty() {
                            let i = v.lenenc()? as usize;
                            let cs = lenenc_u16(&mut v)?;
                            *all.get_mut(i).ok_or("charset of a column out of range")? = cs;
                        }
                    } else {
                        while !v.is_empty() && all.len() <= n {
                            all.push(lenenc_u16(&mut v)?);
                        }
                    }
                    meta.enum_set_charsets = Some(all);
                }
                field::SET_STR_VALUE | field::ENUM_STR_VALUE => {
                    let mut lists = Vec::new();
                    while !v.is_empty() && lists.len() <= kinds.len() {
                        let count = v.lenenc()?;
                        let mut members = Vec::new();
                        for _ in 0..count {
                            // Each member takes at least its length byte: a count past
                            // the field's bytes ends here.
                            if v.is_empty() {
                                return Err("member list past the field".into());
                            }
                            let n = v.lenenc()? as usize;
                            members.push(v.take(n)?.to_vec());
                        }
                        lists.push(members);
                    }
                    if code == field::SET_STR_VALUE {
                        meta.set_values = Some(lists);
                    } else {
                        meta.enum_values = Some(lists);
                    }
                }
                field::COLUMN_NAME => {
                    let mut names = Vec::with_capacity(kinds.len());
                    while !v.is_empty() && names.len() <= kinds.len() {
                        let n = v.lenenc()? as usize;
                        names.push(utf8(v.take(n)?, "column name")?);
                    }
                    meta.column_names = Some(names);
                }
                field::SIMPLE_PRIMARY_KEY | field::PRIMARY_KEY_WITH_PREFIX => {
                    let mut parts = Vec::new();
                    while !v.is_empty() && parts.len() <= kinds.len() {
                        let column = v.lenenc()? as u32;
                        let prefix = if code == field::PRIMARY_KEY_WITH_PREFIX {
                            v.lenenc()? as u32
                        } else {
                            0
                        };
                        parts.push(KeyPart { column, prefix });
                    }
                    meta.primary_key = Some(parts);
                }
                _ => {}
            }
        }
        Ok(meta)
    }
}

fn lenenc_u16(c: &mut Cursor<'_>) -> Result<u16, String> {
    u16::try_from(c.lenenc()?).map_err(|_| "collation id over 65535".to_string())
}

fn put_field(out: &mut Vec<u8>, code: u8, value: &[u8]) {
    out.push(code);
    put_lenenc(out, value.len() as u64);
    out.extend_from_slice(value);
}

fn lenenc_len(v: u64) -> usize {
    match v {
        0..=250 => 1,
        251..=0xffff => 3,
        0x1_0000..=0xff_ffff => 4,
        _ => 9,
    }
}

/// DEFAULT_CHARSET or COLUMN_CHARSET, whichever is shorter (DEFAULT on a tie).
fn charset_field(charsets: &[u16]) -> (u8, Vec<u8>) {
    let mut counts: std::collections::BTreeMap<u16, usize> = Default::default();
    for &c in charsets {
        *counts.entry(c).or_default() += 1;
    }
    // The smallest id among the most frequent (iteration is in id order; strict `>`).
    let mut default = (0u16, 0usize);
    for (&id, &n) in &counts {
        if n > default.1 {
            default = (id, n);
        }
    }
    let default = default.0;
    let exceptions: Vec<(usize, u16)> = charsets
        .iter()
        .enumerate()
        .filter(|(_, &c)| c != default)
        .map(|(i, &c)| (i, c))
        .collect();
    let default_len = lenenc_len(default as u64)
        + exceptions
            .iter()
            .map(|&(i, c)| lenenc_len(i as u64) + lenenc_len(c as u64))
            .sum::<usize>();
    let column_len: usize = charsets.iter().map(|&c| lenenc_len(c as u64)).sum();
    let mut value = Vec::new();
    if default_len <= column_len {
        put_lenenc(&mut value, default as u64);
        for (i, c) in exceptions {
            put_lenenc(&mut value, i as u64);
            put_lenenc(&mut value, c as u64);
        }
        (field::DEFAULT_CHARSET, value)
    } else {
        for &c in charsets {
            put_lenenc(&mut value, c as u64);
        }
        (field::COLUMN_CHARSET, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ColumnKind as K;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// MariaDB 10.11.19, `binlog_row_metadata=FULL`, the table of `tests/golden.rs`'s
    /// `all_types`: the optional block after the null bitmap.
    #[test]
    fn full_metadata_is_byte_for_byte_mariadbs() {
        let kinds = [
            K::Long { unsigned: true },
            K::Tiny { unsigned: false },
            K::Tiny { unsigned: true },
            K::Short { unsigned: false },
            K::Int24 { unsigned: true },
            K::LongLong { unsigned: false },
            K::LongLong { unsigned: true },
            K::NewDecimal {
                precision: 10,
                scale: 2,
            },
            K::Float,
            K::Double,
            K::String { max_bytes: 40 },
            K::String { max_bytes: 20 },
            K::VarString { max_bytes: 80 },
            K::VarString { max_bytes: 8 },
            K::String { max_bytes: 4 },
            K::Blob { len_bytes: 2 },
            K::Blob { len_bytes: 1 },
            K::Blob { len_bytes: 2 },
            K::Blob { len_bytes: 4 },
            K::Date,
            K::DateTime2 { fsp: 3 },
            K::Timestamp2 { fsp: 6 },
        ];
        let names = [
            "id", "ti", "tu", "si", "mi", "bi", "bu", "de", "fl", "do", "c", "cb", "vc", "vb",
            "bn", "tx", "tt", "bl", "lb", "dt", "dtt", "ts",
        ];
        let meta = TableMeta {
            signedness: true,
            charsets: Some(vec![45, 46, 45, 63, 63, 45, 45, 63, 63]),
            column_names: Some(names.iter().map(|s| s.to_string()).collect()),
            primary_key: Some(vec![KeyPart {
                column: 0,
                prefix: 0,
            }]),
            ..TableMeta::default()
        };
        let mut out = Vec::new();
        meta.encode(&kinds, &mut out);
        assert_eq!(
            hex(&out),
            "0102aa0003092d2e2d3f3f2d2d3f3f0442026964027469027475027369026d6902626902627502646502\
             666c02646f016302636202766302766202626e02747802747402626c026c6202647403647474027473\
             080100"
        );
        let mut decoded_kinds: Vec<ColumnKind> =
            kinds.iter().map(|k| k.with_unsigned(false)).collect();
        let back = TableMeta::decode(&mut Cursor::new(&out), &mut decoded_kinds).unwrap();
        assert_eq!(back, meta);
        assert_eq!(decoded_kinds, kinds);
    }

    /// MariaDB: a single character column uses DEFAULT_CHARSET; a two-part key keeps its
    /// order (`PRIMARY KEY (b, a)`).
    #[test]
    fn default_charset_and_key_order_as_mariadb() {
        let kinds = [
            K::Long { unsigned: false },
            K::VarString { max_bytes: 40 },
            K::Long { unsigned: false },
        ];
        let meta = TableMeta {
            signedness: true,
            charsets: Some(vec![45]),
            column_names: Some(vec!["a".into(), "b".into(), "c".into()]),
            primary_key: Some(vec![
                KeyPart {
                    column: 1,
                    prefix: 0,
                },
                KeyPart {
                    column: 0,
                    prefix: 0,
                },
            ]),
            ..TableMeta::default()
        };
        let mut out = Vec::new();
        meta.encode(&kinds, &mut out);
        assert_eq!(hex(&out), "01010002012d040601610162016308020100");
        // A latin1 CHAR(3) beside an INT, MINIMAL.
        let minimal = TableMeta {
            signedness: true,
            charsets: Some(vec![8]),
            ..TableMeta::default()
        };
        let mut out = Vec::new();
        minimal.encode(
            &[K::Long { unsigned: false }, K::String { max_bytes: 3 }],
            &mut out,
        );
        assert_eq!(hex(&out), "010100020108");
    }

    /// ENUM / SET: their character sets (MINIMAL and FULL) and member lists (FULL).
    #[test]
    fn enum_and_set_fields() {
        let kinds = [
            K::Long { unsigned: false },
            K::Enum { pack_len: 1 },
            K::Set { pack_len: 1 },
            K::Enum { pack_len: 1 },
        ];
        let meta = TableMeta {
            signedness: true,
            enum_set_charsets: Some(vec![45, 45, 46]),
            set_values: Some(vec![vec![b"x".to_vec(), b"yz".to_vec()]]),
            enum_values: Some(vec![vec![b"a".to_vec()], vec![]]),
            ..TableMeta::default()
        };
        let mut out = Vec::new();
        meta.encode(&kinds, &mut out);
        assert_eq!(hex(&out), "0101000a032d022e050602017802797a060401016100");
        let mut k = kinds;
        let back = TableMeta::decode(&mut Cursor::new(&out), &mut k).unwrap();
        assert_eq!(back, meta);
        // A member count past the field's bytes is an error, not a long loop.
        let bad = [5u8, 2, 0xfe, 0xff];
        assert!(TableMeta::decode(&mut Cursor::new(&bad), &mut k).is_err());
    }

    #[test]
    fn prefix_keys_and_unknown_fields() {
        let kinds = [K::VarString { max_bytes: 400 }, K::Long { unsigned: false }];
        let meta = TableMeta {
            primary_key: Some(vec![
                KeyPart {
                    column: 0,
                    prefix: 10,
                },
                KeyPart {
                    column: 1,
                    prefix: 0,
                },
            ]),
            ..TableMeta::default()
        };
        let mut out = Vec::new();
        meta.encode(&kinds, &mut out);
        assert_eq!(hex(&out), "0904000a0100");
        // An unknown field (GEOMETRY_TYPE, 7) is skipped.
        let mut with_unknown = vec![7, 3, 1, 2, 3];
        with_unknown.extend_from_slice(&out);
        let mut k = kinds;
        let back = TableMeta::decode(&mut Cursor::new(&with_unknown), &mut k).unwrap();
        assert_eq!(back, meta);
    }
}
