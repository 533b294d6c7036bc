//! Statements: the whole SQL surface Cohort parses, generated from a model of the schema.
//!
//! [`Generator`] produces one [`Action`] at a time. It keeps a model of the tables it has
//! created (names, columns, rough column kinds) so that DML mostly names real columns and
//! succeeds often enough to fill tables and reach the executors; but the model is updated
//! from what the generator *intended*, never from the server's answers, so the stream of
//! actions is a pure function of the seed (a failure is reproducible from seed and
//! iteration alone).
//!
//! Surface covered (see `crates/server/src/sql/parse/mod.rs` and the golden scripts):
//! CREATE/ALTER/DROP/TRUNCATE TABLE, CREATE/DROP INDEX, CREATE/DROP DATABASE, USE, every
//! column type and attribute with extreme sizes; INSERT / REPLACE (VALUES, SET, SELECT, ON
//! DUPLICATE KEY UPDATE, IGNORE), UPDATE and DELETE (WHERE, ORDER BY, LIMIT), SELECT
//! (DISTINCT, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT/OFFSET, FOR UPDATE, LOCK IN SHARE
//! MODE), DO; transactions; SET of every variable, user variables, NAMES, TRANSACTION,
//! PASSWORD; every SHOW; CREATE/ALTER/DROP USER, GRANT, REVOKE; FLUSH, PURGE, ANALYZE /
//! OPTIMIZE / CHECK / REPAIR, DESCRIBE / EXPLAIN; statements Cohort refuses; prepared
//! statements (COM_STMT_PREPARE / EXECUTE / SEND_LONG_DATA / RESET / FETCH / CLOSE) with
//! parameters of every wire type.
//!
//! Never generated, because they would end the fuzzing session rather than test the server:
//! changes to `root` or to the fuzzer's user, `SET PASSWORD` for the current user, `COMMIT
//! RELEASE`, `debug_failpoint`, and harness-breaking values of timeouts and connection
//! limits (those variables get only safe values; see [`SENSITIVE_VARS`]).

use super::action::{Action, Prepared};
use super::expr::{self, Ctx};
use super::values;
use crate::rng::Rng;
use crate::tree::{expr as ex, list, num, opt, paren, seq, string, tok, Node};

/// The database the fuzzer works in.
pub const DB: &str = "fz";
/// A second account, used for statements run with fewer privileges.
pub const USER: &str = "fzu";
pub const USER_PASSWORD: &str = "fzpw";

const MAX_TABLES: usize = 6;
/// Largest statement generated, bytes.
pub const MAX_STATEMENT: usize = 4 << 20;

/// A column of the model.
#[derive(Clone, Debug)]
struct Column {
    name: String,
    kind: Kind,
}

/// What values suit a column.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Int,
    Decimal,
    Float,
    Text,
    Binary,
    Temporal,
    Other,
}

#[derive(Clone, Debug)]
struct Table {
    name: String,
    columns: Vec<Column>,
}

/// The statement generator for one seed.
pub struct Generator {
    rng: Rng,
    tables: Vec<Table>,
    next_table: usize,
    /// Generate the recursion-depth class (off only for local triage, `--no-deep`).
    pub deep: bool,
}

/// System variables: name, and whether only safe values may be given (timeouts and limits
/// that would break the fuzzing session itself, or stall every commit).
const VARIABLES: &[(&str, bool)] = &[
    ("autocommit", false),
    ("sql_mode", false),
    ("sql_select_limit", false),
    ("sql_auto_is_null", false),
    ("max_allowed_packet", false),
    ("max_prepared_stmt_count", false),
    ("innodb_lock_wait_timeout", false),
    ("lock_wait_timeout", true),
    ("transaction_isolation", false),
    ("tx_isolation", false),
    ("transaction_read_only", false),
    ("tx_read_only", false),
    ("time_zone", false),
    ("character_set_client", false),
    ("character_set_results", false),
    ("character_set_connection", false),
    ("collation_connection", false),
    ("collation_server", false),
    ("net_buffer_length", false),
    ("auto_increment_increment", false),
    ("auto_increment_offset", false),
    ("default_storage_engine", false),
    ("storage_engine", false),
    ("performance_schema", false),
    ("sync_binlog", false),
    ("max_binlog_size", false),
    ("binlog_expire_logs_seconds", false),
    ("checkpoint_interval_seconds", false),
    ("checkpoint_log_bytes", false),
    ("innodb_flush_log_at_trx_commit", false),
    ("binlog_optimize_thread_scheduling", false),
    ("commit_wakeup", false),
    ("log_flush_placement", false),
    ("server_id", false),
    ("innodb_concurrency_tickets", false),
    ("extra_max_connections", false),
    ("thread_pool_priority", false),
    ("thread_pool_idle_timeout", false),
    ("thread_pool_prio_kickup_timer", false),
    ("version_comment", false),
    ("port", false),
    ("datadir", false),
    ("nosuch_variable", false),
    ("wait_timeout", true),
    ("interactive_timeout", true),
    ("net_read_timeout", true),
    ("net_write_timeout", true),
    ("max_connections", true),
    ("log_sync_delay_us", true),
    ("binlog_commit_wait_count", true),
    ("binlog_commit_wait_usec", true),
    ("innodb_thread_concurrency", true),
    ("innodb_thread_sleep_delay", true),
    ("innodb_adaptive_max_sleep_delay", true),
    ("concurrency_queue", true),
    ("thread_pool_max_threads", true),
    ("thread_pool_size", true),
    ("thread_pool_oversubscribe", true),
    ("thread_pool_stall_limit", true),
];

/// Variables that only get the safe values of [`safe_value`].
#[cfg(test)]
const SENSITIVE_VARS: &[&str] = &[
    "lock_wait_timeout",
    "wait_timeout",
    "interactive_timeout",
    "net_read_timeout",
    "net_write_timeout",
    "max_connections",
    "log_sync_delay_us",
    "binlog_commit_wait_count",
    "binlog_commit_wait_usec",
    "innodb_thread_concurrency",
    "innodb_thread_sleep_delay",
    "innodb_adaptive_max_sleep_delay",
    "concurrency_queue",
    "thread_pool_max_threads",
    "thread_pool_size",
    "thread_pool_oversubscribe",
    "thread_pool_stall_limit",
];

impl Generator {
    pub fn new(seed: u64) -> Generator {
        Generator {
            rng: Rng::derive(seed, 1, 0),
            tables: Vec::new(),
            next_table: 0,
            deep: true,
        }
    }

    /// Forget the schema (a fresh data directory).
    pub fn reset_schema(&mut self) {
        self.tables.clear();
    }

    /// The next action. Statements stay below [`MAX_STATEMENT`] bytes (well under the
    /// default max_allowed_packet, which bad_input.py tests on its own).
    pub fn action(&mut self) -> Action {
        for _ in 0..8 {
            let a = self.any_action();
            if a.size() <= MAX_STATEMENT {
                return a;
            }
        }
        Action::Query(tok("SELECT 1"))
    }

    fn any_action(&mut self) -> Action {
        if self.tables.is_empty() || self.rng.chance(1, 25) {
            return Action::Query(self.create_table());
        }
        let weights = [
            6,                    // alter / index / drop / truncate
            18,                   // insert / replace
            8,                    // update
            4,                    // delete
            20,                   // select
            6,                    // set
            5,                    // show
            6,                    // transactions
            3,                    // users and grants
            12,                   // prepared statements
            4,                    // other statements
            u32::from(self.deep), // deep expressions
            2,                    // as the less privileged user
        ];
        match self.rng.weighted(&weights) {
            0 => Action::Query(self.ddl()),
            1 => Action::Query(self.insert(false)),
            2 => Action::Query(self.update(false)),
            3 => Action::Query(self.delete(false)),
            4 => Action::Query(self.select(false)),
            5 => Action::Query(self.set()),
            6 => Action::Query(self.show()),
            7 => Action::Query(self.transaction()),
            8 => Action::Query(self.account()),
            9 => Action::Prepared(self.prepared()),
            10 => Action::Query(self.other()),
            11 => Action::Query(self.deep()),
            _ => Action::AsUser(self.as_user()),
        }
    }

    // ----- model ------------------------------------------------------------------------

    fn table(&mut self) -> Table {
        let i = self.rng.index(self.tables.len());
        self.tables[i].clone()
    }

