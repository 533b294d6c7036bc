//! Window functions: binding `f(…) OVER (…)`, `OVER w` and `WINDOW w AS (…)` into
//! [`WinSpec`]s, with MariaDB 10.11's checks and error codes.
//!
//! A window function is allowed where aggregates are (the select list and ORDER BY); anywhere
//! else it is 4015, inside an aggregate's argument 4074. Its arguments, PARTITION BY and ORDER
//! BY are bound like select-list expressions: they may read aggregates of a grouped query
//! (`SUM(SUM(x)) OVER (ORDER BY g)`), and are evaluated on each result row (or group) before
//! the window functions are computed by `exec/window.rs`.
//!
//! While binding, a window function becomes `Expr::Agg(SLOT_BASE + i)`, a placeholder; once
//! the whole SELECT is bound and its aggregates counted, [`renumber`] makes it
//! `Expr::Agg(aggs + i)`: the executor evaluates the output row with the window values after
//! the aggregate values.
//!
//! Frames: ROWS and RANGE with UNBOUNDED PRECEDING / n PRECEDING / CURRENT ROW / n FOLLOWING /
//! UNBOUNDED FOLLOWING. The default frame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
//! (with no ORDER BY every row is a peer: the whole partition). A RANGE frame with an offset
//! needs one numeric ORDER BY key (4019 / 4021); MariaDB has no date intervals there (1064).

use super::sqltype::{Class, SqlType};
use super::{aggregate_func, aggregate_type, function_arg_expr, AggFunc, Binder};
use crate::error::{Error, Result};
use crate::sql::expr::Expr;
use crate::types::{Collation, Value};
use cohort_protocol::column::ColumnType;
use cohort_protocol::ErrorCode;
use sqlparser::ast;

/// Where window-function placeholders start in `Expr::Agg`'s index space while binding.
pub const SLOT_BASE: usize = 1 << 30;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
    Agg(AggFunc),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Units {
    Rows,
    Range,
}

/// One end of a frame. Offsets are non-negative: a row count for ROWS, a number for RANGE.
#[derive(Clone, Debug)]
pub enum Bound {
    UnboundedPreceding,
    Preceding(Value),
    CurrentRow,
    Following(Value),
    UnboundedFollowing,
}

#[derive(Clone, Debug)]
pub struct Frame {
    pub units: Units,
    pub start: Bound,
    pub end: Bound,
}

/// One ORDER BY key of a window.
#[derive(Clone, Debug)]
pub struct WinOrder {
    pub expr: Expr,
    pub desc: bool,
    pub coll: Collation,
}

/// One bound window function.
#[derive(Clone, Debug)]
pub struct WinSpec {
    pub func: WinFunc,
    /// Arguments (evaluated per row): the value, then the offset / n.
    pub args: Vec<Expr>,
    pub arg_ty: SqlType,
    pub ty: SqlType,
    pub partition: Vec<(Expr, Collation)>,
    pub order: Vec<WinOrder>,
    pub frame: Frame,
    /// Windows with the same key share one sort (the text of PARTITION BY and ORDER BY).
    pub sort_key: String,
}

/// A named window as written, once its reference (if any) is resolved.
#[derive(Clone)]
struct Named {
    partition: Vec<ast::Expr>,
    order: Vec<ast::OrderByExpr>,
    frame: Option<ast::WindowFrame>,
}

/// The window state of the binder for one SELECT: its named windows and the window functions
/// bound so far.
pub struct WindowCtx {
    defs: Vec<ast::NamedWindowDefinition>,
    /// The select list's aliases: a bare name in PARTITION BY / ORDER BY of a window is the
    /// aliased expression (before a column of that name, as MariaDB), wherever it is listed.
    aliases: Vec<(String, ast::Expr)>,
    pub specs: Vec<WinSpec>,
    /// Binding a window function's own arguments or specification: a window function there
    /// is 4015, or 4074 in an aggregate window function's arguments.
    nested: Option<Nested>,
}

#[derive(Clone, Copy)]
enum Nested {
    Spec,
    AggArg,
}

fn err(code: ErrorCode, msg: impl Into<String>) -> Error {
    Error::new(code, msg)
}

