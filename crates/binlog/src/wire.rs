//! Little-endian byte reading and writing helpers.

/// A bounds-checked reader over a byte slice. Errors are short messages; the caller adds the
/// event position.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    off: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, off: 0 }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.off
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.remaining() {
            return Err(format!(
                "needs {n} bytes at body offset {}, only {} left",
                self.off,
                self.remaining()
            ));
        }
        let s = &self.buf[self.off..self.off + n];
        self.off += n;
        Ok(s)
    }

    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.off..];
        self.off = self.buf.len();
        s
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub(crate) fn u48(&mut self) -> Result<u64, String> {
        let b: [u8; 6] = self.array()?;
        Ok(u64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], 0, 0,
        ]))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// A length-encoded ("packed") integer.
    pub(crate) fn lenenc(&mut self) -> Result<u64, String> {
        Ok(match self.u8()? {
            b @ 0..=250 => b as u64,
            0xfc => self.u16()? as u64,
            0xfd => {
                let b: [u8; 3] = self.array()?;
                u32::from_le_bytes([b[0], b[1], b[2], 0]) as u64
            }
            0xfe => self.u64()?,
            b => return Err(format!("invalid length-encoded integer prefix 0x{b:02x}")),
        })
    }

    /// A NUL-terminated UTF-8 string of `len` bytes followed by the NUL.
    pub(crate) fn str_nul(&mut self, len: usize, what: &str) -> Result<String, String> {
        let s = utf8(self.take(len)?, what)?;
        if self.u8()? != 0 {
            return Err(format!("{what} is not NUL-terminated"));
        }
        Ok(s)
    }
}

pub(crate) fn utf8(bytes: &[u8], what: &str) -> Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
}

/// Appends a length-encoded ("packed") integer.
pub(crate) fn put_lenenc(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v < 1 << 16 {
        out.push(0xfc);
        out.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v < 1 << 24 {
        out.push(0xfd);
        out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xfe);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Appends a bitmap of `n` bits, LSB first, from a predicate.
pub(crate) fn put_bitmap(out: &mut Vec<u8>, n: usize, bit: impl Fn(usize) -> bool) {
    let at = out.len();
    out.resize(at + n.div_ceil(8), 0);
    for i in (0..n).filter(|&i| bit(i)) {
        out[at + i / 8] |= 1 << (i % 8);
    }
}

/// Reads a bitmap of `n` bits, LSB first.
pub(crate) fn read_bitmap(cur: &mut Cursor<'_>, n: usize) -> Result<Vec<bool>, String> {
    let bytes = cur.take(n.div_ceil(8))?;
    Ok((0..n).map(|i| bytes[i / 8] & (1 << (i % 8)) != 0).collect())
}
