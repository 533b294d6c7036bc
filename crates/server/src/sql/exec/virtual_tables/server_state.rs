//! information_schema's server state: ENGINES, CHARACTER_SETS, COLLATIONS,
//! COLLATION_CHARACTER_SET_APPLICABILITY,
//! GLOBAL_/SESSION_VARIABLES, GLOBAL_/SESSION_STATUS — the rows of the matching SHOW
//! statements, in information_schema's column order (variable names upper-case, as MariaDB).

use super::text;
use crate::accounts::{Grant, Privs};
use crate::error::Result;
use crate::sql::env::Env;
use crate::sql::exec::show;
use crate::sql::QueryResult;
use crate::types::Value;

pub(super) fn engines(_: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    match show::engines() {
        QueryResult::Rows { rows, .. } => Ok(rows),
        QueryResult::Ok { .. } => Ok(Vec::new()),
    }
}

pub(super) fn character_sets(_: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    // SHOW CHARACTER SET: Charset, Description, Default collation, Maxlen.
    Ok(show::charsets()
        .rows
        .into_iter()
        .map(|r| {
            let mut r = r.into_iter();
            let (cs, desc, coll, max) = (r.next(), r.next(), r.next(), r.next());
            let max = match max {
                Some(Value::Int(n)) => Value::Int(n),
                _ => Value::Null,
            };
            vec![
                cs.unwrap_or(Value::Null),
                coll.unwrap_or(Value::Null),
                desc.unwrap_or(Value::Null),
                max,
            ]
        })
        .collect())
}

pub(super) fn collations(_: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    // SHOW COLLATION already has information_schema's order.
    Ok(show::collations().rows)
}

/// COLLATION_CHARACTER_SET_APPLICABILITY: each collation with its character set (Doctrine DBAL's
/// table options join it to TABLES.TABLE_COLLATION), from SHOW COLLATION's list.
pub(super) fn collation_applicability(_: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    Ok(show::collations()
        .rows
        .into_iter()
        .map(|r| {
            let mut it = r.into_iter();
            let (name, charset, id, default) = (it.next(), it.next(), it.next(), it.next());
            let name = name.unwrap_or(Value::Null);
            vec![
                name.clone(),
                charset.unwrap_or(Value::Null),
                name,
                id.unwrap_or(Value::Null),
                default.unwrap_or(Value::Null),
            ]
        })
        .collect())
}

fn upper_names(rows: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
    rows.into_iter()
        .map(|mut r| {
            if let Some(Value::Bytes(b)) = r.first_mut() {
                b.make_ascii_uppercase();
            }
            r
        })
        .collect()
}

pub(super) fn global_variables(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    Ok(upper_names(show::variables_rows(env, true).rows))
}

pub(super) fn session_variables(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    Ok(upper_names(show::variables_rows(env, false).rows))
}

pub(super) fn status(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    Ok(upper_names(show::status_rows(env).rows))
}

/// Objects Cohort does not have (ROUTINES, TRIGGERS, EVENTS, PARTITIONS, FILES, PARAMETERS):
/// the tables exist and are empty.
pub(super) fn none(_: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    Ok(Vec::new())
}

/// USER_PRIVILEGES, SCHEMA_PRIVILEGES, TABLE_PRIVILEGES: Cohort grants ALL globally or on a
/// database; a user sees its own grants, an administrator everyone's.
pub(super) fn user_privileges(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for (grantee, g) in grants(env) {
        if let Grant::Global(p) = g {
            for (name, yes) in privilege_rows(p) {
                out.push(vec![text(&grantee), text("def"), text(name), text(yes)]);
            }
        }
    }
    Ok(out)
}

pub(super) fn schema_privileges(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for (grantee, g) in grants(env) {
        if let Grant::Database(db, p) = &g {
            for (name, yes) in privilege_rows(*p) {
                out.push(vec![
                    text(&grantee),
                    text("def"),
                    text(db),
                    text(name),
                    text(yes),
                ]);
            }
        }
    }
    Ok(out)
}

pub(super) fn table_privileges(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for (grantee, g) in grants(env) {
        if let Grant::Table(db, t, p) = &g {
            for (name, yes) in privilege_rows(*p) {
                out.push(vec![
                    text(&grantee),
                    text("def"),
                    text(db),
                    text(t),
                    text(name),
                    text(yes),
                ]);
            }
        }
    }
    Ok(out)
}

/// A grant's rows: each privilege (USAGE when none) with IS_GRANTABLE.
fn privilege_rows(p: Privs) -> Vec<(&'static str, &'static str)> {
    let yes = if p.contains(Privs::GRANT) {
        "YES"
    } else {
        "NO"
    };
    let names: Vec<&'static str> = p.names(false).collect();
    if names.is_empty() {
        return vec![("USAGE", yes)];
    }
    names.into_iter().map(|n| (n, yes)).collect()
}

/// (grantee `'user'@'host'`, grant) visible to the user: its own, or every account's with
/// SELECT on `*.*` (MariaDB: SELECT on the `mysql` database).
fn grants(env: &Env<'_>) -> Vec<(String, Grant)> {
    let admin = env
        .ctx
        .accounts
        .has_global(env.sess.user, env.sess.host, Privs::SELECT);
    env.ctx
        .accounts
        .all_grants()
        .into_iter()
        .filter(|(user, host, _)| admin || (user == env.sess.user && host == env.sess.host))
        .map(|(user, host, g)| (format!("'{user}'@'{host}'"), g))
        .collect()
}
