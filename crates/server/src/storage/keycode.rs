//! Memcomparable key encoding: index keys become byte strings whose byte order is the SQL order.
//!
//! Every index (primary and secondary) is an ordered map from encoded keys to row slots, so
//! the comparison rules of the index columns live here and only here:
//!
//! * each column value starts with a tag byte: `0x00` is NULL (NULL sorts first);
//! * integers (signed, unsigned, mixed) compare numerically: `0x01` + the two's complement of a
//!   negative value, `0x02` + the big-endian value of a non-negative one;
//! * DECIMAL compares exactly: sign tag, then a decimal exponent and the significant digits
//!   (`0.d1d2… × 10^e`), complemented for negative values;
//! * FLOAT / DOUBLE: the IEEE bits, sign-flipped so that byte order is numeric order;
//! * character strings compare by collation weight with PAD SPACE semantics (trailing spaces do
//!   not matter): `utf8mb4_general_ci` folds case and Latin-1 accents, `utf8mb4_bin` compares code
//!   points; each character is `marker, weight(3 bytes)` where the marker tells whether the rest of
//!   the string is below, equal to or above an infinite run of spaces, and `0x01` ends the string;
//! * binary strings compare byte-wise (`0x00` escaped as `0x00 0xFF`, terminated by `0x00 0x01`);
//! * dates and datetimes compare chronologically (big-endian fields).
//!
//! Every column encoding is prefix-free, so a key made of the first k columns is a byte prefix of
//! every full key that starts with those values: prefix ranges are byte-prefix ranges.
//! Index prefix lengths (`KEY (c(10))`) truncate the value (characters for text, bytes for binary
//! strings) before it is encoded.

use crate::storage::schema::{IndexDef, TableDef};
use crate::types::collation::general_ci_weight;
use crate::types::{Collation, DataType, Date, DateTime, Decimal, Value};
use cohort_decimal::Rounding;
use std::ops::Bound;

/// One column of an index key.
#[derive(Clone, Debug)]
pub(crate) struct KeyCol {
    pub col: usize,
    pub ty: DataType,
    pub prefix_len: Option<u32>,
}

/// How to build the key of one index from a row or from a list of bound values.
#[derive(Clone, Debug)]
pub(crate) struct KeySpec {
    pub cols: Vec<KeyCol>,
}

impl KeySpec {
    pub fn new(def: &TableDef, index: &IndexDef) -> KeySpec {
        KeySpec {
            cols: index
                .parts
                .iter()
                .map(|p| KeyCol {
                    col: p.column,
                    ty: def.columns[p.column].data_type.clone(),
                    prefix_len: p.prefix_len,
                })
                .collect(),
        }
    }

    /// The key of a full row.
    pub fn encode_row(&self, row: &[Value], out: &mut Vec<u8>) {
        for c in &self.cols {
            encode_value(&c.ty, c.prefix_len, &row[c.col], out);
        }
    }

    /// True if every key column holds identical values in `a` and `b` (same variant, same
    /// bits): their keys are then equal, without building them.
    pub fn same_key_values(&self, a: &[Value], b: &[Value]) -> bool {
        self.cols.iter().all(|c| identical(&a[c.col], &b[c.col]))
    }

    pub fn row_key(&self, row: &[Value]) -> Vec<u8> {
        let mut out = Vec::with_capacity(16);
        self.encode_row(row, &mut out);
        out
    }

    /// The key (or key prefix, when fewer values than parts are given) of bound values.
    pub fn encode_values(&self, vals: &[Value], out: &mut Vec<u8>) {
        for (c, v) in self.cols.iter().zip(vals) {
            encode_value(&c.ty, c.prefix_len, v, out);
        }
    }

    /// True if any key column of the row is NULL (such keys never collide in a UNIQUE index).
    pub fn row_has_null(&self, row: &[Value]) -> bool {
        self.cols.iter().any(|c| row[c.col].is_null())
    }
}

/// The smallest byte string greater than every string that starts with `key`; None if there
/// is none (the key is all 0xFF).
pub(crate) fn prefix_end(key: &[u8]) -> Option<Vec<u8>> {
    let mut v = key.to_vec();
    while let Some(last) = v.pop() {
        if last != 0xFF {
            v.push(last + 1);
            return Some(v);
        }
    }
    None
}

