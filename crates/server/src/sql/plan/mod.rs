//! Table resolution and access paths.
//!
//! The planner looks at the top-level AND-ed conjuncts of a WHERE clause for predicates that
//! compare a column with a constant (a literal, a `?` parameter, a variable, or an expression
//! of those): `=`, `<=>`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN (list)`, `IS NULL`. For each
//! index (primary first) it counts the leading parts fixed by equality (or IN lists) and
//! whether the next part has a range, and picks the best:
//!
//! * equality on every primary key part → [`Table::get`] (a point read);
//! * an equality prefix and/or a range → `scan_primary` / `scan_index` with a [`KeyRange`]
//!   (one range per combination of IN-list values, in key order);
//! * otherwise a full scan of the primary index.
//!
//! Constants are converted to the column type *exactly* at execution
//! ([`convert::exact_key`]); when that is impossible (a string column compared with a number,
//! `'5abc'` against an integer column…) the statement falls back to a full scan. The whole
//! WHERE is always re-evaluated on every row the access path returns, so the access path only
//! has to return a superset.

mod const_equality;
pub mod estimate;
pub(in crate::sql) mod join;
pub mod read_privs;

use crate::accounts::Privs;
use crate::error::{Error, Result};
use crate::session::state::ServerContext;
use crate::sql::bind::sqltype::Class;
use crate::sql::bind::TableScope;
use crate::sql::env::Env;
use crate::sql::exec::virtual_tables::{self, VirtualTable};
use crate::sql::expr::convert;
use crate::sql::expr::{CmpOp, Expr, RowCtx};
use crate::storage::{
    IndexDef, KeyRange, ReadLock, Row, RowHandle, ScanControl, Table, TableDef, Txn,
};
use crate::types::{DataType, Value};
use cohort_protocol::ErrorCode;
use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::Arc;

/// Databases that exist without being in the engine's catalog.
pub const SYSTEM_SCHEMAS: &[&str] = &["information_schema", "mysql", "performance_schema", "sys"];

pub fn is_system_schema(db: &str) -> bool {
    SYSTEM_SCHEMAS.iter().any(|s| s.eq_ignore_ascii_case(db))
}

/// A table a statement reads or writes, resolved at bind time.
pub struct TableRef {
    pub db: String,
    pub table: Arc<Table>,
    pub def: Arc<TableDef>,
    /// `schema_version()` when the plan was made: a prepared plan re-binds when it moves.
    pub version: u64,
    pub scope: TableScope,
}

impl TableRef {
    pub fn is_stale(&self) -> bool {
        self.table.is_dropped() || self.table.schema_version() != self.version
    }
}

/// The source of a SELECT's rows.
pub enum Source {
    Table(TableRef),
    Virtual(VirtualTable),
    /// A derived table or CTE reference (`exec/query.rs`), materialized when read.
    Derived(Box<crate::sql::exec::query::Derived>),
}

impl Source {
    /// The names its columns are referred to by.
    pub fn scope(&self) -> &TableScope {
        match self {
            Source::Table(t) => &t.scope,
            Source::Virtual(v) => &v.scope,
            Source::Derived(d) => &d.scope,
        }
    }
}

/// Split an object name into (database, table), defaulting the database to the session's.
pub fn split_name(
    name: &sqlparser::ast::ObjectName,
    default_db: Option<&str>,
) -> Result<(String, String)> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|p| match p {
            sqlparser::ast::ObjectNamePart::Identifier(id) => Ok(id.value.clone()),
            _ => Err(Error::unsupported("this table name")),
        })
        .collect::<Result<_>>()?;
    match parts.as_slice() {
        [t] => Ok((default_db.ok_or_else(Error::no_db)?.to_string(), t.clone())),
        [d, t] => Ok((d.clone(), t.clone())),
        _ => Err(Error::parse(&name.to_string(), 1)),
    }
}

