//! COM_STMT_BULK_EXECUTE: a prepared statement run for every row of parameters in one packet
//! (MariaDB's extension; the packet is [`cohort_protocol::bulk`]), answered with one OK.
//!
//! As MariaDB 10.11:
//!
//! | case | answer |
//! |---|---|
//! | MARIADB_CLIENT_STMT_BULK_OPERATIONS not negotiated | 1295 |
//! | unknown statement | 1243 (`… given to mysqld_stmt_execute`) |
//! | SEND_UNIT_RESULTS (needs BULK_UNIT_RESULTS, which 10.11 lacks) | 1295 |
//! | a statement with a result set | 1295 |
//! | no types ever sent, no rows, types or a row cut short, a bad indicator | 1210 (`Incorrect arguments to mysqld_stmt_bulk_execute`) |
//! | a row fails | its error; the rows before it are undone, in a transaction or not |
//! | all rows run | one OK: affected rows summed, the first insert id, a multi-row INSERT's or UPDATE's info |
//!
//! DEFAULT and IGNORE indicators are refused (1235): Cohort's prepared plans take values
//! only. Rows are decoded and run one at a time, so memory does not grow with the row count
//! beyond the packet itself (`max_allowed_packet`).

use super::dispatch::{
    annotation_start, annotation_text, budget, param_in_charset, param_to_value, unknown_stmt,
};
use super::results::RowFormat;
use super::{Flow, Session};
use crate::error::Error;
use crate::sql;
use crate::status::StatusCounter;
use crate::types::Value;
use cohort_protocol::bulk::{bulk_flag, BulkHeader, BulkParam, BulkRows};
use cohort_protocol::{ColumnType, ErrorCode};

fn wrong_arguments() -> Error {
    Error::new(
        ErrorCode::WrongArguments,
        "Incorrect arguments to mysqld_stmt_bulk_execute",
    )
}

fn not_supported() -> Error {
    Error::new(
        ErrorCode::UnsupportedPs,
        "This command is not supported in the prepared statement protocol yet",
    )
}

/// A decoded row as values (DEFAULT / IGNORE refused), strings read in character_set_client.
fn row_values(
    row: Vec<BulkParam>,
    types: &[ColumnType],
    client: super::charsets::WireCharset,
) -> crate::error::Result<Vec<Value>> {
    let types = types
        .iter()
        .copied()
        .chain(std::iter::repeat(ColumnType::NULL));
    row.into_iter()
        .zip(types)
        .map(|(p, ty)| match p {
            BulkParam::Value(v) => Ok(param_in_charset(param_to_value(v), ty, client)),
            BulkParam::Null => Ok(Value::Null),
            BulkParam::Default | BulkParam::Ignore => Err(Error::unsupported(
                "DEFAULT / IGNORE parameter indicators in COM_STMT_BULK_EXECUTE",
            )),
        })
        .collect()
}

impl Session {
    pub(super) fn on_bulk_execute(&mut self, body: &[u8]) -> Flow {
        if !self.bulk {
            return self.reply_error(&not_supported());
        }
        self.ctx.status.incr(StatusCounter::Questions);
        self.ctx.status.incr(StatusCounter::ComStmtExecute);
        let Ok(header) = BulkHeader::parse(body) else {
            return self.reply_error(&wrong_arguments());
        };
        let stmt_id = self.statements.resolve(header.stmt_id);
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        let Some(entry) = self.statements.get_mut(stmt_id) else {
            let e = unknown_stmt(stmt_id, "mysqld_stmt_execute");
            return self.reply_error(&e);
        };
        if header.flags & bulk_flag::SEND_UNIT_RESULTS != 0 {
            return self.reply_error(&not_supported());
        }
        // Long data has no place in a bulk row: what was sent is dropped with the answer.
        let had_long_data = !entry.long_data.is_empty() || entry.long_data_error.is_some();
        entry.drop_long_data(&mut state.memory);
        entry.long_data_error = None;
        if had_long_data {
            return self.reply_error(&wrong_arguments());
        }
        let _budget = budget(&ctx, state);
        let params = entry.prepared.params;
        let rows = BulkRows::new(header.body, header.flags, params, &mut entry.types);
        let Ok(rows) = rows else {
            return self.reply_error(&wrong_arguments());
        };
        let client = state.charsets.client;
        let types: Vec<ColumnType> = entry.types.iter().map(|t| t.column_type).collect();
        let mut rows = rows.map(|r| {
            r.map_err(|_| wrong_arguments())
                .and_then(|row| row_values(row, &types, client))
        });
        let annotation = annotation_start(&ctx, state);
        let deadline = crate::interrupt::limit(state.stmt_vars(&ctx).max_statement_us);
        let result = sql::execute_bulk(&ctx, state, &entry.prepared, &mut rows);
        let annotation = annotation.map(|first| {
            let text = || entry.prepared.text().to_string();
            (first, annotation_text(state, first, text))
        });
        drop(deadline);
        self.finish_statement(result, RowFormat::Binary, annotation, false)
            .0
    }
}