    fn table_name(&mut self) -> String {
        if self.tables.is_empty() || self.rng.chance(1, 20) {
            return self
                .rng
                .pick(&["nosuch", "fz.nosuch", "nosuchdb.t", "`t 0`"])
                .to_string();
        }
        let t = self.table().name;
        if self.rng.chance(1, 10) {
            format!("{DB}.{t}")
        } else {
            t
        }
    }

    fn ctx(&mut self, table: Option<&Table>, aggregates: bool, params: bool) -> Ctx {
        let mut columns: Vec<String> = table
            .map(|t| t.columns.iter().map(|c| c.name.clone()).collect())
            .unwrap_or_default();
        if table.is_some() && self.rng.chance(1, 20) {
            columns.push("nosuch_col".into());
        }
        Ctx {
            columns,
            aggregates,
            params,
        }
    }

    fn e(&mut self, ctx: &Ctx) -> Node {
        let depth = self.rng.range(0, 4) as u32;
        expr::gen(&mut self.rng, ctx, depth)
    }

    /// A value for a column: mostly one that fits, sometimes anything.
    fn value_for(&mut self, kind: Kind, ctx: &Ctx) -> Node {
        self.value_with(kind, ctx, 3)
    }

    /// A value for a column; one in `one_in` is a whole expression (0: never).
    fn value_with(&mut self, kind: Kind, ctx: &Ctx, one_in: u64) -> Node {
        let rng = &mut self.rng;
        if one_in > 0 && rng.chance(1, one_in) {
            return self.e(ctx);
        }
        if rng.chance(1, 4) {
            return ex(values::literal(rng));
        }
        let node = match kind {
            Kind::Int => num(values::small_int(rng).to_string()),
            Kind::Decimal => num(if rng.bool() {
                values::random_decimal(rng)
            } else {
                format!("{}.{}", values::small_int(rng), rng.below(100))
            }),
            Kind::Float => num(format!("{}e{}", values::small_int(rng), rng.range(0, 20))),
            Kind::Text | Kind::Binary | Kind::Other => string(values::word(rng)),
            Kind::Temporal => string(values::temporal_text(rng)),
        };
        ex(node)
    }

    /// A value that fits the column kind.
    fn sane_value(&mut self, kind: Kind) -> Node {
        let rng = &mut self.rng;
        ex(match kind {
            Kind::Int => num(values::small_int(rng).to_string()),
            Kind::Decimal => num(format!("{}.{}", values::small_int(rng), rng.below(1000))),
            Kind::Float => num(format!("{}e{}", values::small_int(rng), rng.range(0, 5))),
            Kind::Text | Kind::Binary | Kind::Other => string(values::word(rng)),
            Kind::Temporal => string(format!(
                "20{:02}-0{}-1{} 0{}:00:00",
                rng.below(40),
                rng.range(1, 9),
                rng.below(10),
                rng.below(10)
            )),
        })
    }

    // ----- DDL --------------------------------------------------------------------------

    fn create_table(&mut self) -> Node {
        if self.tables.len() >= MAX_TABLES {
            // Make room: the model never holds a table the server may not have.
            let victim = self.tables.remove(0);
            return seq(vec![
                tok("DROP TABLE"),
                opt(tok("IF EXISTS")),
                tok(victim.name),
            ]);
        }
        let free: Vec<String> = (0..MAX_TABLES + 2)
            .map(|i| format!("t{}", (self.next_table + i) % (MAX_TABLES + 2)))
            .filter(|n| !self.tables.iter().any(|t| &t.name == n))
            .collect();
        self.next_table += 1;
        let name = free[0].clone();
        if self.rng.chance(1, 10) && !self.tables.is_empty() {
            let src = self.table();
            self.register(Table {
                name: name.clone(),
                columns: src.columns.clone(),
            });
            return seq(vec![
                tok("CREATE TABLE"),
                opt(tok("IF NOT EXISTS")),
                tok(name),
                tok("LIKE"),
                tok(src.name),
            ]);
        }
        // Mostly tables that MySQL accepts (extreme but valid sizes), so that the rest of
        // the stream has tables to work on; sometimes anything.
        let valid = self.rng.chance(3, 4);
        let ncols = self.rng.range(1, 6) as usize;
        let mut columns = Vec::new();
        let mut defs = Vec::new();
        let with_id = self.rng.chance(3, 4);
        if with_id {
            columns.push(Column {
                name: "id".into(),
                kind: Kind::Int,
            });
            let ty = self.rng.one(&[
                "INT",
                "BIGINT",
                "BIGINT UNSIGNED",
                "TINYINT",
                "SMALLINT UNSIGNED",
            ]);
            let auto = if self.rng.chance(2, 3) {
                "AUTO_INCREMENT"
            } else {
                ""
            };
            defs.push(seq(vec![
                tok("id"),
                tok(ty),
                tok("NOT NULL"),
                tok(auto),
                tok("PRIMARY KEY"),
            ]));
        }
        for i in 0..ncols {
            let cname = format!("c{i}");
            let (ty, kind) = if valid {
                self.valid_column_type()
            } else {
                self.column_type()
            };
            let attrs = if valid {
                self.valid_attributes(kind)
            } else {
                self.column_attributes(kind)
            };
            columns.push(Column {
                name: cname.clone(),
                kind,
            });
            defs.push(seq(vec![tok(cname), ty, attrs]));
        }
        if !valid && self.rng.chance(1, 3) {
            defs.push(self.table_constraint(&columns));
        } else if valid && self.rng.chance(1, 4) {
            let keyable: Vec<&Column> = columns.iter().filter(|c| c.kind != Kind::Other).collect();
            if !keyable.is_empty() {
                let c = self.rng.pick(&keyable).name.clone();
                defs.push(tok(format!("KEY k_{c} ({c})")));
            }
        }
        let temporary = self.rng.chance(1, 30);
        // Hostile definitions mostly fail: only the valid ones enter the model.
        if valid && !temporary {
            self.register(Table {
                name: name.clone(),
                columns,
            });
        }
        let mut parts = vec![tok("CREATE")];
        if temporary {
            parts.push(tok("TEMPORARY"));
        }
        parts.push(tok("TABLE"));
        if self.rng.chance(1, 4) {
            parts.push(opt(tok("IF NOT EXISTS")));
        }
        parts.push(tok(name));
        parts.push(tok("("));
        parts.push(list(defs, ",", 1));
        parts.push(tok(")"));
        if !valid {
            parts.push(self.table_options());
        }
        if !valid && self.rng.chance(1, 20) {
            let src = self.select(true);
            parts.push(opt(seq(vec![tok("AS"), src])));
        }
        seq(parts)
    }

    fn register(&mut self, t: Table) {
        self.tables.retain(|x| x.name != t.name);
        self.tables.push(t);
        if self.tables.len() > MAX_TABLES {
            self.tables.remove(0);
        }
    }

    /// A column type MySQL accepts, at the edges of what it accepts.
    fn valid_column_type(&mut self) -> (Node, Kind) {
        let rng = &mut self.rng;
        let (text, kind) = match rng.weighted(&[6, 8, 2, 6, 2, 2, 3]) {
            0 => (
                rng.pick(&[
                    "TINYINT",
                    "SMALLINT UNSIGNED",
                    "MEDIUMINT",
                    "INT",
                    "INT UNSIGNED",
                    "BIGINT",
                    "BIGINT UNSIGNED",
                    "BOOL",
                ])
                .to_string(),
                Kind::Int,
            ),
            1 => (
                rng.pick(&[
                    "DECIMAL(65,30)",
                    "DECIMAL(65,0)",
                    "DECIMAL(38,10)",
                    "DECIMAL(30,30)",
                    "DECIMAL(29,0)",
                    "DECIMAL(28,28)",
                    "DECIMAL(10,2)",
                    "DECIMAL(1,0)",
                    "DECIMAL(65,30) UNSIGNED",
                    "DECIMAL",
                    "NUMERIC(40,20)",
                ])
                .to_string(),
                Kind::Decimal,
            ),
            2 => (
                rng.pick(&["FLOAT", "DOUBLE", "FLOAT(10,2)", "DOUBLE(20,10)"])
                    .to_string(),
                Kind::Float,
            ),
            3 => (
                rng.pick(&[
                    "VARCHAR(10)",
                    "VARCHAR(255)",
                    "VARCHAR(16383)",
                    "CHAR(1)",
                    "CHAR(255)",
                    "VARCHAR(64) COLLATE utf8mb4_bin",
                    "ENUM('a','b','c ')",
                    "SET('a','b','c')",
                    "ENUM('x','X') COLLATE utf8mb4_bin",
                ])
                .to_string(),
                Kind::Text,
            ),
            4 => (
                rng.pick(&["TEXT", "LONGTEXT", "TINYTEXT", "JSON"])
                    .to_string(),
                Kind::Other,
            ),
            5 => (
                rng.pick(&["VARBINARY(255)", "BINARY(16)", "BIT(8)", "BIT(64)", "BIT"])
                    .to_string(),
                Kind::Binary,
            ),
            _ => (
                rng.pick(&[
                    "DATE",
                    "DATETIME",
                    "DATETIME(6)",
                    "TIMESTAMP(3)",
                    "TIMESTAMP",
                    "TIME",
                    "TIME(3)",
                ])
                .to_string(),
                Kind::Temporal,
            ),
        };
        (tok(text), kind)
    }

