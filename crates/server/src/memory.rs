//! Counting the memory each thread allocates, for the per-connection memory bound.
//!
//! [`Counting`] wraps the process's allocator (the `cohort` binary wraps mimalloc with it; this
//! crate's own tests wrap the system allocator) and keeps, per thread, the bytes allocated
//! minus the bytes freed on that thread ([`thread_net`]). One thread-local add per allocation
//! and per free: no atomic, no lock.
//!
//! The session uses differences of that number over a span of work done on one thread — what
//! preparing a statement kept, what a statement has built so far — which are exact for what
//! the span allocated and did not free. Memory freed on another thread than the one that
//! allocated it only makes a later difference on that other thread smaller, never larger: a
//! bound checked this way is never exceeded by what the span itself keeps.
//!
//! Without the wrapper installed ([`installed`] is false) every difference is zero; callers
//! then fall back to estimates (see [`crate::session`]).
//!
//! # The command budget
//!
//! While a session serves a command it sets the thread's *budget* ([`enter_budget`]): what
//! the command may build beyond what the session already holds, under
//! `max_session_mem_used`. Code that accumulates on a client's behalf — result rows, groups,
//! function arguments, the syntax tree — calls [`check`] as it goes; past the budget the
//! statement fails with 1290 (MariaDB's error for `max_session_mem_used`), and what it built
//! is freed as the error unwinds. A check costs a thread-local read; with no budget set (a
//! background thread, recovery) it always passes.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    /// Bytes allocated minus bytes freed by this thread (may go negative).
    static NET: Cell<i64> = const { Cell::new(0) };
    /// The highest `NET` since [`reset_peak`] (tests measure a span's peak with it).
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

static INSTALLED: AtomicBool = AtomicBool::new(false);

/// A global allocator that counts, per thread, what it allocates through `A`.
pub struct Counting<A>(pub A);

#[inline]
fn add(n: i64) {
    // `try_with`: allocations during thread teardown (after the slot is gone) go uncounted.
    let _ = NET.try_with(|c| {
        let net = c.get().wrapping_add(n);
        c.set(net);
        if n > 0 {
            let _ = PEAK.try_with(|p| p.set(p.get().max(net)));
        }
    });
}

#[inline]
fn mark_installed() {
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `A` with the caller's arguments unchanged; the counting
// touches only a thread-local integer and allocates nothing.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        mark_installed();
        add(layout.size() as i64);
        // SAFETY: forwarded as received.
        unsafe { self.0.alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        mark_installed();
        add(layout.size() as i64);
        // SAFETY: forwarded as received.
        unsafe { self.0.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as i64));
        // SAFETY: forwarded as received.
        unsafe { self.0.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as i64 - layout.size() as i64);
        // SAFETY: forwarded as received.
        unsafe { self.0.realloc(ptr, layout, new_size) }
    }
}

/// The budget of the command this thread serves.
#[derive(Clone, Copy)]
struct Budget {
    /// `thread_net()` when the command started.
    start: i64,
    /// Bytes the command may keep: the limit less what the session held when it started.
    allowance: u64,
    /// `max_session_mem_used`, for the error message.
    limit: u64,
}

thread_local! {
    static BUDGET: Cell<Option<Budget>> = const { Cell::new(None) };
}

/// Restores the previous budget (normally none) when the command ends.
pub struct BudgetGuard {
    prev: Option<Budget>,
}

impl Drop for BudgetGuard {
    fn drop(&mut self) {
        let prev = self.prev;
        let _ = BUDGET.try_with(|b| b.set(prev));
    }
}

/// Serve a command on this thread under `limit` (`max_session_mem_used`), the session already
/// holding `held` bytes; until the guard drops, [`check`] fails past `limit - held` more.
pub fn enter_budget(limit: u64, held: u64) -> BudgetGuard {
    let budget = Budget {
        start: thread_net(),
        allowance: limit.saturating_sub(held),
        limit,
    };
    let prev = BUDGET.try_with(|b| b.replace(Some(budget))).unwrap_or(None);
    BudgetGuard { prev }
}

