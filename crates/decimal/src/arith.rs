//! Arithmetic with MariaDB's result scales.
//!
//! | operation | result scale | rounding |
//! |---|---|---|
//! | `a + b`, `a - b`, `a MOD b` | max(sa, sb) | exact |
//! | `a * b` | min(sa + sb, 38) | half up |
//! | `a / b` | min(sa + increment, 38) (`div_precision_increment`, 4 by default) | half up |
//! | `a DIV b` | 0 | toward zero |
//!
//! Every result then has to fit the 81-digit buffer (see the crate doc): an integer part of
//! more than nine words is [`Overflow`]; fraction digits that do not fit are cut.
//!
//! Each operation first tries the inline path (coefficients and intermediates in `u128`,
//! scale ≤ 36, where everything fits the buffer by construction: 39 integer digits are five
//! words, 36 fraction digits four) and falls back to 640-bit arithmetic otherwise.

use crate::uint::{pow10, U};
use crate::{words, DivError, Overflow, Rounding, BUFFER_WORDS, MAX_SCALE, WORD_DIGITS};
use crate::{Decimal, Repr};
use std::cmp::Ordering;

/// 10^0 ..= 10^38.
const POW10_U128: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// Scale at or below which a `u128` coefficient always fits the buffer.
const INLINE_SCALE: u8 = 36;

fn scale_u128(m: u128, k: u8) -> Option<u128> {
    if k == 0 {
        return Some(m);
    }
    if m <= u64::MAX as u128 && k <= 19 {
        // 64 × 64 bits: cannot overflow.
        return Some(m * crate::uint::POW10_U64[k as usize] as u128);
    }
    POW10_U128.get(k as usize).and_then(|p| m.checked_mul(*p))
}

/// `a × b` in u128, if it fits (one 64-bit multiply when both fit in 64 bits).
fn mul_u128(a: u128, b: u128) -> Option<u128> {
    if a <= u64::MAX as u128 && b <= u64::MAX as u128 {
        return Some(a * b);
    }
    a.checked_mul(b)
}

/// Decimal digits of `m` (1 for zero).
fn digit_count(m: &U) -> u32 {
    match m.to_u128() {
        Some(0) => 1,
        Some(v) => v.ilog10() + 1,
        None => {
            let mut n = 0;
            let mut v = *m;
            while v.to_u128().is_none() {
                v = v.divrem_u64(crate::uint::TEN19).0;
                n += 19;
            }
            n + digit_count(&v)
        }
    }
}

/// Drop `k` digits of `mag` under `mode` (`neg` is the sign of the value).
fn round_off(mag: &U, k: u32, mode: Rounding, neg: bool) -> U {
    if k == 0 {
        return *mag;
    }
    let (q, r) = mag.divrem_pow10(k);
    if r.is_zero() {
        return q;
    }
    let up = match mode {
        Rounding::Down => false,
        Rounding::Floor => neg,
        Rounding::Ceiling => !neg,
        // r >= 10^k / 2, i.e. 2r >= 10^k (10^k itself may not fit: then r is the whole
        // magnitude, below 10^81, and never reaches half of 10^k).
        Rounding::HalfUp => match (pow10(k), r.mul_u64(2)) {
            (Some(p), Some(r2)) => r2 >= p,
            _ => false,
        },
    };
    if up {
        q.add_u64(1).unwrap_or(q)
    } else {
        q
    }
}

/// Cut the fraction so the value fits the buffer, then round (or extend) it to `target`
/// digits; the scale ends at `target` or less when the buffer has no room for more.
fn finish(neg: bool, mag: U, scale: u32, target: u32, mode: Rounding) -> Result<Decimal, Overflow> {
    let (mut mag, mut scale) = (mag, scale);
    let int_digits = digit_count(&mag).saturating_sub(scale);
    let int_words = int_digits.div_ceil(WORD_DIGITS);
    if int_words > BUFFER_WORDS {
        return Err(Overflow);
    }
    let room = (BUFFER_WORDS - int_words) * WORD_DIGITS;
    if scale > room {
        mag = round_off(&mag, scale - room, Rounding::Down, neg);
        scale = room;
    }
    let target = target.min(room);
    if scale > target {
        mag = round_off(&mag, scale - target, mode, neg);
        // Rounding up can add an integer digit (99.9 → 100).
        let int_digits = digit_count(&mag).saturating_sub(target);
        if words(int_digits, target) > BUFFER_WORDS {
            if int_digits.div_ceil(WORD_DIGITS) > BUFFER_WORDS {
                return Err(Overflow);
            }
            return finish(neg, mag, target, target, Rounding::Down);
        }
    } else if scale < target {
        mag = mag.mul_pow10(target - scale).ok_or(Overflow)?;
    }
    Ok(Decimal::from_wide(neg, &mag, target))
}

