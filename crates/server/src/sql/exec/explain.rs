//! EXPLAIN: Cohort's plan in MariaDB 10.11's forms.
//!
//! The plan of a statement is first described as a tree of [`Block`]s (one per SELECT, set
//! operation or DML statement, with the tables each reads and the blocks nested in it:
//! subqueries, derived tables, CTE references), numbered as MariaDB numbers its SELECTs: in
//! the order they appear in the text (the statement's own SELECT is 1, a CTE's body comes
//! after the SELECT that carries the WITH). That tree is then printed
//!
//! * as the table of `EXPLAIN` (columns id, select_type, table, type, possible_keys, key,
//!   key_len, ref, rows, Extra; `EXPLAIN EXTENDED` adds `filtered`, `EXPLAIN PARTITIONS` a
//!   `partitions` column, always NULL: Cohort has no partitioned tables). A SELECT's nested
//!   blocks follow its own rows, the last one in the text first, as MariaDB prints them; a set
//!   operation that deduplicates (or sorts) ends with its `UNION RESULT` / `INTERSECT RESULT`
//!   / `EXCEPT RESULT` row (`UNIT RESULT` when the operators are mixed);
//! * as `EXPLAIN FORMAT=JSON`: MariaDB's `query_block` / `nested_loop` / `table` objects,
//!   `union_result` with its `query_specifications`, a derived table's body under
//!   `materialized`, subqueries under `subqueries`, `attached_condition` printed from the
//!   bound condition (`exec/explain/cond.rs`);
//! * for `ANALYZE stmt` (`exec/analyze.rs` runs the reads and counts them): the table with
//!   `r_rows` (rows read per loop) after `rows` and `filtered`, `r_filtered` (percentage the
//!   conditions kept) before Extra, a set operation's result row with the rows of the result;
//!   `ANALYZE FORMAT=JSON` adds `r_loops`, `r_rows`, `r_filtered` to the JSON.
//!
//! Statement forms: `EXPLAIN` / `DESCRIBE` / `DESC` [`EXTENDED` | `PARTITIONS` |
//! `FORMAT=TRADITIONAL` | `FORMAT=JSON`] of SELECT, WITH, a parenthesized query, INSERT /
//! REPLACE (… VALUES, … SELECT), UPDATE, DELETE; `ANALYZE [FORMAT=JSON]` of SELECTs and set
//! operations, derived tables and CTEs (not of subqueries, recursive CTEs or DML: 1235). `EXPLAIN FOR CONNECTION`
//! and `SHOW EXPLAIN` are refused (1235): sessions do not publish their running plans.
//!
//! The access type names what Cohort's plan does, as MariaDB names it:
//!
//! * `const`: every part of the primary key or of a unique index equal to a constant;
//! * `eq_ref`: the same with keys from tables read before (a join);
//! * `ref`: equality on an index prefix (not unique, or partly);
//! * `range`: a range, or an IN list, on an index (and any index read of a single-table
//!   UPDATE / DELETE, which MariaDB calls a range too);
//! * `index`: a full read of the primary key in its order, for an ORDER BY or GROUP BY that
//!   takes it as it comes (`exec/scan_order.rs`, `explain/key_order.rs`);
//! * `ALL`: a full scan (a hash join's table too: "Using join buffer").
//!
//! Where Cohort's plan differs from MariaDB's, EXPLAIN says what Cohort does:
//!
//! * derived tables and CTE references are always materialized (`<derivedN>` with a `DERIVED`
//!   block): MariaDB merges a simple one into the outer query (`SIMPLE`);
//! * `IN (SELECT …)` is never a semi-join: an uncorrelated one that can be hashed is
//!   `MATERIALIZED` (its rows are read once into a hash set), another uncorrelated one a
//!   `SUBQUERY`, a correlated one a `DEPENDENT SUBQUERY` (MariaDB, with its default
//!   optimizer_switch, shows a semi-join: `<subquery2>` and `MATERIALIZED`);
//! * no covering reads of a secondary index: "Using index" only for a primary-key read whose
//!   statement needs only key columns; no index condition pushdown;
//! * a set operation materializes its operands; its `… RESULT` row is shown when it removes
//!   duplicates or sorts, as in MariaDB;
//! * EXPLAIN EXTENDED adds no note 1003 with the rewritten query;
//! * `possible_keys` names only the index the plan uses (MariaDB lists every candidate);
//! * FORMAT=JSON writes MariaDB's `filesort` / `temporary_table` / `read_sorted_file` wrappers
//!   (GROUP BY, DISTINCT, window functions, a join's ORDER BY, a single table's ORDER BY), but
//!   a hash-joined table is only `"block-nl-join": {"join_type": "BNL"}` (no buffer details,
//!   the table object stays at its place in `nested_loop`), a recursive CTE's steps have no
//!   `"operation"`, and there are no `cost` members;
//! * ANALYZE FORMAT=JSON has no timings (`query_optimization`, `r_total_time_ms`,
//!   `r_table_time_ms`, `r_other_time_ms`) and no `r_engine_stats`: Cohort does not time each
//!   read; a const table's counts are real counts (MariaDB reads it while planning and shows
//!   NULL);
//!
//! `rows` is the planner's estimate (index statistics: `plan/estimate.rs`), not a count;
//! `filtered` is 100.

use crate::sql::bind::sqltype::SqlType;
use crate::sql::bind::{coldef, join_scope::JoinScope};
use crate::sql::exec::cte::DerivedBody;
use crate::sql::exec::dml::{DeletePlan, InsertPlan, InsertSource, UpdatePlan};
mod cond;
mod json;
mod key_order;

