//! Golden-script tests: `testscripts/*.test` run against a real `ServerContext`.
//!
//! A script is a sequence of commands, each followed by `----` and its expected output, which
//! ends at a blank line. Lines starting with `#` are comments. A command is one SQL statement
//! (it may span lines; it ends with a line ending in `;`), optionally prefixed:
//!
//! | form | meaning |
//! |---|---|
//! | `SQL;` | run in the session `main` |
//! | `[s2] SQL;` | run in session `s2` (created on first use as root@%) |
//! | `[s2 as user@host] SQL;` | same, creating `s2` logged in as `user`@`host` |
//! | `meta SQL;` | also print the result's column definitions |
//! | `values SQL;` | print the result without its warning count (for a value whose warnings MariaDB counts differently) |
//! | `prepare NAME SQL;` | COM_STMT_PREPARE; prints the parameter and column counts |
//! | `execute NAME (v, …);` | COM_STMT_EXECUTE with literal values (ints, 'strings', NULL, decimals as doubles) |
//! | `[s1] & SQL;` | start the statement in the background (it may block on a lock) |
//! | `[s1] wait;` | wait for the background statement of `s1` and print its result |
//! | `fields TABLE;` | COM_FIELD_LIST |
//! | `mask a,b SQL;` | print `#` for the values of the columns `a`, `b`, and for the members `"a": …`, `"b": …` of a JSON text value (estimates: EXPLAIN's `rows`) |
//!
//! After each statement the runner does what the session layer does: on an error whose action
//! is to roll back the transaction (1213) it rolls back, otherwise `end_statement`.
//!
//! `UPDATE_GOLDEN=1 cargo test -p cohort-server sql::golden` rewrites the expected outputs.

use super::{execute_prepared, execute_text, prepare, Prepared, QueryResult};
use crate::error::Result;
use crate::session::state::{ServerContext, SessionState};
use crate::types::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

enum Item {
    Comment(String),
    Case {
        command: String,
        expected: Vec<String>,
    },
}

fn parse_script(text: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim().is_empty() || line.starts_with('#') {
            items.push(Item::Comment(line.to_string()));
            continue;
        }
        let mut command = line.to_string();
        while !command.trim_end().ends_with(';') {
            match lines.next() {
                Some(l) => {
                    command.push('\n');
                    command.push_str(l);
                }
                None => break,
            }
        }
        let mut expected = Vec::new();
        if lines.peek().is_some_and(|l| l.trim() == "----") {
            lines.next();
            for l in lines.by_ref() {
                if l.trim().is_empty() {
                    break;
                }
                expected.push(l.to_string());
            }
        }
        items.push(Item::Case { command, expected });
    }
    items
}

type Outcome = (SessionState, Result<QueryResult>);

struct Runner {
    ctx: Arc<ServerContext>,
    sessions: HashMap<String, SessionState>,
    prepared: HashMap<String, Prepared>,
    background: HashMap<String, JoinHandle<Outcome>>,
    next_conn: u32,
}

fn format_value(v: &Value, c: &cohort_protocol::ColumnDefinition) -> String {
    use cohort_protocol::ColumnType;
    match v {
        Value::Null => "NULL".into(),
        // As the text protocol sends it: with the column's fractional digits.
        Value::DateTime(dt) if c.column_type == ColumnType::DATETIME && c.decimals <= 6 => {
            super::expr::datetime_text::with_fsp(dt, c.decimals)
        }
        // A DOUBLE of fixed decimals (`ROUND(x, 2)`) with exactly those digits.
        Value::Double(d)
            if matches!(c.column_type, ColumnType::DOUBLE | ColumnType::FLOAT)
                && c.decimals < 31 =>
        {
            super::expr::convert::format_double_fixed(*d, c.decimals)
        }
        // A FLOAT: its 32-bit value's shortest digits, as the text protocol sends it.
        Value::Double(d) if c.column_type == ColumnType::FLOAT => {
            cohort_protocol::Cell::Float(*d as f32).to_text()
        }
        Value::Time(t) if c.decimals <= 6 => super::expr::time_value::format(*t, Some(c.decimals)),
        // BIT: the big-endian bytes the text protocol sends, read as UTF-8 (as the recorder).
        Value::Int(_) | Value::UInt(_) if c.column_type == ColumnType::BIT => {
            let n = super::expr::convert::to_num(v).to_i128() as u64;
            let len = (c.column_length.clamp(1, 64) as usize).div_ceil(8);
            String::from_utf8_lossy(&n.to_be_bytes()[8 - len..]).into_owned()
        }
        // A ZEROFILL integer column: padded to its width, as the text protocol sends it.
        Value::Int(_) | Value::UInt(_)
            if c.flags & cohort_protocol::column::column_flags::ZEROFILL != 0
                && c.column_type != ColumnType::YEAR =>
        {
            let width = c.column_length.min(255) as usize;
            format!("{:0>width$}", super::expr::convert::to_string(v))
        }
        Value::Double(d) => super::expr::convert::format_double(*d),
        other => super::expr::convert::to_string(other),
    }
}

