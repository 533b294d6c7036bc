//! Join planning: the FROM clause as a tree of joins, its conditions placed, an order chosen
//! and an access path for every table.
//!
//! # Shape
//!
//! A join runs as a sequence of [`Unit`]s (nested loops): a [`Unit::Leaf`] reads one table
//! (for each row of the units before it), a [`Unit::Outer`] runs the inner side of a LEFT
//! JOIN (a RIGHT JOIN is the mirrored LEFT JOIN) as its own sequence, and when that finds no
//! row, NULL-complements the inner tables once. Inner joins and commas flatten into one
//! sequence.
//!
//! # Conditions
//!
//! WHERE and inner-join ON conditions are AND-ed conjuncts of the sequence they belong to
//! (the top one); an outer join's ON conjuncts belong to its inner sequence. Each conjunct
//! runs at the first unit of its sequence after which every table it reads is bound: on a
//! leaf it is part of the storage read's filter (evaluated on the version read, after any
//! lock wait); on an outer unit it runs after the match or NULL-complement (`post`), which
//! is what makes `LEFT JOIN … WHERE inner.c IS NULL` exact.
//!
//! # Order and access
//!
//! A sequence of plain tables (no outer join in it, no STRAIGHT_JOIN) is ordered by cost:
//! each table's *fanout* is the rows it is expected to add per row of the tables bound before
//! it (a unique lookup 1, an index prefix its rows per key value from the index statistics
//! (`plan/estimate.rs`), otherwise its live row count), and the order chosen is the one that
//! reads the fewest rows in all (the sum of the running products of fanouts), searched over
//! all orders for up to 8 tables, greedily (fewest rows next) beyond. A plan ordered by statistics is made
//! again when they move ([`JoinPlan::stats_epochs`]). A sequence with outer joins keeps the written order.
//! Each table's access path comes from [`plan::choose_access_for`] with keys that are
//! constants or columns of tables bound before it (index nested loop on any index prefix);
//! without a usable index an equality with a bound column becomes a hash join: the table is
//! read once into a hash table on that column.

use crate::error::{Error, Result};
use crate::sql::bind::join_scope::JoinScope;
use crate::sql::bind::sqltype::Class;
use crate::sql::env::Env;
use crate::sql::exec::query::{self, Derived};
use crate::sql::expr::{CmpOp, Expr};
use crate::sql::plan::{self, Access, KeySource, TableRef};
use crate::types::{Collation, DataType};
use cohort_protocol::ErrorCode;
use sqlparser::ast;
use std::sync::Arc;

/// The row count the join order assumes for a derived table.
const DERIVED_ROWS: f64 = 100.0;

/// Joins of up to this many plain tables in one sequence are ordered by the cheapest order
/// over all orders (`n × 2^(n-1)` fanout estimates); larger ones greedily.
const EXHAUSTIVE_TABLES: usize = 8;

/// MySQL's limit on the tables of one join.
pub const MAX_JOIN_TABLES: usize = 61;

/// A hash join's key: `build` (a column of the leaf's table) equals `probe` (a column read
/// before).
#[derive(Clone, Debug)]
pub struct HashKey {
    pub build: usize,
    pub probe: Expr,
    pub coll: Collation,
}

/// One table read of a join.
#[derive(Clone, Debug)]
pub struct Leaf {
    pub table: usize,
    pub access: Access,
    /// Set when the access path is a full scan and an equality allows a hash join.
    pub hash: Option<HashKey>,
    /// Conjuncts run on each row read (on the joined row).
    pub filter: Option<Expr>,
    /// The part of `filter` that reads only this table and constants (the hash build filter).
    pub local: Option<Expr>,
}

/// One step of a nested-loop sequence.
#[derive(Clone, Debug)]
pub enum Unit {
    Leaf(Box<Leaf>),
    Outer {
        inner: Vec<Unit>,
        /// The inner side's tables, NULL-complemented when it finds no row.
        tables: Vec<usize>,
        /// Conjuncts run after the match or the NULL-complement.
        post: Option<Expr>,
    },
}

