//! Minimizing a differing query: greedy, one smaller variant at a time, keeping a variant when
//! the two servers still differ on it, until no variant differs or the time is up.
//!
//! Variants drop clauses (WHERE, HAVING, ORDER BY with its LIMIT, LIMIT, DISTINCT, a join, a
//! select item, a CTE) or shrink one expression ([`Expr::shrinks`]). A variant must keep the
//! query deterministic: a grouped SELECT's expressions stay built from its keys and aggregates
//! ([`grouped_valid`]), and canonical forms are never removed; otherwise the "difference" of
//! a variant could be the servers' free choice rather than a bug.

use crate::ast::{Body, CteBody, Expr, Query, Select};
use crate::gen::{grouped_valid, having_valid};
use std::time::Instant;

/// Smaller variants of `q`, cheapest (biggest cut) first.
pub fn variants(q: &Query) -> Vec<Query> {
    let mut out = Vec::new();
    let text = q.to_string();
    for (i, c) in q.ctes.iter().enumerate() {
        // A CTE nothing mentions any more.
        let mut rest = q.clone();
        rest.ctes.remove(i);
        if text.matches(&c.name).count() <= 1 || !rest.to_string().contains(&c.name) {
            out.push(rest);
        }
        if let CteBody::Select(s) = &c.body {
            for v in select_variants(s) {
                if v.items.len() == s.items.len() {
                    let mut n = q.clone();
                    n.ctes[i].body = CteBody::Select(v);
                    out.push(n);
                }
            }
        }
    }
    match &q.body {
        Body::Select(s) => {
            for v in select_variants(s) {
                out.push(Query {
                    ctes: q.ctes.clone(),
                    body: Body::Select(v),
                });
            }
        }
        Body::SetOp {
            op,
            left,
            right,
            order_by,
            limit,
            total_order,
        } => {
            for side in [left, right] {
                out.push(Query {
                    ctes: q.ctes.clone(),
                    body: Body::Select(side.clone()),
                });
            }
            if limit.is_some() {
                let mut n = q.clone();
                if let Body::SetOp { limit, .. } = &mut n.body {
                    *limit = None;
                }
                out.push(n);
            }
            if !order_by.is_empty() {
                out.push(Query {
                    ctes: q.ctes.clone(),
                    body: Body::SetOp {
                        op,
                        left: left.clone(),
                        right: right.clone(),
                        order_by: vec![],
                        limit: None,
                        total_order: false,
                    },
                });
            }
            for (is_left, side) in [(true, left), (false, right)] {
                for v in select_variants(side) {
                    if v.items.len() != side.items.len() {
                        continue;
                    }
                    let (l, r) = if is_left {
                        (v, right.clone())
                    } else {
                        (left.clone(), v)
                    };
                    out.push(Query {
                        ctes: q.ctes.clone(),
                        body: Body::SetOp {
                            op,
                            left: l,
                            right: r,
                            order_by: order_by.clone(),
                            limit: *limit,
                            total_order: *total_order,
                        },
                    });
                }
            }
        }
    }
    out
}

