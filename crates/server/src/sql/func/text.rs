//! String functions that ORMs, migration tools and dumps emit: SUBSTRING_INDEX, FORMAT, QUOTE,
//! TO_BASE64 / FROM_BASE64, UNHEX, CONV / BIN / OCT, SOUNDEX, BIT_LENGTH (MariaDB 10.11).
//!
//! * SUBSTRING_INDEX(s, delim, n) compares bytes (case-sensitive, as MariaDB).
//! * FORMAT(x, d[, locale]) rounds half away from zero to `d` (0…38) places and groups
//!   thousands; locales: en_* (`1,234.5`) and de_DE (`1.234,5`); another name is warning 1649
//!   and en_US.
//! * QUOTE(NULL) is the text NULL; `\`, `'`, NUL and ^Z are escaped.
//! * TO_BASE64 breaks lines every 76 characters; FROM_BASE64 skips spaces and newlines, and
//!   bad data is NULL with warning 1958.
//! * CONV reads the leading digits valid in the source base (|base| 2…36); a negative source
//!   base reads a signed number, a negative target base writes one; otherwise the value is a
//!   64-bit unsigned number (negatives wrap).
//! * GET_FORMAT(DATE|TIME|DATETIME|TIMESTAMP, 'USA'|'JIS'|'ISO'|'EUR'|'INTERNAL') is the
//!   DATE_FORMAT pattern of that standard (the binder passes the type keyword as its name);
//!   another standard is NULL.
//! * SOUNDEX keeps the first letter and the codes of the following consonants, skipping a code
//!   equal to the last one written (vowels do not separate), padded to four characters.

use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::env::Env;
use crate::sql::expr::convert::{self, Num};
use crate::types::{Decimal, Value};
use cohort_decimal::Rounding;
use cohort_protocol::ErrorCode;

/// A string function of this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFn {
    SubstringIndex,
    Format,
    Quote,
    ToBase64,
    FromBase64,
    Unhex,
    Conv,
    Bin,
    Oct,
    Soundex,
    BitLength,
    GetFormat,
}

/// The binding of a function by name: its arity checked, its type.
/// `places`: FORMAT's decimal places when they are a constant.
pub fn bind(
    name: &str,
    args: &[SqlType],
    places: Option<u32>,
) -> Option<std::result::Result<(TextFn, SqlType), ()>> {
    let n = args.len();
    let nullable = args.iter().any(|t| t.nullable);
    let len0 = args.first().map_or(0, SqlType::char_len);
    let (f, ok, ty) = match name {
        "SUBSTRING_INDEX" => (TextFn::SubstringIndex, n == 3, SqlType::varchar(len0)),
        "FORMAT" => {
            let l = args.first().map_or(0, |t| match t.class {
                Class::Int | Class::Decimal => t.length,
                _ => 22,
            });
            let d = places.unwrap_or(38);
            let chars = l + l.saturating_sub(1) / 3 + d + u32::from(d > 0);
            (TextFn::Format, n == 2 || n == 3, SqlType::varchar(chars))
        }
        "QUOTE" => (
            TextFn::Quote,
            n == 1,
            SqlType::varchar(len0.saturating_mul(2).saturating_add(2)),
        ),
        "TO_BASE64" => {
            let b = args.first().map_or(0, |t| t.length) as u64;
            let enc = b.div_ceil(3) * 4;
            let len = enc + enc / 76;
            (
                TextFn::ToBase64,
                n == 1,
                SqlType::varchar(len.min(u32::MAX as u64) as u32),
            )
        }
        "FROM_BASE64" => (
            TextFn::FromBase64,
            n == 1,
            SqlType::varbinary(args.first().map_or(0, |t| t.length) / 4 * 3),
        ),
        "UNHEX" => (
            TextFn::Unhex,
            n == 1,
            super::calendar::fixed(SqlType::varbinary(
                args.first().map_or(0, |t| t.length).div_ceil(2),
            )),
        ),
        "CONV" => (TextFn::Conv, n == 3, SqlType::varchar(65)),
        "BIN" => (TextFn::Bin, n == 1, SqlType::varchar(65)),
        "OCT" => (TextFn::Oct, n == 1, SqlType::varchar(65)),
        "SOUNDEX" => (TextFn::Soundex, n == 1, SqlType::varchar(len0.max(4))),
        "BIT_LENGTH" => (TextFn::BitLength, n == 1, SqlType::int(11)),
        "GET_FORMAT" => (
            TextFn::GetFormat,
            n == 2,
            super::calendar::fixed(SqlType::varchar(17)),
        ),
        _ => return None,
    };
    if !ok {
        return Some(Err(()));
    }
    let ty = match f {
        TextFn::Quote
        | TextFn::Format
        | TextFn::FromBase64
        | TextFn::Unhex
        | TextFn::Conv
        | TextFn::Bin
        | TextFn::Oct
        | TextFn::GetFormat => ty.with_nullable(true),
        _ => ty.with_nullable(nullable),
    };
    Some(Ok((f, ty)))
}

