//! DDL: CREATE / DROP DATABASE, CREATE TABLE [LIKE], CREATE / DROP INDEX, DROP TABLE,
//! TRUNCATE, RENAME TABLE; ALTER TABLE in `alter.rs`. Every DDL statement first commits the
//! session's open transaction (implicit commit), then takes the exclusive metadata locks of
//! the tables it changes (`storage/mdl.rs`, see `sql::ddl`); DDL itself is not transactional,
//! but each statement is all or nothing (`storage/ddl_undo.rs`).
//!
//! CREATE TABLE turns the parser's column definitions into a [`TableDef`]: MySQL type names
//! (BOOL = TINYINT(1), INTEGER = INT, REAL = DOUBLE, NUMERIC = DECIMAL…), NULL / NOT NULL,
//! DEFAULT (a constant converted to the column type, e.g. `DEFAULT '0'` on INT, or
//! CURRENT_TIMESTAMP), AUTO_INCREMENT (one per table, must lead a key), inline and separate
//! PRIMARY KEY / UNIQUE / KEY / INDEX, COMMENT, column COLLATE / CHARACTER SET, and the table
//! options ENGINE (accepted, shown), AUTO_INCREMENT=N, COMMENT, charset options (accepted;
//! every character column is utf8mb4). FOREIGN KEYs (`fk.rs`, enforced by `exec/fk.rs`) and
//! CHECK constraints (`exec/check.rs`) are kept in the definition. ENUM / SET keep their
//! members (`types/enumset.rs`); JSON is LONGTEXT in utf8mb4_bin with a column CHECK
//! (json_valid(c)), as in MariaDB. TIME(fsp) and BIT(n) columns are kept; generated columns
//! (`AS (expr) VIRTUAL | PERSISTENT | STORED`) keep their expression (`exec/gencol.rs`). TEMPORARY tables are `temporary.rs` (no implicit commit, nothing logged).

pub(in crate::sql) mod alter;
pub(in crate::sql) mod create_select;
pub(crate) mod fk;
pub(in crate::sql) mod implicit_index;
mod row_size;
pub(in crate::sql) mod temporary;
pub(in crate::sql) mod temporary_ddl;
pub(in crate::sql) mod view;
mod view_star;

use crate::accounts::Privs;
use crate::error::{Error, Result};
use crate::session::state::SessionState;
use crate::sql::bind::Binder;
use crate::sql::env::Env;
use crate::sql::exec::virtual_tables;
use crate::sql::expr::RowCtx;
use crate::sql::parse::alter::RenameTable;
use crate::sql::plan::{self, check_db_access, is_system_schema};
use crate::storage::{ColumnDef, ColumnDefault, IndexDef, IndexPart, TableDef};
use crate::types::IntDisplay;
use crate::types::{Collation, DataType, Value};
use cohort_protocol::ErrorCode;
use sqlparser::ast::{self, ColumnOption, TableConstraint};
use sqlparser::tokenizer::Token;

fn unsupported(what: &str) -> Error {
    Error::unsupported(what)
}

