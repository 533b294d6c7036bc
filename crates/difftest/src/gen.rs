//! Random queries over a [`Schema`], by feature level ([`Features`]).
//!
//! The generator only produces queries whose answer is fully determined by the data, so that
//! any difference between the servers is a bug of one of them:
//! * group keys, DISTINCT items, MIN / MAX and GROUP_CONCAT of strings go through
//!   [`Expr::Canon`], so a server's free choice between equal strings ('a' / 'A ') cannot show;
//! * a grouped SELECT's items, HAVING and ORDER BY use only group keys, aggregates and
//!   constants (MariaDB's default sql_mode would accept any column, with an arbitrary value);
//! * LIMIT is only generated where ORDER BY fixes the order completely (it ends with a unique
//!   key of every table, with every group key, or with every DISTINCT / set-operation column);
//!   such queries are compared in order, all others as multisets;
//! * window functions whose answer depends on the order of peers get a total window order;
//! * no non-deterministic function (RAND, NOW, …).

use crate::ast::{
    Body, Cte, CteBody, Expr, Join, JoinKind, OrderItem, Query, Select, Source, SubKind,
};
use crate::rng::Rng;
use crate::schema::{Kind, Schema};

mod types;
mod wide;

/// Query feature levels (`--features`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Features {
    pub join: bool,
    pub subquery: bool,
    pub setop: bool,
    pub cte: bool,
    pub window: bool,
    /// More scalar functions, casts, collations and cross-kind comparisons ([`wide`]).
    pub wide: bool,
    /// Arithmetic over unsigned operands and over branch functions mixing signedness and
    /// kinds, HEX and CONCAT of them ([`types`]).
    pub types: bool,
}

impl Features {
    /// `base` (single-table SELECT: what Cohort has today), or a comma list of `join`,
    /// `subquery`, `setop`, `cte`, `window`, or `all`.
    pub fn parse(s: &str) -> Result<Features, String> {
        let mut f = Features::default();
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match w {
                "base" | "default" => {}
                "join" => f.join = true,
                "subquery" => f.subquery = true,
                "setop" => f.setop = true,
                "cte" => f.cte = true,
                "window" => f.window = true,
                "wide" => f.wide = true,
                "types" => f.types = true,
                "all" => {
                    f = Features {
                        join: true,
                        subquery: true,
                        setop: true,
                        cte: true,
                        window: true,
                        wide: f.wide,
                        types: f.types,
                    }
                }
                _ => {
                    return Err(format!(
                    "unknown feature {w:?} (base, join, subquery, setop, cte, window, wide, types, all)"
                ))
                }
            }
        }
        Ok(f)
    }

    pub fn describe(&self) -> String {
        let mut v = vec!["base"];
        for (on, name) in [
            (self.join, "join"),
            (self.subquery, "subquery"),
            (self.setop, "setop"),
            (self.cte, "cte"),
            (self.window, "window"),
            (self.wide, "wide"),
            (self.types, "types"),
        ] {
            if on {
                v.push(name);
            }
        }
        v.join(",")
    }
}

/// A column visible in a SELECT: `qual.name`, with what the generator knows of it.
#[derive(Clone, Debug)]
struct ColRef {
    qual: String,
    name: String,
    kind: Kind,
    pool: Vec<String>,
    /// An INT … BIGINT UNSIGNED column of a table (feature `types` aims arithmetic at them).
    unsigned: bool,
}

impl ColRef {
    fn expr(&self) -> Expr {
        Expr::col(&self.qual, &self.name)
    }
}

/// What the expressions of one SELECT may refer to.
#[derive(Clone, Debug, Default)]
struct Scope {
    cols: Vec<ColRef>,
    /// Columns of an enclosing SELECT (correlated subqueries).
    outer: Vec<ColRef>,
    /// Some unique key over all sources (every table's primary key), if there is one.
    unique: Option<Vec<Expr>>,
    /// In a grouped SELECT: the group keys and their kinds.
    keys: Option<Vec<(Expr, Kind)>>,
    /// Inside an aggregate's argument: an outer column there would make the aggregate one of
    /// the enclosing query (MariaDB aggregates it there when it refers only to outer columns),
    /// turning that query into an implicit GROUP BY whose bare columns are any row's: undefined.
    in_agg: bool,
    /// This FROM, or an enclosing one, has an outer join: no FIELD, which MariaDB 10.11 takes
    /// for null-rejecting when it simplifies the join (an oracle bug; see the README).
    outer_join: bool,
}

const KINDS: [Kind; 8] = [
    Kind::Int,
    Kind::Decimal,
    Kind::Float,
    Kind::Str { ci: true },
    Kind::Str { ci: false },
    Kind::Bin,
    Kind::Date,
    Kind::DateTime,
];
const KIND_WEIGHTS: [u32; 8] = [30, 14, 8, 18, 6, 5, 10, 9];

pub struct Gen<'a> {
    rng: &'a mut Rng,
    schema: &'a Schema,
    features: Features,
    /// Counter for aliases of derived tables and sources.
    next_alias: u32,
    /// CTEs defined so far (name, columns with kinds).
    ctes: Vec<(String, Vec<(String, Kind)>)>,
}

