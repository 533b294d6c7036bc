//! Unicode Collation Algorithm collations (`utf8mb4_unicode_520_ci`): primary weights from
//! Unicode's DUCET table (generated into `collation_uca520_table.rs` by
//! `crates/server/tools/gen_uca.py`), compared as MariaDB does:
//!
//! * only primary weights count (case and accents are ignored), characters without one
//!   (controls, format characters) are ignorable;
//! * one character may give several weights (expansions: `ß` = `ss`, `Æ` = `AE`); DUCET's
//!   contractions are not applied (MariaDB's untailored UCA collations do not either);
//! * a code point the table does not list (CJK ideographs, Hangul syllables, unassigned ones)
//!   gets the two implicit weights of UCA;
//! * PAD SPACE: the shorter string compares as if padded with spaces (weight 0x020A).
//!
//! `utf8mb4_unicode_ci` (UCA 4.0.0, id 224) is the same algorithm on DUCET 4.0.0
//! (`collation_uca400_table.rs`), with two differences MariaDB has: U+0020 weighs 0x0209, and
//! every character above the BMP weighs 0xFFFD ('A' 0E33, TAB 0201, 'Æ' one weight 0E38 so
//! 'Æ' <> 'AE', 'ß' = 'ss').

use std::cmp::Ordering;

use super::collation::Collation;
use super::collation_uca400_table::{UCA400_PAGES, UCA400_PAGE_INDEX, UCA400_POOL};
use super::collation_uca520_table::{UCA520_PAGES, UCA520_PAGE_INDEX, UCA520_POOL};

/// One DUCET version's primary weights as `gen_uca.py` lays them out, and how code points it
/// does not list are weighed.
pub struct UcaTable {
    page_index: &'static [u16],
    pages: &'static [[u32; 256]],
    pool: &'static [u16],
    /// The primary weight of U+0020 SPACE (what PAD SPACE pads with).
    pub space: u16,
    /// Characters above the BMP all weigh 0xFFFD (MariaDB's UCA 4.0.0 collations) rather
    /// than their table or implicit weights.
    bmp_only: bool,
}

/// UCA 5.2.0 (`utf8mb4_unicode_520_ci`).
pub static UCA520: UcaTable = UcaTable {
    page_index: &UCA520_PAGE_INDEX,
    pages: &UCA520_PAGES,
    pool: &UCA520_POOL,
    space: 0x020A,
    bmp_only: false,
};

/// UCA 4.0.0 (`utf8mb4_unicode_ci`).
pub static UCA400: UcaTable = UcaTable {
    page_index: &UCA400_PAGE_INDEX,
    pages: &UCA400_PAGES,
    pool: &UCA400_POOL,
    space: 0x0209,
    bmp_only: true,
};

/// The table of a UCA collation (either character set); UCA 5.2.0 for any other.
pub fn table_of(c: Collation) -> &'static UcaTable {
    match c.compare_as() {
        Collation::Utf8mb4UnicodeCi => &UCA400,
        _ => &UCA520,
    }
}

/// Is `c` one of the UCA collations?
pub fn is_uca(c: Collation) -> bool {
    matches!(
        c.compare_as(),
        Collation::Utf8mb4UnicodeCi | Collation::Utf8mb4Unicode520Ci
    )
}

/// The UCA 5.2.0 primary weight of U+0020 SPACE.
pub const UCA520_SPACE: u16 = 0x020A;

impl UcaTable {
    /// The table's entry for `cp` (see `gen_uca.py`), `u32::MAX` when not listed.
    #[inline]
    fn entry(&self, cp: u32) -> u32 {
        match self.page_index.get((cp >> 8) as usize) {
            Some(&p) if p != u16::MAX => self.pages[p as usize][(cp & 0xFF) as usize],
            _ => u32::MAX,
        }
    }

    /// Call `f` with each primary weight of `c` (none for an ignorable character).
    #[inline]
    pub fn weights(&self, c: char, mut f: impl FnMut(u16)) {
        let cp = c as u32;
        if self.bmp_only && cp > 0xFFFF {
            return f(0xFFFD);
        }
        match self.entry(cp) {
            0 => {}
            u32::MAX => {
                // Implicit weights: a base by block (the CJK blocks of Unicode 4.0, as
                // MariaDB has them for both UCA versions), then the low 15 bits.
                let base: u32 = match cp {
                    0x4E00..=0x9FA5 => 0xFB40,
                    0x3400..=0x4DB5 => 0xFB80,
                    _ => 0xFBC0,
                };
                f((base + (cp >> 15)) as u16);
                f(((cp & 0x7FFF) | 0x8000) as u16);
            }
            v if v & 0x8000_0000 != 0 => f(v as u16),
            v => {
                let (off, n) = ((v >> 8) as usize, (v & 0xFF) as usize);
                self.pool[off..off + n].iter().for_each(|&w| f(w));
            }
        }
    }

