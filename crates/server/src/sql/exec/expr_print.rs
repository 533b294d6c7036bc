//! Expressions as MariaDB prints them in SHOW CREATE TABLE: CHECK constraints, generated
//! columns and DEFAULT expressions keep this text, and parse and bind it again to use it.
//!
//! Columns are backquoted, keywords and function names lower case, MariaDB's function aliases
//! applied (`length` is `octet_length`, `now()` is `current_timestamp()`), operands in
//! parentheses only where they bind weaker than their operator. `NOT` is printed as MariaDB's
//! parser rewrites it: a comparison, IS [NOT] NULL, IN, BETWEEN and LIKE are negated (`not (a >
//! 1)` is `` `a` <= 1 ``), AND / OR by De Morgan, a column `c` as `` `c` = 0 ``, anything else
//! as `!x`, which the dialect reads back (`parse/dialect.rs`).

use super::check::no_subqueries;

/// The deepest expression printed (an operator chain counts one level a term); deeper is 1235.
/// The kept text is parsed back into a tree that deep (`parse::dialect::parse_kept_expr`, no
/// set-aside nodes), which must stay cheap to walk and drop on a connection's stack.
const MAX_DEPTH: usize = 1200;
use crate::error::{Error, Result};
use sqlparser::ast;

/// Binding strength, as MariaDB prints: parentheses go around a weaker operand.
fn prec(e: &ast::Expr, sa: &[ast::Expr]) -> u8 {
    use ast::BinaryOperator as B;
    match e {
        ast::Expr::BinaryOp { op, .. } => match op {
            B::Or => 1,
            B::Xor => 2,
            B::And => 3,
            B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship => 5,
            B::BitwiseOr => 6,
            B::BitwiseAnd => 7,
            B::PGBitwiseShiftLeft | B::PGBitwiseShiftRight => 8,
            B::Plus | B::Minus => 9,
            B::Multiply | B::Divide | B::Modulo | B::MyIntegerDivide => 10,
            B::BitwiseXor => 11,
            _ => 5,
        },
        // Printed as its rewrite, or as `!x`, which binds tightest.
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Not,
            expr,
        } => match negate(expr, sa, 0) {
            Ok(Some(n)) => prec(&n, sa),
            _ => 20,
        },
        ast::Expr::IsNull(_)
        | ast::Expr::IsNotNull(_)
        | ast::Expr::IsTrue(_)
        | ast::Expr::IsFalse(_)
        | ast::Expr::IsNotTrue(_)
        | ast::Expr::IsNotFalse(_)
        | ast::Expr::InList { .. }
        | ast::Expr::Between { .. }
        | ast::Expr::Like { .. }
        | ast::Expr::RLike { .. } => 5,
        ast::Expr::Nested(inner) => prec(inner, sa),
        _ => 20,
    }
}

fn unnest(e: &ast::Expr) -> &ast::Expr {
    match e {
        ast::Expr::Nested(inner) => unnest(inner),
        other => other,
    }
}

/// An operand, in parentheses when it binds weaker than `min`.
fn operand(e: &ast::Expr, min: u8, sa: &[ast::Expr], d: usize) -> Result<String> {
    let e = unnest(e);
    let s = pr(e, sa, d + 1)?;
    Ok(if prec(e, sa) < min {
        format!("({s})")
    } else {
        s
    })
}