    fn valid_attributes(&mut self, kind: Kind) -> Node {
        let mut attrs = Vec::new();
        let rng = &mut self.rng;
        if rng.chance(1, 3) {
            attrs.push(opt(tok(rng.one(&["NOT NULL", "NULL"]))));
        }
        if rng.chance(1, 3) {
            let d = match kind {
                Kind::Int => num(values::small_int(rng).to_string()),
                Kind::Decimal => {
                    num(rng.one(&["0", "0.5", "-0.00", "1", "0.0000000000000000000000000001"]))
                }
                Kind::Float => num(rng.one(&["0", "1e0", "-2.5", "1e-30"])),
                Kind::Temporal => tok("'2000-01-01 00:00:00'"),
                Kind::Text | Kind::Binary => string(values::word(rng)),
                Kind::Other => tok("NULL"),
            };
            attrs.push(opt(seq(vec![tok("DEFAULT"), d])));
        }
        if rng.chance(1, 10) {
            attrs.push(opt(seq(vec![tok("COMMENT"), string(values::word(rng))])));
        }
        list(attrs, "", 0)
    }

    /// A column type with extreme sizes, and the kind of values that suit it.
    fn column_type(&mut self) -> (Node, Kind) {
        let rng = &mut self.rng;
        let len = |rng: &mut Rng| -> &'static str {
            rng.one(&[
                "0",
                "1",
                "10",
                "255",
                "256",
                "1000",
                "16383",
                "16384",
                "21845",
                "65535",
                "65536",
                "16777215",
                "4294967295",
                "4294967296",
                "18446744073709551616",
            ])
        };
        let int_suffix = |rng: &mut Rng| -> String {
            let mut s = String::new();
            if rng.chance(1, 4) {
                s.push_str(&format!(
                    "({})",
                    rng.pick(&["0", "1", "11", "20", "255", "256"])
                ));
            }
            if rng.chance(1, 3) {
                s.push_str(" UNSIGNED");
            }
            if rng.chance(1, 8) {
                s.push_str(" ZEROFILL");
            }
            s
        };
        let (text, kind) = match rng.weighted(&[8, 8, 3, 6, 2, 3, 3, 4, 1, 2]) {
            0 => {
                let t = rng.pick(&[
                    "TINYINT",
                    "SMALLINT",
                    "MEDIUMINT",
                    "INT",
                    "INTEGER",
                    "BIGINT",
                    "BOOL",
                    "BOOLEAN",
                ]);
                (format!("{t}{}", int_suffix(rng)), Kind::Int)
            }
            1 => {
                let t = rng.pick(&["DECIMAL", "NUMERIC", "DEC", "FIXED"]);
                let spec = match rng.below(4) {
                    0 => String::new(),
                    1 => format!("({})", expr::precision(rng)),
                    _ => format!("({},{})", expr::precision(rng), expr::scale(rng)),
                };
                let unsigned = if rng.chance(1, 5) { " UNSIGNED" } else { "" };
                (format!("{t}{spec}{unsigned}"), Kind::Decimal)
            }
            2 => {
                let t = rng.pick(&["FLOAT", "DOUBLE", "REAL", "DOUBLE PRECISION"]);
                let spec = match rng.below(3) {
                    0 => String::new(),
                    1 => format!("({})", rng.pick(&["0", "24", "25", "53", "54"])),
                    _ => format!("({},{})", expr::precision(rng), expr::scale(rng)),
                };
                (format!("{t}{spec}"), Kind::Float)
            }
            3 => {
                let t = rng.pick(&["CHAR", "VARCHAR", "VARCHAR", "NCHAR", "NATIONAL VARCHAR"]);
                let cs = if rng.chance(1, 5) {
                    format!(" CHARACTER SET {}", expr::charset(rng))
                } else {
                    String::new()
                };
                (format!("{t}({}){cs}", len(rng)), Kind::Text)
            }
            4 => (
                rng.pick(&["TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"])
                    .to_string()
                    + if rng.chance(1, 3) { "(70000)" } else { "" },
                Kind::Text,
            ),
            5 => (
                format!("{}({})", rng.pick(&["BINARY", "VARBINARY"]), len(rng)),
                Kind::Binary,
            ),
            6 => (
                rng.pick(&[
                    "TINYBLOB",
                    "BLOB",
                    "MEDIUMBLOB",
                    "LONGBLOB",
                    "BLOB(4294967295)",
                ])
                .to_string(),
                Kind::Binary,
            ),
            7 => {
                let t = rng.pick(&["DATE", "DATETIME", "TIMESTAMP", "TIME", "YEAR"]);
                let fsp = if rng.chance(1, 3) {
                    format!("({})", rng.pick(&["0", "3", "6", "7", "255"]))
                } else {
                    String::new()
                };
                (format!("{t}{fsp}"), Kind::Temporal)
            }
            8 => (
                rng.pick(&[
                    "ENUM('a','b')",
                    "SET('a','b')",
                    "BIT(1)",
                    "BIT(64)",
                    "BIT(65)",
                    "JSON",
                    "GEOMETRY",
                    "SERIAL",
                ])
                .to_string(),
                Kind::Other,
            ),
            _ => ("VARCHAR(20) COLLATE utf8mb4_bin".to_string(), Kind::Text),
        };
        (tok(text), kind)
    }

    fn column_attributes(&mut self, kind: Kind) -> Node {
        let mut attrs = Vec::new();
        let rng = &mut self.rng;
        if rng.chance(1, 3) {
            attrs.push(opt(tok(rng.one(&["NOT NULL", "NULL"]))));
        }
        if rng.chance(1, 3) {
            let d = if rng.chance(1, 2) {
                match kind {
                    Kind::Int => num(values::int_text(rng)),
                    Kind::Decimal | Kind::Float => values::number(rng),
                    Kind::Temporal if rng.bool() => tok(rng.one(&[
                        "CURRENT_TIMESTAMP",
                        "CURRENT_TIMESTAMP(6)",
                        "NOW()",
                        "CURRENT_TIMESTAMP(7)",
                    ])),
                    _ => values::literal(rng),
                }
            } else {
                values::literal(rng)
            };
            attrs.push(opt(seq(vec![tok("DEFAULT"), d])));
        }
        if rng.chance(1, 12) {
            attrs.push(opt(tok(rng.one(&[
                "UNIQUE",
                "UNIQUE KEY",
                "KEY",
                "PRIMARY KEY",
            ]))));
        }
        if rng.chance(1, 15) {
            attrs.push(opt(tok("AUTO_INCREMENT")));
        }
        if rng.chance(1, 10) {
            attrs.push(opt(seq(vec![tok("COMMENT"), values::string_lit(rng)])));
        }
        if rng.chance(1, 12) {
            attrs.push(opt(seq(vec![tok("COLLATE"), tok(expr::collation(rng))])));
        }
        if rng.chance(1, 15) {
            attrs.push(opt(tok(rng.one(&[
                "ON UPDATE CURRENT_TIMESTAMP",
                "ON UPDATE CURRENT_TIMESTAMP(6)",
                "ON UPDATE NOW()",
            ]))));
        }
        if rng.chance(1, 20) {
            let c = self.e(&Ctx::default());
            attrs.push(opt(seq(vec![tok("CHECK"), paren(c)])));
        }
        if self.rng.chance(1, 25) {
            let c = self.e(&Ctx::default());
            let how = self.rng.one(&["VIRTUAL", "STORED", ""]);
            attrs.push(opt(seq(vec![
                tok("GENERATED ALWAYS AS"),
                paren(c),
                tok(how),
            ])));
        }
        if self.rng.chance(1, 30) {
            attrs.push(opt(tok(self.rng.one(&[
                "INVISIBLE",
                "COLUMN_FORMAT FIXED",
                "STORAGE DISK",
                "SRID 0",
            ]))));
        }
        list(attrs, "", 0)
    }

    fn table_constraint(&mut self, columns: &[Column]) -> Node {
        let rng = &mut self.rng;
        let col = rng.pick(columns).name.clone();
        let prefix = if rng.chance(1, 3) {
            format!(
                "({})",
                rng.pick(&[
                    "0",
                    "1",
                    "10",
                    "767",
                    "768",
                    "3072",
                    "3073",
                    "65536",
                    "4294967296"
                ])
            )
        } else {
            String::new()
        };
        let key = format!("{col}{prefix}");
        match rng.below(6) {
            0 => seq(vec![tok("PRIMARY KEY ("), tok(key), tok(")")]),
            1 => seq(vec![tok("UNIQUE KEY uk ("), tok(key), tok(")")]),
            2 => seq(vec![tok("KEY k1 ("), tok(key), tok(")")]),
            3 => seq(vec![tok("INDEX USING BTREE ("), tok(key), tok(")")]),
            4 => seq(vec![
                tok("FOREIGN KEY ("),
                tok(col),
                tok(") REFERENCES t0 (id)"),
            ]),
            _ => {
                let c = self.e(&Ctx::default());
                seq(vec![tok("CONSTRAINT ck CHECK"), paren(c)])
            }
        }
    }

    fn table_options(&mut self) -> Node {
        let rng = &mut self.rng;
        let mut o = Vec::new();
        if rng.chance(1, 3) {
            o.push(opt(tok(format!(
                "ENGINE={}",
                rng.pick(&["InnoDB", "MyISAM", "MEMORY", "nosuch"])
            ))));
        }
        if rng.chance(1, 5) {
            o.push(opt(seq(vec![
                tok("AUTO_INCREMENT ="),
                num(values::int_text(rng)),
            ])));
        }
        if rng.chance(1, 5) {
            o.push(opt(tok(format!("DEFAULT CHARSET={}", expr::charset(rng)))));
        }
        if rng.chance(1, 8) {
            o.push(opt(tok(format!("COLLATE={}", expr::collation(rng)))));
        }
        if rng.chance(1, 8) {
            o.push(opt(seq(vec![tok("COMMENT="), values::string_lit(rng)])));
        }
        if rng.chance(1, 20) {
            o.push(opt(tok(rng.one(&[
                "ROW_FORMAT=COMPRESSED",
                "PARTITION BY HASH(id) PARTITIONS 4",
                "STATS_PERSISTENT=1",
            ]))));
        }
        list(o, "", 0)
    }

    fn ddl(&mut self) -> Node {
        let t = self.table();
        let col = |g: &mut Generator| g.rng.pick(&t.columns).name.clone();
        match self.rng.below(12) {
            0 | 1 => {
                let c = col(self);
                let prefix = if self.rng.chance(1, 3) {
                    format!("({})", values::int_text(&mut self.rng))
                } else {
                    String::new()
                };
                let unique = if self.rng.chance(1, 3) { "UNIQUE" } else { "" };
                seq(vec![
                    tok(format!("CREATE {unique} INDEX")),
                    tok(format!("ix{}", self.rng.below(4))),
                    tok("ON"),
                    tok(t.name.clone()),
                    tok(format!("({c}{prefix})")),
                ])
            }
            2 => seq(vec![
                tok(format!("DROP INDEX ix{} ON", self.rng.below(4))),
                tok(t.name.clone()),
            ]),
            3 => {
                let (ty, kind) = self.column_type();
                let attrs = self.column_attributes(kind);
                let name = format!("c{}", 6 + self.rng.below(3));
                if let Some(m) = self.tables.iter_mut().find(|x| x.name == t.name) {
                    if !m.columns.iter().any(|c| c.name == name) {
                        m.columns.push(Column {
                            name: name.clone(),
                            kind,
                        });
                    }
                }
                seq(vec![
                    tok("ALTER TABLE"),
                    tok(t.name.clone()),
                    tok("ADD COLUMN"),
                    tok(name),
                    ty,
                    attrs,
                ])
            }
            4 => {
                let c = col(self);
                let (ty, _) = self.column_type();
                let verb = self.rng.one(&["MODIFY COLUMN", "CHANGE COLUMN"]);
                let target = if verb.starts_with("CHANGE") {
                    format!("{c} {c}")
                } else {
                    c
                };
                seq(vec![
                    tok("ALTER TABLE"),
                    tok(t.name.clone()),
                    tok(verb),
                    tok(target),
                    ty,
                ])
            }
            5 => seq(vec![
                tok("ALTER TABLE"),
                tok(t.name.clone()),
                tok("AUTO_INCREMENT ="),
                num(values::int_text(&mut self.rng)),
            ]),
            6 => {
                let c = col(self);
                seq(vec![
                    tok("ALTER TABLE"),
                    tok(t.name.clone()),
                    tok(format!("ADD INDEX ax{} ({c})", self.rng.below(3))),
                ])
            }
            7 => {
                let c = col(self);
                seq(vec![
                    tok("ALTER TABLE"),
                    tok(t.name.clone()),
                    tok(format!("DROP COLUMN {c}")),
                ])
            }
            8 => seq(vec![tok("TRUNCATE TABLE"), tok(t.name.clone())]),
            9 => {
                self.tables.retain(|x| x.name != t.name);
                seq(vec![
                    tok("DROP TABLE"),
                    opt(tok("IF EXISTS")),
                    tok(t.name.clone()),
                ])
            }
            10 => {
                let what = self.rng.one(&[
                    "ENGINE=InnoDB",
                    "RENAME TO t_renamed",
                    "CONVERT TO CHARACTER SET latin1",
                    "ADD CONSTRAINT c CHECK (1)",
                    "ORDER BY id",
                ]);
                if what.starts_with("RENAME") {
                    self.tables.retain(|x| x.name != t.name);
                }
                seq(vec![tok("ALTER TABLE"), tok(t.name.clone()), tok(what)])
            }
            _ => seq(vec![
                tok("RENAME TABLE"),
                tok(t.name.clone()),
                tok("TO"),
                tok(t.name.clone()),
            ]),
        }
    }

    // ----- DML --------------------------------------------------------------------------

    fn insert(&mut self, params: bool) -> Node {
        let t = self.table();
        let verb = match self.rng.below(8) {
            0 => "REPLACE INTO",
            1 => "INSERT IGNORE INTO",
            2 => "INSERT INTO",
            _ => "INSERT INTO",
        };
        let ctx = self.ctx(None, false, params);
        let mut cols: Vec<Column> = t.columns.clone();
        if self.rng.chance(1, 3) {
            let keep = self.rng.range(1, cols.len() as u64) as usize;
            cols.truncate(keep);
        }
        let named = self.rng.chance(2, 3);
        let mut parts = vec![tok(verb), tok(self.maybe_qualified(&t.name))];
        match self.rng.below(10) {
            0 => {
                let sets: Vec<Node> = cols
                    .iter()
                    .map(|c| {
                        seq(vec![
                            tok(c.name.clone()),
                            tok("="),
                            self.value_for(c.kind, &ctx),
                        ])
                    })
                    .collect();
                parts.push(tok("SET"));
                parts.push(list(sets, ",", 1));
            }
            1 => {
                if named {
                    parts.push(tok(format!("({})", names(&cols))));
                }
                let src = self.select_from(&t, params, true);
                parts.push(src);
            }
            _ => {
                if named {
                    parts.push(tok(format!("({})", names(&cols))));
                }
                let nrows = self.rng.size(3, 300).max(1) as usize;
                // Many rows: plain values (expressions in every row would make huge statements).
                let one_in = if nrows > 8 { 0 } else { 3 };
                let rows: Vec<Node> = (0..nrows)
                    .map(|_| {
                        let vals: Vec<Node> = cols
                            .iter()
                            .map(|c| {
                                if self.rng.chance(1, 20) {
                                    tok("DEFAULT")
                                } else if nrows > 8 && self.rng.chance(9, 10) {
                                    self.sane_value(c.kind)
                                } else {
                                    self.value_with(c.kind, &ctx, one_in)
                                }
                            })
                            .collect();
                        seq(vec![tok("("), list(vals, ",", 1), tok(")")])
                    })
                    .collect();
                parts.push(tok(if self.rng.chance(1, 10) {
                    "VALUE"
                } else {
                    "VALUES"
                }));
                parts.push(list(rows, ",", 1));
            }
        }
        if verb.starts_with("INSERT") && self.rng.chance(1, 5) {
            let c = self.rng.pick(&t.columns).clone();
            let vctx = self.ctx(Some(&t), false, params);
            let mut v = self.value_for(c.kind, &vctx);
            if self.rng.chance(1, 3) {
                v = seq(vec![tok(format!("VALUES({})", c.name)), tok("+"), v]);
            }
            parts.push(opt(seq(vec![
                tok("ON DUPLICATE KEY UPDATE"),
                tok(c.name),
                tok("="),
                v,
            ])));
        }
        seq(parts)
    }

    fn maybe_qualified(&mut self, name: &str) -> String {
        if self.rng.chance(1, 10) {
            format!("{DB}.{name}")
        } else {
            name.to_string()
        }
    }

    fn update(&mut self, params: bool) -> Node {
        let t = self.table();
        let ctx = self.ctx(Some(&t), false, params);
        let n = self.rng.range(1, 3) as usize;
        let sets: Vec<Node> = (0..n)
            .map(|_| {
                let c = self.rng.pick(&t.columns).clone();
                let v = if self.rng.chance(1, 10) {
                    tok("DEFAULT")
                } else {
                    self.value_for(c.kind, &ctx)
                };
                seq(vec![tok(c.name), tok("="), v])
            })
            .collect();
        let mut parts = vec![
            tok("UPDATE"),
            tok(self.maybe_qualified(&t.name)),
            tok("SET"),
            list(sets, ",", 1),
        ];
        parts.push(self.where_clause(&ctx));
        parts.push(self.order_limit(&ctx));
        seq(parts)
    }

    fn delete(&mut self, params: bool) -> Node {
        let t = self.table();
        let ctx = self.ctx(Some(&t), false, params);
        let mut parts = vec![tok("DELETE FROM"), tok(self.maybe_qualified(&t.name))];
        parts.push(self.where_clause(&ctx));
        parts.push(self.order_limit(&ctx));
        seq(parts)
    }

    fn where_clause(&mut self, ctx: &Ctx) -> Node {
        if self.rng.chance(1, 5) {
            return list(Vec::new(), "", 0);
        }
        let cond = if !ctx.columns.is_empty() && self.rng.chance(1, 2) {
            let c = self.rng.pick(&ctx.columns).clone();
            let op = *self
                .rng
                .pick(&["=", "<", ">=", "<>", "<=>", "IN (1, 2,", "BETWEEN 1 AND"]);
            let v = expr::leaf(&mut self.rng, ctx);
            if op.ends_with(',') {
                seq(vec![tok(c), tok(op), v, tok(")")])
            } else {
                seq(vec![tok(c), tok(op), v])
            }
        } else {
            self.e(ctx)
        };
        opt(seq(vec![tok("WHERE"), cond]))
    }

    fn order_limit(&mut self, ctx: &Ctx) -> Node {
        let mut parts = Vec::new();
        if self.rng.chance(1, 4) {
            let key = if !ctx.columns.is_empty() && self.rng.bool() {
                tok(self.rng.pick(&ctx.columns).clone())
            } else if self.rng.chance(1, 3) {
                num(values::int_text(&mut self.rng))
            } else {
                self.e(ctx)
            };
            let dir = self.rng.one(&["", "ASC", "DESC"]);
            parts.push(opt(seq(vec![tok("ORDER BY"), key, tok(dir)])));
        }
        if self.rng.chance(1, 3) {
            let n = if ctx.params && self.rng.chance(1, 3) {
                tok("?")
            } else {
                num(values::int_text(&mut self.rng))
            };
            parts.push(opt(seq(vec![tok("LIMIT"), n])));
        }
        list(parts, "", 0)
    }

    fn select(&mut self, params: bool) -> Node {
        if self.tables.is_empty() || self.rng.chance(1, 4) {
            let aggregates = self.rng.chance(1, 5);
            let ctx = self.ctx(None, aggregates, params);
            let n = self.rng.range(1, 4) as usize;
            let items: Vec<Node> = (0..n).map(|_| self.e(&ctx)).collect();
            let from_dual = if self.rng.chance(1, 8) {
                "FROM DUAL"
            } else {
                ""
            };
            return seq(vec![tok("SELECT"), list(items, ",", 1), tok(from_dual)]);
        }
        let t = self.table();
        self.select_from(&t, params, false)
    }

    fn select_from(&mut self, t: &Table, params: bool, for_insert: bool) -> Node {
        let grouped = self.rng.chance(1, 4);
        let aggregates = grouped || self.rng.chance(1, 6);
        let ctx = self.ctx(Some(t), aggregates, params);
        let mut parts = vec![tok("SELECT")];
        if self.rng.chance(1, 8) {
            parts.push(tok(self.rng.one(&[
                "DISTINCT",
                "ALL",
                "SQL_NO_CACHE",
                "HIGH_PRIORITY",
                "SQL_CALC_FOUND_ROWS",
            ])));
        }
        let items: Vec<Node> = if for_insert {
            t.columns.iter().map(|c| tok(c.name.clone())).collect()
        } else {
            let n = self.rng.range(1, 4) as usize;
            (0..n)
                .map(|j| match self.rng.below(6) {
                    0 if j == 0 => tok("*"),
                    0 | 1 => tok(self.rng.pick(&t.columns).name.clone()),
                    2 => seq(vec![
                        self.e(&ctx),
                        tok("AS"),
                        tok(format!("a{}", self.rng.below(3))),
                    ]),
                    _ => self.e(&ctx),
                })
                .collect()
        };
        parts.push(list(items, ",", 1));
        parts.push(tok("FROM"));
        parts.push(tok(self.maybe_qualified(&t.name)));
        if self.rng.chance(1, 30) {
            parts.push(opt(tok(self.rng.one(&[
                "AS x",
                "FORCE INDEX (PRIMARY)",
                ", t0",
                "JOIN t0 USING (id)",
            ]))));
        }
        let scalar = Ctx {
            aggregates: false,
            ..ctx.clone()
        };
        parts.push(self.where_clause(&scalar));
        if grouped {
            let key = if self.rng.bool() {
                tok(self.rng.pick(&t.columns).name.clone())
            } else {
                self.e(&scalar)
            };
            parts.push(opt(seq(vec![tok("GROUP BY"), key])));
            if self.rng.chance(1, 3) {
                let h = self.e(&ctx);
                parts.push(opt(seq(vec![tok("HAVING"), h])));
            }
        }
        if self.rng.chance(1, 8) {
            let (o, n) = (
                num(values::int_text(&mut self.rng)),
                num(values::int_text(&mut self.rng)),
            );
            parts.push(opt(seq(vec![tok("LIMIT"), o, tok(","), n])));
        } else if self.rng.chance(1, 12) {
            let (n, o) = (
                num(values::int_text(&mut self.rng)),
                num(values::int_text(&mut self.rng)),
            );
            parts.push(opt(seq(vec![tok("LIMIT"), n, tok("OFFSET"), o])));
        } else {
            parts.push(self.order_limit(&ctx));
        }
        if !for_insert && self.rng.chance(1, 10) {
            parts.push(opt(tok(self.rng.one(&[
                "FOR UPDATE",
                "LOCK IN SHARE MODE",
                "FOR SHARE",
                "FOR UPDATE NOWAIT",
                "FOR UPDATE SKIP LOCKED",
                "FOR UPDATE WAIT 1",
            ]))));
        }
        seq(parts)
    }

    // ----- session and server statements --------------------------------------------------

    fn set(&mut self) -> Node {
        match self.rng.weighted(&[8, 4, 2, 2, 1, 1]) {
            0 => {
                let n = self.rng.range(1, 3) as usize;
                let items: Vec<Node> = (0..n).map(|_| self.set_item()).collect();
                seq(vec![tok("SET"), list(items, ",", 1)])
            }
            1 => {
                let v = self.e(&Ctx::default());
                seq(vec![
                    tok("SET"),
                    tok(expr::user_var(&mut self.rng)),
                    tok(self.rng.one(&["=", ":="])),
                    v,
                ])
            }
            2 => {
                let cs = expr::charset(&mut self.rng);
                let coll = if self.rng.bool() {
                    format!("COLLATE {}", expr::collation(&mut self.rng))
                } else {
                    String::new()
                };
                seq(vec![
                    tok(*self
                        .rng
                        .pick(&["SET NAMES", "SET CHARACTER SET", "SET CHARSET"])),
                    tok(cs),
                    tok(coll),
                ])
            }
            3 => seq(vec![
                tok("SET"),
                tok(self.rng.one(&["", "GLOBAL", "SESSION"])),
                tok("TRANSACTION"),
                tok(self.rng.one(&[
                    "ISOLATION LEVEL READ COMMITTED",
                    "ISOLATION LEVEL SERIALIZABLE",
                    "ISOLATION LEVEL REPEATABLE READ",
                    "READ ONLY",
                    "READ WRITE",
                    "ISOLATION LEVEL READ UNCOMMITTED, READ ONLY",
                ])),
            ]),
            4 => seq(vec![
                tok(format!("SET PASSWORD FOR 'fzv{}'@'%' =", self.rng.below(3))),
                values::string_lit(&mut self.rng),
            ]),
            _ => seq(vec![
                tok("SET autocommit ="),
                tok(*self
                    .rng
                    .pick(&["0", "1", "ON", "OFF", "2", "-1", "'x'", "NULL", "DEFAULT"])),
            ]),
        }
    }

    fn set_item(&mut self) -> Node {
        let &(name, sensitive) = self.rng.pick(VARIABLES);
        let scope = self.rng.one(&[
            "",
            "GLOBAL ",
            "SESSION ",
            "LOCAL ",
            "@@",
            "@@global.",
            "@@session.",
        ]);
        let value = if sensitive {
            safe_value(&mut self.rng, name)
        } else {
            self.var_value(name)
        };
        seq(vec![tok(format!("{scope}{name}")), tok("="), value])
    }

    fn var_value(&mut self, name: &str) -> Node {
        let rng = &mut self.rng;
        match rng.below(6) {
            0 => tok("DEFAULT"),
            1 => num(values::int_text(rng)),
            2 => values::literal(rng),
            3 if name == "sql_mode" => string(
                rng.pick(&[
                    "",
                    "STRICT_ALL_TABLES",
                    "ANSI_QUOTES",
                    "PIPES_AS_CONCAT",
                    "NO_BACKSLASH_ESCAPES",
                    "TRADITIONAL",
                    "NO_SUCH_MODE",
                    "STRICT_TRANS_TABLES,,ONLY_FULL_GROUP_BY",
                ])
                .as_bytes()
                .to_vec(),
            ),
            3 => tok(rng.one(&[
                "ON",
                "OFF",
                "1",
                "0",
                "'SYSTEM'",
                "'+14:00'",
                "'-13:59'",
                "'+99:99'",
                "'READ-COMMITTED'",
            ])),
            4 => num(rng
                .pick(&[
                    "4096",
                    "1024",
                    "1023",
                    "65536",
                    "1048576",
                    "1073741824",
                    "1073741825",
                ])
                .to_string()),
            _ => self.e(&Ctx::default()),
        }
    }

    fn show(&mut self) -> Node {
        let t = if self.tables.is_empty() {
            "nosuch".to_string()
        } else {
            self.table().name
        };
        let filter = |g: &mut Generator| -> Node {
            match g.rng.below(3) {
                0 => list(Vec::new(), "", 0),
                1 => opt(seq(vec![tok("LIKE"), values::string_lit(&mut g.rng)])),
                _ => {
                    let e = g.e(&Ctx {
                        columns: vec!["Variable_name".into(), "Value".into(), "Database".into()],
                        ..Ctx::default()
                    });
                    opt(seq(vec![tok("WHERE"), e]))
                }
            }
        };
        match self.rng.below(22) {
            0 => seq(vec![tok("SHOW DATABASES"), filter(self)]),
            1 => seq(vec![tok(self.rng.one(&["SHOW TABLES", "SHOW FULL TABLES", "SHOW TABLES FROM fz", "SHOW TABLES IN nosuch"])), filter(self)]),
            2 => seq(vec![tok(self.rng.one(&["SHOW COLUMNS FROM", "SHOW FULL COLUMNS FROM", "SHOW FIELDS IN"])), tok(t), filter(self)]),
            3 => seq(vec![tok(self.rng.one(&["SHOW INDEX FROM", "SHOW KEYS FROM", "SHOW INDEXES IN"])), tok(t)]),
            4 => seq(vec![tok("SHOW CREATE TABLE"), tok(t)]),
            5 => tok(self.rng.one(&["SHOW CREATE DATABASE fz", "SHOW CREATE SCHEMA nosuch", "SHOW CREATE DATABASE `fz`"])),
            6 => seq(vec![tok(self.rng.one(&["SHOW VARIABLES", "SHOW GLOBAL VARIABLES", "SHOW SESSION VARIABLES"])), filter(self)]),
            7 => seq(vec![tok(self.rng.one(&["SHOW STATUS", "SHOW GLOBAL STATUS", "SHOW SESSION STATUS"])), filter(self)]),
            8 => tok(self.rng.one(&[
                "SHOW WARNINGS",
                "SHOW ERRORS",
                "SHOW COUNT(*) WARNINGS",
                "SHOW COUNT(*) ERRORS",
                "SHOW WARNINGS LIMIT 1",
                "SHOW WARNINGS LIMIT 18446744073709551615",
            ])),
            9 => tok(self.rng.one(&["SHOW ENGINES", "SHOW STORAGE ENGINES", "SHOW PROCESSLIST", "SHOW FULL PROCESSLIST"])),
            10 => tok(self.rng.one(&["SHOW GRANTS", "SHOW GRANTS FOR CURRENT_USER", "SHOW GRANTS FOR 'fzu'@'%'", "SHOW GRANTS FOR 'nosuch'@'%'", "SHOW GRANTS FOR root@localhost"])),
            11 => seq(vec![tok(self.rng.one(&["SHOW TABLE STATUS", "SHOW TABLE STATUS FROM fz"])), filter(self)]),
            12 => seq(vec![tok(self.rng.one(&["SHOW COLLATION", "SHOW CHARACTER SET", "SHOW CHARSET"])), filter(self)]),
            13 => tok(self.rng.one(&["SHOW BINARY LOGS", "SHOW MASTER LOGS", "SHOW MASTER STATUS", "SHOW BINLOG STATUS"])),
            14 => {
                let mut parts = vec![tok("SHOW BINLOG EVENTS")];
                if self.rng.bool() {
                    let f = self.rng.pick(&["'binlog.000001'", "'binlog.000002'", "''", "'../accounts.txt'", "'nosuch'", "'binlog.999999'"]);
                    parts.push(opt(tok(format!("IN {f}"))));
                }
                if self.rng.bool() {
                    parts.push(opt(seq(vec![tok("FROM"), num(values::int_text(&mut self.rng))])));
                }
                if self.rng.bool() {
                    let mut lim = vec![tok("LIMIT")];
                    if self.rng.bool() {
                        lim.push(num(values::int_text(&mut self.rng)));
                        lim.push(tok(","));
                    }
                    lim.push(num(values::int_text(&mut self.rng)));
                    parts.push(opt(seq(lim)));
                }
                seq(parts)
            }
            15 => tok(self.rng.one(&["SHOW PRIVILEGES", "SHOW TRIGGERS", "SHOW EVENTS", "SHOW PLUGINS", "SHOW SLAVE STATUS", "SHOW OPEN TABLES", "SHOW PROFILES"])),
            16 => seq(vec![tok("SHOW TABLES LIKE"), values::string_lit(&mut self.rng)]),
            17 => seq(vec![tok(self.rng.one(&["DESCRIBE", "DESC", "EXPLAIN"])), tok(t)]),
            18 => {
                let s = self.select(false);
                seq(vec![tok("EXPLAIN"), s])
            }
            19 => tok("SHOW VARIABLES LIKE '%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%b'"),
            20 => seq(vec![tok("SHOW COLUMNS FROM"), tok(t), tok("FROM"), tok(self.rng.one(&["fz", "nosuch", "`weird db`"]))]),
            _ => tok(self.rng.one(&["SHOW DATABASES WHERE 1", "SHOW SCHEMAS", "SHOW STATUS LIKE 'Admission%'", "SHOW GLOBAL STATUS LIKE 'Com_%'"])),
        }
    }

    fn transaction(&mut self) -> Node {
        tok(self.rng.one(&[
            "BEGIN",
            "BEGIN WORK",
            "START TRANSACTION",
            "START TRANSACTION READ ONLY",
            "START TRANSACTION READ WRITE",
            "START TRANSACTION WITH CONSISTENT SNAPSHOT",
            "START TRANSACTION READ ONLY, READ WRITE",
            "COMMIT",
            "COMMIT WORK",
            "COMMIT AND CHAIN",
            "COMMIT AND NO CHAIN",
            "ROLLBACK",
            "ROLLBACK WORK",
            "ROLLBACK AND CHAIN",
            "SAVEPOINT sp",
            "ROLLBACK TO SAVEPOINT sp",
            "RELEASE SAVEPOINT sp",
            "XA START 'x'",
            "LOCK TABLES t0 WRITE",
            "UNLOCK TABLES",
            "SET autocommit = 0",
            "SET autocommit = 1",
        ]))
    }

    /// Account statements with hostile names (tabs, newlines, commas, quotes, backslashes,
    /// NUL, non-ASCII, very long); never `root` or the fuzzer's own user.
    fn account(&mut self) -> Node {
        let user = |g: &mut Generator| -> Node {
            let name: Vec<u8> = match g.rng.below(10) {
                0 => b"victim\\t%\\t-\\t*\\nx".to_vec(),
                1 => b"a,b".to_vec(),
                2 => b"q\\'uote".to_vec(),
                3 => b"back\\\\slash".to_vec(),
                4 => b"nul\\0byte".to_vec(),
                5 => "ünï😀".as_bytes().to_vec(),
                6 => vec![b'l'; g.rng.one(&[80usize, 128, 1000])],
                7 => Vec::new(),
                _ => format!("fzv{}", g.rng.below(3)).into_bytes(),
            };
            let host: &[u8] = g.rng.one(&[
                &b"%"[..],
                b"localhost",
                b"127.0.0.1",
                b"",
                b"%\\t\\n,",
                b"h\\'",
            ]);
            seq(vec![string(name), tok("@"), string(host.to_vec())])
        };
        let db_name = |g: &mut Generator| -> String {
            g.rng
                .pick(&[
                    "fz",
                    "*",
                    "`tenant,*`",
                    "`we\tird`",
                    "`x``y`",
                    "nosuch",
                    "fz1",
                ])
                .to_string()
        };
        match self.rng.below(8) {
            0 | 1 => {
                let u = user(self);
                let mut parts = vec![tok("CREATE USER"), opt(tok("IF NOT EXISTS")), u];
                if self.rng.chance(2, 3) {
                    parts.push(opt(seq(vec![
                        tok("IDENTIFIED BY"),
                        values::string_lit(&mut self.rng),
                    ])));
                }
                seq(parts)
            }
            2 => {
                let u = user(self);
                seq(vec![
                    tok("ALTER USER"),
                    opt(tok("IF EXISTS")),
                    u,
                    tok("IDENTIFIED BY"),
                    values::string_lit(&mut self.rng),
                ])
            }
            3 => {
                let u = user(self);
                seq(vec![tok("DROP USER"), opt(tok("IF EXISTS")), u])
            }
            4 | 5 => {
                let u = user(self);
                let what = self.rng.one(&[
                    "ALL",
                    "ALL PRIVILEGES",
                    "SELECT",
                    "SELECT, INSERT",
                    "SUPER",
                    "USAGE",
                ]);
                let on = format!("{}.*", db_name(self));
                let on = if self.rng.chance(1, 6) {
                    "*.*".to_string()
                } else {
                    on
                };
                let on = if self.rng.chance(1, 10) {
                    "fz.t0".to_string()
                } else {
                    on
                };
                seq(vec![
                    tok(format!("GRANT {what} ON {on} TO")),
                    u,
                    opt(tok("WITH GRANT OPTION")),
                ])
            }
            6 => {
                let u = user(self);
                let on = format!("{}.*", db_name(self));
                seq(vec![tok(format!("REVOKE ALL PRIVILEGES ON {on} FROM")), u])
            }
            _ => {
                let u = user(self);
                seq(vec![tok("SHOW GRANTS FOR"), u])
            }
        }
    }

    fn other(&mut self) -> Node {
        let t = if self.tables.is_empty() {
            "nosuch".to_string()
        } else {
            self.table().name
        };
        match self.rng.below(14) {
            0 => {
                let n = self.rng.range(1, 3) as usize;
                let items: Vec<Node> = (0..n).map(|_| self.e(&Ctx::default())).collect();
                seq(vec![tok("DO"), list(items, ",", 1)])
            }
            1 => tok(self.rng.one(&[
                "FLUSH LOGS",
                "FLUSH BINARY LOGS",
                "FLUSH TABLES",
                "FLUSH PRIVILEGES",
                "FLUSH STATUS",
                "FLUSH NO_WRITE_TO_BINLOG LOGS",
            ])),
            2 => seq(vec![
                tok(self.rng.one(&[
                    "ANALYZE TABLE",
                    "OPTIMIZE TABLE",
                    "CHECK TABLE",
                    "REPAIR TABLE",
                ])),
                tok(t),
                opt(tok(", nosuch")),
            ]),
            3 => tok(self.rng.one(&[
                "PURGE BINARY LOGS TO 'binlog.000002'",
                "PURGE BINARY LOGS TO 'nosuch'",
                "PURGE MASTER LOGS BEFORE '2000-01-01 00:00:00'",
                "PURGE BINARY LOGS BEFORE '9999-12-31 23:59:59'",
                "PURGE BINARY LOGS BEFORE 'garbage'",
            ])),
            4 => {
                let name = self.rng.one(&[
                    "fz1",
                    "fz2",
                    "`we ird`",
                    "`x``y`",
                    "`ü`",
                    "information_schema",
                    "mysql",
                ]);
                let ine = if self.rng.bool() { "IF NOT EXISTS" } else { "" };
                seq(vec![
                    tok(self.rng.one(&["CREATE DATABASE", "CREATE SCHEMA"])),
                    tok(ine),
                    tok(name),
                    opt(tok("DEFAULT CHARACTER SET utf8mb4")),
                ])
            }
            5 => {
                let name = self.rng.one(&[
                    "fz1",
                    "fz2",
                    "`we ird`",
                    "nosuch",
                    "information_schema",
                    "mysql",
                    "performance_schema",
                ]);
                seq(vec![tok("DROP DATABASE"), opt(tok("IF EXISTS")), tok(name)])
            }
            // (USE of another database would send the rest of the stream there.)
            6 => tok(*self
                .rng
                .pick(&["USE fz", "USE nosuch", "USE `fz`", "USE ``", "USE `x``y`"])),
            7 => tok(self.rng.one(&[
                "KILL 999999",
                "KILL QUERY 999999",
                "CALL p()",
                "PREPARE s FROM 'SELECT 1'",
                "EXECUTE s",
                "DEALLOCATE PREPARE s",
                "HANDLER t0 OPEN",
                "LOAD DATA INFILE '/etc/passwd' INTO TABLE t0",
                "INSTALL PLUGIN x SONAME 'y'",
                "RESET MASTER",
                "CHANGE MASTER TO MASTER_HOST='x'",
                "BINLOG 'AAAA'",
                "HELP 'x'",
                "SIGNAL SQLSTATE '45000'",
                "GET DIAGNOSTICS @n = NUMBER",
                "CREATE VIEW v AS SELECT 1",
                "CREATE TRIGGER tr BEFORE INSERT ON t0 FOR EACH ROW SET @x = 1",
                "CREATE PROCEDURE p() SELECT 1",
                "SELECT 1 UNION SELECT 2",
                "WITH c AS (SELECT 1) SELECT * FROM c",
                "SELECT * FROM information_schema.tables",
                "SELECT * FROM performance_schema.events_waits_summary_global_by_event_name",
                "SELECT * FROM mysql.user",
                "VALUES (1, 2)",
                "TABLE t0",
                "SELECT 1 INTO @x",
                "SELECT 1 INTO OUTFILE '/tmp/x'",
            ])),
            8 => seq(vec![tok("DESCRIBE"), tok(t)]),
            9 => {
                // Statement text odd at the lexical level.
                let body = values::string_body(&mut self.rng);
                let mut raw = b"SELECT ".to_vec();
                raw.extend(body);
                tok(String::from_utf8_lossy(&raw).into_owned())
            }
            10 => tok(self.rng.one(&[
                "",
                " ",
                ";",
                "SELECT 1;",
                "SELECT 1; SELECT 2",
                "/* unterminated",
                "SELECT 'unterminated",
                "SELECT `unterminated",
                "SELECT 1 -- comment",
                "SELECT 1 #comment",
                "/*!50000 SELECT 1 */",
                "/*!99999 garbage */ SELECT 1",
                "SELECT 0x",
                "SELECT x'F'",
                "SELECT b'2'",
                "SELECT 1e",
                "SELECT .e1",
                "SELECT N'",
                "SELECT $1",
                "SELECT ?",
                "SELECT @@",
                "SELECT @",
                "SELECT 1 MOD",
                "SELECT MOD MOD MOD",
                "SELECT 1 FROM t0 LOCK IN SHARE MODE LOCK IN SHARE MODE",
            ])),
            11 => {
                let depth = self.rng.range(6, 10) as u32;
                let e = expr::gen(&mut self.rng, &Ctx::default(), depth);
                seq(vec![tok("SELECT"), e])
            }
            12 => {
                let v = self.e(&Ctx::default());
                seq(vec![
                    tok("SELECT"),
                    v,
                    tok("INTO"),
                    tok(expr::user_var(&mut self.rng)),
                ])
            }
            _ => tok(self.rng.one(&[
                "CHECKSUM TABLE t0",
                "SHOW CREATE USER root",
                "SET GLOBAL debug = 'x'",
                "SHUTDOWN",
                "SELECT SLEEP(0)",
            ])),
        }
    }

    /// The recursion class: a deep expression somewhere a statement evaluates or stores it.
    fn deep(&mut self) -> Node {
        let e = expr::deep(&mut self.rng);
        match self.rng.below(5) {
            0 | 1 => seq(vec![tok("SELECT"), e]),
            2 => {
                let t = self.table_name();
                seq(vec![tok("SELECT * FROM"), tok(t), tok("WHERE"), e])
            }
            3 => {
                let t = self.table_name();
                seq(vec![tok("UPDATE"), tok(t), tok("SET id = id WHERE"), e])
            }
            _ => seq(vec![tok("DO"), e]),
        }
    }

    fn as_user(&mut self) -> Node {
        match self.rng.below(4) {
            0 => self.show(),
            1 => self.select(false),
            2 => self.account(),
            _ => self.set(),
        }
    }

    // ----- prepared statements --------------------------------------------------------------

    fn prepared(&mut self) -> Prepared {
        let sql = match self.rng.below(9) {
            0 | 1 => self.select(true),
            2 | 3 => self.insert(true),
            4 => self.update(true),
            5 => self.delete(true),
            6 => {
                let n = self.rng.range(1, 4) as usize;
                let ctx = Ctx {
                    params: true,
                    ..Ctx::default()
                };
                let items: Vec<Node> = (0..n).map(|_| self.e(&ctx)).collect();
                seq(vec![tok("SELECT"), list(items, ",", 1)])
            }
            7 => {
                let ctx = Ctx {
                    params: true,
                    ..Ctx::default()
                };
                let v = self.e(&ctx);
                seq(vec![
                    tok("SET"),
                    tok(expr::user_var(&mut self.rng)),
                    tok("="),
                    v,
                ])
            }
            _ => match self.rng.below(3) {
                0 => self.ddl(),
                1 => self.show(),
                _ => self.transaction(),
            },
        };
        let nparams = self.rng.range(0, 12) as usize;
        let params = (0..nparams).map(|_| values::param(&mut self.rng)).collect();
        let mut long_data = Vec::new();
        if self.rng.chance(1, 5) {
            let param = if self.rng.chance(1, 6) {
                self.rng.one(&[64u16, 65535, 1000])
            } else {
                self.rng.below(4) as u16
            };
            let chunks = (0..self.rng.range(1, 4))
                .map(|_| {
                    let n = self.rng.size(64, 1 << 20) as usize;
                    self.rng.bytes(n)
                })
                .collect();
            long_data.push((param, chunks));
        }
        Prepared {
            sql,
            params,
            long_data,
            executes: self.rng.range(1, 3) as u8,
            reset: self.rng.chance(1, 6),
            fetch: self.rng.chance(1, 10),
            close: self.rng.chance(9, 10),
        }
    }
}

