//! Session state tracking (`CLIENT_SESSION_TRACK`): what a statement changed in the session,
//! reported in its OK packet as MariaDB 10.11 does.
//!
//! Statements record changes in the session's [`Tracker`] as they make them (only when the
//! client negotiated the capability; otherwise every call returns at once):
//!
//! * a session system variable set (`SET`, `SET NAMES`): [`Tracker::var_changed`];
//! * the current schema (USE, COM_INIT_DB, a login with a database): [`Tracker::schema_changed`];
//! * anything else of the session's state — user variables, prepared statements (SQL
//!   PREPARE / DEALLOCATE), temporary tables: [`Tracker::state_changed`].
//!
//! When the statement is answered with OK, [`take_changes`] turns them into the OK packet's
//! session state block, filtered by the `session_track_*` variables:
//! `session_track_system_variables` (the listed variables, or `*` for all),
//! `session_track_schema`, `session_track_state_change` (any change at all, variables and
//! schema included). `session_track_transaction_info` is OFF (its other values are refused
//! with 1235). Changes made by a statement that answers a result set (or an error) are
//! dropped, as MariaDB drops them. A statement that changes nothing costs one flag test.

use super::SessionState;
use crate::session::ServerContext;
use cohort_protocol::SessionStateChanges;

/// What the current statement changed; empty between statements.
#[derive(Debug, Default)]
pub struct Tracker {
    /// The client negotiated CLIENT_SESSION_TRACK: changes are recorded.
    enabled: bool,
    /// Something was recorded (the only field a statement that changed nothing reads).
    dirty: bool,
    /// System variables set (canonical names, in the order first set).
    vars: Vec<&'static str>,
    schema: bool,
    /// `session_track_system_variables` as this session last set it, in the order written
    /// (MariaDB reports the variables in that order; the variable shows them sorted).
    order: Option<Vec<&'static str>>,
}

impl Tracker {
    pub fn new(enabled: bool) -> Tracker {
        Tracker {
            enabled,
            ..Tracker::default()
        }
    }

    /// A session system variable was set (whether or not its value changed).
    pub fn var_changed(&mut self, name: &str) {
        if !self.enabled {
            return;
        }
        self.dirty = true;
        if let Some(def) = crate::vars::definition(name) {
            if !self.vars.contains(&def.name) {
                self.vars.push(def.name);
            }
        }
    }

    /// The current schema was set (even to the one in use).
    pub fn schema_changed(&mut self) {
        if self.enabled {
            self.dirty = true;
            self.schema = true;
        }
    }

    /// Some other part of the session's state changed.
    pub fn state_changed(&mut self) {
        if self.enabled {
            self.dirty = true;
        }
    }

    /// `session_track_system_variables` was set to `typed` (before normalising): remember
    /// the order its names were written in. `None`: back to the global value's order.
    pub fn set_order(&mut self, typed: Option<&str>) {
        self.order = typed.map(|t| {
            let mut names: Vec<&'static str> = Vec::new();
            for name in t
                .split(',')
                .filter_map(|n| crate::vars::definition(n.trim()))
            {
                if !names.contains(&name.name) {
                    names.push(name.name);
                }
            }
            names
        });
    }

    /// Forget what the statement changed (it answered a result set or an error).
    pub fn clear(&mut self) {
        if self.dirty {
            self.dirty = false;
            self.vars.clear();
            self.schema = false;
        }
    }
}

/// The session state block for the OK packet that answers the current statement, or None
/// when nothing tracked changed; the tracker is emptied either way.
pub fn take_changes(ctx: &ServerContext, state: &mut SessionState) -> Option<SessionStateChanges> {
    if !state.track.dirty {
        return None;
    }
    let mut out = SessionStateChanges::new();
    let tracked = state
        .var(ctx, "session_track_system_variables")
        .map(|v| crate::sql::value_text(&v))
        .unwrap_or_default();
    let vars = std::mem::take(&mut state.track.vars);
    let report = |out: &mut SessionStateChanges, name: &'static str| {
        // Booleans go as ON / OFF; autocommit lives outside the variables.
        let value = match name {
            "autocommit" => String::from(if state.autocommit { "ON" } else { "OFF" }),
            _ => state
                .var(ctx, name)
                .map(|v| crate::sql::value_text(&v))
                .unwrap_or_default(),
        };
        out.system_variable(name.as_bytes(), value.as_bytes());
    };
    if tracked.trim() == "*" {
        for name in &vars {
            report(&mut out, name);
        }
    } else {
        let listed = |name: &&str| tracked.split(',').any(|t| t.trim() == *name);
        match &state.track.order {
            Some(order) => {
                for name in order.iter().filter(|n| vars.contains(n) && listed(n)) {
                    report(&mut out, name);
                }
            }
            None => {
                for name in tracked
                    .split(',')
                    .filter_map(|n| crate::vars::definition(n))
                {
                    if vars.contains(&name.name) {
                        report(&mut out, name.name);
                    }
                }
            }
        }
    }
    let on = |name: &str| state.var(ctx, name) == Some(crate::types::Value::str("ON"));
    if state.track.schema && on("session_track_schema") {
        out.schema(state.db.as_deref().unwrap_or("").as_bytes());
    }
    if on("session_track_state_change") {
        out.state_change();
    }
    state.track.vars = vars;
    state.track.clear();
    (!out.is_empty()).then_some(out)
}

/// `session_track_system_variables = value`: `*`, or a list of existing variables (1193
/// for another name), kept lower-case, sorted and without duplicates.
pub fn normalise_tracked_list(text: &str) -> crate::error::Result<String> {
    if text.trim() == "*" {
        return Ok("*".to_string());
    }
    let mut names: Vec<&'static str> = Vec::new();
    for raw in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let Some(def) = crate::vars::definition(raw) else {
            return Err(crate::error::Error::new(
                cohort_protocol::ErrorCode::UnknownSystemVariable,
                format!("Unknown system variable '{raw}'"),
            ));
        };
        names.push(def.name);
    }
    names.sort_unstable();
    names.dedup();
    Ok(names.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracked_lists_are_normalised_as_mariadb_shows_them() {
        assert_eq!(
            normalise_tracked_list("Time_Zone, autocommit,autocommit").unwrap(),
            "autocommit,time_zone"
        );
        assert_eq!(normalise_tracked_list("").unwrap(), "");
        assert_eq!(normalise_tracked_list(" * ").unwrap(), "*");
        let e = normalise_tracked_list("foo,autocommit").unwrap_err();
        assert_eq!(e.message(), "Unknown system variable 'foo'");
        assert!(normalise_tracked_list("*,autocommit").is_err());
    }

    #[test]
    fn a_disabled_tracker_records_nothing() {
        let mut t = Tracker::new(false);
        t.var_changed("autocommit");
        t.schema_changed();
        t.state_changed();
        assert!(!t.dirty && t.vars.is_empty() && !t.schema);
        let mut t = Tracker::new(true);
        t.var_changed("AUTOCOMMIT");
        t.var_changed("autocommit");
        t.var_changed("no_such_variable");
        assert!(t.dirty);
        assert_eq!(t.vars, ["autocommit"]);
        t.set_order(Some("time_zone, autocommit,time_zone"));
        assert_eq!(t.order.as_deref(), Some(&["time_zone", "autocommit"][..]));
        t.clear();
        assert!(!t.dirty && t.vars.is_empty());
    }
}