fn quote_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for ch in s.chars() {
        match ch {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// MariaDB's name for a function in printed expressions.
fn function_name(name: &str) -> String {
    let n = name.to_ascii_lowercase();
    match n.as_str() {
        "length" => "octet_length".into(),
        "upper" => "ucase".into(),
        "lower" => "lcase".into(),
        "substring" | "mid" => "substr".into(),
        "character_length" => "char_length".into(),
        "now" | "localtime" | "localtimestamp" => "current_timestamp".into(),
        "current_date" => "curdate".into(),
        "current_time" => "curtime".into(),
        _ => n,
    }
}

/// `NOT e` as MariaDB's parser rewrites it (module doc); None where it keeps the NOT.
fn negate(e: &ast::Expr, sa: &[ast::Expr], d: usize) -> Result<Option<ast::Expr>> {
    use crate::sql::bind::{STACK_RED_ZONE, STACK_SEGMENT};
    if d > MAX_DEPTH {
        return Err(Error::unsupported("expressions nested this deep"));
    }
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || negate_node(e, sa, d))
}

fn negate_node(e: &ast::Expr, sa: &[ast::Expr], d: usize) -> Result<Option<ast::Expr>> {
    use ast::BinaryOperator as B;
    use ast::Expr as E;
    if let Some(i) = crate::sql::parse::dialect::placeholder_index(e) {
        let inner = sa.get(i).ok_or_else(|| Error::internal("placeholder"))?;
        return negate(inner, sa, d + 1);
    }
    let not = |x: &ast::Expr| -> Result<ast::Expr> {
        Ok(match negate(x, sa, d + 1)? {
            Some(n) => n,
            None => E::UnaryOp {
                op: ast::UnaryOperator::Not,
                expr: Box::new(x.clone()),
            },
        })
    };
    Ok(Some(match e {
        E::Nested(x) => return negate(x, sa, d + 1),
        E::BinaryOp { left, op, right } => {
            let op = match op {
                B::Eq => B::NotEq,
                B::NotEq => B::Eq,
                B::Lt => B::GtEq,
                B::GtEq => B::Lt,
                B::Gt => B::LtEq,
                B::LtEq => B::Gt,
                B::And | B::Or => {
                    let flipped = if *op == B::And { B::Or } else { B::And };
                    return Ok(Some(E::BinaryOp {
                        left: Box::new(not(left)?),
                        op: flipped,
                        right: Box::new(not(right)?),
                    }));
                }
                _ => return Ok(None),
            };
            E::BinaryOp {
                left: left.clone(),
                op,
                right: right.clone(),
            }
        }
        E::IsNull(x) => E::IsNotNull(x.clone()),
        E::IsNotNull(x) => E::IsNull(x.clone()),
        E::InList {
            expr,
            list,
            negated,
        } => E::InList {
            expr: expr.clone(),
            list: list.clone(),
            negated: !negated,
        },
        E::Between {
            expr,
            negated,
            low,
            high,
        } => E::Between {
            expr: expr.clone(),
            negated: !negated,
            low: low.clone(),
            high: high.clone(),
        },
        E::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => E::Like {
            negated: !negated,
            any: false,
            expr: expr.clone(),
            pattern: pattern.clone(),
            escape_char: escape_char.clone(),
        },
        // A column `c` is `c = 0`; a variable is no column.
        E::Identifier(id) if !id.value.starts_with('@') || id.quote_style.is_some() => {
            E::BinaryOp {
                left: Box::new(e.clone()),
                op: B::Eq,
                right: Box::new(E::Value(ast::Value::Number("0".into(), false).into())),
            }
        }
        E::CompoundIdentifier(_) => E::BinaryOp {
            left: Box::new(e.clone()),
            op: B::Eq,
            right: Box::new(E::Value(ast::Value::Number("0".into(), false).into())),
        },
        // NOT NOT x: the inner NOT is rewritten first, then negated; a kept NOT negated is its
        // operand.
        E::UnaryOp {
            op: ast::UnaryOperator::Not,
            expr,
        } => match negate(expr, sa, d + 1)? {
            Some(n) => not(&n)?,
            None => (**expr).clone(),
        },
        _ => return Ok(None),
    }))
}

/// An expression as MariaDB prints a CHECK constraint's (module doc); 1970 for a subquery.
/// `set_aside`: the statement's deep expressions its placeholders stand for.
pub fn print(e: &ast::Expr, set_aside: &[ast::Expr]) -> Result<String> {
    pr(e, set_aside, 0)
}

/// One node; the stack grows on the heap as the printer recurses (`bind/mod.rs` does the same),
/// so the depth limit does not depend on the thread's stack or the build's frame sizes.
fn pr(e: &ast::Expr, sa: &[ast::Expr], d: usize) -> Result<String> {
    use crate::sql::bind::{STACK_RED_ZONE, STACK_SEGMENT};
    if d > MAX_DEPTH {
        return Err(Error::unsupported("CHECK expressions nested this deep"));
    }
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || pr_node(e, sa, d))
}