    /// One number per character for LIKE: equal for characters with equal weight sequences.
    /// A single weight is itself; a sequence from the table is its (deduplicated) place in
    /// the pool; an implicit pair is the code point; all ignorable characters share one.
    pub fn char_key(&self, c: char) -> u32 {
        let cp = c as u32;
        if self.bmp_only && cp > 0xFFFF {
            return 0xFFFD;
        }
        match self.entry(cp) {
            0 => 0x3FFF_FFFF,
            u32::MAX => 0x4000_0000 | cp,
            v if v & 0x8000_0000 != 0 => v & 0xFFFF,
            v => 0x8000_0000 | v,
        }
    }
}

impl UcaTable {
    /// The primary weights of a UTF-8 string (invalid bytes read as U+FFFD).
    pub fn string_weights(&self, s: &[u8], out: &mut Vec<u16>) {
        for c in String::from_utf8_lossy(s).chars() {
            self.weights(c, |w| out.push(w));
        }
    }

    /// Compare two strings (PAD SPACE).
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        let (mut wa, mut wb) = (Vec::new(), Vec::new());
        self.string_weights(a, &mut wa);
        self.string_weights(b, &mut wb);
        compare_weights_pad(&wa, &wb, self.space)
    }

    /// The weights of a string without its trailing space weights: equal for strings that
    /// compare equal (GROUP BY, DISTINCT, unique keys).
    pub fn key_weights(&self, s: &[u8]) -> Vec<u16> {
        let mut w = Vec::with_capacity(s.len());
        self.string_weights(s, &mut w);
        while w.last() == Some(&self.space) {
            w.pop();
        }
        w
    }
}

/// Call `f` with each UCA 5.2.0 primary weight of `c` (none for an ignorable character).
#[inline]
pub fn uca520_weights(c: char, f: impl FnMut(u16)) {
    UCA520.weights(c, f)
}

/// The primary weights of a UTF-8 string (invalid bytes read as U+FFFD).
pub fn uca520_string_weights(s: &[u8], out: &mut Vec<u16>) {
    UCA520.string_weights(s, out)
}

/// Compare two strings under `utf8mb4_unicode_520_ci` (PAD SPACE).
pub fn uca520_compare(a: &[u8], b: &[u8]) -> Ordering {
    UCA520.compare(a, b)
}

/// Weight sequences compared as MariaDB's PAD SPACE collations do: the rest of the longer one
/// compares with an endless run of `space`.
pub fn compare_weights_pad(a: &[u16], b: &[u16], space: u16) -> Ordering {
    let n = a.len().min(b.len());
    match a[..n].cmp(&b[..n]) {
        Ordering::Equal => {}
        o => return o,
    }
    let (rest, sign) = if a.len() > n {
        (&a[n..], Ordering::Greater)
    } else {
        (&b[n..], Ordering::Less)
    };
    match rest.iter().find(|&&w| w != space) {
        None => Ordering::Equal,
        Some(&w) if w > space => sign,
        Some(_) => sign.reverse(),
    }
}

/// The weights of a string without its trailing space weights: equal for strings that compare
/// equal (GROUP BY, DISTINCT, unique keys).
pub fn uca520_key_weights(s: &[u8]) -> Vec<u16> {
    UCA520.key_weights(s)
}

