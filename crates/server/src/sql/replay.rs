//! Recovery's DDL replay: the SQL layer's side of [`crate::log::recovery::DdlReplay`].
//!
//! Recovery re-runs every DDL statement it finds in the log after the checkpoint. It runs here
//! as root in a private context over the engine being recovered: no logging (the statement is
//! already in the log), no accounts, default system variables, except what the log kept of the
//! session the statement ran in (`log/ddl_session.rs`): its clock (so an `ADD COLUMN … DEFAULT
//! CURRENT_TIMESTAMP` fills the rows with the time clients saw), its time zone, and its
//! `sql_mode` without strictness.

use crate::error::Result;
use crate::log::ddl_session::DdlSession;
use crate::log::recovery::DdlReplay;
use crate::session::{ServerContext, SessionState};
use crate::storage::Engine;
use std::sync::{Arc, OnceLock};

/// Re-runs logged DDL through [`crate::sql::execute_text`].
#[derive(Default)]
pub struct SqlDdlReplay {
    /// Made at the first statement, for the engine recovery builds (one per recovery).
    ctx: OnceLock<ServerContext>,
}

impl DdlReplay for SqlDdlReplay {
    fn replay_ddl(
        &self,
        engine: &Arc<Engine>,
        db: &str,
        sql: &str,
        session: &DdlSession,
    ) -> Result<()> {
        let ctx = self.ctx.get_or_init(|| {
            ServerContext::new(
                engine.clone(),
                crate::vars::SystemVariables::new(),
                crate::accounts::Accounts::in_memory(""),
            )
        });
        debug_assert!(
            Arc::ptr_eq(&ctx.engine, engine),
            "one replayer per recovery"
        );
        let db = (!db.is_empty()).then(|| db.to_string());
        let mut sess = SessionState::new(0, "root", "%", db);
        // Not strict: an ALTER that converted values was logged only if it succeeded, and the
        // values it converted with warnings convert the same way again (a strict replay
        // would refuse them).
        let mode = session
            .sql_mode
            .as_deref()
            .map_or(String::new(), super::sql_mode::without_strictness);
        sess.session_vars
            .insert("sql_mode".into(), crate::types::Value::str(&mode));
        if let Some(tz) = &session.time_zone {
            sess.session_vars
                .insert("time_zone".into(), crate::types::Value::str(tz));
        }
        sess.fixed_time = session.when_us.map(|w| {
            super::expr::convert::datetime_from_unix((w / 1_000_000) as i64, (w % 1_000_000) as u32)
        });
        // The statement succeeded when it ran: its FOREIGN KEYs are not checked again (a
        // parent created later, or dropped with checks off, must not fail the replay).
        sess.session_vars
            .insert("foreign_key_checks".into(), crate::types::Value::str("OFF"));
        // Read as it was when it ran: under ANSI_QUOTES & co. if it was sent so.
        let parse_mode = super::sql_mode::ParseMode::of(&mode);
        super::execute_text_in(ctx, &mut sess, sql, Some(parse_mode)).map(|_| ())
    }
}
