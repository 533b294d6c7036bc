//! Column types as declared in `CREATE TABLE`.

use super::collation::Collation;

/// A declared column type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    TinyInt {
        unsigned: bool,
        /// Declared TINYINT(1) (or BOOL / BOOLEAN): shown as `tinyint(1)` and sent with display
        /// length 1, which clients read as a boolean (Connector/J's tinyInt1isBit, ORMs'
        /// reflection). Other integer display widths are not kept (see `ddl::column_type`).
        bool_width: bool,
    },
    SmallInt {
        unsigned: bool,
    },
    MediumInt {
        unsigned: bool,
    },
    Int {
        unsigned: bool,
    },
    BigInt {
        unsigned: bool,
    },
    /// DECIMAL(precision, scale), exact.
    Decimal {
        precision: u8,
        scale: u8,
    },
    /// FLOAT (single precision); `m_d` is a declared FLOAT(M,D): values rounded to D
    /// decimals and bounded by M digits, shown with exactly D decimals.
    Float {
        unsigned: bool,
        m_d: Option<(u8, u8)>,
    },
    /// DOUBLE / REAL / DOUBLE PRECISION, with the same attributes as `Float`.
    Double {
        unsigned: bool,
        m_d: Option<(u8, u8)>,
    },
    /// CHAR(n): n characters, padded with spaces on store, trailing spaces stripped on read.
    Char {
        len: u32,
        collation: Collation,
    },
    VarChar {
        len: u32,
        collation: Collation,
    },
    /// TINYTEXT / TEXT / MEDIUMTEXT / LONGTEXT; `max_bytes` is the type's byte limit.
    Text {
        max_bytes: u64,
        collation: Collation,
    },
    Binary {
        len: u32,
    },
    VarBinary {
        len: u32,
    },
    /// TINYBLOB / BLOB / MEDIUMBLOB / LONGBLOB.
    Blob {
        max_bytes: u64,
    },
    Date,
    /// DATETIME(fsp).
    DateTime {
        fsp: u8,
    },
    /// TIMESTAMP(fsp).
    Timestamp {
        fsp: u8,
    },
    /// YEAR(4): 1901..=2155, or 0 for `0000`; the value is an integer (`Value::Int`).
    Year,
    /// ENUM('a', …): one of the members (their text as declared, trailing spaces removed),
    /// or '' (index 0, the error value). The value is the member's text (`Value::Bytes`);
    /// its number is the member's 1-based position (see [`super::enumset`]).
    Enum {
        members: Vec<String>,
        collation: Collation,
    },
    /// SET('a', …): any subset of the members (at most 64), the value their texts in
    /// declaration order joined by commas; its number is the bitmask (member i = bit i).
    Set {
        members: Vec<String>,
        collation: Collation,
    },
    /// TIME(fsp): a signed duration, -838:59:59.999999 ..= 838:59:59.999999 (`Value::Time`).
    Time {
        fsp: u8,
    },
    /// BIT(width), 1..=64 bits; the value is an unsigned integer (`Value::UInt`).
    Bit {
        width: u8,
    },
}

impl DataType {
    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            DataType::TinyInt { .. }
                | DataType::SmallInt { .. }
                | DataType::MediumInt { .. }
                | DataType::Int { .. }
                | DataType::BigInt { .. }
        )
    }

    pub fn is_unsigned(&self) -> bool {
        matches!(
            self,
            DataType::TinyInt { unsigned: true, .. }
                | DataType::SmallInt { unsigned: true }
                | DataType::MediumInt { unsigned: true }
                | DataType::Int { unsigned: true }
                | DataType::BigInt { unsigned: true }
        )
    }

    /// The type with its display attributes dropped (TINYINT(1) is TINYINT): what decides
    /// whether two columns store the same values, e.g. for a FOREIGN KEY.
    pub fn storage(&self) -> DataType {
        match self {
            DataType::TinyInt { unsigned, .. } => DataType::TinyInt {
                unsigned: *unsigned,
                bool_width: false,
            },
            t => t.clone(),
        }
    }

    /// FLOAT without attributes.
    pub const FLOAT: DataType = DataType::Float {
        unsigned: false,
        m_d: None,
    };
    /// DOUBLE without attributes.
    pub const DOUBLE: DataType = DataType::Double {
        unsigned: false,
        m_d: None,
    };

    /// FLOAT(M,D) / DOUBLE(M,D)'s (M, D); None for every other type.
    pub fn float_m_d(&self) -> Option<(u8, u8)> {
        match self {
            DataType::Float { m_d, .. } | DataType::Double { m_d, .. } => *m_d,
            _ => None,
        }
    }

    /// True for FLOAT / DOUBLE (with any attributes).
    pub fn is_float(&self) -> bool {
        matches!(self, DataType::Float { .. } | DataType::Double { .. })
    }

    /// True for CHAR / VARCHAR / TEXT (character strings, with a collation).
    pub fn is_text(&self) -> bool {
        matches!(
            self,
            DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. }
        )
    }

    /// True for ENUM and SET.
    pub fn is_enum_or_set(&self) -> bool {
        matches!(self, DataType::Enum { .. } | DataType::Set { .. })
    }

    /// True for BINARY / VARBINARY / BLOB.
    pub fn is_binary(&self) -> bool {
        matches!(
            self,
            DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. }
        )
    }

    /// The collation strings of this type compare with; `Binary` for non-string types.
    pub fn collation(&self) -> Collation {
        match self {
            DataType::Char { collation, .. }
            | DataType::VarChar { collation, .. }
            | DataType::Text { collation, .. }
            | DataType::Enum { collation, .. }
            | DataType::Set { collation, .. } => *collation,
            _ => Collation::Binary,
        }
    }
}
