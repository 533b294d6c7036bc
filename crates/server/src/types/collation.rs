//! Collations: how character strings compare, and the weights that make equal strings equal
//! (used by comparisons, grouping and the storage key encoding alike).

/// How two character strings compare. Binary strings always compare byte-wise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collation {
    /// `utf8mb4_general_ci`, the default: case-insensitive, trailing spaces ignored (PAD SPACE).
    Utf8mb4GeneralCi,
    /// `utf8mb4_bin`: byte order, trailing spaces ignored.
    Utf8mb4Bin,
    /// `binary`: the collation of BINARY / VARBINARY / BLOB; exact bytes.
    Binary,
    /// `utf8mb4_unicode_520_ci`: UCA 5.2.0 primary weights, PAD SPACE (see `collation_uca`).
    Utf8mb4Unicode520Ci,
}

/// The `utf8mb4_general_ci` weight of a character: upper case, Latin-1 accents folded,
/// characters outside the BMP all equal (U+FFFD), as MySQL does.
pub fn general_ci_weight(c: char) -> u32 {
    let u = c as u32;
    if u < 0x80 {
        return c.to_ascii_uppercase() as u32;
    }
    if u > 0xFFFF {
        return 0xFFFD;
    }
    if (0xC0..=0xFF).contains(&u) {
        return LATIN1_FOLD[(u - 0xC0) as usize] as u32;
    }
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(x), None) if (x as u32) <= 0xFFFF => x as u32,
        _ => u,
    }
}

/// Weights of U+00C0..=U+00FF in utf8mb4_general_ci.
const LATIN1_FOLD: [u8; 64] = [
    b'A', b'A', b'A', b'A', b'A', b'A', 0xC6, b'C', // C0-C7
    b'E', b'E', b'E', b'E', b'I', b'I', b'I', b'I', // C8-CF
    0xD0, b'N', b'O', b'O', b'O', b'O', b'O', 0xD7, // D0-D7
    0xD8, b'U', b'U', b'U', b'U', b'Y', 0xDE, b'S', // D8-DF
    b'A', b'A', b'A', b'A', b'A', b'A', 0xC6, b'C', // E0-E7
    b'E', b'E', b'E', b'E', b'I', b'I', b'I', b'I', // E8-EF
    0xD0, b'N', b'O', b'O', b'O', b'O', b'O', 0xF7, // F0-F7
    0xD8, b'U', b'U', b'U', b'U', b'Y', 0xDE, b'Y', // F8-FF
];
