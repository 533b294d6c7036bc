//! Hostile values: SQL literals and binary COM_STMT_EXECUTE parameters.
//!
//! Each generator mixes ordinary values (so that statements succeed and tables fill up) with
//! the edges where servers break: integer type boundaries and one past them, 20-digit and
//! 60+-digit numbers, DECIMAL's 65 digits / 30 scale and one past, 29-digit values around
//! 2^96 (where 96-bit decimal types end), exponents beyond `f64`, negative zero, empty and
//! very long strings, escapes, raw bytes that are not UTF-8, impossible dates.

use crate::rng::Rng;
use crate::tree::{num, prefixed_string, string, tok, Lit, Node};

/// Integers at and around every type boundary.
pub const EDGE_INTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "127",
    "128",
    "-128",
    "-129",
    "255",
    "256",
    "32767",
    "32768",
    "-32769",
    "65535",
    "65536",
    "8388607",
    "8388608",
    "16777215",
    "16777216",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "-18446744073709551616",
    "99999999999999999999",
    "79228162514264337593543950335",
    "79228162514264337593543950336",
    "-79228162514264337593543950335",
];

/// Decimal literals: precision and scale edges.
pub const EDGE_DECIMALS: &[&str] = &[
    "0.5",
    "-0.5",
    "0.0",
    "-0.00",
    "0.0000000000000000000000000001",
    "0.00000000000000000000000000001",
    "0.000000000000000000000000000000001",
    "1.5",
    ".5",
    "5.",
    "000123.4500",
    "79228162514264337593543950334.5",
    "79228162514264337593543950335.5",
    "7922816251426433759354395033.5",
    "99999999999999999999999999999999999.999999999999999999999999999999",
    "-99999999999999999999999999999999999.999999999999999999999999999999",
    "12345678901234567890123456789012345678901234567890123456789012345",
    "123456789012345678901234567890123456789012345678901234567890123456",
    "0.123456789012345678901234567890",
    "0.1234567890123456789012345678901",
    "9999999999999999999999999999999999999999999999999999999999999999999999.5",
];

/// Approximate-number literals.
pub const EDGE_FLOATS: &[&str] = &[
    "1e0",
    "1e308",
    "1.7976931348623157e308",
    "1.8e308",
    "1e309",
    "-1e308",
    "2.2250738585072014e-308",
    "4.9e-324",
    "1e-400",
    "1e-30",
    "1e30",
    "3.4028235e38",
    "3.5e38",
    "-0e0",
    "1.5e-7",
    "9.999999999999999e22",
];

/// String bodies as source text (escapes written out).
pub const EDGE_STRINGS: &[&str] = &[
    "",
    "a",
    "abc",
    " ",
    "0",
    "1",
    "-1",
    " 12abc",
    "1e500",
    "-",
    "0x10",
    "1.2.3",
    "9223372036854775808",
    "79228162514264337593543950336",
    "\\0",
    "\\n\\t\\r",
    "\\'",
    "\\\"",
    "\\\\",
    "\\Z",
    "\\%\\_",
    "%",
    "_",
    "%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%b",
    "é",
    "日本語",
    "😀",
    "a\tb\nc,d",
    "NULL",
];

/// Date and time texts, valid and not.
pub const EDGE_TEMPORALS: &[&str] = &[
    "0000-00-00",
    "0000-00-00 00:00:00",
    "2024-02-30",
    "9999-12-31 23:59:59.999999",
    "9999-12-31 23:59:59.9999999",
    "10000-01-01",
    "1970-01-01 00:00:00",
    "2038-01-19 03:14:08",
    "838:59:59",
    "-838:59:59.000001",
    "25:61:61",
];

/// Raw byte sequences that are not UTF-8 (the wire carries them; the server must cope).
const RAW_BYTES: &[&[u8]] = &[
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xf8\x88\x80\x80\x80",
    b"\x80\x80",
];

/// A number literal of any kind.
pub fn number(rng: &mut Rng) -> Node {
    num(number_text(rng))
}

pub fn number_text(rng: &mut Rng) -> String {
    match rng.weighted(&[5, 4, 2, 2, 2, 1, 3]) {
        0 => rng.pick(EDGE_INTS).to_string(),
        1 => small_int(rng).to_string(),
        2 => rng.pick(EDGE_DECIMALS).to_string(),
        3 => random_decimal(rng),
        4 => rng.pick(EDGE_FLOATS).to_string(),
        5 => long_digits(rng),
        _ => near_boundary(rng),
    }
}