use crate::sql::exec::query::{Derived, Node, Op, QueryPlan};
use crate::sql::exec::select::SelectPlan;
use crate::sql::expr::subquery::{Kind, Subquery};
use crate::sql::expr::Expr;
use crate::sql::plan::join::{JoinTable, Leaf, Unit};
use crate::sql::plan::{self, Access, PartCond, Source, TableRef};
use crate::storage::TableDef;
use crate::types::{DataType, Value};
use cohort_protocol::column::ColumnDefinition;
use std::collections::HashMap;
use std::sync::Arc;

/// The form asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Traditional,
    /// `EXPLAIN EXTENDED`: with `filtered`.
    Extended,
    /// `EXPLAIN PARTITIONS`: with `partitions`.
    Partitions,
    Json,
    /// `ANALYZE stmt`: with `r_rows`, `filtered` and `r_filtered`.
    Analyze,
    /// `ANALYZE FORMAT=JSON stmt`.
    AnalyzeJson,
}

/// The result columns of EXPLAIN in `format`.
pub fn columns(format: Format) -> Vec<ColumnDefinition> {
    let int = |n: &str| coldef::expr_column(n, &SqlType::int(3).with_nullable(true));
    let text =
        |n: &str, len: u32| coldef::expr_column(n, &SqlType::varchar(len).with_nullable(true));
    if matches!(format, Format::Json | Format::AnalyzeJson) {
        let name = match format {
            Format::Json => "EXPLAIN",
            _ => "ANALYZE",
        };
        return vec![coldef::expr_column(
            name,
            &SqlType::varchar(65535).with_nullable(false),
        )];
    }
    let mut cols = vec![int("id"), text("select_type", 19), text("table", 64)];
    if format == Format::Partitions {
        cols.push(text("partitions", 64));
    }
    cols.extend([
        text("type", 10),
        text("possible_keys", 4096),
        text("key", 64),
        text("key_len", 4096),
        text("ref", 2048),
        coldef::expr_column("rows", &SqlType::int(10).with_nullable(true)),
    ]);
    if format == Format::Analyze {
        cols.push(text("r_rows", 23));
        cols.push(text("filtered", 23));
        cols.push(text("r_filtered", 23));
    }
    if format == Format::Extended {
        cols.push(coldef::expr_column(
            "filtered",
            &SqlType::decimal(4, 2).with_nullable(true),
        ));
    }
    cols.push(text("Extra", 255));
    cols
}

// ---------------------------------------------------------------------------------------------
// The plan tree

/// A table read.
struct Tab {
    name: String,
    kind: Option<&'static str>,
    key: Option<String>,
    key_len: Option<u32>,
    used_parts: Vec<String>,
    refs: Option<Vec<String>>,
    rows: Option<u64>,
    extra: Vec<&'static str>,
    /// The block of a derived table (an index into the SELECT's children).
    derived: Option<usize>,
    /// The text of the condition checked on its rows (FORMAT=JSON's `attached_condition`).
    cond: Option<String>,
    /// ANALYZE: (loops, rows read, rows kept), if it was read.
    r: Option<(u64, u64, u64)>,
}

impl Tab {
    fn new(name: String) -> Tab {
        Tab {
            name,
            kind: Some("ALL"),
            key: None,
            key_len: None,
            used_parts: Vec::new(),
            refs: None,
            rows: None,
            extra: Vec::new(),
            derived: None,
            cond: None,
            r: None,
        }
    }
}

enum Block {
    Select(Sel),
    Set(SetBlock),
}

struct Sel {
    id: u64,
    select_type: String,
    /// A JSON `"operation"` for a set operation's later operands.
    operation: Option<&'static str>,
    tables: Vec<Tab>,
    /// Extra of a SELECT without tables / of an INSERT … VALUES (None: NULL).
    message: Option<&'static str>,
    /// `INSERT … VALUES`: the target line (MariaDB's `INSERT` row, Extra NULL).
    insert: bool,
    /// A single-table UPDATE / DELETE ("update" / "delete"; JSON's `"update": 1`).
    dml: Option<&'static str>,
    /// ORDER BY of a single-table SELECT sorted after the read, or the keys a temporary table
    /// is sorted by (JSON's `sort_key`).
    sort_key: Option<String>,
    /// Grouping, DISTINCT or window functions go through a temporary table (JSON's
    /// `temporary_table`).
    temp: bool,
    children: Vec<Block>,
}

struct SetBlock {
    /// "union", "intersect", "except" or "unit" (mixed).
    name: &'static str,
    parts: Vec<Block>,
    /// Ids of the operands, for `<union1,2>`.
    ids: Vec<u64>,
    /// It has a result row (deduplicates or sorts).
    result: bool,
    filesort: bool,
    /// ANALYZE: the rows of its result.
    r_rows: Option<u64>,
}

impl Block {
    fn first_id(&self) -> u64 {
        match self {
            Block::Select(s) => s.id,
            Block::Set(s) => s.parts.first().map_or(0, Block::first_id),
        }
    }

    fn first_select(&mut self) -> Option<&mut Sel> {
        match self {
            Block::Select(s) => Some(s),
            Block::Set(s) => s.parts.first_mut().and_then(Block::first_select),
        }
    }
}

/// Builds the tree, numbering SELECTs in text order.
#[derive(Default)]
struct Builder {
    next: u64,
    /// Recursive CTE working tables: id → the select id of the CTE's body.
    working: HashMap<u64, u64>,
    /// The column names of the enclosing SELECTs (for outer references), innermost last.
    outer: Vec<Vec<String>>,
    /// Subquery ids by the subquery's address.
    subqueries: HashMap<usize, u64>,
    /// ANALYZE's counts (`exec/analyze.rs`).
    stats: crate::sql::exec::join::Counts,
    /// `db.table.column` names of the enclosing SELECTs' columns, innermost last (`ref`).
    refs: Vec<Vec<String>>,
}

