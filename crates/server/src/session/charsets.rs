//! The connection's character sets: how query text is read and result text is written.
//!
//! MariaDB keeps three per session, all set together by the collation id of the client's
//! HandshakeResponse and by `SET NAMES cs [COLLATE c]`, or one by one by `SET`:
//!
//! | variable | what it governs | here |
//! |---|---|---|
//! | `character_set_client` | the bytes of query text and of string parameters | [`ConnCharsets::client`] |
//! | `collation_connection` (and `character_set_connection`) | the collation of string literals and parameters (coercibility 4) | [`ConnCharsets::literal`] |
//! | `character_set_results` | result values of character columns, column names and other metadata | [`ConnCharsets::results`] |
//!
//! Cohort keeps all text as UTF-8 in memory, so reading a client's text is decoding it from
//! its character set (latin1 bytes become their characters; utf8mb3, utf8mb4 and binary text
//! is taken as it is, bytes that are not UTF-8 carried by [`crate::types::raw_text`]), and
//! writing results is encoding to the results character set: a character the set lacks is
//! `?`, exactly where MariaDB writes one (utf8mb3 lacks everything outside the BMP, latin1
//! all but its 256 characters, ascii all but 128). `binary` and NULL mean no conversion;
//! utf8mb4, what most clients ask for, needs none either, so their rows cost nothing.
//!
//! Column definitions carry the results collation's id for every character column (binary
//! ones keep 63), as MariaDB does: the handshake's exact collation id, or after `SET NAMES`
//! / `SET character_set_results` the collation named or the character set's default. The
//! length of a character column is counted in the results character set's bytes.

use crate::session::state::SessionState;
pub use crate::types::text_charset::WireCharset;
use crate::types::{Collation, Value};
use cohort_protocol::column::{charset as ids, ColumnDefinition};
use std::borrow::Cow;

/// A MariaDB collation id a client may name in its handshake, as the character set it
/// belongs to and the collation's name (`collation_connection`). Ids Cohort does not know
/// are `None` (the server's default is used then, as MariaDB does for an unknown id).
pub fn handshake_collation(id: u8) -> Option<(WireCharset, &'static str)> {
    use WireCharset::*;
    Some(match id {
        8 => (Latin1, "latin1_swedish_ci"),
        47 => (Latin1, "latin1_bin"),
        11 => (Ascii, "ascii_general_ci"),
        65 => (Ascii, "ascii_bin"),
        33 => (Utf8mb3, "utf8mb3_general_ci"),
        83 => (Utf8mb3, "utf8mb3_bin"),
        192 => (Utf8mb3, "utf8mb3_unicode_ci"),
        214 => (Utf8mb3, "utf8mb3_unicode_520_ci"),
        45 => (Utf8mb4, "utf8mb4_general_ci"),
        46 => (Utf8mb4, "utf8mb4_bin"),
        224 => (Utf8mb4, "utf8mb4_unicode_ci"),
        246 => (Utf8mb4, "utf8mb4_unicode_520_ci"),
        63 => (Binary, "binary"),
        _ => return None,
    })
}

/// The character set of a collation id.
pub fn id_charset(id: u16) -> Option<WireCharset> {
    u8::try_from(id)
        .ok()
        .and_then(handshake_collation)
        .map(|(cs, _)| cs)
}

/// The id of a collation by name (those [`handshake_collation`] knows).
pub fn collation_id(name: &str) -> Option<u16> {
    (0..=255u8)
        .find(|&id| handshake_collation(id).is_some_and(|(_, n)| n.eq_ignore_ascii_case(name)))
        .map(u16::from)
}

/// A new session's character sets: those of the handshake's collation `id` (the server's
/// defaults for an id Cohort does not know).
pub fn start(ctx: &crate::session::state::ServerContext, sess: &mut SessionState, id: u8) {
    if let Some((cs, name)) = handshake_collation(id) {
        let vars = &mut sess.session_vars;
        for var in [
            "character_set_client",
            "character_set_connection",
            "character_set_results",
        ] {
            vars.insert(var.to_string(), Value::str(cs.name()));
        }
        vars.insert("collation_connection".to_string(), Value::str(name));
        sess.results_collation = Some(u16::from(id));
    }
    sess.refresh_charsets(ctx);
}

