//! Round-trip property tests (values, row images, whole transactions) and damage handling
//! (torn tails, corrupt bytes, the in-use flag, failed writes).

mod common;

use std::sync::Arc;

use cohort_binlog::*;
use proptest::prelude::*;

fn kind_strategy() -> impl Strategy<Value = ColumnKind> {
    use ColumnKind::*;
    prop_oneof![
        any::<bool>().prop_map(|unsigned| Tiny { unsigned }),
        any::<bool>().prop_map(|unsigned| Short { unsigned }),
        any::<bool>().prop_map(|unsigned| Int24 { unsigned }),
        any::<bool>().prop_map(|unsigned| Long { unsigned }),
        any::<bool>().prop_map(|unsigned| LongLong { unsigned }),
        Just(Float),
        Just(Double),
        (1u8..=65)
            .prop_flat_map(|p| (Just(p), 0..=p.min(38)))
            .prop_map(|(precision, scale)| NewDecimal { precision, scale }),
        (0u16..=1023).prop_map(|max_bytes| String { max_bytes }),
        prop_oneof![0u16..=300, 0u16..=u16::MAX].prop_map(|max_bytes| VarString { max_bytes }),
        (1u8..=4).prop_map(|len_bytes| Blob { len_bytes }),
        Just(Date),
        (0u8..=6).prop_map(|fsp| DateTime2 { fsp }),
        (0u8..=6).prop_map(|fsp| Timestamp2 { fsp }),
        Just(Year),
        (1u8..=2).prop_map(|pack_len| Enum { pack_len }),
        (1u8..=8).prop_map(|pack_len| Set { pack_len }),
        (0u8..=6).prop_map(|fsp| Time2 { fsp }),
        (1u8..=64).prop_map(|bits| Bit { bits }),
    ]
}

fn micro_strategy(fsp: u8) -> impl Strategy<Value = u32> {
    let unit = 10u32.pow(6 - fsp as u32);
    (0..10u32.pow(fsp as u32)).prop_map(move |k| k * unit)
}

/// Canonical decimal text from digit vectors.
fn decimal_text(negative: bool, int_digits: &[u8], frac_digits: &[u8]) -> std::string::String {
    let int: std::string::String = int_digits.iter().map(|d| (b'0' + d) as char).collect();
    let int = int.trim_start_matches('0');
    let frac: std::string::String = frac_digits.iter().map(|d| (b'0' + d) as char).collect();
    let zero = int.is_empty() && frac.bytes().all(|b| b == b'0');
    let mut s = std::string::String::new();
    if negative && !zero {
        s.push('-');
    }
    s.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        s.push('.');
        s.push_str(&frac);
    }
    s
}

