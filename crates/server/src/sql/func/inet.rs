//! Network address functions (MariaDB 10.11): INET_ATON, INET_NTOA, INET6_ATON, INET6_NTOA,
//! IS_IPV4, IS_IPV6, IS_IPV4_COMPAT, IS_IPV4_MAPPED.
//!
//! * INET_ATON reads dot-separated decimal bytes as MariaDB does: each part at most 255, any
//!   number of dots (`'1.2.3.4.5'` keeps shifting), fewer than three dots put the last part in
//!   the low byte (`'127.1'` is 127.0.0.1); empty parts count as 0; anything else, an empty
//!   string or a trailing dot is NULL.
//! * INET6_ATON gives 4 bytes for a dotted quad (1–3 digits a part, each ≤ 255) and 16 for an
//!   IPv6 text (groups of 1–4 hex digits, one `::`, an optional dotted-quad tail); NULL
//!   otherwise, without a warning.
//! * INET6_NTOA takes a binary string of 4 or 16 bytes (a character string is NULL), prints
//!   the longest run of zero groups as `::` (the first of equal runs, even a single group)
//!   and IPv4-compatible / -mapped addresses with a dotted tail.
//! * IS_IPV4_COMPAT / IS_IPV4_MAPPED read their argument as an INET6 value: 16 binary bytes or
//!   an IPv6 text; anything else is 0 with warning 1292 `Incorrect inet6 value`.

use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::env::Env;
use crate::sql::expr::convert;
use crate::types::Value;
use cohort_protocol::ErrorCode;

/// A function of this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InetFn {
    Aton,
    Ntoa,
    Aton6,
    /// INET6_NTOA; true when its argument is a binary string (only those convert).
    Ntoa6(bool),
    IsV4,
    IsV6,
    /// IS_IPV4_COMPAT; true when its argument is a binary string.
    IsV4Compat(bool),
    /// IS_IPV4_MAPPED; true when its argument is a binary string.
    IsV4Mapped(bool),
}

/// Bind by name: the arity checked, the result type (MariaDB's lengths and decimals).
pub fn bind(name: &str, args: &[SqlType]) -> Option<Result<(InetFn, SqlType), ()>> {
    let binary = args.first().is_some_and(|t| t.class == Class::Bin);
    let nullable = args.iter().any(|t| t.nullable);
    let f = match name {
        "INET_ATON" => InetFn::Aton,
        "INET_NTOA" => InetFn::Ntoa,
        "INET6_ATON" => InetFn::Aton6,
        "INET6_NTOA" => InetFn::Ntoa6(binary),
        "IS_IPV4" => InetFn::IsV4,
        "IS_IPV6" => InetFn::IsV6,
        "IS_IPV4_COMPAT" => InetFn::IsV4Compat(binary),
        "IS_IPV4_MAPPED" => InetFn::IsV4Mapped(binary),
        _ => return None,
    };
    if args.len() != 1 {
        return Some(Err(()));
    }
    let zero_dec = |mut t: SqlType| {
        t.decimals = 0;
        t
    };
    let ty = match f {
        InetFn::Aton => {
            let mut t = SqlType::ubigint();
            t.length = 21;
            t
        }
        InetFn::Ntoa => zero_dec(SqlType::varchar(31)),
        InetFn::Aton6 => zero_dec(SqlType::varbinary(16)),
        InetFn::Ntoa6(_) => zero_dec(SqlType::varchar(39)),
        _ => return Some(Ok((f, SqlType::int(1).with_nullable(nullable)))),
    };
    Some(Ok((f, ty.with_nullable(true))))
}