/// Check that the session's user may use database `db` (1044 otherwise).
pub fn check_db_access(env: &Env<'_>, db: &str) -> Result<()> {
    if db.eq_ignore_ascii_case("information_schema") {
        return Ok(());
    }
    if env
        .ctx
        .accounts
        .can_access_db(env.sess.user, env.sess.host, db)
    {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::DbAccessDenied,
        format!(
            "Access denied for user '{}'@'{}' to database '{}'",
            env.sess.user, env.sess.host, db
        ),
    ))
}

/// 1142: "`X` command denied to user 'u'@'client' for table `db`.`t`".
pub fn table_denied(what: &str, user: &str, client_host: &str, db: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::TableaccessDenied,
        format!(
            "{what} command denied to user '{user}'@'{client_host}' for table `{db}`.`{table}`"
        ),
    )
}

/// Check that the session's user holds `need` on `db`.`table` (1142 naming the first
/// privilege missing otherwise). information_schema is readable by everyone (its rows are
/// filtered instead).
pub fn check_table_priv(env: &Env<'_>, db: &str, table: &str, need: Privs) -> Result<()> {
    if db.eq_ignore_ascii_case("information_schema") {
        return Ok(());
    }
    let have = env
        .ctx
        .accounts
        .effective(env.sess.user, env.sess.host)
        .table_privs(db, table);
    if have.contains(need) {
        return Ok(());
    }
    Err(table_denied(
        &missing_names(need.without(have)),
        env.sess.user,
        env.sess.client_host,
        db,
        table,
    ))
}

/// The privileges missing, as MariaDB's 1142 names them ("DROP, ALTER").
pub fn missing_names(missing: Privs) -> String {
    let names: Vec<&str> = missing.names(true).collect();
    let s = names.join(", ");
    if s == "GRANT OPTION" {
        return "GRANT".into();
    }
    s
}

/// Check that the session's user holds some privilege on `db`.`table` (SHOW CREATE TABLE,
/// SHOW COLUMNS …): 1142 naming `what` otherwise.
pub fn check_any_table_priv(env: &Env<'_>, db: &str, table: &str, what: &str) -> Result<()> {
    if is_system_schema(db) {
        return check_db_access(env, db);
    }
    let e = env.ctx.accounts.effective(env.sess.user, env.sess.host);
    if e.any_on_table(db, table) {
        return Ok(());
    }
    Err(table_denied(
        what,
        env.sess.user,
        env.sess.client_host,
        db,
        table,
    ))
}

/// Check that the session's user holds `need` on database `db` (1044 otherwise).
pub fn check_db_priv(env: &Env<'_>, db: &str, need: Privs) -> Result<()> {
    let have = env
        .ctx
        .accounts
        .effective(env.sess.user, env.sess.host)
        .db_privs(db);
    if have.contains(need) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::DbAccessDenied,
        format!(
            "Access denied for user '{}'@'{}' to database '{}'",
            env.sess.user, env.sess.host, db
        ),
    ))
}

/// Resolve a table of the catalog (checking SELECT on it), with an optional alias.
pub fn resolve_table(
    env: &Env<'_>,
    db: &str,
    name: &str,
    alias: Option<String>,
) -> Result<TableRef> {
    check_table_priv(env, db, name, Privs::SELECT)?;
    open_table(env, db, name, alias)
}

/// Resolve a table of the catalog, its privileges checked by the caller.
fn open_table(env: &Env<'_>, db: &str, name: &str, alias: Option<String>) -> Result<TableRef> {
    if is_system_schema(db) {
        return Err(Error::unsupported(&format!(
            "tables of {db} (here: {db}.{name})"
        )));
    }
    let table = match env.sess.temp_table(db, name) {
        Some(t) => t.clone(),
        None => env.ctx.engine.table(db, name)?,
    };
    let def = table.def();
    let version = table.schema_version();
    let scope = TableScope::of_def(db, &def, alias);
    Ok(TableRef {
        db: db.to_string(),
        table,
        def,
        version,
        scope,
    })
}

