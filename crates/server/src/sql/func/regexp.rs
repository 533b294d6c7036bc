//! Regular expressions: `s REGEXP p` / `RLIKE` / `NOT REGEXP`, REGEXP_REPLACE, REGEXP_SUBSTR
//! and REGEXP_INSTR.
//!
//! MariaDB uses PCRE2; here the `regex` crate, whose syntax covers the patterns applications
//! write (classes, repetition, alternation, anchors, groups, `\d`/`\w`/`\s`); backreferences
//! and lookaround are refused as a bad pattern. The match is case-insensitive when the
//! comparison collation of the two arguments is a `_ci` one, byte-wise for binary strings,
//! character-wise otherwise (`'é' REGEXP '^.$'` is 1). A bad pattern is error 1139. The
//! compiled program is bounded (`size_limit`, `dfa_size_limit`), and matching is linear in
//! the subject: no pattern takes unbounded time or memory. REGEXP_REPLACE's replacement
//! names groups `\1` … `\9` as MariaDB's does.

use crate::error::{Error, Result};
use crate::sql::bind::sqltype::SqlType;
use crate::sql::env::Env;
use crate::sql::expr::convert;
use crate::types::{Collation, Value};
use cohort_protocol::ErrorCode;
use regex::bytes::{Regex, RegexBuilder};
use std::cell::RefCell;

/// Which regular-expression function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegexpFn {
    Like,
    Replace,
    Substr,
    Instr,
}

/// The binding of a function by name.
pub fn bind(name: &str, args: &[SqlType]) -> Option<std::result::Result<(RegexpFn, SqlType), ()>> {
    let n = args.len();
    let nullable = args.iter().any(|t| t.nullable);
    let len0 = args.first().map_or(0, SqlType::char_len);
    let (f, ok, ty) = match name {
        "REGEXP" | "RLIKE" => (RegexpFn::Like, n == 2, SqlType::int(1)),
        "REGEXP_REPLACE" => (RegexpFn::Replace, n == 3, SqlType::text()),
        "REGEXP_SUBSTR" => (RegexpFn::Substr, n == 2, SqlType::varchar(len0)),
        "REGEXP_INSTR" => {
            let mut t = SqlType::int(10);
            t.length = 11;
            (RegexpFn::Instr, n == 2, t)
        }
        _ => return None,
    };
    if !ok {
        return Some(Err(()));
    }
    Some(Ok((f, ty.with_nullable(nullable))))
}

/// The largest compiled program and lazy-DFA cache for one pattern.
const SIZE_LIMIT: usize = 1 << 20;
/// Compiled patterns kept per thread.
const CACHE: usize = 16;

thread_local! {
    static COMPILED: RefCell<Vec<(Vec<u8>, Collation, Regex)>> = const { RefCell::new(Vec::new()) };
}

fn compile(pat: &[u8], coll: Collation) -> Result<Regex> {
    if let Some(r) = COMPILED.with(|c| {
        c.borrow()
            .iter()
            .find(|(p, k, _)| p == pat && *k == coll)
            .map(|(_, _, r)| r.clone())
    }) {
        return Ok(r);
    }
    let text = String::from_utf8_lossy(pat);
    let text = if coll == Collation::Binary {
        text.into_owned()
    } else {
        unicode_classes(&text)
    };
    let r = RegexBuilder::new(&text)
        .case_insensitive(matches!(
            coll.compare_as(),
            Collation::Utf8mb4GeneralCi
                | Collation::Utf8mb4Unicode520Ci
                | Collation::Utf8mb4UnicodeCi
        ))
        .unicode(coll != Collation::Binary)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .nest_limit(250)
        .build()
        .map_err(|e| {
            let msg = match e {
                regex::Error::Syntax(s) => s.lines().last().unwrap_or("").trim().to_string(),
                regex::Error::CompiledTooBig(_) => "regular expression is too large".into(),
                _ => "invalid regular expression".into(),
            };
            let msg = msg.strip_prefix("error: ").unwrap_or(&msg).to_string();
            Error::new(ErrorCode::RegexpError, format!("Regex error '{msg}'"))
        })?;
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE {
            c.remove(0);
        }
        c.push((pat.to_vec(), coll, r.clone()));
    });
    Ok(r)
}

