//! Fixed-width unsigned integers of 640 bits (ten little-endian 64-bit limbs): the scratch
//! space of the wide arithmetic path.
//!
//! A stored magnitude has at most 81 decimal digits (< 2^270), so the product of two of them
//! (< 2^540) and every scaled dividend the division builds (at most 81 + 38 + 81 digits, see
//! `arith`) fit without overflow. Operations that could exceed the width report it instead of
//! wrapping. Nothing here allocates.

use std::cmp::Ordering;

pub(crate) const LIMBS: usize = 10;

/// An unsigned 640-bit integer, limbs little-endian.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct U(pub [u64; LIMBS]);

/// 10^19, the largest power of ten in a u64.
pub(crate) const TEN19: u64 = 10_000_000_000_000_000_000;

/// 10^0 ..= 10^19.
pub(crate) const POW10_U64: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

impl U {
    pub const ZERO: U = U([0; LIMBS]);

    pub fn from_u128(v: u128) -> U {
        let mut a = [0; LIMBS];
        a[0] = v as u64;
        a[1] = (v >> 64) as u64;
        U(a)
    }

    /// The value if it fits in a u128.
    pub fn to_u128(self) -> Option<u128> {
        if self.0[2..].iter().any(|&l| l != 0) {
            return None;
        }
        Some(self.0[0] as u128 | (self.0[1] as u128) << 64)
    }

    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }

    /// Number of significant limbs.
    fn len(&self) -> usize {
        self.0.iter().rposition(|&l| l != 0).map_or(0, |p| p + 1)
    }

    /// `self + o`; None on overflow of the width.
    pub fn add(&self, o: &U) -> Option<U> {
        let mut r = [0; LIMBS];
        let mut carry = false;
        for (i, slot) in r.iter_mut().enumerate() {
            let (s, c1) = self.0[i].overflowing_add(o.0[i]);
            let (s, c2) = s.overflowing_add(carry as u64);
            *slot = s;
            carry = c1 || c2;
        }
        (!carry).then_some(U(r))
    }

    /// `self - o`, for `self >= o`.
    pub fn sub(&self, o: &U) -> U {
        debug_assert!(*self >= *o);
        let mut r = [0; LIMBS];
        let mut borrow = false;
        for (i, slot) in r.iter_mut().enumerate() {
            let (d, b1) = self.0[i].overflowing_sub(o.0[i]);
            let (d, b2) = d.overflowing_sub(borrow as u64);
            *slot = d;
            borrow = b1 || b2;
        }
        U(r)
    }

    /// `self * m`; None on overflow of the width.
    pub fn mul_u64(&self, m: u64) -> Option<U> {
        let mut r = [0; LIMBS];
        let mut carry: u64 = 0;
        for (i, slot) in r.iter_mut().enumerate() {
            let p = self.0[i] as u128 * m as u128 + carry as u128;
            *slot = p as u64;
            carry = (p >> 64) as u64;
        }
        (carry == 0).then_some(U(r))
    }

    pub fn add_u64(&self, a: u64) -> Option<U> {
        self.add(&U::from_u128(a as u128))
    }

    /// `self * 10^k`; None on overflow of the width.
    pub fn mul_pow10(&self, mut k: u32) -> Option<U> {
        let mut r = *self;
        while k > 0 {
            let step = k.min(19);
            r = r.mul_u64(POW10_U64[step as usize])?;
            k -= step;
        }
        Some(r)
    }

    /// `(self / d, self % d)` for a non-zero `d`.
    pub fn divrem_u64(&self, d: u64) -> (U, u64) {
        debug_assert!(d != 0);
        let mut q = [0; LIMBS];
        let mut rem: u64 = 0;
        for i in (0..LIMBS).rev() {
            let cur = (rem as u128) << 64 | self.0[i] as u128;
            q[i] = (cur / d as u128) as u64;
            rem = (cur % d as u128) as u64;
        }
        (U(q), rem)
    }

    /// The full product; None if it does not fit in the width.
    pub fn mul(&self, o: &U) -> Option<U> {
        let (la, lb) = (self.len(), o.len());
        if la + lb > LIMBS + 1 {
            return None;
        }
        let mut r = [0u64; 2 * LIMBS];
        for i in 0..la {
            let mut carry: u64 = 0;
            for j in 0..lb {
                let t = self.0[i] as u128 * o.0[j] as u128 + r[i + j] as u128 + carry as u128;
                r[i + j] = t as u64;
                carry = (t >> 64) as u64;
            }
            r[i + lb] = carry;
        }
        if r[LIMBS..].iter().any(|&l| l != 0) {
            return None;
        }
        let mut out = [0; LIMBS];
        out.copy_from_slice(&r[..LIMBS]);
        Some(U(out))
    }

    /// `(self / d, self % d)` for a non-zero `d` (long division with 64-bit digits, as in
    /// Knuth's algorithm D: normalise so the divisor's top limb has its high bit set, estimate
    /// each quotient digit from the top two limbs, correct it at most twice).
    pub fn divrem(&self, d: &U) -> (U, U) {
        let n = d.len();
        assert!(n > 0, "division by zero");
        if n == 1 {
            let (q, r) = self.divrem_u64(d.0[0]);
            return (q, U::from_u128(r as u128));
        }
        if *self < *d {
            return (U::ZERO, *self);
        }
        let m = self.len() - n;
        let shift = d.0[n - 1].leading_zeros();
        // Normalised divisor (n limbs) and dividend (m + n + 1 limbs).
        let mut v = [0u64; LIMBS];
        let mut u = [0u64; LIMBS + 1];
        shl_into(&d.0[..n], shift, &mut v[..n]);
        let top = shl_into(&self.0[..m + n], shift, &mut u[..m + n]);
        u[m + n] = top;
        let mut q = [0u64; LIMBS];
        let b: u128 = 1 << 64;
        for j in (0..=m).rev() {
            let num = (u[j + n] as u128) << 64 | u[j + n - 1] as u128;
            let mut qhat = num / v[n - 1] as u128;
            let mut rhat = num % v[n - 1] as u128;
            while qhat >= b || qhat * v[n - 2] as u128 > (rhat << 64 | u[j + n - 2] as u128) {
                qhat -= 1;
                rhat += v[n - 1] as u128;
                if rhat >= b {
                    break;
                }
            }
            // u[j..=j+n] -= qhat * v
            let mut borrow: i128 = 0;
            let mut carry: u128 = 0;
            for i in 0..n {
                let p = qhat * v[i] as u128 + carry;
                carry = p >> 64;
                let t = u[i + j] as i128 - (p as u64) as i128 + borrow;
                u[i + j] = t as u64;
                borrow = t >> 64;
            }
            let t = u[j + n] as i128 - carry as i128 + borrow;
            u[j + n] = t as u64;
            if t < 0 {
                // qhat was one too large: add the divisor back.
                qhat -= 1;
                let mut c: u128 = 0;
                for i in 0..n {
                    let s = u[i + j] as u128 + v[i] as u128 + c;
                    u[i + j] = s as u64;
                    c = s >> 64;
                }
                u[j + n] = u[j + n].wrapping_add(c as u64);
            }
            q[j] = qhat as u64;
        }
        let mut r = [0u64; LIMBS];
        shr_into(&u[..n + 1], shift, &mut r[..n]);
        (U(q), U(r))
    }

    /// `(self / 10^k, self % 10^k)`.
    pub fn divrem_pow10(&self, k: u32) -> (U, U) {
        if k <= 19 {
            let (q, r) = self.divrem_u64(POW10_U64[k as usize]);
            return (q, U::from_u128(r as u128));
        }
        match pow10(k) {
            Some(p) => self.divrem(&p),
            None => (U::ZERO, *self),
        }
    }

    /// The decimal digits, most significant first, without leading zeros ("0" for zero), into
    /// `buf`; returns the used tail of `buf`.
    pub fn write_digits<'b>(&self, buf: &'b mut [u8; 200]) -> &'b [u8] {
        let mut end = buf.len();
        let mut v = *self;
        loop {
            let (q, r) = v.divrem_u64(TEN19);
            v = q;
            let mut r = r;
            if v.is_zero() {
                // Last chunk: no leading zeros.
                loop {
                    end -= 1;
                    buf[end] = b'0' + (r % 10) as u8;
                    r /= 10;
                    if r == 0 {
                        break;
                    }
                }
                return &buf[end..];
            }
            for _ in 0..19 {
                end -= 1;
                buf[end] = b'0' + (r % 10) as u8;
                r /= 10;
            }
        }
    }
}

