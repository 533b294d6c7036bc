//! MariaDB's JSON path: `$` followed by steps `.key`, `."quoted key"`, `.*`, `[n]`, `[-n]`
//! (from the end), `[last]`, `[last-n]`, `[m to n]`, `[*]` and `**` (any depth).
//!
//! Matching is iterative over the steps (a frontier of matched nodes), so a long path cannot
//! overflow the stack; `**` keeps each node once, so repeated `**` stays linear in the document.
//! An array step on a scalar matches the scalar itself for index 0 / last (autowrap).

use super::parse::{unescape, Node};

/// An array position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idx {
    /// `n` (negative: counted from the end, -1 the last).
    At(i64),
    /// `last - n`.
    Last(i64),
}

impl Idx {
    fn resolve(self, len: usize) -> Option<usize> {
        let len = len as i64;
        let i = match self {
            Idx::At(n) if n < 0 => len + n,
            Idx::At(n) => n,
            Idx::Last(n) => len - 1 - n,
        };
        (0..len).contains(&i).then_some(i as usize)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A member by (unescaped) name.
    Key(String),
    AnyKey,
    Index(Idx),
    Range(Idx, Idx),
    AnyIndex,
    /// `**`: the node and all its descendants.
    Descend,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub steps: Vec<Step>,
}

impl Path {
    /// True when the path may match several nodes (`*`, `**`, a range).
    pub fn is_wild(&self) -> bool {
        self.steps.iter().any(|s| {
            matches!(
                s,
                Step::AnyKey | Step::AnyIndex | Step::Descend | Step::Range(..)
            )
        })
    }
}

/// Why a path is not valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    /// The path ended in the middle of a step (4041).
    Eof,
    /// A bad character; the position MariaDB reports (4042).
    Syntax(usize),
}

/// Parse a path.
pub fn parse(text: &[u8]) -> Result<Path, PathError> {
    use PathError::{Eof, Syntax};
    let s = text;
    let mut i = 0;
    match s.first() {
        None => return Err(Eof),
        Some(b'$') => {}
        Some(_) => return Err(Syntax(1)),
    }
    i += 1;
    let mut steps = Vec::new();
    while i < s.len() {
        match s[i] {
            b'.' => {
                i += 1;
                match s.get(i) {
                    None => return Err(Eof),
                    Some(b'*') => {
                        i += 1;
                        steps.push(Step::AnyKey);
                    }
                    Some(b'"') => {
                        let start = i + 1;
                        let mut j = start;
                        while j < s.len() && s[j] != b'"' {
                            if s[j] == b'\\' {
                                j += 1;
                            }
                            j += 1;
                        }
                        if j >= s.len() {
                            return Err(Eof);
                        }
                        let raw = String::from_utf8_lossy(&s[start..j]);
                        steps.push(Step::Key(unescape(&raw)));
                        i = j + 1;
                    }
                    _ => {
                        let start = i;
                        while i < s.len() && !matches!(s[i], b'.' | b'[' | b' ' | b'*' | b'"') {
                            i += 1;
                        }
                        if i == start {
                            return Err(Syntax(i + 1));
                        }
                        steps.push(Step::Key(
                            String::from_utf8_lossy(&s[start..i]).into_owned(),
                        ));
                    }
                }
            }
            b'[' => {
                let close = s[i..].iter().position(|&c| c == b']').ok_or(Eof)? + i;
                let bad = Syntax(i + 2);
                let inner = std::str::from_utf8(&s[i + 1..close]).map_err(|_| bad)?;
                let inner = inner.trim();
                let step = if inner == "*" {
                    Step::AnyIndex
                } else if let Some((a, b)) = inner.split_once(" to ") {
                    Step::Range(index(a.trim()).ok_or(bad)?, index(b.trim()).ok_or(bad)?)
                } else {
                    Step::Index(index(inner).ok_or(bad)?)
                };
                steps.push(step);
                i = close + 1;
            }
            b'*' if s.get(i + 1) == Some(&b'*') => {
                i += 2;
                steps.push(Step::Descend);
            }
            _ => return Err(Syntax(i + 1)),
        }
    }
    if steps.last() == Some(&Step::Descend) {
        return Err(Syntax(s.len() + 1));
    }
    Ok(Path { steps })
}

fn index(t: &str) -> Option<Idx> {
    if let Some(rest) = t.strip_prefix("last") {
        let rest = rest.trim();
        if rest.is_empty() {
            return Some(Idx::Last(0));
        }
        let n = rest.strip_prefix('-')?.trim();
        return n.parse::<i64>().ok().filter(|n| *n >= 0).map(Idx::Last);
    }
    if t.is_empty()
        || !t
            .trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    t.parse::<i64>().ok().map(Idx::At)
}

