//! The Cohort server: a MySQL-wire-compatible OLTP database whose commit pipeline and
//! thread scheduling are the point.
//!
//! Where things live (one concept per module):
//!
//! | module | what it owns |
//! |---|---|
//! | [`types`] | SQL values and column types |
//! | [`error`] | the error type, by what the caller must do, mapped to MySQL codes |
//! | [`wait`] | the one wait API: every blocking wait, told to the scheduler and timed |
//! | [`storage`] | in-memory tables, indexes, row locks, transactions |
//! | [`log`] | the binlog, group commit (the commit pipeline), recovery |
//! | [`sql`] | parse → bind → plan → execute |
//! | [`session`] | per-connection state machine: commands in, responses out (no I/O) |
//! | [`vars`], [`status`], [`accounts`] | system variables, status counters, users and grants |
//! | [`config`] | command-line and TOML configuration |
//! | [`datadir`] | creating the data directory and its files, owner-only |
//! | [`net`] | sockets: binding, one thread per connection |
//! | [`sched`] | accepting (both modes), the pool of threads (thread groups over epoll, asynchronous commit completion) and the admission gate (`innodb_thread_concurrency`) |

pub mod accounts;
pub mod config;
pub mod datadir;
pub mod error;
pub mod log;
pub mod memory;
pub mod net;
pub mod sched;
pub mod session;
pub mod shutdown;
pub mod sql;
pub mod status;
pub mod storage;
pub mod types;
pub mod vars;
pub mod wait;

/// This crate's tests run on the counting allocator, so that memory accounting is exercised.
#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: memory::Counting<std::alloc::System> = memory::Counting(std::alloc::System);

/// The server version sent in the handshake and shown as `@@version`. It must start with a
/// MySQL-style `N.N.N` and must not say "MariaDB" (see the protocol research, §0).
pub const VERSION: &str = "8.0.36-cohort-0.1.0";