fn check_ident(name: &str) -> Result<()> {
    if name.chars().count() > 64 {
        return Err(Error::new(
            ErrorCode::TooLongIdent,
            format!("Identifier name '{name}' is too long"),
        ));
    }
    if name.is_empty() || name.ends_with(' ') {
        return Err(Error::new(
            ErrorCode::WrongTableName,
            format!("Incorrect table name '{name}'"),
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Databases

pub fn create_database(
    env: &Env<'_>,
    name: &str,
    if_not_exists: bool,
    charset: crate::sql::parse::DbCharset,
) -> Result<()> {
    check_ident(name)?;
    let coll = charset_and_collation(charset.0, charset.1)?;
    if is_system_schema(name) {
        if if_not_exists {
            return Ok(());
        }
        return Err(Error::new(
            ErrorCode::DbCreateExists,
            format!("Can't create database '{name}'; database exists"),
        ));
    }
    plan::check_db_priv(env, name, Privs::CREATE)?;
    if if_not_exists && env.ctx.engine.database_exists(name) {
        env.warn(
            "Note",
            ErrorCode::DbCreateExists,
            format!("Can't create database '{name}'; database exists"),
        );
        return Ok(());
    }
    env.ctx.engine.create_database(name, if_not_exists)?;
    match coll {
        Some(c) => env.ctx.engine.set_database_collation(name, c),
        None => Ok(()),
    }
}

/// ALTER DATABASE: its default collation (for the tables created in it later).
pub fn alter_database(
    env: &Env<'_>,
    name: Option<&str>,
    charset: crate::sql::parse::DbCharset,
) -> Result<()> {
    let name = match name {
        Some(n) => n.to_string(),
        None => env.sess.db.ok_or_else(Error::no_db)?.to_string(),
    };
    let coll = charset_and_collation(charset.0, charset.1)?;
    if is_system_schema(&name) {
        return Err(Error::new(
            ErrorCode::DbAccessDenied,
            format!(
                "Access denied for user '{}'@'{}' to database '{name}'",
                env.sess.user, env.sess.host
            ),
        ));
    }
    plan::check_db_priv(env, &name, Privs::ALTER)?;
    if !env.ctx.engine.database_exists(&name) {
        return Err(Error::bad_db(&name));
    }
    match coll {
        Some(c) => env.ctx.engine.set_database_collation(&name, c),
        None => Ok(()),
    }
}

pub fn drop_database(env: &Env<'_>, name: &str, if_exists: bool) -> Result<()> {
    if is_system_schema(name) {
        return Err(Error::new(
            ErrorCode::DbAccessDenied,
            format!(
                "Access denied for user '{}'@'{}' to database '{name}'",
                env.sess.user, env.sess.host
            ),
        ));
    }
    plan::check_db_priv(env, name, Privs::DROP)?;
    fk::check_drop_database(env, name)?;
    if if_exists && !env.ctx.engine.database_exists(name) {
        env.warn(
            "Note",
            ErrorCode::DbDropExists,
            format!("Can't drop database '{name}'; database doesn't exist"),
        );
    }
    env.ctx.engine.drop_database(name, if_exists)
}

// ---------------------------------------------------------------------------------------------
// Tables

fn ident_of(e: &ast::Expr) -> Option<&str> {
    match e {
        ast::Expr::Identifier(id) => Some(&id.value),
        _ => None,
    }
}

/// `DECIMAL[(M[,D])]` checked as MariaDB: D ≤ 38 (1425), M ≤ 65 (1426), M ≥ D (1427);
/// M = 0 means the default 10.
fn decimal_spec(info: &ast::ExactNumberInfo, col: &str) -> Result<(u8, u8)> {
    let (p, s): (u64, i64) = match info {
        ast::ExactNumberInfo::None => (10, 0),
        ast::ExactNumberInfo::Precision(p) => (*p, 0),
        ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, *s),
    };
    if !(0..=cohort_decimal::MAX_SCALE as i64).contains(&s) {
        return Err(Error::new(
            ErrorCode::TooBigScale,
            format!("Too big scale specified for '{col}'. Maximum is 38"),
        ));
    }
    if p > cohort_decimal::MAX_PRECISION as u64 {
        return Err(Error::new(
            ErrorCode::TooBigPrecision,
            format!("Too big precision specified for '{col}'. Maximum is 65"),
        ));
    }
    let p = if p == 0 { 10 } else { p };
    if s as u64 > p {
        return Err(m_bigger_than_d(col));
    }
    Ok((p as u8, s as u8))
}

fn m_bigger_than_d(col: &str) -> Error {
    Error::new(
        ErrorCode::MBiggerThanD,
        format!("For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{col}')"),
    )
}

/// A MySQL column type from the parser's data type.
pub fn data_type(dt: &ast::DataType, col: &str) -> Result<DataType> {
    use ast::DataType as D;
    let char_len = |l: &Option<ast::CharacterLength>, default: Option<u64>| -> Result<u64> {
        match l {
            Some(ast::CharacterLength::IntegerLength { length, .. }) => Ok(*length),
            Some(ast::CharacterLength::Max) => Err(unsupported("VARCHAR(MAX)")),
            None => default.ok_or_else(|| Error::parse(&format!("{dt}"), 1)),
        }
    };
    let width_out_of_range = |max: u64| {
        Error::new(
            ErrorCode::TooBigDisplaywidth,
            format!("Display width out of range for '{col}' (max = {max})"),
        )
    };
    // Integer display widths: up to 255 (1439), kept with the column (0, as none, shows
    // the type's default). ZEROFILL is a column option (see `zerofill_type`).
    let display_width = |w: &Option<u64>| -> Result<IntDisplay> {
        match w {
            Some(w) if *w > 255 => Err(width_out_of_range(255)),
            Some(w) => Ok(IntDisplay::width(*w as u8)),
            None => Ok(IntDisplay::default()),
        }
    };
    let too_long = |max: u32| {
        Error::new(
            ErrorCode::TooBigFieldlength,
            format!(
                "Column length too big for column '{col}' (max = {max}); use BLOB or TEXT instead"
            ),
        )
    };
    let ci = Collation::Utf8mb4GeneralCi;
    Ok(match dt {
        D::Bool | D::Boolean => DataType::TinyInt {
            unsigned: false,
            display: IntDisplay::width(1),
        },
        D::TinyInt(w) => DataType::TinyInt {
            unsigned: false,
            display: display_width(w)?,
        },
        D::TinyIntUnsigned(w) => DataType::TinyInt {
            unsigned: true,
            display: display_width(w)?,
        },
        D::UTinyInt => DataType::TinyInt {
            unsigned: true,
            display: IntDisplay::default(),
        },
        D::SmallInt(w) => DataType::SmallInt {
            unsigned: false,
            display: display_width(w)?,
        },
        D::SmallIntUnsigned(w) => DataType::SmallInt {
            unsigned: true,
            display: display_width(w)?,
        },
        D::USmallInt => DataType::SmallInt {
            unsigned: true,
            display: IntDisplay::default(),
        },
        D::MediumInt(w) => DataType::MediumInt {
            unsigned: false,
            display: display_width(w)?,
        },
        D::MediumIntUnsigned(w) => DataType::MediumInt {
            unsigned: true,
            display: display_width(w)?,
        },
        D::Int(w) | D::Integer(w) | D::Int4(w) => DataType::Int {
            unsigned: false,
            display: display_width(w)?,
        },
        D::IntUnsigned(w) | D::IntegerUnsigned(w) | D::Int4Unsigned(w) => DataType::Int {
            unsigned: true,
            display: display_width(w)?,
        },
        D::BigInt(w) | D::Int8(w) => DataType::BigInt {
            unsigned: false,
            display: display_width(w)?,
        },
        D::BigIntUnsigned(w) | D::Int8Unsigned(w) => DataType::BigInt {
            unsigned: true,
            display: display_width(w)?,
        },
        D::UBigInt => DataType::BigInt {
            unsigned: true,
            display: IntDisplay::default(),
        },
        D::Decimal(info) | D::Numeric(info) | D::Dec(info) => {
            let (precision, scale) = decimal_spec(info, col)?;
            DataType::Decimal { precision, scale }
        }
        D::DecimalUnsigned(_) | D::DecUnsigned(_) => {
            return Err(unsupported("DECIMAL UNSIGNED"));
        }
        D::Float(info) | D::FloatUnsigned(info) => {
            let unsigned = matches!(dt, D::FloatUnsigned(_));
            match info {
                // FLOAT(p): single precision up to 24 bits, double up to 53.
                ast::ExactNumberInfo::Precision(p) if *p > 53 => {
                    return Err(Error::new(
                        ErrorCode::WrongFieldSpec,
                        format!("Incorrect column specifier for column '{col}'"),
                    ))
                }
                ast::ExactNumberInfo::Precision(p) if *p > 24 => DataType::Double {
                    unsigned,
                    m_d: None,
                },
                ast::ExactNumberInfo::PrecisionAndScale(m, d) => DataType::Float {
                    unsigned,
                    m_d: float_m_d(*m, *d, col)?,
                },
                _ => DataType::Float {
                    unsigned,
                    m_d: None,
                },
            }
        }
        D::Double(ast::ExactNumberInfo::PrecisionAndScale(m, d))
        | D::DoubleUnsigned(ast::ExactNumberInfo::PrecisionAndScale(m, d)) => DataType::Double {
            unsigned: matches!(dt, D::DoubleUnsigned(_)),
            m_d: float_m_d(*m, *d, col)?,
        },
        D::DoubleUnsigned(_) | D::DoublePrecisionUnsigned | D::RealUnsigned => DataType::Double {
            unsigned: true,
            m_d: None,
        },
        D::Real | D::Double(_) | D::DoublePrecision | D::Float8 | D::Float64 => DataType::DOUBLE,
        D::Char(l) | D::Character(l) => {
            let len = char_len(l, Some(1))?;
            if len > 255 {
                return Err(too_long(255));
            }
            DataType::Char {
                len: len as u32,
                collation: ci,
            }
        }
        D::Varchar(l) | D::CharacterVarying(l) | D::CharVarying(l) | D::Nvarchar(l) => {
            let len = char_len(l, None)?;
            if len > u32::MAX as u64 {
                return Err(width_out_of_range(u32::MAX as u64));
            }
            // The bound is bytes (65532) over the character set's bytes per character:
            // checked once the column's character set is known (`varchar_bound`).
            DataType::VarChar {
                len: len as u32,
                collation: ci,
            }
        }
        D::TinyText => DataType::Text {
            max_bytes: 255,
            collation: ci,
        },
        D::Text => DataType::Text {
            max_bytes: 65_535,
            collation: ci,
        },
        D::MediumText => DataType::Text {
            max_bytes: 16_777_215,
            collation: ci,
        },
        D::LongText => DataType::Text {
            max_bytes: 4_294_967_295,
            collation: ci,
        },
        D::Binary(n) => {
            let len = n.unwrap_or(1);
            if len > 255 {
                return Err(too_long(255));
            }
            DataType::Binary { len: len as u32 }
        }
        D::Varbinary(l) => match l {
            Some(ast::BinaryLength::IntegerLength { length }) => {
                if *length > u32::MAX as u64 {
                    return Err(width_out_of_range(u32::MAX as u64));
                }
                if *length > 65_532 {
                    return Err(too_long(65_532));
                }
                DataType::VarBinary {
                    len: *length as u32,
                }
            }
            _ => return Err(Error::parse(&format!("{dt}"), 1)),
        },
        D::TinyBlob => DataType::Blob { max_bytes: 255 },
        D::Blob(Some(n)) if *n > u32::MAX as u64 => {
            return Err(width_out_of_range(u32::MAX as u64))
        }
        D::Blob(Some(_)) => return Err(unsupported("BLOB(n)")),
        D::Blob(None) => DataType::Blob { max_bytes: 65_535 },
        D::MediumBlob => DataType::Blob {
            max_bytes: 16_777_215,
        },
        D::LongBlob => DataType::Blob {
            max_bytes: 4_294_967_295,
        },
        D::Date => DataType::Date,
        D::Datetime(fsp) => DataType::DateTime {
            fsp: fsp_of(*fsp, col)?,
        },
        D::Timestamp(fsp, _) => DataType::Timestamp {
            fsp: fsp_of(*fsp, col)?,
        },
        D::Custom(name, mods) if name.to_string().eq_ignore_ascii_case("year") => year_type(mods)?,
        // SERIAL: BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE (`column_def` adds the rest).
        D::Custom(..) if is_serial(dt) => DataType::BigInt {
            unsigned: true,
            display: IntDisplay::default(),
        },
        D::Enum(members, None) => enum_type(members, col)?,
        D::Set(members) => set_type(members, col)?,
        // JSON is LONGTEXT in utf8mb4_bin; `column_def` adds its CHECK (json_valid(c)).
        D::JSON => DataType::Text {
            max_bytes: 4_294_967_295,
            collation: Collation::Utf8mb4Bin,
        },
        D::Time(fsp, ast::TimezoneInfo::None) => DataType::Time {
            fsp: fsp_of(*fsp, col)?,
        },
        // BIT(0) is BIT(1), as MariaDB takes it.
        D::Bit(width) => match width.unwrap_or(1) {
            w if w > 64 => return Err(width_out_of_range(64)),
            w => DataType::Bit {
                width: w.max(1) as u8,
            },
        },
        other => {
            let name = other.to_string();
            let name = name.split('(').next().unwrap_or("").to_ascii_uppercase();
            return Err(unsupported(&format!("{name} columns")));
        }
    })
}

/// FLOAT(M,D) / DOUBLE(M,D): the (M, D) kept, or MariaDB's error for an impossible size.
/// (0,0) is no size at all (plain FLOAT / DOUBLE), as in MariaDB.
fn float_m_d(m: u64, d: i64, col: &str) -> Result<Option<(u8, u8)>> {
    // MariaDB 10.11's order, measured: M < D is 1427 unless M is 255 or more; then a scale
    // past 30 is 1425; then M past 255 is 1439.
    if d < 0 || (m < 255 && d as u64 > m) {
        return Err(m_bigger_than_d(col));
    }
    if d > 30 {
        return Err(Error::new(
            ErrorCode::TooBigScale,
            format!("Too big scale specified for '{col}'. Maximum is 30"),
        ));
    }
    if m > 255 {
        return Err(Error::new(
            ErrorCode::TooBigDisplaywidth,
            format!("Display width out of range for '{col}' (max = 255)"),
        ));
    }
    Ok((m != 0 || d != 0).then_some((m as u8, d as u8)))
}

/// ENUM('a', …): the members with their trailing spaces removed (MariaDB). Duplicates are
/// found once the column's collation is known ([`check_members`]).
fn enum_type(members: &[ast::EnumMember], col: &str) -> Result<DataType> {
    let mut out = Vec::with_capacity(members.len());
    for m in members {
        match m {
            ast::EnumMember::Name(n) => out.push(n.trim_end_matches(' ').to_string()),
            ast::EnumMember::NamedValue(..) => return Err(unsupported("ENUM members with values")),
        }
    }
    if out.len() > crate::types::enumset::MAX_ENUM_MEMBERS {
        return Err(Error::new(
            ErrorCode::TooBigSet,
            format!("Too many strings for column {col} and SET"),
        ));
    }
    Ok(DataType::Enum {
        members: out,
        collation: Collation::Utf8mb4GeneralCi,
    })
}

/// SET('a', …): at most 64 members, none with a comma (1367).
fn set_type(members: &[String], col: &str) -> Result<DataType> {
    if members.len() > crate::types::enumset::MAX_SET_MEMBERS {
        return Err(Error::new(
            ErrorCode::TooBigSet,
            format!("Too many strings for column {col} and SET"),
        ));
    }
    let mut out = Vec::with_capacity(members.len());
    for m in members {
        if m.contains(',') {
            return Err(Error::new(
                ErrorCode::IllegalValueForType,
                format!("Illegal set '{m}' value found during parsing"),
            ));
        }
        out.push(m.trim_end_matches(' ').to_string());
    }
    Ok(DataType::Set {
        members: out,
        collation: Collation::Utf8mb4GeneralCi,
    })
}

/// Two ENUM / SET members equal under the column's collation: 1291 (an error in strict mode,
/// a note otherwise, as MariaDB).
fn check_members(env: &Env<'_>, dt: &DataType, col: &str) -> Result<()> {
    let (members, coll, kind) = match dt {
        DataType::Enum { members, collation } => (members, *collation, "ENUM"),
        DataType::Set { members, collation } => (members, *collation, "SET"),
        _ => return Ok(()),
    };
    for (i, m) in members.iter().enumerate() {
        if let Some(j) = crate::types::enumset::enum_position(&members[..i], coll, m.as_bytes()) {
            let first = &members[j - 1];
            let msg = format!("Column '{col}' has duplicated value '{first}' in {kind}");
            if env.strict() {
                return Err(Error::new(ErrorCode::DuplicatedValueInType, msg));
            }
            env.warn("Note", ErrorCode::DuplicatedValueInType, msg);
            return Ok(());
        }
    }
    Ok(())
}

/// YEAR and YEAR(4). MariaDB keeps YEAR(2) (two-digit display) and turns other widths into
/// YEAR(4) with a deprecation note; neither is done here, so they are refused.
fn year_type(mods: &[String]) -> Result<DataType> {
    match mods {
        [] => Ok(DataType::Year),
        [w] if w.trim() == "4" => Ok(DataType::Year),
        _ => Err(unsupported("YEAR(n) columns other than YEAR(4)")),
    }
}

fn fsp_of(fsp: Option<u64>, col: &str) -> Result<u8> {
    let f = fsp.unwrap_or(0);
    if f > 6 {
        return Err(Error::new(
            ErrorCode::TooBigPrecision,
            format!("Too big precision specified for '{col}'. Maximum is 6"),
        ));
    }
    Ok(f as u8)
}

fn with_collation(dt: DataType, coll: Collation) -> DataType {
    match dt {
        DataType::Char { len, .. } if coll == Collation::Binary => DataType::Binary { len },
        DataType::VarChar { len, .. } if coll == Collation::Binary => DataType::VarBinary { len },
        DataType::Text { max_bytes, .. } if coll == Collation::Binary => {
            DataType::Blob { max_bytes }
        }
        DataType::Char { len, .. } => DataType::Char {
            len,
            collation: coll,
        },
        DataType::VarChar { len, .. } => DataType::VarChar {
            len,
            collation: coll,
        },
        DataType::Text { max_bytes, .. } => DataType::Text {
            max_bytes,
            collation: coll,
        },
        DataType::Enum { members, .. } => DataType::Enum {
            members,
            collation: coll,
        },
        DataType::Set { members, .. } => DataType::Set {
            members,
            collation: coll,
        },
        other => other,
    }
}

/// The collations a character column can have: utf8mb4's and utf8mb3's general_ci, bin,
/// unicode_ci and unicode_520_ci (`utf8_…` names are utf8mb3's, as in MariaDB 10.11),
/// latin1's swedish_ci, bin, general_ci, general_cs and german1_ci, and binary. Any other
/// collation would compare differently, so it is refused (1273 when it is not a collation at
/// all).
pub fn collation_named(name: &str) -> Result<Collation> {
    let n = name.trim_matches(['`', '\'', '"']).to_ascii_lowercase();
    Ok(match n.as_str() {
        "binary" => Collation::Binary,
        "utf8mb4_bin" => Collation::Utf8mb4Bin,
        "utf8mb4_general_ci" => Collation::Utf8mb4GeneralCi,
        "utf8mb4_unicode_520_ci" => Collation::Utf8mb4Unicode520Ci,
        "utf8mb3_bin" | "utf8_bin" => Collation::Utf8mb3Bin,
        "utf8mb3_general_ci" | "utf8_general_ci" => Collation::Utf8mb3GeneralCi,
        "utf8mb3_unicode_520_ci" | "utf8_unicode_520_ci" => Collation::Utf8mb3Unicode520Ci,
        "utf8mb4_unicode_ci" => Collation::Utf8mb4UnicodeCi,
        "utf8mb3_unicode_ci" | "utf8_unicode_ci" => Collation::Utf8mb3UnicodeCi,
        "latin1_swedish_ci" => Collation::Latin1SwedishCi,
        "latin1_bin" => Collation::Latin1Bin,
        "latin1_general_ci" => Collation::Latin1GeneralCi,
        "latin1_general_cs" => Collation::Latin1GeneralCs,
        "latin1_german1_ci" => Collation::Latin1German1Ci,
        _ if n.contains('_') => {
            return Err(unsupported(&format!(
                "the collation {n} (here: utf8mb4_general_ci, utf8mb4_bin, \
                 utf8mb4_unicode_ci, utf8mb4_unicode_520_ci, their utf8mb3 twins, \
                 latin1_swedish_ci, latin1_bin, latin1_general_ci, latin1_general_cs, \
                 latin1_german1_ci or binary)"
            )))
        }
        _ => {
            return Err(Error::new(
                ErrorCode::UnknownCollation,
                format!("Unknown collation: '{n}'"),
            ))
        }
    })
}

/// The character sets a column or table can have: utf8mb4, utf8mb3 (`utf8`), latin1 and binary; the
/// (default) collation they imply.
pub fn charset_named(name: &str) -> Result<Collation> {
    let n = name.trim_matches(['`', '\'', '"']).to_ascii_lowercase();
    match n.as_str() {
        "utf8mb4" => Ok(Collation::Utf8mb4GeneralCi),
        "utf8mb3" | "utf8" => Ok(Collation::Utf8mb3GeneralCi),
        "binary" => Ok(Collation::Binary),
        "latin1" => Ok(Collation::Latin1SwedishCi),
        "ascii" | "latin2" | "ucs2" | "utf16" | "utf16le" | "utf32" | "cp1250" | "cp1251"
        | "cp1256" | "cp1257" | "cp850" | "cp852" | "cp866" | "cp932" | "big5" | "gbk"
        | "gb2312" | "sjis" | "ujis" | "euckr" | "eucjpms" | "koi8r" | "koi8u" | "greek"
        | "hebrew" | "latin5" | "latin7" | "swe7" | "tis620" | "armscii8" | "dec8" | "geostd8"
        | "hp8" | "keybcs2" | "macce" | "macroman" => Err(unsupported(&format!(
            "the character set {n} (here: utf8mb4, utf8mb3, latin1 or binary)"
        ))),
        _ => Err(Error::new(
            ErrorCode::UnknownCharacterSet,
            format!("Unknown character set: '{n}'"),
        )),
    }
}

/// A VARCHAR holds at most 65532 bytes: 16383 utf8mb4 characters, 21844 utf8mb3 ones, 65532
/// latin1 ones
/// (1074 beyond, naming the bound in characters, as MariaDB).
fn varchar_bound(dt: &DataType, col: &str) -> Result<()> {
    let (len, max) = match dt {
        DataType::VarChar { len, collation } => (len, 65_532 / collation.mbmaxlen()),
        DataType::VarBinary { len } => (len, 65_532),
        _ => return Ok(()),
    };
    if *len <= max {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::TooBigFieldlength,
        format!("Column length too big for column '{col}' (max = {max}); use BLOB or TEXT instead"),
    ))
}

/// `CHARACTER SET cs` and `COLLATE coll` given together: the collation, which must belong to
/// the character set (1253 otherwise, as MariaDB). `cs` is the character set's default
/// collation ([`charset_named`]).
pub fn charset_and_collation(
    cs: Option<Collation>,
    coll: Option<Collation>,
) -> Result<Option<Collation>> {
    Ok(match (cs, coll) {
        (Some(cs), Some(c)) if cs.charset() != c.charset() => {
            return Err(Error::new(
                ErrorCode::CollationCharsetMismatch,
                format!(
                    "COLLATION '{}' is not valid for CHARACTER SET '{}'",
                    c.name(),
                    cs.charset().name()
                ),
            ))
        }
        (_, Some(c)) => Some(c),
        (cs, None) => cs,
    })
}

/// `CURRENT_TIMESTAMP`, `NOW()` and their synonyms, also written in parentheses
/// (`DEFAULT (now())`, as SQLAlchemy's `server_default=func.now()` sends it).
fn is_current_timestamp(e: &ast::Expr) -> bool {
    let name = match e {
        ast::Expr::Nested(inner) => return is_current_timestamp(inner),
        ast::Expr::Function(f) => f.name.to_string(),
        ast::Expr::Identifier(id) => id.value.clone(),
        _ => return false,
    };
    matches!(
        name.to_ascii_uppercase().as_str(),
        "CURRENT_TIMESTAMP" | "NOW" | "LOCALTIME" | "LOCALTIMESTAMP"
    )
}

/// What CREATE TABLE collects besides the columns.
#[derive(Default)]
struct Keys {
    primary: Option<(Vec<IndexPart>, bool)>,
    /// (name, parts, unique, implicit): an implicit index is the one a FOREIGN KEY adds
    /// where it is written, kept only if no other index starts with its columns.
    indexes: Vec<(Option<String>, Vec<IndexPart>, bool, bool)>,
    /// FOREIGN KEYs declared (column-level REFERENCES has its column filled in).
    fks: Vec<ast::ForeignKeyConstraint>,
    /// CHECK constraints declared.
    checks: Vec<crate::sql::exec::check::Declared>,
}

impl Keys {
    /// Drop the implicit FOREIGN KEY indexes another index (or an earlier implicit one)
    /// already serves.
    fn settle_implicit(&mut self) {
        let covered = |parts: &[IndexPart], by: &[IndexPart]| {
            by.len() >= parts.len()
                && parts
                    .iter()
                    .zip(by)
                    .all(|(a, b)| a.column == b.column && b.prefix_len.is_none())
        };
        let mut keep = vec![true; self.indexes.len()];
        for i in 0..self.indexes.len() {
            if !self.indexes[i].3 {
                continue;
            }
            let parts = &self.indexes[i].1;
            let by_pk = self
                .primary
                .as_ref()
                .is_some_and(|(p, _)| covered(parts, p));
            let by_other = self
                .indexes
                .iter()
                .enumerate()
                .any(|(j, x)| j != i && (!x.3 || (j < i && keep[j])) && covered(parts, &x.1));
            keep[i] = !(by_pk || by_other);
        }
        let mut k = keep.into_iter();
        self.indexes.retain(|_| k.next().unwrap_or(true));
    }
}

fn invalid_default(col: &str) -> Error {
    Error::new(
        ErrorCode::InvalidDefault,
        format!("Invalid default value for '{col}'"),
    )
}

fn column_def(
    env: &Env<'_>,
    c: &ast::ColumnDef,
    pos: usize,
    keys: &mut Keys,
    table_collation: Collation,
) -> Result<ColumnDef> {
    let name = c.name.value.clone();
    check_ident(&name)?;
    let mut dt = data_type(&c.data_type, &name)?;
    // The column's own CHARACTER SET / COLLATE, else the table's default.
    let (mut col_charset, mut col_collation) = (None, None);
    for o in &c.options {
        match &o.option {
            ColumnOption::CharacterSet(cs) => col_charset = Some(charset_named(&cs.to_string())?),
            ColumnOption::Collation(cl) => col_collation = Some(collation_named(&cl.to_string())?),
            _ => {}
        }
    }
    match charset_and_collation(col_charset, col_collation)? {
        Some(coll) => dt = with_collation(dt, coll),
        None if table_collation != Collation::Utf8mb4GeneralCi => {
            dt = with_collation(dt, table_collation)
        }
        None => {}
    }
    varchar_bound(&dt, &name)?;
    let mut nullable = true;
    let mut explicit_null = false;
    let mut default_expr = None;
    let mut auto_increment = false;
    let mut on_update = false;
    let serial = is_serial(&c.data_type);
    if serial {
        nullable = false;
        auto_increment = true;
        keys.indexes.push((None, vec![part(pos)], true, false));
    }
    let mut comment = None;
    // (expression, STORED, no VIRTUAL / STORED word yet), and whether it was the last option.
    let mut generated: Option<(ast::Expr, bool, bool)> = None;
    let mut last_was_generated = false;
    for opt in &c.options {
        match &opt.option {
            ColumnOption::Null => {
                nullable = true;
                explicit_null = true;
            }
            ColumnOption::NotNull => nullable = false,
            ColumnOption::Default(e) => default_expr = Some(e.clone()),
            ColumnOption::DialectSpecific(toks)
                if toks.iter().any(|t| matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("AUTO_INCREMENT"))) =>
            {
                auto_increment = true
            }
            ColumnOption::PrimaryKey(_) => {
                if keys.primary.is_some() {
                    return Err(multiple_pk());
                }
                keys.primary = Some((vec![part(pos)], true));
            }
            ColumnOption::Unique(_) => keys.indexes.push((None, vec![part(pos)], true, false)),
            ColumnOption::Comment(s) => comment = Some(s.clone()),
            ColumnOption::OnUpdate(e) => {
                if !is_current_timestamp(e) {
                    return Err(invalid_on_update(&name));
                }
                on_update = true;
            }
            ColumnOption::CharacterSet(_) | ColumnOption::Collation(_) => {}
            ColumnOption::Check(ck) => {
                if ck.enforced == Some(false) || ck.no_inherit {
                    return Err(unsupported("NOT ENFORCED / NO INHERIT CHECK constraints"));
                }
                if ck.name.is_some() {
                    // MariaDB has no named column-level constraint.
                    return Err(Error::parse("CONSTRAINT", 1));
                }
                keys.checks
                    .push((None, Some(c.name.value.clone()), (*ck.expr).clone()));
            }
            ColumnOption::ForeignKey(fk) => {
                let mut fk = fk.clone();
                if fk.columns.is_empty() {
                    fk.columns = vec![c.name.clone()];
                }
                keys.indexes
                    .push((fk::given_name(&fk), vec![part(pos)], false, true));
                keys.fks.push(fk);
            }
            ColumnOption::Generated {
                generation_expr: Some(e),
                generation_expr_mode,
                ..
            } if generated.is_none() => {
                let stored = matches!(
                    generation_expr_mode,
                    Some(ast::GeneratedExpressionMode::Stored)
                );
                generated = Some((e.clone(), stored, generation_expr_mode.is_none()));
                last_was_generated = true;
                continue;
            }
            ColumnOption::Generated { .. } => return Err(Error::parse(&opt.option.to_string(), 1)),
            ColumnOption::DialectSpecific(toks) if is_zerofill(toks) => {
                // Part of the type in MariaDB's grammar: right after it, once.
                if !std::ptr::eq(opt, &c.options[0]) {
                    return Err(Error::parse("zerofill", 1));
                }
                dt = zerofill_type(dt)?;
            }
            ColumnOption::DialectSpecific(toks) if is_persistent(toks) => {
                match &mut generated {
                    Some((_, stored, open)) if last_was_generated && *open => {
                        *stored = true;
                        *open = false;
                    }
                    _ => return Err(Error::parse("PERSISTENT", 1)),
                }
            }
            other => return Err(unsupported(&format!("the column option {other}"))),
        }
        last_was_generated = false;
    }
    if generated.is_some() {
        // MariaDB's grammar has none of these on a generated column.
        for opt in &c.options {
            let bad = match &opt.option {
                ColumnOption::Null
                | ColumnOption::NotNull
                | ColumnOption::Default(_)
                | ColumnOption::OnUpdate(_)
                | ColumnOption::PrimaryKey(_) => true,
                ColumnOption::DialectSpecific(toks) => !is_persistent(toks) && !is_zerofill(toks),
                _ => false,
            };
            if bad {
                return Err(Error::parse(&opt.option.to_string(), 1));
            }
        }
    }
    check_members(env, &dt, &name)?;
    if matches!(c.data_type, ast::DataType::JSON) {
        // MariaDB's JSON: LONGTEXT in utf8mb4_bin whatever the table's collation, checked
        // with json_valid() unless the column has a CHECK of its own.
        dt = DataType::Text {
            max_bytes: 4_294_967_295,
            collation: Collation::Utf8mb4Bin,
        };
        if !keys
            .checks
            .iter()
            .any(|(_, c, _)| c.as_deref() == Some(name.as_str()))
        {
            keys.checks
                .push((None, Some(name.clone()), json_valid_check(&name)?));
        }
    }
    if on_update && !matches!(dt, DataType::DateTime { .. } | DataType::Timestamp { .. }) {
        return Err(invalid_on_update(&name));
    }
    if auto_increment {
        if !(dt.is_integer() || dt.is_float()) {
            return Err(Error::new(
                ErrorCode::WrongFieldWithGroup,
                format!("Incorrect column specifier for column '{name}'"),
            ));
        }
        if !explicit_null {
            nullable = false;
        }
    }
    let mut col = ColumnDef {
        name,
        data_type: dt,
        nullable,
        default: ColumnDefault::None,
        auto_increment,
        on_update_current_timestamp: on_update,
        comment,
        generated: None,
    };
    col.default = column_default(env, &col, default_expr.as_ref())?;
    if let Some((e, stored, _)) = generated {
        col.generated = Some(crate::storage::GeneratedDef {
            expr: crate::sql::exec::gencol::expr_text(env, &e, &col.name)?,
            stored,
        });
    }
    Ok(col)
}

/// MariaDB's `PERSISTENT` (STORED) after a generated column's expression, as the dialect
/// hands it over (`parse/dialect.rs`).
fn is_persistent(toks: &[Token]) -> bool {
    matches!(toks, [Token::Word(w)] if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("PERSISTENT"))
}

/// The type `SERIAL` (an alias of BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE).
fn is_serial(dt: &ast::DataType) -> bool {
    matches!(dt, ast::DataType::Custom(name, mods) if mods.is_empty() && name.to_string().eq_ignore_ascii_case("serial"))
}

/// `ZEROFILL [UNSIGNED]` as the dialect hands it over (`parse/dialect.rs`).
fn is_zerofill(toks: &[Token]) -> bool {
    matches!(toks.first(), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("ZEROFILL"))
}

/// The type with ZEROFILL: an integer shown zero-padded to its display width, which makes it
/// UNSIGNED. DECIMAL / FLOAT / DOUBLE ZEROFILL are not supported; on other types the word
/// is a syntax error (as in MariaDB's grammar; YEAR is always shown with 4 digits).
fn zerofill_type(dt: DataType) -> Result<DataType> {
    let z = |display: IntDisplay| IntDisplay {
        zerofill: true,
        ..display
    };
    Ok(match dt {
        DataType::TinyInt { display, .. } => DataType::TinyInt {
            unsigned: true,
            display: z(display),
        },
        DataType::SmallInt { display, .. } => DataType::SmallInt {
            unsigned: true,
            display: z(display),
        },
        DataType::MediumInt { display, .. } => DataType::MediumInt {
            unsigned: true,
            display: z(display),
        },
        DataType::Int { display, .. } => DataType::Int {
            unsigned: true,
            display: z(display),
        },
        DataType::BigInt { display, .. } => DataType::BigInt {
            unsigned: true,
            display: z(display),
        },
        DataType::Year => DataType::Year,
        DataType::Decimal { .. } | DataType::Float { .. } | DataType::Double { .. } => {
            return Err(unsupported("ZEROFILL on DECIMAL, FLOAT or DOUBLE columns"))
        }
        _ => return Err(Error::parse("zerofill", 1)),
    })
}

/// `json_valid(`col`)`, the CHECK a JSON column gets.
fn json_valid_check(col: &str) -> Result<ast::Expr> {
    let text = format!("json_valid(`{}`)", col.replace('`', "``"));
    sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|_| Error::parse(&text, 1))
}

