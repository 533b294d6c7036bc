//! SHOW statements and DESCRIBE: result sets built from the catalog, the variables, the status
//! counters and the session.

use crate::accounts::Privs;
use crate::error::{Error, Result};
use crate::session::state::Warning;
use crate::sql::bind::coldef::{
    int_column, nullable_int_column, nullable_text_column, text_column,
};
use crate::sql::bind::sqltype::SqlType;
use crate::sql::bind::{ScopeColumn, TableScope};
use crate::sql::env::Env;
use crate::sql::exec::virtual_tables;
use crate::sql::expr::{like_match, RowCtx};
use crate::sql::parse::{Show, ShowFilter, UserHost};
use crate::sql::plan::{check_db_access, database_exists, is_system_schema};
use crate::sql::QueryResult;
use crate::storage::{ColumnDefault, IndexDef, Table, TableDef};
use crate::types::{Collation, DataType, Value};
use cohort_protocol::column::ColumnDefinition;
use cohort_protocol::ErrorCode;

/// The rows of a SHOW statement before its filter.
pub(crate) struct Listing {
    columns: Vec<ColumnDefinition>,
    pub(crate) rows: Vec<Vec<Value>>,
}

impl Listing {
    fn into_result(self) -> QueryResult {
        QueryResult::Rows {
            columns: self.columns,
            rows: self.rows,
        }
    }
}

fn s(x: &str) -> Value {
    Value::str(x)
}

fn opt(x: Option<String>) -> Value {
    x.map_or(Value::Null, |v| Value::str(&v))
}

/// Apply `LIKE 'pattern'` (to column `like_col`, case-insensitive) or `WHERE expr`.
fn filter(env: &Env<'_>, listing: &mut Listing, f: &ShowFilter, like_col: usize) -> Result<()> {
    match f {
        ShowFilter::None => Ok(()),
        ShowFilter::Like(p) => {
            listing.rows.retain(|r| match &r[like_col] {
                Value::Bytes(b) => {
                    like_match(b, p.as_bytes(), Some('\\'), Collation::Utf8mb4GeneralCi)
                }
                _ => false,
            });
            Ok(())
        }
        ShowFilter::Where(e) => {
            let scope = TableScope {
                db: String::new(),
                table: String::new(),
                alias: None,
                columns: listing
                    .columns
                    .iter()
                    .map(|c| ScopeColumn {
                        name: c.name.clone(),
                        ty: SqlType::varchar(256),
                        utc: false,
                    })
                    .collect(),
            };
            let mut b = crate::sql::bind::Binder::new(env, &[], Some(&scope));
            b.clause = "where clause";
            let (x, _) = b.bind(e)?;
            let mut keep = Vec::with_capacity(listing.rows.len());
            for r in listing.rows.drain(..) {
                if x.is_true(&RowCtx::of(&r), env)? {
                    keep.push(r);
                }
            }
            listing.rows = keep;
            Ok(())
        }
    }
}

pub fn show(env: &Env<'_>, warnings: &[Warning], stmt: &Show) -> Result<QueryResult> {
    match stmt {
        Show::Databases(f) => {
            let mut l = databases(env, f);
            filter(env, &mut l, f, 0)?;
            Ok(l.into_result())
        }
        Show::Tables {
            full,
            db,
            filter: f,
        } => {
            let mut l = tables(env, db.as_deref(), *full, f)?;
            filter(env, &mut l, f, 0)?;
            Ok(l.into_result())
        }
        Show::Columns {
            full,
            db,
            table,
            filter: f,
        } => {
            let mut l = columns(env, db.as_deref(), table, *full)?;
            filter(env, &mut l, f, 0)?;
            Ok(l.into_result())
        }
        Show::BinaryLogs => crate::sql::exec::binlog_admin::binary_logs(env),
        Show::MasterStatus => crate::sql::exec::binlog_admin::master_status(env),
        Show::SlaveHosts => crate::sql::exec::binlog_admin::slave_hosts(env),
        Show::BinlogEvents {
            file,
            from,
            offset,
            limit,
        } => crate::sql::exec::binlog_admin::binlog_events(
            env,
            file.as_deref(),
            *from,
            *offset,
            *limit,
        ),
        Show::Index { db, table } => Ok(index(env, db.as_deref(), table)?.into_result()),
        Show::CreateView { db, table } => show_create_view(env, db.as_deref(), table, true),
        Show::CreateTable { db, table }
            if show_create_view(env, db.as_deref(), table, false).is_ok() =>
        {
            show_create_view(env, db.as_deref(), table, false)
        }
        Show::CreateTable { db, table } => {
            if let Some(d) = db.as_deref().or(env.sess.db) {
                crate::sql::plan::check_any_table_priv(env, d, table, "SHOW")?;
            }
            let (def, t) = def_of(env, db.as_deref(), table)?;
            let next_auto_increment = t.as_ref().map_or(1, |t| t.auto_increment_peek());
            let own_db = t.as_ref().map(|t| t.db().to_string()).unwrap_or_default();
            let shown = zoned_defaults(&def, env);
            let def = shown.as_ref().unwrap_or(&def);
            let opts = ShowOptions::of(env.sql_mode());
            let mut ddl = create_table_text_in(def, next_auto_increment, &own_db, opts);
            if t.as_ref().is_some_and(|t| t.is_temporary()) {
                ddl = ddl.replacen("CREATE TABLE", "CREATE TEMPORARY TABLE", 1);
            }
            let quote = env.sess.session_vars.get("sql_quote_show_create").cloned();
            let quote = quote.or_else(|| env.ctx.vars.global("sql_quote_show_create"));
            if matches!(quote, Some(Value::Bytes(b)) if b == b"OFF") {
                ddl = unquote_identifiers(&ddl);
            }
            Ok(QueryResult::Rows {
                columns: vec![text_column("Table", 64), text_column("Create Table", 1024)],
                rows: vec![vec![s(&def.name), s(&ddl)]],
            })
        }
        Show::CreateDatabase(name, if_not_exists) => {
            if !database_exists(env.ctx, name) {
                return Err(Error::bad_db(name));
            }
            check_db_access(env, name)?;
            Ok(QueryResult::Rows {
                columns: vec![
                    text_column("Database", 64),
                    text_column("Create Database", 1024),
                ],
                rows: vec![vec![
                    s(name),
                    s(&{
                        let coll = env.ctx.engine.database_collation(name);
                        let text = format!(
                            "CREATE DATABASE {}`{name}` /*!40100 DEFAULT CHARACTER SET {} COLLATE {} */",
                            if *if_not_exists { "/*!32312 IF NOT EXISTS*/ " } else { "" },
                            coll.charset().name(),
                            coll.name()
                        );
                        match ShowOptions::of(env.sql_mode()).ansi_quotes {
                            true => double_quoted(&text),
                            false => text,
                        }
                    }),
                ]],
            })
        }
        Show::Variables { global, filter: f } => {
            let mut l = variables_rows(env, *global);
            filter(env, &mut l, f, 0)?;
            Ok(l.into_result())
        }
        Show::Status(f) => {
            let mut l = status_rows(env);
            filter(env, &mut l, f, 0)?;
            Ok(l.into_result())
        }
        Show::Warnings { errors_only, count } => Ok(show_warnings(warnings, *errors_only, *count)),
        Show::Engines => Ok(engines()),
        Show::ProcessList { full } => Ok(processlist(env, *full)),
        Show::Grants(user) => grants(env, user.as_ref()),
        Show::CreateUser(user) => create_user(env, user.as_ref()),
        Show::TableStatus { db, filter: f } => {
            let mut l = table_status(env, db.as_deref())?;
            filter(env, &mut l, f, 0)?;
            Ok(l.into_result())
        }
        Show::Collation(f) => {
            let mut l = collations();
            filter(env, &mut l, f, 0)?;
            Ok(l.into_result())
        }
        Show::Charset(f) => {
            let mut l = charsets();
            filter(env, &mut l, f, 0)?;
            Ok(l.into_result())
        }
    }
}