fn format_result(r: &Result<QueryResult>, meta: bool, warnings: usize) -> Vec<String> {
    match r {
        Err(e) => vec![format!(
            "ERROR {} ({}): {}",
            e.code().number(),
            e.code().sqlstate(),
            e.message()
        )],
        Ok(QueryResult::Ok {
            affected_rows,
            last_insert_id,
            info,
        }) => {
            let mut s = format!("OK affected={affected_rows}");
            if *last_insert_id != 0 {
                s.push_str(&format!(" last_insert_id={last_insert_id}"));
            }
            if warnings > 0 {
                s.push_str(&format!(" warnings={warnings}"));
            }
            if let Some(i) = info {
                s.push_str(&format!(" info=\"{i}\""));
            }
            vec![s]
        }
        Ok(QueryResult::Rows { columns, rows }) => {
            let mut out = Vec::new();
            if meta {
                for c in columns {
                    out.push(format!(
                        "meta {}: type={} len={} charset={} flags=0x{:04x} dec={} org={}.{}.{}",
                        c.name,
                        c.column_type.0,
                        c.column_length,
                        c.charset,
                        c.flags,
                        c.decimals,
                        c.schema,
                        c.org_table,
                        c.org_name
                    ));
                }
            }
            out.push(
                columns
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(" | "),
            );
            for r in rows {
                assert_eq!(
                    r.len(),
                    columns.len(),
                    "row width differs from the column count"
                );
                let cells = r.iter().zip(columns).map(|(v, c)| {
                    if super::expr::convert::is_year_0000(v, c) {
                        "0000".to_string()
                    } else {
                        format_value(v, c)
                    }
                });
                out.push(cells.collect::<Vec<_>>().join(" | "));
            }
            if warnings > 0 {
                out.push(format!("({warnings} warnings)"));
            }
            out
        }
    }
}

/// Parse `(1, 'a', NULL, 1.5)` into parameter values.
fn parse_params(text: &str) -> Vec<Value> {
    let inner = text.trim().trim_start_matches('(').trim_end_matches(')');
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_str = false;
    let mut chars = inner.chars().peekable();
    let mut was_str = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' if in_str && chars.peek() == Some(&'\'') => {
                chars.next();
                cur.push('\'');
            }
            '\'' => {
                in_str = !in_str;
                was_str = true;
            }
            ',' if !in_str => {
                out.push(param_value(&cur, was_str));
                cur.clear();
                was_str = false;
            }
            c if in_str || !c.is_whitespace() => cur.push(c),
            _ => {}
        }
    }
    if !cur.is_empty() || was_str {
        out.push(param_value(&cur, was_str));
    }
    out
}

fn param_value(s: &str, quoted: bool) -> Value {
    if quoted {
        return Value::str(s);
    }
    if s.eq_ignore_ascii_case("NULL") {
        return Value::Null;
    }
    if let Ok(i) = s.parse::<i64>() {
        return Value::Int(i);
    }
    if let Ok(f) = s.parse::<f64>() {
        return Value::Double(f);
    }
    Value::str(s)
}

/// Split `[s2 as u@h] rest` into (session, login, rest).
fn session_prefix(cmd: &str) -> (String, Option<(String, String)>, &str) {
    let t = cmd.trim_start();
    if let Some(rest) = t.strip_prefix('[') {
        if let Some(end) = rest.find(']') {
            let spec = &rest[..end];
            let body = rest[end + 1..].trim_start();
            let mut parts = spec.split_whitespace();
            let name = parts.next().unwrap_or("main").to_string();
            let login = match (parts.next(), parts.next()) {
                (Some("as"), Some(uh)) => {
                    let (u, h) = uh.split_once('@').unwrap_or((uh, "%"));
                    Some((u.to_string(), h.to_string()))
                }
                _ => None,
            };
            return (name, login, body);
        }
    }
    ("main".to_string(), None, t)
}

/// What the session layer does after a statement.
fn end_statement(ctx: &ServerContext, sess: &mut SessionState, r: &Result<QueryResult>) {
    match r {
        Ok(_) => {
            let _ = sess.end_statement(ctx, true);
        }
        Err(e) => sess.statement_failed(ctx, e),
    }
}