/// Evaluate with all argument values (NULL included).
pub fn eval(f: InetFn, v: &[Value], env: &Env<'_>) -> Value {
    let a = &v[0];
    if a.is_null() {
        return match f {
            InetFn::IsV4 | InetFn::IsV6 | InetFn::IsV4Compat(_) | InetFn::IsV4Mapped(_) => {
                Value::Int(0)
            }
            _ => Value::Null,
        };
    }
    match f {
        InetFn::Aton => inet_aton(&convert::to_text(a)).map_or(Value::Null, Value::UInt),
        InetFn::Ntoa => {
            let n = super::int_arg(a);
            if !(0..=i128::from(u32::MAX)).contains(&n) {
                return Value::Null;
            }
            let b = (n as u32).to_be_bytes();
            Value::str(&format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]))
        }
        InetFn::Aton6 => {
            let t = convert::to_text(a);
            if let Some(b) = parse_v4(&t) {
                return Value::Bytes(b.to_vec());
            }
            parse_v6(&t).map_or(Value::Null, |b| Value::Bytes(b.to_vec()))
        }
        InetFn::Ntoa6(binary) => {
            let t = convert::to_text(a);
            match (binary, t.len()) {
                (true, 4) => Value::str(&v4_text(&t)),
                (true, 16) => {
                    let mut b = [0u8; 16];
                    b.copy_from_slice(&t);
                    Value::str(&v6_text(&b))
                }
                _ => Value::Null,
            }
        }
        InetFn::IsV4 => Value::Int(parse_v4(&convert::to_text(a)).is_some() as i64),
        InetFn::IsV6 => Value::Int(parse_v6(&convert::to_text(a)).is_some() as i64),
        InetFn::IsV4Compat(binary) | InetFn::IsV4Mapped(binary) => {
            let t = convert::to_text(a);
            let addr = if binary && t.len() == 16 {
                let mut b = [0u8; 16];
                b.copy_from_slice(&t);
                Some(b)
            } else {
                parse_v6(&t)
            };
            let Some(b) = addr else {
                env.warn(
                    "Warning",
                    ErrorCode::TruncatedWrongValue,
                    format!("Incorrect inet6 value: '{}'", escaped(&t)),
                );
                return Value::Int(0);
            };
            let hit = if matches!(f, InetFn::IsV4Compat(_)) {
                b[..12].iter().all(|&x| x == 0)
                    && u32::from_be_bytes([b[12], b[13], b[14], b[15]]) > 1
            } else {
                b[..10].iter().all(|&x| x == 0) && b[10] == 0xff && b[11] == 0xff
            };
            Value::Int(hit as i64)
        }
    }
}

/// A value for a warning: printable ASCII as is, other bytes as `\xHH`.
fn escaped(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &c in b {
        if (0x20..0x7f).contains(&c) {
            s.push(c as char);
        } else {
            s.push_str(&format!("\\x{c:02X}"));
        }
    }
    s
}

/// INET_ATON's reading (see the module doc).
fn inet_aton(t: &[u8]) -> Option<u64> {
    if t.is_empty() || t.last() == Some(&b'.') {
        return None;
    }
    let mut result: u64 = 0;
    let mut part: u64 = 0;
    let mut dots = 0u32;
    for &c in t {
        match c {
            b'0'..=b'9' => {
                part = part * 10 + u64::from(c - b'0');
                if part > 255 {
                    return None;
                }
            }
            b'.' => {
                dots += 1;
                result = result.wrapping_shl(8).wrapping_add(part);
                part = 0;
            }
            _ => return None,
        }
    }
    match dots {
        1 => result = result.wrapping_shl(16),
        2 => result = result.wrapping_shl(8),
        _ => {}
    }
    Some(result.wrapping_shl(8).wrapping_add(part))
}

