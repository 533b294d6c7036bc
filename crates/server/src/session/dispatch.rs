//! Serving commands once logged in: one function per COM_* command.

use super::memory;
use super::results::{state_changed_flag, status_flags, write_result, RowFormat};
use super::statements::Statements;
use super::{Flow, Session, SessionState};
use crate::error::{Action, Error};
use crate::sql::{self, QueryResult};
use crate::status::StatusCounter;
use crate::types::{Date, DateTime, Value};
use cohort_protocol::{
    parse_params, status, ChangeUser, ColumnType, Command, ErrorCode, OkPacket, ParamValue,
};

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
        // KILL reaches what this command runs through this thread's flag (crate::interrupt).
        let _kill = crate::interrupt::enter(self.registration.process.kill.clone());
        self.last_error = None;
        let flow = self.serve_command(cmd);
        if self.killed_connection() {
            // Killed by another connection while this command ran: MariaDB closes without an
            // answer (the client sees the connection lost); killing itself answers 1927. What
            // the command committed stays committed.
            if self.last_error != Some(ErrorCode::ConnectionKilled) {
                self.writer.clear();
            }
            return Flow::Close;
        }
        flow
    }

    fn serve_command(&mut self, cmd: Command<'_>) -> Flow {
        match cmd {
            Command::Quit => Flow::Close,
            Command::Ping => self.reply_ok(),
            Command::InitDb(db) => self.on_init_db(db),
            Command::Query(sql) => self.on_query(sql),
            Command::FieldList { table, .. } => self.on_field_list(table),
            Command::StmtPrepare(sql) => {
                // Succeeding, it names the statement id -1 refers to; failing, none.
                self.statements.prepare_failed();
                self.on_prepare(sql)
            }
            Command::StmtExecute {
                stmt_id, params, ..
            } => {
                let stmt_id = self.statements.resolve(stmt_id);
                self.on_execute(stmt_id, params)
            }
            Command::StmtSendLongData {
                stmt_id,
                param,
                data,
            } => {
                let stmt_id = self.statements.resolve(stmt_id);
                self.on_long_data(stmt_id, param, data)
            }
            Command::StmtClose(id) => {
                let id = self.statements.resolve(id);
                let mem = self.state.as_mut().map(|s| &mut s.memory);
                self.statements.remove(&self.ctx, mem, id);
                self.ctx.status.incr(StatusCounter::ComStmtClose);
                Flow::Continue
            }
            Command::StmtReset(id) => {
                let id = self.statements.resolve(id);
                self.on_stmt_reset(id)
            }
            Command::ResetConnection => self.on_reset_connection(),
            Command::ChangeUser(cu) => self.on_change_user(cu),
            Command::SetOption(option) => self.on_set_option(option),
            Command::Statistics => self.on_statistics(),
            Command::Shutdown => self.on_shutdown(),
            Command::ProcessKill(id) => self.on_process_kill(id),
            Command::RegisterSlave(r) => self.on_register_slave(r),
            Command::BinlogDump(d) => self.on_binlog_dump(d),
            Command::StmtBulkExecute(body) => self.on_bulk_execute(body),
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

    pub(super) fn reply_ok_packet(&mut self) -> Flow {
        self.reply_ok()
    }

    fn reply_ok(&mut self) -> Flow {
        let ctx = self.ctx.clone();
        let state = self
            .state
            .as_mut()
            .expect("commands are served only after login");
        let changes = super::track::take_changes(&ctx, state);
        let flags = state_changed_flag(status_flags(state), &changes);
        self.writer.write_ok(&OkPacket {
            session_state: changes.as_ref().map_or(&[], |c| c.as_bytes()),
            ..OkPacket::new(flags)
        });
        Flow::Continue
    }

    pub(super) fn reply_error(&mut self, e: &Error) -> Flow {
        self.last_error = Some(e.code());
        // In character_set_results, as MariaDB sends its messages.
        match self.state.as_ref().map(|s| s.charsets.name(e.message())) {
            Some(std::borrow::Cow::Owned(message)) => {
                let mut err = cohort_protocol::ErrPacket::new(e.code(), "");
                err.message = &message;
                self.writer.write_with(|out| err.encode(out));
            }
            _ => self.writer.write_err(e.code(), e.message()),
        }
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
        self.state().track.schema_changed();
        self.reply_ok()
    }

    fn on_query(&mut self, sql_bytes: &[u8]) -> Flow {
        if self.killed_connection() {
            return Flow::Close;
        }
        self.registration.process.kill.clear_query();
        if !self.multi_statements {
            return self.run_query(sql_bytes, false).0;
        }
        let pieces = super::multi::split(sql_bytes);
        let count = pieces.len();
        for (i, range) in pieces.into_iter().enumerate() {
            let more = i + 1 < count;
            if i > 0 && crate::interrupt::requested() {
                return self.reply_error(&crate::interrupt::interrupted());
            }
            let (flow, ok) = self.run_query(&sql_bytes[range], more);
            if !ok || flow != Flow::Continue {
                return flow;
            }
        }
        Flow::Continue
    }

    /// Run one statement of a COM_QUERY and answer it (`more`: more statements follow, so
    /// its result says SERVER_MORE_RESULTS_EXISTS and its commit is not deferred). Returns
    /// the flow and whether the statement succeeded.
    fn run_query(&mut self, sql_bytes: &[u8], more: bool) -> (Flow, bool) {
        self.ctx.status.incr(StatusCounter::Questions);
        // Read in character_set_client (see `charsets`).
        let client = self.state().charsets.client;
        let text = client.decode(sql_bytes);
        let text = text.as_ref();
        let ctx = self.ctx.clone();
        let process = self.registration.process.clone();
        process.set_command("Query", Some(text));
        let state = self.state.as_mut().expect("logged in");
        if !self.slot_hooked {
            process.set_slot(state.trx_slot(&ctx));
            self.slot_hooked = true;
        }
        // A result followed by more must not be held for a deferred commit.
        let notifier = more.then(|| state.commit_notifier.take()).flatten();
        let annotation = annotation_start(&ctx, state);
        let _budget = budget(&ctx, state);
        let deadline = crate::interrupt::limit(state.stmt_vars(&ctx).max_statement_us);
        let result = match crate::memory::check_bounded(memory::parse_estimate_bound(text), || {
            memory::parse_estimate(text)
        }) {
            Ok(()) => sql::execute_text(&ctx, state, text),
            Err(e) => Err(record(state, e)),
        };
        drop(deadline);
        let state = self.state.as_mut().expect("logged in");
        if let Some(job) = state.pending_load.take() {
            // Its rows come with the file: the annotation keeps the whole text.
            let keep_text = super::annotate::text_wanted(state);
            let annotation = annotation.map(|first| match keep_text {
                true => (first, text.to_string()),
                false => (first, String::new()),
            });
            // LOAD DATA LOCAL: ask for the file; its packets come next (`on_local_file`).
            if more {
                drop(job);
                let e = Error::unsupported("LOAD DATA LOCAL followed by more statements");
                let outcome = self.finish_statement(Err(e), RowFormat::Text, None, more);
                process.set_command("Sleep", None);
                return outcome;
            }
            self.writer
                .write_local_infile_request(&crate::types::raw_text::to_bytes(job.file_name()));
            // The file's packets continue this sequence.
            self.reader.set_next_seq(self.writer.seq());
            state.pending_load = Some(job);
            self.phase = super::Phase::LoadLocal(annotation);
            return (Flow::Continue, true);
        }
        let annotation =
            annotation.map(|first| (first, annotation_text(state, first, || text.to_string())));
        let outcome = self.finish_statement(result, RowFormat::Text, annotation, more);
        let state = self.state.as_mut().expect("logged in");
        if notifier.is_some() {
            state.commit_notifier = notifier;
        }
        process.set_db(state.db.as_deref());
        process.set_command("Sleep", None);
        outcome
    }

    /// LOAD DATA LOCAL: one packet of the client's file, or the empty packet that ends it
    /// (then the statement is answered).
    pub(super) fn on_local_file(
        &mut self,
        annotation: Option<(usize, String)>,
        payload: &[u8],
    ) -> Flow {
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        if !payload.is_empty() {
            let _kill = crate::interrupt::enter(self.registration.process.kill.clone());
            sql::load_local_feed(&ctx, state, payload);
            self.phase = super::Phase::LoadLocal(annotation);
            return Flow::Continue;
        }
        self.phase = super::Phase::Ready;
        let result = {
            let _kill = crate::interrupt::enter(self.registration.process.kill.clone());
            sql::load_local_finish(&ctx, state)
        };
        let (flow, _) = self.finish_statement(result, RowFormat::Text, annotation, false);
        self.registration.process.set_command("Sleep", None);
        flow
    }

    /// True once a connection kill reached this connection: it is served no more.
    fn killed_connection(&self) -> bool {
        self.registration.process.kill.get() == crate::interrupt::Kill::Connection
    }

    /// After a statement: undo what the error calls for, keep its text for Annotate_rows if
    /// it changed rows (`annotation`: where the transaction's changes stood before it, and the
    /// text), autocommit, then answer (`more`: another result follows this one). Returns the
    /// flow and whether the statement succeeded.
    pub(super) fn finish_statement(
        &mut self,
        result: crate::error::Result<QueryResult>,
        format: RowFormat,
        annotation: Option<(usize, String)>,
        more: bool,
    ) -> (Flow, bool) {
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        let result = match result {
            Ok(r) => {
                if let Some((first, text)) = annotation {
                    state.annotate(first, text);
                }
                state.end_statement(&ctx, true).map(|_| r)
            }
            Err(e) => {
                // The failed statement's own effects are already undone.
                state.statement_failed(&ctx, &e);
                Err(e)
            }
        };
        if state.stmt_vars(&ctx).notes_off {
            // sql_notes = OFF: notes are not kept (nor counted).
            state.warnings.retain(|w| w.level != "Note");
        }
        // What the statement changed in the session goes with its OK (a result set or an
        // error drops it).
        let changes = match &result {
            Ok(QueryResult::Ok { .. }) => super::track::take_changes(&ctx, state),
            _ => {
                state.track.clear();
                None
            }
        };
        match result {
            Ok(r) => {
                let extra = if more { status::MORE_RESULTS_EXISTS } else { 0 };
                write_result(&mut self.writer, state, &r, format, extra, changes);
                (Flow::Continue, true)
            }
            Err(e) => (self.reply_error(&e), false),
        }
    }

    fn on_field_list(&mut self, table: &str) -> Flow {
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        match sql::field_list(&ctx, state, table) {
            Ok(columns) => {
                // In the client's results collation, as result sets are.
                let columns = state.charsets.columns(&columns).into_owned();
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
        // Read in character_set_client (latin1 text is every byte a character).
        let client = self.state().charsets.client;
        let decoded = match client {
            super::charsets::WireCharset::Latin1 => client.decode(sql_bytes),
            _ => match std::str::from_utf8(sql_bytes) {
                Ok(t) => std::borrow::Cow::Borrowed(t),
                Err(_) => {
                    let e = Error::new(
                        ErrorCode::ParseError,
                        "Invalid utf8mb4 character string in query",
                    );
                    return self.reply_error(&e);
                }
            },
        };
        let text = decoded.as_ref();
        let ctx = self.ctx.clone();
        if let Err(e) = sql::reserve_statement(&ctx) {
            return self.reply_error(&e);
        }
        let state = self.state.as_mut().expect("logged in");
        let prepared = {
            let _budget = budget(&ctx, state);
            let start = crate::memory::thread_net();
            let estimate = crate::memory::check(memory::parse_estimate(text));
            estimate
                .and_then(|_| sql::prepare(&ctx, state, text))
                .and_then(|p| {
                    // What preparing kept (the plan, or the parsed form), at least the text.
                    let kept = crate::memory::kept_since(start).max(text.len() as u64);
                    let cost = kept + memory::ENTRY_OVERHEAD;
                    let limit = state.mem_limit(&ctx);
                    match state.memory.held() + cost <= limit {
                        true => Ok((p, cost)),
                        false => Err(crate::memory::over_limit(limit)),
                    }
                })
        };
        match prepared {
            Ok((prepared, cost)) => {
                let params = prepared.params as u16;
                let columns = prepared.columns();
                let id = self.statements.add(&mut state.memory, prepared, cost);
                let flags = status_flags(self.state());
                let columns = self.state().charsets.columns(&columns).into_owned();
                self.writer.write_prepare_ok(id, params, &columns, 0, flags);
                Flow::Continue
            }
            Err(e) => {
                Statements::unreserve(&ctx);
                self.reply_error(&e)
            }
        }
    }

    fn on_execute(&mut self, stmt_id: u32, param_block: &[u8]) -> Flow {
        self.ctx.status.incr(StatusCounter::Questions);
        self.ctx.status.incr(StatusCounter::ComStmtExecute);
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        let Some(entry) = self.statements.get_mut(stmt_id) else {
            let e = unknown_stmt(stmt_id, "mysqld_stmt_execute");
            return self.reply_error(&e);
        };
        if let Some(e) = entry.long_data_error.clone() {
            return self.reply_error(&e);
        }
        let _budget = budget(&ctx, state);
        let parsed = parse_params(
            param_block,
            entry.prepared.params,
            &mut entry.types,
            &mut entry.long_data,
        );
        // The long data now belongs to this execute (or is dropped with its error).
        entry.drop_long_data(&mut state.memory);
        let params = match parsed {
            Ok(p) => p,
            Err(e) => {
                let err = Error::new(
                    e.error_code(),
                    format!("Incorrect arguments to mysqld_stmt_execute: {e}"),
                );
                return self.reply_error(&err);
            }
        };
        let client = state.charsets.client;
        let values: Vec<Value> = params
            .into_iter()
            .zip(
                entry
                    .types
                    .iter()
                    .map(|t| t.column_type)
                    .chain(std::iter::repeat(ColumnType::NULL)),
            )
            .map(|(p, ty)| param_in_charset(param_to_value(p), ty, client))
            .collect();
        let annotation = annotation_start(&ctx, state);
        let deadline = crate::interrupt::limit(state.stmt_vars(&ctx).max_statement_us);
        let result = sql::execute_prepared(&ctx, state, &entry.prepared, &values);
        let annotation = annotation.map(|first| {
            let text = || super::annotate::expand(entry.prepared.text(), &values);
            (first, annotation_text(state, first, text))
        });
        drop(values);
        drop(deadline);
        self.finish_statement(result, RowFormat::Binary, annotation, false)
            .0
    }

    /// COM_STMT_SEND_LONG_DATA: no reply, even on error (it surfaces at execute, as in
    /// MariaDB); chunks for an unknown statement are ignored.
    fn on_long_data(&mut self, stmt_id: u32, param: u16, data: &[u8]) -> Flow {
        let max_packet = self.reader.max_payload() as u64;
        let ctx = self.ctx.clone();
        let state = self.state.as_mut().expect("logged in");
        let limit = state.mem_limit(&ctx);
        if let Some(entry) = self.statements.get_mut(stmt_id) {
            let _ = entry.append_long_data(&mut state.memory, param, data, max_packet, limit);
        }
        Flow::Continue
    }

    fn on_stmt_reset(&mut self, stmt_id: u32) -> Flow {
        let state = self.state.as_mut().expect("logged in");
        match self.statements.get_mut(stmt_id) {
            Some(entry) => {
                entry.drop_long_data(&mut state.memory);
                entry.long_data_error = None;
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
        self.statements.clear(&ctx, None);
        let state = self.state.as_mut().expect("logged in");
        state.named_statements.clear(&ctx.status, &mut state.memory);
        state.rollback(&ctx);
        super::table_locks::unlock_tables(&ctx, state);
        let (user, host, db) = (state.user.clone(), state.host.clone(), state.db.clone());
        let fresh = self.new_state(&user, &host, db);
        *self.state() = fresh;
        self.reply_ok()
    }

    /// COM_CHANGE_USER: roll back and log in again as another user (same scramble). A failed
    /// one answers ERR and closes the connection, as MySQL does, so that nothing the client
    /// pipelined behind it runs as the previous user. (MariaDB 10.11 keeps the connection as
    /// the previous user instead.)
    fn on_change_user(&mut self, cu: ChangeUser) -> Flow {
        let ctx = self.ctx.clone();
        self.statements.clear(&ctx, None);
        if let Some(state) = self.state.as_mut() {
            state.named_statements.clear(&ctx.status, &mut state.memory);
            state.rollback(&ctx);
            super::table_locks::unlock_tables(&ctx, state);
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

/// The command's memory budget on this thread: `max_session_mem_used` less what the session
/// holds (see [`crate::session::memory`]).
pub(super) fn budget(
    ctx: &crate::session::ServerContext,
    state: &mut SessionState,
) -> crate::memory::BudgetGuard {
    crate::memory::enter_budget(state.stmt_vars(ctx).mem_limit, state.memory.held())
}

/// Where the open transaction's changes stand before a statement, if its text is to be kept
/// for Annotate_rows (see [`super::annotate`]).
pub(super) fn annotation_start(
    ctx: &crate::session::ServerContext,
    state: &mut SessionState,
) -> Option<usize> {
    super::annotate::wanted(ctx, state).then(|| state.txn.as_ref().map_or(0, |t| t.change_count()))
}

/// The text [`SessionState::annotate`] keeps for a statement that began at `first`: built only
/// if the statement changed rows (it is not kept otherwise), so a SELECT copies nothing.
pub(super) fn annotation_text(
    state: &SessionState,
    first: usize,
    text: impl FnOnce() -> String,
) -> String {
    let changed = state.txn.as_ref().is_some_and(|t| t.change_count() > first);
    match changed && super::annotate::text_wanted(state) {
        true => text(),
        false => String::new(),
    }
}

/// A statement refused before it ran: its error is the one SHOW WARNINGS shows.
fn record(state: &mut SessionState, e: Error) -> Error {
    state.warnings.clear();
    state.warnings.push(super::Warning {
        level: "Error",
        code: e.code().number(),
        message: e.message().to_string(),
    });
    e
}

pub(super) fn unknown_stmt(id: u32, what: &str) -> Error {
    Error::new(
        ErrorCode::UnknownStmtHandler,
        format!("Unknown prepared statement handler ({id}) given to {what}"),
    )
}

/// A decoded parameter as a SQL value (TIME becomes its text form, `[-]HH:MM:SS[.ffffff]`).
/// A string parameter (sent as a character type) read in character_set_client: latin1 text
/// becomes its characters. Blob-typed parameters are bytes, as sent.
pub(super) fn param_in_charset(
    v: Value,
    ty: ColumnType,
    client: super::charsets::WireCharset,
) -> Value {
    match v {
        Value::Bytes(b)
            if client == super::charsets::WireCharset::Latin1
                && matches!(
                    ty,
                    ColumnType::STRING | ColumnType::VAR_STRING | ColumnType::VARCHAR
                ) =>
        {
            Value::Bytes(crate::types::latin1::decode(&b).into_bytes())
        }
        v => v,
    }
}

pub(super) fn param_to_value(p: ParamValue) -> Value {
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
