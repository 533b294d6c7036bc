//! Comparing values the way MySQL does: collations, and the implicit conversions of mixed
//! comparisons.
//!
//! | left \ right | number | string | date/datetime |
//! |---|---|---|---|
//! | number | numeric (exact for integers and decimals) | string → number | number → datetime |
//! | string | string → number | collation | string → datetime (zero if none) |
//! | date | number → datetime (zero if none) | string → datetime | chronological |
//!
//! NULL compares as unknown (`None`) except in [`sort_cmp`], where NULL sorts first.

use crate::sql::expr::convert::{self, Num};
use crate::sql::expr::datetime_text;
use crate::types::collation::general_ci_weight;
use crate::types::{Collation, Value};
use std::cmp::Ordering;

/// Compare two non-NULL-or-NULL values; `None` if either is NULL.
pub fn compare(a: &Value, b: &Value, coll: Collation) -> Option<Ordering> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Bytes(x), Value::Bytes(y)) => Some(compare_strings(x, y, coll)),
        (Value::Date(x), Value::Date(y)) => Some(x.cmp(y)),
        (Value::DateTime(x), Value::DateTime(y)) => Some(x.cmp(y)),
        (Value::Time(x), Value::Time(y)) => Some(x.cmp(y)),
        // TIME against a date or datetime: the time on today's date (MariaDB).
        (Value::Time(t), Value::Date(_) | Value::DateTime(_)) => {
            Some(time_on_today(*t).cmp(&convert::to_datetime_lossy(b)))
        }
        (Value::Date(_) | Value::DateTime(_), Value::Time(t)) => {
            Some(convert::to_datetime_lossy(a).cmp(&time_on_today(*t)))
        }
        // TIME against a string or number: the other side read as a TIME.
        (Value::Time(x), _) => Some(x.cmp(&as_time(b))),
        (_, Value::Time(y)) => Some(as_time(a).cmp(y)),
        (Value::Date(_) | Value::DateTime(_), Value::Date(_) | Value::DateTime(_)) => {
            Some(convert::to_datetime_lossy(a).cmp(&convert::to_datetime_lossy(b)))
        }
        (Value::Bytes(s), Value::Date(_) | Value::DateTime(_)) => {
            Some(compare_string_with_temporal(s, b))
        }
        (Value::Date(_) | Value::DateTime(_), Value::Bytes(s)) => {
            Some(compare_string_with_temporal(s, a).reverse())
        }
        // A number against a date compares as a datetime too (MariaDB): 20191231 is that
        // day, a number that is no date (1, -128) the zero date.
        (Value::Date(_) | Value::DateTime(_), _) => {
            Some(convert::to_datetime_lossy(a).cmp(&number_as_datetime(b)))
        }
        (_, Value::Date(_) | Value::DateTime(_)) => {
            Some(number_as_datetime(a).cmp(&convert::to_datetime_lossy(b)))
        }
        _ => Some(compare_nums(&convert::to_num(a), &convert::to_num(b))),
    }
}

/// A value read as a TIME for a comparison (00:00:00 when it is none).
fn as_time(v: &Value) -> i64 {
    super::time_value::from_value(v).map_or(0, |(t, _)| t)
}

/// A TIME as a datetime on today's date (UTC).
pub fn time_on_today(t: i64) -> crate::types::DateTime {
    let today = convert::now_utc().date;
    let secs = convert::unix_seconds(&crate::types::DateTime {
        date: today,
        ..Default::default()
    }) + t.div_euclid(1_000_000);
    convert::datetime_from_unix(secs, t.rem_euclid(1_000_000) as u32)
}

/// A string against a date or datetime compares as a datetime: its leading datetime, or the
/// zero date when it has none (`'a' < DATE'2019-12-31'`, as MariaDB).
fn compare_string_with_temporal(s: &[u8], t: &Value) -> Ordering {
    datetime_text::compare_form(s).cmp(&convert::to_datetime_lossy(t))
}

/// A number as the datetime a comparison with a date reads: its integer part as
/// `[YY]YYMMDD[hhmmss]`, or the zero date.
fn number_as_datetime(v: &Value) -> crate::types::DateTime {
    convert::to_datetime_lossy(v)
}

/// Order for ORDER BY / GROUP BY / MIN / MAX: NULL first, then [`compare`].
pub fn sort_cmp(a: &Value, b: &Value, coll: Collation) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => compare(a, b, coll).unwrap_or(Ordering::Equal),
    }
}