/// Resolve a FROM item: a catalog table, or a virtual table of a system schema.
pub fn resolve_source(
    env: &Env<'_>,
    db: &str,
    name: &str,
    alias: Option<String>,
) -> Result<Source> {
    if is_system_schema(db) {
        if let Some(v) = virtual_tables::resolve(env.ctx, db, name, alias.clone()) {
            check_db_access(env, db)?;
            return Ok(Source::Virtual(v));
        }
    }
    crate::session::table_locks::check_statement(env.ctx, &env.sess, db, name, false)?;
    resolve_table(env, db, name, alias).map(Source::Table)
}

/// Resolve the table an INSERT / UPDATE / DELETE (`command`) writes: virtual tables are
/// read-only (1142).
pub fn resolve_target(
    env: &Env<'_>,
    db: &str,
    name: &str,
    alias: Option<String>,
    command: &str,
) -> Result<TableRef> {
    if is_system_schema(db) {
        check_db_access(env, db)?;
        virtual_tables::refuse_write(env, db, name, command)?;
    }
    // INSERT, UPDATE or DELETE on the table (the statement's reads are checked apart).
    check_table_priv(
        env,
        db,
        name,
        Privs::by_name(command).unwrap_or(Privs::INSERT),
    )?;
    crate::session::table_locks::check_statement(env.ctx, &env.sess, db, name, true)?;
    crate::sql::exec::ddl::view::refuse_view_target(env, db, name, command)?;
    open_table(env, db, name, alias)
}

/// True if the context's engine knows the database (or it is a system schema).
pub fn database_exists(ctx: &ServerContext, db: &str) -> bool {
    is_system_schema(db) || ctx.engine.database_exists(db)
}

// ---------------------------------------------------------------------------------------------
// Access paths

/// A condition on one index part.
#[derive(Clone, Debug)]
pub enum PartCond {
    Eq(Expr),
    In(Vec<Expr>),
    IsNull,
}

/// Bounds on the index part after the equality prefix.
#[derive(Clone, Debug, Default)]
pub struct RangeCond {
    pub lo: Option<(Expr, bool)>,
    pub hi: Option<(Expr, bool)>,
}

/// How to find the candidate rows of a single-table statement.
#[derive(Clone, Debug)]
pub enum Access {
    FullScan,
    /// `index` None = primary key.
    Index {
        index: Option<usize>,
        eq: Vec<PartCond>,
        range: Option<RangeCond>,
    },
}

impl Access {
    /// True if the path is a single-row lookup by the whole primary key (no IN lists).
    #[cfg(test)]
    pub fn is_pk_point(&self, def: &TableDef) -> bool {
        match self {
            Access::Index {
                index: None,
                eq,
                range: None,
            } => {
                def.primary_key
                    .as_ref()
                    .is_some_and(|pk| pk.parts.len() == eq.len())
                    && eq.iter().all(|c| matches!(c, PartCond::Eq(_)))
            }
            _ => false,
        }
    }
}

/// Predicates found on one column.
#[derive(Default, Clone)]
struct ColConds {
    eq: Option<PartCond>,
    range: RangeCond,
}

/// The AND-ed conjuncts of a condition (AND nodes nest only through parentheses, which the
/// binder flattens: the walk is iterative).
pub fn conjuncts(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        match e {
            Expr::And(v) => todo.extend(v.iter().rev()),
            other => out.push(other),
        }
    }
    out
}

/// Could a constant ever be an exact key of a column of type `dt`? (A string column compared
/// with a number never can: `'05' = 5`.) Parameters are checked at execution.
fn usable(dt: &DataType, k: &Expr) -> bool {
    let lit_class = match k {
        Expr::Lit(Value::Bytes(_)) => Some(Class::Str),
        Expr::Lit(Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)) => {
            Some(Class::Int)
        }
        Expr::Lit(Value::Null) => None,
        _ => None,
    };
    let string_col = dt.is_text() || dt.is_binary() || dt.is_enum_or_set();
    !(string_col && lit_class == Some(Class::Int))
}

/// Does the index order of a column agree with the collation a predicate compares with?
/// (A `COLLATE` clause can make a comparison looser than the index.)
fn same_order(dt: &DataType, coll: crate::types::Collation) -> bool {
    !(dt.is_text() || dt.is_enum_or_set())
        || dt.collation() == coll
        || coll == crate::types::Collation::Binary
}

