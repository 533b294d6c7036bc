//! Binding: sqlparser expressions → [`Expr`] with a static [`SqlType`].
//!
//! Names resolve against a [`TableScope`] (the one table of the statement, or a virtual
//! table), `?` placeholders to parameter indexes (by text position), `@@x` / `@x` to variable
//! reads. Aggregates are collected into [`AggSpec`]s and replaced by `Expr::Agg(i)` when the
//! binder allows them (select list, HAVING, ORDER BY); elsewhere they are error 1111.

pub(in crate::sql) mod coldef;
pub(in crate::sql) mod column_default;
pub(in crate::sql) mod derivation;
pub(in crate::sql) mod group_concat;
pub(in crate::sql) mod join_scope;
pub(in crate::sql) mod sqltype;
mod subquery;
mod temporal;
pub(in crate::sql) mod window;

use crate::error::{Error, Result};
use crate::sql::bind::sqltype::{Class, SqlType, FLOATING_POINT_DECIMALS, NOT_FIXED_DEC};
use crate::sql::env::Env;
use crate::sql::expr::{ArithOp, CastTo, CmpOp, Expr, DIV_PRECISION_INCREMENT};
use crate::sql::func::{self, TrimSide};
use crate::sql::parse::dialect::placeholder_index;
use crate::storage::TableDef;
use crate::types::{Collation, Decimal, Value};
use cohort_decimal::MAX_SCALE;
use cohort_protocol::column::ColumnType;
use cohort_protocol::ErrorCode;
use sqlparser::ast::{self, BinaryOperator, UnaryOperator};
use sqlparser::tokenizer::Location;

/// One column visible to expressions.
#[derive(Clone, Debug)]
pub struct ScopeColumn {
    pub name: String,
    pub ty: SqlType,
    /// A TIMESTAMP column of a table: its values are UTC, read in the session's time zone
    /// (see [`Binder::zoned`]).
    pub utc: bool,
}

/// The table an expression can reference.
#[derive(Clone, Debug)]
pub struct TableScope {
    pub db: String,
    pub table: String,
    pub alias: Option<String>,
    pub columns: Vec<ScopeColumn>,
}

impl TableScope {
    pub fn of_def(db: &str, def: &TableDef, alias: Option<String>) -> TableScope {
        TableScope {
            db: db.to_string(),
            table: def.name.clone(),
            alias,
            columns: def
                .columns
                .iter()
                .map(|c| ScopeColumn {
                    name: c.name.clone(),
                    ty: SqlType::from_data_type(&c.data_type, c.nullable),
                    utc: matches!(c.data_type, crate::types::DataType::Timestamp { .. }),
                })
                .collect(),
        }
    }

    /// The name the table is referred to by (its alias if it has one).
    pub fn visible_name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.table)
    }

    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// Does a qualifier (`t` in `t.c`, or `db.t`) name this table?
    pub fn matches(&self, db: Option<&str>, table: &str) -> bool {
        if let Some(db) = db {
            if db != self.db || self.alias.is_some() {
                return false;
            }
        }
        table == self.visible_name()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    GroupConcat,
    BitAnd,
    BitOr,
    BitXor,
}

/// One aggregate of a grouped query.
#[derive(Clone, Debug)]
pub struct AggSpec {
    pub func: AggFunc,
    pub arg: Option<Expr>,
    pub distinct: bool,
    pub arg_ty: SqlType,
    pub ty: SqlType,
    /// GROUP_CONCAT's ORDER BY and SEPARATOR (the defaults for every other aggregate).
    pub concat: group_concat::ConcatClauses,
}

/// Expression binder for one clause of one statement.
pub struct Binder<'a> {
    /// Reads variable values (to type `@@x`).
    pub env: &'a Env<'a>,
    pub params: &'a [Location],
    pub scope: Option<&'a TableScope>,
    /// The tables of a join (instead of `scope`).
    pub join: Option<&'a join_scope::JoinScope>,
    /// Some while aggregates are allowed; collects them.
    pub aggs: Option<Vec<AggSpec>>,
    /// `VALUES(col)` allowed (ON DUPLICATE KEY UPDATE).
    pub values_fn: bool,
    /// Clause name for "Unknown column 'x' in '…'".
    pub clause: &'static str,
    /// Nesting depth of the expression being bound (see [`MAX_EXPR_DEPTH`]).
    depth: usize,
    /// Select-list aliases a bare name may refer to (HAVING, ORDER BY); they win over columns.
    pub aliases: Vec<(String, Expr, SqlType)>,
    /// Some while window functions are allowed (select list, ORDER BY); collects them.
    pub windows: Option<window::WindowCtx>,
}

fn unsupported(what: &str) -> Error {
    Error::unsupported(what)
}

/// 1054, naming the clause as MariaDB 10.11 does ('SELECT', 'WHERE', …: `clause_word`).
fn unknown_column(name: &str, clause: &str) -> Error {
    Error::new(
        ErrorCode::BadField,
        format!(
            "Unknown column '{name}' in '{}'",
            join_scope::clause_word(clause)
        ),
    )
}

/// Deepest nesting of a bound expression (MariaDB's thread stack overflows at about 590).
pub const MAX_EXPR_DEPTH: usize = 2000;
/// Binding and evaluation recurse on a fresh stack segment when less than this is left...
pub const STACK_RED_ZONE: usize = 64 << 10;
/// ...of this size.
pub const STACK_SEGMENT: usize = 1 << 20;

fn too_deep() -> Error {
    Error::new(
        ErrorCode::StackOverrun,
        format!("Thread stack overrun: expression nested more than {MAX_EXPR_DEPTH} levels deep"),
    )
}

fn cmp_op(op: &BinaryOperator) -> Option<CmpOp> {
    use BinaryOperator as B;
    Some(match op {
        B::Eq => CmpOp::Eq,
        B::NotEq => CmpOp::Ne,
        B::Lt => CmpOp::Lt,
        B::LtEq => CmpOp::Le,
        B::Gt => CmpOp::Gt,
        B::GtEq => CmpOp::Ge,
        B::Spaceship => CmpOp::NullSafeEq,
        _ => return None,
    })
}

fn arith_op(op: &BinaryOperator) -> Option<ArithOp> {
    use BinaryOperator as B;
    Some(match op {
        B::Plus => ArithOp::Add,
        B::Minus => ArithOp::Sub,
        B::Multiply => ArithOp::Mul,
        B::Divide => ArithOp::Div,
        B::Modulo => ArithOp::Mod,
        B::MyIntegerDivide | B::DuckIntegerDivide => ArithOp::IntDiv,
        B::BitwiseAnd => ArithOp::BitAnd,
        B::BitwiseOr => ArithOp::BitOr,
        B::BitwiseXor => ArithOp::BitXor,
        B::PGBitwiseShiftLeft => ArithOp::Shl,
        B::PGBitwiseShiftRight => ArithOp::Shr,
        _ => return None,
    })
}

/// An ENUM or SET value where a number is read (arithmetic, a comparison with a number,
/// ORDER BY): its member position or bitmask (see [`CastTo::EnumNumber`]); anything else
/// unchanged.
pub fn enum_as_number((e, t): (Expr, SqlType)) -> (Expr, SqlType) {
    match &t.enumset {
        Some(dt) => {
            // MariaDB's type of `e + 0`: an integer one digit wider than the longest text.
            let ty = SqlType::int(t.char_len() + 1);
            (
                Expr::Cast(Box::new(e), CastTo::EnumNumber(dt.clone())),
                ty.with_nullable(t.nullable),
            )
        }
        None => (e, t),
    }
}

/// An ENUM / SET compared with a parameter (a prepared `?`, or a literal the statement
/// cache made one): number or text as the parameter's value turns out.
fn enum_vs_param((e, t): (Expr, SqlType), other: &Expr) -> (Expr, SqlType) {
    match (&t.enumset, other) {
        (Some(dt), Expr::Param(i)) => {
            let to = CastTo::EnumVsParam(dt.clone(), *i);
            (Expr::Cast(Box::new(e), to), t)
        }
        _ => (e, t),
    }
}

/// A function's or operator's result type: a plain string even when it passes an ENUM / SET
/// argument through (`LEAST(s, 'c')`, `MAX(e)`), as in MariaDB; only a column is an ENUM.
fn plain(mut t: SqlType) -> SqlType {
    t.enumset = None;
    t
}

fn is_number(t: &SqlType) -> bool {
    matches!(t.class, Class::Int | Class::Decimal | Class::Double)
}

/// `a op b` for a comparison operator.
fn comparison(
    op: CmpOp,
    (a, ta): (Expr, SqlType),
    (b, tb): (Expr, SqlType),
) -> Result<(Expr, SqlType)> {
    // An ENUM / SET against a number compares its number (`e = 2`).
    let ((a, ta), (b, tb)) = match (
        ta.enumset.is_some() && is_number(&tb),
        tb.enumset.is_some() && is_number(&ta),
    ) {
        (true, _) => (enum_as_number((a, ta)), (b, tb)),
        (_, true) => ((a, ta), enum_as_number((b, tb))),
        _ => {
            let a_param = matches!(a, Expr::Param(_)).then(|| a.clone());
            let a = enum_vs_param((a, ta), &b);
            let b = match a_param {
                Some(p) => enum_vs_param((b, tb), &p),
                None => (b, tb),
            };
            (a, b)
        }
    };
    let symbol = match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "<>",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
        CmpOp::NullSafeEq => "<=>",
    };
    derivation::check_mix([&ta, &tb], symbol)?;
    let coll = comparison_collation(&ta, &tb);
    let a = derivation::latin1_binary_literal(a, &ta, coll);
    let b = derivation::latin1_binary_literal(b, &tb, coll);
    derivation::check_literals([(&a, &ta), (&b, &tb)], coll, symbol)?;
    let b = temporal_constant_as_bigint(&a, &ta, b);
    let a = temporal_constant_as_bigint(&b, &tb, a);
    let (a, b) = (shown(a, &ta), shown(b, &tb));
    let nullable = op != CmpOp::NullSafeEq && (ta.nullable || tb.nullable);
    Ok((
        Expr::Cmp(op, Box::new(a), Box::new(b), coll),
        SqlType::int(1).with_nullable(nullable),
    ))
}

/// A date or datetime literal compared with a BIGINT column: MariaDB stores the constant in
/// the column's type first (its number `YYYYMMDD[hhmmss]`) and compares integers, so
/// `bigint_col > DATE'2019-12-31'` holds for 100000000, which as a datetime would be the zero
/// date. Only BIGINT columns get this (MariaDB converts constants for LONGLONG fields only;
/// an INT column compares as datetimes).
fn temporal_constant_as_bigint(column: &Expr, ct: &SqlType, constant: Expr) -> Expr {
    let is_bigint_column =
        matches!(column, Expr::Col(_)) && ct.class == Class::Int && ct.wire == ColumnType::LONGLONG;
    match constant {
        Expr::Lit(v @ (Value::Date(_) | Value::DateTime(_))) if is_bigint_column => {
            match crate::sql::expr::convert::to_num(&v) {
                crate::sql::expr::convert::Num::I(n) => Expr::Lit(Value::Int(n)),
                _ => Expr::Lit(v),
            }
        }
        other => other,
    }
}

/// `e` as MariaDB compares it or makes it a string: a decimal that may carry more digits than
/// its type's scale (a quotient keeps whole 9-digit words, see `Decimal::div_words`) rounded
/// to that scale; anything else unchanged.
pub(crate) fn shown(e: Expr, t: &SqlType) -> Expr {
    if t.class == Class::Decimal && carries_quotient(&e) {
        return Expr::Cast(Box::new(e), CastTo::Shown(t.decimals.min(MAX_SCALE)));
    }
    e
}

/// A DATETIME(n) or TIME(n) expression where it becomes a string: shown with exactly n
/// fractional digits (see [`CastTo::DateTimeText`]); a BIT(n) one as its bytes
/// ([`CastTo::BitBytes`]).
pub fn datetime_as_text(e: Expr, t: &SqlType) -> Expr {
    if t.wire == cohort_protocol::ColumnType::BIT {
        return Expr::Cast(Box::new(e), CastTo::BitBytes(t.length.clamp(1, 64) as u8));
    }
    if matches!(t.class, Class::DateTime | Class::Time) && t.decimals > 0 {
        return Expr::Cast(Box::new(e), CastTo::DateTimeText(t.decimals.min(6)));
    }
    e
}

