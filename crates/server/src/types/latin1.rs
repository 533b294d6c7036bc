//! The `latin1` character set: one byte a character, as MariaDB defines it (Windows code page
//! 1252, with the five bytes cp1252 leaves undefined, 0x81 0x8D 0x8F 0x90 0x9D, standing for
//! the C1 control characters of the same number).
//!
//! Cohort keeps every string as UTF-8 in memory; latin1 is the set of 256 characters a latin1
//! value may hold, and the byte each is written as on the wire, in the binlog and in checksums.
//! The table below was read from MariaDB 10.11
//! (`CONVERT(CONVERT(0x80..0x9F USING latin1) USING utf32)`); 0x00..0x7F and 0xA0..0xFF are
//! the code points of the same number.

/// The characters of bytes 0x80..=0x9F.
const HIGH_C1: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

/// The character latin1 byte `b` stands for.
#[inline]
pub fn decode_byte(b: u8) -> char {
    match b {
        0x80..=0x9F => HIGH_C1[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// The latin1 byte of `c`, or `None` when latin1 has no such character (MariaDB writes `?`).
#[inline]
pub fn encode_char(c: char) -> Option<u8> {
    let u = u32::from(c);
    match u {
        0..=0x7F | 0xA0..=0xFF => Some(u as u8),
        _ => HIGH_C1.iter().position(|&h| h == c).map(|i| 0x80 + i as u8),
    }
}

/// latin1 bytes as text (every byte is a character: this cannot fail).
pub fn decode(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| decode_byte(b)).collect()
}

/// `text` as latin1 bytes, each character latin1 lacks written as `?`; also says whether any
/// was (MariaDB's warning 1366, or its error in strict mode, is the caller's to give).
pub fn encode(text: &str) -> (Vec<u8>, bool) {
    let mut lossy = false;
    let bytes = text
        .chars()
        .map(|c| {
            encode_char(c).unwrap_or_else(|| {
                lossy = true;
                b'?'
            })
        })
        .collect();
    (bytes, lossy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips() {
        for b in 0..=255u8 {
            assert_eq!(encode_char(decode_byte(b)), Some(b), "byte {b:#x}");
        }
    }

    #[test]
    fn as_mariadb_maps_them() {
        assert_eq!(
            decode(&[0x80, 0x81, 0x9F, 0xE9]),
            "\u{20AC}\u{0081}\u{0178}é"
        );
        // U+0080 has no latin1 byte (cp1252 puts the euro sign there); neither has an emoji.
        assert_eq!(encode("a\u{0080}é🎉"), (b"a?\xE9?".to_vec(), true));
        assert_eq!(encode("€"), (vec![0x80], false));
    }
}
