//! What counts as a failure, and how two failures are recognised as the same one.
//!
//! A [`Finding`] has a [`Kind`] and a *signature*: the part that stays the same while the
//! shrinker makes the input smaller (a panic's source location, not its message, which
//! often quotes the input). Shrinking keeps an input only while it still produces a finding
//! with the same [`Finding::key`].
//!
//! Evidence comes from three places:
//! * the server's log ([`scan_log`]): Rust's panic message (`panicked at FILE:LINE:COL:`),
//!   `has overflowed its stack`, `memory allocation of N bytes failed`, and `ERROR` lines of
//!   the server's own logging (a checkpoint that cannot be written, a worker that panicked);
//! * the process: it exited, or was killed by a signal;
//! * the client: the connection dropped without an ERR packet, a request timed out, the
//!   response broke the protocol, a fresh connection cannot run `SELECT 1`, the server does
//!   not start again on its data directory, or its memory grew past a limit.
//!
//! [`Suppress`] lets a local triage run skip known classes by substring; CI never passes it.

use std::fmt;

/// The class of a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A Rust panic (in a connection thread or anywhere else).
    Panic,
    /// `thread … has overflowed its stack`: the process aborted.
    StackOverflow,
    /// The process aborted or died for another reason.
    Died,
    /// A request got no answer in time, though the server answers others.
    Hang,
    /// The server stopped answering altogether.
    Unresponsive,
    /// The server closed a connection without sending an ERR packet first.
    ConnectionDrop,
    /// A response that does not follow the protocol.
    Malformed,
    /// The server does not start again on its data directory.
    Bricked,
    /// Resident memory above the limit.
    Memory,
    /// An `ERROR` line in the server's log.
    ErrorLog,
    /// Commands after COM_QUIT or a failed COM_CHANGE_USER were executed.
    AfterClose,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Panic => "panic",
            Kind::StackOverflow => "stack-overflow",
            Kind::Died => "died",
            Kind::Hang => "hang",
            Kind::Unresponsive => "unresponsive",
            Kind::ConnectionDrop => "connection-drop",
            Kind::Malformed => "malformed-response",
            Kind::Bricked => "bricked",
            Kind::Memory => "memory",
            Kind::ErrorLog => "error-log",
            Kind::AfterClose => "after-close",
        }
    }
}

/// One failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    /// Stable across shrinking (e.g. `crates/server/src/sql/functions.rs:836`).
    pub signature: String,
    /// Everything useful for a human: the message, the log lines, the exit status.
    pub detail: String,
}

impl Finding {
    pub fn new(kind: Kind, signature: impl Into<String>, detail: impl Into<String>) -> Finding {
        Finding {
            kind,
            signature: signature.into(),
            detail: detail.into(),
        }
    }

    /// What identifies "the same failure".
    pub fn key(&self) -> String {
        format!("{} {}", self.kind.name(), self.signature)
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.kind.name(), self.signature)?;
        if !self.detail.is_empty() {
            write!(f, "\n{}", indent(&self.detail))?;
        }
        Ok(())
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first failure evidenced by new server log text, if any.
pub fn scan_log(text: &str) -> Option<Finding> {
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if let Some(at) = line.find("panicked at ") {
            let location = line[at + "panicked at ".len()..].trim_end_matches(':');
            let message = lines.get(i + 1).copied().unwrap_or("").trim();
            let mut signature = strip_column(location);
            let mut detail = format!("{}\n{message}", line.trim());
            // A panic inside a dependency is told apart by the project frame that called it
            // (the server runs with RUST_BACKTRACE=1).
            if let Some(caller) = first_project_frame(&lines[i + 1..]) {
                if location.contains("/.cargo/registry/") {
                    signature = format!("{signature} called from {caller}");
                }
                detail.push_str(&format!("\n(first project frame: {caller})"));
            }
            return Some(Finding::new(Kind::Panic, signature, detail));
        }
        if line.contains("has overflowed its stack") {
            return Some(Finding::new(
                Kind::StackOverflow,
                "thread has overflowed its stack",
                line.trim(),
            ));
        }
        if line.contains("memory allocation of") && line.contains("failed") {
            return Some(Finding::new(
                Kind::Died,
                "memory allocation failed",
                line.trim(),
            ));
        }
    }
    for line in &lines {
        if is_error_line(line) {
            let plain = strip_ansi(line);
            let message = error_message(&plain);
            return Some(Finding::new(
                Kind::ErrorLog,
                signature_words(message),
                plain.trim(),
            ));
        }
    }
    None
}

