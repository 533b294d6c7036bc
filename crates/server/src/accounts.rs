//! User accounts and database-level grants, persisted in the data directory.
//!
//! An account is `'user'@'host'` with a `mysql_native_password` hash (`SHA1(SHA1(pw))`) and a
//! set of grants. Privileges are all-or-nothing per database for now: `GRANT ALL ON *.*` or
//! `GRANT ALL ON db.*`. Host patterns: `%` matches any host, otherwise an exact match
//! (`localhost` also matches the loopback addresses).
//!
//! Persistence: the whole table is rewritten to `accounts.txt` on every change: written to a
//! temporary file, fsynced, renamed over the old one, and the directory fsynced, so a crash
//! leaves either the old or the new file. Locking: one `RwLock` over the account list; logins
//! take it shared.

use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;
use parking_lot::RwLock;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What an account may touch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grant {
    /// `GRANT ALL ON *.*` (and GRANT OPTION-like administration: users, SET GLOBAL).
    Global,
    /// `GRANT ALL ON db.*`.
    Database(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub user: String,
    pub host: String,
    /// SHA1(SHA1(password)), or None for an empty password.
    pub hash: Option<[u8; 20]>,
    pub grants: Vec<Grant>,
}

/// The account table.
pub struct Accounts {
    /// None for tests: nothing is persisted.
    file: Option<PathBuf>,
    /// Protected by this lock: the account list, in creation order.
    accounts: RwLock<Vec<Account>>,
}

impl Accounts {
    /// Accounts held in memory only, with `root@%` and the given password.
    pub fn in_memory(root_password: &str) -> Accounts {
        Accounts {
            file: None,
            accounts: RwLock::new(vec![root_account(root_password)]),
        }
    }

    /// Load `datadir/accounts.txt`, creating it with `root@%` on first start. The root password
    /// given at startup always applies to root (so a lost password is recovered by restarting).
    pub fn open(datadir: &Path, root_password: &str) -> Result<Accounts> {
        let file = datadir.join("accounts.txt");
        let mut accounts = match fs::read_to_string(&file) {
            Ok(text) => parse_accounts(&text)
                .map_err(|e| Error::internal(format!("cannot read {}: {e}", file.display())))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                return Err(Error::internal(format!(
                    "cannot read {}: {e}",
                    file.display()
                )))
            }
        };
        accounts.retain(|a| !(a.user == "root" && a.host == "%"));
        accounts.insert(0, root_account(root_password));
        let table = Accounts {
            file: Some(file),
            accounts: RwLock::new(accounts),
        };
        table.persist(&table.accounts.read())?;
        Ok(table)
    }

    /// The stored hash of the account that `user` connecting from `client_host` logs in as.
    /// Returns None if no account matches.
    pub fn lookup(&self, user: &str, client_host: &str) -> Option<Account> {
        let accounts = self.accounts.read();
        let mut matching: Vec<&Account> = accounts
            .iter()
            .filter(|a| a.user == user && host_matches(&a.host, client_host))
            .collect();
        // The most specific host wins, as in MySQL: exact names before `%`.
        matching.sort_by_key(|a| a.host == "%");
        matching.first().map(|a| (*a).clone())
    }

    pub fn create_user(
        &self,
        user: &str,
        host: &str,
        password: &str,
        if_not_exists: bool,
    ) -> Result<()> {
        let mut accounts = self.accounts.write();
        if accounts.iter().any(|a| a.user == user && a.host == host) {
            if if_not_exists {
                return Ok(());
            }
            return Err(cannot_user("CREATE USER", user, host));
        }
        let mut next = accounts.clone();
        next.push(Account {
            user: user.to_string(),
            host: host.to_string(),
            hash: password_hash(password),
            grants: Vec::new(),
        });
        self.persist(&next)?;
        *accounts = next;
        Ok(())
    }

    pub fn alter_user_password(&self, user: &str, host: &str, password: &str) -> Result<()> {
        self.modify(user, host, "ALTER USER", |a| {
            a.hash = password_hash(password)
        })
    }

    pub fn drop_user(&self, user: &str, host: &str, if_exists: bool) -> Result<()> {
        let mut accounts = self.accounts.write();
        let Some(pos) = accounts
            .iter()
            .position(|a| a.user == user && a.host == host)
        else {
            if if_exists {
                return Ok(());
            }
            return Err(cannot_user("DROP USER", user, host));
        };
        let mut next = accounts.clone();
        next.remove(pos);
        self.persist(&next)?;
        *accounts = next;
        Ok(())
    }

    /// `GRANT ALL ON *.*` (db None) or `GRANT ALL ON db.*`.
    pub fn grant_all(&self, user: &str, host: &str, db: Option<&str>) -> Result<()> {
        let grant = db.map_or(Grant::Global, |d| Grant::Database(d.to_string()));
        self.modify_grants(user, host, |grants| {
            if !grants.contains(&grant) {
                grants.push(grant.clone());
            }
        })
    }

    /// `REVOKE ALL ON *.*` (db None) or `REVOKE ALL ON db.*`.
    pub fn revoke_all(&self, user: &str, host: &str, db: Option<&str>) -> Result<()> {
        let grant = db.map_or(Grant::Global, |d| Grant::Database(d.to_string()));
        self.modify_grants(user, host, |grants| grants.retain(|g| *g != grant))
    }

    /// May this account use database `db`?
    pub fn can_access_db(&self, user: &str, host: &str, db: &str) -> bool {
        let accounts = self.accounts.read();
        accounts
            .iter()
            .filter(|a| a.user == user && a.host == host)
            .flat_map(|a| a.grants.iter())
            .any(|g| match g {
                Grant::Global => true,
                Grant::Database(d) => d == db,
            })
    }

    /// Does this account hold `ALL ON *.*` (needed for SET GLOBAL and account management)?
    pub fn is_admin(&self, user: &str, host: &str) -> bool {
        let accounts = self.accounts.read();
        accounts
            .iter()
            .any(|a| a.user == user && a.host == host && a.grants.contains(&Grant::Global))
    }

    /// `SHOW GRANTS FOR user@host`.
    pub fn show_grants(&self, user: &str, host: &str) -> Result<Vec<String>> {
        let accounts = self.accounts.read();
        let a = accounts
            .iter()
            .find(|a| a.user == user && a.host == host)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::NonexistingGrant,
                    format!("There is no such grant defined for user '{user}' on host '{host}'"),
                )
            })?;
        let mut out = Vec::new();
        let global = a.grants.contains(&Grant::Global);
        let usage = if global { "ALL PRIVILEGES" } else { "USAGE" };
        let pw = match a.hash {
            Some(h) => format!(" IDENTIFIED BY PASSWORD '{}'", hash_text(&h)),
            None => String::new(),
        };
        out.push(format!("GRANT {usage} ON *.* TO `{user}`@`{host}`{pw}"));
        for g in &a.grants {
            if let Grant::Database(d) = g {
                out.push(format!(
                    "GRANT ALL PRIVILEGES ON `{d}`.* TO `{user}`@`{host}`"
                ));
            }
        }
        Ok(out)
    }

    fn modify(&self, user: &str, host: &str, op: &str, f: impl FnOnce(&mut Account)) -> Result<()> {
        let mut accounts = self.accounts.write();
        let mut next = accounts.clone();
        let a = next
            .iter_mut()
            .find(|a| a.user == user && a.host == host)
            .ok_or_else(|| cannot_user(op, user, host))?;
        f(a);
        self.persist(&next)?;
        *accounts = next;
        Ok(())
    }

    fn modify_grants(&self, user: &str, host: &str, f: impl FnOnce(&mut Vec<Grant>)) -> Result<()> {
        let mut accounts = self.accounts.write();
        let mut next = accounts.clone();
        let a = next
            .iter_mut()
            .find(|a| a.user == user && a.host == host)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::PasswordNoMatch,
                    "Can't find any matching row in the user table",
                )
            })?;
        f(&mut a.grants);
        self.persist(&next)?;
        *accounts = next;
        Ok(())
    }

    /// Write the table durably: temp file, fsync, rename, fsync the directory.
    fn persist(&self, accounts: &[Account]) -> Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let io = |e: std::io::Error| {
            Error::new(
                ErrorCode::ErrorOnWrite,
                format!("Error writing file '{}' (errno: {e})", file.display()),
            )
        };
        let tmp = file.with_extension("tmp");
        let mut f = fs::File::create(&tmp).map_err(io)?;
        f.write_all(format_accounts(accounts).as_bytes())
            .map_err(io)?;
        f.sync_all().map_err(io)?;
        fs::rename(&tmp, file).map_err(io)?;
        if let Some(dir) = file.parent() {
            fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
        }
        Ok(())
    }
}