/// What a key may be built from, for one table's access path: `local` maps an expression
/// that is a column of the table to its position in the table; `key_ok` accepts an
/// expression whose value is known before the table is read (a constant, or in a join a
/// column of a table read before), given the target column's type.
pub struct KeySource<'a> {
    pub local: &'a dyn Fn(&Expr) -> Option<usize>,
    pub key_ok: &'a dyn Fn(&Expr, &DataType) -> bool,
}

impl KeySource<'_> {
    fn col(&self, e: &Expr) -> Option<usize> {
        (self.local)(e)
    }
}

fn local_col(e: &Expr) -> Option<usize> {
    match e.zoned_col().unwrap_or(e) {
        Expr::Col(i) => Some(*i),
        _ => None,
    }
}

fn constant_key(k: &Expr, _: &DataType) -> bool {
    k.is_constant()
}

fn collect_conds(def: &TableDef, preds: &[&Expr], src: &KeySource<'_>) -> Vec<ColConds> {
    let mut conds = vec![ColConds::default(); def.columns.len()];
    for &c in preds {
        match c {
            Expr::Cmp(op, a, b, coll) => {
                let key_ok = |i: usize, k: &Expr| (src.key_ok)(k, &def.columns[i].data_type);
                let (col, k, op) = match (src.col(a), src.col(b)) {
                    (Some(i), _) if key_ok(i, b) => (i, b.as_ref(), *op),
                    (_, Some(i)) if key_ok(i, a) => (i, a.as_ref(), op.flip()),
                    _ => continue,
                };
                let dt = &def.columns[col].data_type;
                if !usable(dt, k) || !same_order(dt, *coll) {
                    continue;
                }
                // An ENUM / SET key is in number order, a comparison with a string in text
                // order: only equality can use it.
                if dt.is_enum_or_set() && !matches!(op, CmpOp::Eq | CmpOp::NullSafeEq) {
                    continue;
                }
                let cc = &mut conds[col];
                match op {
                    CmpOp::Eq => {
                        cc.eq.get_or_insert(PartCond::Eq(k.clone()));
                    }
                    CmpOp::NullSafeEq => {
                        if matches!(k, Expr::Lit(Value::Null)) {
                            cc.eq.get_or_insert(PartCond::IsNull);
                        } else {
                            cc.eq.get_or_insert(PartCond::Eq(k.clone()));
                        }
                    }
                    CmpOp::Lt | CmpOp::Le => {
                        cc.range.hi.get_or_insert((k.clone(), op == CmpOp::Le));
                    }
                    CmpOp::Gt | CmpOp::Ge => {
                        cc.range.lo.get_or_insert((k.clone(), op == CmpOp::Ge));
                    }
                    CmpOp::Ne => {}
                }
            }
            Expr::Between {
                e,
                lo,
                hi,
                negated: false,
                coll,
            } => {
                if let Some(i) = src.col(e) {
                    let dt = &def.columns[i].data_type;
                    if same_order(dt, *coll)
                        && !dt.is_enum_or_set()
                        && (src.key_ok)(lo, dt)
                        && (src.key_ok)(hi, dt)
                        && usable(dt, lo)
                        && usable(dt, hi)
                    {
                        let cc = &mut conds[i];
                        cc.range.lo.get_or_insert(((**lo).clone(), true));
                        cc.range.hi.get_or_insert(((**hi).clone(), true));
                    }
                }
            }
            Expr::In {
                e,
                list,
                negated: false,
                coll,
            } => {
                if let Some(i) = src.col(e) {
                    let dt = &def.columns[i].data_type;
                    if same_order(dt, *coll)
                        && list.iter().all(|k| (src.key_ok)(k, dt) && usable(dt, k))
                    {
                        conds[i].eq.get_or_insert(PartCond::In(list.clone()));
                    }
                }
            }
            Expr::IsNull(e, false) => {
                if let Some(i) = src.col(e) {
                    conds[i].eq.get_or_insert(PartCond::IsNull);
                }
            }
            _ => {}
        }
    }
    conds
}

