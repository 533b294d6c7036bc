//! Random schemas and data: tables with columns of every type Cohort supports, primary keys
//! (single, composite, or none), unique and non-unique secondary indexes, and rows drawn from a
//! small pool of values per column so that duplicates, NULLs and index hits are common.
//!
//! Every column's pool is kept with the schema: the query generator takes its literals from it,
//! so that predicates select some rows rather than none.

use crate::rng::Rng;

/// What kind of value an expression yields; the generator builds expressions by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int,
    Decimal,
    Float,
    /// Character string (a collation with PAD SPACE; `ci` when case-insensitive).
    Str {
        ci: bool,
    },
    /// Binary string.
    Bin,
    Date,
    DateTime,
}

/// A column type, as declared.
#[derive(Clone, Debug, PartialEq)]
pub enum ColType {
    Int {
        width: &'static str,
        unsigned: bool,
    },
    Decimal {
        m: u8,
        d: u8,
    },
    Float,
    Double,
    Char {
        len: u32,
        ci: bool,
    },
    VarChar {
        len: u32,
        ci: bool,
    },
    Text,
    Binary {
        len: u32,
    },
    VarBinary {
        len: u32,
    },
    Blob,
    Date,
    DateTime {
        fsp: u8,
    },
    Timestamp,
    /// ENUM of [`ENUM_MEMBERS`]: not in alphabetical order, so that ORDER BY (member
    /// position) and string comparisons (text) differ.
    Enum,
    /// SET of [`ENUM_MEMBERS`]: ORDER BY is by bitmask.
    Set,
}

/// The members of the ENUM and SET columns.
const ENUM_MEMBERS: [&str; 4] = ["m", "b", "Z", "a"];

const INT_WIDTHS: [&str; 5] = ["TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT"];

impl ColType {
    fn random(rng: &mut Rng) -> ColType {
        match rng.below(15) {
            0 | 1 => ColType::Int {
                width: rng.one(&INT_WIDTHS),
                unsigned: rng.chance(1, 3),
            },
            2 => {
                let m = rng.one(&[4u8, 9, 10, 18, 20, 30, 38, 50, 65]);
                let d = rng.one(&[0u8, 1, 2, 4, 10, 30]).min(m.min(38));
                ColType::Decimal { m, d }
            }
            3 => ColType::Float,
            4 => ColType::Double,
            5 => ColType::Char {
                len: rng.range(1, 8) as u32,
                ci: rng.chance(3, 4),
            },
            6 | 7 => ColType::VarChar {
                len: rng.range(4, 40) as u32,
                ci: rng.chance(3, 4),
            },
            8 => ColType::Text,
            9 => match rng.below(3) {
                0 => ColType::Binary {
                    len: rng.range(1, 6) as u32,
                },
                1 => ColType::VarBinary {
                    len: rng.range(4, 20) as u32,
                },
                _ => ColType::Blob,
            },
            10 => ColType::Date,
            11 => ColType::DateTime {
                fsp: rng.one(&[0u8, 0, 3, 6]),
            },
            12 => ColType::Timestamp,
            13 => ColType::Enum,
            _ => ColType::Set,
        }
    }

