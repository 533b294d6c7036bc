//! Binding of the forms whose arguments are not all expressions: `INTERVAL n unit` (in
//! `DATE_ADD` / `DATE_SUB` / `ADDDATE` / `SUBDATE`, and as `d ± INTERVAL …` or
//! `INTERVAL … + d`), `TIMESTAMPADD(unit, n, d)`, `TIMESTAMPDIFF(unit, a, b)` and
//! `EXTRACT(unit FROM d)`. The unit is resolved here (see `func/interval.rs` for the
//! arithmetic); the interval's value and the dates are ordinary bound expressions.

use super::{function_arg_expr, Binder};
use crate::error::{Error, Result};
use crate::sql::bind::sqltype::SqlType;
use crate::sql::expr::Expr;
use crate::sql::func::calendar::{self, CalFn};
use crate::sql::func::interval::{self, Unit};
use crate::sql::func::Func;
use sqlparser::ast;

fn bad_unit(text: &str) -> Error {
    Error::parse(text, 1)
}

/// The unit of an INTERVAL node or a unit written as a name (`DAY`, `SQL_TSI_DAY`).
fn unit_of_field(f: &ast::DateTimeField) -> Result<Unit> {
    let name = f.to_string();
    Unit::parse(name.trim_matches(['\'', '"', '`'])).ok_or_else(|| bad_unit(&name))
}

impl<'a> Binder<'a> {
    /// `date ± INTERVAL`: `iv` is the INTERVAL node (already resolved).
    pub(super) fn bind_interval_add(
        &mut self,
        date: (Expr, SqlType),
        iv: &ast::Interval,
        sub: bool,
    ) -> Result<(Expr, SqlType)> {
        let unit = match &iv.leading_field {
            Some(f) if iv.last_field.is_none() => unit_of_field(f)?,
            _ => return Err(bad_unit(&iv.to_string())),
        };
        let n = self.bind(&iv.value)?;
        Ok(self.interval_call(date, n, unit, sub))
    }

    /// The interval node `e` stands for, if it is one.
    pub(super) fn as_interval<'e>(&self, e: &'e ast::Expr) -> Result<Option<&'e ast::Interval>>
    where
        'a: 'e,
    {
        let mut e = self.resolve(e)?;
        while let ast::Expr::Nested(inner) = e {
            e = self.resolve(inner)?;
        }
        Ok(match e {
            ast::Expr::Interval(iv) => Some(iv),
            _ => None,
        })
    }

    /// DATE_ADD and its relatives, TIMESTAMPADD, TIMESTAMPDIFF; None for other names.
    pub(super) fn bind_temporal_call(
        &mut self,
        upper: &str,
        args: &[&ast::FunctionArg],
    ) -> Option<Result<(Expr, SqlType)>> {
        let sub = match upper {
            "DATE_ADD" | "ADDDATE" => false,
            "DATE_SUB" | "SUBDATE" => true,
            "TIMESTAMPADD" | "TIMESTAMPDIFF" => return Some(self.bind_timestamp_fn(upper, args)),
            _ => return None,
        };
        Some((|| {
            let [d, n] = args else {
                return Err(crate::sql::func::wrong_args(upper));
            };
            let date = self.bind(function_arg_expr(d)?)?;
            let n = function_arg_expr(n)?;
            if let Some(iv) = self.as_interval(n)? {
                return self.bind_interval_add(date, iv, sub);
            }
            if upper.starts_with("DATE_") {
                return Err(Error::parse(&n.to_string(), 1));
            }
            // ADDDATE(d, n): n days.
            let n = self.bind(n)?;
            Ok(self.interval_call(date, n, Unit::Day, sub))
        })())
    }

    fn bind_timestamp_fn(
        &mut self,
        upper: &str,
        args: &[&ast::FunctionArg],
    ) -> Result<(Expr, SqlType)> {
        let [u, a, b] = args else {
            return Err(crate::sql::func::wrong_args(upper));
        };
        let u = function_arg_expr(u)?;
        let unit = match self.resolve(u)? {
            ast::Expr::Identifier(id) if id.quote_style.is_none() => Unit::parse(&id.value),
            _ => None,
        }
        .filter(|u| u.is_simple())
        .ok_or_else(|| bad_unit(&u.to_string()))?;
        let a = self.bind(function_arg_expr(a)?)?;
        let b = self.bind(function_arg_expr(b)?)?;
        if upper == "TIMESTAMPADD" {
            return Ok(self.interval_call(b, a, unit, false));
        }
        Ok((
            Expr::Func(Func::TimestampDiff(unit), vec![a.0, b.0]),
            SqlType::bigint(),
        ))
    }

    /// EXTRACT(unit FROM e).
    pub(super) fn bind_extract(
        &mut self,
        field: &ast::DateTimeField,
        e: &ast::Expr,
    ) -> Result<(Expr, SqlType)> {
        let unit = unit_of_field(field)?;
        let (x, t) = self.bind(e)?;
        let ty = calendar::extract_type(unit).with_nullable(true);
        let _ = t;
        Ok((
            Expr::Func(
                Func::Cal(
                    CalFn::Extract(unit),
                    crate::sql::bind::sqltype::Class::Int,
                    0,
                ),
                vec![x],
            ),
            ty,
        ))
    }
}

impl Binder<'_> {
    /// DATE_ADD(date, INTERVAL n unit) (DATE_SUB when `sub`).
    fn interval_call(
        &self,
        date: (Expr, SqlType),
        n: (Expr, SqlType),
        unit: Unit,
        sub: bool,
    ) -> (Expr, SqlType) {
        let typed_by = self.constant_text(&date).unwrap_or_else(|| date.0.clone());
        let (out, ty) = interval::bind_type(&typed_by, &date.1, unit, &n.1);
        (
            Expr::Func(Func::AddInterval { unit, sub, out }, vec![date.0, n.0]),
            ty.with_nullable(true),
        )
    }

    /// A constant string date argument read now, as MariaDB reads a constant before the
    /// statement runs: its text fixes the result's fractional digits
    /// (`DATE_ADD(COALESCE('…:00.5', …), INTERVAL 1 SECOND)` shows one, as a literal would).
    /// Warnings of this read are dropped: the execution gives them.
    fn constant_text(&self, (e, t): &(Expr, SqlType)) -> Option<Expr> {
        use crate::sql::bind::sqltype::Class;
        if matches!(e, Expr::Lit(_)) || !matches!(t.class, Class::Str | Class::Bin) {
            return None;
        }
        let mut pure = e.is_constant();
        e.walk(&mut |n| {
            pure &= !matches!(
                n,
                Expr::Param(_) | Expr::UserVar(_) | Expr::SysVar { .. } | Expr::Subquery(_)
            )
        });
        if !pure {
            return None;
        }
        let before = self.env.warnings.borrow().len();
        let v = e.eval(&crate::sql::expr::RowCtx::EMPTY, self.env);
        self.env.warnings.borrow_mut().truncate(before);
        Some(Expr::Lit(v.ok()?))
    }
}