/// A value given by a wide coefficient: fitted to the buffer at its own scale.
fn exact(neg: bool, mag: U, scale: u32) -> Result<Decimal, Overflow> {
    finish(neg, mag, scale, scale, Rounding::Down)
}

/// Compare |a| with |b|.
pub(crate) fn cmp_magnitudes(a: &Decimal, b: &Decimal) -> Ordering {
    let (sa, sb) = (a.scale(), b.scale());
    if let (Some(ma), Some(mb)) = (a.coefficient_u128(), b.coefficient_u128()) {
        return match sa.cmp(&sb) {
            Ordering::Equal => ma.cmp(&mb),
            // A coefficient that overflows u128 when aligned exceeds any u128.
            Ordering::Less => scale_u128(ma, sb - sa).map_or(Ordering::Greater, |x| x.cmp(&mb)),
            Ordering::Greater => scale_u128(mb, sa - sb).map_or(Ordering::Less, |y| ma.cmp(&y)),
        };
    }
    let s = sa.max(sb) as u32;
    // At most 81 + 81 digits: always fits the 640-bit width.
    let x = a.mag().mul_pow10(s - sa as u32).expect("fits");
    let y = b.mag().mul_pow10(s - sb as u32).expect("fits");
    x.cmp(&y)
}

impl Decimal {
    fn parts(&self) -> (bool, U, u32) {
        (self.is_negative(), self.mag(), self.scale() as u32)
    }

    /// `self + o`, exact at scale max(sa, sb).
    pub fn checked_add(&self, o: &Decimal) -> Result<Decimal, Overflow> {
        add_signed(self, o, o.is_negative())
    }

    /// `self - o`, exact at scale max(sa, sb).
    pub fn checked_sub(&self, o: &Decimal) -> Result<Decimal, Overflow> {
        add_signed(self, o, !o.is_negative() && !o.is_zero())
    }

    /// `self * o` at scale min(sa + sb, 38), rounded half up.
    pub fn checked_mul(&self, o: &Decimal) -> Result<Decimal, Overflow> {
        let neg = self.is_negative() != o.is_negative();
        let scale = self.scale() as u32 + o.scale() as u32;
        if let (Some(a), Some(b)) = (self.coefficient_u128(), o.coefficient_u128()) {
            if scale <= INLINE_SCALE as u32 {
                if let Some(p) = mul_u128(a, b) {
                    return Ok(Decimal::from_u128(neg, p, scale as u8));
                }
            }
        }
        let p = self.mag().mul(&o.mag()).expect("81 + 81 digits fit");
        finish(neg, p, scale, scale.min(MAX_SCALE as u32), Rounding::HalfUp)
    }

    /// `self / o` at scale min(sa + increment, 38), rounded half up.
    pub fn checked_div(&self, o: &Decimal, increment: u8) -> Result<Decimal, DivError> {
        if o.is_zero() {
            return Err(DivError::DivisionByZero);
        }
        let neg = self.is_negative() != o.is_negative();
        let (sa, sb) = (self.scale() as i32, o.scale() as i32);
        let target = (sa + increment as i32).min(MAX_SCALE as i32);
        // self/o × 10^target = (ma × 10^sb × 10^target) / (mb × 10^sa)
        let e = sb + target - sa;
        if let (Some(a), Some(b)) = (self.coefficient_u128(), o.coefficient_u128()) {
            if target <= INLINE_SCALE as i32 {
                let nd = if e >= 0 {
                    scale_u128(a, e as u8).map(|n| (n, b))
                } else {
                    scale_u128(b, (-e) as u8).map(|d| (a, d))
                };
                if let Some((n, d)) = nd {
                    let (q, r) = (n / d, n % d);
                    // r >= d / 2 rounds up; r < d so 2r cannot overflow when d < 2^127.
                    let up = r >= d - r;
                    if let Some(q) = q.checked_add(up as u128) {
                        return Ok(Decimal::from_u128(neg, q, target as u8));
                    }
                }
            }
        }
        let (ma, mb) = (self.mag(), o.mag());
        let (n, d) = if e >= 0 {
            (ma.mul_pow10(e as u32).ok_or(Overflow)?, mb)
        } else {
            (ma, mb.mul_pow10((-e) as u32).ok_or(Overflow)?)
        };
        let (q, r) = n.divrem(&d);
        let up = d.sub(&r) <= r;
        let q = if up { q.add_u64(1).ok_or(Overflow)? } else { q };
        Ok(finish(
            neg,
            q,
            target as u32,
            target as u32,
            Rounding::HalfUp,
        )?)
    }

