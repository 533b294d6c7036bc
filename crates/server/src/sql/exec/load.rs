//! LOAD DATA [LOCAL] INFILE: a file's lines become rows of a table, as MariaDB 10.11 reads them.
//!
//! * The file streams through a [`LoadJob`]: bytes are pushed in pieces ([`LoadJob::feed`]),
//!   every complete line is split into fields ([`Splitter`]), turned into a row and inserted
//!   at once; only an unfinished line is kept between pieces, so memory stays bounded by the
//!   longest line whatever the file's size.
//! * Without LOCAL the server reads the file itself ([`run_server_file`]): the user needs the
//!   FILE privilege (here: global ALL, else 1045), and the file must lie under
//!   `secure_file_priv` — which is empty by default in Cohort, refusing every server file with
//!   1290 (MariaDB's unset value allows any file; Cohort's default is the safe one). A
//!   relative name is taken from the default database's directory as MariaDB does, which
//!   Cohort does not have: so relative names resolve under `secure_file_priv`.
//! * With LOCAL the session asks the client for the file (0xFB packet, `session/dispatch.rs`)
//!   and feeds each packet it sends; the empty packet ends it. Only when both the client
//!   (`CLIENT_LOCAL_FILES`) and `local_infile` allow it, else 4166. As in MariaDB, LOCAL
//!   makes data problems warnings and duplicate keys skipped rows (the server cannot stop the
//!   client's transfer): it behaves as IGNORE unless REPLACE is given (then strict mode
//!   applies as without LOCAL).
//! * Fields: `FIELDS TERMINATED BY` (default tab), `[OPTIONALLY] ENCLOSED BY` (one byte),
//!   `ESCAPED BY` (one byte or none; `\N` is NULL, `\0 \b \n \r \t \Z` their bytes), the word
//!   NULL unenclosed is NULL when ENCLOSED BY is set; `LINES STARTING BY` (text before the
//!   prefix, and lines without it, are skipped) and `TERMINATED BY`; `IGNORE n LINES`. A line
//!   longer than 64 MiB is refused (1235) rather than held.
//!   Fixed-width rows (empty FIELDS TERMINATED BY and ENCLOSED BY) are refused (1235).
//! * Rows: too few fields is 1261 (the missing columns get NULL for nullable text, the type's
//!   zero otherwise), too many 1262, NULL for a NOT NULL column 1263 (the type's zero); in
//!   strict mode without IGNORE / LOCAL each is an error, as are conversion problems. Each
//!   NOT NULL column not in the list without a default warns 1364 once. `@var` targets set the user
//!   variable (to the last row's field). `SET col = expr` is evaluated for each row after its
//!   fields, seeing the row's `@var`s and columns (subqueries there are refused, 1235).
//! * The statement is atomic: a savepoint before the first row, rolled back to on error.
//!   Rows go through INSERT's path ([`super::dml::RowSink`]): auto-increment, CHECK, FOREIGN
//!   KEY, binlog row events. The OK packet says "Records: N  Deleted: N  Skipped: N
//!   Warnings: N".

use crate::error::{Error, Result};
use crate::session::state::{ServerContext, SessionState};
use crate::sql::env::{split_session, Env};
use crate::sql::exec::dml::{InsertKind, InsertPlan, InsertSource, LoadCounts, RowSink};
use crate::sql::expr::convert::{self, StoreCtx, Strict};
use crate::sql::parse::load::{LoadData, LoadDup, LoadTarget};
use crate::sql::{plan, QueryResult};
use crate::storage::{ColumnDefault, Savepoint};
use crate::types::Value;
use cohort_protocol::ErrorCode;

/// Bytes read from a server file at a time.
const READ_CHUNK: usize = 64 * 1024;

/// One field: None is NULL.
type Field = Option<Vec<u8>>;

