//! SELECT: binding into a [`SelectPlan`] and executing it.
//!
//! Execution: rows come from the access path (or the virtual table, or one empty row without
//! FROM), WHERE filters them, then either the output expressions are computed per row, or
//! rows are grouped (GROUP BY / aggregates) and the outputs computed per group with HAVING.
//! DISTINCT, ORDER BY (NULLs first ascending), OFFSET and LIMIT follow. When nothing needs
//! the whole result (no grouping, DISTINCT or sort), the scan stops as soon as LIMIT is
//! reached; an ORDER BY that the index order already satisfies skips the sort.
//!
//! Supported: one table (or none), `*` / `t.*`, aliases, WHERE, GROUP BY (expressions,
//! aliases, positions), HAVING, aggregates COUNT / SUM / AVG / MIN / MAX / GROUP_CONCAT /
//! BIT_*, with DISTINCT, ORDER BY (columns, aliases, positions, expressions), LIMIT / OFFSET,
//! FOR UPDATE / LOCK IN SHARE MODE / FOR SHARE with NOWAIT or SKIP LOCKED. Joins (FROM with
//! several tables: planned in `plan/join.rs`, run by `exec/join.rs`, which hand their joined
//! rows to the same grouping / DISTINCT / ORDER BY / LIMIT steps). `GROUP BY … WITH ROLLUP`
//! (`exec/rollup.rs`); window functions (`bind/window.rs`, `exec/window.rs`), computed after
//! grouping and HAVING, before DISTINCT / ORDER BY / LIMIT. A derived table or CTE reference
//! is a [`Source::Derived`] (`exec/cte.rs`), materialized when read; set operations and WITH
//! are `exec/query.rs`. Subqueries in expressions (a plan with any runs through
//! `exec/subquery.rs`). `FOR UPDATE OF` is 1235.
//!
//! A plain SELECT is a consistent read of the transaction's read view; a locking one reads
//! through the storage's locking read with the WHERE clause as its filter, so the clause is
//! evaluated on the latest version of each row after any lock wait, and rows it rejects are
//! not kept locked in READ COMMITTED (see `storage/read.rs`).

use crate::error::{Error, Result};
use crate::sql::bind::coldef::{self, ColumnOrigin};
use crate::sql::bind::join_scope::JoinScope;
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::bind::window::WindowCtx;
use crate::sql::bind::{comparison_collation, AggFunc, AggSpec, Binder, TableScope};
use crate::sql::env::Env;
use crate::sql::exec::join::{self as join_exec, Flow};
use crate::sql::exec::query;
use crate::sql::exec::window::WindowPlan;
use crate::sql::expr::compare;
use crate::sql::expr::convert::{self, Num};
use crate::sql::expr::subquery::{Host, Subquery};
use crate::sql::expr::{coerce, Expr, RowCtx, DIV_PRECISION_INCREMENT};
use crate::sql::plan::join::{Builder as JoinBuilder, JoinPlan, JoinTable};
use crate::sql::plan::{self, Access, Source};
use crate::storage::{LockMode, ReadLock, ScanControl, Txn, WaitPolicy};
use crate::types::{Collation, Decimal, Value};
use cohort_protocol::column::ColumnDefinition;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use sqlparser::tokenizer::Location;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// One visible output column.
#[derive(Clone, Debug)]
pub struct OutItem {
    pub expr: Expr,
    pub ty: SqlType,
    /// Convert the value to this class (expressions whose value type can vary).
    pub coerce: Option<Class>,
    /// Collation for DISTINCT.
    pub coll: Collation,
}

#[derive(Clone, Debug)]
pub struct GroupPlan {
    pub keys: Vec<(Expr, Collation)>,
    pub aggs: Vec<AggSpec>,
    pub having: Option<Expr>,
    /// `WITH ROLLUP`: super-aggregate rows too (`exec/rollup.rs`).
    pub rollup: bool,
    /// The scan returns the rows of each group one after another, in group order
    /// (`exec/scan_order.rs`): a group ends when the key changes, and no sort follows.
    pub in_scan_order: bool,
}

#[derive(Clone, Debug)]
pub struct SortKey {
    /// Position in the extended output row (visible items, then hidden sort expressions).
    pub col: usize,
    pub desc: bool,
    pub coll: Collation,
}

/// A bound SELECT.
pub struct SelectPlan {
    pub source: Option<Source>,
    /// A FROM clause with joins (then `source` is None and the join applies WHERE).
    pub join: Option<Box<JoinPlan>>,
    pub filter: Option<Expr>,
    pub access: Access,
    pub lock: ReadLock,
    pub items: Vec<OutItem>,
    pub hidden: Vec<Expr>,
    pub columns: Vec<ColumnDefinition>,
    pub group: Option<GroupPlan>,
    pub distinct: bool,
    pub order: Vec<SortKey>,
    /// The scan returns rows in ORDER BY order (no sort needed).
    pub sorted_by_scan: bool,
    pub backward: bool,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    /// SELECT SQL_CALC_FOUND_ROWS: its LIMIT, applied once the rows are counted (`limit` and
    /// `offset` are None then; see `exec/found_rows.rs`).
    pub counted: Option<Box<super::found_rows::CountedLimit>>,
    /// Window functions (`exec/window.rs`), computed after grouping, before DISTINCT.
    pub window: Option<Box<WindowPlan>>,
    /// The subqueries in its expressions (their rows are evaluated after the read: see
    /// `exec/subquery.rs`); empty for most queries.
    pub subqueries: Vec<Arc<Subquery>>,
    /// Is some conjunct of WHERE / HAVING constant? Worked out at the first execution (the
    /// plan no longer changes then): only such a query can be found empty without reading
    /// ([`impossible_condition`]), so the others skip the walk over their conditions.
    pub constant_conjunct: std::sync::OnceLock<bool>,
}

impl SelectPlan {
    /// The SELECT has a LIMIT of its own (`sql_select_limit` does not apply).
    pub fn has_limit(&self) -> bool {
        self.limit.is_some() || self.counted.as_ref().is_some_and(|c| c.limit.is_some())
    }

    pub fn is_stale(&self) -> bool {
        let source = match &self.source {
            Some(Source::Table(t)) => t.is_stale(),
            Some(Source::Derived(d)) => d.is_stale(),
            _ => false,
        };
        source
            || self.join.as_ref().is_some_and(|j| j.is_stale())
            || self.subqueries.iter().any(|s| s.plan.is_stale())
    }

    /// Does it read engine tables (and so need a transaction)?
    pub fn uses_engine(&self) -> bool {
        self.table().is_some()
            || self.join.is_some()
            || matches!(self.source, Some(Source::Derived(_)))
            || self.subqueries.iter().any(|s| s.plan.uses_engine())
    }

    /// The databases of the engine tables it reads.
    pub fn databases(&self) -> Vec<&str> {
        self.table_refs()
            .into_iter()
            .map(|t| t.db.as_str())
            .collect()
    }

    /// The engine tables it reads, its subqueries' included.
    pub fn table_refs(&self) -> Vec<&plan::TableRef> {
        let mut refs: Vec<&plan::TableRef> = match (&self.join, self.table()) {
            (Some(j), _) => j.tables.iter().flat_map(|t| t.table_refs()).collect(),
            (None, Some(t)) => vec![t],
            (None, None) => match &self.source {
                Some(Source::Derived(d)) => d.table_refs(),
                _ => Vec::new(),
            },
        };
        for s in &self.subqueries {
            refs.extend(s.plan.table_refs());
        }
        refs
    }

