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
//! | [`replication`] | serving the binlog to replicas and CDC clients (MariaDB's dump protocol) |
//! | [`sched`] | accepting (both modes), the pool of threads (thread groups over epoll, asynchronous commit completion) and the admission gate (`innodb_thread_concurrency`) |

pub mod accounts;
pub mod config;
pub mod datadir;
pub mod error;
pub mod interrupt;
pub mod log;
pub mod memory;
pub mod net;
pub mod replication;
pub mod sched;
pub mod session;
pub mod shutdown;
pub mod sql;
pub mod status;
pub mod storage;
pub mod tls;
pub mod types;
pub mod vars;
pub mod wait;

#[cfg(test)]
pub(crate) mod testkit;

/// This crate's tests run on the counting allocator, so that memory accounting is exercised.
#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: memory::Counting<std::alloc::System> = memory::Counting(std::alloc::System);

/// The MariaDB release whose binlog, replication protocol, variables and SQL dialect Cohort
/// speaks: 10.11, patch level 19 — the MariaDB the tests use as their oracle (Debian 12's
/// `mariadb-server`). Written here only (a macro, so that `concat!` can use it).
macro_rules! mariadb_compat {
    () => {
        "10.11.19"
    };
}

/// See [`mariadb_compat!`].
pub const MARIADB_COMPAT: &str = mariadb_compat!();

/// What Cohort is, as `VERSION()` and `@@version` show it and the binlog's Format_description
/// carries it: `10.11.19-MariaDB-cohort-0.1.0`. The word `MariaDB` is what replicas and CDC
/// clients look for before they speak MariaDB's dialect of the replication protocol (GTIDs,
/// `@slave_connect_state`); `mariadb-binlog --read-from-remote-server` refuses a server
/// without it.
pub const VERSION: &str = concat!(
    mariadb_compat!(),
    "-MariaDB-cohort-",
    env!("CARGO_PKG_VERSION")
);

/// The version in the handshake: [`VERSION`] behind MariaDB's `5.5.5-` prefix, which
/// MariaDB servers send so that old MySQL clients (which compare the leading number) take
/// them for a 5.5 server; MariaDB clients and replicas strip it. As MariaDB's, the greeting
/// leaves `CLIENT_MYSQL` (`LONG_PASSWORD`) clear and carries MariaDB's extended capabilities
/// (extended column metadata only: see `cohort_protocol::flags`).
pub const HANDSHAKE_VERSION: &str = concat!(
    "5.5.5-",
    mariadb_compat!(),
    "-MariaDB-cohort-",
    env!("CARGO_PKG_VERSION")
);

#[cfg(test)]
mod version_tests {
    #[test]
    fn versions_agree_with_the_compat_release() {
        assert_eq!(
            super::VERSION,
            format!(
                "{}-MariaDB-cohort-{}",
                super::MARIADB_COMPAT,
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!(
            super::HANDSHAKE_VERSION,
            format!("5.5.5-{}", super::VERSION)
        );
        assert!(super::VERSION.len() <= cohort_binlog::SERVER_VERSION_LEN);
    }
}
