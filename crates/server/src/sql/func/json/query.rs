//! The JSON functions that read a document: JSON_VALID, JSON_EXTRACT (one path: the value;
//! several paths or a wildcard: an array of all matches), JSON_TYPE, JSON_LENGTH, JSON_DEPTH,
//! JSON_KEYS, JSON_CONTAINS_PATH and JSON_UNQUOTE.

use super::parse::{self, Node};
use super::{doc, out, path, path_arg, JsonFn};
use crate::sql::env::Env;
use crate::sql::expr::convert;
use crate::types::Value;

pub(super) fn eval(f: JsonFn, args: &[Value], env: &Env<'_>) -> Value {
    if f != JsonFn::ContainsPath && args.iter().any(Value::is_null) {
        return Value::Null;
    }
    match f {
        JsonFn::Valid => match parse::parse(&convert::to_text(&args[0])) {
            Ok(_) => Value::Int(1),
            Err(e) => {
                super::warn_text("Note", f, 0, e, env);
                Value::Int(0)
            }
        },
        JsonFn::Unquote => unquote(&args[0], env),
        JsonFn::Extract => extract(args, env).unwrap_or(Value::Null),
        JsonFn::ContainsPath => contains_path(args, env).unwrap_or(Value::Null),
        JsonFn::Value | JsonFn::Exists => value_or_exists(f, args, env).unwrap_or(Value::Null),
        JsonFn::Compact => match doc(f, 0, &args[0], env) {
            Some(d) => {
                let mut s = String::new();
                parse::write_compact(&d, &mut s);
                out(s)
            }
            None => Value::Null,
        },
        _ => {
            let p = match args.get(1) {
                Some(p) => match path_arg(f, 1, p, env) {
                    Some(p) => Some(p),
                    None => return Value::Null,
                },
                None => None,
            };
            let Some(d) = doc(f, 0, &args[0], env) else {
                return Value::Null;
            };
            let node = match p {
                Some(p) => match path::matches(&d, &p).first() {
                    Some(n) => (*n).clone(),
                    None => return Value::Null,
                },
                None => d,
            };
            match f {
                JsonFn::Type => out(type_name(&node).to_string()),
                JsonFn::Depth => Value::Int(parse::depth(&node) as i64),
                JsonFn::Length => Value::Int(match &node {
                    Node::Arr(a) => a.len(),
                    Node::Obj(m) => m.len(),
                    _ => 1,
                } as i64),
                JsonFn::Keys => match &node {
                    Node::Obj(m) => out(parse::to_string(&Node::Arr(
                        m.iter().map(|(k, _)| Node::Str(k.clone())).collect(),
                    ))),
                    _ => Value::Null,
                },
                _ => Value::Null,
            }
        }
    }
}

fn type_name(n: &Node) -> &'static str {
    match n {
        Node::Obj(_) => "OBJECT",
        Node::Arr(_) => "ARRAY",
        Node::Num(t) if t.contains('.') => "DOUBLE",
        Node::Num(_) => "INTEGER",
        Node::Str(_) => "STRING",
        Node::True | Node::False => "BOOLEAN",
        Node::Null => "NULL",
    }
}

fn extract(args: &[Value], env: &Env<'_>) -> Option<Value> {
    let f = JsonFn::Extract;
    let mut paths = Vec::with_capacity(args.len() - 1);
    for (i, a) in args.iter().enumerate().skip(1) {
        paths.push(path_arg(f, i, a, env)?);
    }
    let d = doc(f, 0, &args[0], env)?;
    let wrap = paths.len() > 1 || paths[0].is_wild();
    let found = if wrap {
        path::matches_all(&d, &paths)
    } else {
        path::matches(&d, &paths[0])
    };
    if found.is_empty() {
        return None;
    }
    Some(out(if wrap {
        let mut s = String::from("[");
        for (i, n) in found.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            parse::write(n, &mut s);
        }
        s.push(']');
        s
    } else {
        parse::to_string(found[0])
    }))
}

/// JSON_VALUE: the scalar at a path (a string unescaped, `true` / `false` as 1 / 0; NULL for
/// `null`, a container, no match or a bad document). JSON_EXISTS: whether the path matches.
fn value_or_exists(f: JsonFn, args: &[Value], env: &Env<'_>) -> Option<Value> {
    let p = match path::parse(&convert::to_text(&args[1])) {
        Ok(p) if p.is_wild() && f == JsonFn::Value => {
            // A wildcard path is refused with a warning, as MariaDB.
            path_arg(f, 1, &args[1], env);
            return None;
        }
        Ok(p) => p,
        Err(_) => return None,
    };
    if f == JsonFn::Exists && p.steps.is_empty() {
        // MariaDB answers `$` before it reads the document.
        return Some(Value::Int(1));
    }
    let d = parse::parse(&convert::to_text(&args[0])).ok()?;
    let found = path::matches(&d, &p);
    if f == JsonFn::Exists {
        return Some(Value::Int(!found.is_empty() as i64));
    }
    Some(match found.first()? {
        Node::Str(raw) => out(parse::unescape(raw)),
        Node::Num(n) => out(n.clone()),
        Node::True => out("1".to_string()),
        Node::False => out("0".to_string()),
        _ => return None,
    })
}

fn contains_path(args: &[Value], env: &Env<'_>) -> Option<Value> {
    let f = JsonFn::ContainsPath;
    if args[0].is_null() || args[1].is_null() {
        return None;
    }
    let mut paths = Vec::new();
    for (i, a) in args.iter().enumerate().skip(2) {
        if a.is_null() {
            return None;
        }
        paths.push(path_arg(f, i, a, env)?);
    }
    let d = doc(f, 0, &args[0], env)?;
    let all = match super::text(&args[1]).to_ascii_lowercase().as_str() {
        "one" => false,
        "all" => true,
        _ => {
            env.warn(
                "Warning",
                cohort_protocol::ErrorCode::JsonOneOrAll,
                "Argument 2 to function 'json_contains_path' must be \"one\" or \"all\".",
            );
            return None;
        }
    };
    let mut result = all;
    for p in &paths {
        let hit = !path::matches(&d, p).is_empty();
        if all && !hit {
            result = false;
        } else if !all && hit {
            result = true;
        }
    }
    Some(Value::Int(result as i64))
}

/// JSON_UNQUOTE: a JSON string's content; other text as it is (bad JSON string: a warning).
fn unquote(v: &Value, env: &Env<'_>) -> Value {
    let t = convert::to_text(v);
    if t.first() != Some(&b'"') {
        return v.clone();
    }
    match parse::parse(&t) {
        Ok(Node::Str(raw)) => out(parse::unescape(&raw)),
        Ok(_) => v.clone(),
        Err(e) => {
            super::warn_text("Warning", JsonFn::Unquote, 0, e, env);
            v.clone()
        }
    }
}