fn like_suffix(f: &ShowFilter) -> String {
    match f {
        ShowFilter::Like(p) => format!(" ({p})"),
        _ => String::new(),
    }
}

fn databases(env: &Env<'_>, f: &ShowFilter) -> Listing {
    // SHOW DATABASES on *.* lists them all; otherwise those the user holds something in.
    let e = env.ctx.accounts.effective(env.sess.user, env.sess.host);
    let all = e.global.contains(Privs::SHOW_DB);
    let mut names: Vec<String> = env
        .ctx
        .engine
        .databases()
        .into_iter()
        .filter(|d| all || e.any_in_db(d))
        .collect();
    names.push("information_schema".into());
    if all {
        names.push("mysql".into());
        names.push("performance_schema".into());
    }
    names.sort();
    Listing {
        columns: vec![text_column(&format!("Database{}", like_suffix(f)), 64)],
        rows: names.into_iter().map(|n| vec![s(&n)]).collect(),
    }
}

/// The database a SHOW refers to: the given one or the session's (1046 / 1049 / 1044).
fn target_db(env: &Env<'_>, db: Option<&str>) -> Result<String> {
    let db = match db {
        Some(d) => d.to_string(),
        None => env.sess.db.ok_or_else(Error::no_db)?.to_string(),
    };
    if !database_exists(env.ctx, &db) {
        return Err(Error::bad_db(&db));
    }
    check_db_access(env, &db)?;
    Ok(db)
}

fn tables(env: &Env<'_>, db: Option<&str>, full: bool, f: &ShowFilter) -> Result<Listing> {
    let db = target_db(env, db)?;
    let mut names: Vec<(String, &str)> = if is_system_schema(&db) {
        let kind = match db.eq_ignore_ascii_case("information_schema") {
            true => "SYSTEM VIEW",
            false => "BASE TABLE",
        };
        virtual_tables::names(&db)
            .into_iter()
            .map(|n| (n, kind))
            .collect()
    } else {
        let t = env.ctx.engine.tables(&db)?.into_iter();
        t.map(|n| (n, "BASE TABLE")).collect()
    };
    let views = env.ctx.engine.views_in(&db);
    names.extend(views.iter().map(|v| (v.name.clone(), "VIEW")));
    if !is_system_schema(&db) {
        // Only the tables the user holds a privilege on.
        let e = env.ctx.accounts.effective(env.sess.user, env.sess.host);
        names.retain(|(n, _)| e.any_on_table(&db, n));
    }
    names.sort();
    let mut columns = vec![text_column(
        &format!("Tables_in_{db}{}", like_suffix(f)),
        64,
    )];
    if full {
        columns.push(text_column("Table_type", 64));
    }
    let rows = names
        .into_iter()
        .map(|(n, kind)| {
            let mut r = vec![s(&n)];
            if full {
                r.push(s(kind));
            }
            r
        })
        .collect();
    Ok(Listing { columns, rows })
}

fn table_of(
    env: &Env<'_>,
    db: Option<&str>,
    table: &str,
) -> Result<(String, std::sync::Arc<Table>)> {
    let db = match db {
        Some(d) => d.to_string(),
        None => env.sess.db.ok_or_else(Error::no_db)?.to_string(),
    };
    crate::sql::plan::check_any_table_priv(env, &db, table, "SELECT")?;
    if is_system_schema(&db) {
        return Err(Error::no_such_table(&db, table));
    }
    // The session's TEMPORARY table first: it shadows a base table of the same name.
    let t = match env.sess.temp_table(&db, table) {
        Some(t) => t.clone(),
        None => env.ctx.engine.table(&db, table)?,
    };
    Ok((db, t))
}

/// The definition of a catalog table (with the table) or of a system schema's virtual table.
/// SHOW COLUMNS / DESCRIBE of a view (None: not a view).
fn view_columns(
    env: &Env<'_>,
    db: Option<&str>,
    name: &str,
    full: bool,
) -> Result<Option<Listing>> {
    let Some(db) = db.or(env.sess.db) else {
        return Ok(None);
    };
    let Some(v) = env.ctx.engine.view(db, name) else {
        return Ok(None);
    };
    crate::sql::plan::check_any_table_priv(env, db, name, "SELECT")?;
    let columns = columns_header(full);
    let rows = crate::sql::exec::ddl::view::columns(env, db, &v)?
        .into_iter()
        .map(|(name, ty, nullable)| {
            let text = ty.starts_with("varchar") || ty.starts_with("char") || ty.ends_with("text");
            let mut r = vec![s(&name), s(&ty)];
            if full {
                r.push(if text {
                    s("utf8mb4_general_ci")
                } else {
                    Value::Null
                });
            }
            r.extend([
                s(if nullable { "YES" } else { "NO" }),
                s(""),
                Value::Null,
                s(""),
            ]);
            if full {
                r.push(s("select,insert,update,references"));
                r.push(s(""));
            }
            r
        })
        .collect();
    Ok(Some(Listing { columns, rows }))
}

