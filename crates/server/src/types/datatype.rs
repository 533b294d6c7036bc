//! Column types as declared in `CREATE TABLE`.

use super::collation::Collation;

/// An integer column's display attributes: the declared width (`INT(5)`; 0 when none was
/// declared, which shows the type's default, `int(11)`) and ZEROFILL (values shown padded
/// with zeros to the width; implies UNSIGNED). They change how values print, never what a
/// column stores or how it compares (see [`DataType::storage`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IntDisplay {
    pub width: u8,
    pub zerofill: bool,
}

impl IntDisplay {
    /// A declared width without ZEROFILL.
    pub const fn width(width: u8) -> IntDisplay {
        IntDisplay {
            width,
            zerofill: false,
        }
    }
}

/// A declared column type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// The integer types carry their display attributes ([`IntDisplay`]): TINYINT(1) (or
    /// BOOL / BOOLEAN) is sent with display length 1, which clients read as a boolean
    /// (Connector/J's tinyInt1isBit, ORMs' reflection).
    TinyInt {
        unsigned: bool,
        display: IntDisplay,
    },
    SmallInt {
        unsigned: bool,
        display: IntDisplay,
    },
    MediumInt {
        unsigned: bool,
        display: IntDisplay,
    },
    Int {
        unsigned: bool,
        display: IntDisplay,
    },
    BigInt {
        unsigned: bool,
        display: IntDisplay,
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
                | DataType::SmallInt { unsigned: true, .. }
                | DataType::MediumInt { unsigned: true, .. }
                | DataType::Int { unsigned: true, .. }
                | DataType::BigInt { unsigned: true, .. }
        )
    }

    /// The type with its display attributes dropped (TINYINT(1) is TINYINT): what decides
    /// whether two columns store the same values, e.g. for a FOREIGN KEY.
    pub fn storage(&self) -> DataType {
        match self {
            DataType::TinyInt { unsigned, .. } => DataType::TinyInt {
                unsigned: *unsigned,
                display: Default::default(),
            },
            DataType::SmallInt { unsigned, .. } => DataType::SmallInt {
                unsigned: *unsigned,
                display: Default::default(),
            },
            DataType::MediumInt { unsigned, .. } => DataType::MediumInt {
                unsigned: *unsigned,
                display: Default::default(),
            },
            DataType::Int { unsigned, .. } => DataType::Int {
                unsigned: *unsigned,
                display: Default::default(),
            },
            DataType::BigInt { unsigned, .. } => DataType::BigInt {
                unsigned: *unsigned,
                display: Default::default(),
            },
            t => t.clone(),
        }
    }

    /// An integer type's display attributes; None for every other type.
    pub fn int_display(&self) -> Option<IntDisplay> {
        match self {
            DataType::TinyInt { display, .. }
            | DataType::SmallInt { display, .. }
            | DataType::MediumInt { display, .. }
            | DataType::Int { display, .. }
            | DataType::BigInt { display, .. } => Some(*display),
            _ => None,
        }
    }

    /// An integer type's display width as shown (`int(11)`): the declared one, else the
    /// type's default (one less when UNSIGNED, except BIGINT's 20). None for other types.
    pub fn int_width(&self) -> Option<u8> {
        let (signed_default, display) = match self {
            DataType::TinyInt { display, .. } => (4, display),
            DataType::SmallInt { display, .. } => (6, display),
            DataType::MediumInt { display, .. } => (9, display),
            DataType::Int { display, .. } => (11, display),
            DataType::BigInt { display, .. } => (21, display),
            _ => return None,
        };
        Some(match display.width {
            0 => signed_default - u8::from(self.is_unsigned() || signed_default == 21),
            w => w,
        })
    }

    /// True for an integer column declared ZEROFILL.
    pub fn is_zerofill(&self) -> bool {
        self.int_display().is_some_and(|d| d.zerofill)
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