impl Runner {
    fn new() -> Runner {
        Runner {
            ctx: Arc::new(ServerContext::for_tests()),
            sessions: HashMap::new(),
            prepared: HashMap::new(),
            background: HashMap::new(),
            next_conn: 1,
        }
    }

    fn session(&mut self, name: &str, login: Option<(String, String)>) -> SessionState {
        if let Some(s) = self.sessions.remove(name) {
            return s;
        }
        let (u, h) = login.unwrap_or_else(|| ("root".into(), "%".into()));
        self.next_conn += 1;
        SessionState::new(self.next_conn, &u, &h, None)
    }

    fn run(&mut self, command: &str) -> Vec<String> {
        let (name, login, body) = session_prefix(command);
        let body = body.trim_end().to_string();
        if body == "wait;" {
            let Some(h) = self.background.remove(&name) else {
                return vec![format!("no background statement in {name}")];
            };
            let (sess, r) = h.join().expect("background statement panicked");
            let out = format_result(&r, false, warning_count(&sess, &r));
            self.sessions.insert(name, sess);
            return out;
        }
        let mut sess = self.session(&name, login);
        if let Some(sql) = body.strip_prefix('&') {
            let ctx = self.ctx.clone();
            let sql = sql.trim().to_string();
            self.background.insert(
                name,
                std::thread::spawn(move || {
                    let _waits = crate::wait::bind_thread_stats(Some(ctx.waits.clone()));
                    let r = execute_text(&ctx, &mut sess, &sql);
                    end_statement(&ctx, &mut sess, &r);
                    (sess, r)
                }),
            );
            // Let it reach its lock wait before the script goes on.
            std::thread::sleep(Duration::from_millis(300));
            return vec!["started".into()];
        }
        let out = self.run_in(&mut sess, &body);
        self.sessions.insert(name, sess);
        out
    }

    fn run_in(&mut self, sess: &mut SessionState, body: &str) -> Vec<String> {
        let ctx = self.ctx.clone();
        if let Some(rest) = body.strip_prefix("prepare ") {
            let (pname, sql) = rest.split_once(' ').unwrap_or((rest, ""));
            return match prepare(&ctx, sess, sql.trim()) {
                Ok(p) => {
                    let out = vec![format!(
                        "prepared params={} columns={}",
                        p.params,
                        p.columns()
                            .iter()
                            .map(|c| format!("{}:{}", c.name, c.column_type.0))
                            .collect::<Vec<_>>()
                            .join(",")
                    )];
                    self.prepared.insert(pname.to_string(), p);
                    out
                }
                Err(e) => format_result(&Err(e), false, 0),
            };
        }
        if let Some(table) = body.strip_prefix("fields ") {
            return match super::field_list(&ctx, sess, table.trim_end_matches(';').trim()) {
                Ok(cols) => sess
                    .charsets
                    .columns(&cols)
                    .iter()
                    .map(|c| {
                        format!(
                            "{}.{}.{} type={} len={} charset={} flags=0x{:04x}",
                            c.schema,
                            c.table,
                            c.name,
                            c.column_type.0,
                            c.column_length,
                            c.charset,
                            c.flags
                        )
                    })
                    .collect(),
                Err(e) => format_result(&Err(e), false, 0),
            };
        }
        if let Some(rest) = body.strip_prefix("execute ") {
            let rest = rest.trim_end_matches(';');
            let (pname, args) = rest.split_once(' ').unwrap_or((rest, ""));
            let params = parse_params(args);
            let Some(p) = self.prepared.get(pname) else {
                return vec![format!("no prepared statement {pname}")];
            };
            let r = execute_prepared(&ctx, sess, p, &params);
            end_statement(&ctx, sess, &r);
            if let Ok(QueryResult::Rows { columns, .. }) = &r {
                assert_eq!(
                    columns.len(),
                    p.columns().len(),
                    "execute metadata differs from prepare"
                );
            }
            return format_result(&r, false, warning_count(sess, &r));
        }
        let (masked, body) = match body.strip_prefix("mask ") {
            Some(rest) => {
                let (names, sql) = rest.split_once(' ').unwrap_or((rest, ""));
                (names.split(',').map(str::to_string).collect(), sql)
            }
            None => (Vec::new(), body),
        };
        let (meta, sql) = match body.strip_prefix("meta ") {
            Some(s) => (true, s),
            None => (false, body),
        };
        let (values_only, sql) = match sql.strip_prefix("values ") {
            Some(s) => (true, s),
            None => (false, sql),
        };
        let mut r = execute_text(&ctx, sess, sql);
        end_statement(&ctx, sess, &r);
        if let Ok(QueryResult::Rows { columns, rows }) = &mut r {
            mask(columns, rows, &masked);
            // The definitions as the session sends them (the results collation's id).
            *columns = sess.charsets.columns(columns).into_owned();
            for c in columns.iter_mut() {
                c.name = String::from_utf8_lossy(&sess.charsets.name(&c.name)).into_owned();
            }
        }
        let warnings = if values_only {
            0
        } else {
            warning_count(sess, &r)
        };
        format_result(&r, meta, warnings)
    }
}

