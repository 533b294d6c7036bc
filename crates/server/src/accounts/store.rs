//! The accounts file: `datadir/accounts.json`, structured and checksummed.
//!
//! ```text
//! {
//!   "format": "cohort-accounts",
//!   "version": 2,
//!   "crc32c": "89abcdef",            ← CRC32C of the compact JSON encoding of "accounts"
//!   "accounts": [
//!     { "user": "app", "host": "%", "password_hash": "*7FC8…", "grants": [ { "database": "shop" } ] },
//!     { "user": "ops", "host": "10.0.0.1", "password_hash": null, "grants": [ "global" ] }
//!   ]
//! }
//! ```
//!
//! Names are JSON strings, so every character a user, host or database name can hold — tab,
//! newline, comma, quote, backslash, NUL, any Unicode — round-trips; nothing is split on a
//! separator. (Names cannot hold bytes that are not UTF-8: statement text must be valid
//! utf8mb4, and names come only from statements.) Unknown fields, a wrong format or version,
//! a checksum mismatch, a duplicate account or a `root@%` entry (that account comes from
//! `--root-password` only and is never stored) make the file unreadable: the server refuses to
//! start and says why, rather than guess.
//!
//! The checksum is over the canonical (compact) encoding of the accounts as parsed, so it
//! catches a file that was cut or damaged, or edited without recomputing it. It is not a
//! signature: the file's protection against a forger is its mode (`0600`, and the server
//! refuses one that its group or others may write, see [`crate::datadir::check_private`]).
//!
//! # Writing: temp file, fsync, rename, fsync directory
//!
//! [`write`] replaces the file so that a crash at any point leaves the old table or the new
//! one, never a mix, and so that a change is durable before the statement that made it
//! returns OK:
//!
//! 1. the new content goes to `accounts.json.tmp` (created `0600`) and is fsynced: the bytes
//!    are on disk before any name points at them, so step 2 cannot expose a torn file;
//! 2. `rename` over `accounts.json`: atomic, so a reader (or a crash) sees the old file or the
//!    new one;
//! 3. fsync of the directory: the rename itself is durable. Only then is the change reported
//!    done. A crash before this step may lose the rename: the old table is then what recovery
//!    reads, and the client was not told the change succeeded.