/// Canonical (decoder-form) non-NULL values of a kind.
fn value_strategy(kind: ColumnKind) -> BoxedStrategy<BinValue<'static>> {
    use ColumnKind::*;
    let bytes = |max: usize| {
        prop::collection::vec(any::<u8>(), 0..=max)
            .prop_map(|v| BinValue::Bytes(v.into()))
            .boxed()
    };
    match kind {
        Tiny { unsigned: false } => any::<i8>().prop_map(|v| BinValue::Int(v as i64)).boxed(),
        Tiny { unsigned: true } => any::<u8>().prop_map(|v| BinValue::UInt(v as u64)).boxed(),
        Short { unsigned: false } => any::<i16>().prop_map(|v| BinValue::Int(v as i64)).boxed(),
        Short { unsigned: true } => any::<u16>().prop_map(|v| BinValue::UInt(v as u64)).boxed(),
        Int24 { unsigned: false } => (-8_388_608i64..=8_388_607).prop_map(BinValue::Int).boxed(),
        Int24 { unsigned: true } => (0u64..=16_777_215).prop_map(BinValue::UInt).boxed(),
        Long { unsigned: false } => any::<i32>().prop_map(|v| BinValue::Int(v as i64)).boxed(),
        Long { unsigned: true } => any::<u32>().prop_map(|v| BinValue::UInt(v as u64)).boxed(),
        LongLong { unsigned: false } => any::<i64>().prop_map(BinValue::Int).boxed(),
        LongLong { unsigned: true } => any::<u64>().prop_map(BinValue::UInt).boxed(),
        Float => any::<f32>()
            .prop_filter("NaN", |f| !f.is_nan())
            .prop_map(BinValue::Float)
            .boxed(),
        Double => any::<f64>()
            .prop_filter("NaN", |f| !f.is_nan())
            .prop_map(BinValue::Double)
            .boxed(),
        NewDecimal { precision, scale } => {
            let intg = (precision - scale) as usize;
            (
                any::<bool>(),
                prop::collection::vec(0u8..10, 0..=intg),
                prop::collection::vec(0u8..10, scale as usize),
            )
                .prop_map(|(neg, i, f)| {
                    BinValue::Decimal(decimal_text(neg, &i, &f).parse().unwrap())
                })
                .boxed()
        }
        String { max_bytes } | VarString { max_bytes } => bytes((max_bytes as usize).min(600)),
        Blob { len_bytes } => bytes(if len_bytes == 1 { 255 } else { 700 }),
        Date => (0u16..=9999, 0u8..=12, 0u8..=31)
            .prop_map(|(year, month, day)| BinValue::Date { year, month, day })
            .boxed(),
        DateTime2 { fsp } => (
            (0u16..=9999, 0u8..=12, 0u8..=31),
            (0u8..=23, 0u8..=59, 0u8..=59),
            micro_strategy(fsp),
        )
            .prop_map(
                |((year, month, day), (hour, minute, second), micro)| BinValue::DateTime {
                    year,
                    month,
                    day,
                    hour,
                    minute,
                    second,
                    micro,
                },
            )
            .boxed(),
        Timestamp2 { fsp } => (any::<u32>(), micro_strategy(fsp))
            .prop_map(|(secs, micro)| BinValue::Timestamp { secs, micro })
            .boxed(),
        Year => prop_oneof![Just(0i64), 1901i64..=2155]
            .prop_map(BinValue::Int)
            .boxed(),
        Enum { pack_len: n } | Set { pack_len: n } => {
            let max = if n >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * n)) - 1
            };
            (0..=max).prop_map(BinValue::UInt).boxed()
        }
        Time2 { fsp } => (any::<bool>(), 0i64..=3_020_399, micro_strategy(fsp))
            .prop_map(|(neg, secs, micro)| {
                let v = secs * 1_000_000 + i64::from(micro);
                BinValue::Time {
                    micros: if neg { -v } else { v },
                }
            })
            .boxed(),
        Bit { bits } => any::<u64>()
            .prop_map(move |v| BinValue::UInt(if bits == 64 { v } else { v & ((1 << bits) - 1) }))
            .boxed(),
    }
}

fn column_strategy() -> impl Strategy<Value = ColumnDef> {
    (kind_strategy(), any::<bool>()).prop_map(|(kind, nullable)| ColumnDef { kind, nullable })
}

fn cell_strategy(col: ColumnDef) -> BoxedStrategy<BinValue<'static>> {
    if col.nullable {
        prop_oneof![1 => Just(BinValue::Null), 4 => value_strategy(col.kind)].boxed()
    } else {
        value_strategy(col.kind)
    }
}

fn row_strategy(cols: &[ColumnDef]) -> Vec<BoxedStrategy<BinValue<'static>>> {
    cols.iter().map(|c| cell_strategy(*c)).collect()
}

fn change_strategy(cols: &[ColumnDef]) -> BoxedStrategy<RowChange<'static>> {
    prop_oneof![
        row_strategy(cols).prop_map(RowChange::Insert),
        (row_strategy(cols), row_strategy(cols))
            .prop_map(|(before, after)| RowChange::Update { before, after }),
        row_strategy(cols).prop_map(RowChange::Delete),
    ]
    .boxed()
}