struct Candidate {
    index: Option<usize>,
    eq: Vec<PartCond>,
    range: Option<RangeCond>,
    score: (u32, u32, u32, u32),
}

fn candidate(idx: &IndexDef, index: Option<usize>, conds: &[ColConds]) -> Option<Candidate> {
    let mut eq = Vec::new();
    for part in &idx.parts {
        if part.prefix_len.is_some() {
            break;
        }
        match &conds[part.column].eq {
            Some(c) => eq.push(c.clone()),
            None => break,
        }
    }
    let range = idx
        .parts
        .get(eq.len())
        .filter(|p| p.prefix_len.is_none())
        .map(|p| conds[p.column].range.clone())
        .filter(|r| r.lo.is_some() || r.hi.is_some());
    if eq.is_empty() && range.is_none() {
        return None;
    }
    let full = eq.len() == idx.parts.len();
    let point =
        full && (idx.unique || index.is_none()) && eq.iter().all(|c| matches!(c, PartCond::Eq(_)));
    let no_in = eq.iter().all(|c| !matches!(c, PartCond::In(_))) as u32;
    let score = (
        point as u32,
        eq.len() as u32 * 2 + range.is_some() as u32,
        no_in,
        index.is_none() as u32,
    );
    Some(Candidate {
        index,
        eq,
        range,
        score,
    })
}

/// Choose the access path for a filter on a table.
pub fn choose_access(def: &TableDef, filter: Option<&Expr>) -> Access {
    let Some(filter) = filter else {
        return Access::FullScan;
    };
    let src = KeySource {
        local: &local_col,
        key_ok: &constant_key,
    };
    choose_access_for(def, &conjuncts(filter), &src)
}

/// Choose the access path of a table from predicates (AND-ed), keys taken from `src`.
pub fn choose_access_for(def: &TableDef, preds: &[&Expr], src: &KeySource<'_>) -> Access {
    let conds = collect_conds(def, preds, src);
    let mut best: Option<Candidate> = None;
    let pk = def.primary_key.as_ref().map(|pk| (pk, None));
    let secondaries = def
        .indexes
        .iter()
        .enumerate()
        .map(|(i, idx)| (idx, Some(i)));
    for (idx, index) in pk.into_iter().chain(secondaries) {
        if let Some(c) = candidate(idx, index, &conds) {
            if best.as_ref().is_none_or(|b| c.score > b.score) {
                best = Some(c);
            }
        }
    }
    match best {
        Some(c) => Access::Index {
            index: c.index,
            eq: c.eq,
            range: c.range,
        },
        None => Access::FullScan,
    }
}

/// The index definition an access path uses.
pub fn index_def(def: &TableDef, index: Option<usize>) -> Option<&IndexDef> {
    match index {
        None => def.primary_key.as_ref(),
        Some(i) => def.indexes.get(i),
    }
}

// ---------------------------------------------------------------------------------------------
// Executing an access path

/// The evaluated key ranges of an access path; `Full` = every row of the path's index, in its
/// order (a key value that does not convert exactly falls back to it).
enum Ranges {
    Full,
    Empty,
    /// Point reads by the whole primary key.
    Points(Vec<Vec<Value>>),
    Scans(Vec<KeyRange>),
}

/// Evaluate one constant and convert it exactly to column type `dt`.
/// Ok(None): the value is NULL (matches nothing). Err(()): not convertible exactly.
fn key_value(
    e: &Expr,
    dt: &DataType,
    env: &Env<'_>,
    outer: &[Value],
) -> Result<std::result::Result<Option<Value>, ()>> {
    let v = e.eval(&RowCtx::of(outer), env)?;
    if v.is_null() {
        return Ok(Ok(None));
    }
    let key = convert::exact_key(&v, dt);
    // A TIMESTAMP column read in the session's zone: its key, as stored, is UTC. (The zone
    // is looked up only then: it reads the `time_zone` variable and parses it.)
    if let (DataType::Timestamp { .. }, Some(Value::DateTime(local))) = (dt, &key) {
        if let Some(z) = env.zone() {
            return Ok(Ok(Some(Value::DateTime(z.to_utc(local)))));
        }
    }
    Ok(key.map(Some).ok_or(()))
}