/// Evaluate (QUOTE sees NULL arguments; the others get only non-NULL ones).
pub fn eval(f: TextFn, v: &[Value], env: &Env<'_>) -> Value {
    match f {
        TextFn::Quote => quote(&v[0]),
        _ if v.iter().any(Value::is_null) => Value::Null,
        TextFn::SubstringIndex => substring_index(v),
        TextFn::Format => format(v, env),
        TextFn::ToBase64 => Value::Bytes(to_base64(&convert::to_text(&v[0])).into_bytes()),
        TextFn::FromBase64 => match from_base64(&convert::to_text(&v[0])) {
            Ok(b) => Value::Bytes(b),
            Err(pos) => {
                env.warn(
                    "Warning",
                    ErrorCode::BadBase64Data,
                    format!("Bad base64 data as position {pos}"),
                );
                Value::Null
            }
        },
        TextFn::Unhex => unhex(&convert::to_text(&v[0])).map_or(Value::Null, Value::Bytes),
        TextFn::Conv => {
            let from = super::int_arg(&v[1]);
            let to = super::int_arg(&v[2]);
            conv(&number_text(&v[0]), from, to).map_or(Value::Null, |s| Value::str(&s))
        }
        TextFn::Bin | TextFn::Oct => {
            let base = if f == TextFn::Bin { 2 } else { 8 };
            conv(&number_text(&v[0]), 10, base).map_or(Value::Null, |s| Value::str(&s))
        }
        TextFn::Soundex => Value::str(&soundex(&convert::to_string(&v[0]))),
        TextFn::GetFormat => get_format(&convert::to_string(&v[0]), &convert::to_string(&v[1]))
            .map_or(Value::Null, Value::str),
        TextFn::BitLength => Value::Int(convert::to_text(&v[0]).len() as i64 * 8),
    }
}

fn number_text(v: &Value) -> String {
    match v {
        Value::Double(f) => format!("{}", f.trunc()),
        other => convert::to_string(other),
    }
}

fn substring_index(v: &[Value]) -> Value {
    let s = convert::to_text(&v[0]);
    let d = convert::to_text(&v[1]);
    let n = super::int_arg(&v[2]);
    if d.is_empty() || n == 0 {
        return Value::Bytes(Vec::new());
    }
    let hits: Vec<usize> = {
        let mut out = Vec::new();
        let mut i = 0;
        while i + d.len() <= s.len() {
            if s[i..i + d.len()] == d[..] {
                out.push(i);
                i += d.len();
            } else {
                i += 1;
            }
        }
        out
    };
    let k = n.unsigned_abs().min(usize::MAX as u128) as usize;
    if k > hits.len() {
        return Value::Bytes(s.to_vec());
    }
    if n > 0 {
        Value::Bytes(s[..hits[k - 1]].to_vec())
    } else {
        Value::Bytes(s[hits[hits.len() - k] + d.len()..].to_vec())
    }
}