/// What turns lines into rows, and where it stands.
struct Cursor {
    slots: Vec<Slot>,
    /// `SET col = expr`, evaluated after the fields.
    sets: Vec<(usize, crate::sql::expr::Expr)>,
    split: Splitter,
    /// Problems are warnings (IGNORE, LOCAL), not errors in strict mode.
    lenient: bool,
    latin1: bool,
    to_skip: u64,
    row_no: u64,
    vars: Vec<(String, Value)>,
}

/// Where a field goes.
enum Slot {
    Column(usize),
    Var(String),
}

/// A LOAD DATA statement in progress.
pub struct LoadJob {
    file: String,
    plan: InsertPlan,
    cur: Cursor,
    counts: LoadCounts,
    savepoint: Savepoint,
    /// Warnings of the statement before it (for `@@warning_count` in expressions).
    prev: usize,
    /// The first error; later bytes are only drained.
    error: Option<Error>,
}

fn unsupported(what: &str) -> Error {
    Error::unsupported(what)
}

fn one_byte(v: &[u8]) -> Result<Option<u8>> {
    match v {
        [] => Ok(None),
        [b] => Ok(Some(*b)),
        _ => Err(Error::new(
            ErrorCode::WrongFieldTerminators,
            "Field separator argument is not what is expected; check the manual",
        )),
    }
}

/// Charsets the file may be in: UTF-8 (and its subsets), binary, latin1 (converted).
fn charset_is_latin1(name: &str) -> Result<bool> {
    match name {
        "utf8" | "utf8mb3" | "utf8mb4" | "binary" | "ascii" | "default" => Ok(false),
        "latin1" => Ok(true),
        "big5" | "dec8" | "cp850" | "hp8" | "koi8r" | "latin2" | "swe7" | "ujis" | "sjis"
        | "hebrew" | "tis620" | "euckr" | "koi8u" | "gb2312" | "greek" | "cp1250" | "gbk"
        | "latin5" | "armscii8" | "ucs2" | "cp866" | "keybcs2" | "macce" | "macroman" | "cp852"
        | "latin7" | "cp1251" | "utf16" | "utf16le" | "cp1256" | "cp1257" | "utf32" | "geostd8"
        | "cp932" | "eucjpms" => Err(unsupported(&format!("LOAD DATA … CHARACTER SET {name}"))),
        _ => Err(Error::new(
            ErrorCode::UnknownCharacterSet,
            format!("Unknown character set: '{name}'"),
        )),
    }
}

/// The statement's field and line format, and whether the file is latin1.
fn format_of(ld: &LoadData) -> Result<(Format, bool)> {
    let latin1 = match &ld.charset {
        Some(cs) => charset_is_latin1(cs)?,
        None => false,
    };
    let format = Format {
        field_term: ld.field_term.clone(),
        enclosed: one_byte(&ld.enclosed)?,
        escaped: one_byte(&ld.escaped)?,
        line_start: ld.line_start.clone(),
        line_term: ld.line_term.clone(),
    };
    if format.field_term.is_empty() || format.line_term.is_empty() {
        return Err(unsupported(
            "LOAD DATA with an empty FIELDS or LINES TERMINATED BY (fixed-width rows)",
        ));
    }
    Ok((format, latin1))
}

