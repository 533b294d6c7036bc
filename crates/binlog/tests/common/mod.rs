//! Shared fixtures for the integration tests.
#![allow(dead_code)]

use cohort_binlog::*;

/// A DECIMAL cell from its text.
pub fn dec(text: impl AsRef<str>) -> BinValue<'static> {
    BinValue::Decimal(text.as_ref().parse().expect("decimal text"))
}

/// Columns of the wide test table `cohort.t_all` (1-based @N in mariadb-binlog output).
pub fn wide_table() -> TableMap {
    use ColumnKind::*;
    let cols = vec![
        ColumnDef::not_null(Long { unsigned: false }), // @1 id INT
        ColumnDef::nullable(LongLong { unsigned: true }), // @2 BIGINT UNSIGNED
        ColumnDef::nullable(NewDecimal {
            precision: 10,
            scale: 3,
        }), // @3 DECIMAL(10,3)
        ColumnDef::nullable(String { max_bytes: 80 }), // @4 CHAR(20) utf8mb4
        ColumnDef::nullable(VarString { max_bytes: 1200 }), // @5 VARCHAR(300) utf8mb4
        ColumnDef::nullable(Blob { len_bytes: 2 }),    // @6 TEXT
        ColumnDef::nullable(Blob { len_bytes: 2 }),    // @7 BLOB
        ColumnDef::nullable(Date),                     // @8 DATE
        ColumnDef::nullable(DateTime2 { fsp: 6 }),     // @9 DATETIME(6)
        ColumnDef::nullable(Timestamp2 { fsp: 0 }),    // @10 TIMESTAMP
        ColumnDef::nullable(Tiny { unsigned: false }), // @11 TINYINT
        ColumnDef::nullable(Short { unsigned: true }), // @12 SMALLINT UNSIGNED
        ColumnDef::nullable(Int24 { unsigned: false }), // @13 MEDIUMINT
        ColumnDef::nullable(Double),                   // @14 DOUBLE
        ColumnDef::nullable(Float),                    // @15 FLOAT
        ColumnDef::nullable(String { max_bytes: 1020 }), // @16 CHAR(255) utf8mb4
        ColumnDef::nullable(VarString { max_bytes: 40 }), // @17 VARCHAR(10) utf8mb4
        ColumnDef::nullable(Timestamp2 { fsp: 3 }),    // @18 TIMESTAMP(3)
        ColumnDef::nullable(DateTime2 { fsp: 0 }),     // @19 DATETIME
        ColumnDef::nullable(NewDecimal {
            precision: 30,
            scale: 12,
        }), // @20 DECIMAL(30,12)
        ColumnDef::nullable(Blob { len_bytes: 3 }),    // @21 MEDIUMBLOB
    ];
    TableMap {
        table_id: TableId(70),
        db: "cohort".into(),
        table: "t_all".into(),
        columns: cols,
        meta: TableMeta::signedness(),
    }
}

/// A narrow table like sysbench's.
pub fn sbtest_table() -> TableMap {
    use ColumnKind::*;
    TableMap {
        table_id: TableId(71),
        db: "sbtest".into(),
        table: "sbtest1".into(),
        columns: vec![
            ColumnDef::not_null(Long { unsigned: false }),
            ColumnDef::not_null(Long { unsigned: false }),
            ColumnDef::not_null(String { max_bytes: 480 }),
            ColumnDef::not_null(String { max_bytes: 240 }),
        ],
        meta: TableMeta::default(),
    }
}