fn invalid_on_update(col: &str) -> Error {
    Error::new(
        ErrorCode::InvalidDefault,
        format!("Invalid ON UPDATE clause for '{col}' column"),
    )
}

fn multiple_pk() -> Error {
    Error::new(ErrorCode::MultiplePriKey, "Multiple primary key defined")
}

fn part(column: usize) -> IndexPart {
    IndexPart {
        column,
        prefix_len: None,
    }
}

/// The default of a column from its DEFAULT clause (a constant, converted strictly).
fn column_default(env: &Env<'_>, col: &ColumnDef, e: Option<&ast::Expr>) -> Result<ColumnDefault> {
    let Some(e) = e else {
        return Ok(if col.nullable && !col.auto_increment {
            ColumnDefault::Value(Value::Null)
        } else {
            ColumnDefault::None
        });
    };
    if is_current_timestamp(e) {
        if !matches!(
            col.data_type,
            DataType::DateTime { .. } | DataType::Timestamp { .. }
        ) {
            return Err(invalid_default(&col.name));
        }
        return Ok(ColumnDefault::CurrentTimestamp);
    }
    if !crate::sql::exec::default_expr::is_literal(e) {
        // Evaluated for each row (`exec/default_expr.rs`); checked once the table is whole.
        if col.auto_increment {
            return Err(invalid_default(&col.name));
        }
        let text = crate::sql::exec::default_expr::expr_text(env, e, &col.name)?;
        return Ok(ColumnDefault::Expr(text));
    }
    let mut b = Binder::new(env, &[], None);
    let (x, _) = b.bind(e).map_err(|_| invalid_default(&col.name))?;
    let v = x.eval(&RowCtx::EMPTY, env)?;
    if v.is_null() {
        if !col.nullable || col.auto_increment {
            return Err(invalid_default(&col.name));
        }
        return Ok(ColumnDefault::Value(Value::Null));
    }
    if col.auto_increment {
        return Err(invalid_default(&col.name));
    }
    let v = crate::sql::exec::default_expr::store_strictly(v, col)
        .map_err(|_| invalid_default(&col.name))?;
    // A TIMESTAMP default is kept in UTC (as its values are; SHOW converts it back): a
    // literal given in a session time zone other than SYSTEM is read in that zone (MariaDB).
    if let (DataType::Timestamp { .. }, Value::DateTime(dt), Some(z)) =
        (&col.data_type, &v, env.zone())
    {
        if *dt != crate::types::DateTime::default() {
            return Ok(ColumnDefault::Value(Value::DateTime(z.to_utc(dt))));
        }
    }
    Ok(ColumnDefault::Value(v))
}