impl LoadJob {
    /// Resolve the table and the field targets, take the statement's savepoint.
    pub fn start(
        ctx: &ServerContext,
        sess: &mut SessionState,
        ld: &LoadData,
        aside: &[sqlparser::ast::Expr],
        prev: usize,
    ) -> Result<LoadJob> {
        let (format, latin1) = format_of(ld)?;
        let (txn, view) = split_session(ctx, sess, prev);
        if txn.is_read_only() {
            return Err(crate::storage::read_only_error());
        }
        let env = Env::new(ctx, view, &[]).with_set_aside(aside);
        let db = match &ld.db {
            Some(d) => d.clone(),
            None => env
                .sess
                .db
                .map(str::to_string)
                .ok_or_else(|| Error::new(ErrorCode::NoDb, "No database selected"))?,
        };
        let table = plan::resolve_target(&env, &db, &ld.table, None, "INSERT")?;
        let def = table.def.clone();
        let mut slots = Vec::new();
        let mut columns = Vec::new();
        if ld.targets.is_empty() {
            for c in 0..def.columns.len() {
                slots.push(Slot::Column(c));
                columns.push(c);
            }
        } else {
            for t in &ld.targets {
                match t {
                    LoadTarget::Column(name) => {
                        let c = table.scope.column(name).ok_or_else(|| {
                            Error::new(
                                ErrorCode::BadField,
                                format!("Unknown column '{name}' in 'SELECT'"),
                            )
                        })?;
                        if columns.contains(&c) {
                            return Err(Error::new(
                                ErrorCode::FieldSpecifiedTwice,
                                format!("Column '{}' specified twice", def.columns[c].name),
                            ));
                        }
                        slots.push(Slot::Column(c));
                        columns.push(c);
                    }
                    LoadTarget::Var(v) => slots.push(Slot::Var(v.clone())),
                }
            }
        }
        // LOCAL is IGNORE unless REPLACE is given (MariaDB).
        let lenient = (ld.local && ld.dup != LoadDup::Replace) || ld.dup == LoadDup::Ignore;
        let kind = match ld.dup {
            LoadDup::Replace => InsertKind::Replace,
            LoadDup::Ignore => InsertKind::Ignore,
            LoadDup::Error if ld.local => InsertKind::Ignore,
            LoadDup::Error => InsertKind::Insert,
        };
        let sets = if ld.sets.is_empty() {
            Vec::new()
        } else {
            let mark = env.subq.bound.borrow().len();
            let mut b = crate::sql::bind::Binder::new(&env, &[], Some(&table.scope));
            let sets = super::dml::bind_assignments(&mut b, &table, &ld.sets, "SELECT")?;
            if env.subq.bound.borrow().len() != mark {
                return Err(unsupported("subqueries in LOAD DATA … SET"));
            }
            sets
        };
        // Each NOT NULL column outside the list without a default: one warning (MariaDB).
        for (c, col) in def.columns.iter().enumerate() {
            if !columns.contains(&c)
                && !sets.iter().any(|(s, _)| *s == c)
                && !col.nullable
                && !col.auto_increment
                && matches!(col.default, ColumnDefault::None)
            {
                env.warn(
                    "Warning",
                    ErrorCode::NoDefaultForField,
                    format!("Field '{}' doesn't have a default value", col.name),
                );
            }
        }
        let savepoint = ctx.engine.savepoint(txn);
        let effects = env.into_effects();
        effects.apply(sess);
        let plan = InsertPlan {
            table,
            kind,
            columns,
            source: InsertSource::Values(Vec::new()),
            on_dup: Vec::new(),
            subq: None,
            returning: None,
            view_version: None,
            view_check: None,
        };
        ctx.status.incr(crate::status::StatusCounter::ComInsert);
        Ok(LoadJob {
            file: ld.file.clone(),
            plan,
            cur: Cursor {
                slots,
                sets,
                split: Splitter::new(format),
                lenient,
                latin1,
                to_skip: ld.ignore_lines,
                row_no: 0,
                vars: Vec::new(),
            },
            counts: LoadCounts::default(),
            savepoint,
            prev,
            error: None,
        })
    }

    /// The file name the statement gave (LOCAL asks the client for it).
    pub fn file_name(&self) -> &str {
        &self.file
    }

    /// The next piece of the file (`eof`: it is the last). After an error the bytes are only
    /// drained.
    pub fn feed(&mut self, ctx: &ServerContext, sess: &mut SessionState, data: &[u8], eof: bool) {
        if self.error.is_some() {
            return;
        }
        self.cur.split.push(data);
        let (txn, view) = split_session(ctx, sess, self.prev);
        let mut env = Env::new(ctx, view, &[]);
        env.writes = true;
        let r = (|| {
            let mut sink = RowSink::new(&self.plan, &env, self.cur.lenient)?;
            let r = self.cur.rows(&self.plan, &env, txn, &mut sink, eof);
            let c = sink.counts();
            self.counts.affected += c.affected;
            self.counts.duplicates += c.duplicates;
            self.counts.records += c.records;
            if self.counts.first_generated.is_none() {
                self.counts.first_generated = c.first_generated;
            }
            r
        })();
        if let Err(e) = r {
            self.error = Some(e);
        }
        let effects = env.into_effects();
        effects.apply(sess);
    }
}

