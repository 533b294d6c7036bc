use super::*;
use proptest::prelude::*;

fn d(s: &str) -> Decimal {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e:?}"))
}

const NINES65: &str = "99999999999999999999999999999999999999999999999999999999999999999";

#[test]
fn size_and_inline_form() {
    assert_eq!(std::mem::size_of::<Decimal>(), 16);
    assert_eq!(std::mem::size_of::<Option<Decimal>>(), 16);
    // Every value of 33 digits is inline; 2^112 and up are boxed.
    assert!(d("999999999999999999999999999999999").is_inline());
    assert!(d("-0.999999999999999999999999999999999").is_inline());
    assert!(d("5192296858534827628530496329220095").is_inline());
    assert!(!d("5192296858534827628530496329220096").is_inline());
    assert!(!d(NINES65).is_inline());
    // Wide values below 2^128 still take the u128 paths.
    let w = d("99999999999999999999999999999999999999");
    assert_eq!(
        w.checked_add(&d("1")).unwrap().to_string(),
        format!("1{}", "0".repeat(38))
    );
}

#[test]
fn parse_and_print() {
    for (text, shown) in [
        ("0", "0"),
        ("-0", "0"),
        ("-0.00", "0.00"),
        ("1.50", "1.50"),
        ("+007.5", "7.5"),
        (".5", "0.5"),
        ("5.", "5"),
        ("1e5", "100000"),
        ("1.5e1", "15"),
        ("1.25e-3", "0.00125"),
        ("-1E+2", "-100"),
        ("0.000", "0.000"),
        (NINES65, NINES65),
    ] {
        assert_eq!(d(text).to_string(), shown, "{text}");
    }
    for bad in ["", "-", ".", "1e", "e5", "1.2.3", "abc", "1 ", " 1", "--1"] {
        assert!(Decimal::parse(bad.as_bytes()).is_err(), "{bad}");
    }
    // 81 integer digits fit; 82 do not.
    let n81 = "9".repeat(81);
    assert_eq!(d(&n81).to_string(), n81);
    assert_eq!(
        Decimal::parse("9".repeat(82).as_bytes()),
        Err(ParseError::Overflow)
    );
    // Fraction digits beyond the buffer (72 after one integer word) are cut.
    let long = format!("0.{}", "1".repeat(80));
    let p = Decimal::parse(long.as_bytes()).unwrap();
    assert!(p.truncated);
    assert_eq!(p.value.scale(), 72);
}

