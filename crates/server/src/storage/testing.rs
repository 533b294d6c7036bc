//! Golden-script tests of transaction semantics.
//!
//! A script in `testscripts/NAME.txt` drives several transactions step by step; each runs on
//! its own thread so that lock waits really block. The runner echoes each command and what it
//! printed; the result must equal `testscripts/NAME.out` (regenerate with `UPDATE_GOLDEN=1`
//! after checking the diff by eye).
//!
//! ```text
//! # comment
//! create t id:int,k:int,c:varchar pk=id key=k_idx:k unique=c_u:c(10)
//! T1: insert t 1,10,'a'          run on T1's thread, wait for the result (5 s at most)
//! T2 &: get t 1 for update       start on T2's thread; wait until it waits for a row lock
//! T1: commit
//! await T2                       the result of T2's blocked command
//! ```
//!
//! Column types: int, uint, bigint, ubigint, dec (DECIMAL(20,6)), double, varchar
//! (utf8mb4_general_ci), varbin (utf8mb4_bin), binary (VARBINARY), date, datetime.
//! Values: integers (big ones become unsigned), decimals `1.5`, strings `'a b'`, NULL,
//! dates `d'2020-01-02'`, datetimes `dt'2020-01-02 03:04:05'`.
//!
//! Global commands: `create`, `index t NAME [unique] cols`, `dropindex t NAME`, `truncate t`,
//! `droptable t`, `autoinc t`, `sleep MS`, `purge` (one purge pass), `versions t` (old
//! versions held). Txn commands: `insert t ROW`, `replace-insert t ROW` (a duplicate is
//! X-locked), `get t KEY [LOCK]`, `scan t [idx=NAME] [eq=|ge=|gt=|le=|lt= VALS] [desc] [LOCK]`,
//! `update t KEY to ROW`, `delete t KEY`, `commit`, `rollback`, `prepare`, `savepoint`, `undo`
//! (to the last savepoint), `sp NAME` / `rollback-to NAME` / `release NAME` (named
//! savepoints), `timeout MS`, `changes`, `isolation ru|rc|rr|ser` (for the next transaction;
//! the default is rr), `snapshot` (take the read view now), `readonly` (the next transaction is
//! read-only). LOCK is `for update` or `for share`, optionally followed by `nowait` or `skip`.
//! Every command is a statement: the transaction's `start_statement` runs first.

use super::{
    Engine, InsertOutcome, IsolationLevel, KeyRange, LockMode, ReadLock, Row, RowChange,
    ScanControl, Txn, TxnId, TxnOptions, WaitPolicy,
};
use crate::error::{Error, Result};
use crate::storage::schema::{ColumnDef, ColumnDefault, IndexDef, IndexPart, TableDef};
use crate::types::{Collation, DataType, Date, DateTime, Value};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const DB: &str = "test";
const SYNC_TIMEOUT: Duration = Duration::from_secs(10);
const BLOCK_POLL: Duration = Duration::from_millis(5);

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Punct(char),
}