/// [`UcaTable::char_key`] of UCA 5.2.0.
pub fn uca520_char_key(c: char) -> u32 {
    UCA520.char_key(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(a: &str, b: &str) -> Ordering {
        uca520_compare(a.as_bytes(), b.as_bytes())
    }

    #[test]
    fn weights_match_mariadb() {
        let ws = |s: &str| {
            let mut v = Vec::new();
            uca520_string_weights(s.as_bytes(), &mut v);
            v
        };
        // Recorded from MariaDB 10.11: HEX(WEIGHT_STRING(x COLLATE utf8mb4_unicode_520_ci)).
        assert_eq!(ws("A"), [0x120F]);
        assert_eq!(ws("a\t"), [0x120F, 0x0201]);
        assert_eq!(ws(" "), [0x020A]);
        assert_eq!(ws("Æ"), [0x120F, 0x126B]);
        assert_eq!(ws("l·"), [0x1330, 0x0292]);
        assert_eq!(ws("가"), [0xFBC1, 0xAC00]);
        assert_eq!(ws("一"), [0xFB40, 0xCE00]);
        assert_eq!(ws("㐀"), [0xFB80, 0xB400]);
        assert_eq!(ws("\u{20000}"), [0xFBC4, 0x8000]);
        assert_eq!(ws("\u{F929}"), [0xFB40, 0xE717]);
        assert_eq!(ws("\u{1F600}"), [0xFBC3, 0xF600]);
        assert_eq!(ws("\u{FFFF}"), [0xFBC1, 0xFFFF]);
        assert_eq!(ws("เก"), [0x1FAA, 0x1F70]);
    }

    #[test]
    fn comparisons() {
        assert_eq!(cmp("ß", "ss"), Ordering::Equal);
        assert_eq!(cmp("Æ", "ae"), Ordering::Equal);
        assert_eq!(cmp("a ", "a"), Ordering::Equal);
        assert_eq!(cmp("a\t", "a"), Ordering::Less);
        assert_eq!(cmp("é", "E"), Ordering::Equal);
        assert_eq!(cmp("a", "b"), Ordering::Less);
        assert_eq!(cmp("a\u{200B}", "a"), Ordering::Equal);
        assert_eq!(uca520_char_key('ß'), uca520_char_key('ß'));
        assert_ne!(uca520_char_key('ß'), uca520_char_key('s'));
        assert_eq!(uca520_char_key('É'), uca520_char_key('e'));
    }
}

#[cfg(test)]
mod oracle_tests {
    use super::*;

    fn hex_weights(cp: u32) -> String {
        let c = char::from_u32(cp).unwrap();
        let mut s = String::new();
        UCA520.weights(c, |w| s.push_str(&format!("{w:04X}")));
        s
    }

    /// A sampling of MariaDB's weights (every 1999th code point, Latin, CJK / Hangul block
    /// edges, the longest expansion U+FDFA cut at 8 weights).
    #[test]
    fn sampled_weights_match_mariadb() {
        let data = include_str!("collation_uca520_samples.txt");
        let mut n = 0;
        for line in data.lines().filter(|l| !l.starts_with('#')) {
            let (cp, w) = line.split_once(' ').unwrap_or((line, ""));
            let cp = u32::from_str_radix(cp, 16).unwrap();
            assert_eq!(hex_weights(cp), w, "U+{cp:04X}");
            n += 1;
        }
        assert!(n > 1000);
    }

    fn hex_weights_in(t: &UcaTable, cp: u32) -> String {
        let c = char::from_u32(cp).unwrap();
        let mut s = String::new();
        t.weights(c, |w| s.push_str(&format!("{w:04X}")));
        s
    }

    /// utf8mb4_unicode_ci (UCA 4.0.0): a sampling of MariaDB's weights (every 53rd BMP code
    /// point of the listing, all of Latin up to U+024F, block edges, expansions).
    #[test]
    fn uca400_sampled_weights_match_mariadb() {
        let data = include_str!("collation_uca400_samples.txt");
        let mut n = 0;
        for line in data.lines().filter(|l| !l.starts_with('#')) {
            let (cp, w) = line.split_once(' ').unwrap_or((line, ""));
            let cp = u32::from_str_radix(cp, 16).unwrap();
            assert_eq!(hex_weights_in(&UCA400, cp), w, "U+{cp:04X}");
            n += 1;
        }
        assert!(n > 1700);
    }

    /// UCA 4.0.0 as MariaDB has it: everything above the BMP weighs 0xFFFD, SPACE 0x0209,
    /// 'Æ' is a letter of its own, 'ß' expands to 'ss'.
    #[test]
    fn uca400_differs_from_uca520_where_mariadb_does() {
        assert_eq!(hex_weights_in(&UCA400, 0x1F600), "FFFD");
        assert_eq!(hex_weights_in(&UCA400, 0x10400), "FFFD");
        assert_eq!(UCA400.space, 0x0209);
        assert_ne!(UCA400.compare("Æ".as_bytes(), b"AE"), Ordering::Equal);
        assert_eq!(UCA400.compare("ß".as_bytes(), b"ss"), Ordering::Equal);
        assert_eq!(UCA400.compare(b"a", b"A   "), Ordering::Equal);
        assert_eq!(UCA400.key_weights(b"ab  "), UCA400.key_weights(b"AB"));
    }
}
