//! Exact decimal numbers with MySQL/MariaDB `DECIMAL` semantics.
//!
//! # What is covered
//!
//! A column is `DECIMAL(M, D)` with `M ≤ 65` digits of which `D ≤ 38` are after the point
//! (MariaDB 10.11's limits; MySQL stops the scale at 30). Expressions work in a wider space:
//! MariaDB computes in a buffer of nine 9-digit words, so an intermediate result may have up to
//! 81 digits, as long as `⌈integer digits / 9⌉ + ⌈scale / 9⌉ ≤ 9`. A result whose integer part
//! does not fit is an overflow (error 1690 for the caller); a fraction that does not fit is
//! cut (see [`Decimal::checked_add`] and friends). `99…9 (65 nines) + 1` is therefore
//! `10^65`, exactly as MariaDB shows it.
//!
//! # Representation, and why
//!
//! A value is a sign, an unsigned binary coefficient and a scale: `±coefficient × 10^-scale`.
//! Coefficients below 2^112 (every value of up to 33 digits, so every TPC-C column and every
//! `DECIMAL(p, s)` with p ≤ 33) are stored inline; larger ones (up to 81 digits, < 2^270) in a
//! boxed five-limb array. `Decimal` is 16 bytes, as the 96-bit `rust_decimal` it replaced, so
//! the server's `Value` stays 24 bytes; the common path never allocates. Arithmetic works in
//! `u128` whenever the operands and the result are below 2^128 (38 digits), whichever form
//! stores them.
//!
//! The alternative was MySQL's own model, nine decimal digits per 32-bit word. It makes digit
//! surgery cheap (rounding at a decimal position, printing, the binlog's packed format), but
//! every add, multiply and compare then loops over words in base 10^9 with carries, while a
//! binary coefficient does the common case (operands and result under 38 digits) with one native
//! `u128` operation: addition at equal scale is one add, a compare is one compare, a product
//! of two 19-digit numbers one multiply. Printing costs a few divisions by 10^19, which is small
//! next to building a result row. The wide path (coefficients up to 2^270, products up to
//! 2^540) uses a fixed 640-bit integer ([`uint`]): add, subtract, multiply and a Knuth-style
//! long division, about 300 lines with property tests against `u128`. A big-integer crate
//! (`ruint`, `bnum`) would give the same operations; the few we need did not justify the
//! dependency, and fixed width keeps every operation allocation-free and bounded.
//!
//! There is no negative zero: every constructor normalises `-0` to `0`, as MariaDB prints
//! `-0.00` as `0.00` and stores it so.
//!
//! # Rounding
//!
//! Results are rounded half away from zero (MySQL's `ROUND_HALF_UP` on magnitudes) to the
//! scale MariaDB's type rules give; [`Rounding`] also offers truncation, floor and ceiling for
//! `TRUNCATE`, `FLOOR` and `CEIL`.

mod arith;
mod text;
mod uint;

use std::cmp::Ordering;
use std::fmt;
use uint::U;

pub use text::{Digits, ParseError, Parsed};

/// Largest precision of a DECIMAL column or CAST target.
pub const MAX_PRECISION: u8 = 65;
/// Largest scale of a DECIMAL column or CAST target, and of any arithmetic result.
pub const MAX_SCALE: u8 = 38;
/// Digits of the working buffer: nine words of nine digits.
pub const BUFFER_DIGITS: u32 = 81;
const WORD_DIGITS: u32 = 9;
const BUFFER_WORDS: u32 = BUFFER_DIGITS / WORD_DIGITS;

/// How to drop digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Half away from zero (`ROUND`, storing into a column, CAST).
    HalfUp,
    /// Toward zero (`TRUNCATE`, `DIV`).
    Down,
    /// Toward negative infinity (`FLOOR`).
    Floor,
    /// Toward positive infinity (`CEIL`).
    Ceiling,
}

/// The integer part of a result does not fit in the 81-digit working range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

/// Why a division gave no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivError {
    DivisionByZero,
    Overflow,
}

impl From<Overflow> for DivError {
    fn from(_: Overflow) -> DivError {
        DivError::Overflow
    }
}

/// An exact decimal number. See the crate documentation.
#[derive(Clone)]
pub struct Decimal(Repr);

