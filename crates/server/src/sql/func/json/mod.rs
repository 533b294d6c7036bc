//! JSON functions on JSON text, as MariaDB 10.11 answers them (JSON is text there).
//!
//! `parse.rs` reads and writes JSON text (scalars keep their source text), `path.rs` reads
//! and matches JSON paths, `query.rs` holds the functions that read a document (JSON_VALID,
//! JSON_EXTRACT, JSON_TYPE, JSON_LENGTH, JSON_DEPTH, JSON_KEYS, JSON_CONTAINS_PATH,
//! JSON_UNQUOTE, JSON_VALUE, JSON_EXISTS, JSON_COMPACT), `build.rs` those that build one (JSON_QUOTE, JSON_OBJECT, JSON_ARRAY) and
//! `modify.rs` those that change one (JSON_SET … JSON_MERGE_PATCH) and JSON_CONTAINS.
//!
//! Bad JSON text or a bad path is a warning (4037 / 4038 / 4040 / 4042, naming the argument
//! and the function) and a NULL result, as MariaDB. An argument that is itself the result of a
//! JSON function is embedded as JSON, not quoted as a string (MariaDB's "JSON type" items).

mod build;
mod modify;
pub(crate) mod parse;
pub(crate) mod path;
mod query;

use crate::sql::bind::sqltype::SqlType;
use crate::sql::env::Env;
use crate::sql::expr::Expr;
use crate::types::Value;
use cohort_protocol::ErrorCode;
use parse::{Node, ParseError};

/// A JSON function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonFn {
    Valid,
    Extract,
    Type,
    Length,
    Depth,
    Keys,
    ContainsPath,
    Unquote,
    Quote,
    Object,
    Array,
    Set,
    Insert,
    Replace,
    Remove,
    ArrayAppend,
    ArrayInsert,
    MergePatch,
    MergePreserve,
    Contains,
    Value,
    Exists,
    Compact,
}

impl JsonFn {
    pub(super) fn name(self) -> &'static str {
        match self {
            JsonFn::Valid => "json_valid",
            JsonFn::Extract => "json_extract",
            JsonFn::Type => "json_type",
            JsonFn::Length => "json_length",
            JsonFn::Depth => "json_depth",
            JsonFn::Keys => "json_keys",
            JsonFn::ContainsPath => "json_contains_path",
            JsonFn::Unquote => "json_unquote",
            JsonFn::Quote => "json_quote",
            JsonFn::Object => "json_object",
            JsonFn::Array => "json_array",
            JsonFn::Set => "json_set",
            JsonFn::Insert => "json_insert",
            JsonFn::Replace => "json_replace",
            JsonFn::Remove => "json_remove",
            JsonFn::ArrayAppend => "json_array_append",
            JsonFn::ArrayInsert => "json_array_insert",
            JsonFn::MergePatch => "json_merge_patch",
            JsonFn::MergePreserve => "json_merge_preserve",
            JsonFn::Contains => "json_contains",
            JsonFn::Value => "json_value",
            JsonFn::Exists => "json_exists",
            JsonFn::Compact => "json_compact",
        }
    }

    /// True when the result is JSON (embedded as such by JSON_OBJECT / JSON_ARRAY).
    fn returns_json(self) -> bool {
        !matches!(
            self,
            JsonFn::Valid
                | JsonFn::Type
                | JsonFn::Length
                | JsonFn::Depth
                | JsonFn::ContainsPath
                | JsonFn::Unquote
                | JsonFn::Quote
                | JsonFn::Contains
                | JsonFn::Value
                | JsonFn::Exists
        )
    }
}

/// True for an expression whose result column MariaDB marks with the extended metadata
/// format "json": a call of a JSON function that returns a document, except JSON_KEYS.
pub fn has_json_format(e: &Expr) -> bool {
    match e {
        Expr::Func(crate::sql::func::Func::Json(f, _), _) => f.returns_json() && *f != JsonFn::Keys,
        _ => false,
    }
}