/// Index parts from `(col [(len)] [ASC|DESC], …)`.
fn index_parts(cols: &[ast::IndexColumn], columns: &[ColumnDef]) -> Result<Vec<IndexPart>> {
    let mut parts = Vec::with_capacity(cols.len());
    for ic in cols {
        let (name, prefix) = match &ic.column.expr {
            ast::Expr::Identifier(id) => (id.value.clone(), None),
            ast::Expr::Function(f) => {
                let len = match &f.args {
                    ast::FunctionArguments::List(l) => match l.args.as_slice() {
                        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(
                            ast::Expr::Value(v),
                        ))] => match &v.value {
                            ast::Value::Number(n, _) => n.parse::<u32>().ok(),
                            _ => None,
                        },
                        _ => None,
                    },
                    _ => None,
                };
                let Some(len) = len else {
                    return Err(unsupported("functional index parts"));
                };
                (f.name.to_string().trim_matches('`').to_string(), Some(len))
            }
            other => {
                let Some(n) = ident_of(other) else {
                    return Err(unsupported("functional index parts"));
                };
                (n.to_string(), None)
            }
        };
        let Some(pos) = columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&name))
        else {
            return Err(Error::new(
                ErrorCode::KeyColumnDoesNotExist,
                format!("Key column '{name}' doesn't exist in table"),
            ));
        };
        let dt = &columns[pos].data_type;
        let is_lob = matches!(dt, DataType::Text { .. } | DataType::Blob { .. });
        if is_lob && prefix.is_none() {
            return Err(Error::new(
                ErrorCode::BlobKeyWithoutLength,
                format!("BLOB/TEXT column '{name}' used in key specification without a key length"),
            ));
        }
        if prefix.is_some() && !(dt.is_text() || dt.is_binary()) {
            return Err(Error::new(
                ErrorCode::WrongArguments,
                "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys",
            ));
        }
        parts.push(IndexPart {
            column: pos,
            prefix_len: prefix,
        });
    }
    Ok(parts)
}

