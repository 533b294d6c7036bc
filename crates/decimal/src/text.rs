//! Decimal text: parsing (`[+-]digits[.digits][e[+-]digits]`), printing (exactly `scale`
//! fraction digits, no exponent, no negative zero), digit access for packed formats, and the
//! conversions to and from `f64`.

use crate::uint::U;
use crate::{Decimal, Overflow, BUFFER_WORDS, WORD_DIGITS};
use std::fmt;

/// The text is not a decimal number, or its integer part exceeds the 81-digit buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    Syntax,
    Overflow,
}

/// A parsed number and whether non-zero fraction digits beyond the buffer were cut.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub value: Decimal,
    pub truncated: bool,
}

/// The decimal digits of a value, without allocation: sign, integer digits (no leading
/// zeros; empty for `0.5`) and exactly `scale` fraction digits, as ASCII.
pub struct Digits {
    buf: [u8; 200],
    start: usize,
    point: usize,
    neg: bool,
}

impl Digits {
    pub fn is_negative(&self) -> bool {
        self.neg
    }

    /// Integer digits without leading zeros (empty when the integer part is 0).
    pub fn int(&self) -> &[u8] {
        &self.buf[self.start..self.point]
    }

    /// Fraction digits, exactly `scale` of them.
    pub fn frac(&self) -> &[u8] {
        &self.buf[self.point..]
    }
}

impl Decimal {
    /// The digits of the value; see [`Digits`].
    pub fn digits(&self) -> Digits {
        let mut buf = [0u8; 200];
        let len = {
            let d = match self.coefficient_u128() {
                Some(m) => write_u128(m, &mut buf),
                None => self.mag().write_digits(&mut buf).len(),
            };
            d
        };
        let scale = self.scale() as usize;
        let mut start = buf.len() - len;
        // Pad with zeros so there are at least `scale` digits after the point.
        while buf.len() - start < scale {
            start -= 1;
            buf[start] = b'0';
        }
        let point = buf.len() - scale;
        while start < point && buf[start] == b'0' {
            start += 1;
        }
        Digits {
            buf,
            start,
            point,
            neg: self.is_negative(),
        }
    }

    /// Parse a complete number: `[+-]digits[.digits][(e|E)[+-]digits]` (a point may have
    /// digits on one side only). An exponent shifts the point; the scale is the count of
    /// fraction digits after the shift (`1.50` has scale 2, `1.5e1` scale 0, `1e-3` scale 3).
    /// Fraction digits that do not fit the 81-digit buffer are cut.
    pub fn parse(text: &[u8]) -> Result<Parsed, ParseError> {
        let mut i = 0;
        let neg = match text.first() {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let int_start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        let int_part = &text[int_start..i];
        let mut frac_part: &[u8] = &[];
        if i < text.len() && text[i] == b'.' {
            i += 1;
            let fs = i;
            while i < text.len() && text[i].is_ascii_digit() {
                i += 1;
            }
            frac_part = &text[fs..i];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return Err(ParseError::Syntax);
        }
        let mut exp: i64 = 0;
        if i < text.len() && (text[i] == b'e' || text[i] == b'E') {
            i += 1;
            let eneg = match text.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let es = i;
            while i < text.len() && text[i].is_ascii_digit() {
                exp = (exp * 10 + (text[i] - b'0') as i64).min(1_000_000);
                i += 1;
            }
            if i == es {
                return Err(ParseError::Syntax);
            }
            if eneg {
                exp = -exp;
            }
        }
        if i != text.len() {
            return Err(ParseError::Syntax);
        }
        if exp == 0 && int_part.len() + frac_part.len() <= 38 && frac_part.len() <= 72 {
            // Plain text of at most 38 digits: the coefficient fits a u128 as written.
            let mag = int_part
                .iter()
                .chain(frac_part)
                .fold(0u128, |m, &c| m * 10 + (c - b'0') as u128);
            return Ok(Parsed {
                value: Decimal::from_u128(neg, mag, frac_part.len() as u8),
                truncated: false,
            });
        }
        from_digit_parts(neg, int_part, frac_part, exp)
    }

    /// The nearest `f64` (correctly rounded).
    pub fn to_f64(&self) -> f64 {
        if let Some(m) = self.coefficient_u128() {
            let s = self.scale();
            if m < 1 << 53 && s <= 22 {
                let v = m as f64 / 10f64.powi(s as i32);
                return if self.is_negative() { -v } else { v };
            }
        }
        self.to_string().parse().unwrap_or(0.0)
    }

    /// The decimal a DOUBLE converts to: its shortest round-trip digits (as MariaDB, `0.1e0`
    /// is `0.1`). None for NaN and infinities; [`Overflow`] beyond the buffer.
    pub fn from_f64(f: f64) -> Option<Result<Decimal, Overflow>> {
        if !f.is_finite() {
            return None;
        }
        if f == 0.0 {
            return Some(Ok(Decimal::ZERO));
        }
        let text = format!("{f:e}");
        Some(match Decimal::parse(text.as_bytes()) {
            Ok(p) => Ok(p.value),
            Err(_) => Err(Overflow),
        })
    }

    /// Write the text form into `out`.
    pub fn write_text(&self, out: &mut Vec<u8>) {
        let d = self.digits();
        if d.neg {
            out.push(b'-');
        }
        if d.int().is_empty() {
            out.push(b'0');
        } else {
            out.extend_from_slice(d.int());
        }
        if !d.frac().is_empty() {
            out.push(b'.');
            out.extend_from_slice(d.frac());
        }
    }
}

/// Digits of `m` at the end of `buf`; returns how many.
fn write_u128(mut m: u128, buf: &mut [u8; 200]) -> usize {
    let mut end = buf.len();
    loop {
        end -= 1;
        buf[end] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            return buf.len() - end;
        }
    }
}