/// A table of boundary cases: every integer width and sign, extreme decimals, length-prefix
/// boundaries, every blob prefix width, fractional-second precisions.
pub fn edge_table() -> TableMap {
    use ColumnKind::*;
    let mut cols = vec![ColumnDef::not_null(Tiny { unsigned: false })];
    for kind in [
        Tiny { unsigned: true },      // @2
        Short { unsigned: false },    // @3
        Int24 { unsigned: true },     // @4
        Long { unsigned: true },      // @5
        LongLong { unsigned: false }, // @6
        NewDecimal {
            precision: 65,
            scale: 30,
        }, // @7
        NewDecimal {
            precision: 2,
            scale: 2,
        }, // @8
        NewDecimal {
            precision: 9,
            scale: 0,
        }, // @9
        NewDecimal {
            precision: 18,
            scale: 9,
        }, // @10
        String { max_bytes: 255 },    // @11
        String { max_bytes: 256 },    // @12
        VarString { max_bytes: 255 }, // @13
        VarString { max_bytes: 256 }, // @14
        Blob { len_bytes: 1 },        // @15
        Blob { len_bytes: 4 },        // @16
        DateTime2 { fsp: 1 },         // @17
        DateTime2 { fsp: 3 },         // @18
        DateTime2 { fsp: 5 },         // @19
        Timestamp2 { fsp: 6 },        // @20
        Timestamp2 { fsp: 2 },        // @21
        Date,                         // @22
        Float,                        // @23
        Double,                       // @24
        Short { unsigned: true },     // @25
        Int24 { unsigned: false },    // @26
        Long { unsigned: false },     // @27
        LongLong { unsigned: true },  // @28
        Year,                         // @29
    ] {
        cols.push(ColumnDef::nullable(kind));
    }
    TableMap {
        table_id: TableId(72),
        db: "edge".into(),
        table: "e".into(),
        columns: cols,
        meta: TableMeta::signedness(),
    }
}

/// Rows of `edge_table`: minimum values, maximum values, zero values.
pub fn edge_rows() -> Vec<Vec<BinValue<'static>>> {
    let dt = |year, month, day, hour, minute, second, micro| BinValue::DateTime {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micro,
    };
    let nines = |n: usize| "9".repeat(n);
    let min = vec![
        BinValue::Int(-128),
        BinValue::UInt(0),
        BinValue::Int(-32768),
        BinValue::UInt(0),
        BinValue::UInt(0),
        BinValue::Int(i64::MIN),
        dec(format!("-{}.{}", nines(35), nines(30))),
        dec("-0.99"),
        dec("-999999999"),
        dec("-999999999.999999999"),
        BinValue::Bytes(vec![b'a'; 255].into()),
        BinValue::Bytes(vec![b'b'; 256].into()),
        BinValue::Bytes(vec![b'c'; 255].into()),
        BinValue::Bytes(vec![b'd'; 256].into()),
        BinValue::Bytes(vec![b'e'; 255].into()),
        BinValue::Bytes(vec![].into()),
        dt(1000, 1, 1, 0, 0, 0, 100_000),
        dt(1970, 1, 1, 0, 0, 0, 1_000),
        dt(2000, 2, 29, 12, 30, 45, 10),
        BinValue::Timestamp { secs: 1, micro: 1 },
        BinValue::Timestamp {
            secs: 0,
            micro: 10_000,
        },
        BinValue::Date {
            year: 1,
            month: 1,
            day: 1,
        },
        BinValue::Float(-3.5),
        BinValue::Double(0.1),
        BinValue::UInt(0),
        BinValue::Int(-8_388_608),
        BinValue::Int(i32::MIN as i64),
        BinValue::UInt(0),
        BinValue::Int(1901),
    ];
    let max = vec![
        BinValue::Int(127),
        BinValue::UInt(255),
        BinValue::Int(32767),
        BinValue::UInt(16_777_215),
        BinValue::UInt(u32::MAX as u64),
        BinValue::Int(i64::MAX),
        dec(format!("{}.{}", nines(35), nines(30))),
        dec("0.99"),
        dec("999999999"),
        dec("999999999.999999999"),
        BinValue::Bytes(b"tab\there\nnl \\ back".to_vec().into()),
        BinValue::Bytes(vec![0xf0, 0x9f, 0x90, 0xac].into()),
        BinValue::Bytes(vec![].into()),
        BinValue::Bytes(vec![0x1f, 0x20, 0x7e, 0x7f].into()),
        BinValue::Bytes(vec![0; 3].into()),
        BinValue::Bytes(vec![b'z'; 70_000].into()),
        dt(9999, 12, 31, 23, 59, 59, 900_000),
        dt(9999, 12, 31, 23, 59, 59, 999_000),
        dt(9999, 12, 31, 23, 59, 59, 999_990),
        BinValue::Timestamp {
            secs: u32::MAX,
            micro: 999_999,
        },
        BinValue::Timestamp {
            secs: 2_147_483_647,
            micro: 990_000,
        },
        BinValue::Date {
            year: 9999,
            month: 12,
            day: 31,
        },
        BinValue::Float(3.4e38),
        BinValue::Double(1e300),
        BinValue::UInt(65535),
        BinValue::Int(8_388_607),
        BinValue::Int(i32::MAX as i64),
        BinValue::UInt(u64::MAX),
        BinValue::Int(2155),
    ];
    let zero = vec![
        BinValue::Int(0),
        BinValue::UInt(0),
        BinValue::Int(0),
        BinValue::UInt(0),
        BinValue::UInt(0),
        BinValue::Int(0),
        dec(format!("0.{}", "0".repeat(30))),
        dec("0.00"),
        dec("0"),
        dec("0.000000000"),
        BinValue::Bytes(vec![].into()),
        BinValue::Bytes(vec![].into()),
        BinValue::Bytes(vec![].into()),
        BinValue::Bytes(vec![].into()),
        BinValue::Bytes(vec![].into()),
        BinValue::Bytes(vec![].into()),
        dt(0, 0, 0, 0, 0, 0, 0),
        dt(0, 0, 0, 0, 0, 0, 0),
        dt(0, 0, 0, 0, 0, 0, 0),
        BinValue::Timestamp { secs: 0, micro: 0 },
        BinValue::Timestamp { secs: 0, micro: 0 },
        BinValue::Date {
            year: 0,
            month: 0,
            day: 0,
        },
        BinValue::Float(0.0),
        BinValue::Double(-2.5e-7),
        BinValue::UInt(0),
        BinValue::Int(-1),
        BinValue::Int(-1),
        BinValue::UInt(1 << 63),
        BinValue::Int(0),
    ];
    vec![min, max, zero]
}