fn undefined(name: &str) -> Error {
    err(
        ErrorCode::WrongWindowSpecName,
        format!("Window specification with name '{name}' is not defined"),
    )
}

/// 4015: a window function where it is not allowed.
pub fn misplaced() -> Error {
    err(
        ErrorCode::WrongPlacementOfWindowFunction,
        "Window function is allowed only in SELECT list and ORDER BY clause",
    )
}

impl WindowCtx {
    pub fn new(defs: &[ast::NamedWindowDefinition], items: &[ast::SelectItem]) -> WindowCtx {
        let aliases = items
            .iter()
            .filter_map(|it| match it {
                ast::SelectItem::ExprWithAlias { expr, alias } => {
                    Some((alias.value.clone(), expr.clone()))
                }
                _ => None,
            })
            .collect();
        WindowCtx {
            defs: defs.to_vec(),
            aliases,
            specs: Vec::new(),
            nested: None,
        }
    }

    /// The named window `name`, its own reference merged in.
    fn find(&self, name: &str) -> Result<Named> {
        let def = self
            .defs
            .iter()
            .find(|d| d.0.value.eq_ignore_ascii_case(name));
        match def {
            Some(ast::NamedWindowDefinition(_, ast::NamedWindowExpr::WindowSpec(s))) => {
                resolve(&self.defs, s, 0)
            }
            Some(d) => Err(Error::parse(&d.1.to_string(), 1)),
            None => Err(undefined(name)),
        }
    }
}

/// A window specification with its referenced window merged in (4009 / 4011 / 4012 / 4013).
fn resolve(
    defs: &[ast::NamedWindowDefinition],
    spec: &ast::WindowSpec,
    depth: usize,
) -> Result<Named> {
    let mut out = Named {
        partition: spec.partition_by.clone(),
        order: spec.order_by.clone(),
        frame: spec.window_frame.clone(),
    };
    let Some(base_name) = &spec.window_name else {
        return Ok(out);
    };
    let base = defs
        .iter()
        .find(|d| d.0.value.eq_ignore_ascii_case(&base_name.value));
    let base = match base {
        Some(ast::NamedWindowDefinition(_, ast::NamedWindowExpr::WindowSpec(s)))
            if depth < defs.len() =>
        {
            resolve(defs, s, depth + 1)?
        }
        _ => return Err(undefined(&base_name.value)),
    };
    merge(&mut out, base, &base_name.value)?;
    Ok(out)
}

fn merge(out: &mut Named, base: Named, base_name: &str) -> Result<()> {
    if !out.partition.is_empty() {
        return Err(err(
            ErrorCode::PartitionListInReferencingWindowSpec,
            format!(
                "Window specification referencing another one '{base_name}' cannot contain \
                 partition list"
            ),
        ));
    }
    if !base.order.is_empty() && !out.order.is_empty() {
        return Err(err(
            ErrorCode::OrderListInReferencingWindowSpec,
            format!("Referenced window specification '{base_name}' already contains order list"),
        ));
    }
    if base.frame.is_some() {
        return Err(err(
            ErrorCode::WindowFrameInReferencedWindowSpec,
            format!("Referenced window specification '{base_name}' cannot contain window frame"),
        ));
    }
    out.partition = base.partition;
    if out.order.is_empty() {
        out.order = base.order;
    }
    Ok(())
}

fn win_func(upper: &str) -> Option<WinFunc> {
    Some(match upper {
        "ROW_NUMBER" => WinFunc::RowNumber,
        "RANK" => WinFunc::Rank,
        "DENSE_RANK" => WinFunc::DenseRank,
        "PERCENT_RANK" => WinFunc::PercentRank,
        "CUME_DIST" => WinFunc::CumeDist,
        "NTILE" => WinFunc::Ntile,
        "LAG" => WinFunc::Lag,
        "LEAD" => WinFunc::Lead,
        "FIRST_VALUE" => WinFunc::FirstValue,
        "LAST_VALUE" => WinFunc::LastValue,
        "NTH_VALUE" => WinFunc::NthValue,
        _ => return None,
    })
}

