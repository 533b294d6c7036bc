//! The text statement cache: a repeated COM_QUERY skips parsing and binding.
//!
//! Applications and benchmarks that talk the text protocol send the same few statements with
//! different literals. Each connection keeps the plans of its recent statements, keyed by the
//! current database and the statement's *normalized* text ([`normalize`]): the literals whose
//! value cannot change the statement's shape become `?` parameters, exactly as a client would
//! write them for COM_STMT_PREPARE. A statement is then
//!
//! 1. normalized (one pass over its bytes, no tokenizer);
//! 2. looked up: a hit whose tables have not changed (schema version, dropped: the prepared
//!    statements' test, [`super::Plan::is_stale`]) and whose bind-time access check still
//!    holds (the accounts' generation, [`crate::accounts::Accounts::generation`]) runs its plan
//!    with the literals' values as parameters — typed as the binder types those literals — so
//!    a point lookup still takes its key from the value;
//! 3. on a miss, the normalized text is prepared (parse, bind, plan) and kept, then run the
//!    same way. If it cannot be prepared (an error, or a statement without a plan) the
//!    statement runs uncached, as if the cache did not exist, and reports its own error.
//!
//! What runs is the same plan a prepared statement with those parameters would run, and the
//! normalizer makes parameters only of literals in places where MySQL's own prepared
//! statements give the same result as the literal (see [`normalize`] for the rules and what
//! is never cached). The statement's own text still names it everywhere (INNODB_TRX,
//! Annotate_rows).
//!
//! # Bounds
//!
//! At most [`STMT_CACHE_ENTRIES`] entries a connection, least recently used dropped first;
//! each is counted in the session's memory (`SessionMemory::stmt_cache`) for what preparing
//! it kept, measured as prepared statements are, and an entry that would take the session past
//! `max_session_mem_used` is dropped instead of kept. Statements longer than
//! [`normalize::MAX_TEXT`] bytes are not cached.

pub mod normalize;

use super::{bind, execute_plan, finish, parse, start_statement, Plan, QueryResult};
use crate::error::Result;
use crate::session::memory::ENTRY_OVERHEAD;
use crate::session::state::{ServerContext, SessionState};
use crate::types::Value;
use normalize::{LiteralKind, Normalized};
use std::collections::HashMap;
use std::sync::Arc;

/// Entries one connection keeps.
pub const STMT_CACHE_ENTRIES: usize = 64;

/// One connection's cache. Owned by its session: no lock.
pub struct StmtCache {
    /// By the parse-affecting `sql_mode` bits (one character), the current database, `\0`,
    /// and the normalized text: the same text is another statement under ANSI_QUOTES.
    entries: HashMap<Box<str>, Entry>,
    /// Incremented at each use: an entry's `used` orders eviction.
    clock: u64,
    enabled: bool,
    /// Statements served from an entry (tests and diagnostics).
    hits: u64,
}

impl Default for StmtCache {
    fn default() -> Self {
        StmtCache {
            entries: HashMap::new(),
            clock: 0,
            enabled: true,
            hits: 0,
        }
    }
}

struct Entry {
    plan: Arc<Plan>,
    /// The accounts' generation before the plan was bound (access was checked then).
    accounts: u64,
    /// Whether it reads TIMESTAMP columns in a zone other than SYSTEM (None: it binds none).
    zone: Option<bool>,
    /// Whether `sql_mode` had ONLY_FULL_GROUP_BY when its grouping was checked (None: it
    /// groups nothing).
    full_group_by: Option<bool>,
    /// Bytes counted in `SessionMemory::stmt_cache`.
    cost: u64,
    used: u64,
}

impl StmtCache {
    /// Turn the cache on or off (off: every statement is parsed and bound; entries dropped).
    pub fn set_enabled(&mut self, on: bool, memory: &mut crate::session::memory::SessionMemory) {
        self.enabled = on;
        if !on {
            self.entries.clear();
            memory.stmt_cache = 0;
        }
    }

