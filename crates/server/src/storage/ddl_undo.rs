//! Undoing a DDL statement whose outcome is failure.
//!
//! DDL takes effect in the engine first and is logged after (the log records what happened).
//! If the statement then fails — a later part of it fails, or its log write fails — it must
//! leave no trace: what a client is told matches what recovery replays, and a failed statement
//! has no partial effect. So while a statement runs, the engine journals how to undo each
//! catalog change it makes ([`DdlUndo::begin`], one journal per thread), and the caller either
//! [keeps](DdlUndo::keep) or [reverts](DdlUndo::revert) them when the outcome is known.
//!
//! | change | until the outcome | kept | reverted |
//! |---|---|---|---|
//! | CREATE DATABASE / TABLE | visible | — | removed (a table is marked dropped) |
//! | DROP DATABASE / TABLE | unlinked from the catalog, rows intact | marked dropped, rows detached | linked again |
//! | TRUNCATE | new empty state; the old one kept aside | old rows detached | old state back |
//! | CREATE INDEX | built | — | dropped |
//! | DROP INDEX | removed | — | rebuilt from the rows, at its old position |
//! | CREATE / ALTER / DROP VIEW | definition replaced | — | the old definition back |
//! | ALTER … AUTO_INCREMENT | counter raised | — | lowered back unless an insert took a value |
//! | ALTER (rebuild) / RENAME | new object (same id) linked, old unlinked (journalled as a DROP of the old and a CREATE of the new) | old marked dropped | new unlinked, old linked again |
//!
//! The destructive half of a DROP or TRUNCATE (detaching rows) is thus deferred to the keep;
//! no open transaction holds such rows, since DDL waits for the transactions that use its
//! tables (metadata locks, `mdl.rs`). Undo runs in reverse order. A revert that meets an object
//! changed meanwhile by another statement (DDL runs one statement at a time,
//! `CommitPipeline::lock_ddl`, so only in theory) leaves it as it is and logs why.

use super::engine::Engine;
use super::table::{Table, TruncatedState};
use super::IndexDef;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One catalog change and how to undo it.
pub(crate) enum Undo {
    CreatedDatabase(String),
    DroppedDatabase {
        name: String,
        tables: BTreeMap<String, Arc<Table>>,
    },
    CreatedTable(Arc<Table>),
    DroppedTable(Arc<Table>),
    Truncated {
        table: Arc<Table>,
        saved: TruncatedState,
    },
    CreatedIndex {
        table: Arc<Table>,
        name: String,
    },
    DroppedIndex {
        table: Arc<Table>,
        pos: usize,
        index: IndexDef,
    },
    AutoIncrement {
        table: Arc<Table>,
        set: u64,
        old: u64,
    },
    /// CREATE VIEW (or its OR REPLACE / ALTER VIEW, which replaced `replaced`).
    CreatedView {
        db: String,
        name: String,
        replaced: Option<Arc<super::views::ViewDef>>,
    },
    DroppedView {
        db: String,
        view: Arc<super::views::ViewDef>,
    },
}

impl Undo {
    /// The change stands: do its deferred part.
    fn finish(self) {
        match self {
            Undo::DroppedDatabase { tables, .. } => {
                tables.values().for_each(|t| t.mark_dropped());
            }
            Undo::DroppedTable(t) => t.mark_dropped(),
            Undo::Truncated { saved, .. } => saved.finish(),
            _ => {}
        }
    }

    /// The change is withdrawn.
    fn revert(self, engine: &Engine) {
        let failed = match self {
            Undo::CreatedDatabase(name) => engine.undo_create_database(&name),
            Undo::DroppedDatabase { name, tables } => engine.undo_drop_database(&name, tables),
            Undo::CreatedTable(t) => engine.undo_create_table(&t),
            Undo::DroppedTable(t) => engine.undo_drop_table(&t),
            Undo::Truncated { table, saved } => {
                table.undo_truncate(saved);
                Ok(())
            }
            Undo::CreatedIndex { table, name } => table.drop_index(&name).map(drop),
            Undo::DroppedIndex { table, pos, index } => table.create_index_at(pos, index),
            Undo::AutoIncrement { table, set, old } => {
                table.undo_auto_increment(set, old);
                Ok(())
            }
            Undo::CreatedView { db, name, replaced } => {
                engine.undo_create_view(&db, &name, replaced)
            }
            Undo::DroppedView { db, view } => engine.undo_drop_view(&db, view),
        };
        if let Err(e) = failed {
            tracing::error!(
                "undoing part of a failed DDL statement failed: {}",
                e.message()
            );
        }
    }
}

thread_local! {
    /// The journal of the DDL statement running on this thread, if any.
    static JOURNAL: RefCell<Option<Vec<Undo>>> = const { RefCell::new(None) };
}

/// Journal `change` if a DDL statement on this thread is recording; otherwise it stands at
/// once (its deferred part runs now).
pub(crate) fn record(change: Undo) {
    let unrecorded = JOURNAL.with(|j| match j.borrow_mut().as_mut() {
        Some(journal) => {
            journal.push(change);
            None
        }
        None => Some(change),
    });
    if let Some(change) = unrecorded {
        change.finish();
    }
}

/// The undo journal of one DDL statement (module docs). Dropped without [`DdlUndo::keep`],
/// it reverts.
pub struct DdlUndo {
    engine: Arc<Engine>,
    done: bool,
}

impl DdlUndo {
    /// Start journaling the catalog changes this thread makes in `engine`.
    pub fn begin(engine: &Arc<Engine>) -> DdlUndo {
        JOURNAL.with(|j| *j.borrow_mut() = Some(Vec::new()));
        DdlUndo {
            engine: engine.clone(),
            done: false,
        }
    }

    /// The tables this statement dropped, if dropping tables is all it did so far (a DROP
    /// TABLE list that met a missing table: MariaDB keeps and logs the drops it made).
    pub fn dropped_tables(&self) -> Option<Vec<(String, String)>> {
        JOURNAL.with(|j| {
            let j = j.borrow();
            j.as_ref()?
                .iter()
                .map(|u| match u {
                    Undo::DroppedTable(t) => Some((t.db().to_string(), t.name().to_string())),
                    _ => None,
                })
                .collect()
        })
    }

    /// The statement succeeded: its changes stand.
    pub fn keep(mut self) {
        self.done = true;
        take().into_iter().for_each(Undo::finish);
    }

    /// The statement failed: undo its changes, newest first.
    pub fn revert(mut self) {
        self.done = true;
        self.revert_all();
    }

    fn revert_all(&self) {
        for change in take().into_iter().rev() {
            change.revert(&self.engine);
        }
    }
}

impl Drop for DdlUndo {
    fn drop(&mut self) {
        if !self.done {
            self.revert_all();
        }
    }
}

fn take() -> Vec<Undo> {
    JOURNAL.with(|j| j.borrow_mut().take()).unwrap_or_default()
}
