//! Failpoints: named places in the commit pipeline where a test can crash the process.
//!
//! A failpoint is armed by name, from the environment at startup (`COHORT_FAILPOINT=name`) or
//! at run time (`SET GLOBAL debug_failpoint = 'name'`, `''` disarms). When execution reaches an
//! armed failpoint the process aborts at once, as `kill -9` would, without flushing or closing
//! anything. The names are the pipeline steps of the crash table in [`crate::log`].

use parking_lot::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Every failpoint the server has.
pub const NAMES: &[&str] = &[
    "after_prepare",
    "after_redo_sync",
    "before_binlog_write",
    "after_binlog_write",
    "after_binlog_sync",
    "after_engine_commit",
    "after_commit_record",
    "before_rotate",
    "after_rotate",
    "during_checkpoint",
];

static ARMED_ANY: AtomicBool = AtomicBool::new(false);
static ARMED: RwLock<String> = RwLock::new(String::new());

/// Arm `name` ('' disarms). Unknown names are refused.
pub fn arm(name: &str) -> Result<(), String> {
    if !name.is_empty() && !NAMES.contains(&name) {
        return Err(format!(
            "unknown failpoint '{name}' (known: {})",
            NAMES.join(", ")
        ));
    }
    *ARMED.write() = name.to_string();
    ARMED_ANY.store(!name.is_empty(), Ordering::Release);
    Ok(())
}

/// Arm from `COHORT_FAILPOINT` if set.
pub fn arm_from_env() -> Result<(), String> {
    match std::env::var("COHORT_FAILPOINT") {
        Ok(name) => arm(&name),
        Err(_) => Ok(()),
    }
}

/// The pipeline reached `name`: abort if it is armed. One relaxed load when nothing is armed.
#[inline]
pub fn hit(name: &str) {
    if ARMED_ANY.load(Ordering::Acquire) && *ARMED.read() == name {
        eprintln!("cohort: failpoint {name} reached: aborting");
        std::process::abort();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn unknown_names_are_refused() {
        assert!(super::arm("no_such_point").is_err());
        assert!(super::arm("").is_ok());
        super::hit("after_prepare");
    }
}
