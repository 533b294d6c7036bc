//! Serving commands once logged in: one function per COM_* command.

use super::results::{status_flags, write_result, RowFormat};
use super::{Flow, Session, SessionState};
use crate::error::{Action, Error};
use crate::sql::{self, QueryResult};
use crate::status::StatusCounter;
use crate::types::{Date, DateTime, Value};
use cohort_protocol::{parse_params, ChangeUser, Command, ErrorCode, OkPacket, ParamValue};

impl Session {
    pub(super) fn on_command(&mut self, payload: &[u8]) -> Flow {
        let cmd = match Command::parse(payload, self.client_caps) {
            Ok(c) => c,
            Err(e) => {
                self.writer
                    .write_err(e.error_code(), &format!("Malformed packet: {e}"));
                return Flow::Continue;
            }
        };
        match cmd {
            Command::Quit => Flow::Close,
            Command::Ping => self.reply_ok(),
            Command::InitDb(db) => self.on_init_db(db),
            Command::Query(sql) => self.on_query(sql),
            Command::FieldList { table, .. } => self.on_field_list(table),
            Command::StmtPrepare(sql) => self.on_prepare(sql),
            Command::StmtExecute {
                stmt_id, params, ..
            } => self.on_execute(stmt_id, params),
            Command::StmtSendLongData {
                stmt_id,
                param,
                data,
            } => self.on_long_data(stmt_id, param, data),
            Command::StmtClose(id) => {
                self.statements.remove(&self.ctx, id);
                self.ctx.status.incr(StatusCounter::ComStmtClose);
                Flow::Continue
            }
            Command::StmtReset(id) => self.on_stmt_reset(id),
            Command::ResetConnection => self.on_reset_connection(),
            Command::ChangeUser(cu) => self.on_change_user(cu),
            Command::SetOption(_) => self.reply_ok(),
            Command::StmtFetch { .. } | Command::Unknown(_) => {
                self.writer
                    .write_err(ErrorCode::UnknownCom, "Unknown command");
                Flow::Continue
            }
        }
    }

    fn state(&mut self) -> &mut SessionState {
        self.state
            .as_mut()
            .expect("commands are served only after login")
    }

    fn reply_ok(&mut self) -> Flow {
        let flags = status_flags(self.state());
        self.writer.write_ok(&OkPacket::new(flags));
        Flow::Continue
    }

    pub(super) fn reply_error(&mut self, e: &Error) -> Flow {
        self.writer.write_err(e.code(), e.message());
        if e.action() == Action::CloseConnection {
            return Flow::Close;
        }
        Flow::Continue
    }

    fn on_init_db(&mut self, db: &str) -> Flow {
        let (user, host) = {
            let s = self.state();
            (s.user.clone(), s.host.clone())
        };
        if let Err(e) = self.check_db_access(&user, &host, db) {
            return self.reply_error(&e);
        }
        self.state().db = Some(db.to_string());
        self.reply_ok()
    }

    fn on_query(&mut self, sql_bytes: &[u8]) -> Flow {
        self.ctx.status.incr(StatusCounter::Questions);
        let Ok(text) = std::str::from_utf8(sql_bytes) else {
            let e = Error::new(
                ErrorCode::ParseError,
                "Invalid utf8mb4 character string in query",
            );
            return self.reply_error(&e);
        };
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        let result = sql::execute_text(&ctx, state, text);
        self.finish_statement(result, RowFormat::Text)
    }

    /// After a statement: undo what the error calls for, autocommit, then answer.
    fn finish_statement(
        &mut self,
        result: crate::error::Result<QueryResult>,
        format: RowFormat,
    ) -> Flow {
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        let result = match result {
            Ok(r) => state.end_statement(&ctx, true).map(|_| r),
            Err(e) => {
                // The failed statement's own effects are already undone.
                state.statement_failed(&ctx, &e);
                Err(e)
            }
        };
        match result {
            Ok(r) => {
                write_result(&mut self.writer, state, &r, format);
                Flow::Continue
            }
            Err(e) => self.reply_error(&e),
        }
    }

    fn on_field_list(&mut self, table: &str) -> Flow {
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        match sql::field_list(&ctx, state, table) {
            Ok(columns) => {
                for c in &columns {
                    self.writer.write_field_list_column(c, None);
                }
                let flags = status_flags(self.state());
                self.writer.write_eof(0, flags);
                Flow::Continue
            }
            Err(e) => self.reply_error(&e),
        }
    }

    fn on_prepare(&mut self, sql_bytes: &[u8]) -> Flow {
        self.ctx.status.incr(StatusCounter::ComStmtPrepare);
        let Ok(text) = std::str::from_utf8(sql_bytes) else {
            let e = Error::new(
                ErrorCode::ParseError,
                "Invalid utf8mb4 character string in query",
            );
            return self.reply_error(&e);
        };
        let max = self.ctx.vars.global_u64("max_prepared_stmt_count");
        if self.ctx.status.get(StatusCounter::PreparedStmtCount) >= max {
            let e = Error::new(
                ErrorCode::Unknown,
                format!("Can't create more than max_prepared_stmt_count statements (current value: {max})"),
            );
            return self.reply_error(&e);
        }
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        match sql::prepare(&ctx, state, text) {
            Ok(prepared) => {
                let params = prepared.params as u16;
                let columns = prepared.columns.clone();
                let id = self.statements.add(&ctx, prepared);
                let flags = status_flags(self.state());
                self.writer.write_prepare_ok(id, params, &columns, 0, flags);
                Flow::Continue
            }
            Err(e) => self.reply_error(&e),
        }
    }