    /// Is its only storage read one access path of one base table (no join, no subquery, no
    /// derived table)?
    pub fn reads_one_table(&self) -> bool {
        self.join.is_none()
            && self.subqueries.is_empty()
            && matches!(self.source, Some(Source::Table(_)))
    }

    pub fn table(&self) -> Option<&plan::TableRef> {
        match &self.source {
            Some(Source::Table(t)) => Some(t),
            _ => None,
        }
    }
}

fn unsupported(what: &str) -> Error {
    Error::unsupported(what)
}

/// The lock a SELECT asks for: `FOR UPDATE`, `FOR SHARE` (MySQL 8's spelling of `LOCK IN SHARE
/// MODE`, which the parser strips as `share_lock`), each with `NOWAIT` or `SKIP LOCKED`.
fn lock_clause(q: &ast::Query, share_lock: Option<WaitPolicy>) -> Result<ReadLock> {
    let wait = |nb: &Option<ast::NonBlock>| match nb {
        None => WaitPolicy::Wait,
        Some(ast::NonBlock::Nowait) => WaitPolicy::NoWait,
        Some(ast::NonBlock::SkipLocked) => WaitPolicy::SkipLocked,
    };
    match (q.locks.as_slice(), share_lock) {
        ([], None) => Ok(ReadLock::NONE),
        ([], Some(w)) => Ok(ReadLock::new(LockMode::Shared, w)),
        ([c], None) => {
            if c.of.is_some() {
                return Err(unsupported("FOR UPDATE OF"));
            }
            let mode = match c.lock_type {
                ast::LockType::Update => LockMode::Exclusive,
                ast::LockType::Share => LockMode::Shared,
            };
            Ok(ReadLock::new(mode, wait(&c.nonblock)))
        }
        _ => Err(unsupported("several locking clauses")),
    }
}

/// Reject the parts of a query this server does not run, and return its SELECT.
pub fn simple_select(q: &ast::Query) -> Result<&ast::Select> {
    if q.with.is_some() {
        return Err(unsupported("WITH (common table expressions)"));
    }
    if q.fetch.is_some() || q.for_clause.is_some() {
        return Err(unsupported("FETCH / FOR XML"));
    }
    match q.body.as_ref() {
        ast::SetExpr::Select(s) => Ok(s),
        ast::SetExpr::SetOperation { .. } => Err(unsupported("UNION / INTERSECT / EXCEPT")),
        ast::SetExpr::Query(_) => Err(unsupported("parenthesized queries")),
        ast::SetExpr::Values(_) => Err(unsupported("VALUES as a query")),
        _ => Err(unsupported("this query form")),
    }
}

/// The single table of a FROM clause: (name, alias); None without FROM.
pub fn single_table(
    from: &[ast::TableWithJoins],
) -> Result<Option<(&ast::ObjectName, Option<String>)>> {
    match from {
        [] => Ok(None),
        [twj] => {
            if !twj.joins.is_empty() {
                return Err(unsupported("joins"));
            }
            match &twj.relation {
                ast::TableFactor::Table {
                    name, alias, args, ..
                } => {
                    if args.is_some() {
                        return Err(unsupported("table functions"));
                    }
                    if name.0.len() == 1 && name.to_string().eq_ignore_ascii_case("dual") {
                        return Ok(None);
                    }
                    Ok(Some((name, alias.as_ref().map(|a| a.name.value.clone()))))
                }
                ast::TableFactor::Derived { .. } => Err(unsupported("subqueries in FROM")),
                _ => Err(unsupported("this FROM clause")),
            }
        }
        _ => Err(unsupported("joins")),
    }
}

/// Does a FROM clause join tables (several items, a JOIN, or a parenthesized join)?
pub fn is_join(from: &[ast::TableWithJoins]) -> bool {
    match from {
        [] => false,
        [twj] => {
            !twj.joins.is_empty() || matches!(twj.relation, ast::TableFactor::NestedJoin { .. })
        }
        _ => true,
    }
}

/// The tables of a join, for binding names and describing columns.
#[derive(Clone, Copy)]
pub struct JoinNames<'a> {
    pub scope: &'a JoinScope,
    pub tables: &'a [JoinTable],
}

/// The subqueries bound since `mark` (those of the query being planned: a nested query
/// claimed its own).
fn claim_subqueries(env: &Env<'_>, mark: usize) -> Vec<Arc<Subquery>> {
    let mut bound = env.subq.bound.borrow_mut();
    if bound.len() <= mark {
        return Vec::new();
    }
    bound.split_off(mark)
}

