//! The queries the tester generates, as trees: expressions ([`Expr`]), SELECT blocks
//! ([`Select`]) and whole statements ([`Query`]: set operations and CTEs around SELECTs).
//!
//! Trees, not strings, so that the shrinker can cut a differing query down node by node
//! ([`Expr::shrinks`], [`crate::shrink`]). Rendering fully parenthesizes operators: the
//! comparison is about meaning, and the minimized query should read unambiguously.

use std::fmt::{self, Display, Formatter};

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// `qual.name`
    Col { qual: String, name: String },
    /// A literal, as SQL text.
    Lit(String),
    /// `(a op b)`
    Bin(&'static str, Box<Expr>, Box<Expr>),
    /// `(op a)`: NOT, -, ~
    Un(&'static str, Box<Expr>),
    /// `(a op)`: IS NULL, IS NOT NULL, IS TRUE, …
    Post(Box<Expr>, &'static str),
    /// `NAME(args)`
    Func(&'static str, Vec<Expr>),
    /// `CAST(a AS type)`
    Cast(Box<Expr>, &'static str),
    /// `(a [NOT] BETWEEN lo AND hi)`
    Between(Box<Expr>, Box<Expr>, Box<Expr>, bool),
    /// `(a [NOT] IN (list))`
    InList(Box<Expr>, Vec<Expr>, bool),
    /// `(a [NOT] LIKE pattern)`
    Like(Box<Expr>, Box<Expr>, bool),
    /// `CASE [operand] WHEN … THEN … [ELSE …] END`
    Case(Option<Box<Expr>>, Vec<(Expr, Expr)>, Option<Box<Expr>>),
    /// An aggregate: `NAME([DISTINCT] arg [ORDER BY …])`; `arg` None is `COUNT(*)`.
    Agg {
        name: &'static str,
        distinct: bool,
        arg: Option<Box<Expr>>,
        /// `ORDER BY arg` inside (GROUP_CONCAT).
        ordered: bool,
    },
    /// A window function: `NAME(args) OVER (PARTITION BY … ORDER BY … frame)`.
    Window {
        name: &'static str,
        args: Vec<Expr>,
        partition: Vec<Expr>,
        order: Vec<Expr>,
        frame: Option<&'static str>,
    },
    /// A subquery of some kind.
    Sub(SubKind, Box<Select>),
    /// `RTRIM(UPPER(a))`: a canonical form of a string under both collations (the tester's
    /// alphabet has no two letters equal under utf8mb4_general_ci other than case variants),
    /// used where the server may pick any of several equal values (group keys, DISTINCT, MIN,
    /// MAX, UNION): equal values then have equal bytes. The shrinker never removes it.
    Canon(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum SubKind {
    /// `(SELECT …)` as a value.
    Scalar,
    /// `[NOT] EXISTS (SELECT …)`
    Exists(bool),
    /// `lhs [NOT] IN (SELECT …)`
    In(Box<Expr>, bool),
    /// `lhs op ANY|ALL (SELECT …)`
    Quant(Box<Expr>, &'static str, &'static str),
}

impl Expr {
    pub fn col(qual: &str, name: &str) -> Expr {
        Expr::Col {
            qual: qual.to_string(),
            name: name.to_string(),
        }
    }

    pub fn lit(s: impl Into<String>) -> Expr {
        Expr::Lit(s.into())
    }

    pub fn func(name: &'static str, args: Vec<Expr>) -> Expr {
        Expr::Func(name, args)
    }

    pub fn bin(op: &'static str, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    /// Whether an aggregate occurs outside any subquery.
    pub fn has_agg(&self) -> bool {
        match self {
            Expr::Agg { .. } => true,
            Expr::Sub(..) | Expr::Window { .. } => false,
            _ => self.children().iter().any(|c| c.has_agg()),
        }
    }

    /// The direct sub-expressions (not those inside a subquery's SELECT).
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Col { .. } | Expr::Lit(_) => vec![],
            Expr::Bin(_, a, b) | Expr::Like(a, b, _) => vec![a, b],
            Expr::Un(_, a) | Expr::Post(a, _) | Expr::Cast(a, _) | Expr::Canon(a) => vec![a],
            Expr::Func(_, args) => args.iter().collect(),
            Expr::Between(a, b, c, _) => vec![a, b, c],
            Expr::InList(a, l, _) => std::iter::once(&**a).chain(l.iter()).collect(),
            Expr::Case(op, whens, els) => {
                let mut v: Vec<&Expr> = op.iter().map(|b| &**b).collect();
                for (w, t) in whens {
                    v.push(w);
                    v.push(t);
                }
                v.extend(els.iter().map(|b| &**b));
                v
            }
            Expr::Agg { arg, .. } => arg.iter().map(|b| &**b).collect(),
            Expr::Window {
                args,
                partition,
                order,
                ..
            } => args
                .iter()
                .chain(partition.iter())
                .chain(order.iter())
                .collect(),
            Expr::Sub(kind, _) => match kind {
                SubKind::In(l, _) | SubKind::Quant(l, _, _) => vec![l],
                _ => vec![],
            },
        }
    }

    fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Col { .. } | Expr::Lit(_) => vec![],
            Expr::Bin(_, a, b) | Expr::Like(a, b, _) => vec![a, b],
            Expr::Un(_, a) | Expr::Post(a, _) | Expr::Cast(a, _) | Expr::Canon(a) => vec![a],
            Expr::Func(_, args) => args.iter_mut().collect(),
            Expr::Between(a, b, c, _) => vec![a, b, c],
            Expr::InList(a, l, _) => std::iter::once(&mut **a).chain(l.iter_mut()).collect(),
            Expr::Case(op, whens, els) => {
                let mut v: Vec<&mut Expr> = op.iter_mut().map(|b| &mut **b).collect();
                for (w, t) in whens {
                    v.push(w);
                    v.push(t);
                }
                v.extend(els.iter_mut().map(|b| &mut **b));
                v
            }
            Expr::Agg { arg, .. } => arg.iter_mut().map(|b| &mut **b).collect(),
            Expr::Window {
                args,
                partition,
                order,
                ..
            } => args
                .iter_mut()
                .chain(partition.iter_mut())
                .chain(order.iter_mut())
                .collect(),
            Expr::Sub(kind, _) => match kind {
                SubKind::In(l, _) | SubKind::Quant(l, _, _) => vec![l],
                _ => vec![],
            },
        }
    }

    /// Smaller variants of this expression, simplest first: a child in its place, a constant,
    /// a list with one item fewer, and the same at every level below.
    pub fn shrinks(&self) -> Vec<Expr> {
        let mut out = Vec::new();
        if let Expr::Window { .. } = self {
            // A window's PARTITION BY / ORDER BY make its answer deterministic: keep it whole.
            return vec![Expr::lit("NULL"), Expr::lit("1")];
        }
        if matches!(self, Expr::Agg { .. } | Expr::Canon(_)) {
            // An aggregate's argument outside the aggregate changes what the query means
            // (grouped or not), and a canonical form must stay one: only shrink inside.
        } else {
            out.extend(self.children().into_iter().cloned());
        }
        if !matches!(self, Expr::Lit(_)) {
            out.push(Expr::lit("NULL"));
            out.push(Expr::lit("1"));
        }
        match self {
            Expr::Func(name, args) if args.len() > 2 && VARIADIC.contains(name) => {
                for i in 0..args.len() {
                    let mut a = args.clone();
                    a.remove(i);
                    out.push(Expr::Func(name, a));
                }
            }
            Expr::InList(x, l, not) if l.len() > 1 => {
                for i in 0..l.len() {
                    let mut a = l.clone();
                    a.remove(i);
                    out.push(Expr::InList(x.clone(), a, *not));
                }
            }
            Expr::Case(op, whens, els) => {
                if whens.len() > 1 {
                    for i in 0..whens.len() {
                        let mut w = whens.clone();
                        w.remove(i);
                        out.push(Expr::Case(op.clone(), w, els.clone()));
                    }
                }
                if els.is_some() {
                    out.push(Expr::Case(op.clone(), whens.clone(), None));
                }
            }
            Expr::Sub(kind, sel) => {
                for s in sel.shrinks() {
                    out.push(Expr::Sub(kind.clone(), Box::new(s)));
                }
            }
            _ => {}
        }
        let n = self.children().len();
        for i in 0..n {
            let child = self.children()[i].clone();
            for c in child.shrinks() {
                let mut e = self.clone();
                *e.children_mut()[i] = c;
                out.push(e);
            }
        }
        out
    }

    /// Number of nodes (the shrinker's measure of size).
    pub fn size(&self) -> usize {
        let sub = match self {
            Expr::Sub(_, s) => s.size(),
            _ => 0,
        };
        1 + sub + self.children().iter().map(|c| c.size()).sum::<usize>()
    }
}

/// Functions that take any number of arguments (the shrinker may drop one).
const VARIADIC: [&str; 7] = [
    "COALESCE",
    "CONCAT",
    "CONCAT_WS",
    "GREATEST",
    "LEAST",
    "FIELD",
    "ELT",
];

fn list<T: Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Col { qual, name } => write!(f, "{qual}.{name}"),
            Expr::Lit(s) => f.write_str(s),
            Expr::Bin(op, a, b) => write!(f, "({a} {op} {b})"),
            Expr::Un(op, a) => write!(f, "({op} {a})"),
            Expr::Post(a, op) => write!(f, "({a} {op})"),
            Expr::Func(name, args) => write!(f, "{name}({})", list(args)),
            Expr::Cast(a, ty) => write!(f, "CAST({a} AS {ty})"),
            Expr::Between(a, lo, hi, not) => {
                write!(
                    f,
                    "({a} {}BETWEEN {lo} AND {hi})",
                    if *not { "NOT " } else { "" }
                )
            }
            Expr::InList(a, l, not) => write!(
                f,
                "({a} {}IN ({}))",
                if *not { "NOT " } else { "" },
                list(l)
            ),
            Expr::Like(a, p, not) => write!(f, "({a} {}LIKE {p})", if *not { "NOT " } else { "" }),
            Expr::Case(op, whens, els) => {
                f.write_str("CASE")?;
                if let Some(op) = op {
                    write!(f, " {op}")?;
                }
                for (w, t) in whens {
                    write!(f, " WHEN {w} THEN {t}")?;
                }
                if let Some(e) = els {
                    write!(f, " ELSE {e}")?;
                }
                f.write_str(" END")
            }
            Expr::Agg {
                name,
                distinct,
                arg,
                ordered,
            } => {
                write!(f, "{name}(")?;
                if *distinct {
                    f.write_str("DISTINCT ")?;
                }
                match arg {
                    Some(a) => write!(f, "{a}")?,
                    None => f.write_str("*")?,
                }
                if let (true, Some(a)) = (ordered, arg) {
                    write!(f, " ORDER BY {a}")?;
                }
                f.write_str(")")
            }
            Expr::Canon(a) => write!(f, "RTRIM(UPPER({a}))"),
            Expr::Window {
                name,
                args,
                partition,
                order,
                frame,
            } => {
                write!(f, "{name}({}) OVER (", list(args))?;
                let mut sep = "";
                if !partition.is_empty() {
                    write!(f, "PARTITION BY {}", list(partition))?;
                    sep = " ";
                }
                if !order.is_empty() {
                    write!(f, "{sep}ORDER BY {}", list(order))?;
                }
                if let Some(fr) = frame {
                    write!(f, " {fr}")?;
                }
                f.write_str(")")
            }
            Expr::Sub(kind, sel) => match kind {
                SubKind::Scalar => write!(f, "({sel})"),
                SubKind::Exists(not) => {
                    write!(f, "({}EXISTS ({sel}))", if *not { "NOT " } else { "" })
                }
                SubKind::In(l, not) => {
                    write!(f, "({l} {}IN ({sel}))", if *not { "NOT " } else { "" })
                }
                SubKind::Quant(l, op, q) => write!(f, "({l} {op} {q} ({sel}))"),
            },
        }
    }
}

