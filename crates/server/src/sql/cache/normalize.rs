//! The statement cache's normalizer: one pass over the bytes of a COM_QUERY text that
//! replaces the literals whose value cannot change the statement's shape by `?`, and says
//! whether the statement may be cached at all.
//!
//! # What becomes a parameter
//!
//! Only a literal that is a whole operand of a comparison, of BETWEEN, an element of an IN
//! list, a value of an INSERT's VALUES tuple, or the right side of an assignment (`SET c = 5`,
//! `ON DUPLICATE KEY UPDATE c = 5`) — there its value reaches the plan exactly as a prepared
//! statement's parameter does (the access path takes it at execution) and nothing about the
//! statement's result columns depends on it. Precisely, the literal must be
//!
//! - *preceded* by `=`, `<`, `>`, `<=`, `>=`, `<>`, `!=`, `<=>`, `BETWEEN`, the `AND` of a
//!   BETWEEN, or by `(` / `,` inside an IN list or a VALUES tuple, or — a number only — the
//!   `+` / `-` of an UPDATE's `SET col = name + 5` / `name - 5` (the whole right side of an
//!   assignment being one name and one number; see below), and
//! - *followed* by what ends that operand: `,`, `)`, the end, or one of `AND OR XOR WHERE
//!   ORDER GROUP HAVING LIMIT FOR LOCK ON THEN ELSE END WHEN` (so `a = 5 + 1`, `a = 'x'
//!   COLLATE …` and adjacent strings `'a' 'b'` keep their literals);
//! - a decimal integer or a plain decimal number (`5`, `-5`, `1.50`), typed exactly as the
//!   binder types the literal ([`crate::sql::bind::number_literal`]), or a single-quoted
//!   string with neither a backslash nor a doubled quote.
//!
//! The UPDATE increment (`SET w_ytd = w_ytd + 12.34`, TPC-C's Payment and Delivery, whose
//! amounts differ every time and would otherwise make every such statement a miss that also
//! pushes useful entries out): arithmetic evaluates on its operands' values, not their bound
//! types, and an assignment stores the value it computes, so `name + ?` with the literal's
//! value stores what `name + 5` does. Only there: elsewhere the bound type of `name + 5`
//! decides how it compares or what a column is called, so the number stays in the key.
//!
//! Everything else stays in the key, verbatim: hex, bit and exponent numbers, strings with an
//! introducer or `N`, double-quoted strings, literals in a select list (MySQL names a column
//! by its text: `SELECT 1+1` is column `1+1`), LIMIT / OFFSET counts, ORDER BY / GROUP BY
//! ordinals, type arguments (`CAST(a AS DECIMAL(10,2))`), function arguments. Literals that
//! stay in the key are exact by construction: the cached plan was bound from them.
//!
//! # What is not cached
//!
//! Statements other than SELECT / INSERT / REPLACE / UPDATE / DELETE; a statement with a
//! second SELECT (subqueries, INSERT … SELECT … IN (SELECT …), UNION); a comment (`#`, `-- `,
//! `/* */`, including executable comments); a `?`; `@` (user and system variables are
//! typed when bound); a backslash inside a quoted string or name (whether it escapes depends
//! on `sql_mode`); `;`; more than [`MAX_TEXT`] bytes.
//!
//! Whitespace is kept as written, so a select list reaches the binder as the client wrote it.

/// Longer statements are not cached (bulk INSERTs: their plans are large and rarely repeat).
pub const MAX_TEXT: usize = 4096;

/// A literal made a parameter: where it is in the original text, and its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Literal {
    pub start: usize,
    pub end: usize,
    pub kind: LiteralKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiteralKind {
    /// Digits, with an optional leading `-` and one `.` between digits.
    Number,
    /// A single-quoted string; `start..end` includes the quotes.
    Str,
}