/// A number just around a binary boundary where integer and 96-bit decimal types end
/// (2^63, 2^64, 2^96, 10^28, 10^38, 10^65), possibly with a fraction or a sign.
pub fn near_boundary(rng: &mut Rng) -> String {
    let base: u128 = match rng.below(6) {
        0 => 1 << 63,
        1 => 1 << 64,
        2 => 1 << 96,
        3 => 10u128.pow(28),
        _ => 10u128.pow(38),
    };
    let delta = rng.below(3) as u128;
    let mut s = if rng.bool() {
        base - 1 - delta
    } else {
        base + delta
    }
    .to_string();
    if rng.chance(1, 8) {
        // 10^65 − 1: DECIMAL's largest integer part.
        s = "9".repeat(65);
    }
    if rng.chance(1, 3) {
        s.push_str(rng.one(&[".5", ".4999999999", ".0000000001", ".9"]));
    }
    if rng.chance(1, 3) {
        s.insert(0, '-');
    }
    s
}

/// An integer literal (edge or small).
pub fn int_text(rng: &mut Rng) -> String {
    if rng.chance(1, 2) {
        rng.pick(EDGE_INTS).to_string()
    } else {
        small_int(rng).to_string()
    }
}

pub fn small_int(rng: &mut Rng) -> i64 {
    rng.range(0, 200) as i64 - 20
}

/// A decimal with up to 70 integer and 35 fraction digits.
pub fn random_decimal(rng: &mut Rng) -> String {
    let int_digits = rng.one(&[
        0usize, 1, 2, 9, 18, 19, 27, 28, 29, 30, 35, 36, 38, 64, 65, 66, 70,
    ]);
    let frac_digits = rng.one(&[0usize, 1, 2, 9, 10, 28, 29, 30, 31, 35]);
    let mut s = String::new();
    if rng.chance(1, 3) {
        s.push('-');
    }
    s.push_str(&digits(rng, int_digits.max(1)));
    if frac_digits > 0 {
        s.push('.');
        s.push_str(&digits(rng, frac_digits));
    }
    s
}

/// 60 to 200 digits, sometimes with an exponent.
fn long_digits(rng: &mut Rng) -> String {
    let n = rng.range(60, 200) as usize;
    let mut s = digits(rng, n);
    if rng.bool() {
        s.insert(n / 2, '.');
    }
    if rng.chance(1, 3) {
        s.push_str(&format!("e{}", rng.range(0, 400) as i64 - 200));
    }
    s
}

fn digits(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|i| {
            let d = if i == 0 {
                rng.range(1, 9)
            } else {
                rng.below(10)
            };
            char::from(b'0' + d as u8)
        })
        .collect()
}

/// A string literal: edge bodies, random text, raw bytes, long runs; sometimes with a
/// prefix (`_binary`, `N`, `_utf8mb4`, `_latin1`).
pub fn string_lit(rng: &mut Rng) -> Node {
    let body = string_body(rng);
    match rng.weighted(&[10, 1, 1, 1, 1]) {
        0 => string(body),
        1 => prefixed_string("_binary", body),
        2 => prefixed_string("N", body),
        3 => prefixed_string("_utf8mb4", body),
        _ => prefixed_string("_latin1", body),
    }
}

pub fn string_body(rng: &mut Rng) -> Vec<u8> {
    // Invalid UTF-8 makes Cohort refuse the whole statement (1064), so raw bytes are rare in
    // statement text; binary parameters carry them more often.
    match rng.weighted(&[30, 30, 1, 8, 1]) {
        0 if rng.chance(1, 5) => rng.pick(EDGE_TEMPORALS).as_bytes().to_vec(),
        0 => rng.pick(EDGE_STRINGS).as_bytes().to_vec(),
        1 => word(rng).into_bytes(),
        2 => {
            let mut b = word(rng).into_bytes();
            b.extend_from_slice(rng.one(RAW_BYTES));
            b
        }
        3 => {
            let n = rng.size(300, 70_000) as usize;
            let c = rng.one(b"x9 %");
            vec![c; n]
        }
        _ => {
            let n = rng.one(&[65_535usize, 65_536, 1 << 20]);
            vec![b'y'; n]
        }
    }
}

