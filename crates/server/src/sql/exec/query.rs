//! Query expressions: set operations (UNION / INTERSECT / EXCEPT, each ALL or DISTINCT),
//! parenthesized queries with their own ORDER BY / LIMIT, derived tables (`FROM (SELECT …) t`)
//! and common table expressions (`WITH [RECURSIVE] …`).
//!
//! [`plan_query`] binds any query expression into a [`QueryPlan`]; [`run_query`] runs one and
//! returns its rows (with [`QueryPlan::columns`] for their definitions). A plain SELECT is a
//! [`Node::Select`] run by `exec/select.rs`; everything else is built over it:
//!
//! * Set operations materialize both operands, convert each value to the unified result type
//!   ([`union_type`], MariaDB's aggregation for UNION) and combine them: ALL keeps duplicates
//!   (INTERSECT ALL / EXCEPT ALL count them), DISTINCT compares rows by [`compare::group_key`]
//!   in each column's collation, NULLs equal. INTERSECT binds tighter than UNION and EXCEPT
//!   (the parser builds the tree so). The result columns are named after the first operand's.
//! * ORDER BY / LIMIT of a whole set operation (or of a parenthesized query) is a
//!   [`Node::Sorted`] over the result: names and positions refer to result columns.
//! * A derived table or CTE reference (`exec/cte.rs`) is a [`Derived`] source, a row set materialized once per
//!   execution of the statement that reads it (a single-table SELECT reads it like a virtual
//!   table; a join reads it as a leaf, by nested loop or hash join, see `exec/join.rs`).
//!   Each reference to a CTE is planned from the CTE's text (MariaDB merges or materializes
//!   each reference too); while a WITH clause is being bound its CTEs are visible by name to
//!   the FROM clauses bound inside it (a per-thread stack of frames, [`cte_frame`]).
//! * `WITH RECURSIVE`: [`Node::Recursive`] runs the anchor operands once, then the recursive
//!   operands repeatedly over the rows the previous round added (the "working table", read
//!   through [`DerivedBody::Working`]), until a round adds nothing. UNION DISTINCT drops rows
//!   already produced. `max_recursive_iterations` (MariaDB 10.11's variable, default 1000)
//!   bounds the rounds: past it the result is cut with warning 1931, as MariaDB does. Every
//!   row is counted against the session's memory budget.
//!
//! All parts of one statement read with the statement's transaction, so with its read view:
//! one snapshot for every operand and derived table. Locking reads (`FOR UPDATE`) of set
//! operations and derived tables are refused (1235).

use crate::error::{Error, Result};
use crate::sql::bind::coldef;
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::bind::{decimal_precision, Binder, ScopeColumn, TableScope};
use crate::sql::env::Env;
use crate::sql::exec::select::{self, SelectPlan, SortKey};
use crate::sql::expr::{coerce, compare, Expr, RowCtx};
use crate::storage::{Txn, WaitPolicy};
use crate::types::{Collation, Value};
use cohort_protocol::column::{column_flags, ColumnDefinition, ColumnType};
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use sqlparser::tokenizer::Location;
use std::collections::{HashMap, HashSet};

/// A bound query expression.
pub struct QueryPlan {
    pub node: Node,
    /// The result's column definitions.
    pub columns: Vec<ColumnDefinition>,
    /// The result's column types (what each value is converted to).
    pub types: Vec<SqlType>,
}

impl QueryPlan {
    /// The query has a LIMIT of its own at its top (`sql_select_limit` does not apply).
    pub fn has_limit(&self) -> bool {
        match &self.node {
            Node::Select(s) => s.has_limit(),
            Node::Sorted(s) => s.limit.is_some(),
            Node::SetOp(_) | Node::Recursive(_) => false,
        }
    }
}

pub enum Node {
    Select(Box<SelectPlan>),
    SetOp(Box<SetOp>),
    Sorted(Box<Sorted>),
    Recursive(Box<Recursive>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Union,
    Intersect,
    Except,
}

/// `parts[0] ops[0] parts[1] ops[1] parts[2] …`, combined left to right: the parser's
/// left-deep chain as one node, so a long UNION list stays shallow. An operand that binds
/// tighter (INTERSECT) or is parenthesized is a nested node.
pub struct SetOp {
    /// (operator, ALL) before each operand after the first.
    pub ops: Vec<(Op, bool)>,
    pub parts: Vec<QueryPlan>,
}

/// ORDER BY / LIMIT over a query's result.
pub struct Sorted {
    pub input: QueryPlan,
    pub order: Vec<SortKey>,
    /// Sort expressions that are not result columns (over the result row).
    pub hidden: Vec<Expr>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    /// SELECT SQL_CALC_FOUND_ROWS: note the rows before the LIMIT (`exec/found_rows.rs`).
    pub counts_found_rows: bool,
}

/// A recursive CTE's body.
pub struct Recursive {
    /// The working table's id (see [`DerivedBody::Working`]).
    pub id: u64,
    pub anchors: Vec<QueryPlan>,
    pub steps: Vec<QueryPlan>,
    pub distinct: bool,
    /// The CTE's column names (for errors about values that do not fit).
    pub names: Vec<String>,
}

pub(super) fn unsupported(what: &str) -> Error {
    Error::unsupported(what)
}

// ---------------------------------------------------------------------------------------------
// Plan properties

impl QueryPlan {
    pub fn is_stale(&self) -> bool {
        match &self.node {
            Node::Select(s) => s.is_stale(),
            Node::SetOp(s) => s.parts.iter().any(|p| p.is_stale()),
            Node::Sorted(s) => s.input.is_stale(),
            Node::Recursive(r) => r.anchors.iter().chain(&r.steps).any(|p| p.is_stale()),
        }
    }