/// The outcome of normalizing a text.
#[derive(Debug, PartialEq, Eq)]
pub struct Normalized {
    /// The prefix, `\0`, then the text with each parameter literal replaced by `?`.
    pub key: String,
    pub literals: Vec<Literal>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok {
    /// `=`, `<`, `>`, `<=`, `>=`, `<>`, `!=`, `<=>`.
    Cmp,
    Open,
    Close,
    Comma,
    /// Another operator or punctuation.
    Punct,
    Word(Kw),
    /// A literal or a quoted name kept in the key.
    Other,
}

/// The keywords the normalizer follows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kw {
    Select,
    From,
    Between,
    And,
    In,
    Values,
    /// `SET` (an UPDATE's assignments follow).
    Set,
    /// Ends an operand (`OR`, `WHERE`, `LIMIT`…).
    Ends,
    /// Ends a select list at its depth (`WHERE`, `GROUP`…, but also `FROM`).
    EndsList,
    Other,
}

fn keyword(w: &[u8]) -> Kw {
    const ENDS: &[&[u8]] = &[b"OR", b"XOR", b"ON", b"THEN", b"ELSE", b"END", b"WHEN"];
    const ENDS_LIST: &[&[u8]] = &[
        b"WHERE", b"ORDER", b"GROUP", b"HAVING", b"LIMIT", b"FOR", b"LOCK", b"INTO", b"UNION",
        b"WINDOW",
    ];
    let is = |k: &[u8]| w.eq_ignore_ascii_case(k);
    match () {
        // A RETURNING list is named by its text like a select list (INSERT / DELETE …
        // RETURNING); a second one (INSERT … SELECT … RETURNING) is not cached.
        _ if is(b"SELECT") || is(b"RETURNING") => Kw::Select,
        _ if is(b"FROM") => Kw::From,
        _ if is(b"BETWEEN") => Kw::Between,
        _ if is(b"AND") => Kw::And,
        _ if is(b"IN") => Kw::In,
        _ if is(b"VALUES") || is(b"VALUE") => Kw::Values,
        _ if is(b"SET") => Kw::Set,
        _ if ENDS.iter().any(|k| is(k)) => Kw::Ends,
        _ if ENDS_LIST.iter().any(|k| is(k)) => Kw::EndsList,
        _ => Kw::Other,
    }
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// Parenthesis levels: what the level opened by a `(` is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Plain,
    /// An IN list or a VALUES tuple: its elements may be parameters.
    List,
}

/// A literal seen, waiting for the next token to decide whether it becomes a parameter.
struct Pending {
    lit: Literal,
    /// Could it be one, by what precedes it?
    candidate: bool,
    /// It opens an element of a list: then only `,` or `)` may follow.
    element: bool,
    /// It is the number of `SET col = name + 5`: then only `,` or the SET list's end may follow.
    increment: bool,
}

struct Normalizer<'a> {
    sql: &'a str,
    key: String,
    literals: Vec<Literal>,
    /// Where `key` has copied the text up to.
    copied: usize,
    levels: Vec<Level>,
    /// The depths of the BETWEENs whose AND has not come yet.
    between_at: Vec<usize>,
    /// The previous token is the AND of a BETWEEN.
    between_and: bool,
    prev: Tok,
    /// The depth of the select list we are in, if any.
    select_list: Option<usize>,
    values_seen: bool,
    selects: usize,
    pending: Option<Pending>,
    /// The statement is an UPDATE.
    update: bool,
    /// Where the tokens since the last `SET` / `,` of an UPDATE's assignment list are in
    /// `col = name +` (see [`Assign`]).
    assign: Assign,
    /// The token being seen is a lone `=`.
    eq: bool,
}

/// The tokens of an UPDATE assignment `col = name + 5` seen so far, at depth 0 of its SET
/// list: a number after `Op` is the increment the module doc describes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Assign {
    None,
    /// After `SET` or an assignment's `,`.
    Start,
    Col,
    Eq,
    Name,
    /// After `name +` or `name -`.
    Op,
    /// In the SET list, in an assignment of another form: until its `,`.
    Skip,
}

