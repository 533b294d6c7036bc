//! The five TPC-C transactions (clause 2.4–2.8) as an application sends them: one SQL
//! statement per step of the specification's profile, in text, with the values inline.
//!
//! * The inputs are drawn first ([`Inputs`], clause 2.x.1), so that a transaction aborted
//!   by a deadlock or lock-wait timeout is retried with the same inputs after a ROLLBACK.
//! * Rows the transaction updates are read `FOR UPDATE`; the joins are those of the
//!   specification's own SQL (New-Order's customer × warehouse, Stock-Level's
//!   order_line × stock). With `split_joins` they are sent as two statements instead, for
//!   servers without joins; the results are the same.
//! * New-Order's order lines are processed in item order (the order lines are unordered in
//!   the specification) so that two New-Orders never lock the same stock rows in opposite
//!   orders.

use super::random::{fixed, last_name, now_datetime, parse_fixed, CConstants, Tr};
use super::random::{A_C_ID, A_LAST, A_OL_I_ID};
use super::{Scale, DISTRICTS};
use crate::conn::{ClientError, Response, SyncClient};

/// The transaction types, in the order of the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::NewOrder,
        Kind::Payment,
        Kind::OrderStatus,
        Kind::Delivery,
        Kind::StockLevel,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::NewOrder => "new_order",
            Kind::Payment => "payment",
            Kind::OrderStatus => "order_status",
            Kind::Delivery => "delivery",
            Kind::StockLevel => "stock_level",
        }
    }

    /// The standard mix (clause 5.2.3 minimums): 45% New-Order, 43% Payment, 4% each for
    /// the others; `pct` is uniform in 1..=100.
    pub fn from_pct(pct: u32) -> Kind {
        match pct {
            0..=4 => Kind::StockLevel,
            5..=8 => Kind::Delivery,
            9..=12 => Kind::OrderStatus,
            13..=55 => Kind::Payment,
            _ => Kind::NewOrder,
        }
    }
}

/// Why a transaction did not commit.
#[derive(Debug)]
pub enum TxnError {
    /// Deadlock, lock-wait timeout or record changed: roll back and retry.
    Retry(u16),
    /// The server does not support this statement (1235).
    Unsupported(String),
    /// The connection is gone (the server died or closed it).
    Lost(String),
    /// Anything else stops the run.
    Fatal(String),
}

/// Error codes after which the transaction is retried.
const RETRY_CODES: [u16; 3] = [1213, 1205, 1020];

fn classify(sql: &str, e: ClientError) -> TxnError {
    match e.code() {
        Some(c) if RETRY_CODES.contains(&c) => TxnError::Retry(c),
        Some(1235) => TxnError::Unsupported(sql.to_string()),
        Some(_) => TxnError::Fatal(format!("{e} (statement `{sql}`)")),
        None => TxnError::Lost(e.to_string()),
    }
}

type Rows = Vec<Vec<Option<String>>>;

/// Statements sent by this thread (one terminal per thread): reads (result sets), writes
/// (rows changed) and others, as the sysbench driver counts them.
#[derive(Clone, Copy, Debug, Default)]
pub struct StmtCounts {
    pub reads: u64,
    pub writes: u64,
    pub others: u64,
}

thread_local! {
    static COUNTS: std::cell::Cell<StmtCounts> = const { std::cell::Cell::new(StmtCounts {
        reads: 0,
        writes: 0,
        others: 0,
    }) };
}

/// This thread's statement counts since the last call.
pub fn take_counts() -> StmtCounts {
    COUNTS.with(|c| c.replace(StmtCounts::default()))
}

fn count(f: impl FnOnce(&mut StmtCounts)) {
    COUNTS.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}

fn exec(c: &mut SyncClient, sql: &str) -> Result<u64, TxnError> {
    match c.execute(sql) {
        Ok(Response::Ok { affected_rows, .. }) => {
            count(|n| {
                if affected_rows > 0 {
                    n.writes += 1
                } else {
                    n.others += 1
                }
            });
            Ok(affected_rows)
        }
        Ok(_) => {
            count(|n| n.reads += 1);
            Ok(0)
        }
        Err(e) => {
            count(|n| n.others += 1);
            Err(classify(sql, e))
        }
    }
}