impl Builder {
    fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// A query expression; `first` is the select_type of its first SELECT.
    fn query(&mut self, q: &QueryPlan, first: &str, dependent: bool) -> Block {
        let mut b = self.query_node(q, first, dependent);
        if let Block::Set(s) = &mut b {
            if let Some(r) = self.stats.get(&(q as *const QueryPlan as usize)) {
                s.r_rows = Some(r.1);
            }
        }
        b
    }

    fn query_node(&mut self, q: &QueryPlan, first: &str, dependent: bool) -> Block {
        match &q.node {
            Node::Select(p) => Block::Select(self.select(p, first)),
            Node::Sorted(s) => {
                let mut b = self.query(&s.input, first, dependent);
                match &mut b {
                    Block::Set(set) => {
                        set.result = true;
                        set.filesort = !s.order.is_empty();
                    }
                    Block::Select(sel) => {
                        if !s.order.is_empty() {
                            if let Some(t) = sel.tables.first_mut() {
                                if !t.extra.contains(&"Using filesort") {
                                    t.extra.push("Using filesort");
                                }
                            }
                        }
                    }
                }
                b
            }
            Node::SetOp(s) => {
                let mut parts = Vec::new();
                let mut ids = Vec::new();
                for (i, part) in s.parts.iter().enumerate() {
                    let (ty, op) = match i {
                        0 => (first.to_string(), None),
                        _ => {
                            let op = match s.ops[i - 1].0 {
                                Op::Union => "UNION",
                                Op::Intersect => "INTERSECT",
                                Op::Except => "EXCEPT",
                            };
                            let dep = if dependent { "DEPENDENT " } else { "" };
                            (format!("{dep}{op}"), Some(op))
                        }
                    };
                    let block = match &part.node {
                        Node::Select(_) => {
                            let mut b = self.query(part, &ty, dependent);
                            if let Some(sel) = b.first_select() {
                                sel.operation = op;
                            }
                            b
                        }
                        // A nested set operation or parenthesized query: MariaDB reads it as a
                        // derived table of the operand.
                        _ => {
                            let inner = self.query(part, "DERIVED", dependent);
                            let id = self.id();
                            let mut tab = Tab::new(format!("<derived{}>", inner.first_id()));
                            tab.derived = Some(0);
                            Block::Select(Sel {
                                id,
                                select_type: ty,
                                operation: op,
                                tables: vec![tab],
                                message: None,
                                insert: false,
                                dml: None,
                                sort_key: None,
                                temp: false,
                                children: vec![inner],
                            })
                        }
                    };
                    ids.push(block.first_id());
                    parts.push(block);
                }
                let all_ops: Vec<Op> = s.ops.iter().map(|o| o.0).collect();
                let name = if all_ops.iter().all(|o| *o == all_ops[0]) {
                    match all_ops.first() {
                        Some(Op::Intersect) => "intersect",
                        Some(Op::Except) => "except",
                        _ => "union",
                    }
                } else {
                    "unit"
                };
                let result = !s.ops.iter().all(|(o, all)| *o == Op::Union && *all);
                Block::Set(SetBlock {
                    name,
                    parts,
                    ids,
                    result,
                    filesort: false,
                    r_rows: None,
                })
            }
            Node::Recursive(r) => {
                let mut parts = Vec::new();
                let mut ids = Vec::new();
                let base = self.next + 1;
                self.working.insert(r.id, base);
                for (i, a) in r.anchors.iter().enumerate() {
                    let ty = if i == 0 { first } else { "UNION" };
                    let b = self.query(a, ty, dependent);
                    ids.push(b.first_id());
                    parts.push(b);
                }
                for s in &r.steps {
                    let b = self.query(s, "RECURSIVE UNION", dependent);
                    ids.push(b.first_id());
                    parts.push(b);
                }
                Block::Set(SetBlock {
                    name: "union",
                    parts,
                    ids,
                    result: true,
                    filesort: false,
                    r_rows: None,
                })
            }
        }
    }

