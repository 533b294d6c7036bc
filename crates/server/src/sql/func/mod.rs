//! Scalar functions: name lookup and typing at bind time ([`bind`]), evaluation at run time
//! ([`eval`]). Aggregates (COUNT, SUM, …) are handled by the binder and `exec::select`.
//!
//! Families live in their own files: `interval.rs` (DATE_ADD and `± INTERVAL`, TIMESTAMPDIFF),
//! `calendar.rs` (DAYOFWEEK … EXTRACT, CONVERT_TZ), `date_format.rs` (DATE_FORMAT,
//! STR_TO_DATE), `text.rs` (SUBSTRING_INDEX, FORMAT, QUOTE, base64, CONV…), `regexp.rs`,
//! `hash.rs`, `binary.rs` (byte-wise string functions), `greatest.rs`, `interval_index.rs`
//! (INTERVAL(N, N1, …)), `compress.rs` (COMPRESS, UNCOMPRESS), `password.rs` (PASSWORD,
//! OLD_PASSWORD), `random_bytes.rs`, `aes.rs` (AES_ENCRYPT, AES_DECRYPT), `benchmark.rs`.

mod aes;
mod benchmark;
mod binary;
pub(in crate::sql) mod calendar;
mod collation_info;
mod compress;
mod date_format;
mod greatest;
mod hash;
mod inet;
pub(in crate::sql) mod interval;
mod interval_index;
pub(in crate::sql) mod json;
mod math;
mod password;
mod period;
mod random_bytes;
mod regexp;
mod strset;
mod text;
mod time_fn;

use crate::error::{Error, Result};
use crate::sql::bind::sqltype::{Class, SqlType};
use crate::sql::env::Env;
use crate::sql::expr::compare;
use crate::sql::expr::convert::{self, Num};
use crate::sql::expr::{coerce, Expr, RowCtx};
use crate::types::{Collation, Date, DateTime, Value};
use cohort_decimal::{Rounding, MAX_SCALE};
use cohort_protocol::column::ColumnType;
use cohort_protocol::ErrorCode;
use std::borrow::Cow;
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimSide {
    Both,
    Leading,
    Trailing,
}

/// What a string argument's bytes are for the functions that count or show bytes: values are
/// UTF-8 in memory whatever the character set, a latin1 value's bytes are its latin1 ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bytes {
    Utf8,
    Latin1,
}

impl Bytes {
    /// The byte form of an argument of type `t`.
    fn of(t: &SqlType) -> Bytes {
        match t.class == Class::Str
            && t.collation.charset() == crate::types::collation::Charset::Latin1
        {
            true => Bytes::Latin1,
            false => Bytes::Utf8,
        }
    }

    /// `b` in this byte form (borrowed when nothing changes).
    fn of_value<'a>(self, b: &'a [u8]) -> Cow<'a, [u8]> {
        match self {
            Bytes::Latin1 if !b.is_ascii() => {
                Cow::Owned(crate::types::latin1::encode(&String::from_utf8_lossy(b)).0)
            }
            _ => Cow::Borrowed(b),
        }
    }
}

/// The functions that read their argument's bytes (hashes, checksums, base64, bit lengths,
/// the first byte) see a latin1 argument's latin1 bytes, as in MariaDB, not the UTF-8 Cohort
/// keeps: the argument is encoded first. ORD of a latin1 string is its first byte (ASCII).
/// (LENGTH and HEX keep their argument's type and encode themselves, see [`Bytes`].)
fn latin1_byte_args(name: &mut String, args: &mut [(Expr, SqlType)]) {
    const BYTE_FUNCS: &[&str] = &[
        "MD5",
        "SHA1",
        "SHA",
        "SHA2",
        "CRC32",
        "CRC32C",
        "TO_BASE64",
        "BIT_LENGTH",
        "ASCII",
        "ORD",
        "COMPRESS",
        "AES_ENCRYPT",
        "PASSWORD",
        "OLD_PASSWORD",
    ];
    if !BYTE_FUNCS.contains(&name.as_str()) {
        return;
    }
    for (e, t) in args.iter_mut() {
        if Bytes::of(t) == Bytes::Latin1 {
            let inner = std::mem::replace(e, Expr::Lit(Value::Null));
            *e = Expr::Cast(Box::new(inner), crate::sql::expr::CastTo::Latin1Bytes);
            if name == "ORD" {
                *name = "ASCII".to_string();
            }
        }
    }
}

/// A scalar function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Func {
    Concat,
    ConcatWs,
    /// LENGTH / OCTET_LENGTH: bytes in the argument's character set (`Bytes::Latin1`: one a
    /// character, where the value in memory is UTF-8).
    Length(Bytes),
    CharLength,
    /// UPPER / LOWER: by the argument's character set's case map (latin1's is MariaDB's own).
    Upper(Bytes),
    Lower(Bytes),
    Substring,
    /// TRIM(side [remstr] FROM s): args are (s) or (s, remstr).
    Trim(TrimSide),
    /// REPLACE; true when its arguments' collation sorts by bytes (utf8mb4_bin, binary).
    Replace(bool),
    Left,
    Right,
    Repeat,
    Reverse,
    Lpad,
    Rpad,
    Instr,
    Locate,
    Space,
    Ascii,
    /// ORD(): the first character's bytes as a big-endian number.
    Ord,
    /// INSERT(s, pos, len, new).
    Insert,
    /// ELT(n, s1, s2, …).
    Elt,
    /// FIELD(x, a, b, …) comparing with this collation (for strings).
    Field(Collation),
    /// FIND_IN_SET(s, list): the 1-based position of `s` among the comma-separated elements
    /// of `list` (compared with this collation), 0 if none.
    FindInSet(Collation),
    /// CHAR(n, …): a binary string of the numbers' bytes.
    Char,
    /// STRCMP under the collation of its arguments.
    Strcmp(Collation),
    /// HEX of a string: its bytes in its character set (see [`Bytes`]).
    Hex(Bytes),
    Abs,
    /// ROUND(x[, d]); `keep_scale` (the argument type's scale) when `d` is not a constant: a
    /// DECIMAL keeps that scale and rounds to at most it (MariaDB types the result before it
    /// knows `d`: `ROUND(100.00, c)` is `100.00`; `TRUNCATE(c0 / 3.14159, 5)` truncates the
    /// quotient's working digits to 4 places).
    Round {
        keep_scale: Option<u8>,
    },
    /// TRUNCATE(x, d); `keep_scale` as for ROUND.
    Truncate {
        keep_scale: Option<u8>,
    },
    Floor,
    Ceil,
    Mod,
    Sign,
    Pow,
    Sqrt,
    Pi,
    Rand,
    /// A string function of a binary string, byte-wise.
    Bin(binary::BinFunc),
    /// GREATEST in its class; strings compare in the arguments' aggregated collation.
    Greatest(Class, Collation),
    Least(Class, Collation),
    IfNull(Class),
    Coalesce(Class),
    /// NULLIF, comparing in its arguments' aggregated collation.
    NullIf(Collation),
    If(Class),
    IsNull,
    Now(u8),
    SysDate(u8),
    CurDate,
    /// CURTIME(fsp): a TIME.
    CurTime(u8),
    /// UTC_TIMESTAMP(fsp), UTC_DATE, UTC_TIME(fsp): the clock in UTC whatever the session's
    /// time zone.
    UtcNow(u8),
    UtcDate,
    UtcTime(u8),
    /// Not a function the user wrote: a TIMESTAMP column's value (UTC) in the session's time
    /// zone (bound only for sessions whose zone is not SYSTEM; see `Binder::zoned`).
    TsLocal,
    /// UNIX_TIMESTAMP(col) of such a column: its stored UTC value, exact even in the hour a
    /// zone repeats (MariaDB).
    /// (With the fractional digits to show: a DECIMAL result when not 0.)
    UnixTimestampUtc(u8),
    /// UNIX_TIMESTAMP([x]); a DECIMAL of that many fractional digits when not 0 (MariaDB:
    /// `UNIX_TIMESTAMP('2020-01-01 00:00:00.5')` is 1577836800.5).
    UnixTimestamp(u8),
    /// FROM_UNIXTIME(n) as a DATETIME of that many fractional digits (`FROM_UNIXTIME(1.5)` is
    /// '1970-01-01 00:00:01.5').
    FromUnixtime(u8),
    DateOf,
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    DateDiff,
    Database,
    Version,
    User,
    CurrentUser,
    ConnectionId,
    RowCount,
    /// FOUND_ROWS() (see `exec/found_rows.rs`).
    FoundRows,
    LastInsertId,
    Sleep,
    /// GET_LOCK / RELEASE_LOCK / IS_FREE_LOCK / IS_USED_LOCK / RELEASE_ALL_LOCKS (see
    /// `crate::session::user_locks`).
    UserLock(UserLockOp),
    /// `BINLOG_GTID_POS(file, pos)`: the GTID position at a binlog position (replicas ask it
    /// when they switch to GTID mode).
    BinlogGtidPos,
    /// DATE_ADD / DATE_SUB / `± INTERVAL` / TIMESTAMPADD (see `interval.rs`).
    AddInterval {
        unit: interval::Unit,
        sub: bool,
        out: interval::Out,
    },
    TimestampDiff(interval::Unit),
    /// A calendar function, with its result's class and decimals (see `calendar.rs`).
    Cal(calendar::CalFn, Class, u8),
    /// A TIME function (see `time_fn.rs`), with its result's fractional digits.
    TimeFn(time_fn::TimeFn, u8),
    DateFormat,
    StrToDate(date_format::StrOut),
    Text(text::TextFn),
    Regexp(regexp::RegexpFn, Collation),
    Hash(hash::HashFn),
    /// EXP, LN, LOG, the trigonometric functions, BIT_COUNT (see `math.rs`).
    Math(math::MathFn),
    /// A JSON function and which of its arguments are JSON (bit i: argument i).
    Json(json::JsonFn, u64),
    /// INET_ATON … IS_IPV4_MAPPED (see `inet.rs`).
    Inet(inet::InetFn),
    /// MAKE_SET, EXPORT_SET, CHR (see `strset.rs`).
    SetStr(strset::SetFn),
    /// PERIOD_ADD, PERIOD_DIFF (see `period.rs`).
    Period(period::PeriodFn),
    /// INTERVAL(N, N1, …) (see `interval_index.rs`).
    IntervalIndex,
    /// COMPRESS, UNCOMPRESS, UNCOMPRESSED_LENGTH (see `compress.rs`).
    Compress(compress::CompressFn),
    /// PASSWORD, OLD_PASSWORD (see `password.rs`).
    Password(password::PasswordFn),
    /// RANDOM_BYTES(n) (see `random_bytes.rs`).
    RandomBytes,
    /// AES_ENCRYPT, AES_DECRYPT (see `aes.rs`).
    Aes(aes::AesFn),
    /// BENCHMARK(count, expr) (see `benchmark.rs`).
    Benchmark,
}

impl Func {
    /// False for functions whose value changes between calls within a statement.
    pub fn is_deterministic(self) -> bool {
        !matches!(
            self,
            Func::Rand
                | Func::SysDate(_)
                | Func::LastInsertId
                | Func::Sleep
                | Func::UserLock(_)
                | Func::RandomBytes
                | Func::Benchmark
        ) && !matches!(self, Func::Hash(h) if !h.is_deterministic())
    }
}

/// 1582 naming the function as written (MariaDB: `ABS(1, 2)` names 'ABS', `abs(1, 2)` 'abs').
pub(in crate::sql) fn wrong_args(name: &str) -> Error {
    Error::new(
        ErrorCode::WrongParamcountToNativeFct,
        format!("Incorrect parameter count in the call to native function '{name}'"),
    )
}

/// The unknown-function error, 1305 (Cohort has no stored functions: a name that is no
/// built-in does not exist).
pub fn unknown_function(name: &str) -> Error {
    Error::new(
        ErrorCode::SpDoesNotExist,
        format!("FUNCTION {name} does not exist"),
    )
}