fn b(s: &str) -> BinValue<'static> {
    BinValue::Bytes(s.as_bytes().to_vec().into())
}

/// A full row of `wide_table` with every column set, varied by `i`.
pub fn wide_row(i: i64) -> Vec<BinValue<'static>> {
    vec![
        BinValue::Int(i),
        BinValue::UInt(u64::MAX - i as u64),
        dec(format!(
            "{}{}.{:03}",
            if i % 2 == 0 { "-" } else { "" },
            i * 1000 + 7,
            i % 1000
        )),
        b(&format!("ch-{i}")),
        b(&format!("varchar value {i} with ünïcödé")),
        b(&format!("text {i} it's \"quoted\"")),
        BinValue::Bytes(vec![0, 1, 2, 0xff, b'a', (i & 0xff) as u8].into()),
        BinValue::Date {
            year: 2024,
            month: 2,
            day: 29,
        },
        BinValue::DateTime {
            year: 2023,
            month: 12,
            day: 31,
            hour: 23,
            minute: 59,
            second: 58,
            micro: 123_456,
        },
        BinValue::Timestamp {
            secs: 1_700_000_000 + i as u32,
            micro: 0,
        },
        BinValue::Int(-(i % 128)),
        BinValue::UInt(65535 - i as u64),
        BinValue::Int(-8_388_608 + i),
        BinValue::Double(-1.5e10 + i as f64),
        BinValue::Float(0.25 + i as f32),
        b(&"x".repeat(300)),
        b("short"),
        BinValue::Timestamp {
            secs: 1_000_000_000,
            micro: 7_000,
        },
        BinValue::DateTime {
            year: 1999,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second: 5,
            micro: 0,
        },
        dec(format!("-123456789012345678.{:012}", i)),
        BinValue::Bytes(vec![b'm'; 9_000 + i as usize].into()),
    ]
}

