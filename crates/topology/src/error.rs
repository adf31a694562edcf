//! Scenario errors that name the place: key path and, where the TOML parser
//! knows it, line and column.

use std::fmt;

use toml::de::{DeTable, DeValue};

/// A problem with a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Key path of the offending value (`links[3].algo.k_pkts`); empty for the whole file.
    pub path: String,
    /// 1-based line and column, when known.
    pub position: Option<(usize, usize)>,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            position: None,
            message: message.into(),
        }
    }
    /// Fill in the line and column of the error's key path in `src`, if found.
    pub fn locate(mut self, src: &str) -> Self {
        if self.position.is_none() {
            self.position = find_path(src, &self.path).map(|off| line_col(src, off));
        }
        self
    }
}

impl ScenarioError {
    /// Narrow an error that serde reports at a whole table down to the key it
    /// is about. serde cannot follow a path into an internally tagged enum
    /// (`[topology] kind = ...`, `cc = { kind = ... }`, `algo`, `traffic`):
    /// an unknown field or a bad value anywhere inside one is reported at the
    /// enum's own table. The message names the culprit (`unknown field
    /// `foo``, `` `10Mxbps` is not a rate``, `invalid type: string "x"`), so
    /// the table is searched for it; when exactly one key (or, for an unknown
    /// field, one direct key) matches, the error moves to that key's path and
    /// line. Otherwise it stays at the table.
    pub fn narrow(mut self, src: &str) -> Self {
        let Some(culprit) = Culprit::of(&self.message) else {
            return self;
        };
        let Ok(doc) = DeTable::parse(src) else {
            return self;
        };
        let Some(DeValue::Table(table)) = value_at(doc.get_ref(), &self.path) else {
            return self;
        };
        let mut hits = Vec::new();
        search_table(table, &self.path, &culprit, 0, &mut hits);
        if matches!(culprit, Culprit::Key(_)) && hits.iter().any(|h| h.2 == 0) {
            hits.retain(|h| h.2 == 0);
        }
        if let [(path, offset, _)] = hits.as_slice() {
            self.position = Some(line_col(src, *offset));
            self.path = path.clone();
        }
        self
    }
}

/// What a serde or unit-parser message says is wrong: an unknown key, or the
/// offending value.
#[derive(Debug, PartialEq)]
enum Culprit<'m> {
    Key(&'m str),
    Str(&'m str),
    Int(&'m str),
    Float(&'m str),
    Bool(bool),
}

impl<'m> Culprit<'m> {
    fn of(msg: &'m str) -> Option<Self> {
        let ticked = |rest: &'m str| rest.split('`').next();
        let quoted = |rest: &'m str| rest.split('"').next();
        if let Some(r) = msg.strip_prefix("unknown field `") {
            return ticked(r).map(Culprit::Key);
        }
        if let Some(r) = msg.strip_prefix("unknown variant `") {
            return ticked(r).map(Culprit::Str);
        }
        let r = msg
            .strip_prefix("invalid type: ")
            .or_else(|| msg.strip_prefix("invalid value: "));
        if let Some(r) = r {
            if let Some(r) = r.strip_prefix("string \"") {
                return quoted(r).map(Culprit::Str);
            }
            if let Some(r) = r.strip_prefix("integer `") {
                return ticked(r).map(Culprit::Int);
            }
            if let Some(r) = r.strip_prefix("floating point `") {
                return ticked(r).map(Culprit::Float);
            }
            if let Some(r) = r.strip_prefix("boolean `") {
                return ticked(r).and_then(|b| b.parse().ok()).map(Culprit::Bool);
            }
            return None;
        }
        // The unit parsers' messages begin with the offending text: "`10Mxbps`
        // is not a rate", "`-2ms` is negative", "`2000000s` is out of range".
        msg.strip_prefix('`').and_then(ticked).map(Culprit::Str)
    }

    fn matches(&self, v: &DeValue) -> bool {
        match (self, v) {
            (Culprit::Str(s), DeValue::String(x)) => x.as_ref() == *s,
            (Culprit::Int(n), DeValue::Integer(x)) => {
                let (Ok(a), Some(b)) = (
                    n.parse::<i128>(),
                    i128::from_str_radix(&x.as_str().replace('_', ""), x.radix()).ok(),
                ) else {
                    return false;
                };
                a == b
            }
            (Culprit::Float(f), DeValue::Float(x)) => {
                let b: Option<f64> = x.as_str().replace('_', "").parse().ok();
                f.parse::<f64>().ok().zip(b).is_some_and(|(a, b)| a == b)
            }
            (Culprit::Bool(b), DeValue::Boolean(x)) => b == x,
            _ => false,
        }
    }
}

/// Every key under `t` (at `path`) that `c` points at: (key path, byte offset
/// of the key, depth below the searched table).
fn search_table(
    t: &DeTable,
    path: &str,
    c: &Culprit,
    depth: usize,
    hits: &mut Vec<(String, usize, usize)>,
) {
    for (key, v) in t.iter() {
        let name = key.get_ref().as_ref();
        let at = if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}.{name}")
        };
        let hit = match c {
            Culprit::Key(k) => name == *k,
            _ => c.matches(v.get_ref()),
        };
        if hit {
            hits.push((at.clone(), key.span().start, depth));
        }
        search_value(v.get_ref(), &at, c, depth + 1, hits);
    }
}