/// The common type of several branches (IFNULL, COALESCE, IF, CASE, GREATEST).
pub fn unify(types: &[&SqlType]) -> SqlType {
    let mut it = types.iter().filter(|t| t.class != Class::Null);
    let Some(first) = it.next() else {
        return SqlType::null();
    };
    let mut out = (*first).clone();
    for t in it {
        out = unify2(&out, t);
    }
    out.nullable = types.iter().any(|t| t.nullable);
    out
}

fn unify2(a: &SqlType, b: &SqlType) -> SqlType {
    use crate::sql::bind::derivation;
    let mut t = unify_class(a, b);
    if matches!(t.class, Class::Str | Class::Bin) {
        // A string result has the aggregated collation of both (a column's over a literal's,
        // utf8mb4_bin over utf8mb4_general_ci, binary over a character string of the same
        // strength): IFNULL('a', bin_col) is utf8mb4_bin, COALESCE(ci_col, X'41') stays
        // utf8mb4_general_ci.
        let agg = derivation::aggregate([a, b]);
        if t.class == Class::Bin && agg.0 != Collation::Binary {
            t = SqlType::varchar(a.char_len().max(b.char_len())).with_nullable(t.nullable);
        }
        return derivation::with_aggregate(t, agg);
    }
    t
}

/// The common type of two branches, before collations.
fn unify_class(a: &SqlType, b: &SqlType) -> SqlType {
    use Class::*;
    match (a.class, b.class) {
        // A signed integer with a BIGINT UNSIGNED has no common integer type: DECIMAL.
        (Int, Int)
            if a.unsigned != b.unsigned && {
                let u = if a.unsigned { a } else { b };
                u.wire == cohort_protocol::column::ColumnType::LONGLONG
            } =>
        {
            SqlType::decimal(a.length.max(b.length).max(20), 0)
        }
        (x, y) if x == y => {
            let mut t = a.clone();
            t.length = a.length.max(b.length);
            t.decimals = a.decimals.max(b.decimals);
            t.unsigned = a.unsigned && b.unsigned;
            if a.wire != b.wire {
                // Mixed widths (TINYINT vs INT, CHAR vs VARCHAR…): the widest wire type.
                t.wire = match x {
                    Int => cohort_protocol::column::ColumnType::LONGLONG,
                    Double => cohort_protocol::column::ColumnType::DOUBLE,
                    Str | Bin => cohort_protocol::column::ColumnType::VAR_STRING,
                    _ => t.wire,
                };
                if x == Int {
                    t.length = 21;
                }
            }
            t
        }
        (Int | Decimal, Int | Decimal) => {
            // MariaDB: the most integer digits and the largest scale (IF(c, 1, 2.50) is
            // DECIMAL(3,2); COALESCE(int_col, DECIMAL(10,3)) DECIMAL(13,3)).
            use crate::sql::bind::int_digits;
            let scale = a.decimals.max(b.decimals);
            let p = int_digits(a).max(int_digits(b)) + scale as u32;
            SqlType::decimal(p.min(65), scale)
        }
        (Int | Decimal | Double, Int | Decimal | Double) => {
            // The most decimals of a branch, fixed while every branch's are (`CASE … THEN -1
            // ELSE ROUND(1e0, 1) END` shows 1.0 as a string; with a plain DOUBLE none are).
            let dec = |t: &SqlType| if t.class == Int { 0 } else { t.decimals };
            let mut t = SqlType::double();
            let d = dec(a).max(dec(b));
            if d < crate::sql::bind::sqltype::FLOATING_POINT_DECIMALS {
                t.decimals = d;
            }
            t
        }
        (Date | DateTime, Date | DateTime) => SqlType::datetime(a.decimals.max(b.decimals)),
        (Bin, _) | (_, Bin) => SqlType::varbinary(a.length.max(b.length)),
        _ => SqlType::varchar(a.char_len().max(b.char_len())),
    }
}

/// MariaDB's type of an IFNULL / COALESCE / IF / CASE / GREATEST / LEAST whose branches are
/// all integers (NULL branches aside), refined from [`unify`]'s, which sees only the types:
/// the widest branch's wire type (an integer literal is an INT, or a BIGINT past 9 digits);
/// signed, the most digits of a branch plus one for the sign (`IF(c, tinyint_col, 1)` is an
/// INT of length 4, `COALESCE(1, 2)` 2); unsigned when every branch is, as long as the
/// longest; and a DECIMAL of the most digits when signed and unsigned branches meet
/// (`IF(c, int_unsigned_col, 0)` is DECIMAL(10,0), `IFNULL(tinyint_unsigned_col, -1)`
/// DECIMAL(3,0)). With a DECIMAL branch among integers, the DECIMAL has the most integer
/// digits of a branch counted the same way (`CASE … THEN tinyint_col ELSE 1.5 END` is
/// DECIMAL(4,1)). Other wire types (YEAR, BIT) keep [`unify`]'s type.
pub(crate) fn signed_int_branches<'a>(
    t: &mut SqlType,
    branches: impl IntoIterator<Item = (&'a Expr, &'a SqlType)>,
) {
    int_branches(t, branches, false)
}

/// [`signed_int_branches`] where a NULL literal branch counts as a signed integer, as in
/// MariaDB's IFNULL, COALESCE and CASE (not IF): `COALESCE(NULL, int_unsigned_col)` is
/// DECIMAL(10,0), `IF(c, NULL, int_unsigned_col)` an INT UNSIGNED.
pub(crate) fn null_signed_int_branches<'a>(
    t: &mut SqlType,
    branches: impl IntoIterator<Item = (&'a Expr, &'a SqlType)>,
) {
    int_branches(t, branches, true)
}

fn int_branches<'a>(
    t: &mut SqlType,
    branches: impl IntoIterator<Item = (&'a Expr, &'a SqlType)>,
    null_is_signed: bool,
) {
    if !matches!(t.class, Class::Int | Class::Decimal) {
        return;
    }
    let (mut digits, mut scale, mut wire) = (0u32, 0u8, 0u8);
    let (mut signed, mut unsigned, mut decimal) = (false, false, false);
    for (e, bt) in branches {
        match bt.class {
            Class::Null if null_is_signed && matches!(e, Expr::Lit(Value::Null)) => signed = true,
            Class::Null => {}
            Class::Int => {
                let Some(rank) = int_wire_rank(bt.wire) else {
                    return;
                };
                wire = wire.max(rank);
                if bt.unsigned {
                    unsigned = true;
                } else {
                    signed = true;
                }
                digits = digits.max(int_branch_digits(e, bt));
            }
            Class::Decimal => {
                decimal = true;
                scale = scale.max(bt.decimals);
                digits = digits.max(crate::sql::bind::int_digits(bt));
            }
            _ => return,
        }
    }
    let nullable = t.nullable;
    if decimal || (signed && unsigned) {
        let p = (digits + u32::from(scale)).min(65);
        *t = SqlType::decimal(p, scale).with_nullable(nullable);
        return;
    }
    if t.class != Class::Int || wire == 0 {
        return;
    }
    t.wire = [
        ColumnType::TINY,
        ColumnType::SHORT,
        ColumnType::INT24,
        ColumnType::LONG,
        ColumnType::LONGLONG,
    ][usize::from(wire - 1)];
    t.unsigned = unsigned;
    t.length = digits.max(1) + u32::from(!unsigned);
}

/// The order of integer wire types by width (1 for TINY … 5 for LONGLONG); None for the
/// integer classes that are no plain integers (YEAR, BIT).
fn int_wire_rank(w: ColumnType) -> Option<u8> {
    Some(match w {
        ColumnType::TINY => 1,
        ColumnType::SHORT => 2,
        ColumnType::INT24 => 3,
        ColumnType::LONG => 4,
        ColumnType::LONGLONG => 5,
        _ => return None,
    })
}

/// Digits of an integer branch, as MariaDB counts them: a non-negative literal's own, an
/// unsigned value's length, a signed value's length less its sign.
fn int_branch_digits(e: &Expr, t: &SqlType) -> u32 {
    match e {
        Expr::Lit(Value::Int(n)) if *n >= 0 => t.length,
        _ if t.unsigned => t.length,
        _ => t.length.saturating_sub(1),
    }
}

/// Whether a branch of a string IFNULL / COALESCE / IF / CASE becomes its text with digits
/// its type fixes ([`crate::sql::bind::number_as_text`]).
pub(crate) fn shown_as_text(t: &SqlType) -> bool {
    match t.class {
        Class::DateTime => t.decimals > 0,
        Class::Decimal => t.decimals <= MAX_SCALE,
        Class::Double => t.decimals < crate::sql::bind::sqltype::FLOATING_POINT_DECIMALS,
        _ => false,
    }
}

/// HEX's result, as MariaDB sizes it: two digits a byte of a string, temporal or unsigned
/// integer argument (its length), 16 for any other number (a signed integer, DECIMAL or DOUBLE
/// is hexed as a BIGINT, two's complement when negative), none for NULL; always nullable, no
/// decimals.
fn hex_type(arg: &SqlType) -> SqlType {
    let chars = match arg.class {
        Class::Null => 0,
        Class::Int if arg.unsigned => arg.length.saturating_mul(2),
        Class::Int | Class::Decimal | Class::Double => 16,
        _ => arg.length.saturating_mul(2),
    };
    let mut t = SqlType::varchar(chars);
    t.decimals = 0;
    t
}

