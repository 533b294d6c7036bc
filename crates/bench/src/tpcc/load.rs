//! The initial population (clause 4.3.3.1): ITEM once, then per warehouse its WAREHOUSE row,
//! STOCK, DISTRICT, CUSTOMER and HISTORY, ORDERS with their ORDER-LINEs, and NEW-ORDER for
//! the last 900 orders of each district.
//!
//! Loading is split into tasks — the items, and per warehouse its stock, its customers and
//! its orders — run on `threads` connections in parallel, each task with its own random
//! stream and multi-row INSERTs of up to 512 KiB ([`BulkInsert`]) in autocommit mode.

use super::random::{fixed, last_name, now_datetime, CConstants, Tr, A_LAST};
use super::{schema, Scale};
use crate::conn::SyncClient;
use crate::url::DbUrl;
use crate::workload::BulkInsert;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One unit of loading work.
#[derive(Clone, Copy, Debug)]
enum Task {
    Items,
    /// WAREHOUSE and its DISTRICT rows.
    Warehouse(u32),
    Stock(u32),
    /// CUSTOMER and HISTORY.
    Customers(u32),
    /// ORDERS, ORDER-LINE and NEW-ORDER.
    Orders(u32),
}

/// Drops and creates the tables, then loads `warehouses` warehouses.
pub fn load(url: &DbUrl, warehouses: u32, scale: Scale, threads: usize) -> Result<(), String> {
    let mut c = SyncClient::connect(url).map_err(|e| format!("connect {url}: {e}"))?;
    for name in schema::names() {
        c.execute(&format!("DROP TABLE IF EXISTS {name}"))
            .map_err(|e| format!("DROP TABLE {name}: {e}"))?;
    }
    for (name, ddl) in schema::TABLES {
        say!("Creating table '{name}'...");
        c.execute(ddl)
            .map_err(|e| format!("CREATE TABLE {name}: {e}"))?;
    }
    c.close();
    let mut tasks = vec![Task::Items];
    for w in 1..=warehouses {
        tasks.extend([
            Task::Stock(w),
            Task::Orders(w),
            Task::Customers(w),
            Task::Warehouse(w),
        ]);
    }
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    let consts = CConstants::for_load(&mut Tr::new(seed));
    let next = AtomicUsize::new(0);
    let first_error = Mutex::new(None::<String>);
    let threads = threads.clamp(1, tasks.len());
    say!(
        "Loading {warehouses} warehouse(s), {} items, on {threads} connection(s)...",
        scale.items
    );
    std::thread::scope(|s| {
        for t in 0..threads {
            let (tasks, next, first_error) = (&tasks, &next, &first_error);
            s.spawn(move || {
                let run = || -> Result<(), String> {
                    let mut c =
                        SyncClient::connect(url).map_err(|e| format!("connect {url}: {e}"))?;
                    loop {
                        if first_error.lock().map(|e| e.is_some()).unwrap_or(true) {
                            return Ok(());
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(task) = tasks.get(i) else { break };
                        let mut rng = Tr::new(seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9));
                        run_task(&mut c, *task, scale, consts, &mut rng)
                            .map_err(|e| format!("loading {task:?}: {e}"))?;
                    }
                    c.close();
                    Ok(())
                };
                if let Err(e) = run() {
                    if let Ok(mut f) = first_error.lock() {
                        f.get_or_insert(e);
                    }
                }
                let _ = t;
            });
        }
    });
    match first_error.into_inner() {
        Ok(Some(e)) => Err(e),
        Ok(None) => Ok(()),
        Err(_) => Err("loader lock poisoned".into()),
    }
}

fn run_task(
    c: &mut SyncClient,
    task: Task,
    scale: Scale,
    consts: CConstants,
    r: &mut Tr,
) -> Result<(), String> {
    match task {
        Task::Items => items(c, scale, r),
        Task::Warehouse(w) => warehouse(c, w, scale, r),
        Task::Stock(w) => stock(c, w, scale, r),
        Task::Customers(w) => customers(c, w, scale, consts, r),
        Task::Orders(w) => orders(c, w, scale, r),
    }
}

fn items(c: &mut SyncClient, scale: Scale, r: &mut Tr) -> Result<(), String> {
    let mut b = BulkInsert::new(
        c,
        "INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) VALUES ".into(),
    );
    for i in 1..=scale.items {
        let row = format!(
            "({i},{},'{}',{},'{}')",
            r.int(1, 10_000),
            r.astring(14, 24),
            r.decimal(100, 10_000, 2),
            r.data_with_original()
        );
        b.row(&row)?;
    }
    b.flush()
}

/// Street 1, street 2, city, state, zip as SQL literals.
fn address(r: &mut Tr) -> String {
    format!(
        "'{}','{}','{}','{}','{}'",
        r.astring(10, 20),
        r.astring(10, 20),
        r.astring(10, 20),
        r.state(),
        r.zip()
    )
}