/// The argument counts a window function takes (fewer or more is a syntax error in MariaDB).
fn arg_counts(f: WinFunc) -> (usize, usize) {
    match f {
        WinFunc::RowNumber
        | WinFunc::Rank
        | WinFunc::DenseRank
        | WinFunc::PercentRank
        | WinFunc::CumeDist => (0, 0),
        WinFunc::Ntile | WinFunc::FirstValue | WinFunc::LastValue | WinFunc::Agg(_) => (1, 1),
        WinFunc::Lag | WinFunc::Lead => (1, 2),
        WinFunc::NthValue => (2, 2),
    }
}

fn no_frame_allowed(f: WinFunc) -> bool {
    matches!(
        f,
        WinFunc::RowNumber
            | WinFunc::Rank
            | WinFunc::DenseRank
            | WinFunc::PercentRank
            | WinFunc::CumeDist
            | WinFunc::Ntile
    )
}

fn needs_order(f: WinFunc) -> bool {
    matches!(
        f,
        WinFunc::Rank
            | WinFunc::DenseRank
            | WinFunc::PercentRank
            | WinFunc::CumeDist
            | WinFunc::Lag
            | WinFunc::Lead
    )
}

fn result_type(f: WinFunc, arg: &SqlType) -> SqlType {
    let mut t = match f {
        WinFunc::RowNumber | WinFunc::Rank | WinFunc::DenseRank | WinFunc::Ntile => {
            SqlType::bigint().not_null()
        }
        WinFunc::PercentRank | WinFunc::CumeDist => {
            // MariaDB: DOUBLE(17,10), shown with ten decimals. Carried as a DECIMAL of scale
            // ten (the text MariaDB shows; the binary protocol sends it as a double).
            let mut t = SqlType::decimal(17, 10);
            t.wire = ColumnType::DOUBLE;
            t.length = 17;
            t.with_nullable(true)
        }
        WinFunc::Lag
        | WinFunc::Lead
        | WinFunc::FirstValue
        | WinFunc::LastValue
        | WinFunc::NthValue => {
            if arg.class == Class::Null {
                SqlType::varchar(64)
            } else {
                arg.clone().with_nullable(true)
            }
        }
        WinFunc::Agg(a) => aggregate_type(a, arg),
    };
    // MariaDB's window functions report a DOUBLE as DOUBLE(23, 31), a string with 39
    // decimals.
    match t.class {
        Class::Double if t.decimals >= super::sqltype::FLOATING_POINT_DECIMALS => {
            t.length = 23;
            t.decimals = super::sqltype::FLOATING_POINT_DECIMALS;
        }
        Class::Str => t.decimals = 39,
        _ => {}
    }
    t
}

