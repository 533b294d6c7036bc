//! Strings built from bits and code points (MariaDB 10.11): MAKE_SET, EXPORT_SET, CHR.
//!
//! * MAKE_SET(bits, s1, s2, …) joins with `,` the strings whose bit is set, skipping NULL
//!   strings; NULL bits give NULL. The result is always nullable; its length is the sum of the
//!   strings' lengths plus the separators.
//! * EXPORT_SET(bits, on, off[, sep[, n]]) writes `on`/`off` for the low `n` bits (64 when
//!   omitted, negative or above 64), low bit first, joined by `sep` (`,` when omitted); any
//!   NULL argument gives NULL. Always nullable; its length is 64 × the longer of on/off + 63 × sep.
//! * CHR(n) is the character whose utf8mb4 bytes are n's big-endian bytes (`CHR(14844588)` is
//!   `€`); bytes that are not utf8mb4 give NULL with warning 1300, as CHAR(n USING utf8mb4).

use crate::sql::bind::sqltype::SqlType;
use crate::sql::env::Env;
use crate::sql::expr::convert;
use crate::types::Value;
use cohort_protocol::ErrorCode;

/// A function of this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetFn {
    MakeSet,
    ExportSet,
    Chr,
}

/// Bind by name: the arity checked, the result type.
pub fn bind(name: &str, args: &[SqlType]) -> Option<Result<(SetFn, SqlType), ()>> {
    let n = args.len();
    let (f, ok, ty) = match name {
        "MAKE_SET" => {
            let chars: u64 = args[1.min(n)..]
                .iter()
                .map(|t| u64::from(t.char_len()))
                .sum::<u64>()
                + n.saturating_sub(2) as u64;
            (
                SetFn::MakeSet,
                n >= 2,
                SqlType::varchar(chars.min(u64::from(u32::MAX / 4)) as u32),
            )
        }
        "EXPORT_SET" => {
            let on_off = args
                .get(1..3)
                .map_or(0, |a| a.iter().map(SqlType::char_len).max().unwrap_or(0));
            let sep = args.get(3).map_or(1, SqlType::char_len);
            let chars = 64 * u64::from(on_off) + 63 * u64::from(sep);
            (
                SetFn::ExportSet,
                (3..=5).contains(&n),
                SqlType::varchar(chars.min(u64::from(u32::MAX / 4)) as u32),
            )
        }
        "CHR" => (SetFn::Chr, n == 1, SqlType::varchar(1)),
        _ => return None,
    };
    if !ok {
        return Some(Err(()));
    }
    Some(Ok((f, ty.with_nullable(true))))
}

/// Evaluate with all argument values (NULL included).
pub fn eval(f: SetFn, v: &[Value], env: &Env<'_>) -> Value {
    match f {
        SetFn::MakeSet => {
            if v[0].is_null() {
                return Value::Null;
            }
            let bits = super::int_arg(&v[0]) as u64;
            let mut out = Vec::new();
            let mut first = true;
            for (i, s) in v[1..].iter().enumerate().take(64) {
                if bits >> i & 1 == 0 || s.is_null() {
                    continue;
                }
                if !first {
                    out.push(b',');
                }
                first = false;
                out.extend_from_slice(&convert::to_text(s));
            }
            Value::Bytes(out)
        }
        SetFn::ExportSet => {
            if v.iter().any(Value::is_null) {
                return Value::Null;
            }
            let bits = super::int_arg(&v[0]) as u64;
            let on = convert::to_text(&v[1]);
            let off = convert::to_text(&v[2]);
            let sep = v.get(3).map_or(b",".as_slice().into(), convert::to_text);
            let count = match v.get(4).map(super::int_arg) {
                Some(k) if (0..=64).contains(&k) => k as usize,
                _ => 64,
            };
            let mut out = Vec::new();
            for i in 0..count {
                if i > 0 {
                    out.extend_from_slice(&sep);
                }
                out.extend_from_slice(if bits >> i & 1 == 1 { &on } else { &off });
            }
            Value::Bytes(out)
        }
        SetFn::Chr => {
            if v[0].is_null() {
                return Value::Null;
            }
            let n = (super::int_arg(&v[0]) as u64 & 0xFFFF_FFFF) as u32;
            let bytes = n.to_be_bytes();
            let skip = (n.leading_zeros() / 8).min(3) as usize;
            let b = &bytes[skip..];
            match std::str::from_utf8(b) {
                Ok(_) => Value::Bytes(b.to_vec()),
                Err(bad) => {
                    let at = bad.valid_up_to();
                    let hex: String = b[at..(at + 3).min(b.len())]
                        .iter()
                        .map(|c| format!("{c:02X}"))
                        .collect();
                    env.warn(
                        "Warning",
                        ErrorCode::InvalidCharacterString,
                        format!("Invalid utf8mb4 character string: '{hex}'"),
                    );
                    Value::Null
                }
            }
        }
    }
}