/// Build a value from digit strings and a decimal exponent.
fn from_digit_parts(
    neg: bool,
    int_part: &[u8],
    frac_part: &[u8],
    exp: i64,
) -> Result<Parsed, ParseError> {
    // All digits in one sequence; the point sits after `point` of them (may be outside).
    let lead = int_part.iter().take_while(|&&c| c == b'0').count();
    let digits_int = &int_part[lead..];
    let point = digits_int.len() as i64 + exp;
    let all_len = (digits_int.len() + frac_part.len()) as i64;
    let digit_at = |k: i64| -> u8 {
        // k-th digit of digits_int ++ frac_part (0 outside).
        if k < 0 || k >= all_len {
            0
        } else if (k as usize) < digits_int.len() {
            digits_int[k as usize] - b'0'
        } else {
            frac_part[k as usize - digits_int.len()] - b'0'
        }
    };
    // Integer digits after the shift (significant ones), and the scale.
    let mut first_sig = 0i64;
    while first_sig < point.min(all_len) && digit_at(first_sig) == 0 {
        first_sig += 1;
    }
    let int_digits = (point - first_sig).max(0);
    let int_words = (int_digits as u32).div_ceil(WORD_DIGITS).max(1) as i64;
    if int_digits > (BUFFER_WORDS * WORD_DIGITS) as i64 {
        return Err(ParseError::Overflow);
    }
    let room = (BUFFER_WORDS as i64 - int_words) * WORD_DIGITS as i64;
    let scale = (all_len - point).max(0);
    let kept_scale = scale.min(room);
    let truncated = (point + kept_scale..all_len).any(|k| digit_at(k) != 0);
    // Coefficient: digits from first_sig (or the first fraction position) to point+kept_scale.
    let from = first_sig.min(point);
    let to = point + kept_scale;
    let mut mag: u128 = 0;
    let mut wide: Option<U> = None;
    for k in from..to {
        let d = digit_at(k);
        match &mut wide {
            None => match mag.checked_mul(10).and_then(|m| m.checked_add(d as u128)) {
                Some(m) => mag = m,
                None => {
                    let w = U::from_u128(mag)
                        .mul_u64(10)
                        .and_then(|w| w.add_u64(d as u64))
                        .ok_or(ParseError::Overflow)?;
                    wide = Some(w);
                }
            },
            Some(w) => {
                *w = w
                    .mul_u64(10)
                    .and_then(|w| w.add_u64(d as u64))
                    .ok_or(ParseError::Overflow)?;
            }
        }
    }
    let value = match wide {
        None => Decimal::from_u128(neg, mag, kept_scale as u8),
        Some(w) => Decimal::from_wide(neg && !w.is_zero(), &w, kept_scale as u32),
    };
    Ok(Parsed { value, truncated })
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.digits();
        let mut s = String::with_capacity(d.int().len() + d.frac().len() + 3);
        if d.neg {
            s.push('-');
        }
        if d.int().is_empty() {
            s.push('0');
        } else {
            s.push_str(std::str::from_utf8(d.int()).unwrap_or(""));
        }
        if !d.frac().is_empty() {
            s.push('.');
            s.push_str(std::str::from_utf8(d.frac()).unwrap_or(""));
        }
        f.pad(&s)
    }
}

impl std::str::FromStr for Decimal {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Decimal, ParseError> {
        Decimal::parse(s.as_bytes()).map(|p| p.value)
    }
}