impl<'a> Gen<'a> {
    pub fn new(rng: &'a mut Rng, schema: &'a Schema, features: Features) -> Gen<'a> {
        Gen {
            rng,
            schema,
            features,
            next_alias: 0,
            ctes: Vec::new(),
        }
    }

    /// One statement.
    pub fn query(&mut self) -> Query {
        let mut ctes = Vec::new();
        if self.features.cte && self.rng.chance(1, 4) {
            ctes = self.ctes();
        }
        let body = if self.features.setop && self.rng.chance(1, 5) {
            self.setop()
        } else {
            Body::Select(self.select(&[], 2))
        };
        Query { ctes, body }
    }

    fn kind(&mut self) -> Kind {
        KINDS[self.rng.weighted(&KIND_WEIGHTS)]
    }

    fn alias(&mut self, prefix: &str) -> String {
        self.next_alias += 1;
        format!("{prefix}{}", self.next_alias)
    }

    // ---- FROM ---------------------------------------------------------------------------------

    /// A source and the columns it makes visible; its unique key, if it has one.
    /// `first`: the first source of a FROM, the only one that may go by its table's name (a
    /// joined table always gets a fresh alias, so a self join never repeats a name: 1066).
    fn source(&mut self, nested: u32, first: bool) -> (Source, Vec<ColRef>, Option<Vec<Expr>>) {
        if !self.ctes.is_empty() && self.rng.chance(1, 3) {
            let (name, cols) = self.rng.pick(&self.ctes).clone();
            let alias = self.alias("c");
            let refs = cols
                .iter()
                .map(|(n, k)| ColRef {
                    qual: alias.clone(),
                    name: n.clone(),
                    kind: *k,
                    pool: vec![],
                    unsigned: false,
                })
                .collect();
            return (Source::Cte { name, alias }, refs, None);
        }
        if self.features.subquery && nested > 0 && self.rng.chance(1, 6) {
            let alias = self.alias("d");
            let (inner, kinds) = self.simple_select(nested - 1);
            let refs = kinds
                .iter()
                .enumerate()
                .map(|(i, &kind)| ColRef {
                    qual: alias.clone(),
                    name: format!("r{i}"),
                    kind,
                    pool: vec![],
                    unsigned: false,
                })
                .collect();
            return (
                Source::Derived {
                    select: Box::new(inner),
                    alias,
                },
                refs,
                None,
            );
        }
        let t = self.rng.pick(&self.schema.tables);
        let alias = if first && self.rng.chance(1, 2) {
            t.name.clone()
        } else {
            self.alias("a")
        };
        let refs: Vec<ColRef> = t
            .cols
            .iter()
            .map(|c| ColRef {
                qual: alias.clone(),
                name: c.name.clone(),
                kind: c.kind(),
                pool: c.pool.clone(),
                unsigned: matches!(c.ty, crate::schema::ColType::Int { unsigned: true, .. }),
            })
            .collect();
        let unique = if t.pk.is_empty() {
            None
        } else {
            Some(t.pk.iter().map(|&i| refs[i].expr()).collect())
        };
        (
            Source::Table {
                name: t.name.clone(),
                alias,
            },
            refs,
            unique,
        )
    }

    /// FROM and its joins; the scope they make.
    fn from(&mut self, outer: &[ColRef], nested: u32) -> (Source, Vec<Join>, Scope) {
        let (first, cols, unique) = self.source(nested, true);
        let mut scope = Scope {
            cols,
            outer: outer.to_vec(),
            unique,
            keys: None,
            in_agg: false,
            outer_join: false,
        };
        let mut joins = Vec::new();
        let mut merged = matches!(first, Source::Derived { .. } | Source::Cte { .. });
        if self.features.join && self.rng.chance(2, 3) {
            let n = self.rng.range(1, 5);
            for i in 0..n {
                let (src, cols, unique) = self.source(nested, false);
                let kind = match self.rng.below(10) {
                    0..=3 => JoinKind::Inner,
                    4 | 5 => JoinKind::Left,
                    6 => JoinKind::Right,
                    7 => JoinKind::Cross,
                    // A comma binds looser than JOIN: a later ON could not see the tables
                    // before it (1054), so a comma join comes last.
                    8 if i == n - 1 => JoinKind::Comma,
                    8 => JoinKind::Cross,
                    _ => JoinKind::Straight,
                };
                // A derived table or CTE on the NULL-complemented side of an outer join: MariaDB
                // merges it and does not NULL its constant items there (an oracle bug; see the
                // README), so such a join is an inner one.
                let derived = matches!(src, Source::Derived { .. } | Source::Cte { .. });
                let kind = match kind {
                    JoinKind::Left if derived => JoinKind::Inner,
                    JoinKind::Right if merged => JoinKind::Inner,
                    k => k,
                };
                merged |= derived;
                scope.outer_join |= matches!(kind, JoinKind::Left | JoinKind::Right);
                let on = match kind {
                    JoinKind::Cross | JoinKind::Comma => None,
                    _ => {
                        let mut both = scope.clone();
                        both.cols.extend(cols.iter().cloned());
                        Some(self.join_condition(&scope.cols, &cols, &both))
                    }
                };
                scope.cols.extend(cols);
                scope.unique = match (scope.unique.take(), unique) {
                    (Some(mut a), Some(b)) => {
                        a.extend(b);
                        Some(a)
                    }
                    _ => None,
                };
                joins.push(Join {
                    kind,
                    source: src,
                    on,
                });
            }
        }
        (first, joins, scope)
    }

    /// Mostly an equality between a new column and an earlier one of the same kind.
    fn join_condition(&mut self, left: &[ColRef], right: &[ColRef], both: &Scope) -> Expr {
        let r = self.rng.pick(right).clone();
        let same: Vec<&ColRef> = left.iter().filter(|c| c.kind == r.kind).collect();
        let eq = if !same.is_empty() && self.rng.chance(4, 5) {
            let l = (*self.rng.pick(&same)).clone();
            Expr::bin("=", l.expr(), r.expr())
        } else {
            let l = self.rng.pick(left).clone();
            Expr::bin(self.rng.one(&["=", "<", ">=", "<=>"]), l.expr(), r.expr())
        };
        if self.rng.chance(1, 4) {
            let p = self.pred(both, 1);
            Expr::bin("AND", eq, p)
        } else {
            eq
        }
    }

    // ---- SELECT -------------------------------------------------------------------------------

    /// A SELECT block; `nested` bounds how deep subqueries may go.
    fn select(&mut self, outer: &[ColRef], nested: u32) -> Select {
        let (from, joins, mut scope) = self.from(outer, nested);
        let where_ = self
            .rng
            .chance(4, 5)
            .then(|| self.pred_n(&scope, 3, nested));
        let mut s = Select {
            distinct: false,
            items: Vec::new(),
            from,
            joins,
            where_,
            group_by: Vec::new(),
            having: None,
            order_by: Vec::new(),
            limit: None,
            total_order: false,
        };
        if self.rng.chance(3, 10) {
            self.grouped(&mut s, &mut scope, nested);
        } else {
            self.plain(&mut s, &scope, nested);
        }
        if s.total_order && !s.order_by.is_empty() && self.rng.chance(1, 2) {
            // No OFFSET after DISTINCT: MariaDB 10.11 ignores it when the items are constant
            // (`SELECT DISTINCT NULL FROM t ORDER BY 1 LIMIT 5 OFFSET 1` gives a row), an
            // oracle bug; see the README.
            let off = (!s.distinct && self.rng.chance(1, 3)).then(|| self.rng.below(5));
            s.limit = Some((self.rng.below(8), off));
        }
        s
    }

    fn plain(&mut self, s: &mut Select, scope: &Scope, nested: u32) {
        let n = self.rng.range(1, 4);
        s.distinct = self.rng.chance(1, 7);
        for _ in 0..n {
            let k = self.kind();
            let mut e = self.expr_n(scope, k, 3, nested);
            if s.distinct {
                e = canon(e, k);
            }
            s.items.push(e);
        }
        if self.features.window && !s.distinct && self.rng.chance(1, 3) {
            let w = self.window(scope);
            s.items.push(w);
        }
        if s.distinct {
            // Ordering by every item (by position) is total: the rows are distinct.
            if self.rng.chance(1, 2) {
                s.order_by = (1..=s.items.len())
                    .map(|i| OrderItem {
                        expr: Expr::lit(i.to_string()),
                        desc: self.rng.chance(1, 3),
                    })
                    .collect();
                s.total_order = true;
            }
            return;
        }
        if self.rng.chance(3, 5) {
            for _ in 0..self.rng.below(3) {
                let k = self.kind();
                let e = self.expr(scope, k, 2);
                s.order_by.push(OrderItem {
                    expr: e,
                    desc: self.rng.chance(1, 3),
                });
            }
            if let Some(u) = &scope.unique {
                for k in u {
                    s.order_by.push(OrderItem {
                        expr: k.clone(),
                        desc: self.rng.chance(1, 4),
                    });
                }
                s.total_order = true;
            }
        }
    }

    fn grouped(&mut self, s: &mut Select, scope: &mut Scope, nested: u32) {
        let nkeys = self.rng.below(3);
        let mut keys = Vec::new();
        for _ in 0..nkeys {
            let k = self.kind();
            let e = canon(self.expr(scope, k, 2), k);
            let k = if is_str(k) {
                Kind::Str { ci: false }
            } else {
                k
            };
            keys.push((e, k));
        }
        s.group_by = keys.iter().map(|(e, _)| e.clone()).collect();
        scope.keys = Some(keys.clone());
        for _ in 0..self.rng.range(1, 4) {
            let k = self.kind();
            let e = self.expr_n(scope, k, 2, nested);
            s.items.push(e);
        }
        if !s.items.iter().any(Expr::has_agg) && self.rng.chance(1, 2) {
            let a = self.agg(scope, Kind::Int);
            s.items.push(a);
        }
        if self.rng.chance(1, 3) {
            // MariaDB's HAVING sees group keys only when they are plain columns (a column
            // inside a key expression is 1054 there; Cohort accepts it: see the README).
            scope.keys = Some(having_keys(&keys));
            s.having = Some(self.pred_n(scope, 2, nested));
            scope.keys = Some(keys.clone());
        }
        if self.rng.chance(3, 5) {
            if self.rng.chance(1, 3) {
                let k = self.kind();
                let a = self.agg(scope, k);
                s.order_by.push(OrderItem {
                    expr: a,
                    desc: self.rng.bool(),
                });
            }
            for (e, k) in &keys {
                let desc = self.rng.chance(1, 3);
                // MariaDB 10.11 puts the NULL group of a DECIMAL expression key into its 0 group
                // when it sorts the groups descending (an oracle bug; see the README): ascending.
                let decimal_expr = *k == Kind::Decimal && !matches!(e, Expr::Col { .. });
                s.order_by.push(OrderItem {
                    expr: e.clone(),
                    desc: desc && !decimal_expr,
                });
            }
            s.total_order = true;
        }
        scope.keys = None;
    }

    fn setop(&mut self) -> Body {
        let kinds: Vec<Kind> = (0..self.rng.range(1, 3)).map(|_| self.kind()).collect();
        let mut sides = Vec::new();
        for _ in 0..2 {
            let (from, joins, scope) = self.from(&[], 1);
            let items = kinds
                .iter()
                .map(|&k| canon(self.expr(&scope, k, 2), k))
                .collect();
            let where_ = self.rng.chance(2, 3).then(|| self.pred(&scope, 2));
            sides.push(Select {
                distinct: false,
                items,
                from,
                joins,
                where_,
                group_by: vec![],
                having: None,
                order_by: vec![],
                limit: None,
                total_order: false,
            });
        }
        let right = sides.pop().unwrap_or_else(|| unreachable!());
        let left = sides.pop().unwrap_or_else(|| unreachable!());
        let op = self.rng.one(&[
            "UNION",
            "UNION ALL",
            "UNION DISTINCT",
            "INTERSECT",
            "EXCEPT",
            "INTERSECT ALL",
            "EXCEPT ALL",
        ]);
        let mut order_by = Vec::new();
        let mut limit = None;
        if self.rng.chance(1, 2) {
            // Every column: total (duplicates that remain are identical rows).
            order_by = (0..kinds.len())
                .map(|i| OrderItem {
                    expr: Expr::lit(format!("r{i}")),
                    desc: self.rng.chance(1, 3),
                })
                .collect();
            if self.rng.bool() {
                limit = Some(self.rng.below(6));
            }
        }
        Body::SetOp {
            op,
            left,
            right,
            total_order: !order_by.is_empty(),
            order_by,
            limit,
        }
    }

    fn ctes(&mut self) -> Vec<Cte> {
        let mut out = Vec::new();
        for _ in 0..self.rng.range(1, 2) {
            let name = format!("w{}", self.ctes.len());
            if self.rng.chance(1, 3) {
                let start = self.rng.below(3) as i64;
                let end = start + self.rng.range(0, 8) as i64;
                self.ctes
                    .push((name.clone(), vec![("n".into(), Kind::Int)]));
                out.push(Cte {
                    name,
                    cols: vec!["n".into()],
                    body: CteBody::Counter { start, end },
                });
            } else {
                let (sel, kinds) = self.simple_select(1);
                let cols: Vec<String> = (0..kinds.len()).map(|i| format!("x{i}")).collect();
                self.ctes
                    .push((name.clone(), cols.iter().cloned().zip(kinds).collect()));
                out.push(Cte {
                    name,
                    cols,
                    body: CteBody::Select(sel),
                });
            }
        }
        out
    }

    /// A SELECT of 1–3 items of known kinds, no grouping or order (derived tables, CTEs).
    fn simple_select(&mut self, nested: u32) -> (Select, Vec<Kind>) {
        let (from, joins, scope) = self.from(&[], nested);
        let kinds: Vec<Kind> = (0..self.rng.range(1, 3)).map(|_| self.kind()).collect();
        let items = kinds.iter().map(|&k| self.expr(&scope, k, 2)).collect();
        let where_ = self.rng.chance(1, 2).then(|| self.pred(&scope, 2));
        let sel = Select {
            distinct: false,
            items,
            from,
            joins,
            where_,
            group_by: vec![],
            having: None,
            order_by: vec![],
            limit: None,
            total_order: false,
        };
        (sel, kinds)
    }

    fn window(&mut self, scope: &Scope) -> Expr {
        let total = scope.unique.clone();
        let partition = if self.rng.bool() {
            let k = self.kind();
            vec![canon(self.expr(scope, k, 1), k)]
        } else {
            vec![]
        };
        let k = self.kind();
        let mut order = vec![canon(self.expr(scope, k, 1), k)];
        let order_dependent = total.is_some() && self.rng.bool();
        if order_dependent {
            order.extend(total.unwrap_or_default());
            let (name, args) = match self.rng.below(6) {
                0 => ("ROW_NUMBER", vec![]),
                1 => ("NTILE", vec![Expr::lit(self.rng.range(1, 4).to_string())]),
                2 => ("LAG", vec![self.expr(scope, Kind::Int, 1)]),
                3 => ("LEAD", vec![self.expr(scope, Kind::Int, 1)]),
                4 => ("FIRST_VALUE", vec![self.expr(scope, Kind::Int, 1)]),
                _ => ("SUM", vec![self.expr(scope, Kind::Int, 1)]),
            };
            let frame = (name == "SUM").then(|| {
                *self.rng.pick(&[
                    "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW",
                    "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING",
                    "ROWS UNBOUNDED PRECEDING",
                ])
            });
            return Expr::Window {
                name,
                args,
                partition,
                order,
                frame,
            };
        }
        let (name, args) = match self.rng.below(5) {
            0 => ("RANK", vec![]),
            1 => ("DENSE_RANK", vec![]),
            2 => ("COUNT", vec![self.expr(scope, Kind::Int, 1)]),
            3 => ("MAX", vec![self.expr(scope, Kind::Int, 1)]),
            _ => ("SUM", vec![self.expr(scope, Kind::Decimal, 1)]),
        };
        Expr::Window {
            name,
            args,
            partition,
            order,
            frame: None,
        }
    }

    // ---- expressions --------------------------------------------------------------------------

    fn expr(&mut self, scope: &Scope, kind: Kind, depth: u32) -> Expr {
        self.expr_n(scope, kind, depth, 0)
    }

    /// An expression of `kind`; `nested` > 0 allows subqueries (with the feature on).
    fn expr_n(&mut self, scope: &Scope, kind: Kind, depth: u32, nested: u32) -> Expr {
        if self.features.subquery && nested > 0 && self.rng.chance(1, 12) {
            return self.scalar_subquery(scope, kind, nested);
        }
        if depth == 0 || self.rng.chance(1, 3) {
            return self.leaf(scope, kind);
        }
        let d = depth - 1;
        if self.features.wide && self.rng.chance(1, 4) {
            return self.wide_expr(scope, kind, d);
        }
        if self.features.types
            && matches!(kind, Kind::Int | Kind::Decimal | Kind::Str { .. })
            && self.rng.chance(1, 4)
        {
            return self.types_expr(scope, kind, d);
        }
        if self.rng.chance(1, 8) {
            return self.conditional(scope, kind, d);
        }
        match kind {
            Kind::Int => self.int_expr(scope, d),
            Kind::Decimal => self.decimal_expr(scope, d),
            Kind::Float => self.float_expr(scope, d),
            Kind::Str { .. } => self.str_expr(scope, kind, d),
            Kind::Bin => self.bin_expr(scope, d),
            Kind::Date => self.date_expr(scope, d),
            Kind::DateTime => self.datetime_expr(scope, d),
        }
    }

    fn leaf(&mut self, scope: &Scope, kind: Kind) -> Expr {
        if let Some(keys) = &scope.keys {
            let same: Vec<&(Expr, Kind)> =
                keys.iter().filter(|(_, k)| same_class(*k, kind)).collect();
            match self.rng.below(5) {
                0 | 1 if !same.is_empty() => return self.rng.pick(&same).0.clone(),
                2 | 3 => return self.agg(scope, kind),
                _ => return self.literal(scope, kind),
            }
        }
        let cols: Vec<&ColRef> = scope
            .cols
            .iter()
            .filter(|c| same_class(c.kind, kind))
            .collect();
        let outer: Vec<&ColRef> = scope
            .outer
            .iter()
            .filter(|c| same_class(c.kind, kind))
            .collect();
        if !outer.is_empty() && self.rng.chance(1, 5) {
            if scope.in_agg && !cols.is_empty() {
                // An inner column instead, drawn alike (one draw) so that the queries of
                // the CI seeds stay the same elsewhere (see `Scope::in_agg`).
                return self.rng.pick(&cols).expr();
            }
            if !scope.in_agg {
                return self.rng.pick(&outer).expr();
            }
        }
        if !cols.is_empty() && self.rng.chance(3, 4) {
            return self.rng.pick(&cols).expr();
        }
        if !scope.cols.is_empty() && self.rng.chance(1, 10) {
            // A column of another type: implicit conversions.
            return self.rng.pick(&scope.cols).expr();
        }
        self.literal(scope, kind)
    }

    /// A literal: mostly a value some column of this kind holds.
    fn literal(&mut self, scope: &Scope, kind: Kind) -> Expr {
        let pools: Vec<&ColRef> = scope
            .cols
            .iter()
            .filter(|c| same_class(c.kind, kind) && !c.pool.is_empty())
            .collect();
        if !pools.is_empty() && self.rng.chance(2, 3) {
            let c = self.rng.pick(&pools);
            return Expr::lit(self.rng.pick(&c.pool).clone());
        }
        if self.rng.chance(1, 12) {
            return Expr::lit("NULL");
        }
        let s = match kind {
            Kind::Int => self.rng.one(&[
                "0",
                "1",
                "-1",
                "2",
                "3",
                "7",
                "100",
                "-128",
                "255",
                "65535",
                "2147483647",
                "-2147483648",
                "9223372036854775807",
                "-9223372036854775808",
                "18446744073709551615",
            ]),
            Kind::Decimal => self.rng.one(&[
                "0.5",
                "-1.25",
                "3.14159",
                "100.00",
                "99999999999999999999.99",
                "0.0000000001",
                "-0.0",
                "12345678901234567890123456789.123456789",
            ]),
            Kind::Float => self
                .rng
                .one(&["1e0", "2.5e0", "-1.5e1", "1e-3", "3.0e10", "0e0"]),
            Kind::Str { .. } => self.rng.one(&[
                "''", "'a'", "'A'", "'a '", "'Bb'", "'é'", "'%'", "' z'", "'123'", "'1e2'",
                "'-3.5x'",
            ]),
            Kind::Bin => self
                .rng
                .one(&["X'41'", "X''", "X'00'", "X'6162'", "_binary'a'"]),
            Kind::Date => self.rng.one(&[
                "'2020-01-01'",
                "DATE'2019-12-31'",
                "'2021-02-28'",
                "'1000-01-01'",
                "'9999-12-31'",
            ]),
            Kind::DateTime => self.rng.one(&[
                "'2020-01-01 00:00:00'",
                "TIMESTAMP'2020-06-15 12:30:45'",
                "'2019-05-05 23:59:59.5'",
                "'2038-01-19 03:14:07'",
            ]),
        };
        Expr::lit(s)
    }

    fn small_int(&mut self, scope: &Scope, depth: u32) -> Expr {
        if depth > 0 && self.rng.chance(1, 4) {
            return self.expr(scope, Kind::Int, depth - 1);
        }
        Expr::lit(self.rng.one(&["-1", "0", "1", "2", "3", "4", "6", "NULL"]))
    }

    fn conditional(&mut self, scope: &Scope, kind: Kind, d: u32) -> Expr {
        let e = |g: &mut Self| g.expr(scope, kind, d);
        match self.rng.below(7) {
            0 => {
                let p = self.pred(scope, d);
                Expr::func("IF", vec![p, e(self), e(self)])
            }
            1 => Expr::func(
                "COALESCE",
                (0..self.rng.range(1, 3)).map(|_| e(self)).collect(),
            ),
            2 => Expr::func("IFNULL", vec![e(self), e(self)]),
            3 => Expr::func("NULLIF", vec![e(self), e(self)]),
            4 => Expr::func(self.rng.one(&["GREATEST", "LEAST"]), vec![e(self), e(self)]),
            5 => {
                let whens = (0..self.rng.range(1, 3))
                    .map(|_| (self.pred(scope, d), e(self)))
                    .collect();
                let els = self.rng.bool().then(|| Box::new(e(self)));
                Expr::Case(None, whens, els)
            }
            _ => {
                let op = e(self);
                let whens = (0..self.rng.range(1, 3))
                    .map(|_| (self.literal(scope, kind), e(self)))
                    .collect();
                let els = self.rng.bool().then(|| Box::new(e(self)));
                Expr::Case(Some(Box::new(op)), whens, els)
            }
        }
    }

    fn int_expr(&mut self, scope: &Scope, d: u32) -> Expr {
        let i = |g: &mut Self| g.expr(scope, Kind::Int, d);
        // INTERVAL() (13) is drawn with `wide` only, so that the CI seeds' queries stay the same.
        let forms = if self.features.wide { 15 } else { 14 };
        let form = match self.rng.below(forms) {
            13 if !self.features.wide => 14,
            f => f,
        };
        match form {
            0..=2 => Expr::bin(
                self.rng.one(&["+", "-", "*", "DIV", "%", "MOD"]),
                i(self),
                i(self),
            ),
            3 => Expr::func(self.rng.one(&["ABS", "SIGN"]), vec![i(self)]),
            4 => Expr::Un("-", Box::new(i(self))),
            5 => {
                let s = self.expr(scope, Kind::Str { ci: true }, d);
                Expr::func(
                    self.rng
                        .one(&["LENGTH", "CHAR_LENGTH", "ASCII", "ORD", "OCTET_LENGTH"]),
                    vec![s],
                )
            }
            6 => {
                let a = self.expr(scope, Kind::Str { ci: true }, d);
                let b = self.expr(scope, Kind::Str { ci: true }, d);
                Expr::func(self.rng.one(&["INSTR", "LOCATE", "STRCMP"]), vec![a, b])
            }
            7 => {
                let args: Vec<Expr> = (0..self.rng.range(2, 4))
                    .map(|_| self.expr(scope, Kind::Str { ci: true }, d))
                    .collect();
                match scope.outer_join {
                    // MariaDB 10.11 takes FIELD for null-rejecting (README): not here.
                    true => Expr::func("STRCMP", args.into_iter().take(2).collect()),
                    false => Expr::func("FIELD", args),
                }
            }
            8 => {
                let x = self.expr(scope, Kind::Date, d);
                Expr::func(
                    self.rng.one(&["YEAR", "MONTH", "DAY", "DAYOFMONTH"]),
                    vec![x],
                )
            }
            9 => {
                let x = self.expr(scope, Kind::DateTime, d);
                Expr::func(self.rng.one(&["HOUR", "MINUTE", "SECOND", "YEAR"]), vec![x])
            }
            10 => {
                let a = self.expr(scope, Kind::Date, d);
                let b = self.expr(scope, Kind::DateTime, d);
                Expr::func("DATEDIFF", vec![a, b])
            }
            11 => {
                let x = self.expr(scope, Kind::Decimal, d);
                Expr::func(
                    self.rng.one(&["FLOOR", "CEIL", "CEILING", "ROUND"]),
                    vec![x],
                )
            }
            12 => {
                let k = self.kind();
                let x = self.expr(scope, k, d);
                Expr::Cast(
                    Box::new(x),
                    self.rng.one(&["SIGNED", "UNSIGNED", "SIGNED INTEGER"]),
                )
            }
            13 => {
                // INTERVAL(N, N1, …): NULLs skipped, exact between integers and decimals.
                // N is never NULL here: MariaDB 10.11 takes INTERVAL(t.c, …) for a
                // NULL-rejecting condition and turns `LEFT JOIN t … WHERE INTERVAL(t.c, 9) = -1`
                // into an inner join, losing the NULL-extended rows (a MariaDB bug; Cohort
                // answers -1 for them, as INTERVAL(NULL, …) is). Its other arguments can still
                // meet that bug over an outer join's inner table: one reason this is `wide`.
                let n = i(self);
                let mut args = vec![Expr::func("COALESCE", vec![n, Expr::lit("-1")])];
                for _ in 0..self.rng.range(1, 4) {
                    let k = self
                        .rng
                        .one(&[Kind::Int, Kind::Int, Kind::Decimal, Kind::Float]);
                    args.push(self.expr(scope, k, d));
                }
                Expr::func("INTERVAL", args)
            }
            _ => self.pred(scope, d),
        }
    }

    fn decimal_expr(&mut self, scope: &Scope, d: u32) -> Expr {
        let x = |g: &mut Self| {
            let k = if g.rng.chance(2, 3) {
                Kind::Decimal
            } else {
                Kind::Int
            };
            g.expr(scope, k, d)
        };
        match self.rng.below(8) {
            0..=2 => Expr::bin(self.rng.one(&["+", "-", "*", "/", "%"]), x(self), x(self)),
            3 => Expr::bin(
                "/",
                self.expr(scope, Kind::Int, d),
                self.expr(scope, Kind::Int, d),
            ),
            4 => {
                let n = self.small_int(scope, d);
                Expr::func(self.rng.one(&["ROUND", "TRUNCATE"]), vec![x(self), n])
            }
            5 => Expr::func("ABS", vec![x(self)]),
            6 => {
                let k = self.kind();
                let e = self.expr(scope, k, d);
                Expr::Cast(
                    Box::new(e),
                    self.rng.one(&[
                        "DECIMAL(10,2)",
                        "DECIMAL(30,10)",
                        "DECIMAL(65,30)",
                        "DECIMAL(5,0)",
                        "DECIMAL",
                    ]),
                )
            }
            _ => Expr::Un("-", Box::new(x(self))),
        }
    }

    fn float_expr(&mut self, scope: &Scope, d: u32) -> Expr {
        let x = |g: &mut Self| {
            let k = if g.rng.chance(2, 3) {
                Kind::Float
            } else {
                Kind::Int
            };
            g.expr(scope, k, d)
        };
        match self.rng.below(7) {
            0..=2 => Expr::bin(self.rng.one(&["+", "-", "*", "/"]), x(self), x(self)),
            3 => {
                let e = self.expr(scope, Kind::Int, d);
                Expr::func(self.rng.one(&["POW", "POWER"]), vec![x(self), e])
            }
            4 => Expr::func("SQRT", vec![x(self)]),
            5 => {
                // A string in arithmetic converts to DOUBLE.
                let s = self.expr(scope, Kind::Str { ci: true }, d);
                Expr::bin(self.rng.one(&["+", "*"]), s, x(self))
            }
            _ => {
                let n = self.small_int(scope, d);
                Expr::func("ROUND", vec![x(self), n])
            }
        }
    }

    fn str_expr(&mut self, scope: &Scope, kind: Kind, d: u32) -> Expr {
        let s = |g: &mut Self| g.expr(scope, kind, d);
        match self.rng.below(16) {
            0 | 1 => {
                let args = (0..self.rng.range(1, 3))
                    .map(|_| {
                        let k = if self.rng.chance(3, 4) {
                            kind
                        } else {
                            self.kind()
                        };
                        self.expr(scope, k, d)
                    })
                    .collect();
                Expr::func("CONCAT", args)
            }
            2 => {
                let mut args = vec![self.literal(scope, kind)];
                args.extend((0..self.rng.range(1, 3)).map(|_| s(self)));
                Expr::func("CONCAT_WS", args)
            }
            3 => Expr::func(
                self.rng
                    .one(&["UPPER", "LOWER", "UCASE", "LCASE", "REVERSE"]),
                vec![s(self)],
            ),
            4 => Expr::func(self.rng.one(&["TRIM", "LTRIM", "RTRIM"]), vec![s(self)]),
            5 => {
                let mut args = vec![s(self), self.small_int(scope, d)];
                if self.rng.bool() {
                    args.push(self.small_int(scope, d));
                }
                Expr::func(self.rng.one(&["SUBSTRING", "SUBSTR", "MID"]), args)
            }
            6 => {
                let n = self.small_int(scope, d);
                Expr::func(self.rng.one(&["LEFT", "RIGHT", "REPEAT"]), vec![s(self), n])
            }
            7 => {
                let n = self.small_int(scope, d);
                Expr::func(self.rng.one(&["LPAD", "RPAD"]), vec![s(self), n, s(self)])
            }
            8 => Expr::func("REPLACE", vec![s(self), s(self), s(self)]),
            9 => {
                let p = self.small_int(scope, d);
                let l = self.small_int(scope, d);
                Expr::func("INSERT", vec![s(self), p, l, s(self)])
            }
            10 => Expr::func("SPACE", vec![self.small_int(scope, d)]),
            11 => {
                let n = self.small_int(scope, d);
                Expr::func("ELT", vec![n, s(self), s(self)])
            }
            12 => {
                let k = self.kind();
                let e = self.expr(scope, k, d);
                if !self.features.wide {
                    // The hash and compression round trips with `wide` only (CI's seeds).
                    return Expr::func("HEX", vec![e]);
                }
                match self.rng.below(6) {
                    0 => Expr::func("PASSWORD", vec![e]),
                    1 => Expr::func("OLD_PASSWORD", vec![e]),
                    // Byte-exact with MariaDB, seen through HEX (a binary function result
                    // mixed with strings is typed apart: not compared here).
                    2 => {
                        let key = self.expr(scope, Kind::Str { ci: true }, d);
                        let aes = Expr::func("AES_ENCRYPT", vec![e, key]);
                        Expr::func("HEX", vec![aes])
                    }
                    // COMPRESS's own bytes may differ from zlib's for long inputs: only the
                    // round trip is compared.
                    3 => {
                        let c = Expr::func("COMPRESS", vec![e]);
                        Expr::func("HEX", vec![Expr::func("UNCOMPRESS", vec![c])])
                    }
                    _ => Expr::func("HEX", vec![e]),
                }
            }
            13 => {
                let k = self.kind();
                let e = self.expr(scope, k, d);
                Expr::Cast(Box::new(e), self.rng.one(&["CHAR", "CHAR(3)"]))
            }
            _ => {
                let n = self.expr(scope, Kind::Int, d);
                Expr::func("CONCAT", vec![s(self), n])
            }
        }
    }

    fn bin_expr(&mut self, scope: &Scope, d: u32) -> Expr {
        let b = |g: &mut Self| g.expr(scope, Kind::Bin, d);
        match self.rng.below(3) {
            0 => Expr::func("CONCAT", vec![b(self), b(self)]),
            1 => {
                let n = self.small_int(scope, d);
                Expr::func(
                    self.rng.one(&["LEFT", "SUBSTRING", "RIGHT"]),
                    vec![b(self), n],
                )
            }
            _ => Expr::func("REVERSE", vec![b(self)]),
        }
    }

    fn date_expr(&mut self, scope: &Scope, d: u32) -> Expr {
        match self.rng.below(3) {
            0 => Expr::func("DATE", vec![self.expr(scope, Kind::DateTime, d)]),
            1 => {
                let k = if self.rng.bool() {
                    Kind::DateTime
                } else {
                    Kind::Str { ci: true }
                };
                Expr::Cast(Box::new(self.expr(scope, k, d)), "DATE")
            }
            _ => {
                let a = self.expr(scope, Kind::Date, d);
                let b = self.expr(scope, Kind::Date, d);
                Expr::func(self.rng.one(&["GREATEST", "LEAST", "COALESCE"]), vec![a, b])
            }
        }
    }

    fn datetime_expr(&mut self, scope: &Scope, d: u32) -> Expr {
        if self.rng.bool() {
            Expr::Cast(Box::new(self.expr(scope, Kind::Date, d)), "DATETIME")
        } else {
            let a = self.expr(scope, Kind::DateTime, d);
            let b = self.expr(scope, Kind::DateTime, d);
            Expr::func("COALESCE", vec![a, b])
        }
    }

    /// An aggregate yielding `kind` (roughly), over the row scope.
    fn agg(&mut self, scope: &Scope, kind: Kind) -> Expr {
        let row = Scope {
            keys: None,
            in_agg: true,
            ..scope.clone()
        };
        let agg = |name, distinct, arg: Expr, ordered| Expr::Agg {
            name,
            distinct,
            arg: Some(Box::new(arg)),
            ordered,
        };
        match kind {
            Kind::Int => match self.rng.below(4) {
                0 => Expr::Agg {
                    name: "COUNT",
                    distinct: false,
                    arg: None,
                    ordered: false,
                },
                1 => {
                    let k = self.kind();
                    agg("COUNT", self.rng.chance(1, 3), self.expr(&row, k, 1), false)
                }
                // `+ 0`: MariaDB 10.11 reads a BIT_* result as a signed BIGINT where a DOUBLE
                // is wanted (POW(BIT_AND(x), 3) over no rows is -1, README); the sum is an
                // unsigned integer it reads right.
                2 => Expr::bin(
                    "+",
                    agg(
                        self.rng.one(&["BIT_AND", "BIT_OR", "BIT_XOR"]),
                        false,
                        self.expr(&row, Kind::Int, 1),
                        false,
                    ),
                    Expr::lit("0"),
                ),
                _ => agg(
                    self.rng.one(&["MIN", "MAX"]),
                    false,
                    self.expr(&row, Kind::Int, 1),
                    false,
                ),
            },
            Kind::Decimal | Kind::Float => {
                let arg_kind = if self.rng.bool() { kind } else { Kind::Int };
                let name = self.rng.one(&["SUM", "AVG", "MIN", "MAX"]);
                agg(
                    name,
                    self.rng.chance(1, 5),
                    self.expr(&row, arg_kind, 1),
                    false,
                )
            }
            Kind::Str { .. } => {
                let k = self.kind();
                let e = canon(self.expr(&row, k, 1), Kind::Str { ci: true });
                if self.rng.bool() {
                    agg("GROUP_CONCAT", self.rng.chance(1, 3), e, true)
                } else {
                    agg(self.rng.one(&["MIN", "MAX"]), false, e, false)
                }
            }
            _ => {
                let e = self.expr(&row, kind, 1);
                // A date conversion of a value that is no date is NULL, but MariaDB's MIN / MAX
                // take the zero date it leaves behind, or NULL, depending on whether the
                // group goes through a temporary table: undetermined. COALESCE makes it NULL.
                let s = e.to_string();
                let e = if s.contains("DATE(") || s.contains(" AS DATE") {
                    Expr::func("COALESCE", vec![e])
                } else {
                    e
                };
                agg(self.rng.one(&["MIN", "MAX"]), false, e, false)
            }
        }
    }

    // ---- predicates ---------------------------------------------------------------------------

    fn pred(&mut self, scope: &Scope, depth: u32) -> Expr {
        self.pred_n(scope, depth, 0)
    }

    fn pred_n(&mut self, scope: &Scope, depth: u32, nested: u32) -> Expr {
        if self.features.subquery && nested > 0 && self.rng.chance(1, 5) {
            return self.subquery_pred(scope, nested);
        }
        if self.features.wide && self.rng.chance(1, 6) {
            return self.wide_pred(scope, depth.saturating_sub(1));
        }
        if depth > 0 && self.rng.chance(1, 3) {
            let a = self.pred_n(scope, depth - 1, nested);
            return match self.rng.below(6) {
                0 => Expr::Un("NOT", Box::new(a)),
                1 => Expr::bin("XOR", a, self.pred_n(scope, depth - 1, nested)),
                2 | 3 => Expr::bin("OR", a, self.pred_n(scope, depth - 1, nested)),
                _ => Expr::bin("AND", a, self.pred_n(scope, depth - 1, nested)),
            };
        }
        let d = depth.saturating_sub(1);
        let k = self.kind();
        let x = self.expr(scope, k, d);
        match self.rng.below(12) {
            0..=4 => {
                let y = match self.rng.below(5) {
                    0 => {
                        let k2 = self.kind();
                        self.expr(scope, k2, d)
                    }
                    1 | 2 => self.expr(scope, k, d),
                    _ => self.literal(scope, k),
                };
                Expr::bin(
                    self.rng
                        .one(&["=", "<>", "!=", "<", "<=", ">", ">=", "<=>"]),
                    x,
                    y,
                )
            }
            5 => Expr::Post(
                Box::new(x),
                self.rng.one(&[
                    "IS NULL",
                    "IS NOT NULL",
                    "IS TRUE",
                    "IS NOT TRUE",
                    "IS FALSE",
                    "IS UNKNOWN",
                ]),
            ),
            6 => {
                let lo = self.literal(scope, k);
                let hi = self.literal(scope, k);
                Expr::Between(
                    Box::new(x),
                    Box::new(lo),
                    Box::new(hi),
                    self.rng.chance(1, 3),
                )
            }
            7 | 8 => {
                let l = (0..self.rng.range(1, 4))
                    .map(|_| self.literal(scope, k))
                    .collect();
                Expr::InList(Box::new(x), l, self.rng.chance(1, 3))
            }
            9 => {
                let p = self.like_pattern(scope);
                Expr::Like(
                    Box::new(self.expr(scope, Kind::Str { ci: true }, d)),
                    Box::new(p),
                    self.rng.chance(1, 3),
                )
            }
            10 => Expr::func("ISNULL", vec![x]),
            _ => x,
        }
    }

    fn like_pattern(&mut self, scope: &Scope) -> Expr {
        let base = match self.literal(scope, Kind::Str { ci: true }) {
            Expr::Lit(s) if s.starts_with('\'') && s.len() >= 2 => s[1..s.len() - 1].to_string(),
            _ => String::new(),
        };
        let mut out = String::new();
        for ch in base.chars() {
            match self.rng.below(6) {
                0 => out.push('%'),
                1 => out.push('_'),
                _ => out.push(ch),
            }
        }
        if self.rng.bool() {
            out.push('%');
        }
        Expr::lit(format!("'{out}'"))
    }

    // ---- subqueries (feature `subquery`) ------------------------------------------------------

    /// A one-column SELECT over a fresh table, sometimes correlated with `scope`.
    fn sub_select(&mut self, scope: &Scope, kind: Kind, nested: u32, agg: bool) -> Select {
        // Correlated only outside grouping: a grouped SELECT's rows are its groups.
        let outer: Vec<ColRef> = if scope.keys.is_some() {
            vec![]
        } else {
            scope
                .cols
                .iter()
                .chain(scope.outer.iter())
                .cloned()
                .collect()
        };
        let (from, joins, mut inner) = self.from(&[], nested - 1);
        inner.outer = outer;
        inner.outer_join |= scope.outer_join;
        let item = if agg {
            self.agg(&inner, kind)
        } else {
            canon(self.expr(&inner, kind, 1), kind)
        };
        let where_ = self
            .rng
            .chance(3, 4)
            .then(|| self.pred_n(&inner, 2, nested - 1));
        Select {
            distinct: false,
            items: vec![item],
            from,
            joins,
            where_,
            group_by: vec![],
            having: None,
            order_by: vec![],
            limit: None,
            total_order: false,
        }
    }

    fn scalar_subquery(&mut self, scope: &Scope, kind: Kind, nested: u32) -> Expr {
        // An aggregate keeps it to one row; sometimes not, and both must answer 1242 alike.
        let agg = self.rng.chance(4, 5);
        let s = self.sub_select(scope, kind, nested, agg);
        Expr::Sub(SubKind::Scalar, Box::new(s))
    }

    fn subquery_pred(&mut self, scope: &Scope, nested: u32) -> Expr {
        let k = self.kind();
        match self.rng.below(4) {
            0 => {
                let s = self.sub_select(scope, k, nested, false);
                Expr::Sub(SubKind::Exists(self.rng.chance(1, 3)), Box::new(s))
            }
            1 => {
                let lhs = canon(self.expr(scope, k, 1), k);
                let s = self.sub_select(scope, k, nested, false);
                Expr::Sub(
                    SubKind::In(Box::new(lhs), self.rng.chance(1, 3)),
                    Box::new(s),
                )
            }
            2 => {
                let lhs = canon(self.expr(scope, k, 1), k);
                let s = self.sub_select(scope, k, nested, false);
                let op = self.rng.one(&["=", "<>", "<", ">=", ">"]);
                let q = self.rng.one(&["ANY", "SOME", "ALL"]);
                Expr::Sub(SubKind::Quant(Box::new(lhs), op, q), Box::new(s))
            }
            _ => {
                let lhs = self.expr(scope, k, 1);
                let s = self.scalar_subquery(scope, k, nested);
                Expr::bin(self.rng.one(&["=", "<", ">="]), lhs, s)
            }
        }
    }
}

