//! Collation derivation (coercibility) and the aggregation of several operands' collations.
//!
//! Where operands of different collations meet — a comparison, GREATEST / LEAST, the
//! branches of COALESCE / IF / CASE, CONCAT and the other string functions — MariaDB picks
//! the collation of the operand with the strongest *derivation*: an explicit `COLLATE`
//! (0) beats a column or a CAST (2, implicit), which beats a system constant (3), a string
//! or hex literal (4, coercible), a number or date in string context (5) and NULL (6). Of
//! two of the same strength, a binary string wins over a character one and `utf8mb4_bin`
//! over `utf8mb4_general_ci` (the binary-sorting collation of the same character set), so
//! `GREATEST(bin_col, ci_col)` compares under utf8mb4_bin while `CONCAT(ci_col, X'41')` stays
//! utf8mb4_general_ci (the hex literal is only coercible). `COERCIBILITY(x)` shows the number.

use super::sqltype::{Class, SqlType};
use crate::error::{Error, Result};
use crate::sql::expr::Expr;
use crate::types::collation::Charset;
use crate::types::{Collation, Value};
use cohort_protocol::ErrorCode;

/// How strongly an operand's collation binds, strongest first (MariaDB's numbers, as
/// `COERCIBILITY()` answers them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Derivation {
    /// `x COLLATE c`.
    Explicit = 0,
    /// Two explicit collations in conflict.
    None = 1,
    /// A column, a CAST, a user variable, a function of one of those.
    Implicit = 2,
    /// A system variable or a system function (`USER()`, `VERSION()`).
    SysConst = 3,
    /// A string or hex literal, a function of only literals.
    Coercible = 4,
    /// A number or a temporal value where a string is wanted.
    Numeric = 5,
    /// NULL.
    Ignorable = 6,
}

impl Derivation {
    /// The default derivation of an expression of class `class`.
    pub fn of_class(class: Class) -> Derivation {
        match class {
            Class::Str | Class::Bin => Derivation::Coercible,
            Class::Null => Derivation::Ignorable,
            _ => Derivation::Numeric,
        }
    }
}

/// An operand's collation as aggregation sees it: a binary string's is `Binary`, a number's
/// the connection's (it converts to the character set without a say in the collation).
fn view(t: &SqlType) -> (Collation, Derivation) {
    match t.class {
        Class::Str => (t.collation, t.derivation),
        Class::Bin | Class::Null => (Collation::Binary, t.derivation),
        _ => (Collation::Utf8mb4GeneralCi, t.derivation),
    }
}

/// Two collations aggregated (MariaDB's DTCollation::aggregate on one character set plus
/// binary).
fn merge(a: (Collation, Derivation), b: (Collation, Derivation)) -> (Collation, Derivation) {
    if a.0 != b.0 && (a.0 == Collation::Binary || b.0 == Collation::Binary) {
        // A binary string wins over a character string of the same or a weaker derivation.
        let (bin, other) = if a.0 == Collation::Binary {
            (a, b)
        } else {
            (b, a)
        };
        return if bin.1 <= other.1 { bin } else { other };
    }
    if a.1 != b.1 {
        return if a.1 < b.1 { a } else { b };
    }
    if a.0 == b.0 {
        return a;
    }
    if a.0.charset() != b.0.charset() {
        // utf8mb3 against utf8mb4 of the same strength: utf8mb3 converts to its superset.
        // latin1 against either: the Unicode one (a superset).
        return match a.0.charset() == Charset::Utf8mb4
            || (a.0.charset() == Charset::Utf8mb3 && b.0.charset() == Charset::Latin1)
        {
            true => a,
            false => b,
        };
    }
    let bin = Collation::Utf8mb4Bin.in_charset(a.0.charset());
    if a.0.charset() == Charset::Latin1 {
        // MariaDB's rule: latin1_bin wins; two other latin1 collations give latin1_bin with
        // no derivation (comparing them is 1267, see `latin1_clash`).
        return match (a.0, b.0) {
            (Collation::Latin1Bin, _) => a,
            (_, Collation::Latin1Bin) => b,
            _ => (bin, Derivation::None),
        };
    }
    if a.1 == Derivation::Explicit {
        // utf8mb4_bin COLLATE'd against utf8mb4_general_ci COLLATE'd: no collation.
        return (bin, Derivation::None);
    }
    // The same character set and strength: the binary-sorting collation wins.
    (bin, a.1)
}

