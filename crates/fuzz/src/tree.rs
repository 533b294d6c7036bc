//! The shrinkable syntax tree the SQL generator builds statements from.
//!
//! A generated statement is kept as a [`Node`] tree, not as text, so that a failing statement
//! can be minimised structurally: every node kind knows which smaller variants of itself are
//! still well formed ([`Node::edit_count`] / [`Node::edit`]):
//!
//! | node | edits, largest first |
//! |---|---|
//! | [`Node::Opt`] | drop the clause |
//! | [`Node::List`] | drop chunks of items: halves, quarters, … single items (never below `min`) |
//! | [`Node::Expr`] | replace the expression by one of its direct sub-expressions, `1`, or `NULL` |
//! | [`Node::Nest`] | fewer levels of nesting |
//! | [`Node::Lit`] | shorter literal: half the digits / bytes, `0` / `''` |
//!
//! Edits are numbered and produced lazily, one at a time: a list of 100 000 terms (the
//! stack-depth class) has ~200 000 edits, and materialising them all would be quadratic.
//!
//! Rendering ([`Node::render`]) gives the statement's bytes. They need not be UTF-8: string
//! literals may carry raw bytes (the wire allows any), which is part of what is fuzzed.

/// One node of a generated statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// Fixed text: a keyword, a name, an operator, punctuation.
    Tok(String),
    /// Children in order.
    Seq(Vec<Node>),
    /// An optional clause.
    Opt(Box<Node>),
    /// Items with a separator (`,`, `+`, `AND`, …); at least `min` items stay.
    List {
        items: Vec<Node>,
        sep: String,
        min: usize,
    },
    /// An expression (the unit that can be replaced by a sub-expression).
    Expr(Box<Node>),
    /// `open` × count, inner, `close` × count: deep nesting such as `((((1))))` or
    /// `ABS(ABS(ABS(1)))`.
    Nest {
        open: String,
        close: String,
        count: usize,
        inner: Box<Node>,
    },
    /// A literal.
    Lit(Lit),
}

/// A literal, in source form.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    /// A number as written: sign, digits, point, exponent.
    Num(String),
    /// A quoted string: `prefix` (`''`, `_binary`, `N`, `DATE `, …) then `'body'`; the body
    /// is source bytes (escapes already written, raw bytes allowed).
    Str { prefix: String, body: Vec<u8> },
    /// `X'…'` of these bytes.
    Hex(Vec<u8>),
}

/// Convenience constructors used by the generator.
pub fn tok(s: impl Into<String>) -> Node {
    Node::Tok(s.into())
}

pub fn seq(nodes: Vec<Node>) -> Node {
    Node::Seq(nodes)
}

pub fn opt(node: Node) -> Node {
    Node::Opt(Box::new(node))
}

pub fn expr(node: Node) -> Node {
    Node::Expr(Box::new(node))
}

pub fn list(items: Vec<Node>, sep: &str, min: usize) -> Node {
    Node::List {
        items,
        sep: sep.to_string(),
        min,
    }
}

/// `name(arg, arg, …)`; arguments may be dropped down to `min_args`.
pub fn call(name: &str, args: Vec<Node>, min_args: usize) -> Node {
    seq(vec![
        tok(format!("{name}(")),
        list(args, ",", min_args),
        tok(")"),
    ])
}

/// `(inner)`.
pub fn paren(inner: Node) -> Node {
    seq(vec![tok("("), inner, tok(")")])
}

pub fn num(s: impl Into<String>) -> Node {
    Node::Lit(Lit::Num(s.into()))
}

pub fn string(body: impl Into<Vec<u8>>) -> Node {
    Node::Lit(Lit::Str {
        prefix: String::new(),
        body: body.into(),
    })
}

pub fn prefixed_string(prefix: &str, body: impl Into<Vec<u8>>) -> Node {
    Node::Lit(Lit::Str {
        prefix: prefix.to_string(),
        body: body.into(),
    })
}

const EMPTY: Node = Node::Seq(Vec::new());

