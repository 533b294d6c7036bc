//! Derived tables and common table expressions: binding a FROM item that is a derived table
//! or names a CTE into a [`Derived`] row source, the per-thread stack of the CTEs in sight while
//! a WITH clause is bound, recursive CTEs (bound as a [`Recursive`] node of `exec/query.rs`,
//! run round by round over a working table), and leaving out the columns an outer query never
//! reads. See `exec/query.rs` for the whole picture.

use super::query::{
    column_count_error, convert_rows, from_has_derived, plan_query, plan_set_expr, result_columns,
    row_key, run_query, sort_coll, stack_safe, unsupported, with_columns_error, Node, QueryPlan,
    Recursive,
};
use crate::error::{Error, Result};
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::bind::{ScopeColumn, TableScope};
use crate::sql::env::Env;
use crate::sql::expr::Expr;
use crate::storage::{Row, Txn};
use crate::types::{Collation, Value};
use cohort_protocol::column::{ColumnDefinition, ColumnType};
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use sqlparser::tokenizer::Location;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A derived table or CTE reference: a row set with a table scope.
pub struct Derived {
    pub scope: TableScope,
    /// Column definitions of its columns as a SELECT of them sends them.
    pub columns: Vec<ColumnDefinition>,
    pub body: DerivedBody,
    /// For a view: the view catalog's change count it was planned with (stale once it moves).
    pub view_version: Option<u64>,
}

pub enum DerivedBody {
    Query(QueryPlan),
    /// The rows of the current round of a recursive CTE (by id).
    Working(u64),
}

impl Derived {
    pub fn is_stale(&self) -> bool {
        if self
            .view_version
            .is_some_and(|v| v != crate::sql::exec::ddl::view::view_changes())
        {
            return true;
        }
        match &self.body {
            DerivedBody::Query(q) => q.is_stale(),
            DerivedBody::Working(_) => false,
        }
    }

    /// The engine tables it reads.
    pub fn table_refs(&self) -> Vec<&crate::sql::plan::TableRef> {
        match &self.body {
            DerivedBody::Query(q) => q.table_refs(),
            DerivedBody::Working(_) => Vec::new(),
        }
    }

