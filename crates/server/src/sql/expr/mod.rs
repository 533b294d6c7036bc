//! Bound expressions and their evaluation with MySQL semantics.
//!
//! An [`Expr`] is produced by the binder from the parser's AST: names are resolved to column
//! positions, functions to [`Func`], and each comparison carries the collation it uses. It
//! evaluates against a [`RowCtx`] (the current row, the row proposed by an INSERT for
//! `VALUES(col)`, and the aggregate results of a group) in an [`Env`].
//!
//! Three-valued logic: every operator returns `Value::Null` for unknown; WHERE keeps a row only
//! when its condition is true ([`Expr::is_true`]).

pub(in crate::sql) mod compare;
pub(in crate::sql) mod convert;
pub mod datetime_text;
pub(in crate::sql) mod float_m_d;
pub mod num_warn;
pub(in crate::sql) mod subquery;
pub mod time_value;
mod zero_date;

use crate::error::{Error, Result};
use crate::sql::bind::sqltype::Class;
use crate::sql::bind::{STACK_RED_ZONE, STACK_SEGMENT};
use crate::sql::env::Env;
use crate::sql::func::{self, Func};
use crate::types::{Collation, Decimal, Value};
use cohort_decimal::{DivError, Rounding};
use cohort_protocol::ErrorCode;
use convert::Num;
use std::borrow::Cow;
use std::cmp::Ordering;

/// Scale added by `/` (MySQL's `div_precision_increment`).
pub const DIV_PRECISION_INCREMENT: u8 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `<=>`: NULL-safe equality.
    NullSafeEq,
}

impl CmpOp {
    /// The operator with its operands swapped (`5 < a` is `a > 5`).
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }
}

/// Target of CAST / CONVERT.
#[derive(Clone, Debug, PartialEq)]
pub enum CastTo {
    /// `CONVERT(x USING cs)` (after x became a string): the characters `cs` lacks become
    /// `?`, as MariaDB converts them.
    Charset(crate::types::text_charset::WireCharset),
    Signed,
    Unsigned,
    Char(Option<u32>),
    Binary(Option<u32>),
    Decimal(u8, u8),
    Double,
    /// CAST(… AS FLOAT): the value rounded to a 32-bit float; past its range the nearest
    /// limit with Note 1264 naming the CAST as written here.
    Float(Box<str>),
    Date,
    DateTime(u8),
    /// CAST(… AS TIME(fsp)): fractions beyond fsp truncated; no time → NULL with 1292.
    Time(u8),
    /// Not a CAST the user wrote: a latin1 string where it becomes a binary string
    /// (`CAST(latin1_col AS BINARY)`): its latin1 bytes, not the UTF-8 Cohort keeps.
    Latin1Bytes,
    /// Not a CAST the user wrote: a BIT(n) value where it becomes a string (CONCAT, CAST AS
    /// CHAR, GROUP_CONCAT) is its `(n + 7) / 8` big-endian bytes, as MariaDB.
    BitBytes(u8),
    /// Not a CAST the user wrote: a decimal computed with more digits than its type's scale
    /// (a quotient keeps whole 9-digit words, as MariaDB's arithmetic does) rounded half up
    /// to that scale where MariaDB uses the shown value: in comparisons and where it becomes
    /// a string. Arithmetic, functions and CAST see every digit (`1/3*3` is 1.0000, and
    /// `1/3 = 0.3333` is true).
    Shown(u8),
    /// Not a CAST the user wrote: a DATETIME(n) value where it becomes a string (CONCAT,
    /// CAST AS CHAR, GROUP_CONCAT, a string-typed IFNULL / COALESCE / IF / CASE) shows exactly
    /// n fractional digits, as MariaDB: `CONCAT(dt3)` is '2020-01-01 10:00:00.000'.
    DateTimeText(u8),
    /// Not a CAST the user wrote: DATE_ADD over a string, a string, read back as the DATE /
    /// DATETIME it came from where MariaDB takes its number (`CAST(… AS DECIMAL)`): 20200102,
    /// not 2020.
    TemporalText,
    /// Not a CAST the user wrote: a FLOAT (column or CAST) where it becomes a string shows
    /// its 32-bit value's shortest digits, as MariaDB: `CONCAT(CAST(0.1 AS FLOAT))` is '0.1'.
    FloatText,
    /// Not a CAST the user wrote: a DOUBLE whose type has fixed decimals (`ROUND(2.5e0, 3)`)
    /// where it becomes a string shows exactly that many, as MariaDB: `LTRIM(ROUND(2.5e0, 3))`
    /// is '2.500' (see [`convert::format_double_fixed`]).
    DoubleText(u8),
    /// Not a CAST the user wrote: a DECIMAL expression where it becomes a string shows
    /// exactly its type's scale, as MariaDB: `CONCAT(IF(NULL, 3.14159, 100.00))` is
    /// '100.00000', `CAST(-1 / -1 AS CHAR)` '1.0000'.
    DecimalText(u8),
    /// Not a CAST the user wrote: an ENUM or SET column's value (its text) where a number is
    /// read (`e + 0`, `e = 2`, ORDER BY): the member's position or the bitmask, as MariaDB.
    EnumNumber(std::sync::Arc<crate::types::DataType>),
    /// Not a CAST the user wrote: an ENUM or SET value compared with parameter `.1`, whose
    /// type is known only at execution: its number when the parameter is a number, else
    /// its text.
    EnumVsParam(std::sync::Arc<crate::types::DataType>, usize),
    /// Not a CAST the user wrote: a string compared as a datetime because another operand of
    /// the same BETWEEN is temporal (MariaDB compares all three in one type): its leading
    /// datetime, or the zero date when it has none ([`datetime_text::compare_form`]).
    ComparedDateTime,
    /// Not a CAST the user wrote: a ZEROFILL integer column where it becomes a string
    /// (CONCAT, CAST AS CHAR, …) shows zero-padded to its display width, as MariaDB:
    /// `CONCAT(c)` of an INT(5) ZEROFILL holding 42 is '00042'.
    ZerofillText(u8),
}