impl Cursor {
    fn rows(
        &mut self,
        plan: &InsertPlan,
        env: &Env<'_>,
        txn: &mut crate::storage::Txn,
        sink: &mut RowSink<'_, '_>,
        eof: bool,
    ) -> Result<()> {
        while let Some(fields) = self.split.next_row(eof) {
            if self.to_skip > 0 {
                self.to_skip -= 1;
                continue;
            }
            crate::interrupt::check()?;
            self.row_no += 1;
            let row = self.build_row(plan, env, fields)?;
            let mut given = self.given(&plan.table.def);
            sink.insert(txn, row, self.row_no, given.as_deref_mut())?;
        }
        if self.split.pending() > MAX_LINE {
            return Err(unsupported(&format!(
                "LOAD DATA lines longer than {MAX_LINE} bytes"
            )));
        }
        Ok(())
    }

    fn problem(&self, env: &Env<'_>, code: ErrorCode, message: String) -> Result<()> {
        if !self.lenient && env.strict() {
            return Err(Error::new(code, message));
        }
        env.warn("Warning", code, message);
        Ok(())
    }

    /// For a table with expression defaults: the columns a field or a SET gives.
    fn given(&self, def: &crate::storage::TableDef) -> Option<Vec<bool>> {
        if !def.has_default_exprs() {
            return None;
        }
        let mut given = vec![false; def.columns.len()];
        for slot in &self.slots {
            if let Slot::Column(c) = slot {
                given[*c] = true;
            }
        }
        for (c, _) in &self.sets {
            given[*c] = true;
        }
        Some(given)
    }

    fn build_row(
        &mut self,
        plan: &InsertPlan,
        env: &Env<'_>,
        fields: Vec<Field>,
    ) -> Result<Vec<Value>> {
        let def = &plan.table.def;
        let row_no = self.row_no;
        let mut row: Vec<Value> = def
            .columns
            .iter()
            .map(|col| match &col.default {
                ColumnDefault::Value(v) => v.clone(),
                ColumnDefault::CurrentTimestamp => super::dml::current_timestamp(col, env),
                // Computed by the sink for a column no field or SET gives.
                ColumnDefault::Expr(_) => Value::Null,
                ColumnDefault::None if col.nullable || col.auto_increment => Value::Null,
                ColumnDefault::None => convert::implicit_default(&col.data_type),
            })
            .collect();
        let sc = StoreCtx {
            strict: if self.lenient {
                Strict::No
            } else {
                Strict::Mode(env)
            },
            row: row_no,
            warnings: &env.warnings,
            zone: env.zone(),
            table: Some((&plan.table.db, &def.name)),
        };
        let nfields = fields.len();
        let mut fields = fields.into_iter();
        let mut short = false;
        for slot in &self.slots {
            let field = fields.next();
            // Only a column without its field is reported (a variable just becomes NULL).
            if field.is_none() && !short && matches!(slot, Slot::Column(_)) {
                short = true;
                self.problem(
                    env,
                    ErrorCode::WarnTooFewRecords,
                    format!("Row {row_no} doesn't contain data for all columns"),
                )?;
            }
            let value = match field {
                Some(Some(bytes)) => {
                    let bytes = if self.latin1 {
                        latin1_to_utf8(bytes)
                    } else {
                        bytes
                    };
                    Value::Bytes(bytes)
                }
                Some(None) => Value::Null,
                None => match slot {
                    Slot::Column(c) => {
                        let col = &def.columns[*c];
                        row[*c] = if col.auto_increment || (col.nullable && col.data_type.is_text())
                        {
                            Value::Null
                        } else {
                            convert::implicit_default(&col.data_type)
                        };
                        continue;
                    }
                    Slot::Var(_) => Value::Null,
                },
            };
            match slot {
                Slot::Var(name) => {
                    match self.vars.iter_mut().find(|(n, _)| n == name) {
                        Some(e) => e.1 = value,
                        None => self.vars.push((name.clone(), value)),
                    };
                }
                Slot::Column(c) => {
                    let col = &def.columns[*c];
                    row[*c] = if value.is_null() {
                        if col.nullable || col.auto_increment {
                            Value::Null
                        } else {
                            self.problem(
                                env,
                                ErrorCode::WarnNullToNotnull,
                                format!(
                                    "Column set to default value; NULL supplied to NOT NULL column '{}' at row {row_no}",
                                    col.name
                                ),
                            )?;
                            convert::implicit_default(&col.data_type)
                        }
                    } else {
                        convert::store_value(value, col, &sc)?
                    };
                }
            }
        }
        if nfields > self.slots.len() {
            self.problem(
                env,
                ErrorCode::WarnTooManyRecords,
                format!(
                    "Row {row_no} was truncated; it contained more data than there were input columns"
                ),
            )?;
        }
        if !self.sets.is_empty() {
            self.apply_sets(def, env, &mut row, &sc)?;
        }
        Ok(row)
    }

