//! The seed corpus: real packets from captured sessions.
//!
//! The traces (`crates/protocol/tests/data/*.trace`, and any extra directory given with
//! `--traces`) list every packet of a session: `[conn] C->S|S->C seq=N len=L DESCRIPTION`
//! then `hex: <payload>`. Client packets become seeds for the server-side decoders
//! (HandshakeResponse41, commands); server packets, grouped by the request they answer,
//! become seeds for the client-side decoders (greeting, responses).
//!
//! Files are read in name order, so a given set of traces always gives the same corpus;
//! [`Corpus::fingerprint`] is printed at start so that a reproduction can check it has the
//! same one.

use std::path::{Path, PathBuf};

/// One server response: the payloads answering one request.
#[derive(Clone, Debug, Default)]
pub struct Response {
    /// The request was COM_STMT_PREPARE.
    pub prepare: bool,
    /// The request was COM_STMT_EXECUTE (binary rows).
    pub binary: bool,
    pub payloads: Vec<Vec<u8>>,
}

#[derive(Clone, Debug, Default)]
pub struct Corpus {
    pub handshake_responses: Vec<Vec<u8>>,
    pub commands: Vec<Vec<u8>>,
    pub greetings: Vec<Vec<u8>>,
    pub responses: Vec<Response>,
    pub files: usize,
}

impl Corpus {
    /// Loads every `*.trace` in `dirs` (missing directories are skipped).
    pub fn load(dirs: &[PathBuf]) -> Corpus {
        let mut files: Vec<PathBuf> = Vec::new();
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "trace")),
            );
        }
        files.sort_by(|a, b| a.file_name().cmp(&b.file_name()).then(a.cmp(b)));
        files.dedup_by(|a, b| a.file_name() == b.file_name());
        let mut corpus = Corpus::default();
        for f in &files {
            if let Ok(text) = std::fs::read_to_string(f) {
                corpus.add_trace(&text);
                corpus.files += 1;
            }
        }
        corpus
    }

    /// The repository's traces.
    pub fn default_dirs() -> Vec<PathBuf> {
        vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocol/tests/data")]
    }

    fn add_trace(&mut self, text: &str) {
        let mut current: std::collections::BTreeMap<u32, Response> = Default::default();
        let mut last: Option<(u32, bool, String)> = None;
        for line in text.lines() {
            if let Some(h) = line.trim_start().strip_prefix("hex:") {
                let Some((conn, from_client, label)) = last.take() else {
                    continue;
                };
                let Some(payload) = unhex(h.trim()) else {
                    continue;
                };
                self.add(conn, from_client, &label, payload, &mut current);
            } else if let Some(header) = parse_header(line) {
                last = Some(header);
            }
        }
        self.responses
            .extend(current.into_values().filter(|r| !r.payloads.is_empty()));
    }

    fn add(
        &mut self,
        conn: u32,
        from_client: bool,
        label: &str,
        payload: Vec<u8>,
        current: &mut std::collections::BTreeMap<u32, Response>,
    ) {
        if from_client {
            if label.starts_with("HandshakeResponse") {
                self.handshake_responses.push(payload);
                return;
            }
            if let Some(done) = current.remove(&conn) {
                if !done.payloads.is_empty() {
                    self.responses.push(done);
                }
            }
            current.insert(
                conn,
                Response {
                    prepare: label == "COM_STMT_PREPARE",
                    binary: label == "COM_STMT_EXECUTE",
                    payloads: Vec::new(),
                },
            );
            self.commands.push(payload);
        } else if label.starts_with("HandshakeV10") {
            self.greetings.push(payload);
        } else if let Some(r) = current.get_mut(&conn) {
            r.payloads.push(payload);
        }
    }

    /// A short fingerprint of the corpus contents (FNV-1a over every payload).
    pub fn fingerprint(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x100_0000_01b3);
            }
        };
        for p in self
            .handshake_responses
            .iter()
            .chain(&self.commands)
            .chain(&self.greetings)
        {
            eat(p);
        }
        for r in &self.responses {
            for p in &r.payloads {
                eat(p);
            }
        }
        h
    }

    pub fn summary(&self) -> String {
        format!(
            "{} trace files: {} handshake responses, {} commands, {} greetings, {} responses (fingerprint {:016x})",
            self.files,
            self.handshake_responses.len(),
            self.commands.len(),
            self.greetings.len(),
            self.responses.len(),
            self.fingerprint()
        )
    }
}

/// `[conn] C->S seq=N len=L LABEL …` → (conn, from client, label).
fn parse_header(line: &str) -> Option<(u32, bool, String)> {
    let rest = line.strip_prefix('[')?;
    let (conn, rest) = rest.split_once("] ")?;
    let (dir, rest) = rest.split_once(' ')?;
    let (_, rest) = rest.split_once(" len=")?;
    let label = rest.split_whitespace().nth(1).unwrap_or("").to_string();
    Some((conn.parse().ok()?, dir == "C->S", label))
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_the_repository_traces() {
        let c = Corpus::load(&Corpus::default_dirs());
        assert!(c.files >= 10, "{}", c.summary());
        assert!(c.handshake_responses.len() >= 10, "{}", c.summary());
        assert!(c.commands.len() >= 100, "{}", c.summary());
        assert!(c.greetings.len() >= 10, "{}", c.summary());
        assert!(c.responses.iter().any(|r| r.prepare), "{}", c.summary());
        assert!(c.responses.iter().any(|r| r.binary), "{}", c.summary());
        assert_eq!(
            c.fingerprint(),
            Corpus::load(&Corpus::default_dirs()).fingerprint()
        );
    }
}
