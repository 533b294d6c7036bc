//! A view's `*` is expanded when the view is created, as MariaDB does: the view keeps the
//! columns its tables had then, so a later `ALTER TABLE … ADD COLUMN` does not add a column
//! to the view (MariaDB stores the expanded list in the view's text).
//!
//! Done on the text, before it is stored: each `*` or `name.*` item of the view's top-level
//! select list becomes `` `t`.`a`,`t`.`b` `` over the columns of the one table it reads.
//! What this does not cover keeps its `*` (and so still follows its tables): a select list
//! over joins or several tables, a view or derived table as the source, set operations, WITH,
//! and `*` inside subqueries.

use crate::sql::env::Env;
use crate::sql::parse::{is_word, offset_of as offset, tokenize_in};
use crate::sql::sql_mode::ParseMode;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Clauses that end the FROM of a single table.
const AFTER_FROM: &[&str] = &[
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "WINDOW",
    "FOR",
    "LOCK",
    "PROCEDURE",
];

/// `text` with its top-level `*` items expanded, or as it was when it has none this can
/// expand.
pub(super) fn freeze(env: &Env<'_>, db: &str, text: &str) -> String {
    expand(env, db, text).unwrap_or_else(|| text.to_string())
}

fn expand(env: &Env<'_>, db: &str, text: &str) -> Option<String> {
    let tokens = tokenize_in(text, ParseMode(0)).ok()?;
    let toks: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_) | Token::EOF))
        .collect();
    let t = |k: usize| &tokens[toks[k]].token;
    if toks.is_empty() || !is_word(t(0), "SELECT") {
        return None;
    }
    // The select list: top-level items up to FROM; stars are `*` or `name.*` at an item's start.
    let (mut k, mut depth, mut item_start) = (1, 0i32, true);
    let mut stars: Vec<(usize, usize, Option<String>)> = Vec::new(); // token span, qualifier
    let from = loop {
        if k >= toks.len() {
            return None;
        }
        match t(k) {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                item_start = true;
                k += 1;
                continue;
            }
            tok if depth == 0 && is_word(tok, "FROM") => break k,
            Token::Mul if depth == 0 && item_start => stars.push((k, k, None)),
            Token::Word(w)
                if depth == 0
                    && item_start
                    && k + 2 < toks.len()
                    && matches!(t(k + 1), Token::Period)
                    && matches!(t(k + 2), Token::Mul) =>
            {
                stars.push((k, k + 2, Some(w.value.clone())));
                k += 3;
                item_start = false;
                continue;
            }
            _ => {}
        }
        item_start = false;
        k += 1;
    };
    if stars.is_empty() {
        return None;
    }
    let (table_db, table, alias) = single_table(&tokens, &toks, from + 1, db)?;
    if stars
        .iter()
        .any(|(_, _, q)| q.as_ref().is_some_and(|q| !q.eq_ignore_ascii_case(&alias)))
    {
        return None;
    }
    let def = env.ctx.engine.table(&table_db, &table).ok()?;
    let q = alias.replace('`', "``");
    let list: Vec<String> = def
        .def()
        .columns
        .iter()
        .map(|c| format!("`{q}`.`{}`", c.name.replace('`', "``")))
        .collect();
    let list = list.join(",");
    let mut out = String::new();
    let mut at = 0;
    for (a, b, _) in stars {
        let start = offset(text, tokens[toks[a]].span.start);
        let end = offset(text, tokens[toks[b]].span.end);
        out.push_str(&text[at..start]);
        out.push_str(&list);
        at = end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// The one base table after FROM (`[db.]name [[AS] alias]`, then the end or a later
/// clause): its database, name and the name its columns are qualified by.
fn single_table(
    tokens: &[TokenWithSpan],
    toks: &[usize],
    mut k: usize,
    db: &str,
) -> Option<(String, String, String)> {
    let t = |k: usize| toks.get(k).map(|&i| &tokens[i].token);
    let name = |k: usize| match t(k) {
        Some(Token::Word(w)) if w.quote_style.is_some() || !is_reserved(&w.value) => {
            Some(w.value.clone())
        }
        _ => None,
    };
    let first = name(k)?;
    k += 1;
    let (table_db, table) = if matches!(t(k), Some(Token::Period)) {
        let second = name(k + 1)?;
        k += 2;
        (first, second)
    } else {
        (db.to_string(), first)
    };
    if t(k).is_some_and(|x| is_word(x, "AS")) {
        k += 1;
    }
    let alias = match name(k) {
        Some(a) => {
            k += 1;
            a
        }
        None => table.clone(),
    };
    match t(k) {
        None | Some(Token::SemiColon) => {}
        Some(x) if AFTER_FROM.iter().any(|w| is_word(x, w)) => {}
        _ => return None, // a join, a comma, a set operation, PARTITION …
    }
    Some((table_db, table, alias))
}

/// Words that end a FROM clause's table reference rather than naming an alias.
fn is_reserved(w: &str) -> bool {
    AFTER_FROM
        .iter()
        .chain(&[
            "AS",
            "JOIN",
            "INNER",
            "LEFT",
            "RIGHT",
            "CROSS",
            "NATURAL",
            "STRAIGHT_JOIN",
        ])
        .chain(&[
            "UNION",
            "INTERSECT",
            "EXCEPT",
            "PARTITION",
            "USE",
            "IGNORE",
            "FORCE",
            "ON",
        ])
        .any(|r| w.eq_ignore_ascii_case(r))
}
