//! Result-set column metadata (ColumnDefinition41), as MariaDB 10.11 sends it.
//!
//! * Table columns: schema, table (alias), org_table, name (as written or the alias), org_name,
//!   and flags from the definition: NOT_NULL, PRI_KEY, UNIQUE_KEY, MULTIPLE_KEY, PART_KEY,
//!   UNSIGNED, BLOB, BINARY (binary strings and dates), AUTO_INCREMENT, TIMESTAMP,
//!   NO_DEFAULT_VALUE, ON_UPDATE_NOW. Character columns carry their collation's utf8mb4
//!   id here, never 63 (PyMySQL returns `bytes` for charset 63), and their length in utf8mb4
//!   bytes (4 a character); the session then sends every character column with the id of
//!   the client's results collation and its length in that character set, as MariaDB
//!   (`session::charsets`). A JSON column carries MariaDB's extended type info format
//!   "json" (sent to clients that ask for it).
//! * Expressions: empty table fields, the expression text as name, BINARY for numbers and
//!   dates, NOT_NULL when the expression cannot be NULL.

use crate::sql::bind::sqltype::{Class, SqlType, FLOATING_POINT_DECIMALS};
use crate::storage::TableDef;
use crate::types::{Collation, DataType};
use cohort_protocol::column::{
    charset, column_flags as f, ColumnDefinition, ColumnType, ExtendedTypeInfo,
};

/// The charset id of a character or binary type: a character type's own collation (the
/// session sends the results collation's instead, unless `character_set_results` is NULL).
fn charset_of(ty: &SqlType) -> u16 {
    match ty.class {
        Class::Str if ty.collation != Collation::Binary => ty.collation.id(),
        Class::Str => charset::UTF8MB4_GENERAL_CI,
        _ => charset::BINARY,
    }
}

/// The decimals a column definition sends: a DOUBLE / FLOAT without fixed decimals says 31
/// (MariaDB's FLOATING_POINT_DECIMALS, for a column as for `f + 1` or `IF(c, f, 1)`), where a
/// string says 39.
fn wire_decimals(ty: &SqlType) -> u8 {
    match ty.class {
        Class::Double if ty.decimals >= FLOATING_POINT_DECIMALS => FLOATING_POINT_DECIMALS,
        _ => ty.decimals,
    }
}

/// Column definition of an expression result.
pub fn expr_column(name: &str, ty: &SqlType) -> ColumnDefinition {
    let mut flags = 0;
    if !ty.nullable {
        flags |= f::NOT_NULL;
    }
    if ty.unsigned {
        flags |= f::UNSIGNED;
    }
    match ty.class {
        Class::Int | Class::Decimal | Class::Double | Class::Date | Class::DateTime => {
            flags |= f::BINARY
        }
        Class::Time => flags |= f::BINARY,
        Class::Bin => flags |= f::BINARY,
        Class::Null => flags |= f::BINARY,
        Class::Str => {}
    }
    if ty.wire == ColumnType::BLOB {
        flags |= f::BLOB;
    }
    ColumnDefinition {
        schema: String::new(),
        table: String::new(),
        org_table: String::new(),
        name: name.to_string(),
        org_name: String::new(),
        charset: charset_of(ty),
        column_length: ty.length,
        column_type: ty.wire,
        flags,
        decimals: wire_decimals(ty),
        extended: ExtendedTypeInfo::None,
    }
}

/// Where a table column of a result set comes from.
pub struct ColumnOrigin<'a> {
    pub schema: &'a str,
    /// The table name or its alias.
    pub table: &'a str,
    pub def: &'a TableDef,
    pub column: usize,
}

/// Column definition of a table column, named `name` in the result.
pub fn table_column(name: &str, origin: &ColumnOrigin<'_>) -> ColumnDefinition {
    let col = &origin.def.columns[origin.column];
    let ty = SqlType::from_data_type(&col.data_type, col.nullable);
    ColumnDefinition {
        schema: origin.schema.to_string(),
        table: origin.table.to_string(),
        org_table: origin.def.name.clone(),
        name: name.to_string(),
        org_name: col.name.clone(),
        charset: charset_of(&ty),
        // An integer column's display width, as declared (`INT(5)`) or the type's default.
        column_length: col.data_type.int_width().map_or(ty.length, u32::from),
        column_type: ty.wire,
        flags: table_column_flags(origin.def, origin.column),
        decimals: match ty.class {
            Class::Str | Class::Bin => 0,
            _ => wire_decimals(&ty),
        },
        extended: match is_json_column(origin.def, origin.column) {
            true => ExtendedTypeInfo::Json,
            false => ExtendedTypeInfo::None,
        },
    }
}