fn search_value(
    v: &DeValue,
    path: &str,
    c: &Culprit,
    depth: usize,
    hits: &mut Vec<(String, usize, usize)>,
) {
    match v {
        DeValue::Table(t) => search_table(t, path, c, depth, hits),
        DeValue::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                let at = format!("{path}[{i}]");
                if !matches!(c, Culprit::Key(_)) && c.matches(item.get_ref()) {
                    hits.push((at.clone(), item.span().start, depth));
                }
                search_value(item.get_ref(), &at, c, depth, hits);
            }
        }
        _ => {}
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((l, c)) = self.position {
            write!(f, "line {l}, column {c}: ")?;
        }
        let message = tidy_numbers(&self.message);
        if self.path.is_empty() {
            write!(f, "{message}")
        } else {
            write!(f, "{}: {message}", self.path)
        }
    }
}

/// `msg` with every decimal numeral longer than 20 characters rewritten by
/// [`sim_core::fmt_num`]: serde and `{}` print an `f64` such as `1e300` in
/// all its 301 digits. Shorter numerals (every `u64`) and digits that are
/// part of a word (a name such as `f123...`) stay as written.
fn tidy_numbers(msg: &str) -> String {
    let b = msg.as_bytes();
    let mut out = String::with_capacity(msg.len());
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
        let mut end = i;
        while end < b.len() && (b[end].is_ascii_digit() || b[end] == b'.') {
            end += 1;
        }
        // A trailing dot ends the sentence, not the numeral: leave it there.
        while b[end - 1] == b'.' {
            end -= 1;
        }
        let word = |j: usize| b[j].is_ascii_alphanumeric() || b[j] == b'_';
        let inside_a_word = (start > 0 && word(start - 1)) || (end < b.len() && word(end));
        let numeral = &msg[start..end];
        if end - start > 20 && !inside_a_word {
            if let Ok(x) = numeral.parse::<f64>() {
                out.push_str(&msg[copied..start]);
                out.push_str(&sim_core::fmt_num(x));
                copied = end;
            }
        }
        i = end;
    }
    out.push_str(&msg[copied..]);
    out
}

impl std::error::Error for ScenarioError {}

/// 1-based (line, column) of byte offset `off`.
pub fn line_col(src: &str, off: usize) -> (usize, usize) {
    let off = off.min(src.len());
    let before = &src[..off];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Split `a.b[3].c` into segments: `Key("a")`, `Key("b")`, `Index(3)`, `Key("c")`.
fn segments(path: &str) -> Vec<Seg<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Seg::Key(key));
        }
        for idx in rest.split('[').filter(|s| !s.is_empty()) {
            if let Ok(i) = idx.trim_end_matches(']').parse() {
                out.push(Seg::Index(i));
            }
        }
    }
    out
}

enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// Byte offset of the deepest part of `path` that exists in the document.
fn find_path(src: &str, path: &str) -> Option<usize> {
    let doc = DeTable::parse(src).ok()?;
    walk(doc.get_ref(), path).0
}

/// The value at `path`, if every part of it exists.
fn value_at<'a, 'i>(doc: &'a DeTable<'i>, path: &str) -> Option<&'a DeValue<'i>> {
    walk(doc, path).1
}

