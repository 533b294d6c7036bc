//! Parsing: SQL text → [`Parsed`].
//!
//! The text is tokenized once with `sqlparser`'s MySQL tokenizer. Statements whose MySQL
//! syntax `sqlparser` does not cover (or covers lossily) are parsed here with the same
//! `Parser` primitives: transaction control, `SET`, every `SHOW`, users and grants, `USE`,
//! `CREATE/DROP DATABASE`, `DO`, `FLUSH`, `KILL`, `ANALYZE/OPTIMIZE/CHECK TABLE`, `DESCRIBE`.
//! Everything else (SELECT, INSERT, REPLACE, UPDATE, DELETE, CREATE TABLE / INDEX, DROP TABLE /
//! INDEX, TRUNCATE) goes to `Parser::parse_statement`.
//!
//! Errors are 1064 with MySQL's "near '…' at line N" text; empty text is 1065; text with more
//! than one statement (`a; b`) is 1064 (multi-statements are not offered).

pub(in crate::sql) mod alter;
pub(in crate::sql) mod binlog;
mod charset_words;
pub(in crate::sql) mod dialect;
mod exec_comments;
mod float_type;
mod hex_literal;
pub(in crate::sql) mod interval;
pub(in crate::sql) mod load;
mod prepare_sql;
pub mod select_into;
pub(in crate::sql) mod surface;
pub(in crate::sql) mod view;

use crate::accounts::TransportRequirement;
use crate::error::{Error, Result};
use crate::sql::parse::dialect::{ShallowMySql, MAX_NESTING};
use crate::sql::sql_mode::{parse_bit, ParseMode};
use crate::storage::WaitPolicy;
use crate::types::Collation;
use cohort_protocol::ErrorCode;
use sqlparser::ast::{self, Statement};
use sqlparser::dialect::MySqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, Whitespace};

/// A parsed statement and what binding needs from the source text.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub stmt: Stmt,
    /// Source text of each item of the top-level SELECT list (column names).
    pub item_texts: Vec<String>,
    /// Start of each `?` placeholder, in text order: parameter i is at `params[i]`.
    pub params: Vec<Location>,
    /// `LOCK IN SHARE MODE [NOWAIT | SKIP LOCKED]` was given (stripped before parsing): how
    /// its locks wait.
    pub share_lock: Option<WaitPolicy>,
    /// The statement text, kept for statements that are written to the log as text (DDL).
    pub ddl_text: Option<String>,
    /// `UPDATE IGNORE` / `DELETE IGNORE` (the keyword is stripped before parsing): rows
    /// that fail are skipped or clamped with warnings (`exec/dml.rs`).
    pub dml_ignore: bool,
    /// Expression nodes set aside to keep the tree shallow (see `parse/dialect.rs`): the binder
    /// follows the placeholders in `stmt` to them.
    pub set_aside: Vec<ast::Expr>,
    /// `SELECT … INTO @a, …` (the clause is cut out before parsing: `parse/select_into.rs`).
    pub into: Option<select_into::SelectInto>,
}

/// `'user'@'host'`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserHost {
    pub user: String,
    pub host: String,
}

/// `ON *.*`, `ON db.*`, `ON *` (the current database), `ON db.tbl` or `ON tbl`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrantOn {
    Global,
    Db(String),
    CurrentDb,
    Table(Option<String>, String),
}

/// The privilege list of GRANT / REVOKE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrivList {
    /// The named privileges (GRANT OPTION included when named in REVOKE's list).
    pub privs: crate::accounts::Privs,
    /// `ALL [PRIVILEGES]`: everything the level allows.
    pub all: bool,
}

#[derive(Clone, Debug)]
pub enum SetTarget {
    /// `@name`
    User(String),
    /// A system variable; `global` for GLOBAL / @@global.
    Sys { name: String, global: bool },
    /// `NAMES cs [COLLATE c]` or `CHARACTER SET cs` as one item of a SET list (its value unused).
    Names {
        charset: String,
        collation: Option<String>,
    },
}

#[derive(Clone, Debug)]
pub enum SetValue {
    Expr(Box<ast::Expr>),
    /// `DEFAULT`
    Default,
}

#[derive(Clone, Debug)]
pub struct SetItem {
    pub target: SetTarget,
    pub value: SetValue,
}

#[derive(Clone, Debug)]
pub enum ShowFilter {
    None,
    Like(String),
    Where(Box<ast::Expr>),
}

#[derive(Clone, Debug)]
pub enum Show {
    Databases(ShowFilter),
    Tables {
        full: bool,
        db: Option<String>,
        filter: ShowFilter,
    },
    Columns {
        full: bool,
        db: Option<String>,
        table: String,
        filter: ShowFilter,
    },
    Index {
        db: Option<String>,
        table: String,
    },
    CreateTable {
        db: Option<String>,
        table: String,
    },
    CreateView {
        db: Option<String>,
        table: String,
    },
    /// SHOW CREATE DATABASE name, and whether `IF NOT EXISTS` was given (printed then).
    CreateDatabase(String, bool),
    /// `SHOW CREATE USER [user | CURRENT_USER[()]]` (None: the current user).
    CreateUser(Option<UserHost>),
    Variables {
        global: bool,
        filter: ShowFilter,
    },
    Status(ShowFilter),
    Warnings {
        errors_only: bool,
        count: bool,
    },
    Engines,
    /// `SHOW [FULL] PROCESSLIST`.
    ProcessList {
        full: bool,
    },
    Grants(Option<UserHost>),
    TableStatus {
        db: Option<String>,
        filter: ShowFilter,
    },
    Collation(ShowFilter),
    Charset(ShowFilter),
    /// `SHOW BINARY LOGS` / `SHOW MASTER LOGS`.
    BinaryLogs,
    /// `SHOW MASTER STATUS` / `SHOW BINLOG STATUS`.
    MasterStatus,
    /// `SHOW SLAVE HOSTS` / `SHOW REPLICA HOSTS`.
    SlaveHosts,
    /// `SHOW BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] count]`.
    BinlogEvents {
        file: Option<String>,
        from: Option<u64>,
        offset: u64,
        limit: Option<u64>,
    },
}

/// `PURGE BINARY LOGS TO 'file'` / `BEFORE 'datetime'`.
#[derive(Clone, Debug)]
pub enum PurgeTarget {
    To(String),
    Before(String),
}

/// Which transactions `SET … TRANSACTION` applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxScope {
    /// No scope word: the next transaction only.
    Next,
    /// SESSION / LOCAL: the session's later transactions.
    Session,
    /// GLOBAL: sessions started later.
    Global,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// Parsed by sqlparser: SELECT / INSERT / UPDATE / DELETE / DDL on tables.
    Sql(Box<Statement>),
    /// `EXPLAIN [EXTENDED | PARTITIONS | FORMAT=…] stmt` / `DESCRIBE stmt`: the explained
    /// statement (SELECT, WITH, a parenthesized query, INSERT, REPLACE, UPDATE, DELETE),
    /// parsed on its own.
    Explain(Box<Parsed>, crate::sql::exec::explain::Format),
    /// `ALTER TABLE` (see `parse/alter.rs`).
    AlterTable(Box<alter::AlterTable>),
    /// `CREATE VIEW` / `ALTER VIEW` (see `parse/view.rs`).
    CreateView(Box<view::ViewStmt>),
    /// `RENAME TABLE a TO b, …`.
    RenameTable(alter::RenameTable),
    /// BEGIN / START TRANSACTION [READ ONLY | READ WRITE] [WITH CONSISTENT SNAPSHOT].
    Begin {
        read_only: Option<bool>,
        consistent_snapshot: bool,
    },
    Commit,
    Rollback,
    /// `SAVEPOINT name`.
    Savepoint(String),
    /// `ROLLBACK [WORK] TO [SAVEPOINT] name`.
    RollbackToSavepoint(String),
    /// `RELEASE SAVEPOINT name`.
    ReleaseSavepoint(String),
    Set(Vec<SetItem>),
    SetNames {
        charset: String,
        collation: Option<String>,
    },
    /// `SET [GLOBAL | SESSION] TRANSACTION ISOLATION LEVEL … | READ ONLY | READ WRITE`.
    SetTransaction {
        scope: TxScope,
        isolation: Option<String>,
        read_only: Option<bool>,
    },
    SetPassword {
        user: Option<UserHost>,
        password: String,
    },
    Show(Show),
    Use(String),
    CreateDatabase {
        name: String,
        if_not_exists: bool,
        /// `[DEFAULT] CHARACTER SET / COLLATE` as given (see [`DbCharset`]).
        charset: DbCharset,
    },
    /// `ALTER DATABASE [name] [DEFAULT] CHARACTER SET … / COLLATE …` (the current database
    /// when the name is left out).
    AlterDatabase {
        name: Option<String>,
        charset: DbCharset,
    },
    DropDatabase {
        name: String,
        if_exists: bool,
    },
    CreateUser {
        users: Vec<(UserHost, String)>,
        if_not_exists: bool,
        /// `REQUIRE …` (None: no clause).
        require: Option<TransportRequirement>,
    },
    AlterUser {
        /// A password only where `IDENTIFIED …` was given.
        users: Vec<(UserHost, Option<String>)>,
        if_exists: bool,
        require: Option<TransportRequirement>,
    },
    DropUser {
        users: Vec<UserHost>,
        if_exists: bool,
    },
    Grant {
        privs: PrivList,
        on: GrantOn,
        users: Vec<(UserHost, Option<String>)>,
        require: Option<TransportRequirement>,
        /// WITH GRANT OPTION.
        grant_option: bool,
    },
    /// REVOKE privs ON … FROM users; `on` None: REVOKE ALL PRIVILEGES, GRANT OPTION FROM.
    Revoke {
        privs: PrivList,
        on: Option<GrantOn>,
        users: Vec<UserHost>,
    },
    /// FLUSH …; `binary_logs` for FLUSH LOGS / FLUSH BINARY LOGS.
    Flush {
        binary_logs: bool,
    },
    /// PURGE BINARY LOGS.
    Purge(PurgeTarget),
    UnlockTables,
    /// `LOCK TABLE[S] t READ [LOCAL] | [LOW_PRIORITY] WRITE [CONCURRENT], …`: (db, table,
    /// write).
    LockTables(Vec<(Option<String>, String, bool)>),
    TableMaint {
        op: &'static str,
        tables: Vec<(Option<String>, String)>,
    },
    /// `CHECKSUM TABLE t, … [QUICK | EXTENDED]`.
    Checksum {
        tables: Vec<(Option<String>, String)>,
        quick: bool,
    },
    Do(Vec<ast::Expr>),
    /// `PREPARE name FROM source` (see `parse/prepare_sql.rs`).
    PrepareSql {
        name: String,
        source: Box<ast::Expr>,
    },
    /// `EXECUTE name [USING expr, …]`.
    ExecuteSql {
        name: String,
        using: Vec<ast::Expr>,
    },
    /// `{DEALLOCATE | DROP} PREPARE name`.
    DeallocateSql(String),
    /// `KILL [HARD | SOFT] [CONNECTION | QUERY] id`.
    Kill {
        query_only: bool,
        id: u32,
    },
    Describe {
        db: Option<String>,
        table: String,
    },
    /// `LOAD DATA [LOCAL] INFILE …` (see `parse/load.rs`).
    LoadData(Box<load::LoadData>),
    /// `BINLOG '…'` (see `parse/binlog.rs`).
    Binlog(binlog::BinlogSource),
    /// Recognised but not supported: executing it gives 1235 naming the feature.
    Unsupported(String),
}

impl Stmt {
    /// True if the statement is a SHOW WARNINGS / SHOW ERRORS (which keep the warning list).
    pub fn keeps_warnings(&self) -> bool {
        matches!(self, Stmt::Show(Show::Warnings { .. }))
    }
}