fn warehouse(c: &mut SyncClient, w: u32, scale: Scale, r: &mut Tr) -> Result<(), String> {
    let row = format!(
        "INSERT INTO warehouse (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, \
         w_tax, w_ytd) VALUES ({w},'{}',{},{},300000.00)",
        r.astring(6, 10),
        address(r),
        r.decimal(0, 2000, 4)
    );
    c.execute(&row).map_err(|e| e.to_string())?;
    let mut b = BulkInsert::new(
        c,
        "INSERT INTO district (d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, \
         d_zip, d_tax, d_ytd, d_next_o_id) VALUES "
            .into(),
    );
    for d in 1..=super::DISTRICTS {
        // D_NEXT_O_ID is one past the orders loaded per district.
        let row = format!(
            "({d},{w},'{}',{},{},30000.00,{})",
            r.astring(6, 10),
            address(r),
            r.decimal(0, 2000, 4),
            scale.orders + 1
        );
        b.row(&row)?;
    }
    b.flush()
}

fn stock(c: &mut SyncClient, w: u32, scale: Scale, r: &mut Tr) -> Result<(), String> {
    let mut b = BulkInsert::new(
        c,
        "INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, \
         s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, \
         s_order_cnt, s_remote_cnt, s_data) VALUES "
            .into(),
    );
    let mut row = String::with_capacity(400);
    for i in 1..=scale.items {
        row.clear();
        row.push_str(&format!("({i},{w},{}", r.int(10, 100)));
        for _ in 0..10 {
            row.push_str(&format!(",'{}'", r.astring(24, 24)));
        }
        row.push_str(&format!(",0,0,0,'{}')", r.data_with_original()));
        b.row(&row)?;
    }
    b.flush()
}

fn customers(
    c: &mut SyncClient,
    w: u32,
    scale: Scale,
    consts: CConstants,
    r: &mut Tr,
) -> Result<(), String> {
    let since = now_datetime();
    let mut rows = Vec::new();
    {
        let mut b = BulkInsert::new(
            c,
            "INSERT INTO customer (c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, \
             c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, \
             c_discount, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data) VALUES "
                .into(),
        );
        for d in 1..=super::DISTRICTS {
            for cid in 1..=scale.customers {
                // The first 1000 customers take every name once; the rest NURand's.
                let last = if cid <= 1000 {
                    last_name(cid - 1)
                } else {
                    last_name(r.nurand(A_LAST, consts.c_last, 0, 999))
                };
                let credit = if r.int(1, 100) <= 10 { "BC" } else { "GC" };
                let row = format!(
                    "({cid},{d},{w},'{}','OE','{last}',{},'{}','{since}','{credit}',50000.00,{},\
                     -10.00,10.00,1,0,'{}')",
                    r.astring(8, 16),
                    address(r),
                    r.nstring(16, 16),
                    r.decimal(0, 5000, 4),
                    r.astring(300, 500)
                );
                b.row(&row)?;
                rows.push((cid, d));
            }
        }
        b.flush()?;
    }
    let mut b = BulkInsert::new(
        c,
        "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, \
         h_data) VALUES "
            .into(),
    );
    for (cid, d) in rows {
        b.row(&format!(
            "({cid},{d},{w},{d},{w},'{since}',10.00,'{}')",
            r.astring(12, 24)
        ))?;
    }
    b.flush()
}

fn orders(c: &mut SyncClient, w: u32, scale: Scale, r: &mut Tr) -> Result<(), String> {
    let entry = now_datetime();
    let delivered = scale.delivered_orders();
    let mut lines = Vec::new();
    {
        let mut b = BulkInsert::new(
            c,
            "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, \
             o_ol_cnt, o_all_local) VALUES "
                .into(),
        );
        for d in 1..=super::DISTRICTS {
            let perm = r.permutation(scale.customers);
            for o in 1..=scale.orders {
                let cid = perm[(o - 1) as usize % perm.len()];
                let carrier = if o <= delivered {
                    r.int(1, 10).to_string()
                } else {
                    "NULL".into()
                };
                let cnt = r.int(5, 15);
                b.row(&format!("({o},{d},{w},{cid},'{entry}',{carrier},{cnt},1)"))?;
                lines.push((o, d, cnt));
            }
        }
        b.flush()?;
    }
    {
        let mut b = BulkInsert::new(
            c,
            "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, \
             ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES "
                .into(),
        );
        for &(o, d, cnt) in &lines {
            for n in 1..=cnt {
                let (deliv, amount) = if o <= delivered {
                    (format!("'{entry}'"), "0.00".to_string())
                } else {
                    ("NULL".into(), fixed(i64::from(r.int(1, 999_999)), 2))
                };
                b.row(&format!(
                    "({o},{d},{w},{n},{},{w},{deliv},5,{amount},'{}')",
                    r.int(1, scale.items),
                    r.astring(24, 24)
                ))?;
            }
        }
        b.flush()?;
    }
    let mut b = BulkInsert::new(
        c,
        "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ".into(),
    );
    for d in 1..=super::DISTRICTS {
        for o in delivered + 1..=scale.orders {
            b.row(&format!("({o},{d},{w})"))?;
        }
    }
    b.flush()
}