fn select_variants(s: &Select) -> Vec<Select> {
    let mut out = Vec::new();
    let grouped = s.is_grouped();
    let valid = |e: &Expr| !grouped || grouped_valid(e, &s.group_by);
    // Whole clauses.
    if s.where_.is_some() {
        out.push(Select {
            where_: None,
            ..s.clone()
        });
    }
    if s.having.is_some() {
        out.push(Select {
            having: None,
            ..s.clone()
        });
    }
    if !s.order_by.is_empty() {
        out.push(Select {
            order_by: vec![],
            limit: None,
            total_order: false,
            ..s.clone()
        });
    }
    if let Some((n, off)) = s.limit {
        out.push(Select {
            limit: None,
            ..s.clone()
        });
        if off.is_some() {
            out.push(Select {
                limit: Some((n, None)),
                ..s.clone()
            });
        }
    }
    if s.distinct {
        out.push(Select {
            distinct: false,
            ..s.clone()
        });
    }
    // A join nobody refers to any more.
    for i in (0..s.joins.len()).rev() {
        let mut n = s.clone();
        let j = n.joins.remove(i);
        let alias = match &j.source {
            crate::ast::Source::Table { alias, .. }
            | crate::ast::Source::Derived { alias, .. }
            | crate::ast::Source::Cte { alias, .. } => alias.clone(),
        };
        if !n.to_string().contains(&format!("{alias}.")) {
            n.total_order = false;
            n.order_by.clear();
            n.limit = None;
            out.push(n);
        }
    }
    // Items (positional ORDER BY refers to them: keep them all then).
    let positional = s.order_by.iter().any(|o| matches!(&o.expr, Expr::Lit(_)));
    if s.items.len() > 1 && !positional {
        for i in 0..s.items.len() {
            let mut n = s.clone();
            n.items.remove(i);
            out.push(n);
        }
    }
    // Expressions.
    for i in 0..s.items.len() {
        for c in s.items[i].shrinks() {
            if valid(&c) {
                let mut n = s.clone();
                n.items[i] = c;
                out.push(n);
            }
        }
    }
    if let Some(w) = &s.where_ {
        for c in w.shrinks() {
            out.push(Select {
                where_: Some(c),
                ..s.clone()
            });
        }
    }
    if let Some(h) = &s.having {
        for c in h.shrinks() {
            if having_valid(&c, &s.group_by) {
                out.push(Select {
                    having: Some(c),
                    ..s.clone()
                });
            }
        }
    }
    for (i, j) in s.joins.iter().enumerate() {
        if let Some(on) = &j.on {
            for c in on.shrinks() {
                let mut n = s.clone();
                n.joins[i].on = Some(c);
                out.push(n);
            }
        }
    }
    out
}

/// Shrinks `q` while `differs` holds, until `deadline`. Returns the smallest differing query
/// found and how many variants were tried.
pub fn minimize(
    q: &Query,
    deadline: Instant,
    mut differs: impl FnMut(&Query) -> bool,
) -> (Query, usize) {
    let mut best = q.clone();
    let mut tried = 0;
    'outer: loop {
        let mut vs = variants(&best);
        vs.sort_by_key(size);
        let cur = size(&best);
        for v in vs {
            if size(&v) >= cur {
                continue;
            }
            if Instant::now() >= deadline {
                break 'outer;
            }
            tried += 1;
            if differs(&v) {
                best = v;
                continue 'outer;
            }
        }
        break;
    }
    (best, tried)
}

fn size(q: &Query) -> usize {
    let body = match &q.body {
        Body::Select(s) => s.size(),
        Body::SetOp {
            left,
            right,
            order_by,
            limit,
            ..
        } => left.size() + right.size() + order_by.len() + usize::from(limit.is_some()) + 1,
    };
    body + q
        .ctes
        .iter()
        .map(|c| match &c.body {
            CteBody::Select(s) => 2 + s.size(),
            CteBody::Counter { .. } => 3,
        })
        .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{Features, Gen};
    use crate::rng::Rng;
    use crate::schema::Schema;

    #[test]
    fn minimizes_to_the_differing_part() {
        // Pretend the servers differ exactly when the query mentions UPPER: the minimized
        // query is smaller and still does.
        let schema = Schema::random(&mut Rng::derive(2, 1, 0));
        let mut done = 0;
        for i in 0..500 {
            let mut r = Rng::derive(2, 2, i);
            let q = Gen::new(&mut r, &schema, Features::default()).query();
            let text = q.to_string();
            if !text.contains("UPPER(") || text.len() < 200 {
                continue;
            }
            let far = Instant::now() + std::time::Duration::from_secs(30);
            let (small, tried) = minimize(&q, far, |v| v.to_string().contains("UPPER("));
            let s = small.to_string();
            assert!(s.contains("UPPER("), "{s}");
            assert!(s.len() < text.len() && tried > 0, "{text}\n=> {s}");
            done += 1;
        }
        assert!(done > 5);
    }
}