/// Bytes for a binary parameter or long data: text, numbers as text, or raw bytes.
pub fn param_bytes(rng: &mut Rng) -> Vec<u8> {
    if rng.chance(1, 4) {
        let mut b = word(rng).into_bytes();
        b.extend_from_slice(rng.one(RAW_BYTES));
        return b;
    }
    string_body(rng)
}

/// A short identifier-like word.
pub fn word(rng: &mut Rng) -> String {
    let n = rng.range(1, 8) as usize;
    (0..n)
        .map(|_| char::from(b'a' + rng.below(26) as u8))
        .collect()
}

/// Hex (`X'..'`) and bit (`b'..'`) literals.
pub fn hex_lit(rng: &mut Rng) -> Node {
    if rng.chance(1, 4) {
        let bits: String = (0..rng.range(0, 70))
            .map(|_| if rng.bool() { '1' } else { '0' })
            .collect();
        return tok(format!("b'{bits}'"));
    }
    let n = rng.size(8, 40) as usize;
    Node::Lit(Lit::Hex(rng.bytes(n)))
}

/// A date / time literal: `DATE '…'`, `TIMESTAMP '…'`, `TIME '…'`, or a bare string.
pub fn temporal_lit(rng: &mut Rng) -> Node {
    let body = temporal_text(rng);
    match rng.below(10) {
        0..=2 => prefixed_string("DATE ", body),
        3..=5 => prefixed_string("TIMESTAMP ", body),
        6 => prefixed_string("TIME ", body),
        _ => string(body),
    }
}

pub fn temporal_text(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => rng.pick(EDGE_TEMPORALS).to_string(),
        1 => format!(
            "{:04}-{:02}-{:02}",
            rng.range(0, 10_000),
            rng.range(0, 13),
            rng.range(0, 32)
        ),
        2 => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{}",
            rng.range(1000, 9999),
            rng.range(1, 12),
            rng.range(1, 28),
            rng.range(0, 24),
            rng.range(0, 60),
            rng.range(0, 60),
            rng.range(0, 9_999_999)
        ),
        _ => format!(
            "{}:{:02}:{:02}",
            rng.range(0, 900),
            rng.range(0, 61),
            rng.range(0, 61)
        ),
    }
}

/// Any literal.
pub fn literal(rng: &mut Rng) -> Node {
    match rng.weighted(&[10, 8, 3, 2, 2, 1]) {
        0 => number(rng),
        1 => string_lit(rng),
        2 => tok("NULL"),
        3 => temporal_lit(rng),
        4 => hex_lit(rng),
        _ => tok(rng.one(&["TRUE", "FALSE"])),
    }
}

// ---------------------------------------------------------------------------------------------
// Binary parameters

/// One COM_STMT_EXECUTE parameter: its wire type, flags, and value in the binary encoding of
/// that type (`None`: NULL).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub ty: u8,
    pub flags: u8,
    pub value: Option<Vec<u8>>,
}

impl Param {
    pub fn null() -> Param {
        Param {
            ty: 6,
            flags: 0,
            value: None,
        }
    }

    /// Human-readable form for reproducers.
    pub fn describe(&self) -> String {
        let unsigned = if self.flags & 0x80 != 0 {
            " UNSIGNED"
        } else {
            ""
        };
        let flags = if self.flags & !0x80 != 0 {
            format!(" flags=0x{:02x}", self.flags)
        } else {
            String::new()
        };
        let value = match &self.value {
            None => "NULL".to_string(),
            Some(v) => format!("{} = {}", hex(v), self.decode_hint(v)),
        };
        format!("{}{unsigned}{flags} {value}", type_name(self.ty))
    }

    fn decode_hint(&self, v: &[u8]) -> String {
        let int = |b: &[u8]| {
            let mut x = [0u8; 8];
            x[..b.len()].copy_from_slice(b);
            u64::from_le_bytes(x)
        };
        match (self.ty, v.len()) {
            (1, 1) | (2, 2) | (13, 2) | (3, 4) | (9, 4) | (8, 8) => {
                let bits = int(v);
                let width = v.len() * 8;
                let signed = ((bits << (64 - width)) as i64) >> (64 - width);
                if self.flags & 0x80 != 0 {
                    format!("{bits}")
                } else {
                    format!("{signed}")
                }
            }
            (4, 4) => format!("{:e}", f32::from_le_bytes([v[0], v[1], v[2], v[3]])),
            (5, 8) => format!("{:e}", f64::from_bits(int(v))),
            _ => format!("{:?}", String::from_utf8_lossy(v)),
        }
    }
}

