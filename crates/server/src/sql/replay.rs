//! Recovery's DDL replay: the SQL layer's side of [`crate::log::recovery::DdlReplay`].
//!
//! Recovery re-runs every DDL statement it finds in the log after the checkpoint. It runs here
//! as root in a private context over the engine being recovered: no logging (the statement is
//! already in the log), no accounts, default system variables.

use crate::error::Result;
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
    fn replay_ddl(&self, engine: &Arc<Engine>, db: &str, sql: &str) -> Result<()> {
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
        sess.session_vars
            .insert("sql_mode".into(), crate::types::Value::str(""));
        // The statement succeeded when it ran: its FOREIGN KEYs are not checked again (a
        // parent created later, or dropped with checks off, must not fail the replay).
        sess.session_vars
            .insert("foreign_key_checks".into(), crate::types::Value::str("OFF"));
        // Read as it was when it ran: a statement sent under ANSI_QUOTES & co. is logged with
        // its mode (`parse::LOGGED_MODE_MARKER`).
        let (mode, sql) = super::parse::logged_mode(sql);
        if mode != Default::default() {
            // Still not strict; NO_DIR_IN_CREATE must act again.
            sess.session_vars
                .insert("sql_mode".into(), crate::types::Value::str(&mode.names()));
        }
        super::execute_text_in(ctx, &mut sess, sql, Some(mode)).map(|_| ())
    }
}