/// A dotted quad: four parts of 1–3 decimal digits, each at most 255.
fn parse_v4(t: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = t.split(|&c| c == b'.');
    for o in &mut out {
        let p = parts.next()?;
        if p.is_empty() || p.len() > 3 || !p.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = p.iter().fold(0u32, |n, &c| n * 10 + u32::from(c - b'0'));
        *o = u8::try_from(n).ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// An IPv6 text (see the module doc).
fn parse_v6(t: &[u8]) -> Option<[u8; 16]> {
    if t.len() < 2 || t.len() > 45 {
        return None;
    }
    // The text before and after `::` (at most one).
    let s = std::str::from_utf8(t).ok()?;
    let (head, tail, gap) = match s.find("::") {
        Some(i) => (&s[..i], &s[i + 2..], true),
        None => (s, "", false),
    };
    if tail.contains("::") {
        return None;
    }
    let groups = |part: &str, last: bool| -> Option<Vec<u8>> {
        let mut out = Vec::new();
        if part.is_empty() {
            return Some(out);
        }
        let items: Vec<&str> = part.split(':').collect();
        for (i, g) in items.iter().enumerate() {
            if last && i + 1 == items.len() && g.contains('.') {
                out.extend_from_slice(&parse_v4(g.as_bytes())?);
                continue;
            }
            if g.is_empty() || g.len() > 4 || !g.bytes().all(|c| c.is_ascii_hexdigit()) {
                return None;
            }
            let n = u16::from_str_radix(g, 16).ok()?;
            out.extend_from_slice(&n.to_be_bytes());
        }
        Some(out)
    };
    let h = groups(head, !gap)?;
    let tl = if gap { groups(tail, true)? } else { Vec::new() };
    let mut out = [0u8; 16];
    if gap {
        if h.len() + tl.len() > 14 {
            return None;
        }
        out[..h.len()].copy_from_slice(&h);
        out[16 - tl.len()..].copy_from_slice(&tl);
    } else {
        if h.len() != 16 {
            return None;
        }
        out.copy_from_slice(&h);
    }
    Some(out)
}

fn v4_text(b: &[u8]) -> String {
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

/// An address as text: the longest run of zero groups as `::`, IPv4-compatible and -mapped
/// addresses with a dotted tail.
fn v6_text(b: &[u8; 16]) -> String {
    let w: Vec<u16> = (0..8)
        .map(|i| u16::from_be_bytes([b[2 * i], b[2 * i + 1]]))
        .collect();
    let (mut gap_pos, mut gap_len) = (usize::MAX, 0);
    let mut i = 0;
    while i < 8 {
        if w[i] == 0 {
            let start = i;
            while i < 8 && w[i] == 0 {
                i += 1;
            }
            if i - start > gap_len {
                gap_pos = start;
                gap_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    let hex = |ws: &[u16]| {
        ws.iter()
            .map(|x| format!("{x:x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    if gap_pos == 0 && (gap_len == 6 || (gap_len == 5 && w[5] == 0xffff)) {
        let mapped = if gap_len == 5 { "ffff:" } else { "" };
        return format!("::{mapped}{}", v4_text(&b[12..]));
    }
    if gap_len == 0 {
        return hex(&w);
    }
    format!("{}::{}", hex(&w[..gap_pos]), hex(&w[gap_pos + gap_len..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aton_and_text() {
        assert_eq!(inet_aton(b"10.0.5.9"), Some(167_773_449));
        assert_eq!(inet_aton(b"1..2"), Some(16_777_218));
        assert_eq!(inet_aton(b"1.2."), None);
        let a = parse_v6(b"1:0:0:2:0:0:0:3").unwrap();
        assert_eq!(v6_text(&a), "1:0:0:2::3");
        assert_eq!(
            v6_text(&parse_v6(b"::ffff:1.2.3.4").unwrap()),
            "::ffff:1.2.3.4"
        );
        assert_eq!(
            v6_text(&parse_v6(b"1:2:3:4:5:6:7::").unwrap()),
            "1:2:3:4:5:6:7::"
        );
        assert!(parse_v6(b":1::").is_none());
        assert!(parse_v6(b"1::2:").is_none());
        assert!(parse_v6(b"1:2:3:4:5:6:7:1.2.3.4").is_none());
    }
}
