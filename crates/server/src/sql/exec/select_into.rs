//! `SELECT … INTO @a, @b` (parsed in `parse/select_into.rs`): bind checks the counts, and the
//! query's one row goes into the user variables, as MariaDB 10.11 does it:
//! * 1222 when the query's columns and the variables differ in number (at bind, so nothing
//!   runs);
//! * 1172 "Result consisted of more than one row", after the first row was assigned;
//! * no row: warning 1329 and the variables keep their values;
//! * the OK packet counts the rows (1 or 0); the clause after FROM or at the query's end adds
//!   MariaDB's deprecation warning 1287.

use super::super::parse::select_into::SelectInto;
use super::super::{Plan, QueryResult};
use crate::error::{Error, Result};
use crate::session::state::{ServerContext, SessionState, Warning};
use cohort_protocol::ErrorCode;

/// Wrap a bound query with its targets; 1222 when the counts differ.
pub(in crate::sql) fn plan(query: Plan, into: SelectInto) -> Result<Plan> {
    if query.columns().len() != into.vars.len() {
        return Err(Error::new(
            ErrorCode::WrongNumberOfColumnsInSelect,
            "The used SELECT statements have a different number of columns",
        ));
    }
    Ok(Plan::Into(Box::new(query), into))
}

/// Assign the query's result to the variables.
pub(in crate::sql) fn assign(
    ctx: &ServerContext,
    sess: &mut SessionState,
    into: &SelectInto,
    result: QueryResult,
) -> Result<QueryResult> {
    let QueryResult::Rows { rows, .. } = result else {
        return Err(Error::internal("SELECT … INTO without rows"));
    };
    if into.trailing {
        warn(
            sess,
            ErrorCode::WarnDeprecatedSyntax,
            "'<select expression> INTO <destination>;' is deprecated and will be removed in a \
             future release. Please use 'SELECT <select list> INTO <destination> FROM...' instead",
        );
    }
    let more = rows.len() > 1;
    let Some(row) = rows.into_iter().next() else {
        warn(
            sess,
            ErrorCode::SpFetchNoData,
            "No data - zero rows fetched, selected, or processed",
        );
        return Ok(QueryResult::ok());
    };
    for (name, v) in into.vars.iter().zip(row) {
        sess.set_user_var(ctx, name, v)?;
    }
    if more {
        // As MariaDB: the first row is assigned, the second is the error.
        return Err(Error::new(
            ErrorCode::TooManyRows,
            "Result consisted of more than one row",
        ));
    }
    Ok(QueryResult::Ok {
        affected_rows: 1,
        last_insert_id: 0,
        info: None,
    })
}

fn warn(sess: &mut SessionState, code: ErrorCode, message: &str) {
    sess.warnings.push(Warning {
        level: "Warning",
        code: code.number(),
        message: message.to_string(),
    });
}
