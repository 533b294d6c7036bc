//! The `latin1` collations: each latin1 byte has one weight (MariaDB's "simple" 8-bit sort
//! orders, read from the oracle into `latin1_weights.rs`), strings compare weight by weight,
//! PAD SPACE (the shorter one compares as if padded with the weight of a space).
//!
//! Values are UTF-8 in memory: a character is weighed through its latin1 byte. A character
//! latin1 lacks (only possible in a value that never went through a latin1 column, since
//! storing one writes `?`) weighs as `?`, the byte MariaDB would convert it to.

use std::cmp::Ordering;

use super::collation::Collation;
use super::latin1::encode_char;
use super::latin1_weights::{
    LATIN1_BIN, LATIN1_GENERAL_CI, LATIN1_GENERAL_CS, LATIN1_GERMAN1_CI, LATIN1_SWEDISH_CI,
};

/// One latin1 collation: the weight of every byte.
pub struct Latin1Order {
    weights: &'static [u8; 256],
}

impl Latin1Order {
    /// The weight of `c` (as `?` when latin1 lacks it).
    #[inline]
    pub fn weight(&self, c: char) -> u8 {
        self.weights[usize::from(encode_char(c).unwrap_or(b'?'))]
    }

    /// The weight of SPACE, what PAD SPACE pads with.
    #[inline]
    pub fn space(&self) -> u8 {
        self.weights[usize::from(b' ')]
    }

    /// The weights of a UTF-8 string (invalid bytes read as U+FFFD, weighed as `?`).
    pub fn string_weights(&self, s: &[u8]) -> Vec<u16> {
        String::from_utf8_lossy(s)
            .chars()
            .map(|c| u16::from(self.weight(c)))
            .collect()
    }

    /// Compare two strings (PAD SPACE).
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        if a.is_ascii() && b.is_ascii() {
            return self.compare_ascii(a, b);
        }
        let (wa, wb) = (self.string_weights(a), self.string_weights(b));
        super::collation_uca::compare_weights_pad(&wa, &wb, u16::from(self.space()))
    }

    /// [`Self::compare`] of two ASCII strings, without collecting their weights.
    fn compare_ascii(&self, a: &[u8], b: &[u8]) -> Ordering {
        let w = |x: u8| self.weights[usize::from(x)];
        let n = a.len().min(b.len());
        for i in 0..n {
            match w(a[i]).cmp(&w(b[i])) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        let (rest, sign) = if a.len() > n {
            (&a[n..], Ordering::Greater)
        } else {
            (&b[n..], Ordering::Less)
        };
        let space = self.space();
        match rest.iter().map(|&x| w(x)).find(|&x| x != space) {
            None => Ordering::Equal,
            Some(x) if x > space => sign,
            Some(_) => sign.reverse(),
        }
    }

    /// The weights of a string without its trailing space weights: equal for strings that
    /// compare equal (GROUP BY, DISTINCT, unique keys).
    pub fn key_weights(&self, s: &[u8]) -> Vec<u16> {
        let mut w = self.string_weights(s);
        while w.last() == Some(&u16::from(self.space())) {
            w.pop();
        }
        w
    }
}

static SWEDISH_CI: Latin1Order = Latin1Order {
    weights: &LATIN1_SWEDISH_CI,
};
static BIN: Latin1Order = Latin1Order {
    weights: &LATIN1_BIN,
};
static GENERAL_CI: Latin1Order = Latin1Order {
    weights: &LATIN1_GENERAL_CI,
};
static GENERAL_CS: Latin1Order = Latin1Order {
    weights: &LATIN1_GENERAL_CS,
};
static GERMAN1_CI: Latin1Order = Latin1Order {
    weights: &LATIN1_GERMAN1_CI,
};

/// The sort order of a latin1 collation, `None` for a collation of another character set.
pub fn order_of(c: Collation) -> Option<&'static Latin1Order> {
    match c {
        Collation::Latin1SwedishCi => Some(&SWEDISH_CI),
        Collation::Latin1Bin => Some(&BIN),
        Collation::Latin1GeneralCi => Some(&GENERAL_CI),
        Collation::Latin1GeneralCs => Some(&GENERAL_CS),
        Collation::Latin1German1Ci => Some(&GERMAN1_CI),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(c: Collation, a: &str, b: &str) -> Ordering {
        order_of(c).unwrap().compare(a.as_bytes(), b.as_bytes())
    }

    #[test]
    fn as_mariadb_orders() {
        use Collation::*;
        // swedish_ci: accents fold except the Swedish letters, which sort after Z.
        assert_eq!(cmp(Latin1SwedishCi, "é", "E"), Ordering::Equal);
        assert_eq!(cmp(Latin1SwedishCi, "ä", "Z"), Ordering::Greater);
        assert_eq!(cmp(Latin1SwedishCi, "ab ", "AB"), Ordering::Equal);
        assert_eq!(cmp(Latin1SwedishCi, "a\t", "a"), Ordering::Less);
        // bin: latin1 byte order, not code point order (€ is 0x80, ‚ U+201A is 0x82).
        assert_eq!(cmp(Latin1Bin, "€", "‚"), Ordering::Less);
        assert_eq!(cmp(Latin1Bin, "a", "A"), Ordering::Greater);
        assert_eq!(cmp(Latin1GeneralCs, "a", "A"), Ordering::Greater);
        assert_eq!(cmp(Latin1GeneralCi, "a", "A"), Ordering::Equal);
        assert_eq!(cmp(Latin1German1Ci, "ä", "A"), Ordering::Equal);
        // A character latin1 lacks weighs as '?'.
        assert_eq!(cmp(Latin1Bin, "🎉", "?"), Ordering::Equal);
    }

    #[test]
    fn key_weights_equal_for_equal_strings() {
        let o = order_of(Collation::Latin1SwedishCi).unwrap();
        assert_eq!(o.key_weights(b"Abc  "), o.key_weights("ABC".as_bytes()));
    }
}