/// A table of a join: a catalog table, or a derived table / CTE reference (a materialized
/// row set: always read whole, by nested loop or hash join).
pub enum JoinTable {
    Table(TableRef),
    Derived(Arc<Derived>),
}

impl JoinTable {
    pub fn is_stale(&self) -> bool {
        match self {
            JoinTable::Table(t) => t.is_stale(),
            JoinTable::Derived(d) => d.is_stale(),
        }
    }

    pub fn databases(&self) -> Vec<&str> {
        self.table_refs()
            .into_iter()
            .map(|t| t.db.as_str())
            .collect()
    }

    /// The engine tables it reads.
    pub fn table_refs(&self) -> Vec<&super::TableRef> {
        match self {
            JoinTable::Table(t) => vec![t],
            JoinTable::Derived(d) => d.table_refs(),
        }
    }
}

/// A planned join.
pub struct JoinPlan {
    /// The tables, numbered as in `scope`.
    pub tables: Vec<JoinTable>,
    pub scope: JoinScope,
    pub units: Vec<Unit>,
    /// The tables whose statistics ordered the join, with their statistics' epoch then: the
    /// plan is made again once they move (about 10% of the table's rows changed).
    pub stats_epochs: Vec<(usize, u64)>,
}

impl JoinPlan {
    pub fn is_stale(&self) -> bool {
        self.tables.iter().any(|t| t.is_stale())
            || self.stats_epochs.iter().any(|&(t, epoch)| {
                matches!(&self.tables[t], JoinTable::Table(r) if r.table.stats_moved(epoch))
            })
    }

    pub fn width(&self) -> usize {
        self.scope.width()
    }
}

/// The FROM clause as written, with its outer joins' ON conjuncts bound.
enum Raw {
    Leaf(usize),
    Inner(Vec<Raw>),
    Outer {
        outer: Box<Raw>,
        inner: Box<Raw>,
        on: Vec<Expr>,
    },
}

/// A built FROM item.
struct Node {
    raw: Raw,
    /// Conjuncts of its inner joins (they run in the enclosing sequence).
    conds: Vec<Expr>,
    tables: u64,
    star: Vec<(usize, usize)>,
}

/// A merged column of USING / NATURAL: (kept, hidden), as (table, column).
type Merged = ((usize, usize), (usize, usize));

/// Binds an ON condition against the scope (with the mask of the tables joined so far).
pub type BindOn<'b> = dyn FnMut(&JoinScope, &ast::Expr) -> Result<Expr> + 'b;

/// Builds the join tree of a FROM clause.
pub struct Builder<'a, 'b> {
    env: &'a Env<'a>,
    bind_on: &'b mut BindOn<'b>,
    pub scope: JoinScope,
    tables: Vec<JoinTable>,
    straight: bool,
    /// The statement's `?` positions (derived tables bind their own expressions).
    pub params: &'a [sqlparser::tokenizer::Location],
    /// What the SELECT reads of its FROM items (see `query::outer_text`): derived tables
    /// leave out the columns it never names.
    pub outer_text: Option<String>,
    /// Inner-join conjuncts of the top sequence.
    conds: Vec<Expr>,
    raw: Option<Raw>,
}

fn unsupported(what: &str) -> Error {
    Error::unsupported(what)
}

fn too_many_tables() -> Error {
    Error::new(
        ErrorCode::TooManyTables,
        format!("Too many tables; MariaDB can only use {MAX_JOIN_TABLES} tables in a join"),
    )
}

fn bits(set: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |i| set & (1u64 << i) != 0)
}

impl<'a, 'b> Builder<'a, 'b> {
    pub fn new(env: &'a Env<'a>, bind_on: &'b mut BindOn<'b>, straight: bool) -> Self {
        Builder {
            env,
            bind_on,
            scope: JoinScope::default(),
            tables: Vec::new(),
            straight,
            params: &[],
            outer_text: None,
            conds: Vec::new(),
            raw: None,
        }
    }