/// The parts of a key constraint that are not kept: refused (see `parse/surface.rs`).
fn check_key_clauses(
    index_type: Option<&ast::IndexType>,
    columns: &[ast::IndexColumn],
    include: &[ast::Ident],
    index_options: &[ast::IndexOption],
    characteristics: &Option<ast::ConstraintCharacteristics>,
) -> Result<()> {
    crate::sql::parse::surface::index_type(index_type)?;
    crate::sql::parse::surface::index_columns(columns)?;
    crate::sql::parse::surface::index_options_clause(index_options)?;
    if !include.is_empty() || characteristics.is_some() {
        return Err(unsupported("INCLUDE / DEFERRABLE"));
    }
    Ok(())
}

fn table_constraints(
    constraints: &[TableConstraint],
    columns: &[ColumnDef],
    keys: &mut Keys,
) -> Result<()> {
    for tc in constraints {
        match tc {
            TableConstraint::PrimaryKey(pk) => check_key_clauses(
                pk.index_type.as_ref(),
                &pk.columns,
                &pk.include,
                &pk.index_options,
                &pk.characteristics,
            )?,
            TableConstraint::Unique(u) => {
                check_key_clauses(
                    u.index_type.as_ref(),
                    &u.columns,
                    &u.include,
                    &u.index_options,
                    &u.characteristics,
                )?;
                if u.nulls_distinct != ast::NullsDistinctOption::None {
                    return Err(unsupported("NULLS [NOT] DISTINCT"));
                }
            }
            TableConstraint::Index(i) => check_key_clauses(
                i.index_type.as_ref(),
                &i.columns,
                &[],
                &i.index_options,
                &None,
            )?,
            _ => {}
        }
        match tc {
            TableConstraint::PrimaryKey(pk) => {
                if keys.primary.is_some() {
                    return Err(multiple_pk());
                }
                keys.primary = Some((index_parts(&pk.columns, columns)?, false));
            }
            TableConstraint::Unique(u) => {
                let name = u
                    .index_name
                    .as_ref()
                    .or(u.name.as_ref())
                    .map(|i| i.value.clone());
                keys.indexes
                    .push((name, index_parts(&u.columns, columns)?, true, false));
            }
            TableConstraint::Index(i) => {
                let name = i.name.as_ref().map(|i| i.value.clone());
                keys.indexes
                    .push((name, index_parts(&i.columns, columns)?, false, false));
            }
            TableConstraint::ForeignKey(f) => {
                let mut parts = Vec::with_capacity(f.columns.len());
                for c in &f.columns {
                    let Some(pos) = columns
                        .iter()
                        .position(|x| x.name.eq_ignore_ascii_case(&c.value))
                    else {
                        return Err(Error::new(
                            ErrorCode::KeyColumnDoesNotExist,
                            format!("Key column '{}' doesn't exist in table", c.value),
                        ));
                    };
                    parts.push(part(pos));
                }
                keys.indexes.push((fk::given_name(f), parts, false, true));
                keys.fks.push(f.clone());
            }
            TableConstraint::Check(ck) => {
                if ck.enforced == Some(false) || ck.no_inherit {
                    return Err(unsupported("NOT ENFORCED / NO INHERIT CHECK constraints"));
                }
                keys.checks.push((
                    ck.name.as_ref().map(|n| n.value.clone()),
                    None,
                    (*ck.expr).clone(),
                ));
            }
            _ => return Err(unsupported("FULLTEXT / SPATIAL indexes")),
        }
    }
    Ok(())
}

