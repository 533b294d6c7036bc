//! Table definitions: what `CREATE TABLE` produces and `SHOW CREATE TABLE` prints.

use crate::types::{DataType, Value};

/// A column's default.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnDefault {
    /// No DEFAULT clause on a NOT NULL column: an INSERT that omits it fails in strict mode (1364).
    None,
    /// An explicit constant (already converted to the column type), or NULL.
    Value(Value),
    /// `DEFAULT CURRENT_TIMESTAMP` / `NOW()`.
    CurrentTimestamp,
    /// An expression evaluated for each row that takes the default (`DEFAULT (a + 1)`,
    /// `DEFAULT uuid()`), kept as SHOW CREATE TABLE prints it (`sql/exec/default_expr.rs`).
    Expr(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
    pub default: ColumnDefault,
    pub auto_increment: bool,
    /// `ON UPDATE CURRENT_TIMESTAMP`.
    pub on_update_current_timestamp: bool,
    pub comment: Option<String>,
    /// `GENERATED ALWAYS AS (expr) VIRTUAL | STORED` (`sql/exec/gencol.rs`).
    pub generated: Option<GeneratedDef>,
}

/// A generated column: its expression as SHOW CREATE TABLE prints it (parsed and bound again
/// to compute the value), and whether it is STORED (PERSISTENT) rather than VIRTUAL. The row
/// holds the computed value of both kinds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedDef {
    pub expr: String,
    pub stored: bool,
}

/// One index part: a column, optionally a prefix length in characters (`KEY (c(10))`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexPart {
    pub column: usize,
    pub prefix_len: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexDef {
    /// `PRIMARY` for the primary key.
    pub name: String,
    pub parts: Vec<IndexPart>,
    pub unique: bool,
    /// Made for a FOREIGN KEY that had no index of its own: as in MariaDB, a later index that
    /// serves the key replaces it (`sql/exec/ddl/implicit_index.rs`).
    pub implicit: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TableDef {
    pub name: String,
    pub columns: Vec<ColumnDef>,
    /// The primary key, if declared. Without one the engine keys rows by a hidden row id.
    pub primary_key: Option<IndexDef>,
    /// Secondary indexes (UNIQUE or not), in declaration order.
    pub indexes: Vec<IndexDef>,
    /// `ENGINE=…` as written (accepted and shown; every table lives in the one engine).
    pub engine: String,
    /// The `AUTO_INCREMENT=N` table option, or 1.
    pub auto_increment_start: u64,
    pub comment: Option<String>,
    /// FOREIGN KEY constraints of this table as the child (`sql/exec/fk.rs` enforces them).
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// CHECK constraints, column-level ones first (`sql/exec/check.rs` enforces them).
    pub checks: Vec<CheckDef>,
    /// The table's default collation (`DEFAULT CHARSET=… COLLATE=…`): what new character
    /// columns get when they name none, and what SHOW CREATE TABLE prints.
    pub default_collation: crate::types::Collation,
}

/// A CHECK constraint: its expression as SHOW CREATE TABLE prints it (parsed again to be
/// enforced). A column-level one is named by its column and printed with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckDef {
    pub name: String,
    pub column: Option<String>,
    pub expr: String,
}

/// What a foreign key does to the child rows when the parent row is deleted or its
/// referenced columns change (InnoDB's actions; SET DEFAULT is refused at CREATE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FkAction {
    /// The default (not printed by SHOW CREATE TABLE): refuse while children exist.
    Restrict,
    /// As RESTRICT (InnoDB checks at once), but printed.
    NoAction,
    Cascade,
    SetNull,
}

impl FkAction {
    pub fn sql(self) -> &'static str {
        match self {
            FkAction::Restrict => "RESTRICT",
            FkAction::NoAction => "NO ACTION",
            FkAction::Cascade => "CASCADE",
            FkAction::SetNull => "SET NULL",
        }
    }
}

/// `CONSTRAINT name FOREIGN KEY (columns) REFERENCES parent_db.parent_table (parent_columns)`.
/// Columns are kept by name (ALTER TABLE may move them); names compare case-insensitively.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignKeyDef {
    pub name: String,
    pub columns: Vec<String>,
    pub parent_db: String,
    pub parent_table: String,
    pub parent_columns: Vec<String>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
}

impl TableDef {
    /// Where MariaDB lists a key among the secondary ones (SHOW CREATE TABLE, SHOW INDEX,
    /// information_schema.STATISTICS; also the order it keeps them in): UNIQUE keys over NOT
    /// NULL whole columns first, then UNIQUE ones with a column prefix, then UNIQUE ones over a
    /// nullable column (whole, then with a prefix), then every other key; in creation order
    /// within each rank.
    pub fn key_rank(&self, idx: &IndexDef) -> u8 {
        if !idx.unique {
            return 4;
        }
        let nullable = idx.parts.iter().any(|p| self.columns[p.column].nullable);
        let prefix = idx.parts.iter().any(|p| p.prefix_len.is_some());
        2 * nullable as u8 + prefix as u8
    }

    /// Put the secondary keys in MariaDB's order ([`TableDef::key_rank`]), keeping creation
    /// order within a rank. CREATE TABLE and every ALTER TABLE do this, as MariaDB does.
    pub fn sort_keys(&mut self) {
        let mut keyed: Vec<(u8, IndexDef)> = std::mem::take(&mut self.indexes)
            .into_iter()
            .map(|i| (self.key_rank(&i), i))
            .collect();
        keyed.sort_by_key(|(rank, _)| *rank);
        self.indexes = keyed.into_iter().map(|(_, i)| i).collect();
    }

    /// The position a new key takes among the secondary keys: after every key of its rank.
    pub fn key_position(&self, idx: &IndexDef) -> usize {
        let rank = self.key_rank(idx);
        self.indexes
            .iter()
            .position(|i| self.key_rank(i) > rank)
            .unwrap_or(self.indexes.len())
    }

    /// Does any column have a generated value (`GENERATED ALWAYS AS`)? Statements on a table
    /// without one skip the generated-column work entirely.
    pub fn has_generated(&self) -> bool {
        self.columns.iter().any(|c| c.generated.is_some())
    }

    /// Does any column default to an expression evaluated per row? Statements on a table
    /// without one skip that work entirely.
    pub fn has_default_exprs(&self) -> bool {
        self.columns
            .iter()
            .any(|c| matches!(c.default, ColumnDefault::Expr(_)))
    }

    /// Position of a column by name (case-insensitive, as MySQL compares column names).
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// The AUTO_INCREMENT column, if any.
    pub fn auto_increment_column(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }
}
