//! JSON text: a parser into a [`Node`] tree and MariaDB's serializer.
//!
//! MariaDB keeps the text of scalars: a number is written back as it was read (`2.50`, `1e2`)
//! and a string keeps its escapes (`"x\ny"` stays escaped), so a node holds the source text of
//! each scalar. Containers are written with `", "` between items and `": "` after a key.
//!
//! The parser is iterative (an explicit stack), so deep input cannot overflow the thread
//! stack; nesting deeper than [`MAX_DEPTH`] is an error, as MariaDB's limit of 32. Any escape
//! is accepted in a string except a `\u` without four hex digits; control characters are not.

/// MariaDB's limit on nested arrays and objects.
pub const MAX_DEPTH: usize = 32;

/// A JSON value; strings and keys hold their source text between the quotes (escapes kept).
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Null,
    True,
    False,
    Num(String),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

/// Why a text is not JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The text ended in the middle of a value (4037).
    Eof,
    /// An unexpected character; the position MariaDB reports (4038).
    Syntax(usize),
    /// Nested deeper than the limit; the position (4040).
    Depth(usize),
    /// A control character inside a string; the position (4036).
    BadChr(usize),
}

enum Frame {
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>, String),
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lexer<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Result<u8, ParseError> {
        self.skip_ws();
        self.s.get(self.i).copied().ok_or(ParseError::Eof)
    }

    fn bad(&self) -> ParseError {
        ParseError::Syntax(self.i + 1)
    }

    /// A string whose opening quote is at `i`: its raw inner text.
    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1;
        let start = self.i;
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return Err(ParseError::Eof);
            };
            match c {
                b'"' => break,
                b'\\' => {
                    self.i += 1;
                    match self.s.get(self.i) {
                        None => return Err(ParseError::Eof),
                        Some(b'u') => {
                            for _ in 0..4 {
                                self.i += 1;
                                match self.s.get(self.i) {
                                    None => return Err(ParseError::Eof),
                                    Some(h) if h.is_ascii_hexdigit() => {}
                                    Some(_) => return Err(self.bad()),
                                }
                            }
                        }
                        Some(_) => {}
                    }
                    self.i += 1;
                }
                c if c < 0x20 => return Err(ParseError::BadChr(self.i + 1)),
                _ => self.i += 1,
            }
        }
        let raw = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.i += 1;
        Ok(raw)
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Node, ParseError> {
        let start = self.i;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        match self.s.get(self.i) {
            None => return Err(ParseError::Eof),
            Some(b'0') => self.i += 1,
            Some(c) if c.is_ascii_digit() => {
                self.digits();
            }
            Some(_) => return Err(self.bad()),
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            self.digits();
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            let e = self.i;
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(if self.i >= self.s.len() {
                    ParseError::Eof
                } else {
                    ParseError::Syntax(e + 1)
                });
            }
        }
        if self.s.get(self.i).is_some_and(|c| c.is_ascii_digit()) {
            return Err(self.bad());
        }
        Ok(Node::Num(
            String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
        ))
    }

    fn word(&mut self, w: &[u8], node: Node) -> Result<Node, ParseError> {
        let start = self.i;
        for &b in w {
            match self.s.get(self.i) {
                None => return Err(ParseError::Eof),
                Some(&c) if c == b => self.i += 1,
                Some(_) => return Err(ParseError::Syntax(start + 1)),
            }
        }
        Ok(node)
    }
}

/// Parse a whole JSON text (surrounding whitespace allowed).
pub fn parse(text: &[u8]) -> Result<Node, ParseError> {
    let mut lx = Lexer { s: text, i: 0 };
    let mut stack: Vec<Frame> = Vec::new();
    loop {
        // Read a value (or open a container).
        let c = lx.peek()?;
        let mut value = match c {
            b'[' | b'{' => {
                if stack.len() + 1 >= MAX_DEPTH {
                    return Err(ParseError::Depth(lx.i + 1));
                }
                lx.i += 1;
                let close = if c == b'[' { b']' } else { b'}' };
                if lx.peek()? == close {
                    lx.i += 1;
                    if c == b'[' {
                        Node::Arr(Vec::new())
                    } else {
                        Node::Obj(Vec::new())
                    }
                } else if c == b'[' {
                    stack.push(Frame::Arr(Vec::new()));
                    continue;
                } else {
                    let key = read_key(&mut lx)?;
                    stack.push(Frame::Obj(Vec::new(), key));
                    continue;
                }
            }
            b'"' => Node::Str(lx.string()?),
            b'-' | b'0'..=b'9' => lx.number()?,
            b't' => lx.word(b"true", Node::True)?,
            b'f' => lx.word(b"false", Node::False)?,
            b'n' => lx.word(b"null", Node::Null)?,
            _ => return Err(lx.bad()),
        };
        // Attach the value; close finished containers.
        loop {
            match stack.last_mut() {
                None => {
                    lx.skip_ws();
                    if lx.i < lx.s.len() {
                        return Err(lx.bad());
                    }
                    return Ok(value);
                }
                Some(Frame::Arr(items)) => {
                    items.push(value);
                    match lx.peek()? {
                        b',' => {
                            lx.i += 1;
                            break;
                        }
                        b']' => {
                            lx.i += 1;
                            let Some(Frame::Arr(items)) = stack.pop() else {
                                unreachable!()
                            };
                            value = Node::Arr(items);
                        }
                        _ => return Err(lx.bad()),
                    }
                }
                Some(Frame::Obj(members, key)) => {
                    members.push((std::mem::take(key), value));
                    match lx.peek()? {
                        b',' => {
                            lx.i += 1;
                            *key = read_key(&mut lx)?;
                            break;
                        }
                        b'}' => {
                            lx.i += 1;
                            let Some(Frame::Obj(members, _)) = stack.pop() else {
                                unreachable!()
                            };
                            value = Node::Obj(members);
                        }
                        _ => return Err(lx.bad()),
                    }
                }
            }
        }
    }
}

