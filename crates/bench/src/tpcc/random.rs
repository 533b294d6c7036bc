//! TPC-C's random inputs (clause 4.3.2 and 2.1.6): uniform integers and decimals, a-strings
//! and n-strings, zip codes, the syllable last names, NURand with its C constants, and
//! the ORIGINAL marker in 10% of the item and stock data.

use crate::rand::{DistParams, Rng};

/// The three NURand constants A of clause 2.1.6: customer last name, customer id, item id.
pub const A_LAST: u32 = 255;
pub const A_C_ID: u32 = 1023;
pub const A_OL_I_ID: u32 = 8191;

/// The C constants of NURand (clause 2.1.6.1): one set for the load, one for the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CConstants {
    pub c_last: u32,
    pub c_id: u32,
    pub ol_i_id: u32,
}

/// `C_LAST` used by the loader. The specification wants it chosen at random and kept; we
/// fix it so that the run, a separate process, knows it without a side table, and choose
/// the run's `C_LAST` to satisfy clause 2.1.6.1 against it.
pub const C_LAST_LOAD: u32 = 157;

impl CConstants {
    /// Constants for the load: random except `C_LAST`.
    pub fn for_load(rng: &mut Tr) -> CConstants {
        CConstants {
            c_last: C_LAST_LOAD,
            c_id: rng.int(0, A_C_ID),
            ol_i_id: rng.int(0, A_OL_I_ID),
        }
    }

    /// Constants for the run: |C_run − C_load| for C_LAST in [65, 119] and not 96 or 112.
    pub fn for_run(rng: &mut Tr) -> CConstants {
        let c_last = loop {
            let delta = rng.int(65, 119);
            if delta != 96 && delta != 112 {
                // Above or below the load's constant, whichever stays in [0, 255].
                break if C_LAST_LOAD + delta <= A_LAST {
                    C_LAST_LOAD + delta
                } else {
                    C_LAST_LOAD - delta
                };
            }
        };
        CConstants {
            c_last,
            c_id: rng.int(0, A_C_ID),
            ol_i_id: rng.int(0, A_OL_I_ID),
        }
    }

    /// Whether `run` may be used against data loaded with `load` (clause 2.1.6.1).
    pub fn run_fits_load(load: u32, run: u32) -> bool {
        let d = load.abs_diff(run);
        (65..=119).contains(&d) && d != 96 && d != 112
    }
}

/// The syllables of the customer last name (clause 4.3.2.3).
const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// The last name of number `n` in 0..=999: its three digits as syllables.
pub fn last_name(n: u32) -> String {
    let n = n.min(999) as usize;
    let mut s = String::with_capacity(15);
    s.push_str(SYLLABLES[n / 100]);
    s.push_str(SYLLABLES[n / 10 % 10]);
    s.push_str(SYLLABLES[n % 10]);
    s
}

const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// The TPC-C random source of one loader task or terminal.
pub struct Tr {
    rng: Rng,
}

impl Tr {
    pub fn new(seed: u64) -> Tr {
        Tr {
            rng: Rng::new(seed, DistParams::default()),
        }
    }

    /// Uniform integer in [a, b].
    pub fn int(&mut self, a: u32, b: u32) -> u32 {
        self.rng.uniform(a, b)
    }

    /// NURand(A, x, y) of clause 2.1.6 with constant `c`.
    pub fn nurand(&mut self, a: u32, c: u32, x: u32, y: u32) -> u32 {
        let r = (self.int(0, a) | self.int(x, y)) + c;
        r % (y - x + 1) + x
    }

    /// A random a-string of length in [min, max] (letters and digits: the spec's
    /// "alphanumeric" set, which needs no quoting in SQL).
    pub fn astring(&mut self, min: u32, max: u32) -> String {
        let n = self.int(min, max) as usize;
        (0..n)
            .map(|_| ALNUM[self.int(0, ALNUM.len() as u32 - 1) as usize] as char)
            .collect()
    }

    /// A random n-string (digits) of length in [min, max].
    pub fn nstring(&mut self, min: u32, max: u32) -> String {
        let n = self.int(min, max) as usize;
        (0..n)
            .map(|_| char::from(b'0' + self.int(0, 9) as u8))
            .collect()
    }

    /// A zip code: four random digits and "11111" (clause 4.3.2.7).
    pub fn zip(&mut self) -> String {
        let mut z = self.nstring(4, 4);
        z.push_str("11111");
        z
    }