/// Error 1267 / 1270 / 1271 (Illegal mix of collations) when operands of operation `op` hold
/// two different case-insensitive collations of one strength (utf8mb4_general_ci against
/// utf8mb4_unicode_520_ci: neither wins, MariaDB refuses to compare). Only pairs involving a
/// UCA collation are checked; the older pairs keep their aggregation.
pub fn check_mix<'t, I>(types: I, op: &str) -> Result<()>
where
    I: IntoIterator<Item = &'t SqlType>,
    I::IntoIter: Clone,
{
    let types = types.into_iter();
    // The usual case, no UCA or latin1 operand: nothing to check, nothing allocated.
    if !types.clone().any(|t| {
        t.class == Class::Str
            && (crate::types::collation_uca::is_uca(t.collation)
                || t.collation.charset() == Charset::Latin1)
    }) {
        return Ok(());
    }
    let views: Vec<_> = types.map(view).collect();
    let mut acc: Option<(Collation, Derivation)> = None;
    let mut clash = false;
    for &v in &views {
        if let Some(a) = acc {
            let uca = crate::types::collation_uca::is_uca;
            let plain =
                |c: Collation| !matches!(c.compare_as(), Collation::Binary | Collation::Utf8mb4Bin);
            if a.0 != v.0 && a.1 == v.1 && (uca(a.0) || uca(v.0)) && plain(a.0) && plain(v.0) {
                clash = true;
                break;
            }
            if latin1_clash(a, v) {
                clash = true;
                break;
            }
            acc = Some(merge(a, v));
        } else {
            acc = Some(v);
        }
    }
    if !clash {
        return Ok(());
    }
    Err(mix_error(&views, op))
}

/// 1267 / 1270 / 1271: no collation for the operands of `op` (two, three or more).
fn mix_error(views: &[(Collation, Derivation)], op: &str) -> Error {
    let name = shown;
    match views {
        [a, b] => Error::new(
            ErrorCode::CantAggregate2Collations,
            format!(
                "Illegal mix of collations {} and {} for operation '{op}'",
                name(*a),
                name(*b)
            ),
        ),
        [a, b, c] => Error::new(
            ErrorCode::CantAggregate3Collations,
            format!(
                "Illegal mix of collations {}, {}, {} for operation '{op}'",
                name(*a),
                name(*b),
                name(*c)
            ),
        ),
        _ => Error::new(
            ErrorCode::CantAggregateNCollations,
            format!("Illegal mix of collations for operation '{op}'"),
        ),
    }
}

/// Do two operands, one of them latin1, have no collation to meet in (MariaDB's aggregation)?
/// Against a Unicode operand, the Unicode side wins when it binds as strongly or more (its
/// character set holds latin1's), the latin1 side when it is a column or stronger and the
/// other only a literal or a system constant (converted to latin1); anything else clashes
/// (`latin1_col COLLATE latin1_bin = utf8mb4_col`). Two latin1 collations of one strength
/// clash unless one is latin1_bin.
fn latin1_clash(a: (Collation, Derivation), b: (Collation, Derivation)) -> bool {
    let unicode = |c: Collation| matches!(c.charset(), Charset::Utf8mb4 | Charset::Utf8mb3);
    match (a.0.charset(), b.0.charset()) {
        (Charset::Latin1, Charset::Latin1) => {
            a.0 != b.0 && a.1 == b.1 && a.0 != Collation::Latin1Bin && b.0 != Collation::Latin1Bin
        }
        (Charset::Latin1, _) if unicode(b.0) => !superset_wins(b.1, a.1),
        (_, Charset::Latin1) if unicode(a.0) => !superset_wins(a.1, b.1),
        _ => false,
    }
}

/// A Unicode operand of derivation `u` against a latin1 one of derivation `l`: does one of
/// them win (MariaDB's superset and coercible conversions)?
fn superset_wins(u: Derivation, l: Derivation) -> bool {
    u <= l || (l < Derivation::SysConst && u >= Derivation::SysConst)
}

/// The collation and derivation several operands aggregate to; `Utf8mb4GeneralCi` /
/// `Ignorable` for none.
pub fn aggregate<'t>(types: impl IntoIterator<Item = &'t SqlType>) -> (Collation, Derivation) {
    types
        .into_iter()
        .map(view)
        .reduce(merge)
        .unwrap_or((Collation::Utf8mb4GeneralCi, Derivation::Ignorable))
}

/// `t` (a string result) given the aggregated collation of the operands it is made of:
/// binary (VARBINARY of its length) when that is `Binary`, else a character string of that
/// collation. A result of only numbers is coercible, as a literal; one of only NULLs keeps
/// `t`'s class.
pub fn with_aggregate(mut t: SqlType, (coll, der): (Collation, Derivation)) -> SqlType {
    if der == Derivation::Ignorable {
        t.derivation = der;
        return t;
    }
    let der = der.min(Derivation::Coercible);
    if coll == Collation::Binary {
        if t.class != Class::Bin {
            t = SqlType::varbinary(t.length).with_nullable(t.nullable);
        }
    } else {
        if t.class == Class::Bin {
            t = SqlType::varchar(t.length).with_nullable(t.nullable);
        }
        t.collation = coll;
    }
    t.derivation = der;
    t
}

