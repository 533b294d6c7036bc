//! COMPRESS, UNCOMPRESS and UNCOMPRESSED_LENGTH (MariaDB 10.11).
//!
//! A compressed string is the uncompressed length as 4 bytes little-endian (its top two bits
//! ignored when read), then a zlib stream (deflate at the default level, zlib header and
//! Adler-32 trailer); a stream whose last byte is a space gets a `.` after it (MariaDB keeps
//! the value safe from trailing-space trimming). The empty string compresses to the empty
//! string and back.
//!
//! Reading one back, as MariaDB:
//! * 4 bytes or fewer (not empty): NULL, warning 1259;
//! * a stated length above `max_allowed_packet`: NULL, warning 1256, before anything is
//!   allocated;
//! * otherwise the stream is inflated into at most the stated length: more output than that
//!   is 1258, a corrupt or cut stream 1259 (so is a stated length of 0), each NULL. Bytes
//!   after the stream are ignored. Output grows as the stream produces it, never to the
//!   stated length up front: a forged length costs nothing.
//!
//! COMPRESS is VARBINARY of 120% of its argument's bytes plus 12; UNCOMPRESS LONGBLOB;
//! UNCOMPRESSED_LENGTH INT(10). The deflate implementation is miniz_oxide's: its bytes for
//! longer inputs may differ from zlib's, both being valid streams that either side reads.

use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::env::Env;
use crate::sql::expr::convert;
use crate::types::Value;
use cohort_protocol::column::ColumnType;
use cohort_protocol::ErrorCode;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// A function of this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompressFn {
    Compress,
    Uncompress,
    UncompressedLength,
}

/// The largest length UNCOMPRESS's metadata states (MariaDB: `max_allowed_packet`'s default).
const UNCOMPRESS_LENGTH: u32 = 16 * 1024 * 1024;

/// Bind by name: one argument each.
pub fn bind(name: &str, args: &[SqlType]) -> Option<Result<(CompressFn, SqlType), ()>> {
    let f = match name {
        "COMPRESS" => CompressFn::Compress,
        "UNCOMPRESS" => CompressFn::Uncompress,
        "UNCOMPRESSED_LENGTH" => CompressFn::UncompressedLength,
        _ => return None,
    };
    if args.len() != 1 {
        return Some(Err(()));
    }
    let ty = match f {
        CompressFn::Compress => {
            let bytes = u64::from(args[0].length) * 120 / 100 + 12;
            SqlType::varbinary(bytes.min(u64::from(u32::MAX)) as u32)
        }
        CompressFn::Uncompress => {
            let mut t = SqlType::varbinary(UNCOMPRESS_LENGTH);
            t.wire = ColumnType::LONG_BLOB;
            t.class = Class::Bin;
            t
        }
        CompressFn::UncompressedLength => SqlType::int(10),
    };
    Some(Ok((f, ty)))
}

/// Evaluate (any argument may be NULL).
pub fn eval(f: CompressFn, v: &[Value], env: &Env<'_>) -> Value {
    if v[0].is_null() {
        return Value::Null;
    }
    let s = convert::to_text(&v[0]);
    match f {
        CompressFn::Compress => Value::Bytes(compress(&s)),
        CompressFn::Uncompress => uncompress(&s, env),
        CompressFn::UncompressedLength => match stated_length(&s) {
            Some(n) => Value::Int(i64::from(n)),
            None if s.is_empty() => Value::Int(0),
            None => corrupted(env),
        },
    }
}

/// COMPRESS of a string.
pub fn compress(s: &[u8]) -> Vec<u8> {
    if s.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(s.len() / 2 + 64);
    out.extend_from_slice(&((s.len() as u32) & 0x3FFF_FFFF).to_le_bytes());
    let mut z = Compress::new(Compression::default(), true);
    loop {
        out.reserve(s.len() / 4 + 64);
        let consumed = z.total_in() as usize;
        match z.compress_vec(&s[consumed..], &mut out, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => break,
            Ok(_) => {}
            // Compressing memory to memory cannot fail; keep the stream as far as it went.
            Err(_) => break,
        }
    }
    if out.last() == Some(&b' ') {
        out.push(b'.');
    }
    out
}

