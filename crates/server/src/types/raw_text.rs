//! Query text that is not valid UTF-8: raw bytes carried through the SQL layer losslessly.
//!
//! A client may send bytes that are not UTF-8 inside string literals: `mariadb-dump` without
//! `--hex-blob` writes BLOB and BINARY values as raw bytes (escaping only `\0`, `'`, `"`, `\`,
//! `\n`, `\r` and `\Z`), with `character_set_client = utf8mb4`; MariaDB copies them into a
//! binary column byte for byte. The parser works on `&str`, so [`to_text`] maps every byte of
//! the text that is not part of a valid UTF-8 sequence to one character of the private range
//! U+10FF00..=U+10FFFF (exactly 256 code points: byte `b` is U+10FF00 + b), and
//! [`Value::str`](super::Value::str) maps those characters back when a literal becomes a
//! value. Valid UTF-8 in the same text is left as it is, so the bytes of every literal are
//! exactly the bytes the client sent. (Text that contains one of those 256 code points itself,
//! encoded as valid UTF-8, is read as the byte it stands for: they are noncharacters and
//! private-use code points that no client has a reason to send.)

/// The first of the 256 characters that stand for raw bytes.
const BASE: u32 = 0x10_FF00;

/// `bytes` as text: valid UTF-8 as it is, every other byte as the character standing for it.
pub fn to_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push(char::from_u32(BASE + u32::from(b)).expect("a valid scalar value"));
        }
    }
    out
}

/// The bytes `text` stands for: the inverse of [`to_text`].
pub fn to_bytes(text: &str) -> Vec<u8> {
    // U+10FF00..=U+10FFFF are F4 8F BC 80 ..= F4 8F BF BF: only text holding an F4 byte needs
    // looking at.
    if !text.as_bytes().contains(&0xF4) {
        return text.as_bytes().to_vec();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        match u32::from(c).checked_sub(BASE) {
            Some(b) if b <= 0xFF => out.push(b as u8),
            _ => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_sequence_comes_back_unchanged() {
        let all: Vec<u8> = (0..=255u8).collect();
        let mut mixed = b"insert into t values ('".to_vec();
        mixed.extend_from_slice(&all);
        mixed.extend_from_slice("', 'héllo 😀')".as_bytes());
        for bytes in [
            all.clone(),
            mixed,
            Vec::new(),
            b"\xF4\x8F".to_vec(),
            b"\xC3".to_vec(),
        ] {
            let text = to_text(&bytes);
            assert_eq!(to_bytes(&text), bytes);
        }
        assert_eq!(to_text(b"plain"), "plain");
        assert_eq!(to_text("é".as_bytes()), "é");
        assert_eq!(to_text(b"\xff").chars().count(), 1);
    }
}