fn root_account(password: &str) -> Account {
    Account {
        user: "root".into(),
        host: "%".into(),
        hash: password_hash(password),
        grants: vec![Grant::Global],
    }
}

fn cannot_user(op: &str, user: &str, host: &str) -> Error {
    Error::new(
        ErrorCode::CannotUser,
        format!("Operation {op} failed for '{user}'@'{host}'"),
    )
}

/// `SHA1(SHA1(password))`, or None for the empty password.
pub fn password_hash(password: &str) -> Option<[u8; 20]> {
    if password.is_empty() {
        return None;
    }
    Some(cohort_protocol::native_password_hash(password.as_bytes()))
}

/// `*HEX` as MySQL shows a native password hash.
pub fn hash_text(h: &[u8; 20]) -> String {
    let mut s = String::from("*");
    for b in h {
        s.push_str(&format!("{b:02X}"));
    }
    s
}

fn host_matches(pattern: &str, client: &str) -> bool {
    pattern == "%"
        || pattern == client
        || (pattern == "localhost" && (client == "127.0.0.1" || client == "::1"))
}

/// One account per line: `user<TAB>host<TAB>*HASH or -<TAB>grants`, grants `*` or db names
/// separated by commas. Names cannot contain tabs or newlines (CREATE USER rejects them).
fn format_accounts(accounts: &[Account]) -> String {
    let mut out = String::from("# cohort accounts v1\n");
    for a in accounts {
        let hash = a.hash.map_or("-".to_string(), |h| hash_text(&h));
        let grants: Vec<String> = a
            .grants
            .iter()
            .map(|g| match g {
                Grant::Global => "*".to_string(),
                Grant::Database(d) => d.clone(),
            })
            .collect();
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            a.user,
            a.host,
            hash,
            grants.join(",")
        ));
    }
    out
}