#[derive(Debug, Clone)]
struct Txn {
    commit_id: Option<u64>,
    /// (table index, changes, annotate)
    statements: Vec<(usize, Vec<RowChange<'static>>, bool)>,
}

fn workload_strategy() -> impl Strategy<Value = (Vec<TableMap>, Vec<Txn>, usize)> {
    prop::collection::vec(prop::collection::vec(column_strategy(), 1..=10), 1..=3).prop_flat_map(
        |col_sets| {
            let tables: Vec<TableMap> = col_sets
                .into_iter()
                .enumerate()
                .map(|(i, columns)| TableMap {
                    table_id: TableId(100 + i as u64),
                    db: "db".into(),
                    table: format!("t{i}"),
                    // SIGNEDNESS is written (and read back) only for a table with a
                    // numeric column.
                    meta: if columns.iter().any(|c| c.kind.is_numeric()) {
                        TableMeta::signedness()
                    } else {
                        TableMeta::default()
                    },
                    columns,
                })
                .collect();
            let shared = Arc::new(tables.clone());
            let statement = (0..tables.len()).prop_flat_map(move |ti| {
                let cols = shared[ti].columns.clone();
                (
                    Just(ti),
                    prop::collection::vec(change_strategy(&cols), 0..=12),
                    any::<bool>(),
                )
            });
            let txn = (
                prop::option::of(any::<u64>()),
                prop::collection::vec(statement, 0..=4),
            )
                .prop_map(|(commit_id, statements)| Txn {
                    commit_id,
                    statements,
                });
            (
                Just(tables),
                prop::collection::vec(txn, 1..=4),
                40usize..=3000,
            )
        },
    )
}

/// Rows-event overhead besides row images: header, post-header, ncols, bitmaps, CRC.
fn rows_overhead(ncols: usize, kind: RowsKind) -> usize {
    let bitmaps = ncols.div_ceil(8) * if kind == RowsKind::Update { 2 } else { 1 };
    HEADER_LEN + 8 + 1 + bitmaps + CHECKSUM_LEN
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn row_image_roundtrip(cells in prop::collection::vec(column_strategy(), 1..=40)
        .prop_flat_map(|cols| { let row = row_strategy(&cols); (Just(cols), row) })) {
        let (cols, row) = cells;
        let mut bytes = vec![0xaa];
        encode_row_image(&cols, &row, &mut bytes).unwrap();
        let (decoded, used) = decode_row_image(&cols, &bytes[1..]).unwrap();
        prop_assert_eq!(used, bytes.len() - 1);
        prop_assert_eq!(decoded, row);
    }

    #[test]
    fn decimal_roundtrip_and_order(p in 1u8..=38, s_seed in 0u8..=38, a in any::<i128>(), b in any::<i128>()) {
        let s = s_seed % (p + 1);
        let limit = 10i128.pow(p as u32);
        let (a, b) = (a % limit, b % limit);
        let text = |v: i128| {
            let digits = format!("{:0width$}", v.unsigned_abs(), width = s as usize + 1);
            let (i, f) = digits.split_at(digits.len() - s as usize);
            let body = if s > 0 { format!("{i}.{f}") } else { i.to_string() };
            if v < 0 { format!("-{body}") } else { body }
        };
        let enc = |v: i128| {
            let mut out = Vec::new();
            decimal::encode_text(&text(v), p, s, &mut out).unwrap();
            out
        };
        let (ea, eb) = (enc(a), enc(b));
        prop_assert_eq!(decimal::decode_text(&ea, p, s).unwrap(), text(a));
        prop_assert_eq!(decimal::decode(&ea, p, s).unwrap().to_string(), text(a));
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn transactions_roundtrip((tables, txns, max_rows) in workload_strategy()) {
        let head = FileHeader::new(ServerId(9), 1_000).encode(true).unwrap();
        let mut w = EventWriter::with_buffer(head, BinlogPos(0), ServerId(9), 1_001);
        w.set_max_rows_event_size(max_rows);
        let mut spans = Vec::new();
        for (n, t) in txns.iter().enumerate() {
            let annotations: Vec<std::string::String> =
                t.statements.iter().map(|(ti, _, _)| format!("UPDATE t{ti} SET x=x")).collect();
            let statements: Vec<RowsStatement<'_>> = t
                .statements
                .iter()
                .zip(&annotations)
                .map(|((ti, changes, ann), sql)| RowsStatement {
                    table: &tables[*ti],
                    changes,
                    annotate: ann.then_some(sql.as_str()),
                    rows_flags: 0,
                    ignorable: false,
                })
                .collect();
            let txn = Transaction {
                gtid: GtidEvent::transaction(GtidSeq(n as u64 + 1), 3, t.commit_id),
                statements: &statements,
                xid: Xid(500 + n as u64),
            };
            let before = w.position();
            let span = w.write_transaction(&txn).unwrap();
            prop_assert!(txn.size_hint(max_rows) as u64 >= span.end.0 - span.start.0);
            prop_assert_eq!(span.start, before);
            prop_assert_eq!(span.end, w.position());
            spans.push(span);
        }
        w.write_stop().unwrap();
        let bytes = w.into_bytes();

        let outcome = read_all(&bytes);
        prop_assert_eq!(&outcome.error, &None);
        prop_assert_eq!(outcome.valid_end.0, bytes.len() as u64);
        let mut events = outcome.events.into_iter().peekable();
        // Header: FDE (in use), empty Gtid_list.
        let fde = events.next().unwrap();
        prop_assert_eq!(fde.header.flags, LOG_EVENT_BINLOG_IN_USE_F);
        prop_assert!(matches!(events.next().unwrap().event, Event::GtidList(ref l) if l.gtids.is_empty()));

        for (n, t) in txns.iter().enumerate() {
            let g = events.next().unwrap();
            prop_assert_eq!(g.pos, spans[n].start);
            prop_assert_eq!(g.event, Event::Gtid(GtidEvent::transaction(GtidSeq(n as u64 + 1), 3, t.commit_id)));
            for (ti, changes, ann) in &t.statements {
                if changes.is_empty() {
                    continue;
                }
                if *ann {
                    prop_assert_eq!(events.next().unwrap().event, Event::AnnotateRows(format!("UPDATE t{ti} SET x=x")));
                }
                prop_assert_eq!(events.next().unwrap().event, Event::TableMap(tables[*ti].clone()));
                let mut got = Vec::new();
                loop {
                    let ev = events.next().unwrap();
                    let Event::Rows(r) = ev.event else { panic!("expected rows, got {:?}", ev.event) };
                    prop_assert_eq!(r.table_id, tables[*ti].table_id);
                    prop_assert!(r.columns_present.iter().all(|b| *b));
                    let size = ev.header.event_size as usize;
                    let ncols = tables[*ti].columns.len();
                    if r.rows.len() > 1 {
                        prop_assert!(size <= max_rows + rows_overhead(ncols, r.kind), "event of {} bytes", size);
                    }
                    got.extend(r.rows.iter().cloned());
                    if r.is_stmt_end() {
                        break;
                    }
                }
                prop_assert_eq!(&got, changes);
            }
            let x = events.next().unwrap();
            prop_assert_eq!(&x.event, &Event::Xid(Xid(500 + n as u64)));
            prop_assert_eq!(x.end(), spans[n].end);
        }
        prop_assert_eq!(events.next().unwrap().event, Event::Stop);
        prop_assert!(events.next().is_none());
    }
}

/// A small file: header, a DDL, a few sysbench-like transactions.
fn small_file() -> (Vec<u8>, Vec<BinlogPos>) {
    let sb = common::sbtest_table();
    let mut w = EventWriter::with_buffer(
        FileHeader::new(ServerId(1), 5).encode(true).unwrap(),
        BinlogPos(0),
        ServerId(1),
        6,
    );
    w.write_ddl(
        &GtidEvent::ddl(GtidSeq(1), 0),
        &QueryEvent::new(1, "sbtest", "CREATE TABLE sbtest1 (id INT)"),
    )
    .unwrap();
    for i in 0..3 {
        let changes = vec![
            RowChange::Insert(common::sb_row(i, 1)),
            RowChange::Update {
                before: common::sb_row(i, 1),
                after: common::sb_row(i, 2),
            },
        ];
        let st = [RowsStatement {
            table: &sb,
            changes: &changes,
            annotate: None,
            rows_flags: 0,
            ignorable: false,
        }];
        w.write_transaction(&Transaction {
            gtid: GtidEvent::transaction(GtidSeq(2 + i as u64), 0, None),
            statements: &st,
            xid: Xid(i as u64),
        })
        .unwrap();
    }
    let bytes = w.into_bytes();
    let ends = read_all(&bytes).events.iter().map(|e| e.end()).collect();
    (bytes, ends)
}

#[test]
fn every_torn_tail_is_cut_at_the_last_whole_event() {
    let (bytes, ends) = small_file();
    let full = read_all(&bytes).events;
    for cut in 0..=bytes.len() {
        let outcome = read_all(&bytes[..cut]);
        let expect_end = if cut < 4 {
            0
        } else {
            ends.iter()
                .map(|e| e.0)
                .filter(|&e| e <= cut as u64)
                .max()
                .unwrap_or(4)
        };
        assert_eq!(outcome.valid_end.0, expect_end, "cut at {cut}");
        assert_eq!(
            outcome.events[..],
            full[..outcome.events.len()],
            "cut at {cut}"
        );
        if cut >= 4 && cut as u64 == expect_end {
            assert_eq!(outcome.error, None, "cut at {cut}");
        } else {
            let err = outcome.error.unwrap();
            assert!(
                matches!(err, DecodeError::Truncated { .. }),
                "cut at {cut}: {err}"
            );
            assert!(err.is_damage());
            assert_eq!(err.pos(), Some(BinlogPos(expect_end)));
        }
    }
}

#[test]
fn every_corrupt_byte_is_detected() {
    let (bytes, ends) = small_file();
    let full = read_all(&bytes).events;
    for at in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            if at == FDE_FLAGS_OFFSET as usize && flip == 0x01 {
                continue; // the in-use bit is deliberately outside the CRC
            }
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            let outcome = read_all(&damaged);
            let event_start = if at < 4 {
                0
            } else {
                std::iter::once(4)
                    .chain(ends.iter().map(|e| e.0))
                    .filter(|&e| e <= at as u64)
                    .max()
                    .unwrap()
            };
            assert!(outcome.error.is_some(), "byte {at} ^ {flip:#x} undetected");
            assert_eq!(
                outcome.valid_end.0, event_start,
                "byte {at} ^ {flip:#x}: {:?}",
                outcome.error
            );
            assert_eq!(outcome.events[..], full[..outcome.events.len()]);
        }
    }
}

