//! Binding subqueries: `(SELECT …)`, `[NOT] EXISTS (…)`, `x [NOT] IN (SELECT …)`,
//! `(x, y) [NOT] IN (SELECT a, b …)`, `x op ANY | SOME | ALL (SELECT …)`.
//!
//! The subquery's body is bound by the same entry point as a SELECT statement
//! (`exec::select::plan_select`), with the scopes of the enclosing queries on a stack in the
//! statement's environment ([`State::frames`]): a name the subquery's own tables do not have
//! is looked up there, innermost first, and binds to [`Expr::Outer`] (`depth` levels up). The
//! references that reach past a subquery make it *correlated* and are the key of its
//! kept result (see `expr/subquery.rs`).
//!
//! Where a subquery may appear: a clause of SELECT (select list, WHERE, GROUP BY, HAVING,
//! ORDER BY), an inner join's ON (`State::inner_on`: run on the joined rows, as WHERE), the
//! VALUES and ON DUPLICATE KEY UPDATE of INSERT, the SET and WHERE of UPDATE, the WHERE of
//! DELETE, `SET @v = …` and DO (run as a SELECT, `exec/admin.rs`) — where the executor can
//! lend the transaction (`State::allowed`). Elsewhere (an outer join's ON, LIMIT, defaults,
//! ORDER BY of UPDATE / DELETE) it is still error 1235. Nesting deeper than MariaDB's 63
//! levels is error 1473.
//!
//! A body that is a UNION / INTERSECT / EXCEPT is bound as `SELECT * FROM (body) AS u`
//! (see [`set_operation_as_derived`]); outer references inside it resolve as in any body.
//!
//! Types: a scalar subquery has its column's type, nullable (no row is NULL); IN, ANY / ALL
//! are nullable INT(1), EXISTS a NOT NULL INT(1).

use super::sqltype::{Class, SqlType, NOT_FIXED_DEC};
use super::{cmp_op, comparison_collation, Binder};
use crate::error::{Error, Result};
use crate::sql::bind::AggSpec;
use crate::sql::exec::select::{self, SelectPlan};
use crate::sql::expr::subquery::{Frame, Kind, Subquery, AGG_TAG, MAX_SELECT_NESTING};
use crate::sql::expr::{CmpOp, Expr};
use crate::sql::parse;
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use std::cell::RefCell;
use std::sync::Arc;

fn operand_columns(n: usize) -> Error {
    Error::new(
        ErrorCode::OperandColumns,
        format!("Operand should contain {n} column(s)"),
    )
}

