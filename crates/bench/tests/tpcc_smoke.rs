//! TPC-C smoke test against a throwaway MariaDB (the oracle): load one warehouse at the
//! test scale, run the mix for a few seconds on 8 connections, and require new-orders,
//! every transaction type, no refused statement and the consistency conditions 1–4; then
//! break condition 1 on purpose and require the check to catch it.
//!
//! Needs `mariadbd`, so it is built only with the `mariadb-tests` feature: .ci/run installs
//! mariadb-server and runs `cargo test -p cohort-bench --features mariadb-tests --test tpcc_smoke`.

use cohort_bench::experiment::servers;
use cohort_bench::tpcc::{self, check, Scale, TpccOptions};
use std::time::Duration;

#[test]
fn tpcc_runs_and_stays_consistent_on_mariadb() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dir = std::env::temp_dir().join(format!("cohort-tpcc-smoke-{}", std::process::id()));
    let server = servers::start_mariadb(port, &dir, &[], false)
        .unwrap_or_else(|e| panic!("cannot start mariadbd: {e}"));
    tpcc::prepare(&server.url, 1, Scale::TEST, 4).unwrap();
    let o = TpccOptions {
        url: server.url.clone(),
        warehouses: 1,
        scale: Scale::TEST,
        split_joins: false,
        duration: Duration::from_secs(3),
        warmup: Duration::ZERO,
        seed: 42,
        progress: false,
        server_pid: server.pid,
        server_status: true,
        label: "mariadb".into(),
    };
    let r = tpcc::run_point(&o, 8);
    let text = tpcc::summary_text(&r);
    assert!(r.fatal.is_none(), "{text}");
    assert_eq!(r.check_ok, Some(true), "{text}");
    let t = r.tpcc.as_ref().unwrap();
    assert!(t.nopm > 0.0, "{text}");
    assert!(t.unsupported.is_empty(), "{text}");
    assert_eq!(t.kinds.len(), 5);
    let new_order = &t.kinds[0];
    assert_eq!(new_order.name, "new_order");
    assert!(new_order.count > 0, "{text}");

    // The same run with the joins split gives the same kind of result.
    let o2 = TpccOptions {
        split_joins: true,
        duration: Duration::from_secs(1),
        ..o
    };
    let r2 = tpcc::run_point(&o2, 4);
    assert!(
        r2.fatal.is_none() && r2.check_ok == Some(true),
        "{}",
        tpcc::summary_text(&r2)
    );

    // A broken invariant is reported.
    let mut c = cohort_bench::conn::SyncClient::connect(&server.url).unwrap();
    c.execute("UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1")
        .unwrap();
    c.execute("DELETE FROM order_line WHERE ol_d_id = 3 AND ol_number = 1 LIMIT 1")
        .unwrap();
    let rep = check::check(&mut c).unwrap();
    assert!(!rep.ok());
    assert!(
        rep.violations.iter().any(|v| v.contains("w_ytd")),
        "{rep:?}"
    );
    assert!(
        rep.violations
            .iter()
            .any(|v| v.contains("count(order_line)")),
        "{rep:?}"
    );
    c.close();
    server.stop();
}