/// Bind a SELECT statement.
pub fn plan_select(
    env: &Env<'_>,
    params: &[Location],
    q: &ast::Query,
    item_texts: &[String],
    share_lock: Option<WaitPolicy>,
) -> Result<SelectPlan> {
    let s = simple_select(q)?;
    let subq_mark = env.subq.bound.borrow().len();
    if s.into.is_some() {
        return Err(unsupported("SELECT … INTO"));
    }
    if matches!(s.distinct, Some(ast::Distinct::On(_))) {
        return Err(unsupported("DISTINCT ON"));
    }
    if s.qualify.is_some() {
        return Err(unsupported("QUALIFY"));
    }
    let joined = is_join(&s.from);
    let outer_text = query::outer_text(q, s);
    let mut derived = match (joined, s.from.first()) {
        (false, Some(twj)) => query::derived_factor(env, params, &twj.relation)?,
        _ => None,
    };
    if let (Some(d), Some(text)) = (&mut derived, &outer_text) {
        query::prune_unread(d, text);
    }
    let source = match joined {
        true => None,
        false if derived.is_some() => derived.map(|d| Source::Derived(Box::new(d))),
        false => match single_table(&s.from)? {
            None => None,
            Some((name, alias)) => {
                let (db, t) = plan::split_name(name, env.sess.db)?;
                Some(plan::resolve_source(env, &db, &t, alias)?)
            }
        },
    };
    let mut bind_on = |sc: &JoinScope, e: &ast::Expr| -> Result<Expr> {
        let mut b = Binder::new(env, params, None);
        b.join = Some(sc);
        b.clause = "on clause";
        b.bind_condition(e)
    };
    let mut builder = JoinBuilder::new(
        env,
        &mut bind_on,
        s.select_modifiers.as_ref().is_some_and(|m| m.straight_join),
    );
    builder.params = params;
    builder.outer_text = outer_text;
    let join_scope: JoinScope = match joined {
        true => {
            builder.from(&s.from)?;
            builder.scope.clone()
        }
        false => JoinScope::default(),
    };
    let names = joined.then_some(JoinNames {
        scope: &join_scope,
        tables: builder.tables(),
    });
    let scope: Option<&TableScope> = source.as_ref().map(|s| s.scope());
    let mut b = Binder::new(env, params, scope);
    b.join = names.map(|n| n.scope);
    b.aggs = Some(Vec::new());
    b.windows = Some(WindowCtx::new(&s.named_window, &s.projection));

    let (items, columns, aliases) = bind_items(&mut b, &s.projection, item_texts, &source, names)?;

    b.clause = "where clause";
    let aggs = b.aggs.take();
    let windows = b.windows.take();
    let filter = match &s.selection {
        Some(w) => Some(b.bind_condition(w)?),
        None => None,
    };
    let (keys, rollup, raw_keys) = bind_group_by(&mut b, s, &items, &aliases)?;
    b.aggs = aggs;
    b.clause = "having clause";
    b.aliases = items
        .iter()
        .zip(&aliases)
        .filter_map(|(it, a)| {
            a.as_ref()
                .map(|a| (a.clone(), it.expr.clone(), it.ty.clone()))
        })
        .collect();
    let having = match &s.having {
        Some(h) => Some(b.bind_condition(h)?),
        None => None,
    };
    // A select-list alias of a window function in HAVING.
    if having
        .as_ref()
        .is_some_and(crate::sql::bind::window::has_window)
    {
        return Err(crate::sql::bind::window::misplaced());
    }
    b.clause = "order clause";
    b.windows = windows;
    let mut hidden = Vec::new();
    let order = bind_order_by(&mut b, q, &items, &aliases, &mut hidden)?;
    b.bind_named_windows()?;
    let aggs = b.aggs.take().unwrap_or_default();
    let (mut items, mut hidden) = (items, hidden);
    let window = crate::sql::exec::window::plan(
        b.windows.take(),
        aggs.len(),
        &mut items,
        &mut hidden,
        rollup,
    )?;
    let grouped = !keys.is_empty() || !aggs.is_empty();
    if grouped && {
        let on = env.sql_mode().contains("ONLY_FULL_GROUP_BY");
        env.full_group_by_bound.set(Some(on));
        on
    } {
        let single = match &source {
            Some(Source::Table(t)) => Some(&t.scope),
            _ => None,
        };
        let name = |c: usize| -> Option<String> {
            let (sc, i) = match (&single, names.as_ref()) {
                (Some(sc), _) => (*sc, c),
                (None, Some(n)) => {
                    let t = n.scope.tables.iter().rev().find(|t| t.offset <= c)?;
                    (&t.scope, c - t.offset)
                }
                _ => return None,
            };
            let col = sc.columns.get(i)?;
            if sc.db.is_empty() {
                return None;
            }
            let table = sc.alias.as_deref().unwrap_or(&sc.table);
            Some(format!("{}.{}.{}", sc.db, table, col.name))
        };
        let group_keys = (!keys.is_empty()).then_some(&raw_keys[..]);
        super::full_group_by::check(items.iter().map(|i| &i.expr), &hidden, group_keys, &name)?;
    }
    // HAVING without grouping filters rows like WHERE (MySQL allows it, with aliases).
    let (filter, having) = match (grouped, having) {
        (false, Some(h)) => (
            Some(match filter {
                Some(f) => Expr::And(vec![f, h]),
                None => h,
            }),
            None,
        ),
        (_, h) => (filter, h),
    };
    if rollup && q.order_by.is_some() {
        return Err(Error::new(
            ErrorCode::WrongUsage,
            "Incorrect usage of CUBE/ROLLUP and ORDER BY",
        ));
    }
    let group = grouped.then_some(GroupPlan {
        keys,
        aggs,
        having,
        rollup,
        in_scan_order: false,
    });
    let (limit, offset) = bind_limit(&mut b, q)?;
    let lock = lock_clause(q, share_lock)?;
    // A derived table or CTE reads its base tables without the lock (as MariaDB); the
    // tables of this SELECT's own FROM are locked as read.
    let access = match &source {
        Some(Source::Table(t)) => plan::choose_access(&t.def, filter.as_ref()),
        _ => Access::FullScan,
    };
    drop(b);
    let subqueries = claim_subqueries(env, subq_mark);
    let (join, filter) = match joined {
        true => {
            let conds: Vec<Expr> = filter
                .as_ref()
                .map(|f| plan::conjuncts(f).into_iter().cloned().collect())
                .unwrap_or_default();
            // Conditions with a subquery filter the joined rows afterwards.
            let (mut post, conds): (Vec<Expr>, Vec<Expr>) =
                conds.into_iter().partition(super::subquery::has_subquery);
            // Inner joins' ON conditions with a subquery run there too.
            post.extend(builder.take_subquery_conds());
            if !post.is_empty() {
                // A constant condition is checked first there too (MariaDB's Impossible WHERE).
                let constants = conds.iter().filter(|c| c.is_constant()).cloned();
                post = constants.chain(post).collect();
            }
            let post = match post.len() {
                0 => None,
                1 => post.into_iter().next(),
                _ => Some(Expr::And(post)),
            };
            (Some(Box::new(builder.finish(conds)?)), post)
        }
        false => (None, filter),
    };
    let distinct = matches!(s.distinct, Some(ast::Distinct::Distinct));
    let mut plan = SelectPlan {
        source,
        join,
        filter,
        access,
        lock,
        items,
        hidden,
        columns,
        group,
        distinct,
        order,
        sorted_by_scan: false,
        backward: false,
        limit,
        offset,
        counted: None,
        window,
        subqueries,
        constant_conjunct: std::sync::OnceLock::new(),
    };
    super::scan_order::apply(&mut plan);
    Ok(plan)
}

pub(super) type Items = (Vec<OutItem>, Vec<ColumnDefinition>, Vec<Option<String>>);

pub(super) fn bind_items(
    b: &mut Binder<'_>,
    projection: &[ast::SelectItem],
    item_texts: &[String],
    source: &Option<Source>,
    join: Option<JoinNames<'_>>,
) -> Result<Items> {
    let mut items = Vec::new();
    let mut columns = Vec::new();
    let mut aliases = Vec::new();
    let texts_ok = item_texts.len() == projection.len();
    for (i, item) in projection.iter().enumerate() {
        match item {
            ast::SelectItem::Wildcard(_) => match join {
                Some(j) => {
                    let star = j.scope.star.clone();
                    expand_join_columns(b, j, &star, &mut items, &mut columns, &mut aliases);
                }
                None => expand_wildcard(b, source, &mut items, &mut columns, &mut aliases)?,
            },
            ast::SelectItem::QualifiedWildcard(kind, _) => {
                let name = match kind {
                    ast::SelectItemQualifiedWildcardKind::ObjectName(n) => n.to_string(),
                    ast::SelectItemQualifiedWildcardKind::Expr(e) => e.to_string(),
                };
                let name = name.trim_matches('`').to_string();
                if let Some(j) = join {
                    let parts: Vec<&str> = name.split('.').map(|p| p.trim_matches('`')).collect();
                    let t = match parts.as_slice() {
                        [t] => j.scope.matching(None, t),
                        [d, t] => j.scope.matching(Some(d), t),
                        _ => None,
                    };
                    let Some(t) = t else {
                        return Err(Error::new(
                            ErrorCode::UnknownTable,
                            format!("Unknown table '{name}'"),
                        ));
                    };
                    let cols: Vec<(usize, usize)> = (0..j.scope.tables[t].scope.columns.len())
                        .map(|c| (t, c))
                        .collect();
                    expand_join_columns(b, j, &cols, &mut items, &mut columns, &mut aliases);
                    continue;
                }
                let ok = b.scope.is_some_and(|sc| {
                    let parts: Vec<&str> = name.split('.').map(|p| p.trim_matches('`')).collect();
                    match parts.as_slice() {
                        [t] => sc.matches(None, t),
                        [d, t] => sc.matches(Some(d), t),
                        _ => false,
                    }
                });
                if !ok {
                    return Err(Error::new(
                        ErrorCode::UnknownTable,
                        format!("Unknown table '{name}'"),
                    ));
                }
                expand_wildcard(b, source, &mut items, &mut columns, &mut aliases)?;
            }
            ast::SelectItem::UnnamedExpr(e) => {
                let name = if texts_ok {
                    item_texts[i].clone()
                } else {
                    // A node the parser set aside is named by its own text.
                    let e = crate::sql::parse::dialect::placeholder_index(e)
                        .and_then(|i| b.env.set_aside.get(i))
                        .unwrap_or(e);
                    default_name(e)
                };
                let (item, col) = bind_item(b, e, column_name(&name), source, join)?;
                items.push(item);
                columns.push(col);
                aliases.push(None);
            }
            ast::SelectItem::ExprWithAlias { expr, alias } => {
                let (item, col) = bind_item(b, expr, column_name(&alias.value), source, join)?;
                items.push(item);
                columns.push(col);
                aliases.push(Some(alias.value.clone()));
            }
            ast::SelectItem::ExprWithAliases { .. } => return Err(unsupported("multiple aliases")),
        }
    }
    Ok((items, columns, aliases))
}

