//! The executors: one file per statement family.
//!
//! * `select` — SELECT over a plan (`crate::sql::plan`): scans, filters, grouping, sorting.
//! * `dml` — INSERT, UPDATE, DELETE, REPLACE.
//! * `ddl` — CREATE/DROP/TRUNCATE of schemas and tables, durable through the log.
//! * `admin` — SET, transaction control, accounts and grants, KILL-free session statements.
//! * `binlog_admin` — SHOW BINARY LOGS / BINLOG EVENTS / MASTER STATUS, PURGE and RESET.
//! * `show` — the other SHOW statements.
//! * `virtual_tables` — information_schema and performance_schema tables as row sources.

pub(in crate::sql) mod admin;
pub(in crate::sql) mod binlog_admin;
pub(in crate::sql) mod ddl;
pub(in crate::sql) mod dml;
pub(in crate::sql) mod explain;
mod group_concat;
pub(in crate::sql) mod join;
pub(in crate::sql) mod select;
pub(in crate::sql) mod show;
pub(in crate::sql) mod subquery;
pub(in crate::sql) mod virtual_tables;