    pub fn hits(&self) -> u64 {
        self.hits
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A usable plan for `key`; a stale entry is dropped.
    fn get(
        &mut self,
        key: &str,
        accounts: u64,
        memory: &mut crate::session::memory::SessionMemory,
        zoned: &dyn Fn() -> bool,
        full_group_by: &dyn Fn() -> bool,
    ) -> Option<Arc<Plan>> {
        let e = self.entries.get_mut(key)?;
        if e.accounts == accounts
            && !e.plan.is_stale()
            && e.zone.is_none_or(|z| z == zoned())
            && e.full_group_by.is_none_or(|m| m == full_group_by())
        {
            self.clock += 1;
            e.used = self.clock;
            self.hits += 1;
            return Some(e.plan.clone());
        }
        let e = self.entries.remove(key).expect("present");
        memory.stmt_cache = memory.stmt_cache.saturating_sub(e.cost);
        None
    }

    /// Keep `plan` under `key`, dropping the least recently used entries to stay within
    /// [`STMT_CACHE_ENTRIES`] and the session's memory `limit`; not kept if it alone would
    /// pass the limit.
    fn insert(
        &mut self,
        key: String,
        entry: Entry,
        memory: &mut crate::session::memory::SessionMemory,
        limit: u64,
    ) {
        while !self.entries.is_empty()
            && (self.entries.len() >= STMT_CACHE_ENTRIES || memory.held() + entry.cost > limit)
        {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
                .expect("not empty");
            let e = self.entries.remove(&oldest).expect("present");
            memory.stmt_cache = memory.stmt_cache.saturating_sub(e.cost);
        }
        if memory.held() + entry.cost > limit {
            return;
        }
        memory.stmt_cache += entry.cost;
        self.clock += 1;
        let entry = Entry {
            used: self.clock,
            ..entry
        };
        if let Some(old) = self.entries.insert(key.into_boxed_str(), entry) {
            memory.stmt_cache = memory.stmt_cache.saturating_sub(old.cost);
        }
    }
}

/// Run `sql` through the cache; None if it is not cacheable or could not be prepared (the
/// caller then runs it uncached).
pub(super) fn execute(
    ctx: &ServerContext,
    sess: &mut SessionState,
    sql: &str,
    mode: crate::sql::sql_mode::ParseMode,
) -> Option<Result<QueryResult>> {
    if !sess.stmt_cache.enabled || !sess.temp_tables.is_empty() {
        // A cached plan may name a base table a TEMPORARY table now shadows.
        return None;
    }
    if sess.charsets.literal != crate::types::Collation::Utf8mb4GeneralCi {
        // Its literals would be parameters, typed without the connection's collation
        // (`? = ?` compares as utf8mb4_general_ci): entries are made and used only under
        // the default collation_connection, so none is ever used under another.
        return None;
    }
    let db = sess.db.as_deref().unwrap_or("");
    let n = normalize::normalize(sql, db, mode)?;
    let params = values(sql, &n)?;
    let accounts = ctx.accounts.generation();
    let vars = &sess.session_vars;
    let zoned = || super::time_zone::session_zoned(ctx, vars);
    let mode_upper = &sess.sql_mode_upper;
    let full_group_by = || {
        // The session's upper-case copy when current (`SessionState::sql_mode_upper`).
        if let Some((g, m)) = mode_upper {
            if *g == ctx.vars.generation() {
                return m.contains("ONLY_FULL_GROUP_BY");
            }
        }
        let v = vars
            .get("sql_mode")
            .cloned()
            .or_else(|| ctx.vars.global("sql_mode"))
            .unwrap_or(Value::Null);
        let text = super::expr::convert::to_string(&v).to_ascii_uppercase();
        text.contains("ONLY_FULL_GROUP_BY")
    };
    let plan = match sess
        .stmt_cache
        .get(&n.key, accounts, &mut sess.memory, &zoned, &full_group_by)
    {
        Some(plan) => plan,
        None => prepare(ctx, sess, n.key, params.len(), accounts, mode)?,
    };
    let prev = start_statement(ctx, sess, false, sql);
    let r = execute_plan(ctx, sess, &plan, &params, prev);
    Some(finish(sess, r))
}

/// Parse and bind the normalized text (after the `db\0` prefix of `key`) and keep its plan.
fn prepare(
    ctx: &ServerContext,
    sess: &mut SessionState,
    key: String,
    params: usize,
    accounts: u64,
    mode: crate::sql::sql_mode::ParseMode,
) -> Option<Arc<Plan>> {
    let start = crate::memory::thread_net();
    let text = &key[key.find('\0')? + 1..];
    let parsed = parse::parse_in(text, mode).ok()?;
    if parsed.params.len() != params {
        return None;
    }
    let (plan, zone, full_group_by) =
        super::bind_plan_zoned(ctx, sess, &parsed, sess.warnings.len()).ok()??;
    let plan = Arc::new(plan);
    drop(parsed);
    let cost = crate::memory::kept_since(start) + key.len() as u64 + ENTRY_OVERHEAD;
    let limit = sess.mem_limit(ctx);
    let entry = Entry {
        plan: plan.clone(),
        accounts,
        zone,
        full_group_by,
        cost,
        used: 0,
    };
    sess.stmt_cache.insert(key, entry, &mut sess.memory, limit);
    Some(plan)
}

/// The parameters' values: each literal as the binder types it.
fn values(sql: &str, n: &Normalized) -> Option<Vec<Value>> {
    n.literals
        .iter()
        .map(|l| {
            let text = &sql[l.start..l.end];
            match l.kind {
                LiteralKind::Str => Some(Value::str(&text[1..text.len() - 1])),
                LiteralKind::Number => match text.strip_prefix('-') {
                    Some(digits) => {
                        bind::negate_literal(&bind::number_literal(digits).ok()?.0).ok()
                    }
                    None => Some(bind::number_literal(text).ok()?.0),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