/// Parse one statement as the default `sql_mode` reads it (stored text: view bodies, kept
/// expressions, replayed DDL).
pub fn parse(sql: &str) -> Result<Parsed> {
    parse_in(sql, ParseMode(0))
}

/// Parse one statement under the parse-affecting `sql_mode` bits `mode` (ANSI_QUOTES,
/// PIPES_AS_CONCAT, NO_BACKSLASH_ESCAPES, HIGH_NOT_PRECEDENCE, REAL_AS_FLOAT).
pub fn parse_in(sql: &str, mode: ParseMode) -> Result<Parsed> {
    let original = sql;
    let expanded = exec_comments::expand(sql);
    let sql = expanded.as_ref();
    if let Some(explained) = explained_statement(sql) {
        let (stmt, params) = match explained {
            Explained::Statement(format, inner) => {
                let inner = parse_in(inner, mode)?;
                // A prepared EXPLAIN takes the explained statement's parameters.
                let params = inner.params.clone();
                (Stmt::Explain(Box::new(inner), format), params)
            }
            Explained::Refused(what) => (Stmt::Unsupported(what.to_string()), Vec::new()),
        };
        return Ok(Parsed {
            stmt,
            item_texts: Vec::new(),
            params,
            share_lock: None,
            ddl_text: None,
            dml_ignore: false,
            set_aside: Vec::new(),
            into: None,
        });
    }
    if let Some(view) = view::view_statement(sql, mode) {
        return Ok(Parsed {
            stmt: view?,
            item_texts: Vec::new(),
            params: Vec::new(),
            share_lock: None,
            ddl_text: Some(original.to_string()),
            dml_ignore: false,
            set_aside: Vec::new(),
            into: None,
        });
    }
    let tokens = tokenize_in(sql, mode).map_err(|e| syntax_error(sql, Some(e.location)))?;
    let mut tokens = strip_trailing(tokens, sql)?;
    if tokens.is_empty() {
        // Only comments (`/*!*/`, which `mariadb-binlog` output sends after each statement)
        // is a statement that does nothing in MariaDB; only blanks and `;` are 1065.
        if original.trim().trim_end_matches(';').trim().is_empty() {
            return Err(Error::new(ErrorCode::EmptyQuery, "Query was empty"));
        }
        return Ok(Parsed {
            stmt: Stmt::Do(Vec::new()),
            item_texts: Vec::new(),
            params: Vec::new(),
            share_lock: None,
            ddl_text: None,
            dml_ignore: false,
            set_aside: Vec::new(),
            into: None,
        });
    }
    // MariaDB has no `->` / `->>` operators: it reads `-` and then fails at the `>`.
    if let Some(t) = tokens
        .iter()
        .find(|t| matches!(t.token, Token::Arrow | Token::LongArrow))
    {
        let mut at = t.span.start;
        at.column += 1;
        let body = sql.trim_end().trim_end_matches(';').trim_end();
        return Err(syntax_error(body, Some(at)));
    }
    let share_lock = strip_share_lock(&mut tokens);
    let into = match select_into::strip(&mut tokens) {
        None => None,
        Some(select_into::Found::Into(i)) => Some(i),
        Some(select_into::Found::File) => {
            return Ok(Parsed {
                stmt: Stmt::Unsupported(
                    "SELECT … INTO OUTFILE / DUMPFILE (files on the server)".into(),
                ),
                item_texts: Vec::new(),
                params: Vec::new(),
                share_lock,
                ddl_text: None,
                dml_ignore: false,
                set_aside: Vec::new(),
                into: None,
            })
        }
        Some(select_into::Found::Misplaced(at)) => {
            let body = sql.trim_end().trim_end_matches(';').trim_end();
            return Err(syntax_error(body, Some(at)));
        }
        Some(select_into::Found::Undeclared(name)) => {
            return Err(Error::new(
                ErrorCode::SpUndeclaredVar,
                format!("Undeclared variable: {name}"),
            ))
        }
    };
    let params = tokens
        .iter()
        .filter(|t| matches!(&t.token, Token::Placeholder(p) if p == "?"))
        .map(|t| t.span.start)
        .collect();
    let item_texts = select_item_texts(&tokens, sql);
    hex_literal::rewrite(&mut tokens, sql)?;
    rewrite_mod_operator(&mut tokens);
    if !mode.has(parse_bit::PIPES_AS_CONCAT) {
        rewrite_pipes_operator(&mut tokens);
    }
    if mode.has(parse_bit::REAL_AS_FLOAT) {
        rewrite_real_as_float(&mut tokens);
    }
    let first = first_word(&tokens);
    charset_words::rewrite(&mut tokens, first.as_deref());
    if let Some(what) = refused_by_keyword(&tokens, first.as_deref()) {
        return Ok(Parsed {
            stmt: Stmt::Unsupported(what.to_string()),
            item_texts,
            params,
            share_lock,
            ddl_text: None,
            dml_ignore: false,
            set_aside: Vec::new(),
            into: None,
        });
    }
    let dml_ignore = strip_ignore(&mut tokens, first.as_deref());
    strip_no_op_modifiers(&mut tokens, first.as_deref());
    if let Some(at) = float_type::rewrite(&mut tokens, first.as_deref()) {
        let body = sql.trim_end().trim_end_matches(';').trim_end();
        return Err(syntax_error(body, Some(at)));
    }
    if let Some(at) = rewrite_multi_table(&mut tokens, first.as_deref()) {
        let body = sql.trim_end().trim_end_matches(';').trim_end();
        return Err(syntax_error(body, Some(at)));
    }
    let words = tokens.iter().filter(|t| !is_trivia(&t.token)).count();
    let shallow = ShallowMySql::new(words).with_mode(mode);
    let stmt = {
        let mut p = Parser::new(&shallow)
            .with_recursion_limit(MAX_NESTING)
            .with_tokens_with_locations(tokens);
        let stmt = parse_statement(&mut p, first.as_deref())
            .and_then(|s| expect_end(&mut p).map(|_| s))
            .map_err(|e| match shallow.nesting_exceeded() {
                true => parser_error(sql, ParserError::RecursionLimitExceeded, &p),
                false => parser_error(sql, e, &p),
            })?;
        stmt
    };
    // Logged as sent: a replica gates its executable comments by its own version. The
    // session's sql_mode goes with it (`log/ddl_session.rs`), so a replay or a replica reads
    // it under ANSI_QUOTES & co. again.
    let ddl_text = is_logged_as_text(&stmt).then(|| original.to_string());
    Ok(Parsed {
        stmt,
        item_texts,
        params,
        share_lock,
        ddl_text,
        dml_ignore,
        set_aside: shallow.into_set_aside(),
        into,
    })
}

/// Tokenize `sql` as `mode` reads it.
pub(in crate::sql) fn tokenize_in(
    sql: &str,
    mode: ParseMode,
) -> std::result::Result<Vec<TokenWithSpan>, sqlparser::tokenizer::TokenizerError> {
    if mode == ParseMode(0) {
        return Tokenizer::new(&MySqlDialect {}, sql).tokenize_with_location();
    }
    let dialect = ShallowMySql::new(0).with_mode(mode);
    Tokenizer::new(&dialect, sql).tokenize_with_location()
}

/// REAL_AS_FLOAT: the type name `REAL` is `FLOAT` (REAL is a reserved word: it is a type name
/// wherever it appears).
fn rewrite_real_as_float(tokens: &mut [TokenWithSpan]) {
    for t in tokens.iter_mut() {
        if is_word(&t.token, "REAL") {
            t.token = Token::make_keyword("FLOAT");
        }
    }
}

/// DDL is logged as its text (binlog Query event) and replayed by running it again.
fn is_logged_as_text(stmt: &Stmt) -> bool {
    matches!(
        stmt,
        Stmt::Sql(_)
            | Stmt::CreateDatabase { .. }
            | Stmt::AlterDatabase { .. }
            | Stmt::DropDatabase { .. }
            | Stmt::AlterTable(_)
            | Stmt::RenameTable(_)
    )
}

// ---------------------------------------------------------------------------------------------
// Token helpers

pub(in crate::sql) fn is_word(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

fn is_trivia(t: &Token) -> bool {
    matches!(t, Token::Whitespace(_) | Token::EOF)
}

/// Drop trailing whitespace and `;`; a `;` followed by more text is a second statement.
fn strip_trailing(mut tokens: Vec<TokenWithSpan>, sql: &str) -> Result<Vec<TokenWithSpan>> {
    while tokens
        .last()
        .is_some_and(|t| is_trivia(&t.token) || t.token == Token::SemiColon)
    {
        tokens.pop();
    }
    if let Some(pos) = tokens.iter().position(|t| t.token == Token::SemiColon) {
        let next = tokens[pos + 1..]
            .iter()
            .find(|t| !is_trivia(&t.token))
            .map(|t| t.span.start);
        return Err(syntax_error(sql, next));
    }
    if tokens.iter().all(|t| is_trivia(&t.token)) {
        tokens.clear();
    }
    Ok(tokens)
}

/// Remove a trailing `LOCK IN SHARE MODE [NOWAIT | SKIP LOCKED]` (sqlparser does not know it);
/// returns how its locks wait.
fn strip_share_lock(tokens: &mut Vec<TokenWithSpan>) -> Option<WaitPolicy> {
    let tail: Vec<usize> = tokens
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, t)| !is_trivia(&t.token))
        .map(|(i, _)| i)
        .take(6)
        .collect();
    let word = |k: usize, w: &str| tail.get(k).is_some_and(|&i| is_word(&tokens[i].token, w));
    let (skip, wait) = if word(0, "NOWAIT") {
        (1, WaitPolicy::NoWait)
    } else if word(1, "SKIP") && word(0, "LOCKED") {
        (2, WaitPolicy::SkipLocked)
    } else {
        (0, WaitPolicy::Wait)
    };
    let words = ["MODE", "SHARE", "IN", "LOCK"];
    if words.iter().enumerate().all(|(k, w)| word(skip + k, w)) {
        tokens.truncate(tail[skip + 3]);
        return Some(wait);
    }
    None
}

/// Clauses refused by a keyword alone, before parsing: `PARTITION BY` (partitioned tables).
fn refused_by_keyword(tokens: &[TokenWithSpan], first: Option<&str>) -> Option<&'static str> {
    let words = || tokens.iter().filter(|t| !is_trivia(&t.token));
    match first {
        Some("CREATE") => {
            let mut depth = 0i32;
            for t in words() {
                match t.token {
                    Token::LParen => depth += 1,
                    Token::RParen => depth -= 1,
                    _ if depth == 0 && is_word(&t.token, "PARTITION") => {
                        return Some("partitioned tables")
                    }
                    _ => {}
                }
            }
            None
        }
        _ => None,
    }
}

/// `UPDATE [LOW_PRIORITY] IGNORE`, `DELETE [LOW_PRIORITY] [QUICK] IGNORE`: the IGNORE
/// among the modifiers after the first word is taken out; true if there was one.
fn strip_ignore(tokens: &mut Vec<TokenWithSpan>, first: Option<&str>) -> bool {
    if !matches!(first, Some("UPDATE" | "DELETE")) {
        return false;
    }
    let Some(start) = tokens.iter().position(|t| !is_trivia(&t.token)) else {
        return false;
    };
    let mut i = start + 1;
    while i < tokens.len() {
        let t = &tokens[i].token;
        if is_trivia(t) || ["LOW_PRIORITY", "QUICK"].iter().any(|w| is_word(t, w)) {
            i += 1;
        } else if is_word(t, "IGNORE") {
            tokens.remove(i);
            return true;
        } else {
            break;
        }
    }
    false
}