/// Normalize `sql`; None if it may not be cached. The key starts with a character for the
/// parse-affecting `sql_mode` bits `mode`, then `prefix` and `\0`.
pub fn normalize(
    sql: &str,
    prefix: &str,
    mode: crate::sql::sql_mode::ParseMode,
) -> Option<Normalized> {
    if sql.len() > MAX_TEXT {
        return None;
    }
    let mut key = String::with_capacity(prefix.len() + 2 + sql.len());
    key.push(char::from(b'@' + (mode.0 & 0x3f)));
    key.push_str(prefix);
    key.push('\0');
    let mut n = Normalizer {
        sql,
        key,
        literals: Vec::new(),
        copied: 0,
        levels: Vec::new(),
        between_at: Vec::new(),
        between_and: false,
        prev: Tok::Open,
        select_list: None,
        values_seen: false,
        selects: 0,
        pending: None,
        update: false,
        assign: Assign::None,
        eq: false,
    };
    n.run()?;
    n.key.push_str(&sql[n.copied..]);
    Some(Normalized {
        key: n.key,
        literals: n.literals,
    })
}

impl Normalizer<'_> {
    fn run(&mut self) -> Option<()> {
        let b = self.sql.as_bytes();
        let mut i = 0;
        let mut first = true;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_whitespace() {
                i += 1;
                continue;
            }
            let start = i;
            let literal = |end, kind| Literal { start, end, kind };
            let tok = match c {
                b'\'' => {
                    let (end, plain) = quoted(b, i, b'\'')?;
                    i = end;
                    if plain {
                        self.see_literal(literal(end, LiteralKind::Str));
                        first = false;
                        continue;
                    }
                    Tok::Other
                }
                b'"' | b'`' => {
                    i = quoted(b, i, c)?.0;
                    Tok::Other
                }
                b'0'..=b'9' => {
                    let (end, plain) = number(b, i);
                    i = end;
                    if plain {
                        self.see_literal(literal(end, LiteralKind::Number));
                        first = false;
                        continue;
                    }
                    Tok::Other
                }
                b'-' if b.get(i + 1) == Some(&b'-') => {
                    // `--` then a space or control character (or the end) opens a comment.
                    if b.get(i + 2).is_none_or(|&d| d <= b' ') {
                        return None;
                    }
                    i += 1;
                    Tok::Punct
                }
                b'-' if b.get(i + 1).is_some_and(u8::is_ascii_digit)
                    && self.pending.is_none()
                    && self.may_precede_parameter() =>
                {
                    let (end, plain) = number(b, i + 1);
                    i = end;
                    if plain {
                        self.see_literal(literal(end, LiteralKind::Number));
                        first = false;
                        continue;
                    }
                    Tok::Other
                }
                b'#' | b'?' | b'@' | b';' | b'\\' => return None,
                b'/' if b.get(i + 1) == Some(&b'*') => return None,
                b'=' | b'<' | b'>' | b'!' => {
                    while i < b.len() && matches!(b[i], b'=' | b'<' | b'>' | b'!') {
                        i += 1;
                    }
                    match &b[start..i] {
                        b"=" | b"<" | b">" | b"<=" | b">=" | b"<>" | b"!=" | b"<=>" => Tok::Cmp,
                        _ => Tok::Punct,
                    }
                }
                b'(' => {
                    i += 1;
                    Tok::Open
                }
                b')' => {
                    i += 1;
                    Tok::Close
                }
                b',' => {
                    i += 1;
                    Tok::Comma
                }
                c if is_word_byte(c) => {
                    while i < b.len() && is_word_byte(b[i]) {
                        i += 1;
                    }
                    let word = &b[start..i];
                    if first {
                        if !is_cached_statement(word) {
                            return None;
                        }
                        self.update = word.eq_ignore_ascii_case(b"UPDATE");
                    }
                    Tok::Word(keyword(word))
                }
                _ => {
                    i += 1;
                    if matches!(c, b'+' | b'-') && self.assign == Assign::Name {
                        self.decide(Some(Tok::Punct));
                        self.prev = Tok::Punct;
                        self.between_and = false;
                        self.assign = Assign::Op;
                        continue;
                    }
                    Tok::Punct
                }
            };
            if first && !matches!(tok, Tok::Word(_)) {
                return None;
            }
            first = false;
            self.eq = &b[start..i] == b"=";
            self.see(tok)?;
        }
        self.decide(None);
        Some(())
    }

    /// Does the previous token let a literal after it become a parameter?
    fn may_precede_parameter(&self) -> bool {
        if self.select_list.is_some() {
            return false;
        }
        match self.prev {
            Tok::Cmp | Tok::Word(Kw::Between) => true,
            Tok::Word(Kw::And) => self.between_and,
            Tok::Open | Tok::Comma => self.levels.last() == Some(&Level::List),
            _ => false,
        }
    }

    fn see_literal(&mut self, lit: Literal) {
        self.decide(Some(Tok::Other));
        let increment = self.assign == Assign::Op && lit.kind == LiteralKind::Number;
        if self.assign != Assign::None {
            self.assign = Assign::Skip;
        }
        let candidate = self.may_precede_parameter() || increment;
        let element = matches!(self.prev, Tok::Open | Tok::Comma);
        self.pending = Some(Pending {
            lit,
            candidate,
            element,
            increment,
        });
        self.prev = Tok::Other;
        self.between_and = false;
    }

    /// The token after a pending literal decides it.
    fn decide(&mut self, next: Option<Tok>) {
        let Some(p) = self.pending.take() else {
            return;
        };
        let ends = match next {
            _ if p.increment => matches!(next, None | Some(Tok::Comma | Tok::Word(Kw::EndsList))),
            Some(Tok::Comma | Tok::Close) => true,
            _ if p.element => false,
            None => true,
            Some(Tok::Word(Kw::Ends | Kw::EndsList | Kw::And)) => true,
            Some(_) => false,
        };
        if !(p.candidate && ends) {
            return;
        }
        self.key.push_str(&self.sql[self.copied..p.lit.start]);
        self.key.push('?');
        self.copied = p.lit.end;
        self.literals.push(p.lit);
    }

    fn see(&mut self, tok: Tok) -> Option<()> {
        self.decide(Some(tok));
        let depth = self.levels.len();
        let eq = std::mem::take(&mut self.eq);
        self.assign = match (self.assign, tok) {
            (_, Tok::Word(Kw::Set)) if self.update && depth == 0 => Assign::Start,
            (Assign::None, _) => Assign::None,
            _ if depth > 0 || tok == Tok::Open => Assign::Skip,
            (_, Tok::Word(Kw::EndsList)) => Assign::None,
            (_, Tok::Comma) => Assign::Start,
            (Assign::Start, Tok::Word(Kw::Other)) => Assign::Col,
            (Assign::Col, Tok::Cmp) if eq => Assign::Eq,
            (Assign::Eq, Tok::Word(Kw::Other)) => Assign::Name,
            _ => Assign::Skip,
        };
        let mut between_and = false;
        match tok {
            Tok::Open => {
                let list = matches!(self.prev, Tok::Word(Kw::In))
                    || (self.values_seen && depth == 0 && self.select_list.is_none());
                self.levels
                    .push(if list { Level::List } else { Level::Plain });
            }
            Tok::Close => {
                self.levels.pop()?;
                let depth = self.levels.len();
                self.between_at.retain(|&d| d <= depth);
                if self.select_list.is_some_and(|d| d > depth) {
                    self.select_list = None;
                }
            }
            Tok::Word(Kw::Select) => {
                self.selects += 1;
                if self.selects > 1 {
                    return None;
                }
                self.select_list = Some(depth);
            }
            Tok::Word(Kw::From | Kw::EndsList) if self.select_list == Some(depth) => {
                self.select_list = None;
            }
            Tok::Word(Kw::Values) if depth == 0 => self.values_seen = true,
            Tok::Word(Kw::Between) => self.between_at.push(depth),
            Tok::Word(Kw::And) if self.between_at.last() == Some(&depth) => {
                self.between_at.pop();
                between_and = true;
            }
            _ => {}
        }
        self.between_and = between_and;
        self.prev = tok;
        Some(())
    }
}