/// Byte bounds of a range given by encoded (possibly prefix) start and end keys.
pub(crate) fn byte_bounds(
    start: Bound<Vec<u8>>,
    end: Bound<Vec<u8>>,
) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let lo = match start {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(k) => Bound::Included(k),
        // After every key that starts with k.
        Bound::Excluded(k) => match prefix_end(&k) {
            Some(e) => Bound::Included(e),
            None => Bound::Excluded(vec![0xFF; k.len() + 1]), // matches nothing real
        },
    };
    let hi = match end {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(k) => match prefix_end(&k) {
            Some(e) => Bound::Excluded(e),
            None => Bound::Unbounded,
        },
        Bound::Excluded(k) => Bound::Excluded(k),
    };
    (lo, hi)
}

/// True if the byte range is empty (start after end); BTreeMap::range panics on those.
pub(crate) fn range_is_empty(lo: &Bound<Vec<u8>>, hi: &Bound<Vec<u8>>) -> bool {
    match (lo, hi) {
        (Bound::Included(a), Bound::Included(b)) => a > b,
        (Bound::Included(a), Bound::Excluded(b))
        | (Bound::Excluded(a), Bound::Included(b))
        | (Bound::Excluded(a), Bound::Excluded(b)) => a >= b,
        _ => false,
    }
}

/// The end of the key column `col` encoded in `key` from `at` (the offset just after it), by
/// the encodings of [`encode_value`]; None if `key` is cut short. Every encoding is
/// prefix-free, so a column's end is found from its own bytes (statistics split keys into
/// column prefixes with it: `stats.rs`).
pub(crate) fn column_end(col: &KeyCol, key: &[u8], at: usize) -> Option<usize> {
    let tag = *key.get(at)?;
    if tag == 0x00 {
        return Some(at + 1); // NULL
    }
    let fixed = |n: usize| (at + 1 + n <= key.len()).then_some(at + 1 + n);
    let binary = || {
        // Bytes with 0x00 escaped as 0x00 0xFF, ended by 0x00 0x01.
        let mut i = at + 1;
        loop {
            match key.get(i)? {
                0x00 => match key.get(i + 1)? {
                    0xFF => i += 2,
                    _ => return Some(i + 2),
                },
                _ => i += 1,
            }
        }
    };
    match &col.ty {
        t if t.is_integer() => fixed(8),
        DataType::Year
        | DataType::Enum { .. }
        | DataType::Set { .. }
        | DataType::Time { .. }
        | DataType::Bit { .. }
        | DataType::Float { .. }
        | DataType::Double { .. } => fixed(8),
        DataType::Decimal { .. } => match tag {
            0x02 => Some(at + 1), // zero
            // Exponent and digits are never the terminator (0x00; complemented 0xFF).
            0x01 => Some(at + 1 + key[at + 1..].iter().position(|&b| b == 0xFF)? + 1),
            _ => Some(at + 1 + key[at + 1..].iter().position(|&b| b == 0x00)? + 1),
        },
        DataType::Char { collation, .. }
        | DataType::VarChar { collation, .. }
        | DataType::Text { collation, .. } => match collation {
            Collation::Binary => binary(),
            // Groups of marker (0x00 / 0x02) + 3 weight bytes, ended by 0x01.
            _ => {
                let mut i = at + 1;
                loop {
                    match key.get(i)? {
                        0x01 => return Some(i + 1),
                        _ => i += 4,
                    }
                }
            }
        },
        DataType::Date => fixed(4),
        DataType::DateTime { .. } | DataType::Timestamp { .. } => fixed(11),
        _ => binary(),
    }
}

/// The key of a hidden row id (tables without a PRIMARY KEY).
pub(crate) fn row_id_key(id: u64) -> Vec<u8> {
    id.to_be_bytes().to_vec()
}