    /// A SELECT and the blocks nested in it.
    fn select(&mut self, p: &SelectPlan, select_type: &str) -> Sel {
        let id = self.id();
        let mut sel = Sel {
            id,
            select_type: select_type.to_string(),
            operation: None,
            tables: Vec::new(),
            message: None,
            insert: false,
            dml: None,
            sort_key: None,
            temp: false,
            children: Vec::new(),
        };
        let names = column_names(p);
        // The enclosing SELECTs' names are in sight of this one's tables; its own, of the
        // blocks nested in it.
        let own_refs = ref_names(p);
        // The conditions checked on each table's rows: (table, condition).
        let mut conds: Vec<(usize, &Expr)> = Vec::new();
        // Nested blocks in text order: select list, FROM, WHERE, GROUP BY / HAVING, ORDER BY.
        let order = subquery_order(p);
        let mut pending = order.iter().peekable();
        let in_items = |s: &&&Arc<Subquery>| {
            p.items
                .iter()
                .any(|i| holds(&i.expr, s) && !p.filter.as_ref().is_some_and(|f| holds(f, s)))
        };
        while let Some(s) = pending.next_if(in_items) {
            let b = self.nested(&names, &own_refs, |me| me.subquery(s));
            sel.children.push(b);
        }
        if let Some(j) = &p.join {
            let mut leaves = Vec::new();
            collect(&j.units, &mut leaves);
            let mut derived_ids = HashMap::new();
            for (t, jt) in j.tables.iter().enumerate() {
                if let JoinTable::Derived(d) = jt {
                    if matches!(d.body, DerivedBody::Working(_)) {
                        continue;
                    }
                    let b = self.nested(&names, &own_refs, |me| me.derived(d));
                    derived_ids.insert(t, (b.first_id(), sel.children.len()));
                    sel.children.push(b);
                }
            }
            for (i, leaf) in leaves.iter().enumerate() {
                let mut tab = match &j.tables[leaf.table] {
                    JoinTable::Table(t) => {
                        let mut tab = access_tab(t, &leaf.access, Some(&j.scope), &self.refs);
                        tab.name = j.scope.tables[leaf.table].scope.visible_name().to_string();
                        tab
                    }
                    JoinTable::Derived(d) => self.derived_tab(d, derived_ids.get(&leaf.table)),
                };
                tab.r = self.stats.get(&(*leaf as *const Leaf as usize)).copied();
                if !covered(leaf.filter.as_ref(), &leaf.access, &tab) {
                    tab.extra.push("Using where");
                    if let Some(f) = &leaf.filter {
                        conds.push((sel.tables.len(), f));
                    }
                }
                if leaf.hash.is_some() || (i > 0 && tab.kind == Some("ALL")) {
                    tab.extra.push("Using join buffer (flat, BNL join)");
                }
                sel.tables.push(tab);
            }
            if let Some(f) = &p.filter {
                if let Some(last) = sel.tables.last_mut() {
                    if !last.extra.contains(&"Using where") {
                        last.extra.push("Using where");
                    }
                    conds.push((sel.tables.len() - 1, f));
                }
            }
            if !p.order.is_empty() || p.group.as_ref().is_some_and(|g| !g.keys.is_empty()) {
                if let Some(first) = sel.tables.first_mut() {
                    first.extra.insert(0, "Using temporary; Using filesort");
                }
            }
        } else {
            match &p.source {
                Some(Source::Table(t)) => {
                    let mut tab = access_tab(t, &p.access, None, &self.refs);
                    tab.name = t.scope.visible_name().to_string();
                    tab.r = self.stats.get(&(p as *const SelectPlan as usize)).copied();
                    if !covered(p.filter.as_ref(), &p.access, &tab) {
                        tab.extra.push("Using where");
                        if let Some(f) = &p.filter {
                            conds.push((0, f));
                        }
                    }
                    key_order::apply(p, t, &mut tab);
                    sel.tables.push(tab);
                }
                Some(Source::Derived(d)) => {
                    let at = match &d.body {
                        // The working table of a recursive CTE: read, not built, here.
                        DerivedBody::Working(_) => None,
                        DerivedBody::Query(_) => {
                            let b = self.nested(&names, &own_refs, |me| me.derived(d));
                            let at = (b.first_id(), sel.children.len());
                            sel.children.push(b);
                            Some(at)
                        }
                    };
                    let mut tab = self.derived_tab(d, at.as_ref());
                    tab.r = self.stats.get(&(p as *const SelectPlan as usize)).copied();
                    if let Some(f) = &p.filter {
                        tab.extra.push("Using where");
                        conds.push((0, f));
                    }
                    sel.tables.push(tab);
                }
                Some(Source::Virtual(v)) => {
                    let mut tab = Tab::new(v.scope.visible_name().to_string());
                    if let Some(f) = &p.filter {
                        tab.extra.push("Using where");
                        conds.push((0, f));
                    }
                    sel.tables.push(tab);
                }
                None => sel.message = Some("No tables used"),
            }
            if let Some(tab) = sel.tables.first_mut() {
                let grouped = p.group.as_ref().is_some_and(|g| !g.keys.is_empty());
                let in_order = p.group.as_ref().is_some_and(|g| g.in_scan_order)
                    && (p.order.is_empty() || p.sorted_by_scan);
                if grouped && in_order {
                    // Groups read one after another in key order (`exec/scan_order.rs`).
                } else if grouped {
                    tab.extra.push("Using temporary; Using filesort");
                } else if p.window.is_some() || p.distinct {
                    // Computed over a temporary table, as MariaDB does.
                    tab.extra.push("Using temporary");
                }
                if !grouped && !p.order.is_empty() && !p.sorted_by_scan {
                    tab.extra.push("Using filesort");
                }
            }
        }
        for s in pending {
            let b = self.nested(&names, &own_refs, |me| me.subquery(s));
            sel.children.push(b);
        }
        for (i, f) in conds {
            let n = cond::Names {
                own: &names,
                outer: &self.outer,
                subqueries: &self.subqueries,
            };
            sel.tables[i].cond = Some(cond::text(f, &n));
        }
        let extra = sel
            .tables
            .first()
            .map(|t| t.extra.clone())
            .unwrap_or_default();
        let sorted_temp = extra.contains(&"Using temporary; Using filesort");
        sel.temp = sorted_temp || extra.contains(&"Using temporary");
        let n = cond::Names {
            own: &names,
            outer: &self.outer,
            subqueries: &self.subqueries,
        };
        let key = |e: Option<&Expr>, desc: bool| {
            let t = e.map_or("?".into(), |e| cond::text(e, &n));
            if desc {
                format!("{t} desc")
            } else {
                t
            }
        };
        let order_keys = || -> String {
            let keys: Vec<String> = p
                .order
                .iter()
                .map(|k| {
                    let e = p
                        .items
                        .get(k.col)
                        .map(|i| &i.expr)
                        .or_else(|| p.hidden.get(k.col - p.items.len()));
                    key(e, k.desc)
                })
                .collect();
            keys.join(", ")
        };
        match &p.group {
            Some(g) if sorted_temp && !g.keys.is_empty() => {
                let keys: Vec<String> = g.keys.iter().map(|(e, _)| key(Some(e), false)).collect();
                sel.sort_key = Some(keys.join(", "));
            }
            _ if sorted_temp || (p.join.is_none() && extra.contains(&"Using filesort")) => {
                sel.sort_key = Some(order_keys());
            }
            _ => {}
        }
        sel
    }