/// A column's name without the item's text (a select list the parser did not see, such as
/// a set operation's later operand or a derived table's): a column by its last name part, a
/// string literal by its value, anything else by its canonical text.
fn default_name(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Identifier(id) => id.value.clone(),
        ast::Expr::CompoundIdentifier(parts) => {
            parts.last().map(|p| p.value.clone()).unwrap_or_default()
        }
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            ast::Value::Null => "NULL".to_string(),
            _ => e.to_string(),
        },
        _ => e.to_string(),
    }
}

/// A result column's name as MariaDB sends it: at most 255 bytes, cut at a character boundary
/// (a long expression's text would otherwise be kept, and sent, whole).
fn column_name(text: &str) -> &str {
    const MAX: usize = 255;
    if text.len() <= MAX {
        return text;
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn expand_wildcard(
    b: &Binder<'_>,
    source: &Option<Source>,
    items: &mut Vec<OutItem>,
    columns: &mut Vec<ColumnDefinition>,
    aliases: &mut Vec<Option<String>>,
) -> Result<()> {
    let Some(source) = source else {
        return Err(Error::new(ErrorCode::NoTablesUsed, "No tables used"));
    };
    let scope = source.scope();
    for (i, c) in scope.columns.iter().enumerate() {
        items.push(OutItem {
            expr: b.zoned(Expr::Col(i), c.ty.clone(), c.utc).0,
            ty: c.ty.clone(),
            coerce: None,
            coll: c.ty.collation,
        });
        columns.push(column_def(&c.name, i, &c.ty, source));
        aliases.push(None);
    }
    Ok(())
}

/// Output items for columns of a join: (table, column) pairs.
fn expand_join_columns(
    b: &Binder<'_>,
    j: JoinNames<'_>,
    cols: &[(usize, usize)],
    items: &mut Vec<OutItem>,
    columns: &mut Vec<ColumnDefinition>,
    aliases: &mut Vec<Option<String>>,
) {
    for &(t, c) in cols {
        let jt = &j.scope.tables[t];
        let sc = &jt.scope.columns[c];
        items.push(OutItem {
            expr: b.zoned(Expr::Col(jt.offset + c), sc.ty.clone(), sc.utc).0,
            ty: sc.ty.clone(),
            coerce: None,
            coll: sc.ty.collation,
        });
        columns.push(join_column_def(&sc.name, jt.offset + c, j));
        aliases.push(None);
    }
}

/// The metadata of a join column (`col` in the joined row), named `name`.
fn join_column_def(name: &str, col: usize, j: JoinNames<'_>) -> ColumnDefinition {
    let t = j.scope.table_of(col);
    let jt = &j.scope.tables[t];
    let c = col - jt.offset;
    let tref = match &j.tables[t] {
        JoinTable::Table(tref) => tref,
        JoinTable::Derived(d) => {
            let mut def = d.columns[c].clone();
            def.name = name.to_string();
            if jt.scope.columns[c].ty.nullable {
                def.flags &= !cohort_protocol::column::column_flags::NOT_NULL;
            }
            return def;
        }
    };
    let mut def = coldef::table_column(
        name,
        &ColumnOrigin {
            schema: &tref.db,
            table: jt.scope.visible_name(),
            def: &tref.def,
            column: c,
        },
    );
    if jt.scope.columns[c].ty.nullable {
        def.flags &= !cohort_protocol::column::column_flags::NOT_NULL;
    }
    def
}

fn column_def(name: &str, col: usize, ty: &SqlType, source: &Source) -> ColumnDefinition {
    match source {
        Source::Table(t) => coldef::table_column(
            name,
            &ColumnOrigin {
                schema: &t.db,
                table: t.scope.visible_name(),
                def: &t.def,
                column: col,
            },
        ),
        Source::Derived(d) => {
            let mut c = d.columns[col].clone();
            c.name = name.to_string();
            c
        }
        Source::Virtual(v) => {
            let mut c = coldef::expr_column(name, ty);
            c.schema = v.scope.db.clone();
            c.table = v.scope.visible_name().to_string();
            c.org_table = v.scope.table.clone();
            c.org_name = v.scope.columns[col].name.clone();
            c
        }
    }
}

fn bind_item(
    b: &mut Binder<'_>,
    e: &ast::Expr,
    name: &str,
    source: &Option<Source>,
    join: Option<JoinNames<'_>>,
) -> Result<(OutItem, ColumnDefinition)> {
    let (expr, mut ty) = b.bind(e)?;
    if let (Expr::Col(i), Some(j)) = (expr.zoned_col().unwrap_or(&expr), join) {
        let col = join_column_def(name, *i, j);
        return Ok((
            OutItem {
                expr,
                coerce: None,
                coll: ty.collation,
                ty,
            },
            col,
        ));
    }
    if let (Expr::Col(i), Some(src)) = (expr.zoned_col().unwrap_or(&expr), source) {
        let col = column_def(name, *i, &ty, src);
        return Ok((
            OutItem {
                expr,
                coerce: None,
                coll: ty.collation,
                ty,
            },
            col,
        ));
    }
    if ty.class == Class::Null && !matches!(expr, Expr::Lit(Value::Null) | Expr::Param(_)) {
        // An unset variable: sent as a string. (A bare parameter is NULL-typed at PREPARE and
        // typed by its value at EXECUTE, as MariaDB: `sql::typed_param_columns`.)
        ty = SqlType::varchar(64).with_nullable(true);
    }
    let coerce = match ty.class {
        Class::Null => None,
        c => Some(c),
    };
    let mut col = coldef::expr_column(name, &ty);
    if crate::sql::func::json::has_json_format(&expr) {
        col.extended = cohort_protocol::ExtendedTypeInfo::Json;
    }
    let coll = if ty.class == Class::Str {
        ty.collation
    } else {
        Collation::Binary
    };
    Ok((
        OutItem {
            expr,
            ty,
            coerce,
            coll,
        },
        col,
    ))
}

/// The item a name or position in GROUP BY / ORDER BY refers to, if it refers to one.
fn item_ref(
    e: &ast::Expr,
    items: &[OutItem],
    aliases: &[Option<String>],
    clause: &str,
) -> Result<Option<usize>> {
    match e {
        // Only an unsigned integer literal is a position; `0.5` or `1e0` is a constant.
        // MariaDB takes `-1` for a position too (and refuses it: 1054).
        // MariaDB sees through parentheses here: `ORDER BY (1)` is a position too.
        // A minus before an integer literal makes a literal too (`-(-1)` is position 1).
        ast::Expr::Nested(_) | ast::Expr::UnaryOp { .. } => match signed_position(e) {
            Some((neg, n)) => {
                let v: i128 = n.parse().unwrap_or(i128::MAX);
                position(if neg { -v } else { v }, items, clause)
            }
            None => Ok(None),
        },
        ast::Expr::Value(v) => match &v.value {
            // An integer literal (up to BIGINT UNSIGNED; past it a DECIMAL constant).
            ast::Value::Number(n, _) if n.bytes().all(|c| c.is_ascii_digit()) => {
                match n.parse::<u64>() {
                    Ok(v) => position(i128::from(v), items, clause),
                    Err(_) => Ok(None),
                }
            }
            _ => Ok(None),
        },
        ast::Expr::Identifier(id) => Ok(aliases.iter().position(|a| {
            a.as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(&id.value))
        })),
        _ => Ok(None),
    }
}

/// An integer literal under parentheses and minus signs: (negative, digits).
fn signed_position(e: &ast::Expr) -> Option<(bool, &str)> {
    match e {
        ast::Expr::Nested(inner) => signed_position(inner),
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => {
            // A minus makes a literal only while the value stays a BIGINT: past it the value
            // is a DECIMAL (`-(-9223372036854775808)`), a constant and no position.
            let (neg, n) = signed_position(expr)?;
            let magnitude: u128 = n.parse().unwrap_or(u128::MAX);
            let fits = if neg {
                // -(-n) = n must fit a signed BIGINT.
                magnitude < 1u128 << 63
            } else {
                // -n must fit a signed BIGINT.
                magnitude <= 1u128 << 63
            };
            fits.then_some((!neg, n))
        }
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) if n.bytes().all(|c| c.is_ascii_digit()) => Some((false, n)),
            _ => None,
        },
        _ => None,
    }
}