impl Binder<'_> {
    /// `f(…) OVER …`: a window function, bound as a placeholder (see the module doc).
    pub(super) fn bind_window(
        &mut self,
        f: &ast::Function,
        upper: &str,
        over: &ast::WindowType,
    ) -> Result<(Expr, SqlType)> {
        let Some(ctx) = &self.windows else {
            return Err(misplaced());
        };
        match ctx.nested {
            Some(Nested::Spec) => return Err(misplaced()),
            Some(Nested::AggArg) => {
                return Err(err(
                    ErrorCode::SumFuncWithWindowFuncAsArg,
                    "Window functions can not be used as arguments to group functions.",
                ))
            }
            None => {}
        }
        if self.aggs.is_none() {
            // Inside an aggregate's argument.
            return Err(err(
                ErrorCode::SumFuncWithWindowFuncAsArg,
                "Window functions can not be used as arguments to group functions.",
            ));
        }
        if f.filter.is_some() || !f.within_group.is_empty() || f.null_treatment.is_some() {
            return Err(Error::parse(&f.to_string(), 1));
        }
        let (args, distinct, clauses) = match &f.args {
            ast::FunctionArguments::None => (Vec::new(), false, &[][..]),
            ast::FunctionArguments::Subquery(_) => return Err(Error::unsupported("subqueries")),
            ast::FunctionArguments::List(list) => (
                list.args.iter().collect::<Vec<_>>(),
                matches!(
                    list.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                ),
                &list.clauses[..],
            ),
        };
        if !clauses.is_empty() {
            return Err(Error::parse(&clauses[0].to_string(), 1));
        }
        let func = match (win_func(upper), aggregate_func(upper)) {
            (Some(w), _) => w,
            (None, Some(AggFunc::GroupConcat)) => {
                return Err(Error::unsupported(
                    "GROUP_CONCAT() aggregate as window function",
                ))
            }
            (None, Some(a)) => {
                if distinct {
                    return Err(Error::unsupported(&format!(
                        "{upper}(DISTINCT) aggregate as window function"
                    )));
                }
                WinFunc::Agg(a)
            }
            (None, None) => {
                return Err(Error::unsupported(&format!(
                    "{upper}() as a window function"
                )))
            }
        };
        if distinct && !matches!(func, WinFunc::Agg(_)) {
            return Err(Error::parse(&format!("DISTINCT in {upper}"), 1));
        }
        let is_star = matches!(
            args.as_slice(),
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)]
        );
        let func = match func {
            WinFunc::Agg(AggFunc::Count) if is_star => WinFunc::Agg(AggFunc::CountStar),
            f => f,
        };
        let (min, max) = arg_counts(func);
        let nargs = if is_star { 1 } else { args.len() };
        if is_star && func != WinFunc::Agg(AggFunc::CountStar) || nargs < min || nargs > max {
            return Err(Error::parse(&format!("{}) {over}", f.args), 1));
        }
        // The specification, its referenced window merged in.
        let spec = match over {
            ast::WindowType::NamedWindow(name) => {
                let ctx = self.windows.as_ref().expect("checked");
                ctx.find(&name.value)?
            }
            ast::WindowType::WindowSpec(s) => {
                let ctx = self.windows.as_ref().expect("checked");
                let mut out = Named {
                    partition: s.partition_by.clone(),
                    order: s.order_by.clone(),
                    frame: s.window_frame.clone(),
                };
                if let Some(base) = &s.window_name {
                    let b = ctx.find(&base.value)?;
                    merge(&mut out, b, &base.value)?;
                }
                out
            }
        };
        let lower = upper.to_ascii_lowercase();
        if spec.frame.is_some() && no_frame_allowed(func) {
            return Err(err(
                ErrorCode::NotAllowedWindowFrame,
                format!("Window frame is not allowed with '{lower}'"),
            ));
        }
        if spec.order.is_empty() && needs_order(func) {
            return Err(err(
                ErrorCode::NoOrderListInWindowSpec,
                format!("No order list in window specification for '{lower}'"),
            ));
        }
        // Arguments and specification: aggregates allowed, windows not.
        self.windows.as_mut().expect("checked").nested = Some(match func {
            WinFunc::Agg(_) => Nested::AggArg,
            _ => Nested::Spec,
        });
        let r = self.bind_window_parts(func, &args, is_star, &spec);
        self.windows.as_mut().expect("checked").nested = None;
        let (bound_args, arg_ty, partition, order, frame) = r?;
        let ty = result_type(func, &arg_ty);
        let sort_key = format!("{partition:?}|{order:?}");
        let ctx = self.windows.as_mut().expect("checked");
        let idx = ctx.specs.len();
        ctx.specs.push(WinSpec {
            func,
            args: bound_args,
            arg_ty,
            ty: ty.clone(),
            partition,
            order,
            frame,
            sort_key,
        });
        Ok((Expr::Agg(SLOT_BASE + idx), ty))
    }

    #[allow(clippy::type_complexity)]
    fn bind_window_parts(
        &mut self,
        func: WinFunc,
        args: &[&ast::FunctionArg],
        is_star: bool,
        spec: &Named,
    ) -> Result<(
        Vec<Expr>,
        SqlType,
        Vec<(Expr, Collation)>,
        Vec<WinOrder>,
        Frame,
    )> {
        let mut bound = Vec::new();
        let mut arg_ty = SqlType::null();
        if !is_star {
            for (i, a) in args.iter().enumerate() {
                // MariaDB reads window inputs back from a temporary table: a quotient at its
                // type's scale (a constant is not stored there: every digit).
                let (x, t) = self.bind(function_arg_expr(a)?)?;
                let x = if x.is_constant() {
                    x
                } else {
                    super::shown(x, &t)
                };
                if i == 0 {
                    arg_ty = t;
                }
                bound.push(x);
            }
        }
        let key_coll = |t: &SqlType| {
            if t.class == Class::Str {
                t.collation
            } else {
                Collation::Binary
            }
        };
        // MariaDB names PARTITION BY 'GROUP BY' and ORDER BY 'ORDER BY' in a 1054.
        let saved = self.clause;
        self.clause = "group statement";
        let mut partition = Vec::new();
        for p in &spec.partition {
            let (x, t) = self
                .bind_window_key(p)
                .inspect_err(|_| self.clause = saved)?;
            partition.push((super::shown(x, &t), key_coll(&t)));
        }
        self.clause = "order clause";
        let mut order = Vec::new();
        let mut order_types = Vec::new();
        for o in &spec.order {
            // An ENUM / SET orders by its number, as in a query's ORDER BY.
            let key = self
                .bind_window_key(&o.expr)
                .inspect_err(|_| self.clause = saved)?;
            let (x, t) = super::enum_as_number(key);
            order.push(WinOrder {
                expr: super::shown(x, &t),
                desc: matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
                coll: key_coll(&t),
            });
            order_types.push(t);
        }
        self.clause = saved;
        let frame = match &spec.frame {
            None => Frame {
                units: Units::Range,
                start: Bound::UnboundedPreceding,
                end: Bound::CurrentRow,
            },
            Some(f) => bind_frame(f, &order_types)?,
        };
        let _ = func;
        Ok((bound, arg_ty, partition, order, frame))
    }
}