    fn on_execute(&mut self, stmt_id: u32, param_block: &[u8]) -> Flow {
        self.ctx.status.incr(StatusCounter::Questions);
        self.ctx.status.incr(StatusCounter::ComStmtExecute);
        let ctx = self.ctx.clone();
        let Some(entry) = self.statements.get_mut(stmt_id) else {
            let e = unknown_stmt(stmt_id, "mysqld_stmt_execute");
            return self.reply_error(&e);
        };
        let params = match parse_params(
            param_block,
            entry.prepared.params,
            &mut entry.types,
            &mut entry.long_data,
        ) {
            Ok(p) => p,
            Err(e) => {
                let err = Error::new(
                    e.error_code(),
                    format!("Incorrect arguments to mysqld_stmt_execute: {e}"),
                );
                return self.reply_error(&err);
            }
        };
        for slot in entry.long_data.iter_mut() {
            *slot = None;
        }
        let values: Vec<Value> = params.into_iter().map(param_to_value).collect();
        let state = self.state.as_mut().expect("logged in");
        let result = sql::execute_prepared(&ctx, state, &entry.prepared, &values);
        self.finish_statement(result, RowFormat::Binary)
    }

    fn on_long_data(&mut self, stmt_id: u32, param: u16, data: &[u8]) -> Flow {
        // No reply, even on error (the error surfaces at execute, as in MySQL).
        if let Some(entry) = self.statements.get_mut(stmt_id) {
            if let Some(slot) = entry.long_data.get_mut(param as usize) {
                slot.get_or_insert_with(Vec::new).extend_from_slice(data);
            }
        }
        Flow::Continue
    }

    fn on_stmt_reset(&mut self, stmt_id: u32) -> Flow {
        match self.statements.get_mut(stmt_id) {
            Some(entry) => {
                entry.long_data.iter_mut().for_each(|s| *s = None);
                self.reply_ok()
            }
            None => {
                let e = unknown_stmt(stmt_id, "mysqld_stmt_reset");
                self.reply_error(&e)
            }
        }
    }

    /// COM_RESET_CONNECTION: roll back, forget statements and session variables; stay logged in.
    fn on_reset_connection(&mut self) -> Flow {
        let ctx = self.ctx.clone();
        self.statements.clear(&ctx);
        let state = self.state.as_mut().expect("logged in");
        state.rollback(&ctx);
        let (user, host, db) = (state.user.clone(), state.host.clone(), state.db.clone());
        let fresh = self.new_state(&user, &host, db);
        *self.state() = fresh;
        self.reply_ok()
    }

    /// COM_CHANGE_USER: roll back and log in again as another user (same scramble).
    fn on_change_user(&mut self, cu: ChangeUser) -> Flow {
        let ctx = self.ctx.clone();
        self.statements.clear(&ctx);
        if let Some(state) = self.state.as_mut() {
            state.rollback(&ctx);
        }
        let Some(account) = self.authenticate(&cu.user, &cu.auth_response) else {
            let e = Error::new(
                ErrorCode::AccessDenied,
                format!(
                    "Access denied for user '{}'@'{}' (using password: YES)",
                    cu.user, self.host
                ),
            );
            self.reply_error(&e);
            return Flow::Close;
        };
        if let Some(db) = &cu.database {
            if let Err(e) = self.check_db_access(&account.user, &account.host, db) {
                self.reply_error(&e);
                return Flow::Close;
            }
        }
        self.state = Some(self.new_state(&account.user, &account.host, cu.database));
        self.reply_ok()
    }
}

fn unknown_stmt(id: u32, what: &str) -> Error {
    Error::new(
        ErrorCode::UnknownStmtHandler,
        format!("Unknown prepared statement handler ({id}) given to {what}"),
    )
}

/// A decoded parameter as a SQL value (TIME becomes its text form, `[-]HH:MM:SS[.ffffff]`).
fn param_to_value(p: ParamValue) -> Value {
    match p {
        ParamValue::Null => Value::Null,
        ParamValue::Int(i) => Value::Int(i),
        ParamValue::UInt(u) => Value::UInt(u),
        ParamValue::Double(d) => Value::Double(d),
        ParamValue::Bytes(b) => Value::Bytes(b),
        ParamValue::Date(d) => Value::Date(Date {
            year: d.year,
            month: d.month,
            day: d.day,
        }),
        ParamValue::DateTime(dt) => Value::DateTime(DateTime {
            date: Date {
                year: dt.year,
                month: dt.month,
                day: dt.day,
            },
            hour: dt.hour,
            minute: dt.minute,
            second: dt.second,
            micros: dt.micros,
        }),
        ParamValue::Time(t) => {
            let mut s = String::new();
            let _ = cohort_protocol::Cell::Time(t).write_text(&mut s, None);
            Value::Bytes(s.into_bytes())
        }
    }
}