/// The item an integer position names: MariaDB reads the position as a 32-bit signed int (its
/// low bits: 4294967297 is 1, 18446744073709551615 is -1), and names a wrong one so.
fn position(v: i128, items: &[OutItem], clause: &str) -> Result<Option<usize>> {
    let p = v as i64 as i32;
    if p <= 0 || p as usize > items.len() {
        return Err(Error::new(
            ErrorCode::BadField,
            format!(
                "Unknown column '{p}' in '{}'",
                crate::sql::bind::join_scope::clause_word(clause)
            ),
        ));
    }
    Ok(Some(p as usize - 1))
}

fn contains_agg(e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if matches!(x, Expr::Agg(_)) {
            found = true;
        }
    });
    found
}

/// Call `f` on every node of an expression.
pub fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    e.walk(&mut |x| f(x));
}

/// GROUP BY: its keys, and whether it has `WITH ROLLUP`.
/// The GROUP BY keys (converted for grouping, with their collations), WITH ROLLUP, and the
/// keys as bound.
type GroupKeys = (Vec<(Expr, Collation)>, bool, Vec<Expr>);

fn bind_group_by(
    b: &mut Binder<'_>,
    s: &ast::Select,
    items: &[OutItem],
    aliases: &[Option<String>],
) -> Result<GroupKeys> {
    let (exprs, rollup) = match &s.group_by {
        ast::GroupByExpr::Expressions(list, mods) => (list, super::rollup::modifiers(mods)?),
        ast::GroupByExpr::All(_) => return Err(unsupported("GROUP BY ALL")),
    };
    b.clause = "group statement";
    let mut keys = Vec::new();
    // The keys as bound, before conversion (`full_group_by.rs` compares them).
    let mut raw = Vec::new();
    for e in exprs {
        if let Some(i) = item_ref(e, items, aliases, "group statement")? {
            raw.push(items[i].expr.clone());
            if crate::sql::bind::window::has_window(&items[i].expr) {
                return Err(crate::sql::bind::window::misplaced());
            }
            if contains_agg(&items[i].expr) {
                let name = aliases.get(i).cloned().flatten().unwrap_or_default();
                return Err(Error::new(
                    ErrorCode::WrongGroupField,
                    format!("Can't group on '{name}'"),
                ));
            }
            if items[i].ty.enumset.is_some() && !rollup {
                // Groups of an ENUM / SET come out in number order, as MariaDB sorts them.
                let (x, _) =
                    crate::sql::bind::enum_as_number((items[i].expr.clone(), items[i].ty.clone()));
                keys.push((x, Collation::Binary));
                continue;
            }
            // A decimal quotient groups by its value rounded to the key's scale, as MariaDB
            // stores it in the group's key field (1e-10 / x groups as 0).
            let x = items[i].expr.clone();
            let x = if rollup {
                x
            } else {
                crate::sql::bind::shown(x, &items[i].ty)
            };
            keys.push((x, items[i].coll));
            continue;
        }
        let (x, t) = b.bind(e)?;
        raw.push(x.clone());
        let x = if rollup {
            x
        } else {
            crate::sql::bind::shown(x, &t)
        };
        let (x, t) = if rollup {
            (x, t)
        } else {
            crate::sql::bind::enum_as_number((x, t))
        };
        let coll = if t.class == Class::Str {
            t.collation
        } else {
            Collation::Binary
        };
        keys.push((x, coll));
    }
    Ok((keys, rollup, raw))
}

fn bind_order_by(
    b: &mut Binder<'_>,
    q: &ast::Query,
    items: &[OutItem],
    aliases: &[Option<String>],
    hidden: &mut Vec<Expr>,
) -> Result<Vec<SortKey>> {
    let Some(ob) = &q.order_by else {
        return Ok(Vec::new());
    };
    let exprs = match &ob.kind {
        ast::OrderByKind::Expressions(list) => list,
        ast::OrderByKind::All(_) => return Err(unsupported("ORDER BY ALL")),
    };
    let mut keys = Vec::new();
    for o in exprs {
        let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
        if let Some(i) = item_ref(&o.expr, items, aliases, "order clause")? {
            if items[i].ty.enumset.is_some() {
                // An ENUM / SET sorts by its number (member position, bitmask).
                let (x, _) =
                    crate::sql::bind::enum_as_number((items[i].expr.clone(), items[i].ty.clone()));
                hidden.push(x);
                keys.push(SortKey {
                    col: items.len() + hidden.len() - 1,
                    desc,
                    coll: Collation::Binary,
                });
                continue;
            }
            keys.push(SortKey {
                col: i,
                desc,
                coll: items[i].coll,
            });
            continue;
        }
        let (x, t) = crate::sql::bind::enum_as_number(b.bind(&o.expr)?);
        let coll = if t.class == Class::Str {
            t.collation
        } else {
            Collation::Binary
        };
        // A TIMESTAMP column read in the session's zone sorts by its UTC value, as MariaDB
        // (the local times of the hour a zone repeats are not in order).
        let x = match x.zoned_col() {
            Some(inner) => inner.clone(),
            None => x,
        };
        // Reuse a visible item with the same column.
        if let Expr::Col(c) = &x {
            if let Some(i) = items
                .iter()
                .position(|it| matches!(it.expr, Expr::Col(k) if k == *c))
            {
                keys.push(SortKey { col: i, desc, coll });
                continue;
            }
        }
        hidden.push(x);
        keys.push(SortKey {
            col: items.len() + hidden.len() - 1,
            desc,
            coll,
        });
    }
    Ok(keys)
}

