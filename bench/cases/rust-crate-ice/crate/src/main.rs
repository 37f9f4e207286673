//! wordstat: reads text, counts words and numbers, and prints a short report.
mod config;
mod report;
mod stats;
mod text;

use config::Config;
use stats::Stats;
use text::tokenize::Lexer;

const SAMPLE: &str = "The quick brown fox jumps over the lazy dog. The dog sleeps; \
                      3 foxes, 12 dogs! Don't wake the dog: 7 cats are watching.";

fn main() {
    let config = Config::from_args(std::env::args().skip(1));
    let input = match &config.path {
        Some(path) => std::fs::read_to_string(path).unwrap_or_default(),
        None => SAMPLE.to_string(),
    };
    let mut stats = Stats::default();
    for token in Lexer::new(&text::normalize::fold(&input, &config)) {
        stats.add(&token);
    }
    print!("{}", report::render(&stats, &config));
    if stats.is_empty() {
        report::report_empty();
    }
}
