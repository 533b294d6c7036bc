//! The accounts file: `datadir/accounts.json`, structured and checksummed.
//!
//! ```text
//! {
//!   "format": "cohort-accounts",
//!   "version": 2,
//!   "crc32c": "89abcdef",            ← CRC32C of the compact JSON encoding of "accounts"
//!   "accounts": [
//!     { "user": "app", "host": "%", "password_hash": "*7FC8…", "grants": [
//!         { "on": { "database": "shop", "privileges": [ "SELECT", "INSERT" ] } },
//!         { "on": { "database": "shop", "table": "t", "privileges": [ "UPDATE" ] } } ] },
//!     { "user": "ops", "host": "10.0.0.1", "password_hash": null,
//!       "grants": [ { "on": { "privileges": [ "PROCESS", "GRANT OPTION" ] } } ],
//!       "require": "ssl" }
//!   ]
//! }
//! ```
//!
//! Privileges are MariaDB's names; `on` without `database` is `*.*`, without `table` `db.*`.
//! Files written before privileges were finer hold `"global"` (all-or-nothing `*.*`, read as
//! ALL PRIVILEGES WITH GRANT OPTION: it let its holder manage accounts) and
//! `{ "database": "shop" }` (read as ALL PRIVILEGES on `shop`.*); they read as they are, and
//! the next change writes the new form. An older server refuses a file in the new form (an
//! unknown variant) rather than read it wrong.
//!
//! `require` (`"ssl"` or `"x509"`: REQUIRE SSL / X509) is written only for an account that has
//! one, so a file without any reads, writes and checksums exactly as before the field existed;
//! a server that does not know the field refuses a file that has it (unknown fields are
//! refused), rather than let such an account log in without TLS.
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