/// SHOW CREATE VIEW (and SHOW CREATE TABLE of a view): MariaDB's four columns.
fn show_create_view(
    env: &Env<'_>,
    db: Option<&str>,
    name: &str,
    explain_failure: bool,
) -> Result<QueryResult> {
    use crate::sql::exec::ddl::view;
    let db = match db {
        Some(d) => d,
        None => env.sess.db.ok_or_else(Error::no_db)?,
    };
    let Some(v) = view::show_create(env, db, name)? else {
        return Err(match explain_failure {
            true => view::not_a_view(env, db, name),
            false => Error::internal("not a view"),
        });
    };
    Ok(QueryResult::Rows {
        columns: vec![
            text_column("View", 64),
            text_column("Create View", 1024),
            text_column("character_set_client", 32),
            text_column("collation_connection", 64),
        ],
        rows: vec![vec![
            s(&v.name),
            s(&super::show_mode::view_text(
                view::create_text(&v),
                ShowOptions::of(env.sql_mode()),
            )),
            s("utf8mb4"),
            s("utf8mb4_general_ci"),
        ]],
    })
}

fn def_of(
    env: &Env<'_>,
    db: Option<&str>,
    table: &str,
) -> Result<(std::sync::Arc<TableDef>, Option<std::sync::Arc<Table>>)> {
    let db = match db {
        Some(d) => d,
        None => env.sess.db.ok_or_else(Error::no_db)?,
    };
    if is_system_schema(db) {
        check_db_access(env, db)?;
        let def =
            virtual_tables::definition(db, table).ok_or_else(|| Error::no_such_table(db, table))?;
        return Ok((def, None));
    }
    let (_, t) = table_of(env, Some(db), table)?;
    Ok((t.def(), Some(t)))
}

/// The type as SHOW COLUMNS / SHOW CREATE TABLE print it.
pub fn type_text(dt: &DataType) -> String {
    // `int(5) unsigned zerofill`: the display width as declared, else the type's default.
    let int = |name: &str| {
        let width = dt.int_width().unwrap_or(0);
        let unsigned = if dt.is_unsigned() { " unsigned" } else { "" };
        let zerofill = if dt.is_zerofill() { " zerofill" } else { "" };
        format!("{name}({width}){unsigned}{zerofill}")
    };
    match dt {
        DataType::TinyInt { .. } => int("tinyint"),
        DataType::SmallInt { .. } => int("smallint"),
        DataType::MediumInt { .. } => int("mediumint"),
        DataType::Int { .. } => int("int"),
        DataType::BigInt { .. } => int("bigint"),
        DataType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
        DataType::Float { unsigned, m_d } | DataType::Double { unsigned, m_d } => {
            let name = match dt {
                DataType::Float { .. } => "float",
                _ => "double",
            };
            let size = m_d.map_or(String::new(), |(m, d)| format!("({m},{d})"));
            format!("{name}{size}{}", if *unsigned { " unsigned" } else { "" })
        }
        DataType::Char { len, .. } => format!("char({len})"),
        DataType::VarChar { len, .. } => format!("varchar({len})"),
        DataType::Text { max_bytes, .. } => match max_bytes {
            0..=255 => "tinytext",
            256..=65_535 => "text",
            65_536..=16_777_215 => "mediumtext",
            _ => "longtext",
        }
        .into(),
        DataType::Binary { len } => format!("binary({len})"),
        DataType::VarBinary { len } => format!("varbinary({len})"),
        DataType::Blob { max_bytes } => match max_bytes {
            0..=255 => "tinyblob",
            256..=65_535 => "blob",
            65_536..=16_777_215 => "mediumblob",
            _ => "longblob",
        }
        .into(),
        DataType::Date => "date".into(),
        DataType::DateTime { fsp } => with_fsp("datetime", *fsp),
        DataType::Timestamp { fsp } => with_fsp("timestamp", *fsp),
        DataType::Year => "year(4)".into(),
        DataType::Enum { .. } | DataType::Set { .. } => crate::types::enumset::type_text(dt),
        DataType::Time { fsp } => with_fsp("time", *fsp),
        DataType::Bit { width } => format!("bit({width})"),
    }
}

/// The default of a TIME column (`01:02:03.000`, at the column's precision) or of a BIT
/// column (`b'101'`, as MariaDB writes it in DESCRIBE and SHOW CREATE TABLE).
fn typed_default(dt: &DataType, v: &Value) -> Option<String> {
    match (dt, v) {
        (DataType::Time { fsp }, Value::Time(t)) => {
            Some(crate::sql::time_value::format(*t, Some(*fsp)))
        }
        (DataType::Bit { .. }, Value::UInt(n)) => Some(format!("b'{n:b}'")),
        // FLOAT(M,D) / DOUBLE(M,D): exactly D decimals (`DEFAULT 1.50`).
        (
            DataType::Float {
                m_d: Some((_, d)), ..
            }
            | DataType::Double {
                m_d: Some((_, d)), ..
            },
            Value::Double(f),
        ) => Some(crate::sql::format_double_fixed(*f, *d)),
        // A ZEROFILL integer: padded to its width (`DEFAULT 007`).
        (_, Value::Int(_) | Value::UInt(_)) if dt.is_zerofill() => {
            let width = usize::from(dt.int_width().unwrap_or(0));
            Some(format!(
                "{:0>width$}",
                crate::sql::expr::convert::to_string(v)
            ))
        }
        // DATETIME(fsp) / TIMESTAMP(fsp): the type's digits of the fraction.
        (DataType::DateTime { fsp } | DataType::Timestamp { fsp }, Value::DateTime(d)) => {
            Some(crate::sql::expr::datetime_text::with_fsp(d, *fsp))
        }
        _ => None,
    }
}

fn with_fsp(name: &str, fsp: u8) -> String {
    if fsp > 0 {
        format!("{name}({fsp})")
    } else {
        name.to_string()
    }
}

pub(crate) fn collation_name(c: Collation) -> &'static str {
    c.name()
}

fn is_numeric(t: &DataType) -> bool {
    t.is_integer()
        || matches!(
            t,
            DataType::Decimal { .. } | DataType::Float { .. } | DataType::Double { .. }
        )
}

/// SHOW COLUMNS' Default: MariaDB keeps a BLOB / TEXT column's literal default as an
/// expression, so it shows it quoted (`'hello'`), where a VARCHAR's shows bare.
fn columns_default_text(col: &crate::storage::ColumnDef) -> Option<String> {
    match &col.default {
        ColumnDefault::Value(v @ Value::Bytes(_))
            if matches!(col.data_type, DataType::Text { .. } | DataType::Blob { .. }) =>
        {
            Some(quote_value(&crate::sql::expr::convert::to_string(v)))
        }
        _ => default_text(col),
    }
}