/// A JSON column as MariaDB tells it for its extended metadata: a TEXT column whose own CHECK
/// is exactly `json_valid(col)` (what a JSON column gets unless it has a CHECK of its own; a
/// LONGTEXT declared with that CHECK counts too, as in MariaDB).
fn is_json_column(def: &TableDef, i: usize) -> bool {
    let col = &def.columns[i];
    if !matches!(col.data_type, DataType::Text { .. }) {
        return false;
    }
    let want = format!("json_valid(`{}`)", col.name.replace('`', "``"));
    def.checks.iter().any(|c| {
        c.column
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case(&col.name))
            && c.expr.eq_ignore_ascii_case(&want)
    })
}

/// The flags of column `i` of `def`.
pub fn table_column_flags(def: &TableDef, i: usize) -> u16 {
    let col = &def.columns[i];
    let mut flags = 0;
    if !col.nullable {
        flags |= f::NOT_NULL;
    }
    if col.data_type.is_unsigned()
        || matches!(
            col.data_type,
            DataType::Float { unsigned: true, .. } | DataType::Double { unsigned: true, .. }
        )
    {
        flags |= f::UNSIGNED;
    }
    if col.auto_increment {
        flags |= f::AUTO_INCREMENT;
    }
    if col.data_type.is_zerofill() {
        flags |= f::ZEROFILL;
    }
    if col.on_update_current_timestamp {
        flags |= f::ON_UPDATE_NOW;
    }
    match &col.data_type {
        DataType::Blob { .. } => flags |= f::BLOB | f::BINARY,
        DataType::Text { collation, .. } => {
            flags |= f::BLOB;
            if *collation == Collation::Binary {
                flags |= f::BINARY;
            }
        }
        DataType::Binary { .. } | DataType::VarBinary { .. } => flags |= f::BINARY,
        DataType::Date | DataType::DateTime { .. } => flags |= f::BINARY,
        DataType::Timestamp { .. } => flags |= f::BINARY | f::TIMESTAMP,
        // MariaDB marks a YEAR column UNSIGNED ZEROFILL (not BINARY), as for a padded integer.
        DataType::Year => flags |= f::UNSIGNED | f::ZEROFILL,
        DataType::Enum { .. } => flags |= f::ENUM,
        DataType::Set { .. } => flags |= f::SET,
        DataType::Time { .. } => flags |= f::BINARY,
        DataType::Bit { .. } => flags |= f::UNSIGNED,
        _ => {}
    }
    if !col.nullable && !col.auto_increment && col.default == crate::storage::ColumnDefault::None {
        flags |= f::NO_DEFAULT_VALUE;
    }
    flags | key_flags(def, i)
}

fn key_flags(def: &TableDef, i: usize) -> u16 {
    let mut flags = 0;
    if let Some(pk) = &def.primary_key {
        if pk.parts.iter().any(|p| p.column == i) {
            flags |= f::PRI_KEY | f::PART_KEY;
        }
    }
    for idx in &def.indexes {
        let Some(pos) = idx.parts.iter().position(|p| p.column == i) else {
            continue;
        };
        flags |= f::PART_KEY;
        if idx.unique && idx.parts.len() == 1 {
            flags |= f::UNIQUE_KEY;
        } else if pos == 0 {
            flags |= f::MULTIPLE_KEY;
        }
    }
    flags
}

/// A character column of a SHOW-style result (utf8, never charset 63).
pub fn text_column(name: &str, chars: u32) -> ColumnDefinition {
    let mut c = ColumnDefinition::simple(
        name,
        ColumnType::VAR_STRING,
        charset::UTF8MB4_GENERAL_CI,
        chars.saturating_mul(4),
    );
    c.flags = f::NOT_NULL;
    c
}

/// A nullable character column of a SHOW-style result.
pub fn nullable_text_column(name: &str, chars: u32) -> ColumnDefinition {
    let mut c = text_column(name, chars);
    c.flags = 0;
    c
}

/// A BIGINT column of a SHOW-style result.
pub fn int_column(name: &str) -> ColumnDefinition {
    let mut c = ColumnDefinition::simple(name, ColumnType::LONGLONG, charset::BINARY, 21);
    c.flags = f::NOT_NULL | f::BINARY;
    c
}

/// A nullable BIGINT column of a SHOW-style result.
pub fn nullable_int_column(name: &str) -> ColumnDefinition {
    let mut c = int_column(name);
    c.flags = f::BINARY;
    c
}