/// Encode one value as a key column of type `ty`. Values of another variant than the column's
/// are converted as well as possible (the SQL layer normally passes the column's type).
pub(crate) fn encode_value(ty: &DataType, prefix_len: Option<u32>, v: &Value, out: &mut Vec<u8>) {
    if v.is_null() {
        out.push(0x00);
        return;
    }
    match ty {
        t if t.is_integer() => encode_int(value_to_i128(v), out),
        DataType::Year => encode_int(value_to_i128(v), out),
        // ENUM and SET keys order by number (member position, bitmask), as ORDER BY does.
        DataType::Enum { .. } | DataType::Set { .. } => {
            let n = match v {
                Value::Bytes(b) => crate::types::enumset::number_of(ty, b) as i128,
                other => value_to_i128(other),
            };
            encode_int(n, out)
        }
        // TIME keys are the signed microseconds; BIT keys the unsigned number.
        DataType::Time { .. } | DataType::Bit { .. } => encode_int(value_to_i128(v), out),
        DataType::Decimal { .. } => match v {
            Value::Decimal(d) => encode_decimal(d, out),
            other => encode_decimal(&value_to_decimal(other), out),
        },
        DataType::Float { .. } | DataType::Double { .. } => encode_double(value_to_f64(v), out),
        DataType::Char { collation, .. }
        | DataType::VarChar { collation, .. }
        | DataType::Text { collation, .. } => {
            let bytes = value_to_bytes(v);
            out.push(0x01);
            match collation {
                Collation::Binary => encode_binary(&bytes, prefix_len, out),
                Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => {
                    encode_text(&bytes, prefix_len, true, out)
                }
                Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => {
                    encode_text(&bytes, prefix_len, false, out)
                }
                c @ (Collation::Utf8mb4Unicode520Ci
                | Collation::Utf8mb3Unicode520Ci
                | Collation::Utf8mb4UnicodeCi
                | Collation::Utf8mb3UnicodeCi) => encode_uca(*c, &bytes, prefix_len, out),
                c @ (Collation::Latin1SwedishCi
                | Collation::Latin1Bin
                | Collation::Latin1GeneralCi
                | Collation::Latin1GeneralCs
                | Collation::Latin1German1Ci) => encode_latin1(*c, &bytes, prefix_len, out),
            }
        }
        DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. } => {
            let bytes = value_to_bytes(v);
            out.push(0x01);
            encode_binary(&bytes, prefix_len, out)
        }
        DataType::Date => {
            let d = match v {
                Value::Date(d) => *d,
                Value::DateTime(dt) => dt.date,
                _ => Date::default(),
            };
            out.push(0x01);
            encode_date(d, out);
        }
        DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            let dt = match v {
                Value::DateTime(dt) => *dt,
                Value::Date(d) => DateTime {
                    date: *d,
                    ..DateTime::default()
                },
                _ => DateTime::default(),
            };
            out.push(0x01);
            encode_date(dt.date, out);
            out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
            out.extend_from_slice(&dt.micros.to_be_bytes());
        }
        // Every DataType is covered above; keep a byte-wise fallback for safety.
        _ => {
            out.push(0x01);
            encode_binary(&value_to_bytes(v), prefix_len, out)
        }
    }
}

fn encode_date(d: Date, out: &mut Vec<u8>) {
    out.extend_from_slice(&d.year.to_be_bytes());
    out.push(d.month);
    out.push(d.day);
}

fn encode_int(v: i128, out: &mut Vec<u8>) {
    if v < 0 {
        out.push(0x01);
        let v = v.max(i64::MIN as i128) as i64;
        out.extend_from_slice(&(v as u64).to_be_bytes());
    } else {
        out.push(0x02);
        let v = v.min(u64::MAX as i128) as u64;
        out.extend_from_slice(&v.to_be_bytes());
    }
}

