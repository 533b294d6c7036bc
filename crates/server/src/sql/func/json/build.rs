//! The JSON functions that build a document from SQL values: JSON_QUOTE, JSON_OBJECT and
//! JSON_ARRAY. A string becomes a JSON string (escaped), a number its text, NULL `null`; an
//! argument that is a JSON function's result is embedded as JSON.

use super::parse::{self, escape, Node};
use super::{out, text, JsonFn};
use crate::sql::expr::convert;
use crate::types::Value;

pub(super) fn eval(f: JsonFn, mask: u64, args: &[Value]) -> Value {
    let node = |i: usize| to_node(&args[i], i < 64 && mask & (1 << i) != 0);
    match f {
        JsonFn::Quote => match &args[0] {
            Value::Bytes(_) => out(format!("\"{}\"", escape(&text(&args[0])))),
            _ => Value::Null,
        },
        JsonFn::Array => out(parse::to_string(&Node::Arr(
            (0..args.len()).map(node).collect(),
        ))),
        _ => out(parse::to_string(&Node::Obj(
            (0..args.len())
                .step_by(2)
                .map(|i| (escape(&text(&args[i])), node(i + 1)))
                .collect(),
        ))),
    }
}

pub(super) fn to_node(v: &Value, json: bool) -> Node {
    match v {
        Value::Null => Node::Null,
        Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_) => Node::Num(text(v)),
        Value::Bytes(b) if json => match parse::parse(b) {
            Ok(n) => n,
            Err(_) => Node::Str(escape(&text(v))),
        },
        _ => Node::Str(escape(&String::from_utf8_lossy(&convert::to_text(v)))),
    }
}
