//! MySQL's packed binary DECIMAL format, as used for NEWDECIMAL values in row images.
//!
//! A `DECIMAL(p, s)` has `p - s` integer digits and `s` fraction digits. Each side is cut into
//! groups of 9 decimal digits stored as 4-byte big-endian integers; a group of fewer digits
//! takes only as many bytes as it needs (1–2 digits → 1 byte, 3–4 → 2, 5–6 → 3, 7–9 → 4).
//! The integer part's partial group comes first (most significant), the fraction's last.
//! A negative value has every byte inverted; finally the top bit of the first byte is
//! flipped, so that byte-wise comparison orders values.
//!
//! Example: `DECIMAL(6,3)` `-12.340` → integer part `012` (2 bytes, `00 0c`), fraction `340`
//! (2 bytes, `01 54`) → inverted `ff f3 fe ab` → top bit flipped `7f f3 fe ab`.

use cohort_decimal::Decimal;

const DIGITS_PER_GROUP: usize = 9;
/// Bytes needed by a group of `n` digits (n = 0..=9).
const GROUP_BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// Byte length of a packed `DECIMAL(precision, scale)` value.
pub fn binary_size(precision: u8, scale: u8) -> usize {
    let intg = precision.saturating_sub(scale) as usize;
    let frac = scale as usize;
    side_size(intg) + side_size(frac)
}

fn side_size(digits: usize) -> usize {
    (digits / DIGITS_PER_GROUP) * 4 + GROUP_BYTES[digits % DIGITS_PER_GROUP]
}

/// Packs `value` into `out` as `DECIMAL(precision, scale)`.
///
/// Fails if the integer part has more than `precision - scale` significant digits, or if it
/// has more than `scale` fraction digits other than trailing zeros (no rounding is done).
pub fn encode(value: &Decimal, precision: u8, scale: u8, out: &mut Vec<u8>) -> Result<(), String> {
    let digits = value.digits();
    encode_digits(
        digits.is_negative(),
        digits.int(),
        digits.frac(),
        precision,
        scale,
        out,
    )
    .map_err(|e| format!("{value}{e}"))
}

/// Packs decimal text (`[+-]digits[.digits]`) into `out` as `DECIMAL(precision, scale)`, with
/// the same rules as [`encode`].
pub fn encode_text(text: &str, precision: u8, scale: u8, out: &mut Vec<u8>) -> Result<(), String> {
    let (negative, int_digits, frac_digits) = parse(text)?;
    encode_digits(
        negative,
        int_digits.as_bytes(),
        frac_digits.as_bytes(),
        precision,
        scale,
        out,
    )
    .map_err(|e| format!("{text:?}{e}"))
}

/// The packing itself, from ASCII digit strings; the error says why the value does not fit.
fn encode_digits(
    negative: bool,
    int_digits: &[u8],
    frac_digits: &[u8],
    precision: u8,
    scale: u8,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let intg = precision.saturating_sub(scale) as usize;
    let frac = scale as usize;
    let lead = int_digits.iter().take_while(|&&c| c == b'0').count();
    let int_digits = &int_digits[lead..];
    let trail = frac_digits.iter().rev().take_while(|&&c| c == b'0').count();
    let frac_digits = &frac_digits[..frac_digits.len() - trail];
    if frac_digits.len() > frac {
        return Err(format!(" has more than {frac} fraction digits"));
    }
    if int_digits.len() > intg {
        return Err(format!(" does not fit DECIMAL({precision},{scale})"));
    }
    let is_zero = int_digits.is_empty() && frac_digits.is_empty();
    let negative = negative && !is_zero;

    // Digit strings padded to the full widths of the two sides.
    let mut int_full = [0u8; 256];
    let int_full = &mut int_full[..intg];
    let pad = intg - int_digits.len();
    for (slot, c) in int_full[pad..].iter_mut().zip(int_digits) {
        *slot = c - b'0';
    }
    let mut frac_full = [0u8; 256];
    let frac_full = &mut frac_full[..frac];
    for (slot, c) in frac_full.iter_mut().zip(frac_digits) {
        *slot = c - b'0';
    }

    let start = out.len();
    // Integer side: leading partial group, then full groups.
    let lead = intg % DIGITS_PER_GROUP;
    let mut i = 0;
    if lead > 0 {
        push_group(out, &int_full[..lead]);
        i = lead;
    }
    while i < intg {
        push_group(out, &int_full[i..i + DIGITS_PER_GROUP]);
        i += DIGITS_PER_GROUP;
    }
    // Fraction side: full groups, then trailing partial group.
    let mut i = 0;
    while i + DIGITS_PER_GROUP <= frac {
        push_group(out, &frac_full[i..i + DIGITS_PER_GROUP]);
        i += DIGITS_PER_GROUP;
    }
    if i < frac {
        push_group(out, &frac_full[i..]);
    }

    let packed = &mut out[start..];
    if negative {
        for b in packed.iter_mut() {
            *b = !*b;
        }
    }
    if let Some(first) = packed.first_mut() {
        *first ^= 0x80;
    }
    Ok(())
}

