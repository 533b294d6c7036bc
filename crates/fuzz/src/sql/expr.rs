//! Expressions: every operator and function Cohort binds (and some it does not), with
//! hostile arguments, nested to a bounded depth — plus, rarely, the deep forms (chains of
//! 1 000–100 000 terms, nesting 100–50 000 levels) that probe recursion limits.
//!
//! Every generated expression is wrapped in [`Node::Expr`], so the shrinker can replace it
//! by one of its operands; chains and argument lists are [`Node::List`]s, so it can drop
//! terms and arguments.

use super::values;
use crate::rng::Rng;
use crate::tree::{call, expr, list, paren, seq, string, tok, Node};

/// What an expression may refer to.
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    /// Column names in scope.
    pub columns: Vec<String>,
    /// Aggregates allowed (SELECT list, HAVING, ORDER BY).
    pub aggregates: bool,
    /// `?` placeholders allowed (COM_STMT_PREPARE).
    pub params: bool,
}

/// Scalar functions: name and argument kinds, one letter per argument — `s` string, `i`
/// integer (a count, position, length or precision: edge integers often), `n` number (long
/// decimals often), `t` date or time, `a` anything; a trailing `*` repeats the last kind;
/// optional arguments follow a `|`.
const FUNCTIONS: &[(&str, &str)] = &[
    ("CONCAT", "s*"),
    ("CONCAT_WS", "ss*"),
    ("LENGTH", "s"),
    ("OCTET_LENGTH", "s"),
    ("CHAR_LENGTH", "s"),
    ("CHARACTER_LENGTH", "s"),
    ("UPPER", "s"),
    ("UCASE", "s"),
    ("LOWER", "s"),
    ("LCASE", "s"),
    ("SUBSTRING", "si|i"),
    ("SUBSTR", "si|i"),
    ("MID", "sii"),
    ("TRIM", "s"),
    ("LTRIM", "s"),
    ("RTRIM", "s"),
    ("REPLACE", "sss"),
    ("LEFT", "si"),
    ("RIGHT", "si"),
    ("REPEAT", "si"),
    ("REVERSE", "s"),
    ("LPAD", "si|s"),
    ("RPAD", "si|s"),
    ("INSTR", "ss"),
    ("LOCATE", "ss|i"),
    ("POSITION", "ss"),
    ("SPACE", "i"),
    ("ASCII", "s"),
    ("ORD", "s"),
    ("STRCMP", "ss"),
    ("HEX", "a"),
    ("ABS", "n"),
    ("ROUND", "n|i"),
    ("TRUNCATE", "ni"),
    ("FLOOR", "n"),
    ("CEIL", "n"),
    ("CEILING", "n"),
    ("MOD", "nn"),
    ("SIGN", "n"),
    ("POW", "nn"),
    ("POWER", "nn"),
    ("SQRT", "n"),
    ("PI", ""),
    ("RAND", "|i"),
    ("GREATEST", "aa*"),
    ("LEAST", "aa*"),
    ("IFNULL", "aa"),
    ("NVL", "aa"),
    ("COALESCE", "a*"),
    ("NULLIF", "aa"),
    ("IF", "aaa"),
    ("ISNULL", "a"),
    ("NOW", "|i"),
    ("CURRENT_TIMESTAMP", "|i"),
    ("LOCALTIME", "|i"),
    ("LOCALTIMESTAMP", "|i"),
    ("SYSDATE", "|i"),
    ("CURDATE", ""),
    ("CURRENT_DATE", ""),
    ("UTC_DATE", ""),
    ("CURTIME", "|i"),
    ("CURRENT_TIME", "|i"),
    ("UTC_TIME", "|i"),
    ("UTC_TIMESTAMP", "|i"),
    ("UNIX_TIMESTAMP", "|t"),
    ("FROM_UNIXTIME", "n|s"),
    ("DATE", "t"),
    ("YEAR", "t"),
    ("MONTH", "t"),
    ("DAY", "t"),
    ("DAYOFMONTH", "t"),
    ("HOUR", "t"),
    ("MINUTE", "t"),
    ("SECOND", "t"),
    ("DATEDIFF", "tt"),
    ("DATABASE", ""),
    ("SCHEMA", ""),
    ("VERSION", ""),
    ("USER", ""),
    ("SESSION_USER", ""),
    ("SYSTEM_USER", ""),
    ("CURRENT_USER", ""),
    ("CONNECTION_ID", ""),
    ("ROW_COUNT", ""),
    ("LAST_INSERT_ID", "|i"),
    ("FORMAT", "ni|s"),
    ("CONV", "sii"),
    ("CHAR", "i*"),
    ("UNHEX", "s"),
    ("DATE_FORMAT", "ts"),
    ("STR_TO_DATE", "ss"),
    ("FIELD", "aa*"),
    ("ELT", "is*"),
    ("SEC_TO_TIME", "n"),
    ("MAKEDATE", "ii"),
    ("SUBSTRING_INDEX", "ssi"),
    ("REGEXP_REPLACE", "sss"),
    ("REGEXP_SUBSTR", "ss"),
    ("REGEXP_INSTR", "ss"),
    ("MD5", "s"),
    ("SHA2", "si"),
    ("CRC32", "a"),
    ("TO_BASE64", "s"),
    ("FROM_BASE64", "s"),
    ("QUOTE", "s"),
    ("DAYNAME", "t"),
    ("LAST_DAY", "t"),
    ("WEEK", "t|i"),
    ("TO_DAYS", "t"),
    ("FROM_DAYS", "i"),
    // JSON functions on any text (issue 21).
    ("JSON_EXTRACT", "ss|s"),
    ("JSON_SET", "ssa"),
    ("JSON_REMOVE", "ss"),
    ("JSON_OBJECT", "a*"),
    ("JSON_ARRAY", "a*"),
    ("JSON_CONTAINS", "ss|s"),
    ("JSON_LENGTH", "s|s"),
    ("JSON_VALID", "a"),
    ("JSON_MERGE_PATCH", "ss"),
    // Not implemented by Cohort (an error is the right answer; a crash is not).
    ("LOG", "n|n"),
    ("EXP", "n"),
    ("NO_SUCH_FUNCTION", "|aa"),
];