    /// `SET col = expr`: the row's @variables are visible to the expressions (and left to
    /// the session, as MariaDB does), columns read the values the fields gave them.
    fn apply_sets(
        &self,
        def: &crate::storage::TableDef,
        env: &Env<'_>,
        row: &mut [Value],
        sc: &StoreCtx<'_>,
    ) -> Result<()> {
        {
            let mut set = env.user_var_sets.borrow_mut();
            for (n, v) in &self.vars {
                match set.iter_mut().find(|(m, _)| m == n) {
                    Some(e) => e.1 = v.clone(),
                    None => set.push((n.clone(), v.clone())),
                }
            }
        }
        let strict = !self.lenient && env.strict();
        for (c, e) in &self.sets {
            let v = super::strict_values::eval(
                e,
                &crate::sql::expr::RowCtx::hosted(row, None),
                env,
                strict,
            )?;
            let col = &def.columns[*c];
            row[*c] = if v.is_null() {
                if col.nullable || col.auto_increment {
                    Value::Null
                } else {
                    let msg = format!("Column '{}' cannot be null", col.name);
                    if strict {
                        return Err(Error::new(ErrorCode::BadNull, msg));
                    }
                    env.warn("Warning", ErrorCode::BadNull, msg);
                    convert::implicit_default(&col.data_type)
                }
            } else {
                convert::store_value(v, col, sc)?
            };
        }
        Ok(())
    }
}

impl LoadJob {
    /// The end of the file: the last line, then the statement's outcome (rolled back to its
    /// savepoint on error).
    pub fn finish(mut self, ctx: &ServerContext, sess: &mut SessionState) -> Result<QueryResult> {
        self.feed(ctx, sess, &[], true);
        if let Some(e) = self.error.take() {
            if e.action() == crate::error::Action::RollbackStatement {
                if let Some(txn) = sess.txn.as_mut() {
                    ctx.engine.rollback_to_savepoint(txn, self.savepoint);
                }
            }
            return Err(e);
        }
        for (n, v) in std::mem::take(&mut self.cur.vars) {
            sess.store_user_var(n, v);
        }
        if let Some(id) = self.counts.first_generated {
            sess.last_insert_id = id;
        }
        let c = self.counts;
        let def = &self.plan.table.def;
        let unique_keys = usize::from(def.primary_key.is_some())
            + def.indexes.iter().filter(|i| i.unique).count();
        // With one unique key (and no foreign keys) MariaDB replaces a row in place: it is
        // neither counted as deleted nor twice in the affected rows.
        let in_place = unique_keys <= 1 && def.foreign_keys.is_empty();
        let (affected, deleted, skipped) = match self.plan.kind {
            InsertKind::Replace if in_place => (c.records, 0, 0),
            InsertKind::Replace => (c.affected, c.affected.saturating_sub(c.records), 0),
            _ => (c.affected, 0, c.duplicates),
        };
        let info = format!(
            "Records: {}  Deleted: {deleted}  Skipped: {skipped}  Warnings: {}",
            c.records,
            sess.warnings.len()
        );
        Ok(QueryResult::Ok {
            affected_rows: affected,
            last_insert_id: 0,
            info: Some(info),
        })
    }
}

