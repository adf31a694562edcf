//! Sweep constraints: a small expression language over the parameters' values.
//!
//! ```text
//! expr    := or
//! or      := and (("||" | "or") and)*
//! and     := not (("&&" | "and") not)*
//! not     := ("!" | "not") not | compare
//! compare := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum)?
//! sum     := product (("+" | "-") product)*
//! product := unary (("*" | "/" | "%") unary)*
//! unary   := "-" unary | power
//! power   := atom ("^" unary)?
//! atom    := number | "string" | name | func "(" expr ("," expr)* ")" | "(" expr ")"
//! func    := sqrt | ln | log10 | exp | abs | min | max
//! ```
//!
//! A name stands for a parameter's value: its number in base units (bits/s,
//! seconds, bytes, packets) when it is a quantity, else its text, so both
//! `buffer >= 2 * flows` and `cc == "new_reno"` work; `name.key` reaches into a
//! table value (`marker.kind == "red"` for `{ kind = "red", preset = "B" }`).
//!
//! `^` is the power, tighter than the unary minus and right-associative, as in
//! mathematics: `-p ^ 2` is `-(p^2)`, `2 ^ 3 ^ 2` is `2^9`, and `p ^ -0.5`
//! takes the minus into the exponent. The functions take numbers: `sqrt`,
//! `ln` (natural logarithm), `log10`, `exp` and `abs` one, `min` and `max` two
//! or more, so a closed-form law of a swept parameter reads as written in the
//! paper: `max(1.2247 * p ^ -0.5, 0.12 * p ^ -0.835)`.

use std::fmt;