#[test]
fn in_use_flag_toggles_without_breaking_the_crc() {
    let (mut bytes, _) = small_file();
    assert_eq!(
        bytes[FDE_FLAGS_OFFSET as usize..][..2],
        fde_flags_bytes(true)
    );
    let original = bytes.clone();
    set_in_use(&mut bytes, false);
    assert_eq!(
        bytes[FDE_FLAGS_OFFSET as usize..][..2],
        fde_flags_bytes(false)
    );
    let diff: Vec<usize> = (0..bytes.len())
        .filter(|&i| bytes[i] != original[i])
        .collect();
    assert_eq!(diff, [FDE_FLAGS_OFFSET as usize]);
    let outcome = read_all(&bytes);
    assert_eq!(outcome.error, None);
    assert_eq!(outcome.events[0].header.flags, 0);
}

#[test]
fn seek_resumes_at_a_transaction() {
    let (bytes, _) = small_file();
    let all = read_all(&bytes).events;
    let third_gtid = all
        .iter()
        .filter(|e| matches!(e.event, Event::Gtid(_)))
        .nth(2)
        .unwrap();
    let mut r = BinlogReader::new(&bytes).unwrap();
    r.seek(third_gtid.pos).unwrap();
    let rest: Vec<DecodedEvent> = r.by_ref().map(|e| e.unwrap()).collect();
    let idx = all.iter().position(|e| e.pos == third_gtid.pos).unwrap();
    assert_eq!(rest, all[idx..]);
    assert_eq!(r.valid_end().0, bytes.len() as u64);
}