/// Resolve a function call. `args` are bound arguments with their types.
pub fn bind(name: &str, mut args: Vec<(Expr, SqlType)>) -> Result<(Expr, SqlType)> {
    let mut upper = name.to_ascii_uppercase();
    latin1_byte_args(&mut upper, &mut args);
    if matches!(upper.as_str(), "LPAD" | "RPAD") && args.len() == 2 {
        // MariaDB 10.11: the padding defaults to a space.
        args.push((Expr::Lit(Value::str(" ")), SqlType::varchar(1).not_null()));
    }
    if let Some(bound) = binary::bind(&upper, &mut args) {
        return Ok(bound);
    }
    if let Some(bound) = collation_info::bind(&upper, &args) {
        return Ok(bound);
    }
    let n = args.len();
    let need = |ok: bool| if ok { Ok(()) } else { Err(wrong_args(name)) };
    let any_nullable = args.iter().any(|(_, t)| t.nullable);
    let first_len = args.first().map_or(0, |(_, t)| t.char_len());
    let int_ty = |len: u32| SqlType::int(len).with_nullable(any_nullable);
    let str_ty = |chars: u32| SqlType::varchar(chars).with_nullable(any_nullable);
    let (f, ty) = match upper.as_str() {
        "CONCAT" => {
            need(n >= 1)?;
            let len = args
                .iter()
                .map(|(_, t)| t.char_len())
                .fold(0u32, u32::saturating_add);
            (Func::Concat, str_ty(len))
        }
        "CONCAT_WS" => {
            need(n >= 2)?;
            let len = args
                .iter()
                .map(|(_, t)| t.char_len())
                .fold(0u32, u32::saturating_add);
            (
                Func::ConcatWs,
                SqlType::varchar(len).with_nullable(args[0].1.nullable),
            )
        }
        "LENGTH" | "OCTET_LENGTH" | "LENGTHB" => {
            need(n == 1)?;
            (Func::Length(Bytes::of(&args[0].1)), int_ty(10))
        }
        "CHAR_LENGTH" | "CHARACTER_LENGTH" => {
            need(n == 1)?;
            (Func::CharLength, int_ty(10))
        }
        "UPPER" | "UCASE" => {
            need(n == 1)?;
            (Func::Upper(Bytes::of(&args[0].1)), str_ty(first_len))
        }
        "LOWER" | "LCASE" => {
            need(n == 1)?;
            (Func::Lower(Bytes::of(&args[0].1)), str_ty(first_len))
        }
        "SUBSTRING" | "SUBSTR" | "MID" => {
            need(n == 2 || n == 3)?;
            (Func::Substring, str_ty(first_len))
        }
        "TRIM" => {
            need(n == 1 || n == 2)?;
            (Func::Trim(TrimSide::Both), str_ty(first_len))
        }
        "LTRIM" => {
            need(n == 1)?;
            (Func::Trim(TrimSide::Leading), str_ty(first_len))
        }
        "RTRIM" => {
            need(n == 1)?;
            (Func::Trim(TrimSide::Trailing), str_ty(first_len))
        }
        "REPLACE" => {
            need(n == 3)?;
            let binsort = crate::sql::bind::derivation::aggregate(args.iter().map(|(_, t)| t))
                .0
                .compare_as()
                != Collation::Utf8mb4GeneralCi;
            (
                Func::Replace(binsort),
                str_ty(first_len.saturating_mul(2).max(first_len)),
            )
        }
        "LEFT" => {
            need(n == 2)?;
            (Func::Left, str_ty(first_len))
        }
        "RIGHT" => {
            need(n == 2)?;
            (Func::Right, str_ty(first_len))
        }
        "REPEAT" => {
            need(n == 2)?;
            (Func::Repeat, SqlType::text().with_nullable(any_nullable))
        }
        "REVERSE" => {
            need(n == 1)?;
            (Func::Reverse, str_ty(first_len))
        }
        "LPAD" | "RPAD" => {
            need(n == 3)?;
            let f = if upper == "LPAD" {
                Func::Lpad
            } else {
                Func::Rpad
            };
            (f, SqlType::varchar(255))
        }
        "INSTR" => {
            need(n == 2)?;
            (Func::Instr, int_ty(10))
        }
        "LOCATE" | "POSITION" => {
            need(n == 2 || n == 3)?;
            (Func::Locate, int_ty(10))
        }
        "SPACE" => {
            need(n == 1)?;
            (
                Func::Space,
                SqlType::varchar(255).with_nullable(any_nullable),
            )
        }
        "ASCII" => {
            need(n == 1)?;
            (Func::Ascii, int_ty(3))
        }
        "ORD" => {
            need(n == 1)?;
            (Func::Ord, int_ty(10))
        }
        "INSERT" => {
            need(n == 4)?;
            let len = first_len.saturating_add(args[3].1.char_len());
            (Func::Insert, str_ty(len))
        }
        "ELT" => {
            need(n >= 2)?;
            let len = args[1..]
                .iter()
                .map(|(_, t)| t.char_len())
                .max()
                .unwrap_or(0);
            (Func::Elt, SqlType::varchar(len).with_nullable(true))
        }
        "FIELD" => {
            need(n >= 2)?;
            let coll = crate::sql::bind::derivation::aggregate(args.iter().map(|(_, t)| t)).0;
            // One comparison type for all (MariaDB): with a number among strings, every
            // argument compares as a DOUBLE (`FIELD(' 0Z', 'x', 5)` is 1: both strings read
            // as 0), an ENUM / SET as its number.
            let number =
                |t: &SqlType| matches!(t.class, Class::Int | Class::Decimal | Class::Double);
            let mixed = args.iter().any(|(_, t)| number(t))
                && args
                    .iter()
                    .any(|(_, t)| matches!(t.class, Class::Str | Class::Bin));
            if mixed {
                let args = args
                    .into_iter()
                    .map(|a| {
                        let (e, t) = crate::sql::bind::enum_as_number(a);
                        if matches!(t.class, Class::Str | Class::Bin) {
                            let e = Expr::Cast(Box::new(e), crate::sql::expr::CastTo::Double);
                            (e, SqlType::double().with_nullable(t.nullable))
                        } else {
                            (e, t)
                        }
                    })
                    .collect::<Vec<_>>();
                return Ok((
                    Expr::Func(
                        Func::Field(coll),
                        args.into_iter().map(|(e, _)| e).collect(),
                    ),
                    SqlType::int(3).not_null(),
                ));
            }
            (Func::Field(coll), SqlType::int(3).not_null())
        }
        "FIND_IN_SET" => {
            need(n == 2)?;
            let coll = crate::sql::bind::comparison_collation(&args[0].1, &args[1].1);
            // In a SET column the position is the member's, in the declaration (MariaDB):
            // the member list goes along as a third argument.
            if let Some(crate::types::DataType::Set { members, .. }) = args[1].1.enumset.as_deref()
            {
                let all = Value::str(&members.join(","));
                args.push((Expr::Lit(all), SqlType::varchar(0)));
            }
            (Func::FindInSet(coll), int_ty(3))
        }
        "CHAR" => {
            need(n >= 1)?;
            (Func::Char, SqlType::varbinary(4 * n as u32).not_null())
        }
        "STRCMP" => {
            need(n == 2)?;
            crate::sql::bind::derivation::check_mix([&args[0].1, &args[1].1], "strcmp")?;
            let coll = crate::sql::bind::comparison_collation(&args[0].1, &args[1].1);
            (Func::Strcmp(coll), int_ty(2))
        }
        "HEX" => {
            need(n == 1)?;
            let (e, t) = args.remove(0);
            if matches!(t.class, Class::DateTime | Class::Time) {
                // Hexed as its text, with the type's fractional digits.
                args.insert(0, (crate::sql::bind::datetime_as_text(e, &t), t));
            } else {
                args.insert(0, (e, t));
            }
            (Func::Hex(Bytes::of(&args[0].1)), hex_type(&args[0].1))
        }
        "ABS" => {
            need(n == 1)?;
            let t = match args[0].1.class {
                // MariaDB: the argument's length and signedness, LONG when it fits.
                Class::Int if !matches!(args[0].1.wire, ColumnType::BIT | ColumnType::YEAR) => {
                    let a = &args[0].1;
                    let mut t = SqlType::bigint();
                    t.length = a.length;
                    t.unsigned = a.unsigned;
                    if a.length <= 9 {
                        t.wire = ColumnType::LONG;
                    }
                    t
                }
                Class::Int => SqlType::bigint(),
                _ => numeric_like(&args[0].1),
            };
            (Func::Abs, t.with_nullable(any_nullable))
        }
        "ROUND" | "TRUNCATE" => {
            need(n == 1 || n == 2)?;
            let keep_scale = matches!(args.get(1), Some((e, _)) if !matches!(e, Expr::Lit(_)))
                .then_some(args[0].1.decimals.min(MAX_SCALE));
            let f = if upper == "ROUND" {
                Func::Round { keep_scale }
            } else {
                Func::Truncate { keep_scale }
            };
            let is_round = upper == "ROUND";
            let d = match args.get(1) {
                Some((Expr::Lit(v), _)) => convert::to_i64(v).clamp(0, MAX_SCALE as i64) as u8,
                // A scale known only per row: the argument's own (see `Func::Round`).
                Some(_) => args[0].1.decimals.min(MAX_SCALE),
                None => 0,
            };
            let null_scale = matches!(args.get(1), Some((Expr::Lit(Value::Null), _)));
            let t = match args[0].1.class {
                Class::Int => args[0].1.clone(),
                // A NULL scale makes a DECIMAL's result a DOUBLE (MariaDB types it so: in a
                // UNION with a decimal the column is DOUBLE).
                Class::Decimal if null_scale => SqlType::double(),
                Class::Decimal => {
                    // MariaDB: the integer digits, one more when ROUND drops digits (a carry),
                    // and the new scale; at most 65.
                    let a = &args[0].1;
                    let carry = u32::from(is_round && d < a.decimals);
                    let places = match args.get(1) {
                        Some((Expr::Lit(v), _)) => convert::to_i64(v),
                        // Any scale may round up a digit.
                        Some(_) => -1,
                        None => 0,
                    };
                    let carry = if places < 0 {
                        u32::from(is_round)
                    } else {
                        carry
                    };
                    let p = crate::sql::bind::int_digits(a) + carry + d as u32;
                    SqlType::decimal(p.min(65), d)
                }
                _ => {
                    // A constant scale below 31 fixes a DOUBLE's decimals: ROUND(2.5e0, 3) is
                    // shown 2.500 (CastTo::DoubleText).
                    let mut t = SqlType::double();
                    if let Some((Expr::Lit(v), _)) = args.get(1) {
                        // A negative scale fixes none (ROUND(-1.5e1, -5) is 0, and
                        // `c / 3 - ROUND(x, -5)` shows the quotient's 4).
                        let places = convert::to_i64(v).max(0);
                        if places < i64::from(crate::sql::bind::sqltype::FLOATING_POINT_DECIMALS) {
                            t.decimals = places as u8;
                            t.length = 17 + places as u32;
                        }
                    }
                    t
                }
            };
            (f, t.with_nullable(any_nullable))
        }
        "FLOOR" | "CEIL" | "CEILING" => {
            need(n == 1)?;
            let f = if upper == "FLOOR" {
                Func::Floor
            } else {
                Func::Ceil
            };
            let t = match args[0].1.class {
                Class::Double => SqlType::double(),
                Class::Decimal => floor_ceil_type(&args[0].1),
                _ => SqlType::bigint(),
            };
            (f, t.with_nullable(any_nullable))
        }
        "MOD" => {
            need(n == 2)?;
            let t = crate::sql::bind::arith_type(
                crate::sql::expr::ArithOp::Mod,
                &args[0].1,
                &args[1].1,
            );
            (Func::Mod, t.with_nullable(true))
        }
        "SIGN" => {
            need(n == 1)?;
            (Func::Sign, int_ty(2))
        }
        "POW" | "POWER" => {
            need(n == 2)?;
            (Func::Pow, SqlType::double().with_nullable(any_nullable))
        }
        "SQRT" => {
            need(n == 1)?;
            (Func::Sqrt, SqlType::double())
        }
        "PI" => {
            need(n == 0)?;
            // Shown with 6 decimals (3.141593), its full value in arithmetic (MariaDB).
            let mut t = SqlType::double().not_null();
            t.decimals = 6;
            (Func::Pi, t)
        }
        "RAND" => {
            need(n <= 1)?;
            (Func::Rand, SqlType::double().not_null())
        }
        "GREATEST" | "LEAST" => {
            need(n >= 2)?;
            let mut t = greatest::bind_type(&args.iter().map(|(_, t)| t).collect::<Vec<_>>());
            signed_int_branches(&mut t, args.iter().map(|(e, t)| (e, t)));
            if matches!(t.class, Class::Int | Class::Decimal | Class::Double)
                && args.iter().any(|(_, t)| t.enumset.is_some())
            {
                // Compared as numbers: an ENUM / SET gives its number (LEAST(4, 'Z') of
                // ENUM('m','b','Z','a') is 3).
                let args: Vec<_> = args
                    .into_iter()
                    .map(crate::sql::bind::enum_as_number)
                    .collect();
                return bind(name, args);
            }
            if t.class == Class::DateTime {
                t.decimals = greatest::datetime_fsp(&args);
            }
            let coll = crate::sql::bind::derivation::aggregate(args.iter().map(|(_, t)| t)).0;
            let f = if upper == "GREATEST" {
                Func::Greatest(t.class, coll)
            } else {
                Func::Least(t.class, coll)
            };
            (f, t)
        }
        "IFNULL" | "NVL" | "COALESCE" | "IF"
            if matches!(
                unify(
                    &args
                        .iter()
                        .skip(usize::from(upper == "IF"))
                        .map(|(_, t)| t)
                        .collect::<Vec<_>>(),
                )
                .class,
                Class::Str | Class::Bin
            ) && args
                .iter()
                .skip(usize::from(upper == "IF"))
                .any(|(_, t)| shown_as_text(t)) =>
        {
            // A string result shows a DATETIME(n) argument with its n digits, a DECIMAL with
            // its scale, a DOUBLE of fixed decimals with those (`IFNULL(bin_col, ROUND(x, 2))`
            // is '21.00', `IFNULL(dt_col, COALESCE(1, 100.00))` '1.00').
            let skip = usize::from(upper == "IF");
            let args = args
                .into_iter()
                .enumerate()
                .map(|(i, (e, t))| {
                    if i < skip || !shown_as_text(&t) {
                        return (e, t);
                    }
                    let text = SqlType::varchar(t.char_len()).with_nullable(t.nullable);
                    let e = match t.class {
                        Class::DateTime => crate::sql::bind::datetime_as_text(e, &t),
                        _ => crate::sql::bind::number_as_text(e, &t),
                    };
                    (e, text)
                })
                .collect();
            return bind(name, args);
        }
        "IFNULL" | "NVL" => {
            need(n == 2)?;
            let mut t = unify(&[&args[0].1, &args[1].1]);
            t.nullable = args[0].1.nullable && args[1].1.nullable;
            null_signed_int_branches(&mut t, args.iter().map(|(e, t)| (e, t)));
            (Func::IfNull(t.class), t)
        }
        "COALESCE" => {
            need(n >= 1)?;
            let mut t = unify(&args.iter().map(|(_, t)| t).collect::<Vec<_>>());
            t.nullable = args.iter().all(|(_, t)| t.nullable);
            null_signed_int_branches(&mut t, args.iter().map(|(e, t)| (e, t)));
            (Func::Coalesce(t.class), t)
        }
        "NULLIF" => {
            need(n == 2)?;
            let coll = crate::sql::bind::comparison_collation(&args[0].1, &args[1].1);
            (Func::NullIf(coll), args[0].1.clone().with_nullable(true))
        }
        "IF" => {
            need(n == 3)?;
            let mut t = unify(&[&args[1].1, &args[2].1]);
            signed_int_branches(&mut t, args[1..].iter().map(|(e, t)| (e, t)));
            (Func::If(t.class), t)
        }
        "NVL2" => {
            // NVL2(x, a, b) is IF(x IS NOT NULL, a, b).
            need(n == 3)?;
            // Nullable when any argument is (MariaDB: NVL2(NULL, 'a', 'b') too).
            let mut t = unify(&[&args[1].1, &args[2].1]);
            t.nullable = args.iter().any(|(_, t)| t.nullable);
            signed_int_branches(&mut t, args[1..].iter().map(|(e, t)| (e, t)));
            let x = args.remove(0).0;
            args.insert(
                0,
                (Expr::IsNull(Box::new(x), true), SqlType::int(1).not_null()),
            );
            (Func::If(t.class), t)
        }
        "ISNULL" => {
            need(n == 1)?;
            (Func::IsNull, SqlType::int(1).not_null())
        }
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE"
        | "UTC_TIMESTAMP" => {
            need(n <= 1)?;
            let fsp = match args.first() {
                Some((Expr::Lit(v), _)) => {
                    let item = match upper.as_str() {
                        "SYSDATE" => "sysdate",
                        "UTC_TIMESTAMP" => "utc_timestamp",
                        _ => "current_timestamp",
                    };
                    fsp_arg(v, item)?
                }
                Some(_) => return Err(wrong_args(name)),
                None => 0,
            };
            let f = match upper.as_str() {
                "SYSDATE" => Func::SysDate(fsp),
                "UTC_TIMESTAMP" => Func::UtcNow(fsp),
                _ => Func::Now(fsp),
            };
            return Ok((Expr::Func(f, Vec::new()), SqlType::datetime(fsp).not_null()));
        }
        "CURDATE" | "CURRENT_DATE" | "UTC_DATE" => {
            need(n == 0)?;
            let f = if upper == "UTC_DATE" {
                Func::UtcDate
            } else {
                Func::CurDate
            };
            (f, SqlType::date().not_null())
        }
        "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => {
            need(n <= 1)?;
            let fsp = match args.first() {
                Some((Expr::Lit(v), _)) => fsp_arg(v, "curtime")?,
                Some(_) => return Err(wrong_args(name)),
                None => 0,
            };
            let f = if upper == "UTC_TIME" {
                Func::UtcTime(fsp)
            } else {
                Func::CurTime(fsp)
            };
            return Ok((Expr::Func(f, Vec::new()), SqlType::time(fsp).not_null()));
        }
        "UNIX_TIMESTAMP" => {
            need(n <= 1)?;
            // The argument's fractional digits (a string literal's as written, a DATETIME(n)'s
            // n, another string's 6) make the result a DECIMAL of that scale.
            let fsp = match args.first() {
                Some((_, t)) if matches!(t.class, Class::Int | Class::Date | Class::Null) => 0,
                Some(_) => greatest::datetime_fsp(&args[..1]),
                None => 0,
            };
            // (Nullable whatever the argument, 17 digits wide, as MariaDB describes it.)
            let ty = if fsp == 0 {
                let mut t = SqlType::bigint();
                t.length = 17;
                t
            } else {
                SqlType::decimal(16 + u32::from(fsp), fsp)
            };
            if let Some(inner) = args.first().and_then(|a| a.0.zoned_col()).cloned() {
                return Ok((Expr::Func(Func::UnixTimestampUtc(fsp), vec![inner]), ty));
            }
            (Func::UnixTimestamp(fsp), ty)
        }
        "FROM_UNIXTIME" => {
            need(n == 1 || n == 2)?;
            let fsp = match args[0].1.class {
                Class::Decimal => args[0].1.decimals.min(6),
                Class::Double | Class::Str | Class::Bin => 6,
                _ => 0,
            };
            let ty = SqlType::datetime(fsp);
            if n == 2 {
                // FROM_UNIXTIME(n, format) is DATE_FORMAT(FROM_UNIXTIME(n), format).
                let mut args = args;
                let format = args.pop().expect("two arguments");
                let (e, _) = args.pop().expect("two arguments");
                let inner = (Expr::Func(Func::FromUnixtime(fsp), vec![e]), ty);
                return bind("DATE_FORMAT", vec![inner, format]);
            }
            (Func::FromUnixtime(fsp), ty)
        }
        "DATE" => {
            need(n == 1)?;
            (Func::DateOf, SqlType::date())
        }
        "YEAR" => {
            need(n == 1)?;
            (Func::Year, SqlType::int(4))
        }
        "MONTH" => {
            need(n == 1)?;
            (Func::Month, SqlType::int(2))
        }
        "DAY" | "DAYOFMONTH" => {
            need(n == 1)?;
            (Func::Day, SqlType::int(2))
        }
        "HOUR" => {
            need(n == 1)?;
            (Func::Hour, SqlType::int(2))
        }
        "MINUTE" => {
            need(n == 1)?;
            (Func::Minute, SqlType::int(2))
        }
        "SECOND" => {
            need(n == 1)?;
            (Func::Second, SqlType::int(2))
        }
        "DATEDIFF" => {
            need(n == 2)?;
            (Func::DateDiff, SqlType::int(7))
        }
        "DATABASE" | "SCHEMA" => {
            need(n == 0)?;
            (Func::Database, SqlType::varchar(64))
        }
        "VERSION" => {
            need(n == 0)?;
            (Func::Version, SqlType::varchar(60).not_null())
        }
        "BINLOG_GTID_POS" => {
            need(n == 2)?;
            (
                Func::BinlogGtidPos,
                SqlType::varchar(255).with_nullable(true),
            )
        }
        "USER" | "SESSION_USER" | "SYSTEM_USER" => {
            need(n == 0)?;
            (Func::User, SqlType::varchar(141).not_null())
        }
        "CURRENT_USER" => {
            need(n == 0)?;
            (Func::CurrentUser, SqlType::varchar(141).not_null())
        }
        "CONNECTION_ID" => {
            need(n == 0)?;
            // MariaDB: INT UNSIGNED, 10 long.
            (Func::ConnectionId, {
                let mut t = SqlType::int(10).not_null();
                t.unsigned = true;
                t
            })
        }
        "ROW_COUNT" => {
            need(n == 0)?;
            (Func::RowCount, SqlType::bigint().not_null())
        }
        "FOUND_ROWS" => {
            need(n == 0)?;
            (Func::FoundRows, SqlType::bigint().not_null())
        }
        "SLEEP" => {
            need(n == 1)?;
            (Func::Sleep, SqlType::int(1).not_null())
        }
        "GET_LOCK" => {
            need(n == 2)?;
            (Func::UserLock(UserLockOp::Get), SqlType::int(1))
        }
        "RELEASE_LOCK" => {
            need(n == 1)?;
            (Func::UserLock(UserLockOp::Release), SqlType::int(1))
        }
        "IS_FREE_LOCK" => {
            need(n == 1)?;
            (Func::UserLock(UserLockOp::IsFree), SqlType::int(1))
        }
        "IS_USED_LOCK" => {
            need(n == 1)?;
            (Func::UserLock(UserLockOp::IsUsed), SqlType::ubigint())
        }
        "RELEASE_ALL_LOCKS" => {
            need(n == 0)?;
            (
                Func::UserLock(UserLockOp::ReleaseAll),
                SqlType::int(10).not_null(),
            )
        }
        "LAST_INSERT_ID" => {
            need(n <= 1)?;
            // MariaDB: BIGINT UNSIGNED, 21 long (CREATE TABLE … SELECT makes a bigint(21)).
            (Func::LastInsertId, {
                let mut t = SqlType::ubigint().not_null();
                t.length = 21;
                t
            })
        }
        _ => return bind_more(&upper, name, args),
    };
    let ty = binary::derive(&upper, ty, &args)?;
    Ok((
        Expr::Func(f, args.into_iter().map(|(e, _)| e).collect()),
        ty,
    ))
}