/// A value during evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A number.
    Num(f64),
    /// A string.
    Str(String),
    /// A truth value.
    Bool(bool),
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Num(x) => write!(f, "{x}"),
            Val::Str(s) => write!(f, "\"{s}\""),
            Val::Bool(b) => write!(f, "{b}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Str(String),
    Name(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
}

/// A parsed constraint.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A literal.
    Lit(Val),
    /// A parameter.
    Var(String),
    /// A unary operator (`-`, `!`) and its operand.
    Unary(&'static str, Box<Expr>),
    /// A binary operator and its operands.
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// A function (one of [`FUNCTIONS`]) and its arguments.
    Call(&'static str, Vec<Expr>),
}

const OPS: [&str; 17] = [
    "<=", ">=", "==", "!=", "&&", "||", "<", ">", "+", "-", "*", "/", "%", "^", "!", "=", "|",
];

/// The functions, with their fewest and most arguments.
pub const FUNCTIONS: [(&str, usize, usize); 7] = [
    ("sqrt", 1, 1),
    ("ln", 1, 1),
    ("log10", 1, 1),
    ("exp", 1, 1),
    ("abs", 1, 1),
    ("min", 2, usize::MAX),
    ("max", 2, usize::MAX),
];

fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' {
            out.push(Tok::LParen);
            i += 1;
        } else if c == ')' {
            out.push(Tok::RParen);
            i += 1;
        } else if c == ',' {
            out.push(Tok::Comma);
            i += 1;
        } else if c == '"' || c == '\'' {
            let end = src[i + 1..]
                .find(c)
                .ok_or_else(|| format!("unterminated string at character {}", i + 1))?;
            out.push(Tok::Str(src[i + 1..i + 1 + end].to_string()));
            i += end + 2;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < b.len()
                && ((b[i] as char).is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || ((b[i] == b'+' || b[i] == b'-') && matches!(b[i - 1], b'e' | b'E')))
            {
                i += 1;
            }
            let t = &src[start..i];
            let x = t
                .parse::<f64>()
                .map_err(|_| format!("`{t}` is not a number"))?;
            out.push(Tok::Num(x));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            // A name may reach into a table value: `marker.kind`.
            while i < b.len()
                && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
            {
                i += 1;
            }
            out.push(match &src[start..i] {
                "and" => Tok::Op("&&"),
                "or" => Tok::Op("||"),
                "not" => Tok::Op("!"),
                w => Tok::Name(w.to_string()),
            });
        } else {
            let op = OPS
                .iter()
                .find(|op| src[i..].starts_with(**op))
                .ok_or_else(|| format!("unexpected `{c}` at character {}", i + 1))?;
            if *op == "=" || *op == "|" {
                return Err(format!(
                    "unexpected `{op}` at character {}; did you mean `{op}{op}`?",
                    i + 1
                ));
            }
            out.push(Tok::Op(op));
            i += op.len();
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek_op(&self, ops: &[&'static str]) -> Option<&'static str> {
        match self.toks.get(self.pos) {
            Some(Tok::Op(o)) if ops.contains(o) => Some(o),
            _ => None,
        }
    }

    fn binary(
        &mut self,
        ops: &[&'static str],
        next: fn(&mut Parser) -> Result<Expr, String>,
    ) -> Result<Expr, String> {
        let mut lhs = next(self)?;
        while let Some(op) = self.peek_op(ops) {
            self.pos += 1;
            let rhs = next(self)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn or(&mut self) -> Result<Expr, String> {
        self.binary(&["||"], Parser::and)
    }
    fn and(&mut self) -> Result<Expr, String> {
        self.binary(&["&&"], Parser::not)
    }
    fn not(&mut self) -> Result<Expr, String> {
        if self.peek_op(&["!"]).is_some() {
            self.pos += 1;
            return Ok(Expr::Unary("!", Box::new(self.not()?)));
        }
        self.compare()
    }
    fn compare(&mut self) -> Result<Expr, String> {
        let lhs = self.sum()?;
        if let Some(op) = self.peek_op(&["<", "<=", ">", ">=", "==", "!="]) {
            self.pos += 1;
            let rhs = self.sum()?;
            return Ok(Expr::Binary(op, Box::new(lhs), Box::new(rhs)));
        }
        Ok(lhs)
    }
    fn sum(&mut self) -> Result<Expr, String> {
        self.binary(&["+", "-"], Parser::product)
    }
    fn product(&mut self) -> Result<Expr, String> {
        self.binary(&["*", "/", "%"], Parser::unary)
    }
    fn unary(&mut self) -> Result<Expr, String> {
        if self.peek_op(&["-"]).is_some() {
            self.pos += 1;
            return Ok(Expr::Unary("-", Box::new(self.unary()?)));
        }
        self.power()
    }
    fn power(&mut self) -> Result<Expr, String> {
        let base = self.atom()?;
        if self.peek_op(&["^"]).is_some() {
            self.pos += 1;
            // The exponent may carry its own minus and power: right-associative.
            let exponent = self.unary()?;
            return Ok(Expr::Binary("^", Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }
    /// The arguments of function `name` after its name: `(a, b, ...)`.
    fn call(&mut self, name: &str) -> Result<Expr, String> {
        let Some(&(f, lo, hi)) = FUNCTIONS.iter().find(|f| f.0 == name) else {
            let known: Vec<&str> = FUNCTIONS.iter().map(|f| f.0).collect();
            return Err(format!(
                "unknown function `{name}`; the functions are: {}",
                known.join(", ")
            ));
        };
        self.pos += 1; // the "("
        let mut args = vec![self.or()?];
        loop {
            match self.toks.get(self.pos) {
                Some(Tok::Comma) => {
                    self.pos += 1;
                    args.push(self.or()?);
                }
                Some(Tok::RParen) => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(format!("missing `)` after the arguments of `{f}`")),
            }
        }
        if args.len() < lo || args.len() > hi {
            let want = if lo == hi {
                format!("{lo}")
            } else {
                format!("at least {lo}")
            };
            return Err(format!(
                "`{f}` takes {want} argument(s), not {}",
                args.len()
            ));
        }
        Ok(Expr::Call(f, args))
    }
    fn atom(&mut self) -> Result<Expr, String> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        match t {
            Some(Tok::Num(x)) => Ok(Expr::Lit(Val::Num(x))),
            Some(Tok::Str(s)) => Ok(Expr::Lit(Val::Str(s))),
            Some(Tok::Name(n)) if n == "true" => Ok(Expr::Lit(Val::Bool(true))),
            Some(Tok::Name(n)) if n == "false" => Ok(Expr::Lit(Val::Bool(false))),
            Some(Tok::Name(n)) if self.toks.get(self.pos) == Some(&Tok::LParen) => self.call(&n),
            Some(Tok::Name(n)) => Ok(Expr::Var(n)),
            Some(Tok::LParen) => {
                let e = self.or()?;
                match self.toks.get(self.pos) {
                    Some(Tok::RParen) => {
                        self.pos += 1;
                        Ok(e)
                    }
                    _ => Err("missing `)`".into()),
                }
            }
            Some(t) => Err(format!("unexpected {t:?} where a value was expected")),
            None => Err("the expression ends where a value was expected".into()),
        }
    }
}

impl Expr {
    /// Parse a constraint.
    pub fn parse(src: &str) -> Result<Expr, String> {
        let mut p = Parser {
            toks: lex(src)?,
            pos: 0,
        };
        let e = p.or()?;
        if p.pos != p.toks.len() {
            return Err(format!(
                "unexpected {:?} after a complete expression",
                p.toks[p.pos]
            ));
        }
        Ok(e)
    }

    /// Names the expression refers to, in order of first use.
    pub fn names(&self) -> Vec<String> {
        let mut v = Vec::new();
        self.collect_names(&mut v);
        v
    }

    fn collect_names(&self, v: &mut Vec<String>) {
        match self {
            Expr::Lit(_) => {}
            Expr::Var(n) => {
                if !v.contains(n) {
                    v.push(n.clone());
                }
            }
            Expr::Unary(_, a) => a.collect_names(v),
            Expr::Binary(_, a, b) => {
                a.collect_names(v);
                b.collect_names(v);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.collect_names(v)),
        }
    }

    /// Evaluate with `lookup` giving each name's value.
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Option<Val>) -> Result<Val, String> {
        let num = |v: Val, op: &str| match v {
            Val::Num(x) => Ok(x),
            v => Err(format!("`{op}` needs numbers; got {v}")),
        };
        let truth = |v: Val, op: &str| match v {
            Val::Bool(b) => Ok(b),
            v => Err(format!("`{op}` needs true/false; got {v}")),
        };
        Ok(match self {
            Expr::Lit(v) => v.clone(),
            Expr::Var(n) => lookup(n).ok_or_else(|| format!("unknown name `{n}`"))?,
            Expr::Unary("-", a) => Val::Num(-num(a.eval(lookup)?, "-")?),
            Expr::Unary(_, a) => Val::Bool(!truth(a.eval(lookup)?, "!")?),
            Expr::Call(f, args) => {
                let xs = args
                    .iter()
                    .map(|a| num(a.eval(lookup)?, f))
                    .collect::<Result<Vec<f64>, String>>()?;
                Val::Num(match *f {
                    "sqrt" => xs[0].sqrt(),
                    "ln" => xs[0].ln(),
                    "log10" => xs[0].log10(),
                    "exp" => xs[0].exp(),
                    "abs" => xs[0].abs(),
                    "min" => xs.iter().copied().fold(f64::INFINITY, f64::min),
                    _ => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                })
            }
            Expr::Binary(op @ ("&&" | "||"), a, b) => {
                let x = truth(a.eval(lookup)?, op)?;
                // Both sides are evaluated so that a typo in either is reported.
                let y = truth(b.eval(lookup)?, op)?;
                Val::Bool(if *op == "&&" { x && y } else { x || y })
            }
            Expr::Binary(op @ ("==" | "!="), a, b) => {
                let (x, y) = (a.eval(lookup)?, b.eval(lookup)?);
                let eq = match (&x, &y) {
                    (Val::Num(p), Val::Num(q)) => p == q,
                    (Val::Str(p), Val::Str(q)) => p == q,
                    (Val::Bool(p), Val::Bool(q)) => p == q,
                    _ => return Err(format!("cannot compare {x} with {y}")),
                };
                Val::Bool(eq == (*op == "=="))
            }
            Expr::Binary(op, a, b) => {
                let x = num(a.eval(lookup)?, op)?;
                let y = num(b.eval(lookup)?, op)?;
                match *op {
                    "<" => Val::Bool(x < y),
                    "<=" => Val::Bool(x <= y),
                    ">" => Val::Bool(x > y),
                    ">=" => Val::Bool(x >= y),
                    "+" => Val::Num(x + y),
                    "-" => Val::Num(x - y),
                    "*" => Val::Num(x * y),
                    "/" => Val::Num(x / y),
                    "^" => Val::Num(x.powf(y)),
                    _ => Val::Num(x % y),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(src: &str) -> Result<Val, String> {
        let e = Expr::parse(src)?;
        e.eval(&|n| match n {
            "n" => Some(Val::Num(10.0)),
            "c" => Some(Val::Num(1e7)),
            "cc" => Some(Val::Str("new_reno".into())),
            _ => None,
        })
    }

    #[test]
    fn arithmetic_follows_the_usual_precedence() {
        assert_eq!(eval("1 + 2 * 3 - 4 / 2"), Ok(Val::Num(5.0)));
        assert_eq!(eval("-(1 + 2) * 2"), Ok(Val::Num(-6.0)));
        assert_eq!(eval("n % 4"), Ok(Val::Num(2.0)));
        assert_eq!(eval("c / n >= 1e6"), Ok(Val::Bool(true)));
    }

    #[test]
    fn logic_and_string_comparison_work() {
        assert_eq!(eval("n > 5 && cc == \"new_reno\""), Ok(Val::Bool(true)));
        assert_eq!(eval("n < 5 or not (cc != 'new_reno')"), Ok(Val::Bool(true)));
        assert_eq!(eval("!(n == 10) || false"), Ok(Val::Bool(false)));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(eval("m > 1").unwrap_err().contains("unknown name `m`"));
        assert!(eval("n = 1").unwrap_err().contains("did you mean `==`"));
        assert!(eval("(n > 1").unwrap_err().contains("missing `)`"));
        assert!(eval("cc > 1").unwrap_err().contains("needs numbers"));
        assert!(eval("n >").unwrap_err().contains("ends where a value"));
        assert!(eval("n 1").unwrap_err().contains("after a complete"));
    }

    #[test]
    fn powers_bind_tighter_than_minus_and_group_to_the_right() {
        assert_eq!(eval("2 ^ 3"), Ok(Val::Num(8.0)));
        assert_eq!(eval("-2 ^ 2"), Ok(Val::Num(-4.0)));
        assert_eq!(eval("2 ^ 3 ^ 2"), Ok(Val::Num(512.0)));
        assert_eq!(eval("4 ^ -0.5"), Ok(Val::Num(0.5)));
        assert_eq!(eval("3 * 2 ^ 2"), Ok(Val::Num(12.0)));
        assert_eq!(eval("(1 + 1) ^ 2 / 2"), Ok(Val::Num(2.0)));
        // A law of a swept parameter: Mathis et al. at n = 10 (a "loss rate").
        let Ok(Val::Num(w)) = eval("sqrt(3 / (2 * n))") else {
            panic!()
        };
        assert!((w - 0.3873).abs() < 1e-4, "{w}");
    }

    #[test]
    fn functions_take_numbers_and_their_arity_is_checked() {
        assert_eq!(eval("sqrt(16)"), Ok(Val::Num(4.0)));
        assert_eq!(eval("ln(exp(2))"), Ok(Val::Num(2.0)));
        assert_eq!(eval("log10(1e-3)"), Ok(Val::Num(-3.0)));
        assert_eq!(eval("abs(-n)"), Ok(Val::Num(10.0)));
        assert_eq!(eval("max(1, n, 3)"), Ok(Val::Num(10.0)));
        assert_eq!(eval("min(n ^ 2, 7) + 1"), Ok(Val::Num(8.0)));
        assert!(eval("max(1)").unwrap_err().contains("at least 2"));
        assert!(eval("sqrt(1, 2)").unwrap_err().contains("takes 1"));
        assert!(eval("cbrt(8)").unwrap_err().contains("unknown function"));
        assert!(eval("sqrt(cc)").unwrap_err().contains("needs numbers"));
        assert!(eval("max(1, 2").unwrap_err().contains("missing `)`"));
        assert_eq!(Expr::parse("max(n, c) ^ 2").unwrap().names(), ["n", "c"]);
    }

    #[test]
    fn names_lists_the_parameters_used() {
        let e = Expr::parse("n * 2 < c && n > 1").unwrap();
        assert_eq!(e.names(), ["n", "c"]);
    }
}