pub(super) fn bind_limit(
    b: &mut Binder<'_>,
    q: &ast::Query,
) -> Result<(Option<Expr>, Option<Expr>)> {
    let saved = b.scope.take();
    let saved_join = b.join.take();
    let aggs = b.aggs.take();
    let r = (|| -> Result<(Option<Expr>, Option<Expr>)> {
        Ok(match &q.limit_clause {
            None => (None, None),
            Some(ast::LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) => {
                if !limit_by.is_empty() {
                    return Err(unsupported("LIMIT BY"));
                }
                let l = match limit {
                    Some(l) => Some(b.bind(l)?.0),
                    None => None,
                };
                let o = match offset {
                    Some(o) => Some(b.bind(&o.value)?.0),
                    None => None,
                };
                (l, o)
            }
            Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
                (Some(b.bind(limit)?.0), Some(b.bind(offset)?.0))
            }
        })
    })();
    b.scope = saved;
    b.join = saved_join;
    b.aggs = aggs;
    r
}

// ---------------------------------------------------------------------------------------------
// Execution

/// Evaluate a LIMIT / OFFSET value.
pub fn eval_count(e: &Option<Expr>, env: &Env<'_>) -> Result<Option<u64>> {
    let Some(e) = e else { return Ok(None) };
    let v = e.eval(&RowCtx::EMPTY, env)?;
    match v {
        Value::Int(i) if i >= 0 => Ok(Some(i as u64)),
        Value::UInt(u) => Ok(Some(u)),
        Value::Bytes(_) | Value::Decimal(_) | Value::Double(_) => {
            let n = convert::to_num(&v).to_i128();
            if n < 0 {
                return Err(Error::new(
                    ErrorCode::WrongArguments,
                    "Incorrect arguments to LIMIT",
                ));
            }
            Ok(Some(n.min(u64::MAX as i128) as u64))
        }
        _ => Err(Error::new(
            ErrorCode::WrongArguments,
            "Incorrect arguments to LIMIT",
        )),
    }
}

/// Run a SELECT plan: the result rows (visible columns only).
pub fn run_select(
    plan: &SelectPlan,
    env: &Env<'_>,
    txn: Option<&mut Txn>,
) -> Result<Vec<Vec<Value>>> {
    run_select_locking(plan, env, txn, plan.lock)
}

/// [`run_select`] with the lock its table reads take (INSERT … SELECT locks its source).
pub fn run_select_locking(
    plan: &SelectPlan,
    env: &Env<'_>,
    txn: Option<&mut Txn>,
    lock: ReadLock,
) -> Result<Vec<Vec<Value>>> {
    let rows = match plan.subqueries.is_empty() {
        true => run_rows(plan, env, txn, lock)?,
        false => super::subquery::run_select(plan, env, txn, lock)?,
    };
    match &plan.counted {
        Some(c) => c.apply(rows, env),
        None => Ok(rows),
    }
}

/// [`run_select_locking`] of a SELECT without subqueries, before SQL_CALC_FOUND_ROWS's LIMIT.
fn run_rows(
    plan: &SelectPlan,
    env: &Env<'_>,
    txn: Option<&mut Txn>,
    lock: ReadLock,
) -> Result<Vec<Vec<Value>>> {
    let limit = eval_count(&plan.limit, env)?;
    let offset = eval_count(&plan.offset, env)?.unwrap_or(0);
    if limit == Some(0) || impossible_condition(plan, env)? {
        return Ok(Vec::new());
    }
    let streaming = plan.group.is_none()
        && !plan.distinct
        && plan.window.is_none()
        && (plan.order.is_empty() || plan.sorted_by_scan);
    let enough = limit.map(|l| l.saturating_add(offset));
    let mut rows: Vec<Vec<Value>> = Vec::new();
    let mut groups = Groups::default();
    let mut consume_filtered = |row: &[Value]| -> Result<ScanControl> {
        match &plan.group {
            Some(g) => groups.add(g, &RowCtx::of(row), env)?,
            // Window functions need every row first (see `exec/window.rs`).
            None if plan.window.is_some() => {
                crate::memory::check(0)?;
                rows.push(row.to_vec())
            }
            None => rows.push(output_row(plan, &RowCtx::of(row), env)?),
        }
        if streaming && enough.is_some_and(|n| rows.len() as u64 >= n) {
            return Ok(ScanControl::Stop);
        }
        Ok(ScanControl::Continue)
    };
    let passes = |row: &[Value]| -> Result<bool> {
        match &plan.filter {
            Some(f) => f.is_true(&RowCtx::of(row), env),
            None => Ok(true),
        }
    };
    match &plan.source {
        None if plan.join.is_some() => {
            let j = plan.join.as_ref().expect("checked");
            let txn = txn.ok_or_else(|| Error::internal("SELECT without a transaction"))?;
            join_exec::run(j, env, txn, lock, &mut |row| {
                Ok(match consume_filtered(row)? {
                    ScanControl::Stop => Flow::Stop,
                    ScanControl::Continue => Flow::More,
                })
            })?;
        }
        None => {
            if passes(&[])? {
                consume_filtered(&[])?;
            }
        }
        Some(Source::Virtual(v)) => {
            for r in (v.rows)(env)? {
                if passes(&r)? && consume_filtered(&r)? == ScanControl::Stop {
                    break;
                }
            }
        }
        Some(Source::Derived(d)) => {
            for r in d.materialize(env, txn)?.iter() {
                if passes(r)? && consume_filtered(r)? == ScanControl::Stop {
                    break;
                }
            }
        }
        Some(Source::Table(t)) => {
            let txn = txn.ok_or_else(|| Error::internal("SELECT without a transaction"))?;
            // WHERE runs inside the read: on the version read, after any lock wait.
            let mut filter = |row: &crate::storage::Row| match &plan.filter {
                Some(f) => f.is_true(&RowCtx::of(row), env),
                None => Ok(true),
            };
            plan::scan(
                &t.table,
                &plan.access,
                txn,
                env,
                lock,
                plan.backward,
                &mut filter,
                &mut |_, row| consume_filtered(row),
            )?;
        }
    }
    finish_rows(plan, rows, groups, (limit, offset), env, None)
}