/// Coefficients below 2^112 (every value of up to 33 digits) are inline: 16 bytes in all,
/// the `Wide` variant's tag living in the invalid values of `neg` (so `Decimal` is as small
/// as the 96-bit `rust_decimal` it replaced, and the server's `Value` stays 24 bytes).
#[derive(Clone)]
enum Repr {
    /// Coefficient `hi << 96 | mid << 64 | lo` (below 2^112).
    Small {
        lo: u64,
        mid: u32,
        hi: u16,
        scale: u8,
        neg: bool,
    },
    /// Coefficient of 2^112 or more (and below 10^81).
    Wide(Box<Wide>),
}

/// Largest coefficient stored inline.
const INLINE_MAX: u128 = (1 << 112) - 1;

#[derive(Clone)]
struct Wide {
    mag: [u64; 5],
    scale: u8,
    neg: bool,
}

impl Decimal {
    pub const ZERO: Decimal = Decimal(Repr::Small {
        lo: 0,
        mid: 0,
        hi: 0,
        scale: 0,
        neg: false,
    });

    /// `mantissa × 10^-scale`; `scale` is capped at the 81-digit buffer.
    pub fn new(mantissa: i128, scale: u8) -> Decimal {
        Decimal::from_u128(mantissa < 0, mantissa.unsigned_abs(), scale)
    }

    /// `±coefficient × 10^-scale`.
    pub fn from_u128(neg: bool, coefficient: u128, scale: u8) -> Decimal {
        let scale = scale.min(BUFFER_DIGITS as u8);
        if coefficient > INLINE_MAX {
            return Decimal(Repr::Wide(Box::new(Wide {
                mag: [coefficient as u64, (coefficient >> 64) as u64, 0, 0, 0],
                scale,
                neg,
            })));
        }
        Decimal(Repr::Small {
            lo: coefficient as u64,
            mid: (coefficient >> 64) as u32,
            hi: (coefficient >> 96) as u16,
            scale,
            neg: neg && coefficient != 0,
        })
    }

    /// Build from a wide coefficient (< 10^81) and scale.
    fn from_wide(neg: bool, mag: &U, scale: u32) -> Decimal {
        debug_assert!(scale <= BUFFER_DIGITS);
        match mag.to_u128() {
            Some(m) => Decimal::from_u128(neg, m, scale as u8),
            None => {
                debug_assert!(mag.0[5..].iter().all(|&l| l == 0));
                let mut m = [0; 5];
                m.copy_from_slice(&mag.0[..5]);
                Decimal(Repr::Wide(Box::new(Wide {
                    mag: m,
                    scale: scale as u8,
                    neg,
                })))
            }
        }
    }

