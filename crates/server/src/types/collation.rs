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
    /// `utf8mb3_general_ci`: the 3-byte UTF-8 character set (BMP only), compared as
    /// `utf8mb4_general_ci` (see [`Collation::compare_as`]).
    Utf8mb3GeneralCi,
    /// `utf8mb3_bin`: compared as `utf8mb4_bin`.
    Utf8mb3Bin,
    /// `utf8mb3_unicode_520_ci`: compared as `utf8mb4_unicode_520_ci`.
    Utf8mb3Unicode520Ci,
    /// `utf8mb4_unicode_ci`: UCA 4.0.0 primary weights, PAD SPACE (see `collation_uca`).
    Utf8mb4UnicodeCi,
    /// `utf8mb3_unicode_ci`: compared as `utf8mb4_unicode_ci`.
    Utf8mb3UnicodeCi,
    /// `latin1_swedish_ci`, latin1's default: one weight a byte (see `collation_latin1`),
    /// case and most accents folded, the Swedish letters after Z.
    Latin1SwedishCi,
    /// `latin1_bin`: latin1 byte order, trailing spaces ignored.
    Latin1Bin,
    /// `latin1_general_ci`.
    Latin1GeneralCi,
    /// `latin1_general_cs`.
    Latin1GeneralCs,
    /// `latin1_german1_ci` (DIN 1: Ä = A, Ö = O, Ü = U, ß = S).
    Latin1German1Ci,
}

/// The character set of a column: what bytes its values may hold, and how many bytes a
/// character takes at most (the unit of CHAR padding, length prefixes and length limits).
/// Values are UTF-8 in memory whatever the character set; utf8mb3 only excludes the
/// characters outside the BMP (4-byte UTF-8), latin1 all but its 256 (see `types::latin1`,
/// which also gives the byte each is written as in checksums and binlog row images).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Charset {
    Utf8mb4,
    Utf8mb3,
    Latin1,
    Binary,
}

impl Charset {
    pub fn name(self) -> &'static str {
        match self {
            Charset::Utf8mb4 => "utf8mb4",
            Charset::Utf8mb3 => "utf8mb3",
            Charset::Latin1 => "latin1",
            Charset::Binary => "binary",
        }
    }

    /// Bytes per character at most (MariaDB's `mbmaxlen`).
    pub fn mbmaxlen(self) -> u32 {
        match self {
            Charset::Utf8mb4 => 4,
            Charset::Utf8mb3 => 3,
            Charset::Latin1 | Charset::Binary => 1,
        }
    }

    /// The default collation of the character set.
    pub fn default_collation(self) -> Collation {
        match self {
            Charset::Utf8mb4 => Collation::Utf8mb4GeneralCi,
            Charset::Utf8mb3 => Collation::Utf8mb3GeneralCi,
            Charset::Latin1 => Collation::Latin1SwedishCi,
            Charset::Binary => Collation::Binary,
        }
    }
}

impl Collation {
    /// The collation whose comparison rules this one uses: utf8mb3's collations compare as
    /// their utf8mb4 twins (utf8mb3 holds a subset of utf8mb4's characters, with the same
    /// weights). Everything that orders or hashes strings matches on this.
    #[inline]
    pub fn compare_as(self) -> Collation {
        match self {
            Collation::Utf8mb3GeneralCi => Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb3Bin => Collation::Utf8mb4Bin,
            Collation::Utf8mb3Unicode520Ci => Collation::Utf8mb4Unicode520Ci,
            Collation::Utf8mb3UnicodeCi => Collation::Utf8mb4UnicodeCi,
            c => c,
        }
    }

    pub fn charset(self) -> Charset {
        match self {
            Collation::Utf8mb4GeneralCi
            | Collation::Utf8mb4Bin
            | Collation::Utf8mb4Unicode520Ci
            | Collation::Utf8mb4UnicodeCi => Charset::Utf8mb4,
            Collation::Utf8mb3GeneralCi
            | Collation::Utf8mb3Bin
            | Collation::Utf8mb3Unicode520Ci
            | Collation::Utf8mb3UnicodeCi => Charset::Utf8mb3,
            Collation::Latin1SwedishCi
            | Collation::Latin1Bin
            | Collation::Latin1GeneralCi
            | Collation::Latin1GeneralCs
            | Collation::Latin1German1Ci => Charset::Latin1,
            Collation::Binary => Charset::Binary,
        }
    }

