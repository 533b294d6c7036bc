//! Views in the catalog: their definitions, nothing else.
//!
//! A view is a stored query. The storage layer keeps its definition per database, beside the
//! tables (a view and a table never share a name: 1050 either way), journals every change in
//! the DDL undo journal like table changes (`ddl_undo.rs`), and hands the definitions to the
//! checkpoint (`CatalogSnapshot::views`). What a view means — planning its query as a derived
//! table when a statement names it — is the SQL layer's business (`sql/exec/ddl/view.rs`).
//!
//! | field | protected by |
//! |---|---|
//! | `ViewCatalog::views` | its RwLock (written only by DDL, which runs one statement at a time) |
//! | `ViewCatalog::version` | atomic: raised after every change, so a cached plan that read a view sees it is stale |
//! | `ViewCatalog::count` | atomic: how many views exist, so statements skip the lookup while there are none |

use super::ddl_undo::{record, Undo};
use super::engine::Engine;
use crate::error::{Error, Result};
use cohort_protocol::ErrorCode;
use parking_lot::RwLock;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// A view's definition, as CREATE VIEW gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewDef {
    pub name: String,
    /// The query's text as written after `AS` (without a CHECK OPTION clause). Table names in
    /// it resolve in the view's database.
    pub query: String,
    /// The column list `CREATE VIEW v (a, b)` gave, or empty.
    pub columns: Vec<String>,
    /// `UNDEFINED`, `MERGE` or `TEMPTABLE`.
    pub algorithm: String,
    pub definer_user: String,
    pub definer_host: String,
    /// `DEFINER` or `INVOKER`.
    pub security: String,
    /// `NONE`, `CASCADED` or `LOCAL`.
    pub check_option: String,
}

/// The views of every database (see the module doc for its locking).
#[derive(Default)]
pub struct ViewCatalog {
    views: RwLock<BTreeMap<String, BTreeMap<String, Arc<ViewDef>>>>,
    version: AtomicU64,
    count: AtomicUsize,
}

impl ViewCatalog {
    fn changed(&self, views: &BTreeMap<String, BTreeMap<String, Arc<ViewDef>>>) {
        self.count
            .store(views.values().map(|m| m.len()).sum(), Ordering::Release);
        self.version.fetch_add(1, Ordering::AcqRel);
    }
}

fn exists_error(name: &str) -> Error {
    Error::new(
        ErrorCode::TableExists,
        format!("Table '{name}' already exists"),
    )
}

impl Engine {
    /// The version of the view catalog: it moves on every view change.
    pub fn views_version(&self) -> u64 {
        self.views.version.load(Ordering::Acquire)
    }

    /// Does any view exist? (A statement skips the view lookup of its tables otherwise.)
    pub fn has_views(&self) -> bool {
        self.views.count.load(Ordering::Acquire) > 0
    }

    /// The view `db`.`name`, if there is one.
    pub fn view(&self, db: &str, name: &str) -> Option<Arc<ViewDef>> {
        if !self.has_views() {
            return None;
        }
        self.views.views.read().get(db)?.get(name).cloned()
    }

    /// The views of `db`, sorted by name.
    pub fn views_in(&self, db: &str) -> Vec<Arc<ViewDef>> {
        self.views
            .views
            .read()
            .get(db)
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Every view, by database, for a checkpoint.
    pub fn all_views(&self) -> Vec<(String, Arc<ViewDef>)> {
        let views = self.views.views.read();
        views
            .iter()
            .flat_map(|(db, m)| m.values().map(move |v| (db.clone(), v.clone())))
            .collect()
    }

    /// CREATE [OR REPLACE] VIEW (and ALTER VIEW, which replaces an existing one only):
    /// 1049 no database, 1050 a table or (without `replace`) a view has the name.
    pub fn create_view(&self, db: &str, def: ViewDef, replace: bool) -> Result<()> {
        if !self.database_exists(db) {
            return Err(Error::bad_db(db));
        }
        if self.table(db, &def.name).is_ok() {
            return Err(exists_error(&def.name));
        }
        let mut views = self.views.views.write();
        let m = views.entry(db.to_string()).or_default();
        let old = m.get(&def.name).cloned();
        if old.is_some() && !replace {
            return Err(exists_error(&def.name));
        }
        let name = def.name.clone();
        m.insert(name.clone(), Arc::new(def));
        self.views.changed(&views);
        drop(views);
        record(Undo::CreatedView {
            db: db.to_string(),
            name,
            replaced: old,
        });
        Ok(())
    }

    /// DROP VIEW of one view: Ok(false) if there is none.
    pub fn drop_view(&self, db: &str, name: &str) -> Result<bool> {
        let mut views = self.views.views.write();
        let Some(old) = views.get_mut(db).and_then(|m| m.remove(name)) else {
            return Ok(false);
        };
        self.views.changed(&views);
        drop(views);
        record(Undo::DroppedView {
            db: db.to_string(),
            view: old,
        });
        Ok(true)
    }

    /// DROP DATABASE: its views go with it.
    pub(super) fn drop_views_of(&self, db: &str) {
        let mut views = self.views.views.write();
        let Some(m) = views.remove(db) else {
            return;
        };
        self.views.changed(&views);
        drop(views);
        for view in m.into_values() {
            record(Undo::DroppedView {
                db: db.to_string(),
                view,
            });
        }
    }

    /// Recovery: a view from a checkpoint.
    pub fn restore_view(&self, db: &str, def: ViewDef) -> Result<()> {
        let mut views = self.views.views.write();
        views
            .entry(db.to_string())
            .or_default()
            .insert(def.name.clone(), Arc::new(def));
        self.views.changed(&views);
        Ok(())
    }

    /// Undo a CREATE / REPLACE of a view.
    pub(super) fn undo_create_view(
        &self,
        db: &str,
        name: &str,
        replaced: Option<Arc<ViewDef>>,
    ) -> Result<()> {
        let mut views = self.views.views.write();
        let m = views.entry(db.to_string()).or_default();
        match replaced {
            Some(old) => m.insert(name.to_string(), old),
            None => m.remove(name),
        };
        self.views.changed(&views);
        Ok(())
    }

    /// Undo a DROP of a view.
    pub(super) fn undo_drop_view(&self, db: &str, view: Arc<ViewDef>) -> Result<()> {
        let mut views = self.views.views.write();
        views
            .entry(db.to_string())
            .or_default()
            .insert(view.name.clone(), view);
        self.views.changed(&views);
        Ok(())
    }
}