/// The rows of a query once read: its groups computed (HAVING and the outputs of each), then
/// DISTINCT, ORDER BY, OFFSET and LIMIT; only the visible columns kept.
pub(super) fn finish_rows(
    plan: &SelectPlan,
    mut rows: Vec<Vec<Value>>,
    groups: Groups,
    (limit, offset): (Option<u64>, u64),
    env: &Env<'_>,
    host: Option<&dyn Host>,
) -> Result<Vec<Vec<Value>>> {
    if let Some(g) = &plan.group {
        let width = match &plan.source {
            None if plan.join.is_some() => plan.join.as_ref().map_or(0, |j| j.width()),
            Some(s) => s.scope().columns.len(),
            None => 0,
        };
        rows = groups.finish(plan, g, width, env, host)?;
        if let Some(w) = &plan.window {
            rows = super::window::run(plan, w, rows, Some(width), env, host)?;
        }
    } else if let Some(w) = &plan.window {
        rows = super::window::run(plan, w, rows, None, env, host)?;
    }
    if plan.distinct {
        distinct(plan, &mut rows)?;
    }
    if !plan.order.is_empty() && !plan.sorted_by_scan {
        sort_rows(&plan.order, &mut rows);
    }
    let start = (offset as usize).min(rows.len());
    let end = match limit {
        Some(l) => start
            .saturating_add(l.min(usize::MAX as u64) as usize)
            .min(rows.len()),
        None => rows.len(),
    };
    let visible = plan.items.len();
    let mut out: Vec<Vec<Value>> = rows.drain(start..end).collect();
    for r in &mut out {
        r.truncate(visible);
    }
    Ok(out)
}