/// A bound expression.
#[derive(Clone, Debug)]
pub enum Expr {
    Lit(Value),
    /// Column of the current row.
    Col(usize),
    /// `VALUES(col)` in ON DUPLICATE KEY UPDATE: column of the row proposed for insert.
    NewCol(usize),
    /// The i-th `?` parameter.
    Param(usize),
    /// The i-th aggregate of the current group.
    Agg(usize),
    SysVar {
        name: Box<str>,
        global: bool,
    },
    UserVar(Box<str>),
    /// `@name := expr`: the value, recorded for the session when the statement ends.
    SetUserVar(Box<str>, Box<Expr>),
    Neg(Box<Expr>),
    BitNot(Box<Expr>),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    /// `((a op1 b) op2 c) …`: a left-to-right chain of arithmetic of any length, as one node.
    ArithChain(Box<Expr>, Vec<(ArithOp, Expr)>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>, Collation),
    /// `a AND b AND …` (two or more operands, evaluated left to right).
    And(Vec<Expr>),
    /// `a OR b OR …` (two or more operands, evaluated left to right).
    Or(Vec<Expr>),
    Xor(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    IsNull(Box<Expr>, bool),
    /// `e IS [NOT] TRUE|FALSE|UNKNOWN`: `want` None = UNKNOWN.
    IsBool {
        e: Box<Expr>,
        want: Option<bool>,
        negated: bool,
    },
    Between {
        e: Box<Expr>,
        lo: Box<Expr>,
        hi: Box<Expr>,
        negated: bool,
        coll: Collation,
    },
    In {
        e: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
        coll: Collation,
    },
    Like {
        e: Box<Expr>,
        pat: Box<Expr>,
        esc: Option<Box<Expr>>,
        negated: bool,
        coll: Collation,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        else_: Option<Box<Expr>>,
        coll: Collation,
        out: Class,
    },
    Func(Func, Vec<Expr>),
    Cast(Box<Expr>, CastTo),
    /// A column of the row of an enclosing query, `depth` levels up (see `subquery.rs`).
    Outer {
        depth: usize,
        col: usize,
    },
    /// An aggregate of an enclosing query, `depth` levels up: `(SELECT MAX(t.a) FROM u)` in a
    /// query over `t` aggregates `t.a` over that query's groups.
    OuterAgg {
        depth: usize,
        idx: usize,
    },
    /// A subquery (scalar, EXISTS, IN, ANY / ALL; see `subquery.rs`).
    Subquery(std::sync::Arc<subquery::Subquery>),
}

/// The rows an expression can read.
#[derive(Clone, Copy)]
pub struct RowCtx<'r> {
    pub row: &'r [Value],
    pub new: &'r [Value],
    pub aggs: &'r [Value],
    /// Runs subqueries (lends the statement's transaction); None where none can appear.
    pub host: Option<&'r dyn subquery::Host>,
}

impl<'r> RowCtx<'r> {
    pub const EMPTY: RowCtx<'static> = RowCtx {
        row: &[],
        new: &[],
        aggs: &[],
        host: None,
    };

    pub fn of(row: &'r [Value]) -> RowCtx<'r> {
        RowCtx {
            row,
            new: &[],
            aggs: &[],
            host: None,
        }
    }

    /// The context of a row whose expressions may run subqueries through `host`.
    pub fn hosted(row: &'r [Value], host: Option<&'r dyn subquery::Host>) -> RowCtx<'r> {
        RowCtx {
            row,
            new: &[],
            aggs: &[],
            host,
        }
    }
}

static NULL: Value = Value::Null;

fn bool_value(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(b as i64),
    }
}

impl Expr {
    /// The column a TIMESTAMP column read in the session's time zone wraps
    /// (`TsLocal(col)`, see `Binder::zoned`).
    pub fn zoned_col(&self) -> Option<&Expr> {
        match self {
            Expr::Func(crate::sql::func::Func::TsLocal, a) if a.len() == 1 => Some(&a[0]),
            _ => None,
        }
    }

    /// True if the expression reads no row, aggregate or per-row state (a constant within a
    /// statement execution: literals, parameters, variables, deterministic functions of them).
    pub fn is_constant(&self) -> bool {
        let mut constant = true;
        self.walk(&mut |e| {
            constant &= match e {
                Expr::Col(_) | Expr::NewCol(_) | Expr::Agg(_) | Expr::SetUserVar(..) => false,
                // Its value is kept for the execution: an index key (run before the read,
                // `exec/subquery.rs`).
                Expr::Subquery(s) => !s.correlated,
                Expr::Func(f, _) => f.is_deterministic(),
                _ => true,
            }
        });
        constant
    }

    /// Call `f` on every node, parents before children (iteratively: no recursion).
    pub fn walk<'e>(&'e self, f: &mut dyn FnMut(&'e Expr)) {
        let mut todo = vec![self];
        while let Some(e) = todo.pop() {
            f(e);
            let start = todo.len();
            e.push_children(&mut todo);
            todo[start..].reverse();
        }
    }

