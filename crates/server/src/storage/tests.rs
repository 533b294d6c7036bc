//! Unit tests of the engine API that do not fit a golden script: catalog errors, recovery
//! hooks, and multi-threaded stress runs that check invariants.

use super::*;
use crate::error::{Action, Error, Result};
use crate::types::{Collation, DataType};
use cohort_protocol::ErrorCode;
use rand::{Rng, SeedableRng};
use std::sync::atomic::Ordering;
use std::time::Duration;

pub(super) fn col(name: &str, ty: DataType) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        data_type: ty,
        nullable: true,
        default: ColumnDefault::Value(Value::Null),
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: None,
        generated: None,
    }
}

pub(super) fn int() -> DataType {
    DataType::Int {
        unsigned: false,
        display: Default::default(),
    }
}

pub(super) fn idx(name: &str, cols: &[usize], unique: bool) -> IndexDef {
    IndexDef {
        name: name.into(),
        parts: cols
            .iter()
            .map(|&c| IndexPart {
                column: c,
                prefix_len: None,
            })
            .collect(),
        unique,
        implicit: false,
    }
}

/// `t(id INT PRIMARY KEY, k INT, c VARCHAR, KEY k(k))`, the sysbench shape.
fn sbtest(name: &str) -> TableDef {
    TableDef {
        name: name.into(),
        columns: vec![
            col("id", int()),
            col("k", int()),
            col(
                "c",
                DataType::VarChar {
                    len: 120,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            ),
        ],
        primary_key: Some(idx("PRIMARY", &[0], true)),
        indexes: vec![idx("k", &[1], false)],
        engine: "InnoDB".into(),
        auto_increment_start: 1,
        comment: None,
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        default_collation: crate::types::Collation::Utf8mb4GeneralCi,
    }
}

fn read_committed() -> TxnOptions {
    TxnOptions {
        isolation: IsolationLevel::ReadCommitted,
        ..TxnOptions::default()
    }
}

fn setup() -> (Arc<Engine>, Arc<Table>) {
    let e = Engine::new();
    e.create_database("db", false).unwrap();
    assert!(e.create_table("db", sbtest("t"), false).unwrap());
    let t = e.table("db", "t").unwrap();
    (e, t)
}

fn row(id: i64, k: i64, c: &str) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(k), Value::str(c)]
}

fn count(t: &Table, txn: &mut Txn, index: Option<usize>) -> usize {
    let mut n = 0;
    let mut f = |_: &RowHandle, _: &Row| {
        n += 1;
        Ok(ScanControl::Continue)
    };
    match index {
        None => t
            .scan_primary(txn, &KeyRange::all(), LockMode::None, &mut f)
            .unwrap(),
        Some(i) => t
            .scan_index(txn, i, &KeyRange::all(), LockMode::None, &mut f)
            .unwrap(),
    }
    n
}

