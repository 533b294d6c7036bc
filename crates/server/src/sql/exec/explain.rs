//! EXPLAIN SELECT: the plan in MariaDB's tabular form.
//!
//! One row per table read, in execution order, with MariaDB 10.11's columns (id, select_type,
//! table, type, possible_keys, key, key_len, ref, rows, Extra; MariaDB shows `filtered` only
//! with EXPLAIN EXTENDED). The access type names what the plan does, as MariaDB names it:
//!
//! * `const`: every part of the primary key or of a unique index equal to a constant;
//! * `eq_ref`: the same with keys from tables read before (a join);
//! * `ref`: equality on an index prefix (not unique, or partly);
//! * `range`: a range, or an IN list, on an index;
//! * `ALL`: a full scan (a hash join's table too: "Using join buffer").
//!
//! `rows` is the planner's estimate (storage row counts), not a count.

use crate::sql::bind::sqltype::SqlType;
use crate::sql::bind::{coldef, join_scope::JoinScope};
use crate::sql::exec::select::SelectPlan;
use crate::sql::expr::Expr;
use crate::sql::plan::join::{Leaf, Unit};
use crate::sql::plan::{self, Access, PartCond, Source, TableRef};
use crate::storage::TableDef;
use crate::types::{DataType, Value};
use cohort_protocol::column::ColumnDefinition;

/// The result columns of EXPLAIN.
pub fn columns() -> Vec<ColumnDefinition> {
    let int = |n: &str| coldef::expr_column(n, &SqlType::int(3).with_nullable(false));
    let text =
        |n: &str, len: u32| coldef::expr_column(n, &SqlType::varchar(len).with_nullable(true));
    vec![
        int("id"),
        text("select_type", 19),
        text("table", 64),
        text("type", 10),
        text("possible_keys", 4096),
        text("key", 64),
        text("key_len", 4096),
        text("ref", 2048),
        coldef::expr_column("rows", &SqlType::int(10).with_nullable(true)),
        text("Extra", 255),
    ]
}

/// One EXPLAIN row.
struct Line {
    table: Option<String>,
    kind: Option<&'static str>,
    key: Option<String>,
    key_len: Option<u32>,
    refs: Option<String>,
    rows: Option<u64>,
    extra: Vec<&'static str>,
}

impl Line {
    fn into_row(self) -> Vec<Value> {
        let s = |v: Option<String>| v.map_or(Value::Null, |s| Value::Bytes(s.into_bytes()));
        vec![
            Value::Int(1),
            s(Some("SIMPLE".into())),
            s(self.table),
            s(self.kind.map(str::to_string)),
            s(self.key.clone()),
            s(self.key),
            s(self.key_len.map(|l| l.to_string())),
            s(self.refs),
            self.rows.map_or(Value::Null, Value::UInt),
            s(Some(self.extra.join("; "))),
        ]
    }
}

/// The EXPLAIN rows of a bound SELECT.
pub fn rows(p: &SelectPlan) -> Vec<Vec<Value>> {
    let mut lines = Vec::new();
    if let Some(j) = &p.join {
        let mut leaves = Vec::new();
        collect(&j.units, &mut leaves);
        for (i, leaf) in leaves.iter().enumerate() {
            let crate::sql::plan::join::JoinTable::Table(t) = &j.tables[leaf.table] else {
                continue;
            };
            let mut line = access_line(t, &leaf.access, Some(&j.scope));
            line.table = Some(j.scope.tables[leaf.table].scope.visible_name().to_string());
            if !covered(leaf.filter.as_ref(), &leaf.access, &line) {
                line.extra.push("Using where");
            }
            if leaf.hash.is_some() || (i > 0 && line.kind == Some("ALL")) {
                line.extra.push("Using join buffer (flat, BNL join)");
            }
            lines.push(line);
        }
        if !p.order.is_empty() || p.group.is_some() {
            if let Some(first) = lines.first_mut() {
                first.extra.insert(0, "Using temporary; Using filesort");
            }
        }
    } else if let Some(Source::Table(t)) = &p.source {
        let mut line = access_line(t, &p.access, None);
        line.table = Some(t.scope.visible_name().to_string());
        if !covered(p.filter.as_ref(), &p.access, &line) {
            line.extra.push("Using where");
        }
        if p.window.is_some() {
            // Window functions: MariaDB computes them over a temporary table.
            line.extra.push("Using temporary");
        }
        if !p.order.is_empty() && !p.sorted_by_scan {
            line.extra.push("Using filesort");
        }
        lines.push(line);
    } else {
        lines.push(Line {
            table: None,
            kind: None,
            key: None,
            key_len: None,
            refs: None,
            rows: None,
            extra: vec!["No tables used"],
        });
    }
    lines.into_iter().map(Line::into_row).collect()
}