/// Numeric comparison, exact between integers and decimals.
pub fn compare_nums(a: &Num, b: &Num) -> Ordering {
    use Num::*;
    match (a, b) {
        (I(x), I(y)) => x.cmp(y),
        (U(x), U(y)) => x.cmp(y),
        (I(x), U(y)) => (*x as i128).cmp(&(*y as i128)),
        (U(x), I(y)) => (*x as i128).cmp(&(*y as i128)),
        (F(x), F(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (F(x), other) => x.partial_cmp(&other.to_f64()).unwrap_or(Ordering::Equal),
        (other, F(y)) => other.to_f64().partial_cmp(y).unwrap_or(Ordering::Equal),
        (D(x), D(y)) => x.cmp(y),
        (D(x), I(y)) => x.cmp(&(*y).into()),
        (D(x), U(y)) => x.cmp(&(*y).into()),
        (I(x), D(y)) => cohort_decimal::Decimal::from(*x).cmp(y),
        (U(x), D(y)) => cohort_decimal::Decimal::from(*x).cmp(y),
    }
}

/// Compare two strings under a collation.
pub fn compare_strings(a: &[u8], b: &[u8], coll: Collation) -> Ordering {
    match coll {
        Collation::Binary => a.cmp(b),
        Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => trim_spaces(a).cmp(trim_spaces(b)),
        Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => {
            let (a, b) = (trim_spaces(a), trim_spaces(b));
            // ASCII bytes compare by their upper case, one byte each; at the first non-ASCII
            // byte of either (a character boundary in both, since all before was ASCII and
            // equal) the rest is compared by weights.
            let n = a.len().min(b.len());
            let mut i = 0;
            while i < n {
                let (x, y) = (a[i], b[i]);
                if (x | y) >= 0x80 {
                    return cmp_general_ci(&a[i..], &b[i..]);
                }
                if x != y {
                    let (x, y) = (x.to_ascii_uppercase(), y.to_ascii_uppercase());
                    if x != y {
                        return x.cmp(&y);
                    }
                }
                i += 1;
            }
            if a[n..].is_ascii() && b[n..].is_ascii() {
                return cmp_ascii_pad(a, b);
            }
            cmp_general_ci(&a[n..], &b[n..])
        }
        c @ (Collation::Utf8mb4Unicode520Ci
        | Collation::Utf8mb3Unicode520Ci
        | Collation::Utf8mb4UnicodeCi
        | Collation::Utf8mb3UnicodeCi) => crate::types::collation_uca::table_of(c).compare(a, b),
        c @ (Collation::Latin1SwedishCi
        | Collation::Latin1Bin
        | Collation::Latin1GeneralCi
        | Collation::Latin1GeneralCs
        | Collation::Latin1German1Ci) => latin1_order(c).compare(a, b),
    }
}

/// `utf8mb4_general_ci` by character weights (PAD SPACE; trailing spaces already trimmed).
fn cmp_general_ci(a: &[u8], b: &[u8]) -> Ordering {
    let wa = String::from_utf8_lossy(a);
    let wb = String::from_utf8_lossy(b);
    let mut ia = wa.chars().map(general_ci_weight);
    let mut ib = wb.chars().map(general_ci_weight);
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(y)) => return pad_cmp(y, &mut ib).reverse(),
            (Some(x), None) => return pad_cmp(x, &mut ia),
            (Some(x), Some(y)) if x != y => return x.cmp(&y),
            _ => {}
        }
    }
}

/// Two ASCII strings equal (case-insensitively) over the shorter one's length: the rest of
/// the longer one compares with spaces (PAD SPACE).
fn cmp_ascii_pad(a: &[u8], b: &[u8]) -> Ordering {
    let (longer, sign) = if a.len() > b.len() {
        (&a[b.len()..], Ordering::Greater)
    } else {
        (&b[a.len()..], Ordering::Less)
    };
    match longer.iter().find(|&&c| c != b' ') {
        None => Ordering::Equal,
        Some(&c) if c > b' ' => sign,
        Some(_) => sign.reverse(),
    }
}

/// With PAD SPACE, the shorter string compares as if padded with spaces: compare the rest of
/// the longer one (first weight `first`) with spaces.
fn pad_cmp(first: u32, rest: &mut dyn Iterator<Item = u32>) -> Ordering {
    std::iter::once(first)
        .chain(rest)
        .find(|&w| w != 0x20)
        .map_or(Ordering::Equal, |w| w.cmp(&0x20))
}