    /// Build the tables and joins of a FROM list (comma-separated items are inner joins);
    /// names bind against `scope` after this.
    pub fn from(&mut self, from: &[ast::TableWithJoins]) -> Result<()> {
        let mut parts = Vec::new();
        let mut star = Vec::new();
        for twj in from {
            let n = self.table_with_joins(twj)?;
            self.conds.extend(n.conds);
            star.extend(n.star);
            parts.push(n.raw);
        }
        self.scope.star = star;
        self.scope.mask = vec![true; self.scope.tables.len()];
        self.raw = Some(Raw::Inner(parts));
        Ok(())
    }

    pub fn tables(&self) -> &[JoinTable] {
        &self.tables
    }

    /// The inner joins' ON conditions that hold a subquery, taken out of the join: the caller
    /// runs them on the joined rows, with its WHERE conditions that hold one.
    pub fn take_subquery_conds(&mut self) -> Vec<Expr> {
        let (with, without): (Vec<Expr>, Vec<Expr>) = std::mem::take(&mut self.conds)
            .into_iter()
            .partition(crate::sql::exec::subquery::has_subquery);
        self.conds = without;
        with
    }

    /// The plan, with the WHERE clause's conjuncts.
    pub fn finish(mut self, where_conds: Vec<Expr>) -> Result<JoinPlan> {
        let mut conds = std::mem::take(&mut self.conds);
        conds.extend(where_conds);
        let mut pres = Vec::new();
        if let Some(raw) = self.raw.take() {
            flatten(raw, &mut pres);
        }
        let arr = Arrange {
            scope: &self.scope,
            tables: &self.tables,
            straight: self.straight,
            used_stats: Default::default(),
        };
        let units = arr.arrange(pres, conds, 0)?;
        let mut stats_epochs = arr.used_stats.into_inner();
        stats_epochs.sort_unstable();
        stats_epochs.dedup();
        Ok(JoinPlan {
            tables: self.tables,
            scope: self.scope,
            units,
            stats_epochs,
        })
    }

    fn table_with_joins(&mut self, twj: &ast::TableWithJoins) -> Result<Node> {
        let mut left = self.factor(&twj.relation)?;
        for j in &twj.joins {
            let right = self.factor(&j.relation)?;
            left = self.join(left, right, &j.join_operator)?;
        }
        Ok(left)
    }