/// Splits decimal text into sign, integer digits and fraction digits.
fn parse(text: &str) -> Result<(bool, &str, &str), String> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (int_part, frac_part) = match body.find('.') {
        Some(dot) => (&body[..dot], &body[dot + 1..]),
        None => (body, ""),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int_part.is_empty() && frac_part.is_empty())
        || !all_digits(int_part)
        || !all_digits(frac_part)
    {
        return Err(format!("{text:?} is not a decimal number"));
    }
    Ok((negative, int_part, frac_part))
}

/// Appends the big-endian value of `digits` in the byte width of a group of that many digits.
fn push_group(out: &mut Vec<u8>, digits: &[u8]) {
    let value = digits.iter().fold(0u32, |acc, &d| acc * 10 + d as u32);
    let width = GROUP_BYTES[digits.len()];
    out.extend_from_slice(&value.to_be_bytes()[4 - width..]);
}

/// Unpacks a `DECIMAL(precision, scale)` value of exactly [`binary_size`] bytes; the value has
/// exactly `scale` fraction digits (and is never a negative zero).
pub fn decode(bytes: &[u8], precision: u8, scale: u8) -> Result<Decimal, String> {
    let text = decode_text(bytes, precision, scale)?;
    Decimal::parse(text.as_bytes())
        .map(|p| p.value)
        .map_err(|e| format!("DECIMAL({precision},{scale}) {text}: {e:?}"))
}

