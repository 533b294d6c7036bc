//! `cohort bench compare A.json B.json`: B relative to A, point by point.
//!
//! Points are matched by workload, connection count and target rate, and also by label when
//! both files use the same labels (two experiment reports); otherwise labels are ignored (a
//! MariaDB run against a Cohort run). Ratios are B / A: above 1 means B has more throughput,
//! or more latency.

use crate::result::RunResult;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

type Key = (String, String, usize, String);

fn key(r: &RunResult, with_label: bool) -> Key {
    (
        if with_label {
            r.label.clone()
        } else {
            String::new()
        },
        r.workload.clone(),
        r.connections,
        r.target_rate.map(|x| format!("{x:.0}")).unwrap_or_default(),
    )
}

fn ratio(b: f64, a: f64) -> String {
    if a > 0.0 {
        format!("{:.2}", b / a)
    } else {
        "-".into()
    }
}

/// The ratio table.
pub fn compare(a: &[RunResult], b: &[RunResult]) -> String {
    let la: BTreeSet<&str> = a.iter().map(|r| r.label.as_str()).collect();
    let lb: BTreeSet<&str> = b.iter().map(|r| r.label.as_str()).collect();
    let with_label = la == lb;
    let mut bmap: BTreeMap<Key, Vec<&RunResult>> = BTreeMap::new();
    for r in b {
        bmap.entry(key(r, with_label)).or_default().push(r);
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<24} {:<22} {:>6} {:>10} {:>10} {:>6} {:>8} {:>8} {:>6} {:>8} {:>8} {:>6}",
        "label",
        "workload",
        "conns",
        "tps A",
        "tps B",
        "B/A",
        "p95 A",
        "p95 B",
        "B/A",
        "cpu/tx A",
        "cpu/tx B",
        "B/A"
    );
    let mut matched = 0;
    for (ra, rb) in a.iter().flat_map(|ra| {
        bmap.get(&key(ra, with_label))
            .into_iter()
            .flatten()
            .map(move |rb| (ra, *rb))
    }) {
        matched += 1;
        let label = if with_label {
            ra.label.clone()
        } else {
            format!("{}→{}", ra.label, rb.label)
        };
        let _ = writeln!(
            s,
            "{:<24} {:<22} {:>6} {:>10.1} {:>10.1} {:>6} {:>8.2} {:>8.2} {:>6} {:>8.1} {:>8.1} {:>6}",
            label,
            ra.workload,
            ra.connections,
            ra.tps,
            rb.tps,
            ratio(rb.tps, ra.tps),
            ra.latency_ms.p95,
            rb.latency_ms.p95,
            ratio(rb.latency_ms.p95, ra.latency_ms.p95),
            ra.client_cpu.us_per_txn,
            rb.client_cpu.us_per_txn,
            ratio(rb.client_cpu.us_per_txn, ra.client_cpu.us_per_txn),
        );
    }
    if matched == 0 {
        let _ = writeln!(
            s,
            "(no matching points: compare runs of the same workload and connection counts)"
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Latency;

    fn r(label: &str, conns: usize, tps: f64, p95: f64) -> RunResult {
        RunResult {
            label: label.into(),
            workload: "oltp_update_non_index".into(),
            connections: conns,
            tps,
            latency_ms: Latency {
                p95,
                ..Latency::default()
            },
            ..RunResult::default()
        }
    }

    #[test]
    fn ratios_by_point() {
        let a = vec![r("mariadb", 1, 1000.0, 1.0), r("mariadb", 16, 4000.0, 8.0)];
        let b = vec![r("cohort", 16, 6000.0, 4.0), r("cohort", 64, 1.0, 1.0)];
        let t = compare(&a, &b);
        let rows: Vec<&str> = t.lines().skip(1).collect();
        assert_eq!(rows.len(), 1, "{t}");
        assert!(rows[0].contains("mariadb→cohort"));
        assert!(rows[0].contains("1.50") && rows[0].contains("0.50"), "{t}");
        let t = compare(&a, &[r("x", 2, 1.0, 1.0)]);
        assert!(t.contains("no matching points"));
    }
}
