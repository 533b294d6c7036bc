//! EXPLAIN FORMAT=JSON / ANALYZE FORMAT=JSON: the plan tree of `exec/explain.rs` written in
//! MariaDB's JSON layout (`query_block`, `nested_loop`, `table`, `union_result`,
//! `materialized`, `subqueries`, `expression_cache`, `read_sorted_file`), with ANALYZE's
//! `r_loops` / `r_rows` / `r_filtered`. What it leaves out is listed in `exec/explain.rs`.

use super::{r_filtered, r_rows, result_name, Block, Sel, SetBlock, Tab};

/// The JSON text of a plan tree.
pub(super) fn text(b: &Block) -> String {
    let mut out = String::new();
    let mut w = Json::new(&mut out);
    w.open(None);
    json_query_block(b, &mut w);
    w.close();
    out
}

/// A small writer of MariaDB's JSON layout: two-space indents, one member a line, arrays of
/// strings on one line.
struct Json<'a> {
    out: &'a mut String,
    depth: usize,
    /// Whether the current container has a member yet.
    first: Vec<bool>,
}

impl<'a> Json<'a> {
    fn new(out: &'a mut String) -> Json<'a> {
        Json {
            out,
            depth: 0,
            first: Vec::new(),
        }
    }

    fn sep(&mut self) {
        if let Some(f) = self.first.last_mut() {
            if !*f {
                self.out.push(',');
            }
            *f = false;
            self.out.push('\n');
            self.out.push_str(&"  ".repeat(self.depth));
        }
    }

    fn key(&mut self, k: Option<&str>) {
        self.sep();
        if let Some(k) = k {
            self.out.push_str(&quote(k));
            self.out.push_str(": ");
        }
    }

    fn open(&mut self, k: Option<&str>) {
        self.key(k);
        self.out.push('{');
        self.depth += 1;
        self.first.push(true);
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.first.pop();
        self.out.push('\n');
        self.out.push_str(&"  ".repeat(self.depth));
        self.out.push('}');
    }

    fn open_array(&mut self, k: &str) {
        self.key(Some(k));
        self.out.push('[');
        self.depth += 1;
        self.first.push(true);
    }

    fn close_array(&mut self) {
        self.depth -= 1;
        self.first.pop();
        self.out.push('\n');
        self.out.push_str(&"  ".repeat(self.depth));
        self.out.push(']');
    }

    fn raw(&mut self, k: &str, v: &str) {
        self.key(Some(k));
        self.out.push_str(v);
    }

    fn str(&mut self, k: &str, v: &str) {
        self.raw(k, &quote(v));
    }

    fn strs(&mut self, k: &str, v: &[String]) {
        let items: Vec<String> = v.iter().map(|s| quote(s)).collect();
        self.raw(k, &format!("[{}]", items.join(", ")));
    }
}

fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c if (c as u32) < 0x20 => q.push_str(&format!("\\u{:04x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// `"query_block": {…}` of a block.
fn json_query_block(b: &Block, w: &mut Json<'_>) {
    w.open(Some("query_block"));
    match b {
        Block::Select(s) => json_select_body(s, w),
        Block::Set(set) => json_set(set, w),
    }
    w.close();
}

fn json_set(set: &SetBlock, w: &mut Json<'_>) {
    w.open(Some("union_result"));
    if set.result {
        w.str("table_name", &result_name(set));
        w.str("access_type", "ALL");
        if let Some(n) = set.r_rows {
            w.raw("r_loops", "1");
            w.raw("r_rows", &n.to_string());
        }
        if set.filesort {
            w.raw("using_filesort", "true");
        }
    }
    w.open_array("query_specifications");
    for p in &set.parts {
        w.open(None);
        json_query_block(p, w);
        w.close();
    }
    w.close_array();
    w.close();
}

fn json_select_body(s: &Sel, w: &mut Json<'_>) {
    w.raw("select_id", &s.id.to_string());
    if s.tables.iter().any(|t| t.r.is_some()) {
        w.raw("r_loops", "1");
    }
    if let Some(op) = s.operation {
        w.str("operation", op);
    }
    if s.tables.is_empty() {
        w.open(Some("table"));
        w.str("message", s.message.unwrap_or(""));
        w.close();
    } else if s.insert {
        w.open(Some("table"));
        w.str("table_name", &s.tables[0].name);
        w.close();
    } else if let Some(kind) = s.dml {
        w.open(Some("table"));
        w.raw(kind, "1");
        json_table(&s.tables[0], s, w);
        w.close();
    } else if s.temp {
        // Grouping / DISTINCT: the rows go to a temporary table, sorted by the keys if any.
        if let Some(k) = &s.sort_key {
            w.open(Some("filesort"));
            w.str("sort_key", k);
        }
        w.open(Some("temporary_table"));
        nested_loop(s, false, w);
        w.close();
        if s.sort_key.is_some() {
            w.close();
        }
    } else {
        nested_loop(s, s.sort_key.is_some(), w);
    }
    let subqueries: Vec<&Block> = s
        .children
        .iter()
        .enumerate()
        .filter(|(i, _)| !s.tables.iter().any(|t| t.derived == Some(*i)))
        .map(|(_, c)| c)
        .collect();
    if !subqueries.is_empty() {
        w.open_array("subqueries");
        for c in subqueries {
            w.open(None);
            let dependent = matches!(c, Block::Select(s) if s.select_type.starts_with("DEPENDENT"));
            if dependent {
                // Cohort keeps a correlated subquery's last result by its outer values.
                w.open(Some("expression_cache"));
                w.str("state", "uninitialized");
            }
            json_query_block(c, w);
            if dependent {
                w.close();
            }
            w.close();
        }
        w.close_array();
    }
}

/// `"nested_loop": [...]` of a SELECT's tables; `sorted`: a single table read into a filesort
/// (`read_sorted_file`).
fn nested_loop(s: &Sel, sorted: bool, w: &mut Json<'_>) {
    w.open_array("nested_loop");
    for t in &s.tables {
        w.open(None);
        if sorted {
            w.open(Some("read_sorted_file"));
            w.open(Some("filesort"));
            w.str("sort_key", s.sort_key.as_deref().unwrap_or(""));
        }
        w.open(Some("table"));
        json_table(t, s, w);
        w.close();
        if sorted {
            w.close();
            w.close();
        }
        w.close();
    }
    w.close_array();
}

fn json_table(t: &Tab, s: &Sel, w: &mut Json<'_>) {
    w.str("table_name", &t.name);
    w.str("access_type", t.kind.unwrap_or("ALL"));
    if let Some(k) = &t.key {
        // A whole-index read in key order has no candidate keys from a condition.
        if t.kind != Some("index") {
            w.strs("possible_keys", std::slice::from_ref(k));
        }
        w.str("key", k);
    }
    if let Some(l) = t.key_len {
        w.str("key_length", &l.to_string());
    }
    if !t.used_parts.is_empty() {
        w.strs("used_key_parts", &t.used_parts);
    }
    if let Some(r) = &t.refs {
        w.strs("ref", r);
    }
    if let Some(r) = t.r {
        w.raw("r_loops", &r.0.to_string());
    }
    if let Some(r) = t.rows {
        w.raw("rows", &r.to_string());
    }
    if let Some(r) = t.r.filter(|r| r.0 > 0) {
        w.raw("r_rows", &json_number(r_rows(r)));
    }
    if s.dml.is_none() {
        w.raw("filtered", "100");
    }
    if let Some(r) = t.r.filter(|r| r.0 > 0) {
        w.raw("r_filtered", &json_number(r_filtered(r)));
    }
    for e in &t.extra {
        match *e {
            "Using where" => match &t.cond {
                Some(c) => w.str("attached_condition", c),
                None => w.raw("using_where", "true"),
            },
            "Using index" => w.raw("using_index", "true"),
            "Using filesort" if s.sort_key.is_none() && s.dml.is_none() => {
                w.raw("using_filesort", "true")
            }
            "Using temporary" if !s.temp => w.raw("using_temporary_table", "true"),
            "Using temporary; Using filesort" if !s.temp => {
                w.raw("using_temporary_table", "true");
                w.raw("using_filesort", "true");
            }
            "Using join buffer (flat, BNL join)" => {
                w.open(Some("block-nl-join"));
                w.str("join_type", "BNL");
                w.close();
            }
            _ => {}
        }
    }
    if let Some(i) = t.derived {
        if let Some(c) = s.children.get(i) {
            w.open(Some("materialized"));
            json_query_block(c, w);
            w.close();
        }
    }
}

/// A JSON number as MariaDB prints a double: no fraction when whole.
fn json_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
