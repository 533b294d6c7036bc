//! The codec fuzzed in process: each case picks a target, builds an input (a mutated
//! captured packet, a mutated packet built by the encoders, or random bytes) and runs the
//! target under `catch_unwind`. A panic — including a failed promise asserted by the
//! target — is a finding, minimised with [`shrink_bytes`] while the panic stays at the same
//! source location.
//!
//! Case `i` of seed `s` is generated from `Rng::derive(s, 2, i)` alone, so it is reproduced
//! by `--seed s --case i` without running the cases before it.

use super::corpus::Corpus;
use super::mutate::mutate;
use super::targets::{seed, Target, TARGETS};
use crate::oracle::{Finding, Kind};
use crate::rng::Rng;
use crate::shrink::{shrink_bytes, Budget};
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

thread_local! {
    /// The last panic on this thread: (location, message).
    static LAST_PANIC: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Records panics instead of printing them (the fuzzer reports them itself).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_else(|| "unknown location".into());
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some((location, message)));
    }));
}

/// Runs `target` on `input`; a panic becomes a finding.
pub fn run_target(target: &Target, input: &[u8]) -> Option<Finding> {
    run_counted(target, input).err()
}

/// Runs `target` on `input`: whether it accepted the input, or the panic as a finding.
pub fn run_counted(target: &Target, input: &[u8]) -> Result<bool, Finding> {
    let run = target.run;
    match catch_unwind(AssertUnwindSafe(|| run(input))) {
        Ok(accepted) => Ok(accepted),
        Err(_) => {
            let (location, message) = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| ("unknown location".into(), String::new()));
            Err(Finding::new(
                Kind::Panic,
                format!("{} in target {}", location, target.name),
                message,
            ))
        }
    }
}

/// One generated case.
pub struct Case {
    pub target: &'static Target,
    pub input: Vec<u8>,
}

/// Case `index` of `seed`.
pub fn case(seed_value: u64, index: u64, corpus: &Corpus) -> Case {
    let mut rng = Rng::derive(seed_value, 2, index);
    let weights: Vec<u32> = TARGETS.iter().map(|t| t.weight).collect();
    let target = &TARGETS[rng.weighted(&weights)];
    let mut input = match rng.weighted(&[6, 3, 1]) {
        0 | 1 => seed(target.name, &mut rng, corpus),
        _ => {
            let n = rng.size(32, 4096) as usize;
            rng.bytes(n)
        }
    };
    let donors: Vec<&[u8]> = corpus.commands.iter().take(64).map(Vec::as_slice).collect();
    let n = rng.one(&[0usize, 1, 1, 2, 3, 4, 8, 16]);
    mutate(&mut rng, &mut input, n, &donors);
    Case { target, input }
}

/// Outcome of a run of cases.
pub struct Outcome {
    pub cases: u64,
    pub finding: Option<(u64, Finding, Case)>,
    /// Per target: (cases, inputs accepted).
    pub counts: Vec<(u64, u64)>,
}

/// Runs cases `first..` until `done` says stop or a case fails.
pub fn run_cases(
    seed_value: u64,
    corpus: &Corpus,
    first: u64,
    mut done: impl FnMut(u64) -> bool,
) -> Outcome {
    let mut i = first;
    let mut counts = vec![(0u64, 0u64); TARGETS.len()];
    while !done(i) {
        let c = case(seed_value, i, corpus);
        let t = thread_cpu_time();
        let result = run_counted(c.target, &c.input);
        let spent = thread_cpu_time().saturating_sub(t);
        if let Some(k) = TARGETS.iter().position(|t| t.name == c.target.name) {
            counts[k].0 += 1;
            counts[k].1 += u64::from(result == Ok(true));
        }
        let mut finding = result.err();
        // CPU time, not wall time: a loaded machine must not look like a slow decoder.
        if finding.is_none() && spent > Duration::from_secs(2) {
            finding = Some(Finding::new(
                Kind::Hang,
                format!("slow decode in target {}", c.target.name),
                format!("{spent:?} of CPU for {} input bytes", c.input.len()),
            ));
        }
        if let Some(f) = finding {
            return Outcome {
                cases: i + 1 - first,
                finding: Some((i, f, c)),
                counts,
            };
        }
        i += 1;
    }
    Outcome {
        cases: i - first,
        finding: None,
        counts,
    }
}

/// The CPU time this thread has used.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid, owned `ts`.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Minimises a failing input; returns the smallest input with the same panic location.
/// (A slow case is reported as it is: timing does not shrink reliably.)
pub fn minimise(c: &Case, want: &Finding, budget: &mut Budget) -> Vec<u8> {
    if want.kind == Kind::Hang {
        return c.input.clone();
    }
    shrink_bytes(c.input.clone(), budget, |input| {
        run_target(c.target, input).is_some_and(|f| f.key() == want.key())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::targets::Target;

    fn explode(data: &[u8]) -> bool {
        if data.windows(2).any(|w| w == b"!!") {
            panic!("boom");
        }
        true
    }

    #[test]
    fn panics_become_findings_and_shrink() {
        install_panic_hook();
        let t = Target {
            name: "test",
            run: explode,
            weight: 1,
        };
        let f = run_target(&t, b"abc!!def").unwrap();
        assert!(f.signature.contains("inproc.rs"), "{f}");
        assert_eq!(f.detail, "boom");
        assert!(run_target(&t, b"abc").is_none());
        // Leak the target: Case holds a 'static reference.
        let target: &'static Target = Box::leak(Box::new(t));
        let c = Case {
            target,
            input: b"xxxxxxx!!yyyyy".to_vec(),
        };
        let small = minimise(&c, &f, &mut Budget::new(Duration::from_secs(5), 10_000));
        assert_eq!(small, b"!!");
        let _ = std::panic::take_hook();
    }

    #[test]
    fn cases_are_reproducible_from_seed_and_index() {
        let corpus = Corpus::load(&Corpus::default_dirs());
        let a = case(7, 1234, &corpus);
        let b = case(7, 1234, &corpus);
        assert_eq!(a.input, b.input);
        assert_eq!(a.target.name, b.target.name);
    }
}