/// Fail with 1290 if what the command built so far, plus `more` bytes it is about to build,
/// exceeds its budget.
#[inline]
pub fn check(more: u64) -> crate::error::Result<()> {
    let Some(b) = BUDGET.try_with(Cell::get).ok().flatten() else {
        return Ok(());
    };
    if kept_since(b.start).saturating_add(more) <= b.allowance {
        return Ok(());
    }
    Err(over_limit(b.limit))
}

/// [`check`] of `exact()`, which is computed only when `upper` (at least `exact()`) does not
/// fit: the same answer, without the work in the common case of a roomy budget.
#[inline]
pub fn check_bounded(upper: u64, exact: impl FnOnce() -> u64) -> crate::error::Result<()> {
    match check(upper) {
        Ok(()) => Ok(()),
        Err(_) => check(exact()),
    }
}

/// ER_OPTION_PREVENTS_STATEMENT for `max_session_mem_used`, as MariaDB words it.
pub fn over_limit(limit: u64) -> crate::error::Error {
    crate::error::Error::new(
        cohort_protocol::ErrorCode::OptionPreventsStatement,
        format!(
            "The Cohort server is running with the --max-session-mem-used={limit} option so it \
             cannot execute this statement"
        ),
    )
}

/// Bytes this thread has allocated and not freed, since it started (a running balance: only
/// differences mean something).
#[inline]
pub fn thread_net() -> i64 {
    NET.try_with(Cell::get).unwrap_or(0)
}

/// Start measuring this thread's peak from now ([`peak_since`]).
pub fn reset_peak() {
    let _ = PEAK.try_with(|p| p.set(thread_net()));
}

/// The most this thread held beyond `start` since [`reset_peak`] (at least 0).
pub fn peak_since(start: i64) -> u64 {
    PEAK.try_with(Cell::get)
        .unwrap_or(0)
        .saturating_sub(start)
        .max(0) as u64
}

/// Is a [`Counting`] allocator in use (has it allocated anything)?
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// What a span of work on this thread kept: `thread_net()` at its end minus `start`, at
/// least 0.
pub fn kept_since(start: i64) -> u64 {
    thread_net().saturating_sub(start).max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_sees_what_it_keeps() {
        assert!(
            installed(),
            "the crate's tests run on the counting allocator"
        );
        let start = thread_net();
        let kept: Vec<u8> = vec![1; 1 << 20];
        let dropped: Vec<u8> = vec![2; 3 << 20];
        drop(dropped);
        let k = kept_since(start);
        assert!((1 << 20..(1 << 20) + 4096).contains(&k), "{k}");
        drop(kept);
        assert!(kept_since(start) < 4096);
    }

    #[test]
    fn the_peak_of_a_span_is_seen_after_it() {
        let start = thread_net();
        reset_peak();
        drop(vec![0u8; 8 << 20]);
        let p = peak_since(start);
        assert!((8 << 20..(8 << 20) + 4096).contains(&p), "{p}");
        assert!(kept_since(start) < 4096);
    }

    #[test]
    fn a_budget_fails_past_its_allowance_and_ends_with_its_guard() {
        assert!(check(u64::MAX).is_ok(), "no budget: no limit");
        {
            let _g = enter_budget(10 << 20, 4 << 20);
            assert!(check(5 << 20).is_ok());
            let big: Vec<u8> = vec![0; 5 << 20];
            let e = check(2 << 20).unwrap_err();
            assert_eq!(e.code().number(), 1290);
            assert!(
                e.message().contains("--max-session-mem-used=10485760"),
                "{e}"
            );
            drop(big);
            assert!(check(1 << 20).is_ok(), "freed memory is given back");
        }
        assert!(check(u64::MAX).is_ok());
    }
}