/// `UPDATE LOW_PRIORITY`, `DELETE [LOW_PRIORITY] [QUICK]`: they only matter to engines with
/// table locks (and MyISAM indexes); with row locks MariaDB does nothing with them either.
/// `sqlparser` does not know them, so they are taken out here.
fn strip_no_op_modifiers(tokens: &mut Vec<TokenWithSpan>, first: Option<&str>) {
    let words: &[&str] = match first {
        Some("UPDATE") => &["LOW_PRIORITY"],
        Some("DELETE") => &["LOW_PRIORITY", "QUICK"],
        _ => return,
    };
    let Some(start) = tokens.iter().position(|t| !is_trivia(&t.token)) else {
        return;
    };
    let mut i = start + 1;
    while i < tokens.len() {
        if is_trivia(&tokens[i].token) {
            i += 1;
        } else if words.iter().any(|w| is_word(&tokens[i].token, w)) {
            tokens.remove(i);
        } else {
            break;
        }
    }
}

/// Multi-table UPDATE and DELETE forms sqlparser does not read (see `strip_delete_stars`).
/// `UPDATE t1, t2 … SET`: sqlparser reads one table (with joins) before SET, so the first
/// comma of the table list becomes `FROM` (`UPDATE t1 FROM t2, … SET`, which the binder reads
/// as the multi-table list; see `exec/multi_dml.rs`). A `FROM` written before SET is not
/// MariaDB syntax: its position is returned (a syntax error there).
fn rewrite_multi_table(tokens: &mut [TokenWithSpan], first: Option<&str>) -> Option<Location> {
    if first == Some("DELETE") {
        strip_delete_stars(tokens);
        return multi_delete_order_limit(tokens);
    }
    if first != Some("UPDATE") {
        return None;
    }
    let mut depth = 0i32;
    let mut comma = None;
    let mut set = false;
    for (i, t) in tokens.iter().enumerate().skip(1) {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 && !set && comma.is_none() => comma = Some(i),
            tok if depth == 0 && is_word(tok, "SET") => set = true,
            // `UPDATE t FROM …` and `UPDATE t SET … FROM …` are not MariaDB's.
            tok if depth == 0 && is_word(tok, "FROM") => return Some(t.span.start),
            _ => {}
        }
    }
    if let Some(i) = comma {
        tokens[i].token = Token::make_keyword("FROM");
    }
    None
}

/// A multi-table DELETE (targets before FROM, or USING) has no ORDER BY or LIMIT: the
/// position of one is a syntax error.
fn multi_delete_order_limit(tokens: &[TokenWithSpan]) -> Option<Location> {
    let mut words = tokens.iter().filter(|t| !is_trivia(&t.token)).skip(1);
    let mut multi = words.next().is_some_and(|t| !is_word(&t.token, "FROM"));
    let mut depth = 0i32;
    for t in tokens {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            tok if depth == 0 && is_word(tok, "USING") => multi = true,
            tok if depth == 0 && multi && (is_word(tok, "ORDER") || is_word(tok, "LIMIT")) => {
                return Some(t.span.start)
            }
            _ => {}
        }
    }
    None
}

/// `DELETE t1.*, t2.* FROM …`: a multi-table DELETE's targets may be written `t.*`; the
/// `.*` (before WHERE, outside parentheses) is blanked out for sqlparser.
fn strip_delete_stars(tokens: &mut [TokenWithSpan]) {
    let mut depth = 0i32;
    for i in 0..tokens.len() {
        match &tokens[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            tok if depth == 0 && is_word(tok, "WHERE") => return,
            Token::Period
                if depth == 0
                    && i > 0
                    && matches!(tokens[i - 1].token, Token::Word(_))
                    && tokens.get(i + 1).is_some_and(|t| t.token == Token::Mul) =>
            {
                tokens[i].token = Token::Whitespace(Whitespace::Space);
                tokens[i + 1].token = Token::Whitespace(Whitespace::Space);
            }
            _ => {}
        }
    }
}

/// `a || b` is `a OR b` (the default sql_mode has no PIPES_AS_CONCAT), with OR's precedence:
/// sqlparser would parse it as string concatenation, binding tighter than `+`.
fn rewrite_pipes_operator(tokens: &mut [TokenWithSpan]) {
    for t in tokens.iter_mut() {
        if t.token == Token::StringConcat {
            t.token = Token::make_keyword("OR");
        }
    }
}

/// Keywords that end an operand (`NULL MOD (x)`, `CASE … END MOD (x)` are the operator, as
/// after a number).
const VALUE_KEYWORDS: &[&str] = &[
    "END",
    "NULL",
    "TRUE",
    "FALSE",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "LOCALTIME",
    "LOCALTIMESTAMP",
];

/// `a MOD b` (not `MOD(a, b)`) is the `%` operator; sqlparser only knows the function form.
fn rewrite_mod_operator(tokens: &mut [TokenWithSpan]) {
    for i in 0..tokens.len() {
        if !is_word(&tokens[i].token, "MOD") {
            continue;
        }
        let next = tokens[i + 1..].iter().find(|t| !is_trivia(&t.token));
        let prev = tokens[..i].iter().rev().find(|t| !is_trivia(&t.token));
        let operand_before = prev.is_some_and(|t| {
            matches!(
                t.token,
                Token::Word(_)
                    | Token::Number(..)
                    | Token::RParen
                    | Token::SingleQuotedString(_)
                    | Token::HexStringLiteral(_)
                    | Token::Placeholder(_)
            )
        });
        // `MOD (` after a keyword (`SELECT MOD(a, 2)`, `AND MOD(…)`) is the function; after
        // something that can only end an operand (`) MOD (`, `2 MOD (`, `c MOD (`) the operator.
        let surely_operand = prev.is_some_and(|t| match &t.token {
            Token::Word(w) => {
                w.quote_style.is_some()
                    || w.keyword == Keyword::NoKeyword
                    || VALUE_KEYWORDS
                        .iter()
                        .any(|k| w.value.eq_ignore_ascii_case(k))
            }
            Token::RParen
            | Token::Number(..)
            | Token::SingleQuotedString(_)
            | Token::HexStringLiteral(_) => true,
            _ => false,
        });
        let paren_next = next.is_some_and(|t| t.token == Token::LParen);
        if operand_before && (!paren_next || surely_operand) {
            tokens[i].token = Token::Mod;
        }
    }
}

fn first_word(tokens: &[TokenWithSpan]) -> Option<String> {
    tokens
        .iter()
        .find(|t| !is_trivia(&t.token))
        .and_then(|t| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            _ => None,
        })
}

/// The source text of each item of the top-level SELECT list, as MySQL names columns: a
/// column reference by its (last) name, a string literal by its value, anything else by its
/// text as written.
fn select_item_texts(tokens: &[TokenWithSpan], sql: &str) -> Vec<String> {
    if let Some(r) = returning_start(tokens) {
        return list_item_texts(tokens, r, sql);
    }
    let Some(start) = tokens.iter().position(|t| is_word(&t.token, "SELECT")) else {
        return Vec::new();
    };
    let start = match tokens[..start].iter().any(|t| !is_trivia(&t.token)) {
        false => start,
        true => match select_after_with(tokens) {
            Some(s) => s,
            None => return Vec::new(),
        },
    };
    list_item_texts(tokens, start, sql)
}

/// `INSERT / REPLACE / DELETE … RETURNING list`: the position of RETURNING (its list's items
/// are named like a SELECT list's).
fn returning_start(tokens: &[TokenWithSpan]) -> Option<usize> {
    let first = tokens.iter().find(|t| !is_trivia(&t.token))?;
    if !["INSERT", "REPLACE", "DELETE"]
        .iter()
        .any(|w| is_word(&first.token, w))
    {
        return None;
    }
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate() {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            tok if depth == 0 && is_word(tok, "RETURNING") => return Some(i),
            _ => {}
        }
    }
    None
}

/// The texts of the items of the list after the keyword at `start` (SELECT or RETURNING).
fn list_item_texts(tokens: &[TokenWithSpan], start: usize, sql: &str) -> Vec<String> {
    const MODIFIERS: &[&str] = &[
        "DISTINCT",
        "ALL",
        "DISTINCTROW",
        "HIGH_PRIORITY",
        "STRAIGHT_JOIN",
        "SQL_SMALL_RESULT",
        "SQL_BIG_RESULT",
        "SQL_BUFFER_RESULT",
        "SQL_NO_CACHE",
        "SQL_CACHE",
        "SQL_CALC_FOUND_ROWS",
    ];
    const ENDS: &[&str] = &[
        "FROM",
        "WHERE",
        "GROUP",
        "HAVING",
        "ORDER",
        "LIMIT",
        "FOR",
        "INTO",
        "UNION",
        "WINDOW",
        "LOCK",
        "INTERSECT",
        "EXCEPT",
    ];
    let mut items = Vec::new();
    let mut cur: Vec<std::borrow::Cow<'_, Token>> = Vec::new();
    // A hex literal is named as written (`0x41`, `x'41'`), as MariaDB names it.
    let mut hex_source = hex_literal::Cursor::new(sql);
    let mut depth = 0i32;
    let mut i = start + 1;
    while i < tokens.len()
        && (is_trivia(&tokens[i].token) || MODIFIERS.iter().any(|m| is_word(&tokens[i].token, m)))
    {
        i += 1;
    }
    for t in &tokens[i..] {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                items.push(item_text(&cur));
                cur.clear();
                continue;
            }
            tok if depth == 0 && ENDS.iter().any(|e| is_word(tok, e)) => break,
            _ => {}
        }
        match hex_source.source_text(t) {
            Some(text) => cur.push(std::borrow::Cow::Owned(Token::make_word(text, None))),
            None => cur.push(std::borrow::Cow::Borrowed(&t.token)),
        }
    }
    items.push(item_text(&cur));
    items
}

/// `WITH [RECURSIVE] name [(cols)] AS (…), … SELECT`: the position of that SELECT (the main
/// query's, named like a statement's first SELECT); None for any other shape.
fn select_after_with(tokens: &[TokenWithSpan]) -> Option<usize> {
    let mut i = 0;
    let next = |i: &mut usize| -> Option<usize> {
        while *i < tokens.len() && is_trivia(&tokens[*i].token) {
            *i += 1;
        }
        (*i < tokens.len()).then(|| {
            *i += 1;
            *i - 1
        })
    };
    // Skip a parenthesized group starting at `at`; the index after it.
    let group_end = |at: usize| -> Option<usize> {
        let mut depth = 0i32;
        for (k, t) in tokens.iter().enumerate().skip(at) {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k + 1);
                    }
                }
                _ => {}
            }
        }
        None
    };
    let w = next(&mut i)?;
    if !is_word(&tokens[w].token, "WITH") {
        return None;
    }
    loop {
        let mut k = next(&mut i)?;
        if is_word(&tokens[k].token, "RECURSIVE") {
            k = next(&mut i)?;
        }
        if !matches!(tokens[k].token, Token::Word(_)) {
            return None;
        }
        k = next(&mut i)?;
        if matches!(tokens[k].token, Token::LParen) {
            i = group_end(k)?;
            k = next(&mut i)?;
        }
        if !is_word(&tokens[k].token, "AS") {
            return None;
        }
        k = next(&mut i)?;
        if !matches!(tokens[k].token, Token::LParen) {
            return None;
        }
        i = group_end(k)?;
        k = next(&mut i)?;
        match &tokens[k].token {
            Token::Comma => continue,
            t if is_word(t, "SELECT") => return Some(k),
            _ => return None,
        }
    }
}

