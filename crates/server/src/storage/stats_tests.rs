//! Unit tests of the index statistics (`stats.rs`): exact prefix counts on known data, the
//! key splitting they rely on, the 10% recalculation rule, ANALYZE, and sampling.

use super::keycode::{self, KeyCol};
use super::schema::TableDef;
use super::tests::{col, idx, int};
use super::{Engine, Table};
use crate::types::{Collation, DataType, Date, DateTime, Decimal, Value};
use std::sync::Arc;

fn varchar() -> DataType {
    DataType::VarChar {
        len: 40,
        collation: Collation::Utf8mb4GeneralCi,
    }
}

/// `t(a INT, b INT, c VARCHAR, PRIMARY KEY (a), KEY bc (b, c), KEY c (c))`.
fn table(e: &Arc<Engine>) -> Arc<Table> {
    let def = TableDef {
        name: "t".into(),
        columns: vec![col("a", int()), col("b", int()), col("c", varchar())],
        primary_key: Some(idx("PRIMARY", &[0], true)),
        indexes: vec![idx("bc", &[1, 2], false), idx("c", &[2], false)],
        engine: "InnoDB".into(),
        auto_increment_start: 1,
        comment: None,
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        default_collation: crate::types::Collation::Utf8mb4GeneralCi,
    };
    e.create_database("db", true).unwrap();
    e.create_table("db", def, false).unwrap();
    e.table("db", "t").unwrap()
}

fn fill(e: &Arc<Engine>, t: &Table, ids: std::ops::Range<i64>, row: impl Fn(i64) -> Vec<Value>) {
    let mut txn = e.begin();
    for i in ids {
        t.insert(&mut txn, row(i)).unwrap();
    }
    e.commit(txn);
}

#[test]
fn exact_prefix_counts_on_known_data() {
    let e = Engine::new();
    let t = table(&e);
    let s = t.stats();
    assert_eq!((s.rows, s.primary.clone()), (0, vec![0]));
    assert_eq!(s.secondary, vec![vec![0, 0], vec![0]]);
    // b: 4 values (one NULL); (b, c): c cycles through 3 strings (case folds: 'x' = 'X').
    let cs = ["x", "X", "y ", "y", "zz"];
    fill(&e, &t, 0..40, |i| {
        vec![
            Value::Int(i),
            if i % 4 == 3 {
                Value::Null
            } else {
                Value::Int(i % 4)
            },
            Value::str(cs[(i / 4 % 5) as usize]),
        ]
    });
    let s = t.stats();
    assert_eq!(s.rows, 40);
    assert!(!s.sampled);
    assert_eq!(s.primary, vec![40]);
    // c: 'x'/'X' and 'y '/'y' are equal under general_ci with PAD SPACE: 3 values.
    assert_eq!(s.secondary[1], vec![3]);
    assert_eq!(s.secondary[0], vec![4, 12]);
    // MariaDB's figures: rec_per_key = rows / n_diff truncated and halved.
    assert_eq!(s.rec_per_key(Some(0), 1), 5);
    assert_eq!(s.cardinality(Some(0), 1), 8);
    assert_eq!(s.rec_per_key(Some(0), 2), 1);
    assert_eq!(s.cardinality(Some(0), 2), 40);
    assert_eq!(s.cardinality(None, 1), 40);
}

#[test]
fn keys_split_into_columns() {
    let types = [
        (int(), Value::Int(-5)),
        (
            DataType::BigInt {
                unsigned: true,
                display: Default::default(),
            },
            Value::UInt(u64::MAX),
        ),
        (DataType::DOUBLE, Value::Double(-1.25)),
        (
            DataType::Decimal {
                precision: 20,
                scale: 6,
            },
            Value::Decimal(Decimal::from(-120i64)),
        ),
        (
            DataType::Decimal {
                precision: 20,
                scale: 6,
            },
            Value::Decimal(Decimal::from(0i64)),
        ),
        (
            DataType::Decimal {
                precision: 20,
                scale: 6,
            },
            Value::Decimal(Decimal::from(987654321i64)),
        ),
        (varchar(), Value::str("Hello wörld  ")),
        (
            DataType::VarChar {
                len: 10,
                collation: Collation::Utf8mb4Bin,
            },
            Value::str("a\u{1}b"),
        ),
        (
            DataType::VarBinary { len: 10 },
            Value::Bytes(vec![0, 1, 0, 255]),
        ),
        (
            DataType::Date,
            Value::Date(Date {
                year: 2020,
                month: 1,
                day: 2,
            }),
        ),
        (
            DataType::DateTime { fsp: 6 },
            Value::DateTime(DateTime {
                date: Date {
                    year: 2020,
                    month: 1,
                    day: 2,
                },
                hour: 3,
                minute: 4,
                second: 5,
                micros: 6,
            }),
        ),
        (int(), Value::Null),
    ];
    for (ty, v) in types {
        let c = KeyCol {
            col: 0,
            ty: ty.clone(),
            prefix_len: None,
        };
        let mut key = vec![9, 9];
        keycode::encode_value(&ty, None, &v, &mut key);
        let len = key.len();
        key.extend_from_slice(&[0x02, 0, 0]); // what follows must not matter
        assert_eq!(keycode::column_end(&c, &key, 2), Some(len), "{ty:?} {v:?}");
    }
}