/// The functions of the family files (calendar, formats, strings, regexp, hashes).
fn bind_more(upper: &str, name: &str, args: Vec<(Expr, SqlType)>) -> Result<(Expr, SqlType)> {
    let types: Vec<SqlType> = args.iter().map(|(_, t)| t.clone()).collect();
    let exprs = || args.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>();
    let bad = |_| wrong_args(name);
    let first_fsp = args.first().map_or(0, |(e, t)| interval::text_fsp(e, t));
    if let Some(r) = calendar::bind(upper, &types, first_fsp) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::Cal(f, ty.class, ty.decimals), exprs()), ty));
    }
    let fsps: Vec<u8> = args
        .iter()
        .map(|(e, t)| match t.class {
            Class::Time | Class::DateTime => t.decimals.min(6),
            _ => interval::text_fsp(e, t),
        })
        .collect();
    if let Some(r) = time_fn::bind(upper, &types, &fsps) {
        let (f, ty) = r.map_err(bad)?;
        let fsp = if ty.class == Class::Str {
            6
        } else {
            ty.decimals
        };
        return Ok((Expr::Func(Func::TimeFn(f, fsp), exprs()), ty));
    }
    let places = match args.get(1) {
        Some((Expr::Lit(v), _)) if upper == "FORMAT" && !v.is_null() => {
            Some(int_arg(v).clamp(0, 38) as u32)
        }
        _ => None,
    };
    if let Some(r) = text::bind(upper, &types, places) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::Text(f), exprs()), ty));
    }
    if let Some(r) = math::bind(upper, &types) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::Math(f), exprs()), ty));
    }
    if let Some(r) = hash::bind(upper, &types) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::Hash(f), exprs()), ty));
    }
    if let Some(r) = inet::bind(upper, &types) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::Inet(f), exprs()), ty));
    }
    if let Some(r) = strset::bind(upper, &types) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::SetStr(f), exprs()), ty));
    }
    if upper == "INTERVAL" {
        let ty = interval_index::bind(types.len()).ok_or_else(|| wrong_args(name))?;
        // Numbers throughout: an ENUM / SET gives its number.
        let args = args.iter().cloned().map(crate::sql::bind::enum_as_number);
        return Ok((
            Expr::Func(Func::IntervalIndex, args.map(|(e, _)| e).collect()),
            ty,
        ));
    }
    if upper == "PASSWORD" && types.is_empty() {
        return Err(Error::parse(")", 1));
    }
    if let Some(r) = password::bind(upper, &types) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::Password(f), exprs()), ty));
    }
    if upper == "RANDOM_BYTES" {
        let constant = match args.first() {
            Some((Expr::Lit(v), _)) => Some(v),
            _ => None,
        };
        let ty = random_bytes::bind(types.len(), constant).ok_or_else(|| wrong_args(name))?;
        return Ok((Expr::Func(Func::RandomBytes, exprs()), ty));
    }
    if upper == "BENCHMARK" {
        let ty = benchmark::bind(types.len()).ok_or_else(|| wrong_args(name))?;
        return Ok((Expr::Func(Func::Benchmark, exprs()), ty));
    }
    if let Some(r) = aes::bind(upper, &types) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::Aes(f), exprs()), ty));
    }
    if let Some(r) = compress::bind(upper, &types) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::Compress(f), exprs()), ty));
    }
    if let Some(r) = period::bind(upper, &types) {
        let (f, ty) = r.map_err(bad)?;
        return Ok((Expr::Func(Func::Period(f), exprs()), ty));
    }
    if let Some(r) = json::bind(upper, &args) {
        let (f, mask, ty) = r.map_err(|_| {
            Error::new(
                ErrorCode::WrongParamcountToNativeFct,
                format!("Incorrect parameter count in the call to native function '{name}'"),
            )
        })?;
        return Ok((Expr::Func(Func::Json(f, mask), exprs()), ty));
    }
    if let Some(r) = regexp::bind(upper, &types) {
        let (f, ty) = r.map_err(bad)?;
        let coll = crate::sql::bind::comparison_collation(&types[0], &types[1]);
        return Ok((Expr::Func(Func::Regexp(f, coll), exprs()), ty));
    }
    let constant = |i: usize| match args.get(i) {
        Some((Expr::Lit(v), _)) if !v.is_null() => Some(convert::to_text(v).into_owned()),
        _ => None,
    };
    match upper {
        "DATE_FORMAT" => {
            if args.len() != 2 && args.len() != 3 {
                return Err(wrong_args(name));
            }
            // A locale: the English ones name days and months as the default does; others
            // are refused rather than answered in English.
            if args.len() == 3 && !constant(2).is_some_and(|l| l.starts_with(b"en_")) {
                return Err(Error::unsupported(
                    "DATE_FORMAT with a locale other than an English one",
                ));
            }
            let len = constant(1).map_or(255, |f| date_format::max_len(&f));
            let ty = calendar::fixed(SqlType::varchar(len));
            let mut e = exprs();
            e.truncate(2);
            Ok((Expr::Func(Func::DateFormat, e), ty))
        }
        "STR_TO_DATE" => {
            if args.len() != 2 {
                return Err(wrong_args(name));
            }
            let (out, ty) = date_format::str_to_date_type(constant(1).as_deref());
            Ok((Expr::Func(Func::StrToDate(out), exprs()), ty))
        }
        _ => Err(unknown_function(name)),
    }
}