#[test]
fn mariadb_examples() {
    // Each answer as MariaDB 10.11 gives it.
    let big = d("79228162514264337593543950335");
    assert_eq!(
        big.round_to(-1, Rounding::HalfUp).unwrap().to_string(),
        "79228162514264337593543950340"
    );
    assert_eq!(
        d("79228162514264337593543950334.5")
            .round_to(0, Rounding::Ceiling)
            .unwrap()
            .to_string(),
        "79228162514264337593543950335"
    );
    assert_eq!(
        big.div_trunc(&d("0.5")).unwrap().to_string(),
        "158456325028528675187087900670"
    );
    assert_eq!(
        d(NINES65).checked_add(&d("1")).unwrap().to_string(),
        format!("1{}", "0".repeat(65))
    );
    assert_eq!(
        d(NINES65)
            .round_to(-1, Rounding::HalfUp)
            .unwrap()
            .to_string(),
        format!("1{}", "0".repeat(65))
    );
    assert_eq!(d(NINES65).checked_mul(&d(NINES65)), Err(Overflow));
    assert_eq!(
        d(NINES65).checked_mul(&d("10")).unwrap().to_string(),
        format!("{NINES65}0")
    );
    assert_eq!(
        d("1").checked_div(&d("3"), 4).unwrap().to_string(),
        "0.3333"
    );
    assert_eq!(
        d("-2").checked_div(&d("3"), 4).unwrap().to_string(),
        "-0.6667"
    );
    assert_eq!(
        d("1.000000000000000000000000000000")
            .checked_div(&d("3"), 4)
            .unwrap()
            .to_string(),
        "0.3333333333333333333333333333333333"
    );
    assert_eq!(
        d("1.00000000000000000000000000000000000")
            .checked_div(&d("3"), 4)
            .unwrap()
            .to_string(),
        "0.33333333333333333333333333333333333333"
    );
    assert_eq!(
        d("0.000000000000000000000000000000000000049")
            .checked_mul(&d("1"))
            .unwrap()
            .to_string(),
        "0.00000000000000000000000000000000000005"
    );
    assert_eq!(
        d("0.0000000000000000000000000000000000001")
            .checked_mul(&d("0.5"))
            .unwrap()
            .to_string(),
        "0.00000000000000000000000000000000000005"
    );
    assert_eq!(d("1.5").checked_mul(&d("2")).unwrap().to_string(), "3.0");
    assert_eq!(
        d("1.5").round_to(3, Rounding::HalfUp).unwrap().to_string(),
        "1.500"
    );
    assert_eq!(
        d("-15.5")
            .round_to(-1, Rounding::HalfUp)
            .unwrap()
            .to_string(),
        "-20"
    );
    assert_eq!(
        d("-0.5").round_to(0, Rounding::HalfUp).unwrap().to_string(),
        "-1"
    );
    assert_eq!(
        d("-0.001")
            .round_to(2, Rounding::HalfUp)
            .unwrap()
            .to_string(),
        "0.00"
    );
    assert_eq!(
        d("159").round_to(-1, Rounding::Down).unwrap().to_string(),
        "150"
    );
    assert_eq!(
        d("-1.5").round_to(0, Rounding::Floor).unwrap().to_string(),
        "-2"
    );
    assert_eq!(
        d("-1.5")
            .round_to(0, Rounding::Ceiling)
            .unwrap()
            .to_string(),
        "-1"
    );
    assert_eq!(
        d("-0.00001")
            .round_to(0, Rounding::Ceiling)
            .unwrap()
            .to_string(),
        "0"
    );
    assert_eq!(d("10.5").rem(&d("3")).unwrap().to_string(), "1.5");
    assert_eq!(d("-10.5").rem(&d("3")).unwrap().to_string(), "-1.5");
    assert_eq!(d("10.5").rem(&d("-3")).unwrap().to_string(), "1.5");
    assert_eq!(
        d("1").checked_div(&d("0"), 4),
        Err(DivError::DivisionByZero)
    );
    assert_eq!(d("0.1").checked_add(&d("0.2")).unwrap(), d("0.3"));
}

#[test]
fn no_negative_zero() {
    assert!(!d("-0.00").is_negative());
    assert!(!d("0").neg().is_negative());
    assert!(!d("-1").checked_add(&d("1")).unwrap().is_negative());
    assert_eq!(d("-0.001").rescale(2).unwrap().to_string(), "0.00");
    assert_eq!(d("0.00").checked_mul(&d("-1")).unwrap().to_string(), "0.00");
}

#[test]
fn conversions() {
    assert_eq!(Decimal::from(i64::MIN).to_string(), "-9223372036854775808");
    assert_eq!(Decimal::from(u64::MAX).to_string(), "18446744073709551615");
    assert_eq!(d("2.5").to_i128(Rounding::HalfUp), Some(3));
    assert_eq!(d("-2.5").to_i128(Rounding::HalfUp), Some(-3));
    assert_eq!(d("-2.5").to_i128(Rounding::Down), Some(-2));
    assert_eq!(d(NINES65).to_i128(Rounding::HalfUp), None);
    assert_eq!(d("0.1").to_f64(), 0.1);
    assert_eq!(d("-123.456").to_f64(), -123.456);
    assert_eq!(d(NINES65).to_f64(), 1e65);
    assert_eq!(Decimal::from_f64(0.1).unwrap().unwrap().to_string(), "0.1");
    assert_eq!(
        Decimal::from_f64(1e5).unwrap().unwrap().to_string(),
        "100000"
    );
    assert_eq!(
        Decimal::from_f64(-1.5e-3).unwrap().unwrap().to_string(),
        "-0.0015"
    );
    assert!(Decimal::from_f64(f64::NAN).is_none());
    assert_eq!(Decimal::from_f64(1e300).unwrap(), Err(Overflow));
    assert_eq!(Decimal::max_of(5, 2).to_string(), "999.99");
    assert_eq!(Decimal::max_of(65, 30).to_string().len(), 66);
    assert_eq!(d("-0.5").int_digits(), 0);
    assert_eq!(d("-120.5").int_digits(), 3);
}