    /// A state: two random letters.
    pub fn state(&mut self) -> String {
        (0..2)
            .map(|_| char::from(b'A' + self.int(0, 25) as u8))
            .collect()
    }

    /// I_DATA / S_DATA: an a-string of 26..50 with "ORIGINAL" at a random place in 10%.
    pub fn data_with_original(&mut self) -> String {
        let mut s = self.astring(26, 50);
        if self.int(1, 100) <= 10 {
            let at = self.int(0, s.len() as u32 - 8) as usize;
            s.replace_range(at..at + 8, "ORIGINAL");
        }
        s
    }

    /// A fixed-point decimal with `scale` digits, uniform in [lo, hi] (given in units of
    /// 10^-scale), as text.
    pub fn decimal(&mut self, lo: u32, hi: u32, scale: u32) -> String {
        fixed(i64::from(self.int(lo, hi)), scale)
    }

    /// A random permutation of 1..=n (the loader's O_C_ID).
    pub fn permutation(&mut self, n: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (1..=n).collect();
        for i in (1..v.len()).rev() {
            let j = self.int(0, i as u32) as usize;
            v.swap(i, j);
        }
        v
    }
}

/// `units` × 10^-scale as decimal text ("-10.00", "0.0500").
pub fn fixed(units: i64, scale: u32) -> String {
    if scale == 0 {
        return units.to_string();
    }
    let p = 10i64.pow(scale);
    let sign = if units < 0 { "-" } else { "" };
    let a = units.unsigned_abs();
    format!(
        "{sign}{}.{:0w$}",
        a / p as u64,
        a % p as u64,
        w = scale as usize
    )
}

/// Parses decimal text into units of 10^-scale (rounding away extra digits down).
pub fn parse_fixed(s: &str, scale: u32) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut v: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    for k in 0..scale as usize {
        let d = frac.as_bytes().get(k).copied().unwrap_or(b'0');
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
    }
    Some(if neg { -v } else { v })
}

/// The current time as a SQL DATETIME literal (UTC).
pub fn now_datetime() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    datetime(secs)
}

/// Seconds since the epoch as 'YYYY-MM-DD HH:MM:SS' (proleptic Gregorian, UTC).
pub fn datetime(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm, restated).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        tod / 3600,
        tod / 60 % 60,
        tod % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_names_from_syllables() {
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        assert_eq!(last_name(999), "EINGEINGEING");
    }

    #[test]
    fn nurand_stays_in_range_and_skews() {
        let mut t = Tr::new(7);
        let mut hits = vec![0u32; 3001];
        for _ in 0..100_000 {
            let v = t.nurand(A_C_ID, 259, 1, 3000);
            assert!((1..=3000).contains(&v));
            hits[v as usize] += 1;
        }
        // Non-uniform: the most frequent id is drawn far more often than the mean (33).
        assert!(*hits.iter().max().unwrap() > 80);
    }

    #[test]
    fn run_constants_fit_the_load() {
        let mut t = Tr::new(3);
        for _ in 0..1000 {
            let c = CConstants::for_run(&mut t);
            assert!(CConstants::run_fits_load(C_LAST_LOAD, c.c_last), "{c:?}");
        }
        assert!(!CConstants::run_fits_load(100, 196));
    }

    #[test]
    fn strings_and_decimals() {
        let mut t = Tr::new(1);
        for _ in 0..200 {
            let s = t.astring(8, 16);
            assert!((8..=16).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric()));
            let z = t.zip();
            assert!(z.len() == 9 && z.ends_with("11111"));
        }
        let orig = (0..1000)
            .filter(|_| t.data_with_original().contains("ORIGINAL"))
            .count();
        assert!((50..=150).contains(&orig), "{orig}");
        assert_eq!(fixed(-1000, 2), "-10.00");
        assert_eq!(fixed(500, 4), "0.0500");
        assert_eq!(parse_fixed("-10.00", 2), Some(-1000));
        assert_eq!(parse_fixed("12.3", 2), Some(1230));
        assert_eq!(parse_fixed("7", 2), Some(700));
        let mut p = t.permutation(50);
        p.sort_unstable();
        assert_eq!(p, (1..=50).collect::<Vec<_>>());
    }

    #[test]
    fn datetimes() {
        assert_eq!(datetime(0), "1970-01-01 00:00:00");
        assert_eq!(datetime(951_782_400), "2000-02-29 00:00:00");
        assert_eq!(datetime(1_795_000_000), "2026-11-18 11:06:40");
    }
}