#[test]
fn failed_writes_leave_the_buffer_untouched() {
    let sb = common::sbtest_table();
    let mut w = EventWriter::new(BinlogPos(4), ServerId(1), 0);
    w.write_event(&Event::Xid(Xid(1))).unwrap();
    let before = w.bytes().to_vec();
    let mut bad = common::sb_row(1, 1);
    bad[1] = BinValue::Null; // NOT NULL column
    let changes = vec![
        RowChange::Insert(common::sb_row(0, 0)),
        RowChange::Insert(bad),
    ];
    let st = [RowsStatement {
        table: &sb,
        changes: &changes,
        annotate: Some("INSERT …"),
        rows_flags: 0,
        ignorable: false,
    }];
    let err = w
        .write_transaction(&Transaction {
            gtid: GtidEvent::transaction(GtidSeq(1), 0, None),
            statements: &st,
            xid: Xid(2),
        })
        .unwrap_err();
    assert_eq!(
        err,
        EncodeError::Row {
            table_id: sb.table_id,
            error: ValueError::NullInNotNull { column: 1 }
        }
    );
    assert_eq!(w.bytes(), &before[..]);

    let wrong_type = vec![RowChange::Delete(vec![BinValue::Bytes(vec![].into()); 4])];
    let st = [RowsStatement {
        table: &sb,
        changes: &wrong_type,
        annotate: None,
        rows_flags: 0,
        ignorable: false,
    }];
    let err = w.write_transaction(&Transaction {
        gtid: GtidEvent::transaction(GtidSeq(1), 0, None),
        statements: &st,
        xid: Xid(2),
    });
    assert!(
        matches!(
            err,
            Err(EncodeError::Row {
                error: ValueError::Invalid { column: 0, .. },
                ..
            })
        ),
        "{err:?}"
    );
    assert_eq!(w.bytes(), &before[..]);

    // Rows through write_event need a Table_map written by this writer first.
    let rows = Event::Rows(RowsEvent {
        kind: RowsKind::Write,
        table_id: sb.table_id,
        flags: STMT_END_F,
        column_count: 4,
        columns_present: vec![true; 4],
        columns_present_after: vec![],
        rows: vec![RowChange::Insert(common::sb_row(3, 3))],
    });
    assert_eq!(
        w.write_event(&rows),
        Err(EncodeError::UnknownTable {
            table_id: sb.table_id
        })
    );
    w.write_event(&Event::TableMap(sb.clone())).unwrap();
    w.write_event(&rows).unwrap();
}