/// A DOUBLE of fixed decimals (`ROUND(x, 3)`) where a string function reads it: shown with
/// exactly those decimals (see [`CastTo::DoubleText`]).
pub fn double_as_text(e: Expr, t: &SqlType) -> Expr {
    if t.class == Class::Double && t.decimals < crate::sql::bind::sqltype::FLOATING_POINT_DECIMALS {
        return Expr::Cast(Box::new(e), CastTo::DoubleText(t.decimals));
    }
    if t.class == Class::Double && t.wire == ColumnType::FLOAT {
        return Expr::Cast(Box::new(e), CastTo::FloatText);
    }
    e
}

/// A number where it becomes a string: a DECIMAL with exactly its type's scale, a DOUBLE of
/// fixed decimals with those decimals, a DATETIME(n) with n fractional digits, a ZEROFILL
/// integer column padded to its width.
pub fn number_as_text(e: Expr, t: &SqlType) -> Expr {
    if let Some(width) = t.zerofill {
        if matches!(e, Expr::Col(_) | Expr::Outer { .. }) {
            return Expr::Cast(Box::new(e), CastTo::ZerofillText(width));
        }
    }
    if t.class == Class::Decimal && t.decimals <= MAX_SCALE {
        return Expr::Cast(Box::new(e), CastTo::DecimalText(t.decimals));
    }
    double_as_text(e, t)
}

/// The functions that read every argument as a number: an ENUM / SET gives its number.
fn reads_numbers(upper: &str) -> bool {
    matches!(
        upper,
        "ABS"
            | "SQRT"
            | "ROUND"
            | "TRUNCATE"
            | "FLOOR"
            | "CEIL"
            | "CEILING"
            | "SIGN"
            | "POW"
            | "POWER"
            | "EXP"
            | "LN"
            | "LOG"
            | "LOG2"
            | "LOG10"
            | "MOD"
            | "SIN"
            | "COS"
            | "TAN"
            | "ASIN"
            | "ACOS"
            | "ATAN"
            | "ATAN2"
            | "COT"
            | "DEGREES"
            | "RADIANS"
            | "BIT_COUNT"
    )
}

/// The functions that read every argument as a string (a number's digits as shown).
fn reads_text(upper: &str) -> bool {
    matches!(
        upper,
        "CONCAT"
            | "CONCAT_WS"
            | "LTRIM"
            | "RTRIM"
            | "TRIM"
            | "UPPER"
            | "UCASE"
            | "LOWER"
            | "LCASE"
            | "REVERSE"
            | "LPAD"
            | "RPAD"
            | "REPLACE"
            | "LENGTH"
            | "CHAR_LENGTH"
            | "CHARACTER_LENGTH"
            | "OCTET_LENGTH"
            | "INSTR"
    )
}

/// True when argument `i` of `upper` is a string the function reads as text (the others are
/// counts or positions): `SUBSTR(datetime6_col, 4)` reads the value with its 6 digits.
fn reads_text_at(upper: &str, i: usize) -> bool {
    match upper {
        "SUBSTR" | "SUBSTRING" | "MID" | "LEFT" | "RIGHT" | "REPEAT" => i == 0,
        "INSERT" => i == 0 || i == 3,
        "LOCATE" | "POSITION" | "STRCMP" | "SUBSTRING_INDEX" => i < 2,
        "ELT" => i > 0,
        _ => false,
    }
}

/// True when `e` computes a quotient whose digits reach its value unrounded.
fn carries_quotient(e: &Expr) -> bool {
    match e {
        Expr::Arith(ArithOp::Div, ..) => true,
        Expr::Arith(_, a, b) => carries_quotient(a) || carries_quotient(b),
        Expr::ArithChain(a, rest) => {
            carries_quotient(a)
                || rest
                    .iter()
                    .any(|(op, x)| *op == ArithOp::Div || carries_quotient(x))
        }
        Expr::Neg(x) => carries_quotient(x),
        Expr::Func(_, args) => args.iter().any(carries_quotient),
        _ => false,
    }
}

/// Functions that take a decimal argument's every digit (MariaDB's `val_decimal` /
/// `val_real`); the others see it as shown (rounded to its type's scale).
fn takes_every_digit(upper: &str) -> bool {
    matches!(
        upper,
        "ROUND"
            | "TRUNCATE"
            | "FLOOR"
            | "CEIL"
            | "CEILING"
            | "ABS"
            | "SIGN"
            | "SQRT"
            | "POW"
            | "POWER"
            | "EXP"
            | "LN"
            | "LOG"
            | "LOG2"
            | "LOG10"
            | "MOD"
            | "SIN"
            | "COS"
            | "TAN"
            | "ASIN"
            | "ACOS"
            | "ATAN"
            | "ATAN2"
            | "COT"
            | "DEGREES"
            | "RADIANS"
            | "IF"
            | "IFNULL"
            | "COALESCE"
            | "NULLIF"
            | "GREATEST"
            | "LEAST"
    )
}

/// The operands of an n-ary AND / OR with `b` appended: `a`'s own operands when `a` is the
/// same operator (`split` returns them), else `a` itself.
fn extend(a: Expr, b: Expr, split: fn(Expr) -> std::result::Result<Vec<Expr>, Expr>) -> Vec<Expr> {
    let mut v = match split(a) {
        Ok(v) => v,
        Err(a) => vec![a],
    };
    v.push(b);
    v
}

/// The collation a comparison of two operands uses: their aggregate ([`derivation`]), so
/// a column's beats a literal's, utf8mb4_bin beats utf8mb4_general_ci and a binary string
/// a character string of the same strength.
pub fn comparison_collation(a: &SqlType, b: &SqlType) -> Collation {
    derivation::aggregate([a, b]).0
}

/// `t` with the derivation of a column (a CAST's result: MariaDB's COERCIBILITY is 2).
fn implicit(mut t: SqlType) -> SqlType {
    t.derivation = derivation::Derivation::Implicit;
    t
}

/// The type of a `?` parameter before it has a value.
pub fn param_type() -> SqlType {
    SqlType::null()
}

