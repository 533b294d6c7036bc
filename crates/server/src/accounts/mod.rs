//! User accounts and their privileges, persisted in the data directory.
//!
//! An account is `'user'@'host'` with a `mysql_native_password` hash (`SHA1(SHA1(pw))`) and a
//! set of grants: privileges ([`privs`], MariaDB 10.11's list) on `*.*`, on `db.*` or on
//! `db.tbl`, each with or without GRANT OPTION. Every change rebuilds a per-account index of
//! the effective privileges ([`Effective`]), so a check is a hash lookup or two; the
//! statement cache binds again when [`Accounts::generation`] moves, so a GRANT or REVOKE
//! applies to other sessions from their next statement. Host patterns: `%` matches any host, otherwise an exact match
//! (`localhost` also matches the loopback addresses).
//!
//! `root@%` comes from `--root-password` at every start (so a lost password is recovered by
//! restarting) and is never stored. Every other account lives in `accounts.json`
//! ([`store`]: structured, checksummed, any character in a name round-trips), rewritten
//! whole on every change — temp file, fsync, rename, fsync directory — before the change is
//! applied in memory and acknowledged. Starting reads the file and writes nothing (a full
//! disk must not stop a restart), except once to migrate a version-1 `accounts.txt`
//! ([`legacy`]). The file is created `0600`; a file its group or others may write is refused
//! at start ([`crate::datadir::check_private`]).
//!
//! An account may also require a secure transport, as MariaDB's `REQUIRE` clause of CREATE
//! USER, ALTER USER and GRANT says: `REQUIRE SSL` (the login must come over TLS) or
//! `REQUIRE X509` (over TLS, with a client certificate verified against `ssl_ca`);
//! `REQUIRE NONE` removes the requirement. The finer forms (ISSUER, SUBJECT, CIPHER) are
//! refused (1235). A connection that does not meet the requirement is refused as a wrong
//! password is (1045), as MariaDB does.
//!
//! Locking: one `RwLock` over the account list; logins take it shared. A change holds it
//! exclusively while the file is written, so the file and memory change in the same order.

mod legacy;
pub mod privs;
mod store;

pub use privs::{Level, Privs};

use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Privileges an account holds at one level. An account has at most one grant per object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grant {
    /// `ON *.*`.
    Global(Privs),
    /// `ON db.*`.
    Database(String, Privs),
    /// `ON db.tbl`.
    Table(String, String, Privs),
}

impl Grant {
    pub fn privs(&self) -> Privs {
        match self {
            Grant::Global(p) | Grant::Database(_, p) | Grant::Table(_, _, p) => *p,
        }
    }
    fn privs_mut(&mut self) -> &mut Privs {
        match self {
            Grant::Global(p) | Grant::Database(_, p) | Grant::Table(_, _, p) => p,
        }
    }
    fn target(&self) -> GrantTarget<'_> {
        match self {
            Grant::Global(_) => GrantTarget::Global,
            Grant::Database(d, _) => GrantTarget::Database(d),
            Grant::Table(d, t, _) => GrantTarget::Table(d, t),
        }
    }
}

/// What a GRANT or REVOKE is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrantTarget<'a> {
    Global,
    Database(&'a str),
    Table(&'a str, &'a str),
}

impl GrantTarget<'_> {
    pub fn level(self) -> Level {
        match self {
            GrantTarget::Global => Level::Global,
            GrantTarget::Database(_) => Level::Database,
            GrantTarget::Table(..) => Level::Table,
        }
    }
    fn new_grant(self, p: Privs) -> Grant {
        match self {
            GrantTarget::Global => Grant::Global(p),
            GrantTarget::Database(d) => Grant::Database(d.to_string(), p),
            GrantTarget::Table(d, t) => Grant::Table(d.to_string(), t.to_string(), p),
        }
    }
}

/// One account's privileges, indexed for checks.
#[derive(Debug, Default)]
pub struct Effective {
    pub global: Privs,
    dbs: HashMap<String, Privs>,
    tables: HashMap<String, HashMap<String, Privs>>,
}

impl Effective {
    fn of(grants: &[Grant]) -> Effective {
        let mut e = Effective::default();
        for g in grants {
            match g {
                Grant::Global(p) => e.global |= *p,
                Grant::Database(d, p) => *e.dbs.entry(d.clone()).or_default() |= *p,
                Grant::Table(d, t, p) => {
                    *e.tables
                        .entry(d.clone())
                        .or_default()
                        .entry(t.clone())
                        .or_default() |= *p
                }
            }
        }
        e
    }