    /// Call `f` on every node, parents before children, letting it change the node (used to
    /// renumber the placeholders of window functions once binding is done). It does not go
    /// into a subquery's plan. Depth is bounded by the parser's nesting limit.
    pub fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        f(self);
        self.for_each_child_mut(&mut |c| c.walk_mut(f));
    }

    /// Call `f` on each direct child (not into a subquery's plan or operands).
    pub fn for_each_child_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            Expr::Lit(_)
            | Expr::Col(_)
            | Expr::NewCol(_)
            | Expr::Param(_)
            | Expr::Agg(_)
            | Expr::SysVar { .. }
            | Expr::Outer { .. }
            | Expr::OuterAgg { .. }
            | Expr::UserVar(_)
            | Expr::Subquery(_) => {}
            Expr::SetUserVar(_, x)
            | Expr::Neg(x)
            | Expr::BitNot(x)
            | Expr::Not(x)
            | Expr::IsNull(x, _)
            | Expr::IsBool { e: x, .. }
            | Expr::Cast(x, _) => f(x),
            Expr::Arith(_, a, b) | Expr::Cmp(_, a, b, _) | Expr::Xor(a, b) => {
                f(a);
                f(b);
            }
            Expr::ArithChain(a, rest) => {
                f(a);
                rest.iter_mut().for_each(|(_, x)| f(x));
            }
            Expr::And(v) | Expr::Or(v) | Expr::Func(_, v) => v.iter_mut().for_each(f),
            Expr::Between { e, lo, hi, .. } => {
                f(e);
                f(lo);
                f(hi);
            }
            Expr::In { e, list, .. } => {
                f(e);
                list.iter_mut().for_each(f);
            }
            Expr::Like { e, pat, esc, .. } => {
                f(e);
                f(pat);
                if let Some(x) = esc {
                    f(x);
                }
            }
            Expr::Case {
                operand,
                whens,
                else_,
                ..
            } => {
                if let Some(x) = operand {
                    f(x);
                }
                for (a, b) in whens {
                    f(a);
                    f(b);
                }
                if let Some(x) = else_ {
                    f(x);
                }
            }
        }
    }

    /// Push the direct children of the node, in order.
    fn push_children<'e>(&'e self, out: &mut Vec<&'e Expr>) {
        match self {
            Expr::Lit(_)
            | Expr::Col(_)
            | Expr::NewCol(_)
            | Expr::Param(_)
            | Expr::Agg(_)
            | Expr::SysVar { .. }
            | Expr::Outer { .. }
            | Expr::OuterAgg { .. }
            | Expr::UserVar(_) => {}
            Expr::Subquery(s) => match &s.kind {
                subquery::Kind::In { left, .. } => out.extend(left.iter()),
                subquery::Kind::Quantified { left, .. } => out.push(left),
                subquery::Kind::Scalar | subquery::Kind::Exists { .. } => {}
            },
            Expr::SetUserVar(_, x)
            | Expr::Neg(x)
            | Expr::BitNot(x)
            | Expr::Not(x)
            | Expr::IsNull(x, _)
            | Expr::IsBool { e: x, .. }
            | Expr::Cast(x, _) => out.push(x),
            Expr::Arith(_, a, b) | Expr::Cmp(_, a, b, _) | Expr::Xor(a, b) => {
                out.push(a);
                out.push(b);
            }
            Expr::ArithChain(a, rest) => {
                out.push(a);
                out.extend(rest.iter().map(|(_, x)| x));
            }
            Expr::And(v) | Expr::Or(v) | Expr::Func(_, v) => out.extend(v.iter()),
            Expr::Between { e, lo, hi, .. } => out.extend([&**e, &**lo, &**hi]),
            Expr::In { e, list, .. } => {
                out.push(e);
                out.extend(list.iter());
            }
            Expr::Like { e, pat, esc, .. } => {
                out.push(e);
                out.push(pat);
                out.extend(esc.as_deref());
            }
            Expr::Case {
                operand,
                whens,
                else_,
                ..
            } => {
                out.extend(operand.as_deref());
                for (a, b) in whens {
                    out.push(a);
                    out.push(b);
                }
                out.extend(else_.as_deref());
            }
        }
    }

    /// The value of a leaf (literal, column, parameter, aggregate) by reference, without a
    /// copy; anything else is evaluated.
    fn operand<'v>(&'v self, r: &RowCtx<'v>, env: &'v Env<'v>) -> Result<Cow<'v, Value>> {
        Ok(match self {
            Expr::Lit(v) => Cow::Borrowed(v),
            Expr::Col(i) => Cow::Borrowed(r.row.get(*i).unwrap_or(&NULL)),
            Expr::NewCol(i) => Cow::Borrowed(r.new.get(*i).unwrap_or(&NULL)),
            Expr::Param(i) => Cow::Borrowed(env.params.get(*i).unwrap_or(&NULL)),
            Expr::Agg(i) => Cow::Borrowed(r.aggs.get(*i).unwrap_or(&NULL)),
            other => Cow::Owned(other.eval(r, env)?),
        })
    }

    /// Evaluate a WHERE / HAVING / ON condition: true only if the value is true.
    pub fn is_true(&self, r: &RowCtx<'_>, env: &Env<'_>) -> Result<bool> {
        Ok(convert::to_bool(&self.eval(r, env)?) == Some(true))
    }

    /// The value of the expression for a row. Recursion (bounded by the binder's
    /// `MAX_EXPR_DEPTH`) runs on a stack that grows as needed.
    pub fn eval(&self, r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.eval_node(r, env))
    }

    /// The operands of an AND, or the expression itself.
    pub fn into_and(self) -> std::result::Result<Vec<Expr>, Expr> {
        match self {
            Expr::And(v) => Ok(v),
            other => Err(other),
        }
    }

    /// The operands of an OR, or the expression itself.
    pub fn into_or(self) -> std::result::Result<Vec<Expr>, Expr> {
        match self {
            Expr::Or(v) => Ok(v),
            other => Err(other),
        }
    }

    fn eval_node(&self, r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
        match self {
            Expr::Lit(v) => Ok(v.clone()),
            Expr::Col(i) => Ok(r.row.get(*i).cloned().unwrap_or(Value::Null)),
            Expr::NewCol(i) => Ok(r.new.get(*i).cloned().unwrap_or(Value::Null)),
            Expr::Param(i) => Ok(env.params.get(*i).cloned().unwrap_or(Value::Null)),
            Expr::Agg(i) => Ok(r.aggs.get(*i).cloned().unwrap_or(Value::Null)),
            Expr::SysVar { name, global } => env.sys_var(name, *global),
            Expr::UserVar(name) => Ok(env.user_var(name)),
            Expr::Outer { depth, col } => Ok(subquery::outer_value(env, *depth, *col)),
            Expr::OuterAgg { depth, idx } => {
                Ok(subquery::outer_value(env, *depth, idx | subquery::AGG_TAG))
            }
            Expr::Subquery(s) => subquery::eval(s, r, env),
            Expr::SetUserVar(name, e) => {
                let v = e.eval(r, env)?;
                env.user_var_sets
                    .borrow_mut()
                    .push((name.to_string(), v.clone()));
                Ok(v)
            }
            Expr::Neg(e) => negate(e.eval(r, env)?, env),
            Expr::BitNot(e) => {
                let v = e.eval(r, env)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                if let Value::Bytes(b) = &v {
                    num_warn::check(env, num_warn::DECIMAL, b);
                }
                Ok(Value::UInt(!(convert::to_num(&v).to_i128() as u64)))
            }
            Expr::Arith(op, a, b) => {
                let x = a.eval(r, env)?;
                let y = b.eval(r, env)?;
                arith(*op, &x, &y, env)
            }
            Expr::Cmp(op, a, b, coll) => {
                let x = a.eval_compared(r, env)?;
                let y = b.eval_compared(r, env)?;
                warn_if_no_datetime(&x, &y, env);
                num_warn::check_compared(&x, &y, a, b, env);
                Ok(cmp_values(*op, &x, &y, *coll))
            }
            Expr::ArithChain(a, rest) => {
                let mut x = a.eval(r, env)?;
                for (op, b) in rest {
                    let y = b.eval(r, env)?;
                    x = arith(*op, &x, &y, env)?;
                }
                Ok(x)
            }
            // Left to right, stopping at the first FALSE (AND) / TRUE (OR): the same operands
            // are evaluated as by the nested binary form `(a AND b) AND c`.
            Expr::And(v) => {
                let mut unknown = false;
                for x in v {
                    match num_warn::truth(&x.eval(r, env)?, env) {
                        Some(false) => return Ok(Value::Int(0)),
                        None => unknown = true,
                        Some(true) => {}
                    }
                }
                Ok(bool_value((!unknown).then_some(true)))
            }
            Expr::Or(v) => {
                let mut unknown = false;
                for x in v {
                    match num_warn::truth(&x.eval(r, env)?, env) {
                        Some(true) => return Ok(Value::Int(1)),
                        None => unknown = true,
                        Some(false) => {}
                    }
                }
                Ok(bool_value((!unknown).then_some(false)))
            }
            Expr::Xor(a, b) => {
                let x = num_warn::truth(&a.eval(r, env)?, env);
                let y = num_warn::truth(&b.eval(r, env)?, env);
                Ok(bool_value(x.zip(y).map(|(x, y)| x != y)))
            }
            Expr::Not(e) => Ok(bool_value(
                num_warn::truth(&e.eval(r, env)?, env).map(|b| !b),
            )),
            Expr::IsNull(e, negated) => {
                Ok(Value::Int((e.eval(r, env)?.is_null() != *negated) as i64))
            }
            Expr::IsBool { e, want, negated } => {
                let b = convert::to_bool(&e.eval(r, env)?);
                Ok(Value::Int(((b == *want) != *negated) as i64))
            }
            Expr::Between {
                e,
                lo,
                hi,
                negated,
                coll,
            } => {
                let v = e.eval_compared(r, env)?;
                let lo_v = lo.eval_compared(r, env)?;
                let hi_v = hi.eval_compared(r, env)?;
                let ge = compare::compare(&v, &lo_v, *coll).map(|o| o != Ordering::Less);
                num_warn::check_compared(&v, &lo_v, e, lo, env);
                if ge != Some(false) {
                    num_warn::check_compared(&v, &hi_v, e, hi, env);
                }
                let le = compare::compare(&v, &hi_v, *coll).map(|o| o != Ordering::Greater);
                let res = match (ge, le) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                Ok(bool_value(res.map(|b| b != *negated)))
            }
            Expr::In {
                e,
                list,
                negated,
                coll,
            } => {
                let v = e.eval_compared(r, env)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                num_warn::check_in(&v, e, list, env);
                let mut saw_null = false;
                for item in list {
                    let x = item.eval_compared(r, env)?;
                    match compare::compare(&v, &x, *coll) {
                        Some(Ordering::Equal) => return Ok(Value::Int(!*negated as i64)),
                        None => saw_null = true,
                        _ => {}
                    }
                }
                Ok(if saw_null {
                    Value::Null
                } else {
                    Value::Int(*negated as i64)
                })
            }
            Expr::Like {
                e,
                pat,
                esc,
                negated,
                coll,
            } => {
                let v = e.operand(r, env)?;
                let p = pat.operand(r, env)?;
                if v.is_null() || p.is_null() {
                    return Ok(Value::Null);
                }
                let esc = match esc {
                    Some(x) => {
                        let e = x.eval(r, env)?;
                        convert::to_string(&e).chars().next()
                    }
                    None => Some('\\'),
                };
                let m = like_match(&convert::to_text(&v), &convert::to_text(&p), esc, *coll);
                Ok(Value::Int((m != *negated) as i64))
            }
            Expr::Case {
                operand,
                whens,
                else_,
                coll,
                out,
            } => {
                let v = eval_case(operand.as_deref(), whens, else_.as_deref(), *coll, r, env)?;
                Ok(coerce(v, *out))
            }
            Expr::Func(f, args) => func::eval(*f, args, r, env),
            Expr::Cast(e, to) => cast(e.eval(r, env)?, to, env),
        }
    }
}

