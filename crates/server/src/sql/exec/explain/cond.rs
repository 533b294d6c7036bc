//! The text of a bound condition for EXPLAIN FORMAT=JSON's `attached_condition`, in
//! MariaDB's style: `t.b > 10 and t.c <> 'x'`, columns as `table.column`, a subquery as
//! `(subquery#N)`, lowercase operators and function names.
//!
//! It prints the expression Cohort evaluates (after binding), so it may differ from MariaDB's
//! text where the binder rewrote it (added conversions print as `cast(…)`).

use crate::sql::expr::subquery::{Kind, Subquery};
use crate::sql::expr::{ArithOp, CmpOp, Expr};
use crate::types::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// What names mean while printing one SELECT's condition.
pub struct Names<'a> {
    /// `table.column` of each column of the SELECT's row.
    pub own: &'a [String],
    /// The same for the enclosing SELECTs, innermost last.
    pub outer: &'a [Vec<String>],
    /// Subquery ids (by the subquery's address).
    pub subqueries: &'a HashMap<usize, u64>,
}

pub fn text(e: &Expr, n: &Names<'_>) -> String {
    let mut s = String::new();
    write(e, n, &mut s, 0);
    s
}

fn subq_id(s: &Arc<Subquery>, n: &Names<'_>) -> String {
    let id = n
        .subqueries
        .get(&(Arc::as_ptr(s) as usize))
        .copied()
        .unwrap_or(0);
    format!("(subquery#{id})")
}

fn cmp(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "<>",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
        CmpOp::NullSafeEq => "<=>",
    }
}

fn arith(op: ArithOp) -> &'static str {
    match op {
        ArithOp::Add => "+",
        ArithOp::Sub => "-",
        ArithOp::Mul => "*",
        ArithOp::Div => "/",
        ArithOp::IntDiv => "DIV",
        ArithOp::Mod => "%",
        ArithOp::BitAnd => "&",
        ArithOp::BitOr => "|",
        ArithOp::BitXor => "^",
        ArithOp::Shl => "<<",
        ArithOp::Shr => ">>",
    }
}

fn literal(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("NULL"),
        Value::Bytes(b) => {
            out.push('\'');
            out.push_str(&String::from_utf8_lossy(b).replace('\'', "\\'"));
            out.push('\'');
        }
        other => out.push_str(&crate::sql::expr::convert::to_string(other)),
    }
}

/// Binding strength of an arithmetic operator (comparisons are 4, `not` 3, `and` 2, `or` 1).
fn arith_prec(op: ArithOp) -> u8 {
    match op {
        ArithOp::BitOr => 5,
        ArithOp::BitAnd => 6,
        ArithOp::Shl | ArithOp::Shr => 7,
        ArithOp::Add | ArithOp::Sub => 8,
        ArithOp::Mul | ArithOp::Div | ArithOp::IntDiv | ArithOp::Mod => 9,
        ArithOp::BitXor => 10,
    }
}

/// Print `e`, parenthesized when it binds looser than `prec` (see [`arith_prec`]).
fn write(e: &Expr, n: &Names<'_>, out: &mut String, prec: u8) {
    let list = |v: &[Expr], sep: &str, out: &mut String, p: u8| {
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            write(x, n, out, p);
        }
    };
    match e {
        Expr::Lit(v) => literal(v, out),
        Expr::Col(i) => out.push_str(n.own.get(*i).map_or("?", String::as_str)),
        Expr::Outer { depth, col } => {
            let names = n
                .outer
                .len()
                .checked_sub(*depth)
                .and_then(|d| n.outer.get(d));
            out.push_str(names.and_then(|v| v.get(*col)).map_or("?", String::as_str));
        }
        Expr::Param(_) => out.push('?'),
        Expr::And(v) | Expr::Or(v) => {
            let (sep, own) = if matches!(e, Expr::And(_)) {
                (" and ", 2)
            } else {
                (" or ", 1)
            };
            let paren = prec > own;
            if paren {
                out.push('(');
            }
            list(v, sep, out, own + 1);
            if paren {
                out.push(')');
            }
        }
        Expr::Not(x) => {
            out.push_str("!(");
            write(x, n, out, 0);
            out.push(')');
        }
        Expr::Cmp(op, a, b, _) => {
            if prec > 4 {
                out.push('(');
            }
            write(a, n, out, 5);
            out.push(' ');
            out.push_str(cmp(*op));
            out.push(' ');
            write(b, n, out, 5);
            if prec > 4 {
                out.push(')');
            }
        }
        Expr::Arith(op, a, b) => {
            let own = arith_prec(*op);
            if prec > own {
                out.push('(');
            }
            write(a, n, out, own);
            out.push(' ');
            out.push_str(arith(*op));
            out.push(' ');
            write(b, n, out, own + 1);
            if prec > own {
                out.push(')');
            }
        }
        Expr::IsNull(x, negated) => {
            write(x, n, out, 5);
            out.push_str(if *negated { " is not null" } else { " is null" });
        }
        Expr::Between {
            e, lo, hi, negated, ..
        } => {
            write(e, n, out, 5);
            out.push_str(if *negated {
                " not between "
            } else {
                " between "
            });
            write(lo, n, out, 5);
            out.push_str(" and ");
            write(hi, n, out, 5);
        }
        Expr::In {
            e,
            list: l,
            negated,
            ..
        } => {
            write(e, n, out, 5);
            out.push_str(if *negated { " not in (" } else { " in (" });
            list(l, ",", out, 0);
            out.push(')');
        }
        Expr::Like {
            e, pat, negated, ..
        } => {
            write(e, n, out, 5);
            out.push_str(if *negated { " not like " } else { " like " });
            write(pat, n, out, 5);
        }
        Expr::Func(f, args) => {
            out.push_str(&format!("{f:?}").to_ascii_lowercase());
            out.push('(');
            list(args, ",", out, 0);
            out.push(')');
        }
        Expr::Cast(x, _) => {
            out.push_str("cast(");
            write(x, n, out, 0);
            out.push(')');
        }
        Expr::Subquery(s) => match &s.kind {
            Kind::Exists { negated } => {
                if *negated {
                    out.push_str("!(");
                }
                out.push_str("exists");
                out.push_str(&subq_id(s, n));
                if *negated {
                    out.push(')');
                }
            }
            Kind::In { left, negated, .. } => {
                if left.len() == 1 {
                    write(&left[0], n, out, 5);
                } else {
                    out.push('(');
                    list(left, ",", out, 0);
                    out.push(')');
                }
                out.push_str(if *negated { " not in " } else { " in " });
                out.push_str(&subq_id(s, n));
            }
            Kind::Quantified { left, op, all, .. } => {
                write(left, n, out, 5);
                out.push_str(&format!(
                    " {} {} ",
                    cmp(*op),
                    if *all { "all" } else { "any" }
                ));
                out.push_str(&subq_id(s, n));
            }
            _ => out.push_str(&subq_id(s, n)),
        },
        _ => out.push('?'),
    }
}