    /// The databases of the engine tables it reads.
    pub fn databases(&self) -> Vec<&str> {
        self.table_refs()
            .into_iter()
            .map(|t| t.db.as_str())
            .collect()
    }

    /// The engine tables it reads.
    pub fn table_refs(&self) -> Vec<&crate::sql::plan::TableRef> {
        match &self.node {
            Node::Select(s) => s.table_refs(),
            Node::SetOp(s) => s.parts.iter().flat_map(|p| p.table_refs()).collect(),
            Node::Sorted(s) => s.input.table_refs(),
            Node::Recursive(r) => r
                .anchors
                .iter()
                .chain(&r.steps)
                .flat_map(|p| p.table_refs())
                .collect(),
        }
    }
}

pub use super::cte::{derived_factor, outer_text, prune_unread, Derived};
use super::cte::{push_ctes, run_recursive};

/// Is `q` a plain SELECT (no WITH, set operation or parentheses), which `exec/select.rs`
/// plans alone?
pub fn is_plain_select(q: &ast::Query) -> bool {
    q.with.is_none() && matches!(q.body.as_ref(), ast::SetExpr::Select(_))
}

// ---------------------------------------------------------------------------------------------
// Binding

/// Bind a query expression: SELECT, set operation, parenthesized query, WITH.
pub fn plan_query(
    env: &Env<'_>,
    params: &[Location],
    q: &ast::Query,
    item_texts: &[String],
    share_lock: Option<WaitPolicy>,
) -> Result<QueryPlan> {
    plan_query_inner(env, params, q, item_texts, share_lock).map_err(keyword_clauses)
}

fn plan_query_inner(
    env: &Env<'_>,
    params: &[Location],
    q: &ast::Query,
    item_texts: &[String],
    share_lock: Option<WaitPolicy>,
) -> Result<QueryPlan> {
    let _frames = match &q.with {
        Some(w) => Some(push_ctes(w)?),
        None => None,
    };
    if q.fetch.is_some() || q.for_clause.is_some() {
        return Err(unsupported("FETCH / FOR XML"));
    }
    match q.body.as_ref() {
        ast::SetExpr::Select(_) => {
            let plan = if q.with.is_some() {
                let mut inner = q.clone();
                inner.with = None;
                select::plan_select(env, params, &inner, item_texts, share_lock)?
            } else {
                select::plan_select(env, params, q, item_texts, share_lock)?
            };
            Ok(select_node(plan))
        }
        body => {
            let locked;
            let body = if !q.locks.is_empty() || share_lock.is_some() {
                locked = lock_last_select(body, q, share_lock)?;
                &locked
            } else {
                body
            };
            let input = plan_set_expr(env, params, body, item_texts)?;
            if q.order_by.is_none() && q.limit_clause.is_none() {
                return Ok(input);
            }
            plan_sorted(env, params, q, input)
        }
    }
}

/// `… UNION SELECT … FOR UPDATE` (or `LOCK IN SHARE MODE`): as MariaDB, the clause belongs
/// to the last SELECT, which alone locks the rows it reads; the operands before it read
/// without locks. The last operand becomes a one-SELECT query carrying the clause. A last
/// operand in parentheses is refused (1235).
fn lock_last_select(
    body: &ast::SetExpr,
    q: &ast::Query,
    share_lock: Option<WaitPolicy>,
) -> Result<ast::SetExpr> {
    let mut body = body.clone();
    let mut last = &mut body;
    while let ast::SetExpr::SetOperation { right, .. } = last {
        last = right.as_mut();
    }
    let ast::SetExpr::Select(s) = last else {
        return Err(unsupported(
            "locking reads of UNION / INTERSECT / EXCEPT ending in a parenthesized query",
        ));
    };
    let mut locks = q.locks.clone();
    if let Some(w) = share_lock {
        locks.push(ast::LockClause {
            lock_type: ast::LockType::Share,
            of: None,
            nonblock: match w {
                WaitPolicy::Wait => None,
                WaitPolicy::NoWait => Some(ast::NonBlock::Nowait),
                WaitPolicy::SkipLocked => Some(ast::NonBlock::SkipLocked),
            },
        });
    }
    let one = bare_query(ast::SetExpr::Select(s.clone()), locks);
    *last = ast::SetExpr::Query(Box::new(one));
    Ok(body)
}

/// `body` as a query of its own: no WITH, ORDER BY or LIMIT; `locks` its locking clauses.
pub(super) fn bare_query(body: ast::SetExpr, locks: Vec<ast::LockClause>) -> ast::Query {
    ast::Query {
        with: None,
        body: Box::new(body),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks,
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: Vec::new(),
    }
}

fn select_node(plan: SelectPlan) -> QueryPlan {
    let types = plan.items.iter().map(|i| i.ty.clone()).collect();
    QueryPlan {
        columns: plan.columns.clone(),
        types,
        node: Node::Select(Box::new(plan)),
    }
}

/// An operand or body of a set operation.
pub(super) fn plan_set_expr(
    env: &Env<'_>,
    params: &[Location],
    e: &ast::SetExpr,
    item_texts: &[String],
) -> Result<QueryPlan> {
    match e {
        ast::SetExpr::Select(s) => {
            let q = bare_query(ast::SetExpr::Select(s.clone()), Vec::new());
            Ok(select_node(select::plan_select(
                env, params, &q, item_texts, None,
            )?))
        }
        ast::SetExpr::Query(q) => stack_safe(|| {
            crate::sql::parse::surface::operand(q)?;
            plan_query(env, params, q, &[], None)
        }),
        ast::SetExpr::SetOperation { .. } => {
            // The left spine: one node, operands left to right.
            let mut rights = Vec::new();
            let mut first = e;
            while let ast::SetExpr::SetOperation {
                op,
                set_quantifier,
                left,
                right,
            } = first
            {
                let op = match op {
                    ast::SetOperator::Union => Op::Union,
                    ast::SetOperator::Intersect => Op::Intersect,
                    ast::SetOperator::Except => Op::Except,
                    ast::SetOperator::Minus => return Err(Error::parse("MINUS", 1)),
                };
                let all = match set_quantifier {
                    ast::SetQuantifier::All => true,
                    ast::SetQuantifier::Distinct | ast::SetQuantifier::None => false,
                    _ => return Err(Error::parse("BY NAME", 1)),
                };
                rights.push(((op, all), right.as_ref()));
                first = left;
            }
            let mut parts = Vec::with_capacity(rights.len() + 1);
            let mut ops = Vec::with_capacity(rights.len());
            parts.push(stack_safe(|| {
                plan_set_expr(env, params, first, item_texts)
            })?);
            for (op, r) in rights.into_iter().rev() {
                ops.push(op);
                parts.push(stack_safe(|| plan_set_expr(env, params, r, &[]))?);
            }
            set_op(ops, parts)
        }
        ast::SetExpr::Values(_) => Err(unsupported("VALUES as a query")),
        _ => Err(unsupported("this query form")),
    }
}

/// Nested set operations and parentheses recurse: on a stack that grows as needed.
pub(super) fn stack_safe<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}