/// A row of `wide_table` with NULL in every nullable column.
pub fn null_row(i: i64) -> Vec<BinValue<'static>> {
    let mut row = vec![BinValue::Null; wide_table().columns.len()];
    row[0] = BinValue::Int(i);
    row
}

/// A sysbench-like row with ~230 bytes.
pub fn sb_row(id: i64, k: i64) -> Vec<BinValue<'static>> {
    vec![
        BinValue::Int(id),
        BinValue::Int(k),
        b(&format!("{:0>119}", id)),
        b(&format!("pad-{:0>55}", k)),
    ]
}

/// What one transaction or DDL of the fixture file contains.
pub enum Unit {
    Txn {
        gtid: GtidEvent,
        statements: Vec<(TableMap, Vec<RowChange<'static>>)>,
        xid: Xid,
    },
    Ddl {
        gtid: GtidEvent,
        query: QueryEvent,
    },
}

/// The units of the fixture file.
pub fn fixture_units() -> Vec<Unit> {
    let wide = wide_table();
    let sb = sbtest_table();
    let ddl = QueryEvent::new(
        12,
        "cohort",
        "CREATE TABLE t_all (id INT NOT NULL PRIMARY KEY, big BIGINT UNSIGNED, dec DECIMAL(10,3))",
    );
    let mut units = vec![Unit::Ddl {
        gtid: GtidEvent::ddl(GtidSeq(1), 0),
        query: ddl,
    }];
    // 1. inserts: full rows and NULL rows.
    units.push(Unit::Txn {
        gtid: GtidEvent::transaction(GtidSeq(2), 0, Some(900)),
        statements: vec![(
            wide.clone(),
            vec![
                RowChange::Insert(wide_row(1)),
                RowChange::Insert(null_row(2)),
                RowChange::Insert(wide_row(3)),
            ],
        )],
        xid: Xid(1001),
    });
    // 2. a big statement that splits into several rows events, then updates and deletes.
    let big: Vec<RowChange<'static>> = (1..=120)
        .map(|i| RowChange::Insert(sb_row(i, i * 10)))
        .collect();
    units.push(Unit::Txn {
        gtid: GtidEvent::transaction(GtidSeq(3), 0, Some(900)),
        statements: vec![
            (sb.clone(), big),
            (
                sb.clone(),
                vec![
                    RowChange::Update {
                        before: sb_row(5, 50),
                        after: sb_row(5, 51),
                    },
                    RowChange::Update {
                        before: sb_row(6, 60),
                        after: sb_row(6, 61),
                    },
                ],
            ),
            (sb.clone(), vec![RowChange::Delete(sb_row(7, 70))]),
        ],
        xid: Xid(1002),
    });
    // 3. update wide rows (NULL → values and back), delete one.
    units.push(Unit::Txn {
        gtid: GtidEvent::transaction(GtidSeq(4), 0, None),
        statements: vec![(
            wide.clone(),
            vec![
                RowChange::Update {
                    before: null_row(2),
                    after: wide_row(2),
                },
                RowChange::Update {
                    before: wide_row(1),
                    after: null_row(1),
                },
                RowChange::Delete(wide_row(3)),
            ],
        )],
        xid: Xid(1003),
    });
    // 4. boundary values, with Annotate_rows.
    let edge = edge_table();
    let rows = edge_rows();
    units.push(Unit::Txn {
        gtid: GtidEvent::transaction(GtidSeq(5), 0, None),
        statements: vec![(
            edge,
            vec![
                RowChange::Insert(rows[0].clone()),
                RowChange::Insert(rows[1].clone()),
                RowChange::Update {
                    before: rows[1].clone(),
                    after: rows[2].clone(),
                },
                RowChange::Delete(rows[0].clone()),
            ],
        )],
        xid: Xid(1004),
    });
    units
}

/// The Annotate_rows text written before the statements of transaction `seq`.
pub fn annotation(seq: u64) -> Option<&'static str> {
    (seq == 5).then_some("INSERT INTO e VALUES (/* boundary rows */)")
}