fn rows(c: &mut SyncClient, sql: &str) -> Result<Rows, TxnError> {
    count(|n| n.reads += 1);
    c.query(sql).map_err(|e| classify(sql, e))
}

/// The single row a statement must return (the specification's "select … into").
fn one_row(c: &mut SyncClient, sql: &str) -> Result<Vec<Option<String>>, TxnError> {
    let mut r = rows(c, sql)?;
    match r.len() {
        1 => Ok(r.pop().unwrap_or_default()),
        n => Err(TxnError::Fatal(format!(
            "`{sql}` returned {n} rows, expected 1"
        ))),
    }
}

fn col(row: &[Option<String>], i: usize) -> &str {
    row.get(i).and_then(|v| v.as_deref()).unwrap_or("")
}

fn int_col(row: &[Option<String>], i: usize, sql: &str) -> Result<i64, TxnError> {
    col(row, i)
        .parse()
        .map_err(|_| TxnError::Fatal(format!("`{sql}`: column {i} is not an integer")))
}

fn dec_col(row: &[Option<String>], i: usize, scale: u32) -> i64 {
    parse_fixed(col(row, i), scale).unwrap_or(0)
}

/// Quotes a string literal (the a-strings need none, C_DATA may come back with anything).
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('\'');
    for ch in s.chars() {
        match ch {
            '\'' => q.push_str("''"),
            '\\' => q.push_str("\\\\"),
            c => q.push(c),
        }
    }
    q.push('\'');
    q
}

/// A customer chosen by id or by last name (clause 2.5.1.2, 60% by name).
#[derive(Clone, Debug)]
pub enum CustomerKey {
    Id(u32),
    Last(String),
}

/// One order line of a New-Order.
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub i_id: u32,
    pub supply_w_id: u32,
    pub quantity: u32,
}

/// A transaction's inputs (clauses 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1).
#[derive(Clone, Debug)]
pub enum Inputs {
    NewOrder {
        d_id: u32,
        c_id: u32,
        lines: Vec<Line>,
        /// The last line names an unused item: the transaction rolls back (1%).
        rollback: bool,
    },
    Payment {
        d_id: u32,
        c_w_id: u32,
        c_d_id: u32,
        customer: CustomerKey,
        /// H_AMOUNT in cents.
        amount: u32,
    },
    OrderStatus {
        d_id: u32,
        customer: CustomerKey,
    },
    Delivery {
        carrier: u32,
    },
    StockLevel {
        threshold: u32,
    },
}

/// What a committed (or deliberately rolled back) transaction did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// A New-Order committed order `o_id` in district `d_id`.
    NewOrder {
        d_id: u32,
        o_id: u32,
    },
    /// A New-Order rolled back on its unused item (clause 2.4.2.3).
    RolledBack,
    Other,
}

/// A terminal: a connection's home warehouse and district and its random stream.
pub struct Terminal {
    pub w_id: u32,
    /// Home district (Stock-Level's district, clause 2.8.1.1).
    pub d_id: u32,
    pub warehouses: u32,
    pub scale: Scale,
    pub consts: CConstants,
    pub split_joins: bool,
    pub rng: Tr,
}

impl Terminal {
    /// The next transaction type of the mix.
    pub fn next_kind(&mut self) -> Kind {
        Kind::from_pct(self.rng.int(1, 100))
    }

    fn customer_key(&mut self) -> CustomerKey {
        if self.rng.int(1, 100) <= 60 {
            // Only names of loaded customers can be found in a scaled-down database.
            let top = self.scale.customers.clamp(1, 1000) - 1;
            CustomerKey::Last(last_name(self.rng.nurand(
                A_LAST,
                self.consts.c_last,
                0,
                top,
            )))
        } else {
            CustomerKey::Id(self.c_id())
        }
    }