#[test]
fn recalculated_after_ten_percent_change_and_by_analyze() {
    let e = Engine::new();
    let t = table(&e);
    fill(&e, &t, 0..200, |i| {
        vec![Value::Int(i), Value::Int(i % 10), Value::str("c")]
    });
    let s1 = t.stats();
    assert_eq!((s1.rows, s1.secondary[0][0]), (200, 10));
    // 20 changes (10%) are not enough...
    fill(&e, &t, 200..220, |i| {
        vec![Value::Int(i), Value::Int(i), Value::str("c")]
    });
    assert!(!t.stats_moved(s1.epoch));
    let s2 = t.stats();
    assert_eq!(s2.epoch, s1.epoch);
    assert_eq!(s2.secondary[0][0], 10);
    // ... one more is.
    fill(&e, &t, 220..221, |i| {
        vec![Value::Int(i), Value::Int(i), Value::str("c")]
    });
    assert!(t.stats_moved(s1.epoch));
    let s3 = t.stats();
    assert_eq!(s3.epoch, s1.epoch + 1);
    assert_eq!((s3.rows, s3.secondary[0][0]), (221, 31));
    assert!(!t.stats_moved(s3.epoch));
    // ANALYZE recomputes at once, even with nothing changed.
    let s4 = t.analyze();
    assert_eq!(s4.epoch, s3.epoch + 1);
    assert_eq!(s4.secondary, s3.secondary);
    // A small table: at least MIN_CHANGES changes.
    let e = Engine::new();
    let t = table(&e);
    fill(&e, &t, 0..5, |i| {
        vec![Value::Int(i), Value::Int(i), Value::str("c")]
    });
    let s1 = t.stats();
    fill(&e, &t, 5..(5 + super::stats::MIN_CHANGES as i64), |i| {
        vec![Value::Int(i), Value::Int(i), Value::str("c")]
    });
    assert!(!t.stats_moved(s1.epoch));
    fill(&e, &t, 100..101, |i| {
        vec![Value::Int(i), Value::Int(i), Value::str("c")]
    });
    assert!(t.stats_moved(s1.epoch));
    assert_eq!(t.stats().rows, 5 + super::stats::MIN_CHANGES + 1);
}

#[test]
fn large_indexes_are_sampled_within_bounds() {
    let e = Engine::new();
    let t = table(&e);
    let n = 30_000;
    fill(&e, &t, 0..n, |i| {
        vec![
            Value::Int(i),
            Value::Int(i / 300),                   // 100 values, in order
            Value::str(&format!("v{}", i % 1000)), // 1000 values
        ]
    });
    let s = t.stats();
    assert!(s.sampled);
    assert_eq!(s.rows, n as u64);
    assert_eq!(s.primary, vec![n as u64]);
    // Up to SKIP_BUDGET values: exact; more: sampled.
    assert_eq!(s.secondary[0][0], 100);
    assert_eq!(s.secondary[1][0], 1000);
    let near = |got: u64, want: u64| got * 2 >= want && got <= want * 2;
    assert!(near(s.secondary[0][1], 30_000), "{:?}", s.secondary);
}

#[test]
fn sampling_past_the_exact_limit_stays_close() {
    // 30,000 rows: past the exact count (10,000 entries), so the wide prefixes are sampled,
    // while prefixes with few values (1,000 and 77) are still counted exactly.
    let e = Engine::new();
    let t = table(&e);
    for chunk in 0..3 {
        fill(&e, &t, chunk * 10_000..(chunk + 1) * 10_000, |i| {
            vec![
                Value::Int(i),
                Value::Int(i % 1000),
                Value::str(&format!("v{}", i % 77)),
            ]
        });
    }
    let s = t.analyze();
    assert!(s.sampled);
    assert_eq!(s.rows, 30_000);
    assert_eq!(s.n_diff(Some(0), 1), Some(1000));
    assert_eq!(s.n_diff(Some(1), 1), Some(77));
    // (b, c): i % 1000 and i % 77 are coprime cycles, so every row is distinct.
    let wide = s.n_diff(Some(0), 2).expect("two-part prefix");
    assert!((27_000..=33_000).contains(&wide), "sampled estimate {wide}");
}
