//! The consistency conditions of clause 3.3.2, checked after a run (and after a crash and
//! restart):
//!
//! 1. W_YTD = sum(D_YTD) for each warehouse;
//! 2. D_NEXT_O_ID − 1 = max(O_ID) = max(NO_O_ID) for each district;
//! 3. count(NEW-ORDER) = max(NO_O_ID) − min(NO_O_ID) + 1 for each district;
//! 4. sum(O_OL_CNT) = count(ORDER-LINE) for each district.
//!
//! Each is read as per-warehouse or per-district aggregates (single-table GROUP BY
//! queries) and compared here, so the check needs no joins. A district whose NEW-ORDER
//! rows were all delivered has no max(NO_O_ID); condition 2 then compares D_NEXT_O_ID with
//! max(O_ID) only and condition 3 holds trivially.
//!
//! After a crash, [`check_acked`] adds the durability condition: every New-Order whose
//! commit was acknowledged is there (D_NEXT_O_ID − 1 ≥ the highest acknowledged O_ID).

use super::DISTRICTS;
use crate::conn::SyncClient;
use std::collections::BTreeMap;

type Key = (i64, i64);

/// The result of the checks: one line per condition, and the violations.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub lines: Vec<String>,
    pub violations: Vec<String>,
}

impl CheckReport {
    pub fn ok(&self) -> bool {
        self.violations.is_empty()
    }

    pub fn summary(&self) -> String {
        let mut s = self.lines.join("; ");
        if !self.ok() {
            s.push_str("; VIOLATED: ");
            s.push_str(&self.violations.join("; "));
        }
        s
    }

    fn condition(&mut self, n: u32, what: &str, checked: usize, bad: Vec<String>) {
        self.lines.push(format!(
            "condition {n} ({what}): {} of {checked} {}",
            if bad.is_empty() { "all" } else { "NOT all" },
            if n == 1 { "warehouses" } else { "districts" }
        ));
        self.violations.extend(bad.into_iter().take(5));
    }
}

fn q(c: &mut SyncClient, sql: &str) -> Result<Vec<Vec<Option<String>>>, String> {
    c.query(sql).map_err(|e| format!("`{sql}`: {e}"))
}

fn int(v: &Option<String>) -> Option<i64> {
    v.as_deref().and_then(|s| s.trim().parse().ok())
}

/// Decimal text in cents (the YTD columns have two decimals).
fn cents(v: &Option<String>) -> Option<i64> {
    v.as_deref().and_then(|s| super::random::parse_fixed(s, 2))
}

/// Rows `(a, b, values…)` keyed by their first two integer columns.
fn by_district(rows: Vec<Vec<Option<String>>>) -> BTreeMap<Key, Vec<Option<String>>> {
    rows.into_iter()
        .filter_map(|r| Some(((int(r.first()?)?, int(r.get(1)?)?), r[2..].to_vec())))
        .collect()
}