impl<'a> Binder<'a> {
    pub fn new(
        env: &'a Env<'a>,
        params: &'a [Location],
        scope: Option<&'a TableScope>,
    ) -> Binder<'a> {
        Binder {
            env,
            params,
            scope,
            join: None,
            aggs: None,
            values_fn: false,
            clause: "field list",
            aliases: Vec::new(),
            depth: 0,
            windows: None,
        }
    }

    /// Bind an expression. Recursion (one level per nesting level of the bound [`Expr`]) is
    /// limited to [`MAX_EXPR_DEPTH`] (error 1436) and runs on a stack that grows as needed;
    /// operator chains are bound iteratively ([`Binder::bind_chain`]).
    pub fn bind(&mut self, e: &ast::Expr) -> Result<(Expr, SqlType)> {
        if self.depth >= MAX_EXPR_DEPTH {
            return Err(too_deep());
        }
        self.depth += 1;
        let r = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.bind_node(e));
        self.depth -= 1;
        r
    }

    /// A string function's string argument: a decimal quotient rounded to its scale, a
    /// DATETIME(n) / TIME(n) with its n digits, a number as shown (see [`number_as_text`]).
    fn bind_text_arg(&mut self, e: &ast::Expr) -> Result<(Expr, SqlType)> {
        let (x, t) = self.bind(e)?;
        let x = number_as_text(datetime_as_text(shown(x, &t), &t), &t);
        Ok((x, t))
    }

    /// The expression a placeholder stands for (see `parse/dialect.rs`), or `e` itself.
    fn resolve<'e>(&self, e: &'e ast::Expr) -> Result<&'e ast::Expr>
    where
        'a: 'e,
    {
        let mut e = e;
        while let Some(i) = placeholder_index(e) {
            e = self
                .env
                .set_aside
                .get(i)
                .ok_or_else(|| Error::internal("set-aside expression missing"))?;
        }
        Ok(e)
    }

    fn bind_node(&mut self, e: &ast::Expr) -> Result<(Expr, SqlType)> {
        use ast::Expr as E;
        let mut e = self.resolve(e)?;
        // Parentheses change nothing once parsed: unwrap them without recursing.
        while let E::Nested(inner) = e {
            e = self.resolve(inner)?;
        }
        match e {
            E::Identifier(id) => self
                .bind_identifier(id)
                .or_else(|err| self.bind_outer_name(std::slice::from_ref(id), err)),
            E::CompoundIdentifier(parts) => self
                .bind_compound(parts)
                .or_else(|err| self.bind_outer_name(parts, err)),
            E::Value(v) => self.bind_value(v),
            E::UnaryOp { op, expr } => self.bind_unary(*op, expr),
            E::BinaryOp {
                left,
                op: BinaryOperator::Assignment,
                right,
            } => self.bind_assign_user_var(left, right),
            E::BinaryOp { .. } => self.bind_chain(e),
            E::IsNull(x) => self.bind_is_null(x, false),
            E::IsNotNull(x) => self.bind_is_null(x, true),
            E::IsTrue(x) => self.bind_is_bool(x, Some(true), false),
            E::IsNotTrue(x) => self.bind_is_bool(x, Some(true), true),
            E::IsFalse(x) => self.bind_is_bool(x, Some(false), false),
            E::IsNotFalse(x) => self.bind_is_bool(x, Some(false), true),
            E::IsUnknown(x) => self.bind_is_bool(x, None, false),
            E::IsNotUnknown(x) => self.bind_is_bool(x, None, true),
            E::IsDistinctFrom(a, b) => {
                let (c, t) = self.bind_cmp(CmpOp::NullSafeEq, a, b)?;
                Ok((Expr::Not(Box::new(c)), t))
            }
            E::IsNotDistinctFrom(a, b) => self.bind_cmp(CmpOp::NullSafeEq, a, b),
            E::InList {
                expr,
                list,
                negated,
            } => self.bind_in(expr, list, *negated),
            E::InSubquery { .. }
            | E::Subquery(_)
            | E::Exists { .. }
            | E::AnyOp { .. }
            | E::AllOp { .. } => self.bind_subquery(e),
            E::Between {
                expr,
                negated,
                low,
                high,
            } => self.bind_between(expr, low, high, *negated),
            E::Like {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            }
            | E::ILike {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            } => {
                if *any {
                    return Err(unsupported("LIKE ANY"));
                }
                self.bind_like(expr, pattern, escape_char.as_deref(), *negated)
            }
            E::RLike {
                negated,
                expr,
                pattern,
                ..
            } => {
                let a = self.bind(expr)?;
                let b = self.bind(pattern)?;
                let (x, t) = func::bind("REGEXP", vec![a, b])?;
                Ok(if *negated {
                    (Expr::Not(Box::new(x)), t)
                } else {
                    (x, t)
                })
            }
            E::SimilarTo { .. } => Err(unsupported("SIMILAR TO")),
            E::Extract { field, expr, .. } => self.bind_extract(field, expr),
            E::Cast {
                expr, data_type, ..
            } => {
                // `BINARY a = b` parses as CAST((a = b) AS BINARY); MySQL binds BINARY tighter.
                if let (ast::DataType::Binary(None), E::BinaryOp { left, op, right }) =
                    (data_type, self.resolve(expr)?)
                {
                    if let Some(cmp) = cmp_op(op) {
                        let left = self.bind_cast(left, data_type)?;
                        let right = self.bind(right)?;
                        return comparison(cmp, left, right);
                    }
                }
                if let (
                    ast::DataType::Binary(None),
                    E::RLike {
                        negated,
                        expr: left,
                        pattern,
                        ..
                    },
                ) = (data_type, self.resolve(expr)?)
                {
                    let left = self.bind_cast(left, data_type)?;
                    let right = self.bind(pattern)?;
                    let (x, t) = func::bind("REGEXP", vec![left, right])?;
                    return Ok(if *negated {
                        (Expr::Not(Box::new(x)), t)
                    } else {
                        (x, t)
                    });
                }
                self.bind_cast(expr, data_type)
            }
            E::Convert {
                expr,
                data_type,
                charset,
                ..
            } => match (data_type, charset) {
                (dt, Some(cs)) => self.bind_convert_using(expr, dt.as_ref(), &cs.to_string()),
                (Some(dt), None) => self.bind_cast(expr, dt),
                (None, None) => self.bind(expr),
            },
            E::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.bind_text_arg(expr)?];
                match substring_from {
                    Some(f) => args.push(self.bind(f)?),
                    None => args.push((Expr::Lit(Value::Int(1)), SqlType::int(1).not_null())),
                }
                if let Some(f) = substring_for {
                    args.push(self.bind(f)?);
                }
                func::bind("SUBSTRING", args)
            }
            E::Trim {
                trim_where,
                trim_what,
                expr,
                trim_characters,
            } => {
                if trim_characters.is_some() {
                    return Err(unsupported("TRIM with a character list"));
                }
                let side = match trim_where {
                    Some(ast::TrimWhereField::Leading) => TrimSide::Leading,
                    Some(ast::TrimWhereField::Trailing) => TrimSide::Trailing,
                    _ => TrimSide::Both,
                };
                let (s, ty) = self.bind_text_arg(expr)?;
                let mut args = vec![s];
                let mut types = vec![ty.clone()];
                if let Some(w) = trim_what {
                    let (w, tw) = self.bind_text_arg(w)?;
                    args.push(w);
                    types.push(tw);
                }
                // Its string's collation (a utf8mb4_bin column's result compares as such).
                let out = SqlType::varchar(ty.char_len()).with_nullable(ty.nullable);
                let out = match derivation::aggregate(&types) {
                    (Collation::Binary, _) => out,
                    agg => derivation::with_aggregate(out, agg),
                };
                Ok((Expr::Func(func::Func::Trim(side), args), out))
            }
            E::Ceil { expr, field } | E::Floor { expr, field } => {
                if !matches!(
                    field,
                    ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime)
                ) {
                    return Err(unsupported("CEIL/FLOOR with a unit"));
                }
                let name = if matches!(e, E::Ceil { .. }) {
                    "CEIL"
                } else {
                    "FLOOR"
                };
                // (An ENUM / SET reads as its number, as in any numeric function.)
                let a = enum_as_number(self.bind(expr)?);
                func::bind(name, vec![a])
            }
            E::Position { expr, r#in } => {
                let a = self.bind_text_arg(expr)?;
                let b = self.bind_text_arg(r#in)?;
                func::bind("LOCATE", vec![a, b])
            }
            E::Collate { expr, collation } => {
                let (x, mut t) = self.bind(expr)?;
                let name = collation.to_string().to_ascii_lowercase();
                let bare = name.trim_matches('`');
                if bare.contains("_0900_") {
                    // MySQL 8's UCA 9.0.0 collations are no MariaDB 10.11 collation.
                    return Err(Error::new(
                        ErrorCode::UnknownCollation,
                        format!("Unknown collation: '{bare}'"),
                    ));
                }
                let ignorable = t.derivation == derivation::Derivation::Ignorable;
                if t.class == Class::Bin && bare != "binary" && !ignorable {
                    // A binary string has no other collation (MariaDB 1253), unless it can
                    // only be NULL (`CONCAT(NULL)`: IGNORABLE, as in MariaDB).
                    return Err(Error::new(
                        ErrorCode::CollationCharsetMismatch,
                        format!("COLLATION '{bare}' is not valid for CHARACTER SET 'binary'"),
                    ));
                }
                // A collation Cohort lacks is refused (1235), never taken as another one.
                let coll = crate::sql::exec::ddl::collation_named(bare)?;
                // A latin1 collation on a string of another character set (a literal is
                // utf8mb4), or another on a latin1 one: 1253, as MariaDB. A string that can
                // only be NULL takes any.
                use crate::types::collation::Charset;
                let cs = match t.class {
                    Class::Str => t.collation.charset(),
                    _ => Charset::Utf8mb4,
                };
                if !ignorable && (cs == Charset::Latin1) != (coll.charset() == Charset::Latin1) {
                    return Err(Error::new(
                        ErrorCode::CollationCharsetMismatch,
                        format!(
                            "COLLATION '{}' is not valid for CHARACTER SET '{}'",
                            coll.name(),
                            cs.name()
                        ),
                    ));
                }
                if t.class == Class::Bin && coll != Collation::Binary {
                    t = SqlType::varchar(t.length).with_nullable(t.nullable);
                }
                t.collation = coll;
                t.derivation = derivation::Derivation::Explicit;
                Ok((x, t))
            }
            E::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.bind_case(operand.as_deref(), conditions, else_result.as_deref()),
            E::Function(f) => self.bind_function(f),
            E::Prefixed { prefix, value } => self.bind_introduced(&prefix.value, value),
            E::TypedString(ts) => self.bind_typed_string(ts),
            E::Interval(iv) => Err(Error::parse(&iv.to_string(), 1)),
            E::Tuple(_) => Err(unsupported("row constructors")),
            E::Wildcard(_) | E::QualifiedWildcard(..) => Err(unsupported("'*' in this position")),
            E::MatchAgainst { .. } => Err(unsupported("MATCH … AGAINST")),
            other => Err(unsupported(&format!("the expression '{other}'"))),
        }
    }

    // ----- names ------------------------------------------------------------------------

    fn bind_identifier(&mut self, id: &ast::Ident) -> Result<(Expr, SqlType)> {
        let name = &id.value;
        if let Some((_, e, t)) = self
            .aliases
            .iter()
            .find(|(a, _, _)| a.eq_ignore_ascii_case(name))
        {
            return Ok((e.clone(), t.clone()));
        }
        if id.quote_style.is_none() {
            if let Some(var) = name.strip_prefix("@@") {
                return self.bind_sys_var(var, false);
            }
            if let Some(var) = name.strip_prefix('@') {
                return Ok(self.bind_user_var(var));
            }
        }
        if let Some(scope) = self.scope {
            if let Some(i) = scope.column(name) {
                let c = &scope.columns[i];
                return Ok(self.zoned(Expr::Col(i), c.ty.clone(), c.utc));
            }
        }
        if let Some(join) = self.join {
            if let Some((e, t)) = join.resolve(name, self.clause)? {
                let utc = matches!(e, Expr::Col(i) if join.is_utc(i));
                return Ok(self.zoned(e, t, utc));
            }
        }
        if id.quote_style.is_none() {
            let upper = name.to_ascii_uppercase();
            if matches!(
                upper.as_str(),
                "CURRENT_USER"
                    | "CURRENT_DATE"
                    | "CURRENT_TIME"
                    | "CURRENT_TIMESTAMP"
                    | "LOCALTIME"
                    | "LOCALTIMESTAMP"
                    | "UTC_DATE"
                    | "UTC_TIME"
                    | "UTC_TIMESTAMP"
            ) {
                return func::bind(&upper, Vec::new());
            }
        }
        Err(unknown_column(name, self.clause))
    }

    fn bind_compound(&mut self, parts: &[ast::Ident]) -> Result<(Expr, SqlType)> {
        if let [scope, var] = parts {
            let s = scope.value.to_ascii_lowercase();
            if let Some(s) = s.strip_prefix("@@") {
                let global = match s {
                    "global" => true,
                    "session" | "local" => false,
                    _ => return Err(unknown_column(&var.value, self.clause)),
                };
                return self.bind_sys_var(&var.value, global);
            }
        }
        let (db, table, col) = match parts {
            [t, c] => (None, &t.value, &c.value),
            [d, t, c] => (Some(d.value.as_str()), &t.value, &c.value),
            _ => return Err(unsupported("this qualified name")),
        };
        let full = parts
            .iter()
            .map(|p| p.value.as_str())
            .collect::<Vec<_>>()
            .join(".");
        if let Some(join) = self.join {
            let (e, t) = join
                .resolve_qualified(db, table, col)
                .ok_or_else(|| unknown_column(&full, self.clause))?;
            let utc = matches!(e, Expr::Col(i) if join.is_utc(i));
            return Ok(self.zoned(e, t, utc));
        }
        let Some(scope) = self.scope else {
            return Err(unknown_column(&full, self.clause));
        };
        if !scope.matches(db, table) {
            return Err(unknown_column(&full, self.clause));
        }
        match scope.column(col) {
            Some(i) => {
                let c = &scope.columns[i];
                Ok(self.zoned(Expr::Col(i), c.ty.clone(), c.utc))
            }
            None => Err(unknown_column(&full, self.clause)),
        }
    }

    /// A column reference; a TIMESTAMP column of a table (`utc`) read by a session whose
    /// time zone is not SYSTEM is converted to local time ([`Func::TsLocal`]). Plain
    /// `Expr::Col` otherwise: a session at SYSTEM binds exactly as without time zones.
    pub(crate) fn zoned(&self, e: Expr, t: SqlType, utc: bool) -> (Expr, SqlType) {
        if !utc || !self.env.bind_zoned() {
            return (e, t);
        }
        (Expr::Func(crate::sql::func::Func::TsLocal, vec![e]), t)
    }

    fn bind_sys_var(&mut self, name: &str, global: bool) -> Result<(Expr, SqlType)> {
        let name = name.to_ascii_lowercase();
        let v = self.env.sys_var(&name, global)?;
        let mut ty = value_type(&v);
        if matches!(ty.class, Class::Str | Class::Bin) {
            ty.derivation = derivation::Derivation::SysConst;
        }
        if name == "timestamp" {
            // MariaDB: a nullable DOUBLE with 6 fixed decimals (`1700000000.500000`).
            ty = SqlType::double();
            ty.decimals = 6;
            ty.length = 21;
        }
        Ok((
            Expr::SysVar {
                name: name.into_boxed_str(),
                global,
            },
            ty,
        ))
    }

    fn bind_user_var(&mut self, name: &str) -> (Expr, SqlType) {
        let name = name.trim_matches('`').to_ascii_lowercase();
        let v = self
            .env
            .sess
            .user_vars
            .get(&name)
            .cloned()
            .unwrap_or(Value::Null);
        let mut ty = match v {
            Value::Null => SqlType::varchar(64),
            ref v => value_type(v),
        }
        .with_nullable(true);
        if matches!(ty.class, Class::Str | Class::Bin) {
            ty.derivation = derivation::Derivation::Implicit;
        }
        (Expr::UserVar(name.into_boxed_str()), ty)
    }

    // ----- literals ---------------------------------------------------------------------

    fn bind_value(&mut self, v: &ast::ValueWithSpan) -> Result<(Expr, SqlType)> {
        use ast::Value as V;
        let (value, ty) = match &v.value {
            V::Number(s, _) => number_literal(s)?,
            V::SingleQuotedString(s)
            | V::DoubleQuotedString(s)
            | V::NationalStringLiteral(s)
            | V::EscapedStringLiteral(s)
            | V::TripleSingleQuotedString(s)
            | V::TripleDoubleQuotedString(s) => (Value::str(s), self.string_literal_type(s)),
            V::HexStringLiteral(h) => {
                let bytes = hex_bytes(h)?;
                let n = bytes.len() as u32;
                (Value::Bytes(bytes), hybrid_literal_type(n))
            }
            V::SingleQuotedByteStringLiteral(b) | V::DoubleQuotedByteStringLiteral(b) => {
                let bytes = bit_bytes(b)?;
                let n = bytes.len() as u32;
                (Value::Bytes(bytes), hybrid_literal_type(n))
            }
            V::Boolean(b) => (Value::Int(*b as i64), SqlType::int(1).not_null()),
            V::Null => (Value::Null, SqlType::null()),
            V::Placeholder(p) if p == "?" => {
                let loc = v.span.start;
                let idx = self
                    .params
                    .iter()
                    .position(|l| *l == loc)
                    .ok_or_else(|| Error::internal("placeholder not found"))?;
                return Ok((Expr::Param(idx), param_type()));
            }
            other => return Err(unsupported(&format!("the literal {other}"))),
        };
        Ok((Expr::Lit(value), ty))
    }

    /// `CONVERT(x USING cs)` and `CONVERT(x, CHAR(n) CHARACTER SET cs)`: x as a string of
    /// `cs` (binary: as a binary string), each character `cs` lacks `?`.
    fn bind_convert_using(
        &mut self,
        expr: &ast::Expr,
        dt: Option<&ast::DataType>,
        cs: &str,
    ) -> Result<(Expr, SqlType)> {
        use crate::types::text_charset::WireCharset;
        let Some(target) = WireCharset::named(cs) else {
            // Not a character set at all: 1115; one Cohort cannot hold text in: refused.
            crate::sql::exec::ddl::charset_named(cs)?;
            return Err(unsupported(&format!("CONVERT to the character set {cs}")));
        };
        if target == WireCharset::Binary {
            return self.bind_cast(expr, &ast::DataType::Binary(None));
        }
        let (x, mut t) = self.bind_cast(expr, dt.unwrap_or(&ast::DataType::Char(None)))?;
        t.collation = target.default_collation();
        let x = match target {
            WireCharset::Utf8mb4 => x,
            _ => Expr::Cast(Box::new(x), CastTo::Charset(target)),
        };
        Ok((x, t))
    }

    /// `_cs'text'` / `_cs X'hex'`: a literal whose bytes are in character set `cs` (as the
    /// client sent them), of `cs`'s default collation; `_binary` makes a binary string.
    fn bind_introduced(&mut self, prefix: &str, value: &ast::Expr) -> Result<(Expr, SqlType)> {
        use crate::types::text_charset::WireCharset;
        let (x, t) = self.bind(value)?;
        let name = prefix.strip_prefix('_').unwrap_or(prefix);
        let Some(cs) = WireCharset::named(name) else {
            // Not a character set: MariaDB reads a column and its alias.
            return match crate::sql::exec::ddl::charset_named(name) {
                Err(e) if e.code() == ErrorCode::UnknownCharacterSet => {
                    Err(unknown_column(prefix, self.clause))
                }
                _ => Err(unsupported(&format!("the introducer {prefix}"))),
            };
        };
        if cs == WireCharset::Binary {
            return Ok((x, SqlType::varbinary(t.length).with_nullable(t.nullable)));
        }
        let Expr::Lit(Value::Bytes(text)) = &x else {
            return Ok((x, t));
        };
        // The bytes as the client sent them: a hex literal's, or a string's in
        // character_set_client.
        let sent = match (t.class, self.env.sess.charsets.client) {
            (Class::Str, WireCharset::Latin1) => {
                crate::types::latin1::encode(&String::from_utf8_lossy(text)).0
            }
            _ => text.clone(),
        };
        let value = match cs {
            WireCharset::Latin1 => crate::types::latin1::decode(&sent).into_bytes(),
            _ => sent,
        };
        let chars = String::from_utf8_lossy(&value).chars().count() as u32;
        let mut ty = SqlType::varchar(chars).with_nullable(t.nullable);
        ty.collation = cs.default_collation();
        Ok((Expr::Lit(Value::Bytes(value)), ty))
    }

    /// A string literal's type: a string of the connection's collation (coercible), or a
    /// binary string when the connection's character set is binary (`SET NAMES binary`).
    fn string_literal_type(&self, s: &str) -> SqlType {
        match self.env.sess.charsets.literal {
            Collation::Binary => {
                SqlType::varbinary(crate::types::raw_text::to_bytes(s).len() as u32).not_null()
            }
            coll => {
                let mut t = SqlType::varchar(s.chars().count() as u32).not_null();
                t.collation = coll;
                t
            }
        }
    }

    fn bind_typed_string(&mut self, ts: &ast::TypedString) -> Result<(Expr, SqlType)> {
        let text = match &ts.value.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        };
        let bad = || {
            Error::new(
                ErrorCode::WrongValue,
                format!("Incorrect DATE value: '{text}'"),
            )
        };
        match &ts.data_type {
            ast::DataType::Date => {
                let (dt, _) =
                    crate::sql::expr::convert::parse_datetime(text.as_bytes()).ok_or_else(bad)?;
                Ok((Expr::Lit(Value::Date(dt.date)), SqlType::date().not_null()))
            }
            ast::DataType::Timestamp(..) | ast::DataType::Datetime(_) => {
                let (dt, _) =
                    crate::sql::expr::convert::parse_datetime(text.as_bytes()).ok_or_else(bad)?;
                // DATETIME(n) of the n digits written (TIMESTAMP'…00.25' is DATETIME(2)).
                let fsp = match crate::sql::func::interval::text_fraction_digits(&Value::str(&text))
                {
                    0 if dt.micros > 0 => 6,
                    n => n,
                };
                Ok((
                    Expr::Lit(Value::DateTime(dt)),
                    SqlType::datetime(fsp).not_null(),
                ))
            }
            ast::DataType::Time(_, ast::TimezoneInfo::None) => {
                let (t, _) = crate::sql::expr::time_value::parse(text.as_bytes())
                    .filter(|(_, p)| *p == crate::sql::expr::time_value::Parsed::Exact)
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::WrongValue,
                            format!("Incorrect TIME value: '{text}'"),
                        )
                    })?;
                let fsp = crate::sql::func::interval::text_fraction_digits(&Value::str(&text));
                Ok((Expr::Lit(Value::Time(t)), SqlType::time(fsp).not_null()))
            }
            other => Err(unsupported(&format!("{other} literals"))),
        }
    }

    // ----- operators --------------------------------------------------------------------

    fn bind_unary(&mut self, op: UnaryOperator, e: &ast::Expr) -> Result<(Expr, SqlType)> {
        let (x, t) = self.bind(e)?;
        let (x, t) = match op {
            UnaryOperator::Minus
            | UnaryOperator::BitwiseNot
            | UnaryOperator::Not
            | UnaryOperator::BangNot => hybrid_as_number_pair(enum_as_number((x, t))),
            _ => (x, t),
        };
        match op {
            UnaryOperator::Plus => Ok((x, t)),
            UnaryOperator::Minus => {
                if let Expr::Lit(v) = &x {
                    if let Ok(
                        Value::Int(_) | Value::Decimal(_) | Value::Double(_) | Value::UInt(_),
                    ) = negate_literal(v)
                    {
                        let v = negate_literal(v)?;
                        let t = match &v {
                            Value::Int(_) | Value::UInt(_) => int_literal_type(&v),
                            Value::Decimal(d) => decimal_value_type(d),
                            _ => t,
                        };
                        return Ok((Expr::Lit(v), t.not_null()));
                    }
                }
                let t = temporal_as_number(&t);
                let t = match t.class {
                    Class::Decimal => {
                        let mut t = t;
                        t.length += 1;
                        t
                    }
                    // A DOUBLE of fixed decimals (FLOAT(M,D)) is a DOUBLE one wider.
                    Class::Double if t.decimals < FLOATING_POINT_DECIMALS => {
                        let mut t = t;
                        t.wire = ColumnType::DOUBLE;
                        t.length += 1;
                        t.unsigned = false;
                        t
                    }
                    Class::Double => {
                        let mut t = t;
                        t.unsigned = false;
                        t
                    }
                    // MariaDB: one longer (the sign), LONG when it fits (`-int_col` is
                    // LONGLONG 12 long).
                    Class::Int if !matches!(t.wire, ColumnType::BIT | ColumnType::YEAR) => {
                        let mut t = t;
                        t.length += 1;
                        // Signed: `-unsigned_col` is negative (or 1690 past -2^63).
                        t.unsigned = false;
                        t.wire = if t.length <= 9 {
                            ColumnType::LONG
                        } else {
                            ColumnType::LONGLONG
                        };
                        t
                    }
                    Class::Int => t,
                    _ => SqlType::double().with_nullable(t.nullable),
                };
                Ok((Expr::Neg(Box::new(numeric_context(x))), t))
            }
            UnaryOperator::Not | UnaryOperator::BangNot => Ok((
                Expr::Not(Box::new(numeric_context(x))),
                SqlType::int(1).with_nullable(t.nullable),
            )),
            UnaryOperator::BitwiseNot => Ok((
                Expr::BitNot(Box::new(x)),
                bit_op_type().with_nullable(t.nullable),
            )),
            other => Err(unsupported(&format!("the operator {other}"))),
        }
    }

    /// A chain of binary operators, `((a op1 b) op2 c) op3 d`, as `sqlparser` builds it (a
    /// left spine, possibly continued through placeholders): the spine is walked iteratively,
    /// its bottom bound, then each operator applied in turn. AND, OR and arithmetic chains
    /// become one n-ary node (any length); other operators nest, one level each.
    fn bind_chain(&mut self, e: &ast::Expr) -> Result<(Expr, SqlType)> {
        let mut spine: Vec<(&BinaryOperator, &ast::Expr)> = Vec::new();
        let mut cur = e;
        loop {
            cur = self.resolve(cur)?;
            match cur {
                ast::Expr::BinaryOp { left, op, right } if *op != BinaryOperator::Assignment => {
                    spine.push((op, right));
                    cur = left;
                }
                _ => break,
            }
        }
        let mut acc = match self.as_interval(cur)? {
            // `INTERVAL n unit + d`: the date is the first operand's sibling.
            Some(iv) => match spine.pop() {
                Some((BinaryOperator::Plus, right)) => {
                    let date = self.bind(right)?;
                    self.bind_interval_add(date, iv, false)?
                }
                _ => return Err(Error::parse(&iv.to_string(), 1)),
            },
            None => self.bind(cur)?,
        };
        let depth = self.depth;
        let r = (|| {
            for (op, right) in spine.into_iter().rev() {
                acc = self.bind_binary_step(acc, op, right)?;
            }
            Ok(acc)
        })();
        self.depth = depth;
        r
    }

    /// `left op right` with `left` already bound.
    fn bind_binary_step(
        &mut self,
        left: (Expr, SqlType),
        op: &BinaryOperator,
        right: &ast::Expr,
    ) -> Result<(Expr, SqlType)> {
        use BinaryOperator as B;
        if matches!(op, B::Plus | B::Minus) {
            if let Some(iv) = self.as_interval(right)? {
                return self.bind_interval_add(left, iv, *op == B::Minus);
            }
        }
        let (a, ta) = left;
        if let Some(c) = cmp_op(op) {
            self.nest()?;
            let (b, tb) = self.bind(right)?;
            let ((a, ta), (b, tb)) = if is_number(&ta) || is_number(&tb) {
                (hybrid_as_number(a, ta), hybrid_as_number(b, tb))
            } else {
                ((a, ta), (b, tb))
            };
            return comparison(c, (a, ta), (b, tb));
        }
        // Every other operator reads its operands as numbers or truth values.
        let a = numeric_context(a);
        if let Some(op) = arith_op(op) {
            let (a, ta) = enum_as_number((a, ta));
            let (a, ta) = hybrid_as_number(a, ta);
            let (b, tb) = enum_as_number(self.bind(right)?);
            let (b, tb) = hybrid_as_number(b, tb);
            let b = numeric_context(b);
            let ty = arith_type(op, &ta, &tb).with_nullable(
                ta.nullable
                    || tb.nullable
                    || matches!(op, ArithOp::Div | ArithOp::IntDiv | ArithOp::Mod),
            );
            let ty = int_arith_length(op, ty, (&a, &ta), (&b, &tb));
            let x = match a {
                Expr::Arith(op0, x, y) => Expr::ArithChain(x, vec![(op0, *y), (op, b)]),
                Expr::ArithChain(x, mut rest) => {
                    rest.push((op, b));
                    Expr::ArithChain(x, rest)
                }
                a => Expr::Arith(op, Box::new(a), Box::new(b)),
            };
            return Ok((x, ty));
        }
        // A truth value of an ENUM / SET is its number's.
        let (a, ta) = if matches!(op, B::And | B::Or | B::StringConcat | B::Xor) {
            enum_as_number((a, ta))
        } else {
            (a, ta)
        };
        match op {
            B::And => {
                let (b, tb) = enum_as_number(self.bind(right)?);
                let b = numeric_context(b);
                let ty = SqlType::int(1).with_nullable(ta.nullable || tb.nullable);
                Ok((Expr::And(extend(a, b, Expr::into_and)), ty))
            }
            // `||` is OR unless PIPES_AS_CONCAT, which is not in the default sql_mode.
            B::Or | B::StringConcat => {
                let (b, tb) = enum_as_number(self.bind(right)?);
                let b = numeric_context(b);
                let ty = SqlType::int(1).with_nullable(ta.nullable || tb.nullable);
                Ok((Expr::Or(extend(a, b, Expr::into_or)), ty))
            }
            B::Xor => {
                self.nest()?;
                let (b, tb) = enum_as_number(self.bind(right)?);
                let b = numeric_context(b);
                let ty = SqlType::int(1).with_nullable(ta.nullable || tb.nullable);
                Ok((Expr::Xor(Box::new(a), Box::new(b)), ty))
            }
            B::Regexp | B::Match => Err(unsupported("REGEXP")),
            other => Err(unsupported(&format!("the operator {other}"))),
        }
    }

    /// A WHERE, HAVING or ON condition: bound, and read as a truth value
    /// ([`numeric_context`]).
    pub fn bind_condition(&mut self, e: &ast::Expr) -> Result<Expr> {
        Ok(numeric_context(enum_as_number(self.bind(e)?).0))
    }

    /// One more level of nesting in the expression being built (a chain step that does not
    /// flatten).
    fn nest(&mut self) -> Result<()> {
        if self.depth >= MAX_EXPR_DEPTH {
            return Err(too_deep());
        }
        self.depth += 1;
        Ok(())
    }

    fn bind_assign_user_var(
        &mut self,
        left: &ast::Expr,
        right: &ast::Expr,
    ) -> Result<(Expr, SqlType)> {
        let name = match left {
            ast::Expr::Identifier(id)
                if id.value.starts_with('@') && !id.value.starts_with("@@") =>
            {
                id.value[1..].trim_matches('`').to_ascii_lowercase()
            }
            _ => return Err(unsupported("':=' to something other than a user variable")),
        };
        let (x, t) = self.bind(right)?;
        Ok((
            Expr::SetUserVar(name.into_boxed_str(), Box::new(x)),
            t.with_nullable(true),
        ))
    }

    fn bind_cmp(
        &mut self,
        op: CmpOp,
        left: &ast::Expr,
        right: &ast::Expr,
    ) -> Result<(Expr, SqlType)> {
        let a = self.bind(left)?;
        let b = self.bind(right)?;
        comparison(op, a, b)
    }

    fn bind_is_null(&mut self, e: &ast::Expr, negated: bool) -> Result<(Expr, SqlType)> {
        let (x, _) = self.bind(e)?;
        Ok((
            Expr::IsNull(Box::new(x), negated),
            SqlType::int(1).not_null(),
        ))
    }

    fn bind_is_bool(
        &mut self,
        e: &ast::Expr,
        want: Option<bool>,
        negated: bool,
    ) -> Result<(Expr, SqlType)> {
        let (x, _) = enum_as_number(self.bind(e)?);
        // A truth value: GREATEST / LEAST of strings compare as numbers here too.
        let x = numeric_context(x);
        Ok((
            Expr::IsBool {
                e: Box::new(x),
                want,
                negated,
            },
            SqlType::int(1).not_null(),
        ))
    }

    fn bind_in(
        &mut self,
        e: &ast::Expr,
        list: &[ast::Expr],
        negated: bool,
    ) -> Result<(Expr, SqlType)> {
        let (x, tx) = self.bind(e)?;
        let mut items = Vec::with_capacity(list.len());
        let mut literals = Vec::new();
        let mut types = vec![tx.clone()];
        let mut nullable = tx.nullable;
        let mut all_numbers = true;
        for item in list {
            let (y, ty) = self.bind(item)?;
            nullable |= ty.nullable;
            all_numbers &= is_number(&ty);
            if matches!(y, Expr::Lit(_)) {
                literals.push((y.clone(), ty.clone()));
            }
            items.push(shown(y, &ty));
            types.push(ty);
        }
        // The collation of the operand and every item together (MariaDB aggregates them all).
        // (`x IN (y)` is `x = y` to MariaDB, also in its message.)
        derivation::check_mix(&types, if types.len() == 2 { "=" } else { "in" })?;
        let coll = derivation::aggregate(&types).0;
        if matches!(x, Expr::Lit(_)) {
            literals.push((x.clone(), tx.clone()));
        }
        let op = if types.len() == 2 { "=" } else { "in" };
        derivation::check_in_literals(&types, literals.iter().map(|(e, t)| (e, t)), coll, op)?;
        // An ENUM / SET in a list of numbers compares its number.
        let (x, tx) = if all_numbers {
            enum_as_number((x, tx))
        } else {
            (x, tx)
        };
        Ok((
            Expr::In {
                e: Box::new(shown(x, &tx)),
                list: items,
                negated,
                coll,
            },
            SqlType::int(1).with_nullable(nullable),
        ))
    }

    fn bind_between(
        &mut self,
        e: &ast::Expr,
        lo: &ast::Expr,
        hi: &ast::Expr,
        negated: bool,
    ) -> Result<(Expr, SqlType)> {
        let (x, tx) = self.bind(e)?;
        let (l, tl) = self.bind(lo)?;
        let (h, th) = self.bind(hi)?;
        let (x, tx) = if is_number(&tl) || is_number(&th) {
            enum_as_number((x, tx))
        } else {
            (x, tx)
        };
        derivation::check_mix([&tx, &tl, &th], "between")?;
        let coll = derivation::aggregate([&tx, &tl, &th]).0;
        let l = derivation::latin1_binary_literal(l, &tl, coll);
        let h = derivation::latin1_binary_literal(h, &th, coll);
        derivation::check_literals([(&x, &tx), (&l, &tl), (&h, &th)], coll, "between")?;
        // With a DATE / DATETIME among the three, all compare as datetimes (MariaDB: one
        // comparison type for BETWEEN): a string operand is read as one even against the
        // other, string, bound ('21' is not between '2019-05-05' and TIMESTAMP'2020-…').
        let temporal = [&tx, &tl, &th]
            .iter()
            .any(|t| matches!(t.class, Class::Date | Class::DateTime));
        let as_datetime = |x: Expr, t: &SqlType| {
            if temporal && t.class == Class::Str {
                Expr::Cast(Box::new(x), CastTo::ComparedDateTime)
            } else {
                x
            }
        };
        let (x, l, h) = (
            as_datetime(x, &tx),
            as_datetime(l, &tl),
            as_datetime(h, &th),
        );
        Ok((
            Expr::Between {
                e: Box::new(x),
                lo: Box::new(l),
                hi: Box::new(h),
                negated,
                coll,
            },
            SqlType::int(1).with_nullable(tx.nullable || tl.nullable || th.nullable),
        ))
    }

    fn bind_like(
        &mut self,
        e: &ast::Expr,
        pat: &ast::Expr,
        esc: Option<&ast::Expr>,
        negated: bool,
    ) -> Result<(Expr, SqlType)> {
        let (x, tx) = self.bind(e)?;
        let (p, tp) = self.bind(pat)?;
        let esc = match esc {
            Some(x) => Some(Box::new(self.bind(x)?.0)),
            None => None,
        };
        derivation::check_mix([&tx, &tp], "like")?;
        let coll = comparison_collation(&tx, &tp);
        let p = derivation::latin1_binary_literal(p, &tp, coll);
        derivation::check_literals([(&x, &tx), (&p, &tp)], coll, "like")?;
        // LIKE reads a ZEROFILL column as its padded text (`int5_zf LIKE '000%'`).
        let x = match tx.zerofill {
            Some(_) => number_as_text(x, &tx),
            None => x,
        };
        Ok((
            Expr::Like {
                e: Box::new(x),
                pat: Box::new(p),
                esc,
                negated,
                coll,
            },
            SqlType::int(1).with_nullable(tx.nullable || tp.nullable),
        ))
    }

    fn bind_case(
        &mut self,
        operand: Option<&ast::Expr>,
        conditions: &[ast::CaseWhen],
        else_result: Option<&ast::Expr>,
    ) -> Result<(Expr, SqlType)> {
        let operand = match operand {
            Some(o) => Some(self.bind(o)?),
            None => None,
        };
        let mut whens = Vec::with_capacity(conditions.len());
        let mut result_types = Vec::new();
        let mut compared: Vec<SqlType> = operand.iter().map(|(_, t)| t.clone()).collect();
        for cw in conditions {
            let (w, tw) = match operand {
                Some(_) => self.bind(&cw.condition)?,
                // A searched CASE's condition is a truth value.
                None => enum_as_number(self.bind(&cw.condition)?),
            };
            if operand.is_some() {
                compared.push(tw);
            }
            let (r, tr) = self.bind(&cw.result)?;
            result_types.push(tr);
            whens.push((w, r));
        }
        let else_ = match else_result {
            Some(e) => {
                let (x, t) = self.bind(e)?;
                result_types.push(t);
                Some(Box::new(x))
            }
            None => {
                result_types.push(SqlType::null());
                None
            }
        };
        // A simple CASE compares its operand with every WHEN in their aggregated collation.
        let coll = match operand {
            Some(_) => derivation::aggregate(&compared).0,
            None => Collation::Utf8mb4GeneralCi,
        };
        let mut ty = func::unify(&result_types.iter().collect::<Vec<_>>());
        {
            let results = whens.iter().map(|(_, r)| r).chain(else_.as_deref());
            func::null_signed_int_branches(&mut ty, results.zip(&result_types));
        }
        let (whens, else_) = if matches!(ty.class, Class::Str | Class::Bin) {
            // Each branch as the string it becomes: a DATETIME(n) with n digits, a DECIMAL
            // with its scale, a DOUBLE of fixed decimals with those.
            let as_text = |e: Expr, t: &SqlType| match t.class {
                Class::Decimal | Class::Double if func::shown_as_text(t) => number_as_text(e, t),
                _ => datetime_as_text(e, t),
            };
            let mut types = result_types.iter();
            let whens = whens
                .into_iter()
                .zip(types.by_ref())
                .map(|((w, r), t)| (w, as_text(r, t)))
                .collect();
            let else_ = else_.map(|e| Box::new(as_text(*e, types.next().unwrap_or(&ty))));
            (whens, else_)
        } else {
            (whens, else_)
        };
        Ok((
            Expr::Case {
                operand: operand.map(|(x, _)| Box::new(x)),
                whens,
                else_,
                coll,
                out: ty.class,
            },
            plain(ty),
        ))
    }

    fn bind_cast(&mut self, e: &ast::Expr, dt: &ast::DataType) -> Result<(Expr, SqlType)> {
        use ast::DataType as D;
        if !cast_target_in_grammar(dt) {
            // MariaDB's grammar has no such CAST target: a syntax error, not a refusal.
            return Err(Error::parse(&format!("{dt})"), 1));
        }
        let (x, tx) = self.bind(e)?;
        let (x, tx) = match dt {
            D::Signed
            | D::SignedInteger
            | D::Unsigned
            | D::UnsignedInteger
            | D::Int(_)
            | D::Integer(_)
            | D::Decimal(_)
            | D::Dec(_)
            | D::Double(_)
            | D::Float(_) => hybrid_as_number_pair(enum_as_number((x, tx))),
            _ => (x, tx),
        };
        let x = match dt {
            ast::DataType::Char(_)
            | ast::DataType::Character(_)
            | ast::DataType::Varchar(_)
            | ast::DataType::Nvarchar(_)
            | ast::DataType::Text => number_as_text(datetime_as_text(shown(x, &tx), &tx), &tx),
            _ => x,
        };
        let mut x = match dt {
            D::Decimal(_) | D::Dec(_) | D::Double(_) | D::Float(_) => interval_text_as_temporal(x),
            _ => x,
        };
        let name = cast_item_name(self.resolve(e)?);
        // CHAR(n) / BINARY(n): n up to 4294967295, else 1439.
        let width = |n: Option<u64>| -> Result<Option<u32>> {
            n.map(|n| {
                u32::try_from(n).map_err(|_| {
                    Error::new(
                        ErrorCode::TooBigDisplaywidth,
                        format!("Display width out of range for '{name}' (max = 4294967295)"),
                    )
                })
            })
            .transpose()
        };
        let len = |l: &Option<ast::CharacterLength>| match l {
            Some(ast::CharacterLength::IntegerLength { length, .. }) => Some(*length),
            _ => None,
        };
        let (to, ty) = match dt {
            D::Signed | D::SignedInteger | D::Int(_) | D::Integer(_) | D::BigInt(_) => {
                (CastTo::Signed, cast_int_type(&x, &tx, false))
            }
            D::Unsigned | D::UnsignedInteger | D::IntUnsigned(_) | D::BigIntUnsigned(_) => {
                (CastTo::Unsigned, cast_int_type(&x, &tx, true))
            }
            D::Char(l) | D::Character(l) | D::Varchar(l) | D::Nvarchar(l) => {
                let n = width(len(l))?;
                (
                    CastTo::Char(n),
                    implicit(SqlType::varchar(n.unwrap_or(tx.char_len().max(21)))),
                )
            }
            D::Text => (CastTo::Char(None), implicit(SqlType::text())),
            D::Binary(n) => {
                let n = width(*n)?;
                if tx.class == Class::Str
                    && tx.collation.charset() == crate::types::collation::Charset::Latin1
                {
                    x = Expr::Cast(Box::new(x), CastTo::Latin1Bytes);
                }
                (
                    CastTo::Binary(n),
                    implicit(SqlType::varbinary(n.unwrap_or(tx.length.max(21)))),
                )
            }
            D::Decimal(info) | D::Numeric(info) | D::Dec(info) => {
                let (p, s) = cast_decimal_spec(info, e)?;
                (CastTo::Decimal(p, s), SqlType::decimal(p as u32, s))
            }
            D::Float(ast::ExactNumberInfo::None) => {
                let shown = format!("CAST({} AS FLOAT)", self.resolve(e)?);
                (CastTo::Float(shown.into()), SqlType::float())
            }
            D::Double(_) | D::DoublePrecision | D::Float(_) | D::Real => {
                (CastTo::Double, SqlType::double())
            }
            D::Date => (CastTo::Date, SqlType::date()),
            D::Datetime(fsp) | D::Timestamp(fsp, _) => {
                let fsp = func::fsp_arg(&Value::UInt(fsp.unwrap_or(0)), &name)?;
                (CastTo::DateTime(fsp), SqlType::datetime(fsp))
            }
            D::Time(fsp, ast::TimezoneInfo::None) => {
                let fsp = func::fsp_arg(&Value::UInt(fsp.unwrap_or(0)), &name)?;
                (CastTo::Time(fsp), SqlType::time(fsp))
            }
            other => return Err(Error::parse(&format!("{other})"), 1)),
        };
        let nullable =
            tx.nullable || matches!(to, CastTo::Date | CastTo::DateTime(_) | CastTo::Time(_));
        Ok((Expr::Cast(Box::new(x), to), ty.with_nullable(nullable)))
    }

    // ----- functions and aggregates ------------------------------------------------------

    fn bind_function(&mut self, f: &ast::Function) -> Result<(Expr, SqlType)> {
        let name = match f.name.0.last() {
            Some(ast::ObjectNamePart::Identifier(id)) => id.value.clone(),
            _ => return Err(unsupported("this function name")),
        };
        let upper = name.to_ascii_uppercase();
        if let Some(over) = &f.over {
            return self.bind_window(f, &upper, over);
        }
        let (args, distinct, clauses) = match &f.args {
            ast::FunctionArguments::None => (Vec::new(), false, &[][..]),
            ast::FunctionArguments::Subquery(_) => return Err(unsupported("subqueries")),
            ast::FunctionArguments::List(list) => (
                list.args.iter().collect::<Vec<_>>(),
                matches!(
                    list.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                ),
                &list.clauses[..],
            ),
        };
        if let Some(agg) = aggregate_func(&upper) {
            if !clauses.is_empty() && agg != AggFunc::GroupConcat {
                return Err(Error::parse(&clauses[0].to_string(), 1));
            }
            return self.bind_aggregate(agg, &upper, &args, distinct, clauses);
        }
        if let Some(c) = clauses.first() {
            return Err(Error::parse(&c.to_string(), 1));
        }
        if upper == "VALUES" && self.values_fn {
            return self.bind_values_fn(&args);
        }
        if upper == "DEFAULT" {
            return self.bind_default_fn(&args);
        }
        if distinct {
            return Err(Error::parse(&format!("DISTINCT in {upper}"), 1));
        }
        if let Some(r) = self.bind_temporal_call(&upper, &args) {
            return r;
        }
        let mut bound = Vec::with_capacity(args.len());
        if upper == "GET_FORMAT" && args.len() == 2 {
            // GET_FORMAT(DATE, …): the first argument is a type keyword, passed as its name.
            let kind = match function_arg_expr(args[0])? {
                ast::Expr::Identifier(id) if id.quote_style.is_none() => {
                    let k = id.value.to_ascii_uppercase();
                    matches!(k.as_str(), "DATE" | "TIME" | "DATETIME" | "TIMESTAMP").then_some(k)
                }
                _ => None,
            };
            let Some(kind) = kind else {
                let near: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                return Err(Error::parse(&format!("{})", near.join(",")), 1));
            };
            bound.push((Expr::Lit(Value::str(&kind)), SqlType::varchar(9).not_null()));
            let (x, t) = self.bind(function_arg_expr(args[1])?)?;
            bound.push((x, t));
            return func::bind(&name, bound).map(|(x, t)| (x, plain(t)));
        }
        let every_digit = takes_every_digit(&upper);
        for (i, a) in args.iter().enumerate() {
            let (x, t) = self.bind(function_arg_expr(a)?)?;
            let x = if every_digit { x } else { shown(x, &t) };
            // String functions read a DATETIME(n) / TIME(n) with n digits, a BIT as bytes.
            let text = reads_text(&upper) || reads_text_at(&upper, i);
            let x = if text { datetime_as_text(x, &t) } else { x };
            let x = if text { number_as_text(x, &t) } else { x };
            // HEX of a temporal value hexes its text (a number's is its integer's).
            let x = if upper == "HEX" && matches!(t.class, Class::DateTime | Class::Time) {
                Expr::Cast(Box::new(x), CastTo::DateTimeText(t.decimals.min(6)))
            } else {
                x
            };
            let (x, t) = if reads_numbers(&upper) || (upper == "IF" && bound.is_empty()) {
                enum_as_number((x, t))
            } else {
                (x, t)
            };
            bound.push((x, t));
        }
        if matches!(upper.as_str(), "ROUND" | "TRUNCATE") && bound.len() == 2 {
            self.fold_constant(&mut bound[1].0);
        }

        func::bind(&name, bound).map(|(x, t)| (x, plain(t)))
    }

    /// Replace a constant expression built only of literals and deterministic functions
    /// (`FLOOR(0.5)`, `1 + 1`) by its value, as MariaDB reads a constant argument before the
    /// statement runs (ROUND / TRUNCATE then fix the result's scale from it). Left as it is
    /// when it reads a parameter, variable or subquery, or fails.
    fn fold_constant(&self, e: &mut Expr) {
        if matches!(e, Expr::Lit(_)) || !e.is_constant() {
            return;
        }
        let mut pure = true;
        e.walk(&mut |n| {
            pure &= !matches!(
                n,
                Expr::Param(_) | Expr::UserVar(_) | Expr::SysVar { .. } | Expr::Subquery(_)
            )
        });
        if !pure {
            return;
        }
        if let Ok(v) = e.eval(&crate::sql::expr::RowCtx::EMPTY, self.env) {
            *e = Expr::Lit(v);
        }
    }

    fn bind_values_fn(&mut self, args: &[&ast::FunctionArg]) -> Result<(Expr, SqlType)> {
        let [a] = args else {
            return Err(Error::parse("VALUES", 1));
        };
        let (x, t) = self.bind(function_arg_expr(a)?)?;
        match x {
            Expr::Col(i) => Ok((Expr::NewCol(i), t.with_nullable(true))),
            Expr::Func(crate::sql::func::Func::TsLocal, a) if matches!(a[..], [Expr::Col(_)]) => {
                let Expr::Col(i) = a[0] else { unreachable!() };
                Ok((
                    Expr::Func(crate::sql::func::Func::TsLocal, vec![Expr::NewCol(i)]),
                    t.with_nullable(true),
                ))
            }
            _ => Err(unsupported("VALUES() of an expression")),
        }
    }

    /// `DEFAULT(col)`: the column's default (an expression default over the row read, as
    /// MariaDB evaluates it); 1364 for a column without one.
    fn bind_default_fn(&mut self, args: &[&ast::FunctionArg]) -> Result<(Expr, SqlType)> {
        let [a] = args else {
            return Err(crate::sql::func::wrong_args("DEFAULT"));
        };
        let (x, t) = self.bind(function_arg_expr(a)?)?;
        let Some(&Expr::Col(col)) = x.zoned_col().or(Some(&x)) else {
            return Err(unsupported("DEFAULT() of anything but a column"));
        };
        let (scope, offset) = match (self.join, self.scope) {
            (Some(j), _) => {
                let t = &j.tables[j.table_of(col)];
                (&t.scope, t.offset)
            }
            (None, Some(s)) => (s, 0),
            (None, None) => return Err(unsupported("DEFAULT() here")),
        };
        let table = match self.env.sess.temp_table(&scope.db, &scope.table) {
            Some(t) => t.clone(),
            None => (self.env.ctx.engine)
                .table(&scope.db, &scope.table)
                .map_err(|_| unsupported("DEFAULT() of a column of a view or derived table"))?,
        };
        let def = table.def();
        let c = def
            .columns
            .get(col - offset)
            .filter(|c| {
                c.name
                    .eq_ignore_ascii_case(&scope.columns[col - offset].name)
            })
            .ok_or_else(|| unsupported("DEFAULT() of a column of a view or derived table"))?;
        if c.default == crate::storage::ColumnDefault::None && !c.auto_increment {
            return Err(Error::new(
                ErrorCode::NoDefaultForField,
                format!("Field '{}' doesn't have a default value", c.name),
            ));
        }
        let own = TableScope::of_def(&scope.db, &def, None);
        let mut e = column_default::default_value(self.env, &own, c)?;
        e.walk_mut(&mut |n| {
            if let Expr::Col(j) = n {
                *j += offset;
            }
        });
        Ok((e, t.with_nullable(true)))
    }

    fn bind_aggregate(
        &mut self,
        func: AggFunc,
        name: &str,
        args: &[&ast::FunctionArg],
        distinct: bool,
        clauses: &[ast::FunctionArgumentClause],
    ) -> Result<(Expr, SqlType)> {
        let own = self.aggs.take();
        let in_subquery = !self.env.subq.frames.borrow().is_empty();
        if own.is_none() && !in_subquery {
            return Err(Error::new(
                ErrorCode::InvalidGroupFuncUse,
                "Invalid use of group function",
            ));
        }
        let is_star = matches!(
            args,
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)]
        );
        let result = if func == AggFunc::Count && is_star {
            Ok((None, SqlType::null(), AggFunc::CountStar))
        } else if args.len() != 1 {
            Err(Error::new(
                ErrorCode::WrongArguments,
                format!("Incorrect parameter count in the call to native function '{name}'"),
            ))
        } else {
            function_arg_expr(args[0])
                .and_then(|a| self.bind(a))
                .map(|(x, t)| {
                    // GROUP_CONCAT makes its argument a string: as shown.
                    let (x, t) = match func {
                        AggFunc::Sum
                        | AggFunc::Avg
                        | AggFunc::BitAnd
                        | AggFunc::BitOr
                        | AggFunc::BitXor => enum_as_number((x, t)),
                        _ => (x, t),
                    };
                    let x = if func == AggFunc::GroupConcat {
                        number_as_text(datetime_as_text(shown(x, &t), &t), &t)
                    } else {
                        x
                    };
                    (Some(x), t, func)
                })
        };
        // The ORDER BY keys are row expressions: bound with aggregates disallowed (1111).
        let result = result.and_then(|(arg, arg_ty, func)| {
            let concat = match &arg {
                Some(a) if !clauses.is_empty() => self.bind_concat_clauses(clauses, a, &arg_ty)?,
                _ => group_concat::ConcatClauses::default(),
            };
            Ok((arg, arg_ty, func, concat))
        });
        let (mut arg, arg_ty, func, concat) = match result {
            Ok(r) => r,
            Err(e) => {
                self.aggs = own;
                return Err(e);
            }
        };
        // MIN / MAX of a TIMESTAMP column read in the session's zone compare the UTC values
        // (MariaDB: the local times of the hour a zone repeats are not in order); the result
        // is then shown in the zone.
        let mut zoned = false;
        if matches!(func, AggFunc::Min | AggFunc::Max) && !distinct && !in_subquery {
            if let Some(inner) = arg.as_ref().and_then(|a| a.zoned_col()).cloned() {
                arg = Some(inner);
                zoned = true;
            }
        }
        let ty = plain(aggregate_type(func, &arg_ty));
        let spec = AggSpec {
            func,
            arg,
            distinct,
            arg_ty,
            ty: ty.clone(),
            concat,
        };
        self.aggs = own;
        let spec = match in_subquery {
            // An aggregate of only outer columns belongs to that query (`bind/subquery.rs`).
            true => match self.outer_aggregate_of(spec) {
                Ok(done) => return done,
                Err(spec) => *spec,
            },
            false => spec,
        };
        let Some(collected) = self.aggs.as_mut() else {
            return Err(Error::new(
                ErrorCode::InvalidGroupFuncUse,
                "Invalid use of group function",
            ));
        };
        let idx = collected.len();
        collected.push(spec);
        if zoned {
            return Ok((
                Expr::Func(crate::sql::func::Func::TsLocal, vec![Expr::Agg(idx)]),
                ty,
            ));
        }
        Ok((Expr::Agg(idx), ty))
    }
}