    /// Build a block nested in a SELECT whose columns are `names` / `refs`.
    fn nested(
        &mut self,
        names: &[String],
        refs: &[String],
        f: impl FnOnce(&mut Self) -> Block,
    ) -> Block {
        self.outer.push(names.to_vec());
        self.refs.push(refs.to_vec());
        let b = f(self);
        self.outer.pop();
        self.refs.pop();
        b
    }

    fn subquery(&mut self, s: &Arc<Subquery>) -> Block {
        self.subqueries
            .insert(Arc::as_ptr(s) as usize, self.next + 1);
        let ty = match (&s.kind, s.correlated) {
            (_, true) => "DEPENDENT SUBQUERY",
            (Kind::In { hashable: true, .. }, false) => "MATERIALIZED",
            _ => "SUBQUERY",
        };
        Block::Select(self.select(&s.plan, ty))
    }

    fn derived(&mut self, d: &Derived) -> Block {
        match &d.body {
            DerivedBody::Query(q) => self.query(q, "DERIVED", false),
            DerivedBody::Working(_) => Block::Set(SetBlock {
                name: "union",
                parts: Vec::new(),
                ids: Vec::new(),
                result: false,
                filesort: false,
                r_rows: None,
            }),
        }
    }

    /// The row of a derived table read whole; `at` is (its block's id, index in children).
    fn derived_tab(&self, d: &Derived, at: Option<&(u64, usize)>) -> Tab {
        match &d.body {
            DerivedBody::Working(w) => {
                let id = self.working.get(w).copied().unwrap_or(0);
                Tab::new(format!("<derived{id}>"))
            }
            DerivedBody::Query(q) => {
                let (id, index) = at.copied().unwrap_or((0, 0));
                let mut tab = Tab::new(format!("<derived{id}>"));
                tab.derived = Some(index);
                tab.rows = Some(estimate(q));
                tab
            }
        }
    }

    /// The single table an UPDATE or DELETE reads, with the subqueries of its clauses.
    fn dml(
        &mut self,
        table: &TableRef,
        access: &Access,
        filter: Option<&Expr>,
        subq: Option<&crate::sql::exec::subquery::DmlSubqueries>,
        sorted: bool,
        kind: &'static str,
    ) -> Sel {
        let id = self.id();
        let mut tab = access_tab(table, access, None, &self.refs);
        tab.name = table.scope.visible_name().to_string();
        if tab.kind != Some("ALL") {
            // A single-table UPDATE / DELETE reads through the range optimizer in MariaDB.
            tab.kind = Some("range");
            tab.refs = None;
        }
        if filter.is_some() || subq.is_some_and(|s| s.post.is_some()) {
            tab.extra.push("Using where");
        }
        if sorted {
            tab.extra.push("Using filesort");
        }
        let names: Vec<String> = table
            .scope
            .columns
            .iter()
            .map(|c| format!("{}.{}", table.scope.visible_name(), c.name))
            .collect();
        let mut sel = Sel {
            id,
            select_type: "SIMPLE".into(),
            operation: None,
            tables: vec![tab],
            message: None,
            insert: false,
            dml: Some(kind),
            sort_key: None,
            temp: false,
            children: Vec::new(),
        };
        let refs: Vec<String> = table
            .scope
            .columns
            .iter()
            .map(|c| format!("{}.{}.{}", table.db, table.scope.visible_name(), c.name))
            .collect();
        if let Some(s) = subq {
            for q in &s.list {
                let b = self.nested(&names, &refs, |me| me.subquery(q));
                sel.children.push(b);
            }
        }
        let conjuncts: Vec<&Expr> = filter
            .into_iter()
            .chain(subq.and_then(|s| s.post.as_ref()))
            .collect();
        if !conjuncts.is_empty() {
            let n = cond::Names {
                own: &names,
                outer: &self.outer,
                subqueries: &self.subqueries,
            };
            let texts: Vec<String> = conjuncts.iter().map(|c| cond::text(c, &n)).collect();
            sel.tables[0].cond = Some(texts.join(" and "));
        }
        sel
    }
}

/// A guess at the rows of a query: the estimated rows of its first SELECT's table reads
/// (`access_tab`: index statistics), multiplied.
fn estimate(q: &QueryPlan) -> u64 {
    match &q.node {
        Node::Select(p) => match (&p.join, &p.source) {
            (Some(j), _) => {
                let mut leaves = Vec::new();
                collect(&j.units, &mut leaves);
                leaves
                    .iter()
                    .map(|l| match &j.tables[l.table] {
                        JoinTable::Table(t) => access_tab(t, &l.access, Some(&j.scope), &[])
                            .rows
                            .unwrap_or(1)
                            .max(1),
                        JoinTable::Derived(_) => 1,
                    })
                    .fold(1u64, |a, b| a.saturating_mul(b))
            }
            (None, Some(Source::Table(t))) => access_tab(t, &p.access, None, &[]).rows.unwrap_or(0),
            _ => 1,
        },
        Node::Sorted(s) => estimate(&s.input),
        Node::SetOp(s) => s.parts.iter().map(estimate).fold(0u64, u64::saturating_add),
        Node::Recursive(r) => r.anchors.iter().map(estimate).sum(),
    }
}

