//! The base tables a view reads, for `LOCK TABLES v READ | WRITE`: MariaDB locks a view's
//! tables with it, so a statement that reads the view under LOCK TABLES finds them locked
//! (mariadb-dump locks every table and view of a database before it dumps them).
//!
//! The view's query is parsed and its FROM clauses walked: tables, joins, derived tables,
//! set operations and CTE bodies (a CTE's own name is not a table); a view among them adds
//! its tables in turn, at most [`MAX_DEPTH`] views deep. Tables that only a subquery inside
//! an expression names are not found: reading the view under LOCK TABLES then fails with
//! 1100 (table not locked), as it did before.

use crate::session::ServerContext;
use crate::sql::parse::{self, Stmt};
use sqlparser::ast::{ObjectNamePart, Query, SetExpr, Statement, TableFactor, TableWithJoins};

/// Views nested deeper than this are not followed (CREATE VIEW bounds nesting too).
const MAX_DEPTH: usize = 16;

/// The tables (`db`, `table`) the view `db`.`name` reads, views among them expanded; empty
/// when `db`.`name` is not a view.
pub fn view_base_tables(ctx: &ServerContext, db: &str, name: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    expand(ctx, db, name, 0, &mut out);
    out
}

fn expand(
    ctx: &ServerContext,
    db: &str,
    name: &str,
    depth: usize,
    out: &mut Vec<(String, String)>,
) {
    if depth >= MAX_DEPTH {
        return;
    }
    let Some(view) = ctx.engine.view(db, name) else {
        return;
    };
    let Ok(parsed) = parse::parse(&view.query) else {
        return;
    };
    let Stmt::Sql(st) = &parsed.stmt else {
        return;
    };
    let Statement::Query(q) = st.as_ref() else {
        return;
    };
    let mut names = Vec::new();
    query_tables(q, &[], &mut names);
    for (d, t) in names {
        let d = d.unwrap_or_else(|| db.to_string());
        if out.iter().any(|(od, ot)| *od == d && *ot == t) {
            continue;
        }
        out.push((d.clone(), t.clone()));
        expand(ctx, &d, &t, depth + 1, out);
    }
}

/// The table names (`db` if qualified, `table`) a query's FROM clauses name; `ctes` are the
/// CTE names in scope, which are not tables.
fn query_tables(q: &Query, ctes: &[String], out: &mut Vec<(Option<String>, String)>) {
    let mut scope = ctes.to_vec();
    if let Some(with) = &q.with {
        for cte in &with.cte_tables {
            scope.push(cte.alias.name.value.clone());
            query_tables(&cte.query, &scope, out);
        }
    }
    set_expr_tables(&q.body, &scope, out);
}

fn set_expr_tables(e: &SetExpr, ctes: &[String], out: &mut Vec<(Option<String>, String)>) {
    match e {
        SetExpr::Select(s) => {
            for twj in &s.from {
                from_tables(twj, ctes, out);
            }
        }
        SetExpr::Query(q) => query_tables(q, ctes, out),
        SetExpr::SetOperation { left, right, .. } => {
            set_expr_tables(left, ctes, out);
            set_expr_tables(right, ctes, out);
        }
        _ => {}
    }
}

fn from_tables(twj: &TableWithJoins, ctes: &[String], out: &mut Vec<(Option<String>, String)>) {
    factor_tables(&twj.relation, ctes, out);
    for j in &twj.joins {
        factor_tables(&j.relation, ctes, out);
    }
}

fn factor_tables(f: &TableFactor, ctes: &[String], out: &mut Vec<(Option<String>, String)>) {
    match f {
        TableFactor::Table { name, .. } => {
            let parts: Vec<String> = name
                .0
                .iter()
                .filter_map(|p| match p {
                    ObjectNamePart::Identifier(id) => Some(id.value.clone()),
                    _ => None,
                })
                .collect();
            match parts.as_slice() {
                [t] if ctes.iter().any(|c| c.eq_ignore_ascii_case(t)) => {}
                [t] => out.push((None, t.clone())),
                [d, t] => out.push((Some(d.clone()), t.clone())),
                _ => {}
            }
        }
        TableFactor::Derived { subquery, .. } => query_tables(subquery, ctes, out),
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => from_tables(table_with_joins, ctes, out),
        _ => {}
    }
}