fn format(v: &[Value], env: &Env<'_>) -> Value {
    let places = match &v[1] {
        Value::Bytes(b) => {
            let (i, complete) = convert::integer_prefix(b);
            if !complete {
                env.warn(
                    "Warning",
                    ErrorCode::TruncatedWrongValue,
                    format!(
                        "Truncated incorrect INTEGER value: '{}'",
                        convert::to_string(&v[1])
                    ),
                );
            }
            i
        }
        other => super::int_arg(other),
    }
    .clamp(0, 38) as u8;
    let (thousands, point) = match v.get(2).map(convert::to_string) {
        None => (',', '.'),
        Some(l) if l.len() >= 3 && l[..3].eq_ignore_ascii_case("en_") => (',', '.'),
        Some(l) if l.eq_ignore_ascii_case("de_DE") => ('.', ','),
        Some(l) => {
            env.warn(
                "Warning",
                ErrorCode::UnknownLocale,
                format!("Unknown locale: '{l}'"),
            );
            (',', '.')
        }
    };
    let d: Decimal = match &v[0] {
        Value::Bytes(b) => {
            let (parsed, d) = convert::parse_decimal(b);
            if !parsed.complete {
                env.warn(
                    "Warning",
                    ErrorCode::TruncatedWrongValue,
                    format!(
                        "Truncated incorrect DOUBLE value: '{}'",
                        convert::to_string(&v[0])
                    ),
                );
            }
            match d {
                Some(Ok(d)) => d,
                _ => Decimal::ZERO,
            }
        }
        other => match convert::to_num(other) {
            // A double rounds half to even, at its binary value (MariaDB's rint).
            Num::F(f) => {
                let m = 10f64.powi(i32::from(places));
                let r = (f * m).round_ties_even() / m;
                let r = if r.is_finite() { r } else { f };
                match Decimal::from_f64(r) {
                    Some(Ok(d)) => d,
                    // Past DECIMAL's range: the double's own digits.
                    _ if r.is_finite() => {
                        return group(&format!("{r:.*}", usize::from(places)), thousands, point)
                    }
                    _ => return Value::Null,
                }
            }
            Num::D(d) => d,
            n => n.to_decimal().unwrap_or_default(),
        },
    };
    let r = d.round_to(i32::from(places), Rounding::HalfUp).unwrap_or(d);
    let r = r.rescale(places).unwrap_or(r);
    let text = r.to_string();
    group(&text, thousands, point)
}

/// A plain decimal text (`-1234.50`) with thousands grouped and the locale's point.
fn group(text: &str, thousands: char, point: char) -> Value {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    let mut out = String::new();
    if neg && body.bytes().any(|c| c.is_ascii_digit() && c != b'0') {
        out.push('-');
    }
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(thousands);
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push(point);
        out.push_str(frac);
    }
    Value::str(&out)
}

fn quote(v: &Value) -> Value {
    if v.is_null() {
        return Value::str("NULL");
    }
    let b = convert::to_text(v);
    let mut out = Vec::with_capacity(b.len() + 2);
    out.push(b'\'');
    for &c in b.iter() {
        match c {
            b'\\' | b'\'' => {
                out.push(b'\\');
                out.push(c);
            }
            0 => out.extend_from_slice(b"\\0"),
            0x1a => out.extend_from_slice(b"\\Z"),
            c => out.push(c),
        }
    }
    out.push(b'\'');
    Value::Bytes(out)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn to_base64(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4 + b.len() / 57);
    let mut line = 0;
    for chunk in b.chunks(3) {
        if line == 76 {
            out.push('\n');
            line = 0;
        }
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
        line += 4;
    }
    out
}

/// Decode base64; the error is the position of the first bad character.
fn from_base64(b: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    let mut pad = 0;
    for (i, &c) in b.iter().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            b'=' => {
                pad += 1;
                continue;
            }
            _ => return Err(i),
        };
        if pad > 0 {
            return Err(i);
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    let chars = b
        .iter()
        .filter(|c| !matches!(c, b' ' | b'\n' | b'\r' | b'\t'))
        .count();
    if bits >= 6 || pad > 2 || chars % 4 != 0 {
        return Err(b.len());
    }
    Ok(out)
}

fn unhex(b: &[u8]) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len().div_ceil(2));
    let mut i = 0;
    if b.len() % 2 == 1 {
        out.push(digit(b[0])?);
        i = 1;
    }
    while i < b.len() {
        out.push(digit(b[i])? << 4 | digit(b[i + 1])?);
        i += 2;
    }
    Some(out)
}

