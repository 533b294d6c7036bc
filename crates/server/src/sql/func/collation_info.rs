//! COLLATION(x), CHARSET(x) and COERCIBILITY(x): what the binder knows of an expression's
//! string type, answered as a constant (MariaDB evaluates none of them per row either).
//! A number, a temporal value or NULL has the `binary` collation and character set; the
//! coercibility is the derivation ([`Derivation`]: 2 for a column, 4 for a literal, …).

use crate::sql::bind::derivation::Derivation;
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::expr::Expr;
use crate::types::{Collation, Value};

/// The binding of `name` (upper case) when it is one of these functions of one argument.
pub fn bind(name: &str, args: &[(Expr, SqlType)]) -> Option<(Expr, SqlType)> {
    let [(_, t)] = args else {
        return None;
    };
    let (coll, charset) = match (t.class, t.collation) {
        (Class::Str, Collation::Binary) | (Class::Bin | Class::Null, _) => ("binary", "binary"),
        (Class::Str, c) => (c.name(), c.charset().name()),
        _ => ("binary", "binary"),
    };
    // A character string result of a system function: utf8mb3 in MariaDB, 64 characters.
    let mut text = SqlType::varchar(64).not_null();
    text.derivation = Derivation::SysConst;
    let lit = |s: &str| Expr::Lit(Value::str(s));
    match name {
        "COLLATION" => Some((lit(coll), text)),
        "CHARSET" => Some((lit(charset), text)),
        "COERCIBILITY" => Some((
            Expr::Lit(Value::Int(t.derivation as i64)),
            SqlType::int(1).not_null(),
        )),
        _ => None,
    }
}
