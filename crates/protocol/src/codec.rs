//! Primitive field codecs: fixed-width little-endian integers, length-encoded integers and
//! strings, NUL-terminated strings.
//!
//! Layouts (all integers little-endian):
//!
//! | field | bytes |
//! |---|---|
//! | `int<N>` | N bytes LE |
//! | `int<lenenc>` | `< 0xFB`: the value itself (1 byte); `FC` + u16; `FD` + u24; `FE` + u64 |
//! | `string<lenenc>` | `int<lenenc>` length, then that many bytes |
//! | `string<NUL>` | bytes up to a `00` terminator |
//! | `string<EOF>` | the rest of the payload |
//!
//! `FB` is not an integer: it means NULL in a text row, so [`Reader::lenenc_int`] rejects
//! it (and `FF`, which starts an ERR packet). Text-row decoders check for `FB` first.
//!
//! Reading goes through [`Reader`], a bounds-checked cursor over one payload: every method
//! returns [`ProtocolError::Truncated`] instead of reading past the end. Writing is done by
//! the `put_*` functions, which append to a `Vec<u8>`.

use crate::error::{ProtocolError, Result};

/// Marker byte for NULL in text rows (`int<lenenc>` 0xFB).
pub const NULL_MARKER: u8 = 0xFB;

/// A bounds-checked cursor over one payload.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// Offset of the next unread byte.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next byte, without consuming it.
    pub fn peek_u8(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// Consumes and returns the next `n` bytes.
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(ProtocolError::Truncated { what });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Consumes `n` bytes and ignores them.
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// Consumes and returns everything left (`string<EOF>`).
    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.buf[self.pos..];
        self.pos = self.buf.len();
        out
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N, what)?);
        Ok(out)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub fn u24(&mut self, what: &'static str) -> Result<u32> {
        let b: [u8; 3] = self.array(what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// Reads an `int<lenenc>`. `FB` (NULL) and `FF` (ERR) are rejected as malformed.
    pub fn lenenc_int(&mut self, what: &'static str) -> Result<u64> {
        match self.u8(what)? {
            b @ 0..=0xFA => Ok(u64::from(b)),
            0xFC => self.u16(what).map(u64::from),
            0xFD => self.u24(what).map(u64::from),
            0xFE => self.u64(what),
            _ => Err(ProtocolError::Malformed { what }),
        }
    }

    /// Reads a `string<lenenc>`.
    pub fn lenenc_bytes(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let len = self.lenenc_int(what)?;
        let len = usize::try_from(len).map_err(|_| ProtocolError::Truncated { what })?;
        self.bytes(len, what)
    }

    /// Reads a `string<NUL>`: the bytes before the next `00`, consuming the terminator.
    pub fn nul_bytes(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let rest = &self.buf[self.pos..];
        let Some(end) = rest.iter().position(|&b| b == 0) else {
            return Err(ProtocolError::Truncated { what });
        };
        self.pos += end + 1;
        Ok(&rest[..end])
    }

    /// Like [`Reader::nul_bytes`], but a missing terminator at the end of the payload is
    /// tolerated (some clients omit the last NUL).
    pub fn nul_bytes_or_rest(&mut self) -> &'a [u8] {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(end) => {
                self.pos += end + 1;
                &rest[..end]
            }
            None => self.rest(),
        }
    }
}

/// Interprets `bytes` as UTF-8 text, or fails as malformed `what`.
pub fn utf8<'a>(bytes: &'a [u8], what: &'static str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|_| ProtocolError::Malformed { what })
}

pub fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u24(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes()[..3]);
}

pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends an `int<lenenc>` in its shortest form.
pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    if v < 0xFB {
        out.push(v as u8);
    } else if v <= 0xFFFF {
        out.push(0xFC);
        put_u16(out, v as u16);
    } else if v <= 0xFF_FFFF {
        out.push(0xFD);
        put_u24(out, v as u32);
    } else {
        out.push(0xFE);
        put_u64(out, v);
    }
}

/// Number of bytes [`put_lenenc_int`] writes for `v`.
pub fn lenenc_int_len(v: u64) -> usize {
    match v {
        0..=0xFA => 1,
        0xFB..=0xFFFF => 3,
        0x1_0000..=0xFF_FFFF => 4,
        _ => 9,
    }
}

/// Appends a `string<lenenc>`.
pub fn put_lenenc_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_lenenc_int(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Appends a `string<NUL>`. The caller guarantees `bytes` holds no `00`.
pub fn put_nul_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(bytes);
    out.push(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lenenc(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_lenenc_int(&mut out, v);
        out
    }

    #[test]
    fn lenenc_int_boundaries() {
        assert_eq!(lenenc(0), [0x00]);
        assert_eq!(lenenc(250), [0xFA]);
        assert_eq!(lenenc(251), [0xFC, 0xFB, 0x00]);
        assert_eq!(lenenc(0xFFFF), [0xFC, 0xFF, 0xFF]);
        assert_eq!(lenenc(0x1_0000), [0xFD, 0x00, 0x00, 0x01]);
        assert_eq!(lenenc(0xFF_FFFF), [0xFD, 0xFF, 0xFF, 0xFF]);
        assert_eq!(
            lenenc(0x100_0000),
            [0xFE, 0x00, 0x00, 0x00, 0x01, 0, 0, 0, 0]
        );
        for v in [
            0,
            250,
            251,
            0xFFFF,
            0x1_0000,
            0xFF_FFFF,
            0x100_0000,
            u64::MAX,
        ] {
            let bytes = lenenc(v);
            assert_eq!(bytes.len(), lenenc_int_len(v));
            assert_eq!(Reader::new(&bytes).lenenc_int("v"), Ok(v));
        }
    }

    #[test]
    fn lenenc_rejects_null_and_err_markers() {
        assert!(Reader::new(&[0xFB]).lenenc_int("x").is_err());
        assert!(Reader::new(&[0xFF]).lenenc_int("x").is_err());
    }

    #[test]
    fn truncated_inputs_are_errors() {
        assert_eq!(
            Reader::new(&[0xFC, 0x01]).lenenc_int("n"),
            Err(ProtocolError::Truncated { what: "n" })
        );
        assert!(Reader::new(&[0xFE, 1, 2, 3]).lenenc_int("n").is_err());
        assert!(Reader::new(&[0x05, b'a', b'b']).lenenc_bytes("s").is_err());
        assert!(Reader::new(b"abc").nul_bytes("s").is_err());
        assert!(Reader::new(&[1, 2, 3]).u32("u").is_err());
        // A huge announced length must not overflow or allocate.
        let huge = [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF];
        assert!(Reader::new(&huge).lenenc_bytes("s").is_err());
    }

    #[test]
    fn strings_and_rest() {
        let mut r = Reader::new(b"ab\0\x03xyzrest");
        assert_eq!(r.nul_bytes("a").unwrap(), b"ab");
        assert_eq!(r.lenenc_bytes("b").unwrap(), b"xyz");
        assert_eq!(r.peek_u8(), Some(b'r'));
        assert_eq!(r.rest(), b"rest");
        assert!(r.is_empty());
        let mut r = Reader::new(b"no-terminator");
        assert_eq!(r.nul_bytes_or_rest(), b"no-terminator");
    }
}
