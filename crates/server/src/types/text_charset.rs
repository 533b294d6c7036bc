//! The character sets text travels in between Cohort and its clients: a connection's
//! `character_set_client` and `character_set_results`, and the target of `CONVERT(x USING
//! cs)`. Cohort keeps text as UTF-8 in memory; these are how it is read from and written to
//! another character set, each character the set lacks written as `?`, as MariaDB does
//! (utf8mb3 lacks everything outside the BMP, latin1 all but its 256 characters, ascii all
//! but 128). utf8mb4 and binary change nothing.

use super::latin1;
use cohort_protocol::column::charset as ids;
use std::borrow::Cow;

/// A character set a connection can talk in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireCharset {
    Utf8mb4,
    Utf8mb3,
    Latin1,
    Ascii,
    Binary,
}

impl WireCharset {
    /// By the name MariaDB gives it (`utf8` is utf8mb3).
    pub fn named(name: &str) -> Option<WireCharset> {
        Some(match name.to_ascii_lowercase().as_str() {
            "utf8mb4" => WireCharset::Utf8mb4,
            "utf8mb3" | "utf8" => WireCharset::Utf8mb3,
            "latin1" => WireCharset::Latin1,
            "ascii" => WireCharset::Ascii,
            "binary" => WireCharset::Binary,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            WireCharset::Utf8mb4 => "utf8mb4",
            WireCharset::Utf8mb3 => "utf8mb3",
            WireCharset::Latin1 => "latin1",
            WireCharset::Ascii => "ascii",
            WireCharset::Binary => "binary",
        }
    }

    /// The collation a string of this character set takes by default inside Cohort (ascii,
    /// which Cohort has no column collation for, is kept as utf8mb4_general_ci; binary is
    /// the binary collation).
    pub fn default_collation(self) -> super::Collation {
        use super::Collation;
        match self {
            WireCharset::Utf8mb4 | WireCharset::Ascii => Collation::Utf8mb4GeneralCi,
            WireCharset::Utf8mb3 => Collation::Utf8mb3GeneralCi,
            WireCharset::Latin1 => Collation::Latin1SwedishCi,
            WireCharset::Binary => Collation::Binary,
        }
    }

    /// Bytes a character takes at most.
    pub fn mbmaxlen(self) -> u32 {
        match self {
            WireCharset::Utf8mb4 => 4,
            WireCharset::Utf8mb3 => 3,
            _ => 1,
        }
    }

    /// The id of the character set's default collation.
    pub fn default_id(self) -> u16 {
        match self {
            WireCharset::Utf8mb4 => ids::UTF8MB4_GENERAL_CI,
            WireCharset::Utf8mb3 => 33,
            WireCharset::Latin1 => 8,
            WireCharset::Ascii => 11,
            WireCharset::Binary => ids::BINARY,
        }
    }

    /// Whether writing UTF-8 text in this character set changes it.
    pub fn converts(self) -> bool {
        !matches!(self, WireCharset::Utf8mb4 | WireCharset::Binary)
    }

    /// Query text (or a string parameter) sent in this character set, as text.
    pub fn decode<'a>(self, bytes: &'a [u8]) -> Cow<'a, str> {
        if self == WireCharset::Latin1 && !bytes.is_ascii() {
            return Cow::Owned(latin1::decode(bytes));
        }
        match std::str::from_utf8(bytes) {
            Ok(t) => Cow::Borrowed(t),
            // Bytes that are not UTF-8 (raw BLOB bytes in a literal) are carried losslessly.
            Err(_) => Cow::Owned(crate::types::raw_text::to_text(bytes)),
        }
    }

    /// UTF-8 `text` written in this character set, `?` for each character it lacks (bytes
    /// that are not UTF-8 are copied).
    pub fn encode<'a>(self, text: &'a [u8]) -> Cow<'a, [u8]> {
        if !self.converts() || text.is_ascii() {
            return Cow::Borrowed(text);
        }
        let mut out = Vec::with_capacity(text.len());
        for chunk in text.utf8_chunks() {
            for c in chunk.valid().chars() {
                match self {
                    WireCharset::Utf8mb3 if u32::from(c) > 0xFFFF => out.push(b'?'),
                    WireCharset::Latin1 => out.push(latin1::encode_char(c).unwrap_or(b'?')),
                    WireCharset::Ascii => out.push(if c.is_ascii() { c as u8 } else { b'?' }),
                    _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                }
            }
            out.extend_from_slice(chunk.invalid());
        }
        Cow::Owned(out)
    }

    /// The first character of UTF-8 `text` this character set lacks, as its UTF-8 bytes.
    pub fn first_missing(self, text: &[u8]) -> Option<Vec<u8>> {
        let missing = |c: char| match self {
            WireCharset::Utf8mb3 => u32::from(c) > 0xFFFF,
            WireCharset::Latin1 => latin1::encode_char(c).is_none(),
            WireCharset::Ascii => !c.is_ascii(),
            WireCharset::Utf8mb4 | WireCharset::Binary => false,
        };
        let c = String::from_utf8_lossy(text)
            .chars()
            .find(|&c| missing(c))?;
        Some(c.encode_utf8(&mut [0; 4]).as_bytes().to_vec())
    }

    /// UTF-8 `text` restricted to this character set's characters: each one it lacks
    /// becomes `?` (`CONVERT(x USING cs)`), still UTF-8.
    pub fn restrict<'a>(self, text: &'a [u8]) -> Cow<'a, [u8]> {
        match self {
            WireCharset::Latin1 => match self.encode(text) {
                Cow::Borrowed(b) => Cow::Borrowed(b),
                Cow::Owned(b) => Cow::Owned(latin1::decode(&b).into_bytes()),
            },
            _ => self.encode(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_written_as_mariadb_writes_them() {
        let text = "é😀x".as_bytes();
        assert_eq!(&*WireCharset::Utf8mb4.encode(text), text);
        assert_eq!(&*WireCharset::Binary.encode(text), text);
        assert_eq!(&*WireCharset::Utf8mb3.encode(text), "é?x".as_bytes());
        assert_eq!(&*WireCharset::Latin1.encode(text), b"\xE9?x");
        assert_eq!(&*WireCharset::Ascii.encode(text), b"??x");
        assert_eq!(&*WireCharset::Latin1.encode("€".as_bytes()), b"\x80");
        assert!(matches!(
            WireCharset::Utf8mb3.encode(b"plain"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn client_text_is_decoded_from_its_charset() {
        assert_eq!(WireCharset::Latin1.decode(b"'\xE9'"), "'é'");
        assert_eq!(WireCharset::Latin1.decode(b"\x80"), "€");
        assert_eq!(WireCharset::Utf8mb4.decode("é".as_bytes()), "é");
        // Raw bytes of a binary literal stay the bytes they were.
        let raw = WireCharset::Utf8mb4.decode(b"\xFF");
        assert_eq!(crate::types::raw_text::to_bytes(&raw), b"\xFF");
    }

    #[test]
    fn convert_using_keeps_only_the_characters_of_the_set() {
        let text = "é😀€".as_bytes();
        assert_eq!(&*WireCharset::Latin1.restrict(text), "é?€".as_bytes());
        assert_eq!(&*WireCharset::Utf8mb3.restrict(text), "é?€".as_bytes());
        assert_eq!(&*WireCharset::Ascii.restrict(text), b"???");
    }
}