/// Error 1300 when operands that meet in collation `coll` hold a binary literal (`X'80'`,
/// `_binary'…'`) that must become a utf8mb4 string there and is not valid UTF-8: MariaDB
/// converts such a constant when it binds the expression (`ci_col = X'8061'` fails even on no
/// rows). The message shows up to three bytes from the first invalid one.
pub fn check_literals<'e>(
    operands: impl IntoIterator<Item = (&'e Expr, &'e SqlType)>,
    coll: Collation,
    op: &str,
) -> Result<()> {
    if coll == Collation::Binary {
        return Ok(());
    }
    let operands: Vec<_> = operands.into_iter().collect();
    if coll.charset() == Charset::Latin1 {
        let all: Vec<&SqlType> = operands.iter().map(|(_, t)| *t).collect();
        latin1_literals(&all, &operands, op)?;
    }
    for (e, t) in operands {
        let Expr::Lit(Value::Bytes(b)) = e else {
            continue;
        };
        if t.class != Class::Bin || t.derivation != Derivation::Coercible {
            continue;
        }
        if let Err(bad) = std::str::from_utf8(b) {
            let at = bad.valid_up_to();
            let hex: String = b[at..(at + 3).min(b.len())]
                .iter()
                .map(|c| format!("{c:02X}"))
                .collect();
            return Err(Error::new(
                ErrorCode::InvalidCharacterString,
                format!("Invalid utf8mb4 character string: '{hex}'"),
            ));
        }
    }
    Ok(())
}

/// A binary literal (`X'C4'`) where operands meet in a latin1 collation is latin1 bytes, as
/// MariaDB converts it: the character string they spell (UTF-8, as Cohort keeps strings).
/// Anything else is returned as it is.
pub fn latin1_binary_literal(e: Expr, t: &SqlType, coll: Collation) -> Expr {
    match e {
        Expr::Lit(Value::Bytes(b))
            if coll.charset() == Charset::Latin1
                && t.class == Class::Bin
                && t.derivation == Derivation::Coercible =>
        {
            Expr::Lit(Value::Bytes(crate::types::latin1::decode(&b).into_bytes()))
        }
        other => other,
    }
}

/// [`check_literals`] for `x IN (…)`: `all` the operands' types (for the message), the
/// `literals` among them.
pub fn check_in_literals<'e>(
    all: &[SqlType],
    literals: impl IntoIterator<Item = (&'e Expr, &'e SqlType)>,
    coll: Collation,
    op: &str,
) -> Result<()> {
    let literals: Vec<_> = literals.into_iter().collect();
    if coll.charset() == Charset::Latin1 {
        let all: Vec<&SqlType> = all.iter().collect();
        latin1_literals(&all, &literals, op)?;
    }
    check_literals(literals, coll, op)
}

/// Operands compared or combined in latin1 (a latin1 column against a string literal): a
/// literal of another character set converts to latin1, and one holding a character latin1
/// lacks is 1267 / 1270 / 1271 naming `all` the operands (MariaDB converts constants once,
/// and refuses a lossy conversion).
fn latin1_literals(all: &[&SqlType], literals: &[(&Expr, &SqlType)], op: &str) -> Result<()> {
    let lossy = literals.iter().any(|(e, t)| {
        t.class == Class::Str
            && t.collation.charset() != Charset::Latin1
            && matches!(e, Expr::Lit(Value::Bytes(b))
                if String::from_utf8_lossy(b).chars().any(|c| crate::types::latin1::encode_char(c).is_none()))
    });
    if !lossy {
        return Ok(());
    }
    let views: Vec<_> = all.iter().map(|t| view(t)).collect();
    Err(mix_error(&views, op))
}

/// `(collation,DERIVATION)` as the 1267 family of messages shows an operand.
fn shown((c, d): (Collation, Derivation)) -> String {
    let d = match d {
        Derivation::Explicit => "EXPLICIT",
        Derivation::None => "NONE",
        Derivation::Implicit => "IMPLICIT",
        Derivation::SysConst => "SYSCONST",
        Derivation::Coercible => "COERCIBLE",
        Derivation::Numeric => "NUMERIC",
        Derivation::Ignorable => "IGNORABLE",
    };
    format!("({},{d})", crate::sql::exec::show::collation_name(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(c: Collation) -> SqlType {
        let mut t = SqlType::varchar(10);
        t.collation = c;
        t.derivation = Derivation::Implicit;
        t
    }

    #[test]
    fn strongest_derivation_wins() {
        let ci = col(Collation::Utf8mb4GeneralCi);
        let bin = col(Collation::Utf8mb4Bin);
        let lit = SqlType::varchar(1);
        let hex = SqlType::varbinary(1);
        assert_eq!(aggregate([&bin, &ci]).0, Collation::Utf8mb4Bin);
        assert_eq!(aggregate([&ci, &bin]).0, Collation::Utf8mb4Bin);
        assert_eq!(aggregate([&ci, &hex]).0, Collation::Utf8mb4GeneralCi);
        assert_eq!(aggregate([&lit, &hex]).0, Collation::Binary);
        assert_eq!(aggregate([&lit, &bin]).0, Collation::Utf8mb4Bin);
        let mut explicit = SqlType::varchar(1);
        explicit.derivation = Derivation::Explicit;
        assert_eq!(aggregate([&bin, &explicit]).0, Collation::Utf8mb4GeneralCi);
        assert_eq!(
            aggregate([&SqlType::null(), &SqlType::bigint()]),
            (Collation::Utf8mb4GeneralCi, Derivation::Numeric)
        );
    }
}
