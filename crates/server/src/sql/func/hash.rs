//! Hash and identifier functions: MD5, SHA1 / SHA, SHA2(x, 224|256|384|512|0), CRC32,
//! CRC32C, UUID, UUID_SHORT (MariaDB 10.11).
//!
//! CRC32([crc,] s) and CRC32C([crc,] s) (Castagnoli polynomial) continue from `crc` when it
//! is given: `CRC32(CRC32('a'), 'b')` is `CRC32('ab')`.
//!
//! Digests are lower-case hex of the argument's bytes (its text for a number); SHA2 with
//! another length is NULL with warning 1583. CRC32 is INT UNSIGNED. UUID() is a version-1
//! UUID (time-based: 100 ns ticks since 1582-10-15, a random clock sequence and node chosen
//! once per process, the clock sequence stepped when the clock does not advance), as
//! MariaDB's; UUID_SHORT() is a 64-bit number increasing by one per call, started from the
//! server id and the start time as MariaDB does.

use crate::sql::bind::sqltype::SqlType;
use crate::sql::env::Env;
use crate::sql::expr::convert;
use crate::types::Value;
use cohort_protocol::ErrorCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Which hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashFn {
    Md5,
    Sha1,
    Sha2,
    Crc32,
    Crc32c,
    Uuid,
    UuidShort,
}

impl HashFn {
    /// UUID and UUID_SHORT change with every call.
    pub fn is_deterministic(self) -> bool {
        !matches!(self, HashFn::Uuid | HashFn::UuidShort)
    }
}

/// The binding of a function by name.
pub fn bind(name: &str, args: &[SqlType]) -> Option<std::result::Result<(HashFn, SqlType), ()>> {
    let n = args.len();
    let nullable = args.iter().any(|t| t.nullable);
    let (f, ok, ty) = match name {
        "MD5" => (
            HashFn::Md5,
            n == 1,
            SqlType::varchar(32).with_nullable(nullable),
        ),
        "SHA1" | "SHA" => (
            HashFn::Sha1,
            n == 1,
            SqlType::varchar(40).with_nullable(nullable),
        ),
        "SHA2" => (
            HashFn::Sha2,
            n == 2,
            SqlType::varchar(64).with_nullable(true),
        ),
        "CRC32" => {
            let mut t = SqlType::int(10).with_nullable(nullable);
            t.unsigned = true;
            (HashFn::Crc32, n == 1 || n == 2, t)
        }
        "CRC32C" => {
            let mut t = SqlType::int(10).with_nullable(nullable);
            t.unsigned = true;
            (HashFn::Crc32c, n == 1 || n == 2, t)
        }
        "UUID" => (HashFn::Uuid, n == 0, SqlType::varchar(36).not_null()),
        "UUID_SHORT" => (HashFn::UuidShort, n == 0, SqlType::ubigint().not_null()),
        _ => return None,
    };
    if !ok {
        return Some(Err(()));
    }
    Some(Ok((f, ty)))
}

fn hex(bytes: &[u8]) -> Value {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    Value::Bytes(s.into_bytes())
}

/// Evaluate; NULL arguments give NULL (UUID and UUID_SHORT take none).
pub fn eval(f: HashFn, v: &[Value], env: &Env<'_>) -> Value {
    // SHA2(x, NULL) is SHA2(x, 0), as MariaDB reads it.
    if v.first().is_some_and(Value::is_null) || (f != HashFn::Sha2 && v.iter().any(Value::is_null))
    {
        return Value::Null;
    }
    match f {
        HashFn::Uuid => return Value::Bytes(uuid_v1().into_bytes()),
        HashFn::UuidShort => return Value::UInt(uuid_short(env)),
        _ => {}
    }
    if matches!(f, HashFn::Crc32 | HashFn::Crc32c) {
        let (init, data) = match v {
            [crc, s] => (super::int_arg(crc) as u32, convert::to_text(s)),
            _ => (0, convert::to_text(&v[0])),
        };
        let crc = if f == HashFn::Crc32 {
            let mut h = crc32fast::Hasher::new_with_initial(init);
            h.update(&data);
            h.finalize()
        } else {
            crc32c(init, &data)
        };
        return Value::Int(i64::from(crc));
    }
    let data = convert::to_text(&v[0]);
    match f {
        HashFn::Md5 => {
            use md5::Digest;
            hex(&md5::Md5::digest(&data))
        }
        HashFn::Sha1 => {
            use sha1::Digest;
            hex(&sha1::Sha1::digest(&data))
        }
        HashFn::Sha2 => {
            use sha2::Digest;
            match v.get(1).map_or(0, super::int_arg) {
                224 => hex(&sha2::Sha224::digest(&data)),
                0 | 256 => hex(&sha2::Sha256::digest(&data)),
                384 => hex(&sha2::Sha384::digest(&data)),
                512 => hex(&sha2::Sha512::digest(&data)),
                _ => {
                    env.warn(
                        "Warning",
                        ErrorCode::WrongParametersToNativeFct,
                        "Incorrect parameters in the call to native function 'sha2'",
                    );
                    Value::Null
                }
            }
        }
        HashFn::Crc32 | HashFn::Crc32c | HashFn::Uuid | HashFn::UuidShort => Value::Null,
    }
}

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of `data`, continuing from `crc`.
fn crc32c(crc: u32, data: &[u8]) -> u32 {
    static TABLE: OnceLock<[u32; 256]> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0x82F6_3B78
                } else {
                    c >> 1
                };
            }
            *e = c;
        }
        t
    });
    let mut c = !crc;
    for &b in data {
        c = table[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

/// Ticks of 100 ns between 1582-10-15 and 1970-01-01.
const GREGORIAN_OFFSET: u64 = 0x01B2_1DD2_1381_4000;

struct UuidState {
    last: u64,
    seq: u16,
    node: [u8; 6],
}

fn uuid_v1() -> String {
    static STATE: OnceLock<Mutex<UuidState>> = OnceLock::new();
    let state = STATE.get_or_init(|| {
        let mut node: [u8; 6] = rand::random();
        node[0] |= 1; // a random node has the multicast bit set (RFC 4122 4.5)
        Mutex::new(UuidState {
            last: 0,
            seq: rand::random::<u16>() & 0x3fff,
            node,
        })
    });
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut ticks = (now.as_nanos() / 100) as u64 + GREGORIAN_OFFSET;
    let (seq, node) = {
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        if ticks <= s.last {
            // Same or earlier tick: count on from the last one (unique, increasing).
            ticks = s.last + 1;
        }
        s.last = ticks;
        (s.seq, s.node)
    };
    let time_low = ticks & 0xffff_ffff;
    let time_mid = (ticks >> 32) & 0xffff;
    let time_hi = ((ticks >> 48) & 0x0fff) | 0x1000;
    let clock = seq | 0x8000;
    format!(
        "{time_low:08x}-{time_mid:04x}-{time_hi:04x}-{clock:04x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        node[0], node[1], node[2], node[3], node[4], node[5]
    )
}

fn uuid_short(env: &Env<'_>) -> u64 {
    static NEXT: OnceLock<AtomicU64> = OnceLock::new();
    let next = NEXT.get_or_init(|| {
        let server_id = env.ctx.vars.global_u64("server_id") & 255;
        let start = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        AtomicU64::new((server_id << 56) | (start << 24))
    });
    next.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_1_and_distinct() {
        let a = uuid_v1();
        let b = uuid_v1();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "1");
    }
}