fn latin1_to_utf8(bytes: Vec<u8>) -> Vec<u8> {
    if bytes.is_ascii() {
        return bytes;
    }
    bytes
        .iter()
        .map(|&b| b as char)
        .collect::<String>()
        .into_bytes()
}

/// LOAD DATA INFILE without LOCAL: check the FILE privilege and `secure_file_priv`, then
/// stream the file through a job.
pub fn run_server_file(
    ctx: &ServerContext,
    sess: &mut SessionState,
    ld: &LoadData,
    aside: &[sqlparser::ast::Expr],
    prev: usize,
) -> Result<QueryResult> {
    format_of(ld)?;
    if !ctx.accounts.is_admin(&sess.user, &sess.host) {
        return Err(Error::new(
            ErrorCode::AccessDenied,
            format!(
                "Access denied for user '{}'@'{}' (using password: YES)",
                sess.user, sess.host
            ),
        ));
    }
    let refused = || {
        Error::new(
            ErrorCode::OptionPreventsStatement,
            "The MariaDB server is running with the --secure-file-priv option so it cannot execute this statement",
        )
    };
    let dir = ctx
        .vars
        .global("secure_file_priv")
        .map(|v| convert::to_string(&v))
        .unwrap_or_default();
    if dir.is_empty() {
        return Err(refused());
    }
    let dir = std::fs::canonicalize(&dir).map_err(|_| refused())?;
    let given = std::path::Path::new(&ld.file);
    let path = if given.is_absolute() {
        given.to_path_buf()
    } else {
        dir.join(given)
    };
    let shown = path.display().to_string();
    let file_error = |e: std::io::Error| {
        let errno = e.raw_os_error().unwrap_or(0);
        let text = std::io::Error::from_raw_os_error(errno).to_string();
        let text = text.split(" (os error").next().unwrap_or("").to_string();
        Error::new(
            ErrorCode::CantGetStat,
            format!("Can't get stat of '{shown}' (Errcode: {errno} \"{text}\")"),
        )
    };
    let real = std::fs::canonicalize(&path).map_err(file_error)?;
    if !real.starts_with(&dir) {
        return Err(refused());
    }
    let mut file = std::fs::File::open(&real).map_err(file_error)?;
    if !file.metadata().map_err(file_error)?.is_file() {
        return Err(refused());
    }
    let mut job = LoadJob::start(ctx, sess, ld, aside, prev)?;
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        use std::io::Read;
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                job.error.get_or_insert(Error::new(
                    ErrorCode::CantGetStat,
                    format!(
                        "Error reading file '{shown}' (Errcode: {})",
                        e.raw_os_error().unwrap_or(0)
                    ),
                ));
                break;
            }
        };
        job.feed(ctx, sess, &buf[..n], false);
        if job.error.is_some() {
            break;
        }
    }
    job.finish(ctx, sess)
}

// ---------------------------------------------------------------------------------------------
// Splitting lines into fields

struct Format {
    field_term: Vec<u8>,
    enclosed: Option<u8>,
    escaped: Option<u8>,
    line_start: Vec<u8>,
    line_term: Vec<u8>,
}

