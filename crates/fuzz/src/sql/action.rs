//! One step of a SQL fuzzing session, how it is sent to the server, and how it is printed
//! in a reproducer.
//!
//! | action | on the wire |
//! |---|---|
//! | [`Action::Query`] | one COM_QUERY |
//! | [`Action::Prepared`] | COM_STMT_PREPARE; COM_STMT_SEND_LONG_DATA chunks; 1–3 COM_STMT_EXECUTE (types bound on the first only), optionally COM_STMT_RESET between them and COM_STMT_FETCH; COM_STMT_CLOSE |
//! | [`Action::AsUser`] | a fresh connection as the fuzzer's less privileged account, one COM_QUERY, close |
//! | [`Action::Restart`] | SIGKILL (or SIGTERM) the server and start it again on the same data directory (recorded so that replays restart at the same points) |
//!
//! [`run_on`] returns the last reply, so the driver can tell an expected close (after an ERR
//! whose SQLSTATE class is 08, connection exception) from a dropped connection.

use super::values::{execute_payload, Param};
use crate::client::{Client, Fail, Reply};
use crate::tree::Node;

/// A prepared statement's life.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    pub sql: Node,
    /// Parameter values by position; the server's count decides how many are sent (missing
    /// ones are NULL).
    pub params: Vec<Param>,
    /// COM_STMT_SEND_LONG_DATA before the first execute: (parameter index, chunks).
    pub long_data: Vec<(u16, Vec<Vec<u8>>)>,
    pub executes: u8,
    pub reset: bool,
    pub fetch: bool,
    pub close: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Query(Node),
    Prepared(Prepared),
    AsUser(Node),
    Restart { kill: bool },
}

impl Action {
    /// The reproducer line(s) for this action.
    pub fn describe(&self) -> String {
        match self {
            Action::Query(n) => format!("{};", printable(&n.render())),
            Action::AsUser(n) => format!(
                "-- as {}@'%' (fresh connection):\n{};",
                super::grammar::USER,
                printable(&n.render())
            ),
            Action::Restart { kill } => format!(
                "-- restart the server ({}) on the same data directory, then reconnect",
                if *kill { "SIGKILL" } else { "SIGTERM" }
            ),
            Action::Prepared(p) => p.describe(),
        }
    }

    /// Bytes of statement text (for size reports).
    pub fn size(&self) -> usize {
        match self {
            Action::Query(n) | Action::AsUser(n) => n.render().len(),
            Action::Prepared(p) => p.sql.render().len(),
            Action::Restart { .. } => 0,
        }
    }
}

impl Prepared {
    fn describe(&self) -> String {
        let mut s = format!("-- COM_STMT_PREPARE:\n{}\n", printable(&self.sql.render()));
        for (param, chunks) in &self.long_data {
            let sizes: Vec<String> = chunks.iter().map(|c| c.len().to_string()).collect();
            s.push_str(&format!(
                "-- COM_STMT_SEND_LONG_DATA param {param}: chunks of {} bytes\n",
                sizes.join(", ")
            ));
        }
        s.push_str(&format!(
            "-- COM_STMT_EXECUTE ×{} (types bound on the first{}{}) with the statement's parameter count taken from:\n",
            self.executes,
            if self.reset { "; COM_STMT_RESET before each later one" } else { "" },
            if self.fetch { "; then COM_STMT_FETCH" } else { "" },
        ));
        for (i, p) in self.params.iter().enumerate() {
            s.push_str(&format!("--   ?{i}: {}\n", p.describe()));
        }
        s.push_str(if self.close {
            "-- COM_STMT_CLOSE"
        } else {
            "-- (left open)"
        });
        s
    }

    /// The structural variants the shrinker tries besides shrinking the SQL tree: fewer
    /// executes, no long data, parameters set to NULL.
    pub fn simpler(&self) -> Vec<Prepared> {
        let mut out = Vec::new();
        if !self.long_data.is_empty() {
            out.push(Prepared {
                long_data: Vec::new(),
                ..self.clone()
            });
        }
        if self.executes > 1 {
            out.push(Prepared {
                executes: 1,
                ..self.clone()
            });
        }
        for flag in [self.reset, self.fetch] {
            if flag {
                out.push(Prepared {
                    reset: false,
                    fetch: false,
                    ..self.clone()
                });
            }
        }
        if self.params.len() > 1 {
            let mut p = self.clone();
            p.params.truncate(self.params.len() / 2);
            out.push(p);
        }
        for i in 0..self.params.len() {
            if self.params[i] != Param::null() {
                let mut p = self.clone();
                p.params[i] = Param::null();
                out.push(p);
            }
        }
        out
    }
}