/// A free index name: the first column's name, then `_2`, `_3`… (as MySQL does).
fn index_name(taken: &[IndexDef], wanted: Option<String>, first_col: &str) -> Result<String> {
    if let Some(n) = wanted {
        if n.eq_ignore_ascii_case("PRIMARY")
            || taken.iter().any(|i| i.name.eq_ignore_ascii_case(&n))
        {
            return Err(Error::new(
                ErrorCode::DupKeyName,
                format!("Duplicate key name '{n}'"),
            ));
        }
        return Ok(n);
    }
    let mut name = first_col.to_string();
    let mut k = 2;
    while name.eq_ignore_ascii_case("PRIMARY")
        || taken.iter().any(|i| i.name.eq_ignore_ascii_case(&name))
    {
        name = format!("{first_col}_{k}");
        k += 1;
    }
    Ok(name)
}

fn table_options(ct: &ast::CreateTable) -> &[ast::SqlOption] {
    match &ct.table_options {
        ast::CreateTableOptions::None => &[],
        ast::CreateTableOptions::With(o)
        | ast::CreateTableOptions::Options(o)
        | ast::CreateTableOptions::Plain(o)
        | ast::CreateTableOptions::TableProperties(o) => o,
    }
}

/// The default collation the table options give the character columns (`[DEFAULT] CHARSET`,
/// `[DEFAULT] COLLATE`); the last one given wins, as in MySQL.
fn table_collation(ct: &ast::CreateTable, db_default: Collation) -> Result<Collation> {
    let (mut cs, mut coll) = (None, None);
    for o in table_options(ct) {
        if let ast::SqlOption::KeyValue { key, value } = o {
            let k = key.value.to_ascii_uppercase();
            let text = value.to_string();
            match k.trim_start_matches("DEFAULT ") {
                "CHARSET" | "CHARACTER SET" => cs = Some(charset_named(&text)?),
                "COLLATE" => coll = Some(collation_named(&text)?),
                _ => {}
            }
        }
    }
    Ok(charset_and_collation(cs, coll)?.unwrap_or(db_default))
}

/// Table options: ENGINE (InnoDB: the only engine; others are refused, unknown ones 1286),
/// AUTO_INCREMENT, COMMENT, the default character set and collation (see
/// [`table_collation`]). Every other option (ROW_FORMAT, KEY_BLOCK_SIZE, STATS_…,
/// PACK_KEYS…) would not be kept: 1235.
pub(super) fn apply_table_options(
    env: &Env<'_>,
    ct: &ast::CreateTable,
    def: &mut TableDef,
) -> Result<()> {
    for o in table_options(ct) {
        match o {
            ast::SqlOption::NamedParenthesizedList(l)
                if l.key.value.eq_ignore_ascii_case("ENGINE") && l.values.is_empty() =>
            {
                if let Some(n) = &l.name {
                    def.engine = engine_name(&n.value)?;
                }
            }
            ast::SqlOption::KeyValue { key, value } => {
                let k = key.value.to_ascii_uppercase();
                let text = value.to_string();
                let text = text.trim_matches(['\'', '"', '`']);
                match k.trim_start_matches("DEFAULT ") {
                    "ENGINE" => def.engine = engine_name(text)?,
                    "AUTO_INCREMENT" => {
                        def.auto_increment_start = text.parse::<u64>().unwrap_or(1).max(1)
                    }
                    "COMMENT" => def.comment = Some(text.to_string()),
                    "CHARSET" | "CHARACTER SET" | "COLLATE" => {}
                    // NO_DIR_IN_CREATE: ignored with a warning, as MariaDB does.
                    dir @ ("DATA DIRECTORY" | "INDEX DIRECTORY")
                        if env.sql_mode().split(',').any(|m| m == "NO_DIR_IN_CREATE") =>
                    {
                        env.warn(
                            "Warning",
                            ErrorCode::WarnOptionIgnored,
                            format!("<{dir}> option ignored"),
                        );
                    }
                    other => return Err(unsupported(&format!("the table option {other}"))),
                }
            }
            ast::SqlOption::Comment(c) => def.comment = Some(comment_text(c)),
            other => return Err(unsupported(&format!("the table option {other}"))),
        }
    }
    if let Some(c) = &ct.comment {
        def.comment = Some(comment_text(c));
    }
    Ok(())
}

fn comment_text(c: &ast::CommentDef) -> String {
    match c {
        ast::CommentDef::WithEq(s) | ast::CommentDef::WithoutEq(s) => s.clone(),
    }
}

