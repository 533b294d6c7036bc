//! The clauses of GROUP_CONCAT: `ORDER BY key [ASC|DESC], …` and `SEPARATOR 'text'`.
//!
//! The keys are expressions of the row (bound like the argument; a position `1` is the
//! argument); the values are sorted by them, each under its own collation, before they are
//! joined (exec: `Acc` in select.rs). Without ORDER BY the values come in the order the rows
//! were read. Other clauses (LIMIT) are refused with 1235.

use crate::error::{Error, Result};
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::bind::{comparison_collation, Binder};
use crate::sql::expr::Expr;
use crate::types::{Collation, Value};
use sqlparser::ast;

/// One ORDER BY key of a GROUP_CONCAT.
#[derive(Clone, Debug)]
pub struct ConcatOrder {
    pub key: Expr,
    pub desc: bool,
    pub coll: Collation,
}

/// The bound clauses of one GROUP_CONCAT.
#[derive(Clone, Debug)]
pub struct ConcatClauses {
    pub order: Vec<ConcatOrder>,
    pub separator: Vec<u8>,
}

impl Default for ConcatClauses {
    fn default() -> Self {
        ConcatClauses {
            order: Vec::new(),
            separator: b",".to_vec(),
        }
    }
}

/// The collation a sort key of this type sorts under.
pub fn sort_collation(t: &SqlType) -> Collation {
    match t.class {
        Class::Str => t.collation,
        _ => comparison_collation(t, t),
    }
}

impl Binder<'_> {
    /// Bind the clauses of a GROUP_CONCAT whose argument is `arg` (of type `arg_ty`).
    pub(super) fn bind_concat_clauses(
        &mut self,
        clauses: &[ast::FunctionArgumentClause],
        arg: &Expr,
        arg_ty: &SqlType,
    ) -> Result<ConcatClauses> {
        let mut out = ConcatClauses::default();
        for c in clauses {
            match c {
                ast::FunctionArgumentClause::OrderBy(keys) => {
                    for k in keys {
                        out.order.push(self.bind_concat_key(k, arg, arg_ty)?);
                    }
                }
                ast::FunctionArgumentClause::Separator(v) => match &v.value {
                    ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                        out.separator = s.as_bytes().to_vec();
                    }
                    _ => return Err(Error::parse(&v.to_string(), 1)),
                },
                other => {
                    return Err(super::unsupported(&format!("GROUP_CONCAT(… {other})")));
                }
            }
        }
        Ok(out)
    }

    fn bind_concat_key(
        &mut self,
        k: &ast::OrderByExpr,
        arg: &Expr,
        arg_ty: &SqlType,
    ) -> Result<ConcatOrder> {
        if k.options.nulls_first.is_some() || k.with_fill.is_some() {
            return Err(super::unsupported("NULLS FIRST / LAST in GROUP_CONCAT"));
        }
        let desc = matches!(k.options.sort, Some(ast::OrderBySort::Desc));
        let (key, ty) = self.bind(&k.expr)?;
        let (key, ty) = match &key {
            // A position names an argument; there is one.
            Expr::Lit(Value::Int(1) | Value::UInt(1)) if is_integer_literal(&k.expr) => {
                (arg.clone(), arg_ty.clone())
            }
            Expr::Lit(Value::Int(n)) if is_integer_literal(&k.expr) => {
                return Err(super::unknown_column(&n.to_string(), "ORDER BY"));
            }
            _ => (key, ty),
        };
        // An ENUM / SET sorts by its number, as in ORDER BY.
        let (key, ty) = super::enum_as_number((key, ty));
        Ok(ConcatOrder {
            key,
            desc,
            coll: sort_collation(&ty),
        })
    }
}

fn is_integer_literal(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Value(v) if matches!(&v.value, ast::Value::Number(n, _) if n.bytes().all(|c| c.is_ascii_digit())))
}
