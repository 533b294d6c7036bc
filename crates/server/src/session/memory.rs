//! The memory one connection may hold, and how it is bounded.
//!
//! A client that is allowed to log in must not be able to take the server's memory. Every
//! buffer a connection fills on its client's behalf falls under one of these bounds:
//!
//! | what | bound | enforced by |
//! |---|---|---|
//! | prepared statements | what preparing each kept (measured on the thread, see [`crate::memory`]), at least its text; in all under `max_session_mem_used` (1290); their number under `max_prepared_stmt_count`, server-wide (1461) | [`super::Session`] at COM_STMT_PREPARE |
//! | COM_STMT_SEND_LONG_DATA | `max_allowed_packet` per parameter (1105 at execute, as MariaDB); in all under `max_session_mem_used` | the session, per chunk |
//! | the text statement cache | what preparing each entry kept (measured as for prepared statements), at most [`crate::sql::STMT_CACHE_ENTRIES`] entries; an entry that would pass `max_session_mem_used` is not kept, and older ones are dropped first | [`crate::sql::StmtCache`] |
//! | user variables | their names and values, under `max_session_mem_used` (1290 at `SET`) | [`SessionState::set_user_var`] |
//! | the limits themselves | a session may lower its `max_session_mem_used` but only an administrator may raise it past the global value (1227); a session's `max_allowed_packet` is read-only (1621, as MariaDB) | `SET SESSION` |
//! | what a statement builds | result rows, groups, function arguments, under `max_session_mem_used` less what the session holds (1290); the parser's tokens and syntax tree, estimated from the text before parsing ([`parse_estimate`]) and measured after | [`crate::memory::check`] in the session and the SQL layer |
//! | one string value | `max_allowed_packet`: longer function results are NULL with warning 1301, as in MariaDB | the string functions |
//! | warnings | 65 535 a statement (what an OK packet can count), messages cut to 512 bytes as in MariaDB: at most 34 MB | [`crate::sql`]'s `Env::warn` |
//! | the command being read | one payload of at most `max_allowed_packet` (1153), plus its copy | [`cohort_protocol::PacketReader`] |
//! | responses not yet sent | pipelined commands are served until [`OUTPUT_BATCH`] bytes of responses wait; then the scheduler writes them (and waits for the socket) before serving more | [`super::Session::on_bytes`] |
//! | TLS ([`crate::tls`]) | the responses exist twice while they are sealed (plaintext, and TLS records 22 bytes longer per 16 KiB); rustls holds at most one incomplete record (18 KiB) or handshake message (64 KiB) it received, and nothing it sends (sealed records go straight to the output) | [`crate::tls::Link`] |
//!
//! So the most memory one connection can hold is about
//!
//! ```text
//!   2 × max_session_mem_used        kept state + what the running statement builds (≤ 1×),
//!                                   then its result set encoded for the wire (≤ 1× more)
//! + 3 × max_allowed_packet          the command packet, its copy, and one value built past
//!                                   the last check
//! + 34 MB                           the last statement's warnings (counted in the first
//!                                   term while the statement runs)
//! + OUTPUT_BATCH + 32 KiB           responses of pipelined commands, read and write buffers
//! (+ 1 × max_session_mem_used       inside TLS: the sealed copy of a result set,
//!  + 82 KiB)                        and rustls's receive buffer)
//! ```
//!
//! With the defaults (1 GiB, 16 MiB) that is about 2.1 GiB, and a test holds a hostile
//! client to it (`crates/server/tests/memory_bound.rs`). Not counted: rows a transaction
//! writes (they are table data, in memory by design, as committed rows are), and memory held
//! by the shared server (tables, logs). MariaDB streams result rows, so a SELECT whose result
//! is larger than the bound still succeeds there; here it fails with 1290 — raise
//! `max_session_mem_used` for such a session.

use crate::types::Value;

/// Responses of pipelined commands that may wait in the output before the session stops
/// serving and lets the scheduler write them.
pub const OUTPUT_BATCH: usize = 64 * 1024;

/// Bookkeeping bytes counted per prepared statement or user variable beside its content.
pub const ENTRY_OVERHEAD: u64 = 128;

/// What one connection holds between commands, by holder (bytes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionMemory {
    /// Prepared statements: what preparing each kept.
    pub statements: u64,
    /// COM_STMT_SEND_LONG_DATA bytes waiting for their execute.
    pub long_data: u64,
    /// User variables: names and values.
    pub user_vars: u64,
    /// The open transaction's statement texts kept for Annotate_rows.
    pub annotations: u64,
    /// The text statement cache's entries ([`crate::sql::StmtCache`]).
    pub stmt_cache: u64,
}

