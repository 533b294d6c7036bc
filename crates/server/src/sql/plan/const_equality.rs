//! Constant propagation through join equalities: from `a = b` and `b = K` (K a constant),
//! add `a = K`.
//!
//! The derived conjunct is implied by the two it comes from, so the join's result is the
//! same; what changes is the access path. In TPC-C's New-Order,
//! `FROM customer, warehouse WHERE w_id = 1 AND c_w_id = w_id AND c_d_id = 3 AND c_id = 7`
//! reads `customer` by its whole primary key with constants (`const`, one lookup before the
//! join, read first as MariaDB does) instead of by a key that waits for `warehouse`'s row
//! (`eq_ref`).
//!
//! Only between integer columns (not YEAR, whose two-digit constants mean a year): an
//! integer compares with a constant by value whatever the column's width or sign, and equality
//! of integers is transitive, so `a = b ∧ b = K ⇒ a = K` holds for every row, NULLs included
//! (a NULL makes `a = b` not true). Strings are left alone: their equality depends on the
//! collation each comparison uses.

use crate::sql::bind::join_scope::JoinScope;
use crate::sql::bind::sqltype::Class;
use crate::sql::expr::{CmpOp, Expr};
use cohort_protocol::column::ColumnType;

/// Rounds of propagation at most (each round follows one more equality of a chain).
const MAX_ROUNDS: usize = 4;

/// Append to `conds` the constant equalities implied by its column equalities.
pub(super) fn propagate(scope: &JoinScope, conds: &mut Vec<Expr>) {
    for _ in 0..MAX_ROUNDS {
        let mut added = Vec::new();
        for c in conds.iter() {
            let Some((a, b)) = column_equality(scope, c) else {
                continue;
            };
            for (from, to) in [(a, b), (b, a)] {
                if has_constant(conds, to) || added.iter().any(|e| constant_of(e, to).is_some()) {
                    continue;
                }
                if let Some(k) = conds.iter().find_map(|e| constant_of(e, from)) {
                    added.push(Expr::Cmp(
                        CmpOp::Eq,
                        Box::new(Expr::Col(to)),
                        Box::new(k.0.clone()),
                        k.1,
                    ));
                }
            }
        }
        if added.is_empty() {
            return;
        }
        conds.extend(added);
    }
}

/// `a = b` between two integer columns.
fn column_equality(scope: &JoinScope, c: &Expr) -> Option<(usize, usize)> {
    let Expr::Cmp(CmpOp::Eq, x, y, _) = c else {
        return None;
    };
    let (Expr::Col(a), Expr::Col(b)) = (&**x, &**y) else {
        return None;
    };
    (a != b && integer(scope, *a) && integer(scope, *b)).then_some((*a, *b))
}

fn integer(scope: &JoinScope, col: usize) -> bool {
    let t = scope.col_type(col);
    t.class == Class::Int && t.wire != ColumnType::YEAR && t.enumset.is_none()
}

/// The constant `col` is compared equal to by `e`, with the comparison's collation.
fn constant_of(e: &Expr, col: usize) -> Option<(&Expr, crate::types::Collation)> {
    let Expr::Cmp(CmpOp::Eq, x, y, coll) = e else {
        return None;
    };
    match (&**x, &**y) {
        (Expr::Col(c), k) | (k, Expr::Col(c)) if *c == col && plain_constant(k) => Some((k, *coll)),
        _ => None,
    }
}

/// A constant that is cheap and safe to evaluate twice: no subquery in it.
fn plain_constant(k: &Expr) -> bool {
    let mut plain = k.is_constant();
    k.walk(&mut |e| plain &= !matches!(e, Expr::Subquery(_)));
    plain
}

fn has_constant(conds: &[Expr], col: usize) -> bool {
    conds.iter().any(|e| constant_of(e, col).is_some())
}