/// The common case of a point read by the whole primary key with plain equalities:
/// no intermediate prefix vectors. None if some part is not a plain equality.
fn eval_pk_point(
    def: &TableDef,
    idx: &IndexDef,
    eq: &[PartCond],
    env: &Env<'_>,
    outer: &[Value],
) -> Result<Option<Ranges>> {
    let mut key = Vec::with_capacity(eq.len());
    for (cond, part) in eq.iter().zip(&idx.parts) {
        let PartCond::Eq(e) = cond else {
            return Ok(None);
        };
        match key_value(e, &def.columns[part.column].data_type, env, outer)? {
            Ok(Some(v)) => key.push(v),
            Ok(None) => return Ok(Some(Ranges::Empty)),
            Err(()) => return Ok(Some(Ranges::Full)),
        }
    }
    Ok(Some(Ranges::Points(vec![key])))
}

fn eval_ranges(def: &TableDef, access: &Access, env: &Env<'_>, outer: &[Value]) -> Result<Ranges> {
    let Access::Index { index, eq, range } = access else {
        return Ok(Ranges::Full);
    };
    let Some(idx) = index_def(def, *index) else {
        return Ok(Ranges::Full);
    };
    if index.is_none() && range.is_none() && eq.len() == idx.parts.len() {
        if let Some(r) = eval_pk_point(def, idx, eq, env, outer)? {
            return Ok(r);
        }
    }
    let mut prefixes: Vec<Vec<Value>> = vec![Vec::new()];
    for (pos, cond) in eq.iter().enumerate() {
        let dt = &def.columns[idx.parts[pos].column].data_type;
        let coll = dt.collation();
        let mut vals = Vec::new();
        match cond {
            PartCond::IsNull => vals.push(Value::Null),
            PartCond::Eq(e) => match key_value(e, dt, env, outer)? {
                Ok(Some(v)) => vals.push(v),
                Ok(None) => {}
                Err(()) => return Ok(Ranges::Full),
            },
            PartCond::In(list) => {
                for e in list {
                    match key_value(e, dt, env, outer)? {
                        Ok(Some(v)) => vals.push(v),
                        Ok(None) => {}
                        Err(()) => return Ok(Ranges::Full),
                    }
                }
                vals.sort_by(|a, b| crate::sql::expr::compare::sort_cmp(a, b, coll));
                vals.dedup_by(|a, b| {
                    crate::sql::expr::compare::sort_cmp(a, b, coll) == Ordering::Equal
                });
            }
        }
        if vals.is_empty() {
            return Ok(Ranges::Empty);
        }
        if prefixes.len() * vals.len() > 10_000 {
            return Ok(Ranges::Full);
        }
        prefixes = prefixes
            .into_iter()
            .flat_map(|p| {
                vals.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(v.clone());
                    q
                })
            })
            .collect();
    }
    let full_pk = index.is_none() && eq.len() == idx.parts.len() && range.is_none();
    if full_pk && !eq.iter().any(|c| matches!(c, PartCond::IsNull)) {
        return Ok(Ranges::Points(prefixes));
    }
    let (lo, hi) = match range {
        None => (None, None),
        Some(r) => {
            let dt = &def.columns[idx.parts[eq.len()].column].data_type;
            let bound = |b: &Option<(Expr, bool)>| -> Result<std::result::Result<Option<(Value, bool)>, bool>> {
                match b {
                    None => Ok(Ok(None)),
                    Some((e, incl)) => match key_value(e, dt, env, outer)? {
                        Ok(Some(v)) => Ok(Ok(Some((v, *incl)))),
                        Ok(None) => Ok(Err(true)),
                        Err(()) => Ok(Err(false)),
                    },
                }
            };
            let lo = match bound(&r.lo)? {
                Ok(v) => v,
                Err(true) => return Ok(Ranges::Empty),
                Err(false) => return Ok(Ranges::Full),
            };
            let hi = match bound(&r.hi)? {
                Ok(v) => v,
                Err(true) => return Ok(Ranges::Empty),
                Err(false) => return Ok(Ranges::Full),
            };
            (lo, hi)
        }
    };
    let ranges = prefixes
        .into_iter()
        .map(|p| {
            let start = match &lo {
                None if p.is_empty() => Bound::Unbounded,
                None => Bound::Included(p.clone()),
                Some((v, incl)) => {
                    let mut k = p.clone();
                    k.push(v.clone());
                    if *incl {
                        Bound::Included(k)
                    } else {
                        Bound::Excluded(k)
                    }
                }
            };
            let end = match &hi {
                None if p.is_empty() => Bound::Unbounded,
                None => Bound::Included(p.clone()),
                Some((v, incl)) => {
                    let mut k = p;
                    k.push(v.clone());
                    if *incl {
                        Bound::Included(k)
                    } else {
                        Bound::Excluded(k)
                    }
                }
            };
            KeyRange { start, end }
        })
        .collect();
    Ok(Ranges::Scans(ranges))
}