/// `table.column` of each column of the SELECT's row.
fn column_names(p: &SelectPlan) -> Vec<String> {
    let scoped = |s: &crate::sql::bind::TableScope| -> Vec<String> {
        s.columns
            .iter()
            .map(|c| format!("{}.{}", s.visible_name(), c.name))
            .collect()
    };
    if let Some(j) = &p.join {
        return j
            .scope
            .tables
            .iter()
            .flat_map(|t| scoped(&t.scope))
            .collect();
    }
    p.source
        .as_ref()
        .map_or_else(Vec::new, |s| scoped(s.scope()))
}

/// Does `e` hold the subquery `s` (not inside another subquery)?
fn holds(e: &Expr, s: &Arc<Subquery>) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Subquery(y) if Arc::ptr_eq(y, s)));
    found
}

/// The subqueries of a SELECT in text order as far as the plan tells: those of the select
/// list, then WHERE (and ON), then the rest in binding order.
fn subquery_order(p: &SelectPlan) -> Vec<&Arc<Subquery>> {
    let mut out: Vec<&Arc<Subquery>> = Vec::new();
    let mut push = |e: &Expr| {
        for s in &p.subqueries {
            if holds(e, s) && !out.iter().any(|o| Arc::ptr_eq(o, s)) {
                out.push(s);
            }
        }
    };
    for i in &p.items {
        push(&i.expr);
    }
    if let Some(f) = &p.filter {
        push(f);
    }
    for s in &p.subqueries {
        if !out.iter().any(|o| Arc::ptr_eq(o, s)) {
            out.push(s);
        }
    }
    // A subquery of both the select list and WHERE counts where it first appears: the list.
    out
}

/// Mark the statement's lone SELECT `SIMPLE` (MariaDB: no subquery, derived table or UNION).
fn finish(mut b: Block, builder: &Builder) -> Block {
    if builder.next == 1 {
        if let Block::Select(s) = &mut b {
            if s.select_type == "PRIMARY" {
                s.select_type = "SIMPLE".into();
            }
        }
    }
    b
}

/// The plan tree of a SELECT statement.
pub struct Explained(Block);

pub fn of_select(p: &SelectPlan) -> Explained {
    analyzed(p, Default::default())
}

/// The plan tree of a SELECT that ANALYZE ran, with its counts (`exec/analyze.rs`).
pub fn analyzed(p: &SelectPlan, stats: crate::sql::exec::join::Counts) -> Explained {
    let mut b = Builder {
        stats,
        ..Default::default()
    };
    let block = Block::Select(b.select(p, "PRIMARY"));
    Explained(finish(block, &b))
}

pub fn of_query(q: &QueryPlan) -> Explained {
    let mut b = Builder::default();
    let block = b.query(q, "PRIMARY", false);
    Explained(finish(block, &b))
}

/// The plan tree of a query expression that ANALYZE ran: its operands' counts and the rows
/// of its result (`exec/analyze.rs`).
pub fn analyzed_query(q: &QueryPlan, stats: crate::sql::exec::join::Counts) -> Explained {
    let mut b = Builder {
        stats,
        ..Default::default()
    };
    let block = b.query(q, "PRIMARY", false);
    Explained(finish(block, &b))
}

pub fn of_update(p: &UpdatePlan) -> Explained {
    let sub = p.subq.as_deref();
    of_change(
        &p.table,
        &p.access,
        p.filter.as_ref(),
        sub,
        !p.order.is_empty(),
        "update",
    )
}

pub fn of_delete(p: &DeletePlan) -> Explained {
    let sub = p.subq.as_deref();
    of_change(
        &p.table,
        &p.access,
        p.filter.as_ref(),
        sub,
        !p.order.is_empty(),
        "delete",
    )
}

/// An UPDATE or DELETE: its one table's row, PRIMARY when subqueries follow it.
fn of_change(
    table: &TableRef,
    access: &Access,
    filter: Option<&Expr>,
    subq: Option<&crate::sql::exec::subquery::DmlSubqueries>,
    sorted: bool,
    kind: &'static str,
) -> Explained {
    let mut sel = Builder::default().dml(table, access, filter, subq, sorted, kind);
    if !sel.children.is_empty() {
        sel.select_type = "PRIMARY".into();
    }
    Explained(Block::Select(sel))
}