/// Runs conditions 1–4.
pub fn check(c: &mut SyncClient) -> Result<CheckReport, String> {
    let mut rep = CheckReport::default();

    // 1. W_YTD = sum(D_YTD).
    let w: BTreeMap<i64, Option<i64>> = q(c, "SELECT w_id, w_ytd FROM warehouse")?
        .into_iter()
        .filter_map(|r| Some((int(&r[0])?, cents(&r[1]))))
        .collect();
    let d: BTreeMap<i64, Option<i64>> =
        q(c, "SELECT d_w_id, SUM(d_ytd) FROM district GROUP BY d_w_id")?
            .into_iter()
            .filter_map(|r| Some((int(&r[0])?, cents(&r[1]))))
            .collect();
    let mut bad = Vec::new();
    for (wid, ytd) in &w {
        let sum = d.get(wid).copied().flatten();
        if *ytd != sum || ytd.is_none() {
            bad.push(format!(
                "warehouse {wid}: w_ytd {ytd:?} != sum(d_ytd) {sum:?} (cents)"
            ));
        }
    }
    rep.condition(1, "W_YTD = sum(D_YTD)", w.len(), bad);

    // 2 and 3: district, orders and new_order aggregates.
    let next = by_district(q(c, "SELECT d_w_id, d_id, d_next_o_id FROM district")?);
    let orders = by_district(q(
        c,
        "SELECT o_w_id, o_d_id, MAX(o_id), SUM(o_ol_cnt) FROM orders GROUP BY o_w_id, o_d_id",
    )?);
    let new_orders = by_district(q(
        c,
        "SELECT no_w_id, no_d_id, MAX(no_o_id), MIN(no_o_id), COUNT(*) FROM new_order \
         GROUP BY no_w_id, no_d_id",
    )?);
    let lines = by_district(q(
        c,
        "SELECT ol_w_id, ol_d_id, COUNT(*) FROM order_line GROUP BY ol_w_id, ol_d_id",
    )?);
    let (mut bad2, mut bad3, mut bad4) = (Vec::new(), Vec::new(), Vec::new());
    for (key, v) in &next {
        let next_o = int(&v[0]);
        let max_o = orders.get(key).and_then(|o| int(&o[0]));
        let no = new_orders.get(key);
        let max_no = no.and_then(|n| int(&n[0]));
        let min_no = no.and_then(|n| int(&n[1]));
        let cnt_no = no.and_then(|n| int(&n[2])).unwrap_or(0);
        let last = next_o.map(|n| n - 1);
        if last != max_o || (no.is_some() && last != max_no) {
            bad2.push(format!(
                "district {key:?}: d_next_o_id-1 {last:?}, max(o_id) {max_o:?}, \
                 max(no_o_id) {max_no:?}"
            ));
        }
        if let (Some(hi), Some(lo)) = (max_no, min_no) {
            if cnt_no != hi - lo + 1 {
                bad3.push(format!(
                    "district {key:?}: {cnt_no} new_order rows, max-min+1 = {}",
                    hi - lo + 1
                ));
            }
        }
        let ol_cnt = orders.get(key).and_then(|o| int(&o[1]));
        let ol_rows = lines.get(key).and_then(|l| int(&l[0]));
        if ol_cnt != ol_rows {
            bad4.push(format!(
                "district {key:?}: sum(o_ol_cnt) {ol_cnt:?} != count(order_line) {ol_rows:?}"
            ));
        }
    }
    let n = next.len();
    rep.condition(2, "D_NEXT_O_ID-1 = max(O_ID) = max(NO_O_ID)", n, bad2);
    rep.condition(3, "count(NO) = max(NO_O_ID)-min(NO_O_ID)+1", n, bad3);
    rep.condition(4, "sum(O_OL_CNT) = count(ORDER_LINE)", n, bad4);
    if n == 0 || w.is_empty() {
        rep.violations
            .push("no warehouse or district rows: is the database loaded?".into());
    }
    if n != w.len() * DISTRICTS as usize {
        rep.violations
            .push(format!("{n} districts for {} warehouses", w.len()));
    }
    Ok(rep)
}

/// Durability after a crash: every acknowledged New-Order is still there. `acked[i]` is
/// the highest acknowledged O_ID of district `(i / 10 + 1, i % 10 + 1)`.
pub fn check_acked(c: &mut SyncClient, acked: &[u32], rep: &mut CheckReport) -> Result<(), String> {
    let next = by_district(q(c, "SELECT d_w_id, d_id, d_next_o_id FROM district")?);
    let mut bad = Vec::new();
    let mut with_acks = 0;
    for (i, &a) in acked.iter().enumerate() {
        if a == 0 {
            continue;
        }
        with_acks += 1;
        let key = (
            i as i64 / i64::from(DISTRICTS) + 1,
            i as i64 % i64::from(DISTRICTS) + 1,
        );
        let last = next.get(&key).and_then(|v| int(&v[0])).map(|n| n - 1);
        if last.is_none_or(|l| l < i64::from(a)) {
            bad.push(format!(
                "district {key:?}: acknowledged o_id {a} but d_next_o_id-1 is {last:?}"
            ));
        }
    }
    rep.lines.push(format!(
        "acknowledged new-orders present: {} of {with_acks} districts",
        if bad.is_empty() { "all" } else { "NOT all" }
    ));
    rep.violations.extend(bad.into_iter().take(5));
    Ok(())
}