impl Node {
    /// The statement's bytes.
    pub fn render(&self) -> Vec<u8> {
        let mut tokens: Vec<Vec<u8>> = Vec::new();
        self.tokens(&mut tokens);
        let mut out = Vec::new();
        let mut prev: Option<&[u8]> = None;
        for t in tokens.iter().filter(|t| !t.is_empty()) {
            if prev.is_some_and(|p| needs_space(p, t)) {
                out.push(b' ');
            }
            out.extend_from_slice(t);
            prev = Some(t);
        }
        out
    }

    fn tokens(&self, out: &mut Vec<Vec<u8>>) {
        match self {
            Node::Tok(s) => out.push(s.as_bytes().to_vec()),
            Node::Seq(children) => children.iter().for_each(|c| c.tokens(out)),
            Node::Opt(inner) | Node::Expr(inner) => inner.tokens(out),
            Node::List { items, sep, .. } => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(sep.as_bytes().to_vec());
                    }
                    item.tokens(out);
                }
            }
            Node::Nest {
                open,
                close,
                count,
                inner,
            } => {
                out.extend((0..*count).map(|_| open.as_bytes().to_vec()));
                inner.tokens(out);
                out.extend((0..*count).map(|_| close.as_bytes().to_vec()));
            }
            Node::Lit(lit) => out.push(lit.render()),
        }
    }

    fn children(&self) -> &[Node] {
        match self {
            Node::Seq(c) => c,
            Node::List { items, .. } => items,
            Node::Opt(inner) | Node::Expr(inner) => std::slice::from_ref(inner),
            Node::Nest { inner, .. } => std::slice::from_ref(inner),
            Node::Tok(_) | Node::Lit(_) => &[],
        }
    }

    fn child_mut(&mut self, i: usize) -> &mut Node {
        match self {
            Node::Seq(c) => &mut c[i],
            Node::List { items, .. } => &mut items[i],
            Node::Opt(inner) | Node::Expr(inner) => inner,
            Node::Nest { inner, .. } => inner,
            Node::Tok(_) | Node::Lit(_) => unreachable!("leaf has no children"),
        }
    }

    /// Paths (child indexes from the root) of every node, in pre-order.
    pub fn paths(&self) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        let mut path = Vec::new();
        self.collect_paths(&mut path, &mut out);
        out
    }

    fn collect_paths(&self, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        out.push(path.clone());
        for (i, c) in self.children().iter().enumerate() {
            path.push(i);
            c.collect_paths(path, out);
            path.pop();
        }
    }

    pub fn at(&self, path: &[usize]) -> Option<&Node> {
        let mut node = self;
        for &i in path {
            node = node.children().get(i)?;
        }
        Some(node)
    }

    /// A copy with the node at `path` replaced by `new`.
    pub fn replaced(&self, path: &[usize], new: Node) -> Node {
        let mut out = self.clone();
        let mut node = &mut out;
        for &i in path {
            node = node.child_mut(i);
        }
        *node = new;
        out
    }

    /// How many smaller variants of this node (alone) exist; see the module docs.
    pub fn edit_count(&self) -> usize {
        match self {
            Node::Opt(_) => 1,
            Node::List { items, min, .. } => chunk_edits(items.len(), *min).len(),
            Node::Expr(inner) => direct_subexprs(inner).len() + 2,
            Node::Nest { count, .. } => nest_counts(*count).len(),
            Node::Lit(lit) => lit.shorter().len(),
            Node::Tok(_) | Node::Seq(_) => 0,
        }
    }

    /// The `k`-th smaller variant (`k < edit_count()`).
    pub fn edit(&self, k: usize) -> Option<Node> {
        match self {
            Node::Opt(_) => (k == 0).then_some(EMPTY),
            Node::List { items, sep, min } => {
                let (start, len) = *chunk_edits(items.len(), *min).get(k)?;
                let mut kept = items[..start].to_vec();
                kept.extend_from_slice(&items[start + len..]);
                Some(Node::List {
                    items: kept,
                    sep: sep.clone(),
                    min: *min,
                })
            }
            Node::Expr(inner) => {
                let subs = direct_subexprs(inner);
                match k.checked_sub(subs.len()) {
                    None => Some(subs[k].clone()),
                    Some(0) => Some(expr(num("1"))),
                    Some(1) => Some(expr(tok("NULL"))),
                    Some(_) => None,
                }
            }
            Node::Nest {
                open,
                close,
                count,
                inner,
            } => Some(Node::Nest {
                open: open.clone(),
                close: close.clone(),
                count: *nest_counts(*count).get(k)?,
                inner: inner.clone(),
            }),
            Node::Lit(lit) => lit.shorter().into_iter().nth(k).map(Node::Lit),
            Node::Tok(_) | Node::Seq(_) => None,
        }
    }
}