impl Binder<'_> {
    /// The WINDOW clause, checked and bound as MariaDB does once the select list, WHERE,
    /// GROUP BY and ORDER BY are bound, even for windows no function uses. Each definition in
    /// turn: its name unique among the earlier ones (4010), the window it references one of
    /// the earlier ones (4009, 4011 / 4012 / 4013), its PARTITION BY and ORDER BY bound (1054;
    /// an aggregate there makes the query grouped, as in MariaDB), its frame checked (4014,
    /// 4019 / 4020 / 4021). Nothing to do without a WINDOW clause.
    pub(crate) fn bind_named_windows(&mut self) -> Result<()> {
        let defs = match &self.windows {
            Some(ctx) if !ctx.defs.is_empty() => ctx.defs.clone(),
            _ => return Ok(()),
        };
        for (i, ast::NamedWindowDefinition(name, expr)) in defs.iter().enumerate() {
            let earlier = &defs[..i];
            if earlier
                .iter()
                .any(|d| d.0.value.eq_ignore_ascii_case(&name.value))
            {
                return Err(err(
                    ErrorCode::DupWindowName,
                    format!(
                        "Multiple window specifications with the same name '{}'",
                        name.value
                    ),
                ));
            }
            let spec = match expr {
                ast::NamedWindowExpr::WindowSpec(s) => s,
                ast::NamedWindowExpr::NamedWindow(_) => {
                    return Err(Error::parse(&expr.to_string(), 1))
                }
            };
            let named = resolve(earlier, spec, 0)?;
            self.windows.as_mut().expect("checked").nested = Some(Nested::Spec);
            let r = self.bind_window_parts(WinFunc::RowNumber, &[], true, &named);
            self.windows.as_mut().expect("checked").nested = None;
            r?;
        }
        Ok(())
    }

    /// A PARTITION BY / ORDER BY key of a window. A bare name of a select-list alias is the
    /// aliased expression; a window function there is 4016.
    fn bind_window_key(&mut self, e: &ast::Expr) -> Result<(Expr, SqlType)> {
        let aliased = match (e, &self.windows) {
            (ast::Expr::Identifier(id), Some(ctx)) => ctx
                .aliases
                .iter()
                .find(|(a, _)| a.eq_ignore_ascii_case(&id.value))
                .map(|(_, x)| x.clone()),
            _ => None,
        };
        let Some(x) = aliased else {
            return self.bind(e);
        };
        self.bind(&x).map_err(|e| {
            if e.code() == ErrorCode::WrongPlacementOfWindowFunction {
                err(
                    ErrorCode::WindowFunctionInWindowSpec,
                    "Window function is not allowed in window specification",
                )
            } else {
                e
            }
        })
    }
}