pub fn of_insert(p: &InsertPlan) -> Explained {
    match &p.source {
        InsertSource::Select(s) => of_select(s),
        InsertSource::Query(q) => of_query(q),
        InsertSource::Values(_) => {
            let mut b = Builder::default();
            let id = b.id();
            let mut sel = Sel {
                id,
                select_type: "INSERT".into(),
                operation: None,
                tables: vec![Tab {
                    rows: None,
                    ..Tab::new(p.table.scope.visible_name().to_string())
                }],
                message: None,
                insert: true,
                dml: None,
                sort_key: None,
                temp: false,
                children: Vec::new(),
            };
            if let Some(s) = &p.subq {
                for q in &s.list {
                    let c = b.subquery(q);
                    sel.children.push(c);
                }
            }
            Explained(Block::Select(sel))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The table form

struct Line {
    id: Option<u64>,
    select_type: String,
    table: Option<String>,
    kind: Option<&'static str>,
    key: Option<String>,
    key_len: Option<u32>,
    refs: Option<String>,
    rows: Option<u64>,
    filtered: bool,
    r: Option<(u64, u64, u64)>,
    extra: Option<String>,
}

impl Explained {
    /// The rows of the table form.
    pub fn rows(&self, format: Format) -> Vec<Vec<Value>> {
        let mut lines = Vec::new();
        table_lines(&self.0, &mut lines);
        lines
            .into_iter()
            .map(|l| {
                let s = |v: Option<String>| v.map_or(Value::Null, |s| Value::Bytes(s.into_bytes()));
                let mut row = vec![
                    l.id.map_or(Value::Null, |i| Value::Int(i as i64)),
                    s(Some(l.select_type)),
                    s(l.table),
                ];
                if format == Format::Partitions {
                    row.push(Value::Null);
                }
                row.extend([
                    s(l.kind.map(str::to_string)),
                    // A whole-index read in key order has no candidate keys from a condition.
                    s(l.key.clone().filter(|_| l.kind != Some("index"))),
                    s(l.key),
                    s(l.key_len.map(|l| l.to_string())),
                    s(l.refs),
                    l.rows.map_or(Value::Null, Value::UInt),
                ]);
                if format == Format::Analyze {
                    let r = l.r.filter(|r| r.0 > 0);
                    row.push(s(r.map(|r| format!("{:.2}", r_rows(r)))));
                    row.push(s(l.filtered.then(|| "100.00".to_string())));
                    let kept = r.filter(|_| l.filtered);
                    row.push(s(kept.map(|r| format!("{:.2}", r_filtered(r)))));
                }
                if format == Format::Extended {
                    row.push(match l.filtered {
                        true => Value::str("100.00"),
                        false => Value::Null,
                    });
                }
                row.push(s(l.extra));
                row
            })
            .collect()
    }

    /// The text of FORMAT=JSON.
    pub fn json(&self) -> String {
        json::text(&self.0)
    }
}

fn table_lines(b: &Block, out: &mut Vec<Line>) {
    match b {
        Block::Select(s) => {
            if s.tables.is_empty() {
                out.push(Line {
                    id: Some(s.id),
                    select_type: s.select_type.clone(),
                    table: None,
                    kind: None,
                    key: None,
                    key_len: None,
                    refs: None,
                    rows: None,
                    filtered: false,
                    r: None,
                    extra: s.message.map(str::to_string),
                });
            }
            for t in &s.tables {
                out.push(Line {
                    id: Some(s.id),
                    select_type: s.select_type.clone(),
                    table: Some(t.name.clone()),
                    kind: t.kind,
                    key: t.key.clone(),
                    key_len: t.key_len,
                    refs: t.refs.as_ref().map(|r| r.join(",")),
                    rows: t.rows,
                    filtered: !s.insert,
                    r: t.r,
                    extra: (!s.insert).then(|| t.extra.join("; ")),
                });
            }
            let mut children: Vec<&Block> = s.children.iter().collect();
            children.sort_by_key(|c| std::cmp::Reverse(c.first_id()));
            for c in children {
                table_lines(c, out);
            }
        }
        Block::Set(set) => {
            for p in &set.parts {
                table_lines(p, out);
            }
            if set.result && !set.ids.is_empty() {
                out.push(Line {
                    id: None,
                    select_type: format!("{} RESULT", set.name.to_ascii_uppercase()),
                    table: Some(result_name(set)),
                    kind: Some("ALL"),
                    key: None,
                    key_len: None,
                    refs: None,
                    rows: None,
                    filtered: false,
                    r: set.r_rows.map(|n| (1, n, n)),
                    extra: Some(if set.filesort { "Using filesort" } else { "" }.into()),
                });
            }
        }
    }
}

/// ANALYZE's `r_rows`: the rows read per loop.
fn r_rows((loops, read, _): (u64, u64, u64)) -> f64 {
    read as f64 / loops.max(1) as f64
}

/// ANALYZE's `r_filtered`: the percentage of the rows read that passed the conditions.
fn r_filtered((_, read, kept): (u64, u64, u64)) -> f64 {
    match read {
        0 => 100.0,
        n => kept as f64 * 100.0 / n as f64,
    }
}

fn result_name(set: &SetBlock) -> String {
    let ids: Vec<String> = set.ids.iter().map(u64::to_string).collect();
    format!("<{}{}>", set.name, ids.join(","))
}

// ---------------------------------------------------------------------------------------------
// Access paths

/// Does the index lookup alone decide the filter (no "Using where")? A const read does; an
/// equality lookup does when the filter has no conjunct beyond its key parts.
fn covered(filter: Option<&Expr>, access: &Access, tab: &Tab) -> bool {
    let Some(f) = filter else { return true };
    match (tab.kind, access) {
        (Some("const"), _) => true,
        (Some("ref" | "eq_ref"), Access::Index { eq, .. }) => plan::conjuncts(f).len() <= eq.len(),
        _ => false,
    }
}

fn collect<'a>(units: &'a [Unit], out: &mut Vec<&'a Leaf>) {
    for u in units {
        match u {
            Unit::Leaf(l) => out.push(l),
            Unit::Outer { inner, .. } => collect(inner, out),
        }
    }
}

/// `db.table.column` of each column of a SELECT's row (how `ref` names a column).
fn ref_names(p: &SelectPlan) -> Vec<String> {
    let scoped = |s: &crate::sql::bind::TableScope| -> Vec<String> {
        s.columns
            .iter()
            .map(|c| format!("{}.{}.{}", s.db, s.visible_name(), c.name))
            .collect()
    };
    if let Some(j) = &p.join {
        return j
            .scope
            .tables
            .iter()
            .flat_map(|t| scoped(&t.scope))
            .collect();
    }
    p.source
        .as_ref()
        .map_or_else(Vec::new, |s| scoped(s.scope()))
}

/// A key value known before the read (no column of this query or an enclosing one).
fn fixed(e: &Expr) -> bool {
    let mut outer = false;
    e.walk(&mut |x| outer |= matches!(x, Expr::Outer { .. }));
    !outer && e.is_constant()
}

/// The row of a table read by `access`; `outer` names the enclosing SELECTs' columns
/// (`db.table.column`, innermost last) for keys a correlated subquery takes from them.
fn access_tab(
    t: &TableRef,
    access: &Access,
    scope: Option<&JoinScope>,
    outer: &[Vec<String>],
) -> Tab {
    let rows = t.table.approx_rows();
    let mut tab = Tab::new(String::new());
    tab.rows = Some(rows);
    let Access::Index { index, eq, range } = access else {
        return tab;
    };
    let Some(idx) = plan::index_def(&t.def, *index) else {
        return tab;
    };
    let name = match index {
        None => "PRIMARY".to_string(),
        Some(_) => idx.name.clone(),
    };
    let parts = eq.len() + range.is_some() as usize;
    let key_len = idx
        .parts
        .iter()
        .take(parts)
        .map(|p| part_len(&t.def, p.column, p.prefix_len))
        .sum();
    tab.used_parts = idx
        .parts
        .iter()
        .take(parts)
        .map(|p| t.def.columns[p.column].name.clone())
        .collect();
    let unique = index.is_none() || idx.unique;
    let in_list = eq
        .iter()
        .any(|c| matches!(c, PartCond::In(l) if l.len() > 1));
    let full_eq = unique
        && range.is_none()
        && eq.len() == idx.parts.len()
        && eq.iter().all(|c| matches!(c, PartCond::Eq(_)));
    let constant = eq.iter().all(|c| match c {
        PartCond::Eq(e) => fixed(e),
        PartCond::In(l) => l.iter().all(fixed),
        PartCond::IsNull => true,
    });
    let est = || {
        let stats = t.table.stats();
        let est = plan::estimate::index_rows(
            &t.table,
            &stats,
            &t.def,
            *index,
            eq,
            range.is_some(),
            constant,
        );
        (est as u64).max(1)
    };
    let (kind, est) = if full_eq && constant {
        ("const", 1)
    } else if full_eq {
        ("eq_ref", 1)
    } else if range.is_some() || in_list {
        ("range", est())
    } else {
        ("ref", est())
    };
    tab.kind = Some(kind);
    tab.key = Some(name);
    tab.key_len = Some(key_len);
    tab.rows = Some(est);
    if kind != "range" {
        let refs: Vec<String> = eq
            .iter()
            .map(|c| match c {
                PartCond::Eq(Expr::Col(j)) => scope.map_or("func".into(), |s| {
                    let jt = &s.tables[s.table_of(*j)];
                    format!(
                        "{}.{}.{}",
                        jt.scope.db,
                        jt.scope.visible_name(),
                        jt.scope.columns[j - jt.offset].name
                    )
                }),
                PartCond::Eq(Expr::Outer { depth, col }) => outer
                    .len()
                    .checked_sub(*depth)
                    .and_then(|d| outer.get(d))
                    .and_then(|v| v.get(*col))
                    .cloned()
                    .unwrap_or_else(|| "func".into()),
                PartCond::Eq(e) if fixed(e) => "const".into(),
                PartCond::IsNull => "const".into(),
                _ => "func".into(),
            })
            .collect();
        tab.refs = Some(refs);
    }
    tab
}

/// MariaDB's key_len of one index part: the stored key bytes, +1 when nullable, +2 for a
/// variable-length string.
fn part_len(def: &TableDef, col: usize, prefix: Option<u32>) -> u32 {
    let c = &def.columns[col];
    let chars = |n: u32| prefix.map_or(n, |p| p.min(n));
    let base = match &c.data_type {
        DataType::TinyInt { .. } | DataType::Year => 1,
        DataType::Enum { members, .. } => 1 + u32::from(members.len() > 255),
        DataType::Set { members, .. } => match members.len().div_ceil(8) {
            n @ 1..=4 => n as u32,
            _ => 8,
        },
        DataType::SmallInt { .. } => 2,
        DataType::MediumInt { .. } => 3,
        DataType::Int { .. } => 4,
        DataType::BigInt { .. } => 8,
        DataType::Decimal { precision, scale } => decimal_bytes(*precision, *scale),
        DataType::Float { .. } => 4,
        DataType::Double { .. } => 8,
        DataType::Char { len, collation } => chars(*len) * collation.mbmaxlen(),
        DataType::VarChar { len, collation } => chars(*len) * collation.mbmaxlen() + 2,
        DataType::Binary { len } => chars(*len),
        DataType::VarBinary { len } => chars(*len) + 2,
        DataType::Text { collation, .. } => prefix.unwrap_or(0) * collation.mbmaxlen() + 2,
        DataType::Blob { .. } => prefix.unwrap_or(0) * 4 + 2,
        DataType::Date => 3,
        DataType::DateTime { fsp } => 5 + (*fsp as u32).div_ceil(2),
        DataType::Timestamp { fsp } => 4 + (*fsp as u32).div_ceil(2),
        DataType::Time { fsp } => 3 + (*fsp as u32).div_ceil(2),
        DataType::Bit { width } => (*width as u32).div_ceil(8),
    };
    base + c.nullable as u32
}

/// Bytes of a packed DECIMAL(p, s): 4 per 9 digits, and 0–4 for the rest, on each side.
fn decimal_bytes(precision: u8, scale: u8) -> u32 {
    const REST: [u32; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let side = |digits: u32| (digits / 9) * 4 + REST[(digits % 9) as usize];
    side(precision.saturating_sub(scale) as u32) + side(scale as u32)
}