fn eval_case(
    operand: Option<&Expr>,
    whens: &[(Expr, Expr)],
    else_: Option<&Expr>,
    coll: Collation,
    r: &RowCtx<'_>,
    env: &Env<'_>,
) -> Result<Value> {
    let op = match operand {
        Some(o) => Some(o.eval_compared(r, env)?.into_owned()),
        None => None,
    };
    for (when, then) in whens {
        let hit = match &op {
            Some(v) => {
                compare::compare(v, &*when.eval_compared(r, env)?, coll) == Some(Ordering::Equal)
            }
            None => when.is_true(r, env)?,
        };
        if hit {
            return then.eval(r, env);
        }
    }
    match else_ {
        Some(e) => e.eval(r, env),
        None => Ok(Value::Null),
    }
}

/// Convert a value to the representation of a result class (for expressions whose branches
/// differ in type, e.g. `CASE … THEN 1 ELSE 'a' END`).
pub fn coerce(v: Value, class: Class) -> Value {
    if v.is_null() {
        return v;
    }
    match (class, &v) {
        (Class::Int, Value::Int(_) | Value::UInt(_)) => v,
        (Class::Int, _) => Num::I(convert::to_i64(&v)).into_value(),
        (Class::Decimal, Value::Decimal(_)) => v,
        (Class::Decimal, _) => match convert::to_num(&v).to_decimal() {
            Some(d) => Value::Decimal(d),
            None => Value::Double(convert::to_num(&v).to_f64()),
        },
        (Class::Double, Value::Double(_)) => v,
        (Class::Double, _) => Value::Double(convert::to_num(&v).to_f64()),
        (Class::Str | Class::Bin, Value::Bytes(_)) => v,
        (Class::Str | Class::Bin, _) => Value::Bytes(convert::to_text(&v).into_owned()),
        (Class::Date, Value::Date(_)) => v,
        (Class::Date, _) => {
            convert::to_datetime_lenient(&v).map_or(Value::Null, |(d, _)| Value::Date(d.date))
        }
        (Class::DateTime, Value::DateTime(_)) => v,
        (Class::DateTime, _) => {
            convert::to_datetime_lenient(&v).map_or(Value::Null, |(d, _)| Value::DateTime(d))
        }
        (Class::Time, Value::Time(_)) => v,
        (Class::Time, _) => time_value::from_value(&v).map_or(Value::Null, |(t, _)| Value::Time(t)),
        (Class::Null, _) => v,
    }
}

/// A string compared with a date that is not wholly a datetime: MariaDB's warning 1292
/// ("… date value" when text follows a date without a time, as CAST says).
pub(crate) fn warn_if_no_datetime(a: &Value, b: &Value, env: &Env<'_>) {
    let s = match (a, b) {
        (Value::Bytes(s), Value::Date(_) | Value::DateTime(_))
        | (Value::Date(_) | Value::DateTime(_), Value::Bytes(s)) => s,
        _ => return,
    };
    if let Some(r) = datetime_text::read_compared(s) {
        if r.leftover == datetime_text::Leftover::Text {
            if let Some((level, msg)) = r.warning(&String::from_utf8_lossy(s)) {
                env.warn(level, ErrorCode::TruncatedWrongValue, msg);
            }
        }
        return;
    }
    if convert::parse_datetime(s).is_none() {
        env.warn(
            "Warning",
            ErrorCode::TruncatedWrongValue,
            format!(
                "Truncated incorrect datetime value: '{}'",
                String::from_utf8_lossy(s)
            ),
        );
    }
}