/// How MySQL names a CAST argument in its errors: a string literal by its value, anything
/// else by its text.
/// True for the CAST / CONVERT targets MariaDB 10.11's grammar has (CHAR, BINARY, SIGNED,
/// UNSIGNED [INTEGER], INT, INTEGER, DECIMAL, DEC, DOUBLE, FLOAT, DATE, DATETIME, TIME, …);
/// BIGINT, VARCHAR without a length, TEXT, REAL, NUMERIC, TIMESTAMP, JSON, YEAR … are syntax
/// errors there (1064).
fn cast_target_in_grammar(dt: &ast::DataType) -> bool {
    use ast::DataType as D;
    !matches!(
        dt,
        D::BigInt(_)
            | D::IntUnsigned(_)
            | D::BigIntUnsigned(_)
            | D::Varchar(None)
            | D::Nvarchar(_)
            | D::Text
            | D::Float(
                ast::ExactNumberInfo::Precision(_) | ast::ExactNumberInfo::PrecisionAndScale(..)
            )
            | D::Real
            | D::DoublePrecision
            | D::Numeric(_)
            | D::Timestamp(..)
            | D::JSON
            | D::JSONB
    )
}

fn cast_item_name(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        other => other.to_string(),
    }
}

fn function_arg_expr(a: &ast::FunctionArg) -> Result<&ast::Expr> {
    match a {
        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Ok(e),
        ast::FunctionArg::Unnamed(_) => Err(unsupported("'*' as a function argument")),
        _ => Err(unsupported("named function arguments")),
    }
}