impl Binder<'_> {
    /// Bind a subquery expression (`e` is one of the subquery forms of `ast::Expr`).
    pub(super) fn bind_subquery(&mut self, e: &ast::Expr) -> Result<(Expr, SqlType)> {
        use ast::Expr as E;
        match e {
            E::Subquery(q) => {
                let (plan, refs) = self.plan_subquery(q)?;
                if plan.items.len() != 1 {
                    return Err(operand_columns(1));
                }
                let mut ty = plan.items[0].ty.clone().with_nullable(true);
                if matches!(ty.class, Class::Str | Class::Bin) {
                    ty.decimals = NOT_FIXED_DEC;
                }
                Ok((self.subquery(Kind::Scalar, plan, refs), ty))
            }
            E::Exists { subquery, negated } => {
                let (plan, refs) = self.plan_subquery(subquery)?;
                let kind = Kind::Exists { negated: *negated };
                Ok((self.subquery(kind, plan, refs), SqlType::int(1).not_null()))
            }
            E::InSubquery {
                expr,
                subquery,
                negated,
            } => {
                let parts: Vec<&ast::Expr> = match self.resolve(expr)? {
                    E::Tuple(v) => v.iter().collect(),
                    other => vec![other],
                };
                let mut left = Vec::with_capacity(parts.len());
                let mut types = Vec::with_capacity(parts.len());
                for p in parts {
                    let (x, t) = self.bind(p)?;
                    left.push(x);
                    types.push(t);
                }
                no_limit(subquery)?;
                let (plan, refs) = self.plan_subquery(subquery)?;
                if plan.items.len() != left.len() {
                    return Err(operand_columns(left.len()));
                }
                let colls = types
                    .iter()
                    .zip(&plan.items)
                    .map(|(t, it)| comparison_collation(t, &it.ty))
                    .collect();
                let hashable = types
                    .iter()
                    .zip(&plan.items)
                    .all(|(t, it)| hash_class(t) == hash_class(&it.ty) && hash_class(t).is_some());
                let kind = Kind::In {
                    left,
                    colls,
                    hashable,
                    negated: *negated,
                };
                Ok((self.subquery(kind, plan, refs), SqlType::int(1)))
            }
            E::AnyOp {
                left,
                compare_op,
                right,
                ..
            }
            | E::AllOp {
                left,
                compare_op,
                right,
            } => {
                let all = matches!(e, E::AllOp { .. });
                let op = match cmp_op(compare_op) {
                    Some(CmpOp::NullSafeEq) | None => {
                        return Err(Error::unsupported("this operator with ANY / ALL"))
                    }
                    Some(op) => op,
                };
                let mut r = self.resolve(right)?;
                while let E::Nested(inner) = r {
                    r = self.resolve(inner)?;
                }
                let E::Subquery(q) = r else {
                    return Err(Error::unsupported(
                        "ANY / ALL of something other than a subquery",
                    ));
                };
                let (x, t) = self.bind(left)?;
                no_limit(q)?;
                let (plan, refs) = self.plan_subquery(q)?;
                if plan.items.len() != 1 {
                    return Err(operand_columns(1));
                }
                let coll = comparison_collation(&t, &plan.items[0].ty);
                let kind = Kind::Quantified {
                    left: Box::new(x),
                    op,
                    all,
                    coll,
                };
                Ok((self.subquery(kind, plan, refs), SqlType::int(1)))
            }
            _ => Err(Error::internal("not a subquery")),
        }
    }

    fn subquery(&self, kind: Kind, plan: SelectPlan, outer_refs: Vec<(usize, usize)>) -> Expr {
        let s = Arc::new(Subquery {
            kind,
            plan,
            correlated: !outer_refs.is_empty(),
            outer_refs,
        });
        self.env.subq.bound.borrow_mut().push(s.clone());
        Expr::Subquery(s)
    }

    /// Bind the body of a subquery of the query this binder binds, with that query's scope
    /// as the innermost outer scope. Returns the plan and the outer references that reach
    /// past the subquery, as (levels above the query it appears in, column).
    fn plan_subquery(&mut self, q: &ast::Query) -> Result<(SelectPlan, Vec<(usize, usize)>)> {
        let st = &self.env.subq;
        if (self.clause == "on clause" || self.clause == "ON") && !st.inner_on.get() {
            return Err(Error::unsupported("subqueries in ON"));
        }
        if !st.allowed.get() {
            return Err(Error::unsupported("subqueries"));
        }
        if st.frames.borrow().len() >= MAX_SELECT_NESTING {
            return Err(Error::new(
                ErrorCode::TooHighLevelOfNestingForSelect,
                "Too high level of nesting for select",
            ));
        }
        parse::surface::query(q)?;
        let g = {
            let mut frames = st.frames.borrow_mut();
            frames.push(Frame {
                scope: self.scope.cloned(),
                join: self.join.cloned(),
                used: RefCell::new(Vec::new()),
                aggs: RefCell::new(self.aggs.take()),
            });
            frames.len() - 1
        };
        let wrapped = set_operation_as_derived(q);
        let q = wrapped.as_ref().unwrap_or(q);
        let r = select::plan_select(self.env, self.params, q, &[], None);
        let frame = st
            .frames
            .borrow_mut()
            .pop()
            .ok_or_else(|| Error::internal("subquery scope lost"))?;
        self.aggs = frame.aggs.into_inner();
        let plan = r?;
        let mut refs: Vec<(usize, usize)> = frame
            .used
            .into_inner()
            .into_iter()
            .map(|(f, c)| (g - f, c))
            .collect();
        refs.sort_unstable();
        refs.dedup();
        Ok((plan, refs))
    }

    /// A name the query's own tables do not have, looked up in the enclosing queries'
    /// scopes (innermost first): an outer reference, or `err` if none has it.
    pub(super) fn bind_outer_name(
        &mut self,
        parts: &[ast::Ident],
        err: Error,
    ) -> Result<(Expr, SqlType)> {
        if err.code() != ErrorCode::BadField {
            return Err(err);
        }
        let frames = self.env.subq.frames.borrow();
        for (f, frame) in frames.iter().enumerate().rev() {
            let mut b = Binder::new(self.env, self.params, frame.scope.as_ref());
            b.join = frame.join.as_ref();
            b.clause = self.clause;
            let found = match parts {
                [id] => b.bind_identifier(id),
                _ => b.bind_compound(parts),
            };
            match found {
                Ok((Expr::Col(c), ty)) => {
                    for g in &frames[f..] {
                        g.used.borrow_mut().push((f, c));
                    }
                    let depth = frames.len() - f;
                    return Ok((Expr::Outer { depth, col: c }, ty));
                }
                // A TIMESTAMP column read in the session's time zone.
                Ok((Expr::Func(crate::sql::func::Func::TsLocal, a), ty))
                    if matches!(a[..], [Expr::Col(_)]) =>
                {
                    let Expr::Col(c) = a[0] else { unreachable!() };
                    for g in &frames[f..] {
                        g.used.borrow_mut().push((f, c));
                    }
                    let depth = frames.len() - f;
                    let outer = Expr::Outer { depth, col: c };
                    return Ok((Expr::Func(crate::sql::func::Func::TsLocal, vec![outer]), ty));
                }
                Ok(_) => return Err(err),
                Err(e) if e.code() == ErrorCode::BadField => continue,
                Err(e) => return Err(e),
            }
        }
        if frames.is_empty() {
            return Err(err);
        }
        // Inside a subquery MariaDB names the clause by its keyword.
        let word = super::join_scope::clause_word(self.clause);
        let msg = err
            .message()
            .replace(&format!("in '{}'", self.clause), &format!("in '{word}'"));
        Err(Error::new(ErrorCode::BadField, msg))
    }
}

