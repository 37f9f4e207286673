//! The lexer: words, numbers and punctuation.
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Token {
    Word(String),
    Number(i64),
    Punct(char),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Word(w) => write!(f, "{}", w),
            Token::Number(n) => write!(f, "#{}", n),
            Token::Punct(c) => write!(f, "'{}'", c),
        }
    }
}

pub struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
}

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str) -> Self {
        Lexer { chars: text.chars().peekable() }
    }

    fn take_while<F: Fn(char) -> bool>(&mut self, first: char, keep: F) -> String {
        let mut out = String::new();
        out.push(first);
        while let Some(&c) = self.chars.peek() {
            if !keep(c) {
                break;
            }
            out.push(c);
            self.chars.next();
        }
        out
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        loop {
            let c = self.chars.next()?;
            if c.is_whitespace() {
                continue;
            }
            if c.is_ascii_digit() {
                let digits = self.take_while(c, |d| d.is_ascii_digit());
                return Some(Token::Number(digits.parse().unwrap_or(0)));
            }
            if c.is_alphabetic() {
                let word = self.take_while(c, |d| d.is_alphanumeric() || d == '\'');
                return Some(Token::Word(word));
            }
            return Some(Token::Punct(c));
        }
    }
}
