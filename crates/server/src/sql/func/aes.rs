//! AES_ENCRYPT and AES_DECRYPT (MariaDB 10.11): AES-128 in ECB mode with PKCS#7 padding, the
//! only mode 10.11 has (no `block_encryption_mode`, no IV argument: a third argument is 1582).
//!
//! The key is folded into 16 bytes: byte i of the key is XORed into byte i mod 16 of a zeroed
//! key (a short key is zero-padded, a long one wraps). Encrypting always pads (1 to 16 bytes
//! of the pad length), so the result is 16 bytes longer than the input rounded down to a
//! block; the empty string encrypts to one block. Decrypting input that is not whole blocks,
//! or whose padding does not check out (a wrong key, mostly), is NULL without a warning.
//! NULL in, NULL out. Both are binary strings: VARBINARY of the padded length (encrypt) or the
//! argument's (decrypt).

use crate::sql::bind::sqltype::SqlType;
use crate::sql::expr::convert;
use crate::types::Value;
use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit};
use aes::Aes128;

const BLOCK: usize = 16;

/// A function of this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AesFn {
    Encrypt,
    Decrypt,
}

/// Bind by name: two arguments.
pub fn bind(name: &str, args: &[SqlType]) -> Option<Result<(AesFn, SqlType), ()>> {
    let f = match name {
        "AES_ENCRYPT" => AesFn::Encrypt,
        "AES_DECRYPT" => AesFn::Decrypt,
        _ => return None,
    };
    if args.len() != 2 {
        return Some(Err(()));
    }
    let len = args[0].length;
    let len = match f {
        AesFn::Encrypt => (len / BLOCK as u32)
            .saturating_add(1)
            .saturating_mul(BLOCK as u32),
        AesFn::Decrypt => len,
    };
    Some(Ok((f, SqlType::varbinary(len))))
}

/// Evaluate (the arguments may be NULL).
pub fn eval(f: AesFn, v: &[Value]) -> Value {
    if v[0].is_null() || v[1].is_null() {
        return Value::Null;
    }
    let cipher = Aes128::new(&fold_key(&convert::to_text(&v[1])).into());
    let data = convert::to_text(&v[0]);
    match f {
        AesFn::Encrypt => Value::Bytes(encrypt(&cipher, &data)),
        AesFn::Decrypt => decrypt(&cipher, &data).map_or(Value::Null, Value::Bytes),
    }
}

/// The key folded into AES-128's 16 bytes.
fn fold_key(key: &[u8]) -> [u8; BLOCK] {
    let mut k = [0u8; BLOCK];
    for (i, b) in key.iter().enumerate() {
        k[i % BLOCK] ^= b;
    }
    k
}

fn encrypt(cipher: &Aes128, data: &[u8]) -> Vec<u8> {
    let pad = BLOCK - data.len() % BLOCK;
    let mut out = Vec::with_capacity(data.len() + pad);
    out.extend_from_slice(data);
    out.resize(data.len() + pad, pad as u8);
    for block in out.chunks_exact_mut(BLOCK) {
        cipher.encrypt_block(GenericArray::from_mut_slice(block));
    }
    out
}

fn decrypt(cipher: &Aes128, data: &[u8]) -> Option<Vec<u8>> {
    if data.is_empty() || !data.len().is_multiple_of(BLOCK) {
        return None;
    }
    let mut out = data.to_vec();
    for block in out.chunks_exact_mut(BLOCK) {
        cipher.decrypt_block(GenericArray::from_mut_slice(block));
    }
    let pad = *out.last()? as usize;
    if pad == 0 || pad > BLOCK || !out[out.len() - pad..].iter().all(|b| *b as usize == pad) {
        return None;
    }
    out.truncate(out.len() - pad);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02X}")).collect()
    }

    #[test]
    fn encrypts_as_mariadb() {
        let c = |k: &[u8]| Aes128::new(&fold_key(k).into());
        assert_eq!(
            hex(&encrypt(&c(b"k"), b"a")),
            "53E61674DBCC997DD27BD802A2EB9F22"
        );
        assert_eq!(
            hex(&encrypt(&c(b"k"), b"")),
            "932F1B1E9189536B938A6B67666D4031"
        );
        assert_eq!(
            hex(&encrypt(&c(b""), b"a")),
            "8E4A3D4BEB92D54C7E95F67D41DAED59"
        );
        let long = [b'k'; 40];
        assert_eq!(
            hex(&encrypt(&c(&long), b"a")),
            "41FE3AE3B4379724C669F20D7D7AA89A"
        );
    }

    #[test]
    fn decrypts_its_own_and_refuses_bad_padding() {
        let k = Aes128::new(&fold_key(b"key").into());
        for n in [0usize, 1, 15, 16, 17, 1000] {
            let data = vec![b'z'; n];
            assert_eq!(decrypt(&k, &encrypt(&k, &data)).as_deref(), Some(&data[..]));
        }
        assert_eq!(decrypt(&k, b"abc"), None);
        assert_eq!(decrypt(&k, b""), None);
        let other = Aes128::new(&fold_key(b"other").into());
        assert_eq!(decrypt(&other, &encrypt(&k, b"hello")), None);
    }
}