#[test]
fn positions_beyond_4_gib_are_refused() {
    let mut w = EventWriter::new(BinlogPos(u32::MAX as u64 - 40), ServerId(1), 0);
    w.write_event(&Event::Xid(Xid(1))).unwrap(); // 31 bytes: still fits
    assert_eq!(
        w.write_event(&Event::Xid(Xid(2))),
        Err(EncodeError::PositionOverflow {
            end: u32::MAX as u64 - 40 + 62
        })
    );
    assert_eq!(w.bytes().len(), 31);
}

#[test]
fn table_map_signedness_follows_the_metadata_setting() {
    let signed = common::sbtest_table();
    let mut unsigned = signed.clone();
    unsigned.columns[1].kind = ColumnKind::Long { unsigned: true };
    let encode = |t: &TableMap| {
        let header = FileHeader::new(ServerId(1), 0).encode(false).unwrap();
        let mut w = EventWriter::new(BinlogPos(header.len() as u64), ServerId(1), 0);
        w.write_event(&Event::TableMap(t.clone())).unwrap();
        let file = [&header[..], w.bytes()].concat();
        let decoded = read_all(&file).events.pop().unwrap().event;
        (w.bytes().len(), decoded)
    };
    // NO_LOG (the default): no optional metadata; an unsigned column reads back signed.
    let (a, _) = encode(&signed);
    let (b, decoded) = encode(&unsigned);
    assert_eq!(a, b);
    let Event::TableMap(m) = decoded else {
        panic!()
    };
    assert_eq!(m.columns[1].kind, ColumnKind::Long { unsigned: false });
    // SIGNEDNESS: 1 type byte + 1 length byte + 1 bitmap byte, and the kinds come back.
    unsigned.meta = TableMeta::signedness();
    let (c, decoded) = encode(&unsigned);
    assert_eq!(c, a + 3);
    assert_eq!(decoded, Event::TableMap(unsigned));
}

