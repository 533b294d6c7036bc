//! Feature `wide`: more of the scalar language, drawn in place of the base expression of a
//! kind one time in four (and a predicate one time in six) — math (EXP, LN, LOG, the
//! trigonometric functions, BIT_COUNT), calendar and interval functions (WEEK, QUARTER,
//! DATE_ADD, TIMESTAMPDIFF, DATE_FORMAT, …), SUBSTRING_INDEX, two-argument LPAD, CAST between
//! more types, CASE / IF / NULLIF over mixed kinds, explicit collations (utf8mb4_bin,
//! _general_ci, _unicode_ci) with trailing-space (PAD SPACE) literals, and comparisons across
//! kinds (string vs number vs date).
//!
//! Without the feature no random number is drawn here, so the base features' queries for a
//! seed stay the same.

use super::{Gen, Scope};
use crate::ast::Expr;
use crate::schema::Kind;

const UNITS: [&str; 6] = ["DAY", "MONTH", "YEAR", "HOUR", "MINUTE", "SECOND"];
const FORMATS: [&str; 6] = [
    "'%Y-%m-%d'",
    "'%W %M %e %Y'",
    "'%H:%i:%s %p'",
    "'%j %U %u %V %v %X %x'",
    "'%a %b %c %D %f'",
    "'%y%m%d %T %r'",
];
const COLLATIONS: [&str; 3] = ["utf8mb4_bin", "utf8mb4_general_ci", "utf8mb4_unicode_ci"];

