//! Byte-level mutations of packets, biased towards what MySQL decoders trip on: length
//! fields (`int<lenenc>` prefixes `FB`–`FE`, u16/u32 counts set to 0, 1, max), NUL
//! terminators removed or added, truncation, and splices of other real packets.

use crate::rng::Rng;

const INTERESTING_BYTES: &[u8] = &[0x00, 0x01, 0x7F, 0x80, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF];
const INTERESTING_U32: &[u32] = &[
    0,
    1,
    0xFF,
    0x100,
    0xFFFF,
    0x1_0000,
    0xFF_FFFF,
    0x100_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
];

/// Applies `n` random mutations to `data`; `donors` supply splices.
pub fn mutate(rng: &mut Rng, data: &mut Vec<u8>, n: usize, donors: &[&[u8]]) {
    for _ in 0..n {
        mutate_once(rng, data, donors);
    }
}

fn mutate_once(rng: &mut Rng, data: &mut Vec<u8>, donors: &[&[u8]]) {
    let len = data.len();
    match rng.below(12) {
        0 if len > 0 => {
            let i = rng.index(len);
            data[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.index(len);
            data[i] = rng.u8();
        }
        2 if len > 0 => {
            let i = rng.index(len);
            data[i] = rng.one(INTERESTING_BYTES);
        }
        3 => {
            let i = rng.index(len + 1);
            let n = rng.size(4, 64) as usize;
            let bytes = rng.bytes(n);
            data.splice(i..i, bytes);
        }
        4 if len > 0 => {
            let i = rng.index(len);
            let n = rng.range(1, (len - i) as u64) as usize;
            data.drain(i..i + n);
        }
        5 if len > 0 => {
            let i = rng.index(len);
            let n = rng.range(1, (len - i).min(64) as u64) as usize;
            let copy = data[i..i + n].to_vec();
            let at = rng.index(len + 1);
            data.splice(at..at, copy);
        }
        6 if len > 0 => {
            let keep = rng.index(len);
            data.truncate(keep);
        }
        7 if len >= 4 => {
            let i = rng.index(len - 3);
            let v = rng.one(INTERESTING_U32).to_le_bytes();
            let width = rng.one(&[1usize, 2, 4]);
            data[i..i + width].copy_from_slice(&v[..width]);
        }
        8 => {
            // A length-encoded integer where a length is expected.
            let i = rng.index(len + 1);
            let lenenc: Vec<u8> = match rng.below(4) {
                0 => vec![0xFB],
                1 => vec![0xFC, 0xFF, 0xFF],
                2 => vec![0xFD, 0xFF, 0xFF, 0xFF],
                _ => {
                    let mut v = vec![0xFE];
                    v.extend_from_slice(
                        &rng.one(&[u64::MAX, 1 << 32, 1 << 62, 0x100_0000])
                            .to_le_bytes(),
                    );
                    v
                }
            };
            data.splice(i..i, lenenc);
        }
        9 if !donors.is_empty() => {
            let donor = donors[rng.index(donors.len())];
            if !donor.is_empty() {
                let a = rng.index(donor.len());
                let b = rng.range(a as u64 + 1, donor.len() as u64) as usize;
                let at = rng.index(len + 1);
                data.splice(at..at, donor[a..b].iter().copied());
            }
        }
        10 => {
            // Remove or add a NUL terminator.
            if let Some(i) = data.iter().position(|&b| b == 0).filter(|_| rng.bool()) {
                data.remove(i);
            } else {
                let i = rng.index(len + 1);
                data.insert(i, 0);
            }
        }
        _ => {
            let n = rng.size(4, 300) as usize;
            data.extend(std::iter::repeat_n(rng.one(&[0u8, 0xFF, b'a']), n));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_deterministic_and_change_data() {
        let run = |seed| {
            let mut r = Rng::new(seed);
            let mut d = b"\x03SELECT 1".to_vec();
            mutate(&mut r, &mut d, 5, &[b"donor bytes"]);
            d
        };
        assert_eq!(run(1), run(1));
        assert!((0..20).any(|s| run(s) != b"\x03SELECT 1"));
    }
}