/// Does the index lookup alone decide the filter (no "Using where")? A const read does; an
/// equality lookup does when the filter has no conjunct beyond its key parts.
fn covered(filter: Option<&Expr>, access: &Access, line: &Line) -> bool {
    let Some(f) = filter else { return true };
    match (line.kind, access) {
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

fn access_line(t: &TableRef, access: &Access, scope: Option<&JoinScope>) -> Line {
    let rows = t.table.approx_rows();
    let mut line = Line {
        table: None,
        kind: Some("ALL"),
        key: None,
        key_len: None,
        refs: None,
        rows: Some(rows),
        extra: Vec::new(),
    };
    let Access::Index { index, eq, range } = access else {
        return line;
    };
    let Some(idx) = plan::index_def(&t.def, *index) else {
        return line;
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
    let unique = index.is_none() || idx.unique;
    let in_list = eq
        .iter()
        .any(|c| matches!(c, PartCond::In(l) if l.len() > 1));
    let full_eq = unique
        && range.is_none()
        && eq.len() == idx.parts.len()
        && eq.iter().all(|c| matches!(c, PartCond::Eq(_)));
    let constant = eq.iter().all(|c| match c {
        PartCond::Eq(e) => e.is_constant(),
        PartCond::In(l) => l.iter().all(Expr::is_constant),
        PartCond::IsNull => true,
    });
    let (kind, est) = if full_eq && constant {
        ("const", 1)
    } else if full_eq {
        ("eq_ref", 1)
    } else if range.is_some() || in_list {
        ("range", (rows / 3).max(1))
    } else {
        ("ref", (rows / 10).max(1))
    };
    line.kind = Some(kind);
    line.key = Some(name);
    line.key_len = Some(key_len);
    line.rows = Some(est);
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
                PartCond::Eq(e) if e.is_constant() => "const".into(),
                PartCond::IsNull => "const".into(),
                _ => "func".into(),
            })
            .collect();
        line.refs = Some(refs.join(","));
    }
    line
}

/// MariaDB's key_len of one index part: the stored key bytes, +1 when nullable, +2 for a
/// variable-length string.
fn part_len(def: &TableDef, col: usize, prefix: Option<u32>) -> u32 {
    let c = &def.columns[col];
    let chars = |n: u32| prefix.map_or(n, |p| p.min(n));
    let base = match &c.data_type {
        DataType::TinyInt { .. } | DataType::Year => 1,
        DataType::SmallInt { .. } => 2,
        DataType::MediumInt { .. } => 3,
        DataType::Int { .. } => 4,
        DataType::BigInt { .. } => 8,
        DataType::Decimal { precision, scale } => decimal_bytes(*precision, *scale),
        DataType::Float => 4,
        DataType::Double => 8,
        DataType::Char { len, .. } => chars(*len) * 4,
        DataType::VarChar { len, .. } => chars(*len) * 4 + 2,
        DataType::Binary { len } => chars(*len),
        DataType::VarBinary { len } => chars(*len) + 2,
        DataType::Text { .. } | DataType::Blob { .. } => prefix.unwrap_or(0) * 4 + 2,
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
