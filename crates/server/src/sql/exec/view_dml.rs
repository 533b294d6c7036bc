//! UPDATE and DELETE through a view (single-table UPDATE / DELETE naming a view).
//!
//! A view is changed through when MariaDB would merge it into the statement: its query is one
//! SELECT over one base table, without DISTINCT, GROUP BY / aggregates, HAVING, window
//! functions, LIMIT, subqueries, UNION, and its algorithm is not TEMPTABLE. Otherwise the
//! statement is 1288 ("The target table v of the UPDATE is not updatable"). The statement is
//! then planned on the base table: names bind against the view's columns, each of which
//! stands for its expression over the base row; the view's WHERE joins the statement's; an
//! assignment must name a view column that is a base column (else 1348).
//!
//! `WITH [CASCADED | LOCAL] CHECK OPTION`: an UPDATE's new row must pass the view's WHERE
//! (1369); CASCADED and LOCAL differ only for views of views, which are not changed through.
//!
//! INSERT (and REPLACE) through such a view write the base table: the columns named (all the
//! view's without a list) must be base columns, not expressions (1471); columns the view
//! does not show take their defaults; with CHECK OPTION each row must be one of the view's.
//!
//! Not supported yet (1235, as before): views over joins, views over views or derived tables,
//! subqueries in a statement through a view, INSERT … ON DUPLICATE KEY UPDATE through a view.

use crate::error::{Error, Result};
use crate::sql::bind::{ScopeColumn, TableScope};
use crate::sql::env::Env;
use crate::sql::exec::query::{Node, QueryPlan};
use crate::sql::exec::select::SelectPlan;
use crate::sql::expr::{Expr, RowCtx};
use crate::sql::plan::{self, Source, TableRef};
use crate::types::Value;
use cohort_protocol::ErrorCode;

/// A view an UPDATE / DELETE changes through (its base table comes with it from [`resolve`]).
pub struct ViewTarget {
    /// The view's columns, as the statement names them.
    pub scope: TableScope,
    /// View column `j` is `cols[j]` over the base row.
    pub cols: Vec<Expr>,
    /// The view's WHERE, over the base row.
    pub filter: Option<Expr>,
    /// `WITH CHECK OPTION`: "`db`.`view`" (a changed row must still pass `filter`, else 1369).
    pub check: Option<String>,
}

impl ViewTarget {
    /// An expression over the view's columns, made one over the base row.
    pub fn rebase(&self, e: &mut Expr) {
        if let Expr::Col(j) = e {
            if let Some(x) = self.cols.get(*j) {
                *e = x.clone();
            }
            return;
        }
        e.for_each_child_mut(&mut |c| self.rebase(c));
    }

    /// The base column an assignment to view column `j` (named `name`) writes; 1348 if it is
    /// an expression.
    pub fn base_column(&self, j: usize, name: &str) -> Result<usize> {
        // A TIMESTAMP column read in the session's time zone is still that column.
        match self.cols.get(j).map(|x| x.zoned_col().unwrap_or(x)) {
            Some(Expr::Col(c)) => Ok(*c),
            _ => Err(Error::new(
                ErrorCode::NonUpdatableColumn,
                format!("Column '{name}' is not updatable"),
            )),
        }
    }
}

/// Does MariaDB merge a view with this query (and so change rows through it)?
fn mergeable(algorithm: &str, sp: &SelectPlan) -> bool {
    !(algorithm.eq_ignore_ascii_case("TEMPTABLE")
        || sp.group.is_some()
        || sp.distinct
        || sp.window.is_some()
        || sp.limit.is_some()
        || !sp.subqueries.is_empty())
}

/// Can rows be changed through a view of this query (for `WITH CHECK OPTION`, 1368)?
pub fn updatable(algorithm: &str, plan: &QueryPlan) -> bool {
    match &plan.node {
        Node::Select(sp) => mergeable(algorithm, sp),
        _ => false,
    }
}

/// `WITH CHECK OPTION`: a row changed through the view must still be one of its rows.
pub fn check_row(check: &(Expr, String), row: &[Value], env: &Env<'_>) -> Result<()> {
    if check.0.is_true(&RowCtx::of(row), env)? {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::ViewCheckFailed,
        format!("CHECK OPTION failed {}", check.1),
    ))
}

fn not_updatable(name: &str, command: &str) -> Error {
    if command == "INSERT" {
        return not_insertable(name);
    }
    Error::new(
        ErrorCode::NonUpdatableTable,
        format!("The target table {name} of the {command} is not updatable"),
    )
}

/// 1471: INSERT into a view that cannot take it (or into its expression columns).
pub fn not_insertable(name: &str) -> Error {
    Error::new(
        ErrorCode::NonInsertableTable,
        format!("The target table {name} of the INSERT is not insertable-into"),
    )
}

/// If `db`.`name` is a view, the base table an UPDATE / DELETE (`command`) through it
/// changes, and the view; None for a table.
pub fn resolve(
    env: &Env<'_>,
    db: &str,
    name: &str,
    alias: Option<String>,
    command: &str,
) -> Result<Option<(TableRef, ViewTarget)>> {
    if !env.ctx.engine.has_views() {
        return Ok(None);
    }
    let Some(view) = env.ctx.engine.view(db, name) else {
        return Ok(None);
    };
    plan::check_db_access(env, db)?;
    let qp = super::ddl::view::plan_view(env, db, &view)?;
    let columns: Vec<String> = match view.columns.is_empty() {
        true => qp.columns.iter().map(|c| c.name.clone()).collect(),
        false => view.columns.clone(),
    };
    let Node::Select(sp) = qp.node else {
        return Err(not_updatable(name, command));
    };
    let sp = *sp;
    if !mergeable(&view.algorithm, &sp) {
        return Err(not_updatable(name, command));
    }
    if sp.join.is_some() {
        return Err(Error::unsupported(&format!(
            "{command} through a view of a join"
        )));
    }
    let base = match sp.source {
        Some(Source::Table(t)) => t,
        Some(Source::Derived(_)) => {
            return Err(Error::unsupported(&format!(
                "{command} through a view of a view or derived table"
            )))
        }
        _ => return Err(not_updatable(name, command)),
    };
    crate::session::table_locks::check_statement(
        env.ctx,
        &env.sess,
        &base.db,
        &base.def.name,
        true,
    )?;
    let scope = TableScope {
        db: db.to_string(),
        table: view.name.clone(),
        alias,
        columns: sp
            .items
            .iter()
            .zip(&columns)
            .map(|(it, n)| ScopeColumn {
                name: n.clone(),
                ty: it.ty.clone(),
                utc: false,
            })
            .collect(),
    };
    Ok(Some((
        base,
        ViewTarget {
            scope,
            cols: sp.items.into_iter().map(|it| it.expr).collect(),
            filter: sp.filter,
            check: (view.check_option != "NONE")
                .then(|| format!("`{}`.`{}`", db.replace('`', "``"), name.replace('`', "``"))),
        },
    )))
}
