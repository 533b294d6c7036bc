//! Random numbers as sysbench 1.0.20 draws them, so that the same workload touches the same
//! rows with the same skew.
//!
//! * Generator: xoroshiro128+ per connection, seeded from a splitmix64 stream (sysbench seeds
//!   it from libc `random()`; only the distribution matters, not the exact sequence).
//! * `uniform(a, b)`: `a + u · (b − a + 1)` with `u` uniform in [0, 1).
//! * `gaussian(a, b)`: the mean of `iter` (12) uniforms scaled to the range.
//! * `special(a, b)` (sysbench's default `--rand-type`): with `res` = 75 and `pct` = 1, a
//!   quarter of the values are gaussian over the whole range and three quarters are uniform
//!   over the middle 1% of it: with `t = b − a`, draw `r = u · t · 100 / (100 − res)`; if
//!   `r < t` return the gaussian, else return `a + u · (t · pct/100 + 1) + t/2 − t · pct/200`
//!   (the same `u`). For ids 1..10 000 about 76% of the draws land in 4 950..5 051.
//! * `pareto(a, b)`: `a + (b − a + 1) · u^(ln h / ln(1 − h))`, h = 0.2.
//! * `rand_str(template)`: `#` becomes a random digit, `@` a random lower-case letter.

use serde::Serialize;

/// Which distribution picks row ids (`--rand-type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    Uniform,
    Gaussian,
    Special,
    Pareto,
}

/// Parameters of the distributions (`--rand-spec-*`, `--rand-pareto-h`).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct DistParams {
    pub kind: Distribution,
    /// Iterations of the gaussian and of the gaussian part of `special` (12).
    pub spec_iter: u32,
    /// Percentage of the range the special values fall into (1).
    pub spec_pct: u32,
    /// Percentage of draws that are special values (75).
    pub spec_res: u32,
    /// Pareto shape parameter (0.2).
    pub pareto_h: f64,
}

impl Default for DistParams {
    fn default() -> Self {
        DistParams {
            kind: Distribution::Special,
            spec_iter: 12,
            spec_pct: 1,
            spec_res: 75,
            pareto_h: 0.2,
        }
    }
}

/// xoroshiro128+ with the sysbench distributions on top.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 2],
    params: DistParams,
    pareto_power: f64,
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64, params: DistParams) -> Rng {
        let mut x = seed;
        let s = [splitmix64(&mut x), splitmix64(&mut x) | 1];
        let h = params.pareto_h;
        Rng {
            s,
            params,
            pareto_power: h.ln() / (1.0 - h).ln(),
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let [s0, mut s1] = self.s;
        let result = s0.wrapping_add(s1);
        s1 ^= s0;
        self.s[0] = s0.rotate_left(24) ^ s1 ^ (s1 << 16);
        self.s[1] = s1.rotate_left(37);
        result
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [a, b].
    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        let span = f64::from(b - a) + 1.0;
        a + ((self.next_f64() * span) as u32).min(b - a)
    }

    pub fn gaussian(&mut self, a: u32, b: u32) -> u32 {
        let t = f64::from(b - a) + 1.0;
        let iter = self.params.spec_iter.max(1);
        let sum: f64 = (0..iter).map(|_| self.next_f64() * t).sum();
        a + ((sum / f64::from(iter)) as u32).min(b - a)
    }

    pub fn special(&mut self, a: u32, b: u32) -> u32 {
        let t = f64::from(b - a);
        let res_mult = 100.0 / (100.0 - f64::from(self.params.spec_res.min(99)));
        let rnd = self.next_f64();
        if rnd * t * res_mult < t {
            let iter = self.params.spec_iter.max(1);
            let sum: f64 = (0..iter).map(|_| self.next_f64()).sum();
            return a + ((sum * t / f64::from(iter)) as u32).min(b - a);
        }
        let pct = f64::from(self.params.spec_pct);
        let d = t * pct / 100.0;
        let r = rnd * (d + 1.0) + t / 2.0 - t * pct / 200.0;
        a + (r.max(0.0) as u32).min(b - a)
    }

    pub fn pareto(&mut self, a: u32, b: u32) -> u32 {
        let span = f64::from(b - a) + 1.0;
        a + ((span * self.next_f64().powf(self.pareto_power)) as u32).min(b - a)
    }

    /// A value from the configured distribution (sysbench's `rand.default`).
    pub fn default_dist(&mut self, a: u32, b: u32) -> u32 {
        if b <= a {
            return a;
        }
        match self.params.kind {
            Distribution::Uniform => self.uniform(a, b),
            Distribution::Gaussian => self.gaussian(a, b),
            Distribution::Special => self.special(a, b),
            Distribution::Pareto => self.pareto(a, b),
        }
    }

    /// Fills `out` from a template: `#` → digit, `@` → lower-case letter, others copied.
    pub fn rand_str(&mut self, template: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.extend(template.iter().map(|&c| match c {
            b'#' => b'0' + self.uniform(0, 9) as u8,
            b'@' => b'a' + self.uniform(0, 25) as u8,
            c => c,
        }));
    }
}