/// Bind a JSON function by name: its arity checked, its type, and which arguments are JSON
/// (bit i set: argument i is the result of a JSON function).
pub fn bind(
    name: &str,
    args: &[(Expr, SqlType)],
) -> Option<std::result::Result<(JsonFn, u64, SqlType), ()>> {
    let n = args.len();
    let (f, ok) = match name {
        "JSON_VALID" => (JsonFn::Valid, n == 1),
        "JSON_EXTRACT" => (JsonFn::Extract, n >= 2),
        "JSON_TYPE" => (JsonFn::Type, n == 1),
        "JSON_LENGTH" => (JsonFn::Length, n == 1 || n == 2),
        "JSON_DEPTH" => (JsonFn::Depth, n == 1),
        "JSON_KEYS" => (JsonFn::Keys, n == 1 || n == 2),
        "JSON_CONTAINS_PATH" => (JsonFn::ContainsPath, n >= 3),
        "JSON_UNQUOTE" => (JsonFn::Unquote, n == 1),
        "JSON_QUOTE" => (JsonFn::Quote, n == 1),
        "JSON_OBJECT" => (JsonFn::Object, n.is_multiple_of(2)),
        "JSON_ARRAY" => (JsonFn::Array, true),
        "JSON_SET" => (JsonFn::Set, n >= 3 && !n.is_multiple_of(2)),
        "JSON_INSERT" => (JsonFn::Insert, n >= 3 && !n.is_multiple_of(2)),
        "JSON_REPLACE" => (JsonFn::Replace, n >= 3 && !n.is_multiple_of(2)),
        "JSON_REMOVE" => (JsonFn::Remove, n >= 2),
        "JSON_ARRAY_APPEND" => (JsonFn::ArrayAppend, n >= 3 && !n.is_multiple_of(2)),
        "JSON_ARRAY_INSERT" => (JsonFn::ArrayInsert, n >= 3 && !n.is_multiple_of(2)),
        "JSON_MERGE_PATCH" => (JsonFn::MergePatch, n >= 2),
        "JSON_MERGE_PRESERVE" | "JSON_MERGE" => (JsonFn::MergePreserve, n >= 2),
        "JSON_CONTAINS" => (JsonFn::Contains, n == 2 || n == 3),
        "JSON_VALUE" => (JsonFn::Value, n == 2),
        "JSON_EXISTS" => (JsonFn::Exists, n == 2),
        "JSON_COMPACT" => (JsonFn::Compact, n == 1),
        _ => return None,
    };
    if !ok {
        return Some(Err(()));
    }
    let mut mask = 0u64;
    for (i, (e, _)) in args.iter().enumerate().take(64) {
        if matches!(e, Expr::Func(crate::sql::func::Func::Json(g, _), _) if g.returns_json()) {
            mask |= 1 << i;
        }
    }
    let nullable = args.iter().any(|(_, t)| t.nullable);
    // Text results are VAR_STRING as in MariaDB; the lengths follow MariaDB where it is simple
    // (the document's length, JSON_TYPE's 12) and are an estimate otherwise.
    let len0 = args.first().map_or(0, |(_, t)| t.char_len());
    let total = args
        .iter()
        .fold(0u32, |acc, (_, t)| acc.saturating_add(t.char_len()));
    let ty = match f {
        JsonFn::Valid | JsonFn::ContainsPath | JsonFn::Contains | JsonFn::Exists => SqlType::int(1),
        JsonFn::Length | JsonFn::Depth => SqlType::int(10),
        JsonFn::Unquote | JsonFn::Keys | JsonFn::Remove | JsonFn::Value | JsonFn::Compact => {
            SqlType::varchar(len0)
        }
        JsonFn::Type => SqlType::varchar(12),
        JsonFn::Quote => SqlType::varchar(len0.saturating_mul(12).saturating_add(2)),
        JsonFn::Object | JsonFn::Array => {
            SqlType::varchar(total.saturating_mul(6)).with_nullable(nullable)
        }
        _ => SqlType::varchar(total.saturating_mul(6)),
    };
    Some(Ok((f, mask, with_collation(f, args, ty))))
}