    /// What the account may do on every table of `db` (global and database grants).
    pub fn db_privs(&self, db: &str) -> Privs {
        self.global | self.dbs.get(db).copied().unwrap_or_default()
    }

    /// What the account may do on `db`.`table`.
    pub fn table_privs(&self, db: &str, table: &str) -> Privs {
        let t = self
            .tables
            .get(db)
            .and_then(|m| m.get(table))
            .copied()
            .unwrap_or_default();
        self.db_privs(db) | t
    }

    /// May the account use `db` at all (USE, SHOW DATABASES): a privilege on it, or on one of
    /// its tables.
    pub fn any_in_db(&self, db: &str) -> bool {
        self.global.intersects(Privs::DB_ALL)
            || self.dbs.get(db).is_some_and(|p| !p.is_empty())
            || self
                .tables
                .get(db)
                .is_some_and(|m| m.values().any(|p| !p.is_empty()))
    }

    /// May the account see `db`.`table` (SHOW TABLES, information_schema): any privilege on it.
    pub fn any_on_table(&self, db: &str, table: &str) -> bool {
        !self.table_privs(db, table).is_empty()
    }
}

/// What transport an account's logins must use (`REQUIRE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TransportRequirement {
    /// `REQUIRE NONE`: any.
    #[default]
    None,
    /// `REQUIRE SSL`: TLS.
    Ssl,
    /// `REQUIRE X509`: TLS with a client certificate that verified against `ssl_ca`.
    X509,
}

impl TransportRequirement {
    /// The clause SHOW GRANTS / SHOW CREATE USER append (empty for none).
    pub fn clause(self) -> &'static str {
        match self {
            TransportRequirement::None => "",
            TransportRequirement::Ssl => " REQUIRE SSL",
            TransportRequirement::X509 => " REQUIRE X509",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub user: String,
    pub host: String,
    /// SHA1(SHA1(password)), or None for an empty password.
    pub hash: Option<[u8; 20]>,
    pub grants: Vec<Grant>,
    /// `REQUIRE SSL` / `REQUIRE X509`.
    pub require: TransportRequirement,
}

/// The account table.
pub struct Accounts {
    /// The data directory holding the accounts file; None for tests: nothing is persisted.
    dir: Option<PathBuf>,
    /// Protected by this lock: the account list, in creation order (`root@%` first).
    accounts: RwLock<Vec<Account>>,
    /// The effective privileges of every account by (user, host), rebuilt (under the
    /// `accounts` write lock) by every change.
    index: RwLock<Index>,
    /// Bumped (under the write lock) by every change of the accounts or their grants: a
    /// cached plan checked access when it was bound, and is bound again when this moved.
    generation: AtomicU64,
}

impl Accounts {
    /// Accounts held in memory only, with `root@%` and the given password.
    pub fn in_memory(root_password: &str) -> Accounts {
        let accounts = vec![root_account(root_password)];
        Accounts {
            dir: None,
            index: RwLock::new(index_of(&accounts)),
            accounts: RwLock::new(accounts),
            generation: AtomicU64::new(0),
        }
    }

    /// Load the accounts of `datadir`, and `root@%` with `root_password`. Writes nothing,
    /// unless a version-1 `accounts.txt` is migrated. Refuses (with the reason) a file that is
    /// damaged, ambiguous, or writable by others.
    pub fn open(datadir: &Path, root_password: &str) -> Result<Accounts> {
        let stored = load(datadir).map_err(|why| Error::new(ErrorCode::Unknown, why))?;
        let mut accounts = vec![root_account(root_password)];
        accounts.extend(stored);
        Ok(Accounts {
            dir: Some(datadir.to_path_buf()),
            index: RwLock::new(index_of(&accounts)),
            accounts: RwLock::new(accounts),
            generation: AtomicU64::new(0),
        })
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

    /// The account `user`@`host` itself (no host matching).
    pub fn lookup_exact(&self, user: &str, host: &str) -> Option<Account> {
        let accounts = self.accounts.read();
        accounts
            .iter()
            .find(|a| a.user == user && a.host == host)
            .cloned()
    }

    pub fn create_user(
        &self,
        user: &str,
        host: &str,
        password: &str,
        if_not_exists: bool,
    ) -> Result<()> {
        let none = TransportRequirement::None;
        self.create_user_requiring(user, host, password, none, if_not_exists)
    }

    /// CREATE USER … REQUIRE …: the account and its requirement in one change.
    pub fn create_user_requiring(
        &self,
        user: &str,
        host: &str,
        password: &str,
        require: TransportRequirement,
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
            require,
        });
        self.install(&mut accounts, next)
    }