/// `"key" :` inside an object.
fn read_key(lx: &mut Lexer<'_>) -> Result<String, ParseError> {
    if lx.peek()? != b'"' {
        return Err(lx.bad());
    }
    let key = lx.string()?;
    let after = lx.i;
    if lx.peek()? != b':' {
        return Err(ParseError::Syntax(after + 1));
    }
    lx.i += 1;
    Ok(key)
}

/// Write a node as MariaDB does (`[1, 2]`, `{"a": 1}`). Nodes nest at most a few dozen deep
/// (parsed text is bounded by [`MAX_DEPTH`], built values by the expression's nesting).
pub fn write(node: &Node, out: &mut String) {
    match node {
        Node::Null => out.push_str("null"),
        Node::True => out.push_str("true"),
        Node::False => out.push_str("false"),
        Node::Num(n) => out.push_str(n),
        Node::Str(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        Node::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(item, out);
            }
            out.push(']');
        }
        Node::Obj(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push('"');
                out.push_str(k);
                out.push_str("\": ");
                write(v, out);
            }
            out.push('}');
        }
    }
}

/// Write a node without spaces (JSON_COMPACT).
pub fn write_compact(node: &Node, out: &mut String) {
    match node {
        Node::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(item, out);
            }
            out.push(']');
        }
        Node::Obj(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('"');
                out.push_str(k);
                out.push_str("\":");
                write_compact(v, out);
            }
            out.push('}');
        }
        scalar => write(scalar, out),
    }
}

/// A node as text.
pub fn to_string(node: &Node) -> String {
    let mut s = String::new();
    write(node, &mut s);
    s
}

/// The depth of a node (a scalar or an empty container is 1).
pub fn depth(node: &Node) -> usize {
    match node {
        Node::Arr(items) if !items.is_empty() => 1 + items.iter().map(depth).max().unwrap_or(0),
        Node::Obj(m) if !m.is_empty() => 1 + m.iter().map(|(_, v)| depth(v)).max().unwrap_or(0),
        _ => 1,
    }
}

/// Escape text as the inside of a JSON string.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Decode the escapes of a string's raw text (an unknown escape is the character itself).
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let hi = u32::from_str_radix(&hex, 16).unwrap_or(0xfffd);
                if (0xd800..0xdc00).contains(&hi) {
                    let rest = chars.as_str();
                    if let Some(lo) = rest
                        .strip_prefix("\\u")
                        .and_then(|r| r.get(..4))
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .filter(|lo| (0xdc00..0xe000).contains(lo))
                    {
                        chars = rest[6..].chars();
                        let cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                        out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                        continue;
                    }
                }
                out.push(char::from_u32(hi).unwrap_or('\u{fffd}'));
            }
            Some(c) => out.push(c),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(s: &str) -> String {
        to_string(&parse(s.as_bytes()).unwrap())
    }

    #[test]
    fn keeps_scalar_text_and_formats_containers() {
        assert_eq!(
            round(r#"{"a":[1,2.50,{"b":"x\ny"}],"c":1e2}"#),
            r#"{"a": [1, 2.50, {"b": "x\ny"}], "c": 1e2}"#
        );
        assert_eq!(round(" [ ] "), "[]");
        assert_eq!(round("{}"), "{}");
        assert_eq!(round("-0"), "-0");
        assert_eq!(round("1."), "1.");
    }

    #[test]
    fn rejects_bad_text() {
        assert_eq!(parse(b"[1,]"), Err(ParseError::Syntax(4)));
        assert_eq!(parse(b"01"), Err(ParseError::Syntax(2)));
        assert_eq!(parse(b" "), Err(ParseError::Eof));
        assert_eq!(parse(b"[1] x"), Err(ParseError::Syntax(5)));
        assert!(parse(b"\"\\u12\"").is_err());
        assert_eq!(parse(b"\"a\tb\""), Err(ParseError::BadChr(3)));
        assert_eq!(parse(b"{\"a\" 1}"), Err(ParseError::Syntax(5)));
        assert_eq!(parse(b"[tx]"), Err(ParseError::Syntax(2)));
        assert_eq!(parse(b"[1e]"), Err(ParseError::Syntax(3)));
        assert!(parse(b"\"\\x\"").is_ok());
    }

    #[test]
    fn deep_input_is_bounded() {
        let deep = "[".repeat(100_000);
        assert!(matches!(parse(deep.as_bytes()), Err(ParseError::Depth(_))));
        let ok = format!("{}{}", "[".repeat(31), "]".repeat(31));
        assert!(parse(ok.as_bytes()).is_ok());
    }

    #[test]
    fn unescapes() {
        assert_eq!(unescape(r"a\nb\u00e9\q\/"), "a\nbéq/");
        assert_eq!(unescape(r"\ud83d\ude00"), "\u{1F600}");
        assert_eq!(escape("a\"b\\c\n\u{1}"), "a\\\"b\\\\c\\n\\u0001");
    }
}