fn is_cached_statement(first: &[u8]) -> bool {
    [&b"SELECT"[..], b"INSERT", b"REPLACE", b"UPDATE", b"DELETE"]
        .iter()
        .any(|k| first.eq_ignore_ascii_case(k))
}

/// The end of the quoted string or name opening at `i`, and whether it is plain (no doubled
/// quote). None on a backslash (its meaning depends on `sql_mode`) or no closing quote.
fn quoted(b: &[u8], i: usize, q: u8) -> Option<(usize, bool)> {
    let mut j = i + 1;
    let mut plain = true;
    loop {
        match *b.get(j)? {
            b'\\' => return None,
            c if c == q => {
                if b.get(j + 1) == Some(&q) {
                    plain = false;
                    j += 2;
                    continue;
                }
                return Some((j + 1, plain));
            }
            _ => j += 1,
        }
    }
}

/// The end of the number-like token at `i` (a digit), and whether it is a plain decimal
/// (`12`, `1.50`): not `0x1f`, `1e5`, `1.`, `12abc` (a name), `1.2.3`.
fn number(b: &[u8], i: usize) -> (usize, bool) {
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let mut j = digits(i);
    if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        j = digits(j + 1);
    }
    let glued = |c: u8| is_word_byte(c) || c == b'.';
    if b.get(j).is_some_and(|&c| glued(c)) {
        while j < b.len() && glued(b[j]) {
            j += 1;
        }
        return (j, false);
    }
    (j, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The normalized text (without the prefix) and the parameters' texts.
    fn norm(sql: &str) -> Option<(String, Vec<&str>)> {
        let n = normalize(sql, "db", Default::default())?;
        let key = n.key.strip_prefix("@db\0").expect("prefix").to_string();
        let lits = n.literals.iter().map(|l| &sql[l.start..l.end]).collect();
        Some((key, lits))
    }

    fn params(sql: &str) -> Vec<&str> {
        norm(sql).expect("cacheable").1
    }

    #[test]
    fn sysbench_statements() {
        assert_eq!(
            norm("SELECT c FROM sbtest1 WHERE id=5012").unwrap(),
            ("SELECT c FROM sbtest1 WHERE id=?".into(), vec!["5012"])
        );
        assert_eq!(
            norm("SELECT c FROM sbtest1 WHERE id BETWEEN 10 AND 109 ORDER BY c").unwrap(),
            (
                "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c".into(),
                vec!["10", "109"]
            )
        );
        assert_eq!(
            params("UPDATE sbtest1 SET k=k+1 WHERE id=77"),
            vec!["1", "77"],
            "an increment is a parameter"
        );
        assert_eq!(
            norm("INSERT INTO sbtest1 (id, k, c, pad) VALUES (5, -3, 'a-b', '')").unwrap(),
            (
                "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)".into(),
                vec!["5", "-3", "'a-b'", "''"]
            )
        );
        assert_eq!(params("DELETE FROM sbtest1 WHERE id=3"), vec!["3"]);
    }

    #[test]
    fn select_lists_limits_ordinals_and_type_arguments_keep_their_literals() {
        assert_eq!(
            params("SELECT 1+1, 'x' = 'x', a = 5 FROM t WHERE a = 5"),
            vec!["5"]
        );
        assert_eq!(
            params("INSERT INTO t VALUES (1, 'x') RETURNING CONCAT(a, '!'), a = 5"),
            vec!["1", "'x'"]
        );
        assert_eq!(params("SELECT a = 5"), Vec::<&str>::new());
        assert_eq!(
            params("SELECT a FROM t WHERE b = 2 ORDER BY 1 LIMIT 10 OFFSET 3"),
            vec!["2"]
        );
        assert_eq!(
            params("SELECT a FROM t GROUP BY 1 HAVING COUNT(*) > 2"),
            vec!["2"]
        );
        assert_eq!(
            params("SELECT a FROM t WHERE CAST(a AS DECIMAL(10,2)) = 1.50"),
            vec!["1.50"]
        );
        assert_eq!(params("SELECT a FROM t WHERE ROUND(a, 2) = 3"), vec!["3"]);
        assert_eq!(
            params("SELECT a FROM t WHERE a = SUBSTR(b, 1, 2)"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn only_whole_operands_become_parameters() {
        assert_eq!(
            params("SELECT a FROM t WHERE a = 5 + 1"),
            Vec::<&str>::new()
        );
        assert_eq!(
            params("SELECT a FROM t WHERE a = 5 * b AND c = 2"),
            vec!["2"]
        );
        assert_eq!(
            params("SELECT a FROM t WHERE a = 3 - 5"),
            Vec::<&str>::new()
        );
        assert_eq!(
            params("SELECT a FROM t WHERE a = 'x' COLLATE utf8mb4_bin"),
            Vec::<&str>::new()
        );
        assert_eq!(
            params("SELECT a FROM t WHERE a = 'x' 'y'"),
            Vec::<&str>::new()
        );
        assert_eq!(
            params("SELECT a FROM t WHERE a = 5 IS TRUE"),
            Vec::<&str>::new()
        );
        assert_eq!(params("SELECT a FROM t WHERE 5 = a"), Vec::<&str>::new());
        assert_eq!(
            params("SELECT a FROM t WHERE (a = 5) OR b <> 6"),
            vec!["5", "6"]
        );
        assert_eq!(params("SELECT a FROM t WHERE a = -5"), vec!["-5"]);
        assert_eq!(params("SELECT a FROM t WHERE a = --5"), Vec::<&str>::new());
        assert_eq!(
            params("SELECT a FROM t WHERE a<=>7 AND b>=-2.5"),
            vec!["7", "-2.5"]
        );
    }

    #[test]
    fn lists_take_whole_elements() {
        assert_eq!(
            params("SELECT a FROM t WHERE a IN (1, 2, 3)"),
            vec!["1", "2", "3"]
        );
        assert_eq!(
            params("SELECT a FROM t WHERE a IN (1, 2+3, 'x')"),
            vec!["1", "'x'"]
        );
        assert_eq!(
            norm("SELECT a FROM t WHERE a IN (1,2)").unwrap().0,
            "SELECT a FROM t WHERE a IN (?,?)"
        );
        assert_ne!(
            norm("SELECT a FROM t WHERE a IN (1,2)").unwrap().0,
            norm("SELECT a FROM t WHERE a IN (1,2,3)").unwrap().0,
            "the list's length is in the key"
        );
        assert_eq!(params("SELECT a FROM t WHERE f(1, 2) = 3"), vec!["3"]);
        assert_eq!(
            params("INSERT INTO t VALUES (1, CONCAT('a', 'b')), (2, 'c') ON DUPLICATE KEY UPDATE b = 9"),
            vec!["1", "2", "'c'", "9"]
        );
    }

    #[test]
    fn literal_classes_that_stay_in_the_key() {
        for sql in [
            "SELECT a FROM t WHERE a = 0x41",
            "SELECT a FROM t WHERE a = X'41'",
            "SELECT a FROM t WHERE a = b'0101'",
            "SELECT a FROM t WHERE a = 0b0101",
            "SELECT a FROM t WHERE a = 1e3",
            "SELECT a FROM t WHERE a = 1.5e3",
            "SELECT a FROM t WHERE a = _utf8mb4'x'",
            "SELECT a FROM t WHERE a = _latin1 'x'",
            "SELECT a FROM t WHERE a = N'x'",
            "SELECT a FROM t WHERE a = \"x\"",
            "SELECT a FROM t WHERE a = 'it''s'",
            "SELECT a FROM t WHERE a = DATE '2020-01-01'",
            "SELECT a FROM t WHERE a = TRUE",
            "SELECT a FROM t WHERE a = NULL",
            "SELECT a FROM t WHERE a = 1.",
            "SELECT a FROM t WHERE a = 12abc",
            "SELECT a FROM t WHERE a = .5",
        ] {
            let (key, lits) = norm(sql).unwrap_or_else(|| panic!("{sql}"));
            assert!(lits.is_empty(), "{sql}: {lits:?}");
            assert_eq!(key, sql);
        }
    }

    #[test]
    fn statements_that_are_not_cached() {
        for sql in [
            "SET @a = 1",
            "BEGIN",
            "SHOW TABLES",
            "(SELECT a FROM t WHERE a = 1)",
            "SELECT a FROM t WHERE a IN (SELECT b FROM u)",
            "SELECT a FROM t WHERE a = @x",
            "SELECT @@version",
            "SELECT a FROM t WHERE a = ?",
            "SELECT a FROM t WHERE a = 1; SELECT 2",
            "SELECT a FROM t WHERE a = 1 -- c",
            "SELECT a FROM t WHERE a = 1 #c",
            "SELECT a FROM t /* c */ WHERE a = 1",
            "SELECT /*!50000 a */ FROM t",
            "SELECT a FROM t WHERE a = 'x\\'y'",
            "SELECT a FROM t WHERE a = 'unterminated",
            "SELECT a FROM t UNION SELECT b FROM u",
        ] {
            assert_eq!(norm(sql), None, "{sql}");
        }
        assert!(normalize(
            &format!("SELECT a FROM t WHERE a = '{}'", "x".repeat(5000)),
            "",
            Default::default()
        )
        .is_none());
    }

    #[test]
    fn update_increments_become_parameters_and_nothing_like_them() {
        // TPC-C's Payment and Delivery: one key whatever the amount.
        assert_eq!(
            norm("UPDATE district SET d_ytd = d_ytd + 12.34 WHERE d_w_id = 1 AND d_id = 3")
                .unwrap(),
            (
                "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?".into(),
                vec!["12.34", "1", "3"]
            )
        );
        assert_eq!(
            params("UPDATE t SET a = 5, b = b - 2, c = c+1.5, d = d + 1 LIMIT 3"),
            vec!["5", "2", "1.5", "1"]
        );
        assert_eq!(
            params("UPDATE t SET a = a + 1 ORDER BY id LIMIT 2"),
            vec!["1"]
        );
        for sql in [
            // Not the whole right side, or not `name ± number`.
            "UPDATE t SET a = a + 1 * 2",
            "UPDATE t SET a = a + 1 IS NULL",
            "UPDATE t SET a = b * c + 1",
            "UPDATE t SET a = 1 + a",
            "UPDATE t SET a = a + 1 + 2",
            "UPDATE t SET a = a + -1",
            "UPDATE t SET a = a + 'x'",
            "UPDATE t SET a = a + 1e2",
            "UPDATE t SET a = a + 0x10",
            "UPDATE t SET a = (a + 1)",
            "UPDATE t SET a = f(a + 1)",
            "UPDATE t SET a = a + INTERVAL 1 DAY",
            "UPDATE t SET a = a + 1 DAY",
            "UPDATE t SET a = a + 1 < 2",
            "UPDATE t SET a = a + 1 OR b",
            "UPDATE t SET t.a = t.a + 1",
            "UPDATE t SET a = x = b + 1",
            "UPDATE t SET a <=> b + 1",
            // Comparisons: the bound type of `b + 1` decides how they compare.
            "SELECT a FROM t WHERE a = b + 1",
            "UPDATE t SET a = 2 WHERE a = b + 1",
            "DELETE FROM t WHERE a = b + 1",
            "INSERT INTO t SET a = b + 1",
            "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = a + 1",
            "SELECT a + 1 FROM t",
        ] {
            let (key, lits) = norm(sql).unwrap_or_else(|| panic!("{sql}"));
            assert!(
                !key.contains("+ ?") && !key.contains("- ?") && !key.contains("+?"),
                "{sql}: {key} {lits:?}"
            );
        }
    }

    #[test]
    fn whitespace_and_case_are_kept() {
        let sql = "select  a  +  1  from t where a =\t5";
        assert_eq!(norm(sql).unwrap().0, "select  a  +  1  from t where a =\t?");
    }

    #[test]
    fn parse_mode_is_in_the_key() {
        use crate::sql::sql_mode::ParseMode;
        let sql = "SELECT \"a\" FROM t WHERE id = 1";
        let plain = normalize(sql, "d", ParseMode(0)).unwrap();
        let ansi = normalize(sql, "d", ParseMode(1)).unwrap();
        assert_ne!(plain.key, ansi.key);
        assert_eq!(plain.literals, ansi.literals);
        assert_eq!(plain.key[1..], ansi.key[1..]);
    }

    #[test]
    fn the_database_is_part_of_the_key() {
        let a = normalize("SELECT a FROM t WHERE a = 1", "d1", Default::default()).unwrap();
        let b = normalize("SELECT a FROM t WHERE a = 2", "d2", Default::default()).unwrap();
        assert_ne!(a.key, b.key);
    }

    /// Property: for random statements built from a grammar of operands, the normalized text
    /// with each `?` replaced by its literal's text gives back the statement, and every
    /// parameter is one of the literals written in a parameter position.
    #[test]
    fn normalized_text_and_parameters_rebuild_the_statement() {
        let operands = [
            "5",
            "-5",
            "1.50",
            "-0.5",
            "'abc'",
            "''",
            "0x1F",
            "1e2",
            "_utf8mb4'x'",
            "N'y'",
            "b",
            "b + 1",
            "'q''r'",
            "NULL",
            "TRUE",
            "18446744073709551616",
        ];
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..2000 {
            let mut sql = String::from("SELECT a FROM t WHERE ");
            for k in 0..(1 + next(4)) {
                if k > 0 {
                    sql.push_str([" AND ", " OR "][next(2)]);
                }
                let (x, y) = (
                    operands[next(operands.len())],
                    operands[next(operands.len())],
                );
                match next(3) {
                    0 => sql.push_str(&format!("a {} {x}", ["=", "<", ">=", "<>"][next(4)])),
                    1 => sql.push_str(&format!("a BETWEEN {x} AND {y}")),
                    _ => sql.push_str(&format!("a IN ({x}, {y})")),
                }
            }
            let n = normalize(&sql, "", Default::default()).expect("cacheable");
            let mut rebuilt = String::new();
            let mut lits = n.literals.iter();
            for ch in n.key[2..].chars() {
                match ch {
                    '?' => {
                        let l = lits.next().expect("a literal per ?");
                        rebuilt.push_str(&sql[l.start..l.end]);
                    }
                    c => rebuilt.push(c),
                }
            }
            assert_eq!(rebuilt, sql);
            for l in &n.literals {
                let t = &sql[l.start..l.end];
                assert!(
                    [
                        "5",
                        "-5",
                        "1.50",
                        "-0.5",
                        "'abc'",
                        "''",
                        "18446744073709551616"
                    ]
                    .contains(&t),
                    "{t} in {sql}"
                );
            }
        }
    }
}