pub(super) fn with_columns_error() -> Error {
    Error::new(
        ErrorCode::WithColWrongList,
        "WITH column list and SELECT field list have different column counts",
    )
}

/// MariaDB names the clause of an unknown or ambiguous column by its keyword ('SELECT',
/// 'WHERE'…, not 'field list', 'where clause'…); the binder already does
/// (`join_scope::clause_word`), this catches a message made elsewhere.
pub fn keyword_clauses(e: Error) -> Error {
    const NAMES: &[(&str, &str)] = &[
        ("in 'field list'", "in 'SELECT'"),
        ("in 'where clause'", "in 'WHERE'"),
        ("in 'order clause'", "in 'ORDER BY'"),
        ("in 'group statement'", "in 'GROUP BY'"),
        ("in 'having clause'", "in 'HAVING'"),
        ("in 'on clause'", "in 'ON'"),
    ];
    let m = e.message();
    for (from, to) in NAMES {
        if let Some(head) = m.strip_suffix(from) {
            return Error::new(e.code(), format!("{head}{to}"));
        }
    }
    e
}

/// Does a SELECT's FROM clause read a derived table?
pub fn from_has_derived(q: &ast::Query) -> bool {
    let ast::SetExpr::Select(s) = q.body.as_ref() else {
        return false;
    };
    fn factor(f: &ast::TableFactor) -> bool {
        match f {
            ast::TableFactor::Derived { .. } => true,
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                factor(&table_with_joins.relation)
                    || table_with_joins.joins.iter().any(|j| factor(&j.relation))
            }
            _ => false,
        }
    }
    s.from
        .iter()
        .any(|t| factor(&t.relation) || t.joins.iter().any(|j| factor(&j.relation)))
}

