//! RANDOM_BYTES(n) (MariaDB 10.11): n bytes from the operating system's generator, for n
//! from 0 to 1024 (a fractional n rounds); any other n, or NULL, is NULL, without a warning.
//! VARBINARY(1024) (of the length when a constant); never the same twice, so never folded
//! or cached.

use crate::sql::bind::sqltype::SqlType;
use crate::types::Value;

/// The most bytes one call gives.
const MAX: i128 = 1024;

/// RANDOM_BYTES's type, `constant` its argument's value when a literal; None unless exactly
/// one argument. A constant length in range is the type's length, as MariaDB states it.
pub fn bind(args: usize, constant: Option<&Value>) -> Option<SqlType> {
    let len = match constant {
        Some(v) if !v.is_null() && (0..=MAX).contains(&super::int_arg(v)) => super::int_arg(v),
        _ => MAX,
    };
    (args == 1).then(|| SqlType::varbinary(len as u32))
}

/// Evaluate with the argument's value.
pub fn eval(v: &Value) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    let n = super::int_arg(v);
    if !(0..=MAX).contains(&n) {
        return Value::Null;
    }
    let mut out = vec![0u8; n as usize];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut out);
    Value::Bytes(out)
}