    pub fn sql(&self) -> String {
        let coll = |ci: bool| {
            if ci {
                "CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
            } else {
                "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
            }
        };
        match self {
            ColType::Int { width, unsigned } => {
                format!("{width}{}", if *unsigned { " UNSIGNED" } else { "" })
            }
            ColType::Decimal { m, d } => format!("DECIMAL({m},{d})"),
            ColType::Float => "FLOAT".into(),
            ColType::Double => "DOUBLE".into(),
            ColType::Char { len, ci } => format!("CHAR({len}) {}", coll(*ci)),
            ColType::VarChar { len, ci } => format!("VARCHAR({len}) {}", coll(*ci)),
            ColType::Text => format!("TEXT {}", coll(true)),
            ColType::Binary { len } => format!("BINARY({len})"),
            ColType::VarBinary { len } => format!("VARBINARY({len})"),
            ColType::Blob => "BLOB".into(),
            ColType::Date => "DATE".into(),
            ColType::DateTime { fsp } if *fsp > 0 => format!("DATETIME({fsp})"),
            ColType::DateTime { .. } => "DATETIME".into(),
            ColType::Timestamp => "TIMESTAMP NULL".into(),
            ColType::Enum | ColType::Set => {
                let list: Vec<String> = ENUM_MEMBERS.iter().map(|m| format!("'{m}'")).collect();
                let kw = if *self == ColType::Enum {
                    "ENUM"
                } else {
                    "SET"
                };
                format!("{kw}({})", list.join(","))
            }
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            ColType::Int { .. } => Kind::Int,
            ColType::Decimal { .. } => Kind::Decimal,
            ColType::Float | ColType::Double => Kind::Float,
            ColType::Char { ci, .. } | ColType::VarChar { ci, .. } => Kind::Str { ci: *ci },
            ColType::Text => Kind::Str { ci: true },
            ColType::Binary { .. } | ColType::VarBinary { .. } | ColType::Blob => Kind::Bin,
            ColType::Date => Kind::Date,
            ColType::DateTime { .. } | ColType::Timestamp => Kind::DateTime,
            ColType::Enum | ColType::Set => Kind::Str { ci: true },
        }
    }

    /// Whether a plain index may cover it (TEXT and BLOB would need a prefix length).
    fn indexable(&self) -> bool {
        !matches!(self, ColType::Text | ColType::Blob)
    }

    /// A literal that fits the column (SQL text).
    pub fn value(&self, rng: &mut Rng) -> String {
        match self {
            ColType::Int { width, unsigned } => int_value(rng, width, *unsigned),
            ColType::Decimal { m, d } => decimal_value(rng, *m, *d),
            ColType::Float => rng
                .one(&[
                    "0",
                    "1",
                    "-1",
                    "0.5",
                    "2.25",
                    "-3.75",
                    "100.125",
                    "1e6",
                    "-0.015625",
                    "7",
                ])
                .into(),
            ColType::Double => rng
                .one(&[
                    "0",
                    "1",
                    "-1",
                    "0.1",
                    "2.5",
                    "-3.75",
                    "1e15",
                    "123456.789",
                    "-0.001",
                    "1e-5",
                    "7",
                ])
                .into(),
            ColType::Char { len, .. } | ColType::VarChar { len, .. } => {
                str_value(rng, *len as usize)
            }
            ColType::Text => str_value(rng, 30),
            ColType::Binary { len } | ColType::VarBinary { len } => bin_value(rng, *len as usize),
            ColType::Blob => bin_value(rng, 20),
            ColType::Date => format!("'{}'", date(rng)),
            ColType::DateTime { fsp } => {
                let frac = if *fsp > 0 && rng.bool() {
                    format!(
                        ".{:0w$}",
                        rng.below(10u64.pow(u32::from(*fsp))),
                        w = *fsp as usize
                    )
                } else {
                    String::new()
                };
                format!("'{} {}{frac}'", date(rng), time(rng))
            }
            ColType::Timestamp => format!("'{} {}'", date_between(rng, 1971, 2037), time(rng)),
            ColType::Enum => format!("'{}'", rng.one(&ENUM_MEMBERS)),
            ColType::Set => {
                let bits = rng.below(16);
                let parts: Vec<&str> = (0..4)
                    .filter(|i| bits & (1 << i) != 0)
                    .map(|i| ENUM_MEMBERS[i])
                    .collect();
                format!("'{}'", parts.join(","))
            }
        }
    }
}

fn int_value(rng: &mut Rng, width: &str, unsigned: bool) -> String {
    let bits = match width {
        "TINYINT" => 8,
        "SMALLINT" => 16,
        "MEDIUMINT" => 24,
        "INT" => 32,
        _ => 64,
    };
    let (min, max): (i128, i128) = if unsigned {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    };
    let v: i128 = match rng.below(10) {
        0 => min,
        1 => max,
        2 => max - 1,
        _ => i128::from(rng.range(0, 20) as i64 - 6),
    };
    v.clamp(min, max).to_string()
}