    /// Digits after the point.
    pub fn scale(&self) -> u8 {
        match &self.0 {
            Repr::Small { scale, .. } => *scale,
            Repr::Wide(w) => w.scale,
        }
    }

    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Small { neg, .. } => *neg,
            Repr::Wide(w) => w.neg,
        }
    }

    pub fn is_zero(&self) -> bool {
        matches!(
            self.0,
            Repr::Small {
                lo: 0,
                mid: 0,
                hi: 0,
                ..
            }
        )
    }

    /// -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        if self.is_zero() {
            0
        } else if self.is_negative() {
            -1
        } else {
            1
        }
    }

    /// The coefficient of an inline value (0 for a boxed one).
    #[inline]
    fn small_coefficient(&self) -> u128 {
        match &self.0 {
            Repr::Small { lo, mid, hi, .. } => {
                *lo as u128 | (*mid as u128) << 64 | (*hi as u128) << 96
            }
            Repr::Wide(_) => 0,
        }
    }

    /// The coefficient, if below 2^128.
    pub fn coefficient_u128(&self) -> Option<u128> {
        match &self.0 {
            Repr::Small { lo, mid, hi, .. } => {
                Some(*lo as u128 | (*mid as u128) << 64 | (*hi as u128) << 96)
            }
            Repr::Wide(w) if w.mag[2..].iter().all(|&l| l == 0) => {
                Some(w.mag[0] as u128 | (w.mag[1] as u128) << 64)
            }
            Repr::Wide(_) => None,
        }
    }

    /// The coefficient as little-endian bytes without trailing (high) zero bytes.
    pub fn coefficient_le_bytes(&self) -> ([u8; 40], usize) {
        let mag = self.mag();
        let mut out = [0u8; 40];
        for (i, limb) in mag.0[..5].iter().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&limb.to_le_bytes());
        }
        let len = out.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
        (out, len)
    }

    /// The inverse of [`Decimal::coefficient_le_bytes`]: None unless the coefficient is below
    /// 10^81, the scale at most 81, and a zero is not negative.
    pub fn from_coefficient_le_bytes(neg: bool, bytes: &[u8], scale: u8) -> Option<Decimal> {
        if bytes.len() > 40 || scale as u32 > BUFFER_DIGITS {
            return None;
        }
        let mut limbs = [0u64; uint::LIMBS];
        for (i, b) in bytes.iter().enumerate() {
            limbs[i / 8] |= (*b as u64) << (8 * (i % 8));
        }
        let mag = U(limbs);
        if mag >= uint::pow10(BUFFER_DIGITS)? || (neg && mag.is_zero()) {
            return None;
        }
        Some(Decimal::from_wide(neg, &mag, scale as u32))
    }

    fn mag(&self) -> U {
        match &self.0 {
            Repr::Small { .. } => U::from_u128(self.coefficient_u128().unwrap_or(0)),
            Repr::Wide(w) => {
                let mut a = [0; uint::LIMBS];
                a[..5].copy_from_slice(&w.mag);
                U(a)
            }
        }
    }

    /// `-self`.
    pub fn neg(&self) -> Decimal {
        let mut r = self.clone();
        match &mut r.0 {
            Repr::Small {
                lo, mid, hi, neg, ..
            } => *neg = !*neg && (*lo | *mid as u64 | *hi as u64) != 0,
            Repr::Wide(w) => w.neg = !w.neg,
        }
        r
    }

    /// `|self|`.
    pub fn abs(&self) -> Decimal {
        if self.is_negative() {
            self.neg()
        } else {
            self.clone()
        }
    }

    /// The same value with trailing fraction zeros removed (`1.500` → `1.5`, `2.00` → `2`).
    pub fn normalized(&self) -> Decimal {
        let (neg, mut mag, mut scale) = (self.is_negative(), self.mag(), self.scale() as u32);
        while scale > 0 {
            let (q, r) = mag.divrem_u64(10);
            if r != 0 {
                break;
            }
            mag = q;
            scale -= 1;
        }
        Decimal::from_wide(neg, &mag, scale)
    }

    /// Number of digits before the point, ignoring leading zeros (0 for `0.5`).
    pub fn int_digits(&self) -> u32 {
        let digits = self.digits();
        digits.int().len() as u32
    }

    /// The largest value of `DECIMAL(precision, scale)`: `precision` nines, `scale` of them
    /// after the point.
    pub fn max_of(precision: u8, scale: u8) -> Decimal {
        let p = (precision as u32).min(BUFFER_DIGITS);
        let mag = uint::pow10(p).map_or(U::ZERO, |m| m.sub(&U::from_u128(1)));
        Decimal::from_wide(false, &mag, (scale as u32).min(p))
    }

    /// True if the value (already at its final scale) fits `DECIMAL(precision, scale)`:
    /// fewer than `precision - scale` integer digits.
    pub fn fits_integer_digits(&self, int_digits: u32) -> bool {
        self.int_digits() <= int_digits
    }
}

impl Default for Decimal {
    fn default() -> Decimal {
        Decimal::ZERO
    }
}

impl std::ops::Neg for Decimal {
    type Output = Decimal;
    fn neg(self) -> Decimal {
        Decimal::neg(&self)
    }
}

impl std::ops::Neg for &Decimal {
    type Output = Decimal;
    fn neg(self) -> Decimal {
        Decimal::neg(self)
    }
}

/// Numeric equality: `1.5 == 1.50`.
impl PartialEq for Decimal {
    fn eq(&self, o: &Decimal) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, o: &Decimal) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Decimal {
    fn cmp(&self, o: &Decimal) -> Ordering {
        match (self.is_negative(), o.is_negative()) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => arith::cmp_magnitudes(self, o),
            (true, true) => arith::cmp_magnitudes(o, self),
        }
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decimal({self})")
    }
}

impl From<i64> for Decimal {
    fn from(v: i64) -> Decimal {
        Decimal::new(v as i128, 0)
    }
}

impl From<u64> for Decimal {
    fn from(v: u64) -> Decimal {
        Decimal::from_u128(false, v as u128, 0)
    }
}

impl From<i128> for Decimal {
    fn from(v: i128) -> Decimal {
        Decimal::new(v, 0)
    }
}

/// Words of the 81-digit buffer a value with `int_digits` and `scale` needs.
fn words(int_digits: u32, scale: u32) -> u32 {
    int_digits.div_ceil(WORD_DIGITS) + scale.div_ceil(WORD_DIGITS)
}

#[cfg(test)]
mod tests;
