//! Counting what the lexer produces.
use std::collections::HashMap;

use crate::text::tokenize::Token;

/// A value that can sum itself up; every type gets the trivial summary.
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
    pub punct: usize,
}

impl Stats {
    pub fn add(&mut self, token: &Token) {
        match token {
            Token::Word(w) => *self.counts.entry(w.clone()).or_insert(0) += 1,
            Token::Number(n) => self.numbers.push(*n),
            Token::Punct(_) => self.punct += 1,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty() && self.numbers.is_empty() && self.punct == 0
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

    pub fn largest(&self) -> Option<i64> {
        self.numbers.iter().copied().max()
    }
}