/// `a op b` as 1 / 0 / NULL.
pub fn cmp_values(op: CmpOp, a: &Value, b: &Value, coll: Collation) -> Value {
    if op == CmpOp::NullSafeEq {
        return Value::Int(match (a.is_null(), b.is_null()) {
            (true, true) => 1,
            (false, false) => (compare::compare(a, b, coll) == Some(Ordering::Equal)) as i64,
            _ => 0,
        });
    }
    let Some(o) = compare::compare(a, b, coll) else {
        return Value::Null;
    };
    let t = match op {
        CmpOp::Eq => o == Ordering::Equal,
        CmpOp::Ne => o != Ordering::Equal,
        CmpOp::Lt => o == Ordering::Less,
        CmpOp::Le => o != Ordering::Greater,
        CmpOp::Gt => o == Ordering::Greater,
        CmpOp::Ge => o != Ordering::Less,
        CmpOp::NullSafeEq => unreachable!(),
    };
    Value::Int(t as i64)
}

pub(crate) fn out_of_range(kind: &str, what: String) -> Error {
    Error::new(
        ErrorCode::DataOutOfRange,
        format!("{kind} value is out of range in '{what}'"),
    )
}

fn negate(v: Value, env: &Env<'_>) -> Result<Value> {
    Ok(match v {
        Value::Null => Value::Null,
        Value::Int(i) => match i.checked_neg() {
            Some(n) => Value::Int(n),
            None => return Err(out_of_range("BIGINT", format!("-({i})"))),
        },
        Value::UInt(u) => {
            if u <= i64::MAX as u64 + 1 {
                Value::Int((u as i128).wrapping_neg() as i64)
            } else {
                return Err(out_of_range("BIGINT", format!("-({u})")));
            }
        }
        Value::Double(f) => Value::Double(-f),
        Value::Decimal(d) => Value::Decimal(d.neg()),
        // 0 - x: a string that reads as zero is 0, not -0 (MariaDB).
        other => Value::Double(0.0 - num_warn::arith_num(&other, num_warn::DOUBLE, env).to_f64()),
    })
}

fn op_text(op: ArithOp) -> &'static str {
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

/// Binary arithmetic with MySQL's result types: integers stay integers (overflow is error
/// 1690), decimals stay exact, anything with a DOUBLE or a string is DOUBLE; `/` is decimal
/// with 4 more digits of scale; division by zero is NULL (or error 1365 in strict writes).
pub fn arith(op: ArithOp, a: &Value, b: &Value, env: &Env<'_>) -> Result<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    let kind = match op {
        ArithOp::IntDiv
        | ArithOp::BitAnd
        | ArithOp::BitOr
        | ArithOp::BitXor
        | ArithOp::Shl
        | ArithOp::Shr => num_warn::DECIMAL,
        _ => num_warn::DOUBLE,
    };
    let x = num_warn::arith_num(a, kind, env);
    let y = num_warn::arith_num(b, kind, env);
    let what = || {
        format!(
            "{} {} {}",
            convert::to_string(a),
            op_text(op),
            convert::to_string(b)
        )
    };
    match op {
        ArithOp::BitAnd | ArithOp::BitOr | ArithOp::BitXor | ArithOp::Shl | ArithOp::Shr => {
            Ok(Value::UInt(bit_op(op, &x, &y)))
        }
        ArithOp::Div => divide(&x, &y, a, env),
        ArithOp::IntDiv => {
            if y.is_zero() {
                return env.division_by_zero();
            }
            let unsigned = matches!(x, Num::U(_)) || matches!(y, Num::U(_));
            let q = match (x.is_exact() && y.is_exact(), x.to_decimal(), y.to_decimal()) {
                (true, Some(p), Some(q)) => match p.div_trunc(&q) {
                    Ok(r) => r.to_i128(Rounding::Down).unwrap_or(i128::MAX),
                    Err(_) => i128::MAX,
                },
                _ => (x.to_f64() / y.to_f64()).trunc() as i128,
            };
            int_result(q, unsigned, what)
        }
        ArithOp::Mod => {
            if y.is_zero() {
                return env.division_by_zero();
            }
            match (&x, &y) {
                (Num::F(_), _) | (_, Num::F(_)) => Ok(Value::Double(x.to_f64() % y.to_f64())),
                (Num::D(_), _) | (_, Num::D(_)) => {
                    let (p, q) = (exact_decimal(&x), exact_decimal(&y));
                    match p.rem(&q) {
                        Ok(r) => Ok(Value::Decimal(r)),
                        Err(DivError::DivisionByZero) => env.division_by_zero(),
                        Err(DivError::Overflow) => Err(out_of_range("DECIMAL", what())),
                    }
                }
                _ => {
                    let r = x.to_i128() % y.to_i128();
                    int_result(r, matches!(x, Num::U(_)), what)
                }
            }
        }
        ArithOp::Add | ArithOp::Sub | ArithOp::Mul => match (&x, &y) {
            (Num::F(_), _) | (_, Num::F(_)) => {
                let (p, q) = (x.to_f64(), y.to_f64());
                let r = match op {
                    ArithOp::Add => p + q,
                    ArithOp::Sub => p - q,
                    _ => p * q,
                };
                if r.is_finite() {
                    Ok(Value::Double(r))
                } else {
                    Err(out_of_range("DOUBLE", what()))
                }
            }
            (Num::D(_), _) | (_, Num::D(_)) => {
                let (p, q) = (exact_decimal(&x), exact_decimal(&y));
                let r = match op {
                    ArithOp::Add => p.checked_add(&q),
                    ArithOp::Sub => p.checked_sub(&q),
                    _ => p.checked_mul(&q),
                };
                r.map(Value::Decimal)
                    .map_err(|_| out_of_range("DECIMAL", what()))
            }
            _ => {
                let (p, q) = (x.to_i128(), y.to_i128());
                let r = match op {
                    ArithOp::Add => p + q,
                    ArithOp::Sub => p - q,
                    _ => p.checked_mul(q).unwrap_or(i128::MAX),
                };
                int_result(r, matches!(x, Num::U(_)) || matches!(y, Num::U(_)), what)
            }
        },
    }
}

/// An integer or decimal operand as a decimal (exact kinds only reach here).
fn exact_decimal(n: &Num) -> Decimal {
    n.to_decimal().unwrap_or_default()
}