/// FLOOR / CEIL of a DECIMAL: BIGINT while the integer digits (plus a carry) fit in 18, else
/// DECIMAL(p, 0) (as MariaDB).
fn floor_ceil_type(arg: &SqlType) -> SqlType {
    let precision = arg.length.saturating_sub(1 + u32::from(arg.decimals > 0));
    let int_digits = precision.saturating_sub(arg.decimals as u32) + 1;
    if int_digits <= 18 {
        SqlType::int(int_digits + 1)
    } else {
        SqlType::decimal(int_digits.min(65), 0)
    }
}

/// A fractional-seconds precision: 0..=6, else error 1426 naming `item`.
pub fn fsp_arg(v: &Value, item: &str) -> Result<u8> {
    let n = int_arg(v);
    if n < 0 {
        return Err(Error::parse(&format!("{n})"), 1));
    }
    if n > 6 {
        return Err(Error::new(
            ErrorCode::TooBigPrecision,
            format!("Too big precision specified for '{item}'. Maximum is 6"),
        ));
    }
    Ok(n as u8)
}

fn numeric_like(t: &SqlType) -> SqlType {
    match t.class {
        Class::Int | Class::Decimal | Class::Double => t.clone(),
        _ => SqlType::double(),
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/// UPPER / LOWER as MariaDB's utf8mb4 case tables do them: one character to one character.
/// Where Unicode's full mapping gives several (`ß` → `SS`, `ŉ` → `ʼN`), MariaDB keeps the
/// character; `İ` lowercases to a plain `i`.
/// latin1's upper case, as MariaDB maps it: ASCII and the ISO-8859-1 letters 0xE0..0xFE
/// (not ÷); ÿ, ß, µ and cp1252's letters at 0x80..0x9F (š, œ, ž) stay as they are.
fn latin1_upper(c: char) -> char {
    match c {
        'a'..='z' => c.to_ascii_uppercase(),
        '\u{E0}'..='\u{FE}' if c != '\u{F7}' => char::from_u32(c as u32 - 0x20).unwrap_or(c),
        _ => c,
    }
}

/// latin1's lower case (the inverse of [`latin1_upper`]: Ÿ, Š, Œ, Ž stay).
fn latin1_lower(c: char) -> char {
    match c {
        'A'..='Z' => c.to_ascii_lowercase(),
        '\u{C0}'..='\u{DE}' if c != '\u{D7}' => char::from_u32(c as u32 + 0x20).unwrap_or(c),
        _ => c,
    }
}

fn map_case<I: Iterator<Item = char>>(s: &str, f: fn(char) -> I) -> String {
    s.chars()
        .map(|c| {
            let mut m = f(c);
            match (m.next(), m.next()) {
                (Some(x), None) => x,
                _ if c == '\u{130}' => 'i',
                _ => c,
            }
        })
        .collect()
}

fn text(v: &Value) -> String {
    convert::to_string(v)
}

fn chars_of(v: &Value) -> Vec<char> {
    text(v).chars().collect()
}

fn evals(args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        out.push(a.eval(r, env)?);
        // Arguments can each be max_allowed_packet long: hold the statement to its budget.
        crate::memory::check(0)?;
    }
    Ok(out)
}

/// Evaluate all arguments; None if any is NULL (most functions return NULL then).
fn strict_args(args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>) -> Result<Option<Vec<Value>>> {
    let vals = evals(args, r, env)?;
    Ok(if vals.iter().any(Value::is_null) {
        None
    } else {
        Some(vals)
    })
}

fn s(v: String) -> Value {
    Value::Bytes(v.into_bytes())
}

pub fn eval(f: Func, args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
    match f {
        Func::IfNull(class) => {
            let a = args[0].eval(r, env)?;
            let v = if a.is_null() {
                args[1].eval(r, env)?
            } else {
                a
            };
            return Ok(coerce(v, class));
        }
        Func::Coalesce(class) => {
            for a in args {
                let v = a.eval(r, env)?;
                if !v.is_null() {
                    return Ok(coerce(v, class));
                }
            }
            return Ok(Value::Null);
        }
        Func::If(class) => {
            let v = if args[0].is_true(r, env)? {
                args[1].eval(r, env)?
            } else {
                args[2].eval(r, env)?
            };
            return Ok(coerce(v, class));
        }
        Func::ConcatWs => return concat_ws(args, r, env),
        Func::Elt => return elt(args, r, env),
        Func::Field(coll) => return field(args, r, env, coll),
        Func::Char => return char_fn(args, r, env),
        Func::IsNull => return Ok(Value::Int(args[0].eval(r, env)?.is_null() as i64)),
        Func::IntervalIndex => return interval_index::eval(args, r, env),
        Func::Benchmark => return benchmark::eval(args, r, env),
        Func::UserLock(op) => return user_lock(op, args, r, env),
        Func::Sleep => {
            let secs = convert::to_num(&args[0].eval(r, env)?).to_f64();
            if secs > 0.0 {
                let d = std::time::Duration::from_secs_f64(secs.min(3600.0));
                if !crate::interrupt::sleep(d) {
                    // KILL QUERY / KILL CONNECTION: MariaDB ends the statement with 1317.
                    return Err(crate::interrupt::interrupted());
                }
            }
            return Ok(Value::Int(0));
        }
        Func::LastInsertId => {
            if let Some(a) = args.first() {
                let v = a.eval(r, env)?;
                // As BIGINT UNSIGNED: -1 is 18446744073709551615.
                let id = int_arg(&v) as u64;
                env.last_insert_id_set.set(Some(id));
                return Ok(Value::UInt(id));
            }
            let id = env
                .last_insert_id_set
                .get()
                .unwrap_or(env.sess.last_insert_id);
            return Ok(Value::UInt(id));
        }
        Func::Greatest(class, coll) => {
            return greatest::eval(Ordering::Greater, class, coll, args, r, env)
        }
        Func::Least(class, coll) => {
            return greatest::eval(Ordering::Less, class, coll, args, r, env)
        }
        Func::Replace(binsort) => {
            // An empty search string gives the subject back, whatever the replacement; so
            // does one not found in it under a byte-sorting collation (MariaDB searches
            // before it reads the replacement there: REPLACE('abc', 'x', NULL) of a
            // utf8mb4_bin column is 'abc', of a utf8mb4_general_ci one NULL).
            let a = args[0].eval(r, env)?;
            let b = args[1].eval(r, env)?;
            if a.is_null() || b.is_null() {
                return Ok(Value::Null);
            }
            let search = convert::to_text(&b);
            if search.is_empty()
                || (binsort
                    && !convert::to_text(&a)
                        .windows(search.len())
                        .any(|w| w == &*search))
            {
                return Ok(a);
            }
            let c = args[2].eval(r, env)?;
            if c.is_null() {
                return Ok(Value::Null);
            }
            return replace(&[a, b, c], env);
        }
        Func::NullIf(coll) => {
            let a = args[0].eval(r, env)?;
            if a.is_null() {
                return Ok(a);
            }
            // Compared as `a = b` compares: a date conversion that failed is the zero date
            // there (NULLIF(5, DATE(1)) is NULL in MariaDB, as 5 = DATE(1) is 1).
            let b = args[1].eval_compared(r, env)?;
            crate::sql::expr::warn_if_no_datetime(&a, &b, env);
            crate::sql::expr::num_warn::check_compared(&a, &b, &args[0], &args[1], env);
            let eq = crate::sql::expr::cmp_values(crate::sql::expr::CmpOp::Eq, &a, &b, coll)
                == Value::Int(1);
            return Ok(if eq { Value::Null } else { a });
        }
        _ => {}
    }
    match f {
        Func::Text(t) => return Ok(text::eval(t, &evals(args, r, env)?, env)),
        Func::Hash(h) => return Ok(hash::eval(h, &evals(args, r, env)?, env)),
        Func::Inet(i) => return Ok(inet::eval(i, &evals(args, r, env)?, env)),
        Func::SetStr(x) => return Ok(strset::eval(x, &evals(args, r, env)?, env)),
        Func::Compress(c) => return Ok(compress::eval(c, &evals(args, r, env)?, env)),
        Func::Password(p) => return Ok(password::eval(p, &evals(args, r, env)?)),
        Func::Aes(a) => return Ok(aes::eval(a, &evals(args, r, env)?)),
        Func::RandomBytes => return Ok(random_bytes::eval(&args[0].eval(r, env)?)),
        Func::Json(j, mask) => return Ok(json::eval(j, mask, &evals(args, r, env)?, env)),
        _ => {}
    }
    if let Some(v) = eval_nullary(f, env) {
        return Ok(v);
    }
    let Some(v) = strict_args(args, r, env)? else {
        return Ok(Value::Null);
    };
    if let Func::Math(m) = f {
        return math::eval(m, &v, env);
    }
    if let Func::Period(p) = f {
        return Ok(period::eval(p, &v));
    }
    eval_strict(f, &v, env)
}

fn eval_nullary(f: Func, env: &Env<'_>) -> Option<Value> {
    Some(match f {
        Func::Now(fsp) => Value::DateTime(truncate_fsp(env.local_now(), fsp)),
        Func::SysDate(fsp) => {
            let now = convert::now_utc();
            let now = env.zone().map_or(now, |z| z.to_local(&now));
            Value::DateTime(truncate_fsp(now, fsp))
        }
        Func::CurDate => Value::Date(env.local_now().date),
        Func::CurTime(fsp) => Value::Time(crate::sql::expr::time_value::truncate_fsp(
            crate::sql::expr::time_value::of_datetime(&env.local_now()),
            fsp,
        )),
        Func::UtcNow(fsp) => Value::DateTime(truncate_fsp(env.now(), fsp)),
        Func::UtcDate => Value::Date(env.now().date),
        Func::UtcTime(fsp) => Value::Time(crate::sql::expr::time_value::truncate_fsp(
            crate::sql::expr::time_value::of_datetime(&env.now()),
            fsp,
        )),
        Func::Database => match env.sess.db {
            Some(db) => Value::str(db),
            None => Value::Null,
        },
        Func::Version => env
            .ctx
            .vars
            .global("version")
            .unwrap_or(Value::str(crate::VERSION)),
        Func::User => s(format!("{}@{}", env.sess.user, env.sess.client_host)),
        Func::CurrentUser => s(format!("{}@{}", env.sess.user, env.sess.host)),
        Func::ConnectionId => Value::UInt(env.sess.pseudo_thread_id()),
        Func::RowCount => Value::Int(env.sess.row_count),
        Func::FoundRows => Value::Int(env.sess.last_found_rows.min(i64::MAX as u64) as i64),
        Func::Pi => Value::Double(std::f64::consts::PI),
        Func::Rand => Value::Double(rand::random::<f64>()),
        _ => return None,
    })
}

fn truncate_fsp(dt: DateTime, fsp: u8) -> DateTime {
    let unit = 10u32.pow(6 - fsp.min(6) as u32);
    DateTime {
        micros: dt.micros / unit * unit,
        ..dt
    }
}

fn concat_ws(args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
    let sep = args[0].eval(r, env)?;
    if sep.is_null() {
        return Ok(Value::Null);
    }
    let sep = convert::to_text(&sep).into_owned();
    let max = max_packet(env);
    let mut out = Vec::new();
    let mut first = true;
    for a in &args[1..] {
        let v = a.eval(r, env)?;
        if v.is_null() {
            continue;
        }
        if !first {
            out.extend_from_slice(&sep);
        }
        first = false;
        out.extend_from_slice(&convert::to_text(&v));
        if out.len() > max {
            return Ok(too_big(env, "concat_ws"));
        }
    }
    Ok(Value::Bytes(out))
}

/// ELT(n, s1, s2, …): the n-th string; NULL when n is NULL or out of range.
fn elt(args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
    let n = args[0].eval(r, env)?;
    if n.is_null() {
        return Ok(Value::Null);
    }
    let n = int_arg(&n);
    if n < 1 || n >= args.len() as i128 {
        return Ok(Value::Null);
    }
    args[n as usize].eval(r, env)
}

/// FIELD(x, a, b, …): the 1-based position of the first argument equal to x, else 0 (also
/// when x is NULL).
fn field(args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>, coll: Collation) -> Result<Value> {
    let x = args[0].eval(r, env)?;
    if x.is_null() {
        return Ok(Value::Int(0));
    }
    for (i, a) in args[1..].iter().enumerate() {
        let y = a.eval(r, env)?;
        if compare::compare(&x, &y, coll) == Some(Ordering::Equal) {
            return Ok(Value::Int(i as i64 + 1));
        }
    }
    Ok(Value::Int(0))
}

/// CHAR(n, …): each non-NULL argument's low 32 bits as big-endian bytes without leading
/// zero bytes (0 gives one zero byte).
fn char_fn(args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        let v = a.eval(r, env)?;
        if v.is_null() {
            continue;
        }
        let n = (int_arg(&v) as u64 & 0xFFFF_FFFF) as u32;
        let bytes = n.to_be_bytes();
        let skip = (n.leading_zeros() / 8).min(3) as usize;
        out.extend_from_slice(&bytes[skip..]);
    }
    Ok(Value::Bytes(out))
}