    /// `self / o` as MariaDB computes it before any rounding: the quotient truncated toward
    /// zero at a scale of whole 9-digit words, `9 × ceil((sa + sb + increment) / 9)` digits
    /// (what its decimal arithmetic keeps), so that `1/3*3` is `0.999999999` before it is
    /// shown at the expression's scale (`1.0000`). Where that scale would not fit the
    /// working range, the quotient is [`Decimal::checked_div`]'s.
    pub fn div_words(&self, o: &Decimal, increment: u8) -> Result<Decimal, DivError> {
        if o.is_zero() {
            return Err(DivError::DivisionByZero);
        }
        let (sa, sb) = (self.scale() as u32, o.scale() as u32);
        let words = (sa + sb + increment as u32).div_ceil(9);
        let target = words * 9;
        // self/o × 10^target = (ma × 10^sb × 10^target) / (mb × 10^sa)
        let e = (sb + target) as i64 - sa as i64;
        let (ma, mb) = (self.mag(), o.mag());
        let nd = if e >= 0 {
            ma.mul_pow10(e as u32).map(|n| (n, mb))
        } else {
            mb.mul_pow10((-e) as u32).map(|d| (ma, d))
        };
        let Some((n, d)) = nd else {
            return self.checked_div(o, increment);
        };
        let (q, _) = n.divrem(&d);
        match exact(self.is_negative() != o.is_negative(), q, target) {
            Ok(r) => Ok(r),
            Err(_) => self.checked_div(o, increment),
        }
    }

    /// `self DIV o`: the quotient truncated toward zero, scale 0.
    pub fn div_trunc(&self, o: &Decimal) -> Result<Decimal, DivError> {
        if o.is_zero() {
            return Err(DivError::DivisionByZero);
        }
        let neg = self.is_negative() != o.is_negative();
        let (n, d) = aligned(self, o)?;
        let (q, _) = n.divrem(&d);
        Ok(exact(neg, q, 0)?)
    }

    /// `self MOD o`: the remainder of the truncated division, with the sign of `self`, at
    /// scale max(sa, sb).
    pub fn rem(&self, o: &Decimal) -> Result<Decimal, DivError> {
        if o.is_zero() {
            return Err(DivError::DivisionByZero);
        }
        let s = self.scale().max(o.scale()) as u32;
        let (n, d) = aligned(self, o)?;
        let (_, r) = n.divrem(&d);
        Ok(exact(self.is_negative(), r, s)?)
    }