impl Gen<'_> {
    /// An expression of `kind` from the wider set.
    pub(super) fn wide_expr(&mut self, scope: &Scope, kind: Kind, d: u32) -> Expr {
        match kind {
            Kind::Int => self.wide_int(scope, d),
            Kind::Decimal => self.wide_decimal(scope, d),
            Kind::Float => self.wide_float(scope, d),
            Kind::Str { .. } => self.wide_str(scope, kind, d),
            Kind::Bin => {
                let s = self.expr(scope, Kind::Str { ci: true }, d);
                Expr::Cast(Box::new(s), self.rng.one(&["BINARY", "BINARY(2)"]))
            }
            Kind::Date => self.wide_date(scope, d),
            Kind::DateTime => self.wide_datetime(scope, d),
        }
    }

    fn wide_int(&mut self, scope: &Scope, d: u32) -> Expr {
        match self.rng.below(9) {
            0 => {
                let x = self.expr(scope, Kind::Int, d);
                Expr::func("BIT_COUNT", vec![x])
            }
            1 => {
                let x = self.expr(scope, Kind::Date, d);
                Expr::func(
                    self.rng.one(&[
                        "DAYOFWEEK",
                        "WEEKDAY",
                        "DAYOFYEAR",
                        "QUARTER",
                        "WEEKOFYEAR",
                        "TO_DAYS",
                        "YEARWEEK",
                    ]),
                    vec![x],
                )
            }
            2 => {
                let x = self.expr(scope, Kind::Date, d);
                let m = Expr::lit(self.rng.range(0, 7).to_string());
                Expr::func("WEEK", vec![x, m])
            }
            3 => {
                let a = self.expr(scope, Kind::DateTime, d);
                let b = self.expr(scope, Kind::DateTime, d);
                let unit = Expr::lit(*self.rng.pick(&UNITS));
                Expr::func("TIMESTAMPDIFF", vec![unit, a, b])
            }
            4 => {
                let x = self.expr(scope, Kind::DateTime, d);
                Expr::func("MICROSECOND", vec![x])
            }
            5 => {
                let a = self.expr(scope, Kind::Str { ci: true }, d);
                let b = self.expr(scope, Kind::Str { ci: true }, d);
                Expr::func("FIND_IN_SET", vec![a, b])
            }
            6 => {
                let k = self.kind();
                let x = self.expr(scope, k, d);
                let y = self.expr(scope, Kind::Int, d);
                Expr::func("NULLIF", vec![y, x])
            }
            7 => {
                let p = self.pred(scope, d);
                let a = self.expr(scope, Kind::Int, d);
                let k = self.kind();
                let b = self.expr(scope, k, d);
                Expr::func("IF", vec![p, a, b])
            }
            _ => {
                let k = self.kind();
                let x = self.expr(scope, k, d);
                Expr::Cast(Box::new(x), self.rng.one(&["UNSIGNED", "INT", "INTEGER"]))
            }
        }
    }

    fn wide_decimal(&mut self, scope: &Scope, d: u32) -> Expr {
        match self.rng.below(3) {
            0 => {
                let k = self.kind();
                let x = self.expr(scope, k, d);
                Expr::Cast(
                    Box::new(x),
                    self.rng.one(&["DECIMAL(8,3)", "DEC(20,5)", "DECIMAL(4,4)"]),
                )
            }
            1 => {
                let p = self.pred(scope, d);
                let a = self.expr(scope, Kind::Decimal, d);
                let b = self.expr(scope, Kind::Int, d);
                Expr::Case(None, vec![(p, a)], Some(Box::new(b)))
            }
            _ => {
                let a = self.expr(scope, Kind::Decimal, d);
                let b = self.expr(scope, Kind::Int, d);
                Expr::func(self.rng.one(&["COALESCE", "IFNULL", "NULLIF"]), vec![a, b])
            }
        }
    }

    fn wide_float(&mut self, scope: &Scope, d: u32) -> Expr {
        let k = if self.rng.bool() {
            Kind::Float
        } else {
            Kind::Int
        };
        let x = self.expr(scope, k, d);
        match self.rng.below(6) {
            0 => Expr::func(
                self.rng.one(&["EXP", "LN", "LOG", "LOG2", "LOG10"]),
                vec![x],
            ),
            1 => Expr::func(
                self.rng
                    .one(&["SIN", "COS", "TAN", "ATAN", "ASIN", "ACOS", "COT"]),
                vec![x],
            ),
            2 => Expr::func(self.rng.one(&["DEGREES", "RADIANS"]), vec![x]),
            3 => {
                let y = self.expr(scope, Kind::Float, d);
                Expr::func(self.rng.one(&["ATAN2", "ATAN", "LOG"]), vec![x, y])
            }
            4 => {
                let k = self.kind();
                let y = self.expr(scope, k, d);
                Expr::Cast(Box::new(y), self.rng.one(&["DOUBLE", "FLOAT"]))
            }
            _ => {
                let s = self.expr(scope, Kind::Str { ci: true }, d);
                Expr::func(self.rng.one(&["EXP", "SQRT", "ABS"]), vec![s])
            }
        }
    }

    fn wide_str(&mut self, scope: &Scope, kind: Kind, d: u32) -> Expr {
        match self.rng.below(8) {
            0 => {
                let s = self.expr(scope, kind, d);
                let sep = self.literal(scope, kind);
                let n = self.small_int(scope, d);
                Expr::func("SUBSTRING_INDEX", vec![s, sep, n])
            }
            1 => {
                let x = self.expr(scope, Kind::DateTime, d);
                let f = Expr::lit(*self.rng.pick(&FORMATS));
                Expr::func("DATE_FORMAT", vec![x, f])
            }
            2 => {
                let x = self.expr(scope, Kind::Date, d);
                Expr::func(self.rng.one(&["DAYNAME", "MONTHNAME"]), vec![x])
            }
            3 => {
                let s = self.expr(scope, kind, d);
                let n = self.small_int(scope, d);
                Expr::func(self.rng.one(&["LPAD", "RPAD"]), vec![s, n])
            }
            4 => {
                let p = self.pred(scope, d);
                let a = self.expr(scope, kind, d);
                let k = self.kind();
                let b = self.expr(scope, k, d);
                Expr::func("IF", vec![p, a, b])
            }
            5 => {
                let k = self.kind();
                let x = self.expr(scope, k, d);
                Expr::Cast(Box::new(x), self.rng.one(&["CHAR(5)", "CHAR(12)", "CHAR"]))
            }
            6 => {
                let k = self.kind();
                let a = self.expr(scope, k, d);
                let b = self.expr(scope, kind, d);
                Expr::func("CONCAT", vec![a, b])
            }
            _ => {
                let x = self.expr(scope, Kind::Decimal, d);
                let n = Expr::lit(self.rng.range(0, 4).to_string());
                Expr::func("FORMAT", vec![x, n])
            }
        }
    }

    fn wide_date(&mut self, scope: &Scope, d: u32) -> Expr {
        let x = self.expr(scope, Kind::Date, d);
        match self.rng.below(4) {
            0 => {
                let n = self.rng.range(0, 40) as i64 - 20;
                let unit = self.rng.one(&["DAY", "MONTH", "YEAR", "WEEK", "QUARTER"]);
                Expr::func(
                    self.rng.one(&["DATE_ADD", "DATE_SUB"]),
                    vec![x, Expr::lit(format!("INTERVAL {n} {unit}"))],
                )
            }
            1 => Expr::func("LAST_DAY", vec![x]),
            2 => {
                let n = self.expr(scope, Kind::Int, d);
                Expr::func("MAKEDATE", vec![Expr::lit("2020"), n])
            }
            _ => {
                let s = self.expr(scope, Kind::Str { ci: true }, d);
                Expr::func("DATE", vec![s])
            }
        }
    }

    fn wide_datetime(&mut self, scope: &Scope, d: u32) -> Expr {
        let x = self.expr(scope, Kind::DateTime, d);
        match self.rng.below(3) {
            0 => {
                let n = self.rng.range(0, 100) as i64 - 50;
                let unit = self
                    .rng
                    .one(&["HOUR", "MINUTE", "SECOND", "DAY", "MICROSECOND"]);
                Expr::func(
                    self.rng.one(&["DATE_ADD", "DATE_SUB"]),
                    vec![x, Expr::lit(format!("INTERVAL {n} {unit}"))],
                )
            }
            1 => {
                let k = if self.rng.bool() {
                    Kind::Int
                } else {
                    Kind::Decimal
                };
                let n = self.expr(scope, k, d);
                Expr::Cast(Box::new(n), "DATETIME")
            }
            _ => Expr::Cast(Box::new(x), self.rng.one(&["DATETIME(2)", "DATETIME(6)"])),
        }
    }

    /// A predicate from the wider set: explicit collations, PAD SPACE, and comparisons
    /// across kinds.
    pub(super) fn wide_pred(&mut self, scope: &Scope, d: u32) -> Expr {
        match self.rng.below(3) {
            0 => {
                // CONCAT: a string whatever the operand (a number or a binary string
                // takes no COLLATE).
                let a = Expr::func("CONCAT", vec![self.expr(scope, Kind::Str { ci: true }, d)]);
                let lit = match self.literal(scope, Kind::Str { ci: true }) {
                    // Trailing spaces: equal under PAD SPACE collations.
                    Expr::Lit(s) if s.starts_with('\'') && self.rng.bool() => {
                        Expr::lit(format!("{}  '", &s[..s.len() - 1]))
                    }
                    other => other,
                };
                let coll = *self.rng.pick(&COLLATIONS);
                Expr::bin(
                    self.rng.one(&["=", "<", ">=", "<>"]),
                    Expr::lit(format!("{a} COLLATE {coll}")),
                    lit,
                )
            }
            1 => {
                let kinds = [Kind::Int, Kind::Decimal, Kind::Date, Kind::DateTime];
                let a = self.expr(scope, Kind::Str { ci: true }, d);
                let k = *self.rng.pick(&kinds);
                let b = self.expr(scope, k, d);
                Expr::bin(self.rng.one(&["=", "<", ">", "<=>"]), a, b)
            }
            _ => {
                let a = self.expr(scope, Kind::Date, d);
                let k = *self.rng.pick(&[Kind::Int, Kind::Decimal, Kind::DateTime]);
                let b = self.expr(scope, k, d);
                Expr::bin(self.rng.one(&["=", "<", ">="]), a, b)
            }
        }
    }
}