/// An integer argument as MySQL reads one: numbers rounded to the nearest integer (an
/// unsigned value stays positive), strings by their leading integer digits; then within
/// BIGINT / BIGINT UNSIGNED range.
pub(in crate::sql) fn int_arg(v: &Value) -> i128 {
    let n = match v {
        Value::Bytes(b) => string_int_prefix(b),
        other => convert::to_num(other).to_i128(),
    };
    n.clamp(i64::MIN as i128, u64::MAX as i128)
}

/// The integer at the start of a string (`' 12abc'` → 12, `'1.5'` → 1, `'x'` → 0).
fn string_int_prefix(b: &[u8]) -> i128 {
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let neg = i < b.len() && b[i] == b'-';
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let mut n: i128 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        n = (n * 10 + (b[i] - b'0') as i128).min(u64::MAX as i128 + 1);
        i += 1;
    }
    if neg {
        (-n).max(i64::MIN as i128)
    } else {
        n.min(i64::MAX as i128)
    }
}

/// A length argument as a count: negative → 0, beyond memory → `usize::MAX`.
fn count_arg(v: &Value) -> usize {
    usize::try_from(int_arg(v).max(0)).unwrap_or(usize::MAX)
}

fn eval_strict(f: Func, v: &[Value], env: &Env<'_>) -> Result<Value> {
    // A string argument of a math function is read as a DOUBLE (warning 1292 when it is not
    // all a number).
    match f {
        Func::Abs | Func::Sign | Func::Floor | Func::Ceil | Func::Pow | Func::Sqrt => {
            crate::sql::expr::num_warn::check_args(v, env)
        }
        Func::Round { .. } | Func::Truncate { .. } => {
            crate::sql::expr::num_warn::check_args(&v[..1], env)
        }
        _ => {}
    }
    Ok(match f {
        Func::UnixTimestampUtc(fsp) => match &v[0] {
            Value::DateTime(dt) if dt.date.month == 0 || dt.date.day == 0 => unix_value(0, 0, fsp),
            Value::DateTime(dt) => unix_value(convert::unix_seconds(dt), dt.micros, fsp),
            _ => Value::Null,
        },
        Func::TsLocal => match (&v[0], env.zone()) {
            (Value::DateTime(dt), Some(z)) => Value::DateTime(z.to_local(dt)),
            (other, _) => other.clone(),
        },
        Func::Concat => {
            let max = max_packet(env);
            let mut out = Vec::new();
            for x in v {
                out.extend_from_slice(&convert::to_text(x));
                if out.len() > max {
                    return Ok(too_big(env, "concat"));
                }
            }
            Value::Bytes(out)
        }
        Func::Length(bytes) => Value::Int(bytes.of_value(&convert::to_text(&v[0])).len() as i64),
        Func::CharLength => Value::Int(text(&v[0]).chars().count() as i64),
        Func::Upper(Bytes::Latin1) => s(text(&v[0]).chars().map(latin1_upper).collect()),
        Func::Lower(Bytes::Latin1) => s(text(&v[0]).chars().map(latin1_lower).collect()),
        Func::Upper(_) => s(map_case(&text(&v[0]), char::to_uppercase)),
        Func::Lower(_) => s(map_case(&text(&v[0]), char::to_lowercase)),
        Func::Substring => substring(v),
        Func::Bin(b) => binary::eval(b, v),
        Func::Trim(side) => trim(v, side),
        Func::Replace(_) => return replace(v, env),
        Func::Insert => return insert(v, env),
        Func::Left => {
            let n = count_arg(&v[1]);
            s(text(&v[0]).chars().take(n).collect())
        }
        Func::Right => {
            let c = chars_of(&v[0]);
            let n = count_arg(&v[1]).min(c.len());
            s(c[c.len() - n..].iter().collect())
        }
        Func::Repeat => {
            let t = convert::to_text(&v[0]);
            let n = count_arg(&v[1]);
            if t.is_empty() || n == 0 {
                return Ok(Value::Bytes(Vec::new()));
            }
            if t.len().saturating_mul(n) > max_packet(env) {
                return Ok(too_big(env, "repeat"));
            }
            Value::Bytes(t.repeat(n))
        }
        Func::Reverse => s(text(&v[0]).chars().rev().collect()),
        Func::Lpad | Func::Rpad => return pad(v, f == Func::Lpad, env),
        Func::Instr => Value::Int(locate(&text(&v[1]), &text(&v[0]), None)),
        Func::FindInSet(coll) => {
            let (needle, list) = (convert::to_text(&v[0]), convert::to_text(&v[1]));
            if list.is_empty() || needle.contains(&b',') {
                return Ok(Value::Int(0));
            }
            let find = |list: &[u8]| {
                list.split(|&c| c == b',')
                    .position(|e| compare::compare_strings(e, &needle, coll) == Ordering::Equal)
            };
            let pos = match (find(&list), v.get(2)) {
                (Some(_), Some(members)) => find(&convert::to_text(members)),
                (p, _) => p,
            };
            Value::Int(pos.map_or(0, |p| p as i64 + 1))
        }
        Func::Locate => {
            let pos = v.get(2).map(int_arg);
            Value::Int(locate(&text(&v[0]), &text(&v[1]), pos))
        }
        Func::Space => {
            let n = count_arg(&v[0]);
            if n > max_packet(env) {
                return Ok(too_big(env, "space"));
            }
            s(" ".repeat(n))
        }
        Func::Ascii => Value::Int(convert::to_text(&v[0]).first().copied().unwrap_or(0) as i64),
        Func::Ord => {
            let t = text(&v[0]);
            let first = t.chars().next().map_or(0, |c| {
                let mut buf = [0u8; 4];
                c.encode_utf8(&mut buf)
                    .bytes()
                    .fold(0i64, |n, b| n << 8 | b as i64)
            });
            Value::Int(first)
        }
        Func::Strcmp(coll) => Value::Int(
            match compare::compare_strings(&convert::to_text(&v[0]), &convert::to_text(&v[1]), coll)
            {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            },
        ),
        Func::Hex(bytes) => match &v[0] {
            Value::Bytes(b) if b.len().saturating_mul(2) > max_packet(env) => {
                return Ok(too_big(env, "hex"))
            }
            Value::Bytes(b) => s(bytes
                .of_value(b)
                .iter()
                .map(|x| format!("{x:02X}"))
                .collect()),
            // A date or datetime is hexed as its text, like a string (HEX(DATE'2019-12-31')).
            t @ (Value::Date(_) | Value::DateTime(_) | Value::Time(_)) => s(convert::to_text(t)
                .iter()
                .map(|x| format!("{x:02X}"))
                .collect()),
            other => s(format!("{:X}", hex_int(other))),
        },
        Func::Abs => match convert::to_arith_num(&v[0]) {
            Num::I(i) => match i.checked_abs() {
                Some(a) => Value::Int(a),
                None => {
                    return Err(crate::sql::expr::out_of_range(
                        "BIGINT",
                        format!("abs({i})"),
                    ));
                }
            },
            Num::U(u) => Value::UInt(u),
            Num::D(d) => Value::Decimal(d.abs()),
            Num::F(x) => Value::Double(x.abs()),
        },
        Func::Round { keep_scale } => round(v, true, keep_scale)?,
        Func::Truncate { keep_scale } => round(v, false, keep_scale)?,
        Func::Floor | Func::Ceil => floor_ceil(&v[0], f == Func::Floor),
        Func::Mod => {
            return crate::sql::expr::arith(crate::sql::expr::ArithOp::Mod, &v[0], &v[1], env)
        }
        Func::Sign => Value::Int(match convert::to_arith_num(&v[0]) {
            Num::D(d) => d.signum() as i64,
            n => {
                let n = n.to_f64();
                if n > 0.0 {
                    1
                } else if n < 0.0 {
                    -1
                } else {
                    0
                }
            }
        }),
        Func::Pow => {
            let y = convert::to_num(&v[0])
                .to_f64()
                .powf(convert::to_num(&v[1]).to_f64());
            // Infinite or not a number (POW(10, 400), POW(0, -1), POW(-8, 1/3)): 1690.
            if !y.is_finite() {
                return Err(crate::sql::expr::out_of_range(
                    "DOUBLE",
                    format!(
                        "pow({},{})",
                        String::from_utf8_lossy(&convert::to_text(&v[0])),
                        String::from_utf8_lossy(&convert::to_text(&v[1]))
                    ),
                ));
            }
            Value::Double(y)
        }
        Func::Sqrt => {
            let x = convert::to_num(&v[0]).to_f64();
            if x < 0.0 {
                Value::Null
            } else {
                Value::Double(x.sqrt())
            }
        }
        Func::UnixTimestamp(fsp) => match v.first() {
            None => Value::Int(convert::unix_seconds(&env.now())),
            Some(x) => match convert::to_datetime_lenient(x) {
                // A zero date, or outside TIMESTAMP's range once in UTC: NULL (MariaDB).
                Some((dt, _)) if dt.date.month == 0 || dt.date.day == 0 => Value::Null,
                Some((dt, _)) => match local_unix_seconds(&dt, env) {
                    s @ 0..=MAX_UNIXTIME => unix_value(s, dt.micros, fsp),
                    _ => Value::Null,
                },
                None => Value::Null,
            },
        },
        Func::FromUnixtime(fsp) => from_unixtime(&v[0], fsp, env),
        Func::DateOf => match convert::to_datetime_lenient(&v[0]) {
            Some((dt, _)) if convert::zero_date_mode_refuses(&dt, env) => {
                env.warn(
                    "Warning",
                    ErrorCode::TruncatedWrongValue,
                    format!("Incorrect datetime value: '{}'", convert::to_string(&v[0])),
                );
                Value::Null
            }
            Some((dt, _)) => {
                crate::sql::expr::datetime_text::warn_leftover(env, &v[0]);
                Value::Date(dt.date)
            }
            // No date: NULL with warning 1292 (MariaDB: DATE('2020-13-01')).
            None => interval::bad_datetime(env, &v[0]),
        },
        Func::Hour | Func::Minute | Func::Second if matches!(v[0], Value::Time(_)) => {
            // A TIME's hours may pass 23 (HOUR('100:00:00') is 100).
            let Value::Time(t) = v[0] else {
                return Ok(Value::Null);
            };
            let secs = t.unsigned_abs() / 1_000_000;
            Value::Int(match f {
                Func::Hour => (secs / 3600) as i64,
                Func::Minute => ((secs / 60) % 60) as i64,
                _ => (secs % 60) as i64,
            })
        }
        Func::Hour | Func::Minute | Func::Second
            if matches!(
                v[0],
                Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)
            ) =>
        {
            // A number is a time here (SECOND(1) is 1), not a date.
            // Fractional seconds are dropped, not rounded.
            let n = match &v[0] {
                Value::Int(i) => i128::from(*i),
                Value::UInt(u) => i128::from(*u),
                other => convert::to_num(other).to_f64().trunc() as i128,
            };
            match convert::time_parts_from_number(n) {
                Some((h, m, s)) => Value::Int(match f {
                    Func::Hour => i64::from(h),
                    Func::Minute => i64::from(m),
                    _ => i64::from(s),
                }),
                None => Value::Null,
            }
        }
        Func::Year | Func::Month | Func::Day | Func::Hour | Func::Minute | Func::Second => {
            match convert::to_datetime_lenient(&v[0]) {
                Some((dt, _)) => Value::Int(match f {
                    Func::Year => dt.date.year as i64,
                    Func::Month => dt.date.month as i64,
                    Func::Day => dt.date.day as i64,
                    Func::Hour => dt.hour as i64,
                    Func::Minute => dt.minute as i64,
                    _ => dt.second as i64,
                }),
                None => match (&v[0], f) {
                    // A string that is no datetime may be a time: '10:30', '1234' (00:12:34).
                    (Value::Bytes(b), Func::Hour | Func::Minute | Func::Second) => {
                        match time_parts_from_text(b) {
                            Some((h, m, s)) => Value::Int(match f {
                                Func::Hour => i64::from(h),
                                Func::Minute => i64::from(m),
                                _ => i64::from(s),
                            }),
                            None => Value::Null,
                        }
                    }
                    // YEAR / MONTH / DAY of what is no date: NULL with warning 1292.
                    (_, Func::Year | Func::Month | Func::Day) => interval::bad_datetime(env, &v[0]),
                    _ => Value::Null,
                },
            }
        }
        Func::DateDiff => match (
            convert::to_datetime_lenient(&v[0]),
            convert::to_datetime_lenient(&v[1]),
        ) {
            // A date with a zero month or day has no day number.
            (Some((a, _)), Some((b, _)))
                if [a.date, b.date].iter().all(|d| d.month != 0 && d.day != 0) =>
            {
                Value::Int(day_number(a.date) - day_number(b.date))
            }
            _ => Value::Null,
        },
        Func::BinlogGtidPos => binlog_gtid_pos(v, env),
        Func::AddInterval { unit, sub, out } => interval::eval(unit, sub, out, &v[0], &v[1], env),
        Func::TimestampDiff(unit) => interval::diff(unit, &v[0], &v[1], env),
        Func::Cal(c, class, dec) => calendar::eval(c, v, (class, dec), env),
        Func::TimeFn(t, fsp) => time_fn::eval(t, v, fsp, env),
        Func::DateFormat => date_format::date_format(&v[0], &v[1], env),
        Func::StrToDate(out) => date_format::str_to_date(&v[0], &v[1], out, env),
        Func::Regexp(rf, coll) => return regexp::eval(rf, coll, v, env),
        _ => Value::Null,
    })
}