/// Whether two adjacent tokens need a space between them: not after `(`, not before `)` or
/// `,`.
fn needs_space(prev: &[u8], next: &[u8]) -> bool {
    let p = prev.last().copied().unwrap_or(b' ');
    let n = next.first().copied().unwrap_or(b' ');
    !(p == b'(' || n == b')' || n == b',')
}

/// The chunk removals of a list of `n` items keeping at least `min`: (start, length), halves
/// first, down to single items.
pub(crate) fn chunk_edits(n: usize, min: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if n <= min {
        return out;
    }
    let mut size = n.div_ceil(2);
    loop {
        if n - size.min(n) >= min {
            let mut start = 0;
            while start < n {
                let len = size.min(n - start);
                if n - len >= min {
                    out.push((start, len));
                }
                start += size;
            }
        }
        if size == 1 {
            break;
        }
        size = size.div_ceil(2);
    }
    out
}

/// The expressions directly under `node` (not nested in another expression).
fn direct_subexprs(node: &Node) -> Vec<Node> {
    let mut out = Vec::new();
    collect_subexprs(node, &mut out);
    out
}

fn collect_subexprs(node: &Node, out: &mut Vec<Node>) {
    for c in node.children() {
        match c {
            Node::Expr(_) => out.push(c.clone()),
            other => collect_subexprs(other, out),
        }
    }
}

