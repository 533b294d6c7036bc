//! `sql_mode` ONLY_FULL_GROUP_BY: which columns a grouped SELECT may name outside aggregates.
//!
//! Checked once a grouped SELECT is bound (GROUP BY present, or aggregates present), and only
//! when the mode is on, so plain statements pay nothing. The rules follow MariaDB 10.11, which
//! does not derive functional dependencies (a primary key in GROUP BY allows no other column):
//!
//! * With GROUP BY, a select-list item equal to a GROUP BY expression is allowed; otherwise
//!   every column it reads outside an aggregate must itself be a GROUP BY key — else 1055
//!   `'db.alias.col' isn't in GROUP BY`. ORDER BY is not checked (MariaDB does not either).
//! * With aggregates and no GROUP BY, any column outside an aggregate in the select list or
//!   ORDER BY is 1140 (Mixing of GROUP columns …).
//!
//! Columns of a derived table or CTE are not checked (MariaDB accepts them), nor are columns
//! of this query referred to from inside a subquery.

use crate::error::{Error, Result};
use crate::sql::expr::Expr;
use crate::sql::func::Func;
use cohort_protocol::ErrorCode;

/// Check a grouped SELECT's `items` (and, without GROUP BY, its hidden ORDER BY keys)
/// against its GROUP BY expressions `keys` as bound (before any key conversion). `name` gives
/// the `db.table.column` of a row column, None for one that is not checked.
pub(super) fn check<'e>(
    items: impl Iterator<Item = &'e Expr>,
    hidden: &'e [Expr],
    keys: Option<&[Expr]>,
    name: &dyn Fn(usize) -> Option<String>,
) -> Result<()> {
    let Some(keys) = keys else {
        for e in items.chain(hidden) {
            if first_col(e, &[]).is_some_and(|c| name(c).is_some()) {
                return Err(Error::new(
                    ErrorCode::MixOfGroupFuncAndFields,
                    "Mixing of GROUP columns (MIN(),MAX(),COUNT(),...) with no GROUP columns \
                     is illegal if there is no GROUP BY clause",
                ));
            }
        }
        return Ok(());
    };
    let key_cols: Vec<usize> = keys
        .iter()
        .filter_map(|k| match k {
            Expr::Col(c) => Some(*c),
            // A TIMESTAMP column read in the session's zone (`Binder::zoned`).
            Expr::Func(Func::TsLocal, args) => match args.as_slice() {
                [Expr::Col(c)] => Some(*c),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let key_texts: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
    for e in items {
        if !key_texts.contains(&format!("{e:?}")) {
            let mut bad = None;
            e.walk(&mut |x| {
                if let Expr::Col(c) = x {
                    if bad.is_none() && !key_cols.contains(c) {
                        bad = name(*c);
                    }
                }
            });
            if let Some(n) = bad {
                return Err(Error::new(
                    ErrorCode::WrongFieldWithGroup,
                    format!("'{n}' isn't in GROUP BY"),
                ));
            }
        }
    }
    Ok(())
}

/// The first row column `e` reads outside aggregates that is not in `allowed`.
fn first_col(e: &Expr, allowed: &[usize]) -> Option<usize> {
    let mut found = None;
    e.walk(&mut |x| {
        if let Expr::Col(c) = x {
            if found.is_none() && !allowed.contains(c) {
                found = Some(*c);
            }
        }
    });
    found
}