/// A string as a time of day for HOUR / MINUTE / SECOND, as MariaDB reads one: `[-]h:m[:s]`
/// (minutes and seconds below 60) or digits `hhmmss` with an optional fraction (`'35'` is
/// 00:00:35). Anything else is no time.
fn time_parts_from_text(b: &[u8]) -> Option<(u32, u8, u8)> {
    let t = std::str::from_utf8(b).ok()?.trim_start();
    let t = t.strip_prefix('-').unwrap_or(t).as_bytes();
    // The longest prefix `d+(:d+(:d+)?)?(.d*)?`; what follows is ignored, except an exponent
    // ('1e2' is no time).
    let digits = |i: usize| t[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut parts = Vec::new();
    let mut i = 0;
    loop {
        let n = digits(i);
        if n == 0 || n > 18 {
            if parts.is_empty() || n > 18 {
                return None;
            }
            i -= 1; // the ':' belongs to what follows
            break;
        }
        parts.push(
            std::str::from_utf8(&t[i..i + n])
                .ok()?
                .parse::<u64>()
                .ok()?,
        );
        i += n;
        if parts.len() == 3 || t.get(i) != Some(&b':') {
            break;
        }
        i += 1;
    }
    if t.get(i) == Some(&b'.') {
        i += 1 + digits(i + 1);
    }
    if matches!(t.get(i), Some(b'e' | b'E'))
        && t.get(i + 1)
            .is_some_and(|c| c.is_ascii_digit() || *c == b'-' || *c == b'+')
    {
        return None;
    }
    if parts.len() == 1 {
        return convert::time_parts_from_number(i128::from(parts[0]));
    }
    let (h, m, s) = (parts[0], parts[1], parts.get(2).copied().unwrap_or(0));
    if m > 59 || s > 59 || h > u64::from(u32::MAX) {
        return None;
    }
    Some((h as u32, m as u8, s as u8))
}

/// NULL for a NULL argument, a file the binlog does not have, or a position that is not an
/// event's first byte within it (MariaDB, without a warning).
fn binlog_gtid_pos(v: &[Value], env: &Env<'_>) -> Value {
    if v[0].is_null() || v[1].is_null() {
        return Value::Null;
    }
    let file = convert::to_string(&v[0]);
    let Ok(pos) = u64::try_from(convert::to_num(&v[1]).to_i128()) else {
        return Value::Null;
    };
    match crate::replication::gtid_position_at(&env.ctx.pipeline, &file, pos) {
        Some(text) => Value::str(&text),
        None => Value::Null,
    }
}

/// Largest FROM_UNIXTIME argument (MariaDB 10.11: the 32-bit TIMESTAMP range).
const MAX_UNIXTIME: i64 = 2_147_483_647;

/// Seconds since the epoch as UNIX_TIMESTAMP answers them: an integer, or with `fsp`
/// fractional digits a DECIMAL.
fn unix_value(secs: i64, micros: u32, fsp: u8) -> Value {
    if fsp == 0 {
        return Value::Int(secs);
    }
    match format!("{secs}.{micros:06}").parse::<crate::types::Decimal>() {
        Ok(d) => Value::Decimal(d.round_to(i32::from(fsp), Rounding::Down).unwrap_or(d)),
        Err(_) => Value::Int(secs),
    }
}

/// The microseconds of a number's fraction (exact for a DECIMAL), truncated to `fsp` digits.
fn fraction_micros(v: &Value, fsp: u8) -> u32 {
    if fsp == 0 {
        return 0;
    }
    let us = match convert::to_num(v) {
        Num::D(d) => {
            let t = d.to_string();
            let digits = t.split_once('.').map_or("", |(_, f)| f);
            let six: String = digits
                .chars()
                .chain(std::iter::repeat('0'))
                .take(6)
                .collect();
            six.parse().unwrap_or(0)
        }
        Num::F(f) if f.is_finite() => ((f.fract() * 1e6).round() as u32).min(999_999),
        _ => 0,
    };
    let unit = 10u32.pow(6 - u32::from(fsp.min(6)));
    us - us % unit
}

/// FROM_UNIXTIME(n): NULL for a negative n, NULL and warning 1292 past [`MAX_UNIXTIME`]; the
/// fraction of n kept to `fsp` digits.
fn from_unixtime(v: &Value, fsp: u8, env: &Env<'_>) -> Value {
    let n = convert::to_num(v).to_f64();
    if n.is_nan() || n < 0.0 {
        return Value::Null;
    }
    if n >= (MAX_UNIXTIME + 1) as f64 {
        env.warn(
            "Warning",
            ErrorCode::TruncatedWrongValue,
            format!(
                "Truncated incorrect unixtime value: '{}'",
                convert::to_string(v)
            ),
        );
        return Value::Null;
    }
    let mut utc = convert::datetime_from_unix(n as i64, 0);
    utc.micros = fraction_micros(v, fsp);
    Value::DateTime(env.zone().map_or(utc, |z| z.to_local(&utc)))
}

/// The seconds since the epoch of a local datetime of the session's time zone.
fn local_unix_seconds(dt: &crate::types::DateTime, env: &Env<'_>) -> i64 {
    let local = convert::unix_seconds(dt);
    env.zone().map_or(local, |z| z.utc_secs(local))
}

fn day_number(d: Date) -> i64 {
    convert::days_from_civil(d.year as i64, d.month.max(1) as u32, d.day.max(1) as u32)
}

/// SUBSTRING(s, pos[, len]): `pos` counts characters from 1 (negative: from the end);
/// a position outside the string, or a length ≤ 0, gives ''.
fn substring(v: &[Value]) -> Value {
    let c = chars_of(&v[0]);
    let len = c.len() as i128;
    let pos = int_arg(&v[1]);
    let count = v.get(2).map_or(len, int_arg);
    let start = match pos {
        0 => return Value::Bytes(Vec::new()),
        p if p > 0 => p - 1,
        p => len + p,
    };
    if start < 0 || start >= len || count <= 0 {
        return Value::Bytes(Vec::new());
    }
    let end = start + count.min(len - start);
    s(c[start as usize..end as usize].iter().collect())
}

/// The number HEX() shows for a non-string: as BIGINT UNSIGNED (negatives in two's
/// complement); a DOUBLE beyond the BIGINT range shows as all ones.
fn hex_int(v: &Value) -> u64 {
    // A DECIMAL goes through a DOUBLE, as MariaDB's HEX reads it (HEX(9007199254740993.0) is
    // 20000000000000, 18446744073709551604.0 is past 2^64 - 1).
    let n = match convert::to_num(v) {
        d @ Num::D(_) => Num::F(d.to_f64()),
        n => n,
    };
    match n {
        Num::F(f) if f.is_nan() || f <= i64::MIN as f64 || f >= u64::MAX as f64 => u64::MAX,
        // A double is rounded to the nearest integer, half away from zero (HEX(2.5e0) is 3).
        Num::F(f) => {
            let r = f.round();
            if r < 0.0 {
                r as i64 as u64
            } else {
                r as u64
            }
        }
        n => n.to_i128().clamp(i64::MIN as i128, u64::MAX as i128) as u64,
    }
}

/// REPLACE(s, from, to); NULL (and warning 1301) beyond max_allowed_packet.
fn replace(v: &[Value], env: &Env<'_>) -> Result<Value> {
    let from = text(&v[1]);
    let st = text(&v[0]);
    let to = text(&v[2]);
    let hits = st.matches(from.as_str()).count();
    let size = (st.len() - hits * from.len()).saturating_add(hits.saturating_mul(to.len()));
    if size > max_packet(env) {
        return Ok(too_big(env, "replace"));
    }
    Ok(s(st.replace(&from, &to)))
}

/// INSERT(s, pos, len, new): `len` characters of `s` from `pos` replaced by `new`; `s` itself
/// when `pos` is outside it; to the end when `len` is negative or past it.
fn insert(v: &[Value], env: &Env<'_>) -> Result<Value> {
    let c = chars_of(&v[0]);
    let len = c.len() as i128;
    let pos = int_arg(&v[1]);
    if pos < 1 || pos > len {
        return Ok(v[0].clone());
    }
    let start = (pos - 1) as usize;
    let count = int_arg(&v[2]);
    let end = if count < 0 || count > len - (pos - 1) {
        c.len()
    } else {
        start + count as usize
    };
    let new = text(&v[3]);
    let head: String = c[..start].iter().collect();
    let tail: String = c[end..].iter().collect();
    if head.len() + new.len() + tail.len() > max_packet(env) {
        return Ok(too_big(env, "insert"));
    }
    Ok(s(head + &new + &tail))
}

fn trim(v: &[Value], side: TrimSide) -> Value {
    // On bytes: a binary string keeps bytes that are no UTF-8 (`RTRIM(X'8061')`), and on
    // UTF-8 text a byte-wise prefix or suffix of whole characters is a character-wise one.
    let st = convert::to_text(&v[0]);
    let rem: Cow<'_, [u8]> = v.get(1).map_or(Cow::Borrowed(b" "), convert::to_text);
    let mut t: &[u8] = &st;
    if !rem.is_empty() {
        if side != TrimSide::Trailing {
            while let Some(rest) = t.strip_prefix(&rem[..]) {
                t = rest;
            }
        }
        if side != TrimSide::Leading {
            while let Some(rest) = t.strip_suffix(&rem[..]) {
                t = rest;
            }
        }
    }
    Value::Bytes(t.to_vec())
}

/// The longest string a function builds: `max_allowed_packet` (the session's value, as in
/// MariaDB); a longer result is NULL with warning 1301 ([`too_big`]).
pub(crate) fn max_packet(env: &Env<'_>) -> usize {
    let v = match env.sess.session_vars.get("max_allowed_packet") {
        Some(Value::UInt(n)) => *n,
        Some(Value::Int(n)) => (*n).max(0) as u64,
        _ => env.ctx.vars.global_u64("max_allowed_packet"),
    };
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// The result of a function that would exceed `max_allowed_packet`: NULL and warning 1301.
pub(crate) fn too_big(env: &Env<'_>, func: &str) -> Value {
    env.warn(
        "Warning",
        ErrorCode::WarnAllowedPacketOverflowed,
        format!(
            "Result of {func}() was larger than max_allowed_packet ({}) - truncated",
            max_packet(env)
        ),
    );
    Value::Null
}

/// LPAD / RPAD(s, n, pad): NULL for a negative length or an empty pad that is needed. A
/// string at least `n` characters long is only cut (checked first, as MariaDB does); a padded
/// result that could exceed `max_allowed_packet` (counted as 4 bytes a character, as MariaDB
/// does for utf8mb4) is NULL with warning 1301.
fn pad(v: &[Value], left: bool, env: &Env<'_>) -> Result<Value> {
    let n = int_arg(&v[1]);
    if n < 0 {
        return Ok(Value::Null);
    }
    let c = chars_of(&v[0]);
    if c.len() as i128 >= n {
        return Ok(s(c[..n as usize].iter().collect()));
    }
    if n.saturating_mul(4) > max_packet(env) as i128 {
        return Ok(too_big(env, if left { "lpad" } else { "rpad" }));
    }
    let n = n as usize;
    let p = chars_of(&v[2]);
    if p.is_empty() {
        return Ok(Value::Null);
    }
    let fill: String = p.iter().cycle().take(n - c.len()).collect();
    let body: String = c.iter().collect();
    Ok(s(if left { fill + &body } else { body + &fill }))
}

/// 1-based position of `needle` in `hay` (case-insensitive), 0 if absent. With a start
/// position (LOCATE's third argument), the search starts there, and a position ≤ 0 or past
/// the end of `hay` finds nothing.
fn locate(needle: &str, hay: &str, pos: Option<i128>) -> i64 {
    let start = match pos {
        None => 0,
        Some(p) if p < 1 || p > hay.len() as i128 => return 0,
        Some(p) => (p - 1) as usize,
    };
    if needle.is_empty() {
        return start as i64 + 1;
    }
    let h: Vec<u32> = hay
        .chars()
        .map(crate::types::collation::general_ci_weight)
        .collect();
    let n: Vec<u32> = needle
        .chars()
        .map(crate::types::collation::general_ci_weight)
        .collect();
    (start..h.len())
        .find(|&i| h[i..].starts_with(&n))
        .map_or(0, |i| i as i64 + 1)
}

/// ROUND / TRUNCATE(x, d): half away from zero or toward zero, to `d` places (negative `d`:
/// tens, hundreds, …); a decimal's scale becomes `max(d, 0)`, at most 38, or stays its own
/// `keep_scale` when that is a scale that is not a constant (to which `d` is then limited).
fn round(v: &[Value], round: bool, keep_scale: Option<u8>) -> Result<Value> {
    let d = v.get(1).map_or(0, int_arg);
    let mode = if round {
        Rounding::HalfUp
    } else {
        Rounding::Down
    };
    Ok(match convert::to_arith_num(&v[0]) {
        Num::F(x) => {
            let d = d.clamp(-330, 330) as i32;
            let m = 10f64.powi(d.abs());
            // MariaDB rounds a double half to even (rint): ROUND(2.5e0) is 2.
            let y = if d >= 0 {
                if round {
                    (x * m).round_ties_even() / m
                } else {
                    (x * m).trunc() / m
                }
            } else if round {
                (x / m).round_ties_even() * m
            } else {
                (x / m).trunc() * m
            };
            // Past the digits a double holds, rounding changes nothing (and x * m may be inf);
            // a scale below -308 leaves nothing of any finite double (MariaDB: 0).
            Value::Double(match () {
                _ if y.is_finite() => y,
                _ if d < 0 && m.is_infinite() && x.is_finite() => 0.0,
                _ => x,
            })
        }
        Num::D(x) => {
            let places = match keep_scale {
                Some(s) => d.clamp(-200, i128::from(s)) as i32,
                None => d.clamp(-200, MAX_SCALE as i128) as i32,
            };
            match x.round_to(places, mode) {
                Ok(r) if keep_scale.is_some() => Value::Decimal(r.rescale(x.scale()).unwrap_or(r)),
                Ok(r) => Value::Decimal(r),
                Err(_) => {
                    return Err(crate::sql::expr::out_of_range(
                        "DECIMAL",
                        format!("round({x},{d})"),
                    ))
                }
            }
        }
        n @ (Num::I(_) | Num::U(_)) => {
            if d >= 0 {
                return Ok(n.into_value());
            }
            let unsigned = matches!(n, Num::U(_));
            let m = 10i128.pow((-d).min(30) as u32);
            let x = n.to_i128();
            let q = if round {
                let h = m / 2;
                if x >= 0 {
                    (x + h) / m
                } else {
                    (x - h) / m
                }
            } else {
                x / m
            };
            let r = q * m;
            if unsigned {
                Value::UInt(r.clamp(0, u64::MAX as i128) as u64)
            } else {
                Value::Int(r.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
            }
        }
    })
}

/// FLOOR / CEIL: an integer (BIGINT when it fits, else an exact DECIMAL(p, 0)).
fn floor_ceil(v: &Value, floor: bool) -> Value {
    match convert::to_arith_num(v) {
        Num::F(x) => Value::Double(if floor { x.floor() } else { x.ceil() }),
        Num::D(d) => {
            let mode = if floor {
                Rounding::Floor
            } else {
                Rounding::Ceiling
            };
            // Rounding to scale 0 only shrinks the integer part's room: it cannot overflow.
            let r = d.round_to(0, mode).unwrap_or(d);
            match r
                .to_i128(Rounding::Down)
                .and_then(|i| i64::try_from(i).ok())
            {
                Some(i) => Value::Int(i),
                None => Value::Decimal(r),
            }
        }
        n => n.into_value(),
    }
}

/// Which user-level lock function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserLockOp {
    Get,
    Release,
    IsFree,
    IsUsed,
    ReleaseAll,
}

/// The user-level lock functions, on the server's [`crate::session::user_locks::UserLocks`].
fn user_lock(op: UserLockOp, args: &[Expr], r: &RowCtx<'_>, env: &Env<'_>) -> Result<Value> {
    let locks = &env.ctx.user_locks;
    let me = env.sess.conn_id;
    let opt = |v: Option<i64>| v.map_or(Value::Null, Value::Int);
    if op == UserLockOp::ReleaseAll {
        return Ok(Value::Int(locks.release_all(me)));
    }
    let name = args[0].eval(r, env)?;
    if name.is_null() {
        return Ok(Value::Null);
    }
    let name = convert::to_string(&name);
    Ok(match op {
        UserLockOp::Get => {
            let t = args[1].eval(r, env)?;
            // NULL or negative: wait without end (MariaDB).
            let secs = if t.is_null() {
                -1.0
            } else {
                convert::to_num(&t).to_f64()
            };
            let timeout = (secs >= 0.0).then(|| std::time::Duration::from_secs_f64(secs.min(1e9)));
            opt(locks.get(me, &name, timeout)?)
        }
        UserLockOp::Release => opt(locks.release(me, &name)),
        UserLockOp::IsFree if name.is_empty() => Value::Null,
        UserLockOp::IsFree => Value::Int(i64::from(locks.owner(&name).is_none())),
        UserLockOp::IsUsed => locks
            .owner(&name)
            .map_or(Value::Null, |c| Value::UInt(u64::from(c))),
        UserLockOp::ReleaseAll => unreachable!("handled above"),
    })
}

#[cfg(test)]
mod nullif_tests {
    use crate::session::state::ServerContext;
    use crate::testkit::{root_session, text_rows};

    /// NULLIF compares as `=`: an integer against a date conversion that failed is the zero
    /// date against the zero date (MariaDB 10.11: NULL).
    #[test]
    fn nullif_compares_a_failed_date_as_the_zero_date() {
        let ctx = ServerContext::for_tests();
        let mut sess = root_session(1);
        let got = text_rows(
            &ctx,
            &mut sess,
            "SELECT NULLIF(5, DATE(1)), NULLIF(9223372036854775807, DATE(' z')), \
             NULLIF(18446744073709551614, DATE(1)), NULLIF(2, DATE(NULL)), 5 = DATE(1)",
        );
        assert_eq!(got, vec![vec!["NULL", "NULL", "NULL", "2", "1"]]);
    }

    /// A number under 1 compared with a date is the zero datetime and that fraction of a
    /// second (MariaDB 10.11); a date-only number's fraction is dropped.
    #[test]
    fn a_number_under_one_keeps_its_fraction_against_a_date() {
        let ctx = ServerContext::for_tests();
        let mut sess = root_session(1);
        let got = text_rows(
            &ctx,
            &mut sess,
            "SELECT TIMESTAMP'0000-00-00 00:00:00.5' = 0.5, CAST(1 AS DATE) = 7/11, \
             CAST(1 AS DATE) = 0.6364, CAST(1 AS DATE) = 0.0, CAST(1 AS DATE) = -0.5, \
             DATE'2020-01-01' = 20200101.5, TIMESTAMP'2020-01-01 00:00:00.5' = 20200101.5",
        );
        assert_eq!(got, vec![vec!["1", "0", "0", "1", "1", "1", "0"]]);
    }
}