/// An integer result of the signedness MariaDB gives the operation: BIGINT UNSIGNED when an
/// operand is unsigned (the dividend's for `%`), a value outside the type's range 1690.
fn int_result(r: i128, unsigned: bool, what: impl Fn() -> String) -> Result<Value> {
    if unsigned {
        // Stays unsigned however small (`(u - 0) - 2` is 1690 as `u - 2` is).
        if (0..=u64::MAX as i128).contains(&r) {
            return Ok(Value::UInt(r as u64));
        }
        return Err(out_of_range("BIGINT UNSIGNED", what()));
    }
    if (i64::MIN as i128..=i64::MAX as i128).contains(&r) {
        return Ok(Value::Int(r as i64));
    }
    Err(out_of_range("BIGINT", what()))
}

fn bit_op(op: ArithOp, x: &Num, y: &Num) -> u64 {
    let (p, q) = (x.to_i128() as u64, y.to_i128() as u64);
    match op {
        ArithOp::BitAnd => p & q,
        ArithOp::BitOr => p | q,
        ArithOp::BitXor => p ^ q,
        ArithOp::Shl => {
            if q >= 64 {
                0
            } else {
                p << q
            }
        }
        _ => {
            if q >= 64 {
                0
            } else {
                p >> q
            }
        }
    }
}

