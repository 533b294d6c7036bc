//! The JSON functions that change a document: JSON_SET / JSON_INSERT / JSON_REPLACE,
//! JSON_REMOVE, JSON_ARRAY_APPEND / JSON_ARRAY_INSERT, and JSON_MERGE_PATCH /
//! JSON_MERGE_PRESERVE (JSON_MERGE); also JSON_CONTAINS, which compares two documents.
//!
//! Paths are applied one after another to the document as changed so far. A missing parent
//! leaves the document as it is; an array index past the end appends; a scalar is an array of
//! itself for an array step (`JSON_SET('1', '$[1]', 2)` is `[1, 2]`). Recursion (merge,
//! containment) follows the documents, whose depth the parser bounds.

use super::build::to_node;
use super::parse::{self, unescape, Node};
use super::path::{key_eq, Idx, Step};
use super::{doc, out, path_arg, JsonFn};
use crate::sql::env::Env;
use crate::types::Value;
use cohort_protocol::ErrorCode;

pub(super) fn eval(f: JsonFn, mask: u64, args: &[Value], env: &Env<'_>) -> Value {
    let arg = |i: usize| to_node(&args[i], i < 64 && mask & (1 << i) != 0);
    match f {
        JsonFn::Contains => contains_fn(args, env),
        JsonFn::MergePatch | JsonFn::MergePreserve => {
            if args.iter().any(Value::is_null) {
                return Value::Null;
            }
            let mut acc = match doc(f, 0, &args[0], env) {
                Some(d) => d,
                None => return Value::Null,
            };
            for (i, a) in args.iter().enumerate().skip(1) {
                let Some(d) = doc(f, i, a, env) else {
                    return Value::Null;
                };
                acc = if f == JsonFn::MergePatch {
                    merge_patch(acc, d)
                } else {
                    merge_preserve(acc, d)
                };
            }
            out(parse::to_string(&acc))
        }
        _ => {
            if args[0].is_null() {
                return Value::Null;
            }
            let step = if f == JsonFn::Remove { 1 } else { 2 };
            // The paths are read before the document (MariaDB reports a bad path first).
            let mut paths = Vec::new();
            for i in (1..args.len()).step_by(step) {
                if args[i].is_null() {
                    return Value::Null;
                }
                let Some(p) = path_arg(f, i, &args[i], env) else {
                    return Value::Null;
                };
                paths.push(p);
            }
            let Some(mut d) = doc(f, 0, &args[0], env) else {
                return Value::Null;
            };
            let mut i = 1;
            for p in paths {
                if p.is_wild() {
                    env.warn(
                        "Warning",
                        ErrorCode::JsonPathNoWildcard,
                        format!(
                            "Wildcards or range in JSON path not allowed in argument {} to function '{}'",
                            i + 1,
                            f.name()
                        ),
                    );
                    return Value::Null;
                }
                let ok = match f {
                    JsonFn::Remove => {
                        if p.steps.is_empty() {
                            env.warn(
                                "Warning",
                                ErrorCode::JsonPathDollar,
                                format!(
                                    "Path expression '$' is not allowed in argument {} to function 'json_remove'.",
                                    i + 1
                                ),
                            );
                            return Value::Null;
                        }
                        remove(&mut d, &p.steps);
                        true
                    }
                    JsonFn::ArrayAppend => append(&mut d, &p.steps, arg(i + 1)),
                    JsonFn::ArrayInsert => array_insert(&mut d, &p.steps, arg(i + 1)),
                    _ => {
                        set(f, &mut d, &p.steps, arg(i + 1));
                        true
                    }
                };
                if !ok {
                    return Value::Null;
                }
                i += step;
            }
            out(parse::to_string(&d))
        }
    }
}

/// The node a list of non-wildcard steps leads to.
fn locate<'a>(mut cur: &'a mut Node, steps: &[Step]) -> Option<&'a mut Node> {
    for s in steps {
        cur = match (s, cur) {
            (Step::Key(k), Node::Obj(m)) => &mut m.iter_mut().find(|(n, _)| key_eq(n, k))?.1,
            (Step::Index(i), Node::Arr(a)) => {
                let i = resolve(*i, a.len())?;
                &mut a[i]
            }
            (Step::Index(i), n) if !matches!(n, Node::Arr(_)) && resolve(*i, 1) == Some(0) => n,
            _ => return None,
        };
    }
    Some(cur)
}

fn resolve(i: Idx, len: usize) -> Option<usize> {
    let len = len as i64;
    let i = match i {
        Idx::At(n) if n < 0 => len + n,
        Idx::At(n) => n,
        Idx::Last(n) => len - 1 - n,
    };
    (0..len).contains(&i).then_some(i as usize)
}

/// JSON_SET (replace or add), JSON_INSERT (add only), JSON_REPLACE (replace only).
fn set(f: JsonFn, d: &mut Node, steps: &[Step], v: Node) {
    let (add, replace) = match f {
        JsonFn::Set => (true, true),
        JsonFn::Insert => (true, false),
        _ => (false, true),
    };
    let Some((last, parent_steps)) = steps.split_last() else {
        if replace {
            *d = v;
        }
        return;
    };
    let Some(parent) = locate(d, parent_steps) else {
        return;
    };
    match (last, parent) {
        (Step::Key(k), Node::Obj(m)) => match m.iter_mut().find(|(n, _)| key_eq(n, k)) {
            Some((_, old)) if replace => *old = v,
            Some(_) => {}
            None if add => m.push((parse::escape(k), v)),
            None => {}
        },
        (Step::Index(i), Node::Arr(a)) => match resolve(*i, a.len()) {
            Some(i) if replace => a[i] = v,
            Some(_) => {}
            None if add => a.push(v),
            None => {}
        },
        (Step::Index(i), p) => match resolve(*i, 1) {
            Some(_) if replace => *p = v,
            Some(_) => {}
            None if add => {
                let old = std::mem::replace(p, Node::Null);
                *p = Node::Arr(vec![old, v]);
            }
            None => {}
        },
        _ => {}
    }
}

