//! information_schema's server state: ENGINES, CHARACTER_SETS, COLLATIONS,
//! GLOBAL_/SESSION_VARIABLES, GLOBAL_/SESSION_STATUS — the rows of the matching SHOW
//! statements, in information_schema's column order (variable names upper-case, as MariaDB).

use super::text;
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
    Ok(grants(env)
        .into_iter()
        .filter(|(_, db)| db.is_none())
        .flat_map(|(grantee, _)| {
            PRIVILEGES
                .iter()
                .map(move |p| vec![text(&grantee), text("def"), text(p), text("YES")])
        })
        .collect())
}

pub(super) fn schema_privileges(env: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    Ok(grants(env)
        .into_iter()
        .filter_map(|(grantee, db)| db.map(|d| (grantee, d)))
        .flat_map(|(grantee, db)| {
            SCHEMA_PRIVILEGES
                .iter()
                .map(move |p| vec![text(&grantee), text("def"), text(&db), text(p), text("NO")])
        })
        .collect())
}

pub(super) fn table_privileges(_: &Env<'_>) -> Result<Vec<Vec<Value>>> {
    // No table-level grants exist in Cohort.
    Ok(Vec::new())
}

/// What ALL PRIVILEGES ON *.* stands for in MariaDB 10.11's USER_PRIVILEGES.
const PRIVILEGES: &[&str] = &[
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "RELOAD",
    "SHUTDOWN",
    "PROCESS",
    "FILE",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "SHOW DATABASES",
    "SUPER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "REPLICATION SLAVE",
    "BINLOG MONITOR",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "CREATE USER",
    "EVENT",
    "TRIGGER",
    "CREATE TABLESPACE",
    "DELETE HISTORY",
    "SET USER",
    "FEDERATED ADMIN",
    "CONNECTION ADMIN",
    "READ_ONLY ADMIN",
    "REPLICATION SLAVE ADMIN",
    "REPLICATION MASTER ADMIN",
    "BINLOG ADMIN",
    "BINLOG REPLAY",
    "SLAVE MONITOR",
];

/// What ALL PRIVILEGES ON db.* stands for in SCHEMA_PRIVILEGES.
const SCHEMA_PRIVILEGES: &[&str] = &[
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "EVENT",
    "TRIGGER",
    "DELETE HISTORY",
];

/// (grantee `'user'@'host'`, None for a global grant or Some(db)) visible to the user.
fn grants(env: &Env<'_>) -> Vec<(String, Option<String>)> {
    let admin = env.ctx.accounts.is_admin(env.sess.user, env.sess.host);
    env.ctx
        .accounts
        .all_grants()
        .into_iter()
        .filter(|(user, host, _)| admin || (user == env.sess.user && host == env.sess.host))
        .map(|(user, host, db)| (format!("'{user}'@'{host}'"), db))
        .collect()
}