    fn c_id(&mut self) -> u32 {
        self.rng
            .nurand(A_C_ID, self.consts.c_id, 1, self.scale.customers)
    }

    fn other_warehouse(&mut self) -> u32 {
        if self.warehouses <= 1 {
            return self.w_id;
        }
        loop {
            let w = self.rng.int(1, self.warehouses);
            if w != self.w_id {
                return w;
            }
        }
    }

    /// Draws the inputs of a transaction of type `kind`.
    pub fn inputs(&mut self, kind: Kind) -> Inputs {
        match kind {
            Kind::NewOrder => {
                let d_id = self.rng.int(1, DISTRICTS);
                let c_id = self.c_id();
                let n = self.rng.int(5, 15);
                let rollback = self.rng.int(1, 100) == 1;
                let mut lines: Vec<Line> = (0..n)
                    .map(|_| {
                        let i_id =
                            self.rng
                                .nurand(A_OL_I_ID, self.consts.ol_i_id, 1, self.scale.items);
                        let supply_w_id = if self.rng.int(1, 100) == 1 {
                            self.other_warehouse()
                        } else {
                            self.w_id
                        };
                        Line {
                            i_id,
                            supply_w_id,
                            quantity: self.rng.int(1, 10),
                        }
                    })
                    .collect();
                // Lock stock rows in one global order (see the module doc).
                lines.sort_by_key(|l| (l.supply_w_id, l.i_id));
                // The unused item is the last one processed (clause 2.4.1.5).
                if rollback {
                    if let Some(l) = lines.last_mut() {
                        l.i_id = self.scale.items + 1;
                    }
                }
                Inputs::NewOrder {
                    d_id,
                    c_id,
                    lines,
                    rollback,
                }
            }
            Kind::Payment => {
                let d_id = self.rng.int(1, DISTRICTS);
                let (c_w_id, c_d_id) = if self.rng.int(1, 100) <= 85 || self.warehouses <= 1 {
                    (self.w_id, d_id)
                } else {
                    (self.other_warehouse(), self.rng.int(1, DISTRICTS))
                };
                Inputs::Payment {
                    d_id,
                    c_w_id,
                    c_d_id,
                    customer: self.customer_key(),
                    amount: self.rng.int(100, 500_000),
                }
            }
            Kind::OrderStatus => Inputs::OrderStatus {
                d_id: self.rng.int(1, DISTRICTS),
                customer: self.customer_key(),
            },
            Kind::Delivery => Inputs::Delivery {
                carrier: self.rng.int(1, 10),
            },
            Kind::StockLevel => Inputs::StockLevel {
                threshold: self.rng.int(10, 20),
            },
        }
    }

    /// Runs one transaction from BEGIN to COMMIT. On an error the caller rolls back.
    pub fn run(&self, c: &mut SyncClient, inputs: &Inputs) -> Result<Done, TxnError> {
        exec(c, "BEGIN")?;
        let done = match inputs {
            Inputs::NewOrder {
                d_id,
                c_id,
                lines,
                rollback,
            } => self.new_order(c, *d_id, *c_id, lines, *rollback)?,
            Inputs::Payment {
                d_id,
                c_w_id,
                c_d_id,
                customer,
                amount,
            } => {
                self.payment(c, *d_id, *c_w_id, *c_d_id, customer, *amount)?;
                Done::Other
            }
            Inputs::OrderStatus { d_id, customer } => {
                self.order_status(c, *d_id, customer)?;
                Done::Other
            }
            Inputs::Delivery { carrier } => {
                self.delivery(c, *carrier)?;
                Done::Other
            }
            Inputs::StockLevel { threshold } => {
                self.stock_level(c, *threshold)?;
                Done::Other
            }
        };
        if done == Done::RolledBack {
            exec(c, "ROLLBACK")?;
        } else {
            exec(c, "COMMIT")?;
        }
        Ok(done)
    }