fn aggregate_func(upper: &str) -> Option<AggFunc> {
    Some(match upper {
        "COUNT" => AggFunc::Count,
        "SUM" => AggFunc::Sum,
        "AVG" => AggFunc::Avg,
        "MIN" => AggFunc::Min,
        "MAX" => AggFunc::Max,
        "GROUP_CONCAT" => AggFunc::GroupConcat,
        "BIT_AND" => AggFunc::BitAnd,
        "BIT_OR" => AggFunc::BitOr,
        "BIT_XOR" => AggFunc::BitXor,
        _ => return None,
    })
}

/// Result type of an aggregate over an argument of type `arg`.
pub fn aggregate_type(func: AggFunc, arg: &SqlType) -> SqlType {
    match func {
        AggFunc::CountStar | AggFunc::Count => SqlType::bigint().not_null(),
        // MariaDB: SUM widens the precision by 22 digits (at most 65), AVG by 4 (not capped)
        // with 4 more digits of scale (at most 38).
        AggFunc::Sum => match arg.class {
            Class::Int | Class::Decimal | Class::Time => {
                SqlType::decimal((decimal_precision(arg) + 22).min(65), arg.decimals)
            }
            Class::Double => fixed_double(arg.decimals),
            _ => fixed_double(NOT_FIXED_DEC),
        },
        AggFunc::Avg => match arg.class {
            Class::Int | Class::Decimal | Class::Time => SqlType::decimal(
                decimal_precision(arg) + 4,
                (arg.decimals + DIV_PRECISION_INCREMENT).min(MAX_SCALE),
            ),
            Class::Double if arg.decimals < FLOATING_POINT_DECIMALS => {
                let mut t = fixed_double(arg.decimals + DIV_PRECISION_INCREMENT);
                if t.decimals < FLOATING_POINT_DECIMALS {
                    t.length = arg.length + 4;
                }
                t
            }
            _ => fixed_double(NOT_FIXED_DEC),
        },
        AggFunc::Min | AggFunc::Max => {
            if arg.class == Class::Null {
                SqlType::varchar(64)
            } else if arg.class == Class::Double && arg.decimals < FLOATING_POINT_DECIMALS {
                // MariaDB's length for a DOUBLE of fixed decimals.
                let mut t = arg.clone().with_nullable(true);
                t.length = 17 + u32::from(arg.decimals);
                t
            } else {
                arg.clone().with_nullable(true)
            }
        }
        AggFunc::GroupConcat => {
            let mut t = SqlType::varchar(1024);
            // A latin1 argument's result is latin1 too (HEX, LENGTH see its latin1 bytes).
            if arg.class == Class::Str
                && arg.collation.charset() == crate::types::collation::Charset::Latin1
            {
                t.collation = arg.collation;
                t.derivation = arg.derivation;
            }
            t
        }
        // BIGINT UNSIGNED NOT NULL, shown 21 wide (MariaDB's length for these).
        AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor => {
            let mut t = SqlType::ubigint().not_null();
            t.length = 21;
            t
        }
    }
}