/// The nodes a path matches, in document order.
pub fn matches<'a>(root: &'a Node, path: &Path) -> Vec<&'a Node> {
    let mut frontier = vec![root];
    for step in &path.steps {
        let mut next = Vec::new();
        for &node in &frontier {
            match (step, node) {
                (Step::Key(k), Node::Obj(members)) => {
                    if let Some((_, v)) = members.iter().find(|(name, _)| key_eq(name, k)) {
                        next.push(v);
                    }
                }
                (Step::AnyKey, Node::Obj(members)) => next.extend(members.iter().map(|(_, v)| v)),
                (Step::AnyIndex, Node::Arr(items)) => next.extend(items.iter()),
                (Step::Index(i), Node::Arr(items)) => {
                    if let Some(i) = i.resolve(items.len()) {
                        next.push(&items[i]);
                    }
                }
                (Step::Range(a, b), Node::Arr(items)) => {
                    if let (Some(a), Some(b)) = (a.resolve(items.len()), b.resolve(items.len())) {
                        if a <= b {
                            next.extend(items[a..=b].iter());
                        }
                    }
                }
                (Step::Index(i), n) if !matches!(n, Node::Arr(_)) && i.resolve(1) == Some(0) => {
                    next.push(n);
                }
                (Step::Descend, n) => descend(n, &mut next),
                _ => {}
            }
        }
        if matches!(step, Step::Descend) {
            let mut seen = std::collections::HashSet::new();
            next.retain(|n| seen.insert(*n as *const Node));
        }
        frontier = next;
        if frontier.is_empty() {
            break;
        }
    }
    frontier
}

/// The matches of several paths in document order; a node matched by k of the paths comes
/// k times (as MariaDB's JSON_EXTRACT).
pub fn matches_all<'a>(root: &'a Node, paths: &[Path]) -> Vec<&'a Node> {
    let mut count: std::collections::HashMap<*const Node, usize> = Default::default();
    for p in paths {
        let mut seen = std::collections::HashSet::new();
        for n in matches(root, p) {
            if seen.insert(n as *const Node) {
                *count.entry(n as *const Node).or_default() += 1;
            }
        }
    }
    let mut all = Vec::new();
    descend(root, &mut all);
    let mut out = Vec::new();
    for n in all {
        for _ in 0..count.get(&(n as *const Node)).copied().unwrap_or(0) {
            out.push(n);
        }
    }
    out
}

/// A key as written in the document against a path's key.
pub fn key_eq(raw: &str, key: &str) -> bool {
    if raw.contains('\\') {
        unescape(raw) == key
    } else {
        raw == key
    }
}

/// The node and its descendants, in pre-order (an explicit stack).
fn descend<'a>(node: &'a Node, out: &mut Vec<&'a Node>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        out.push(n);
        match n {
            Node::Arr(items) => stack.extend(items.iter().rev()),
            Node::Obj(members) => stack.extend(members.iter().rev().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::{parse as parse_json, to_string};
    use super::*;

    fn run(doc: &str, p: &str) -> Vec<String> {
        let d = parse_json(doc.as_bytes()).unwrap();
        let p = parse(p.as_bytes()).unwrap();
        matches(&d, &p).into_iter().map(to_string).collect()
    }

    #[test]
    fn steps() {
        assert_eq!(run(r#"{"a":[1,2,3]}"#, "$.a[1]"), ["2"]);
        assert_eq!(run("[1,2,3,4]", "$[last-1]"), ["3"]);
        assert_eq!(run("[1,2,3,4]", "$[-1]"), ["4"]);
        assert_eq!(run("[1,2,3,4]", "$[1 to 2]"), ["2", "3"]);
        assert_eq!(run(r#"{"a b":1}"#, r#"$."a b""#), ["1"]);
        assert_eq!(run("1", "$[0]"), ["1"]);
        assert_eq!(run(r#"{"a":{"b":1,"c":[2,{"b":3}]}}"#, "$**.b"), ["1", "3"]);
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(parse(b"a"), Err(PathError::Syntax(1)));
        assert_eq!(parse(b"$a"), Err(PathError::Syntax(2)));
        assert_eq!(parse(b"$[x]"), Err(PathError::Syntax(3)));
        assert_eq!(parse(b"$."), Err(PathError::Eof));
        assert_eq!(parse(b"$**"), Err(PathError::Syntax(4)));
        assert!(parse(b"$ .a").is_err());
        assert!(parse(b"$[x]").is_err());
        let long = format!("${}", "[0]".repeat(100_000));
        assert_eq!(run("1", &long), ["1"]);
    }
}