    /// Clause 2.4.2.2.
    fn new_order(
        &self,
        c: &mut SyncClient,
        d_id: u32,
        c_id: u32,
        lines: &[Line],
        rollback: bool,
    ) -> Result<Done, TxnError> {
        let w_id = self.w_id;
        let (c_discount, w_tax) = if self.split_joins {
            let q = format!("SELECT w_tax FROM warehouse WHERE w_id = {w_id}");
            let w = one_row(c, &q)?;
            let q = format!(
                "SELECT c_discount, c_last, c_credit FROM customer \
                 WHERE c_w_id = {w_id} AND c_d_id = {d_id} AND c_id = {c_id}"
            );
            let cu = one_row(c, &q)?;
            (dec_col(&cu, 0, 4), dec_col(&w, 0, 4))
        } else {
            let q = format!(
                "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse \
                 WHERE w_id = {w_id} AND c_w_id = w_id AND c_d_id = {d_id} AND c_id = {c_id}"
            );
            let r = one_row(c, &q)?;
            (dec_col(&r, 0, 4), dec_col(&r, 3, 4))
        };
        let q = format!(
            "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = {w_id} AND d_id = {d_id} \
             FOR UPDATE"
        );
        let r = one_row(c, &q)?;
        let o_id = int_col(&r, 0, &q)? as u32;
        let d_tax = dec_col(&r, 1, 4);
        exec(
            c,
            &format!(
                "UPDATE district SET d_next_o_id = {} WHERE d_w_id = {w_id} AND d_id = {d_id}",
                o_id + 1
            ),
        )?;
        let all_local = lines.iter().all(|l| l.supply_w_id == w_id);
        let entry = now_datetime();
        exec(
            c,
            &format!(
                "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, \
                 o_ol_cnt, o_all_local) VALUES ({o_id}, {d_id}, {w_id}, {c_id}, '{entry}', NULL, \
                 {}, {})",
                lines.len(),
                u8::from(all_local)
            ),
        )?;
        exec(
            c,
            &format!(
                "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ({o_id}, {d_id}, {w_id})"
            ),
        )?;
        let mut total_cents: i64 = 0;
        for (k, l) in lines.iter().enumerate() {
            let q = format!(
                "SELECT i_price, i_name, i_data FROM item WHERE i_id = {}",
                l.i_id
            );
            let item = rows(c, &q)?;
            let Some(item) = item.first() else {
                if rollback && k + 1 == lines.len() {
                    return Ok(Done::RolledBack);
                }
                return Err(TxnError::Fatal(format!("item {} not found", l.i_id)));
            };
            let price = dec_col(item, 0, 2);
            let q = format!(
                "SELECT s_quantity, s_data, s_dist_{d_id:02} FROM stock \
                 WHERE s_i_id = {} AND s_w_id = {} FOR UPDATE",
                l.i_id, l.supply_w_id
            );
            let s = one_row(c, &q)?;
            let s_quantity = int_col(&s, 0, &q)?;
            let q_new = if s_quantity >= i64::from(l.quantity) + 10 {
                s_quantity - i64::from(l.quantity)
            } else {
                s_quantity - i64::from(l.quantity) + 91
            };
            let remote = u8::from(l.supply_w_id != w_id);
            exec(
                c,
                &format!(
                    "UPDATE stock SET s_quantity = {q_new}, s_ytd = s_ytd + {}, \
                     s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + {remote} \
                     WHERE s_i_id = {} AND s_w_id = {}",
                    l.quantity, l.i_id, l.supply_w_id
                ),
            )?;
            let amount = price * i64::from(l.quantity);
            total_cents += amount;
            exec(
                c,
                &format!(
                    "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, \
                     ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) \
                     VALUES ({o_id}, {d_id}, {w_id}, {}, {}, {}, NULL, {}, {}, {})",
                    k + 1,
                    l.i_id,
                    l.supply_w_id,
                    l.quantity,
                    fixed(amount, 2),
                    quote(col(&s, 2))
                ),
            )?;
        }
        // The total the terminal would display: sum × (1 − discount) × (1 + w_tax + d_tax).
        let _total =
            total_cents * (10_000 - c_discount) / 10_000 * (10_000 + w_tax + d_tax) / 10_000;
        Ok(Done::NewOrder { d_id, o_id })
    }