/// A WHERE conjunct (ungrouped) or a HAVING that reads no row and is not true: no row can pass,
/// and, as in
/// MariaDB ("Impossible WHERE / HAVING"), nothing else of the query is evaluated (an item that
/// would overflow on some row raises no error).
pub(super) fn impossible_condition(plan: &SelectPlan, env: &Env<'_>) -> Result<bool> {
    let conjuncts = || {
        let having = plan.group.as_ref().and_then(|g| g.having.as_ref());
        // With aggregates, an impossible WHERE still gives the group of no rows (COUNT(*) is 0).
        let filter: &[Expr] = match &plan.filter {
            _ if plan.group.is_some() => &[],
            Some(Expr::And(v)) => v,
            Some(f) => std::slice::from_ref(f),
            None => &[],
        };
        filter.iter().chain(having)
    };
    let any_constant = plan
        .constant_conjunct
        .get_or_init(|| conjuncts().any(|c| c.is_constant()));
    if !*any_constant {
        return Ok(false);
    }
    for c in conjuncts() {
        if c.is_constant() && !c.is_true(&RowCtx::EMPTY, env)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The extended output row (visible items, then hidden sort keys) for one row or group.
pub(super) fn output_row(plan: &SelectPlan, rc: &RowCtx<'_>, env: &Env<'_>) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(plan.items.len() + plan.hidden.len());
    for item in &plan.items {
        // The result is built in memory: hold it to the session's budget, value by value.
        crate::memory::check(0)?;
        let v = item.expr.eval(rc, env)?;
        out.push(match item.coerce {
            Some(c) => coerce(v, c),
            None => v,
        });
    }
    for h in &plan.hidden {
        out.push(h.eval(rc, env)?);
    }
    Ok(out)
}

fn distinct(plan: &SelectPlan, rows: &mut Vec<Vec<Value>>) -> Result<()> {
    let mut seen = HashSet::new();
    let mut over = Ok(());
    rows.retain(|r| {
        if over.is_err() {
            return false;
        }
        let mut key = Vec::new();
        for (v, item) in r.iter().zip(&plan.items) {
            if item.ty.class == Class::Decimal {
                // A decimal quotient is distinct by its value at its type's scale.
                let mut v = v.clone();
                super::query::round_decimal(&mut v, &item.ty);
                compare::group_key(&v, item.coll, &mut key);
                continue;
            }
            compare::group_key(v, item.coll, &mut key);
        }
        over = crate::memory::check(0);
        seen.insert(key)
    });
    over
}

pub fn sort_rows(order: &[SortKey], rows: &mut [Vec<Value>]) {
    rows.sort_by(|a, b| {
        for k in order {
            let o = compare::sort_cmp(&a[k.col], &b[k.col], k.coll);
            let o = if k.desc { o.reverse() } else { o };
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        std::cmp::Ordering::Equal
    });
}

// ---------------------------------------------------------------------------------------------
// Grouping and aggregates

#[derive(Default)]
pub(super) struct Groups {
    pub(super) index: HashMap<Vec<u8>, usize>,
    pub(super) list: Vec<Group>,
    /// The last group's key, when the groups come in scan order (`GroupPlan::in_scan_order`).
    last: Vec<u8>,
}

pub(super) struct Group {
    /// The group's key values (fewer than the GROUP BY keys for a ROLLUP super-aggregate).
    pub(super) keys: Vec<Value>,
    pub(super) first: Vec<Value>,
    pub(super) accs: Vec<Acc>,
}

impl Groups {
    pub(super) fn add(&mut self, g: &GroupPlan, rc: &RowCtx<'_>, env: &Env<'_>) -> Result<()> {
        crate::memory::check(0)?;
        let row = rc.row;
        if g.rollup {
            return super::rollup::add(self, g, row, env);
        }
        let mut keys = Vec::with_capacity(g.keys.len());
        let mut kb = Vec::new();
        for (k, coll) in &g.keys {
            let v = k.eval(rc, env)?;
            compare::group_key(&v, *coll, &mut kb);
            keys.push(v);
        }
        let idx = match self.find(g, &kb) {
            Some(i) => i,
            None => {
                self.list.push(Group {
                    keys,
                    first: row.to_vec(),
                    accs: g.aggs.iter().map(Acc::new).collect(),
                });
                match g.in_scan_order {
                    true => self.last = kb,
                    false => _ = self.index.insert(kb, self.list.len() - 1),
                }
                self.list.len() - 1
            }
        };
        let group = &mut self.list[idx];
        for (acc, spec) in group.accs.iter_mut().zip(&g.aggs) {
            let (v, keys) = agg_input(spec, rc, env)?;
            acc.add(spec, v, keys);
        }
        Ok(())
    }

    /// The group of key `kb` so far: in scan order only the last one can be.
    fn find(&self, g: &GroupPlan, kb: &[u8]) -> Option<usize> {
        match g.in_scan_order {
            true => (!self.list.is_empty() && self.last == kb).then(|| self.list.len() - 1),
            false => self.index.get(kb).copied(),
        }
    }

    fn finish(
        mut self,
        plan: &SelectPlan,
        g: &GroupPlan,
        width: usize,
        env: &Env<'_>,
        host: Option<&dyn Host>,
    ) -> Result<Vec<Vec<Value>>> {
        if self.list.is_empty() && g.keys.is_empty() {
            self.list.push(Group {
                keys: Vec::new(),
                first: vec![Value::Null; width],
                accs: g.aggs.iter().map(Acc::new).collect(),
            });
        }
        let colls: Vec<Collation> = g.keys.iter().map(|(_, c)| *c).collect();
        // Groups read in scan order are already in order: the groups' own, or the ORDER BY
        // that a backward scan gives (`exec/scan_order.rs`).
        if !g.in_scan_order {
            self.list.sort_by(|a, b| {
                for ((x, y), c) in a.keys.iter().zip(&b.keys).zip(&colls) {
                    let o = compare::sort_cmp(x, y, *c);
                    if o != std::cmp::Ordering::Equal {
                        return o;
                    }
                }
                // ROLLUP: a super-aggregate row follows the groups it sums up.
                b.keys.len().cmp(&a.keys.len())
            });
        }
        let mut out = Vec::with_capacity(self.list.len());
        let mut rolled = super::rollup::Rolled::default();
        for mut group in self.list {
            if g.rollup {
                rolled.prepare(g, &mut group);
            }
            let level = group.keys.len();
            let aggs: Vec<Value> = group
                .accs
                .into_iter()
                .zip(&g.aggs)
                .map(|(a, spec)| a.finish(spec))
                .collect();
            let rc = RowCtx {
                row: &group.first,
                new: &[],
                aggs: &aggs,
                host,
            };
            if let Some(h) = &g.having {
                if !h.is_true(&rc, env)? {
                    continue;
                }
            }
            if plan.window.is_some() {
                // The context of the window functions: the row, then the aggregates.
                let mut ctx = group.first.clone();
                ctx.extend(aggs);
                out.push(ctx);
                continue;
            }
            let mut row = output_row(plan, &rc, env)?;
            if g.rollup {
                rolled.null_items(plan, g, level, &mut row);
            }
            out.push(row);
        }
        Ok(out)
    }
}

/// The value an aggregate takes from a row, and its GROUP_CONCAT ORDER BY keys. MIN / MAX
/// read an invalid date conversion as the zero date (see `expr/zero_date.rs`).
pub(super) fn agg_input(
    spec: &AggSpec,
    rc: &RowCtx<'_>,
    env: &Env<'_>,
) -> Result<(Value, Vec<Value>)> {
    let Some(a) = &spec.arg else {
        return Ok((Value::Int(1), Vec::new()));
    };
    let v = match spec.func {
        AggFunc::Min | AggFunc::Max => a.eval_compared(rc, env)?.into_owned(),
        _ => a.eval(rc, env)?,
    };
    if let Value::Bytes(b) = &v {
        // A string summed is read as a DOUBLE, one of BIT_AND / OR / XOR as an INTEGER:
        // warning 1292 when it is not all a number (MariaDB; not under DISTINCT).
        match spec.func {
            AggFunc::Sum | AggFunc::Avg if !spec.distinct => {
                crate::sql::expr::num_warn::check(env, crate::sql::expr::num_warn::DOUBLE, b)
            }
            AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor => {
                crate::sql::expr::num_warn::check(env, "INTEGER", b)
            }
            _ => {}
        }
    }
    let mut keys = Vec::with_capacity(spec.concat.order.len());
    if !v.is_null() {
        for o in &spec.concat.order {
            keys.push(o.key.eval(rc, env)?);
        }
    }
    Ok((v, keys))
}

/// The running state of one aggregate in one group.
pub(super) struct Acc {
    count: u64,
    dec: Decimal,
    dbl: f64,
    exact: bool,
    best: Option<Value>,
    concat: super::group_concat::ConcatAcc,
    bits: u64,
    seen: Option<HashSet<Vec<u8>>>,
}

impl Acc {
    pub(super) fn new(spec: &AggSpec) -> Acc {
        Acc {
            count: 0,
            dec: Decimal::ZERO,
            dbl: 0.0,
            exact: matches!(spec.arg_ty.class, Class::Int | Class::Decimal | Class::Null),
            best: None,
            concat: Default::default(),
            bits: if spec.func == AggFunc::BitAnd {
                u64::MAX
            } else {
                0
            },
            seen: spec.distinct.then(HashSet::new),
        }
    }

    fn coll(spec: &AggSpec) -> Collation {
        if spec.arg_ty.class == Class::Str {
            spec.arg_ty.collation
        } else {
            comparison_collation(&spec.arg_ty, &spec.arg_ty)
        }
    }

    pub(super) fn add(&mut self, spec: &AggSpec, v: Value, keys: Vec<Value>) {
        if v.is_null() {
            return;
        }
        if let Some(seen) = &mut self.seen {
            let mut k = Vec::new();
            compare::group_key(&v, Acc::coll(spec), &mut k);
            if !seen.insert(k) {
                return;
            }
        }
        self.count += 1;
        match spec.func {
            AggFunc::CountStar | AggFunc::Count => {}
            AggFunc::Sum | AggFunc::Avg => {
                if matches!(v, Value::Double(_) | Value::Bytes(_)) {
                    self.exact = false;
                }
                let n = convert::to_arith_num(&v);
                if self.exact {
                    let sum = match &n {
                        Num::I(i) => self.dec.checked_add(&Decimal::from(*i)),
                        Num::U(u) => self.dec.checked_add(&Decimal::from(*u)),
                        Num::D(d) => self.dec.checked_add(d),
                        Num::F(_) => Err(cohort_decimal::Overflow),
                    };
                    match sum {
                        Ok(s) => self.dec = s,
                        Err(_) => self.exact = false,
                    }
                }
                self.dbl += n.to_f64();
            }
            AggFunc::Min | AggFunc::Max => {
                let want = if spec.func == AggFunc::Min {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                };
                let better = match &self.best {
                    None => true,
                    Some(b) => compare::sort_cmp(&v, b, Acc::coll(spec)) == want,
                };
                if better {
                    self.best = Some(v);
                }
            }
            AggFunc::GroupConcat => {
                let text = convert::to_text(&v).into_owned();
                self.concat.push(&spec.concat, keys, text);
            }
            AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor => {
                // An unsigned value as it is; anything else as a signed BIGINT (rounded,
                // saturating), as MariaDB's integer value of it.
                let x = match v {
                    Value::UInt(u) => u,
                    _ => convert::to_i64(&v) as u64,
                };
                self.bits = match spec.func {
                    AggFunc::BitAnd => self.bits & x,
                    AggFunc::BitOr => self.bits | x,
                    _ => self.bits ^ x,
                };
            }
        }
    }

    fn finish(self, spec: &AggSpec) -> Value {
        match spec.func {
            AggFunc::CountStar | AggFunc::Count => Value::Int(self.count as i64),
            _ if self.count == 0
                && !matches!(
                    spec.func,
                    AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor
                ) =>
            {
                Value::Null
            }
            AggFunc::Sum => {
                if self.exact && spec.ty.class == Class::Decimal {
                    Value::Decimal(self.dec.rescale(spec.ty.decimals).unwrap_or(self.dec))
                } else {
                    Value::Double(self.dbl)
                }
            }
            AggFunc::Avg => {
                if self.exact && spec.ty.class == Class::Decimal {
                    // The sum divided with `/`'s rule: the sum of every digit (a quotient's
                    // argument keeps its working digits, as MariaDB's AVG(1 / c) sums them).
                    match self
                        .dec
                        .checked_div(&Decimal::from(self.count), DIV_PRECISION_INCREMENT)
                    {
                        Ok(q) => Value::Decimal(q),
                        Err(_) => Value::Double(self.dbl / self.count as f64),
                    }
                } else {
                    Value::Double(self.dbl / self.count as f64)
                }
            }
            AggFunc::Min | AggFunc::Max => self.best.unwrap_or(Value::Null),
            AggFunc::GroupConcat => self
                .concat
                .finish(&spec.concat)
                .map_or(Value::Null, Value::Bytes),
            AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor => Value::UInt(self.bits),
        }
    }
}
