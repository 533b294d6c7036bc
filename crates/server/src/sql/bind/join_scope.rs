//! Names over the tables of a FROM clause with joins.
//!
//! The joined row is the concatenation of every table's columns in FROM order: table `t`'s
//! column `c` is `Expr::Col(offset(t) + c)`, whatever order the join is executed in.
//!
//! * `t.c` / `db.t.c` names a column of the table (or alias) `t`; an unqualified `c` names
//!   the one table that has a column `c`, or is 1052 (ambiguous) when several do.
//! * `USING (c)` / `NATURAL` joins merge the common columns: the column of the row-preserving
//!   side (the left one for INNER / LEFT, the right one for RIGHT) stays visible, the other is
//!   hidden from unqualified names and from `*` (still reachable as `t.c`). `*` lists the
//!   merged columns first, then the left side's others, then the right side's.
//! * An ON clause sees only the tables joined so far (`mask`).
//! * Columns of a table that an outer join can NULL-complement are nullable.

use crate::error::{Error, Result};
use crate::sql::bind::sqltype::SqlType;
use crate::sql::bind::TableScope;
use crate::sql::expr::Expr;
use cohort_protocol::ErrorCode;

/// One table of a join.
#[derive(Clone, Debug)]
pub struct JoinTable {
    pub scope: TableScope,
    /// Position of its first column in the joined row.
    pub offset: usize,
    /// Columns hidden from unqualified names and `*` (merged by USING / NATURAL).
    pub hidden: Vec<bool>,
}

/// The tables of a FROM clause, as names see them.
#[derive(Clone, Debug, Default)]
pub struct JoinScope {
    pub tables: Vec<JoinTable>,
    /// Which tables names may refer to (an ON clause sees only the tables joined so far).
    pub mask: Vec<bool>,
    /// The columns `*` expands to: (table, column).
    pub star: Vec<(usize, usize)>,
}

/// How MariaDB names a clause in "Column 'x' in … is ambiguous".
pub fn clause_word(clause: &str) -> &str {
    match clause {
        "field list" => "SELECT",
        "where clause" => "WHERE",
        "on clause" => "ON",
        "order clause" => "ORDER BY",
        "group statement" => "GROUP BY",
        "having clause" => "HAVING",
        "from clause" => "FROM",
        other => other,
    }
}

pub fn ambiguous(name: &str, clause: &str) -> Error {
    Error::new(
        ErrorCode::NonUniq,
        format!("Column '{name}' in {} is ambiguous", clause_word(clause)),
    )
}

impl JoinScope {
    /// Add a table; returns its number. 1066 if its name is already used.
    pub fn push(&mut self, scope: TableScope) -> Result<usize> {
        let name = scope.visible_name();
        if self.tables.iter().any(|t| {
            t.scope.visible_name() == name && (t.scope.alias.is_some() || t.scope.db == scope.db)
        }) {
            return Err(Error::new(
                ErrorCode::NonUniqTable,
                format!("Not unique table/alias: '{name}'"),
            ));
        }
        let offset = self.width();
        let n = scope.columns.len();
        self.tables.push(JoinTable {
            scope,
            offset,
            hidden: vec![false; n],
        });
        self.mask.push(true);
        Ok(self.tables.len() - 1)
    }

    /// Width of the joined row.
    pub fn width(&self) -> usize {
        self.tables
            .last()
            .map_or(0, |t| t.offset + t.scope.columns.len())
    }

    /// The table a joined-row column belongs to.
    pub fn table_of(&self, col: usize) -> usize {
        self.tables
            .iter()
            .rposition(|t| t.offset <= col)
            .unwrap_or(0)
    }

    /// Is column `col` a TIMESTAMP column of a table (kept in UTC)?
    pub fn is_utc(&self, col: usize) -> bool {
        let jt = &self.tables[self.table_of(col)];
        jt.scope.columns.get(col - jt.offset).is_some_and(|c| c.utc)
    }

    /// Mark table `t`'s columns nullable (it is on the NULL-complemented side of an outer join).
    pub fn make_nullable(&mut self, t: usize) {
        for c in &mut self.tables[t].scope.columns {
            c.ty = c.ty.clone().with_nullable(true);
        }
    }

    /// The type of a joined-row column.
    pub fn col_type(&self, col: usize) -> &SqlType {
        let t = &self.tables[self.table_of(col)];
        &t.scope.columns[col - t.offset].ty
    }

    /// The visible (not hidden) column named `name` among the tables of `star`, if exactly one.
    pub fn find_visible(
        &self,
        star: &[(usize, usize)],
        name: &str,
    ) -> std::result::Result<Option<(usize, usize)>, ()> {
        let mut found = None;
        for &(t, c) in star {
            if self.tables[t].scope.columns[c]
                .name
                .eq_ignore_ascii_case(name)
            {
                if found.is_some() {
                    return Err(());
                }
                found = Some((t, c));
            }
        }
        Ok(found)
    }

    /// Resolve an unqualified column name. None: no table has it.
    pub fn resolve(&self, name: &str, clause: &str) -> Result<Option<(Expr, SqlType)>> {
        let mut found: Option<(usize, usize)> = None;
        for (ti, t) in self.tables.iter().enumerate() {
            if !self.mask[ti] {
                continue;
            }
            if let Some(c) = t.scope.column(name) {
                if t.hidden[c] {
                    continue;
                }
                if found.is_some() {
                    return Err(ambiguous(name, clause));
                }
                found = Some((ti, c));
            }
        }
        Ok(found.map(|(t, c)| self.col(t, c)))
    }

    fn col(&self, t: usize, c: usize) -> (Expr, SqlType) {
        let jt = &self.tables[t];
        (Expr::Col(jt.offset + c), jt.scope.columns[c].ty.clone())
    }

    /// The tables a qualifier (`t`, or `db.t`) names.
    pub fn matching(&self, db: Option<&str>, table: &str) -> Option<usize> {
        (0..self.tables.len()).find(|&t| self.mask[t] && self.tables[t].scope.matches(db, table))
    }

    /// Resolve `t.c` / `db.t.c`. None: no such table or column.
    pub fn resolve_qualified(
        &self,
        db: Option<&str>,
        table: &str,
        col: &str,
    ) -> Option<(Expr, SqlType)> {
        let t = self.matching(db, table)?;
        let c = self.tables[t].scope.column(col)?;
        Some(self.col(t, c))
    }

    /// Tables whose columns an expression reads, as a bit set over table numbers (joins
    /// have at most 61 tables).
    pub fn tables_of(&self, e: &Expr) -> u64 {
        let mut set = 0u64;
        e.walk(&mut |x| {
            if let Expr::Col(i) = x {
                set |= 1u64 << self.table_of(*i);
            }
        });
        set
    }
}