/// `0x02` for zero; else a sign tag (`0x01` negative, `0x03` positive), the decimal exponent
/// `e` of `0.d1d2… × 10^e` plus 128 (|e| ≤ 81), the significant digits as bytes 1–10 without
/// trailing zeros, and a `0x00` terminator; all complemented for negative values. The scale
/// does not appear: `1.5` and `1.50` have the same key.
fn encode_decimal(d: &Decimal, out: &mut Vec<u8>) {
    if d.is_zero() {
        out.push(0x02);
        return;
    }
    let digits = d.digits();
    let (int, frac) = (digits.int(), digits.frac());
    let (exp, sig): (i32, &[u8]) = if int.is_empty() {
        let zeros = frac.iter().take_while(|&&c| c == b'0').count();
        (-(zeros as i32), &frac[zeros..])
    } else {
        (int.len() as i32, int)
    };
    let mut body = Vec::with_capacity(int.len() + frac.len() + 2);
    body.push((exp + 128) as u8);
    body.extend(sig.iter().map(|c| c - b'0' + 1));
    if !int.is_empty() {
        body.extend(frac.iter().map(|c| c - b'0' + 1));
    }
    while body.last() == Some(&1) && body.len() > 1 {
        body.pop(); // trailing zero digits
    }
    body.push(0);
    if d.is_negative() {
        out.push(0x01);
        out.extend(body.iter().map(|b| !b));
    } else {
        out.push(0x03);
        out.extend_from_slice(&body);
    }
}

fn encode_double(f: f64, out: &mut Vec<u8>) {
    let f = if f == 0.0 { 0.0 } else { f }; // -0.0 == 0.0
    let bits = f.to_bits();
    let k = if f.is_sign_negative() {
        !bits
    } else {
        bits | (1 << 63)
    };
    out.push(0x01);
    out.extend_from_slice(&k.to_be_bytes());
}