pub(super) fn column_count_error() -> Error {
    Error::new(
        ErrorCode::WrongNumberOfColumnsInSelect,
        "The used SELECT statements have a different number of columns",
    )
}

/// The result types of operands combined by a set operation (or a recursive CTE's anchors):
/// 1222 when their column counts differ.
pub(super) fn union_types(parts: &[QueryPlan]) -> Result<Vec<SqlType>> {
    let mut types = parts[0].types.clone();
    for p in &parts[1..] {
        if p.types.len() != types.len() {
            return Err(column_count_error());
        }
        for (a, b) in types.iter().zip(&p.types) {
            // utf8mb4_general_ci against utf8mb4_unicode_520_ci of one strength (MariaDB 1271).
            if crate::sql::bind::derivation::check_mix([a, b], "UNION").is_err() {
                return Err(crate::error::Error::new(
                    cohort_protocol::ErrorCode::CantAggregateNCollations,
                    "Illegal mix of collations for operation 'UNION'",
                ));
            }
        }
        types = types
            .iter()
            .zip(&p.types)
            .map(|(a, b)| union_type(a, b))
            .collect();
    }
    Ok(types)
}

fn set_op(ops: Vec<(Op, bool)>, parts: Vec<QueryPlan>) -> Result<QueryPlan> {
    let types = union_types(&parts)?;
    let distinct = ops.iter().any(|(_, all)| !all);
    let columns = result_columns(&parts[0].columns, &types, distinct);
    Ok(QueryPlan {
        node: Node::SetOp(Box::new(SetOp { ops, parts })),
        columns,
        types,
    })
}

/// The column definitions of a set operation's result: named after the first operand's
/// columns, typed by the unified types. MariaDB sends a DISTINCT result from its temporary
/// table (the name as the original name, no BINARY flag on numbers), an ALL result as
/// expressions.
pub(super) fn result_columns(
    first: &[ColumnDefinition],
    types: &[SqlType],
    distinct: bool,
) -> Vec<ColumnDefinition> {
    first
        .iter()
        .zip(types)
        .map(|(c, t)| {
            let mut d = coldef::expr_column(&c.name, t);
            if t.class == Class::Null {
                d.column_type = ColumnType::STRING;
                d.column_length = 0;
            }
            if distinct {
                as_temp_table_field(&mut d, t);
            }
            d
        })
        .collect()
}

/// A result column as MariaDB describes it when the result went through its temporary table
/// (DISTINCT, or ORDER BY / LIMIT over a set operation): named as its original name, no BINARY
/// flag on numbers, the decimals of a stored string or double.
fn as_temp_table_field(d: &mut ColumnDefinition, t: &SqlType) {
    d.org_name = d.name.clone();
    match t.class {
        Class::Int | Class::Decimal => d.flags &= !column_flags::BINARY,
        Class::Double => {
            d.flags &= !column_flags::BINARY;
            d.decimals = crate::sql::bind::sqltype::FLOATING_POINT_DECIMALS;
        }
        Class::Str | Class::Bin => d.decimals = 0,
        _ => {}
    }
}

/// The order of MariaDB's integer wire types by width.
fn int_rank(w: ColumnType) -> u8 {
    match w {
        ColumnType::TINY => 1,
        ColumnType::SHORT => 2,
        ColumnType::INT24 => 3,
        ColumnType::LONG => 4,
        ColumnType::YEAR => 0,
        _ => 5,
    }
}

fn int_wire(rank: u8) -> ColumnType {
    match rank {
        0 | 1 => ColumnType::TINY,
        2 => ColumnType::SHORT,
        3 => ColumnType::INT24,
        4 => ColumnType::LONG,
        _ => ColumnType::LONGLONG,
    }
}