fn remove(d: &mut Node, steps: &[Step]) {
    let Some((last, parent_steps)) = steps.split_last() else {
        return;
    };
    match (last, locate(d, parent_steps)) {
        (Step::Key(k), Some(Node::Obj(m))) => {
            if let Some(pos) = m.iter().position(|(n, _)| key_eq(n, k)) {
                m.remove(pos);
            }
        }
        (Step::Index(i), Some(Node::Arr(a))) => {
            if let Some(i) = resolve(*i, a.len()) {
                a.remove(i);
            }
        }
        _ => {}
    }
}

/// JSON_ARRAY_APPEND: false when the path matches nothing (the result is then NULL).
fn append(d: &mut Node, steps: &[Step], v: Node) -> bool {
    let Some(t) = locate(d, steps) else {
        return false;
    };
    match t {
        Node::Arr(a) => a.push(v),
        t => {
            let old = std::mem::replace(t, Node::Null);
            *t = Node::Arr(vec![old, v]);
        }
    }
    true
}

/// JSON_ARRAY_INSERT: false when the path does not end with an array index (NULL then).
fn array_insert(d: &mut Node, steps: &[Step], v: Node) -> bool {
    let Some((Step::Index(i), parent_steps)) = steps.split_last() else {
        return false;
    };
    if let Some(Node::Arr(a)) = locate(d, parent_steps) {
        let pos = resolve(*i, a.len()).unwrap_or(a.len());
        a.insert(pos, v);
    }
    true
}

/// RFC 7396: a non-object patch replaces; a null member removes.
fn merge_patch(target: Node, patch: Node) -> Node {
    let Node::Obj(pm) = patch else {
        return patch;
    };
    let mut tm = match target {
        Node::Obj(m) => m,
        _ => Vec::new(),
    };
    for (k, v) in pm {
        let pos = tm.iter().position(|(n, _)| unescape(n) == unescape(&k));
        match (pos, v) {
            (Some(p), Node::Null) => {
                tm.remove(p);
            }
            (None, Node::Null) => {}
            (Some(p), v) => {
                let old = std::mem::replace(&mut tm[p].1, Node::Null);
                tm[p].1 = merge_patch(old, v);
            }
            (None, v) => tm.push((k, merge_patch(Node::Null, v))),
        }
    }
    Node::Obj(tm)
}

/// Arrays concatenate, objects merge member-wise, anything else is wrapped in an array.
fn merge_preserve(a: Node, b: Node) -> Node {
    match (a, b) {
        (Node::Obj(mut am), Node::Obj(bm)) => {
            for (k, v) in bm {
                match am.iter().position(|(n, _)| unescape(n) == unescape(&k)) {
                    Some(p) => {
                        let old = std::mem::replace(&mut am[p].1, Node::Null);
                        am[p].1 = merge_preserve(old, v);
                    }
                    None => am.push((k, v)),
                }
            }
            Node::Obj(am)
        }
        (a, b) => {
            let mut items = match a {
                Node::Arr(x) => x,
                x => vec![x],
            };
            match b {
                Node::Arr(y) => items.extend(y),
                y => items.push(y),
            }
            Node::Arr(items)
        }
    }
}

fn contains_fn(args: &[Value], env: &Env<'_>) -> Value {
    let f = JsonFn::Contains;
    if args.iter().any(Value::is_null) {
        return Value::Null;
    }
    let Some(d) = doc(f, 0, &args[0], env) else {
        return Value::Null;
    };
    let Some(c) = doc(f, 1, &args[1], env) else {
        return Value::Null;
    };
    let target = match args.get(2) {
        Some(p) => {
            let Some(p) = path_arg(f, 2, p, env) else {
                return Value::Null;
            };
            match super::path::matches(&d, &p).first() {
                Some(n) => (*n).clone(),
                None => return Value::Int(0),
            }
        }
        None => d,
    };
    Value::Int(contains(&target, &c) as i64)
}

/// Whether `a` contains `b` (MariaDB's JSON_CONTAINS).
fn contains(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Obj(am), Node::Obj(bm)) => bm.iter().all(|(k, bv)| {
            am.iter()
                .find(|(n, _)| unescape(n) == unescape(k))
                .is_some_and(|(_, av)| contains(av, bv))
        }),
        (Node::Arr(aa), Node::Arr(ba)) => ba.iter().all(|bv| aa.iter().any(|av| contains(av, bv))),
        (Node::Arr(aa), b) => aa.iter().any(|av| contains(av, b)),
        (Node::Num(x), Node::Num(y)) => {
            x == y
                || x.parse::<f64>()
                    .ok()
                    .zip(y.parse::<f64>().ok())
                    .is_some_and(|(x, y)| x == y)
        }
        (Node::Str(x), Node::Str(y)) => x == y || unescape(x) == unescape(y),
        (Node::Null, Node::Null) | (Node::True, Node::True) | (Node::False, Node::False) => true,
        _ => false,
    }
}