/// The session's character sets, as the variables say (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnCharsets {
    /// `character_set_client`.
    pub client: WireCharset,
    /// `collation_connection` as literals take it (a latin1 or ascii one, which Cohort's
    /// strings cannot be yet, as utf8mb4_general_ci).
    pub literal: Collation,
    /// `character_set_results` and the collation id column definitions carry; `None` for
    /// NULL (no conversion).
    pub results: Option<(WireCharset, u16)>,
}

impl Default for ConnCharsets {
    fn default() -> Self {
        ConnCharsets {
            client: WireCharset::Utf8mb4,
            literal: Collation::Utf8mb4GeneralCi,
            results: Some((WireCharset::Utf8mb4, ids::UTF8MB4_GENERAL_CI)),
        }
    }
}

/// The collation literals take under `collation_connection = name`.
pub fn literal_collation(name: &str) -> Collation {
    let name = name.to_ascii_lowercase();
    let name = match name.strip_prefix("utf8_") {
        Some(rest) => format!("utf8mb3_{rest}"),
        None => name,
    };
    [
        Collation::Utf8mb4GeneralCi,
        Collation::Utf8mb4Bin,
        Collation::Binary,
        Collation::Utf8mb4Unicode520Ci,
        Collation::Utf8mb3GeneralCi,
        Collation::Utf8mb3Bin,
        Collation::Utf8mb3Unicode520Ci,
        Collation::Utf8mb4UnicodeCi,
        Collation::Utf8mb3UnicodeCi,
    ]
    .into_iter()
    .find(|c| c.name() == name)
    .unwrap_or(Collation::Utf8mb4GeneralCi)
}

impl ConnCharsets {
    /// The character set results are converted to, if any conversion is needed.
    fn converting(&self) -> Option<WireCharset> {
        self.results.map(|r| r.0).filter(|cs| cs.converts())
    }

    /// `columns` as the client is sent them: character columns carry the results
    /// collation's id and their length in its bytes. Borrowed unchanged when nothing differs
    /// (a utf8mb4_general_ci client reading utf8mb4_general_ci text). Their names are
    /// converted as they are written ([`Self::name`]).
    pub fn columns<'a>(&self, columns: &'a [ColumnDefinition]) -> Cow<'a, [ColumnDefinition]> {
        let Some((cs, id)) = self.results else {
            return unconverted(columns);
        };
        if !columns
            .iter()
            .any(|c| c.charset != ids::BINARY && c.charset != id)
        {
            return Cow::Borrowed(columns);
        }
        Cow::Owned(
            columns
                .iter()
                .map(|c| {
                    let mut c = c.clone();
                    if c.charset != ids::BINARY {
                        // Lengths are in utf8mb4 bytes (4 a character) on this side.
                        c.column_length = match c.column_length {
                            u32::MAX => u32::MAX,
                            n => n / 4 * cs.mbmaxlen() + n % 4,
                        };
                        c.charset = id;
                    }
                    c
                })
                .collect(),
        )
    }

    /// A name in a column definition (column, table, schema) as the client is sent it:
    /// names are utf8mb3 (MariaDB's system character set: a character outside the BMP in an
    /// expression's text is `?`), converted to the results character set.
    pub fn name<'a>(&self, name: &'a str) -> Cow<'a, [u8]> {
        if name.is_ascii() {
            return Cow::Borrowed(name.as_bytes());
        }
        let mb3 = WireCharset::Utf8mb3.encode(name.as_bytes());
        match self.converting() {
            Some(cs) => Cow::Owned(cs.encode(&mb3).into_owned()),
            None => mb3,
        }
    }

    /// A row's value of a column as the client is sent it (`column` as [`Self::columns`]
    /// made it): character columns' text converted.
    #[inline]
    pub fn value<'a>(&self, column: &ColumnDefinition, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        match self.converting() {
            Some(cs) if column.charset != ids::BINARY => cs.encode(bytes),
            _ => Cow::Borrowed(bytes),
        }
    }

    /// Whether row values need converting at all (false for utf8mb4, binary and NULL).
    pub fn converts_values(&self) -> bool {
        self.converting().is_some()
    }
}

