//! Writes a binlog with several transactions and a DDL, then has the real
//! `mariadb-binlog -c -vv --base64-output=decode-rows` decode it and compares every printed
//! row value with what was written.

mod common;

use std::path::PathBuf;
use std::process::Command;

use cohort_binlog::*;
use common::*;

fn find_tool() -> Option<PathBuf> {
    for name in ["mariadb-binlog", "mysqlbinlog"] {
        for dir in std::env::var("PATH").unwrap_or_default().split(':') {
            let p = PathBuf::from(dir).join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn short(s: &str) -> String {
    if s.chars().count() > 80 {
        format!(
            "{}…({} chars)",
            s.chars().take(80).collect::<String>(),
            s.chars().count()
        )
    } else {
        s.to_string()
    }
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cohort-binlog-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn mariadb_binlog_decodes_our_file() {
    let (bytes, _spans) = fixture_file();
    // Our own reader accepts the file first.
    let outcome = read_all(&bytes);
    assert_eq!(outcome.error, None);
    assert_eq!(outcome.valid_end.0, bytes.len() as u64);

    let Some(tool) = find_tool() else {
        println!("SKIPPED: mariadb-binlog not found (apt-get install -y mariadb-client); only our reader checked");
        return;
    };
    let path = out_dir().join("fixture.000001");
    std::fs::write(&path, &bytes).unwrap();
    let out = Command::new(&tool)
        .args(["-c", "-vv", "--base64-output=decode-rows"])
        .arg(&path)
        .output()
        .expect("run mariadb-binlog");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    // Printed values are raw bytes; compare through the same lossy conversion.
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    std::fs::write(out_dir().join("fixture.000001.txt"), &stdout).unwrap();
    assert!(
        out.status.success(),
        "{tool:?} failed: {:?}\nstderr: {stderr}",
        out.status
    );
    assert!(
        !stdout.contains("Warning: this binlog is either in use"),
        "in-use flag should be clear"
    );

    // Every row of every transaction, in order.
    let mut statements = Vec::new();
    for unit in fixture_units() {
        if let Unit::Txn { statements: s, .. } = unit {
            statements.extend(s);
        }
    }
    let expected = expected_rows(&statements);
    let printed = parse_printed_rows(&stdout);
    assert_eq!(printed.len(), expected.len(), "number of printed rows");
    for (i, (p, e)) in printed.iter().zip(&expected).enumerate() {
        assert_eq!((&p.op, &p.table), (&e.op, &e.table), "row {i}");
        for (image, got, want) in [
            ("first", &p.first, &e.first),
            ("second", &p.second, &e.second),
        ] {
            assert_eq!(got.len(), want.len(), "row {i} {image} image: column count");
            for (col, (g, w)) in got.iter().zip(want).enumerate() {
                assert!(
                    g == w,
                    "row {i} {image} image @{}: printed {} expected {}",
                    col + 1,
                    short(g),
                    short(w)
                );
            }
        }
    }

    // Transaction structure: GTIDs, DDL, commits, the split statement, the rotate.
    for needle in [
        "GTID 0-1-1 ddl",
        "CREATE TABLE t_all",
        "GTID 0-1-2 cid=900 trans",
        "GTID 0-1-3 cid=900 trans",
        "GTID 0-1-4 trans",
        "Xid = 1001",
        "Xid = 1002",
        "Xid = 1003",
        "Xid = 1004",
        "#Q> INSERT INTO e VALUES (/* boundary rows */)",
        "Rotate to binlog.000002  pos: 4",
    ] {
        assert!(stdout.contains(needle), "output lacks {needle:?}");
    }
    assert_eq!(stdout.matches("COMMIT/*!*/;").count(), 4);
    // The 120-row statement (~28 KiB) is split; only its last event ends the statement.
    let sb_events: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("Write_rows: table id 71"))
        .collect();
    assert!(
        sb_events.len() >= 3,
        "big insert should split: {sb_events:?}"
    );
    assert!(sb_events[..sb_events.len() - 1]
        .iter()
        .all(|l| !l.contains("STMT_END_F")));
    assert!(sb_events.last().unwrap().contains("flags: STMT_END_F"));
    println!(
        "mariadb-binlog ({tool:?}) decoded {} rows, exit 0",
        printed.len()
    );
}

#[test]
fn mariadb_binlog_warns_about_in_use_and_rejects_bad_crc() {
    let Some(tool) = find_tool() else {
        println!("SKIPPED: mariadb-binlog not found");
        return;
    };
    let (mut bytes, spans) = fixture_file();
    set_in_use(&mut bytes, true);
    let path = out_dir().join("inuse.000001");
    std::fs::write(&path, &bytes).unwrap();
    let out = Command::new(&tool)
        .args(["-c", "-v", "--base64-output=decode-rows"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Warning: this binlog is either in use"));

    // Corrupt one byte inside the second transaction: our reader and -c both notice.
    let at = spans[1].start.0 as usize + 30;
    bytes[at] ^= 0x40;
    let outcome = read_all(&bytes);
    assert!(
        matches!(outcome.error, Some(DecodeError::BadChecksum { .. })),
        "{:?}",
        outcome.error
    );
    assert_eq!(outcome.valid_end, spans[1].start);
    // In an in-use file the tool reports the CRC error but exits 0 (a file being written may
    // end anywhere); in a closed file it fails.
    for in_use in [true, false] {
        set_in_use(&mut bytes, in_use);
        std::fs::write(&path, &bytes).unwrap();
        let out = Command::new(&tool)
            .args(["-c", "-v", "--base64-output=decode-rows"])
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("crc check failed"),
            "in_use={in_use}: {stderr}"
        );
        assert_eq!(
            out.status.success(),
            in_use,
            "in_use={in_use}: exit status {:?}",
            out.status
        );
    }
}