use super::{Account, Grant, Level, Privs, TransportRequirement};
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    require: Option<StoredRequire>,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
enum StoredRequire {
    Ssl,
    X509,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum StoredGrant {
    /// Written before privileges were finer (all-or-nothing `*.*`): read as ALL PRIVILEGES
    /// WITH GRANT OPTION on `*.*`, never written.
    Global,
    /// Likewise `ALL ON db.*`: read as ALL PRIVILEGES on `db.*`, never written.
    Database(String),
    /// Privileges on `*.*` (no database), `db.*` (no table) or `db.tbl`.
    On(StoredPrivs),
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct StoredPrivs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    database: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    table: Option<String>,
    /// MariaDB's names (`"SELECT"`, `"SHOW DATABASES"`, `"GRANT OPTION"`).
    privileges: Vec<String>,
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
            .map(|g| {
                let (database, table) = match g {
                    Grant::Global(_) => (None, None),
                    Grant::Database(d, _) => (Some(d.clone()), None),
                    Grant::Table(d, t, _) => (Some(d.clone()), Some(t.clone())),
                };
                let privileges = g.privs().names(true).map(String::from).collect();
                StoredGrant::On(StoredPrivs {
                    database,
                    table,
                    privileges,
                })
            })
            .collect(),
        require: match a.require {
            TransportRequirement::None => None,
            TransportRequirement::Ssl => Some(StoredRequire::Ssl),
            TransportRequirement::X509 => Some(StoredRequire::X509),
        },
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
    let name = || format!("'{}'@'{}'", a.user.escape_debug(), a.host.escape_debug());
    let mut grants: Vec<Grant> = Vec::new();
    for g in &a.grants {
        let g = match g {
            StoredGrant::Global => super::legacy_global(),
            StoredGrant::Database(d) => Grant::Database(d.clone(), Privs::DB_ALL),
            StoredGrant::On(s) => {
                let mut p = Privs::NONE;
                for n in &s.privileges {
                    p |= Privs::by_name(n)
                        .ok_or_else(|| format!("account {}: unknown privilege {n:?}", name()))?;
                }
                let (level, g) = match (&s.database, &s.table) {
                    (None, None) => (Level::Global, Grant::Global(p)),
                    (Some(d), None) => (Level::Database, Grant::Database(d.clone(), p)),
                    (Some(d), Some(t)) => (Level::Table, Grant::Table(d.clone(), t.clone(), p)),
                    (None, Some(_)) => {
                        return Err(format!(
                            "account {}: a table grant without a database",
                            name()
                        ))
                    }
                };
                if !(Privs::all_of(level) | Privs::GRANT).contains(p) {
                    return Err(format!(
                        "account {}: privileges {:?} cannot be granted at that level",
                        name(),
                        s.privileges
                    ));
                }
                g
            }
        };
        if grants.iter().any(|h| h.target() == g.target()) {
            return Err(format!("account {}: two grants on one object", name()));
        }
        grants.push(g);
    }
    Ok(Account {
        user: a.user.clone(),
        host: a.host.clone(),
        hash,
        grants,
        require: match a.require {
            None => TransportRequirement::None,
            Some(StoredRequire::Ssl) => TransportRequirement::Ssl,
            Some(StoredRequire::X509) => TransportRequirement::X509,
        },
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
            require: TransportRequirement::None,
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
                    Grant::Database(n.to_string(), Privs::DB_ALL),
                    Grant::Database(format!("{n},*"), Privs::SELECT | Privs::GRANT),
                    Grant::Table(n.to_string(), n.to_string(), Privs::INSERT),
                ],
            ));
        }
        accounts.push(Account {
            user: "nopw".into(),
            host: "%".into(),
            hash: None,
            grants: vec![Grant::Global(Privs::GLOBAL_ALL)],
            require: TransportRequirement::Ssl,
        });
        accounts.push(Account {
            require: TransportRequirement::X509,
            ..account("certs", "%", Vec::new())
        });
        let bytes = encode(&accounts);
        assert_eq!(decode(&bytes).unwrap(), accounts);
    }

    /// A file written before `require` existed reads (same checksum), and one written now
    /// for accounts without a requirement is byte for byte what was written then.
    #[test]
    fn the_require_field_is_compatible_both_ways() {
        let accounts = vec![account(
            "app",
            "%",
            vec![Grant::Database("shop".into(), Privs::DB_ALL)],
        )];
        let text = String::from_utf8(encode(&accounts)).unwrap();
        assert!(!text.contains("require"), "{text}");
        // Written by the version before: the same fields, and the checksum over the same
        // canonical encoding (this is what that version computed).
        let hash = super::super::hash_text(&super::super::password_hash("pw").unwrap());
        let old_canonical = format!(
            r#"[{{"user":"app","host":"%","password_hash":"{hash}","grants":[{{"database":"shop"}}]}}]"#
        );
        let crc = format!("{:08x}", crc32c::crc32c(old_canonical.as_bytes()));
        let before = format!(
            r#"{{"format":"cohort-accounts","version":2,"crc32c":"{crc}","accounts":{old_canonical}}}"#
        );
        assert_eq!(decode(before.as_bytes()).unwrap(), accounts);
        // With a requirement the field is there, and an edit of it breaks the checksum.
        let ssl = vec![Account {
            require: TransportRequirement::Ssl,
            ..accounts[0].clone()
        }];
        let text = String::from_utf8(encode(&ssl)).unwrap();
        assert!(text.contains(r#""require": "ssl""#), "{text}");
        let dropped = text.replace(",\n      \"require\": \"ssl\"", "");
        assert_ne!(dropped, text);
        assert!(decode(dropped.as_bytes())
            .unwrap_err()
            .contains("checksum mismatch"));
    }

    #[test]
    fn a_damaged_or_edited_file_is_refused() {
        let accounts = vec![account(
            "app",
            "%",
            vec![Grant::Database("shop".into(), Privs::DB_ALL)],
        )];
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
        let root = account("root", "%", vec![Grant::Global(Privs::GLOBAL_ALL)]);
        let e = decode(&encode(&[root])).unwrap_err();
        assert!(e.contains("root"), "{e}");
    }
}