fn tokenize(s: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' {
            let mut s = String::new();
            i += 1;
            while i < cs.len() && cs[i] != '\'' {
                s.push(cs[i]);
                i += 1;
            }
            i += 1;
            out.push(Tok::Str(s));
        } else if ",()=:&".contains(c) {
            out.push(Tok::Punct(c));
            i += 1;
        } else {
            let mut w = String::new();
            while i < cs.len() && !cs[i].is_whitespace() && !",()=:&'".contains(cs[i]) {
                w.push(cs[i]);
                i += 1;
            }
            // d'…' / dt'…' literals
            if (w == "d" || w == "dt") && i < cs.len() && cs[i] == '\'' {
                let mut s = String::new();
                i += 1;
                while i < cs.len() && cs[i] != '\'' {
                    s.push(cs[i]);
                    i += 1;
                }
                i += 1;
                out.push(Tok::Word(format!("{w}'{s}")));
            } else {
                out.push(Tok::Word(w));
            }
        }
    }
    out
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn new(s: &str) -> Parser {
        Parser {
            toks: tokenize(s),
            pos: 0,
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn word(&mut self) -> String {
        match self.next() {
            Some(Tok::Word(w)) => w,
            t => panic!("expected a word, got {t:?}"),
        }
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.peek() == Some(&Tok::Word(w.to_string())) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Value {
        match self.next() {
            Some(Tok::Str(s)) => Value::str(&s),
            Some(Tok::Word(w)) => parse_value_word(&w),
            t => panic!("expected a value, got {t:?}"),
        }
    }

    fn values(&mut self) -> Vec<Value> {
        let mut v = vec![self.value()];
        while self.eat_punct(',') {
            v.push(self.value());
        }
        v
    }

    /// `[for update|for share [nowait|skip]]`
    fn lock(&mut self) -> ReadLock {
        if !self.eat_word("for") {
            return ReadLock::NONE;
        }
        let mode = if self.eat_word("update") {
            LockMode::Exclusive
        } else {
            assert!(self.eat_word("share"));
            LockMode::Shared
        };
        let wait = if self.eat_word("nowait") {
            WaitPolicy::NoWait
        } else if self.eat_word("skip") {
            WaitPolicy::SkipLocked
        } else {
            WaitPolicy::Wait
        };
        ReadLock::new(mode, wait)
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
}

fn parse_date(s: &str) -> Date {
    let p: Vec<u16> = s.split('-').map(|x| x.parse().unwrap()).collect();
    Date {
        year: p[0],
        month: p[1] as u8,
        day: p[2] as u8,
    }
}

fn parse_value_word(w: &str) -> Value {
    if w.eq_ignore_ascii_case("NULL") {
        return Value::Null;
    }
    if let Some(d) = w.strip_prefix("d'") {
        return Value::Date(parse_date(d));
    }
    if let Some(dt) = w.strip_prefix("dt'") {
        let (d, t) = dt.split_once(' ').unwrap_or((dt, "00:00:00"));
        let tp: Vec<u8> = t.split(':').map(|x| x.parse().unwrap()).collect();
        return Value::DateTime(DateTime {
            date: parse_date(d),
            hour: tp[0],
            minute: tp[1],
            second: tp[2],
            micros: 0,
        });
    }
    if let Ok(i) = w.parse::<i64>() {
        return Value::Int(i);
    }
    if let Ok(u) = w.parse::<u64>() {
        return Value::UInt(u);
    }
    if w.contains('.') {
        if let Ok(d) = w.parse() {
            return Value::Decimal(d);
        }
    }
    panic!("bad value {w}")
}

fn parse_type(t: &str) -> DataType {
    match t {
        "int" => DataType::Int {
            unsigned: false,
            display: Default::default(),
        },
        "uint" => DataType::Int {
            unsigned: true,
            display: Default::default(),
        },
        "bigint" => DataType::BigInt {
            unsigned: false,
            display: Default::default(),
        },
        "ubigint" => DataType::BigInt {
            unsigned: true,
            display: Default::default(),
        },
        "dec" => DataType::Decimal {
            precision: 20,
            scale: 6,
        },
        "double" => DataType::DOUBLE,
        "varchar" => DataType::VarChar {
            len: 100,
            collation: Collation::Utf8mb4GeneralCi,
        },
        "varbin" => DataType::VarChar {
            len: 100,
            collation: Collation::Utf8mb4Bin,
        },
        "binary" => DataType::VarBinary { len: 100 },
        "date" => DataType::Date,
        "year" => DataType::Year,
        "datetime" => DataType::DateTime { fsp: 0 },
        _ => panic!("unknown type {t}"),
    }
}

/// `name:col,col(10)` or `col,col` → parts.
fn parse_parts(p: &mut Parser, cols: &[ColumnDef]) -> Vec<IndexPart> {
    let mut parts = Vec::new();
    loop {
        let c = p.word();
        let column = cols
            .iter()
            .position(|x| x.name == c)
            .unwrap_or_else(|| panic!("no column {c}"));
        let prefix_len = if p.eat_punct('(') {
            let n = p.word().parse().unwrap();
            assert!(p.eat_punct(')'));
            Some(n)
        } else {
            None
        };
        parts.push(IndexPart { column, prefix_len });
        if !p.eat_punct(',') {
            break;
        }
    }
    parts
}

fn parse_create(p: &mut Parser) -> TableDef {
    let name = p.word();
    let mut columns = Vec::new();
    loop {
        let c = p.word();
        assert!(p.eat_punct(':'));
        let ty = p.word();
        columns.push(ColumnDef {
            name: c,
            data_type: parse_type(&ty),
            nullable: true,
            default: ColumnDefault::Value(Value::Null),
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: None,
            generated: None,
        });
        if !p.eat_punct(',') {
            break;
        }
    }
    let mut def = TableDef {
        name,
        columns,
        primary_key: None,
        indexes: Vec::new(),
        engine: "InnoDB".into(),
        auto_increment_start: 1,
        comment: None,
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        default_collation: crate::types::Collation::Utf8mb4GeneralCi,
    };
    while !p.at_end() {
        let kind = p.word();
        assert!(p.eat_punct('='));
        match kind.as_str() {
            "pk" => {
                let parts = parse_parts(p, &def.columns);
                def.primary_key = Some(IndexDef {
                    name: "PRIMARY".into(),
                    parts,
                    unique: true,
                    implicit: false,
                });
            }
            "key" | "unique" => {
                let iname = p.word();
                assert!(p.eat_punct(':'));
                let parts = parse_parts(p, &def.columns);
                def.indexes.push(IndexDef {
                    name: iname,
                    parts,
                    unique: kind == "unique",
                    implicit: false,
                });
            }
            _ => panic!("bad create option {kind}"),
        }
    }
    def
}

fn fmt_value(v: &Value) -> String {
    match v {
        Value::Bytes(b) => format!("'{}'", String::from_utf8_lossy(b)),
        other => super::table::format_value(other),
    }
}

fn fmt_row(r: &Row) -> String {
    let vals: Vec<String> = r.iter().map(fmt_value).collect();
    format!("({})", vals.join(", "))
}

fn fmt_err(e: &Error) -> String {
    format!("ERROR {}: {}", e.code().number(), e.message())
}

fn fmt_changes(changes: &[RowChange]) -> String {
    let mut s = String::new();
    for c in changes {
        let t = c.table.name();
        let _ = match (&c.before, &c.after) {
            (None, Some(a)) => write!(s, "\n  + {t} {}", fmt_row(a)),
            (Some(b), None) => write!(s, "\n  - {t} {}", fmt_row(b)),
            (Some(b), Some(a)) => write!(s, "\n  ~ {t} {} -> {}", fmt_row(b), fmt_row(a)),
            (None, None) => write!(s, "\n  ? {t}"),
        };
    }
    s
}

/// One transaction's thread state.
struct TxnWorker {
    engine: Arc<Engine>,
    txn: Option<Txn>,
    /// Options of the next transaction.
    opts: TxnOptions,
    savepoints: Vec<super::Savepoint>,
    /// The id of the open txn, for the runner to see whether it waits.
    txn_id: Arc<AtomicU64>,
}

impl TxnWorker {
    fn txn(&mut self) -> &mut Txn {
        if self.txn.is_none() {
            let txn = self.engine.begin_with(self.opts);
            self.opts.read_only = false;
            self.txn_id.store(txn.id().0, Ordering::SeqCst);
            self.txn = Some(txn);
        }
        self.txn.as_mut().unwrap()
    }

    fn run(&mut self, line: &str) -> String {
        if let Some(t) = self.txn.as_mut() {
            t.start_statement();
        }
        match self.run_inner(line) {
            Ok(s) => s,
            Err(e) => {
                if e.action() == crate::error::Action::RollbackTransaction {
                    // As the session does: a deadlock victim's transaction is rolled back.
                    if let Some(txn) = self.txn.take() {
                        self.engine.rollback(txn);
                    }
                    self.savepoints.clear();
                    return format!("{} (rolled back)", fmt_err(&e));
                }
                fmt_err(&e)
            }
        }
    }

    fn run_inner(&mut self, line: &str) -> Result<String> {
        let mut p = Parser::new(line);
        let cmd = p.word();
        let engine = self.engine.clone();
        match cmd.as_str() {
            "begin" => {
                self.txn();
                Ok("ok".into())
            }
            "isolation" => {
                self.opts.isolation = match p.word().as_str() {
                    "ru" => IsolationLevel::ReadUncommitted,
                    "rc" => IsolationLevel::ReadCommitted,
                    "rr" => IsolationLevel::RepeatableRead,
                    "ser" => IsolationLevel::Serializable,
                    other => panic!("bad isolation level {other}"),
                };
                Ok("ok".into())
            }
            "readonly" => {
                self.opts.read_only = true;
                Ok("ok".into())
            }
            "snapshot" => {
                self.txn().take_snapshot();
                Ok("ok".into())
            }
            "sp" => {
                let name = p.word();
                self.txn().set_savepoint(&name);
                Ok("ok".into())
            }
            "rollback-to" => {
                let name = p.word();
                self.txn().rollback_to_savepoint(&name)?;
                Ok("ok".into())
            }
            "release" => {
                let name = p.word();
                self.txn().release_savepoint(&name)?;
                Ok("ok".into())
            }
            "timeout" => {
                let ms: u64 = p.word().parse().unwrap();
                self.txn().set_lock_wait_timeout(Duration::from_millis(ms));
                Ok("ok".into())
            }
            "savepoint" => {
                let sp = engine.savepoint(self.txn());
                self.savepoints.push(sp);
                Ok("ok".into())
            }
            "undo" => {
                let sp = self.savepoints.pop().expect("a savepoint");
                engine.rollback_to_savepoint(self.txn(), sp);
                Ok("ok".into())
            }
            "prepare" => {
                engine.prepare(self.txn())?;
                Ok("prepared".into())
            }
            "changes" => Ok(format!("changes:{}", fmt_changes(&self.txn().changes()))),
            "commit" => {
                let Some(txn) = self.txn.take() else {
                    return Ok("nothing to commit".into());
                };
                self.savepoints.clear();
                let changes = txn.changes();
                engine.commit(txn);
                Ok(format!("committed{}", fmt_changes(&changes)))
            }
            "rollback" => {
                if let Some(txn) = self.txn.take() {
                    engine.rollback(txn);
                }
                self.savepoints.clear();
                Ok("rolled back".into())
            }
            "insert" | "replace-insert" => {
                let t = engine.table(DB, &p.word())?;
                let row = p.values();
                let new_row = row.clone();
                let dup = if cmd == "insert" {
                    LockMode::Shared
                } else {
                    LockMode::Exclusive
                };
                match t.insert_with(self.txn(), row, dup)? {
                    InsertOutcome::Inserted(_) => Ok("inserted".into()),
                    InsertOutcome::Duplicate {
                        index, row: old, ..
                    } => Ok(format!(
                        "duplicate of {}: {}",
                        fmt_row(&old),
                        fmt_err(&t.dup_entry_error(index, &new_row))
                    )),
                }
            }
            "get" => {
                let t = engine.table(DB, &p.word())?;
                let key = p.values();
                let lock = p.lock();
                Ok(match t.get(self.txn(), &key, lock)? {
                    Some((_, r)) => fmt_row(&r),
                    None => "not found".into(),
                })
            }
            "update" => {
                let t = engine.table(DB, &p.word())?;
                let key = p.values();
                assert!(p.eat_word("to"));
                let row = p.values();
                let txn = self.txn();
                let Some((h, _)) = t.get(txn, &key, LockMode::Exclusive)? else {
                    return Ok("not found".into());
                };
                let new_row = row.clone();
                match t.update(txn, &h, row)? {
                    InsertOutcome::Inserted(_) => Ok("updated".into()),
                    InsertOutcome::Duplicate {
                        index, row: old, ..
                    } => Ok(format!(
                        "duplicate of {}: {}",
                        fmt_row(&old),
                        fmt_err(&t.dup_entry_error(index, &new_row))
                    )),
                }
            }
            "delete" => {
                let t = engine.table(DB, &p.word())?;
                let key = p.values();
                let txn = self.txn();
                let Some((h, _)) = t.get(txn, &key, LockMode::Exclusive)? else {
                    return Ok("not found".into());
                };
                t.delete(txn, &h)?;
                Ok("deleted".into())
            }
            "scan" => {
                let t = engine.table(DB, &p.word())?;
                let mut index = None;
                let mut range = KeyRange::all();
                let mut lock = ReadLock::NONE;
                let mut desc = false;
                while !p.at_end() {
                    if matches!(p.peek(), Some(Tok::Word(w)) if w == "for") {
                        lock = p.lock();
                        continue;
                    }
                    let w = p.word();
                    if w == "desc" {
                        desc = true;
                        continue;
                    }
                    assert!(p.eat_punct('='));
                    match w.as_str() {
                        "idx" => {
                            let n = p.word();
                            index = Some(
                                t.def()
                                    .indexes
                                    .iter()
                                    .position(|i| i.name == n)
                                    .expect("index"),
                            );
                        }
                        "eq" => range = KeyRange::point(p.values()),
                        "ge" => range.start = Bound::Included(p.values()),
                        "gt" => range.start = Bound::Excluded(p.values()),
                        "le" => range.end = Bound::Included(p.values()),
                        "lt" => range.end = Bound::Excluded(p.values()),
                        _ => panic!("bad scan option {w}"),
                    }
                }
                let mut rows = Vec::new();
                let mut f = |_: &super::RowHandle, r: &Row| {
                    rows.push(fmt_row(r));
                    Ok(ScanControl::Continue)
                };
                match index {
                    _ if desc => t.scan_backward(self.txn(), index, &range, lock, &mut f)?,
                    None => t.scan_primary(self.txn(), &range, lock, &mut f)?,
                    Some(i) => t.scan_index(self.txn(), i, &range, lock, &mut f)?,
                }
                if rows.is_empty() {
                    Ok("(no rows)".into())
                } else {
                    Ok(rows.join("\n  "))
                }
            }
            _ => panic!("unknown txn command {cmd}"),
        }
    }
}

struct Worker {
    cmd: Sender<String>,
    out: Receiver<String>,
    txn_id: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
    /// A command is running in the background (`&`).
    pending: bool,
}

impl Worker {
    fn spawn(engine: Arc<Engine>) -> Worker {
        let (cmd_tx, cmd_rx) = channel::<String>();
        let (out_tx, out_rx) = channel::<String>();
        let txn_id = Arc::new(AtomicU64::new(0));
        let id = txn_id.clone();
        let thread = std::thread::spawn(move || {
            let mut w = TxnWorker {
                engine,
                txn: None,
                opts: TxnOptions::default(),
                savepoints: Vec::new(),
                txn_id: id,
            };
            while let Ok(line) = cmd_rx.recv() {
                let out = w.run(&line);
                if out_tx.send(out).is_err() {
                    break;
                }
            }
        });
        Worker {
            cmd: cmd_tx,
            out: out_rx,
            txn_id,
            thread: Some(thread),
            pending: false,
        }
    }
}

/// Run a script; returns the transcript.
pub(crate) fn run_script(script: &str) -> String {
    let engine = Engine::new();
    engine.manual_purge();
    engine.create_database(DB, false).unwrap();
    let mut workers: HashMap<String, Worker> = HashMap::new();
    let mut out = String::new();
    for line in script.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            if line.starts_with("##") {
                out.push_str(line);
                out.push('\n');
            }
            continue;
        }
        out.push_str("> ");
        out.push_str(line);
        out.push('\n');
        // "T1: cmd" / "T1 &: cmd"
        let txn_prefix = line.split_once(':').and_then(|(name, rest)| {
            let name = name.trim();
            let (name, bg) = match name.strip_suffix('&') {
                Some(n) => (n.trim(), true),
                None => (name, false),
            };
            (name.starts_with('T') && name[1..].chars().all(|c| c.is_ascii_digit()))
                .then(|| (name.to_string(), bg, rest.trim().to_string()))
        });
        if let Some((name, bg, cmd)) = txn_prefix {
            let w = workers
                .entry(name.clone())
                .or_insert_with(|| Worker::spawn(engine.clone()));
            assert!(!w.pending, "{name} is still blocked");
            w.cmd.send(cmd).unwrap();
            if bg {
                // Blocked = registered in the waits-for graph (robust on a loaded machine).
                let deadline = Instant::now() + SYNC_TIMEOUT;
                loop {
                    match w.out.recv_timeout(BLOCK_POLL) {
                        Ok(r) => {
                            let _ = writeln!(out, "{name}: did not block: {r}");
                            break;
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(e) => panic!("{name}: {e}"),
                    }
                    let id = TxnId(w.txn_id.load(Ordering::SeqCst));
                    if engine.is_waiting(id) {
                        w.pending = true;
                        let _ = writeln!(out, "{name}: blocked");
                        break;
                    }
                    assert!(
                        Instant::now() < deadline,
                        "{name}: neither blocked nor done"
                    );
                }
            } else {
                let r = w
                    .out
                    .recv_timeout(SYNC_TIMEOUT)
                    .unwrap_or_else(|e| panic!("{name}: no result ({e}) for {line}"));
                let _ = writeln!(out, "{name}: {r}");
            }
            continue;
        }
        let mut p = Parser::new(line);
        let cmd = p.word();
        let r: Result<String> = match cmd.as_str() {
            "await" => {
                let name = p.word();
                let w = workers.get_mut(&name).expect("worker");
                assert!(w.pending, "{name} is not blocked");
                w.pending = false;
                let r = w
                    .out
                    .recv_timeout(SYNC_TIMEOUT)
                    .unwrap_or_else(|e| panic!("{name}: no result ({e})"));
                Ok(format!("{name}: {r}"))
            }
            "sleep" => {
                std::thread::sleep(Duration::from_millis(p.word().parse().unwrap()));
                Ok("ok".into())
            }
            "create" => {
                let def = parse_create(&mut p);
                engine.create_table(DB, def, false).map(|_| "ok".into())
            }
            "index" => {
                let t = p.word();
                let name = p.word();
                let unique = p.eat_word("unique");
                let def = engine.table(DB, &t).map(|t| t.def());
                match def {
                    Ok(def) => {
                        let parts = parse_parts(&mut p, &def.columns);
                        engine
                            .create_index(
                                DB,
                                &t,
                                IndexDef {
                                    name,
                                    parts,
                                    unique,
                                    implicit: false,
                                },
                            )
                            .map(|_| "ok".into())
                    }
                    Err(e) => Err(e),
                }
            }
            "dropindex" => {
                let t = p.word();
                let name = p.word();
                engine.drop_index(DB, &t, &name).map(|_| "ok".into())
            }
            "truncate" => {
                let t = p.word();
                engine.truncate_table(DB, &t).map(|_| "ok".into())
            }
            "purge" => {
                let n = engine.purge_now(usize::MAX);
                Ok(format!("purged {n} rows"))
            }
            "versions" => {
                let t = p.word();
                engine
                    .table(DB, &t)
                    .map(|t| format!("{} old versions", t.old_versions()))
            }
            "droptable" => {
                let t = p.word();
                engine.drop_table(DB, &t, false).map(|_| "ok".into())
            }
            "autoinc" => {
                let t = p.word();
                engine.table(DB, &t).map(|t| {
                    if let Some(Tok::Word(w)) = p.peek().cloned() {
                        t.observe_auto_increment(w.parse().unwrap());
                    }
                    let a = t.next_auto_increment();
                    let b = t.next_auto_increment();
                    format!("next {a}, {b}; peek {}", t.auto_increment_peek())
                })
            }
            _ => panic!("unknown command {cmd}"),
        };
        let _ = match r {
            Ok(s) => writeln!(out, "{s}"),
            Err(e) => writeln!(out, "{}", fmt_err(&e)),
        };
    }
    for (name, w) in workers.iter_mut() {
        assert!(!w.pending, "{name} still blocked at the end of the script");
    }
    for (_, mut w) in workers.drain() {
        drop(w.cmd);
        if let Some(t) = w.thread.take() {
            t.join().unwrap();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/storage/testscripts")
    }

    fn golden(name: &str) {
        let script = std::fs::read_to_string(dir().join(format!("{name}.txt")))
            .unwrap_or_else(|e| panic!("{name}.txt: {e}"));
        let got = run_script(&script);
        let out_path = dir().join(format!("{name}.out"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&out_path, &got).unwrap();
            return;
        }
        let want = std::fs::read_to_string(&out_path)
            .unwrap_or_else(|e| panic!("{name}.out: {e} (run with UPDATE_GOLDEN=1)"));
        if got != want {
            panic!("script {name}: transcript differs\n--- want\n{want}\n--- got\n{got}");
        }
    }

    macro_rules! golden_tests {
        ($($name:ident),* $(,)?) => {
            $(#[test] fn $name() { golden(stringify!($name)); })*
        };
    }

    golden_tests!(
        basic,
        visibility,
        lock_wait,
        deadlock,
        timeout,
        savepoint,
        insert_waits,
        unique,
        scans,
        collation,
        ddl,
        no_pk,
        snapshots,
        shared_locks,
        gaps,
        purge,
        serializable,
    );

    #[test]
    fn tokenizer_handles_quotes_and_punctuation() {
        assert_eq!(
            tokenize("T1 &: insert t 1,'a, b',d'2020-01-02'"),
            vec![
                Tok::Word("T1".into()),
                Tok::Punct('&'),
                Tok::Punct(':'),
                Tok::Word("insert".into()),
                Tok::Word("t".into()),
                Tok::Word("1".into()),
                Tok::Punct(','),
                Tok::Str("a, b".into()),
                Tok::Punct(','),
                Tok::Word("d'2020-01-02".into()),
            ]
        );
    }
}