/// Bytes in, rows of fields out; keeps only the unfinished line.
struct Splitter {
    f: Format,
    buf: Vec<u8>,
    pos: usize,
    /// The unfinished line was parsed up to the end of `buf` at this length: a row can only
    /// end at a line terminator, so it is parsed again only once bytes holding the
    /// terminator's last byte arrive (a long line over many pieces stays linear).
    tried: Option<usize>,
}

/// The longest line LOAD DATA keeps while waiting for its end.
const MAX_LINE: usize = 64 * 1024 * 1024;

/// A field or row could not be finished with the bytes at hand.
struct NeedMore;

fn unescape(c: u8) -> u8 {
    match c {
        b'0' => 0,
        b'b' => 8,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'Z' => 0x1A,
        other => other,
    }
}

/// True if `s` is a proper prefix of `term` (more bytes could complete it).
fn partial(s: &[u8], term: &[u8]) -> bool {
    s.len() < term.len() && term.starts_with(s)
}

impl Splitter {
    fn new(f: Format) -> Splitter {
        Splitter {
            f,
            buf: Vec::new(),
            pos: 0,
            tried: None,
        }
    }

    fn push(&mut self, data: &[u8]) {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.tried = self.tried.map(|t| t - self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(data);
    }

    /// Bytes waiting for the end of their line.
    fn pending(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The next row; None when more bytes are needed (or, at the end, there are no more).
    fn next_row(&mut self, eof: bool) -> Option<Vec<Field>> {
        if let (Some(t), false) = (self.tried, eof) {
            let last = *self.f.line_term.last().expect("non-empty terminator");
            if !self.buf[t..].contains(&last) {
                self.tried = Some(self.buf.len());
                return None;
            }
        }
        self.tried = None;
        let s = &self.buf[self.pos..];
        if s.is_empty() {
            return None;
        }
        let mut start = 0;
        if !self.f.line_start.is_empty() {
            let ls = &self.f.line_start;
            match find(s, ls) {
                Some(i) => start = i + ls.len(),
                None => {
                    if eof {
                        self.pos = self.buf.len();
                    } else {
                        let keep = ls.len() - 1;
                        self.pos = self.buf.len() - keep.min(s.len());
                    }
                    return None;
                }
            }
        }
        match self.row_at(s, start, eof) {
            Ok((fields, used)) => {
                self.pos += used;
                Some(fields)
            }
            Err(NeedMore) => {
                if eof {
                    self.pos = self.buf.len();
                } else {
                    self.tried = Some(self.buf.len());
                }
                None
            }
        }
    }

    /// Parse the fields of one line from `s[i..]`: the fields and the bytes used.
    fn row_at(
        &self,
        s: &[u8],
        mut i: usize,
        eof: bool,
    ) -> std::result::Result<(Vec<Field>, usize), NeedMore> {
        let f = &self.f;
        let n = s.len();
        let mut fields = Vec::new();
        loop {
            let field_start = i;
            let mut v = Vec::new();
            let quoted = f.enclosed.is_some_and(|q| i < n && s[i] == q);
            if quoted {
                let q = f.enclosed.expect("enclosed");
                i += 1;
                loop {
                    if i >= n {
                        if eof {
                            break;
                        }
                        return Err(NeedMore);
                    }
                    let c = s[i];
                    if Some(c) == f.escaped && Some(c) != f.enclosed {
                        if i + 1 >= n {
                            if !eof {
                                return Err(NeedMore);
                            }
                            v.push(c);
                            i += 1;
                            continue;
                        }
                        v.push(unescape(s[i + 1]));
                        i += 2;
                        continue;
                    }
                    if c == q {
                        let rest = &s[i + 1..];
                        if rest.first() == Some(&q) {
                            v.push(q);
                            i += 2;
                            continue;
                        }
                        if rest.starts_with(&f.field_term) || rest.starts_with(&f.line_term) {
                            i += 1;
                            break;
                        }
                        if rest.is_empty()
                            || partial(rest, &f.field_term)
                            || partial(rest, &f.line_term)
                        {
                            if eof {
                                i += 1;
                                break;
                            }
                            return Err(NeedMore);
                        }
                    }
                    v.push(c);
                    i += 1;
                }
            } else {
                loop {
                    if i >= n {
                        if eof {
                            break;
                        }
                        return Err(NeedMore);
                    }
                    let rest = &s[i..];
                    if rest.starts_with(&f.field_term) || rest.starts_with(&f.line_term) {
                        break;
                    }
                    if !eof && (partial(rest, &f.field_term) || partial(rest, &f.line_term)) {
                        return Err(NeedMore);
                    }
                    let c = s[i];
                    if Some(c) == f.escaped {
                        if i + 1 >= n {
                            if !eof {
                                return Err(NeedMore);
                            }
                            v.push(c);
                            i += 1;
                            continue;
                        }
                        v.push(unescape(s[i + 1]));
                        i += 2;
                        continue;
                    }
                    v.push(c);
                    i += 1;
                }
            }
            let raw = &s[field_start..i];
            let null = (!quoted && f.escaped.is_some_and(|e| raw == [e, b'N']))
                || (!quoted && f.enclosed.is_some() && raw == b"NULL");
            fields.push(if null { None } else { Some(v) });
            let rest = &s[i..];
            if rest.starts_with(&f.field_term) {
                i += f.field_term.len();
                continue;
            }
            if rest.starts_with(&f.line_term) {
                i += f.line_term.len();
                return Ok((fields, i));
            }
            if i >= n {
                // Only at the end of the file (otherwise NeedMore came first).
                return Ok((fields, i));
            }
            // A quoted field followed by something else: read on as part of this line.
            if !eof {
                return Err(NeedMore);
            }
            return Ok((fields, n));
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(f: Format, data: &[u8], piece: usize) -> Vec<Vec<Field>> {
        let mut s = Splitter::new(f);
        let mut out = Vec::new();
        for chunk in data.chunks(piece.max(1)) {
            s.push(chunk);
            while let Some(r) = s.next_row(false) {
                out.push(r);
            }
        }
        while let Some(r) = s.next_row(true) {
            out.push(r);
        }
        out
    }

    fn csv() -> Format {
        Format {
            field_term: b",".to_vec(),
            enclosed: Some(b'"'),
            escaped: Some(b'\\'),
            line_start: Vec::new(),
            line_term: b"\r\n".to_vec(),
        }
    }

    #[test]
    fn pieces_of_any_size_split_the_same() {
        let data = b"1,\"a,b\"\r\n2,\"q\"\"x\"\r\n3,NULL\r\n4,\"NULL\"\r\n5,\\N\r\n6,e\\tc\r\n7";
        let whole = split(csv(), data, data.len());
        assert_eq!(whole.len(), 7);
        assert_eq!(whole[0], vec![Some(b"1".to_vec()), Some(b"a,b".to_vec())]);
        assert_eq!(whole[1][1], Some(b"q\"x".to_vec()));
        assert_eq!(whole[2][1], None);
        assert_eq!(whole[3][1], Some(b"NULL".to_vec()));
        assert_eq!(whole[4][1], None);
        assert_eq!(whole[5][1], Some(b"e\tc".to_vec()));
        assert_eq!(whole[6], vec![Some(b"7".to_vec())]);
        for piece in 1..8 {
            assert_eq!(split(csv(), data, piece), whole, "piece {piece}");
        }
    }

    #[test]
    fn line_prefix_skips_lines_without_it() {
        let f = Format {
            field_term: b"\t".to_vec(),
            enclosed: None,
            escaped: Some(b'\\'),
            line_start: b"P".to_vec(),
            line_term: b"\n".to_vec(),
        };
        let rows = split(f, b"xxxP1\tA\nnoprefix\nP2\tB\n", 3);
        assert_eq!(
            rows,
            vec![
                vec![Some(b"1".to_vec()), Some(b"A".to_vec())],
                vec![Some(b"2".to_vec()), Some(b"B".to_vec())]
            ]
        );
    }
}