/// 10^k, if it fits in the width.
pub(crate) fn pow10(k: u32) -> Option<U> {
    U::from_u128(1).mul_pow10(k)
}

/// Shift `src` left by `s` (< 64) bits into `dst` (same length); returns the bits shifted out.
fn shl_into(src: &[u64], s: u32, dst: &mut [u64]) -> u64 {
    if s == 0 {
        dst.copy_from_slice(src);
        return 0;
    }
    let mut carry = 0;
    for (d, &x) in dst.iter_mut().zip(src) {
        *d = x << s | carry;
        carry = x >> (64 - s);
    }
    carry
}

/// Shift `src` right by `s` (< 64) bits into `dst` (one limb shorter than `src`).
fn shr_into(src: &[u64], s: u32, dst: &mut [u64]) {
    for i in 0..dst.len() {
        dst[i] = if s == 0 {
            src[i]
        } else {
            src[i] >> s | src[i + 1] << (64 - s)
        };
    }
}

impl PartialOrd for U {
    fn partial_cmp(&self, o: &U) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for U {
    fn cmp(&self, o: &U) -> Ordering {
        for i in (0..LIMBS).rev() {
            match self.0[i].cmp(&o.0[i]) {
                Ordering::Equal => {}
                x => return x,
            }
        }
        Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_u(max_limbs: usize) -> impl Strategy<Value = U> {
        (
            proptest::collection::vec(any::<u64>(), LIMBS),
            0..=max_limbs,
        )
            .prop_map(|(v, n)| {
                let mut a = [0; LIMBS];
                a[..n].copy_from_slice(&v[..n]);
                // Sometimes thin values out to hit the correction steps.
                U(a)
            })
    }

    proptest! {
        #[test]
        fn divrem_reconstructs(a in arb_u(10), d in arb_u(6)) {
            prop_assume!(!d.is_zero());
            let (q, r) = a.divrem(&d);
            prop_assert!(r < d);
            let back = q.mul(&d).unwrap().add(&r).unwrap();
            prop_assert_eq!(back, a);
        }

        #[test]
        fn small_values_match_u128(a in any::<u128>(), d in 1..=u128::MAX) {
            let (q, r) = U::from_u128(a).divrem(&U::from_u128(d));
            prop_assert_eq!(q.to_u128(), Some(a / d));
            prop_assert_eq!(r.to_u128(), Some(a % d));
            let mut buf = [0u8; 200];
            let want = a.to_string();
            prop_assert_eq!(U::from_u128(a).write_digits(&mut buf), want.as_bytes());
        }
    }

    #[test]
    fn edge_divisions() {
        // Divisors whose top limbs force qhat corrections.
        let a = U([u64::MAX; LIMBS]);
        let mut d = U::ZERO;
        d.0[0] = 1;
        d.0[1] = 1 << 63;
        let (q, r) = a.divrem(&d);
        assert_eq!(q.mul(&d).unwrap().add(&r).unwrap(), a);
        let p81 = pow10(81).unwrap();
        let mut buf = [0u8; 200];
        let s = p81.write_digits(&mut buf);
        assert_eq!(s.len(), 82);
        assert!(pow10(193).is_none());
    }
}