fn decimal_value(rng: &mut Rng, m: u8, d: u8) -> String {
    let int_digits = usize::from(m - d);
    let digits = |rng: &mut Rng, n: usize| -> String {
        (0..n)
            .map(|_| char::from(b'0' + rng.below(10) as u8))
            .collect()
    };
    let int_part = match rng.below(4) {
        0 => "9".repeat(int_digits),
        1 => digits(rng, int_digits.min(3)),
        2 => {
            let n = rng.range(0, int_digits as u64) as usize;
            digits(rng, n)
        }
        _ => rng.range(0, 5).to_string(),
    };
    let int_part = if int_part.is_empty() || int_digits == 0 {
        "0".to_string()
    } else {
        int_part.trim_start_matches('0').to_string()
    };
    let int_part = if int_part.is_empty() {
        "0".into()
    } else {
        int_part
    };
    let frac = if d > 0 {
        let n = rng.range(0, u64::from(d)) as usize;
        if n > 0 {
            format!(".{}", digits(rng, n))
        } else {
            String::new()
        }
    } else {
        String::new()
    };
    let sign = if rng.chance(1, 3) { "-" } else { "" };
    format!("{sign}{int_part}{frac}")
}

/// Letters chosen so that `RTRIM(UPPER(x))` is a canonical form under utf8mb4_general_ci: no
/// two of them are equal under the collation unless they are case variants (no 'e' next to
/// 'é'), so canonical group keys cannot hide a choice between equal-but-different values.
const ALPHABET: [&str; 14] = [
    "a", "A", "b", "B", "z", "Z", "é", "É", " ", "%", "_", "1", "0", "ß",
];

fn str_value(rng: &mut Rng, max_chars: usize) -> String {
    let n = rng.range(0, max_chars.min(6) as u64) as usize;
    let s: String = (0..n).map(|_| *rng.pick(&ALPHABET)).collect();
    format!("'{s}'")
}

fn bin_value(rng: &mut Rng, max: usize) -> String {
    let n = rng.range(0, max.min(5) as u64) as usize;
    if rng.bool() {
        let s: String = (0..n)
            .map(|_| *rng.pick(&["a", "b", "A", "0", " "]))
            .collect();
        format!("'{s}'")
    } else if n == 0 {
        "''".into()
    } else {
        let h: String = (0..n)
            .map(|_| format!("{:02X}", rng.one(&[0u8, 1, 0x41, 0x61, 0x7f, 0x80, 0xff])))
            .collect();
        format!("X'{h}'")
    }
}

fn date(rng: &mut Rng) -> String {
    date_between(rng, 1000, 9999)
}

fn date_between(rng: &mut Rng, lo: u64, hi: u64) -> String {
    let y = match rng.below(4) {
        0 => rng.range(lo, hi),
        _ => rng.range(2019.max(lo), 2021.min(hi)),
    };
    let m = rng.range(1, 12);
    let d = rng.range(1, if m == 2 { 28 } else { 30 });
    format!("{y:04}-{m:02}-{d:02}")
}

fn time(rng: &mut Rng) -> String {
    if rng.chance(1, 3) {
        return "00:00:00".into();
    }
    format!(
        "{:02}:{:02}:{:02}",
        rng.below(24),
        rng.below(60),
        rng.below(60)
    )
}

/// A column with its pool of values.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub ty: ColType,
    pub nullable: bool,
    /// The values rows draw from (SQL literals); queries use them too.
    pub pool: Vec<String>,
}

impl Column {
    pub fn kind(&self) -> Kind {
        self.ty.kind()
    }
}

#[derive(Clone, Debug)]
pub struct Index {
    pub unique: bool,
    pub cols: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub name: String,
    pub cols: Vec<Column>,
    /// Column indexes of the primary key (empty: none).
    pub pk: Vec<usize>,
    pub indexes: Vec<Index>,
    /// One INSERT per row, in order.
    pub rows: Vec<String>,
}