#[test]
fn coefficient_bytes_round_trip() {
    for v in [
        "0",
        "-1.5",
        NINES65,
        "-0.00000000000000000000000000000000000001",
    ] {
        let x = d(v);
        let (b, n) = x.coefficient_le_bytes();
        let y = Decimal::from_coefficient_le_bytes(x.is_negative(), &b[..n], x.scale()).unwrap();
        assert_eq!(x.to_string(), y.to_string());
    }
    assert!(Decimal::from_coefficient_le_bytes(true, &[], 2).is_none());
    assert!(Decimal::from_coefficient_le_bytes(false, &[0xff; 40], 0).is_none());
    assert!(Decimal::from_coefficient_le_bytes(false, &[1], 82).is_none());
}

/// A value of up to 65 digits with scale up to 38.
fn arb_decimal() -> impl Strategy<Value = Decimal> {
    (any::<bool>(), "[0-9]{1,65}", 0usize..=38).prop_map(|(neg, digits, scale)| {
        let scale = scale.min(digits.len());
        let (i, f) = digits.split_at(digits.len() - scale);
        let text = format!(
            "{}{}{}{}",
            if neg { "-" } else { "" },
            if i.is_empty() { "0" } else { i },
            if f.is_empty() { "" } else { "." },
            f
        );
        d(&text)
    })
}

fn small() -> impl Strategy<Value = (i64, u8)> {
    (any::<i64>(), 0u8..=18)
}

fn pow10(k: u8) -> i128 {
    10i128.pow(k as u32)
}

proptest! {
    #[test]
    fn text_round_trips(x in arb_decimal()) {
        let back = d(&x.to_string());
        prop_assert_eq!(back.scale(), x.scale());
        prop_assert_eq!(back.to_string(), x.to_string());
        let (b, n) = x.coefficient_le_bytes();
        let y = Decimal::from_coefficient_le_bytes(x.is_negative(), &b[..n], x.scale()).unwrap();
        prop_assert_eq!(y.to_string(), x.to_string());
    }

    #[test]
    fn add_sub_match_i128((a, sa) in small(), (b, sb) in small()) {
        let s = sa.max(sb);
        let x = a as i128 * pow10(s - sa);
        let y = b as i128 * pow10(s - sb);
        let (da, db) = (Decimal::new(a as i128, sa), Decimal::new(b as i128, sb));
        prop_assert_eq!(da.checked_add(&db).unwrap().to_string(), Decimal::new(x + y, s).to_string());
        prop_assert_eq!(da.checked_sub(&db).unwrap().to_string(), Decimal::new(x - y, s).to_string());
        prop_assert_eq!(da.cmp(&db), x.cmp(&y));
    }

    #[test]
    fn mul_div_match_i128((a, sa) in small(), (b, sb) in (any::<i32>(), 0u8..=8)) {
        let (da, db) = (Decimal::new(a as i128, sa), Decimal::new(b as i128, sb));
        let p = a as i128 * b as i128;
        prop_assert_eq!(da.checked_mul(&db).unwrap().to_string(), Decimal::new(p, sa + sb).to_string());
        if b != 0 {
            // a/b at scale sa+4: (a × 10^(sb+4)) / b, rounded half away from zero.
            let n = a as i128 * pow10(sb + 4);
            let (q, r) = (n / b as i128, n % b as i128);
            let away = if (n < 0) != (b < 0) { -1 } else { 1 };
            let want = if 2 * r.abs() >= (b as i128).abs() { q + away } else { q };
            prop_assert_eq!(da.checked_div(&db, 4).unwrap().to_string(), Decimal::new(want, sa + 4).to_string());
            let t = a as i128 * pow10(sb) / (b as i128 * pow10(sa));
            prop_assert_eq!(da.div_trunc(&db).unwrap().to_string(), t.to_string());
        }
    }

    #[test]
    fn wide_identities(a in arb_decimal(), b in arb_decimal()) {
        // Inside the buffer (no fraction cut), addition is exact and invertible.
        let int = a.int_digits().max(b.int_digits()) + 1;
        prop_assume!(words(int, a.scale().max(b.scale()) as u32) <= BUFFER_WORDS);
        let sum = a.checked_add(&b).unwrap();
        prop_assert_eq!(sum.checked_sub(&b).unwrap(), a.clone());
        let diff = a.checked_sub(&b).unwrap();
        prop_assert_eq!(diff.signum(), match a.cmp(&b) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        });
        prop_assert_eq!(a.checked_mul(&Decimal::from(1i64)).unwrap(), a.clone());
        if !b.is_zero() {
            // q = a DIV b and r = a MOD b satisfy a = q·b + r with |r| < |b|.
            let q = a.div_trunc(&b).unwrap();
            let r = a.rem(&b).unwrap();
            prop_assert!(r.abs() < b.abs());
            if let Ok(qb) = q.checked_mul(&b) {
                if qb.scale() == q.scale() + b.scale() {
                    prop_assert_eq!(qb.checked_add(&r).unwrap(), a.clone());
                }
            }
        }
        let r = a.rescale(2).unwrap();
        prop_assert_eq!(r.scale(), 2);
        prop_assert!(r.checked_sub(&a).unwrap().abs() <= d("0.005"));
    }
}

