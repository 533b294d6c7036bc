//! FLOAT(M,D) / DOUBLE(M,D) storage: a value is rounded to D decimals and bounded by M digits
//! (D of them after the point) when stored, as MariaDB does.
//!
//! MariaDB rounds the fractional part alone, half to even (`2.5` in a `(M,0)` column is 2,
//! `-2.5` is -3, `3.25` with one decimal is 3.2), and a value past `10^(M-D) - 10^-D` (or the
//! type's own limit, for a single precision FLOAT) is clipped to it with 1264.

/// 10^k as the nearest double (exact up to 10^22).
fn pow10(k: u32) -> f64 {
    if k <= 22 {
        10f64.powi(k as i32)
    } else {
        format!("1e{k}").parse().unwrap_or(f64::INFINITY)
    }
}

/// `f` rounded to `d` decimals and bounded for a `(m, d)` column (`single`: a FLOAT's own
/// limit applies too); the flag is true when it was clipped (an out of range value).
pub fn round_to(f: f64, m: u8, d: u8, single: bool) -> (f64, bool) {
    if f.is_nan() {
        return (0.0, true);
    }
    let scale = pow10(d as u32);
    let type_max = if single { f32::MAX as f64 } else { f64::MAX };
    let max = (pow10(m.saturating_sub(d) as u32) - 1.0 / scale).min(type_max);
    let mut r = f;
    if r.is_finite() {
        let whole = r.floor();
        r = whole + ((r - whole) * scale).round_ties_even() / scale;
    }
    if r > max {
        (max, true)
    } else if r < -max {
        (-max, true)
    } else {
        (r, false)
    }
}

#[cfg(test)]
mod tests {
    use super::round_to;

    #[test]
    fn rounds_the_fraction_half_to_even_and_clips() {
        assert_eq!(round_to(2.5, 7, 0, false), (2.0, false));
        assert_eq!(round_to(-2.5, 7, 0, false), (-3.0, false));
        assert_eq!(round_to(3.25, 5, 1, false), (3.2, false));
        assert_eq!(round_to(123456.789, 8, 2, true), (123456.79, false));
        assert_eq!(round_to(9999.95, 5, 1, false), (9999.9, true));
        assert_eq!(round_to(-1e300, 10, 2, false), (-99999999.99, true));
        assert_eq!(round_to(1e300, 255, 0, true), (f32::MAX as f64, true));
    }
}