/// The `mask` prefix: `#` for the named columns' values and JSON members.
fn mask(columns: &[cohort_protocol::ColumnDefinition], rows: &mut [Vec<Value>], names: &[String]) {
    if names.is_empty() {
        return;
    }
    for row in rows {
        for (v, c) in row.iter_mut().zip(columns) {
            if names.contains(&c.name) {
                *v = Value::str("#");
            } else if let Value::Bytes(b) = v {
                if b.starts_with(b"{") {
                    let text = String::from_utf8_lossy(b).into_owned();
                    *v = Value::str(&mask_json(&text, names));
                }
            }
        }
    }
}

/// `"name": value[,]` lines of a JSON text become `"name": #[,]`.
fn mask_json(text: &str, names: &[String]) -> String {
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| {
            let t = l.trim_start();
            let indent = &l[..l.len() - t.len()];
            for n in names {
                if let Some(rest) = t.strip_prefix(&format!("\"{n}\": ")) {
                    let comma = if rest.ends_with(',') { "," } else { "" };
                    return format!("{indent}\"{n}\": #{comma}");
                }
            }
            l.to_string()
        })
        .collect();
    lines.join("\n")
}

fn warning_count(sess: &SessionState, r: &Result<QueryResult>) -> usize {
    if r.is_err() {
        0
    } else {
        sess.warnings.len()
    }
}

fn script_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sql/testscripts")
}

fn run_script(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).expect("read script");
    let items = parse_script(&text);
    let mut runner = Runner::new();
    // The script's waits go to its own server's summary (other tests run alongside).
    let _waits = crate::wait::bind_thread_stats(Some(runner.ctx.waits.clone()));
    let mut rewritten = String::new();
    let mut failures = Vec::new();
    for item in items {
        match item {
            Item::Comment(c) => {
                rewritten.push_str(&c);
                rewritten.push('\n');
            }
            Item::Case { command, expected } => {
                let t0 = std::time::Instant::now();
                let actual: Vec<String> = runner
                    .run(&command)
                    .iter()
                    .flat_map(|l| l.split('\n').map(str::to_string).collect::<Vec<_>>())
                    .collect();
                if std::env::var("GOLDEN_TIMES").is_ok() {
                    eprintln!(
                        "{:>6} ms  {}",
                        t0.elapsed().as_millis(),
                        command.lines().next().unwrap_or("")
                    );
                }
                if actual != expected {
                    failures.push(format!(
                        "--- {}\n{}\n--- expected\n{}\n--- actual\n{}\n",
                        path.file_name().unwrap().to_string_lossy(),
                        command,
                        expected.join("\n"),
                        actual.join("\n")
                    ));
                }
                rewritten.push_str(&command);
                rewritten.push_str("\n----\n");
                for l in &actual {
                    rewritten.push_str(l);
                    rewritten.push('\n');
                }
                rewritten.push('\n');
            }
        }
    }
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        let trimmed = rewritten.trim_end().to_string() + "\n";
        std::fs::write(path, trimmed).expect("write script");
        return None;
    }
    (!failures.is_empty()).then(|| failures.join("\n"))
}

#[test]
fn golden_scripts() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(script_dir())
        .expect("testscripts directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "test"))
        .collect();
    paths.sort();
    let only = std::env::var("GOLDEN_ONLY").ok();
    let mut failures = Vec::new();
    for p in &paths {
        if only
            .as_deref()
            .is_some_and(|o| !p.to_string_lossy().contains(o))
        {
            continue;
        }
        if let Some(f) = run_script(p) {
            failures.push(f);
        }
    }
    assert!(
        failures.is_empty(),
        "golden mismatches:\n{}",
        failures.join("\n")
    );
}

#[test]
fn param_literals() {
    assert_eq!(
        parse_params("(1, 'a,b', NULL, 'it''s', 1.5)"),
        vec![
            Value::Int(1),
            Value::str("a,b"),
            Value::Null,
            Value::str("it's"),
            Value::Double(1.5)
        ]
    );
}
