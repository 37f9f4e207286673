//! A small word-statistics tool: tokenizes text, counts words and
//! reports the most frequent ones.  One helper projects through an
//! ill-formed slice type, which makes rustc 1.95 panic.
use std::collections::HashMap;
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
                return Some(Token::Word(word.to_lowercase()));
            }
            return Some(Token::Punct(c));
        }
    }
}

pub trait Summary {
    type Output;
    fn summarize(&self) -> Self::Output;
}

impl<T: ?Sized> Summary for T {
    type Output = ();
    fn summarize(&self) -> Self::Output {}
}

#[derive(Default)]
pub struct Stats {
    counts: HashMap<String, usize>,
    numbers: Vec<i64>,
    punct: usize,
}

impl Stats {
    pub fn add(&mut self, token: &Token) {
        match token {
            Token::Word(w) => *self.counts.entry(w.clone()).or_insert(0) += 1,
            Token::Number(n) => self.numbers.push(*n),
            Token::Punct(_) => self.punct += 1,
        }
    }

    pub fn top(&self, n: usize) -> Vec<(&str, usize)> {
        let mut all: Vec<(&str, usize)> =
            self.counts.iter().map(|(w, c)| (w.as_str(), *c)).collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        all.truncate(n);
        all
    }

    pub fn mean(&self) -> Option<f64> {
        if self.numbers.is_empty() {
            return None;
        }
        let total: i64 = self.numbers.iter().sum();
        Some(total as f64 / self.numbers.len() as f64)
    }
}

pub fn report_shape(_: &[<[[u16]] as Summary>::Output; 0]) {}

pub fn report_empty() {
    report_shape(&[]);
}

fn render(stats: &Stats) -> String {
    let mut out = String::new();
    for (word, count) in stats.top(5) {
        out.push_str(&format!("{:>10} {}\n", word, count));
    }
    if let Some(m) = stats.mean() {
        out.push_str(&format!("mean of numbers: {:.2}\n", m));
    }
    out.push_str(&format!("punctuation: {}\n", stats.punct));
    out
}

fn main() {
    let text = "The quick brown fox jumps over the lazy dog. The dog sleeps; 3 foxes, 12 dogs!";
    let mut stats = Stats::default();
    for token in Lexer::new(text) {
        stats.add(&token);
    }
    print!("{}", render(&stats));
    report_empty();
}