fn nest_counts(count: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for c in [0, 1, count / 2, count * 3 / 4, count.saturating_sub(1)] {
        if c < count && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

impl Lit {
    pub fn render(&self) -> Vec<u8> {
        match self {
            Lit::Num(s) => s.as_bytes().to_vec(),
            Lit::Str { prefix, body } => {
                let mut out = prefix.as_bytes().to_vec();
                out.push(b'\'');
                out.extend_from_slice(body);
                out.push(b'\'');
                out
            }
            Lit::Hex(bytes) => {
                let mut out = b"X'".to_vec();
                for b in bytes {
                    out.extend_from_slice(format!("{b:02X}").as_bytes());
                }
                out.push(b'\'');
                out
            }
        }
    }

    /// Shorter versions, largest reduction first.
    fn shorter(&self) -> Vec<Lit> {
        match self {
            Lit::Num(s) => shorter_numbers(s).into_iter().map(Lit::Num).collect(),
            Lit::Str { prefix, body } => {
                let mut lens = vec![0, 1, body.len() / 2, body.len() * 3 / 4];
                lens.retain(|&l| l < body.len());
                lens.dedup();
                lens.into_iter()
                    .map(|l| Lit::Str {
                        prefix: prefix.clone(),
                        body: cut_escaped(body, l),
                    })
                    .filter(|l| l != self)
                    .collect()
            }
            Lit::Hex(bytes) => {
                let mut lens = vec![0, 1, bytes.len() / 2];
                lens.retain(|&l| l < bytes.len());
                lens.dedup();
                lens.into_iter()
                    .map(|l| Lit::Hex(bytes[..l].to_vec()))
                    .collect()
            }
        }
    }
}

/// The first `len` bytes of a string body, backing off so as not to end inside an escape.
fn cut_escaped(body: &[u8], len: usize) -> Vec<u8> {
    let mut cut = body[..len].to_vec();
    let trailing = cut.iter().rev().take_while(|&&b| b == b'\\').count();
    if trailing % 2 == 1 {
        cut.pop();
    }
    cut
}

/// Shorter forms of a number: "0", "1", fewer digits in the integer and fraction parts.
fn shorter_numbers(s: &str) -> Vec<String> {
    let (sign, rest) = match s.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", s),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], Some(&mantissa[i + 1..])),
        None => (mantissa, None),
    };
    let mut out = vec!["0".to_string(), "1".to_string()];
    if !exp.is_empty() {
        out.push(format!("{sign}{mantissa}"));
    }
    if int.len() > 1 {
        let half = &int[..int.len().div_ceil(2)];
        out.push(match frac {
            Some(f) => format!("{sign}{half}.{f}{exp}"),
            None => format!("{sign}{half}{exp}"),
        });
    }
    if let Some(f) = frac {
        if !f.is_empty() {
            out.push(format!("{sign}{int}.{}{exp}", &f[..f.len() / 2]));
            out.push(format!("{sign}{int}{exp}"));
        }
    }
    if !sign.is_empty() {
        out.push(rest.to_string());
    }
    out.retain(|c| c.len() < s.len());
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: &Node) -> String {
        String::from_utf8(n.render()).unwrap()
    }

    #[test]
    fn renders_with_sql_spacing() {
        let n = seq(vec![
            tok("SELECT"),
            call("SUBSTRING", vec![string("ab"), num("2"), num("-1")], 2),
            tok("FROM"),
            tok("fz.t0"),
            opt(seq(vec![tok("WHERE"), paren(num("1"))])),
        ]);
        assert_eq!(
            text(&n),
            "SELECT SUBSTRING('ab', 2, -1) FROM fz.t0 WHERE (1)"
        );
        let nest = Node::Nest {
            open: "ABS(".into(),
            close: ")".into(),
            count: 3,
            inner: Box::new(num("1")),
        };
        assert_eq!(text(&nest), "ABS(ABS(ABS(1)))");
        let sum = list(vec![num("1"), num("2"), num("3")], "+", 1);
        assert_eq!(text(&sum), "1 + 2 + 3");
        assert_eq!(text(&Node::Lit(Lit::Hex(vec![0xFF, 0]))), "X'FF00'");
    }

    #[test]
    fn every_edit_is_smaller_and_well_formed() {
        let n = seq(vec![
            tok("SELECT"),
            expr(seq(vec![
                expr(num("123456.789")),
                tok("+"),
                expr(call("CONCAT", vec![expr(string("abcdef"))], 0)),
            ])),
            opt(tok("LIMIT 1")),
            list((0..10).map(|i| num(i.to_string())).collect(), ",", 1),
        ]);
        let original = n.render().len();
        for path in n.paths() {
            let node = n.at(&path).unwrap();
            for k in 0..node.edit_count() {
                let smaller = n.replaced(&path, node.edit(k).unwrap());
                assert!(smaller.render().len() < original, "{}", text(&smaller));
            }
        }
    }

    #[test]
    fn list_chunks_go_from_halves_to_singles() {
        assert_eq!(
            chunk_edits(4, 1),
            vec![(0, 2), (2, 2), (0, 1), (1, 1), (2, 1), (3, 1)]
        );
        assert_eq!(chunk_edits(2, 2), vec![]);
        assert_eq!(chunk_edits(3, 2), vec![(0, 1), (1, 1), (2, 1)]);
        // 100 000 items: about 2n edits, computed without materialising the lists.
        assert!(chunk_edits(100_000, 1).len() < 250_000);
    }

    #[test]
    fn literals_shrink_sensibly() {
        assert!(shorter_numbers("-79228162514264337593543950335.25")
            .contains(&"-792281625142643.25".to_string()));
        assert!(shorter_numbers("1e308").contains(&"1".to_string()));
        assert_eq!(cut_escaped(b"ab\\'c", 3), b"ab".to_vec());
        let s = Lit::Str {
            prefix: String::new(),
            body: b"xxxx".to_vec(),
        };
        assert!(s
            .shorter()
            .iter()
            .all(|l| l.render().len() < s.render().len()));
    }
}