/// Follow `path` from the document's root: the byte offset of the deepest
/// part that exists (a key's name, an array element), and the value at the
/// whole path if every part exists.
fn walk<'a, 'i>(doc: &'a DeTable<'i>, path: &str) -> (Option<usize>, Option<&'a DeValue<'i>>) {
    let mut best = None;
    let mut table: Option<&DeTable> = Some(doc);
    let mut value: Option<&DeValue> = None;
    for seg in segments(path) {
        match seg {
            Seg::Key(k) => {
                let t = match (table, value) {
                    (Some(t), _) => t,
                    (None, Some(DeValue::Table(t))) => t,
                    _ => return (best, None),
                };
                let Some((key, v)) = t.iter().find(|(key, _)| key.get_ref().as_ref() == k) else {
                    return (best, None);
                };
                best = Some(key.span().start);
                table = None;
                value = Some(v.get_ref());
            }
            Seg::Index(i) => {
                let Some(DeValue::Array(a)) = value else {
                    return (best, None);
                };
                let Some(v) = a.get(i) else {
                    return (best, None);
                };
                best = Some(v.span().start);
                table = None;
                value = Some(v.get_ref());
            }
        }
    }
    (best, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "[run]\nduration = \"10s\"\n\n[[links]]\nfrom = \"a\"\n\n[[links]]\nfrom = \"b\"\nalgo = { kind = \"threshold\", k_pkts = 0 }\n";

    #[test]
    fn errors_locate_nested_array_keys() {
        let e = ScenarioError::new("links[1].algo.k_pkts", "bad").locate(SRC);
        assert_eq!(e.position, Some((9, 30)));
        assert_eq!(
            e.to_string(),
            "line 9, column 30: links[1].algo.k_pkts: bad"
        );
    }

    #[test]
    fn errors_fall_back_to_the_deepest_existing_key() {
        let e = ScenarioError::new("links[0].capacity", "missing").locate(SRC);
        // links[0] exists (its `[[links]]` header is line 4), capacity does not.
        assert_eq!(e.position.map(|p| p.0), Some(4));
    }

    #[test]
    fn long_numerals_in_messages_are_shortened() {
        let huge = format!("{}", 1e300_f64);
        let tiny = format!("{}", -1e-300_f64);
        let e = ScenarioError::new("run.seed", format!("invalid type: floating point `{huge}`"));
        assert_eq!(
            e.to_string(),
            "run.seed: invalid type: floating point `1e300`"
        );
        let e = ScenarioError::new(
            "k",
            format!("{tiny} is out of range; 18446744073709551615 max"),
        );
        assert_eq!(
            e.to_string(),
            "k: -1e-300 is out of range; 18446744073709551615 max"
        );
        let name = format!("no group named `g{huge}`; `{huge}x`");
        assert_eq!(ScenarioError::new("", name.clone()).to_string(), name);
        let e = ScenarioError::new("", "line 3: 0.25 and 12.5.");
        assert_eq!(e.to_string(), "line 3: 0.25 and 12.5.");
        // A long numeral that ends a sentence keeps the sentence's full stop.
        let e = ScenarioError::new("k", format!("{huge} is too large. Use less."));
        assert_eq!(e.to_string(), "k: 1e300 is too large. Use less.");
        let e = ScenarioError::new("k", format!("too large: {huge}."));
        assert_eq!(e.to_string(), "k: too large: 1e300.");
    }

    #[test]
    fn errors_inside_a_tagged_table_narrow_to_the_culprit_key() {
        let src = "[t]\nkind = \"k\"\na = 7\nb = 0x10\n\n[t.sub]\nc = 2.5\nd = true\ne = [\"x\", \"y\"]\n";
        let at = |msg: &str| {
            let e = ScenarioError {
                path: "t".into(),
                position: Some((1, 1)),
                message: msg.into(),
            }
            .narrow(src);
            (e.path, e.position)
        };
        assert_eq!(
            at("invalid type: integer `7`, expected a string"),
            ("t.a".into(), Some((3, 1)))
        );
        assert_eq!(
            at("invalid value: integer `16`, expected u8"),
            ("t.b".into(), Some((4, 1)))
        );
        assert_eq!(
            at("invalid type: floating point `2.5`, expected u32"),
            ("t.sub.c".into(), Some((7, 1)))
        );
        assert_eq!(
            at("invalid type: boolean `true`, expected f64"),
            ("t.sub.d".into(), Some((8, 1)))
        );
        assert_eq!(
            at("invalid type: string \"y\", expected f64"),
            ("t.sub.e[1]".into(), Some((9, 11)))
        );
        assert_eq!(
            at("unknown field `d`, expected `z`"),
            ("t.sub.d".into(), Some((8, 1)))
        );
        // Nothing matches, or the message names no culprit: the error stays.
        assert_eq!(
            at("invalid type: integer `8`, expected f64"),
            ("t".into(), Some((1, 1)))
        );
        assert_eq!(at("missing field `z`"), ("t".into(), Some((1, 1))));
    }

    #[test]
    fn line_col_counts_from_one() {
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }
}