#[test]
fn catalog_errors_have_mysql_codes() {
    let e = Engine::new();
    let code = |r: Result<(), Error>| r.unwrap_err().code();
    assert_eq!(e.table("nodb", "t").unwrap_err().code(), ErrorCode::BadDb);
    assert_eq!(e.tables("nodb").unwrap_err().code(), ErrorCode::BadDb);
    e.create_database("b", false).unwrap();
    e.create_database("a", false).unwrap();
    e.create_database("a", true).unwrap();
    assert_eq!(
        code(e.create_database("a", false)),
        ErrorCode::DbCreateExists
    );
    assert_eq!(e.databases(), vec!["a".to_string(), "b".to_string()]);
    assert_eq!(
        e.create_table("nodb", sbtest("t"), false)
            .unwrap_err()
            .code(),
        ErrorCode::BadDb
    );
    assert!(e.create_table("a", sbtest("t2"), false).unwrap());
    assert!(e.create_table("a", sbtest("t1"), false).unwrap());
    assert!(!e.create_table("a", sbtest("t1"), true).unwrap());
    assert_eq!(
        e.create_table("a", sbtest("t1"), false).unwrap_err().code(),
        ErrorCode::TableExists
    );
    assert_eq!(e.tables("a").unwrap(), vec!["t1", "t2"]);
    // Names are case-sensitive.
    assert_eq!(
        e.table("a", "T1").unwrap_err().code(),
        ErrorCode::NoSuchTable
    );
    let mut bad = sbtest("bad");
    bad.columns.push(col("ID", int()));
    assert_eq!(
        e.create_table("a", bad, false).unwrap_err().code(),
        ErrorCode::DupFieldName
    );
    let mut bad = sbtest("bad");
    bad.indexes.push(idx("K", &[2], false));
    assert_eq!(
        e.create_table("a", bad, false).unwrap_err().code(),
        ErrorCode::DupKeyName
    );
    let mut bad = sbtest("bad");
    bad.indexes.push(idx("PRIMARY", &[2], true));
    assert_eq!(
        e.create_table("a", bad, false).unwrap_err().code(),
        ErrorCode::MultiplePriKey
    );
    let mut bad = sbtest("bad");
    bad.indexes.push(idx("x", &[7], false));
    assert_eq!(
        e.create_table("a", bad, false).unwrap_err().code(),
        ErrorCode::KeyColumnDoesNotExist
    );
    assert_eq!(
        code(e.create_index("a", "t1", idx("k", &[2], false))),
        ErrorCode::DupKeyName
    );
    assert_eq!(
        code(e.drop_index("a", "t1", "nope")),
        ErrorCode::CantDropFieldOrKey
    );
    let t1 = e.table("a", "t1").unwrap();
    let v = t1.schema_version();
    e.create_index("a", "t1", idx("c", &[2], false)).unwrap();
    assert!(t1.schema_version() > v);
    assert_eq!(
        e.drop_table("a", "zz", false).unwrap_err().code(),
        ErrorCode::BadTable
    );
    assert!(!e.drop_table("a", "zz", true).unwrap());
    assert!(e.table_by_id(t1.id()).is_some());
    e.drop_database("a", false).unwrap();
    assert!(t1.is_dropped());
    assert!(e.table_by_id(t1.id()).is_none());
    assert_eq!(code(e.drop_database("a", false)), ErrorCode::DbDropExists);
    e.drop_database("a", true).unwrap();
    let mut txn = e.begin();
    assert_eq!(
        t1.insert(&mut txn, row(1, 1, "x")).unwrap_err().code(),
        ErrorCode::NoSuchTable
    );
}

#[test]
fn table_ids_are_stable_and_distinct() {
    let e = Engine::new();
    e.create_database("d", false).unwrap();
    e.create_table("d", sbtest("a"), false).unwrap();
    e.create_table("d", sbtest("b"), false).unwrap();
    let a = e.table("d", "a").unwrap().id();
    let b = e.table("d", "b").unwrap().id();
    assert_ne!(a, b);
    e.drop_table("d", "a", false).unwrap();
    e.create_table("d", sbtest("a"), false).unwrap();
    let a2 = e.table("d", "a").unwrap().id();
    assert!(a2 != a && a2 != b);
}

#[test]
fn checkpoint_and_recovery_round_trip() {
    let (e, t) = setup();
    let mut txn = e.begin();
    for i in 1..=5 {
        t.insert(&mut txn, row(i, i * 10, "c")).unwrap();
        t.observe_auto_increment(i as u64);
    }
    e.commit(txn);
    // An uncommitted change is not in the checkpoint.
    let mut open = e.begin();
    let (h, _) = t
        .get(&mut open, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap()
        .unwrap();
    t.update(&mut open, &h, row(1, 999, "dirty")).unwrap();

    let snap = e.catalog_snapshot();
    assert_eq!(snap.databases, vec!["db"]);
    assert_eq!(snap.tables.len(), 1);
    let mut rows = Vec::new();
    snap.tables[0]
        .table
        .scan_committed(&mut |r| {
            rows.push(r.clone());
            Ok(ScanControl::Continue)
        })
        .unwrap();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0][1], Value::Int(10));
    e.rollback(open);

    // Restore into a fresh engine and replay a log.
    let e2 = Engine::new();
    e2.create_database("db", false).unwrap();
    let ts = &snap.tables[0];
    let t2 = e2
        .restore_table(&ts.db, (*ts.def).clone(), ts.id, ts.auto_increment)
        .unwrap();
    assert_eq!(t2.id(), t.id());
    assert_eq!(t2.auto_increment_peek(), 6);
    for r in &rows {
        e2.apply_recovered(ts.id, None, Some(r.clone())).unwrap();
    }
    // Replay: update 2, delete 3, insert 6, move 4 → 40; replayed twice (idempotent).
    for _ in 0..2 {
        e2.apply_recovered(ts.id, Some(&rows[1]), Some(row(2, 21, "u").into()))
            .unwrap();
        e2.apply_recovered(ts.id, Some(&rows[2]), None).unwrap();
        e2.apply_recovered(ts.id, None, Some(row(6, 60, "n").into()))
            .unwrap();
        e2.apply_recovered(ts.id, Some(&rows[3]), Some(row(40, 40, "m").into()))
            .unwrap();
    }
    let mut txn = e2.begin();
    let mut got = Vec::new();
    t2.scan_index(
        &mut txn,
        0,
        &KeyRange::all(),
        LockMode::None,
        &mut |_, r| {
            got.push((r[0].clone(), r[1].clone()));
            Ok(ScanControl::Continue)
        },
    )
    .unwrap();
    let want: Vec<(Value, Value)> = [(1, 10), (2, 21), (40, 40), (5, 50), (6, 60)]
        .iter()
        .map(|&(a, b)| (Value::Int(a), Value::Int(b)))
        .collect();
    assert_eq!(got, want);
    assert_eq!(t2.approx_rows(), 5);
    assert!(e2.table_by_id(TableId(ts.id.0)).is_some());
    // New ids are allocated above restored ones.
    e2.create_table("db", sbtest("other"), false).unwrap();
    assert!(e2.table("db", "other").unwrap().id() > ts.id);
}