/// One ORDER BY item.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderItem {
    pub expr: Expr,
    pub desc: bool,
}

impl Display for OrderItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.expr, if self.desc { " DESC" } else { "" })
    }
}

/// A table in FROM: a base table or a derived table, with its alias.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Table { name: String, alias: String },
    Derived { select: Box<Select>, alias: String },
    Cte { name: String, alias: String },
}

impl Display for Source {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Source::Table { name, alias } | Source::Cte { name, alias } if name == alias => {
                f.write_str(name)
            }
            Source::Table { name, alias } | Source::Cte { name, alias } => {
                write!(f, "{name} AS {alias}")
            }
            Source::Derived { select, alias } => write!(f, "({select}) AS {alias}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Cross,
    Comma,
    Straight,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Join {
    pub kind: JoinKind,
    pub source: Source,
    pub on: Option<Expr>,
}

/// A SELECT block.
#[derive(Clone, Debug, PartialEq)]
pub struct Select {
    pub distinct: bool,
    pub items: Vec<Expr>,
    pub from: Source,
    pub joins: Vec<Join>,
    pub where_: Option<Expr>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
    pub order_by: Vec<OrderItem>,
    /// (count, offset)
    pub limit: Option<(u64, Option<u64>)>,
    /// Whether ORDER BY fixes the order of the rows completely (set by the generator from what
    /// it knows of keys; the shrinker recomputes it through [`crate::gen::total_order`]).
    pub total_order: bool,
}

impl Select {
    pub fn is_grouped(&self) -> bool {
        !self.group_by.is_empty() || self.having.is_some() || self.items.iter().any(Expr::has_agg)
    }

    pub fn size(&self) -> usize {
        let e = |x: &Option<Expr>| x.as_ref().map_or(0, Expr::size);
        self.items.iter().map(Expr::size).sum::<usize>()
            + e(&self.where_)
            + e(&self.having)
            + self.group_by.iter().map(Expr::size).sum::<usize>()
            + self.order_by.iter().map(|o| o.expr.size()).sum::<usize>()
            + self
                .joins
                .iter()
                .map(|j| 3 + j.on.as_ref().map_or(0, Expr::size))
                .sum::<usize>()
            + usize::from(self.limit.is_some())
            + usize::from(self.distinct)
    }

    /// Smaller variants of a subquery's SELECT (used inside expressions; the outer query's
    /// clause-level shrinking is in [`crate::shrink`]).
    pub fn shrinks(&self) -> Vec<Select> {
        let mut out = Vec::new();
        if let Some(w) = &self.where_ {
            let mut s = self.clone();
            s.where_ = None;
            out.push(s);
            for c in w.shrinks() {
                let mut s = self.clone();
                s.where_ = Some(c);
                out.push(s);
            }
        }
        out
    }
}

impl Display for Select {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("SELECT ")?;
        if self.distinct {
            f.write_str("DISTINCT ")?;
        }
        let items: Vec<String> = self
            .items
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{e} AS r{i}"))
            .collect();
        write!(f, "{} FROM {}", items.join(", "), self.from)?;
        for j in &self.joins {
            let kw = match j.kind {
                JoinKind::Inner => " JOIN ",
                JoinKind::Left => " LEFT JOIN ",
                JoinKind::Right => " RIGHT JOIN ",
                JoinKind::Cross => " CROSS JOIN ",
                JoinKind::Comma => ", ",
                JoinKind::Straight => " STRAIGHT_JOIN ",
            };
            write!(f, "{kw}{}", j.source)?;
            if let Some(on) = &j.on {
                write!(f, " ON {on}")?;
            }
        }
        if let Some(w) = &self.where_ {
            write!(f, " WHERE {w}")?;
        }
        if !self.group_by.is_empty() {
            write!(f, " GROUP BY {}", list(&self.group_by))?;
        }
        if let Some(h) = &self.having {
            write!(f, " HAVING {h}")?;
        }
        if !self.order_by.is_empty() {
            write!(f, " ORDER BY {}", list(&self.order_by))?;
        }
        if let Some((n, off)) = self.limit {
            write!(f, " LIMIT {n}")?;
            if let Some(o) = off {
                write!(f, " OFFSET {o}")?;
            }
        }
        Ok(())
    }
}

/// A whole statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// `WITH [RECURSIVE] name AS (…), …`: (name, column names, body text). A CTE's body is a
    /// generated SELECT, or a recursive counter written out in full.
    pub ctes: Vec<Cte>,
    pub body: Body,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cte {
    pub name: String,
    pub cols: Vec<String>,
    pub body: CteBody,
}

// One per generated statement: the size of a variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum CteBody {
    Select(Select),
    /// `SELECT start UNION ALL SELECT n + 1 FROM name WHERE n < end`
    Counter {
        start: i64,
        end: i64,
    },
}

