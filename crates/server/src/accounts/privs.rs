//! Privileges as MariaDB 10.11 names them: a bit set, the names in SHOW GRANTS order, and
//! which privileges each level (`*.*`, `db.*`, `db.tbl`) may hold.
//!
//! The bits follow MariaDB's order, which is also the order SHOW GRANTS lists them in;
//! `GRANT OPTION` is a bit too (printed as `WITH GRANT OPTION`, never in the list).

use std::fmt::Write;

/// A set of privileges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Privs(pub u64);

macro_rules! privs {
    ($($name:ident = $bit:expr, $text:expr;)*) => {
        impl Privs {
            $(pub const $name: Privs = Privs(1 << $bit);)*
        }
        /// Every privilege with its name, in SHOW GRANTS order (GRANT OPTION included).
        pub const NAMES: &[(&str, Privs)] = &[$(($text, Privs::$name)),*];
    };
}

privs! {
    SELECT = 0, "SELECT";
    INSERT = 1, "INSERT";
    UPDATE = 2, "UPDATE";
    DELETE = 3, "DELETE";
    CREATE = 4, "CREATE";
    DROP = 5, "DROP";
    RELOAD = 6, "RELOAD";
    SHUTDOWN = 7, "SHUTDOWN";
    PROCESS = 8, "PROCESS";
    FILE = 9, "FILE";
    GRANT = 10, "GRANT OPTION";
    REFERENCES = 11, "REFERENCES";
    INDEX = 12, "INDEX";
    ALTER = 13, "ALTER";
    SHOW_DB = 14, "SHOW DATABASES";
    SUPER = 15, "SUPER";
    CREATE_TMP = 16, "CREATE TEMPORARY TABLES";
    LOCK_TABLES = 17, "LOCK TABLES";
    EXECUTE = 18, "EXECUTE";
    REPL_SLAVE = 19, "REPLICATION SLAVE";
    BINLOG_MONITOR = 20, "BINLOG MONITOR";
    CREATE_VIEW = 21, "CREATE VIEW";
    SHOW_VIEW = 22, "SHOW VIEW";
    CREATE_PROC = 23, "CREATE ROUTINE";
    ALTER_PROC = 24, "ALTER ROUTINE";
    CREATE_USER = 25, "CREATE USER";
    EVENT = 26, "EVENT";
    TRIGGER = 27, "TRIGGER";
    CREATE_TABLESPACE = 28, "CREATE TABLESPACE";
    DELETE_HISTORY = 29, "DELETE HISTORY";
    SET_USER = 30, "SET USER";
    FEDERATED_ADMIN = 31, "FEDERATED ADMIN";
    CONNECTION_ADMIN = 32, "CONNECTION ADMIN";
    READ_ONLY_ADMIN = 33, "READ_ONLY ADMIN";
    REPL_SLAVE_ADMIN = 34, "REPLICATION SLAVE ADMIN";
    REPL_MASTER_ADMIN = 35, "REPLICATION MASTER ADMIN";
    BINLOG_ADMIN = 36, "BINLOG ADMIN";
    BINLOG_REPLAY = 37, "BINLOG REPLAY";
    SLAVE_MONITOR = 38, "SLAVE MONITOR";
}

/// The privileges a level may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Global,
    Database,
    Table,
}

impl Privs {
    pub const NONE: Privs = Privs(0);
    /// Everything `ALL PRIVILEGES ON *.*` gives (not GRANT OPTION).
    pub const GLOBAL_ALL: Privs = Privs(((1u64 << 39) - 1) & !(1 << 10));
    /// What a database-level grant may hold (MariaDB's DB_ACLS, without GRANT OPTION).
    pub const DB_ALL: Privs = Privs(
        Privs::SELECT.0
            | Privs::INSERT.0
            | Privs::UPDATE.0
            | Privs::DELETE.0
            | Privs::CREATE.0
            | Privs::DROP.0
            | Privs::REFERENCES.0
            | Privs::INDEX.0
            | Privs::ALTER.0
            | Privs::CREATE_TMP.0
            | Privs::LOCK_TABLES.0
            | Privs::EXECUTE.0
            | Privs::CREATE_VIEW.0
            | Privs::SHOW_VIEW.0
            | Privs::CREATE_PROC.0
            | Privs::ALTER_PROC.0
            | Privs::EVENT.0
            | Privs::TRIGGER.0
            | Privs::DELETE_HISTORY.0,
    );
    /// What a table-level grant may hold (MariaDB's TABLE_ACLS, without GRANT OPTION).
    pub const TABLE_ALL: Privs = Privs(
        Privs::SELECT.0
            | Privs::INSERT.0
            | Privs::UPDATE.0
            | Privs::DELETE.0
            | Privs::CREATE.0
            | Privs::DROP.0
            | Privs::REFERENCES.0
            | Privs::INDEX.0
            | Privs::ALTER.0
            | Privs::CREATE_VIEW.0
            | Privs::SHOW_VIEW.0
            | Privs::TRIGGER.0
            | Privs::DELETE_HISTORY.0,
    );