impl Binder<'_> {
    /// An aggregate whose argument reads only columns of enclosing queries belongs to the
    /// innermost of them (`depth` levels up): its argument, rebased on that query's row, is
    /// added to that query's aggregates. The aggregate back when the argument reads a column
    /// of this query (or none at all).
    pub(super) fn outer_aggregate_of(
        &mut self,
        spec: AggSpec,
    ) -> std::result::Result<Result<(Expr, SqlType)>, Box<AggSpec>> {
        let Some(arg) = spec.arg.as_ref() else {
            return Err(Box::new(spec));
        };
        let mut depth = usize::MAX;
        let mut local = false;
        arg.walk(&mut |x| match x {
            Expr::Outer { depth: d, .. } | Expr::OuterAgg { depth: d, .. } => depth = depth.min(*d),
            Expr::Col(_) | Expr::Agg(_) | Expr::NewCol(_) | Expr::Subquery(_) => local = true,
            _ => {}
        });
        if local || depth == usize::MAX {
            return Err(Box::new(spec));
        }
        // Where that query allows no aggregate (its WHERE), MariaDB aggregates here.
        let allowed = {
            let frames = self.env.subq.frames.borrow();
            let allowed = frames[frames.len() - depth].aggs.borrow().is_some();
            allowed
        };
        if !allowed {
            return Err(Box::new(spec));
        }
        Ok(self.add_outer_aggregate(spec, depth))
    }

    fn add_outer_aggregate(&mut self, mut spec: AggSpec, depth: usize) -> Result<(Expr, SqlType)> {
        if !spec.concat.order.is_empty() {
            return Err(Error::unsupported(
                "GROUP_CONCAT … ORDER BY of outer columns",
            ));
        }
        if let Some(arg) = spec.arg.take() {
            spec.arg = Some(rebase(arg, depth)?);
        }
        let frames = self.env.subq.frames.borrow();
        let frame = &frames[frames.len() - depth];
        let mut aggs = frame.aggs.borrow_mut();
        let Some(list) = aggs.as_mut() else {
            return Err(Error::new(
                ErrorCode::InvalidGroupFuncUse,
                "Invalid use of group function",
            ));
        };
        let ty = spec.ty.clone();
        list.push(spec);
        let idx = list.len() - 1;
        // The subqueries between here and that query read its group's value.
        let f = frames.len() - depth;
        for g in &frames[f..] {
            g.used.borrow_mut().push((f, idx | AGG_TAG));
        }
        Ok((Expr::OuterAgg { depth, idx }, ty))
    }
}