/// The type of a hex or bit literal (`x'41'`, `0x41`, `b'101'`): a binary string, marked
/// UNSIGNED with 0 decimals as MariaDB sends it; in arithmetic and in comparisons with a number
/// it is the number its bytes spell ([`hybrid_as_number`]).
fn hybrid_literal_type(bytes: u32) -> SqlType {
    let mut t = SqlType::varbinary(bytes).not_null();
    t.unsigned = true;
    t.decimals = 0;
    t
}

/// DATE_ADD over a string (a string) where MariaDB takes its number: the number of the
/// DATE / DATETIME it computed (`CAST(DATE_ADD('9999-12-31', INTERVAL 0 MONTH) AS DOUBLE)` is
/// 99991231). CAST AS SIGNED reads the string (2020), as MariaDB.
fn interval_text_as_temporal(e: Expr) -> Expr {
    match &e {
        Expr::Func(
            func::Func::AddInterval {
                out: func::interval::Out::Text(_),
                ..
            },
            _,
        ) => Expr::Cast(Box::new(e), CastTo::TemporalText),
        _ => e,
    }
}

/// [`hybrid_as_number`] of a bound pair.
fn hybrid_as_number_pair((e, t): (Expr, SqlType)) -> (Expr, SqlType) {
    hybrid_as_number(e, t)
}