/// Call `f` for every row the access path finds that `filter` accepts, in index order; `f`
/// returns Stop to end early. `backward` scans in descending order. `filter` is the WHERE
/// clause: the storage evaluates it on the version it reads (for a locking read, the latest
/// one, after any lock wait), and in READ COMMITTED does not keep rows it rejects locked.
#[allow(clippy::too_many_arguments)]
pub fn scan(
    table: &Table,
    access: &Access,
    txn: &mut Txn,
    env: &Env<'_>,
    lock: ReadLock,
    backward: bool,
    filter: &mut dyn FnMut(&Row) -> Result<bool>,
    f: &mut dyn FnMut(&RowHandle, &Row) -> Result<ScanControl>,
) -> Result<()> {
    scan_at(table, access, txn, env, lock, backward, &[], filter, f)
}

/// [`scan`] with the keys of the access path evaluated on `outer` (in a join: the row of the
/// tables read before this one).
#[allow(clippy::too_many_arguments)]
pub fn scan_at(
    table: &Table,
    access: &Access,
    txn: &mut Txn,
    env: &Env<'_>,
    lock: ReadLock,
    backward: bool,
    outer: &[Value],
    filter: &mut dyn FnMut(&Row) -> Result<bool>,
    f: &mut dyn FnMut(&RowHandle, &Row) -> Result<ScanControl>,
) -> Result<()> {
    // A lone read (`Txn::set_lone_read`) stays one only if it is a single point read.
    let lone = txn.take_lone_read();
    let def = table.def();
    let index = match access {
        Access::Index { index, .. } => *index,
        Access::FullScan => None,
    };
    let stopped = std::cell::Cell::new(false);
    let mut g = |h: &RowHandle, r: &Row| -> Result<ScanControl> {
        // One row operation: one admission ticket (no table lock is held here).
        crate::sched::admission::spend_ticket();
        let c = f(h, r)?;
        if c == ScanControl::Stop {
            stopped.set(true);
        }
        Ok(c)
    };
    match eval_ranges(&def, access, env, outer)? {
        Ranges::Empty => Ok(()),
        // Every row, still in the order of the access path's index: ORDER BY and GROUP BY may
        // rely on it (`exec/scan_order.rs`), also when a key value did not convert exactly.
        Ranges::Full => table.scan(txn, index, &KeyRange::all(), backward, lock, filter, &mut g),
        Ranges::Points(mut keys) => {
            if backward {
                keys.reverse();
            }
            if lone && keys.len() == 1 {
                txn.set_lone_read();
            }
            for k in keys {
                // The point-select / point-update path: one lookup, no range set-up.
                if let Some((h, r)) = table.get_filtered(txn, &k, lock, filter)? {
                    if g(&h, &r)? == ScanControl::Stop {
                        break;
                    }
                }
            }
            Ok(())
        }
        Ranges::Scans(mut ranges) => {
            if backward {
                ranges.reverse();
            }
            for range in ranges {
                table.scan(txn, index, &range, backward, lock, filter, &mut g)?;
                if stopped.get() {
                    break;
                }
            }
            Ok(())
        }
    }
}