    /// The value rounded under `mode` to `places` digits after the point; a negative `places`
    /// rounds to tens, hundreds, … (`ROUND(15.5, -1)` = 20). The result has scale
    /// `max(places, 0)` (extended with zeros when `places` exceeds the scale).
    pub fn round_to(&self, places: i32, mode: Rounding) -> Result<Decimal, Overflow> {
        let (neg, mag, scale) = self.parts();
        let places = places.clamp(-200, 200);
        if places >= 0 {
            if places as u32 >= scale {
                return finish(neg, mag, scale, places as u32, mode);
            }
            // The u128 fast path needs 10^k to fit in a u128 (k ≤ 38); a wider scale (a
            // working value can carry up to 81 digits) takes the general path below.
            let k = scale - places as u32;
            if let Some(m) = self
                .coefficient_u128()
                .filter(|_| (k as usize) < POW10_U128.len())
            {
                let (q, r) = (m / POW10_U128[k as usize], m % POW10_U128[k as usize]);
                let up = r != 0
                    && match mode {
                        Rounding::Down => false,
                        Rounding::Floor => neg,
                        Rounding::Ceiling => !neg,
                        Rounding::HalfUp => r >= POW10_U128[k as usize] - r,
                    };
                if let Some(q) = q.checked_add(up as u128) {
                    if places as u8 <= INLINE_SCALE {
                        return Ok(Decimal::from_u128(neg, q, places as u8));
                    }
                }
            }
            return finish(neg, mag, scale, places as u32, mode);
        }
        // Dropping more digits than there are leaves 0 (or one unit for floor/ceiling).
        let q = round_off(&mag, scale + places.unsigned_abs(), mode, neg);
        if q.is_zero() {
            return Ok(Decimal::ZERO);
        }
        let back = q.mul_pow10(places.unsigned_abs()).ok_or(Overflow)?;
        exact(neg, back, 0)
    }

    /// The value at exactly `scale` digits, rounded half up (storing into a column, CAST).
    pub fn rescale(&self, scale: u8) -> Result<Decimal, Overflow> {
        if self.scale() == scale {
            return Ok(self.clone());
        }
        self.round_to(scale as i32, Rounding::HalfUp)
    }

    /// The value rounded to an integer under `mode`, if it fits in an `i128`.
    pub fn to_i128(&self, mode: Rounding) -> Option<i128> {
        let r = self.round_to(0, mode).ok()?;
        let m = r.coefficient_u128()?;
        if r.is_negative() {
            if m <= i128::MAX as u128 + 1 {
                Some((m as i128).wrapping_neg())
            } else {
                None
            }
        } else {
            i128::try_from(m).ok()
        }
    }
}

/// Both coefficients at the common scale max(sa, sb).
fn aligned(a: &Decimal, b: &Decimal) -> Result<(U, U), Overflow> {
    let s = a.scale().max(b.scale()) as u32;
    let x = a.mag().mul_pow10(s - a.scale() as u32).ok_or(Overflow)?;
    let y = b.mag().mul_pow10(s - b.scale() as u32).ok_or(Overflow)?;
    Ok((x, y))
}

/// `a + (±|b|)` where `b_neg` is the sign given to b.
fn add_signed(a: &Decimal, b: &Decimal, b_neg: bool) -> Result<Decimal, Overflow> {
    // The commonest case: two inline values of one scale and one sign (sums of amounts).
    if let (
        Repr::Small {
            scale: sa, neg: na, ..
        },
        Repr::Small { scale: sb, .. },
    ) = (&a.0, &b.0)
    {
        if sa == sb && *na == b_neg && *sa <= INLINE_SCALE {
            let (x, y) = (a.small_coefficient(), b.small_coefficient());
            // Both below 2^112: the sum cannot overflow.
            return Ok(Decimal::from_u128(b_neg, x + y, *sa));
        }
    }
    let a_neg = a.is_negative();
    let (sa, sb) = (a.scale(), b.scale());
    let s = sa.max(sb);
    if let (Some(ma), Some(mb)) = (a.coefficient_u128(), b.coefficient_u128()) {
        if s <= INLINE_SCALE {
            if let (Some(x), Some(y)) = (scale_u128(ma, s - sa), scale_u128(mb, s - sb)) {
                if a_neg == b_neg {
                    if let Some(sum) = x.checked_add(y) {
                        return Ok(Decimal::from_u128(a_neg, sum, s));
                    }
                } else if x >= y {
                    return Ok(Decimal::from_u128(a_neg, x - y, s));
                } else {
                    return Ok(Decimal::from_u128(b_neg, y - x, s));
                }
            }
        }
    }
    let (x, y) = aligned(a, b)?;
    let s = s as u32;
    if a_neg == b_neg {
        exact(a_neg, x.add(&y).ok_or(Overflow)?, s)
    } else if x >= y {
        exact(a_neg, x.sub(&y), s)
    } else {
        exact(b_neg, y.sub(&x), s)
    }
}

impl Decimal {
    /// True for an inline (not boxed) coefficient; for tests of the representation.
    #[doc(hidden)]
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Small { .. })
    }
}