/// The collation of a text result, as MariaDB's: a function of a document takes the
/// document's (a JSON column's utf8mb4_bin, implicit; a literal's, the connection's);
/// JSON_UNQUOTE is always utf8mb4_bin and coercible; the builders (JSON_OBJECT,
/// JSON_ARRAY, JSON_QUOTE) take their string arguments' (a literal's: the connection's).
fn with_collation(f: JsonFn, args: &[(Expr, SqlType)], mut ty: SqlType) -> SqlType {
    use crate::sql::bind::derivation::{aggregate, Derivation};
    use crate::sql::bind::sqltype::Class;
    use crate::types::Collation;
    if ty.class != Class::Str || f == JsonFn::Type {
        return ty;
    }
    let doc = args
        .first()
        .map(|(_, t)| t)
        .filter(|t| t.class == Class::Str);
    match f {
        JsonFn::Unquote => {
            ty.collation = Collation::Utf8mb4Bin;
            ty.derivation = Derivation::Coercible;
        }
        JsonFn::Quote | JsonFn::Object | JsonFn::Array => {
            let strings = args
                .iter()
                .map(|(_, t)| t)
                .filter(|t| t.class == Class::Str);
            let (c, d) = aggregate(strings);
            if d != Derivation::Ignorable && c != Collation::Binary {
                ty.collation = c;
                ty.derivation = d.max(Derivation::Coercible);
            }
        }
        _ => {
            if let Some(t) = doc {
                ty.collation = t.collation;
                ty.derivation = t.derivation;
            }
        }
    }
    ty
}

/// Evaluate a JSON function on its argument values.
pub fn eval(f: JsonFn, mask: u64, args: &[Value], env: &Env<'_>) -> Value {
    match f {
        JsonFn::Quote | JsonFn::Object | JsonFn::Array => build::eval(f, mask, args),
        JsonFn::Valid
        | JsonFn::Extract
        | JsonFn::Type
        | JsonFn::Length
        | JsonFn::Depth
        | JsonFn::Keys
        | JsonFn::ContainsPath
        | JsonFn::Unquote
        | JsonFn::Value
        | JsonFn::Exists
        | JsonFn::Compact => query::eval(f, args, env),
        _ => modify::eval(f, mask, args, env),
    }
}

/// The text of a value.
fn text(v: &Value) -> String {
    crate::sql::expr::convert::to_string(v)
}

/// Parse argument `arg` (0-based) as JSON; bad text is a warning and None.
fn doc(f: JsonFn, arg: usize, v: &Value, env: &Env<'_>) -> Option<Node> {
    let t = crate::sql::expr::convert::to_text(v);
    match parse::parse(&t) {
        Ok(n) => Some(n),
        Err(e) => {
            warn_text("Warning", f, arg, e, env);
            None
        }
    }
}

fn warn_text(level: &'static str, f: JsonFn, arg: usize, e: ParseError, env: &Env<'_>) {
    let (n, name) = (arg + 1, f.name());
    let (code, msg) = match e {
        ParseError::Eof => (
            ErrorCode::JsonEofUnexpected,
            format!("Unexpected end of JSON text in argument {n} to function '{name}'"),
        ),
        ParseError::Syntax(p) => (
            ErrorCode::JsonSyntax,
            format!("Syntax error in JSON text in argument {n} to function '{name}' at position {p}"),
        ),
        ParseError::BadChr(p) => (
            ErrorCode::JsonBadChr,
            format!("Character disallowed in JSON in argument {n} to function '{name}' at position {p}"),
        ),
        ParseError::Depth(p) => (
            ErrorCode::JsonDepth,
            format!(
                "Limit of 32 on JSON nested structures depth is reached in argument {n} to function '{name}' at position {p}"
            ),
        ),
    };
    env.warn(level, code, msg);
}

/// Parse argument `arg` as a path; a bad path is a warning and None.
fn path_arg(f: JsonFn, arg: usize, v: &Value, env: &Env<'_>) -> Option<path::Path> {
    let t = crate::sql::expr::convert::to_text(v);
    let (n, name) = (arg + 1, f.name());
    let (code, msg) = match path::parse(&t) {
        Ok(p) if p.is_wild() && matches!(f, JsonFn::Length | JsonFn::Keys | JsonFn::Value) => (
            ErrorCode::JsonPathNoWildcard,
            format!(
                "Wildcards or range in JSON path not allowed in argument {n} to function '{name}'"
            ),
        ),
        Ok(p) => return Some(p),
        Err(path::PathError::Eof) => (
            ErrorCode::JsonPathEof,
            format!("Unexpected end of JSON path in argument {n} to function '{name}'"),
        ),
        Err(path::PathError::Syntax(p)) => (
            ErrorCode::JsonPathSyntax,
            format!(
                "Syntax error in JSON path in argument {n} to function '{name}' at position {p}"
            ),
        ),
    };
    env.warn("Warning", code, msg);
    None
}

fn out(s: String) -> Value {
    Value::Bytes(s.into_bytes())
}
