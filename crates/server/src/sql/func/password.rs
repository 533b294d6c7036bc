//! PASSWORD and OLD_PASSWORD (MariaDB 10.11): the account password hashes.
//!
//! * PASSWORD(s): `*` and the upper-case hex of SHA1(SHA1(s)) (`mysql_native_password`),
//!   over the argument's bytes; the empty string and NULL give the empty string (never NULL).
//! * OLD_PASSWORD(s): the pre-4.1 hash, 16 lower-case hex digits: two 31-bit sums over the
//!   bytes, spaces and tabs skipped; the empty string gives the empty string, NULL NULL.

use crate::sql::bind::sqltype::SqlType;
use crate::sql::expr::convert;
use crate::types::Value;
use sha1::{Digest, Sha1};

/// A function of this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PasswordFn {
    Password,
    OldPassword,
}

/// Bind by name: one argument (PASSWORD() is a syntax error, its argument being part of the
/// grammar in MariaDB); VARCHAR(41) and VARCHAR(16), stated nullable.
pub fn bind(name: &str, args: &[SqlType]) -> Option<Result<(PasswordFn, SqlType), ()>> {
    let f = match name {
        "PASSWORD" => PasswordFn::Password,
        "OLD_PASSWORD" => PasswordFn::OldPassword,
        _ => return None,
    };
    if args.len() != 1 {
        return Some(Err(()));
    }
    let ty = match f {
        PasswordFn::Password => SqlType::varchar(41),
        PasswordFn::OldPassword => SqlType::varchar(16),
    };
    Some(Ok((f, ty)))
}

/// Evaluate (the argument may be NULL).
pub fn eval(f: PasswordFn, v: &[Value]) -> Value {
    let s = match &v[0] {
        Value::Null if f == PasswordFn::Password => return Value::str(""),
        Value::Null => return Value::Null,
        other => convert::to_text(other),
    };
    if s.is_empty() {
        return Value::str("");
    }
    Value::str(&match f {
        PasswordFn::Password => native_hash(&s),
        PasswordFn::OldPassword => old_hash(&s),
    })
}

/// `*` and SHA1(SHA1(s)) in upper-case hex.
fn native_hash(s: &[u8]) -> String {
    let twice = Sha1::digest(Sha1::digest(s));
    let mut out = String::with_capacity(41);
    out.push('*');
    for b in twice {
        out.push_str(&format!("{b:02X}"));
    }
    out
}

/// The pre-4.1 hash.
fn old_hash(s: &[u8]) -> String {
    let (mut nr, mut add, mut nr2) = (1_345_345_333u32, 7u32, 0x1234_5671u32);
    for &c in s.iter().filter(|c| **c != b' ' && **c != b'\t') {
        let c = u32::from(c);
        nr ^= ((nr & 63).wrapping_add(add))
            .wrapping_mul(c)
            .wrapping_add(nr << 8);
        nr2 = nr2.wrapping_add((nr2 << 8) ^ nr);
        add = add.wrapping_add(c);
    }
    format!("{:08x}{:08x}", nr & 0x7FFF_FFFF, nr2 & 0x7FFF_FFFF)
}

#[cfg(test)]
mod tests {
    use super::{native_hash, old_hash};

    #[test]
    fn hashes_as_mariadb() {
        assert_eq!(
            native_hash(b"a"),
            "*667F407DE7C6AD07358FA38DAED7828A72014B4E"
        );
        assert_eq!(old_hash(b"a"), "60671c896665c3fa");
        assert_eq!(old_hash(b"mypass"), "6f8c114b58f2ce9e");
        assert_eq!(old_hash(b" a b\tc"), "7cd2b5942be28759");
    }
}