    fn factor(&mut self, f: &ast::TableFactor) -> Result<Node> {
        if let Some(mut d) = query::derived_factor(self.env, self.params, f)? {
            if let Some(text) = &self.outer_text {
                query::prune_unread(&mut d, text);
            }
            if self.scope.tables.len() >= MAX_JOIN_TABLES {
                return Err(too_many_tables());
            }
            let n = self.scope.push(d.scope.clone())?;
            self.tables.push(JoinTable::Derived(Arc::new(d)));
            let width = self.scope.tables[n].scope.columns.len();
            return Ok(Node {
                raw: Raw::Leaf(n),
                conds: Vec::new(),
                tables: 1u64 << n,
                star: (0..width).map(|c| (n, c)).collect(),
            });
        }
        match f {
            ast::TableFactor::Table {
                name, alias, args, ..
            } => {
                if args.is_some() {
                    return Err(unsupported("table functions"));
                }
                if self.scope.tables.len() >= MAX_JOIN_TABLES {
                    return Err(too_many_tables());
                }
                let (db, t) = plan::split_name(name, self.env.sess.db)?;
                if let Some(derived) = virtual_as_derived(&db, &t, alias.as_ref()) {
                    return self.factor(&derived);
                }
                let alias = alias.as_ref().map(|a| a.name.value.clone());
                let tref = plan::resolve_table(self.env, &db, &t, alias)?;
                let n = self.scope.push(tref.scope.clone())?;
                self.tables.push(JoinTable::Table(tref));
                let width = self.scope.tables[n].scope.columns.len();
                Ok(Node {
                    raw: Raw::Leaf(n),
                    conds: Vec::new(),
                    tables: 1u64 << n,
                    star: (0..width).map(|c| (n, c)).collect(),
                })
            }
            ast::TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                if alias.is_some() {
                    return Err(unsupported("an alias of a parenthesized join"));
                }
                self.table_with_joins(table_with_joins)
            }
            _ => Err(unsupported("this FROM clause")),
        }
    }

    fn join(&mut self, left: Node, right: Node, op: &ast::JoinOperator) -> Result<Node> {
        use ast::JoinOperator as J;
        enum Kind {
            Inner,
            Left,
            Right,
        }
        let (kind, constraint) = match op {
            J::Join(c) | J::Inner(c) | J::CrossJoin(c) => (Kind::Inner, c),
            J::StraightJoin(c) => {
                self.straight = true;
                (Kind::Inner, c)
            }
            J::Left(c) | J::LeftOuter(c) => (Kind::Left, c),
            J::Right(c) | J::RightOuter(c) => (Kind::Right, c),
            J::FullOuter(_) => return Err(Error::parse("FULL OUTER JOIN", 1)),
            _ => return Err(unsupported("this join")),
        };
        let mask = left.tables | right.tables;
        if matches!(kind, Kind::Left | Kind::Right)
            && matches!(constraint, ast::JoinConstraint::None)
        {
            return Err(Error::parse("", 1));
        }
        let right_join = matches!(kind, Kind::Right);
        // An inner join's ON may hold subqueries: such a condition runs after the read, as a
        // WHERE condition (see `take_subquery_conds`); an outer join's may not.
        let inner = matches!(kind, Kind::Inner);
        let was = self.env.subq.inner_on.replace(inner);
        let r = self.constraint(constraint, &left, &right, right_join);
        self.env.subq.inner_on.set(was);
        let (mut on, merged) = r?;
        let star = self.merged_star(&left, &right, &merged, right_join);
        let (raw, conds) = match kind {
            Kind::Inner => {
                let mut conds = left.conds;
                conds.extend(right.conds);
                conds.extend(on);
                (Raw::Inner(vec![left.raw, right.raw]), conds)
            }
            Kind::Left | Kind::Right => {
                // The inner side's own inner-join conditions filter the inner side's rows:
                // they join the ON clause.
                let (outer, inner) = if right_join {
                    (right, left)
                } else {
                    (left, right)
                };
                for t in bits(inner.tables) {
                    self.scope.make_nullable(t);
                }
                if inner
                    .conds
                    .iter()
                    .any(crate::sql::exec::subquery::has_subquery)
                {
                    return Err(unsupported(
                        "subqueries in ON of a join inside an outer join",
                    ));
                }
                on.extend(inner.conds);
                (
                    Raw::Outer {
                        outer: Box::new(outer.raw),
                        inner: Box::new(inner.raw),
                        on,
                    },
                    outer.conds,
                )
            }
        };
        Ok(Node {
            raw,
            conds,
            tables: mask,
            star,
        })
    }

    /// The ON conjuncts of a join constraint, and the merged columns of USING / NATURAL:
    /// (kept (preserved side), hidden (other side)).
    fn constraint(
        &mut self,
        c: &ast::JoinConstraint,
        left: &Node,
        right: &Node,
        right_join: bool,
    ) -> Result<(Vec<Expr>, Vec<Merged>)> {
        let mask = left.tables | right.tables;
        match c {
            ast::JoinConstraint::None => Ok((Vec::new(), Vec::new())),
            ast::JoinConstraint::On(e) => {
                let mut sc = self.scope.clone();
                sc.mask = (0..sc.tables.len())
                    .map(|t| mask & (1u64 << t) != 0)
                    .collect();
                let x = (self.bind_on)(&sc, e)?;
                Ok((
                    plan::conjuncts(&x).into_iter().cloned().collect(),
                    Vec::new(),
                ))
            }
            ast::JoinConstraint::Using(cols) => {
                let mut names = Vec::new();
                for c in cols {
                    let n = c.to_string();
                    names.push(n.trim_matches('`').to_string());
                }
                self.merge(&names, left, right, right_join)
            }
            ast::JoinConstraint::Natural => {
                let mut names: Vec<String> = Vec::new();
                for &(t, c) in &left.star {
                    let name = &self.scope.tables[t].scope.columns[c].name;
                    let in_right = right.star.iter().any(|&(rt, rc)| {
                        self.scope.tables[rt].scope.columns[rc]
                            .name
                            .eq_ignore_ascii_case(name)
                    });
                    if in_right && !names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
                        names.push(name.clone());
                    }
                }
                self.merge(&names, left, right, right_join)
            }
        }
    }

    fn merge(
        &mut self,
        names: &[String],
        left: &Node,
        right: &Node,
        right_join: bool,
    ) -> Result<(Vec<Expr>, Vec<Merged>)> {
        let mut conds = Vec::new();
        let mut merged = Vec::new();
        for name in names {
            let find = |star: &[(usize, usize)]| {
                self.scope
                    .find_visible(star, name)
                    .map_err(|_| crate::sql::bind::join_scope::ambiguous(name, "from clause"))?
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::BadField,
                            format!("Unknown column '{name}' in 'FROM'"),
                        )
                    })
            };
            let l = find(&left.star)?;
            let r = find(&right.star)?;
            let (keep, hide) = if right_join { (r, l) } else { (l, r) };
            self.scope.tables[hide.0].hidden[hide.1] = true;
            conds.push(self.equality(l, r)?);
            merged.push((keep, hide));
        }
        Ok((conds, merged))
    }

    /// `l = r` for two columns, bound as the ON clause would bind it.
    fn equality(&mut self, l: (usize, usize), r: (usize, usize)) -> Result<Expr> {
        let qualified = |(t, c): (usize, usize)| {
            let ts = &self.scope.tables[t].scope;
            let mut parts = Vec::new();
            if ts.alias.is_none() {
                parts.push(ast::Ident::with_quote('`', ts.db.clone()));
            }
            parts.push(ast::Ident::with_quote('`', ts.visible_name().to_string()));
            parts.push(ast::Ident::with_quote('`', ts.columns[c].name.clone()));
            ast::Expr::CompoundIdentifier(parts)
        };
        let e = ast::Expr::BinaryOp {
            left: Box::new(qualified(l)),
            op: ast::BinaryOperator::Eq,
            right: Box::new(qualified(r)),
        };
        let mut sc = self.scope.clone();
        sc.mask = vec![true; sc.tables.len()];
        (self.bind_on)(&sc, &e)
    }

    /// `*` of a join: merged columns, then the preserved... the left side's others, then the
    /// right side's (the right side's first for a RIGHT JOIN).
    fn merged_star(
        &self,
        left: &Node,
        right: &Node,
        merged: &[Merged],
        right_join: bool,
    ) -> Vec<(usize, usize)> {
        let is_merged = |tc: &(usize, usize)| merged.iter().any(|(k, h)| k == tc || h == tc);
        let mut star: Vec<(usize, usize)> = merged.iter().map(|(k, _)| *k).collect();
        let (first, second) = if right_join {
            (&right.star, &left.star)
        } else {
            (&left.star, &right.star)
        };
        star.extend(first.iter().filter(|tc| !is_merged(tc)));
        star.extend(second.iter().filter(|tc| !is_merged(tc)));
        star
    }
}