/// The length a compressed string states (None for 4 bytes or fewer).
fn stated_length(s: &[u8]) -> Option<u32> {
    if s.len() <= 4 {
        return None;
    }
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]) & 0x3FFF_FFFF)
}

fn uncompress(s: &[u8], env: &Env<'_>) -> Value {
    if s.is_empty() {
        return Value::Bytes(Vec::new());
    }
    let Some(len) = stated_length(s) else {
        return corrupted(env);
    };
    let max = super::max_packet(env);
    if len as usize > max {
        env.warn(
            "Warning",
            ErrorCode::TooBigForUncompress,
            format!("Uncompressed data size too large; the maximum size is {max} (probably, length of uncompressed data was corrupted)"),
        );
        return Value::Null;
    }
    match inflate(&s[4..], len as usize) {
        Ok(out) => Value::Bytes(out),
        Err(Inflate::Corrupt) => corrupted(env),
        Err(Inflate::TooLong) => {
            env.warn(
                "Warning",
                ErrorCode::ZlibZBufError,
                "ZLIB: Not enough room in the output buffer (probably, length of uncompressed data was corrupted)",
            );
            Value::Null
        }
    }
}

enum Inflate {
    Corrupt,
    TooLong,
}

/// Inflate a zlib stream of at most `limit` bytes, growing the output as it comes.
fn inflate(data: &[u8], limit: usize) -> Result<Vec<u8>, Inflate> {
    const STEP: usize = 64 * 1024;
    let mut z = Decompress::new(true);
    let mut out: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; limit.min(STEP)];
    loop {
        let room = (limit - out.len()).min(STEP);
        let (in0, out0) = (z.total_in(), z.total_out());
        let status = z
            .decompress(
                &data[in0 as usize..],
                &mut buf[..room],
                FlushDecompress::None,
            )
            .map_err(|_| Inflate::Corrupt)?;
        let produced = (z.total_out() - out0) as usize;
        out.extend_from_slice(&buf[..produced]);
        if status == Status::StreamEnd {
            return Ok(out);
        }
        if (in0, out0) == (z.total_in(), z.total_out()) {
            // No progress: the output is full (more follows) or the input ran out.
            return Err(match out.len() == limit && limit > 0 {
                true => Inflate::TooLong,
                false => Inflate::Corrupt,
            });
        }
    }
}

fn corrupted(env: &Env<'_>) -> Value {
    env.warn(
        "Warning",
        ErrorCode::ZlibZDataError,
        "ZLIB: Input data corrupted",
    );
    Value::Null
}

#[cfg(test)]
mod tests {
    use super::{compress, inflate, Inflate};

    #[test]
    fn short_strings_compress_as_zlib_does() {
        let hex = |b: Vec<u8>| b.iter().map(|x| format!("{x:02X}")).collect::<String>();
        assert_eq!(hex(compress(b"a")), "01000000789C4B040000620062");
        assert_eq!(hex(compress(b"")), "");
    }

    #[test]
    fn round_trips_at_any_size() {
        for n in [1usize, 100, 65_535, 65_536, 300_000] {
            let s: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            let c = compress(&s);
            assert_eq!(u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize, n);
            let back = inflate(&c[4..], n).ok();
            assert!(back.as_deref() == Some(&s[..]), "{n} bytes");
        }
    }

    /// A stated length far above the data neither allocates it nor fails; one below it is
    /// "not enough room", and so is a stream cut in its trailer once the stated length is out
    /// (zlib's answer); a stream cut short of its length is corrupt.
    #[test]
    fn forged_lengths() {
        let c = compress(&[b'x'; 1000]);
        let out = inflate(&c[4..], 1 << 30).ok().unwrap();
        assert_eq!(out.len(), 1000);
        assert!(out.capacity() < 1 << 20, "{}", out.capacity());
        assert!(matches!(inflate(&c[4..], 999), Err(Inflate::TooLong)));
        assert!(matches!(inflate(&c[4..], 0), Err(Inflate::Corrupt)));
        assert!(matches!(
            inflate(&c[4..c.len() - 3], 1000),
            Err(Inflate::TooLong)
        ));
        assert!(matches!(
            inflate(&c[4..c.len() - 3], 1001),
            Err(Inflate::Corrupt)
        ));
    }
}
