//! Feature `types`: expressions whose value depends on the result type MariaDB gives an
//! operation, drawn in place of an integer, decimal or string expression one time in four —
//! arithmetic with an unsigned operand (an unsigned column, `CAST(… AS UNSIGNED)`, an
//! unsigned value that came out of arithmetic: `(u + 0) - 2` is 1690 as `u - 2` is), negation
//! of one, and arithmetic, HEX and CONCAT over IF / IFNULL / COALESCE / GREATEST / LEAST / CASE
//! whose branches mix signed and unsigned integers (a DECIMAL in MariaDB, so `IF(c, u, 0) - 2`
//! is -1, not 1690) or integers, decimals and doubles (CONCAT shows the result type's scale).
//!
//! Without the feature no random number is drawn here, so the other features' queries for a
//! seed stay the same.

use super::{Gen, Scope};
use crate::ast::Expr;
use crate::schema::Kind;

const ARITH: [&str; 6] = ["+", "-", "*", "DIV", "%", "MOD"];

impl Gen<'_> {
    /// An expression of `kind` (an integer, a decimal or a string) from this feature's set.
    pub(super) fn types_expr(&mut self, scope: &Scope, kind: Kind, d: u32) -> Expr {
        match kind {
            Kind::Int => self.types_int(scope, d),
            Kind::Decimal => self.types_decimal(scope, d),
            _ => self.types_str(scope, d),
        }
    }

    /// An unsigned operand: an unsigned column of the scope (not in a grouped SELECT, whose
    /// items may use only its keys), a CAST, or an unsigned literal.
    fn unsigned_operand(&mut self, scope: &Scope, d: u32) -> Expr {
        let cols: Vec<Expr> = match scope.keys {
            None => scope
                .cols
                .iter()
                .filter(|c| c.unsigned)
                .map(|c| c.expr())
                .collect(),
            Some(_) => vec![],
        };
        match self.rng.below(4) {
            0 | 1 if !cols.is_empty() => self.rng.pick(&cols).clone(),
            2 => Expr::lit(self.rng.one(&[
                "18446744073709551615",
                "9223372036854775808",
                "CAST(0 AS UNSIGNED)",
                "CAST(1 AS UNSIGNED)",
            ])),
            _ => {
                let x = self.expr(scope, Kind::Int, d);
                Expr::Cast(Box::new(x), "UNSIGNED")
            }
        }
    }

    /// A branch function over an unsigned and a signed integer (in either order).
    fn mixed_sign_branches(&mut self, scope: &Scope, d: u32) -> Expr {
        let u = self.unsigned_operand(scope, d);
        let i = self.expr(scope, Kind::Int, d);
        let (a, b) = if self.rng.bool() { (u, i) } else { (i, u) };
        self.branches(scope, a, b, d)
    }

    /// IF / IFNULL / COALESCE / GREATEST / LEAST / CASE / NULLIF over `a` and `b`.
    fn branches(&mut self, scope: &Scope, a: Expr, b: Expr, d: u32) -> Expr {
        match self.rng.below(7) {
            0 => {
                let p = self.pred(scope, d);
                Expr::func("IF", vec![p, a, b])
            }
            1 => Expr::func("IFNULL", vec![a, b]),
            2 => Expr::func("COALESCE", vec![a, b]),
            3 => Expr::func(self.rng.one(&["GREATEST", "LEAST"]), vec![a, b]),
            4 => Expr::func("NULLIF", vec![a, b]),
            5 => {
                let p = self.pred(scope, d);
                Expr::Case(None, vec![(p, a)], Some(Box::new(b)))
            }
            _ => {
                let p = self.pred(scope, d);
                Expr::Case(None, vec![(p, a)], self.rng.bool().then(|| Box::new(b)))
            }
        }
    }

    fn types_int(&mut self, scope: &Scope, d: u32) -> Expr {
        let op = self.rng.one(&ARITH);
        match self.rng.below(6) {
            0 => {
                let u = self.unsigned_operand(scope, d);
                let x = self.expr(scope, Kind::Int, d);
                if self.rng.bool() {
                    Expr::bin(op, u, x)
                } else {
                    Expr::bin(op, x, u)
                }
            }
            1 => {
                // An unsigned value out of arithmetic stays unsigned.
                let u = self.unsigned_operand(scope, d);
                let inner = Expr::bin(
                    self.rng.one(&["+", "-", "*"]),
                    u,
                    Expr::lit(self.rng.one(&["0", "1"])),
                );
                let x = self.expr(scope, Kind::Int, d);
                Expr::bin(op, inner, x)
            }
            2 => {
                let u = self.unsigned_operand(scope, d);
                Expr::Un("-", Box::new(u))
            }
            3 => {
                let b = self.mixed_sign_branches(scope, d);
                let x = self.expr(scope, Kind::Int, d);
                Expr::bin(op, b, x)
            }
            4 => {
                let b = self.mixed_sign_branches(scope, d);
                Expr::func("ABS", vec![b])
            }
            _ => {
                // Same-signed integers of different widths stay integers.
                let a = self.expr(scope, Kind::Int, d);
                let b = self.expr(scope, Kind::Int, d);
                let br = self.branches(scope, a, b, d);
                let x = self.expr(scope, Kind::Int, d);
                Expr::bin(op, br, x)
            }
        }
    }

    fn types_decimal(&mut self, scope: &Scope, d: u32) -> Expr {
        let a = self.expr(scope, Kind::Int, d);
        let b = self.expr(scope, Kind::Decimal, d);
        let (a, b) = if self.rng.bool() { (a, b) } else { (b, a) };
        let br = self.branches(scope, a, b, d);
        match self.rng.below(3) {
            0 => br,
            1 => Expr::bin(self.rng.one(&["+", "-", "*", "/"]), br, Expr::lit("3")),
            _ => {
                let m = self.mixed_sign_branches(scope, d);
                Expr::bin(self.rng.one(&["+", "-", "/"]), m, Expr::lit("2"))
            }
        }
    }

    fn types_str(&mut self, scope: &Scope, d: u32) -> Expr {
        let br = match self.rng.below(3) {
            0 => self.mixed_sign_branches(scope, d),
            1 => {
                let a = self.expr(scope, Kind::Int, d);
                let k = *self.rng.pick(&[Kind::Decimal, Kind::Float, Kind::Int]);
                let b = self.expr(scope, k, d);
                self.branches(scope, a, b, d)
            }
            _ => {
                let a = self.expr(scope, Kind::Decimal, d);
                let b = self.expr(scope, Kind::Decimal, d);
                self.branches(scope, a, b, d)
            }
        };
        Expr::func(self.rng.one(&["HEX", "CONCAT"]), vec![br])
    }
}