fn names(cols: &[Column]) -> String {
    cols.iter()
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value for a sensitive variable that keeps the fuzzing session working: big enough
/// timeouts and limits, short waits, or a value the server must refuse.
fn safe_value(rng: &mut Rng, name: &str) -> Node {
    let v = match name {
        "wait_timeout"
        | "interactive_timeout"
        | "net_read_timeout"
        | "net_write_timeout"
        | "lock_wait_timeout" => rng.one(&["60", "28800", "31536000", "DEFAULT", "-1", "'x'"]),
        "max_connections" => rng.one(&["100", "151", "100000", "DEFAULT", "0", "'x'"]),
        "log_sync_delay_us" => rng.one(&["0", "10", "DEFAULT", "-1"]),
        "binlog_commit_wait_count" => rng.one(&["0", "1", "2", "DEFAULT", "-5"]),
        "binlog_commit_wait_usec" => rng.one(&["0", "1", "1000", "DEFAULT", "-1"]),
        "innodb_thread_concurrency" => rng.one(&["0", "8", "DEFAULT", "1001", "-1"]),
        "innodb_thread_sleep_delay" | "innodb_adaptive_max_sleep_delay" => {
            rng.one(&["0", "100", "DEFAULT"])
        }
        "concurrency_queue" => rng.one(&["'fifo'", "'ADAPTIVE-SLEEP'", "'lifo'", "DEFAULT"]),
        "thread_pool_max_threads" => rng.one(&["100", "10000", "DEFAULT", "0"]),
        "thread_pool_size" => rng.one(&["0", "2", "4", "DEFAULT"]),
        "thread_pool_oversubscribe" => rng.one(&["3", "10", "DEFAULT", "0"]),
        "thread_pool_stall_limit" => rng.one(&["10", "500", "DEFAULT", "0"]),
        _ => "DEFAULT",
    };
    tok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_action_stream_is_a_function_of_the_seed() {
        let run = |seed| {
            let mut g = Generator::new(seed);
            (0..300).map(|_| g.action().describe()).collect::<Vec<_>>()
        };
        assert_eq!(run(42), run(42));
        assert_ne!(run(42), run(43));
    }

    #[test]
    fn sensitive_variables_are_marked() {
        for (name, sensitive) in VARIABLES {
            assert_eq!(SENSITIVE_VARS.contains(name), *sensitive, "{name}");
            if *sensitive {
                // Every safe value list knows the variable (no fallback to DEFAULT only).
                let mut r = Rng::new(1);
                let seen: Vec<String> = (0..50)
                    .map(|_| String::from_utf8(safe_value(&mut r, name).render()).unwrap())
                    .collect();
                assert!(seen.iter().any(|v| v != "DEFAULT"), "{name}");
            }
        }
    }

    #[test]
    fn never_targets_root_or_the_fuzzer_user() {
        let mut g = Generator::new(9);
        for _ in 0..1500 {
            let text = g.action().describe().to_ascii_lowercase();
            for verb in [
                "drop user",
                "alter user",
                "revoke",
                "set password",
                "rename user",
            ] {
                if let Some(at) = text.find(verb) {
                    let rest = &text[at..];
                    assert!(
                        !rest.contains("'root'") && !rest.contains("root@"),
                        "{text}"
                    );
                    assert!(!rest.contains("'fzu'"), "{text}");
                }
            }
            assert!(!text.contains("debug_failpoint"), "{text}");
            assert!(
                !text.contains("commit release") && !text.contains("rollback release"),
                "{text}"
            );
        }
    }
}