/// One argument of kind `kind` (see [`FUNCTIONS`]).
fn arg(rng: &mut Rng, ctx: &Ctx, d: u32, kind: u8) -> Node {
    // Half the time any expression: types are converted, and that is tested too.
    if rng.bool() {
        return gen(rng, ctx, d);
    }
    expr(match kind {
        b'i' => crate::tree::num(match rng.below(3) {
            0 => rng.one(values::EDGE_INTS).to_string(),
            1 => (rng.below(11) as i64 - 5).to_string(),
            _ => values::small_int(rng).to_string(),
        }),
        b'n' => values::number(rng),
        b's' => values::string_lit(rng),
        b't' => values::temporal_lit(rng),
        _ => return gen(rng, ctx, d),
    })
}

/// Arguments for a signature; now and then a wrong count.
fn args(rng: &mut Rng, ctx: &Ctx, d: u32, signature: &str) -> Vec<Node> {
    let (required, optional) = signature.split_once('|').unwrap_or((signature, ""));
    let variadic = signature.ends_with('*');
    let kinds: Vec<u8> = required
        .bytes()
        .chain(optional.bytes())
        .filter(|&b| b != b'*')
        .collect();
    let min = required.bytes().filter(|&b| b != b'*').count();
    let n = if rng.chance(1, 10) {
        rng.index(5)
    } else if variadic {
        min + rng.index(4)
    } else {
        min + rng.index(kinds.len() - min + 1)
    };
    (0..n)
        .map(|i| {
            let kind = kinds.get(i).or(kinds.last()).copied().unwrap_or(b'a');
            arg(rng, ctx, d, kind)
        })
        .collect()
}

/// Binary operators, as written between operands.
const BINARY_OPS: &[&str] = &[
    "+", "-", "*", "/", "DIV", "MOD", "%", "&", "|", "^", "<<", ">>", "AND", "OR", "XOR", "&&",
    "||", "=", "<>", "!=", "<", "<=", ">", ">=", "<=>",
];