fn parse_accounts(text: &str) -> std::result::Result<Vec<Account>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 4 {
            return Err(format!("line {}: expected 4 fields", n + 1));
        }
        let hash = if f[2] == "-" {
            None
        } else {
            Some(parse_hash(f[2]).ok_or(format!("line {}: bad hash", n + 1))?)
        };
        let grants = f[3]
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|g| {
                if g == "*" {
                    Grant::Global
                } else {
                    Grant::Database(g.to_string())
                }
            })
            .collect();
        out.push(Account {
            user: f[0].into(),
            host: f[1].into(),
            hash,
            grants,
        });
    }
    Ok(out)
}

fn parse_hash(s: &str) -> Option<[u8; 20]> {
    let hex = s.strip_prefix('*')?;
    if hex.len() != 40 {
        return None;
    }
    let mut out = [0u8; 20];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_hash_of_sb() {
        let h = password_hash("sb").unwrap();
        assert_eq!(hash_text(&h), "*7FC8780EC04AEA87C347D8E65C24F9DEB598A68F");
    }

    #[test]
    fn accounts_persist_and_reload() {
        let dir = std::env::temp_dir().join(format!("cohort-acct-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        {
            let a = Accounts::open(&dir, "pw").unwrap();
            a.create_user("sb", "%", "sb", false).unwrap();
            a.grant_all("sb", "%", Some("sbtest")).unwrap();
            assert!(a.create_user("sb", "%", "x", false).is_err());
        }
        let a = Accounts::open(&dir, "pw").unwrap();
        let sb = a.lookup("sb", "127.0.0.1").unwrap();
        assert_eq!(sb.hash, password_hash("sb"));
        assert!(a.can_access_db("sb", "%", "sbtest"));
        assert!(!a.can_access_db("sb", "%", "other"));
        assert!(a.is_admin("root", "%"));
        a.drop_user("sb", "%", false).unwrap();
        assert!(a.lookup("sb", "127.0.0.1").is_none());
        fs::remove_dir_all(&dir).unwrap();
    }
}