/// Writes the fixture file: header, units, Rotate. Returns the bytes and each unit's span.
pub fn fixture_file() -> (Vec<u8>, Vec<Span>) {
    let header = FileHeader::new(ServerId(1), 1_700_000_000);
    let head = header.encode(true).unwrap();
    let mut w = EventWriter::with_buffer(head, BinlogPos(0), ServerId(1), 1_700_000_001);
    let mut spans = Vec::new();
    for unit in fixture_units() {
        let span = match &unit {
            Unit::Ddl { gtid, query } => w.write_ddl(gtid, query).unwrap(),
            Unit::Txn {
                gtid,
                statements,
                xid,
            } => {
                let sts: Vec<RowsStatement<'_>> = statements
                    .iter()
                    .map(|(t, ch)| RowsStatement {
                        table: t,
                        changes: ch,
                        annotate: annotation(gtid.seq.0),
                        rows_flags: 0,
                        ignorable: false,
                    })
                    .collect();
                w.write_transaction(&Transaction {
                    gtid: *gtid,
                    statements: &sts,
                    xid: *xid,
                })
                .unwrap()
            }
        };
        spans.push(span);
    }
    w.write_rotate("binlog.000002").unwrap();
    let mut bytes = w.into_bytes();
    set_in_use(&mut bytes, false);
    (bytes, spans)
}

/// Formats a value as `mariadb-binlog -v` prints it after `@N=`.
pub fn mariadb_text(kind: &ColumnKind, v: &BinValue) -> std::string::String {
    match (kind, v) {
        (_, BinValue::Null) => "NULL".into(),
        // The year 0000 is the byte 0, which the tool prints as 1900 (as for MariaDB's files).
        (ColumnKind::Year, BinValue::Int(0)) => "1900".into(),
        (ColumnKind::Year, BinValue::Int(y)) => format!("{y}"),
        (k, BinValue::Int(i)) => {
            let bits = int_bits(k);
            if *i < 0 {
                let unsigned = (*i as i128 + (1i128 << bits)) as u128;
                format!("{i} ({unsigned})")
            } else {
                format!("{i}")
            }
        }
        (k, BinValue::UInt(u)) => {
            // The tool prints the value as signed, with the unsigned reading in parentheses.
            let bits = int_bits(k);
            let signed = if *u as u128 >= 1u128 << (bits - 1) {
                *u as i128 - (1i128 << bits)
            } else {
                *u as i128
            };
            if signed < 0 {
                format!("{signed} ({u})")
            } else {
                format!("{u}")
            }
        }
        (_, BinValue::Decimal(s)) => s.to_string(),
        (_, BinValue::Bytes(bytes)) => {
            // Bytes up to 0x1f are escaped, everything else is printed raw (no quote escaping).
            let mut s = vec![b'\''];
            for &c in bytes.iter() {
                if c > 0x1f {
                    s.push(c);
                } else {
                    s.extend_from_slice(format!("\\x{c:02x}").as_bytes());
                }
            }
            s.push(b'\'');
            std::string::String::from_utf8_lossy(&s).into_owned()
        }
        (_, BinValue::Date { year, month, day }) => format!("'{year:04}:{month:02}:{day:02}'"),
        (
            ColumnKind::DateTime2 { fsp },
            BinValue::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micro,
            },
        ) => {
            let mut s = format!("'{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}");
            push_frac(&mut s, *micro, *fsp);
            s.push('\'');
            s
        }
        (ColumnKind::Timestamp2 { fsp }, BinValue::Timestamp { secs, micro }) => {
            let mut s = format!("{secs}");
            push_frac(&mut s, *micro, *fsp);
            s
        }
        (_, BinValue::Double(d)) => format_g(*d, 20),
        (_, BinValue::Float(f)) => format_g(*f as f64, 6),
        (k, v) => panic!("no mariadb text for {v:?} in {k:?}"),
    }
}

fn push_frac(s: &mut std::string::String, micro: u32, fsp: u8) {
    if fsp > 0 {
        let digits = format!("{micro:06}");
        s.push('.');
        s.push_str(&digits[..fsp as usize]);
    }
}