fn pr_node(e: &ast::Expr, sa: &[ast::Expr], d: usize) -> Result<String> {
    use ast::BinaryOperator as B;
    use ast::Expr as E;
    if let Some(i) = crate::sql::parse::dialect::placeholder_index(e) {
        let inner = sa.get(i).ok_or_else(|| Error::internal("placeholder"))?;
        return pr(inner, sa, d + 1);
    }
    Ok(match e {
        // A user variable `@x` is printed @`x`; a system one as written.
        E::Identifier(id) if id.quote_style.is_none() && id.value.starts_with("@@") => {
            id.value.clone()
        }
        E::Identifier(id) if id.quote_style.is_none() && id.value.starts_with('@') => {
            format!("@`{}`", id.value[1..].replace('`', "``"))
        }
        E::Identifier(id) => format!("`{}`", id.value.replace('`', "``")),
        E::CompoundIdentifier(ids) => format!(
            "`{}`",
            ids.last()
                .map_or(String::new(), |i| i.value.replace('`', "``"))
        ),
        E::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                quote_string(s)
            }
            ast::Value::Boolean(b) => (if *b { "1" } else { "0" }).to_string(),
            ast::Value::Null => "NULL".to_string(),
            other => other.to_string(),
        },
        E::Nested(inner) => pr(inner, sa, d + 1)?,
        E::BinaryOp { left, op, right } => {
            let p = prec(e, sa);
            let op_text = match op {
                B::And => "and".to_string(),
                B::Or => "or".to_string(),
                B::Xor => "xor".to_string(),
                B::NotEq => "<>".to_string(),
                B::Modulo => "MOD".to_string(),
                B::MyIntegerDivide => "DIV".to_string(),
                other => other.to_string(),
            };
            // Left-associative: an equally strong right operand keeps its parentheses,
            // except in AND / OR / XOR chains.
            let chain = matches!(op, B::And | B::Or | B::Xor);
            let right_min = if chain { p } else { p + 1 };
            format!(
                "{} {op_text} {}",
                operand(left, p, sa, d)?,
                operand(right, right_min, sa, d)?
            )
        }
        E::UnaryOp { op, expr } => match op {
            ast::UnaryOperator::Minus => format!("-{}", operand(expr, 12, sa, d)?),
            ast::UnaryOperator::Plus => operand(expr, 12, sa, d)?,
            ast::UnaryOperator::Not => match negate(expr, sa, d + 1)? {
                Some(n) => pr(&n, sa, d + 1)?,
                None => format!("!{}", operand(expr, 20, sa, d)?),
            },
            other => format!("{other}{}", operand(expr, 12, sa, d)?),
        },
        E::IsNull(x) => format!("{} is null", operand(x, 6, sa, d)?),
        E::IsNotNull(x) => format!("{} is not null", operand(x, 6, sa, d)?),
        E::IsTrue(x) => format!("{} is true", operand(x, 6, sa, d)?),
        E::IsNotTrue(x) => format!("{} is not true", operand(x, 6, sa, d)?),
        E::IsFalse(x) => format!("{} is false", operand(x, 6, sa, d)?),
        E::IsNotFalse(x) => format!("{} is not false", operand(x, 6, sa, d)?),
        E::InList {
            expr,
            list,
            negated,
        } => {
            let items = list
                .iter()
                .map(|x| pr(x, sa, d + 1))
                .collect::<Result<Vec<_>>>()?;
            format!(
                "{} {}in ({})",
                operand(expr, 6, sa, d)?,
                if *negated { "not " } else { "" },
                items.join(",")
            )
        }
        E::Between {
            expr,
            negated,
            low,
            high,
        } => format!(
            "{} {}between {} and {}",
            operand(expr, 6, sa, d)?,
            if *negated { "not " } else { "" },
            operand(low, 6, sa, d)?,
            operand(high, 6, sa, d)?
        ),
        E::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => {
            let mut s = format!(
                "{}{} like {}",
                operand(expr, 6, sa, d)?,
                if *negated { "  not" } else { "" },
                operand(pattern, 6, sa, d)?
            );
            if let Some(esc) = escape_char {
                s.push_str(&format!(" escape {}", pr(esc, sa, d + 1)?));
            }
            s
        }
        E::RLike {
            negated,
            expr,
            pattern,
            ..
        } => format!(
            "{}{} regexp {}",
            operand(expr, 6, sa, d)?,
            if *negated { "  not" } else { "" },
            operand(pattern, 6, sa, d)?
        ),
        E::Function(f) => {
            let name = function_name(&f.name.to_string());
            let args = match &f.args {
                ast::FunctionArguments::None => return Ok(format!("{name}()")),
                ast::FunctionArguments::Subquery(_) => return Err(no_subqueries()),
                ast::FunctionArguments::List(l) => {
                    let mut out = Vec::with_capacity(l.args.len());
                    for a in &l.args {
                        match a {
                            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => {
                                out.push(pr(x, sa, d + 1)?)
                            }
                            other => out.push(other.to_string()),
                        }
                    }
                    out.join(",")
                }
            };
            format!("{name}({args})")
        }
        E::Case {
            operand: op,
            conditions,
            else_result,
            ..
        } => {
            let mut s = "case ".to_string();
            if let Some(o) = op {
                s.push_str(&pr(o, sa, d + 1)?);
                s.push(' ');
            }
            for w in conditions {
                s.push_str(&format!(
                    "when {} then {} ",
                    pr(&w.condition, sa, d + 1)?,
                    pr(&w.result, sa, d + 1)?
                ));
            }
            if let Some(x) = else_result {
                s.push_str(&format!("else {} ", pr(x, sa, d + 1)?));
            }
            s.push_str("end");
            s
        }
        E::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            let mut args = vec![pr(expr, sa, d + 1)?];
            if let Some(f) = substring_from {
                args.push(pr(f, sa, d + 1)?);
            }
            if let Some(f) = substring_for {
                args.push(pr(f, sa, d + 1)?);
            }
            format!("substr({})", args.join(","))
        }
        E::Trim {
            trim_where: None,
            trim_what: None,
            expr,
            trim_characters: None,
        } => format!("trim({})", pr(expr, sa, d + 1)?),
        // MariaDB names the connection's character set after CHAR (`char charset utf8mb3`);
        // that is not printed here.
        E::Cast {
            expr,
            data_type,
            format: None,
            ..
        } => format!(
            "cast({} as {})",
            pr(expr, sa, d + 1)?,
            data_type.to_string().to_ascii_lowercase()
        ),
        E::TypedString(ts) if !ts.uses_odbc_syntax => format!(
            "{}{}",
            ts.data_type.to_string().to_ascii_uppercase(),
            ts.value
        ),
        E::Interval(iv) => {
            let unit = match &iv.leading_field {
                Some(ast::DateTimeField::Custom(u)) => u.value.to_ascii_lowercase(),
                Some(f) => f.to_string().to_ascii_lowercase(),
                None => String::new(),
            };
            format!("interval {} {unit}", operand(&iv.value, 20, sa, d)?)
        }
        E::Subquery(_) | E::Exists { .. } | E::InSubquery { .. } => return Err(no_subqueries()),
        other => {
            let s = other.to_string();
            if s.to_ascii_uppercase().contains("SELECT") {
                return Err(no_subqueries());
            }
            s
        }
    })
}