/// Operators Cohort refuses (1235): tried now and then.
const RARE_OPS: &[&str] = &["REGEXP", "RLIKE", "->", "->>", "SOUNDS LIKE"];

/// Aggregate functions.
const AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "GROUP_CONCAT",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "STD",
    "VARIANCE",
];

/// CAST / CONVERT target types, with hostile lengths, precisions and scales.
pub fn cast_type(rng: &mut Rng) -> Node {
    let n = |rng: &mut Rng| values::int_text(rng);
    let text = match rng.weighted(&[2, 2, 6, 4, 1, 2, 2, 2, 1, 1, 1, 1]) {
        0 => rng
            .pick(&["SIGNED", "SIGNED INTEGER", "INTEGER", "INT"])
            .to_string(),
        1 => rng.pick(&["UNSIGNED", "UNSIGNED INTEGER"]).to_string(),
        2 => match rng.below(4) {
            0 => "DECIMAL".to_string(),
            1 => format!("DECIMAL({})", precision(rng)),
            _ => format!("DECIMAL({},{})", precision(rng), scale(rng)),
        },
        3 => match rng.below(3) {
            0 => "CHAR".to_string(),
            1 => format!("CHAR({})", n(rng)),
            _ => format!("CHAR({}) CHARACTER SET {}", n(rng), charset(rng)),
        },
        4 => format!("NCHAR({})", n(rng)),
        5 => match rng.below(2) {
            0 => "BINARY".to_string(),
            _ => format!("BINARY({})", n(rng)),
        },
        6 => rng.pick(&["DATE", "DATETIME", "TIME", "YEAR"]).to_string(),
        7 => format!(
            "{}({})",
            rng.pick(&["DATETIME", "TIME", "TIMESTAMP"]),
            rng.pick(&["0", "3", "6", "7", "-1", "4294967296"])
        ),
        8 => rng
            .pick(&["DOUBLE", "FLOAT", "REAL", "DOUBLE PRECISION"])
            .to_string(),
        9 => format!("FLOAT({})", rng.pick(&["0", "24", "25", "53", "54", "255"])),
        10 => "JSON".to_string(),
        _ => rng
            .pick(&["NUMERIC(10,2)", "VARCHAR(10)", "TEXT", "BLOB", "BOOLEAN"])
            .to_string(),
    };
    tok(text)
}

/// DECIMAL precisions: the edges of 28/29 (96-bit types), 38, 65 and beyond.
const PRECISIONS: &[&str] = &[
    "0",
    "1",
    "2",
    "10",
    "18",
    "19",
    "27",
    "28",
    "29",
    "30",
    "31",
    "38",
    "39",
    "64",
    "65",
    "66",
    "255",
    "4294967295",
    "4294967296",
    "18446744073709551616",
];
const SCALES: &[&str] = &[
    "0", "1", "2", "10", "28", "29", "30", "31", "38", "65", "66", "255",
];
const CHARSETS: &[&str] = &[
    "utf8mb4", "utf8", "utf8mb3", "latin1", "binary", "ascii", "ucs2", "nosuch",
];
const COLLATIONS: &[&str] = &[
    "utf8mb4_general_ci",
    "utf8mb4_bin",
    "utf8mb4_unicode_ci",
    "utf8mb4_0900_ai_ci",
    "utf8_general_ci",
    "latin1_swedish_ci",
    "binary",
    "nosuch_ci",
];

pub fn precision(rng: &mut Rng) -> &'static str {
    rng.one(PRECISIONS)
}

pub fn scale(rng: &mut Rng) -> &'static str {
    rng.one(SCALES)
}

pub fn charset(rng: &mut Rng) -> &'static str {
    rng.one(CHARSETS)
}

pub fn collation(rng: &mut Rng) -> &'static str {
    rng.one(COLLATIONS)
}