fn bind_frame(f: &ast::WindowFrame, order_types: &[SqlType]) -> Result<Frame> {
    let units = match f.units {
        ast::WindowFrameUnits::Rows => Units::Rows,
        ast::WindowFrameUnits::Range => Units::Range,
        ast::WindowFrameUnits::Groups => return Err(Error::parse("groups", 1)),
    };
    let end_ast = f
        .end_bound
        .clone()
        .unwrap_or(ast::WindowFrameBound::CurrentRow);
    use ast::WindowFrameBound as B;
    let bad = || {
        err(
            ErrorCode::BadCombinationOfWindowFrameBoundSpecs,
            "Unacceptable combination of window frame bound specifications",
        )
    };
    match (&f.start_bound, &end_ast) {
        (B::Following(None), _) | (_, B::Preceding(None)) => return Err(bad()),
        (B::CurrentRow, B::Preceding(Some(_))) => return Err(bad()),
        (B::Following(Some(_)), B::CurrentRow) => return Err(bad()),
        _ => {}
    }
    let has_offset = matches!(
        &f.start_bound,
        B::Preceding(Some(_)) | B::Following(Some(_))
    ) || matches!(&end_ast, B::Preceding(Some(_)) | B::Following(Some(_)));
    if units == Units::Range && has_offset {
        if order_types.len() != 1 {
            return Err(err(
                ErrorCode::RangeFrameNeedsSimpleOrderby,
                "RANGE-type frame requires ORDER BY clause with single sort key",
            ));
        }
        if !matches!(
            order_types[0].class,
            Class::Int | Class::Decimal | Class::Double
        ) {
            return Err(range_type());
        }
    }
    Ok(Frame {
        units,
        start: bound(&f.start_bound, units)?,
        end: bound(&end_ast, units)?,
    })
}

fn range_type() -> Error {
    err(
        ErrorCode::WrongTypeForRangeFrame,
        "Numeric datatype is required for RANGE-type frame",
    )
}

fn bound(b: &ast::WindowFrameBound, units: Units) -> Result<Bound> {
    use ast::WindowFrameBound as B;
    Ok(match b {
        B::CurrentRow => Bound::CurrentRow,
        B::Preceding(None) => Bound::UnboundedPreceding,
        B::Following(None) => Bound::UnboundedFollowing,
        B::Preceding(Some(e)) => Bound::Preceding(offset(e, units)?),
        B::Following(Some(e)) => Bound::Following(offset(e, units)?),
    })
}

/// A frame offset: a non-negative number literal (anything else is a syntax error in
/// MariaDB); an integer for ROWS (4020).
fn offset(e: &ast::Expr, units: Units) -> Result<Value> {
    let text = match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => n.clone(),
            ast::Value::SingleQuotedString(_) | ast::Value::DoubleQuotedString(_)
                if units == Units::Range =>
            {
                return Err(range_type())
            }
            ast::Value::SingleQuotedString(_) | ast::Value::DoubleQuotedString(_) => {
                return Err(err(
                    ErrorCode::WrongTypeForRowsFrame,
                    "Integer is required for ROWS-type frame",
                ))
            }
            _ => return Err(Error::parse(&e.to_string(), 1)),
        },
        _ => return Err(Error::parse(&e.to_string(), 1)),
    };
    let (v, _) = super::number_literal(&text)?;
    if units == Units::Rows && !matches!(v, Value::Int(_) | Value::UInt(_)) {
        return Err(err(
            ErrorCode::WrongTypeForRowsFrame,
            "Integer is required for ROWS-type frame",
        ));
    }
    Ok(v)
}

/// Give the window functions their final slots: after the `aggs` aggregates of the query.
pub fn renumber(e: &mut Expr, aggs: usize) {
    e.walk_mut(&mut |x| {
        if let Expr::Agg(i) = x {
            if *i >= SLOT_BASE {
                *i = *i - SLOT_BASE + aggs;
            }
        }
    });
}

/// Does the expression contain a window function (before [`renumber`])?
pub fn has_window(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(x, Expr::Agg(i) if *i >= SLOT_BASE) {
            found = true;
        }
    });
    found
}