fn int_bits(k: &ColumnKind) -> u32 {
    match k {
        ColumnKind::Tiny { .. } => 8,
        ColumnKind::Short { .. } => 16,
        ColumnKind::Int24 { .. } => 24,
        ColumnKind::Long { .. } => 32,
        ColumnKind::LongLong { .. } => 64,
        other => panic!("not an integer kind: {other:?}"),
    }
}

/// C's `%.{prec}g` for the finite values used in the fixtures.
pub fn format_g(v: f64, prec: usize) -> std::string::String {
    if v == 0.0 {
        return "0".into();
    }
    let exp = v.abs().log10().floor() as i32;
    if exp < -4 || exp >= prec as i32 {
        let s = format!("{:.*e}", prec - 1, v);
        let (mant, e) = s.split_once('e').unwrap();
        let mant = trim_zeros(mant);
        let e: i32 = e.parse().unwrap();
        format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    } else {
        let decimals = (prec as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}"))
    }
}

fn trim_zeros(s: &str) -> std::string::String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// One row operation as `mariadb-binlog -v` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintedRow {
    /// "INSERT INTO", "UPDATE" or "DELETE FROM".
    pub op: std::string::String,
    /// "`db`.`table`".
    pub table: std::string::String,
    /// Values of the first image (WHERE for update/delete, SET for insert), without any
    /// trailing `/* … */` comment.
    pub first: Vec<std::string::String>,
    /// Values of the SET image of an update.
    pub second: Vec<std::string::String>,
}

/// Parses the `### …` lines of `mariadb-binlog -v`/`-vv` output.
pub fn parse_printed_rows(text: &str) -> Vec<PrintedRow> {
    let mut rows: Vec<PrintedRow> = Vec::new();
    let mut in_second = false;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("### ") else {
            continue;
        };
        for op in ["INSERT INTO", "UPDATE", "DELETE FROM"] {
            if let Some(table) = rest.strip_prefix(op).and_then(|t| t.strip_prefix(' ')) {
                rows.push(PrintedRow {
                    op: op.into(),
                    table: table.trim().into(),
                    first: Vec::new(),
                    second: Vec::new(),
                });
                in_second = false;
            }
        }
        let trimmed = rest.trim_start();
        if trimmed == "SET" {
            in_second = rows.last().is_some_and(|r| r.op == "UPDATE");
        } else if let Some(assign) = trimmed.strip_prefix('@') {
            let (_, value) = assign.split_once('=').expect("@N=value");
            let value = match value.rfind(" /*") {
                Some(i) if value.ends_with("*/") => &value[..i],
                _ => value,
            };
            // FLOAT is printed with "%-20g": drop the padding.
            let value = value.trim_end();
            let row = rows.last_mut().expect("value before a row header");
            if in_second {
                row.second.push(value.to_string());
            } else {
                row.first.push(value.to_string());
            }
        }
    }
    rows
}

/// What `parse_printed_rows` should find for a set of statements.
pub fn expected_rows(statements: &[(TableMap, Vec<RowChange<'static>>)]) -> Vec<PrintedRow> {
    let mut out = Vec::new();
    for (table, changes) in statements {
        let name = format!("`{}`.`{}`", table.db, table.table);
        let fmt = |row: &Vec<BinValue<'static>>| -> Vec<std::string::String> {
            table
                .columns
                .iter()
                .zip(row)
                .map(|(c, v)| mariadb_text(&c.kind, v))
                .collect()
        };
        for ch in changes {
            out.push(match ch {
                RowChange::Insert(r) => PrintedRow {
                    op: "INSERT INTO".into(),
                    table: name.clone(),
                    first: fmt(r),
                    second: vec![],
                },
                RowChange::Delete(r) => PrintedRow {
                    op: "DELETE FROM".into(),
                    table: name.clone(),
                    first: fmt(r),
                    second: vec![],
                },
                RowChange::Update { before, after } => PrintedRow {
                    op: "UPDATE".into(),
                    table: name.clone(),
                    first: fmt(before),
                    second: fmt(after),
                },
            });
        }
    }
    out
}