    pub fn contains(self, other: Privs) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn intersects(self, other: Privs) -> bool {
        self.0 & other.0 != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn without(self, other: Privs) -> Privs {
        Privs(self.0 & !other.0)
    }

    /// Everything `ALL` means at `level`.
    pub fn all_of(level: Level) -> Privs {
        match level {
            Level::Global => Privs::GLOBAL_ALL,
            Level::Database => Privs::DB_ALL,
            Level::Table => Privs::TABLE_ALL,
        }
    }

    /// The privilege a name (already upper-cased, words separated by one space) means;
    /// `REPLICATION CLIENT` is MariaDB 10.11's alias of `BINLOG MONITOR`.
    pub fn by_name(name: &str) -> Option<Privs> {
        if name == "REPLICATION CLIENT" {
            return Some(Privs::BINLOG_MONITOR);
        }
        NAMES.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
    }

    /// The names of the privileges in the set, in SHOW GRANTS order (GRANT OPTION last-free:
    /// it is skipped unless `with_grant` is true, when it comes where MariaDB lists it).
    pub fn names(self, with_grant: bool) -> impl Iterator<Item = &'static str> {
        NAMES
            .iter()
            .filter(move |(_, p)| self.contains(*p) && (with_grant || *p != Privs::GRANT))
            .map(|(n, _)| *n)
    }

    /// SHOW GRANTS' privilege list at `level`: `ALL PRIVILEGES`, `USAGE` or the names.
    pub fn grant_text(self, level: Level) -> String {
        let p = self.without(Privs::GRANT);
        if p.is_empty() {
            return "USAGE".into();
        }
        if p.contains(Privs::all_of(level)) {
            return "ALL PRIVILEGES".into();
        }
        let mut out = String::new();
        for n in p.names(false) {
            if !out.is_empty() {
                out.push_str(", ");
            }
            let _ = write!(out, "{n}");
        }
        out
    }
}

impl std::ops::BitOr for Privs {
    type Output = Privs;
    fn bitor(self, o: Privs) -> Privs {
        Privs(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for Privs {
    fn bitor_assign(&mut self, o: Privs) {
        self.0 |= o.0;
    }
}

impl std::ops::BitAnd for Privs {
    type Output = Privs;
    fn bitand(self, o: Privs) -> Privs {
        Privs(self.0 & o.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_levels() {
        assert_eq!(NAMES.len(), 39);
        assert_eq!(
            Privs::by_name("REPLICATION CLIENT"),
            Some(Privs::BINLOG_MONITOR)
        );
        assert_eq!(Privs::by_name("SLAVE MONITOR"), Some(Privs::SLAVE_MONITOR));
        assert!(!Privs::GLOBAL_ALL.contains(Privs::GRANT));
        assert!(Privs::GLOBAL_ALL.contains(Privs::DB_ALL));
        assert!(Privs::DB_ALL.contains(Privs::TABLE_ALL));
        assert_eq!(
            (Privs::RELOAD | Privs::PROCESS | Privs::GRANT).grant_text(Level::Global),
            "RELOAD, PROCESS"
        );
        assert_eq!(Privs::TABLE_ALL.grant_text(Level::Table), "ALL PRIVILEGES");
        assert_eq!(Privs::GRANT.grant_text(Level::Database), "USAGE");
    }
}