/// Found by the SQL fuzzer: a small coefficient at a scale past 38 (a working value, such as
/// the exact text of 2.2250738585072014e-308 cut to the working range) rounded to a column's
/// scale indexed the u128 power table out of bounds.
#[test]
fn rounding_a_small_coefficient_at_a_wide_scale() {
    for scale in [39u8, 60, 72, 80] {
        let x = Decimal::from_u128(false, 7, scale);
        assert_eq!(
            x.round_to(28, Rounding::HalfUp).unwrap().to_string(),
            format!("0.{}", "0".repeat(28))
        );
        assert_eq!(x.round_to(0, Rounding::Ceiling).unwrap().to_string(), "1");
        let y = Decimal::from_u128(true, 5, scale)
            .round_to(scale as i32 - 1, Rounding::HalfUp)
            .unwrap();
        assert_eq!(
            y.to_string(),
            format!("-0.{}1", "0".repeat(scale as usize - 2))
        );
    }
}

/// MariaDB keeps a quotient at whole 9-digit words, truncated: `1/3` is 0.333333333 until it
/// is rounded for display (values recorded from MariaDB 10.11 through CAST, which sees every
/// digit).
#[test]
fn quotients_keep_whole_words_truncated() {
    for (a, b, q) in [
        ("1", "3", "0.333333333"),
        ("2", "3", "0.666666666"),
        ("-2", "3", "-0.666666666"),
        ("1.5", "7", "0.214285714"),
        ("1.0000000000", "3", "0.333333333333333333"),
        ("1", "3.000000", "0.333333333333333333"),
        ("1", "300000", "0.000003333"),
        (
            "100000000000000000000",
            "7",
            "14285714285714285714.285714285",
        ),
        ("6", "3", "2.000000000"),
    ] {
        assert_eq!(d(a).div_words(&d(b), 4).unwrap().to_string(), q, "{a}/{b}");
    }
    assert!(d("1").div_words(&d("0"), 4).is_err());
    // Past the working range the quotient falls back to the rounded one.
    let big = d(NINES65);
    let tiny = d("0.00000000000000000000000000000000000001");
    assert_eq!(
        big.div_words(&tiny, 4).is_err(),
        big.checked_div(&tiny, 4).is_err()
    );
}