/// A system variable name as written in expressions.
fn sys_var(rng: &mut Rng) -> String {
    let scope = rng.pick(&["@@", "@@", "@@global.", "@@session.", "@@local."]);
    let name = rng.pick(&[
        "autocommit",
        "sql_mode",
        "max_allowed_packet",
        "version",
        "last_insert_id",
        "identity",
        "innodb_lock_wait_timeout",
        "max_prepared_stmt_count",
        "sql_select_limit",
        "time_zone",
        "transaction_isolation",
        "tx_isolation",
        "character_set_client",
        "nosuch_variable",
        "port",
        "warning_count",
        "error_count",
    ]);
    format!("{scope}{name}")
}

/// A user variable reference (`@v`), a few names so that reads see earlier writes.
pub fn user_var(rng: &mut Rng) -> String {
    format!(
        "@{}",
        rng.pick(&["v", "w", "x1", "v", "w", "x1", "nosuch", "`q q`"])
    )
}

/// An operand that needs no recursion.
pub fn leaf(rng: &mut Rng, ctx: &Ctx) -> Node {
    let weights = [
        10,
        if ctx.columns.is_empty() { 0 } else { 8 },
        if ctx.params { 6 } else { 0 },
        1,
        1,
    ];
    let node = match rng.weighted(&weights) {
        0 => values::literal(rng),
        1 => tok(rng.pick(&ctx.columns).clone()),
        2 => tok("?"),
        3 => tok(user_var(rng)),
        _ => tok(sys_var(rng)),
    };
    expr(node)
}

/// An operand of an operator or predicate: compound expressions are usually parenthesised
/// (MySQL's grammar does not chain predicates, so unparenthesised operands mostly produce
/// syntax errors that stop the statement before the interesting code).
fn operand(rng: &mut Rng, ctx: &Ctx, depth: u32) -> Node {
    let e = gen(rng, ctx, depth);
    let compound = matches!(&e, Node::Expr(inner) if matches!(**inner, Node::Seq(_)));
    if compound && rng.chance(9, 10) {
        expr(paren(e))
    } else {
        e
    }
}

/// An expression of at most `depth` levels (each level one operator or call).
pub fn gen(rng: &mut Rng, ctx: &Ctx, depth: u32) -> Node {
    if depth == 0 || rng.chance(1, 4) {
        return leaf(rng, ctx);
    }
    let d = depth - 1;
    let weights = [
        12,                                 // binary operator
        3,                                  // unary
        14,                                 // function
        4,                                  // CAST / CONVERT
        2,                                  // CASE
        3,                                  // IN
        2,                                  // BETWEEN
        2,                                  // LIKE
        2,                                  // IS
        1,                                  // special syntax forms
        if ctx.aggregates { 4 } else { 0 }, // aggregate
        1,                                  // := / subquery / row constructors
        2,                                  // parenthesised
        3,                                  // arithmetic at a type boundary
    ];
    let node = match rng.weighted(&weights) {
        0 => {
            let op = if rng.chance(1, 40) {
                rng.one(RARE_OPS)
            } else {
                rng.one(BINARY_OPS)
            };
            seq(vec![operand(rng, ctx, d), tok(op), operand(rng, ctx, d)])
        }
        13 => boundary_arithmetic(rng),
        1 => unary(rng, ctx, d),
        2 => function(rng, ctx, d),
        3 => cast(rng, ctx, d),
        4 => case(rng, ctx, d),
        5 => in_list(rng, ctx, d),
        6 => seq(vec![
            operand(rng, ctx, d),
            tok(if rng.chance(1, 4) {
                "NOT BETWEEN"
            } else {
                "BETWEEN"
            }),
            operand(rng, ctx, d),
            tok("AND"),
            operand(rng, ctx, d),
        ]),
        7 => like(rng, ctx, d),
        8 => seq(vec![
            operand(rng, ctx, d),
            tok(rng.one(&[
                "IS NULL",
                "IS NOT NULL",
                "IS TRUE",
                "IS NOT TRUE",
                "IS FALSE",
                "IS NOT FALSE",
                "IS UNKNOWN",
                "IS NOT UNKNOWN",
            ])),
        ]),
        9 => special_form(rng, ctx, d),
        10 => aggregate(rng, ctx, d),
        11 => oddity(rng, ctx, d),
        _ => paren(gen(rng, ctx, d)),
    };
    expr(node)
}

