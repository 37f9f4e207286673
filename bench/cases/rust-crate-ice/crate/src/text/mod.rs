//! Turning raw text into tokens.
pub mod normalize;
pub mod tokenize;