impl Table {
    fn random(rng: &mut Rng, name: String) -> Table {
        let ncols = rng.range(2, 7) as usize;
        let mut cols = Vec::new();
        // The first column is often an integer id: the classic primary key.
        for i in 0..ncols {
            let ty = if i == 0 && rng.chance(2, 3) {
                ColType::Int {
                    width: rng.one(&["INT", "BIGINT", "SMALLINT"]),
                    unsigned: rng.chance(1, 4),
                }
            } else {
                ColType::random(rng)
            };
            let mut pool: Vec<String> = (0..rng.range(2, 9)).map(|_| ty.value(rng)).collect();
            pool.dedup();
            cols.push(Column {
                name: format!("c{i}"),
                ty,
                nullable: rng.chance(2, 3),
                pool,
            });
        }
        let indexable: Vec<usize> = (0..ncols).filter(|&i| cols[i].ty.indexable()).collect();
        let pk = match rng.below(8) {
            0 => Vec::new(),
            _ if indexable.is_empty() => Vec::new(),
            1 | 2 if indexable.len() >= 2 => {
                let a = *rng.pick(&indexable);
                let b = *rng.pick(&indexable);
                if a == b {
                    vec![a]
                } else {
                    vec![a, b]
                }
            }
            _ => vec![indexable[0]],
        };
        for &c in &pk {
            cols[c].nullable = false;
        }
        // An integer id gets distinct values 1..: most rows survive the key.
        if pk == [0] && matches!(cols[0].ty, ColType::Int { .. }) {
            cols[0].pool = (1..=40).map(|i| i.to_string()).collect();
        }
        let mut indexes = Vec::new();
        for _ in 0..rng.below(3) {
            if indexable.is_empty() {
                break;
            }
            let mut ic = vec![*rng.pick(&indexable)];
            if rng.chance(1, 3) {
                let b = *rng.pick(&indexable);
                if b != ic[0] {
                    ic.push(b);
                }
            }
            indexes.push(Index {
                unique: rng.chance(1, 3),
                cols: ic,
            });
        }
        let mut t = Table {
            name,
            cols,
            pk,
            indexes,
            rows: Vec::new(),
        };
        let nrows = match rng.below(10) {
            0 => 0,
            1 => rng.range(1, 3),
            _ => rng.range(5, 40),
        };
        for _ in 0..nrows {
            let row = t.random_row(rng);
            t.rows.push(row);
        }
        t
    }

    fn random_row(&self, rng: &mut Rng) -> String {
        let vals: Vec<String> = self
            .cols
            .iter()
            .map(|c| {
                if c.nullable && rng.chance(1, 6) {
                    "NULL".to_string()
                } else {
                    rng.pick(&c.pool).clone()
                }
            })
            .collect();
        format!("INSERT INTO {} VALUES ({})", self.name, vals.join(", "))
    }

    pub fn ddl(&self) -> String {
        let mut parts: Vec<String> = self
            .cols
            .iter()
            .map(|c| {
                format!(
                    "{} {}{}",
                    c.name,
                    c.ty.sql(),
                    if c.nullable { "" } else { " NOT NULL" }
                )
            })
            .collect();
        let names = |ix: &[usize]| {
            ix.iter()
                .map(|&i| self.cols[i].name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !self.pk.is_empty() {
            parts.push(format!("PRIMARY KEY ({})", names(&self.pk)));
        }
        for (i, ix) in self.indexes.iter().enumerate() {
            let u = if ix.unique { "UNIQUE " } else { "" };
            parts.push(format!("{u}KEY k{i} ({})", names(&ix.cols)));
        }
        format!("CREATE TABLE {} ({})", self.name, parts.join(", "))
    }
}

/// A database: its tables.
#[derive(Clone, Debug)]
pub struct Schema {
    pub tables: Vec<Table>,
}

impl Schema {
    pub fn random(rng: &mut Rng) -> Schema {
        let n = rng.range(3, 6) as usize;
        Schema {
            tables: (0..n)
                .map(|i| Table::random(rng, format!("t{i}")))
                .collect(),
        }
    }

    /// DDL and INSERTs of the tables whose names are in `only` (all when `None`).
    pub fn script(&self, only: Option<&[String]>) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.tables {
            if only.is_some_and(|o| !o.contains(&t.name)) {
                continue;
            }
            out.push(t.ddl());
            out.extend(t.rows.iter().cloned());
        }
        out
    }
}