/// ENGINE: every table lives in the one transactional engine, which is InnoDB's model (row
/// locks, MVCC, crash safety). Another engine's semantics (MyISAM's table locks and no
/// transactions, MEMORY's volatility…) would not be honoured: refused; a name that is no
/// engine at all is 1286, as in MariaDB.
fn engine_name(given: &str) -> Result<String> {
    match given.to_ascii_lowercase().as_str() {
        "innodb" => Ok("InnoDB".into()),
        "myisam" | "memory" | "heap" | "aria" | "csv" | "archive" | "blackhole" | "merge"
        | "mrg_myisam" | "federated" | "federatedx" | "sequence" | "s3" | "spider" | "connect"
        | "rocksdb" | "tokudb" | "columnstore" | "mroonga" | "oqgraph" | "sphinx"
        | "performance_schema" => Err(unsupported(&format!(
            "ENGINE={given} (every table is InnoDB-like: transactional, row-locked)"
        ))),
        _ => Err(Error::new(
            ErrorCode::UnknownStorageEngine,
            format!("Unknown storage engine '{given}'"),
        )),
    }
}

/// Build the table definition of a CREATE TABLE.
pub fn table_def(env: &Env<'_>, ct: &ast::CreateTable, db: &str, name: &str) -> Result<TableDef> {
    table_def_merged(env, ct, db, name, Vec::new()).map(|(def, _)| def)
}

/// The table of `CREATE TABLE t (declared) SELECT …` (`create_select.rs`), as MariaDB merges the
/// two: the declared columns the query does not produce come first, then the query's columns
/// in its order, each taking the declared definition of the same name if there is one. Keys and
/// constraints name the merged columns. Also the position of each `selected` column.
pub fn table_def_merged(
    env: &Env<'_>,
    ct: &ast::CreateTable,
    db: &str,
    name: &str,
    selected: Vec<ColumnDef>,
) -> Result<(TableDef, Vec<usize>)> {
    if ct.columns.is_empty() && selected.is_empty() {
        return Err(Error::new(
            ErrorCode::TableMustHaveColumns,
            "A table must have at least 1 column",
        ));
    }
    let mut keys = Keys::default();
    let mut columns: Vec<ColumnDef> = Vec::with_capacity(ct.columns.len());
    let collation = table_collation(ct, env.ctx.engine.database_collation(db))?;
    for (i, c) in ct.columns.iter().enumerate() {
        let col = column_def(env, c, i, &mut keys, collation)?;
        if columns
            .iter()
            .any(|x| x.name.eq_ignore_ascii_case(&col.name))
        {
            return Err(Error::new(
                ErrorCode::DupFieldName,
                format!("Duplicate column name '{}'", col.name),
            ));
        }
        columns.push(col);
    }
    let positions = merge_selected(&mut columns, &mut keys, selected);
    table_constraints(&ct.constraints, &columns, &mut keys)?;
    keys.settle_implicit();
    let fks = std::mem::take(&mut keys.fks);
    let checks = std::mem::take(&mut keys.checks);
    let primary_key = match keys.primary {
        None => None,
        Some((parts, _)) => {
            for p in &parts {
                let c = &mut columns[p.column];
                if c.nullable && matches!(c.default, ColumnDefault::Value(Value::Null)) {
                    c.default = ColumnDefault::None;
                }
                c.nullable = false;
            }
            Some(IndexDef {
                name: "PRIMARY".into(),
                parts,
                unique: true,
                implicit: false,
            })
        }
    };
    let mut indexes: Vec<IndexDef> = Vec::new();
    for (name, parts, unique, implicit) in keys.indexes {
        let first = columns[parts[0].column].name.clone();
        let name = index_name(&indexes, name, &first)?;
        indexes.push(IndexDef {
            name,
            parts,
            unique,
            implicit,
        });
    }
    let mut def = TableDef {
        name: name.to_string(),
        columns,
        primary_key,
        indexes,
        engine: "InnoDB".into(),
        auto_increment_start: 1,
        comment: None,
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        default_collation: collation,
    };
    check_auto_increment(&def)?;
    row_size::check(&def)?;
    apply_table_options(env, ct, &mut def)?;
    crate::sql::exec::gencol::validate(env, db, &def)?;
    crate::sql::exec::default_expr::validate(env, db, &def)?;
    if !checks.is_empty() {
        crate::sql::exec::check::add_checks(env, db, &mut def, &checks)?;
    }
    if !fks.is_empty() {
        fk::add_foreign_keys(env, db, &mut def, &fks)?;
        crate::sql::exec::gencol::refuse_foreign_keys(&def)?;
    }
    if !def.checks.is_empty() && !def.foreign_keys.is_empty() {
        crate::sql::exec::check::check_against_foreign_keys(&def)?;
    }
    def.sort_keys();
    Ok((def, positions))
}

/// Merge the query's columns into the declared ones (see [`table_def_merged`]), moving the
/// column-level keys' parts along; the query's columns' positions.
fn merge_selected(
    columns: &mut Vec<ColumnDef>,
    keys: &mut Keys,
    selected: Vec<ColumnDef>,
) -> Vec<usize> {
    if selected.is_empty() {
        return Vec::new();
    }
    let declared = std::mem::take(columns);
    let matched = |c: &ColumnDef| {
        selected
            .iter()
            .any(|s| s.name.eq_ignore_ascii_case(&c.name))
    };
    let mut moved = vec![0usize; declared.len()];
    let mut taken: Vec<Option<ColumnDef>> = declared.into_iter().map(Some).collect();
    for (i, slot) in taken.iter_mut().enumerate() {
        if slot.as_ref().is_some_and(|c| !matched(c)) {
            moved[i] = columns.len();
            columns.extend(slot.take());
        }
    }
    let mut positions = Vec::with_capacity(selected.len());
    for s in selected {
        let own = taken.iter().position(|d| {
            d.as_ref()
                .is_some_and(|d| d.name.eq_ignore_ascii_case(&s.name))
        });
        positions.push(columns.len());
        match own {
            Some(i) => {
                moved[i] = columns.len();
                columns.extend(taken[i].take());
            }
            None => columns.push(s),
        }
    }
    let remap = |parts: &mut Vec<IndexPart>| {
        for p in parts.iter_mut() {
            p.column = moved[p.column];
        }
    };
    if let Some((parts, _)) = &mut keys.primary {
        remap(parts);
    }
    for (_, parts, _, _) in &mut keys.indexes {
        remap(parts);
    }
    positions
}

fn check_auto_increment(def: &TableDef) -> Result<()> {
    let ai: Vec<usize> = (0..def.columns.len())
        .filter(|&i| def.columns[i].auto_increment)
        .collect();
    let bad = || {
        Error::new(
            ErrorCode::WrongAutoKey,
            "Incorrect table definition; there can be only one auto column and it must be defined as a key",
        )
    };
    match ai.as_slice() {
        [] => Ok(()),
        [c] => {
            let leads = |idx: &IndexDef| idx.parts.first().is_some_and(|p| p.column == *c);
            if def.primary_key.iter().any(leads) || def.indexes.iter().any(leads) {
                Ok(())
            } else {
                Err(bad())
            }
        }
        _ => Err(bad()),
    }
}

pub fn create_table(env: &Env<'_>, ct: &ast::CreateTable) -> Result<()> {
    if ct.temporary {
        return Err(unsupported("TEMPORARY tables"));
    }
    if ct.query.is_some() {
        return Err(unsupported("CREATE TABLE … SELECT"));
    }
    // OR REPLACE: the caller dropped the table of the name first (`sql::drop_for_replace`).
    let (db, name) = plan::split_name(&ct.name, env.sess.db)?;
    check_ident(&name)?;
    plan::check_table_priv(env, &db, &name, Privs::CREATE)?;
    if is_system_schema(&db) {
        return Err(unsupported(&format!("creating tables in {db}")));
    }
    let def = match &ct.like {
        Some(ast::CreateTableLikeKind::Plain(l))
        | Some(ast::CreateTableLikeKind::Parenthesized(l)) => {
            let (sdb, sname) = plan::split_name(&l.name, env.sess.db)?;
            plan::check_table_priv(env, &sdb, &sname, Privs::SELECT)?;
            // The session's temporary table of the name first (`like_temporary_text`).
            let src = match env.sess.temp_table(&sdb, &sname) {
                Some(t) => t.clone(),
                None => env.ctx.engine.table(&sdb, &sname)?,
            };
            like_def(&src.def(), &name)
        }
        None => table_def(env, ct, &db, &name)?,
    };
    let created = env.ctx.engine.create_table(&db, def, ct.if_not_exists)?;
    if !created {
        env.warn(
            "Note",
            ErrorCode::TableExists,
            format!("Table '{name}' already exists"),
        );
    }
    Ok(())
}

/// The definition `CREATE TABLE name LIKE src` creates: src's, without its AUTO_INCREMENT
/// counter and, as InnoDB, without its FOREIGN KEYs.
fn like_def(src: &TableDef, name: &str) -> TableDef {
    let mut def = src.clone();
    def.name = name.to_string();
    def.auto_increment_start = 1;
    def.foreign_keys = Vec::new();
    def
}