#[test]
fn lock_waits_go_through_the_wait_api() {
    let (e, t) = setup();
    let mut a = e.begin();
    t.insert(&mut a, row(1, 1, "x")).unwrap();
    e.commit(a);
    let before = crate::wait::summary()[0].count_star;
    let mut a = e.begin();
    t.get(&mut a, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap()
        .unwrap();
    let mut b = e.begin();
    b.set_lock_wait_timeout(Duration::from_millis(20));
    let err = t
        .get(&mut b, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::LockWaitTimeout);
    assert_eq!(err.action(), Action::RollbackStatement);
    assert!(crate::wait::summary()[0].count_star > before);
    e.rollback(a);
    e.rollback(b);
}

#[test]
fn dropping_an_open_txn_rolls_it_back() {
    let (e, t) = setup();
    {
        let mut a = e.begin();
        t.insert(&mut a, row(1, 1, "x")).unwrap();
        assert!(a.has_changes());
        assert_eq!(a.lock_count(), 1);
    }
    let mut b = e.begin();
    b.set_lock_wait_timeout(Duration::from_millis(20));
    assert!(t
        .get(&mut b, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap()
        .is_none());
    assert!(!b.has_changes());
    // The empty slot of the rolled-back insert was collected.
    assert_eq!(count(&t, &mut b, None), 0);
    assert_eq!(t.approx_rows(), 0);
}

#[test]
fn rowchange_images_and_order() {
    let (e, t) = setup();
    let mut a = e.begin();
    t.insert(&mut a, row(2, 2, "b")).unwrap();
    t.insert(&mut a, row(1, 1, "a")).unwrap();
    e.commit(a);
    let mut a = e.begin();
    let (h1, _) = t
        .get(&mut a, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap()
        .unwrap();
    let (h2, _) = t
        .get(&mut a, &[Value::Int(2)], LockMode::Exclusive)
        .unwrap()
        .unwrap();
    t.delete(&mut a, &h2).unwrap();
    t.update(&mut a, &h1, row(1, 5, "a")).unwrap();
    t.update(&mut a, &h1, row(1, 6, "a")).unwrap();
    t.insert(&mut a, row(3, 3, "c")).unwrap();
    e.prepare(&mut a).unwrap();
    assert!(a.is_prepared());
    let ch = a.changes();
    e.commit(a);
    assert_eq!(ch.len(), 3);
    assert_eq!(ch[0].after, None);
    assert_eq!(ch[0].before.as_deref(), Some(&row(2, 2, "b")[..]));
    assert_eq!(ch[1].before.as_deref(), Some(&row(1, 1, "a")[..]));
    assert_eq!(ch[1].after.as_deref(), Some(&row(1, 6, "a")[..]));
    assert_eq!(ch[2].before, None);
    assert_eq!(ch[2].table.id(), t.id());
    assert_eq!(t.approx_rows(), 2);
}

/// Transfers between accounts from several threads, in random order (so deadlocks happen),
/// with retries on 1213 / 1205: the total never changes and indexes stay consistent.
#[test]
fn stress_transfers_keep_the_total() {
    let (e, t) = setup();
    const ACCOUNTS: i64 = 20;
    let mut a = e.begin();
    for i in 0..ACCOUNTS {
        t.insert(&mut a, row(i, 100, "acct")).unwrap();
    }
    e.commit(a);
    let threads: Vec<_> = (0..4)
        .map(|seed| {
            let e = e.clone();
            let t = t.clone();
            std::thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                let mut deadlocks = 0;
                let mut done = 0;
                while done < 300 {
                    let mut txn = e.begin();
                    txn.set_lock_wait_timeout(Duration::from_secs(5));
                    let from = rng.gen_range(0..ACCOUNTS);
                    let to = (from + rng.gen_range(1..ACCOUNTS)) % ACCOUNTS;
                    let amount = rng.gen_range(1..10);
                    let r = (|| -> Result<()> {
                        for (id, delta) in [(from, -amount), (to, amount)] {
                            let sp = e.savepoint(&txn);
                            let (h, r) = t
                                .get(&mut txn, &[Value::Int(id)], LockMode::Exclusive)?
                                .expect("account");
                            let Value::Int(k) = r[1] else { panic!() };
                            match t.update(&mut txn, &h, row(id, k + delta, "acct")) {
                                Ok(InsertOutcome::Inserted(_)) => {}
                                Ok(other) => panic!("{other:?}"),
                                Err(e2) => {
                                    e.rollback_to_savepoint(&mut txn, sp);
                                    return Err(e2);
                                }
                            }
                        }
                        Ok(())
                    })();
                    match r {
                        Ok(()) => {
                            e.commit(txn);
                            done += 1;
                        }
                        Err(err) => {
                            assert!(matches!(
                                err.code(),
                                ErrorCode::LockDeadlock | ErrorCode::LockWaitTimeout
                            ));
                            deadlocks += 1;
                            e.rollback(txn);
                        }
                    }
                }
                deadlocks
            })
        })
        .collect();
    // Snapshot readers open and close views all the time, so that writers' commits race
    // with views being taken (mvcc.rs, "Commits with no open view"): every snapshot holds
    // the whole total, and twice the same one within a transaction.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (e, t, stop) = (e.clone(), t.clone(), stop.clone());
            std::thread::spawn(move || {
                let sum = |txn: &mut Txn| {
                    let mut total = 0;
                    t.scan_primary(txn, &KeyRange::all(), LockMode::None, &mut |_, r| {
                        let Value::Int(k) = r[1] else { panic!() };
                        total += k;
                        Ok(ScanControl::Continue)
                    })
                    .unwrap();
                    total
                };
                let mut reads = 0;
                while !stop.load(Ordering::Relaxed) {
                    let mut txn = e.begin();
                    assert_eq!(sum(&mut txn), 100 * ACCOUNTS);
                    std::thread::yield_now();
                    assert_eq!(sum(&mut txn), 100 * ACCOUNTS);
                    e.rollback(txn);
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    let deadlocks: u64 = threads.into_iter().map(|h| h.join().unwrap()).sum();
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    let mut txn = e.begin();
    let mut total = 0;
    t.scan_primary(&mut txn, &KeyRange::all(), LockMode::None, &mut |_, r| {
        let Value::Int(k) = r[1] else { panic!() };
        total += k;
        Ok(ScanControl::Continue)
    })
    .unwrap();
    assert_eq!(total, 100 * ACCOUNTS);
    assert_eq!(count(&t, &mut txn, Some(0)), ACCOUNTS as usize);
    assert_eq!(e.deadlock_count(), deadlocks);
}

/// Concurrent inserts and deletes of a small key space through a UNIQUE index: at the end
/// the primary and unique indexes agree and hold no duplicates.
#[test]
fn stress_unique_inserts_and_deletes() {
    let e = Engine::new();
    e.create_database("db", false).unwrap();
    let mut def = sbtest("u");
    def.indexes = vec![idx("k_u", &[1], true)];
    e.create_table("db", def, false).unwrap();
    let t = e.table("db", "u").unwrap();
    let threads: Vec<_> = (0..4)
        .map(|seed| {
            let e = e.clone();
            let t = t.clone();
            std::thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(100 + seed);
                for _ in 0..400 {
                    let mut txn = e.begin();
                    txn.set_lock_wait_timeout(Duration::from_secs(5));
                    let id = rng.gen_range(0..16);
                    let k = rng.gen_range(0..8);
                    let r: Result<()> = if rng.gen_bool(0.6) {
                        t.insert(&mut txn, row(id, k, "x")).map(|_| ())
                    } else {
                        match t.get(&mut txn, &[Value::Int(id)], LockMode::Exclusive) {
                            Ok(Some((h, _))) => t.delete(&mut txn, &h),
                            Ok(None) => Ok(()),
                            Err(e) => Err(e),
                        }
                    };
                    match r {
                        Ok(()) if rng.gen_bool(0.8) => {
                            e.commit(txn);
                        }
                        _ => e.rollback(txn),
                    }
                }
            })
        })
        .collect();
    for h in threads {
        h.join().unwrap();
    }
    // Deleted rows leave the index once purge is through with their old versions.
    e.purge_now(usize::MAX);
    let mut txn = e.begin();
    let mut ks = Vec::new();
    t.scan_index(
        &mut txn,
        0,
        &KeyRange::all(),
        LockMode::None,
        &mut |_, r| {
            ks.push(r[1].clone());
            Ok(ScanControl::Continue)
        },
    )
    .unwrap();
    let n = ks.len();
    ks.dedup();
    assert_eq!(ks.len(), n, "duplicate unique keys");
    assert_eq!(count(&t, &mut txn, None), n);
    assert_eq!(t.approx_rows() as usize, n);
    // No index entry is left behind that does not belong to a committed row.
    let st = t.state_for_tests();
    assert_eq!(st.0, n);
    assert_eq!(st.1, n);
}

#[test]
fn shared_types_are_send_and_sync() {
    fn send<T: Send>() {}
    fn send_sync<T: Send + Sync>() {}
    send::<Txn>();
    send_sync::<Engine>();
    send_sync::<Table>();
    send_sync::<RowHandle>();
    send_sync::<RowChange>();
}

#[test]
fn long_scans_cross_batches_in_both_directions() {
    let (e, t) = setup();
    let mut a = e.begin();
    for i in 0..1000 {
        t.insert(&mut a, row(i, 1000 - i, "x")).unwrap();
    }
    e.commit(a);
    let mut txn = e.begin();
    let mut ids = Vec::new();
    t.scan_backward(
        &mut txn,
        Some(0),
        &KeyRange::all(),
        LockMode::None,
        &mut |_, r| {
            ids.push(r[0].clone());
            Ok(ScanControl::Continue)
        },
    )
    .unwrap();
    let want: Vec<Value> = (0..1000).map(Value::Int).collect();
    assert_eq!(ids, want);
    let range = KeyRange {
        start: std::ops::Bound::Excluded(vec![Value::Int(10)]),
        end: std::ops::Bound::Included(vec![Value::Int(600)]),
    };
    let mut n = 0;
    t.scan_primary(&mut txn, &range, LockMode::Exclusive, &mut |_, _| {
        n += 1;
        Ok(if n == 500 {
            ScanControl::Stop
        } else {
            ScanControl::Continue
        })
    })
    .unwrap();
    assert_eq!(n, 500);
    assert_eq!(txn.lock_count(), 500);
}

/// Writers make uncommitted changes (moving rows in index `k`, marking them 'dirty') and roll
/// them back, while readers scan both indexes and read by key: no reader ever sees them.
#[test]
fn stress_no_dirty_reads() {
    let (e, t) = setup();
    let mut a = e.begin();
    for i in 0..50 {
        t.insert(&mut a, row(i, i, "clean")).unwrap();
    }
    e.commit(a);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = (0..2)
        .map(|seed| {
            let (e, t, stop) = (e.clone(), t.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(7 + seed);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let mut txn = e.begin_with(read_committed());
                    for _ in 0..3 {
                        let id = rng.gen_range(0..50);
                        if let Ok(Some((h, _))) =
                            t.get(&mut txn, &[Value::Int(id)], LockMode::Exclusive)
                        {
                            let k = rng.gen_range(-100..1000);
                            if rng.gen_bool(0.5) {
                                t.update(&mut txn, &h, row(id, k, "dirty")).unwrap();
                            } else {
                                t.delete(&mut txn, &h).unwrap();
                            }
                        }
                    }
                    // Two inserters of one key can deadlock (both S-lock the slot a third one's
                    // rolled-back insert left, then both upgrade), as in InnoDB: only 1213.
                    match t.insert(&mut txn, row(1000 + rng.gen_range(0..10), 5, "dirty")) {
                        Ok(_) => {}
                        Err(e) => assert_eq!(e.action(), Action::RollbackTransaction, "{e}"),
                    }
                    std::thread::yield_now();
                    e.rollback(txn);
                }
            })
        })
        .collect();
    let mut txn = e.begin_with(read_committed());
    for round in 0..300 {
        // A fresh read view per round (statement), as READ COMMITTED takes them.
        txn.start_statement();
        let mut n = 0;
        let mut check = |_: &RowHandle, r: &Row| {
            assert_eq!(r[2], Value::str("clean"), "dirty read in round {round}");
            assert_eq!(r[0], r[1]);
            n += 1;
            Ok(ScanControl::Continue)
        };
        if round % 2 == 0 {
            t.scan_index(&mut txn, 0, &KeyRange::all(), LockMode::None, &mut check)
                .unwrap();
        } else {
            t.scan_primary(&mut txn, &KeyRange::all(), LockMode::None, &mut check)
                .unwrap();
        }
        assert_eq!(n, 50);
        let id = round % 50;
        let (_, r) = t
            .get(&mut txn, &[Value::Int(id)], LockMode::None)
            .unwrap()
            .unwrap();
        assert_eq!(r[2], Value::str("clean"));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(t.state_for_tests(), (50, 50));
}

/// Update row 1 of `t` to `row(1, k, c)` in its own transaction and commit it.
fn update_one(e: &Engine, t: &Table, k: i64, c: &str) {
    let mut a = e.begin();
    let (h, _) = t
        .get(&mut a, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap()
        .unwrap();
    t.update(&mut a, &h, row(1, k, c)).unwrap();
    e.commit(a);
}

#[test]
fn a_commit_with_no_open_view_leaves_nothing_for_purge() {
    let (e, t) = setup();
    e.manual_purge();
    let mut a = e.begin();
    t.insert(&mut a, row(1, 1, "v1")).unwrap();
    e.commit(a);
    let purged = e.purge_stats().versions_purged.load(Ordering::Relaxed);
    // No read view is open: the version the update supersedes is dropped at its commit.
    update_one(&e, &t, 2, "v2");
    assert_eq!(e.purge_backlog(), 0);
    assert_eq!(
        e.purge_stats().versions_purged.load(Ordering::Relaxed),
        purged + 1
    );
    // A view is open: the superseded version is kept for it and queued for purge.
    let mut r = e.begin();
    let seen = |r: &mut Txn| {
        let (_, row) = t.get(r, &[Value::Int(1)], LockMode::None).unwrap().unwrap();
        row[2].clone()
    };
    assert_eq!(seen(&mut r), Value::str("v2"));
    update_one(&e, &t, 3, "v3");
    assert_eq!(e.purge_backlog(), 1);
    assert_eq!(seen(&mut r), Value::str("v2"));
    // The view closes: the next update drops at once again.
    e.rollback(r);
    update_one(&e, &t, 4, "v4");
    assert_eq!(e.purge_backlog(), 1);
    e.purge_now(100);
    assert_eq!(e.purge_backlog(), 0);
    let mut r = e.begin();
    assert_eq!(seen(&mut r), Value::str("v4"));
}

#[test]
fn a_lone_read_takes_no_view_and_sees_the_published_commit() {
    let (e, t) = setup();
    let mut a = e.begin();
    t.insert(&mut a, row(1, 1, "v1")).unwrap();
    e.commit(a);
    let autocommit = TxnOptions {
        autocommit: true,
        ..TxnOptions::default()
    };
    let lone = |e: &Engine, opts: TxnOptions| {
        let mut r = e.begin_with(opts);
        r.set_lone_read();
        let (_, row) = t
            .get(&mut r, &[Value::Int(1)], LockMode::None)
            .unwrap()
            .unwrap();
        let view = r.snapshot();
        e.rollback(r);
        (row[2].clone(), view)
    };
    // Autocommit: the newest published version, without a read view.
    assert_eq!(lone(&e, autocommit), (Value::str("v1"), None));
    update_one(&e, &t, 2, "v2");
    assert_eq!(lone(&e, autocommit), (Value::str("v2"), None));
    // In an explicit transaction the mark is ignored: the read takes the view it keeps.
    let (v, view) = lone(&e, TxnOptions::default());
    assert_eq!(v, Value::str("v2"));
    assert!(view.is_some());
    // The mark is taken by the next read, whatever it is: a later read takes a view.
    let mut r = e.begin_with(autocommit);
    r.set_lone_read();
    assert_eq!(count(&t, &mut r, None), 1);
    t.get(&mut r, &[Value::Int(1)], LockMode::None).unwrap();
    assert!(r.snapshot().is_some());
    e.rollback(r);
}