/// PCRE's POSIX classes and word-boundary brackets in the forms the crate reads: MariaDB runs
/// PCRE2 with Unicode properties, so `[[:alpha:]]` matches `é`, where the crate's POSIX
/// classes are ASCII; `[[:<:]]` / `[[:>:]]` are the start and end of a word.
fn unicode_classes(p: &str) -> String {
    const CLASSES: [(&str, &str); 8] = [
        ("[:alpha:]", "\\p{Alphabetic}"),
        ("[:alnum:]", "\\p{Alphabetic}\\p{Nd}"),
        ("[:upper:]", "\\p{Uppercase}"),
        ("[:lower:]", "\\p{Lowercase}"),
        ("[:digit:]", "\\p{Nd}"),
        ("[:space:]", "\\s"),
        ("[:punct:]", "\\p{P}"),
        ("[:word:]", "\\w"),
    ];
    if !p.contains("[:") {
        return p.to_string();
    }
    // A case class alone keeps its case under a _ci collation (PCRE does not fold Unicode
    // properties).
    let mut out = p
        .replace("[[:<:]]", "\\b{start}")
        .replace("[[:>:]]", "\\b{end}")
        .replace("[[:upper:]]", "(?-i:\\p{Lu})")
        .replace("[[:lower:]]", "(?-i:\\p{Ll})");
    for (posix, unicode) in CLASSES {
        out = out.replace(posix, unicode);
    }
    out
}

/// `\1` … `\9` as the crate's `${1}`; a literal `$` escaped.
fn replacement(rep: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rep.len());
    let mut i = 0;
    while i < rep.len() {
        match rep[i] {
            b'\\' if i + 1 < rep.len() && rep[i + 1].is_ascii_digit() => {
                out.extend_from_slice(format!("${{{}}}", rep[i + 1] - b'0').as_bytes());
                i += 2;
            }
            b'\\' if i + 1 < rep.len() => {
                out.push(rep[i + 1]);
                i += 2;
            }
            b'$' => {
                out.extend_from_slice(b"$$");
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Evaluate with non-NULL arguments.
pub fn eval(f: RegexpFn, coll: Collation, v: &[Value], env: &Env<'_>) -> Result<Value> {
    let subject = convert::to_text(&v[0]);
    let re = compile(&convert::to_text(&v[1]), coll)?;
    Ok(match f {
        RegexpFn::Like => Value::Int(i64::from(re.is_match(&subject))),
        RegexpFn::Substr => match re.find(&subject) {
            Some(m) => Value::Bytes(m.as_bytes().to_vec()),
            None => Value::Bytes(Vec::new()),
        },
        RegexpFn::Instr => match re.find(&subject) {
            Some(m) => {
                let before = &subject[..m.start()];
                let pos = if coll == Collation::Binary {
                    before.len()
                } else {
                    String::from_utf8_lossy(before).chars().count()
                };
                Value::Int(pos as i64 + 1)
            }
            None => Value::Int(0),
        },
        RegexpFn::Replace => {
            let rep = replacement(&convert::to_text(&v[2]));
            let out = re.replace_all(&subject, rep.as_slice());
            if out.len() > super::max_packet(env) {
                return Ok(super::too_big(env, "regexp_replace"));
            }
            Value::Bytes(out.into_owned())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_follows_the_collation() {
        let ci = compile(b"a", Collation::Utf8mb4GeneralCi).unwrap();
        assert!(ci.is_match(b"Abc"));
        let bin = compile(b"a", Collation::Binary).unwrap();
        assert!(!bin.is_match(b"Abc"));
    }

    #[test]
    fn bad_patterns_are_1139() {
        let e = compile(b"(", Collation::Utf8mb4GeneralCi).unwrap_err();
        assert_eq!(e.code(), ErrorCode::RegexpError);
        assert!(compile(b"(a)\\1", Collation::Utf8mb4GeneralCi).is_err());
        // A pattern that would compile to a huge program is refused, not built.
        assert!(compile(b"(\\w{100}){100}", Collation::Utf8mb4GeneralCi).is_err());
    }

    #[test]
    fn posix_classes_are_unicode() {
        let re = compile(b"^[[:alpha:]]+$", Collation::Utf8mb4GeneralCi).unwrap();
        assert!(re.is_match("ÀbÇdé".as_bytes()));
        let re = compile(b"[[:<:]]cat[[:>:]]", Collation::Utf8mb4GeneralCi).unwrap();
        assert!(re.is_match(b"a cat here"));
        assert!(!re.is_match(b"concatenate"));
    }

    #[test]
    fn group_references() {
        assert_eq!(replacement(b"[\\1]$"), b"[${1}]$$".to_vec());
    }
}