fn is_str(k: Kind) -> bool {
    matches!(k, Kind::Str { .. })
}

/// Kinds interchangeable as leaves (both string collations count as strings).
fn same_class(a: Kind, b: Kind) -> bool {
    a == b || (is_str(a) && is_str(b))
}

/// `e` in a canonical form when it is a character string (see [`Expr::Canon`]).
fn canon(e: Expr, kind: Kind) -> Expr {
    if is_str(kind) {
        Expr::Canon(Box::new(e))
    } else {
        e
    }
}

/// The group keys HAVING may use: the plain columns.
fn having_keys(keys: &[(Expr, Kind)]) -> Vec<(Expr, Kind)> {
    keys.iter()
        .filter(|(e, _)| matches!(e, Expr::Col { .. }))
        .cloned()
        .collect()
}

/// [`grouped_valid`] for HAVING: only plain-column keys count.
pub fn having_valid(e: &Expr, group_by: &[Expr]) -> bool {
    let plain: Vec<Expr> = group_by
        .iter()
        .filter(|e| matches!(e, Expr::Col { .. }))
        .cloned()
        .collect();
    grouped_valid(e, &plain)
}

/// Whether an expression of a grouped SELECT is determined by its group: built only from
/// group keys, aggregates, constants and subqueries (the shrinker checks its candidates).
pub fn grouped_valid(e: &Expr, keys: &[Expr]) -> bool {
    if keys.contains(e) {
        return true;
    }
    match e {
        Expr::Agg { .. } | Expr::Lit(_) => true,
        Expr::Col { .. } | Expr::Window { .. } => false,
        Expr::Sub(..) => true,
        _ => e.children().iter().all(|c| grouped_valid(c, keys)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queries(seed: u64, features: Features, n: u64) -> Vec<String> {
        let schema = Schema::random(&mut Rng::derive(seed, 1, 0));
        (0..n)
            .map(|i| {
                let mut r = Rng::derive(seed, 2, i);
                Gen::new(&mut r, &schema, features).query().to_string()
            })
            .collect()
    }

    #[test]
    fn same_seed_same_queries() {
        let f = Features::parse("all").unwrap();
        assert_eq!(queries(7, f, 50), queries(7, f, 50));
        assert_ne!(queries(7, f, 50), queries(8, f, 50));
    }

    #[test]
    fn base_features_stay_single_table() {
        for q in queries(3, Features::default(), 2000) {
            for word in [
                " JOIN ",
                " UNION",
                "INTERSECT",
                "EXCEPT",
                "WITH ",
                " OVER (",
                "(SELECT",
                "EXISTS",
            ] {
                assert!(!q.contains(word), "{word:?} in a base query: {q}");
            }
            let from = &q[q.find(" FROM ").expect("FROM")..];
            let table = from.split_whitespace().nth(1).unwrap_or_default();
            assert!(
                !from.contains(&format!("{table}, ")) && !from.contains(" AS a1, "),
                "comma join: {q}"
            );
        }
    }

    #[test]
    fn every_feature_is_generated() {
        let all = queries(5, Features::parse("all").unwrap(), 3000).join("\n");
        for word in [
            " JOIN ",
            " LEFT JOIN ",
            " UNION",
            "INTERSECT",
            "EXCEPT",
            "WITH RECURSIVE",
            " OVER (",
            "(SELECT",
            "EXISTS",
            " ANY (",
            ") AS d",
        ] {
            assert!(all.contains(word), "{word:?} never generated");
        }
    }

    #[test]
    fn limit_only_with_a_total_order() {
        let schema = Schema::random(&mut Rng::derive(11, 1, 0));
        for i in 0..3000 {
            let mut r = Rng::derive(11, 2, i);
            let q = Gen::new(&mut r, &schema, Features::default()).query();
            if let Body::Select(s) = &q.body {
                if s.limit.is_some() {
                    assert!(s.total_order && !s.order_by.is_empty(), "{q}");
                }
                if s.is_grouped() {
                    for e in &s.items {
                        assert!(grouped_valid(e, &s.group_by), "{e} in {q}");
                    }
                    if let Some(h) = &s.having {
                        assert!(having_valid(h, &s.group_by), "{h} in {q}");
                    }
                }
            }
        }
    }

    #[test]
    fn features_parse() {
        assert_eq!(Features::parse("base").unwrap(), Features::default());
        let f = Features::parse("join,window").unwrap();
        assert!(f.join && f.window && !f.cte);
        assert!(Features::parse("joins").is_err());
        assert_eq!(
            Features::parse("all").unwrap().describe(),
            "base,join,subquery,setop,cte,window"
        );
        assert_eq!(
            Features::parse("all,types").unwrap().describe(),
            "base,join,subquery,setop,cte,window,types"
        );
    }

    /// `types` aims arithmetic at unsigned operands and branch functions of mixed
    /// signedness.
    #[test]
    fn types_feature_is_generated_apart() {
        let base = Features::default();
        let types = Features::parse("types").unwrap();
        let with: Vec<String> = queries(5, types, 400);
        let joined = with.join("\n");
        for needle in ["AS UNSIGNED", "IFNULL(", "HEX(", "(- "] {
            assert!(joined.contains(needle), "no {needle} in 400 queries");
        }
        assert_ne!(queries(5, base, 400), with);
    }
}