/// A sequence before ordering and placement.
enum Pre {
    Leaf(usize),
    Outer { inner: Vec<Pre>, on: Vec<Expr> },
}

fn flatten(raw: Raw, out: &mut Vec<Pre>) {
    match raw {
        Raw::Leaf(t) => out.push(Pre::Leaf(t)),
        Raw::Inner(v) => v.into_iter().for_each(|r| flatten(r, out)),
        Raw::Outer { outer, inner, on } => {
            flatten(*outer, out);
            let mut units = Vec::new();
            flatten(*inner, &mut units);
            out.push(Pre::Outer { inner: units, on });
        }
    }
}

fn pre_tables(p: &Pre) -> u64 {
    match p {
        Pre::Leaf(t) => 1u64 << t,
        Pre::Outer { inner, .. } => inner.iter().fold(0, |s, p| s | pre_tables(p)),
    }
}

fn and_of(mut v: Vec<Expr>) -> Option<Expr> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(Expr::And(v)),
    }
}

/// Orders sequences, places conditions and chooses access paths.
struct Arrange<'p> {
    scope: &'p JoinScope,
    tables: &'p [JoinTable],
    straight: bool,
    /// The statistics the order was chosen by: (table, epoch).
    used_stats: std::cell::RefCell<Vec<(usize, u64)>>,
}

