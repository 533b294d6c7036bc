//! `INSERT / REPLACE / DELETE … RETURNING select_list` (MariaDB 10.5+): the statement answers
//! with a result set, one row per inserted (or deleted) row, instead of an OK packet.
//!
//! The list is bound like a SELECT list over the target table alone (`*`, `t.*`, columns and
//! expressions; the result columns carry the table's metadata as a SELECT's would). Each row is
//! evaluated on the row as stored: after defaults, conversion and AUTO_INCREMENT for INSERT
//! (rows skipped by IGNORE are not returned), before removal for DELETE. Aggregates and
//! subqueries in the list are refused, as MariaDB refuses them.

use crate::error::Result;
use crate::sql::bind::Binder;
use crate::sql::env::Env;
use crate::sql::exec::select::{bind_items, OutItem};
use crate::sql::expr::{coerce, RowCtx};
use crate::sql::plan::{Source, TableRef};
use crate::types::Value;
use cohort_protocol::column::ColumnDefinition;
use sqlparser::ast;
use sqlparser::tokenizer::Location;

/// A bound RETURNING list.
pub struct Returning {
    pub items: Vec<OutItem>,
    pub columns: Vec<ColumnDefinition>,
}

impl Returning {
    /// Bind `list` over `table` (its columns by name, `*` for all of them).
    pub fn bind(
        env: &Env<'_>,
        params: &[Location],
        table: &TableRef,
        list: &[ast::SelectItem],
        item_texts: &[String],
    ) -> Result<Box<Returning>> {
        let source = Some(Source::Table(TableRef {
            db: table.db.clone(),
            table: table.table.clone(),
            def: table.def.clone(),
            version: table.version,
            scope: table.scope.clone(),
        }));
        // No subqueries in the list: they would need the statement's transaction lent while
        // it writes.
        let allowed = env.subq.allowed.replace(false);
        let mut b = Binder::new(env, params, source.as_ref().map(|s| s.scope()));
        b.clause = "RETURNING";
        let r = bind_items(&mut b, list, item_texts, &source, None);
        env.subq.allowed.set(allowed);
        let (items, columns, _) = r?;
        Ok(Box::new(Returning { items, columns }))
    }

    /// The output row for one stored row.
    pub fn row(&self, row: &[Value], env: &Env<'_>) -> Result<Vec<Value>> {
        let rc = RowCtx {
            row,
            ..RowCtx::EMPTY
        };
        let mut out = Vec::with_capacity(self.items.len());
        for item in &self.items {
            crate::memory::check(0)?;
            let v = item.expr.eval(&rc, env)?;
            out.push(match item.coerce {
                Some(c) => coerce(v, c),
                None => v,
            });
        }
        Ok(out)
    }
}