use super::{Account, Grant};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// The file's name in the data directory.
pub const FILE_NAME: &str = "accounts.json";
const FORMAT: &str = "cohort-accounts";
const VERSION: u32 = 2;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredFile {
    format: String,
    version: u32,
    crc32c: String,
    accounts: Vec<StoredAccount>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct StoredAccount {
    user: String,
    host: String,
    /// `*HEX` (MySQL's display form of SHA1(SHA1(password))), or null for no password.
    password_hash: Option<String>,
    grants: Vec<StoredGrant>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum StoredGrant {
    Global,
    Database(String),
}

/// The file's bytes for `accounts` (pretty-printed: one field a line, for the administrator).
pub fn encode(accounts: &[Account]) -> Vec<u8> {
    let stored: Vec<StoredAccount> = accounts.iter().map(to_stored).collect();
    let file = StoredFile {
        format: FORMAT.into(),
        version: VERSION,
        crc32c: format!("{:08x}", checksum(&stored)),
        accounts: stored,
    };
    let mut out = serde_json::to_vec_pretty(&file).expect("plain data serializes");
    out.push(b'\n');
    out
}

/// Parse the file's bytes; the error says what is wrong.
pub fn decode(bytes: &[u8]) -> Result<Vec<Account>, String> {
    let file: StoredFile = serde_json::from_slice(bytes).map_err(|e| format!("not valid: {e}"))?;
    if file.format != FORMAT || file.version != VERSION {
        return Err(format!(
            "format '{}' version {} (expected '{FORMAT}' version {VERSION})",
            file.format, file.version
        ));
    }
    let want = format!("{:08x}", checksum(&file.accounts));
    if file.crc32c != want {
        return Err(format!(
            "checksum mismatch (stored {}, content {want}): the file is damaged or was edited",
            file.crc32c
        ));
    }
    let accounts = file
        .accounts
        .iter()
        .map(from_stored)
        .collect::<Result<Vec<_>, _>>()?;
    super::check_table(&accounts)?;
    Ok(accounts)
}

fn checksum(accounts: &[StoredAccount]) -> u32 {
    let canonical = serde_json::to_vec(accounts).expect("plain data serializes");
    crc32c::crc32c(&canonical)
}

fn to_stored(a: &Account) -> StoredAccount {
    StoredAccount {
        user: a.user.clone(),
        host: a.host.clone(),
        password_hash: a.hash.as_ref().map(super::hash_text),
        grants: a
            .grants
            .iter()
            .map(|g| match g {
                Grant::Global => StoredGrant::Global,
                Grant::Database(d) => StoredGrant::Database(d.clone()),
            })
            .collect(),
    }
}

fn from_stored(a: &StoredAccount) -> Result<Account, String> {
    let hash = match &a.password_hash {
        None => None,
        Some(text) => Some(super::parse_hash(text).ok_or_else(|| {
            format!(
                "account '{}'@'{}': bad password hash {text:?}",
                a.user.escape_debug(),
                a.host.escape_debug()
            )
        })?),
    };
    Ok(Account {
        user: a.user.clone(),
        host: a.host.clone(),
        hash,
        grants: a
            .grants
            .iter()
            .map(|g| match g {
                StoredGrant::Global => Grant::Global,
                StoredGrant::Database(d) => Grant::Database(d.clone()),
            })
            .collect(),
    })
}

/// How [`write`] failed.
#[derive(Debug)]
pub enum WriteError {
    /// The old file is still in place.
    NotWritten(io::Error),
    /// The new file replaced the old one, but the directory fsync failed: a crash may bring
    /// the old one back.
    NotDurable(io::Error),
}

impl WriteError {
    pub fn io(&self) -> &io::Error {
        match self {
            WriteError::NotWritten(e) | WriteError::NotDurable(e) => e,
        }
    }
}

/// Replace `dir/FILE_NAME` with `bytes`, atomically and durably (see the module doc).
pub fn write(dir: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let file = dir.join(FILE_NAME);
    let tmp = dir.join(format!("{FILE_NAME}.tmp"));
    // 1. Content first, durable before any name points at it.
    let content = || -> io::Result<()> {
        let mut f = crate::datadir::create_file(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    };
    content().map_err(WriteError::NotWritten)?;
    // 2. The atomic switch.
    fs::rename(&tmp, &file).map_err(WriteError::NotWritten)?;
    // 3. The switch itself durable.
    sync_dir(dir).map_err(WriteError::NotDurable)
}

pub fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(user: &str, host: &str, grants: Vec<Grant>) -> Account {
        Account {
            user: user.into(),
            host: host.into(),
            hash: super::super::password_hash("pw"),
            grants,
        }
    }

    #[test]
    fn every_character_round_trips() {
        let nasty = [
            "victim\t%\t-\t*\nx",
            "a,b",
            "tenant,*",
            "*",
            "nul\0byte",
            "quote'\"`",
            "back\\slash",
            "\r\n\u{1}\u{7f}",
            "ünï©ødé 🦀",
            "",
            "# cohort accounts v1",
        ];
        let mut accounts = Vec::new();
        for (i, n) in nasty.iter().enumerate() {
            accounts.push(account(
                n,
                nasty[(i + 3) % nasty.len()],
                vec![
                    Grant::Database(n.to_string()),
                    Grant::Database(format!("{n},*")),
                ],
            ));
        }
        accounts.push(Account {
            user: "nopw".into(),
            host: "%".into(),
            hash: None,
            grants: vec![Grant::Global],
        });
        let bytes = encode(&accounts);
        assert_eq!(decode(&bytes).unwrap(), accounts);
    }

    #[test]
    fn a_damaged_or_edited_file_is_refused() {
        let accounts = vec![account("app", "%", vec![Grant::Database("shop".into())])];
        let bytes = encode(&accounts);
        let text = String::from_utf8(bytes.clone()).unwrap();
        // Granting oneself *.* without recomputing the checksum.
        let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        v["accounts"][0]["grants"] = serde_json::json!(["global"]);
        let edited = serde_json::to_vec_pretty(&v).unwrap();
        let e = decode(&edited).unwrap_err();
        assert!(e.contains("checksum mismatch"), "{e}");
        // Layout is not content: the same file re-encoded (compact, keys reordered) reads.
        let same: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            decode(&serde_json::to_vec(&same).unwrap()).unwrap(),
            accounts
        );
        // Cut short (a torn copy).
        assert!(decode(&bytes[..bytes.len() / 2]).is_err());
        // A field this version does not know.
        let extra = text.replacen(r#""user""#, r#""admin": true, "user""#, 1);
        assert!(decode(extra.as_bytes())
            .unwrap_err()
            .contains("unknown field"));
        // Another version.
        let v3 = text.replace(r#""version": 2"#, r#""version": 3"#);
        assert!(decode(v3.as_bytes()).unwrap_err().contains("version 3"));
    }

    #[test]
    fn duplicates_and_a_stored_root_are_refused() {
        let a = account("app", "%", Vec::new());
        let e = decode(&encode(&[a.clone(), a])).unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let root = account("root", "%", vec![Grant::Global]);
        let e = decode(&encode(&[root])).unwrap_err();
        assert!(e.contains("root"), "{e}");
    }
}
