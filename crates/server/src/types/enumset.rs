//! ENUM and SET values: a value is kept as its text (`Value::Bytes`, the members' texts as
//! declared), and its number — an ENUM member's 1-based position (0 for the error value ''),
//! a SET's bitmask (member i is bit i) — is derived from the column's member list where it is
//! needed: numeric context (`e + 0`), ORDER BY, index keys, the binlog's packed form.
//!
//! Members match the way the column's collation compares (case-insensitively under
//! utf8mb4_general_ci, trailing spaces ignored), as MariaDB.

use super::collation::general_ci_weight;
use super::{Collation, DataType};

/// At most this many members in an ENUM (MariaDB's limit).
pub const MAX_ENUM_MEMBERS: usize = 65_535;
/// At most this many members in a SET.
pub const MAX_SET_MEMBERS: usize = 64;

fn trim_spaces(b: &[u8]) -> &[u8] {
    let n = b.iter().rposition(|&c| c != b' ').map_or(0, |i| i + 1);
    &b[..n]
}

/// Does `text` name `member` under `coll` (PAD SPACE: trailing spaces do not count, unless
/// `exact_spaces`, as for the elements of a SET value)?
fn matches(member: &str, text: &[u8], coll: Collation, exact_spaces: bool) -> bool {
    let (m, t) = if exact_spaces {
        (member.as_bytes(), text)
    } else {
        (trim_spaces(member.as_bytes()), trim_spaces(text))
    };
    match coll {
        Collation::Binary => member.as_bytes() == text,
        Collation::Utf8mb4Bin | Collation::Utf8mb3Bin => m == t,
        Collation::Utf8mb4GeneralCi | Collation::Utf8mb3GeneralCi => {
            let t = String::from_utf8_lossy(t);
            let m = String::from_utf8_lossy(m);
            m.chars()
                .map(general_ci_weight)
                .eq(t.chars().map(general_ci_weight))
        }
        c @ (Collation::Utf8mb4Unicode520Ci
        | Collation::Utf8mb3Unicode520Ci
        | Collation::Utf8mb4UnicodeCi
        | Collation::Utf8mb3UnicodeCi) => {
            let uca = super::collation_uca::table_of(c);
            uca.key_weights(m) == uca.key_weights(t)
        }
        c @ (Collation::Latin1SwedishCi
        | Collation::Latin1Bin
        | Collation::Latin1GeneralCi
        | Collation::Latin1GeneralCs
        | Collation::Latin1German1Ci) => {
            let order = super::collation_latin1::order_of(c).expect("latin1");
            order.key_weights(m) == order.key_weights(t)
        }
    }
}

/// The 1-based position of the member `text` names, if any.
pub fn enum_position(members: &[String], coll: Collation, text: &[u8]) -> Option<usize> {
    if let Some(i) = members.iter().position(|m| m.as_bytes() == text) {
        return Some(i + 1);
    }
    members
        .iter()
        .position(|m| matches(m, text, coll, false))
        .map(|i| i + 1)
}

fn set_member(members: &[String], coll: Collation, text: &[u8]) -> Option<usize> {
    if let Some(i) = members.iter().position(|m| m.as_bytes() == text) {
        return Some(i + 1);
    }
    members
        .iter()
        .position(|m| matches(m, text, coll, true))
        .map(|i| i + 1)
}

/// The bitmask of the members a comma-separated `text` names; `Err(partial)` when some
/// element is no member (`partial` has the ones that are).
pub fn set_bits(members: &[String], coll: Collation, text: &[u8]) -> Result<u64, u64> {
    let mut bits = 0u64;
    let mut ok = true;
    if text.is_empty() {
        return Ok(0);
    }
    for part in text.split(|&b| b == b',') {
        match set_member(members, coll, part) {
            Some(i) => bits |= 1u64 << (i - 1),
            None => ok = false,
        }
    }
    if ok {
        Ok(bits)
    } else {
        Err(bits)
    }
}

/// The text of the SET value with bitmask `bits`: its members in declaration order.
pub fn set_text(members: &[String], bits: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, m) in members.iter().enumerate() {
        if bits & (1u64 << i) != 0 {
            if !out.is_empty() {
                out.push(b',');
            }
            out.extend_from_slice(m.as_bytes());
        }
    }
    out
}

/// The number of a stored value (its text) of an ENUM or SET column: the member's position,
/// or the bitmask. 0 for any other type.
pub fn number_of(dt: &DataType, text: &[u8]) -> u64 {
    match dt {
        DataType::Enum { members, collation } => {
            enum_position(members, *collation, text).unwrap_or(0) as u64
        }
        DataType::Set { members, collation } => match set_bits(members, *collation, text) {
            Ok(b) | Err(b) => b,
        },
        _ => 0,
    }
}

/// The text of number `n` in an ENUM or SET column ('' when it names nothing).
pub fn text_of(dt: &DataType, n: u64) -> Vec<u8> {
    match dt {
        DataType::Enum { members, .. } => match n.checked_sub(1) {
            Some(i) if (i as usize) < members.len() => members[i as usize].as_bytes().to_vec(),
            _ => Vec::new(),
        },
        DataType::Set { members, .. } => set_text(members, n),
        _ => Vec::new(),
    }
}

/// `enum('a','b')` / `set('a','b')` as SHOW CREATE TABLE and information_schema show it
/// (quotes and backslashes doubled as MariaDB writes them).
pub fn type_text(dt: &DataType) -> String {
    let (kw, members) = match dt {
        DataType::Enum { members, .. } => ("enum", members),
        DataType::Set { members, .. } => ("set", members),
        _ => return String::new(),
    };
    let list: Vec<String> = members
        .iter()
        .map(|m| format!("'{}'", m.replace('\'', "''")))
        .collect();
    format!("{kw}({})", list.join(","))
}

/// The longest value in characters: the longest member for ENUM, all members and the commas
/// between them for SET (CHARACTER_MAXIMUM_LENGTH, the column length sent to clients).
pub fn max_chars(dt: &DataType) -> u32 {
    match dt {
        DataType::Enum { members, .. } => members
            .iter()
            .map(|m| m.chars().count() as u32)
            .max()
            .unwrap_or(0),
        DataType::Set { members, .. } => {
            let total: u32 = members.iter().map(|m| m.chars().count() as u32).sum();
            total + members.len().saturating_sub(1) as u32
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn enum_and_set_numbers() {
        let ms = m(&["b", "A", "c"]);
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(enum_position(&ms, ci, b"a"), Some(2));
        assert_eq!(enum_position(&ms, ci, b"a  "), Some(2));
        assert_eq!(enum_position(&ms, Collation::Utf8mb4Bin, b"a"), None);
        assert_eq!(set_bits(&ms, ci, b"c,B"), Ok(5));
        assert_eq!(set_bits(&ms, ci, b"c,w"), Err(4));
        assert_eq!(set_text(&ms, 5), b"b,c".to_vec());
        let dt = DataType::Set {
            members: ms,
            collation: ci,
        };
        assert_eq!(number_of(&dt, b"b,c"), 5);
        assert_eq!(type_text(&dt), "set('b','A','c')");
        assert_eq!(max_chars(&dt), 5);
    }
}
