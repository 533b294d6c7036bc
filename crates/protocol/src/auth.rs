//! `mysql_native_password`: the only authentication method Cohort speaks.
//!
//! ```text
//! stored = SHA1(SHA1(password))                      -- the "*HEX" in mysql.user
//! token  = SHA1(password) XOR SHA1(scramble || stored)     (client, 20 bytes)
//! check:   SHA1(token XOR SHA1(scramble || stored)) == stored   (server)
//! ```
//!
//! The scramble is the 20 printable bytes the server sent in HandshakeV10 (or in an
//! AuthSwitchRequest). An empty password gives an empty token: accounts without a password
//! are matched by the server comparing against an empty response, not by [`check_native`].

use sha1::{Digest, Sha1};

/// Name of the plugin, as sent in HandshakeV10 and AuthSwitchRequest.
pub const NATIVE_PASSWORD_PLUGIN: &str = "mysql_native_password";

fn sha1_of(parts: &[&[u8]]) -> [u8; 20] {
    let mut hasher = Sha1::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize().into()
}

fn xor20(a: &[u8; 20], b: &[u8; 20]) -> [u8; 20] {
    std::array::from_fn(|i| a[i] ^ b[i])
}

/// The stored form of a password: `SHA1(SHA1(password))`.
pub fn native_password_hash(password: impl AsRef<[u8]>) -> [u8; 20] {
    let once = sha1_of(&[password.as_ref()]);
    sha1_of(&[&once])
}

/// The client's auth response for `password` and the server's `scramble` (client side).
/// Send an empty response instead when the password is empty.
pub fn scramble_native(password: impl AsRef<[u8]>, scramble: &[u8]) -> [u8; 20] {
    let once = sha1_of(&[password.as_ref()]);
    let stored = sha1_of(&[&once]);
    let mask = sha1_of(&[scramble, &stored]);
    xor20(&once, &mask)
}

/// True if `token` proves knowledge of the password whose stored hash is `stored`
/// (server side). A token that is not exactly 20 bytes never matches.
pub fn check_native(stored: &[u8; 20], scramble: &[u8], token: &[u8]) -> bool {
    let Ok(token) = <&[u8; 20]>::try_from(token) else {
        return false;
    };
    let mask = sha1_of(&[scramble, stored]);
    let candidate = sha1_of(&[&xor20(token, &mask)]);
    // Compare without an early exit.
    candidate
        .iter()
        .zip(stored.iter())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

/// `*` followed by 40 upper-case hex digits, as `PASSWORD()` prints a stored hash.
pub fn native_hash_to_hex(stored: &[u8; 20]) -> String {
    let mut out = String::with_capacity(41);
    out.push('*');
    for b in stored {
        out.push_str(&format!("{b:02X}"));
    }
    out
}

/// Parses `*HEX` (40 hex digits, either case; the `*` is optional).
pub fn native_hash_from_hex(text: &str) -> Option<[u8; 20]> {
    let hex = text.strip_prefix('*').unwrap_or(text).as_bytes();
    if hex.len() != 40 {
        return None;
    }
    let mut out = [0u8; 20];
    for (i, pair) in hex.chunks(2).enumerate() {
        let pair = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SB_HASH: &str = "*7FC8780EC04AEA87C347D8E65C24F9DEB598A68F";

    #[test]
    fn stored_hash_of_sb_matches_the_captured_account() {
        let stored = native_password_hash("sb");
        assert_eq!(native_hash_to_hex(&stored), SB_HASH);
        assert_eq!(native_hash_from_hex(SB_HASH), Some(stored));
        assert_eq!(native_hash_from_hex(&SB_HASH.to_lowercase()), Some(stored));
        assert_eq!(native_hash_from_hex("*7FC8"), None);
        assert_eq!(native_hash_from_hex(&format!("*{}", "zz".repeat(20))), None);
    }

    #[test]
    fn client_token_passes_server_check() {
        let scramble = *b"7fl8LrfYyot6,k]}4xQo";
        let stored = native_password_hash("secret");
        let token = scramble_native("secret", &scramble);
        assert!(check_native(&stored, &scramble, &token));
        let wrong = scramble_native("Secret", &scramble);
        assert!(!check_native(&stored, &scramble, &wrong));
        assert!(!check_native(&stored, &scramble, &token[..19]));
        assert!(!check_native(&stored, &scramble, &[]));
    }
}