/// The type of a result column of two operands' columns (MariaDB's aggregation for UNION).
pub fn union_type(a: &SqlType, b: &SqlType) -> SqlType {
    use Class::*;
    let nullable = a.nullable || b.nullable;
    let t = match (a.class, b.class) {
        (Null, _) => b.clone(),
        (_, Null) => a.clone(),
        (Int, Int) => {
            let (ra, rb) = (int_rank(a.wire), int_rank(b.wire));
            if a.unsigned == b.unsigned {
                let mut t = if ra >= rb { a.clone() } else { b.clone() };
                t.wire = int_wire(ra.max(rb));
                t.length = a.length.max(b.length);
                t
            } else {
                let u = if a.unsigned { a } else { b };
                let s = if a.unsigned { b } else { a };
                if int_rank(u.wire) >= 5 {
                    SqlType::decimal(20, 0)
                } else {
                    let rank = (int_rank(u.wire) + 1).max(int_rank(s.wire));
                    let mut t = SqlType::int(a.length.max(b.length) + 1);
                    t.wire = int_wire(rank);
                    t
                }
            }
        }
        (Int | Decimal, Int | Decimal) => {
            let digits = |t: &SqlType| {
                let p = decimal_precision(t);
                p.saturating_sub(u32::from(t.decimals.min(38)))
            };
            let scale = a.decimals.max(b.decimals).min(38);
            let ints = digits(a).max(digits(b));
            SqlType::decimal((ints + u32::from(scale)).min(65), scale)
        }
        (Int | Decimal | Double, Int | Decimal | Double) => {
            let mut t = SqlType::double();
            if a.wire == ColumnType::FLOAT && b.wire == ColumnType::FLOAT {
                t.wire = ColumnType::FLOAT;
            }
            t.length = a.length.max(b.length);
            t
        }
        (Date, Date) => a.clone(),
        (Date | DateTime, Date | DateTime) => {
            let fsp = if a.class == DateTime { a.decimals } else { 0 }
                .max(if b.class == DateTime { b.decimals } else { 0 });
            let mut t = SqlType::datetime(fsp);
            if a.wire == ColumnType::TIMESTAMP && b.wire == ColumnType::TIMESTAMP {
                t.wire = ColumnType::TIMESTAMP;
            }
            t
        }
        // A binary string with a character string of a stronger derivation (a column with
        // a hex literal) is a character string: see the last arm.
        (Bin, _) | (_, Bin) if !char_wins(a, b) => {
            let len = byte_len(a).max(byte_len(b));
            let mut t = SqlType::varbinary(len);
            // BINARY(n) with BINARY or a number or date stays fixed-length (padded).
            let fixed =
                |x: &SqlType| x.wire == ColumnType::STRING || !matches!(x.class, Str | Bin | Null);
            if a.wire == ColumnType::BLOB || b.wire == ColumnType::BLOB {
                t.wire = ColumnType::BLOB;
            } else if fixed(a) && fixed(b) {
                t.wire = ColumnType::STRING;
            }
            t
        }
        _ => {
            let chars = a.char_len().max(b.char_len());
            let mut t = SqlType::varchar(chars);
            if a.wire == ColumnType::BLOB || b.wire == ColumnType::BLOB {
                t.wire = ColumnType::BLOB;
                t.length = a.length.max(b.length);
            } else if a.wire == ColumnType::STRING && b.wire == ColumnType::STRING {
                t.wire = ColumnType::STRING;
            }
            // The aggregated collation (utf8mb4_bin over utf8mb4_general_ci, a column's over
            // a literal's: see bind/derivation.rs).
            let (coll, der) = crate::sql::bind::derivation::aggregate([a, b]);
            t.collation = match coll {
                Collation::Binary => Collation::Utf8mb4GeneralCi,
                c => c,
            };
            t.derivation = der.min(crate::sql::bind::derivation::Derivation::Coercible);
            t
        }
    };
    t.with_nullable(nullable)
}

/// True when a binary and a character operand of a set operation aggregate to the character
/// string's collation (`ci_col UNION X'00'` is utf8mb4_general_ci, as MariaDB's column).
fn char_wins(a: &SqlType, b: &SqlType) -> bool {
    matches!(
        (a.class, b.class),
        (Class::Bin, Class::Str) | (Class::Str, Class::Bin)
    ) && crate::sql::bind::derivation::aggregate([a, b]).0 != Collation::Binary
}

/// Bytes of a type's values as a binary string.
fn byte_len(t: &SqlType) -> u32 {
    match t.class {
        Class::Str | Class::Bin => t.length,
        _ => t.char_len(),
    }
}