fn divide(x: &Num, y: &Num, a: &Value, env: &Env<'_>) -> Result<Value> {
    if y.is_zero() {
        return env.division_by_zero();
    }
    if !x.is_exact() || !y.is_exact() {
        return Ok(Value::Double(x.to_f64() / y.to_f64()));
    }
    let (p, q) = (exact_decimal(x), exact_decimal(y));
    // The quotient keeps MariaDB's whole-word scale; it is rounded to the expression's scale
    // where MariaDB rounds it (shown, compared, made a string: see CastTo::Shown).
    match p.div_words(&q, DIV_PRECISION_INCREMENT) {
        Ok(r) => Ok(Value::Decimal(r)),
        Err(DivError::DivisionByZero) => env.division_by_zero(),
        Err(DivError::Overflow) => Err(out_of_range(
            "DECIMAL",
            format!("{} / {}", convert::to_string(a), q),
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// LIKE

#[derive(Clone, Copy, PartialEq)]
enum Pat {
    Any,
    One,
    Lit(u32),
}

fn weights(s: &[u8], coll: Collation) -> Vec<u32> {
    match coll {
        Collation::Binary => s.iter().map(|&b| b as u32).collect(),
        Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => String::from_utf8_lossy(s)
            .chars()
            .map(|c| c as u32)
            .collect(),
        Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => String::from_utf8_lossy(s)
            .chars()
            .map(crate::types::collation::general_ci_weight)
            .collect(),
        c @ (Collation::Utf8mb4Unicode520Ci
        | Collation::Utf8mb3Unicode520Ci
        | Collation::Utf8mb4UnicodeCi
        | Collation::Utf8mb3UnicodeCi) => {
            let uca = crate::types::collation_uca::table_of(c);
            String::from_utf8_lossy(s)
                .chars()
                .map(|ch| uca.char_key(ch))
                .collect()
        }
        c @ (Collation::Latin1SwedishCi
        | Collation::Latin1Bin
        | Collation::Latin1GeneralCi
        | Collation::Latin1GeneralCs
        | Collation::Latin1German1Ci) => {
            let order = crate::types::collation_latin1::order_of(c).expect("latin1");
            String::from_utf8_lossy(s)
                .chars()
                .map(|ch| u32::from(order.weight(ch)))
                .collect()
        }
    }
}

fn compile_pattern(p: &[u8], esc: Option<char>, coll: Collation) -> Vec<Pat> {
    let chars: Vec<char> = match coll {
        Collation::Binary => p.iter().map(|&b| b as char).collect(),
        _ => String::from_utf8_lossy(p).chars().collect(),
    };
    let weight = |c: char| match coll {
        Collation::Binary => c as u32,
        Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => c as u32,
        Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => {
            crate::types::collation::general_ci_weight(c)
        }
        u @ (Collation::Utf8mb4Unicode520Ci
        | Collation::Utf8mb3Unicode520Ci
        | Collation::Utf8mb4UnicodeCi
        | Collation::Utf8mb3UnicodeCi) => crate::types::collation_uca::table_of(u).char_key(c),
        l @ (Collation::Latin1SwedishCi
        | Collation::Latin1Bin
        | Collation::Latin1GeneralCi
        | Collation::Latin1GeneralCs
        | Collation::Latin1German1Ci) => {
            crate::types::collation_latin1::order_of(l).map_or(c as u32, |o| u32::from(o.weight(c)))
        }
    };
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if Some(c) == esc && i + 1 < chars.len() {
            out.push(Pat::Lit(weight(chars[i + 1])));
            i += 2;
            continue;
        }
        out.push(match c {
            '%' => Pat::Any,
            '_' => Pat::One,
            c => Pat::Lit(weight(c)),
        });
        i += 1;
    }
    out
}

/// `s LIKE p ESCAPE esc` under a collation (no PAD SPACE: trailing spaces matter).
pub fn like_match(s: &[u8], p: &[u8], esc: Option<char>, coll: Collation) -> bool {
    let s = weights(s, coll);
    let p = compile_pattern(p, esc, coll);
    let (mut si, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some(Pat::Any) => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(Pat::One) => {
                si += 1;
                pi += 1;
            }
            Some(Pat::Lit(w)) if *w == s[si] => {
                si += 1;
                pi += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|x| *x == Pat::Any)
}

// ---------------------------------------------------------------------------------------------
// CAST

fn truncated_warning(env: &Env<'_>, kind: &str, v: &Value) {
    env.warn(
        "Warning",
        ErrorCode::TruncatedWrongValue,
        format!(
            "Truncated incorrect {kind} value: '{}'",
            convert::to_string(v)
        ),
    );
}

/// `CAST(v AS to)`.
pub fn cast(v: Value, to: &CastTo, env: &Env<'_>) -> Result<Value> {
    if v.is_null() {
        return Ok(v);
    }
    Ok(match to {
        CastTo::Signed | CastTo::Unsigned => {
            let i = match &v {
                // A string is read up to the end of its leading integer ('3.5' is 3).
                Value::Bytes(b) => {
                    let (i, complete) = convert::integer_prefix(b);
                    if !complete {
                        truncated_warning(env, "INTEGER", &v);
                    } else {
                        // Only spaces after the number: a Note.
                        num_warn::check(env, "INTEGER", b);
                    }
                    i
                }
                // A DATETIME / TIME loses its fraction (MariaDB: CAST(TIME'10:00:00.6' AS
                // SIGNED) is 100000).
                Value::DateTime(_) | Value::Time(_) => match convert::to_num(&v) {
                    Num::D(d) => d.to_i128(Rounding::Down).unwrap_or(0),
                    n => n.to_i128(),
                },
                other => convert::to_num(other).to_i128(),
            };
            if *to == CastTo::Unsigned && matches!(v, Value::Decimal(_) | Value::Double(_)) {
                // A negative DECIMAL or DOUBLE is 0 (an integer or a string wraps instead:
                // CAST(-1 AS UNSIGNED) is 18446744073709551615, CAST(-1.25 AS UNSIGNED) 0).
                Value::UInt(i.clamp(0, u64::MAX as i128) as u64)
            } else if *to == CastTo::Unsigned {
                Value::UInt(i.clamp(i64::MIN as i128, u64::MAX as i128) as u64)
            } else if matches!(v, Value::Decimal(_) | Value::Double(_)) {
                // A DECIMAL or DOUBLE past BIGINT saturates (warning 1916 in MariaDB), where an
                // unsigned integer wraps: CAST(1e30 AS SIGNED) is 9223372036854775807.
                Value::Int(i.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
            } else if i > i64::MAX as i128 {
                Value::Int(i.min(u64::MAX as i128) as u64 as i64)
            } else {
                Value::Int(i.max(i64::MIN as i128) as i64)
            }
        }
        CastTo::Char(n) | CastTo::Binary(n) => {
            let mut b = convert::to_text(&v).into_owned();
            if matches!(to, CastTo::Char(_)) {
                b = convert::utf8_or_question_marks(b);
            }
            if let Some(n) = *n {
                let binary = matches!(to, CastTo::Binary(_));
                let cut = if binary {
                    (b.len() > n as usize).then_some(n as usize)
                } else {
                    String::from_utf8_lossy(&b)
                        .char_indices()
                        .nth(n as usize)
                        .map(|(cut, _)| cut)
                };
                if let Some(cut) = cut {
                    let kind = if binary { "BINARY" } else { "CHAR" };
                    truncated_warning(env, &format!("{kind}({n})"), &v);
                    b.truncate(cut);
                } else if binary {
                    // BINARY(n) is n bytes: a shorter value is padded with zero bytes, up to
                    // max_allowed_packet (beyond it warning 1301, as MariaDB; its largest
                    // length, 4294967295, pads nothing and warns of nothing).
                    let max = crate::sql::func::max_packet(env);
                    if n != u32::MAX {
                        if n as usize > max {
                            crate::sql::func::too_big(env, "cast_as_binary");
                        }
                        b.resize((n as usize).min(max).max(b.len()), 0);
                    }
                }
            }
            Value::Bytes(b)
        }
        CastTo::Decimal(p, s) => cast_decimal(&v, *p, *s, env),
        CastTo::EnumNumber(dt) => match &v {
            Value::Bytes(b) => Value::Int(crate::types::enumset::number_of(dt, b) as i64),
            _ => v,
        },
        CastTo::EnumVsParam(dt, i) => match (&v, env.params.get(*i)) {
            (
                Value::Bytes(b),
                Some(Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_)),
            ) => Value::Int(crate::types::enumset::number_of(dt, b) as i64),
            _ => v,
        },
        CastTo::Shown(s) => match v {
            Value::Decimal(d) if d.scale() > *s => match d.rescale(*s) {
                Ok(r) => Value::Decimal(r),
                Err(_) => Value::Decimal(d),
            },
            v => v,
        },
        CastTo::DecimalText(scale) => {
            let d = match &v {
                Value::Decimal(d) => d.clone(),
                Value::Int(n) => Decimal::from(*n),
                Value::UInt(n) => Decimal::from(*n),
                _ => return Ok(v),
            };
            match d.rescale(*scale) {
                Ok(r) => Value::Decimal(r),
                Err(_) => v,
            }
        }
        CastTo::ZerofillText(width) => match v {
            Value::Int(n) => Value::Bytes(format!("{n:0w$}", w = usize::from(*width)).into_bytes()),
            Value::UInt(n) => {
                Value::Bytes(format!("{n:0w$}", w = usize::from(*width)).into_bytes())
            }
            v => v,
        },
        CastTo::TemporalText => match &v {
            Value::Bytes(b) => match datetime_text::parse_lenient(b) {
                Some((dt, true)) => Value::DateTime(dt),
                Some((dt, false)) => Value::Date(dt.date),
                None => v,
            },
            _ => v,
        },
        CastTo::FloatText => match v {
            // -0 is shown 0, as MariaDB.
            Value::Double(f) => {
                let f = if f == 0.0 { 0.0 } else { f as f32 };
                Value::Bytes(cohort_protocol::Cell::Float(f).to_text().into_bytes())
            }
            v => v,
        },
        CastTo::DoubleText(d) => match v {
            Value::Double(f) => Value::Bytes(convert::format_double_fixed(f, *d).into_bytes()),
            v => v,
        },
        CastTo::DateTimeText(fsp) => match v {
            Value::DateTime(dt) => Value::Bytes(datetime_text::with_fsp(&dt, *fsp).into_bytes()),
            Value::Time(t) => Value::Bytes(time_value::format(t, Some(*fsp)).into_bytes()),
            v => v,
        },
        CastTo::Charset(cs) => match v {
            Value::Bytes(b) => {
                if let Some(c) = cs.first_missing(&b) {
                    let hex: String = c.iter().map(|b| format!("{b:02X}")).collect();
                    env.warn(
                        "Warning",
                        ErrorCode::CannotConvertCharacter,
                        format!(
                            "Cannot convert 'utf8mb4' character 0x{hex} to '{}'",
                            cs.name()
                        ),
                    );
                }
                Value::Bytes(cs.restrict(&b).into_owned())
            }
            v => v,
        },
        CastTo::ComparedDateTime => match &v {
            Value::Bytes(b) => Value::DateTime(datetime_text::compare_form(b)),
            _ => v,
        },
        CastTo::Latin1Bytes => match v {
            Value::Bytes(b) if !b.is_ascii() => {
                Value::Bytes(crate::types::latin1::encode(&String::from_utf8_lossy(&b)).0)
            }
            v => v,
        },
        CastTo::BitBytes(width) => match v {
            Value::Int(_) | Value::UInt(_) => {
                let n = convert::to_num(&v).to_i128() as u64;
                let len = usize::from(*width).div_ceil(8);
                Value::Bytes(n.to_be_bytes()[8 - len..].to_vec())
            }
            v => v,
        },
        CastTo::Time(fsp) => match time_value::from_value(&v) {
            Some((t, status)) => {
                if matches!(
                    status,
                    time_value::Parsed::Trailing | time_value::Parsed::Clipped
                ) {
                    truncated_warning(env, "time", &v);
                }
                Value::Time(time_value::truncate_fsp(t, *fsp))
            }
            None => {
                truncated_warning(env, "time", &v);
                Value::Null
            }
        },
        CastTo::Double => Value::Double(num_warn::arith_num(&v, num_warn::DOUBLE, env).to_f64()),
        CastTo::Float(shown) => {
            let x = num_warn::arith_num(&v, num_warn::DOUBLE, env).to_f64();
            let max = f64::from(f32::MAX);
            if x.abs() > max {
                env.warn(
                    "Note",
                    ErrorCode::WarnDataOutOfRange,
                    format!("Out of range value for column '{shown}' at row 1"),
                );
            }
            Value::Double(f64::from(x.clamp(-max, max) as f32))
        }
        CastTo::Date | CastTo::DateTime(_) => match convert::to_datetime_lenient(&v) {
            Some((dt, _)) if convert::zero_date_mode_refuses(&dt, env) => {
                env.warn(
                    "Warning",
                    ErrorCode::TruncatedWrongValue,
                    format!("Incorrect datetime value: '{}'", datetime_text::shown(&v)),
                );
                Value::Null
            }
            Some((dt, _)) => {
                // Read up to what does not fit: MariaDB warns and keeps the value.
                datetime_text::warn_leftover(env, &v);
                if let Value::Decimal(_) | Value::Double(_) = &v {
                    // A date-only number (up to 8 integer digits) has no place for a
                    // fraction: MariaDB drops it with Note 1292, for DATETIME too.
                    let x = convert::to_num(&v).to_f64();
                    if x.fract() != 0.0 && (1.0..1e8).contains(&x.abs()) {
                        env.warn(
                            "Note",
                            ErrorCode::TruncatedWrongValue,
                            format!(
                                "Truncated incorrect date value: '{}'",
                                convert::to_string(&v)
                            ),
                        );
                    }
                }
                match to {
                    CastTo::Date => Value::Date(dt.date),
                    CastTo::DateTime(fsp) => Value::DateTime(convert::truncate_fsp(dt, *fsp)),
                    _ => unreachable!(),
                }
            }
            None => {
                env.warn(
                    "Warning",
                    ErrorCode::TruncatedWrongValue,
                    format!("Incorrect datetime value: '{}'", datetime_text::shown(&v)),
                );
                Value::Null
            }
        },
    })
}

/// `CAST(v AS DECIMAL(p, s))`: rounded half up to `s`; out of range → the nearest limit and
/// warning 1264; a string that is not (wholly) a number → warning 1292.
fn cast_decimal(v: &Value, p: u8, s: u8, env: &Env<'_>) -> Value {
    let max = Decimal::max_of(p, s);
    let out_of_range = |negative: bool| {
        env.warn(
            "Warning",
            ErrorCode::WarnDataOutOfRange,
            format!(
                "Out of range value for column '{}' at row 1",
                convert::to_string(v)
            ),
        );
        Value::Decimal(if negative { max.neg() } else { max.clone() })
    };
    let d = match v {
        Value::Bytes(b) => {
            let (parsed, d) = convert::parse_decimal(b);
            if !parsed.complete {
                truncated_warning(env, "DECIMAL", v);
            } else {
                num_warn::check(env, num_warn::DECIMAL, b);
            }
            match d {
                None => Decimal::ZERO,
                Some(Ok(d)) => d,
                Some(Err(_)) => return out_of_range(b.trim_ascii_start().starts_with(b"-")),
            }
        }
        other => match convert::to_num(other) {
            Num::F(f) => match Decimal::from_f64(f) {
                Some(Ok(d)) => d,
                None if f.is_nan() => Decimal::ZERO,
                _ => return out_of_range(f < 0.0),
            },
            n => exact_decimal(&n),
        },
    };
    match d.rescale(s) {
        Ok(r) if r.fits_integer_digits(p.saturating_sub(s) as u32) => Value::Decimal(r),
        _ => out_of_range(d.is_negative()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert!(like_match(b"Hello", b"h%", Some('\\'), ci));
        assert!(like_match(b"Hello", b"%LL%", Some('\\'), ci));
        assert!(like_match(b"Hello", b"H_llo", Some('\\'), ci));
        assert!(!like_match(b"Hello", b"H_lo", Some('\\'), ci));
        assert!(like_match(b"50%", b"50\\%", Some('\\'), ci));
        assert!(!like_match(b"50x", b"50\\%", Some('\\'), ci));
        assert!(like_match(b"a_b", b"a!_b", Some('!'), ci));
        assert!(!like_match(
            b"abc",
            b"ABC",
            Some('\\'),
            Collation::Utf8mb4Bin
        ));
        assert!(like_match(b"", b"%", Some('\\'), ci));
        assert!(!like_match(b"a ", b"a", Some('\\'), ci));
    }

    /// An unsigned operand makes `+ - * DIV` unsigned, however the value was computed, and a
    /// negative result 1690 (MariaDB 10.11; golden `types_arith` has the metadata and the
    /// literal cases, whose messages match); a signed and an unsigned branch meet in a
    /// DECIMAL, on which arithmetic is decimal.
    #[test]
    fn unsigned_arithmetic_out_of_range() {
        use crate::session::state::ServerContext;
        use crate::testkit::{root_session, rows, run, run_all};
        let ctx = ServerContext::for_tests();
        let mut sess = root_session(1);
        run_all(
            &ctx,
            &mut sess,
            &[
                "CREATE DATABASE ua",
                "USE ua",
                "CREATE TABLE t (u INT UNSIGNED, i INT, ti TINYINT, tu TINYINT UNSIGNED)",
                "INSERT INTO t VALUES (1, -2, -5, 200)",
            ],
        );
        for q in [
            "SELECT CAST(1 AS UNSIGNED) - 2",
            "SELECT (CAST(1 AS UNSIGNED) + 0) - 2",
            "SELECT u - 2 FROM t",
            "SELECT (u - 0) - 2 FROM t",
            "SELECT u * 1 - 2 FROM t",
            "SELECT u + i FROM t",
            "SELECT i - u FROM t",
            "SELECT ti - tu FROM t",
            "SELECT u DIV -1 FROM t",
            "SELECT i DIV u FROM t",
            "SELECT MAX(u) - 2 FROM t",
            "SELECT COALESCE(u) - 2 FROM t",
        ] {
            let e = run(&ctx, &mut sess, q).err();
            assert_eq!(e.map(|e| e.code().number()), Some(1690), "{q}");
        }
        let r = rows(
            &ctx,
            &mut sess,
            "SELECT u - i, IF(u, u, 0) - 2, IFNULL(u, i) - 2, GREATEST(u, 0) - 2, -u FROM t",
        );
        let text: Vec<String> = r[0].iter().map(convert::to_string).collect();
        assert_eq!(text, ["3", "-1", "-1", "-1", "-1"]);
    }
}