/// Unpacks a `DECIMAL(precision, scale)` value of exactly [`binary_size`] bytes into its
/// canonical text: optional `-` (never for zero), integer digits without leading zeros (`0`
/// when none), and, when `scale > 0`, a point and exactly `scale` digits.
pub fn decode_text(bytes: &[u8], precision: u8, scale: u8) -> Result<String, String> {
    let intg = precision.saturating_sub(scale) as usize;
    let frac = scale as usize;
    if bytes.len() != binary_size(precision, scale) || bytes.is_empty() {
        return Err(format!(
            "DECIMAL({precision},{scale}) needs {} bytes, got {}",
            binary_size(precision, scale),
            bytes.len()
        ));
    }
    let negative = bytes[0] & 0x80 == 0;
    let mask = if negative { 0xff } else { 0x00 };
    let byte_at = |i: usize| {
        let b = if i == 0 { bytes[0] ^ 0x80 } else { bytes[i] };
        b ^ mask
    };

    let mut pos = 0;
    let mut read_group = |ndigits: usize, out: &mut String| -> Result<(), String> {
        let width = GROUP_BYTES[ndigits];
        let mut value = 0u32;
        for i in pos..pos + width {
            value = (value << 8) | byte_at(i) as u32;
        }
        pos += width;
        if value >= 10u32.pow(ndigits as u32) {
            return Err(format!(
                "DECIMAL digit group {value} exceeds {ndigits} digits"
            ));
        }
        out.push_str(&format!("{value:0ndigits$}"));
        Ok(())
    };

    let mut int_text = String::with_capacity(intg);
    let lead = intg % DIGITS_PER_GROUP;
    if lead > 0 {
        read_group(lead, &mut int_text)?;
    }
    for _ in 0..intg / DIGITS_PER_GROUP {
        read_group(DIGITS_PER_GROUP, &mut int_text)?;
    }
    let mut frac_text = String::with_capacity(frac);
    for _ in 0..frac / DIGITS_PER_GROUP {
        read_group(DIGITS_PER_GROUP, &mut frac_text)?;
    }
    if !frac.is_multiple_of(DIGITS_PER_GROUP) {
        read_group(frac % DIGITS_PER_GROUP, &mut frac_text)?;
    }

    let int_trimmed = int_text.trim_start_matches('0');
    let is_zero = int_trimmed.is_empty() && frac_text.bytes().all(|b| b == b'0');
    let mut out = String::with_capacity(intg + frac + 3);
    if negative && !is_zero {
        out.push('-');
    }
    out.push_str(if int_trimmed.is_empty() {
        "0"
    } else {
        int_trimmed
    });
    if frac > 0 {
        out.push('.');
        out.push_str(&frac_text);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(text: &str, p: u8, s: u8) -> Vec<u8> {
        let mut out = Vec::new();
        encode_text(text, p, s, &mut out).unwrap();
        assert_eq!(out.len(), binary_size(p, s));
        out
    }

    #[test]
    fn sizes() {
        assert_eq!(binary_size(10, 0), 5);
        assert_eq!(binary_size(6, 3), 4);
        assert_eq!(binary_size(18, 9), 8);
        assert_eq!(binary_size(65, 30), 30);
        assert_eq!(binary_size(2, 2), 1);
        assert_eq!(binary_size(1, 0), 1);
        assert_eq!(binary_size(38, 38), 17);
    }

    #[test]
    fn known_vectors() {
        // Worked example from MySQL's documentation of the format: DECIMAL(14,4)
        // 1234567890.1234 → 81 0D FB 38 D2 04 D2.
        assert_eq!(
            enc("1234567890.1234", 14, 4),
            [0x81, 0x0d, 0xfb, 0x38, 0xd2, 0x04, 0xd2]
        );
        // And its negation: 7E F2 04 C7 2D FB 2D.
        assert_eq!(
            enc("-1234567890.1234", 14, 4),
            [0x7e, 0xf2, 0x04, 0xc7, 0x2d, 0xfb, 0x2d]
        );
        assert_eq!(enc("-12.340", 6, 3), [0x7f, 0xf3, 0xfe, 0xab]);
        assert_eq!(enc("0", 5, 2), [0x80, 0x00, 0x00]);
        assert_eq!(enc("-0.00", 5, 2), [0x80, 0x00, 0x00]);
        assert_eq!(enc("1", 1, 0), [0x81]);
        assert_eq!(enc("-1", 1, 0), [0x7e]);
    }

    #[test]
    fn canonical_decode() {
        let cases = [
            ("-12.34", 6, 3, "-12.340"),
            ("+007.5", 4, 1, "7.5"),
            (".5", 2, 2, "0.50"),
            ("-0.01", 2, 2, "-0.01"),
            ("0", 10, 0, "0"),
            ("-0", 10, 0, "0"),
            ("12.500", 5, 1, "12.5"),
            (
                "99999999999999999999999999999999999",
                65,
                30,
                "99999999999999999999999999999999999.000000000000000000000000000000",
            ),
            ("-1.000000001", 20, 9, "-1.000000001"),
            ("123456789012345678", 18, 0, "123456789012345678"),
            ("-0.123456789123", 12, 12, "-0.123456789123"),
        ];
        for (text, p, s, want) in cases {
            let bytes = enc(text, p, s);
            assert_eq!(
                decode_text(&bytes, p, s).unwrap(),
                want,
                "{text} as DECIMAL({p},{s})"
            );
        }
    }

    #[test]
    fn rejects() {
        let mut out = Vec::new();
        assert!(encode_text("1000", 5, 2, &mut out).is_err());
        assert!(encode_text("1.234", 5, 2, &mut out).is_err());
        assert!(encode_text("abc", 5, 2, &mut out).is_err());
        assert!(encode_text("", 5, 2, &mut out).is_err());
        assert!(encode_text("-", 5, 2, &mut out).is_err());
        assert!(encode_text("1e5", 9, 0, &mut out).is_err());
        assert!(decode(&[0x80, 0x00], 5, 2).is_err());
        // A 1-byte group holding 2 digits cannot exceed 99.
        assert!(decode(&[0x80 | 100], 2, 0).is_err());
    }

    #[test]
    fn ordering_is_bytewise() {
        let values = ["-999.99", "-10.5", "-0.01", "0", "0.01", "10.5", "999.99"];
        let encoded: Vec<Vec<u8>> = values.iter().map(|v| enc(v, 5, 2)).collect();
        for w in encoded.windows(2) {
            assert!(w[0] < w[1]);
        }
    }
}