fn to_base(mut u: u64, base: u64) -> String {
    if u == 0 {
        return "0".into();
    }
    let mut digits = Vec::new();
    while u > 0 {
        digits.push(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(u % base) as usize]);
        u /= base;
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

/// CONV of the number written in `s`.
fn conv(s: &str, from: i128, to: i128) -> Option<String> {
    if !(2..=36).contains(&from.abs()) || !(2..=36).contains(&to.abs()) {
        return None;
    }
    let base = from.unsigned_abs() as u64;
    let t = s.trim_start();
    if t.is_empty() {
        return None;
    }
    let (neg, digits) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let mut n: u64 = 0;
    let mut overflow = false;
    for c in digits.chars() {
        let Some(d) = c.to_digit(36).filter(|d| u64::from(*d) < base) else {
            break;
        };
        match n
            .checked_mul(base)
            .and_then(|x| x.checked_add(u64::from(d)))
        {
            Some(x) => n = x,
            None => {
                overflow = true;
                break;
            }
        }
    }
    let value: i128 = if from < 0 {
        let lim = if neg {
            i64::MIN.unsigned_abs()
        } else {
            i64::MAX as u64
        };
        let n = if overflow { lim } else { n.min(lim) };
        if neg {
            -(n as i128)
        } else {
            n as i128
        }
    } else {
        let n = if overflow { u64::MAX } else { n };
        if neg {
            n.wrapping_neg() as i128
        } else {
            n as i128
        }
    };
    let out_base = to.unsigned_abs() as u64;
    Some(if to < 0 {
        let signed = value as i64;
        if signed < 0 {
            format!("-{}", to_base(signed.unsigned_abs(), out_base))
        } else {
            to_base(signed as u64, out_base)
        }
    } else {
        to_base(value as u64, out_base)
    })
}

fn soundex(s: &str) -> String {
    fn code(c: char) -> char {
        match c.to_ascii_uppercase() {
            'B' | 'F' | 'P' | 'V' => '1',
            'C' | 'G' | 'J' | 'K' | 'Q' | 'S' | 'X' | 'Z' => '2',
            'D' | 'T' => '3',
            'L' => '4',
            'M' | 'N' => '5',
            'R' => '6',
            _ => '0',
        }
    }
    // The first letter of any alphabet is kept (upper case, one character for one); only
    // ASCII letters after it have codes.
    let mut letters = s.chars().filter(|c| c.is_alphabetic());
    let Some(first) = letters.next() else {
        return String::new();
    };
    let mut up = first.to_uppercase();
    let first_up = match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => first,
    };
    let mut out = String::from(first_up);
    let mut last = code(first);
    for c in letters.filter(char::is_ascii_alphabetic) {
        let k = code(c);
        if k != '0' && k != last {
            out.push(k);
            last = k;
        }
    }
    while out.chars().count() < 4 {
        out.push('0');
    }
    out
}

/// GET_FORMAT's pattern for a type (DATE, TIME, DATETIME/TIMESTAMP) and a standard.
fn get_format(kind: &str, standard: &str) -> Option<&'static str> {
    let i = ["USA", "JIS", "ISO", "EUR", "INTERNAL"]
        .iter()
        .position(|s| s.eq_ignore_ascii_case(standard))?;
    let table: [&str; 5] = match kind {
        "DATE" => ["%m.%d.%Y", "%Y-%m-%d", "%Y-%m-%d", "%d.%m.%Y", "%Y%m%d"],
        "TIME" => ["%h:%i:%s %p", "%H:%i:%s", "%H:%i:%s", "%H.%i.%s", "%H%i%s"],
        _ => [
            "%Y-%m-%d %H.%i.%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y-%m-%d %H.%i.%s",
            "%Y%m%d%H%i%s",
        ],
    };
    Some(table[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        assert_eq!(to_base64(b"abc"), "YWJj");
        assert_eq!(to_base64(b"a"), "YQ==");
        assert_eq!(from_base64(b"YQ==").unwrap(), b"a");
        assert!(from_base64(b"!!").is_err());
        let long = vec![b'a'; 60];
        assert_eq!(from_base64(to_base64(&long).as_bytes()).unwrap(), long);
    }

    #[test]
    fn conv_bases() {
        assert_eq!(conv("ff", 16, 10).unwrap(), "255");
        assert_eq!(conv("-1", 10, 16).unwrap(), "FFFFFFFFFFFFFFFF");
        assert_eq!(conv("-10", 10, -10).unwrap(), "-10");
        assert_eq!(conv("5", 1, 10), None);
    }

    #[test]
    fn soundex_codes() {
        assert_eq!(soundex("Robert"), "R163");
        assert_eq!(soundex("Tymczak"), "T520");
        assert_eq!(soundex(""), "");
        assert_eq!(soundex("ÀbÇdé ñ"), "À130");
        assert_eq!(soundex("ﬁ straße ǅ"), "ﬁ236");
    }
}