/// Every byte in hex.
pub fn hex_full(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex, abbreviated past 64 bytes.
pub fn hex(bytes: &[u8]) -> String {
    if bytes.len() > 64 {
        return format!("<{} bytes: {}…>", bytes.len(), hex(&bytes[..32]));
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn type_name(ty: u8) -> String {
    let name = match ty {
        0x00 => "DECIMAL",
        0x01 => "TINY",
        0x02 => "SHORT",
        0x03 => "LONG",
        0x04 => "FLOAT",
        0x05 => "DOUBLE",
        0x06 => "NULL",
        0x07 => "TIMESTAMP",
        0x08 => "LONGLONG",
        0x09 => "INT24",
        0x0a => "DATE",
        0x0b => "TIME",
        0x0c => "DATETIME",
        0x0d => "YEAR",
        0x0f => "VARCHAR",
        0x10 => "BIT",
        0xf5 => "JSON",
        0xf6 => "NEWDECIMAL",
        0xf7 => "ENUM",
        0xf8 => "SET",
        0xf9 => "TINY_BLOB",
        0xfa => "MEDIUM_BLOB",
        0xfb => "LONG_BLOB",
        0xfc => "BLOB",
        0xfd => "VAR_STRING",
        0xfe => "STRING",
        0xff => "GEOMETRY",
        _ => return format!("type 0x{ty:02x}"),
    };
    name.to_string()
}

fn lenenc(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    cohort_protocol::codec::put_lenenc_bytes(&mut out, bytes);
    out
}

/// A parameter of a random type with a hostile value.
pub fn param(rng: &mut Rng) -> Param {
    if rng.chance(1, 10) {
        return Param::null();
    }
    let unsigned = if rng.chance(1, 4) { 0x80 } else { 0 };
    let (ty, value) = match rng.weighted(&[6, 3, 3, 4, 3, 3, 4, 6, 1, 1]) {
        0 => (0x08, int_bytes(rng, 8)),
        1 => (rng.one(&[0x01u8, 0x02, 0x03, 0x09, 0x0d]), {
            let w = match rng.below(3) {
                0 => 1,
                1 => 2,
                _ => 4,
            };
            int_bytes(rng, w)
        }),
        2 => (0x04, float_bytes(rng)),
        3 => (0x05, double_bytes(rng)),
        4 => (rng.one(&[0x07u8, 0x0a, 0x0c]), datetime_bytes(rng)),
        5 => (0x0b, time_bytes(rng)),
        6 => (
            rng.one(&[0xf6u8, 0x00]),
            lenenc(number_text(rng).as_bytes()),
        ),
        7 => (
            rng.one(&[0xfdu8, 0xfe, 0x0f, 0xfc, 0xf9, 0xfa, 0xfb]),
            lenenc(&param_bytes(rng)),
        ),
        8 => (
            rng.one(&[0x10u8, 0xf5, 0xf7, 0xf8, 0xff]),
            lenenc(&param_bytes(rng)),
        ),
        _ => {
            let n = rng.index(9);
            (
                rng.one(&[0x11u8, 0x12, 0x13, 0x0e, 0x33, 0xf4]),
                rng.bytes(n),
            )
        }
    };
    Param {
        ty,
        flags: unsigned,
        value: Some(value),
    }
}

/// The binary encoding of an edge integer (or a random one) in `width` bytes.
fn int_bytes(rng: &mut Rng, width: usize) -> Vec<u8> {
    let v: u64 = match rng.below(4) {
        0 => rng.one(&[
            0,
            1,
            u64::MAX,
            i64::MAX as u64,
            i64::MIN as u64,
            0x80,
            0x7F,
            0xFF,
        ]),
        1 => rng.next_u64(),
        _ => small_int(rng) as u64,
    };
    v.to_le_bytes()[..width].to_vec()
}

fn float_bytes(rng: &mut Rng) -> Vec<u8> {
    let v = rng.one(&[
        0.0f32,
        -0.0,
        1.5,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-45,
    ]);
    v.to_le_bytes().to_vec()
}

fn double_bytes(rng: &mut Rng) -> Vec<u8> {
    let v = rng.one(&[
        0.0f64,
        -0.0,
        0.1,
        -2.5,
        1e308,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        5e-324,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        9.223372036854776e18,
        1.8446744073709552e19,
        7.922816251426434e28,
        1e30,
    ]);
    v.to_le_bytes().to_vec()
}

/// A DATE/DATETIME/TIMESTAMP value: length 0/4/7/11 (sometimes a wrong length) and fields
/// that may be out of range.
fn datetime_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = rng.one(&[0u8, 4, 7, 11, 11, 11, 5, 255]);
    let mut out = vec![len];
    let field = |rng: &mut Rng, sane: u64| -> u8 {
        if rng.chance(1, 5) {
            rng.u8()
        } else {
            rng.range(0, sane) as u8
        }
    };
    if len >= 4 {
        let year: u16 = if rng.chance(1, 5) {
            rng.next_u64() as u16
        } else {
            rng.range(0, 9999) as u16
        };
        out.extend_from_slice(&year.to_le_bytes());
        out.push(field(rng, 12));
        out.push(field(rng, 31));
    }
    if len >= 7 {
        out.push(field(rng, 23));
        out.push(field(rng, 59));
        out.push(field(rng, 59));
    }
    if len >= 11 {
        let micros: u32 = if rng.chance(1, 5) {
            rng.next_u64() as u32
        } else {
            rng.range(0, 999_999) as u32
        };
        out.extend_from_slice(&micros.to_le_bytes());
    }
    if len == 5 || len == 255 {
        let n = rng.index(12);
        out.extend(rng.bytes(n));
    }
    out
}

/// A TIME value: length 0/8/12, days up to `u32::MAX`.
fn time_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = rng.one(&[0u8, 8, 12, 12, 9]);
    let mut out = vec![len];
    if len >= 8 {
        out.push(rng.below(3) as u8);
        let days: u32 = rng.one(&[0, 1, 34, 35, 100_000, u32::MAX]);
        out.extend_from_slice(&days.to_le_bytes());
        out.push(rng.u8() % if rng.bool() { 24 } else { 255 });
        out.push(rng.u8() % if rng.bool() { 60 } else { 255 });
        out.push(rng.u8() % if rng.bool() { 60 } else { 255 });
    }
    if len >= 12 {
        let micros: u32 = rng.one(&[0, 1, 999_999, 1_000_000, u32::MAX]);
        out.extend_from_slice(&micros.to_le_bytes());
    }
    if len == 9 {
        out.extend(rng.bytes(9));
    }
    out
}

/// The COM_STMT_EXECUTE payload for `params` (already cut to the statement's count).
pub fn execute_payload(stmt_id: u32, params: &[Param], send_types: bool) -> Vec<u8> {
    let mut out = vec![0x17];
    out.extend_from_slice(&stmt_id.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&1u32.to_le_bytes());
    if params.is_empty() {
        return out;
    }
    let bitmap_at = out.len();
    out.resize(bitmap_at + params.len().div_ceil(8), 0);
    for (i, p) in params.iter().enumerate() {
        if p.value.is_none() {
            out[bitmap_at + i / 8] |= 1 << (i % 8);
        }
    }
    out.push(u8::from(send_types));
    if send_types {
        for p in params {
            out.extend_from_slice(&[p.ty, p.flags]);
        }
    }
    for v in params.iter().filter_map(|p| p.value.as_ref()) {
        out.extend_from_slice(v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_protocol::{parse_execute, ParamValue};

    #[test]
    fn execute_payload_decodes_with_the_codec() {
        let params = vec![
            Param {
                ty: 0x08,
                flags: 0,
                value: Some((-5i64).to_le_bytes().to_vec()),
            },
            Param::null(),
            Param {
                ty: 0xfd,
                flags: 0,
                value: Some(lenenc(b"\xffab")),
            },
        ];
        let payload = execute_payload(7, &params, true);
        let ex = parse_execute(&payload, 3, &mut Vec::new(), &mut []).unwrap();
        assert_eq!(ex.stmt_id, 7);
        assert_eq!(
            ex.params,
            vec![
                ParamValue::Int(-5),
                ParamValue::Null,
                ParamValue::Bytes(b"\xffab".to_vec())
            ]
        );
        assert!(
            params[0].describe().contains("= -5"),
            "{}",
            params[0].describe()
        );
    }

    #[test]
    fn generators_are_deterministic() {
        let gen = |seed| {
            let mut r = Rng::new(seed);
            (0..50)
                .map(|_| (literal(&mut r).render(), param(&mut r)))
                .collect::<Vec<_>>()
        };
        assert_eq!(gen(5), gen(5));
        assert_ne!(gen(5), gen(6));
    }
}