/// A value at a type boundary pushed past it: `2^96 − 1 DIV 0.5`, `ROUND(10^38 − 1, -1)`,
/// `CAST(x AS DECIMAL(40,31))`, `-(-2^63)`… — overflow must be an error or MySQL's value,
/// never a panic or a wrapped number. (Random operands hit these pairs too rarely.)
fn boundary_arithmetic(rng: &mut Rng) -> Node {
    let a = expr(crate::tree::num(match rng.below(3) {
        0 => values::near_boundary(rng),
        1 => rng.one(values::EDGE_DECIMALS).to_string(),
        _ => rng.one(values::EDGE_INTS).to_string(),
    }));
    let b = expr(crate::tree::num(rng.one(&[
        "0.5",
        "2",
        "-1",
        "1",
        "0.1",
        "3",
        "1e0",
        "0",
        "-0.5",
        "10",
        "0.0000000000000000000000000001",
    ])));
    match rng.below(9) {
        0 | 1 => {
            let op = rng.one(&["+", "-", "*", "/", "DIV", "MOD", "%"]);
            if rng.bool() {
                seq(vec![a, tok(op), b])
            } else {
                seq(vec![b, tok(op), a])
            }
        }
        2 => {
            let f = rng.one(&["ROUND", "TRUNCATE"]);
            let k = rng.one(&[
                "-1", "-2", "-30", "-66", "0", "1", "28", "29", "30", "31", "65", "66",
            ]);
            call(f, vec![a, expr(crate::tree::num(k))], 1)
        }
        3 => call(
            rng.one(&["CEIL", "FLOOR", "ABS", "SIGN", "ROUND", "SQRT"]),
            vec![a],
            1,
        ),
        4 => seq(vec![tok("-"), paren(a)]),
        5 => seq(vec![
            tok("CAST("),
            a,
            tok(format!(
                "AS DECIMAL({},{}))",
                rng.one(&["28", "29", "30", "38", "40", "64", "65"]),
                rng.one(&["0", "10", "28", "29", "30", "31"])
            )),
        ]),
        6 => {
            let op = rng.one(&["+", "*", "-"]);
            seq(vec![a.clone(), tok(op), a])
        }
        7 => seq(vec![
            tok("CAST("),
            a,
            tok(rng.one(&[
                "AS SIGNED)",
                "AS UNSIGNED)",
                "AS DOUBLE)",
                "AS CHAR)",
                "AS DECIMAL)",
            ])),
        ]),
        _ => call(
            rng.one(&["SUM", "AVG", "MAX", "GREATEST", "COALESCE"]),
            vec![a],
            1,
        ),
    }
}

fn unary(rng: &mut Rng, ctx: &Ctx, d: u32) -> Node {
    let op = rng.one(&["-", "+", "~", "!", "NOT", "BINARY"]);
    seq(vec![tok(op), operand(rng, ctx, d)])
}

fn function(rng: &mut Rng, ctx: &Ctx, d: u32) -> Node {
    if rng.chance(1, 30) {
        let secs = rng.one(&["0", "0.001", "-1", "NULL", "'abc'", "1e-9", "-0.5"]);
        return call("SLEEP", vec![tok(secs)], 0);
    }
    let &(name, signature) = rng.pick(FUNCTIONS);
    let a = args(rng, ctx, d, signature);
    call(name, a, 0)
}

fn cast(rng: &mut Rng, ctx: &Ctx, d: u32) -> Node {
    let inner = gen(rng, ctx, d);
    match rng.below(4) {
        0 | 1 => seq(vec![
            tok("CAST("),
            inner,
            tok("AS"),
            cast_type(rng),
            tok(")"),
        ]),
        2 => seq(vec![
            tok("CONVERT("),
            inner,
            tok(","),
            cast_type(rng),
            tok(")"),
        ]),
        _ => seq(vec![
            tok("CONVERT("),
            inner,
            tok("USING"),
            tok(charset(rng)),
            tok(")"),
        ]),
    }
}