/// The sort order of a latin1 collation (only called with one).
fn latin1_order(c: Collation) -> &'static crate::types::collation_latin1::Latin1Order {
    crate::types::collation_latin1::order_of(c).expect("a latin1 collation")
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
    &s[..end]
}

/// A byte string that is equal for values that compare equal (GROUP BY, DISTINCT,
/// COUNT(DISTINCT)): collation weights for strings, one form per number.
pub fn group_key(v: &Value, coll: Collation, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(0),
        Value::Bytes(b) => {
            out.push(1);
            match coll {
                Collation::Binary => out.extend_from_slice(b),
                Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => {
                    out.extend_from_slice(trim_spaces(b))
                }
                Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => {
                    for c in String::from_utf8_lossy(trim_spaces(b)).chars() {
                        out.extend_from_slice(&general_ci_weight(c).to_be_bytes());
                    }
                }
                c @ (Collation::Utf8mb4Unicode520Ci
                | Collation::Utf8mb3Unicode520Ci
                | Collation::Utf8mb4UnicodeCi
                | Collation::Utf8mb3UnicodeCi) => {
                    for w in crate::types::collation_uca::table_of(c).key_weights(b) {
                        out.extend_from_slice(&w.to_be_bytes());
                    }
                }
                c @ (Collation::Latin1SwedishCi
                | Collation::Latin1Bin
                | Collation::Latin1GeneralCi
                | Collation::Latin1GeneralCs
                | Collation::Latin1German1Ci) => {
                    for w in latin1_order(c).key_weights(b) {
                        out.push(w as u8);
                    }
                }
            }
            out.push(0xFF);
        }
        Value::Date(_) | Value::DateTime(_) => {
            out.push(2);
            out.extend_from_slice(convert::to_datetime_lossy(v).to_string().as_bytes());
        }
        Value::Time(t) => {
            out.push(4);
            out.extend_from_slice(&t.to_be_bytes());
        }
        Value::Double(f) => {
            out.push(3);
            // + 0.0 makes a negative zero positive: -0e0 and 0e0 group together.
            out.extend_from_slice(&(f + 0.0).to_bits().to_be_bytes());
        }
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
            out.push(3);
            // One form per number: 1, 1.0 and 1.00 group together.
            let n = convert::to_num(v);
            match n.to_decimal() {
                Some(d) => d.normalized().write_text(out),
                None => out.extend_from_slice(&n.to_f64().to_bits().to_be_bytes()),
            }
        }
    }
    out.push(0xFE);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::str(x)
    }

    #[test]
    fn general_ci_folds_case_accents_and_trailing_spaces() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(compare(&s("abc"), &s("ABC "), ci), Some(Ordering::Equal));
        assert_eq!(compare(&s("é"), &s("E"), ci), Some(Ordering::Equal));
        assert_eq!(compare(&s("a"), &s("b"), ci), Some(Ordering::Less));
        assert_eq!(compare(&s("a\t"), &s("a"), ci), Some(Ordering::Less));
        assert_eq!(
            compare(&s("abc"), &s("ABC"), Collation::Utf8mb4Bin),
            Some(Ordering::Greater)
        );
    }

    proptest::proptest! {
        /// The byte-at-a-time ASCII path agrees with comparing every character's weight.
        #[test]
        fn general_ci_fast_path_agrees_with_weights(
            a in "[aAbB \t\u{1}éÉz\u{1F600}ß]{0,12}",
            b in "[aAbB \t\u{1}éÉz\u{1F600}ß]{0,12}",
        ) {
            let by_weight = cmp_general_ci(trim_spaces(a.as_bytes()), trim_spaces(b.as_bytes()));
            let fast = compare_strings(a.as_bytes(), b.as_bytes(), Collation::Utf8mb4GeneralCi);
            proptest::prop_assert_eq!(fast, by_weight);
        }
    }

    #[test]
    fn mixed_comparisons_convert() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(
            compare(&s("10"), &Value::Int(10), ci),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&s("abc"), &Value::Int(0), ci),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(&s("9"), &Value::Int(10), ci), Some(Ordering::Less));
        assert_eq!(compare(&Value::Null, &Value::Int(10), ci), None);
        assert_eq!(
            compare(&Value::UInt(u64::MAX), &Value::Int(-1), ci),
            Some(Ordering::Greater)
        );
    }
}
