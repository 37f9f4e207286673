//! The report printed at the end.
mod shape;

pub use shape::report_empty;

use crate::config::Config;
use crate::stats::Stats;

pub fn render(stats: &Stats, config: &Config) -> String {
    let mut out = String::new();
    for (word, count) in stats.top(config.top) {
        out.push_str(&format!("{:>10} {}\n", word, count));
    }
    if let Some(m) = stats.mean() {
        out.push_str(&format!("mean of numbers: {:.2}\n", m));
    }
    if let Some(n) = stats.largest() {
        out.push_str(&format!("largest number: {}\n", n));
    }
    out.push_str(&format!("punctuation: {}\n", stats.punct));
    out
}