fn case(rng: &mut Rng, ctx: &Ctx, d: u32) -> Node {
    let mut parts = vec![tok("CASE")];
    if rng.bool() {
        parts.push(gen(rng, ctx, d));
    }
    let whens: Vec<Node> = (0..rng.range(1, 4))
        .map(|_| {
            seq(vec![
                tok("WHEN"),
                gen(rng, ctx, d),
                tok("THEN"),
                gen(rng, ctx, d),
            ])
        })
        .collect();
    parts.push(list(whens, "", 1));
    if rng.bool() {
        parts.push(crate::tree::opt(seq(vec![tok("ELSE"), gen(rng, ctx, d)])));
    }
    parts.push(tok("END"));
    seq(parts)
}

fn in_list(rng: &mut Rng, ctx: &Ctx, d: u32) -> Node {
    let n = if rng.chance(1, 50) {
        rng.range(100, 3000) as usize
    } else {
        rng.range(1, 6) as usize
    };
    let items: Vec<Node> = (0..n.max(1))
        .map(|_| {
            if n > 50 {
                values::number(rng)
            } else {
                gen(rng, ctx, d)
            }
        })
        .map(|n| {
            if matches!(n, Node::Expr(_)) {
                n
            } else {
                expr(n)
            }
        })
        .collect();
    seq(vec![
        operand(rng, ctx, d),
        tok(if rng.chance(1, 4) { "NOT IN (" } else { "IN (" }),
        list(items, ",", 1),
        tok(")"),
    ])
}

fn like(rng: &mut Rng, ctx: &Ctx, d: u32) -> Node {
    let mut parts = vec![
        operand(rng, ctx, d),
        tok(if rng.chance(1, 4) { "NOT LIKE" } else { "LIKE" }),
        if rng.bool() {
            expr(values::string_lit(rng))
        } else {
            operand(rng, ctx, d)
        },
    ];
    if rng.chance(1, 4) {
        let esc: &[u8] = rng.one(&[&b"!"[..], b"", b"ab", b"\\\\", b"%", b"\xff"]);
        parts.push(crate::tree::opt(seq(vec![tok("ESCAPE"), string(esc)])));
    }
    seq(parts)
}

/// Function syntax with keywords: SUBSTRING … FROM … FOR, TRIM(LEADING … FROM …),
/// POSITION(… IN …), EXTRACT, DATE_ADD with INTERVAL, CHAR(… USING …), COLLATE.
fn special_form(rng: &mut Rng, ctx: &Ctx, d: u32) -> Node {
    let a = operand(rng, ctx, d);
    let b = operand(rng, ctx, d);
    match rng.below(7) {
        0 => {
            let mut parts = vec![tok("SUBSTRING("), a, tok("FROM"), b];
            if rng.bool() {
                parts.push(crate::tree::opt(seq(vec![tok("FOR"), gen(rng, ctx, d)])));
            }
            parts.push(tok(")"));
            seq(parts)
        }
        1 => {
            let side = rng.one(&["LEADING", "TRAILING", "BOTH", ""]);
            seq(vec![tok("TRIM("), tok(side), a, tok("FROM"), b, tok(")")])
        }
        2 => seq(vec![tok("POSITION("), a, tok("IN"), b, tok(")")]),
        3 => seq(vec![
            tok("EXTRACT("),
            tok(rng.one(&["YEAR", "MONTH", "DAY", "HOUR", "MICROSECOND", "WEEK"])),
            tok("FROM"),
            a,
            tok(")"),
        ]),
        4 => seq(vec![
            tok(rng.one(&["DATE_ADD(", "DATE_SUB(", "ADDDATE("])),
            a,
            tok(", INTERVAL"),
            b,
            tok(rng.one(&["DAY", "SECOND", "MONTH", "YEAR", "MICROSECOND"])),
            tok(")"),
        ]),
        5 => seq(vec![a, tok("COLLATE"), tok(collation(rng))]),
        _ => seq(vec![a, tok("+ INTERVAL"), b, tok("DAY")]),
    }
}

