//! String functions of binary strings (BINARY, VARBINARY, BLOB, `_binary'…'`, `X'…'`, and
//! CONCAT with any of them): bytes, not characters. UPPER / LOWER leave a binary string as
//! it is, REVERSE reverses its bytes, LEFT / RIGHT / SUBSTRING count bytes, and CONCAT with a
//! binary argument is binary (so MAX and comparisons of it compare bytes). MariaDB 10.11:
//! `HEX(REVERSE(X'7F7FFF'))` is FF7F7F, `UPPER(_binary'a')` is 'a'.

use super::{count_arg, int_arg, Func};
use crate::error::Result;
use crate::sql::bind::derivation::{aggregate, check_literals, with_aggregate, Derivation};
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::expr::Expr;
use crate::types::{Collation, Value};

/// A byte-wise string function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinFunc {
    Reverse,
    Left,
    Right,
    Substring,
}

/// The binding of `name` when its string argument is binary, if it differs from the
/// character one.
pub fn bind(name: &str, args: &mut Vec<(Expr, SqlType)>) -> Option<(Expr, SqlType)> {
    let first = args.first()?;
    let nullable = args.iter().any(|(_, t)| t.nullable);
    if name == "CONCAT" {
        // Binary when the arguments' collations aggregate to binary: `CONCAT(ci_col, X'41')`
        // is a character string (the column's derivation is stronger than the literal's).
        let (coll, der) = aggregate(args.iter().map(|(_, t)| t));
        if coll != Collation::Binary {
            return None;
        }
        let len = args
            .iter()
            .fold(0u32, |acc, (_, t)| acc.saturating_add(t.length));
        let exprs = args.drain(..).map(|(e, _)| e).collect();
        let mut ty = SqlType::varbinary(len).with_nullable(nullable);
        if der == Derivation::Ignorable {
            // Of NULLs only: binary, but IGNORABLE as MariaDB's (COLLATE may name any).
            ty.derivation = der;
        }
        return Some((Expr::Func(Func::Concat, exprs), ty));
    }
    if first.1.class != Class::Bin {
        return None;
    }
    let f = match name {
        "UPPER" | "UCASE" | "LOWER" | "LCASE" if args.len() == 1 => return args.pop(),
        "REVERSE" if args.len() == 1 => BinFunc::Reverse,
        "LEFT" if args.len() == 2 => BinFunc::Left,
        "RIGHT" if args.len() == 2 => BinFunc::Right,
        "SUBSTRING" | "SUBSTR" | "MID" if matches!(args.len(), 2 | 3) => BinFunc::Substring,
        _ => return None,
    };
    let ty = SqlType::varbinary(first.1.length).with_nullable(nullable);
    let exprs = args.drain(..).map(|(e, _)| e).collect();
    Some((Expr::Func(Func::Bin(f), exprs), ty))
}

/// Evaluate a byte-wise function of non-NULL arguments.
pub fn eval(f: BinFunc, v: &[Value]) -> Value {
    let b = crate::sql::expr::convert::to_text(&v[0]);
    Value::Bytes(match f {
        BinFunc::Reverse => b.iter().rev().copied().collect(),
        BinFunc::Left => b[..count_arg(&v[1]).min(b.len())].to_vec(),
        BinFunc::Right => b[b.len() - count_arg(&v[1]).min(b.len())..].to_vec(),
        BinFunc::Substring => substring(&b, int_arg(&v[1]), v.get(2).map(int_arg)).to_vec(),
    })
}

/// SUBSTRING(b, pos[, count]) in bytes: a negative position counts from the end, 0 is empty.
fn substring(b: &[u8], pos: i128, count: Option<i128>) -> &[u8] {
    let len = b.len() as i128;
    let count = count.unwrap_or(len);
    let start = match pos {
        0 => return &[],
        p if p > 0 => p - 1,
        p => len + p,
    };
    if start < 0 || start >= len || count <= 0 {
        return &[];
    }
    let end = start + count.min(len - start);
    &b[start as usize..end as usize]
}

/// The result type of a string function whose result is made of its string arguments: their
/// aggregated collation and derivation ([`aggregate`]: `CONCAT(bin_col, 'a')` compares as
/// utf8mb4_bin, `CONCAT('a', X'41')` is binary, `REPLACE(ci_col, X'61', 'z')` is not).
/// A binary literal that is no valid UTF-8 among arguments of a character result is error
/// 1300 ([`check_literals`]).
pub fn derive(name: &str, ty: SqlType, args: &[(Expr, SqlType)]) -> Result<SqlType> {
    const DERIVED: &[&str] = &[
        "CONCAT",
        "CONCAT_WS",
        "UPPER",
        "UCASE",
        "LOWER",
        "LCASE",
        "SUBSTRING",
        "SUBSTR",
        "MID",
        "TRIM",
        "LTRIM",
        "RTRIM",
        "REPLACE",
        "LEFT",
        "RIGHT",
        "REPEAT",
        "REVERSE",
        "LPAD",
        "RPAD",
        "INSERT",
        "ELT",
    ];
    // GREATEST and the branches of IFNULL / COALESCE / IF aggregate too (their type is
    // already the aggregate).
    if ty.class == Class::Str
        && matches!(
            name,
            "GREATEST" | "LEAST" | "IFNULL" | "NVL" | "COALESCE" | "IF"
        )
    {
        let skip = usize::from(name == "IF");
        let op = name.to_ascii_lowercase();
        check_literals(args[skip..].iter().map(|(e, t)| (e, t)), ty.collation, &op)?;
    }
    if ty.class != Class::Str || !DERIVED.contains(&name) {
        return Ok(ty);
    }
    let ty = with_aggregate(ty, aggregate(args.iter().map(|(_, t)| t)));
    if ty.class == Class::Str {
        let op = name.to_ascii_lowercase();
        check_literals(args.iter().map(|(e, t)| (e, t)), ty.collation, &op)?;
    }
    Ok(ty)
}