/// sysbench's `c` template: 10 groups of 11 digits joined by `-` (119 bytes).
pub const C_TEMPLATE: &[u8] =
    b"###########-###########-###########-###########-###########-###########-###########-###########-###########-###########";
/// sysbench's `pad` template: 5 groups of 11 digits (59 bytes).
pub const PAD_TEMPLATE: &[u8] = b"###########-###########-###########-###########-###########";

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(kind: Distribution) -> Rng {
        Rng::new(
            42,
            DistParams {
                kind,
                ..DistParams::default()
            },
        )
    }

    fn draws(kind: Distribution, n: usize, b: u32) -> Vec<u32> {
        let mut r = rng(kind);
        (0..n).map(|_| r.default_dist(1, b)).collect()
    }

    #[test]
    fn uniform_covers_the_range_evenly() {
        let v = draws(Distribution::Uniform, 100_000, 10);
        let mut counts = [0u32; 11];
        for x in &v {
            assert!((1..=10).contains(x));
            counts[*x as usize] += 1;
        }
        for c in &counts[1..] {
            assert!((9_000..11_000).contains(c), "{counts:?}");
        }
    }

    #[test]
    fn special_puts_three_quarters_in_the_middle_percent() {
        // Same experiment as sysbench 1.0.20 (`rand.default(1, 10000)`, 100k draws):
        // it printed 76 039 of 100 000 in 4951..=5051.
        let v = draws(Distribution::Special, 100_000, 10_000);
        assert!(v.iter().all(|x| (1..=10_000).contains(x)));
        let mid = v.iter().filter(|&&x| (4_951..=5_051).contains(&x)).count();
        let low = v.iter().filter(|&&x| x <= 100).count();
        assert!((74_500..77_500).contains(&mid), "mid {mid}");
        assert!(low < 100, "low {low}");
    }

    #[test]
    fn gaussian_centres_and_pareto_skews_low() {
        let g = draws(Distribution::Gaussian, 50_000, 10_000);
        let mean = g.iter().map(|&x| f64::from(x)).sum::<f64>() / g.len() as f64;
        assert!((4_900.0..5_100.0).contains(&mean), "{mean}");
        let within = g.iter().filter(|&&x| (4_000..=6_000).contains(&x)).count();
        // σ of the mean of 12 uniforms over 10 000 is ≈ 833: ±1 000 holds ≈ 77%.
        assert!((36_000..40_000).contains(&within), "{within}");
        let p = draws(Distribution::Pareto, 50_000, 10_000);
        assert!(p.iter().all(|x| (1..=10_000).contains(x)));
        // h = 0.2: 80% of draws in the lowest 20% of the range.
        let low = p.iter().filter(|&&x| x <= 2_000).count();
        assert!((38_000..42_000).contains(&low), "{low}");
    }

    #[test]
    fn degenerate_ranges() {
        let mut r = rng(Distribution::Special);
        assert_eq!(r.default_dist(7, 7), 7);
        assert!((1..=2).contains(&r.default_dist(1, 2)));
        assert_eq!(r.uniform(3, 3), 3);
    }

    #[test]
    fn random_strings_follow_the_template() {
        let mut r = rng(Distribution::Uniform);
        let mut out = Vec::new();
        r.rand_str(C_TEMPLATE, &mut out);
        assert_eq!(out.len(), 119);
        for (t, c) in C_TEMPLATE.iter().zip(&out) {
            match t {
                b'#' => assert!(c.is_ascii_digit()),
                _ => assert_eq!(c, t),
            }
        }
        r.rand_str(b"@@-#", &mut out);
        assert!(out[0].is_ascii_lowercase() && out[2] == b'-' && out[3].is_ascii_digit());
        assert_eq!(PAD_TEMPLATE.len(), 59);
    }
}