pub(crate) fn default_text(col: &crate::storage::ColumnDef) -> Option<String> {
    match &col.default {
        ColumnDefault::None => None,
        ColumnDefault::Value(Value::Null) => None,
        ColumnDefault::Value(v) if col.data_type == DataType::Year => {
            Some(crate::sql::expr::convert::year_text(v))
        }
        ColumnDefault::Value(v) if typed_default(&col.data_type, v).is_some() => {
            typed_default(&col.data_type, v)
        }
        ColumnDefault::Value(v) => Some(crate::sql::expr::convert::to_string(v)),
        ColumnDefault::CurrentTimestamp => Some(current_timestamp_text(col)),
        ColumnDefault::Expr(e) => Some(e.clone()),
    }
}

/// `current_timestamp()` / `current_timestamp(N)`, as MariaDB writes a DEFAULT or ON UPDATE of
/// a DATETIME / TIMESTAMP column (SHOW CREATE TABLE, SHOW COLUMNS, information_schema).
pub(crate) fn current_timestamp_text(col: &crate::storage::ColumnDef) -> String {
    match &col.data_type {
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } if *fsp > 0 => {
            format!("current_timestamp({fsp})")
        }
        _ => "current_timestamp()".into(),
    }
}

pub(crate) fn key_text(def: &TableDef, i: usize) -> &'static str {
    if def
        .primary_key
        .as_ref()
        .is_some_and(|pk| pk.parts.iter().any(|p| p.column == i))
    {
        return "PRI";
    }
    for idx in &def.indexes {
        if idx.parts.first().is_some_and(|p| p.column == i) {
            return if idx.unique && idx.parts.len() == 1 {
                "UNI"
            } else {
                "MUL"
            };
        }
    }
    ""
}

pub(crate) fn extra_text(col: &crate::storage::ColumnDef) -> String {
    if let Some(g) = &col.generated {
        return if g.stored {
            "STORED GENERATED"
        } else {
            "VIRTUAL GENERATED"
        }
        .to_string();
    }
    let mut parts = Vec::new();
    if col.auto_increment {
        parts.push("auto_increment".to_string());
    }
    if col.on_update_current_timestamp {
        parts.push(format!("on update {}", current_timestamp_text(col)));
    }
    parts.join(" ")
}

/// SHOW [FULL] COLUMNS' result columns.
fn columns_header(full: bool) -> Vec<ColumnDefinition> {
    let mut columns = vec![text_column("Field", 64), text_column("Type", 64)];
    if full {
        columns.push(nullable_text_column("Collation", 64));
    }
    columns.extend([
        text_column("Null", 3),
        text_column("Key", 3),
        nullable_text_column("Default", 64),
        text_column("Extra", 64),
    ]);
    if full {
        columns.push(text_column("Privileges", 80));
        columns.push(text_column("Comment", 1024));
    }
    columns
}

/// `def` with its TIMESTAMP columns' literal defaults (kept in UTC) in the session's time
/// zone, as SHOW shows them; None when there is nothing to convert.
fn zoned_defaults(def: &TableDef, env: &Env<'_>) -> Option<TableDef> {
    let z = env.zone()?;
    let mut out = def.clone();
    let mut changed = false;
    for c in &mut out.columns {
        if let (DataType::Timestamp { .. }, ColumnDefault::Value(Value::DateTime(dt))) =
            (&c.data_type, &mut c.default)
        {
            if *dt != crate::types::DateTime::default() {
                *dt = z.to_local(dt);
                changed = true;
            }
        }
    }
    changed.then_some(out)
}

fn columns(env: &Env<'_>, db: Option<&str>, table: &str, full: bool) -> Result<Listing> {
    if let Some(listing) = view_columns(env, db, table, full)? {
        return Ok(listing);
    }
    let (def, _) = def_of(env, db, table)?;
    let shown = zoned_defaults(&def, env);
    let def = shown.as_ref().unwrap_or(&def);
    let columns = columns_header(full);
    let rows = def
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut r = vec![s(&c.name), s(&type_text(&c.data_type))];
            if full {
                r.push(if c.data_type.is_text() || c.data_type.is_enum_or_set() {
                    s(collation_name(c.data_type.collation()))
                } else {
                    Value::Null
                });
            }
            r.push(s(if c.nullable { "YES" } else { "NO" }));
            r.push(s(key_text(def, i)));
            r.push(opt(columns_default_text(c)));
            r.push(s(&extra_text(c)));
            if full {
                r.push(s("select,insert,update,references"));
                r.push(s(c.comment.as_deref().unwrap_or("")));
            }
            r
        })
        .collect();
    Ok(Listing { columns, rows })
}

fn index(env: &Env<'_>, db: Option<&str>, table: &str) -> Result<Listing> {
    let columns = vec![
        text_column("Table", 64),
        int_column("Non_unique"),
        text_column("Key_name", 64),
        int_column("Seq_in_index"),
        text_column("Column_name", 64),
        nullable_text_column("Collation", 1),
        nullable_int_column("Cardinality"),
        nullable_int_column("Sub_part"),
        nullable_text_column("Packed", 10),
        text_column("Null", 3),
        text_column("Index_type", 16),
        text_column("Comment", 16),
        text_column("Index_comment", 1024),
        text_column("Ignored", 3),
    ];
    // A view has no keys (mariadb-dump asks).
    if let Some(vdb) = db.or(env.sess.db) {
        if !is_system_schema(vdb) && env.ctx.engine.view(vdb, table).is_some() {
            crate::sql::plan::check_any_table_priv(env, vdb, table, "SELECT")?;
            return Ok(Listing {
                columns,
                rows: Vec::new(),
            });
        }
    }
    let (_, t) = table_of(env, db, table)?;
    let def = t.def();
    let mut rows = Vec::new();
    let stats = t.stats();
    let all: Vec<(Option<usize>, &IndexDef)> = def
        .primary_key
        .iter()
        .map(|p| (None, p))
        .chain(def.indexes.iter().enumerate().map(|(i, x)| (Some(i), x)))
        .collect();
    for (which, idx) in all {
        for (seq, p) in idx.parts.iter().enumerate() {
            let col = &def.columns[p.column];
            rows.push(vec![
                s(&def.name),
                Value::Int(!idx.unique as i64),
                s(&idx.name),
                Value::Int(seq as i64 + 1),
                s(&col.name),
                s("A"),
                Value::Int(stats.cardinality(which, seq + 1) as i64),
                p.prefix_len.map_or(Value::Null, |l| Value::Int(l as i64)),
                Value::Null,
                s(if col.nullable { "YES" } else { "" }),
                s("BTREE"),
                s(""),
                s(""),
                s("NO"),
            ]);
        }
    }
    Ok(Listing { columns, rows })
}

