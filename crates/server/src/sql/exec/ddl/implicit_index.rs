//! The index MariaDB makes for a FOREIGN KEY whose columns no index leads with, and how a
//! later index replaces it.
//!
//! CREATE TABLE or ALTER TABLE … ADD FOREIGN KEY adds a plain key over the foreign key's
//! columns when no key already starts with them (`Keys::settle_implicit`, `alter.rs`); the key
//! is marked [`IndexDef::implicit`] and the mark is kept with the definition. When a later
//! CREATE INDEX or ALTER TABLE … ADD KEY adds a key that starts with the same columns, the
//! implicit key is dropped in the same statement, as MariaDB does: an ORM that creates its
//! tables with inline foreign keys and then its own indexes ends with MariaDB's set of keys.

use crate::storage::schema::{IndexDef, IndexPart};

/// Does a key over `by` serve a foreign key over `cols` (its leading whole columns)?
pub fn serves(cols: &[usize], by: &[IndexPart]) -> bool {
    by.len() >= cols.len()
        && cols
            .iter()
            .zip(by)
            .all(|(c, p)| p.column == *c && p.prefix_len.is_none())
}

/// The implicit keys of `indexes` that a new key over `new` replaces.
pub fn replaced_by<'a>(indexes: &'a [IndexDef], new: &IndexDef) -> Vec<&'a IndexDef> {
    if new.implicit {
        return Vec::new();
    }
    indexes
        .iter()
        .filter(|i| i.implicit && i.name != new.name)
        .filter(|i| {
            let cols: Vec<usize> = i.parts.iter().map(|p| p.column).collect();
            serves(&cols, &new.parts)
        })
        .collect()
}