impl Arrange<'_> {
    fn arrange(&self, mut pres: Vec<Pre>, mut conds: Vec<Expr>, bound: u64) -> Result<Vec<Unit>> {
        plan::const_equality::propagate(self.scope, &mut conds);
        let need: Vec<u64> = conds.iter().map(|c| self.scope.tables_of(c)).collect();
        if !self.straight && pres.iter().all(|p| matches!(p, Pre::Leaf(_))) {
            pres = self.order(pres, &conds, &need, bound);
        }
        // Place each conjunct at the first unit after which its tables are bound.
        let masks: Vec<u64> = pres.iter().map(pre_tables).collect();
        let mut placed: Vec<Vec<Expr>> = (0..pres.len()).map(|_| Vec::new()).collect();
        for (c, n) in conds.into_iter().zip(need) {
            let mut b = bound;
            let mut at = pres.len().saturating_sub(1);
            for (i, m) in masks.iter().enumerate() {
                b |= m;
                if n & !b == 0 {
                    at = i;
                    break;
                }
            }
            if let Some(slot) = placed.get_mut(at) {
                slot.push(c);
            }
        }
        let mut units = Vec::with_capacity(pres.len());
        let mut b = bound;
        for ((p, m), here) in pres.into_iter().zip(masks).zip(placed) {
            units.push(match p {
                Pre::Leaf(t) => Unit::Leaf(Box::new(self.leaf(t, here, b))),
                Pre::Outer { inner, on } => {
                    let inner = self.arrange(inner, on, b)?;
                    let mut tables = Vec::new();
                    collect_tables(&inner, &mut tables);
                    Unit::Outer {
                        inner,
                        tables,
                        post: and_of(here),
                    }
                }
            });
            b |= m;
        }
        Ok(units)
    }

    /// The order of a sequence of plain tables: the cheapest by [`Arrange::best_order`] for up
    /// to [`EXHAUSTIVE_TABLES`] tables, else greedy: next, the table that adds the fewest rows
    /// given those bound.
    fn order(&self, pres: Vec<Pre>, conds: &[Expr], need: &[u64], bound: u64) -> Vec<Pre> {
        let mut left: Vec<usize> = pres
            .iter()
            .filter_map(|p| match p {
                Pre::Leaf(t) => Some(*t),
                Pre::Outer { .. } => None,
            })
            .collect();
        if left.len() <= EXHAUSTIVE_TABLES {
            return self
                .best_order(&left, conds, need, bound)
                .into_iter()
                .map(Pre::Leaf)
                .collect();
        }
        let mut out = Vec::with_capacity(left.len());
        let mut b = bound;
        while !left.is_empty() {
            let mut best = 0;
            let mut best_rows = f64::INFINITY;
            for (i, &t) in left.iter().enumerate() {
                let preds = usable(conds, need, b, t);
                let rows = self.fanout(t, &preds, b);
                if rows < best_rows {
                    best = i;
                    best_rows = rows;
                }
            }
            let t = left.remove(best);
            b |= 1u64 << t;
            out.push(Pre::Leaf(t));
        }
        out
    }

    /// The order of `tables` that reads the fewest rows in all: the sum, over the tables in
    /// order, of the rows the tables before produce times the table's [`Arrange::fanout`]
    /// (the rows it adds per such row), or its rows once for a table hash-joined. Dynamic
    /// programming over the subsets of tables (a table's fanout depends only on which tables are
    /// bound before it, not on their order);
    /// on equal cost the order closer to the written one wins.
    fn best_order(&self, tables: &[usize], conds: &[Expr], need: &[u64], bound: u64) -> Vec<usize> {
        let n = tables.len();
        let mask_of = |set: usize| {
            (0..n)
                .filter(|i| set & (1 << i) != 0)
                .fold(bound, |b, i| b | 1u64 << tables[i])
        };
        // best[set] = (cost, rows, position of the table read last).
        let mut best: Vec<(f64, f64, usize)> = vec![(f64::INFINITY, 0.0, 0); 1 << n];
        best[0] = (0.0, 1.0, 0);
        for set in 1..(1usize << n) {
            // The last table read: highest positions first, so that on a tie the earlier
            // written tables come first.
            for i in (0..n).rev().filter(|i| set & (1 << i) != 0) {
                let before = set & !(1 << i);
                let (cost, rows, _) = best[before];
                if !cost.is_finite() {
                    continue;
                }
                let b = mask_of(before);
                let t = tables[i];
                let preds = usable(conds, need, b, t);
                let out = rows * self.fanout(t, &preds, b);
                // A table scanned without an index but joined by an equality is read once into
                // a hash table (`leaf`), not once per row before it.
                let hashed = before != 0
                    && matches!(self.access(t, &preds, b), Access::FullScan)
                    && self.hash_key(t, &preds, b).is_some();
                let read = if hashed { out / rows } else { out };
                let total = cost + read;
                if total < best[set].0 {
                    best[set] = (total, out, i);
                }
            }
        }
        let mut order = Vec::with_capacity(n);
        let mut set = (1usize << n) - 1;
        while set != 0 {
            let i = best[set].2;
            order.push(tables[i]);
            set &= !(1 << i);
        }
        order.reverse();
        order
    }

    /// Rows expected from table `t` per row of the tables bound before it.
    fn fanout(&self, t: usize, preds: &[&Expr], bound: u64) -> f64 {
        let tref = match &self.tables[t] {
            JoinTable::Table(tref) => tref,
            // A derived table's size is known only once it runs: a guess.
            JoinTable::Derived(_) => return DERIVED_ROWS,
        };
        let access = self.access(t, preds, bound);
        match &access {
            Access::FullScan => tref.table.approx_rows().max(1) as f64,
            Access::Index { index, eq, range } => {
                if plan::estimate::unique_lookup(&tref.def, *index, eq, range.is_some()) {
                    return 1.0; // no statistics needed: the plan does not depend on them
                }
                let stats = tref.table.stats();
                let mut used = self.used_stats.borrow_mut();
                if !used.iter().any(|&(x, _)| x == t) {
                    used.push((t, stats.epoch));
                }
                drop(used);
                let constant = plan::estimate::keys_fixed(eq);
                plan::estimate::index_rows(
                    &tref.table,
                    &stats,
                    &tref.def,
                    *index,
                    eq,
                    range.is_some(),
                    constant,
                )
            }
        }
    }

    /// The access path of table `t` given the tables bound before it.
    fn access(&self, t: usize, preds: &[&Expr], bound: u64) -> Access {
        let jt = &self.scope.tables[t];
        let (off, width) = (jt.offset, jt.scope.columns.len());
        let local = move |e: &Expr| match e.zoned_col().unwrap_or(e) {
            Expr::Col(i) if (off..off + width).contains(i) => Some(i - off),
            _ => None,
        };
        let key_ok = |k: &Expr, dt: &DataType| self.key_ok(k, dt, bound);
        let src = KeySource {
            local: &local,
            key_ok: &key_ok,
        };
        match &self.tables[t] {
            JoinTable::Table(tref) => plan::choose_access_for(&tref.def, preds, &src),
            JoinTable::Derived(_) => Access::FullScan,
        }
    }

    /// Can `k` be a key of a column of type `dt` once the tables `bound` are read?
    fn key_ok(&self, k: &Expr, dt: &DataType, bound: u64) -> bool {
        if k.is_constant() {
            return true;
        }
        let Expr::Col(j) = k else { return false };
        if bound & (1u64 << self.scope.table_of(*j)) == 0 {
            return false;
        }
        let class = self.scope.col_type(*j).class;
        if dt.is_text() || dt.is_binary() {
            matches!(class, Class::Str | Class::Bin)
        } else if dt.is_integer() {
            matches!(class, Class::Int | Class::Decimal)
        } else {
            let c = crate::sql::bind::sqltype::SqlType::from_data_type(dt, true).class;
            c == class && !matches!(c, Class::Double)
        }
    }

    fn leaf(&self, t: usize, filter: Vec<Expr>, bound: u64) -> Leaf {
        let preds: Vec<&Expr> = filter.iter().collect();
        let access = self.access(t, &preds, bound);
        let me = 1u64 << t;
        let local: Vec<Expr> = filter
            .iter()
            .filter(|c| self.scope.tables_of(c) & !me == 0)
            .cloned()
            .collect();
        let hash = match access {
            Access::FullScan => self.hash_key(t, &preds, bound),
            _ => None,
        };
        Leaf {
            table: t,
            access,
            hash,
            filter: and_of(filter),
            local: and_of(local),
        }
    }

    /// An equality between a column of `t` and a bound column of the same kind of type.
    fn hash_key(&self, t: usize, filter: &[&Expr], bound: u64) -> Option<HashKey> {
        let off = self.scope.tables[t].offset;
        for &c in filter {
            let Expr::Cmp(CmpOp::Eq, a, b, coll) = c else {
                continue;
            };
            let (Expr::Col(x), Expr::Col(y)) = (a.as_ref(), b.as_ref()) else {
                continue;
            };
            let (mine, other) = match (self.scope.table_of(*x) == t, self.scope.table_of(*y) == t) {
                (true, false) => (*x, *y),
                (false, true) => (*y, *x),
                _ => continue,
            };
            if bound & (1u64 << self.scope.table_of(other)) == 0 {
                continue;
            }
            let (ca, cb) = (
                self.scope.col_type(mine).class,
                self.scope.col_type(other).class,
            );
            let same = matches!(
                (ca, cb),
                (Class::Int | Class::Decimal, Class::Int | Class::Decimal)
                    | (Class::Str, Class::Str)
                    | (Class::Bin, Class::Bin)
                    | (Class::Date, Class::Date)
                    | (Class::DateTime, Class::DateTime)
            );
            if same {
                return Some(HashKey {
                    build: mine - off,
                    probe: Expr::Col(other),
                    coll: *coll,
                });
            }
        }
        None
    }
}