    /// Its rows, computed with the statement's transaction.
    pub fn materialize(&self, env: &Env<'_>, txn: Option<&mut Txn>) -> Result<Arc<Vec<Row>>> {
        match &self.body {
            DerivedBody::Query(q) => {
                let rows = run_query(q, env, txn)?;
                Ok(Arc::new(rows.into_iter().map(Row::from).collect()))
            }
            DerivedBody::Working(id) => WORKING.with(|w| {
                w.borrow()
                    .get(id)
                    .cloned()
                    .ok_or_else(|| Error::internal("a recursive reference outside its CTE"))
            }),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Derived tables and CTEs

/// One CTE visible while a WITH clause is bound.
struct Cte {
    name: String,
    query: Arc<ast::Query>,
    columns: Vec<String>,
    recursive: bool,
    /// While its recursive operands are bound: the working table it names.
    working: Option<Arc<Working>>,
}

struct Working {
    id: u64,
    scope_columns: Vec<ScopeColumn>,
    columns: Vec<ColumnDefinition>,
}

thread_local! {
    /// The CTEs of the WITH clauses being bound on this thread, innermost last.
    static CTES: RefCell<Vec<Cte>> = const { RefCell::new(Vec::new()) };
    /// The working tables of the recursive CTEs running on this thread.
    static WORKING: RefCell<HashMap<u64, Arc<Vec<Row>>>> = RefCell::new(HashMap::new());
}

static NEXT_WORKING: AtomicU64 = AtomicU64::new(1);

/// Pops the frames of a WITH clause (or restores a cut stack) when dropped.
pub(super) struct Frames {
    keep: usize,
    restore: Vec<Cte>,
}

impl Drop for Frames {
    fn drop(&mut self) {
        CTES.with(|c| {
            let mut c = c.borrow_mut();
            c.truncate(self.keep);
            c.append(&mut self.restore);
        });
    }
}

pub(super) fn push_ctes(w: &ast::With) -> Result<Frames> {
    let keep = CTES.with(|c| c.borrow().len());
    let frames = Frames {
        keep,
        restore: Vec::new(),
    };
    let mut names: Vec<&str> = Vec::new();
    for cte in &w.cte_tables {
        let name = cte.alias.name.value.as_str();
        if names.contains(&name) {
            return Err(Error::new(
                ErrorCode::DupQueryName,
                format!("Duplicate query name `{name}` in WITH clause"),
            ));
        }
        names.push(name);
        if cte.materialized.is_some() || cte.from.is_some() {
            return Err(Error::parse("MATERIALIZED", 1));
        }
        let columns = cte
            .alias
            .columns
            .iter()
            .map(|c| c.name.value.clone())
            .collect();
        CTES.with(|c| {
            c.borrow_mut().push(Cte {
                name: name.to_string(),
                query: Arc::new((*cte.query).clone()),
                columns,
                recursive: w.recursive,
                working: None,
            })
        });
    }
    Ok(frames)
}

/// Is any CTE visible (while binding)?
pub fn ctes_visible() -> bool {
    CTES.with(|c| !c.borrow().is_empty())
}

/// The text of the parts of a SELECT that can read the columns of its FROM items (items,
/// WHERE, GROUP BY, HAVING, ORDER BY, ON and USING), lower-cased: a derived table's column
/// whose name it does not contain is never read. None when every column may be read (`*`,
/// `t.*`, NATURAL joins), or when the SELECT reads no derived table or CTE.
pub fn outer_text(q: &ast::Query, s: &ast::Select) -> Option<String> {
    if !from_has_derived(q) && !ctes_visible() {
        return None;
    }
    let mut text = String::new();
    for item in &s.projection {
        match item {
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => return None,
            other => text.push_str(&other.to_string()),
        }
        text.push(' ');
    }
    for twj in &s.from {
        for j in &twj.joins {
            use ast::JoinOperator as J;
            let c = match &j.join_operator {
                J::Join(c)
                | J::Inner(c)
                | J::Left(c)
                | J::LeftOuter(c)
                | J::Right(c)
                | J::RightOuter(c)
                | J::CrossJoin(c)
                | J::StraightJoin(c) => c,
                _ => return None,
            };
            match c {
                ast::JoinConstraint::Natural => return None,
                ast::JoinConstraint::On(e) => text.push_str(&e.to_string()),
                ast::JoinConstraint::Using(cols) => {
                    for c in cols {
                        text.push_str(&c.to_string());
                        text.push(' ');
                    }
                }
                ast::JoinConstraint::None => {}
            }
            text.push(' ');
        }
        if matches!(twj.relation, ast::TableFactor::NestedJoin { .. }) {
            return None;
        }
    }
    if let Some(w) = &s.selection {
        text.push_str(&w.to_string());
    }
    text.push(' ');
    text.push_str(&s.group_by.to_string());
    if let Some(h) = &s.having {
        text.push_str(&h.to_string());
    }
    if let Some(o) = &q.order_by {
        text.push_str(&o.to_string());
    }
    // A node the parser set aside (`[n]`) hides its text: every column may be read.
    if text.contains('[') {
        return None;
    }
    Some(text.to_lowercase())
}

/// Leave out the columns of a derived table the outer query never reads (`outer` from
/// [`outer_text`]): MariaDB merges such a derived table into the outer query, so it never
/// computes them (an overflow in an unread column is no error there). Only a plain SELECT body
/// without DISTINCT or LIMIT (whose rows do not depend on every column) is pruned.
pub fn prune_unread(d: &mut Derived, outer: &str) {
    let DerivedBody::Query(q) = &mut d.body else {
        return;
    };
    let Node::Select(sp) = &mut q.node else {
        return;
    };
    if sp.distinct || sp.limit.is_some() || sp.offset.is_some() {
        return;
    }
    for (item, col) in sp.items.iter_mut().zip(&d.scope.columns) {
        if !outer.contains(&col.name.to_lowercase()) {
            item.expr = Expr::Lit(Value::Null);
            item.coerce = None;
        }
    }
}

/// Is a CTE named `name` visible (while binding)? Quick when no WITH is being bound.
pub fn cte_frame(name: &str) -> bool {
    CTES.with(|c| c.borrow().iter().any(|f| f.name == name))
}

/// A FROM item that is a derived table, or a table name that names a visible CTE: its plan.
/// None for an ordinary table.
pub fn derived_factor(
    env: &Env<'_>,
    params: &[Location],
    f: &ast::TableFactor,
) -> Result<Option<Derived>> {
    match f {
        ast::TableFactor::Derived {
            lateral,
            subquery,
            alias,
            ..
        } => {
            if *lateral {
                return Err(unsupported("LATERAL"));
            }
            let Some(alias) = alias else {
                return Err(Error::parse("", 1));
            };
            if !alias.columns.is_empty() {
                let list: Vec<String> =
                    alias.columns.iter().map(|c| c.name.value.clone()).collect();
                return Err(Error::parse(&format!("({})", list.join(",")), 1));
            }
            crate::sql::parse::surface::query(subquery)?;
            let plan = stack_safe(|| plan_query(env, params, subquery, &[], None))?;
            derived_of(plan, &alias.name.value, &[]).map(Some)
        }
        ast::TableFactor::Table { name, alias, .. } => {
            let cte = match name.0.as_slice() {
                [ast::ObjectNamePart::Identifier(id)] if cte_frame(&id.value) => Some(id),
                _ => None,
            };
            let Some(id) = cte else {
                return view_factor(env, name, alias.as_ref());
            };
            let visible = alias.as_ref().map_or(&id.value, |a| &a.name.value);
            cte_reference(env, params, &id.value, visible).map(Some)
        }
        _ => Ok(None),
    }
}

/// A table name that names a view: its query as a derived table (`exec/ddl/view.rs`).
fn view_factor(
    env: &Env<'_>,
    name: &ast::ObjectName,
    alias: Option<&ast::TableAlias>,
) -> Result<Option<Derived>> {
    use crate::sql::exec::ddl::view;
    let Some((db, v)) = view::view_named(env, name)? else {
        return Ok(None);
    };
    // SELECT on the view itself; its query's tables are checked as it is planned (with the
    // definer's privileges unless it is SQL SECURITY INVOKER).
    crate::sql::plan::check_table_priv(env, &db, &v.name, crate::accounts::Privs::SELECT)?;
    let version = view::view_changes();
    let plan = stack_safe(|| view::plan_view(env, &db, &v))?;
    let visible = alias.map_or(v.name.as_str(), |a| a.name.value.as_str());
    let mut d = derived_of(plan, visible, &v.columns)?;
    d.view_version = Some(version);
    d.scope.db = db;
    Ok(Some(d))
}

/// A derived table over `plan`, named `alias`, its columns renamed by `names` if given.
fn derived_of(plan: QueryPlan, alias: &str, names: &[String]) -> Result<Derived> {
    if !names.is_empty() && names.len() != plan.columns.len() {
        return Err(with_columns_error());
    }
    let mut scope_columns = Vec::with_capacity(plan.columns.len());
    let mut columns = Vec::with_capacity(plan.columns.len());
    for (i, (c, t)) in plan.columns.iter().zip(&plan.types).enumerate() {
        let name = names.get(i).cloned().unwrap_or_else(|| c.name.clone());
        if scope_columns
            .iter()
            .any(|s: &ScopeColumn| s.name.eq_ignore_ascii_case(&name))
        {
            return Err(Error::new(
                ErrorCode::DupFieldName,
                format!("Duplicate column name '{name}'"),
            ));
        }
        let mut d = c.clone();
        d.table = alias.to_string();
        d.org_table = alias.to_string();
        d.org_name = name.clone();
        d.name = name.clone();
        columns.push(d);
        scope_columns.push(ScopeColumn {
            name,
            ty: t.clone(),
            utc: false,
        });
    }
    Ok(Derived {
        scope: TableScope {
            db: String::new(),
            table: alias.to_string(),
            alias: Some(alias.to_string()),
            columns: scope_columns,
        },
        columns,
        body: DerivedBody::Query(plan),
        view_version: None,
    })
}

/// A reference to the visible CTE `name`, seen as `alias`.
fn cte_reference(env: &Env<'_>, params: &[Location], name: &str, alias: &str) -> Result<Derived> {
    let (k, query, names, recursive, working) = CTES.with(|c| {
        let c = c.borrow();
        let k = c.iter().rposition(|f| f.name == name).expect("visible");
        let f = &c[k];
        (
            k,
            f.query.clone(),
            f.columns.clone(),
            f.recursive,
            f.working.clone(),
        )
    });
    if let Some(w) = working {
        let mut columns = w.columns.clone();
        for d in &mut columns {
            d.table = alias.to_string();
            d.org_table = alias.to_string();
        }
        return Ok(Derived {
            scope: TableScope {
                db: String::new(),
                table: alias.to_string(),
                alias: Some(alias.to_string()),
                columns: w.scope_columns.clone(),
            },
            columns,
            body: DerivedBody::Working(w.id),
            view_version: None,
        });
    }
    let self_ref = recursive && references(&query, name);
    // Bind the body with the CTEs visible where it was defined (itself too when recursive).
    let _cut = CTES.with(|c| {
        let mut c = c.borrow_mut();
        let keep = if self_ref { k + 1 } else { k };
        let restore = c.split_off(keep);
        Frames { keep, restore }
    });
    let plan = if self_ref {
        stack_safe(|| plan_recursive(env, params, &query, name, &names))?
    } else {
        crate::sql::parse::surface::query(&query)?;
        stack_safe(|| plan_query(env, params, &query, &[], None))?
    };
    derived_of(plan, alias, &names)
}

/// Does `q` read a table named `name` (unqualified) anywhere in its FROM clauses?
fn references(q: &ast::Query, name: &str) -> bool {
    reference_count(q, name) > 0
}

/// How many times `q` reads a table named `name` (unqualified) in its FROM clauses.
fn reference_count(q: &ast::Query, name: &str) -> usize {
    fn set_expr(e: &ast::SetExpr, name: &str) -> usize {
        match e {
            ast::SetExpr::Select(s) => s
                .from
                .iter()
                .map(|t| {
                    factor(&t.relation, name)
                        + t.joins
                            .iter()
                            .map(|j| factor(&j.relation, name))
                            .sum::<usize>()
                })
                .sum(),
            ast::SetExpr::Query(q) => reference_count(q, name),
            ast::SetExpr::SetOperation { .. } => {
                let mut n = 0;
                let mut cur = e;
                while let ast::SetExpr::SetOperation { left, right, .. } = cur {
                    n += stack_safe(|| set_expr(right, name));
                    cur = left;
                }
                n + stack_safe(|| set_expr(cur, name))
            }
            _ => 0,
        }
    }
    fn factor(f: &ast::TableFactor, name: &str) -> usize {
        match f {
            ast::TableFactor::Table { name: n, .. } => usize::from(
                n.0.len() == 1
                    && matches!(n.0.first(), Some(ast::ObjectNamePart::Identifier(id)) if id.value == name),
            ),
            ast::TableFactor::Derived { subquery, .. } => reference_count(subquery, name),
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                factor(&table_with_joins.relation, name)
                    + table_with_joins
                        .joins
                        .iter()
                        .map(|j| factor(&j.relation, name))
                        .sum::<usize>()
            }
            _ => 0,
        }
    }
    stack_safe(|| set_expr(&q.body, name))
}

/// Bind a recursive CTE: `anchor UNION [ALL] step …` where the steps read `name`.
fn plan_recursive(
    env: &Env<'_>,
    params: &[Location],
    q: &ast::Query,
    name: &str,
    names: &[String],
) -> Result<QueryPlan> {
    crate::sql::parse::surface::query(q)?;
    if q.with.is_some() || q.order_by.is_some() || q.limit_clause.is_some() || !q.locks.is_empty() {
        return Err(unsupported(
            "WITH, ORDER BY, LIMIT or locking in a recursive CTE's body",
        ));
    }
    // The UNION chain's operands, left to right.
    let mut operands: Vec<&ast::SetExpr> = Vec::new();
    let mut distinct = false;
    let mut stack = vec![q.body.as_ref()];
    while let Some(e) = stack.pop() {
        match e {
            ast::SetExpr::SetOperation {
                op: ast::SetOperator::Union,
                set_quantifier,
                left,
                right,
            } => {
                if !matches!(set_quantifier, ast::SetQuantifier::All) {
                    distinct = true;
                }
                stack.push(right);
                stack.push(left);
            }
            other => operands.push(other),
        }
    }
    let wrap = |e: &ast::SetExpr| super::query::bare_query(e.clone(), Vec::new());
    let (steps_ast, anchors_ast): (Vec<&ast::SetExpr>, Vec<&ast::SetExpr>) = operands
        .into_iter()
        .partition(|e| references(&wrap(e), name));
    if anchors_ast.is_empty() {
        return Err(Error::new(
            ErrorCode::NotSupportedYet,
            format!("No anchors for recursive WITH element '{name}'"),
        ));
    }
    if steps_ast.is_empty() {
        return Err(unsupported("this recursive CTE form"));
    }
    // The anchors, bound without the CTE itself in sight.
    let anchors = {
        let _cut = CTES.with(|c| {
            let mut c = c.borrow_mut();
            let keep = c.len() - 1;
            let restore = c.split_off(keep);
            Frames { keep, restore }
        });
        anchors_ast
            .iter()
            .map(|e| plan_set_expr(env, params, e, &[]))
            .collect::<Result<Vec<_>>>()?
    };
    let types = super::query::union_types(&anchors)?;
    if !names.is_empty() && names.len() != types.len() {
        return Err(with_columns_error());
    }
    let columns = result_columns(&anchors[0].columns, &types, false);
    let col_names: Vec<String> = (0..types.len())
        .map(|i| {
            names
                .get(i)
                .cloned()
                .unwrap_or_else(|| columns[i].name.clone())
        })
        .collect();
    let id = NEXT_WORKING.fetch_add(1, Ordering::Relaxed);
    let working = Arc::new(Working {
        id,
        scope_columns: col_names
            .iter()
            .zip(&types)
            .map(|(n, t)| ScopeColumn {
                name: n.clone(),
                ty: t.clone(),
                utc: false,
            })
            .collect(),
        columns: columns
            .iter()
            .zip(&col_names)
            .map(|(c, n)| {
                let mut c = c.clone();
                c.name = n.clone();
                c.org_name = n.clone();
                c
            })
            .collect(),
    });
    CTES.with(|c| {
        if let Some(f) = c.borrow_mut().last_mut() {
            f.working = Some(working);
        }
    });
    let steps = steps_ast
        .iter()
        .map(|e| plan_set_expr(env, params, e, &[]))
        .collect::<Result<Vec<_>>>();
    CTES.with(|c| {
        if let Some(f) = c.borrow_mut().last_mut() {
            f.working = None;
        }
    });
    let steps = steps?;
    // MariaDB's restrictions: one reference per recursive operand, no grouping over it.
    let restricted = steps_ast
        .iter()
        .any(|e| reference_count(&wrap(e), name) > 1)
        || steps
            .iter()
            .any(|p| matches!(&p.node, Node::Select(sp) if sp.group.is_some()));
    if restricted {
        return Err(Error::new(
            ErrorCode::RecursiveRestrictions,
            format!(
                "Restrictions imposed on recursive definitions are violated for table '{name}'"
            ),
        ));
    }
    if steps.iter().any(|s| s.types.len() != types.len()) {
        return Err(column_count_error());
    }
    Ok(QueryPlan {
        node: Node::Recursive(Box::new(Recursive {
            id,
            anchors,
            steps,
            distinct,
            names: col_names,
        })),
        columns,
        types,
    })
}

/// A recursive step's string longer than the CTE's column (typed by the anchors): 1406 in
/// strict mode, else cut with warning 1265, as MariaDB storing it in the CTE's table.
fn fit_strings(
    row: &mut [Value],
    types: &[SqlType],
    names: &[String],
    row_no: usize,
    env: &Env<'_>,
) -> Result<()> {
    for (i, (v, t)) in row.iter_mut().zip(types).enumerate() {
        if !matches!(t.class, Class::Str | Class::Bin) || t.wire == ColumnType::BLOB {
            continue;
        }
        let Value::Bytes(b) = v else { continue };
        let cut = if t.class == Class::Str {
            let max = t.char_len() as usize;
            match std::str::from_utf8(b) {
                Ok(text) => text.char_indices().nth(max).map(|(at, _)| at),
                Err(_) => (b.len() > t.length as usize).then_some(t.length as usize),
            }
        } else {
            (b.len() > t.length as usize).then_some(t.length as usize)
        };
        let Some(at) = cut else { continue };
        let name = names.get(i).map_or("", String::as_str);
        if env.strict() {
            return Err(Error::new(
                ErrorCode::DataTooLong,
                format!("Data too long for column '{name}' at row {row_no}"),
            ));
        }
        env.warn(
            "Warning",
            ErrorCode::WarnDataTruncated,
            format!("Data truncated for column '{name}' at row {row_no}"),
        );
        *v = Value::Bytes(b[..at].to_vec());
    }
    Ok(())
}

/// Sets the working table of a recursive CTE for this thread; removed when dropped.
struct WorkingGuard(u64);

impl Drop for WorkingGuard {
    fn drop(&mut self) {
        WORKING.with(|w| w.borrow_mut().remove(&self.0));
    }
}

pub(super) fn run_recursive(
    r: &Recursive,
    plan: &QueryPlan,
    env: &Env<'_>,
    txn: &mut Option<&mut Txn>,
) -> Result<Vec<Vec<Value>>> {
    let max_rounds = match env.sys_var("max_recursive_iterations", false)? {
        Value::Int(i) => i.max(0) as u64,
        Value::UInt(u) => u,
        v => crate::sql::expr::convert::to_i64(&v).max(0) as u64,
    };
    let colls: Vec<Collation> = plan.types.iter().map(sort_coll).collect();
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut keep = |row: &[Value]| -> Result<bool> {
        crate::memory::check(0)?;
        Ok(!r.distinct || seen.insert(row_key(row, &colls)))
    };
    let mut rows: Vec<Vec<Value>> = Vec::new();
    for a in &r.anchors {
        let mut part = run_query(a, env, txn.as_deref_mut())?;
        convert_rows(&mut part, &a.types, &plan.types, env)?;
        for row in part {
            if keep(&row)? {
                rows.push(row);
            }
        }
    }
    let _guard = WorkingGuard(r.id);
    let mut fresh = 0..rows.len();
    let mut rounds = 0u64;
    while !fresh.is_empty() {
        if rounds >= max_rounds {
            env.warn(
                "Warning",
                ErrorCode::QueryResultIncomplete,
                format!(
                    "Query execution was interrupted. The query exceeded \
                     max_recursive_iterations = {max_rounds}. The query result may be incomplete"
                ),
            );
            break;
        }
        rounds += 1;
        let working: Vec<Row> = rows[fresh.clone()]
            .iter()
            .map(|r| Row::from(r.as_slice()))
            .collect();
        WORKING.with(|w| w.borrow_mut().insert(r.id, Arc::new(working)));
        let start = rows.len();
        for s in &r.steps {
            let mut part = run_query(s, env, txn.as_deref_mut())?;
            convert_rows(&mut part, &s.types, &plan.types, env)?;
            for mut row in part {
                fit_strings(&mut row, &plan.types, &r.names, rows.len() + 1, env)?;
                if keep(&row)? {
                    rows.push(row);
                }
            }
        }
        fresh = start..rows.len();
    }
    Ok(rows)
}