use super::show_mode::{double_quoted, ShowOptions};

fn quote_value(v: &str) -> String {
    format!("'{}'", v.replace('\\', "\\\\").replace('\'', "''"))
}

fn key_columns(def: &TableDef, idx: &IndexDef) -> String {
    idx.parts
        .iter()
        .map(|p| match p.prefix_len {
            Some(l) => format!("`{}`({l})", def.columns[p.column].name),
            None => format!("`{}`", def.columns[p.column].name),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `SHOW CREATE TABLE` text, MySQL-formatted.
/// `db`: the table's database (a FOREIGN KEY's parent elsewhere is qualified).
pub fn create_table_text(def: &TableDef, next_auto_increment: u64, db: &str) -> String {
    create_table_text_in(def, next_auto_increment, db, ShowOptions::default())
}

/// [`create_table_text`] as `sql_mode` asks (`exec/show_mode.rs`).
pub fn create_table_text_in(
    def: &TableDef,
    next_auto_increment: u64,
    db: &str,
    opts: ShowOptions,
) -> String {
    let mut lines = Vec::new();
    for c in &def.columns {
        let mut l = format!("  `{}` {}", c.name, type_text(&c.data_type));
        if c.data_type.is_text() || c.data_type.is_enum_or_set() {
            // MariaDB 10.11 names the character set with the collation.
            // Shown when it is not the table's default.
            match c.data_type.collation() {
                same if same == def.default_collation => {}
                Collation::Binary => l.push_str(" CHARACTER SET binary"),
                other => l.push_str(&format!(
                    " CHARACTER SET {} COLLATE {}",
                    other.charset().name(),
                    other.name()
                )),
            }
        }
        if let Some(g) = &c.generated {
            // MariaDB: no NULL / DEFAULT; the kind, then COMMENT and CHECK.
            l.push_str(&format!(
                " GENERATED ALWAYS AS ({}) {}",
                g.expr,
                if g.stored { "STORED" } else { "VIRTUAL" }
            ));
            if let Some(cm) = &c.comment {
                l.push_str(&format!(" COMMENT {}", quote_value(cm)));
            }
            if let Some(ck) = crate::sql::exec::check::column_sql(def, &c.name) {
                l.push_str(&ck);
            }
            lines.push(l);
            continue;
        }
        if !c.nullable {
            l.push_str(" NOT NULL");
        } else if matches!(c.data_type, DataType::Timestamp { .. }) {
            l.push_str(" NULL");
        }
        match &c.default {
            ColumnDefault::None => {}
            ColumnDefault::Value(Value::Null) => l.push_str(" DEFAULT NULL"),
            ColumnDefault::Value(v) if c.data_type == DataType::Year => l.push_str(&format!(
                " DEFAULT {}",
                crate::sql::expr::convert::year_text(v)
            )),
            ColumnDefault::Value(v @ (Value::Time(_) | Value::DateTime(_))) => {
                l.push_str(&format!(
                    " DEFAULT '{}'",
                    typed_default(&c.data_type, v).unwrap_or_default()
                ))
            }
            ColumnDefault::Value(v)
                if matches!(c.data_type, DataType::Bit { .. })
                    || c.data_type.float_m_d().is_some()
                    || c.data_type.is_zerofill() =>
            {
                l.push_str(&format!(
                    " DEFAULT {}",
                    typed_default(&c.data_type, v).unwrap_or_default()
                ))
            }
            // Numbers are printed bare, everything else quoted, as MariaDB prints them.
            ColumnDefault::Value(v) if is_numeric(&c.data_type) => l.push_str(&format!(
                " DEFAULT {}",
                crate::sql::expr::convert::to_string(v)
            )),
            ColumnDefault::Value(v) => l.push_str(&format!(
                " DEFAULT {}",
                quote_value(&crate::sql::expr::convert::to_string(v))
            )),
            ColumnDefault::CurrentTimestamp => {
                l.push_str(&format!(" DEFAULT {}", default_text(c).unwrap_or_default()))
            }
            ColumnDefault::Expr(e) => l.push_str(&format!(" DEFAULT {e}")),
        }
        if c.on_update_current_timestamp && !opts.no_field_options {
            l.push_str(&format!(" ON UPDATE {}", current_timestamp_text(c)));
        }
        if c.auto_increment && !opts.no_field_options {
            l.push_str(" AUTO_INCREMENT");
        }
        if let Some(cm) = &c.comment {
            l.push_str(&format!(" COMMENT {}", quote_value(cm)));
        }
        if !def.checks.is_empty() {
            if let Some(ck) = crate::sql::exec::check::column_sql(def, &c.name) {
                l.push_str(&ck);
            }
        }
        lines.push(l);
    }
    if let Some(pk) = &def.primary_key {
        lines.push(format!("  PRIMARY KEY ({})", key_columns(def, pk)));
    }
    for idx in &def.indexes {
        let kind = if idx.unique { "UNIQUE KEY" } else { "KEY" };
        lines.push(format!(
            "  {kind} `{}` ({})",
            idx.name,
            key_columns(def, idx)
        ));
    }
    // InnoDB lists the constraints by name.
    let mut fks: Vec<_> = def.foreign_keys.iter().collect();
    fks.sort_by(|a, b| a.name.cmp(&b.name));
    for fk in fks {
        lines.push(format!(
            "  {}",
            crate::sql::exec::fk::constraint_sql(fk, db, false)
        ));
    }
    lines.extend(crate::sql::exec::check::table_sql(def));
    let mut out = format!("CREATE TABLE `{}` (\n{}\n)", def.name, lines.join(",\n"));
    if opts.ansi_quotes {
        out = double_quoted(&out);
    }
    if opts.no_table_options {
        return out;
    }
    out.push_str(&format!(" ENGINE={}", def.engine));
    if def.auto_increment_column().is_some() && next_auto_increment > 1 {
        out.push_str(&format!(" AUTO_INCREMENT={next_auto_increment}"));
    }
    out.push_str(&format!(
        " DEFAULT CHARSET={} COLLATE={}",
        def.default_collation.charset().name(),
        def.default_collation.name()
    ));
    if let Some(cm) = &def.comment {
        out.push_str(&format!(" COMMENT={}", quote_value(cm)));
    }
    out
}

pub(crate) fn variables_rows(env: &Env<'_>, global: bool) -> Listing {
    let mut rows: Vec<Vec<Value>> = Vec::new();
    for (name, v) in env.ctx.vars.list_global() {
        let session_only = || {
            crate::vars::definition(&name).is_some_and(|d| d.scope == crate::vars::Scope::Session)
        };
        let v = if global {
            // Variables without a global value (`gtid_seq_no`…) are not listed, as MariaDB.
            if session_only() {
                continue;
            }
            v
        } else if name == "autocommit" {
            s(if env.sess.autocommit { "ON" } else { "OFF" })
        } else if name == "pseudo_thread_id" {
            Value::UInt(env.sess.pseudo_thread_id())
        } else {
            env.sess.session_vars.get(&name).cloned().unwrap_or(v)
        };
        rows.push(vec![s(&name), s(&crate::vars::display(&v))]);
    }
    Listing {
        columns: vec![
            text_column("Variable_name", 64),
            nullable_text_column("Value", 2048),
        ],
        rows,
    }
}

pub(crate) fn status_rows(env: &Env<'_>) -> Listing {
    let mut list = env.ctx.status.list();
    // The session's own TLS, under SHOW STATUS and SHOW GLOBAL STATUS alike (as MariaDB).
    let tls = env.sess.tls;
    list.push((
        "Ssl_cipher".into(),
        Value::str(tls.map_or("", |t| t.cipher)),
    ));
    list.push((
        "Ssl_version".into(),
        Value::str(tls.map_or("", |t| t.version)),
    ));
    list.sort_by_key(|(name, _)| name.to_ascii_lowercase());
    let rows = list
        .into_iter()
        .map(|(n, v)| vec![s(&n), s(&crate::vars::display(&v))])
        .collect();
    Listing {
        columns: vec![
            text_column("Variable_name", 64),
            nullable_text_column("Value", 2048),
        ],
        rows,
    }
}

fn show_warnings(warnings: &[Warning], errors_only: bool, count: bool) -> QueryResult {
    let list: Vec<&Warning> = warnings
        .iter()
        .filter(|w| !errors_only || w.level == "Error")
        .collect();
    if count {
        let name = if errors_only {
            "@@session.error_count"
        } else {
            "@@session.warning_count"
        };
        return QueryResult::Rows {
            columns: vec![int_column(name)],
            rows: vec![vec![Value::Int(list.len() as i64)]],
        };
    }
    let mut code = int_column("Code");
    code.column_length = 4;
    QueryResult::Rows {
        columns: vec![text_column("Level", 7), code, text_column("Message", 512)],
        rows: list
            .into_iter()
            .map(|w| vec![s(w.level), Value::Int(w.code as i64), s(&w.message)])
            .collect(),
    }
}

/// `SHOW [FULL] PROCESSLIST`: without FULL, Info is cut to 100 characters (MariaDB).
fn processlist(env: &Env<'_>, full: bool) -> QueryResult {
    let columns = vec![
        int_column("Id"),
        text_column("User", 128),
        text_column("Host", 64),
        nullable_text_column("db", 64),
        text_column("Command", 16),
        int_column("Time"),
        nullable_text_column("State", 30),
        nullable_text_column("Info", 100),
        ColumnDefinition {
            decimals: 3,
            flags: cohort_protocol::column_flags::NOT_NULL,
            ..ColumnDefinition::simple(
                "Progress",
                cohort_protocol::ColumnType::NEWDECIMAL,
                cohort_protocol::charset::BINARY,
                7,
            )
        },
    ];
    let rows = virtual_tables::processlist::visible(env)
        .into_iter()
        .map(|p| {
            let info = p.info.map(|i| match full {
                true => i,
                false => i.chars().take(100).collect(),
            });
            vec![
                Value::Int(i64::from(p.id)),
                s(&p.user),
                s(&p.host),
                opt(p.db),
                s(p.command),
                Value::Int((p.time_ms / 1000) as i64),
                s(p.state),
                opt(info),
                Value::Decimal(cohort_decimal::Decimal::new(0, 3)),
            ]
        })
        .collect();
    QueryResult::Rows { columns, rows }
}

pub(crate) fn engines() -> QueryResult {
    QueryResult::Rows {
        columns: vec![
            text_column("Engine", 64),
            text_column("Support", 8),
            text_column("Comment", 80),
            nullable_text_column("Transactions", 3),
            nullable_text_column("XA", 3),
            nullable_text_column("Savepoints", 3),
        ],
        rows: vec![vec![
            s("InnoDB"),
            s("DEFAULT"),
            s("Cohort in-memory engine: row locks, READ COMMITTED, transactions"),
            s("YES"),
            s("NO"),
            s("NO"),
        ]],
    }
}

fn grants(env: &Env<'_>, user: Option<&UserHost>) -> Result<QueryResult> {
    let (u, h) = match user {
        Some(uh) => (uh.user.as_str(), uh.host.as_str()),
        None => (env.sess.user, env.sess.host),
    };
    let own = u == env.sess.user && h == env.sess.host;
    if !own
        && !env
            .ctx
            .accounts
            .has_global(env.sess.user, env.sess.host, Privs::SELECT)
    {
        return Err(Error::new(
            ErrorCode::DbAccessDenied,
            format!(
                "Access denied for user '{}'@'{}' to database 'mysql'",
                env.sess.user, env.sess.host
            ),
        ));
    }
    let lines = env.ctx.accounts.show_grants(u, h)?;
    Ok(QueryResult::Rows {
        columns: vec![text_column(&format!("Grants for {u}@{h}"), 1024)],
        rows: lines.into_iter().map(|l| vec![s(&l)]).collect(),
    })
}

/// `SHOW CREATE USER`: one's own account, or any with the administrator's rights (1044
/// otherwise, as SHOW GRANTS).
fn create_user(env: &Env<'_>, user: Option<&UserHost>) -> Result<QueryResult> {
    let (u, h) = match user {
        Some(uh) => (uh.user.as_str(), uh.host.as_str()),
        None => (env.sess.user, env.sess.host),
    };
    let own = u == env.sess.user && h == env.sess.host;
    if !own
        && !env
            .ctx
            .accounts
            .has_global(env.sess.user, env.sess.host, Privs::SELECT)
    {
        return Err(Error::new(
            ErrorCode::DbAccessDenied,
            format!(
                "Access denied for user '{}'@'{}' to database 'mysql'",
                env.sess.user, env.sess.host
            ),
        ));
    }
    let line = env.ctx.accounts.show_create_user(u, h)?;
    Ok(QueryResult::Rows {
        columns: vec![text_column(&format!("CREATE USER for {u}@{h}"), 1024)],
        rows: vec![vec![s(&line)]],
    })
}

fn table_status(env: &Env<'_>, db: Option<&str>) -> Result<Listing> {
    let db = target_db(env, db)?;
    let names = if is_system_schema(&db) {
        Vec::new()
    } else {
        env.ctx.engine.tables(&db)?
    };
    let columns = vec![
        text_column("Name", 64),
        nullable_text_column("Engine", 64),
        nullable_int_column("Version"),
        nullable_text_column("Row_format", 10),
        nullable_int_column("Rows"),
        nullable_int_column("Avg_row_length"),
        nullable_int_column("Data_length"),
        nullable_int_column("Max_data_length"),
        nullable_int_column("Index_length"),
        nullable_int_column("Data_free"),
        nullable_int_column("Auto_increment"),
        nullable_text_column("Create_time", 19),
        nullable_text_column("Update_time", 19),
        nullable_text_column("Check_time", 19),
        nullable_text_column("Collation", 64),
        nullable_int_column("Checksum"),
        nullable_text_column("Create_options", 255),
        text_column("Comment", 2048),
        nullable_int_column("Max_index_length"),
        nullable_text_column("Temporary", 1),
    ];
    // Views are listed among the tables, by name, with only their name and Comment 'VIEW'.
    let mut names: Vec<(String, bool)> = names.into_iter().map(|n| (n, false)).collect();
    if !is_system_schema(&db) && env.ctx.engine.has_views() {
        names.extend(
            env.ctx
                .engine
                .views_in(&db)
                .iter()
                .map(|v| (v.name.clone(), true)),
        );
        names.sort();
    }
    let mut rows = Vec::new();
    for (n, is_view) in names {
        if is_view {
            let mut row = vec![Value::Null; columns.len()];
            row[0] = s(&n);
            row[17] = s("VIEW");
            rows.push(row);
            continue;
        }
        let Ok(t) = env.ctx.engine.table(&db, &n) else {
            continue;
        };
        let def = t.def();
        let ai = def
            .auto_increment_column()
            .map_or(Value::Null, |_| Value::Int(t.auto_increment_peek() as i64));
        // Rows: the live count; data length: an estimate from the declared row width (as
        // information_schema.TABLES).
        let count = t.approx_rows();
        let bytes = virtual_tables::schema_objects::data_length(&def, count);
        rows.push(vec![
            s(&n),
            s(&def.engine),
            Value::Int(10),
            s("Dynamic"),
            Value::Int(count as i64),
            Value::Int(bytes.checked_div(count).unwrap_or(0) as i64),
            Value::Int(bytes as i64),
            Value::Int(0),
            Value::Int(0),
            Value::Int(0),
            ai,
            Value::Null,
            Value::Null,
            Value::Null,
            s(def.default_collation.name()),
            Value::Null,
            s(""),
            s(def.comment.as_deref().unwrap_or("")),
            Value::Int(0),
            s("N"),
        ]);
    }
    Ok(Listing { columns, rows })
}

pub(crate) fn collations() -> Listing {
    let list = [
        ("binary", "binary", 63, "Yes"),
        ("latin1_bin", "latin1", 47, ""),
        ("latin1_general_ci", "latin1", 48, ""),
        ("latin1_general_cs", "latin1", 49, ""),
        ("latin1_german1_ci", "latin1", 5, ""),
        ("latin1_swedish_ci", "latin1", 8, "Yes"),
        ("utf8mb3_general_ci", "utf8mb3", 33, "Yes"),
        ("utf8mb4_bin", "utf8mb4", 46, ""),
        ("utf8mb4_general_ci", "utf8mb4", 45, "Yes"),
        ("utf8mb4_unicode_520_ci", "utf8mb4", 246, ""),
        ("utf8mb4_unicode_ci", "utf8mb4", 224, ""),
    ];
    Listing {
        columns: vec![
            text_column("Collation", 64),
            text_column("Charset", 64),
            int_column("Id"),
            text_column("Default", 3),
            text_column("Compiled", 3),
            int_column("Sortlen"),
        ],
        rows: list
            .iter()
            .map(|(c, cs, id, d)| {
                // The UCA collations' Sortlen is 8 in MariaDB; the others' 1.
                let sortlen = if c.contains("unicode") { 8 } else { 1 };
                vec![
                    s(c),
                    s(cs),
                    Value::Int(*id),
                    s(d),
                    s("Yes"),
                    Value::Int(sortlen),
                ]
            })
            .collect(),
    }
}

pub(crate) fn charsets() -> Listing {
    let list = [
        ("binary", "Binary pseudo charset", "binary", 1),
        ("latin1", "cp1252 West European", "latin1_swedish_ci", 1),
        ("utf8mb3", "UTF-8 Unicode", "utf8mb3_general_ci", 3),
        ("utf8mb4", "UTF-8 Unicode", "utf8mb4_general_ci", 4),
    ];
    Listing {
        columns: vec![
            text_column("Charset", 64),
            text_column("Description", 64),
            text_column("Default collation", 64),
            int_column("Maxlen"),
        ],
        rows: list
            .iter()
            .map(|(c, d, dc, m)| vec![s(c), s(d), s(dc), Value::Int(*m)])
            .collect(),
    }
}

/// DESCRIBE t: SHOW COLUMNS FROM t.
pub fn describe(env: &Env<'_>, db: Option<&str>, table: &str) -> Result<QueryResult> {
    Ok(columns(env, db, table, false)?.into_result())
}

/// COM_FIELD_LIST: the column definitions of a table.
/// A virtual table of a system schema answers too (the CLI's auto-rehash asks for each).
pub fn field_list(env: &Env<'_>, table: &str) -> Result<Vec<ColumnDefinition>> {
    let db = env.sess.db.ok_or_else(Error::no_db)?.to_string();
    // A view: its query's columns, named as the view names them (mariadb-show -v counts them).
    if let Some(v) = env.ctx.engine.view(&db, table) {
        crate::sql::plan::check_any_table_priv(env, &db, table, "SELECT")?;
        let plan = crate::sql::exec::ddl::view::plan_view(env, &db, &v)?;
        return Ok(plan
            .columns
            .into_iter()
            .enumerate()
            .map(|(i, mut c)| {
                if let Some(n) = v.columns.get(i) {
                    c.name = n.clone();
                }
                c.org_name = c.name.clone();
                c.schema = db.clone();
                c.table = v.name.clone();
                c.org_table = v.name.clone();
                c
            })
            .collect());
    }
    let (def, _) = def_of(env, Some(&db), table)?;
    Ok((0..def.columns.len())
        .map(|i| {
            crate::sql::bind::coldef::table_column(
                &def.columns[i].name,
                &crate::sql::bind::coldef::ColumnOrigin {
                    schema: &db,
                    table: &def.name,
                    def: &def,
                    column: i,
                },
            )
        })
        .collect())
}

/// MariaDB's reserved words (those an identifier cannot be without quotes).
const RESERVED: &[&str] = &[
    "ACCESSIBLE",
    "ADD",
    "ALL",
    "ALTER",
    "ANALYZE",
    "AND",
    "AS",
    "ASC",
    "ASENSITIVE",
    "BEFORE",
    "BETWEEN",
    "BIGINT",
    "BINARY",
    "BLOB",
    "BOTH",
    "BY",
    "CALL",
    "CASCADE",
    "CASE",
    "CHANGE",
    "CHAR",
    "CHARACTER",
    "CHECK",
    "COLLATE",
    "COLUMN",
    "CONDITION",
    "CONSTRAINT",
    "CONTINUE",
    "CONVERT",
    "CREATE",
    "CROSS",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_USER",
    "CURSOR",
    "DATABASE",
    "DATABASES",
    "DAY_HOUR",
    "DAY_MICROSECOND",
    "DAY_MINUTE",
    "DAY_SECOND",
    "DEC",
    "DECIMAL",
    "DECLARE",
    "DEFAULT",
    "DELAYED",
    "DELETE",
    "DESC",
    "DESCRIBE",
    "DETERMINISTIC",
    "DISTINCT",
    "DISTINCTROW",
    "DIV",
    "DOUBLE",
    "DROP",
    "DUAL",
    "EACH",
    "ELSE",
    "ELSEIF",
    "ENCLOSED",
    "ESCAPED",
    "EXCEPT",
    "EXISTS",
    "EXIT",
    "EXPLAIN",
    "FALSE",
    "FETCH",
    "FLOAT",
    "FOR",
    "FORCE",
    "FOREIGN",
    "FROM",
    "FULLTEXT",
    "GRANT",
    "GROUP",
    "HAVING",
    "HIGH_PRIORITY",
    "IF",
    "IGNORE",
    "IN",
    "INDEX",
    "INFILE",
    "INNER",
    "INOUT",
    "INSERT",
    "INT",
    "INTEGER",
    "INTERSECT",
    "INTERVAL",
    "INTO",
    "IS",
    "ITERATE",
    "JOIN",
    "KEY",
    "KEYS",
    "KILL",
    "LEADING",
    "LEAVE",
    "LEFT",
    "LIKE",
    "LIMIT",
    "LINES",
    "LOAD",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "LOCK",
    "LONG",
    "LONGBLOB",
    "LONGTEXT",
    "LOOP",
    "LOW_PRIORITY",
    "MATCH",
    "MEDIUMBLOB",
    "MEDIUMINT",
    "MEDIUMTEXT",
    "MOD",
    "MODIFIES",
    "NATURAL",
    "NOT",
    "NULL",
    "NUMERIC",
    "ON",
    "OPTIMIZE",
    "OPTION",
    "OR",
    "ORDER",
    "OUT",
    "OUTER",
    "OUTFILE",
    "OVER",
    "PARTITION",
    "PRECISION",
    "PRIMARY",
    "PROCEDURE",
    "PURGE",
    "RANGE",
    "READ",
    "READS",
    "REAL",
    "RECURSIVE",
    "REFERENCES",
    "REGEXP",
    "RELEASE",
    "RENAME",
    "REPEAT",
    "REPLACE",
    "REQUIRE",
    "RESTRICT",
    "RETURN",
    "REVOKE",
    "RIGHT",
    "RLIKE",
    "ROWS",
    "SCHEMA",
    "SCHEMAS",
    "SELECT",
    "SENSITIVE",
    "SEPARATOR",
    "SET",
    "SHOW",
    "SMALLINT",
    "SPATIAL",
    "SPECIFIC",
    "SQL",
    "STARTING",
    "TABLE",
    "TERMINATED",
    "THEN",
    "TINYBLOB",
    "TINYINT",
    "TINYTEXT",
    "TO",
    "TRAILING",
    "TRIGGER",
    "TRUE",
    "UNDO",
    "UNION",
    "UNIQUE",
    "UNLOCK",
    "UNSIGNED",
    "UPDATE",
    "USAGE",
    "USE",
    "USING",
    "UTC_DATE",
    "UTC_TIME",
    "UTC_TIMESTAMP",
    "VALUES",
    "VARBINARY",
    "VARCHAR",
    "VARCHARACTER",
    "VARYING",
    "WHEN",
    "WHERE",
    "WHILE",
    "WINDOW",
    "WITH",
    "WRITE",
    "XOR",
    "YEAR_MONTH",
    "ZEROFILL",
];

/// `sql_quote_show_create = OFF`: drop the backquotes of identifiers that do not need them
/// (letters, digits, `_` and `$`, not all digits, not a keyword), as MariaDB prints them.
fn unquote_identifiers(ddl: &str) -> String {
    let needs_quotes = |id: &str| {
        id.is_empty()
            || id.bytes().all(|b| b.is_ascii_digit())
            || !id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
            || RESERVED.contains(&id.to_ascii_uppercase().as_str())
    };
    let mut out = String::with_capacity(ddl.len());
    let mut chars = ddl.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => {
                // A string literal: copied as it is ('' and \' stay inside).
                out.push(c);
                while let Some((_, d)) = chars.next() {
                    out.push(d);
                    if d == '\\' {
                        if let Some((_, e)) = chars.next() {
                            out.push(e);
                        }
                    } else if d == '\'' {
                        if chars.peek().is_some_and(|(_, e)| *e == '\'') {
                            out.push(chars.next().map_or('\'', |(_, e)| e));
                        } else {
                            break;
                        }
                    }
                }
            }
            '`' => {
                let rest = &ddl[i + 1..];
                match rest.find('`') {
                    Some(end) if !rest[end + 1..].starts_with('`') => {
                        let id = &rest[..end];
                        match needs_quotes(id) {
                            true => out.push_str(&ddl[i..i + end + 2]),
                            false => out.push_str(id),
                        }
                        for _ in 0..id.chars().count() + 1 {
                            chars.next();
                        }
                    }
                    _ => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod unquote_tests {
    #[test]
    fn only_identifiers_that_need_no_quotes_lose_them() {
        assert_eq!(
            super::unquote_identifiers("CREATE TABLE `t` (`id` int, `select` int, `a b` int, `12` int, x char(1) DEFAULT '`q`')"),
            "CREATE TABLE t (id int, `select` int, `a b` int, `12` int, x char(1) DEFAULT '`q`')"
        );
    }
}