/// The first backtrace frame in the workspace (`at …/crates/x/src/y.rs:L:C`), as
/// `crates/x/src/y.rs:L`, before the next panic.
fn first_project_frame(lines: &[&str]) -> Option<String> {
    for line in lines {
        if line.contains("panicked at ") {
            return None;
        }
        let Some(path) = line.trim().strip_prefix("at ") else {
            continue;
        };
        if path.contains("/.cargo/") || path.starts_with("/rustc/") {
            continue;
        }
        if let Some(at) = path.find("crates/") {
            return Some(strip_column(&path[at..]));
        }
    }
    None
}

/// `file.rs:836:8` → `file.rs:836`.
fn strip_column(location: &str) -> String {
    let parts: Vec<&str> = location.rsplitn(3, ':').collect();
    match parts.as_slice() {
        [col, line, file] if col.parse::<u32>().is_ok() && line.parse::<u32>().is_ok() => {
            format!("{file}:{line}")
        }
        _ => location.to_string(),
    }
}

/// A tracing line at ERROR level (`2026-…Z ERROR target: message`), colours or not.
fn is_error_line(line: &str) -> bool {
    let plain = strip_ansi(line);
    plain.split_whitespace().nth(1) == Some("ERROR")
}

/// The message of a tracing line: what follows `ERROR target: `.
fn error_message(plain: &str) -> &str {
    let after = plain.split_once(" ERROR ").map(|(_, r)| r).unwrap_or(plain);
    after.split_once(": ").map(|(_, m)| m).unwrap_or(after)
}

/// The first words of a message, without digits (numbers vary between occurrences).
fn signature_words(message: &str) -> String {
    message
        .split_whitespace()
        .take(8)
        .map(|w| {
            w.chars()
                .filter(|c| !c.is_ascii_digit())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Known classes to skip during local triage (`--suppress PATTERN`): a finding is
/// suppressed when a pattern occurs in its kind, signature or detail.
#[derive(Clone, Debug, Default)]
pub struct Suppress {
    patterns: Vec<String>,
}

impl Suppress {
    pub fn new(patterns: Vec<String>) -> Suppress {
        Suppress { patterns }
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn matches(&self, f: &Finding) -> bool {
        self.patterns.iter().any(|p| {
            f.kind.name().contains(p.as_str())
                || f.signature.contains(p.as_str())
                || f.detail.contains(p.as_str())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_panics_by_location() {
        let log =
            "\nthread 'conn-2' (16836) panicked at crates/server/src/sql/functions.rs:836:8:\n\
                   range end index 9223372036854775808 out of range for slice of length 6\n";
        let f = scan_log(log).unwrap();
        assert_eq!(f.kind, Kind::Panic);
        assert_eq!(f.signature, "crates/server/src/sql/functions.rs:836");
        assert!(f.detail.contains("range end index"));
    }

    #[test]
    fn dependency_panics_are_keyed_by_their_caller() {
        let log = "thread 'conn-3' (28113) panicked at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rust_decimal-1.43.0/src/decimal.rs:420:23:\n\
                   Scale exceeds the maximum precision allowed: 30 > 28\n\
                   stack backtrace:\n\
                   \x20  3: rust_decimal::decimal::Decimal::from_i128_with_scale\n\
                   \x20            at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rust_decimal-1.43.0/src/decimal.rs:420:23\n\
                   \x20  4: cohort_server::sql::convert::to_decimal\n\
                   \x20            at /work/wt/crates/server/src/sql/convert.rs:77:9\n";
        let f = scan_log(log).unwrap();
        assert_eq!(
            f.signature,
            "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rust_decimal-1.43.0/src/decimal.rs:420 called from crates/server/src/sql/convert.rs:77"
        );
    }

    #[test]
    fn recognises_overflow_allocation_and_error_lines() {
        let so = "thread 'conn-7' has overflowed its stack\nfatal runtime error: stack overflow";
        assert_eq!(scan_log(so).unwrap().kind, Kind::StackOverflow);
        let oom = "memory allocation of 1073741824 bytes failed";
        assert_eq!(scan_log(oom).unwrap().kind, Kind::Died);
        let err = "\u{1b}[2m2026-11-24T20:33:55.962002Z\u{1b}[0m \u{1b}[31mERROR\u{1b}[0m \
                   \u{1b}[2mcohort_server::log\u{1b}[0m\u{1b}[2m:\u{1b}[0m checkpoint 12 failed";
        let f = scan_log(err).unwrap();
        assert_eq!(f.kind, Kind::ErrorLog);
        assert_eq!(f.signature, "checkpoint  failed");
        assert!(scan_log("2026 WARN x: fine\n2026 INFO y: ERROR in text").is_none());
    }

    #[test]
    fn suppression_is_by_substring() {
        let f = Finding::new(Kind::StackOverflow, "thread has overflowed its stack", "");
        assert!(Suppress::new(vec!["stack".into()]).matches(&f));
        assert!(!Suppress::new(vec!["decimal".into()]).matches(&f));
    }
}