fn collect_tables(units: &[Unit], out: &mut Vec<usize>) {
    for u in units {
        match u {
            Unit::Leaf(l) => out.push(l.table),
            Unit::Outer { tables, .. } => out.extend(tables),
        }
    }
}

/// A virtual table of a system schema in a join (`information_schema.key_column_usage AS kc,
/// information_schema.table_constraints AS c`, as ORMs' introspection reads them): joined as
/// the derived table `(SELECT * FROM db.name) AS alias`, materialized when read. None for any
/// other table.
fn virtual_as_derived(
    db: &str,
    name: &str,
    alias: Option<&ast::TableAlias>,
) -> Option<ast::TableFactor> {
    if !plan::is_system_schema(db) {
        return None;
    }
    crate::sql::exec::virtual_tables::definition(db, name)?;
    let quote = |s: &str| format!("`{}`", s.replace('`', "``"));
    let sql = format!("SELECT * FROM {}.{}", quote(db), quote(name));
    let dialect = sqlparser::dialect::MySqlDialect {};
    let Ok(mut stmts) = sqlparser::parser::Parser::parse_sql(&dialect, &sql) else {
        return None;
    };
    let Some(ast::Statement::Query(subquery)) = stmts.pop() else {
        return None;
    };
    let alias = alias.cloned().unwrap_or(ast::TableAlias {
        explicit: true,
        name: ast::Ident::new(name),
        columns: Vec::new(),
        at: None,
    });
    Some(ast::TableFactor::Derived {
        lateral: false,
        subquery,
        alias: Some(alias),
        sample: None,
    })
}

/// The conditions that can be checked on table `t` once the tables of `bound` are read
/// (`need[i]`: the tables condition `i` reads).
fn usable<'c>(conds: &'c [Expr], need: &[u64], bound: u64, t: usize) -> Vec<&'c Expr> {
    let have = bound | 1u64 << t;
    conds
        .iter()
        .zip(need)
        .filter(|(_, n)| *n & !have == 0)
        .map(|(c, _)| c)
        .collect()
}