    /// Bytes per character at most (of the character set).
    pub fn mbmaxlen(self) -> u32 {
        self.charset().mbmaxlen()
    }

    /// The name MariaDB gives the collation.
    pub fn name(self) -> &'static str {
        match self {
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Binary => "binary",
            Collation::Utf8mb3GeneralCi => "utf8mb3_general_ci",
            Collation::Utf8mb3Bin => "utf8mb3_bin",
            Collation::Utf8mb4Unicode520Ci => "utf8mb4_unicode_520_ci",
            Collation::Utf8mb3Unicode520Ci => "utf8mb3_unicode_520_ci",
            Collation::Utf8mb4UnicodeCi => "utf8mb4_unicode_ci",
            Collation::Utf8mb3UnicodeCi => "utf8mb3_unicode_ci",
            Collation::Latin1SwedishCi => "latin1_swedish_ci",
            Collation::Latin1Bin => "latin1_bin",
            Collation::Latin1GeneralCi => "latin1_general_ci",
            Collation::Latin1GeneralCs => "latin1_general_cs",
            Collation::Latin1German1Ci => "latin1_german1_ci",
        }
    }

    /// MariaDB's collation id (protocol column metadata, binlog table maps).
    pub fn id(self) -> u16 {
        match self {
            Collation::Utf8mb4GeneralCi => 45,
            Collation::Utf8mb4Bin => 46,
            Collation::Binary => 63,
            Collation::Utf8mb3GeneralCi => 33,
            Collation::Utf8mb3Bin => 83,
            Collation::Utf8mb4Unicode520Ci => 246,
            Collation::Utf8mb3Unicode520Ci => 214,
            Collation::Utf8mb4UnicodeCi => 224,
            Collation::Utf8mb3UnicodeCi => 192,
            Collation::Latin1SwedishCi => 8,
            Collation::Latin1Bin => 47,
            Collation::Latin1GeneralCi => 48,
            Collation::Latin1GeneralCs => 49,
            Collation::Latin1German1Ci => 5,
        }
    }

    /// The same comparison rules in character set `cs` (general_ci stays general_ci, bin
    /// stays bin, unicode_520_ci stays unicode_520_ci); `binary` in the binary character set.
    /// Into or out of latin1, only bin stays bin; the rest is the default collation.
    pub fn in_charset(self, cs: Charset) -> Collation {
        use Collation::*;
        match (cs, self.compare_as()) {
            (Charset::Binary, _) => Binary,
            (Charset::Latin1, Latin1Bin | Utf8mb4Bin) => Latin1Bin,
            (Charset::Latin1, c) if c.charset() == Charset::Latin1 => c,
            (Charset::Latin1, _) => Latin1SwedishCi,
            (Charset::Utf8mb4, Latin1Bin) => Utf8mb4Bin,
            (Charset::Utf8mb3, Latin1Bin) => Utf8mb3Bin,
            (
                Charset::Utf8mb4,
                Latin1SwedishCi | Latin1GeneralCi | Latin1GeneralCs | Latin1German1Ci,
            ) => Utf8mb4GeneralCi,
            (
                Charset::Utf8mb3,
                Latin1SwedishCi | Latin1GeneralCi | Latin1GeneralCs | Latin1German1Ci,
            ) => Utf8mb3GeneralCi,
            (Charset::Utf8mb4, Utf8mb4Unicode520Ci) => Utf8mb4Unicode520Ci,
            (Charset::Utf8mb3, Utf8mb4Unicode520Ci) => Utf8mb3Unicode520Ci,
            (Charset::Utf8mb4, Utf8mb4UnicodeCi) => Utf8mb4UnicodeCi,
            (Charset::Utf8mb3, Utf8mb4UnicodeCi) => Utf8mb3UnicodeCi,
            (Charset::Utf8mb4, Utf8mb4GeneralCi) => Utf8mb4GeneralCi,
            (Charset::Utf8mb3, Utf8mb4GeneralCi) => Utf8mb3GeneralCi,
            (Charset::Utf8mb4, _) => Utf8mb4Bin,
            (Charset::Utf8mb3, _) => Utf8mb3Bin,
        }
    }
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