fn item_text(tokens: &[std::borrow::Cow<'_, Token>]) -> String {
    let mut toks: Vec<&Token> = tokens.iter().map(|t| t.as_ref()).collect();
    while toks.first().is_some_and(|t| is_trivia(t)) {
        toks.remove(0);
    }
    while toks.last().is_some_and(|t| is_trivia(t)) {
        toks.pop();
    }
    match toks.as_slice() {
        [Token::SingleQuotedString(s)] | [Token::DoubleQuotedString(s)] => return s.clone(),
        // A string with a character set introducer (`_utf8mb4'x'`) is named by its value too.
        [Token::Word(w), Token::SingleQuotedString(s)]
            if w.quote_style.is_none()
                && w.value.starts_with('_')
                && crate::types::text_charset::WireCharset::named(&w.value[1..]).is_some() =>
        {
            return s.clone()
        }
        [Token::Word(w)] => return w.value.clone(),
        [Token::Word(first), .., Token::Period, Token::Word(w)]
            if !first.value.starts_with('@')
                && toks
                    .iter()
                    .all(|t| matches!(t, Token::Word(_) | Token::Period)) =>
        {
            return w.value.clone()
        }
        _ => {}
    }
    toks.iter()
        .map(|t| match t {
            Token::Whitespace(Whitespace::SingleLineComment { .. })
            | Token::Whitespace(Whitespace::MultiLineComment(_)) => " ".to_string(),
            other => other.to_string(),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Errors

/// Byte offset of a (1-based line, 1-based column in characters) location in `sql`.
pub(in crate::sql) fn offset_of(sql: &str, loc: Location) -> usize {
    let mut line = 1u64;
    let mut col = 1u64;
    for (i, c) in sql.char_indices() {
        if line == loc.line && col == loc.column {
            return i;
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    sql.len()
}

fn syntax_error(sql: &str, at: Option<Location>) -> Error {
    match at {
        Some(loc) if loc.line > 0 => {
            // MariaDB's "near" text stops before the statement's closing semicolons.
            let off = offset_of(sql, loc);
            let near = sql[off..].trim_end().trim_end_matches(';').trim_end();
            Error::parse(near, loc.line as usize)
        }
        _ => Error::parse("", sql.lines().count().max(1)),
    }
}

/// Map a sqlparser error (whose text ends with "at Line: L, Column: C") to 1064.
fn parser_error(sql: &str, e: ParserError, p: &Parser<'_>) -> Error {
    if let ParserError::RecursionLimitExceeded = e {
        // MariaDB says "memory exhausted near …" when its parser stack overflows.
        let loc = p.peek_token().span.start;
        let off = if loc.line > 0 {
            offset_of(sql, loc)
        } else {
            sql.len()
        };
        let near: String = sql[off..].chars().take(80).collect();
        return Error::new(
            ErrorCode::ParseError,
            format!(
                "Expressions nested more than {MAX_NESTING} levels deep near '{near}' at line {}",
                loc.line.max(1)
            ),
        );
    }
    let msg = e.to_string();
    let loc = msg.rfind("at Line: ").and_then(|p| {
        let rest = &msg[p + "at Line: ".len()..];
        let (l, c) = rest.split_once(", Column: ")?;
        let c: String = c.chars().take_while(|c| c.is_ascii_digit()).collect();
        Some(Location::new(l.trim().parse().ok()?, c.parse().ok()?))
    });
    if msg.contains("found: EOF") {
        return Error::parse("", sql.lines().count().max(1));
    }
    syntax_error(sql, loc)
}

fn unexpected<T>(p: &Parser<'_>, what: &str) -> std::result::Result<T, ParserError> {
    p.expected(what, p.peek_token())
}

fn expect_end(p: &mut Parser<'_>) -> std::result::Result<(), ParserError> {
    while p.consume_token(&Token::SemiColon) {}
    match p.peek_token().token {
        Token::EOF => Ok(()),
        _ => unexpected(p, "end of statement"),
    }
}

// ---------------------------------------------------------------------------------------------
// Statement dispatch

type PResult<T> = std::result::Result<T, ParserError>;

fn peek_word(p: &Parser<'_>) -> Option<String> {
    match p.peek_token().token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

fn peek_nth_word(p: &Parser<'_>, n: usize) -> Option<String> {
    match p.peek_nth_token(n).token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

/// Consume the word `w` (unquoted, any case) if it is next.
fn eat(p: &mut Parser<'_>, w: &str) -> bool {
    if peek_word(p).as_deref() == Some(w) {
        p.next_token();
        true
    } else {
        false
    }
}

fn expect_word(p: &mut Parser<'_>, w: &str) -> PResult<()> {
    if eat(p, w) {
        Ok(())
    } else {
        unexpected(p, w)
    }
}

fn eat_seq(p: &mut Parser<'_>, ws: &[&str]) -> bool {
    for (i, w) in ws.iter().enumerate() {
        if peek_nth_word(p, i).as_deref() != Some(*w) {
            return false;
        }
    }
    for _ in ws {
        p.next_token();
    }
    true
}

fn ident(p: &mut Parser<'_>) -> PResult<String> {
    Ok(p.parse_identifier()?.value)
}

/// `name` or `db.name`.
fn qualified(p: &mut Parser<'_>) -> PResult<(Option<String>, String)> {
    let a = ident(p)?;
    if p.consume_token(&Token::Period) {
        let b = ident(p)?;
        return Ok((Some(a), b));
    }
    Ok((None, a))
}

/// `LOCK TABLE[S] t {READ [LOCAL] | [LOW_PRIORITY] WRITE [CONCURRENT]}, …`. READ LOCAL is
/// READ and WRITE CONCURRENT is WRITE (their differences matter to MyISAM only, as in
/// MariaDB with InnoDB); LOW_PRIORITY does nothing in MariaDB either. Aliases are refused.
fn parse_lock_tables(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    if !eat(p, "TABLES") {
        expect_word(p, "TABLE")?;
    }
    let mut tables = Vec::new();
    loop {
        let (db, table) = qualified(p)?;
        let write = if eat(p, "READ") {
            eat(p, "LOCAL");
            false
        } else {
            eat(p, "LOW_PRIORITY");
            if !eat(p, "WRITE") {
                return Ok(unsupported(p, "LOCK TABLES with table aliases"));
            }
            eat(p, "CONCURRENT");
            true
        };
        tables.push((db, table, write));
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    Ok(Stmt::LockTables(tables))
}

/// `KILL [HARD | SOFT] [CONNECTION | QUERY] id`; `KILL … QUERY ID n` and `KILL … USER u`
/// are refused. HARD and SOFT are the same here: a statement stops only at its interruption
/// points (see `crate::interrupt`), which is what SOFT promises.
fn parse_kill(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    let _ = eat(p, "HARD") || eat(p, "SOFT");
    let query_only = eat(p, "QUERY");
    if !query_only {
        eat(p, "CONNECTION");
    }
    if eat(p, "USER") || (query_only && eat(p, "ID")) {
        return Ok(unsupported(p, "KILL USER / KILL QUERY ID"));
    }
    let id = p.parse_literal_uint()?;
    let id = u32::try_from(id).unwrap_or(u32::MAX);
    Ok(Stmt::Kill { query_only, id })
}

fn parse_statement(p: &mut Parser<'_>, first: Option<&str>) -> PResult<Stmt> {
    let Some(first) = first else {
        return Ok(Stmt::Sql(Box::new(p.parse_statement()?)));
    };
    match first {
        "BEGIN" => {
            p.next_token();
            eat(p, "WORK");
            Ok(Stmt::Begin {
                read_only: None,
                consistent_snapshot: false,
            })
        }
        "START" => parse_start(p),
        "COMMIT" => parse_commit(p),
        "ROLLBACK" => parse_rollback(p),
        "SAVEPOINT" => {
            p.next_token();
            Ok(Stmt::Savepoint(ident(p)?))
        }
        "RELEASE" => {
            p.next_token();
            expect_word(p, "SAVEPOINT")?;
            Ok(Stmt::ReleaseSavepoint(ident(p)?))
        }
        "SET" => parse_set(p),
        "SHOW" => parse_show(p),
        "USE" => {
            p.next_token();
            Ok(Stmt::Use(ident(p)?))
        }
        "CREATE" => parse_create(p),
        "DROP" => parse_drop(p),
        "ALTER" => parse_alter(p),
        "GRANT" => parse_grant(p),
        "REVOKE" => parse_revoke(p),
        "FLUSH" => Ok(parse_flush(p)),
        "KILL" => parse_kill(p),
        "PURGE" => parse_purge(p),
        "UNLOCK" => {
            p.next_token();
            if !eat(p, "TABLES") {
                expect_word(p, "TABLE")?;
            }
            Ok(Stmt::UnlockTables)
        }
        "LOCK" => parse_lock_tables(p),
        "ANALYZE" | "OPTIMIZE" | "CHECK" | "REPAIR" => parse_table_maint(p, first),
        "CHECKSUM" => {
            p.next_token();
            if !eat(p, "TABLE") {
                expect_word(p, "TABLES")?;
            }
            let mut tables = vec![qualified(p)?];
            while p.consume_token(&Token::Comma) {
                tables.push(qualified(p)?);
            }
            let quick = eat(p, "QUICK");
            if !quick {
                eat(p, "EXTENDED");
            }
            Ok(Stmt::Checksum { tables, quick })
        }
        "DO" => {
            p.next_token();
            Ok(Stmt::Do(p.parse_comma_separated(Parser::parse_expr)?))
        }
        "DESCRIBE" | "DESC" | "EXPLAIN" => parse_describe(p),
        "CALL" => Ok(unsupported(p, "stored procedures")),
        "PREPARE" => prepare_sql::parse_prepare(p),
        "EXECUTE" => prepare_sql::parse_execute(p),
        "DEALLOCATE" => prepare_sql::parse_deallocate(p),
        "RENAME" if matches!(peek_nth_word(p, 1).as_deref(), Some("TABLE" | "TABLES")) => {
            p.next_token();
            Ok(Stmt::RenameTable(alter::parse_rename_table(p)?))
        }
        "LOAD" => load::parse_load(p),
        "BINLOG" => binlog::parse_binlog(p),
        "HANDLER" | "XA" | "INSTALL" | "UNINSTALL" | "RENAME" | "RESET" | "CHANGE" | "CACHE"
        | "HELP" | "SIGNAL" | "RESIGNAL" | "GET" | "DECLARE" => Ok(unsupported(p, first)),
        _ => Ok(Stmt::Sql(Box::new(p.parse_statement()?))),
    }
}

/// Consume everything; the statement is recognised but not supported.
fn unsupported(p: &mut Parser<'_>, what: &str) -> Stmt {
    skip_rest(p);
    Stmt::Unsupported(what.to_string())
}

/// `FLUSH [NO_WRITE_TO_BINLOG | LOCAL] option, …`: `LOGS` and `BINARY LOGS` close the current
/// binlog file and start the next; the other options have nothing to flush in an in-memory
/// engine whose grants and status are always current.
fn parse_flush(p: &mut Parser<'_>) -> Stmt {
    p.next_token();
    let mut binary_logs = false;
    while p.peek_token().token != Token::EOF {
        if peek_word(p).as_deref() == Some("LOGS") {
            binary_logs = true;
        }
        p.next_token();
    }
    Stmt::Flush { binary_logs }
}

fn skip_rest(p: &mut Parser<'_>) {
    while p.peek_token().token != Token::EOF {
        p.next_token();
    }
}

/// `START TRANSACTION [READ WRITE | WITH CONSISTENT SNAPSHOT], …`: a consistent snapshot is
/// what MariaDB does under READ COMMITTED too (nothing: each statement reads the latest
/// committed data). `READ ONLY` (writes refused with 1792) is not implemented: refused.
fn parse_start(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    expect_word(p, "TRANSACTION")?;
    let mut read_only = None;
    let mut consistent_snapshot = false;
    loop {
        let mode = if eat_seq(p, &["READ", "WRITE"]) {
            Some(false)
        } else if eat_seq(p, &["READ", "ONLY"]) {
            Some(true)
        } else if eat_seq(p, &["WITH", "CONSISTENT", "SNAPSHOT"]) {
            consistent_snapshot = true;
            None
        } else {
            break;
        };
        if mode.is_some() {
            if read_only.is_some() {
                // READ ONLY and READ WRITE exclude each other (MariaDB: 1064).
                return unexpected(p, "one access mode");
            }
            read_only = mode;
        }
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    Ok(Stmt::Begin {
        read_only,
        consistent_snapshot,
    })
}

fn parse_commit(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    eat(p, "WORK");
    if eat_seq(p, &["AND", "NO", "CHAIN"]) || eat_seq(p, &["NO", "RELEASE"]) {
        eat_seq(p, &["NO", "RELEASE"]);
        return Ok(Stmt::Commit);
    }
    if peek_word(p).as_deref() == Some("AND") || peek_word(p).as_deref() == Some("RELEASE") {
        return Ok(unsupported(p, "COMMIT AND CHAIN / RELEASE"));
    }
    Ok(Stmt::Commit)
}

fn parse_rollback(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    eat(p, "WORK");
    if eat(p, "TO") {
        eat(p, "SAVEPOINT");
        return Ok(Stmt::RollbackToSavepoint(ident(p)?));
    }
    if eat_seq(p, &["AND", "NO", "CHAIN"]) || eat_seq(p, &["NO", "RELEASE"]) {
        eat_seq(p, &["NO", "RELEASE"]);
        return Ok(Stmt::Rollback);
    }
    if peek_word(p).as_deref() == Some("AND") || peek_word(p).as_deref() == Some("RELEASE") {
        return Ok(unsupported(p, "ROLLBACK AND CHAIN / RELEASE"));
    }
    Ok(Stmt::Rollback)
}

// ---------------------------------------------------------------------------------------------
// SET

/// `NAMES cs [COLLATE c]` / `CHARACTER SET cs` / `CHARSET cs` (each also `DEFAULT`) at the start
/// of a SET item, else None with nothing consumed. `SET charset = 1` names a variable (1193, as
/// in MariaDB); `SET names = 1` is a syntax error there and here.
fn parse_names_item(p: &mut Parser<'_>) -> PResult<Option<SetTarget>> {
    let assigns = |p: &Parser<'_>, n: usize| {
        matches!(
            p.peek_nth_token(n).token,
            Token::Eq | Token::Assignment | Token::Period
        )
    };
    let default_or_ident = |p: &mut Parser<'_>| -> PResult<String> {
        match eat(p, "DEFAULT") {
            true => Ok("utf8mb4".to_string()),
            false => ident(p),
        }
    };
    match peek_word(p).as_deref() {
        Some("NAMES") => {
            p.next_token();
            if eat(p, "DEFAULT") {
                return Ok(Some(SetTarget::Names {
                    charset: "utf8mb4".into(),
                    collation: None,
                }));
            }
            let charset = ident(p)?;
            let collation = if eat(p, "COLLATE") {
                Some(ident(p)?)
            } else {
                None
            };
            Ok(Some(SetTarget::Names { charset, collation }))
        }
        Some("CHARACTER") if peek_nth_word(p, 1).as_deref() == Some("SET") && !assigns(p, 1) => {
            p.next_token();
            p.next_token();
            let charset = default_or_ident(p)?;
            Ok(Some(SetTarget::Names {
                charset,
                collation: None,
            }))
        }
        Some("CHARSET") if !assigns(p, 1) => {
            p.next_token();
            let charset = default_or_ident(p)?;
            Ok(Some(SetTarget::Names {
                charset,
                collation: None,
            }))
        }
        _ => Ok(None),
    }
}

fn parse_set(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    if let Some(SetTarget::Names { charset, collation }) = parse_names_item(p)? {
        if !p.consume_token(&Token::Comma) {
            return Ok(Stmt::SetNames { charset, collation });
        }
        // `SET NAMES utf8mb4, @@SESSION.sql_mode = …` (Rails' connection setup): a list.
        let mut items = vec![SetItem {
            target: SetTarget::Names { charset, collation },
            value: SetValue::Default,
        }];
        let mut global = false;
        loop {
            items.push(parse_set_item(p, &mut global)?);
            if !p.consume_token(&Token::Comma) {
                break;
            }
        }
        return Ok(Stmt::Set(items));
    }
    if eat(p, "PASSWORD") {
        return parse_set_password(p);
    }
    let scope_then_txn = matches!(
        peek_word(p).as_deref(),
        Some("GLOBAL" | "SESSION" | "LOCAL")
    ) && peek_nth_word(p, 1).as_deref() == Some("TRANSACTION");
    if scope_then_txn || peek_word(p).as_deref() == Some("TRANSACTION") {
        let scope = if eat(p, "GLOBAL") {
            TxScope::Global
        } else if eat(p, "SESSION") || eat(p, "LOCAL") {
            TxScope::Session
        } else {
            TxScope::Next
        };
        expect_word(p, "TRANSACTION")?;
        return parse_set_transaction(p, scope);
    }
    let mut items = Vec::new();
    let mut global = false;
    loop {
        items.push(parse_set_item(p, &mut global)?);
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    Ok(Stmt::Set(items))
}

fn parse_set_password(p: &mut Parser<'_>) -> PResult<Stmt> {
    let user = if eat(p, "FOR") {
        Some(parse_user(p)?)
    } else {
        None
    };
    if !p.consume_token(&Token::Eq) {
        p.expect_token(&Token::Assignment)?;
    }
    let password = if eat(p, "PASSWORD") {
        p.expect_token(&Token::LParen)?;
        let s = p.parse_literal_string()?;
        p.expect_token(&Token::RParen)?;
        s
    } else {
        p.parse_literal_string()?
    };
    Ok(Stmt::SetPassword { user, password })
}

fn parse_set_transaction(p: &mut Parser<'_>, scope: TxScope) -> PResult<Stmt> {
    let mut isolation = None;
    let mut read_only = None;
    loop {
        if peek_word(p).as_deref() == Some("ISOLATION") {
            if isolation.is_some() {
                // A characteristic given twice (MariaDB: 1064 near it).
                return unexpected(p, "one isolation level");
            }
            expect_word(p, "ISOLATION")?;
            expect_word(p, "LEVEL")?;
            let level = if eat_seq(p, &["READ", "COMMITTED"]) {
                "READ-COMMITTED"
            } else if eat_seq(p, &["READ", "UNCOMMITTED"]) {
                "READ-UNCOMMITTED"
            } else if eat_seq(p, &["REPEATABLE", "READ"]) {
                "REPEATABLE-READ"
            } else if eat(p, "SERIALIZABLE") {
                "SERIALIZABLE"
            } else {
                return unexpected(p, "isolation level");
            };
            isolation = Some(level.to_string());
        } else if peek_word(p).as_deref() == Some("READ") {
            if read_only.is_some() {
                return unexpected(p, "one access mode");
            }
            read_only = Some(if eat_seq(p, &["READ", "WRITE"]) {
                false
            } else if eat_seq(p, &["READ", "ONLY"]) {
                true
            } else {
                return unexpected(p, "READ ONLY or READ WRITE");
            });
        } else {
            return unexpected(p, "ISOLATION LEVEL or READ WRITE");
        }
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    Ok(Stmt::SetTransaction {
        scope,
        isolation,
        read_only,
    })
}

fn parse_set_item(p: &mut Parser<'_>, global: &mut bool) -> PResult<SetItem> {
    match peek_word(p).as_deref() {
        Some("GLOBAL") | Some("PERSIST") => {
            p.next_token();
            *global = true;
        }
        Some("SESSION") | Some("LOCAL") => {
            p.next_token();
            *global = false;
        }
        _ => {}
    }
    if let Some(target) = parse_names_item(p)? {
        return Ok(SetItem {
            target,
            value: SetValue::Default,
        });
    }
    let target = parse_set_target(p, *global)?;
    if !p.consume_token(&Token::Eq) && !p.consume_token(&Token::Assignment) {
        return unexpected(p, "=");
    }
    let value = parse_set_value(p, matches!(target, SetTarget::User(_)))?;
    Ok(SetItem { target, value })
}

fn parse_set_target(p: &mut Parser<'_>, global: bool) -> PResult<SetTarget> {
    let t = p.next_token();
    match t.token {
        Token::AtSign => Ok(SetTarget::User(ident(p)?.to_ascii_lowercase())),
        Token::Word(ref w) if w.value.starts_with("@@") => {
            let scope = w.value[2..].to_ascii_lowercase();
            if p.consume_token(&Token::Period) {
                let name = ident(p)?.to_ascii_lowercase();
                let global = match scope.as_str() {
                    "global" | "persist" => true,
                    "session" | "local" => false,
                    _ => return p.expected("GLOBAL or SESSION", t),
                };
                return Ok(SetTarget::Sys { name, global });
            }
            Ok(SetTarget::Sys {
                name: scope,
                global,
            })
        }
        Token::Word(w) if w.value.starts_with('@') => {
            Ok(SetTarget::User(w.value[1..].to_ascii_lowercase()))
        }
        Token::Word(w) => Ok(SetTarget::Sys {
            name: w.value.to_ascii_lowercase(),
            global,
        }),
        _ => p.expected("variable name", t),
    }
}

/// The value of one assignment. To a system variable a bare word is its text
/// (`SET sql_mode = ANSI`, `autocommit = ON`) and `DEFAULT` its default; to a user variable
/// both are expressions, as in MariaDB (`SET @v = abc` is 1054, `@v = DEFAULT` 1064). TRUE
/// and FALSE are the numbers 1 and 0 either way.
fn parse_set_value(p: &mut Parser<'_>, to_user: bool) -> PResult<SetValue> {
    let next_is_end = matches!(
        p.peek_nth_token(1).token,
        Token::Comma | Token::EOF | Token::SemiColon
    );
    if let Token::Word(w) = p.peek_token().token {
        let literal = w.value.eq_ignore_ascii_case("TRUE") || w.value.eq_ignore_ascii_case("FALSE");
        let word_value = ["DEFAULT", "ON"]
            .iter()
            .any(|k| w.value.eq_ignore_ascii_case(k));
        if to_user && w.quote_style.is_none() && word_value {
            // Reserved words, not column names: a syntax error (MariaDB reads a DEFAULT and
            // fails after it, at ON itself).
            if w.value.eq_ignore_ascii_case("DEFAULT") {
                p.next_token();
            }
            return p.expected("expression", p.peek_token());
        }
        if w.quote_style.is_none() && next_is_end && !to_user && !literal {
            p.next_token();
            if w.value.eq_ignore_ascii_case("DEFAULT") {
                return Ok(SetValue::Default);
            }
            // A bare word is a string (`SET sql_mode = ANSI`), but NULL is NULL (MariaDB:
            // `SET time_zone = NULL` is 1231, not an unknown zone named 'NULL').
            if !w.value.starts_with('@') && !w.value.eq_ignore_ascii_case("NULL") {
                return Ok(SetValue::Expr(Box::new(ast::Expr::Value(
                    ast::Value::SingleQuotedString(w.value).into(),
                ))));
            }
            p.prev_token();
        }
    }
    Ok(SetValue::Expr(Box::new(p.parse_expr()?)))
}

// ---------------------------------------------------------------------------------------------
// SHOW

fn parse_filter(p: &mut Parser<'_>) -> PResult<ShowFilter> {
    if eat(p, "LIKE") {
        return Ok(ShowFilter::Like(p.parse_literal_string()?));
    }
    if eat(p, "WHERE") {
        return Ok(ShowFilter::Where(Box::new(p.parse_expr()?)));
    }
    Ok(ShowFilter::None)
}

fn from_db(p: &mut Parser<'_>) -> PResult<Option<String>> {
    if eat(p, "FROM") || eat(p, "IN") {
        return Ok(Some(ident(p)?));
    }
    Ok(None)
}

fn parse_binlog_events(p: &mut Parser<'_>) -> PResult<Show> {
    let file = if eat(p, "IN") {
        Some(p.parse_literal_string()?)
    } else {
        None
    };
    let from = if eat(p, "FROM") {
        Some(p.parse_literal_uint()?)
    } else {
        None
    };
    let (mut offset, mut limit) = (0, None);
    if eat(p, "LIMIT") {
        let first = p.parse_literal_uint()?;
        if p.consume_token(&Token::Comma) {
            offset = first;
            limit = Some(p.parse_literal_uint()?);
        } else {
            limit = Some(first);
        }
    }
    Ok(Show::BinlogEvents {
        file,
        from,
        offset,
        limit,
    })
}

fn parse_purge(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    if !eat(p, "BINARY") {
        expect_word(p, "MASTER")?;
    }
    expect_word(p, "LOGS")?;
    if eat(p, "TO") {
        return Ok(Stmt::Purge(PurgeTarget::To(p.parse_literal_string()?)));
    }
    expect_word(p, "BEFORE")?;
    Ok(Stmt::Purge(PurgeTarget::Before(p.parse_literal_string()?)))
}

fn parse_show(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    let full = eat(p, "FULL");
    let global = eat(p, "GLOBAL");
    if !global {
        eat(p, "SESSION");
        eat(p, "LOCAL");
    }
    let Some(w) = peek_word(p) else {
        return unexpected(p, "SHOW target");
    };
    p.next_token();
    let show = match w.as_str() {
        "DATABASES" | "SCHEMAS" => Show::Databases(parse_filter(p)?),
        "TABLES" => {
            let db = from_db(p)?;
            Show::Tables {
                full,
                db,
                filter: parse_filter(p)?,
            }
        }
        "COLUMNS" | "FIELDS" => {
            if !eat(p, "FROM") {
                expect_word(p, "IN")?;
            }
            let (mut db, table) = qualified(p)?;
            if let Some(d) = from_db(p)? {
                db = Some(d);
            }
            Show::Columns {
                full,
                db,
                table,
                filter: parse_filter(p)?,
            }
        }
        "INDEX" | "INDEXES" | "KEYS" => {
            if !eat(p, "FROM") {
                expect_word(p, "IN")?;
            }
            let (mut db, table) = qualified(p)?;
            if let Some(d) = from_db(p)? {
                db = Some(d);
            }
            if eat(p, "WHERE") {
                p.parse_expr()?;
            }
            Show::Index { db, table }
        }
        "CREATE" => {
            if eat(p, "TABLE") {
                let (db, table) = qualified(p)?;
                Show::CreateTable { db, table }
            } else if eat(p, "VIEW") {
                let (db, table) = qualified(p)?;
                Show::CreateView { db, table }
            } else if eat(p, "DATABASE") || eat(p, "SCHEMA") {
                let if_not_exists = eat_seq(p, &["IF", "NOT", "EXISTS"]);
                Show::CreateDatabase(ident(p)?, if_not_exists)
            } else if eat(p, "USER") {
                let bare = matches!(p.peek_token().token, Token::EOF | Token::SemiColon);
                Show::CreateUser(if bare {
                    None
                } else {
                    parse_user_or_current(p)?
                })
            } else {
                let what = peek_word(p).unwrap_or_default();
                return Ok(unsupported(p, &format!("SHOW CREATE {what}")));
            }
        }
        "VARIABLES" => Show::Variables {
            global,
            filter: parse_filter(p)?,
        },
        "STATUS" => Show::Status(parse_filter(p)?),
        "WARNINGS" | "ERRORS" => {
            if eat(p, "LIMIT") {
                p.parse_comma_separated(Parser::parse_expr)?;
            }
            Show::Warnings {
                errors_only: w == "ERRORS",
                count: false,
            }
        }
        "COUNT" => {
            p.expect_token(&Token::LParen)?;
            p.expect_token(&Token::Mul)?;
            p.expect_token(&Token::RParen)?;
            let which = peek_word(p);
            p.next_token();
            Show::Warnings {
                errors_only: which.as_deref() == Some("ERRORS"),
                count: true,
            }
        }
        "ENGINES" => Show::Engines,
        "STORAGE" => {
            expect_word(p, "ENGINES")?;
            Show::Engines
        }
        "PROCESSLIST" => Show::ProcessList { full },
        "GRANTS" => {
            let user = if eat(p, "FOR") {
                parse_user_or_current(p)?
            } else {
                None
            };
            Show::Grants(user)
        }
        "TABLE" => {
            expect_word(p, "STATUS")?;
            let db = from_db(p)?;
            Show::TableStatus {
                db,
                filter: parse_filter(p)?,
            }
        }
        "BINARY" => {
            expect_word(p, "LOGS")?;
            Show::BinaryLogs
        }
        "MASTER" if eat(p, "LOGS") => Show::BinaryLogs,
        "MASTER" => {
            expect_word(p, "STATUS")?;
            Show::MasterStatus
        }
        "BINLOG" if eat(p, "STATUS") => Show::MasterStatus,
        "SLAVE" | "REPLICA" if eat(p, "HOSTS") => Show::SlaveHosts,
        "BINLOG" => {
            expect_word(p, "EVENTS")?;
            parse_binlog_events(p)?
        }
        "COLLATION" => Show::Collation(parse_filter(p)?),
        "CHARACTER" => {
            expect_word(p, "SET")?;
            Show::Charset(parse_filter(p)?)
        }
        "CHARSET" => Show::Charset(parse_filter(p)?),
        other => return Ok(unsupported(p, &format!("SHOW {other}"))),
    };
    Ok(Stmt::Show(show))
}

// ---------------------------------------------------------------------------------------------
// DDL on databases, users and grants

fn parse_create(p: &mut Parser<'_>) -> PResult<Stmt> {
    match peek_nth_word(p, 1).as_deref() {
        Some("DATABASE") | Some("SCHEMA") => {
            p.next_token();
            p.next_token();
            let if_not_exists = eat_seq(p, &["IF", "NOT", "EXISTS"]);
            let name = ident(p)?;
            let charset = match database_options(p)? {
                Ok(c) => c,
                Err(refused) => return Ok(refused),
            };
            Ok(Stmt::CreateDatabase {
                name,
                if_not_exists,
                charset,
            })
        }
        Some("USER") => {
            p.next_token();
            p.next_token();
            let if_not_exists = eat_seq(p, &["IF", "NOT", "EXISTS"]);
            let users = parse_users_with_password(p)?
                .into_iter()
                .map(|(u, pw)| (u, pw.unwrap_or_default()))
                .collect();
            let require = match parse_require(p)? {
                Ok(r) => r,
                Err(what) => return Ok(unsupported(p, &what)),
            };
            if p.peek_token().token != Token::EOF {
                return Ok(unsupported(
                    p,
                    "account options (WITH …, PASSWORD …, ACCOUNT …)",
                ));
            }
            Ok(Stmt::CreateUser {
                users,
                if_not_exists,
                require,
            })
        }
        Some("PROCEDURE") | Some("FUNCTION") | Some("TRIGGER") | Some("EVENT") | Some("ROLE")
        | Some("SERVER") | Some("TABLESPACE") => {
            let what = peek_nth_word(p, 1).unwrap_or_default();
            Ok(unsupported(p, &format!("CREATE {what}")))
        }
        // CREATE OR REPLACE [TEMPORARY] TABLE (`sql::drop_for_replace`).
        Some("OR")
            if peek_nth_word(p, 3).as_deref() == Some("TABLE")
                || peek_nth_word(p, 4).as_deref() == Some("TABLE") =>
        {
            Ok(Stmt::Sql(Box::new(p.parse_statement()?)))
        }
        Some("OR") | Some("ALGORITHM") | Some("DEFINER") | Some("SQL") => {
            Ok(unsupported(p, "CREATE VIEW / stored programs"))
        }
        _ => Ok(Stmt::Sql(Box::new(p.parse_statement()?))),
    }
}

/// `[DEFAULT] CHARACTER SET [=] x`, `[DEFAULT] COLLATE [=] x`: a database's default
/// collation (utf8mb4's or utf8mb3's general_ci / bin; binary and the rest refused: the
/// `Err` statement). A COLLATE must belong to the CHARACTER SET given (1253 at execution).
fn database_options(p: &mut Parser<'_>) -> PResult<std::result::Result<DbCharset, Stmt>> {
    let (mut charset, mut collate) = (None, None);
    loop {
        eat(p, "DEFAULT");
        let collation = if eat_seq(p, &["CHARACTER", "SET"]) || eat(p, "CHARSET") {
            false
        } else if eat(p, "COLLATE") {
            true
        } else {
            break;
        };
        let _ = p.consume_token(&Token::Eq);
        let name = match p.next_token().token {
            Token::Word(w) => w.value,
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s,
            _ => return unexpected(p, "character set or collation name"),
        };
        let found = if collation {
            crate::sql::exec::ddl::collation_named(&name)
        } else {
            crate::sql::exec::ddl::charset_named(&name)
        };
        match found {
            Ok(c) if c != Collation::Binary => match collation {
                true => collate = Some(c),
                false => charset = Some(c),
            },
            _ => {
                let what = format!("databases in {name} (here: utf8mb4, utf8mb3 or latin1)");
                return Ok(Err(unsupported(p, &what)));
            }
        }
    }
    Ok(Ok((charset, collate)))
}

/// A database's `CHARACTER SET` (as its default collation) and `COLLATE`, as given; resolved
/// by [`crate::sql::exec::ddl::charset_and_collation`].
pub type DbCharset = (Option<Collation>, Option<Collation>);

fn parse_drop(p: &mut Parser<'_>) -> PResult<Stmt> {
    match peek_nth_word(p, 1).as_deref() {
        Some("PREPARE") => prepare_sql::parse_deallocate(p),
        Some("DATABASE") | Some("SCHEMA") => {
            p.next_token();
            p.next_token();
            let if_exists = eat_seq(p, &["IF", "EXISTS"]);
            Ok(Stmt::DropDatabase {
                name: ident(p)?,
                if_exists,
            })
        }
        Some("USER") => {
            p.next_token();
            p.next_token();
            let if_exists = eat_seq(p, &["IF", "EXISTS"]);
            let mut users = vec![parse_user(p)?];
            while p.consume_token(&Token::Comma) {
                users.push(parse_user(p)?);
            }
            Ok(Stmt::DropUser { users, if_exists })
        }
        Some("PROCEDURE") | Some("FUNCTION") | Some("TRIGGER") | Some("EVENT") | Some("ROLE") => {
            let what = peek_nth_word(p, 1).unwrap_or_default();
            Ok(unsupported(p, &format!("DROP {what}")))
        }
        _ => Ok(Stmt::Sql(Box::new(p.parse_statement()?))),
    }
}

fn parse_alter(p: &mut Parser<'_>) -> PResult<Stmt> {
    match peek_nth_word(p, 1).as_deref() {
        Some("USER") => {
            p.next_token();
            p.next_token();
            let if_exists = eat_seq(p, &["IF", "EXISTS"]);
            let users = parse_users_with_password(p)?;
            let require = match parse_require(p)? {
                Ok(r) => r,
                Err(what) => return Ok(unsupported(p, &what)),
            };
            if p.peek_token().token != Token::EOF {
                return Ok(unsupported(
                    p,
                    "account options (WITH …, PASSWORD …, ACCOUNT …)",
                ));
            }
            Ok(Stmt::AlterUser {
                users,
                if_exists,
                require,
            })
        }
        Some("DATABASE") | Some("SCHEMA") => {
            p.next_token();
            p.next_token();
            let name = match peek_word(p).as_deref() {
                Some("DEFAULT" | "CHARACTER" | "CHARSET" | "COLLATE") => None,
                _ => Some(ident(p)?),
            };
            match database_options(p)? {
                // Nothing to change.
                Ok((None, None)) => Ok(Stmt::Flush { binary_logs: false }),
                Ok(charset) => Ok(Stmt::AlterDatabase { name, charset }),
                Err(refused) => Ok(refused),
            }
        }
        Some("TABLE" | "ONLINE" | "IGNORE") => {
            p.next_token();
            Ok(Stmt::AlterTable(Box::new(alter::parse_alter_table(p)?)))
        }
        _ => {
            let what = peek_nth_word(p, 1).unwrap_or_default();
            Ok(unsupported(p, &format!("ALTER {what}")))
        }
    }
}

/// `user [IDENTIFIED BY 'pw'] [, user [IDENTIFIED BY 'pw']]…` (the password only where
/// IDENTIFIED was given).
fn parse_users_with_password(p: &mut Parser<'_>) -> PResult<Vec<(UserHost, Option<String>)>> {
    let mut out = Vec::new();
    loop {
        let u = parse_user(p)?;
        let mut pw = None;
        if eat(p, "IDENTIFIED") {
            pw = Some(String::new());
            if eat(p, "WITH") {
                ident(p)?;
            }
            if eat(p, "BY") {
                eat(p, "PASSWORD");
                pw = Some(p.parse_literal_string()?);
            } else if eat(p, "AS") {
                pw = Some(p.parse_literal_string()?);
            }
        }
        out.push((u, pw));
        if !p.consume_token(&Token::Comma) {
            return Ok(out);
        }
    }
}

/// `[REQUIRE {NONE | SSL | X509}]` of CREATE USER, ALTER USER and GRANT: Ok(None) without
/// the clause; Err(what) for the forms that are refused (ISSUER, SUBJECT, CIPHER: 1235).
fn parse_require(
    p: &mut Parser<'_>,
) -> PResult<std::result::Result<Option<TransportRequirement>, String>> {
    if !eat(p, "REQUIRE") {
        return Ok(Ok(None));
    }
    let require = match peek_word(p).as_deref() {
        Some("NONE") => TransportRequirement::None,
        Some("SSL") => TransportRequirement::Ssl,
        Some("X509") => TransportRequirement::X509,
        Some(w @ ("ISSUER" | "SUBJECT" | "CIPHER")) => {
            return Ok(Err(format!(
                "REQUIRE {w} (only REQUIRE NONE, SSL and X509 are implemented)"
            )))
        }
        _ => return unexpected(p, "NONE, SSL, X509, ISSUER, SUBJECT or CIPHER"),
    };
    p.next_token();
    if peek_word(p).as_deref() == Some("AND") {
        // `SSL AND …`: MariaDB's syntax error too (only ISSUER/SUBJECT/CIPHER combine).
        return unexpected(p, "end of REQUIRE");
    }
    Ok(Ok(Some(require)))
}

/// `user`, `CURRENT_USER` or `CURRENT_USER()` (None).
fn parse_user_or_current(p: &mut Parser<'_>) -> PResult<Option<UserHost>> {
    if eat(p, "CURRENT_USER") {
        if p.consume_token(&Token::LParen) {
            p.expect_token(&Token::RParen)?;
        }
        return Ok(None);
    }
    Ok(Some(parse_user(p)?))
}

/// `'user'@'host'`, `user@host`, `` `u`@`h` ``, `'user'` (host `%`).
fn parse_user(p: &mut Parser<'_>) -> PResult<UserHost> {
    let t = p.next_token();
    let user = match t.token {
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s,
        Token::Word(w) if w.quote_style.is_none() && w.value.contains('@') => {
            let (u, h) = w.value.split_once('@').unwrap_or((&w.value, "%"));
            let host = if h.is_empty() {
                user_host_part(p)?
            } else {
                h.to_string()
            };
            return Ok(UserHost {
                user: u.to_string(),
                host,
            });
        }
        Token::Word(w) => w.value,
        _ => return p.expected("user name", t),
    };
    let host = match p.peek_token().token {
        Token::AtSign => {
            p.next_token();
            user_host_part(p)?
        }
        Token::Word(w) if w.quote_style.is_none() && w.value.starts_with('@') => {
            p.next_token();
            w.value[1..].to_string()
        }
        _ => "%".to_string(),
    };
    Ok(UserHost { user, host })
}

fn user_host_part(p: &mut Parser<'_>) -> PResult<String> {
    let t = p.next_token();
    match t.token {
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s),
        Token::Word(w) => Ok(w.value),
        Token::Mod => Ok("%".into()),
        _ => p.expected("host name", t),
    }
}

/// `priv [, priv …]` up to ON: MariaDB's names (several words each), `ALL [PRIVILEGES]`,
/// `GRANT OPTION`. A column list (`SELECT (a)`) is refused: Err(what).
fn parse_priv_list(p: &mut Parser<'_>) -> PResult<std::result::Result<PrivList, String>> {
    use crate::accounts::Privs;
    let mut list = PrivList {
        privs: Privs::NONE,
        all: false,
    };
    loop {
        let mut words: Vec<String> = Vec::new();
        loop {
            match p.peek_token().token {
                Token::Word(w) if w.quote_style.is_none() => {
                    let up = w.value.to_ascii_uppercase();
                    if matches!(up.as_str(), "ON" | "FROM" | "TO") && !words.is_empty() {
                        break;
                    }
                    words.push(up);
                    p.next_token();
                }
                Token::LParen => return Ok(Err("column-level privileges".into())),
                _ => break,
            }
        }
        if words.is_empty() {
            return unexpected(p, "a privilege");
        }
        let name = words.join(" ");
        match name.as_str() {
            "ALL" | "ALL PRIVILEGES" => list.all = true,
            "USAGE" => {}
            "PROXY" => return Ok(Err("PROXY privileges".into())),
            n => match Privs::by_name(n) {
                Some(x) => list.privs |= x,
                // `GRANT role TO user` / `REVOKE role FROM user`.
                None if matches!(peek_word(p).as_deref(), Some("TO" | "FROM"))
                    || p.peek_token().token == Token::Comma =>
                {
                    return Ok(Err("roles".into()))
                }
                None => return Err(ParserError::ParserError(format!("privilege {n}"))),
            },
        }
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    Ok(Ok(list))
}

/// `ON *.* | db.* | * | db.tbl | tbl` (after an optional TABLE); routines are refused.
fn parse_grant_on(p: &mut Parser<'_>) -> PResult<std::result::Result<GrantOn, String>> {
    expect_word(p, "ON")?;
    if matches!(
        peek_word(p).as_deref(),
        Some("FUNCTION" | "PROCEDURE" | "PACKAGE")
    ) {
        return Ok(Err("privileges on stored routines".into()));
    }
    eat(p, "TABLE");
    if p.consume_token(&Token::Mul) {
        if p.consume_token(&Token::Period) {
            p.expect_token(&Token::Mul)?;
            return Ok(Ok(GrantOn::Global));
        }
        return Ok(Ok(GrantOn::CurrentDb));
    }
    let first = ident(p)?;
    if !p.consume_token(&Token::Period) {
        return Ok(Ok(GrantOn::Table(None, first)));
    }
    if p.consume_token(&Token::Mul) {
        return Ok(Ok(GrantOn::Db(first)));
    }
    Ok(Ok(GrantOn::Table(Some(first), ident(p)?)))
}

fn grant_refused(p: &mut Parser<'_>, what: String) -> Stmt {
    skip_rest(p);
    Stmt::Unsupported(what)
}

fn parse_grant(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    let privs = match parse_priv_list(p)? {
        Ok(l) => l,
        Err(what) => return Ok(grant_refused(p, what)),
    };
    if peek_word(p).as_deref() != Some("ON") {
        return Ok(grant_refused(p, "roles".into()));
    }
    let on = match parse_grant_on(p)? {
        Ok(on) => on,
        Err(what) => return Ok(grant_refused(p, what)),
    };
    expect_word(p, "TO")?;
    let mut users = Vec::new();
    loop {
        let u = parse_user(p)?;
        let mut pw = None;
        if eat_seq(p, &["IDENTIFIED", "BY"]) {
            if eat(p, "PASSWORD") {
                return Ok(unsupported(p, "IDENTIFIED BY PASSWORD in GRANT"));
            }
            pw = Some(p.parse_literal_string()?);
        } else if eat(p, "IDENTIFIED") {
            return Ok(unsupported(p, "IDENTIFIED VIA / WITH in GRANT"));
        }
        users.push((u, pw));
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    let require = match parse_require(p)? {
        Ok(r) => r,
        Err(what) => return Ok(unsupported(p, &what)),
    };
    let mut grant_option = false;
    if eat(p, "WITH") {
        loop {
            if eat_seq(p, &["GRANT", "OPTION"]) {
                grant_option = true;
            } else if matches!(
                peek_word(p).as_deref(),
                Some(
                    "MAX_QUERIES_PER_HOUR"
                        | "MAX_UPDATES_PER_HOUR"
                        | "MAX_CONNECTIONS_PER_HOUR"
                        | "MAX_USER_CONNECTIONS"
                        | "MAX_STATEMENT_TIME"
                )
            ) {
                return Ok(unsupported(p, "resource limits in GRANT"));
            } else {
                break;
            }
        }
        if !grant_option {
            return unexpected(p, "GRANT OPTION");
        }
    }
    Ok(Stmt::Grant {
        privs,
        on,
        users,
        require,
        grant_option,
    })
}

fn parse_revoke(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    // REVOKE ALL [PRIVILEGES], GRANT OPTION FROM user: everything.
    let privs = match parse_priv_list(p)? {
        Ok(l) => l,
        Err(what) => return Ok(grant_refused(p, what)),
    };
    if eat(p, "FROM") {
        if !(privs.all && privs.privs == crate::accounts::Privs::GRANT) {
            return Ok(grant_refused(p, "roles".into()));
        }
        return Ok(Stmt::Revoke {
            privs,
            on: None,
            users: parse_user_list(p)?,
        });
    }
    let on = match parse_grant_on(p)? {
        Ok(on) => on,
        Err(what) => return Ok(grant_refused(p, what)),
    };
    expect_word(p, "FROM")?;
    Ok(Stmt::Revoke {
        privs,
        on: Some(on),
        users: parse_user_list(p)?,
    })
}

fn parse_user_list(p: &mut Parser<'_>) -> PResult<Vec<UserHost>> {
    let mut users = vec![parse_user(p)?];
    while p.consume_token(&Token::Comma) {
        users.push(parse_user(p)?);
    }
    Ok(users)
}

fn parse_table_maint(p: &mut Parser<'_>, first: &str) -> PResult<Stmt> {
    p.next_token();
    eat(p, "NO_WRITE_TO_BINLOG");
    eat(p, "LOCAL");
    if !eat(p, "TABLE") {
        expect_word(p, "TABLES")?;
    }
    let mut tables = vec![qualified(p)?];
    while p.consume_token(&Token::Comma) {
        tables.push(qualified(p)?);
    }
    if first == "ANALYZE" && peek_word(p).as_deref() == Some("PERSISTENT") {
        // Engine-independent statistics (histograms) are not collected.
        return Ok(unsupported(p, "ANALYZE TABLE ... PERSISTENT FOR"));
    }
    skip_rest(p);
    let op = match first {
        "ANALYZE" => "analyze",
        "OPTIMIZE" => "optimize",
        "CHECK" => "check",
        _ => "repair",
    };
    Ok(Stmt::TableMaint { op, tables })
}

/// What `explained_statement` found.
enum Explained<'s> {
    Statement(crate::sql::exec::explain::Format, &'s str),
    /// A form Cohort does not run (error 1235).
    Refused(&'static str),
}

/// `EXPLAIN …` / `DESCRIBE …` / `DESC …` of a statement, or `ANALYZE` of one, if that is
/// what `sql` is (`DESCRIBE t` and `ANALYZE TABLE` are parsed elsewhere).
fn explained_statement(sql: &str) -> Option<Explained<'_>> {
    use crate::sql::exec::explain::Format;
    fn word(s: &str) -> (&str, &str) {
        let s = s.trim_start();
        let end = s
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(s.len());
        s.split_at(end)
    }
    let is = |w: &str, k: &str| w.eq_ignore_ascii_case(k);
    let explainable = |rest: &str| {
        let (w, _) = word(rest);
        rest.trim_start().starts_with('(')
            || [
                "SELECT", "WITH", "INSERT", "REPLACE", "UPDATE", "DELETE", "VALUES",
            ]
            .iter()
            .any(|k| is(w, k))
    };
    let (first, mut rest) = word(sql);
    let analyze = is(first, "ANALYZE");
    if !analyze && !["EXPLAIN", "DESCRIBE", "DESC"].iter().any(|k| is(first, k)) {
        return None;
    }
    let mut format = Format::Traditional;
    let (w, after) = word(rest);
    if !analyze && (is(w, "EXTENDED") || is(w, "PARTITIONS")) {
        format = if is(w, "EXTENDED") {
            Format::Extended
        } else {
            Format::Partitions
        };
        rest = after;
    } else if is(w, "FORMAT") {
        let a = after.trim_start();
        let a = a.strip_prefix('=')?;
        let (f, after) = word(a);
        if is(f, "JSON") {
            format = if analyze {
                Format::AnalyzeJson
            } else {
                Format::Json
            };
        } else if !is(f, "TRADITIONAL") {
            return None;
        }
        rest = after;
    } else if !analyze && is(w, "FOR") {
        return Some(Explained::Refused("EXPLAIN FOR CONNECTION"));
    }
    if !explainable(rest) {
        return None;
    }
    if analyze && format == Format::Traditional {
        format = Format::Analyze;
    }
    Some(Explained::Statement(format, rest))
}

fn parse_describe(p: &mut Parser<'_>) -> PResult<Stmt> {
    p.next_token();
    if let Some(
        "SELECT" | "INSERT" | "UPDATE" | "DELETE" | "REPLACE" | "FORMAT" | "EXTENDED" | "ANALYZE"
        | "PARTITIONS" | "FOR" | "WITH",
    ) = peek_word(p).as_deref()
    {
        return Ok(unsupported(p, "EXPLAIN of statements"));
    }
    if p.peek_token().token == Token::LParen {
        return Ok(unsupported(p, "EXPLAIN of statements"));
    }
    let (db, table) = qualified(p)?;
    // `DESCRIBE t col` / `DESCRIBE t 'pattern'`: SHOW COLUMNS … LIKE.
    let pattern = match p.peek_token().token {
        Token::EOF => return Ok(Stmt::Describe { db, table }),
        Token::Word(w) => w.value,
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s,
        _ => return unexpected(p, "column name or pattern"),
    };
    p.next_token();
    Ok(Stmt::Show(Show::Columns {
        full: false,
        db,
        table,
        filter: ShowFilter::Like(pattern),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(sql: &str) -> Parsed {
        parse(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// REQUIRE of CREATE USER / ALTER USER / GRANT: parsed, refused (1235) or a syntax error;
    /// never skipped.
    #[test]
    fn require_clauses() {
        use TransportRequirement as T;
        let require = |sql: &str| match p(sql).stmt {
            Stmt::CreateUser { require, .. }
            | Stmt::AlterUser { require, .. }
            | Stmt::Grant { require, .. } => require,
            other => panic!("{sql}: {other:?}"),
        };
        assert_eq!(require("CREATE USER u REQUIRE SSL"), Some(T::Ssl));
        assert_eq!(
            require("CREATE USER u IDENTIFIED BY 'x' require x509"),
            Some(T::X509)
        );
        assert_eq!(require("ALTER USER u REQUIRE NONE"), Some(T::None));
        assert_eq!(require("GRANT ALL ON *.* TO u REQUIRE SSL"), Some(T::Ssl));
        assert_eq!(
            require("GRANT ALL ON *.* TO u REQUIRE SSL WITH GRANT OPTION"),
            Some(T::Ssl)
        );
        assert_eq!(require("CREATE USER u"), None);
        assert_eq!(require("GRANT ALL ON db.* TO u"), None);
        for sql in [
            "CREATE USER u REQUIRE ISSUER 'x'",
            "ALTER USER u REQUIRE SUBJECT 's' AND ISSUER 'i'",
            "GRANT ALL ON *.* TO u REQUIRE CIPHER 'c'",
        ] {
            assert!(matches!(p(sql).stmt, Stmt::Unsupported(ref w) if w.starts_with("REQUIRE")));
        }
        for sql in [
            "CREATE USER u REQUIRE SSL AND X509",
            "CREATE USER u REQUIRE TLS",
            "CREATE USER u REQUIRE",
        ] {
            assert_eq!(
                parse(sql).unwrap_err().code(),
                ErrorCode::ParseError,
                "{sql}"
            );
        }
        // ALTER USER keeps the password unless IDENTIFIED is given.
        let Stmt::AlterUser { users, .. } = p("ALTER USER a, b REQUIRE SSL").stmt else {
            panic!()
        };
        assert_eq!(users[0].1, None);
        let Stmt::AlterUser { users, .. } = p("ALTER USER a IDENTIFIED BY 'pw'").stmt else {
            panic!()
        };
        assert_eq!(users[0].1.as_deref(), Some("pw"));
        assert!(matches!(
            p("SHOW CREATE USER").stmt,
            Stmt::Show(Show::CreateUser(None))
        ));
        assert!(matches!(
            p("SHOW CREATE USER CURRENT_USER()").stmt,
            Stmt::Show(Show::CreateUser(None))
        ));
    }

    #[test]
    fn errors() {
        assert_eq!(parse("").unwrap_err().code(), ErrorCode::EmptyQuery);
        assert_eq!(parse("  ;  ").unwrap_err().code(), ErrorCode::EmptyQuery);
        // Only comments: a statement that does nothing (`mariadb-binlog` output's `/*!*/;`).
        for sql in ["/*!*/", "/*!*/;", "/* x */", "/*M!100001 */"] {
            assert!(
                matches!(parse(sql).unwrap().stmt, Stmt::Do(ref e) if e.is_empty()),
                "{sql}"
            );
        }
        let e = parse("SELECT 1; SELECT 2").unwrap_err();
        assert_eq!(e.code(), ErrorCode::ParseError);
        assert!(
            e.message().contains("near 'SELECT 2' at line 1"),
            "{}",
            e.message()
        );
        let e = parse("SELEC 1").unwrap_err();
        assert!(
            e.message().contains("near 'SELEC 1' at line 1"),
            "{}",
            e.message()
        );
        assert!(parse("SELECT 1;").is_ok());
    }

    /// Past the nesting limit the parse fails with the nesting error, at once: the parser's
    /// keyword-as-identifier fallbacks must not descend again at every level (a 5000-deep CASE
    /// nest took seconds and ended in a generic syntax error).
    #[test]
    fn nesting_limit_fails_fast_with_its_own_error() {
        for (open, close) in [("CASE WHEN 1 THEN ", " END"), ("(", ")"), ("ABS(", ")")] {
            let sql = format!("SELECT {}1{}", open.repeat(5000), close.repeat(5000));
            let started = std::time::Instant::now();
            let e = parse(&sql).unwrap_err();
            assert_eq!(e.code(), ErrorCode::ParseError);
            assert!(
                e.message().contains("nested more than 1000 levels"),
                "{}",
                e.message()
            );
            assert!(
                started.elapsed() < std::time::Duration::from_secs(20),
                "{open}"
            );
        }
    }

    #[test]
    fn item_texts() {
        let x = p("SELECT a, t.b, 'x', 1+1, SUM(k), COUNT(*) AS n FROM t");
        assert_eq!(
            x.item_texts,
            ["a", "b", "x", "1+1", "SUM(k)", "COUNT(*) AS n"]
        );
        let x = p("select @@version_comment limit 1");
        assert_eq!(x.item_texts, ["@@version_comment"]);
    }

    #[test]
    fn special_statements() {
        assert!(matches!(
            p("begin work").stmt,
            Stmt::Begin {
                read_only: None,
                consistent_snapshot: false
            }
        ));
        assert!(matches!(
            p("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY").stmt,
            Stmt::Begin {
                read_only: Some(true),
                consistent_snapshot: true
            }
        ));
        assert!(parse("START TRANSACTION READ ONLY, READ WRITE").is_err());
        assert!(matches!(
            p("set transaction read only, isolation level read committed").stmt,
            Stmt::SetTransaction {
                scope: TxScope::Next,
                read_only: Some(true),
                isolation: Some(_)
            }
        ));
        assert!(matches!(
            p("SET SESSION TRANSACTION READ WRITE").stmt,
            Stmt::SetTransaction {
                scope: TxScope::Session,
                read_only: Some(false),
                isolation: None
            }
        ));
        assert!(matches!(p("savepoint a").stmt, Stmt::Savepoint(n) if n == "a"));
        assert!(matches!(p("rollback work to b").stmt, Stmt::RollbackToSavepoint(n) if n == "b"));
        assert!(
            matches!(p("ROLLBACK TO SAVEPOINT c").stmt, Stmt::RollbackToSavepoint(n) if n == "c")
        );
        assert!(matches!(p("release savepoint d").stmt, Stmt::ReleaseSavepoint(n) if n == "d"));
        assert!(parse("release d").is_err());
        assert!(matches!(
            p("SET CHARACTER SET utf8").stmt,
            Stmt::SetNames { .. }
        ));
        let Stmt::CreateUser { users, .. } = p("CREATE USER 'u'@'%' IDENTIFIED BY 'pw'").stmt
        else {
            panic!()
        };
        assert_eq!(users[0].0.host, "%");
        assert_eq!(users[0].1, "pw");
        let Stmt::Grant { on, users, .. } = p("GRANT ALL PRIVILEGES ON db.* TO u@localhost").stmt
        else {
            panic!()
        };
        assert_eq!(on, GrantOn::Db("db".into()));
        assert_eq!(users[0].0.host, "localhost");
        let Stmt::Grant {
            privs,
            on,
            grant_option,
            ..
        } = p("GRANT select, SHOW VIEW, replication client ON t TO u WITH GRANT OPTION").stmt
        else {
            panic!()
        };
        use crate::accounts::Privs;
        assert_eq!(
            privs.privs,
            Privs::SELECT | Privs::SHOW_VIEW | Privs::BINLOG_MONITOR
        );
        assert_eq!(on, GrantOn::Table(None, "t".into()));
        assert!(grant_option);
        assert!(matches!(
            p("GRANT SELECT (a) ON db.t TO u").stmt,
            Stmt::Unsupported(_)
        ));
        let x = p("SELECT * FROM t WHERE a = 1 LOCK IN SHARE MODE");
        assert_eq!(x.share_lock, Some(WaitPolicy::Wait));
        let x = p("SELECT * FROM t LOCK IN SHARE MODE NOWAIT");
        assert_eq!(x.share_lock, Some(WaitPolicy::NoWait));
        let x = p("SELECT * FROM t lock in share mode skip locked");
        assert_eq!(x.share_lock, Some(WaitPolicy::SkipLocked));
        assert_eq!(p("SELECT * FROM t").share_lock, None);
        let Stmt::Set(items) = p("SET GLOBAL a = 1, b = ON, @x := 5, @@session.c = DEFAULT").stmt
        else {
            panic!()
        };
        assert_eq!(items.len(), 4);
        assert!(matches!(
            &items[1].target,
            SetTarget::Sys { global: true, .. }
        ));
        assert!(matches!(&items[2].target, SetTarget::User(n) if n == "x"));
        assert!(matches!(&items[3].value, SetValue::Default));
    }
}