impl SessionMemory {
    /// Everything held.
    pub fn held(&self) -> u64 {
        self.statements + self.long_data + self.user_vars + self.annotations + self.stmt_cache
    }
}

/// An upper estimate of the memory parsing `sql` takes, computed in one pass over the text
/// before the parser runs: sqlparser 0.63 first builds every token (about 90 bytes each,
/// whitespace included), then a syntax tree that measured at most about 500 bytes a token,
/// 4 300 a function call and 11 500 a subquery, and at its peak holds up to seven copies'
/// worth of the text (a long literal is built character by character). A
/// 16 MiB statement of short tokens would otherwise take gigabytes before any check could run.
pub fn parse_estimate(sql: &str) -> u64 {
    const TOKEN: u64 = std::mem::size_of::<sqlparser::tokenizer::TokenWithSpan>() as u64;
    const NODE: u64 = 600;
    const CALL: u64 = 2560;
    const SUBQUERY: u64 = 10 << 10;
    let b = sql.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    let mut cost = 8 * b.len() as u64;
    let mut after_word = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        i += 1;
        cost += TOKEN;
        if c.is_ascii_whitespace() {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            continue;
        }
        if word(c) {
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            let select = b[start..i].eq_ignore_ascii_case(b"select");
            cost += if select { SUBQUERY } else { NODE };
            after_word = true;
            continue;
        }
        if matches!(c, b'\'' | b'"' | b'`') {
            // A quoted string or name is one token, however long.
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        }
        cost += if c == b'(' && after_word { CALL } else { NODE };
        after_word = false;
    }
    cost
}

/// At least [`parse_estimate`], from the length alone: each step of its pass takes at least one
/// byte and adds at most a token and a subquery. When this bound fits the budget, the pass
/// need not run (a statement served from the statement cache is not parsed at all).
pub fn parse_estimate_bound(sql: &str) -> u64 {
    const TOKEN: u64 = std::mem::size_of::<sqlparser::tokenizer::TokenWithSpan>() as u64;
    (sql.len() as u64).saturating_mul(8 + TOKEN + (10 << 10))
}

/// The bytes a user variable `name = value` is counted for.
pub fn user_var_cost(name: &str, value: &Value) -> u64 {
    let heap = match value {
        Value::Bytes(b) => b.len(),
        _ => 0,
    };
    (name.len() + heap) as u64 + ENTRY_OVERHEAD
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate covers what the parser really takes, for the shapes that cost the most
    /// per byte of text.
    #[test]
    fn the_parse_estimate_covers_the_parser() {
        let n = 64 << 10;
        let repeat = |head: &str, piece: &str| {
            let mut q = String::from(head);
            while q.len() < n {
                q.push_str(piece);
            }
            q
        };
        for sql in [
            format!("SELECT '{}'", "a".repeat(n)),
            repeat("SELECT 1", ",k"),
            repeat("SELECT 1", ", k"),
            repeat("SELECT 1", ",f(k)"),
            repeat("SELECT 1", ",COUNT(*)"),
            repeat("SELECT 1", ",(SELECT 1)"),
            repeat("SELECT 1", ",EXISTS(SELECT 1)"),
            repeat("SELECT 1", ",@x"),
            repeat("SELECT 1", ",-k"),
            repeat("SELECT 1", ",'a'"),
            repeat("SELECT id FROM t WHERE id IN (0", ",12345") + ")",
            repeat("INSERT INTO t VALUES (0,'a',?)", ",(1,'x',?)"),
            repeat("SELECT CASE", " WHEN 1 THEN 2") + " END",
        ] {
            let start = crate::memory::thread_net();
            crate::memory::reset_peak();
            assert!(crate::sql::parse_for_tests(&sql), "{}", &sql[..40]);
            let peak = crate::memory::peak_since(start);
            let estimate = parse_estimate(&sql);
            assert!(
                estimate >= peak,
                "{}…: estimate {estimate} < peak {peak}",
                &sql[..30]
            );
            assert!(parse_estimate_bound(&sql) >= estimate);
        }
        for sql in ["", "SELECT", "select(select(select", "a(b(c(", "'x'", " "] {
            assert!(parse_estimate_bound(sql) >= parse_estimate(sql), "{sql}");
        }
    }
}