/// `CREATE TABLE base LIKE tmp` where `tmp` is one of the session's TEMPORARY tables: the text
/// to log in place of the statement (a replica has no `tmp`), the new table's definition as
/// SHOW CREATE TABLE prints it, as MariaDB logs it. None for any other CREATE TABLE.
pub fn like_temporary_text(sess: &SessionState, ct: &ast::CreateTable) -> Option<String> {
    let (Some(ast::CreateTableLikeKind::Plain(l))
    | Some(ast::CreateTableLikeKind::Parenthesized(l))) = &ct.like
    else {
        return None;
    };
    if ct.temporary || sess.temp_tables.is_empty() {
        return None;
    }
    let (sdb, sname) = plan::split_name(&l.name, sess.db.as_deref()).ok()?;
    let (db, name) = plan::split_name(&ct.name, sess.db.as_deref()).ok()?;
    let src = sess
        .temp_tables
        .iter()
        .find(|t| t.db() == sdb && t.name() == sname)?;
    let text = super::show::create_table_text(&like_def(&src.def(), &name), 1, &db);
    // OR REPLACE's drop is logged before, as a statement of its own (`sql::drop_for_replace`).
    let verb = match ct.if_not_exists {
        true => "CREATE TABLE IF NOT EXISTS",
        false => "CREATE TABLE",
    };
    let qualified = format!(
        "{verb} `{}`.`{}`",
        db.replace('`', "``"),
        name.replace('`', "``")
    );
    Some(text.replacen(&format!("CREATE TABLE `{name}`"), &qualified, 1))
}

pub fn create_index(env: &Env<'_>, ci: &ast::CreateIndex) -> Result<()> {
    let (db, table) = plan::split_name(&ci.table_name, env.sess.db)?;
    plan::check_table_priv(env, &db, &table, Privs::INDEX)?;
    let t = env.ctx.engine.table(&db, &table)?;
    let def = t.def();
    let parts = index_parts(&ci.columns, &def.columns)?;
    let first = def.columns[parts[0].column].name.clone();
    let wanted = ci
        .name
        .as_ref()
        .map(|n| n.to_string().trim_matches('`').to_string());
    let name = match index_name(&def.indexes, wanted, &first) {
        Ok(n) => n,
        Err(e) if ci.if_not_exists => {
            env.warn("Note", e.code(), e.message());
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let index = IndexDef {
        name,
        parts,
        unique: ci.unique,
        implicit: false,
    };
    // A key made for a FOREIGN KEY that the new one serves goes (`implicit_index.rs`).
    let replaced: Vec<String> = implicit_index::replaced_by(&def.indexes, &index)
        .into_iter()
        .map(|i| i.name.clone())
        .collect();
    env.ctx.engine.create_index(&db, &table, index)?;
    for name in replaced {
        env.ctx.engine.drop_index(&db, &table, &name)?;
    }
    Ok(())
}

/// `RENAME TABLE a TO b, c TO d…`: one rename after the other (so `a TO tmp, b TO a, tmp TO
/// b` swaps), all or nothing: a failing pair undoes the ones before it (the statement's undo
/// journal). Each rename is a switch of the catalog to a table object with the same id
/// (`storage/rebuild.rs`).
pub fn rename_tables(env: &Env<'_>, r: &RenameTable) -> Result<()> {
    let db_of = |d: &Option<String>| -> Result<String> {
        match d {
            Some(d) => Ok(d.clone()),
            None => env
                .sess
                .db
                .map(str::to_string)
                .ok_or_else(|| Error::new(ErrorCode::NoDb, "No database selected")),
        }
    };
    for ((from_db, from), (to_db, to)) in &r.pairs {
        let (from_db, to_db) = (db_of(from_db)?, db_of(to_db)?);
        plan::check_table_priv(env, &from_db, from, Privs::ALTER | Privs::DROP)?;
        plan::check_table_priv(env, &to_db, to, Privs::CREATE | Privs::INSERT)?;
        check_ident(to)?;
        if is_system_schema(&from_db) || is_system_schema(&to_db) {
            return Err(unsupported("renaming tables of system schemas"));
        }
        let t = env.ctx.engine.table(&from_db, from)?;
        let mut def = (*t.def()).clone();
        def.name = to.clone();
        fk::rename_table(env, &from_db, from, &to_db, &mut def)?;
        let rows = t.committed_rows()?;
        env.ctx
            .engine
            .replace_table(&t, &to_db, def, rows, t.auto_increment_peek())?;
    }
    Ok(())
}

pub fn drop_index(
    env: &Env<'_>,
    names: &[ast::ObjectName],
    table: &ast::ObjectName,
    if_exists: bool,
) -> Result<()> {
    let (db, t) = plan::split_name(table, env.sess.db)?;
    plan::check_table_priv(env, &db, &t, Privs::INDEX)?;
    for n in names {
        let name = n.to_string().trim_matches('`').to_string();
        if env.ctx.engine.any_foreign_keys() {
            let table = env.ctx.engine.table(&db, &t)?;
            let old = table.def();
            let mut new = (*old).clone();
            new.indexes.retain(|i| !i.name.eq_ignore_ascii_case(&name));
            if new.indexes.len() != old.indexes.len() {
                fk::check_alter(env, &db, &old, &new, &db)?;
            }
        }
        match env.ctx.engine.drop_index(&db, &t, &name) {
            Err(e) if if_exists && e.code() == ErrorCode::CantDropFieldOrKey => {
                env.warn("Note", e.code(), e.message())
            }
            other => other?,
        }
    }
    Ok(())
}

pub fn drop_tables(env: &Env<'_>, names: &[ast::ObjectName], if_exists: bool) -> Result<()> {
    if env.ctx.engine.any_foreign_keys() && fk::checks_on(env) {
        // A table other tables' FOREIGN KEYs reference cannot go (1451), unless those tables
        // are dropped before it by this statement. Checked first: all or nothing.
        let mut gone: Vec<(String, String)> = Vec::new();
        for n in names {
            let (db, t) = plan::split_name(n, env.sess.db)?;
            let blocked = fk::referencing_fks(env, &db, &t)
                .iter()
                .any(|(cdb, ct, _)| !gone.iter().any(|(d, x)| d == cdb && x == ct));
            if blocked {
                return Err(crate::sql::exec::fk::parent_table_referenced());
            }
            gone.push((db, t));
        }
    }
    let mut missing = Vec::new();
    for n in names {
        let (db, t) = plan::split_name(n, env.sess.db)?;
        plan::check_table_priv(env, &db, &t, Privs::DROP)?;
        view::refuse_view_target(env, &db, &t, "DROP TABLE")?;
        let dropped = if env.ctx.engine.database_exists(&db) {
            env.ctx.engine.drop_table(&db, &t, true)?
        } else {
            false
        };
        if !dropped {
            missing.push(format!("{db}.{t}"));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let msg = format!("Unknown table '{}'", missing.join(","));
    if if_exists {
        env.warn("Note", ErrorCode::BadTable, msg);
        return Ok(());
    }
    Err(Error::new(ErrorCode::BadTable, msg))
}

pub fn truncate(env: &Env<'_>, t: &ast::Truncate) -> Result<()> {
    for target in &t.table_names {
        let (db, name) = plan::split_name(&target.name, env.sess.db)?;
        plan::check_table_priv(env, &db, &name, Privs::DROP)?;
        if env.ctx.engine.any_foreign_keys() && fk::checks_on(env) {
            if let Some((cdb, ct, f)) = fk::referencing_fks(env, &db, &name).first() {
                return Err(crate::sql::exec::fk::truncate_referenced(cdb, ct, f));
            }
        }
        env.ctx.engine.truncate_table(&db, &name)?;
    }
    Ok(())
}

/// Does this TRUNCATE name tables of a system schema? (All or none: mixing is refused.)
pub fn truncates_system_tables(sess: &SessionState, t: &ast::Truncate) -> Result<bool> {
    let mut system = 0;
    for target in &t.table_names {
        let (db, _) = plan::split_name(&target.name, sess.db.as_deref())?;
        system += is_system_schema(&db) as usize;
    }
    if system > 0 && system < t.table_names.len() {
        return Err(unsupported(
            "TRUNCATE of system and user tables in one statement",
        ));
    }
    Ok(system > 0)
}

/// TRUNCATE of system-schema tables: resets what they summarise.
pub fn truncate_system(env: &Env<'_>, t: &ast::Truncate) -> Result<()> {
    for target in &t.table_names {
        let (db, name) = plan::split_name(&target.name, env.sess.db)?;
        check_db_access(env, &db)?;
        virtual_tables::truncate(env, &db, &name)?;
    }
    Ok(())
}
