//! The executors: one file per statement family.
//!
//! * `select` — SELECT over a plan (`crate::sql::plan`): scans, filters, grouping, sorting;
//!   `rollup` (GROUP BY … WITH ROLLUP), `window` and `window_agg` (window functions) for it.
//! * `dml` — INSERT, UPDATE, DELETE, REPLACE; `returning` — their RETURNING lists;
//!   `multi_dml` — multi-table UPDATE and DELETE.
//! * `ddl` — CREATE/DROP/TRUNCATE of schemas and tables, durable through the log.
//! * `admin` — SET, transaction control, accounts and grants, KILL-free session statements.
//! * `binlog_admin` — SHOW BINARY LOGS / BINLOG EVENTS / MASTER STATUS, PURGE and RESET.
//! * `binlog_stmt` — the `BINLOG '…'` statement of `mariadb-binlog` output (row events).
//! * `show` — the other SHOW statements.
//! * `fk` — FOREIGN KEY checks and cascades around DML; `check` — CHECK constraints.
//! * `query` — query expressions: UNION / INTERSECT / EXCEPT, parenthesized queries; `cte`
//!   — derived tables and CTEs (`WITH [RECURSIVE]`).
//! * `found_rows` — FOUND_ROWS() and SELECT SQL_CALC_FOUND_ROWS: what each statement leaves.
//! * `prepare_sql` — PREPARE, EXECUTE, DEALLOCATE PREPARE (named prepared statements).
//! * `load` — LOAD DATA [LOCAL] INFILE, streamed.
//! * `view_tables` — the base tables of a view, which LOCK TABLES locks with it.
//! * `virtual_tables` — information_schema and performance_schema tables as row sources.

pub(in crate::sql) mod admin;
pub(in crate::sql) mod analyze;
pub(in crate::sql) mod binlog_admin;
pub(in crate::sql) mod binlog_stmt;
pub(in crate::sql) mod check;
pub(in crate::sql) mod checksum;
mod cte;
pub(in crate::sql) mod ddl;
pub(in crate::sql) mod default_expr;
pub(in crate::sql) mod dml;
pub(in crate::sql) mod explain;
pub(in crate::sql) mod expr_print;
pub(in crate::sql) mod fk;
pub(in crate::sql) mod found_rows;
mod full_group_by;
pub(in crate::sql) mod gencol;
mod group_concat;
pub(in crate::sql) mod join;
pub(in crate::sql) mod load;
pub(in crate::sql) mod multi_dml;
pub(in crate::sql) mod prepare_sql;
pub(in crate::sql) mod query;
pub(in crate::sql) mod replay_vars;
pub(in crate::sql) mod returning;
mod rollup;
mod scan_order;
pub(in crate::sql) mod select;
pub(in crate::sql) mod select_into;
pub(in crate::sql) mod show;
pub(in crate::sql) mod show_mode;
mod strict_values;
pub(in crate::sql) mod subquery;
pub(in crate::sql) mod view_dml;
pub(in crate::sql) mod view_tables;
pub(in crate::sql) mod virtual_tables;
pub(in crate::sql) mod window;
mod window_agg;
