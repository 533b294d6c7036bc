//! Type round-trips: values go in as prepared-statement parameters (binary protocol) and come
//! back through a prepared SELECT (binary rows) and a plain query (text rows).

use mysql::prelude::Queryable;
use mysql::{Conn, Value};

use crate::checks::Report;
use crate::Config;

/// One column type and the values to send: (parameter, expected binary value, expected text).
struct Case {
    name: &'static str,
    column: &'static str,
    values: Vec<(Value, Value, Option<&'static str>)>,
}

fn bytes(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

fn same(v: Value) -> (Value, Value, Option<&'static str>) {
    (v.clone(), v, None)
}

fn cases() -> Vec<Case> {
    let date = |y, m, d, h, mi, s, us| Value::Date(y, m, d, h, mi, s, us);
    vec![
        Case {
            name: "null",
            column: "INT NULL",
            values: vec![
                (Value::NULL, Value::NULL, None),
                (Value::Int(7), Value::Int(7), Some("7")),
            ],
        },
        Case {
            name: "bigint",
            column: "BIGINT NOT NULL",
            values: vec![
                (
                    Value::Int(i64::MAX),
                    Value::Int(i64::MAX),
                    Some("9223372036854775807"),
                ),
                (
                    Value::Int(i64::MIN),
                    Value::Int(i64::MIN),
                    Some("-9223372036854775808"),
                ),
                (Value::Int(0), Value::Int(0), Some("0")),
            ],
        },
        Case {
            name: "bigint-unsigned",
            column: "BIGINT UNSIGNED NOT NULL",
            values: vec![(
                Value::UInt(u64::MAX),
                Value::UInt(u64::MAX),
                Some("18446744073709551615"),
            )],
        },
        Case {
            name: "int",
            column: "INT NOT NULL",
            values: vec![
                (
                    Value::Int(i32::MIN as i64),
                    Value::Int(i32::MIN as i64),
                    Some("-2147483648"),
                ),
                (Value::Int(-1), Value::Int(-1), Some("-1")),
            ],
        },
        Case {
            name: "unicode",
            column: "VARCHAR(100) NOT NULL",
            values: vec![
                same(bytes("héllo wörld ☃")),
                same(bytes("𝄞 clef, 😀 emoji (4-byte UTF-8)")),
                same(bytes("quote ' dq \" bs \\")),
                same(bytes("")),
            ],
        },
        Case {
            name: "decimal",
            column: "DECIMAL(15,4) NOT NULL",
            values: vec![
                (
                    bytes("12345678901.2345"),
                    bytes("12345678901.2345"),
                    Some("12345678901.2345"),
                ),
                (bytes("-0.0001"), bytes("-0.0001"), Some("-0.0001")),
                (bytes("7"), bytes("7.0000"), Some("7.0000")),
            ],
        },
        Case {
            name: "date",
            column: "DATE NOT NULL",
            values: vec![(
                date(2024, 2, 29, 0, 0, 0, 0),
                date(2024, 2, 29, 0, 0, 0, 0),
                Some("2024-02-29"),
            )],
        },
        Case {
            name: "datetime",
            column: "DATETIME NOT NULL",
            values: vec![
                (
                    date(2024, 2, 29, 23, 59, 58, 0),
                    date(2024, 2, 29, 23, 59, 58, 0),
                    Some("2024-02-29 23:59:58"),
                ),
                (
                    date(2000, 1, 1, 0, 0, 0, 0),
                    date(2000, 1, 1, 0, 0, 0, 0),
                    Some("2000-01-01 00:00:00"),
                ),
            ],
        },
        Case {
            name: "datetime6",
            column: "DATETIME(6) NOT NULL",
            values: vec![(
                date(2024, 7, 1, 12, 34, 56, 123456),
                date(2024, 7, 1, 12, 34, 56, 123456),
                Some("2024-07-01 12:34:56.123456"),
            )],
        },
        Case {
            name: "double",
            column: "DOUBLE NOT NULL",
            values: vec![
                (
                    Value::Double(1.5e300),
                    Value::Double(1.5e300),
                    Some("1.5e300"),
                ),
                (Value::Double(-2.25), Value::Double(-2.25), Some("-2.25")),
            ],
        },
        Case {
            name: "varbinary",
            column: "VARBINARY(64) NOT NULL",
            values: vec![
                same(Value::Bytes(vec![
                    0, 1, 2, 0xff, 0xfe, b'\'', b'"', b'\\', 0,
                ])),
                same(Value::Bytes(Vec::new())),
            ],
        },
    ]
}

/// Normalises a binary-protocol value so that equal values compare equal: the server may
/// send a DATETIME without its zero time part or an INT column as Int or UInt.
fn norm(v: &Value) -> Value {
    match v {
        Value::UInt(u) if *u <= i64::MAX as u64 => Value::Int(*u as i64),
        Value::Float(f) => Value::Double(*f as f64),
        other => other.clone(),
    }
}

fn run_case(conn: &mut Conn, case: &Case, report: &Report) {
    let table = format!("rust_rt_{}", case.name.replace('-', "_"));
    let res = (|| -> Result<(), mysql::Error> {
        conn.query_drop(format!("DROP TABLE IF EXISTS {table}"))?;
        conn.query_drop(format!(
            "CREATE TABLE {table} (id INT NOT NULL PRIMARY KEY, v {})",
            case.column
        ))?;
        for (i, (param, _, _)) in case.values.iter().enumerate() {
            conn.exec_drop(
                format!("INSERT INTO {table} (id, v) VALUES (?, ?)"),
                (i as i64 + 1, param.clone()),
            )?;
        }
        // Binary rows.
        let bin: Vec<(i64, Value)> = conn
            .exec_iter(
                format!("SELECT id, v FROM {table} WHERE id >= ? ORDER BY id"),
                (0,),
            )?
            .map(|row| {
                row.map(|mut r| {
                    (
                        r.take::<i64, _>(0).unwrap_or(-1),
                        r.take::<Value, _>(1).unwrap_or(Value::NULL),
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        let mut bad = Vec::new();
        for (i, (_, want, _)) in case.values.iter().enumerate() {
            match bin.get(i) {
                Some((id, got)) if *id == i as i64 + 1 && norm(got) == norm(want) => {}
                other => bad.push(format!(
                    "row {}: sent {:?}, got {:?}",
                    i + 1,
                    case.values[i].0,
                    other
                )),
            }
        }
        report.check(
            &format!("types/{}/binary", case.name),
            bad.is_empty() && bin.len() == case.values.len(),
            || {
                format!(
                    "{}: {} rows back; {}",
                    case.column,
                    bin.len(),
                    bad.join("; ")
                )
            },
        );
        // Text rows.
        let text: Vec<(i64, Option<Vec<u8>>)> =
            conn.query(format!("SELECT id, v FROM {table} ORDER BY id"))?;
        let mut bad = Vec::new();
        for (i, (param, _, want_text)) in case.values.iter().enumerate() {
            let want: Option<Vec<u8>> = match (param, want_text) {
                (Value::NULL, _) => None,
                (_, Some(t)) => Some(t.as_bytes().to_vec()),
                (Value::Bytes(b), None) => Some(b.clone()),
                (other, None) => Some(format!("{other:?}").into_bytes()),
            };
            match text.get(i) {
                Some((id, got)) if *id == i as i64 + 1 && *got == want => {}
                other => bad.push(format!(
                    "row {}: want {:?}, got {:?}",
                    i + 1,
                    want.as_ref()
                        .map(|b| String::from_utf8_lossy(b).into_owned()),
                    other.map(|o| o
                        .1
                        .as_ref()
                        .map(|b| String::from_utf8_lossy(b).into_owned()))
                )),
            }
        }
        report.check(
            &format!("types/{}/text", case.name),
            bad.is_empty() && text.len() == case.values.len(),
            || {
                format!(
                    "{}: {} rows back; {}",
                    case.column,
                    text.len(),
                    bad.join("; ")
                )
            },
        );
        conn.query_drop(format!("DROP TABLE {table}"))?;
        Ok(())
    })();
    if let Err(e) = res {
        report.fail(
            &format!("types/{}", case.name),
            format!("{}: {e}", case.column),
        );
    }
}

pub fn run(cfg: &Config, report: &Report) {
    let mut conn = match Conn::new(cfg.opts()) {
        Ok(c) => c,
        Err(e) => return report.fail("types/connect", e.to_string()),
    };
    for case in cases() {
        run_case(&mut conn, &case, report);
    }
    // AUTO_INCREMENT ids and affected rows through the binary protocol.
    let res = (|| -> Result<(u64, u64, u64), mysql::Error> {
        conn.query_drop("DROP TABLE IF EXISTS rust_autoinc")?;
        conn.query_drop(
            "CREATE TABLE rust_autoinc (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT)",
        )?;
        conn.exec_drop("INSERT INTO rust_autoinc (v) VALUES (?)", (10,))?;
        let first = conn.last_insert_id();
        conn.exec_drop("INSERT INTO rust_autoinc (v) VALUES (?)", (20,))?;
        let second = conn.last_insert_id();
        conn.exec_drop("UPDATE rust_autoinc SET v = v + ? WHERE id > ?", (1, 0))?;
        let updated = conn.affected_rows();
        conn.query_drop("DROP TABLE rust_autoinc")?;
        Ok((first, second, updated))
    })();
    report.check(
        "types/last-insert-id-affected-rows",
        matches!(res, Ok((1, 2, 2))),
        || {
            format!(
                "(last_insert_id, last_insert_id, UPDATE affected rows) = {res:?}; want (1, 2, 2)"
            )
        },
    );
}