/// Statement bytes as text: valid UTF-8 as is, other bytes as `\xNN`; long runs of one
/// character abbreviated.
pub fn printable(bytes: &[u8]) -> String {
    let mut out = String::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or(""));
                let n = e.error_len().unwrap_or(bad.len()).max(1);
                for b in &bad[..n] {
                    out.push_str(&format!("\\x{b:02X}"));
                }
                rest = &bad[n..];
            }
        }
    }
    abbreviate(&out)
}

/// Shows long repetitions compactly: `xxxx…` (10 000 times) as `<'x' × 10000>`, and
/// `1 + 1 + 1 + …` as `<'1 + ' × 1499>1`.
fn abbreviate(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match repetition_at(&chars, i) {
            Some((unit, times)) => {
                let text: String = chars[i..i + unit].iter().collect();
                out.push_str(&format!("<{text:?} × {times}>"));
                i += unit * times;
            }
            None => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    if out.chars().count() > 20_000 {
        let cut: String = out.chars().take(20_000).collect();
        return format!("{cut}… ({} characters in all)", out.chars().count());
    }
    out
}

/// A unit of 1–16 characters repeated at `i` over more than 40 characters (and at least
/// 4 times): (unit length, repetitions).
fn repetition_at(chars: &[char], i: usize) -> Option<(usize, usize)> {
    (1..=16).find_map(|unit| {
        if i + unit > chars.len() || (unit > 1 && chars[i].is_whitespace()) {
            return None;
        }
        let mut times = 1;
        while i + (times + 1) * unit <= chars.len()
            && chars[i + times * unit..i + (times + 1) * unit] == chars[i..i + unit]
        {
            times += 1;
        }
        (times >= 4 && times * unit > 40).then_some((unit, times))
    })
}

/// Sends `action` on `conn` (Query / Prepared; the driver handles the others) and returns
/// the last reply.
pub fn run_on(conn: &mut Client, action: &Action) -> Result<Reply, Fail> {
    match action {
        Action::Query(n) | Action::AsUser(n) => {
            let mut payload = vec![0x03];
            payload.extend(n.render());
            conn.request(&payload, false, false)
        }
        Action::Prepared(p) => run_prepared(conn, p),
        Action::Restart { .. } => Ok(Reply::Ok),
    }
}

fn run_prepared(conn: &mut Client, p: &Prepared) -> Result<Reply, Fail> {
    let mut payload = vec![0x16];
    payload.extend(p.sql.render());
    let (stmt_id, count) = match conn.request(&payload, false, true)? {
        Reply::Prepared {
            stmt_id, params, ..
        } => (stmt_id, usize::from(params)),
        other => return Ok(other),
    };
    for (param, chunks) in &p.long_data {
        for chunk in chunks {
            let mut payload = vec![0x18];
            payload.extend_from_slice(&stmt_id.to_le_bytes());
            payload.extend_from_slice(&param.to_le_bytes());
            payload.extend_from_slice(chunk);
            conn.send_command(&payload)?;
        }
    }
    let mut params: Vec<Param> = p.params.iter().take(count).cloned().collect();
    params.resize(count, Param::null());
    let mut last = Reply::Ok;
    for i in 0..p.executes {
        if i > 0 && p.reset {
            let mut payload = vec![0x1a];
            payload.extend_from_slice(&stmt_id.to_le_bytes());
            conn.request(&payload, false, false)?;
        }
        last = conn.request(&execute_payload(stmt_id, &params, i == 0), true, false)?;
    }
    if p.fetch {
        let mut payload = vec![0x1c];
        payload.extend_from_slice(&stmt_id.to_le_bytes());
        payload.extend_from_slice(&10u32.to_le_bytes());
        last = conn.request(&payload, true, false)?;
    }
    if p.close {
        let mut payload = vec![0x19];
        payload.extend_from_slice(&stmt_id.to_le_bytes());
        conn.send_command(&payload)?;
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_escapes_invalid_utf8_and_abbreviates_runs() {
        assert_eq!(printable(b"SELECT '\xff\xc3'"), "SELECT '\\xFF\\xC3'");
        assert_eq!(printable("é".as_bytes()), "é");
        let long = format!("SELECT '{}'", "x".repeat(1000));
        assert_eq!(printable(long.as_bytes()), "SELECT '<\"x\" × 1000>'");
        let chain = format!("SELECT {}1", "1 + ".repeat(1499));
        assert_eq!(printable(chain.as_bytes()), "SELECT <\"1 + \" × 1499>1");
        assert_eq!(printable(b"SELECT 1 + 1"), "SELECT 1 + 1");
    }
}