/// A hex or bit literal where a number is wanted: its bytes as a big-endian unsigned integer.
fn hybrid_as_number(e: Expr, t: SqlType) -> (Expr, SqlType) {
    match &e {
        Expr::Lit(Value::Bytes(b)) if t.class == Class::Bin && t.unsigned && t.decimals == 0 => {
            let n = b.iter().fold(0u64, |a, &c| (a << 8) | u64::from(c));
            (Expr::Lit(Value::UInt(n)), SqlType::ubigint().not_null())
        }
        _ => (e, t),
    }
}

/// MariaDB's length of integer `a op b` (`1 + 2` is LONG 3 long, `int_col + 0` LONGLONG
/// 12) from the operands' digits (a non-negative literal's own, another's without its sign):
/// `+ -` one more than the most, `*` their sum, `%` the most, `DIV` the dividend's; plus the
/// sign; LONG when it fits in 9 characters (`u MOD 2` of an INT UNSIGNED is a LONGLONG).
fn int_arith_length(
    op: ArithOp,
    mut t: SqlType,
    a: (&Expr, &SqlType),
    b: (&Expr, &SqlType),
) -> SqlType {
    if t.class != Class::Int || a.1.class != Class::Int || b.1.class != Class::Int {
        return t;
    }
    if a.1.wire == ColumnType::BIT
        || b.1.wire == ColumnType::BIT
        || a.1.wire == ColumnType::YEAR
        || b.1.wire == ColumnType::YEAR
    {
        return t;
    }
    let digits = |(e, t): (&Expr, &SqlType)| {
        match e {
            Expr::Lit(Value::Int(n)) if *n >= 0 => t.length,
            _ if t.unsigned => t.length,
            _ => t.length.saturating_sub(1),
        }
        .max(1)
    };
    let (da, db) = (digits(a), digits(b));
    let p = match op {
        ArithOp::Add | ArithOp::Sub => da.max(db) + 1,
        ArithOp::Mul => da + db,
        ArithOp::Mod => da.max(db),
        ArithOp::IntDiv => {
            t.length = da;
            t.wire = if da <= 9 {
                ColumnType::LONG
            } else {
                ColumnType::LONGLONG
            };
            return t;
        }
        _ => return t,
    };
    t.length = p + u32::from(!t.unsigned);
    t.wire = if t.length <= 9 {
        ColumnType::LONG
    } else {
        ColumnType::LONGLONG
    };
    t
}

/// The type of CAST(x AS SIGNED / UNSIGNED), as MariaDB sizes it: the argument's length (at
/// most 21), at least one digit and the sign; 20 for a DOUBLE, and for UNSIGNED of a signed
/// integer that may be negative. LONG when it fits (9 characters signed, 10 unsigned).
fn cast_int_type(x: &Expr, tx: &SqlType, unsigned: bool) -> SqlType {
    let non_negative_literal =
        matches!(x, Expr::Lit(Value::Int(n)) if *n >= 0) || matches!(x, Expr::Lit(Value::UInt(_)));
    let len = if tx.class == Class::Double
        || (unsigned && tx.class == Class::Int && !tx.unsigned && !non_negative_literal)
    {
        20
    } else {
        tx.char_len().min(21).max(if unsigned { 1 } else { 2 })
    };
    let mut t = if unsigned {
        SqlType::ubigint()
    } else {
        SqlType::bigint()
    };
    t.length = len;
    if len <= if unsigned { 10 } else { 9 } {
        t.wire = ColumnType::LONG;
    }
    t
}

/// The type of `~ & | ^ << >>`: BIGINT UNSIGNED, 21 long as MariaDB sends it.
fn bit_op_type() -> SqlType {
    let mut t = SqlType::ubigint();
    t.length = 21;
    t
}