#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Select(Select),
    /// `left op right [ORDER BY positions] [LIMIT n]`
    SetOp {
        op: &'static str,
        left: Select,
        right: Select,
        order_by: Vec<OrderItem>,
        limit: Option<u64>,
        total_order: bool,
    },
}

impl Query {
    /// Whether the result must be compared in order.
    pub fn ordered(&self) -> bool {
        match &self.body {
            Body::Select(s) => s.total_order && !s.order_by.is_empty(),
            Body::SetOp {
                total_order,
                order_by,
                ..
            } => *total_order && !order_by.is_empty(),
        }
    }
}

impl Display for Query {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if !self.ctes.is_empty() {
            let recursive = self
                .ctes
                .iter()
                .any(|c| matches!(c.body, CteBody::Counter { .. }));
            f.write_str(if recursive {
                "WITH RECURSIVE "
            } else {
                "WITH "
            })?;
            for (i, c) in self.ctes.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{}({}) AS (", c.name, c.cols.join(", "))?;
                match &c.body {
                    CteBody::Select(s) => write!(f, "{s}")?,
                    CteBody::Counter { start, end } => write!(
                        f,
                        "SELECT {start} UNION ALL SELECT {n} + 1 FROM {name} WHERE {n} < {end}",
                        n = c.cols[0],
                        name = c.name
                    )?,
                }
                f.write_str(")")?;
            }
            f.write_str(" ")?;
        }
        match &self.body {
            Body::Select(s) => write!(f, "{s}"),
            Body::SetOp {
                op,
                left,
                right,
                order_by,
                limit,
                ..
            } => {
                write!(f, "({left}) {op} ({right})")?;
                if !order_by.is_empty() {
                    write!(f, " ORDER BY {}", list(order_by))?;
                }
                if let Some(n) = limit {
                    write!(f, " LIMIT {n}")?;
                }
                Ok(())
            }
        }
    }
}