fn aggregate(rng: &mut Rng, ctx: &Ctx, d: u32) -> Node {
    let name = rng.one(AGGREGATES);
    // Aggregates do not nest: the argument is a scalar expression.
    let inner_ctx = Ctx {
        aggregates: false,
        ..ctx.clone()
    };
    if name == "COUNT" && rng.chance(1, 3) {
        return tok("COUNT(*)");
    }
    let distinct = if rng.chance(1, 4) { "DISTINCT" } else { "" };
    let arg = gen(rng, &inner_ctx, d);
    if name == "GROUP_CONCAT" {
        let mut parts = vec![tok("GROUP_CONCAT("), tok(distinct), arg];
        if rng.bool() {
            parts.push(crate::tree::opt(seq(vec![
                tok("ORDER BY"),
                gen(rng, &inner_ctx, d),
                tok(rng.one(&["ASC", "DESC"])),
            ])));
        }
        if rng.bool() {
            parts.push(crate::tree::opt(seq(vec![
                tok("SEPARATOR"),
                values::string_lit(rng),
            ])));
        }
        parts.push(tok(")"));
        return seq(parts);
    }
    seq(vec![tok(format!("{name}(")), tok(distinct), arg, tok(")")])
}

/// Forms Cohort refuses (subqueries, row constructors, window functions) and user-variable
/// assignment.
fn oddity(rng: &mut Rng, ctx: &Ctx, d: u32) -> Node {
    match rng.below(5) {
        0 => seq(vec![tok(user_var(rng)), tok(":="), gen(rng, ctx, d)]),
        1 => seq(vec![tok("(SELECT"), gen(rng, ctx, d), tok(")")]),
        2 => seq(vec![tok("EXISTS (SELECT"), gen(rng, ctx, d), tok(")")]),
        3 => seq(vec![
            tok("ROW("),
            gen(rng, ctx, d),
            tok(","),
            gen(rng, ctx, d),
            tok(") = (1, 2)"),
        ]),
        _ => tok("ROW_NUMBER() OVER ()"),
    }
}

/// The recursion-depth class: a long chain of one operator, or deep nesting of one form.
pub fn deep(rng: &mut Rng) -> Node {
    let terms = rng.one(&[100usize, 1000, 1500, 2000, 5000, 20_000, 100_000]);
    if rng.bool() {
        let op = rng.one(&[
            "+", "-", "*", "AND", "OR", "XOR", "||", "&&", "|", "=", "<=>",
        ]);
        let items: Vec<Node> = (0..terms).map(|_| expr(crate::tree::num("1"))).collect();
        expr(list(items, op, 1))
    } else {
        let (open, close) = rng.one(&[
            ("(", ")"),
            ("ABS(", ")"),
            ("-(", ")"),
            ("NOT (", ")"),
            ("CONCAT('a',", ")"),
            ("COALESCE(", ")"),
            ("CASE WHEN 1 THEN", "END"),
            ("IFNULL(NULL,", ")"),
            ("CAST(", "AS SIGNED)"),
        ]);
        expr(Node::Nest {
            open: open.to_string(),
            close: close.to_string(),
            count: terms.min(50_000),
            inner: Box::new(expr(crate::tree::num("1"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_are_bounded_and_deterministic() {
        let ctx = Ctx {
            columns: vec!["c0".into(), "id".into()],
            aggregates: true,
            params: true,
        };
        let render = |seed| {
            let mut r = Rng::new(seed);
            (0..200)
                .map(|_| gen(&mut r, &ctx, 4).render())
                .collect::<Vec<_>>()
        };
        let a = render(11);
        assert_eq!(a, render(11));
        // Bounded: no expression of depth 4 is enormous (long literals aside).
        assert!(a.iter().all(|e| e.len() < 8 << 20));
    }

    #[test]
    fn deep_forms_render() {
        let mut r = Rng::new(1);
        for _ in 0..20 {
            let e = deep(&mut r).render();
            assert!(e.len() >= 100);
        }
    }
}