    /// Finds the customer: by id, or the one in the middle of those with the last name
    /// ordered by first name (clause 2.5.2.2). Returns `None` when no customer has it.
    fn find_customer(
        &self,
        c: &mut SyncClient,
        w: u32,
        d: u32,
        key: &CustomerKey,
    ) -> Result<Option<u32>, TxnError> {
        match key {
            CustomerKey::Id(id) => Ok(Some(*id)),
            CustomerKey::Last(last) => {
                let q = format!(
                    "SELECT c_id FROM customer WHERE c_w_id = {w} AND c_d_id = {d} \
                     AND c_last = '{last}' ORDER BY c_first"
                );
                let r = rows(c, &q)?;
                if r.is_empty() {
                    return Ok(None);
                }
                let mid = r.len().div_ceil(2) - 1;
                Ok(Some(int_col(&r[mid], 0, &q)? as u32))
            }
        }
    }

    /// Clause 2.5.2.2.
    fn payment(
        &self,
        c: &mut SyncClient,
        d_id: u32,
        c_w_id: u32,
        c_d_id: u32,
        customer: &CustomerKey,
        amount: u32,
    ) -> Result<(), TxnError> {
        let w_id = self.w_id;
        let h_amount = fixed(i64::from(amount), 2);
        exec(
            c,
            &format!("UPDATE warehouse SET w_ytd = w_ytd + {h_amount} WHERE w_id = {w_id}"),
        )?;
        let w = one_row(
            c,
            &format!(
                "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name \
                 FROM warehouse WHERE w_id = {w_id}"
            ),
        )?;
        exec(
            c,
            &format!(
                "UPDATE district SET d_ytd = d_ytd + {h_amount} WHERE d_w_id = {w_id} \
                 AND d_id = {d_id}"
            ),
        )?;
        let d = one_row(
            c,
            &format!(
                "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name \
                 FROM district WHERE d_w_id = {w_id} AND d_id = {d_id}"
            ),
        )?;
        let Some(c_id) = self.find_customer(c, c_w_id, c_d_id, customer)? else {
            return Ok(());
        };
        let q = format!(
            "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, \
             c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since \
             FROM customer WHERE c_w_id = {c_w_id} AND c_d_id = {c_d_id} AND c_id = {c_id} \
             FOR UPDATE"
        );
        let cu = one_row(c, &q)?;
        let balance = dec_col(&cu, 12, 2) - i64::from(amount);
        let key = format!("c_w_id = {c_w_id} AND c_d_id = {c_d_id} AND c_id = {c_id}");
        if col(&cu, 9) == "BC" {
            let r = one_row(c, &format!("SELECT c_data FROM customer WHERE {key}"))?;
            let mut data = format!("{c_id} {c_d_id} {c_w_id} {d_id} {w_id} {h_amount} | ");
            data.push_str(col(&r, 0));
            data.truncate(500);
            exec(
                c,
                &format!(
                    "UPDATE customer SET c_balance = {}, c_ytd_payment = c_ytd_payment + \
                     {h_amount}, c_payment_cnt = c_payment_cnt + 1, c_data = {} WHERE {key}",
                    fixed(balance, 2),
                    quote(&data)
                ),
            )?;
        } else {
            exec(
                c,
                &format!(
                    "UPDATE customer SET c_balance = {}, c_ytd_payment = c_ytd_payment + \
                     {h_amount}, c_payment_cnt = c_payment_cnt + 1 WHERE {key}",
                    fixed(balance, 2)
                ),
            )?;
        }
        let h_data = format!("{}    {}", col(&w, 5), col(&d, 5));
        exec(
            c,
            &format!(
                "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, \
                 h_amount, h_data) VALUES ({c_id}, {c_d_id}, {c_w_id}, {d_id}, {w_id}, '{}', \
                 {h_amount}, {})",
                now_datetime(),
                quote(&h_data)
            ),
        )?;
        Ok(())
    }