/// An expression of outer references rebased `depth` levels up: references to that level
/// become its columns (aggregates of it are not allowed inside an aggregate: 1111).
fn rebase(e: Expr, depth: usize) -> Result<Expr> {
    let mut bad = false;
    let out = map_expr(e, &mut |x| match x {
        Expr::Outer { depth: d, col } if d == depth => Expr::Col(col),
        Expr::Outer { depth: d, col } => Expr::Outer {
            depth: d - depth,
            col,
        },
        Expr::OuterAgg { depth: d, idx } if d > depth => Expr::OuterAgg {
            depth: d - depth,
            idx,
        },
        other @ Expr::OuterAgg { .. } => {
            bad = true;
            other
        }
        other => other,
    });
    if bad {
        return Err(Error::new(
            ErrorCode::InvalidGroupFuncUse,
            "Invalid use of group function",
        ));
    }
    Ok(out)
}

/// Rewrite the leaves of an expression (outer references only occur as leaves).
fn map_expr(e: Expr, f: &mut dyn FnMut(Expr) -> Expr) -> Expr {
    let mut e = e;
    visit_mut(&mut e, f);
    e
}

fn visit_mut(e: &mut Expr, f: &mut dyn FnMut(Expr) -> Expr) {
    if matches!(e, Expr::Outer { .. } | Expr::OuterAgg { .. }) {
        let x = std::mem::replace(e, Expr::Lit(crate::types::Value::Null));
        *e = f(x);
        return;
    }
    e.for_each_child_mut(&mut |c| visit_mut(c, f));
}

/// MariaDB refuses LIMIT in an IN / ANY / ALL subquery.
/// A subquery whose body is a UNION / INTERSECT / EXCEPT (with its own ORDER BY / LIMIT)
/// is read as `SELECT * FROM (body) AS u`: the derived table runs the set operation
/// (`exec/query.rs`), and the SELECT around it is an ordinary subquery body.
fn set_operation_as_derived(q: &ast::Query) -> Option<ast::Query> {
    if !matches!(&*q.body, ast::SetExpr::SetOperation { .. }) || q.with.is_some() {
        return None;
    }
    // The frame is parsed once from text; the body goes in as a tree (its placeholders keep
    // their positions).
    let text = "SELECT * FROM (SELECT 1) AS `__set_operation`";
    let dialect = sqlparser::dialect::MySqlDialect {};
    let mut stmts = sqlparser::parser::Parser::parse_sql(&dialect, text).ok()?;
    let ast::Statement::Query(mut outer) = stmts.pop()? else {
        return None;
    };
    let ast::SetExpr::Select(sel) = &mut *outer.body else {
        return None;
    };
    match &mut sel.from.first_mut()?.relation {
        ast::TableFactor::Derived { subquery, .. } => **subquery = q.clone(),
        _ => return None,
    }
    Some(*outer)
}

fn no_limit(q: &ast::Query) -> Result<()> {
    if q.limit_clause.is_some() {
        return Err(Error::unsupported("LIMIT & IN/ALL/ANY/SOME subquery"));
    }
    Ok(())
}

/// The class of values whose comparison keys (`compare::group_key`) agree with equality, for
/// a hash set of an IN subquery's rows; None when only a comparison can tell.
fn hash_class(t: &SqlType) -> Option<u8> {
    match t.class {
        Class::Int | Class::Decimal => Some(0),
        Class::Str => Some(1),
        Class::Bin => Some(2),
        _ => None,
    }
}