#[test]
fn encode_transaction_helper_matches_writer() {
    let sb = common::sbtest_table();
    let changes = vec![RowChange::Insert(common::sb_row(1, 2))];
    let st = [RowsStatement {
        table: &sb,
        changes: &changes,
        annotate: None,
        rows_flags: 0,
        ignorable: false,
    }];
    let txn = Transaction {
        gtid: GtidEvent::transaction(GtidSeq(7), 0, Some(3)),
        statements: &st,
        xid: Xid(9),
    };
    let (bytes, end) = encode_transaction(BinlogPos(1000), ServerId(2), 77, &txn).unwrap();
    assert_eq!(end.0, 1000 + bytes.len() as u64);
    let mut w = EventWriter::new(BinlogPos(1000), ServerId(2), 77);
    w.write_transaction(&txn).unwrap();
    assert_eq!(w.bytes(), &bytes[..]);
    // GTID (42 with commit id) → Table_map → Write_rows → Xid (31).
    assert_eq!(
        u32::from_le_bytes(bytes[9..13].try_into().unwrap()),
        19 + 21 + 4
    );
}

#[test]
fn fixture_file_decodes_to_what_was_written() {
    let (bytes, spans) = common::fixture_file();
    let outcome = read_all(&bytes);
    assert_eq!(outcome.error, None);
    let mut written = Vec::new();
    let mut xids = Vec::new();
    for unit in common::fixture_units() {
        if let common::Unit::Txn {
            statements, xid, ..
        } = unit
        {
            written.extend(
                statements
                    .into_iter()
                    .flat_map(|(t, changes)| changes.into_iter().map(move |c| (t.table_id, c))),
            );
            xids.push(Event::Xid(xid));
        }
    }
    let mut read = Vec::new();
    for ev in &outcome.events {
        if let Event::Rows(r) = &ev.event {
            read.extend(r.rows.iter().cloned().map(|c| (r.table_id, c)));
        }
    }
    assert_eq!(read, written);
    let read_xids: Vec<Event> = outcome
        .events
        .iter()
        .filter(|e| matches!(e.event, Event::Xid(_)))
        .map(|e| e.event.clone())
        .collect();
    assert_eq!(read_xids, xids);
    // Each unit's span starts at its GTID.
    for span in spans {
        let ev = outcome.events.iter().find(|e| e.pos == span.start).unwrap();
        assert!(matches!(ev.event, Event::Gtid(_)));
    }
    assert!(
        matches!(outcome.events.last().unwrap().event, Event::Rotate(ref r) if r.next_file == "binlog.000002" && r.position == BinlogPos(4))
    );
}