    /// Clause 2.6.2.2.
    fn order_status(
        &self,
        c: &mut SyncClient,
        d_id: u32,
        customer: &CustomerKey,
    ) -> Result<(), TxnError> {
        let w_id = self.w_id;
        let Some(c_id) = self.find_customer(c, w_id, d_id, customer)? else {
            return Ok(());
        };
        one_row(
            c,
            &format!(
                "SELECT c_balance, c_first, c_middle, c_last FROM customer \
                 WHERE c_w_id = {w_id} AND c_d_id = {d_id} AND c_id = {c_id}"
            ),
        )?;
        let q = format!(
            "SELECT o_id, o_carrier_id, o_entry_d FROM orders \
             WHERE o_w_id = {w_id} AND o_d_id = {d_id} AND o_c_id = {c_id} \
             ORDER BY o_id DESC LIMIT 1"
        );
        let o = rows(c, &q)?;
        if let Some(o) = o.first() {
            let o_id = int_col(o, 0, &q)?;
            rows(
                c,
                &format!(
                    "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d \
                     FROM order_line WHERE ol_w_id = {w_id} AND ol_d_id = {d_id} \
                     AND ol_o_id = {o_id}"
                ),
            )?;
        }
        Ok(())
    }

    /// Clause 2.7.4.2: all ten districts in one transaction.
    fn delivery(&self, c: &mut SyncClient, carrier: u32) -> Result<(), TxnError> {
        let w_id = self.w_id;
        let now = now_datetime();
        for d_id in 1..=DISTRICTS {
            let q = format!(
                "SELECT no_o_id FROM new_order WHERE no_w_id = {w_id} AND no_d_id = {d_id} \
                 ORDER BY no_o_id LIMIT 1 FOR UPDATE"
            );
            let r = rows(c, &q)?;
            let Some(r) = r.first() else {
                continue; // Nothing to deliver in this district (clause 2.7.4.2).
            };
            let o_id = int_col(r, 0, &q)?;
            exec(
                c,
                &format!(
                    "DELETE FROM new_order WHERE no_w_id = {w_id} AND no_d_id = {d_id} \
                     AND no_o_id = {o_id}"
                ),
            )?;
            let q = format!(
                "SELECT o_c_id FROM orders WHERE o_w_id = {w_id} AND o_d_id = {d_id} \
                 AND o_id = {o_id} FOR UPDATE"
            );
            let o = one_row(c, &q)?;
            let c_id = int_col(&o, 0, &q)?;
            exec(
                c,
                &format!(
                    "UPDATE orders SET o_carrier_id = {carrier} WHERE o_w_id = {w_id} \
                     AND o_d_id = {d_id} AND o_id = {o_id}"
                ),
            )?;
            exec(
                c,
                &format!(
                    "UPDATE order_line SET ol_delivery_d = '{now}' WHERE ol_w_id = {w_id} \
                     AND ol_d_id = {d_id} AND ol_o_id = {o_id}"
                ),
            )?;
            let s = one_row(
                c,
                &format!(
                    "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = {w_id} \
                     AND ol_d_id = {d_id} AND ol_o_id = {o_id}"
                ),
            )?;
            let sum = fixed(dec_col(&s, 0, 2), 2);
            exec(
                c,
                &format!(
                    "UPDATE customer SET c_balance = c_balance + {sum}, \
                     c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = {w_id} \
                     AND c_d_id = {d_id} AND c_id = {c_id}"
                ),
            )?;
        }
        Ok(())
    }