/// The definitions sent with `character_set_results = NULL`: each column's own collation,
/// with its length in its own character set's bytes (3 a character for utf8mb3), a TEXT
/// column's as it is stored (65535 for TEXT, not 4 a character).
fn unconverted(columns: &[ColumnDefinition]) -> Cow<'_, [ColumnDefinition]> {
    use cohort_protocol::column::ColumnType as T;
    let text_blob = |c: &ColumnDefinition| {
        matches!(
            c.column_type,
            T::TINY_BLOB | T::BLOB | T::MEDIUM_BLOB | T::LONG_BLOB
        )
    };
    let differs = |c: &ColumnDefinition| {
        c.charset != ids::BINARY
            && c.column_length != u32::MAX
            && (text_blob(c) || id_charset(c.charset) == Some(WireCharset::Utf8mb3))
    };
    if !columns.iter().any(differs) {
        return Cow::Borrowed(columns);
    }
    Cow::Owned(
        columns
            .iter()
            .map(|c| {
                let mut c = c.clone();
                if differs(&c) {
                    c.column_length = match text_blob(&c) {
                        true => c.column_length / 4,
                        false => c.column_length / 4 * 3 + c.column_length % 4,
                    };
                }
                c
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handshake_ids_name_their_collations() {
        assert_eq!(
            handshake_collation(33),
            Some((WireCharset::Utf8mb3, "utf8mb3_general_ci"))
        );
        assert_eq!(handshake_collation(45).unwrap().0, WireCharset::Utf8mb4);
        assert_eq!(handshake_collation(200), None);
        assert_eq!(collation_id("utf8mb4_unicode_ci"), Some(224));
        assert_eq!(literal_collation("utf8_bin"), Collation::Utf8mb3Bin);
        assert_eq!(
            literal_collation("latin1_swedish_ci"),
            Collation::Utf8mb4GeneralCi
        );
    }

    #[test]
    fn column_definitions_carry_the_results_collation() {
        use cohort_protocol::column::ColumnType;
        let cols = vec![
            ColumnDefinition::simple("n", ColumnType::LONG, ids::BINARY, 11),
            ColumnDefinition::simple("é", ColumnType::VAR_STRING, 46, 40),
        ];
        // The default: a utf8mb4_general_ci client is sent 45 for a utf8mb4_bin column.
        let cs = ConnCharsets::default();
        let out = cs.columns(&cols);
        assert_eq!((out[0].charset, out[1].charset), (63, 45));
        let same = vec![cols[0].clone()];
        assert!(matches!(cs.columns(&same), Cow::Borrowed(_)));
        let l1 = ConnCharsets {
            results: Some((WireCharset::Latin1, 8)),
            ..ConnCharsets::default()
        };
        let out = l1.columns(&cols);
        assert_eq!((out[1].charset, out[1].column_length), (8, 10));
        assert_eq!(&*l1.name(&out[1].name), b"\xE9");
        assert_eq!(&*l1.value(&out[1], "é😀".as_bytes()), b"\xE9?");
        assert_eq!(&*l1.value(&out[0], b"\xC3\xA9"), b"\xC3\xA9");
        // NULL: the columns' own collations, a TEXT's length in stored bytes (as MariaDB).
        let none = ConnCharsets {
            results: None,
            ..ConnCharsets::default()
        };
        let text = vec![ColumnDefinition::simple(
            "t",
            ColumnType::BLOB,
            224,
            262_140,
        )];
        let out = none.columns(&text);
        assert_eq!((out[0].charset, out[0].column_length), (224, 65_535));
        assert!(matches!(none.columns(&cols), Cow::Borrowed(_)));
    }
}