    pub fn alter_user_password(&self, user: &str, host: &str, password: &str) -> Result<()> {
        self.alter_user(user, host, Some(password), None)
    }

    /// ALTER USER: the password and/or the transport requirement (None: unchanged), in one
    /// change.
    pub fn alter_user(
        &self,
        user: &str,
        host: &str,
        password: Option<&str>,
        require: Option<TransportRequirement>,
    ) -> Result<()> {
        self.modify(user, host, "ALTER USER", |a| {
            if let Some(password) = password {
                a.hash = password_hash(password);
            }
            if let Some(require) = require {
                a.require = require;
            }
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
        self.install(&mut accounts, next)
    }

    /// `GRANT ALL ON *.*` (db None) or `GRANT ALL ON db.*`.
    pub fn grant_all(&self, user: &str, host: &str, db: Option<&str>) -> Result<()> {
        let target = db.map_or(GrantTarget::Global, GrantTarget::Database);
        self.grant(user, host, target, Privs::all_of(target.level()), None)
    }

    /// GRANT privs ON target TO user [REQUIRE …]: the privileges are added to what the account
    /// holds there, and the transport requirement (None: unchanged) set, in one change.
    pub fn grant(
        &self,
        user: &str,
        host: &str,
        target: GrantTarget<'_>,
        privs: Privs,
        require: Option<TransportRequirement>,
    ) -> Result<()> {
        self.modify_grants(user, host, |a| {
            match a.grants.iter_mut().find(|g| g.target() == target) {
                Some(g) => *g.privs_mut() |= privs,
                None => a.grants.push(target.new_grant(privs)),
            }
            if let Some(require) = require {
                a.require = require;
            }
        })
    }

    /// `REVOKE ALL ON *.*` (db None) or `REVOKE ALL ON db.*`.
    pub fn revoke_all(&self, user: &str, host: &str, db: Option<&str>) -> Result<()> {
        let target = db.map_or(GrantTarget::Global, GrantTarget::Database);
        self.revoke(user, host, target, Privs::GLOBAL_ALL | Privs::GRANT)
    }

    /// REVOKE privs ON target FROM user: 1141 if the account holds no grant there.
    pub fn revoke(
        &self,
        user: &str,
        host: &str,
        target: GrantTarget<'_>,
        privs: Privs,
    ) -> Result<()> {
        let mut missing = false;
        self.modify_grants(user, host, |a| {
            match a.grants.iter_mut().find(|g| g.target() == target) {
                Some(g) => *g.privs_mut() = g.privs().without(privs),
                None => missing = target != GrantTarget::Global,
            }
            a.grants
                .retain(|g| !g.privs().is_empty() || matches!(g, Grant::Global(_)));
        })?;
        if missing {
            return Err(no_such_grant(user, host, target));
        }
        Ok(())
    }

    /// Would REVOKE on `target` find a grant (MariaDB: 1141/1147 when not)?
    pub fn has_grant_on(&self, user: &str, host: &str, target: GrantTarget<'_>) -> bool {
        let accounts = self.accounts.read();
        target == GrantTarget::Global
            || accounts
                .iter()
                .filter(|a| a.user == user && a.host == host)
                .flat_map(|a| a.grants.iter())
                .any(|g| g.target() == target)
    }

    /// REVOKE ALL PRIVILEGES, GRANT OPTION FROM user: every grant.
    pub fn revoke_everything(&self, user: &str, host: &str) -> Result<()> {
        self.modify_grants(user, host, |a| a.grants.clear())
    }

    /// The effective privileges of the account `user`@`host` (none if there is no such
    /// account): one hash lookup under a shared lock.
    ///
    /// `host` is an account's host; a host no account has exactly (a view's definer
    /// `'root'@'localhost'` from a MariaDB dump) takes the account a login from that host
    /// would use (`root@%`).
    pub fn effective(&self, user: &str, host: &str) -> Arc<Effective> {
        let index = self.index.read();
        let Some(hosts) = index.get(user) else {
            return Arc::default();
        };
        hosts
            .iter()
            .find(|(h, _)| h == host)
            .or_else(|| hosts.iter().find(|(h, _)| host_matches(h, host)))
            .map(|(_, e)| e.clone())
            .unwrap_or_default()
    }

    /// May this account use database `db` (a privilege on it or one of its tables)?
    pub fn can_access_db(&self, user: &str, host: &str, db: &str) -> bool {
        self.effective(user, host).any_in_db(db)
    }

    /// Does this account hold one of `privs` on `*.*`?
    pub fn has_global(&self, user: &str, host: &str, privs: Privs) -> bool {
        self.effective(user, host).global.intersects(privs)
    }

    /// Does this account hold `ALL ON *.*`?
    pub fn is_admin(&self, user: &str, host: &str) -> bool {
        self.effective(user, host)
            .global
            .contains(Privs::GLOBAL_ALL)
    }

    /// Every grant as (user, host, grant), for information_schema's privilege tables; every
    /// account has its global one (USAGE when empty).
    pub fn all_grants(&self) -> Vec<(String, String, Grant)> {
        let accounts = self.accounts.read();
        let mut out = Vec::new();
        for a in accounts.iter() {
            if !a.grants.iter().any(|g| matches!(g, Grant::Global(_))) {
                out.push((a.user.clone(), a.host.clone(), Grant::Global(Privs::NONE)));
            }
            for g in &a.grants {
                out.push((a.user.clone(), a.host.clone(), g.clone()));
            }
        }
        out
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
        let global = a
            .grants
            .iter()
            .find_map(|g| match g {
                Grant::Global(p) => Some(*p),
                _ => None,
            })
            .unwrap_or_default();
        let pw = match a.hash {
            Some(h) => format!(" IDENTIFIED BY PASSWORD '{}'", hash_text(&h)),
            None => String::new(),
        };
        let require = a.require.clause();
        let with = |p: Privs| {
            if p.contains(Privs::GRANT) {
                " WITH GRANT OPTION"
            } else {
                ""
            }
        };
        let (u, h) = (quote_ident(user), quote_ident(host));
        out.push(format!(
            "GRANT {} ON *.* TO {u}@{h}{pw}{require}{}",
            global.grant_text(Level::Global),
            with(global)
        ));
        for g in &a.grants {
            if let Grant::Database(d, p) = g {
                out.push(format!(
                    "GRANT {} ON {}.* TO {u}@{h}{}",
                    p.grant_text(Level::Database),
                    quote_ident(d),
                    with(*p)
                ));
            }
        }
        for g in &a.grants {
            if let Grant::Table(d, t, p) = g {
                out.push(format!(
                    "GRANT {} ON {}.{} TO {u}@{h}{}",
                    p.grant_text(Level::Table),
                    quote_ident(d),
                    quote_ident(t),
                    with(*p)
                ));
            }
        }
        Ok(out)
    }

    /// `SHOW CREATE USER user@host`.
    pub fn show_create_user(&self, user: &str, host: &str) -> Result<String> {
        let accounts = self.accounts.read();
        let a = accounts
            .iter()
            .find(|a| a.user == user && a.host == host)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::PasswordNoMatch,
                    "Can't find any matching row in the user table",
                )
            })?;
        let pw = match a.hash {
            Some(h) => format!(" IDENTIFIED BY PASSWORD '{}'", hash_text(&h)),
            None => String::new(),
        };
        let require = a.require.clause();
        Ok(format!("CREATE USER `{user}`@`{host}`{pw}{require}"))
    }

    fn modify(&self, user: &str, host: &str, op: &str, f: impl FnOnce(&mut Account)) -> Result<()> {
        let mut accounts = self.accounts.write();
        let mut next = accounts.clone();
        let a = next
            .iter_mut()
            .find(|a| a.user == user && a.host == host)
            .ok_or_else(|| cannot_user(op, user, host))?;
        f(a);
        self.install(&mut accounts, next)
    }

    fn modify_grants(&self, user: &str, host: &str, f: impl FnOnce(&mut Account)) -> Result<()> {
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
        f(a);
        self.install(&mut accounts, next)
    }

    /// Write `next` (all but `root@%`) durably, then make it the table; see [`store`] for
    /// the ordering. The file is what a restart reads, so memory follows it: if the file was
    /// replaced but the directory fsync failed (the replacement may not survive a crash), the
    /// change is in effect and the error is still returned; if the file was not replaced,
    /// nothing changed.
    /// Changes so far (see [`Accounts::generation`]'s field).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn install(&self, current: &mut Vec<Account>, next: Vec<Account>) -> Result<()> {
        self.generation.fetch_add(1, Ordering::AcqRel);
        let Some(dir) = &self.dir else {
            *self.index.write() = index_of(&next);
            *current = next;
            return Ok(());
        };
        let stored: Vec<Account> = next
            .iter()
            .filter(|a| !is_root(&a.user, &a.host))
            .cloned()
            .collect();
        let path = dir.join(store::FILE_NAME);
        let failed = |e: &std::io::Error, what: &str| {
            Error::new(
                ErrorCode::ErrorOnWrite,
                format!("Error writing file '{}' (errno: {e}){what}", path.display()),
            )
        };
        match store::write(dir, &store::encode(&stored)) {
            Ok(()) => {
                *self.index.write() = index_of(&next);
                *current = next;
                Ok(())
            }
            Err(store::WriteError::NotWritten(e)) => Err(failed(&e, "")),
            Err(store::WriteError::NotDurable(e)) => {
                *self.index.write() = index_of(&next);
                *current = next;
                Err(failed(
                    &e,
                    "; the change is made but may not survive a crash",
                ))
            }
        }
    }
}