/// ORDER BY / LIMIT over a query's result columns.
fn plan_sorted(
    env: &Env<'_>,
    params: &[Location],
    q: &ast::Query,
    input: QueryPlan,
) -> Result<QueryPlan> {
    let scope = TableScope {
        db: String::new(),
        table: String::new(),
        alias: None,
        columns: input
            .columns
            .iter()
            .zip(&input.types)
            .map(|(c, t)| ScopeColumn {
                name: c.name.clone(),
                ty: t.clone(),
                utc: false,
            })
            .collect(),
    };
    let width = input.types.len();
    let mut order = Vec::new();
    let mut hidden = Vec::new();
    {
        let mut b = Binder::new(env, params, Some(&scope));
        b.clause = "ORDER BY";
        if let Some(ob) = &q.order_by {
            let list = match &ob.kind {
                ast::OrderByKind::Expressions(list) => list,
                ast::OrderByKind::All(_) => return Err(unsupported("ORDER BY ALL")),
            };
            for o in list {
                let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
                if let ast::Expr::Value(v) = &o.expr {
                    if let ast::Value::Number(n, _) = &v.value {
                        if n.bytes().all(|c| c.is_ascii_digit()) {
                            let pos: usize = n.parse().unwrap_or(0);
                            if pos == 0 || pos > width {
                                return Err(Error::new(
                                    ErrorCode::BadField,
                                    format!("Unknown column '{n}' in 'ORDER BY'"),
                                ));
                            }
                            order.push(SortKey {
                                col: pos - 1,
                                desc,
                                coll: sort_coll(&input.types[pos - 1]),
                            });
                            continue;
                        }
                    }
                }
                if let Some(table) = qualified_name(&o.expr) {
                    return Err(Error::new(
                        ErrorCode::TableNameInUnionOrder,
                        format!(
                            "Table '{table}' from one of the SELECTs cannot be used in ORDER BY"
                        ),
                    ));
                }
                let (x, t) = b.bind(&o.expr).map_err(|e| {
                    if e.code() == ErrorCode::InvalidGroupFuncUse {
                        Error::new(
                            ErrorCode::AggregateOrderForUnion,
                            format!(
                                "Expression #{} of ORDER BY contains aggregate function and \
                                 applies to a UNION",
                                order.len() + 1
                            ),
                        )
                    } else {
                        e
                    }
                })?;
                let coll = sort_coll(&t);
                if let Expr::Col(c) = x {
                    order.push(SortKey { col: c, desc, coll });
                    continue;
                }
                hidden.push(x);
                order.push(SortKey {
                    col: width + hidden.len() - 1,
                    desc,
                    coll,
                });
            }
        }
    }
    let (limit, offset) = bind_limit(env, params, q)?;
    let mut columns = input.columns.clone();
    if matches!(input.node, Node::SetOp(_)) {
        for (d, t) in columns.iter_mut().zip(&input.types) {
            as_temp_table_field(d, t);
        }
    }
    Ok(QueryPlan {
        columns,
        types: input.types.clone(),
        node: Node::Sorted(Box::new(Sorted {
            input,
            order,
            hidden,
            limit,
            offset,
            counts_found_rows: false,
        })),
    })
}

/// The table of the first qualified column name in an ORDER BY expression over a set
/// operation's result (MariaDB refuses it: 1250).
fn qualified_name(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
            Some(parts[parts.len() - 2].value.clone())
        }
        ast::Expr::Nested(x) | ast::Expr::UnaryOp { expr: x, .. } => {
            stack_safe(|| qualified_name(x))
        }
        ast::Expr::BinaryOp { left, right, .. } => {
            stack_safe(|| qualified_name(left).or_else(|| qualified_name(right)))
        }
        _ => None,
    }
}

pub(super) fn sort_coll(t: &SqlType) -> Collation {
    if t.class == Class::Str {
        t.collation
    } else {
        Collation::Binary
    }
}

fn bind_limit(
    env: &Env<'_>,
    params: &[Location],
    q: &ast::Query,
) -> Result<(Option<Expr>, Option<Expr>)> {
    let mut b = Binder::new(env, params, None);
    b.clause = "field list";
    super::select::bind_limit(&mut b, q)
}

// ---------------------------------------------------------------------------------------------
// Execution

/// Run a query expression: its rows (the visible columns, converted to the result types).
/// Every part reads with `txn` (one read view for the whole statement).
pub fn run_query(
    plan: &QueryPlan,
    env: &Env<'_>,
    txn: Option<&mut Txn>,
) -> Result<Vec<Vec<Value>>> {
    let mut txn = txn;
    stack_safe(|| run_node(plan, env, &mut txn))
}

fn run_node(
    plan: &QueryPlan,
    env: &Env<'_>,
    txn: &mut Option<&mut Txn>,
) -> Result<Vec<Vec<Value>>> {
    match &plan.node {
        Node::Select(s) => select::run_select(s, env, txn.as_deref_mut()),
        Node::SetOp(s) => {
            let colls: Vec<Collation> = plan.types.iter().map(sort_coll).collect();
            let mut acc = run_query(&s.parts[0], env, txn.as_deref_mut())?;
            convert_rows(&mut acc, &s.parts[0].types, &plan.types, env)?;
            for (p, (op, all)) in s.parts[1..].iter().zip(&s.ops) {
                let mut rows = run_query(p, env, txn.as_deref_mut())?;
                convert_rows(&mut rows, &p.types, &plan.types, env)?;
                acc = combine(*op, *all, acc, rows, &colls)?;
            }
            Ok(acc)
        }
        Node::Sorted(s) => {
            let limit = select::eval_count(&s.limit, env)?;
            let offset = select::eval_count(&s.offset, env)?.unwrap_or(0);
            let mut rows = run_query(&s.input, env, txn.as_deref_mut())?;
            if !s.order.is_empty() {
                if !s.hidden.is_empty() {
                    for r in &mut rows {
                        let mut extra = Vec::with_capacity(s.hidden.len());
                        for h in &s.hidden {
                            extra.push(h.eval(&RowCtx::of(r), env)?);
                        }
                        r.extend(extra);
                    }
                }
                select::sort_rows(&s.order, &mut rows);
            }
            if s.counts_found_rows {
                env.found_rows.set(Some(rows.len() as u64));
            }
            let start = (offset.min(usize::MAX as u64) as usize).min(rows.len());
            let end = match limit {
                Some(l) => start
                    .saturating_add(l.min(usize::MAX as u64) as usize)
                    .min(rows.len()),
                None => rows.len(),
            };
            let width = plan.types.len();
            let mut out: Vec<Vec<Value>> = rows.drain(start..end).collect();
            for r in &mut out {
                r.truncate(width);
            }
            Ok(out)
        }
        Node::Recursive(r) => run_recursive(r, plan, env, txn),
    }
}