/// Static type of an arithmetic result.
pub fn arith_type(op: ArithOp, a: &SqlType, b: &SqlType) -> SqlType {
    use Class::*;
    let (a, b) = (&temporal_as_number(a), &temporal_as_number(b));
    let numeric = |t: &SqlType| match t.class {
        Int | Decimal | Double => t.class,
        Null => Null,
        // TIME is HHMMSS[.f]: an integer, or a decimal of its fractional digits.
        Time if t.decimals == 0 => Int,
        Time => Decimal,
        _ => Double,
    };
    let (ca, cb) = (numeric(a), numeric(b));
    // The fixed decimals each operand brings to a DOUBLE result (a string brings none).
    let fixed = |t: &SqlType, c: Class| match c {
        Int | Null => 0,
        Decimal | Double => t.decimals,
        _ => NOT_FIXED_DEC,
    };
    let dec = fixed(a, ca).max(fixed(b, cb));
    match op {
        ArithOp::BitAnd | ArithOp::BitOr | ArithOp::BitXor | ArithOp::Shl | ArithOp::Shr => {
            bit_op_type()
        }
        // Unsigned when an integer operand is (MariaDB: `u DIV 2.5` too).
        ArithOp::IntDiv => {
            let mut t = SqlType::bigint();
            t.unsigned = (ca == Int && a.unsigned) || (cb == Int && b.unsigned);
            t
        }
        ArithOp::Div => {
            if ca == Double || cb == Double {
                // Fixed decimals (a FLOAT(M,D) column, `ROUND(x, 2)`) gain 4 more.
                let dec = dec.saturating_add(DIV_PRECISION_INCREMENT);
                let mut t = fixed_double(dec);
                if t.decimals < FLOATING_POINT_DECIMALS {
                    t.length = t
                        .length
                        .min(a.length.saturating_sub(a.decimals.into()) + u32::from(dec));
                }
                t
            } else {
                // MariaDB: scale s1 + increment (at most 38); precision int1 + s2 + s1 +
                // increment (at most 65).
                let s1 = a.decimals.min(MAX_SCALE);
                let scale = (s1 + DIV_PRECISION_INCREMENT).min(MAX_SCALE);
                let p = int_digits(a) + b.decimals.min(MAX_SCALE) as u32 + s1 as u32 + 4;
                SqlType::decimal(p.min(65), scale)
            }
        }
        _ => {
            if ca == Double || cb == Double {
                fixed_double(dec)
            } else if ca == Decimal || cb == Decimal {
                decimal_arith_type(op, a, b)
            } else if ca == Null && cb == Null {
                SqlType::double()
            } else {
                let mut t = SqlType::bigint();
                // MariaDB: unsigned when either operand is (a negative difference is 1690),
                // `%` when the dividend is.
                t.unsigned = match op {
                    ArithOp::Mod => a.unsigned,
                    _ => a.unsigned || b.unsigned,
                };
                t.length = (a.length.max(b.length) + 1).max(3);
                if t.length < 21 {
                    t.length = t.length.max(12);
                }
                t.wire = ColumnType::LONGLONG;
                t
            }
        }
    }
}

/// A DOUBLE arithmetic result with `decimals` fixed decimals (MariaDB's length for it: 17
/// digits and the decimals), or a plain DOUBLE when they reach FLOATING_POINT_DECIMALS, one
/// longer than a DOUBLE column (`f + 1` is 23 long).
fn fixed_double(decimals: u8) -> SqlType {
    let mut t = SqlType::double();
    if decimals < FLOATING_POINT_DECIMALS {
        t.decimals = decimals;
        t.length = 17 + u32::from(decimals);
    } else {
        t.length = 23;
    }
    t
}

/// An operand read as a number or a truth value (NOT, AND, OR, XOR, arithmetic, a WHERE /
/// HAVING / ON condition): GREATEST / LEAST of strings compare their arguments as numbers
/// there, as MariaDB's numeric evaluation of them does (`NOT GREATEST('11', 'abc')` is 0: as
/// numbers 11 is the greatest, where as strings 'abc' is).
pub fn numeric_context(e: Expr) -> Expr {
    use crate::sql::func::Func;
    match e {
        Expr::Func(Func::Greatest(Class::Str | Class::Bin, c), a) => {
            Expr::Func(Func::Greatest(Class::Double, c), a)
        }
        Expr::Func(Func::Least(Class::Str | Class::Bin, c), a) => {
            Expr::Func(Func::Least(Class::Double, c), a)
        }
        e => interval_text_as_temporal(e),
    }
}

/// A DATE or DATETIME operand of arithmetic as MariaDB reads it: the number
/// `YYYYMMDD[hhmmss]`, an integer, or a DECIMAL with the fractional seconds as its scale
/// (`ts_col / 3` is a DECIMAL of scale 4, `dt2_col + 0` of scale 2); other types unchanged.
fn temporal_as_number(t: &SqlType) -> SqlType {
    let n = match t.class {
        Class::Date => SqlType::int(8),
        Class::DateTime if t.decimals == 0 => SqlType::int(14),
        Class::DateTime => SqlType::decimal(14 + u32::from(t.decimals.min(6)), t.decimals.min(6)),
        _ => return t.clone(),
    };
    n.with_nullable(t.nullable)
}

/// The static type of a runtime value (for variables).
pub fn value_type(v: &Value) -> SqlType {
    match v {
        Value::Null => SqlType::null(),
        Value::Int(_) => SqlType::bigint().not_null(),
        Value::UInt(_) => SqlType::ubigint().not_null(),
        Value::Double(_) => SqlType::double().not_null(),
        Value::Decimal(d) => decimal_value_type(d),
        Value::Bytes(b) => {
            let n = String::from_utf8_lossy(b).chars().count() as u32;
            SqlType::varchar(n.max(1)).not_null()
        }
        Value::Date(_) => SqlType::date().not_null(),
        Value::DateTime(dt) => SqlType::datetime(if dt.micros > 0 { 6 } else { 0 }).not_null(),
        Value::Time(t) => SqlType::time(if t % 1_000_000 != 0 { 6 } else { 0 }).not_null(),
    }
}

/// Digits of precision of a numeric type (`decimal_precision()` in MariaDB): a DECIMAL's
/// precision; an integer column's digits (its display length less the sign); an integer
/// literal's digits.
pub fn decimal_precision(t: &SqlType) -> u32 {
    match t.class {
        Class::Decimal => t
            .length
            .saturating_sub(1 + u32::from(t.decimals > 0))
            .max(1),
        Class::Int if t.length >= 11 && !t.unsigned => t.length - 1,
        // TIME as a number: HHHMMSS and its fractional digits.
        Class::Time => 7 + u32::from(t.decimals.min(6)),
        _ => t.length.max(1),
    }
}

/// Digits before the point of a numeric type.
pub(crate) fn int_digits(t: &SqlType) -> u32 {
    decimal_precision(t).saturating_sub(t.decimals.min(MAX_SCALE) as u32)
}

/// The type of `a op b` when one side is DECIMAL and neither is DOUBLE (MariaDB's rules):
/// `+ -`: max(int) + 1 integer digits, max(scale) (precision not capped at 65: the 81-digit
/// working range holds it); `*`: p1 + p2 (at most 65), s1 + s2 (at most 38); `MOD`:
/// max(int) + max(scale).
fn decimal_arith_type(op: ArithOp, a: &SqlType, b: &SqlType) -> SqlType {
    let (sa, sb) = (a.decimals.min(MAX_SCALE), b.decimals.min(MAX_SCALE));
    match op {
        ArithOp::Mul => SqlType::decimal(
            (decimal_precision(a) + decimal_precision(b)).min(65),
            (sa + sb).min(MAX_SCALE),
        ),
        ArithOp::Mod => {
            let s = sa.max(sb);
            SqlType::decimal((int_digits(a).max(int_digits(b)) + s as u32).min(65), s)
        }
        _ => {
            let s = sa.max(sb);
            SqlType::decimal(int_digits(a).max(int_digits(b)) + 1 + s as u32, s)
        }
    }
}

/// The type of a decimal value: its own digits and scale.
fn decimal_value_type(d: &Decimal) -> SqlType {
    SqlType::decimal(d.int_digits().max(1) + d.scale() as u32, d.scale()).not_null()
}

/// `DECIMAL[(M[,D])]` of a CAST, checked as MariaDB: M ≤ 65 (1426), D ≤ 38 (1425), M ≥ D
/// (1427). M = 0 means the default 10.
fn cast_decimal_spec(info: &ast::ExactNumberInfo, e: &ast::Expr) -> Result<(u8, u8)> {
    let (p, s): (u64, i64) = match info {
        ast::ExactNumberInfo::None => (10, 0),
        ast::ExactNumberInfo::Precision(p) => (*p, 0),
        ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, *s),
    };
    if p > 65 {
        return Err(Error::new(
            ErrorCode::TooBigPrecision,
            format!("Too big precision specified for '{e}'. Maximum is 65"),
        ));
    }
    if !(0..=MAX_SCALE as i64).contains(&s) {
        return Err(Error::new(
            ErrorCode::TooBigScale,
            format!("Too big scale specified for '{e}'. Maximum is 38"),
        ));
    }
    let p = if p == 0 { 10 } else { p };
    if s as u64 > p {
        return Err(Error::new(
            ErrorCode::MBiggerThanD,
            "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '')",
        ));
    }
    Ok((p as u8, s as u8))
}

fn int_literal_type(v: &Value) -> SqlType {
    let len = crate::sql::expr::convert::to_string(v).len() as u32;
    let fits_i32 = matches!(v, Value::Int(i) if *i >= i32::MIN as i64 && *i <= i32::MAX as i64);
    let mut t = if fits_i32 {
        SqlType::int(len.min(10))
    } else {
        SqlType::bigint()
    };
    t.length = len;
    if let Value::UInt(_) = v {
        t.unsigned = true;
    }
    t.not_null()
}

/// A numeric literal: integer (Int / UInt), decimal, or DOUBLE (with an exponent).
pub(in crate::sql) fn number_literal(s: &str) -> Result<(Value, SqlType)> {
    let has_exp = s.contains(['e', 'E']);
    if !has_exp && !s.contains('.') {
        if let Ok(i) = s.parse::<i64>() {
            let v = Value::Int(i);
            return Ok((v.clone(), int_literal_type(&v)));
        }
        if let Ok(u) = s.parse::<u64>() {
            let v = Value::UInt(u);
            return Ok((v.clone(), int_literal_type(&v)));
        }
    }
    if !has_exp {
        match Decimal::parse(s.as_bytes()) {
            Ok(p) => {
                // Precision: the digits as written (`0.000` has 4, `.5` has 1).
                let digits = s.bytes().filter(u8::is_ascii_digit).count() as u32;
                let t = SqlType::decimal(digits.max(1), p.value.scale());
                return Ok((Value::Decimal(p.value), t.not_null()));
            }
            // More than 81 integer digits: MariaDB gives the largest DECIMAL(65,0).
            Err(cohort_decimal::ParseError::Overflow) => {
                let t = SqlType::decimal(65, 0);
                return Ok((Value::Decimal(Decimal::max_of(65, 0)), t.not_null()));
            }
            Err(cohort_decimal::ParseError::Syntax) => {}
        }
    }
    match s.parse::<f64>() {
        Ok(f) => Ok((Value::Double(f), SqlType::double().not_null())),
        Err(_) => Err(Error::parse(s, 1)),
    }
}

pub(in crate::sql) fn negate_literal(v: &Value) -> Result<Value> {
    Ok(match v {
        Value::Int(i) => match i.checked_neg() {
            Some(n) => Value::Int(n),
            None => Value::Decimal(Decimal::from(*i).neg()),
        },
        Value::UInt(u) if *u == i64::MAX as u64 + 1 => Value::Int(i64::MIN),
        Value::UInt(u) => Value::Decimal(Decimal::from(*u).neg()),
        Value::Decimal(d) => Value::Decimal(d.neg()),
        Value::Double(f) => Value::Double(-f),
        other => other.clone(),
    })
}

fn hex_bytes(h: &str) -> Result<Vec<u8>> {
    let h = if h.len() % 2 == 1 {
        format!("0{h}")
    } else {
        h.to_string()
    };
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).map_err(|_| Error::parse(&h, 1)))
        .collect()
}

fn bit_bytes(b: &str) -> Result<Vec<u8>> {
    if !b.bytes().all(|c| c == b'0' || c == b'1') {
        return Err(Error::parse(b, 1));
    }
    let n = u128::from_str_radix(if b.is_empty() { "0" } else { b }, 2)
        .map_err(|_| Error::parse(b, 1))?;
    let nbytes = b.len().div_ceil(8).max(1);
    Ok(n.to_be_bytes()[16 - nbytes..].to_vec())
}