/// The stored accounts of `datadir`: `accounts.json`, or a version-1 `accounts.txt` migrated
/// to it, or none. The error is the reason the server must not start.
fn load(datadir: &Path) -> std::result::Result<Vec<Account>, String> {
    let file = datadir.join(store::FILE_NAME);
    let old = datadir.join(legacy::FILE_NAME);
    let cannot = |e: std::io::Error, path: &Path| format!("cannot read {}: {e}", path.display());
    match fs::read(&file) {
        Ok(bytes) => {
            crate::datadir::check_private(&file, "accounts file")?;
            let accounts = store::decode(&bytes)
                .map_err(|e| format!("refusing to start: {}: {e}", file.display()))?;
            if old.exists() {
                // A migration wrote the new file and stopped before removing the old one.
                finish_migration(datadir, &old)?;
            }
            Ok(accounts)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match fs::read(&old) {
            Ok(bytes) => migrate(datadir, &old, &bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(cannot(e, &old)),
        },
        Err(e) => Err(cannot(e, &file)),
    }
}

/// Read a version-1 file strictly, write it as `accounts.json` (durably), then remove it.
fn migrate(datadir: &Path, old: &Path, bytes: &[u8]) -> std::result::Result<Vec<Account>, String> {
    crate::datadir::check_private(old, "accounts file")?;
    let refuse = |why: String| {
        format!(
            "refusing to start: {} (version 1) cannot be migrated unambiguously: {why}. In \
             version 1 a name holding a tab, newline or comma could forge accounts and \
             grants; fix or remove the file (and recreate the accounts) before restarting",
            old.display()
        )
    };
    let text = std::str::from_utf8(bytes).map_err(|e| refuse(e.to_string()))?;
    let accounts = legacy::parse(text).map_err(refuse)?;
    store::write(datadir, &store::encode(&accounts)).map_err(|e| {
        format!(
            "cannot write {}: {}",
            datadir.join(store::FILE_NAME).display(),
            e.io()
        )
    })?;
    for a in &accounts {
        tracing::warn!(
            "accounts: migrated '{}'@'{}' from {} with grants {:?}; review it",
            a.user.escape_debug(),
            a.host.escape_debug(),
            legacy::FILE_NAME,
            a.grants
        );
    }
    finish_migration(datadir, old)?;
    tracing::warn!(
        "accounts: {} migrated to {} ({} accounts; root@% comes from --root-password)",
        old.display(),
        store::FILE_NAME,
        accounts.len()
    );
    Ok(accounts)
}

/// Remove the version-1 file once `accounts.json` is durable (its hashes may be readable by
/// others: it was created with the umask's mode).
fn finish_migration(datadir: &Path, old: &Path) -> std::result::Result<(), String> {
    fs::remove_file(old)
        .and_then(|_| store::sync_dir(datadir))
        .map_err(|e| format!("cannot remove {} after migrating it: {e}", old.display()))
}

/// No account twice, and no `root@%` (it comes from `--root-password` only).
fn check_table(accounts: &[Account]) -> std::result::Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for a in accounts {
        let name = format!("'{}'@'{}'", a.user.escape_debug(), a.host.escape_debug());
        if is_root(&a.user, &a.host) {
            return Err(format!(
                "{name} is stored, but that account comes from --root-password only"
            ));
        }
        if !seen.insert((&a.user, &a.host)) {
            return Err(format!("account {name} is stored twice"));
        }
    }
    Ok(())
}

/// The effective privileges of every account, by user then host.
type Index = HashMap<String, Vec<(String, Arc<Effective>)>>;

fn index_of(accounts: &[Account]) -> Index {
    let mut out: Index = HashMap::new();
    for a in accounts {
        out.entry(a.user.clone())
            .or_default()
            .push((a.host.clone(), Arc::new(Effective::of(&a.grants))));
    }
    out
}

/// `` `name` `` with backquotes doubled, as SHOW GRANTS quotes.
pub fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// 1141 (`*.*`, `db.*`) or 1147 (`db.tbl`): REVOKE of a grant the account does not hold.
pub fn no_such_grant(user: &str, host: &str, target: GrantTarget<'_>) -> Error {
    match target {
        GrantTarget::Table(_, t) => Error::new(
            ErrorCode::NonexistingTableGrant,
            format!(
                "There is no such grant defined for user '{user}' on host '{host}' on table '{t}'"
            ),
        ),
        _ => Error::new(
            ErrorCode::NonexistingGrant,
            format!("There is no such grant defined for user '{user}' on host '{host}'"),
        ),
    }
}

/// What an all-or-nothing `*.*` grant of an older version becomes: everything, with GRANT
/// OPTION (it let its holder manage accounts and grants).
fn legacy_global() -> Grant {
    Grant::Global(Privs::GLOBAL_ALL | Privs::GRANT)
}

fn is_root(user: &str, host: &str) -> bool {
    user == "root" && host == "%"
}

fn root_account(password: &str) -> Account {
    Account {
        user: "root".into(),
        host: "%".into(),
        hash: password_hash(password),
        grants: vec![Grant::Global(Privs::GLOBAL_ALL | Privs::GRANT)],
        require: TransportRequirement::None,
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

fn parse_hash(s: &str) -> Option<[u8; 20]> {
    let hex = s.strip_prefix('*')?;
    if hex.len() != 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
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

    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cohort-acct-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        crate::datadir::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn accounts_persist_and_reload() {
        let dir = scratch("reload");
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

    /// Grants at every level, with GRANT OPTION, survive a restart; a file of the
    /// all-or-nothing version reads as ALL (global: WITH GRANT OPTION).
    #[test]
    fn finer_grants_persist_and_old_files_read() {
        let dir = scratch("finer");
        {
            let a = Accounts::open(&dir, "").unwrap();
            a.create_user("u", "%", "p", false).unwrap();
            let sel = Privs::SELECT | Privs::GRANT;
            a.grant("u", "%", GrantTarget::Database("d"), sel, None)
                .unwrap();
            a.grant("u", "%", GrantTarget::Table("d", "t"), Privs::UPDATE, None)
                .unwrap();
            a.grant("u", "%", GrantTarget::Global, Privs::PROCESS, None)
                .unwrap();
            a.revoke("u", "%", GrantTarget::Table("d", "t"), Privs::UPDATE)
                .unwrap();
            a.grant("u", "%", GrantTarget::Table("d", "t"), Privs::INSERT, None)
                .unwrap();
        }
        let a = Accounts::open(&dir, "").unwrap();
        let e = a.effective("u", "%");
        assert_eq!(e.global, Privs::PROCESS);
        assert_eq!(
            e.db_privs("d"),
            Privs::PROCESS | Privs::SELECT | Privs::GRANT
        );
        assert_eq!(
            e.table_privs("d", "t"),
            Privs::PROCESS | Privs::SELECT | Privs::GRANT | Privs::INSERT
        );
        assert!(e.any_in_db("d") && !e.any_in_db("x"));
        assert_eq!(
            a.show_grants("u", "%").unwrap()[1..],
            [
                "GRANT SELECT ON `d`.* TO `u`@`%` WITH GRANT OPTION",
                "GRANT INSERT ON `d`.`t` TO `u`@`%`"
            ]
        );
        let e = a
            .revoke("u", "%", GrantTarget::Table("d", "x"), Privs::SELECT)
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::NonexistingTableGrant);
        fs::remove_dir_all(&dir).unwrap();

        // Written by the all-or-nothing version (the same checksum rule).
        let dir = scratch("finer-old");
        let hash = hash_text(&password_hash("pw").unwrap());
        let canonical = format!(
            r#"[{{"user":"a","host":"%","password_hash":"{hash}","grants":["global"]}},{{"user":"b","host":"%","password_hash":null,"grants":[{{"database":"shop"}}]}}]"#
        );
        let crc = format!("{:08x}", crc32c::crc32c(canonical.as_bytes()));
        let file = dir.join(store::FILE_NAME);
        fs::write(
            &file,
            format!(
                r#"{{"format":"cohort-accounts","version":2,"crc32c":"{crc}","accounts":{canonical}}}"#
            ),
        )
        .unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        let a = Accounts::open(&dir, "").unwrap();
        assert!(a.is_admin("a", "%"));
        assert!(a.has_global("a", "%", Privs::GRANT));
        assert_eq!(a.effective("b", "%").db_privs("shop"), Privs::DB_ALL);
        assert!(!a.has_global("b", "%", Privs::SELECT));
        // The next change writes the new form, which reads back the same.
        a.create_user("c", "%", "", false).unwrap();
        let text = fs::read_to_string(&file).unwrap();
        assert!(text.contains(r#""GRANT OPTION""#), "{text}");
        let b = Accounts::open(&dir, "").unwrap();
        assert_eq!(b.effective("b", "%").db_privs("shop"), Privs::DB_ALL);
        assert!(b.is_admin("a", "%"));
        fs::remove_dir_all(&dir).unwrap();
    }

    /// The two forgeries of version 1, made through SQL, then a restart.
    #[test]
    fn names_with_separators_forge_nothing_after_a_restart() {
        use crate::session::{ServerContext, SessionState};
        let dir = scratch("forge");
        {
            let ctx = ServerContext::new(
                crate::storage::Engine::new(),
                crate::vars::SystemVariables::new(),
                Accounts::open(&dir, "").unwrap(),
            );
            let mut root = SessionState::new(1, "root", "%", None);
            for sql in [
                r"CREATE USER 'victim\t%\t-\t*\nx' IDENTIFIED BY 'secret'",
                "CREATE DATABASE tenant",
                "CREATE USER tenant IDENTIFIED BY 'pw'",
                "GRANT ALL ON `tenant,*`.* TO tenant",
            ] {
                crate::sql::execute_text(&ctx, &mut root, sql).unwrap();
            }
        }
        let a = Accounts::open(&dir, "").unwrap();
        assert!(
            a.lookup("victim", "127.0.0.1").is_none(),
            "a forged account"
        );
        assert!(a.lookup("x", "127.0.0.1").is_none(), "a forged account");
        let v = a.lookup("victim\t%\t-\t*\nx", "127.0.0.1").unwrap();
        assert_eq!(v.hash, password_hash("secret"));
        assert!(v.grants.is_empty());
        assert!(!a.is_admin("tenant", "%"), "`tenant,*`.* became *.*");
        assert!(!a.can_access_db("tenant", "%", "other"));
        assert!(a.can_access_db("tenant", "%", "tenant,*"));
        assert!(!a.can_access_db("tenant", "%", "tenant"));
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Version 1 could not even start again after this grant (a line of six fields).
    #[test]
    fn a_database_name_with_tab_newline_and_comma_round_trips() {
        let dir = scratch("tabdb");
        let name = "a\tb\nc,d\0\\'\"`";
        {
            let a = Accounts::open(&dir, "").unwrap();
            a.create_user("t", "%", "", false).unwrap();
            a.grant_all("t", "%", Some(name)).unwrap();
        }
        let a = Accounts::open(&dir, "").unwrap();
        assert!(a.can_access_db("t", "%", name));
        assert!(!a.can_access_db("t", "%", "a"));
        assert!(!a.is_admin("t", "%"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_file_is_private_and_a_writable_one_is_refused() {
        let dir = scratch("modes");
        let file = dir.join(store::FILE_NAME);
        // SAFETY: umask(2) only swaps the process file-creation mask.
        let old = unsafe { libc::umask(0) };
        let made = Accounts::open(&dir, "").and_then(|a| a.create_user("u", "%", "p", false));
        // SAFETY: as above.
        unsafe { libc::umask(old) };
        made.unwrap();
        assert_eq!(crate::datadir::mode_of(&file).unwrap(), 0o600);
        for mode in [0o620, 0o602] {
            fs::set_permissions(&file, fs::Permissions::from_mode(mode)).unwrap();
            let e = Accounts::open(&dir, "").err().expect("refused");
            assert!(
                e.message().contains("writable by its group or by others"),
                "{e}"
            );
            assert!(e.message().contains("chmod 600"), "{e}");
        }
        fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
        assert!(
            Accounts::open(&dir, "").is_ok(),
            "readable by the group is not refused"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn starting_writes_nothing() {
        let dir = scratch("nowrite");
        let a = Accounts::open(&dir, "pw").unwrap();
        assert!(
            fs::read_dir(&dir).unwrap().next().is_none(),
            "a first start writes nothing"
        );
        a.create_user("u", "%", "p", false).unwrap();
        let file = dir.join(store::FILE_NAME);
        let before = fs::metadata(&file).unwrap();
        let bytes = fs::read(&file).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        for pw in ["pw", "another root password"] {
            let a = Accounts::open(&dir, pw).unwrap();
            assert!(a.lookup("u", "h").is_some());
            assert_eq!(a.lookup("root", "h").unwrap().hash, password_hash(pw));
        }
        let after = fs::metadata(&file).unwrap();
        assert_eq!(
            (after.ino(), after.mtime_nsec()),
            (before.ino(), before.mtime_nsec())
        );
        assert_eq!(fs::read(&file).unwrap(), bytes);
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [store::FILE_NAME], "no temp file either");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_damaged_file_is_refused_with_the_reason() {
        let dir = scratch("damaged");
        Accounts::open(&dir, "")
            .unwrap()
            .create_user("u", "%", "p", false)
            .unwrap();
        let file = dir.join(store::FILE_NAME);
        let text = fs::read_to_string(&file).unwrap();
        fs::write(&file, text.replace("\"u\"", "\"v\"")).unwrap();
        let e = Accounts::open(&dir, "").err().expect("refused");
        assert!(e.message().contains("checksum mismatch"), "{e}");
        assert!(e.message().contains(store::FILE_NAME), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_version_1_file_is_migrated_once_or_refused() {
        let dir = scratch("migrate");
        let old = dir.join(legacy::FILE_NAME);
        let sb = hash_text(&password_hash("sb").unwrap());
        fs::write(
            &old,
            format!("# cohort accounts v1\nroot\t%\t-\t*\nsb\t%\t{sb}\tsbtest\n"),
        )
        .unwrap();
        let a = Accounts::open(&dir, "").unwrap();
        assert!(a.can_access_db("sb", "%", "sbtest"));
        assert!(!old.exists(), "the version-1 file is removed once migrated");
        assert_eq!(
            crate::datadir::mode_of(&dir.join(store::FILE_NAME)).unwrap(),
            0o600
        );
        let a = Accounts::open(&dir, "").unwrap();
        assert_eq!(a.lookup("sb", "h").unwrap().hash, password_hash("sb"));
        fs::remove_dir_all(&dir).unwrap();

        // Written by version 1 from `GRANT ALL ON `tenant,*`.*`: refused, left in place.
        let dir = scratch("migrate-ambiguous");
        let old = dir.join(legacy::FILE_NAME);
        let forged = format!("# cohort accounts v1\nroot\t%\t-\t*\nt\t%\t{sb}\ttenant,*\n");
        fs::write(&old, &forged).unwrap();
        let e = Accounts::open(&dir, "").err().expect("refused");
        assert!(
            e.message().contains("cannot be migrated unambiguously"),
            "{e}"
        );
        assert!(e.message().contains("line 3"), "{e}");
        assert_eq!(fs::read_to_string(&old).unwrap(), forged);
        assert!(!dir.join(store::FILE_NAME).exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