fn encode_binary(bytes: &[u8], prefix_len: Option<u32>, out: &mut Vec<u8>) {
    let n = prefix_len.map_or(bytes.len(), |p| bytes.len().min(p as usize));
    for &b in &bytes[..n] {
        if b == 0 {
            out.extend_from_slice(&[0x00, 0xFF]);
        } else {
            out.push(b);
        }
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

const SPACE: u32 = 0x20;

fn encode_text(bytes: &[u8], prefix_len: Option<u32>, ci: bool, out: &mut Vec<u8>) {
    let s = String::from_utf8_lossy(bytes);
    let limit = prefix_len.map_or(usize::MAX, |p| p as usize);
    let w: Vec<u32> = s
        .chars()
        .take(limit)
        .map(|c| if ci { general_ci_weight(c) } else { c as u32 })
        .collect();
    encode_weights(w, SPACE, out);
}

/// A UCA collation's key (`utf8mb4_unicode_ci`, `utf8mb4_unicode_520_ci`): the weights of
/// the (prefix's) characters, encoded as `encode_text` does so that keys order as the
/// collation compares (PAD SPACE included).
fn encode_uca(coll: Collation, bytes: &[u8], prefix_len: Option<u32>, out: &mut Vec<u8>) {
    let uca = crate::types::collation_uca::table_of(coll);
    let s = String::from_utf8_lossy(bytes);
    let limit = prefix_len.map_or(usize::MAX, |p| p as usize);
    let mut w: Vec<u32> = Vec::with_capacity(s.len());
    for c in s.chars().take(limit) {
        uca.weights(c, |x| w.push(x as u32));
    }
    encode_weights(w, uca.space as u32, out);
}

/// A latin1 collation's key: its one-byte weights, laid out as the UCA ones (PAD SPACE).
fn encode_latin1(coll: Collation, bytes: &[u8], prefix_len: Option<u32>, out: &mut Vec<u8>) {
    let Some(order) = crate::types::collation_latin1::order_of(coll) else {
        return encode_text(bytes, prefix_len, false, out);
    };
    let s = String::from_utf8_lossy(bytes);
    let limit = prefix_len.map_or(usize::MAX, |p| p as usize);
    let w: Vec<u32> = s
        .chars()
        .take(limit)
        .map(|c| u32::from(order.weight(c)))
        .collect();
    encode_weights(w, u32::from(order.space()), out);
}

/// Weights (at most 24 bits each) as groups of a marker and 3 bytes, ended by 0x01; the
/// marker says how the rest compares with an endless run of `space` (PAD SPACE).
fn encode_weights(mut w: Vec<u32>, space: u32, out: &mut Vec<u8>) {
    while w.last() == Some(&space) {
        w.pop();
    }
    // marker[i]: how the rest of the string from i compares with an endless run of spaces.
    let mut markers = vec![0u8; w.len()];
    let mut rest = 0x01u8;
    for i in (0..w.len()).rev() {
        if w[i] != space {
            rest = if w[i] < space { 0x00 } else { 0x02 };
        }
        markers[i] = rest;
    }
    for (m, w) in markers.iter().zip(&w) {
        out.push(*m);
        out.extend_from_slice(&w.to_be_bytes()[1..]);
    }
    out.push(0x01);
}

fn value_to_i128(v: &Value) -> i128 {
    match v {
        Value::Null => 0,
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        Value::Double(f) => {
            if f.is_nan() {
                0
            } else {
                f.round().clamp(i128::MIN as f64, i128::MAX as f64) as i128
            }
        }
        Value::Decimal(d) => d.to_i128(Rounding::HalfUp).unwrap_or(0),
        Value::Bytes(b) => {
            let s = String::from_utf8_lossy(b);
            let s = s.trim();
            s.parse::<i128>()
                .ok()
                .or_else(|| s.parse::<f64>().ok().map(|f| f.round() as i128))
                .unwrap_or(0)
        }
        Value::Date(d) => d.year as i128 * 10000 + d.month as i128 * 100 + d.day as i128,
        Value::DateTime(dt) => {
            let d = &dt.date;
            (d.year as i128 * 10000 + d.month as i128 * 100 + d.day as i128) * 1_000_000
                + dt.hour as i128 * 10000
                + dt.minute as i128 * 100
                + dt.second as i128
        }
        Value::Time(t) => *t as i128,
    }
}

fn value_to_decimal(v: &Value) -> Decimal {
    match v {
        Value::Decimal(d) => d.clone(),
        Value::Int(i) => Decimal::from(*i),
        Value::UInt(u) => Decimal::from(*u),
        Value::Double(f) => Decimal::from_f64(*f)
            .and_then(Result::ok)
            .unwrap_or_default(),
        Value::Bytes(b) => Decimal::parse(b.trim_ascii())
            .map(|p| p.value)
            .unwrap_or_default(),
        other => {
            Decimal::from(value_to_i128(other).clamp(i64::MIN as i128, i64::MAX as i128) as i64)
        }
    }
}

fn value_to_f64(v: &Value) -> f64 {
    match v {
        Value::Double(f) => *f,
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Decimal(d) => d.to_f64(),
        Value::Bytes(b) => String::from_utf8_lossy(b).trim().parse().unwrap_or(0.0),
        other => value_to_i128(other) as f64,
    }
}

fn value_to_bytes(v: &Value) -> std::borrow::Cow<'_, [u8]> {
    use std::borrow::Cow;
    match v {
        Value::Bytes(b) => Cow::Borrowed(b.as_slice()),
        Value::Null => Cow::Borrowed(&[]),
        Value::Int(i) => Cow::Owned(i.to_string().into_bytes()),
        Value::UInt(u) => Cow::Owned(u.to_string().into_bytes()),
        Value::Double(f) => Cow::Owned(f.to_string().into_bytes()),
        Value::Decimal(d) => Cow::Owned(d.to_string().into_bytes()),
        Value::Date(d) => Cow::Owned(d.to_string().into_bytes()),
        Value::DateTime(dt) => Cow::Owned(dt.to_string().into_bytes()),
        Value::Time(t) => Cow::Owned(crate::sql::time_value::format(*t, None).into_bytes()),
    }
}

/// Values that encode to the same key bytes for sure: the same variant with the same bits
/// (`-0.0` and `0.0`, or `1.0` and `1.00` as DECIMAL, are equal but not identical).
fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
        (Value::Decimal(x), Value::Decimal(y)) => x.scale() == y.scale() && x == y,
        _ => std::mem::discriminant(a) == std::mem::discriminant(b) && a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    fn enc(ty: &DataType, v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        encode_value(ty, None, v, &mut out);
        out
    }

    #[test]
    fn identical_values_are_same_variant_and_bits() {
        assert!(identical(&Value::Int(7), &Value::Int(7)));
        assert!(identical(&Value::str("a"), &Value::str("a")));
        assert!(!identical(&Value::str("a"), &Value::str("A")));
        assert!(!identical(&Value::Int(7), &Value::UInt(7)));
        assert!(!identical(&Value::Double(0.0), &Value::Double(-0.0)));
        let (one, one_00) = (Decimal::new(10, 1), Decimal::new(100, 2));
        assert_eq!(one, one_00);
        assert!(!identical(
            &Value::Decimal(one.clone()),
            &Value::Decimal(one_00)
        ));
        assert!(identical(
            &Value::Decimal(one.clone()),
            &Value::Decimal(one)
        ));
    }

    fn cmp(ty: &DataType, a: &Value, b: &Value) -> Ordering {
        enc(ty, a).cmp(&enc(ty, b))
    }

    fn ci() -> DataType {
        DataType::VarChar {
            len: 20,
            collation: Collation::Utf8mb4GeneralCi,
        }
    }

    #[test]
    fn integers_order_numerically_across_signed_and_unsigned() {
        let ty = DataType::BigInt {
            unsigned: false,
            display: Default::default(),
        };
        let vals = [
            Value::Null,
            Value::Int(i64::MIN),
            Value::Int(-2),
            Value::Int(-1),
            Value::Int(0),
            Value::UInt(1),
            Value::Int(2),
            Value::Int(i64::MAX),
            Value::UInt(i64::MAX as u64 + 1),
            Value::UInt(u64::MAX),
        ];
        for w in vals.windows(2) {
            assert_eq!(
                cmp(&ty, &w[0], &w[1]),
                Ordering::Less,
                "{:?} < {:?}",
                w[0],
                w[1]
            );
        }
        assert_eq!(cmp(&ty, &Value::Int(7), &Value::UInt(7)), Ordering::Equal);
    }

    #[test]
    fn decimals_order_exactly() {
        let ty = DataType::Decimal {
            precision: 30,
            scale: 10,
        };
        let d = |s: &str| Value::Decimal(s.parse().unwrap());
        let vals = [
            d("-100"),
            d("-10.5"),
            d("-10"),
            d("-9.99"),
            d("-0.001"),
            d("0"),
            d("0.001"),
            d("0.5"),
            d("0.50000001"),
            d("9"),
            d("10"),
            d("10.000000001"),
            d("123456789012345678.5"),
            d("99999999999999999999999999999999999.999999999999999999999999999999"),
            d("99999999999999999999999999999999999999999999999999999999999999999"),
        ];
        for w in vals.windows(2) {
            assert_eq!(
                cmp(&ty, &w[0], &w[1]),
                Ordering::Less,
                "{:?} < {:?}",
                w[0],
                w[1]
            );
        }
        assert_eq!(cmp(&ty, &d("1.50"), &d("1.5")), Ordering::Equal);
        assert_eq!(cmp(&ty, &d("0.00"), &d("0")), Ordering::Equal);
        assert_eq!(cmp(&ty, &d("-0.00"), &d("0")), Ordering::Equal);
        let tiny = "0.00000000000000000000000000000000000001";
        assert_eq!(cmp(&ty, &d(tiny), &d("0")), Ordering::Greater);
        assert_eq!(cmp(&ty, &d(&format!("-{tiny}")), &d("0")), Ordering::Less);
        assert_eq!(
            cmp(
                &ty,
                &d("-99999999999999999999999999999999999999999999999999999999999999999"),
                &d("-100")
            ),
            Ordering::Less
        );
        assert_eq!(cmp(&ty, &d("10.50"), &d("10.5")), Ordering::Equal);
        assert_eq!(cmp(&ty, &d("100"), &d("99.99")), Ordering::Greater);
    }

    #[test]
    fn doubles_order_numerically() {
        let ty = DataType::DOUBLE;
        let vals = [-1e300, -2.5, -0.1, 0.0, 1e-300, 0.1, 2.5, 1e300];
        for w in vals.windows(2) {
            assert_eq!(
                cmp(&ty, &Value::Double(w[0]), &Value::Double(w[1])),
                Ordering::Less
            );
        }
        assert_eq!(
            cmp(&ty, &Value::Double(-0.0), &Value::Double(0.0)),
            Ordering::Equal
        );
    }

    #[test]
    fn general_ci_ignores_case_accents_and_trailing_spaces() {
        let ty = ci();
        let s = Value::str;
        assert_eq!(cmp(&ty, &s("a"), &s("A ")), Ordering::Equal);
        assert_eq!(cmp(&ty, &s("abc"), &s("ABC   ")), Ordering::Equal);
        assert_eq!(cmp(&ty, &s("é"), &s("E")), Ordering::Equal);
        assert_eq!(cmp(&ty, &s("a"), &s("b")), Ordering::Less);
        assert_eq!(cmp(&ty, &s("B"), &s("a")), Ordering::Greater);
        assert_eq!(cmp(&ty, &s("a"), &s("ab")), Ordering::Less);
        // PAD SPACE: 'a' is compared as 'a   …', so 'a\t' < 'a' < 'a b'.
        assert_eq!(cmp(&ty, &s("a\t"), &s("a")), Ordering::Less);
        assert_eq!(cmp(&ty, &s("a"), &s("a b")), Ordering::Less);
        assert_eq!(cmp(&ty, &s("a \t"), &s("a")), Ordering::Less);
        assert_eq!(cmp(&ty, &s("a  \t"), &s("a b")), Ordering::Less);
        assert_eq!(cmp(&ty, &s(""), &s("   ")), Ordering::Equal);
        assert_eq!(cmp(&ty, &Value::Null, &s("")), Ordering::Less);
    }

    #[test]
    fn bin_and_binary_collations_are_case_sensitive() {
        let bin = DataType::VarChar {
            len: 20,
            collation: Collation::Utf8mb4Bin,
        };
        let s = Value::str;
        assert_eq!(cmp(&bin, &s("a"), &s("a  ")), Ordering::Equal);
        assert_eq!(cmp(&bin, &s("A"), &s("a")), Ordering::Less);
        assert_ne!(cmp(&bin, &s("a"), &s("A")), Ordering::Equal);
        let vb = DataType::VarBinary { len: 20 };
        assert_eq!(cmp(&vb, &s("a"), &s("a ")), Ordering::Less);
        assert_eq!(
            cmp(&vb, &Value::Bytes(vec![1]), &Value::Bytes(vec![1, 0])),
            Ordering::Less
        );
        assert_eq!(
            cmp(&vb, &Value::Bytes(vec![1, 0]), &Value::Bytes(vec![1, 1])),
            Ordering::Less
        );
    }

    #[test]
    fn prefix_lengths_truncate() {
        let ty = ci();
        let mut a = Vec::new();
        let mut b = Vec::new();
        encode_value(&ty, Some(3), &Value::str("abcdef"), &mut a);
        encode_value(&ty, Some(3), &Value::str("ABCxyz"), &mut b);
        assert_eq!(a, b);
    }

    #[test]
    fn dates_order_chronologically() {
        let ty = DataType::DateTime { fsp: 6 };
        let dt = |y, mo, d, h, micros| {
            Value::DateTime(DateTime {
                date: Date {
                    year: y,
                    month: mo,
                    day: d,
                },
                hour: h,
                minute: 0,
                second: 0,
                micros,
            })
        };
        assert_eq!(
            cmp(&ty, &dt(1999, 12, 31, 23, 0), &dt(2000, 1, 1, 0, 0)),
            Ordering::Less
        );
        assert_eq!(
            cmp(&ty, &dt(2000, 1, 1, 0, 1), &dt(2000, 1, 1, 0, 2)),
            Ordering::Less
        );
    }

    #[test]
    fn prefix_end_and_bounds() {
        assert_eq!(prefix_end(&[1, 2]), Some(vec![1, 3]));
        assert_eq!(prefix_end(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_end(&[0xFF]), None);
        let (lo, hi) = byte_bounds(Bound::Included(vec![5]), Bound::Included(vec![5]));
        assert_eq!(lo, Bound::Included(vec![5]));
        assert_eq!(hi, Bound::Excluded(vec![6]));
        assert!(!range_is_empty(&lo, &hi));
        assert!(range_is_empty(
            &Bound::Included(vec![6]),
            &Bound::Excluded(vec![6])
        ));
    }
}