/// Convert an operand's values to the result's column types (a number or date becoming a
/// string shows as its type shows it: a DECIMAL's scale, a DATETIME(n)'s n digits).
pub(super) fn convert_rows(
    rows: &mut [Vec<Value>],
    from: &[SqlType],
    to: &[SqlType],
    env: &Env<'_>,
) -> Result<()> {
    let changes: Vec<(usize, Class, Option<Expr>)> = from
        .iter()
        .zip(to)
        .enumerate()
        .filter(|(_, (f, t))| {
            (f.class != t.class && t.class != Class::Null)
                // (A decimal quotient carries digits past its scale: the result column
                // rounds them, so -4 / 1e30 is 0.0000 and one row with 0 in a UNION.)
                || t.class == Class::Decimal
                || padded(t) && f.length < t.length
        })
        .map(|(i, (f, t))| {
            // (A DECIMAL becomes the text of its value, every digit a quotient carries, as
            // MariaDB stores a decimal in a string column: `10 / 7 UNION SELECT DATE'…'` shows
            // 1.428571428.)
            let text = (matches!(t.class, Class::Str | Class::Bin) && f.class != Class::Decimal)
                .then(|| {
                    crate::sql::bind::number_as_text(
                        crate::sql::bind::datetime_as_text(Expr::Col(i), f),
                        f,
                    )
                });
            (i, t.class, text.filter(|e| !matches!(e, Expr::Col(_))))
        })
        .collect();
    if changes.is_empty() {
        return Ok(());
    }
    for r in rows {
        for (i, class, text) in &changes {
            let shown = match text {
                Some(e) => Some(e.eval(&RowCtx::of(r), env)?),
                None => None,
            };
            if let Some(v) = r.get_mut(*i) {
                let old = match shown {
                    Some(s) => s,
                    None => std::mem::replace(v, Value::Null),
                };
                *v = coerce(old, *class);
                if *class == Class::Str && from[*i].class == Class::Decimal {
                    // A DECIMAL past its type's digits (a product of two wide constants) is
                    // cut to the result column's length, as MariaDB stores it in a VARCHAR.
                    cut_to_length(v, to[*i].char_len());
                }
                if *class == Class::Decimal {
                    round_decimal(v, &to[*i]);
                    clip_decimal(v, &to[*i]);
                }
                if padded(&to[*i]) {
                    if let Value::Bytes(b) = v {
                        let want = to[*i].length as usize;
                        if b.len() < want {
                            let mut p = b.to_vec();
                            p.resize(want, 0);
                            *v = Value::Bytes(p);
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// A string value cut to at most `chars` characters.
fn cut_to_length(v: &mut Value, chars: u32) {
    if let Value::Bytes(b) = v {
        let Ok(text) = std::str::from_utf8(b) else {
            return;
        };
        if let Some((at, _)) = text.char_indices().nth(chars as usize) {
            b.truncate(at);
        }
    }
}

/// A BINARY(n) result: values are padded with zero bytes to n.
fn padded(t: &SqlType) -> bool {
    t.class == Class::Bin && t.wire == ColumnType::STRING
}

/// A DECIMAL value with more fractional digits than its result column's scale, rounded to it
/// (a quotient's working digits), as when MariaDB stores it in its result table.
pub(super) fn round_decimal(v: &mut Value, t: &SqlType) {
    if let Value::Decimal(d) = v {
        let scale = t.decimals.min(cohort_decimal::MAX_SCALE);
        if d.scale() > scale {
            if let Ok(r) = d.rescale(scale) {
                *d = r;
            }
        }
    }
}

/// A DECIMAL value past its column's digits becomes the column's largest (or smallest) value,
/// as when MariaDB stores it in its result table.
fn clip_decimal(v: &mut Value, t: &SqlType) {
    let Value::Decimal(d) = v else { return };
    let scale = t.decimals.min(38);
    let precision = decimal_precision(t).min(81);
    let ints = precision.saturating_sub(u32::from(scale));
    if d.fits_integer_digits(ints) {
        return;
    }
    let max = crate::types::Decimal::max_of(precision as u8, scale);
    *v = Value::Decimal(if d.is_negative() { max.neg() } else { max });
}

pub(super) fn row_key(r: &[Value], colls: &[Collation]) -> Vec<u8> {
    let mut k = Vec::new();
    for (v, c) in r.iter().zip(colls) {
        compare::group_key(v, *c, &mut k);
    }
    k
}

/// Combine two operands' rows.
fn combine(
    op: Op,
    all: bool,
    left: Vec<Vec<Value>>,
    right: Vec<Vec<Value>>,
    colls: &[Collation],
) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    match (op, all) {
        (Op::Union, true) => {
            out = left;
            out.extend(right);
        }
        (Op::Union, false) => {
            let mut seen = HashSet::new();
            for r in left.into_iter().chain(right) {
                crate::memory::check(0)?;
                if seen.insert(row_key(&r, colls)) {
                    out.push(r);
                }
            }
        }
        (Op::Intersect | Op::Except, _) => {
            let mut counts: HashMap<Vec<u8>, u64> = HashMap::new();
            for r in &right {
                crate::memory::check(0)?;
                *counts.entry(row_key(r, colls)).or_default() += 1;
            }
            drop(right);
            let mut emitted = HashSet::new();
            for r in left {
                let k = row_key(&r, colls);
                let n = counts.get(&k).copied().unwrap_or(0);
                let keep = match (op, all) {
                    (Op::Intersect, true) => {
                        if n > 0 {
                            counts.insert(k, n - 1);
                            true
                        } else {
                            false
                        }
                    }
                    (Op::Except, true) => {
                        if n > 0 {
                            counts.insert(k, n - 1);
                            false
                        } else {
                            true
                        }
                    }
                    (Op::Intersect, false) => n > 0 && emitted.insert(k),
                    _ => n == 0 && emitted.insert(k),
                };
                if keep {
                    out.push(r);
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::session::state::{ServerContext, SessionState};
    use crate::sql::{execute_text, QueryResult};

    /// Run statements on a connection-sized stack; the last one's row count.
    fn rows_on_small_stack(sqls: Vec<String>) -> Vec<std::result::Result<usize, u16>> {
        std::thread::Builder::new()
            .stack_size(crate::net::CONNECTION_STACK)
            .spawn(move || {
                let ctx = ServerContext::for_tests();
                let mut sess = SessionState::new(1, "root", "%", None);
                sqls.iter()
                    .map(|sql| {
                        let r = execute_text(&ctx, &mut sess, sql);
                        let _ = sess.end_statement(&ctx, r.is_ok());
                        match r {
                            Ok(QueryResult::Rows { rows, .. }) => Ok(rows.len()),
                            Ok(_) => Ok(0),
                            Err(e) => Err(e.code().number()),
                        }
                    })
                    .collect()
            })
            .expect("thread")
            .join()
            .expect("no stack overflow")
    }

    #[test]
    fn long_and_deep_query_forms_stay_on_the_stack() {
        let long_union = format!("SELECT 1{}", " UNION ALL SELECT 1".repeat(20_000));
        let alternating = format!(
            "SELECT 1{}",
            " UNION SELECT 1 UNION ALL SELECT 2".repeat(5_000)
        );
        let parens = format!("{}SELECT 1{}", "(".repeat(900), ")".repeat(900));
        let right_deep = format!(
            "SELECT 1 UNION {}SELECT 2{}",
            "(SELECT 1 UNION ".repeat(800),
            ")".repeat(800)
        );
        let derived = format!(
            "SELECT * FROM {}(SELECT 1 a) x{}",
            "(SELECT * FROM ".repeat(400),
            ") x".repeat(400)
        );
        let ctes: Vec<String> = (0..300)
            .map(|i| match i {
                0 => "w0 AS (SELECT 1 a)".to_string(),
                _ => format!("w{i} AS (SELECT * FROM w{})", i - 1),
            })
            .collect();
        let cte_chain = format!("WITH {} SELECT * FROM w299", ctes.join(", "));
        let got = rows_on_small_stack(vec![
            long_union,
            alternating,
            parens,
            right_deep,
            derived,
            cte_chain,
        ]);
        assert_eq!(got[0], Ok(20_001));
        assert_eq!(got[1], Ok(3));
        assert_eq!(got[2], Ok(1));
        assert_eq!(got[3], Ok(2));
        assert_eq!(got[4], Ok(1));
        assert_eq!(got[5], Ok(1));
    }

    #[test]
    fn recursion_is_bounded_by_rounds_and_memory() {
        let got = rows_on_small_stack(vec![
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r"
                .to_string(),
            "SET max_recursive_iterations = 5".to_string(),
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r"
                .to_string(),
            "WITH RECURSIVE r (n) AS (SELECT 1 UNION SELECT n FROM r) SELECT * FROM r".to_string(),
        ]);
        assert_eq!(got[0], Ok(1001));
        assert_eq!(got[2], Ok(6));
        assert_eq!(got[3], Ok(1));
    }
}