    /// Clause 2.8.2.2: distinct items of the district's last 20 orders below the threshold.
    fn stock_level(&self, c: &mut SyncClient, threshold: u32) -> Result<u64, TxnError> {
        let (w_id, d_id) = (self.w_id, self.d_id);
        let q = format!("SELECT d_next_o_id FROM district WHERE d_w_id = {w_id} AND d_id = {d_id}");
        let r = one_row(c, &q)?;
        let next = int_col(&r, 0, &q)?;
        let lo = next - 20;
        if self.split_joins {
            let q = format!(
                "SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = {w_id} \
                 AND ol_d_id = {d_id} AND ol_o_id < {next} AND ol_o_id >= {lo}"
            );
            let items: Vec<String> = rows(c, &q)?
                .into_iter()
                .filter_map(|r| r.into_iter().next().flatten())
                .collect();
            if items.is_empty() {
                return Ok(0);
            }
            let q = format!(
                "SELECT COUNT(*) FROM stock WHERE s_w_id = {w_id} AND s_quantity < {threshold} \
                 AND s_i_id IN ({})",
                items.join(",")
            );
            let r = one_row(c, &q)?;
            return Ok(int_col(&r, 0, &q)? as u64);
        }
        let q = format!(
            "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock \
             WHERE ol_w_id = {w_id} AND ol_d_id = {d_id} AND ol_o_id < {next} \
             AND ol_o_id >= {lo} AND s_w_id = {w_id} AND s_i_id = ol_i_id \
             AND s_quantity < {threshold}"
        );
        let r = one_row(c, &q)?;
        Ok(int_col(&r, 0, &q)? as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terminal(warehouses: u32) -> Terminal {
        let mut rng = Tr::new(11);
        Terminal {
            w_id: 1,
            d_id: 1,
            warehouses,
            scale: Scale::FULL,
            consts: CConstants::for_run(&mut rng),
            split_joins: false,
            rng,
        }
    }

    #[test]
    fn the_mix_is_45_43_4_4_4() {
        let mut n = std::collections::BTreeMap::new();
        for p in 1..=100 {
            *n.entry(Kind::from_pct(p)).or_insert(0) += 1;
        }
        assert_eq!(n[&Kind::NewOrder], 45);
        assert_eq!(n[&Kind::Payment], 43);
        assert_eq!(n[&Kind::OrderStatus], 4);
        assert_eq!(n[&Kind::Delivery], 4);
        assert_eq!(n[&Kind::StockLevel], 4);
    }

    #[test]
    fn new_order_inputs_follow_the_spec() {
        let mut t = terminal(10);
        let (mut rollbacks, mut remote_lines, mut lines_total) = (0, 0, 0);
        for _ in 0..20_000 {
            let Inputs::NewOrder {
                lines, rollback, ..
            } = t.inputs(Kind::NewOrder)
            else {
                panic!("not a new-order");
            };
            assert!((5..=15).contains(&lines.len()));
            if rollback {
                rollbacks += 1;
                assert_eq!(lines.last().unwrap().i_id, Scale::FULL.items + 1);
            }
            for w in lines.windows(2) {
                assert!((w[0].supply_w_id, w[0].i_id) <= (w[1].supply_w_id, w[1].i_id));
            }
            lines_total += lines.len();
            remote_lines += lines.iter().filter(|l| l.supply_w_id != 1).count();
        }
        assert!((120..=290).contains(&rollbacks), "{rollbacks}");
        let pct = remote_lines as f64 * 100.0 / lines_total as f64;
        assert!((0.7..1.3).contains(&pct), "{pct}");
    }

    #[test]
    fn payment_inputs_follow_the_spec() {
        let mut t = terminal(10);
        let (mut remote, mut by_name) = (0, 0);
        for _ in 0..20_000 {
            let Inputs::Payment {
                c_w_id,
                customer,
                amount,
                ..
            } = t.inputs(Kind::Payment)
            else {
                panic!("not a payment");
            };
            assert!((100..=500_000).contains(&amount));
            remote += u32::from(c_w_id != 1);
            by_name += u32::from(matches!(customer, CustomerKey::Last(_)));
        }
        assert!((2700..=3300).contains(&remote), "{remote}");
        assert!((11_500..=12_500).contains(&by_name), "{by_name}");
        // With one warehouse every payment is local.
        let mut t = terminal(1);
        for _ in 0..1000 {
            let Inputs::Payment { c_w_id, .. } = t.inputs(Kind::Payment) else {
                panic!()
            };
            assert_eq!(c_w_id, 1);
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("a'b\\c"), "'a''b\\\\c'");
    }
}
