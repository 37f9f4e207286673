//! Text folded before it is tokenized: case, dashes and quotes.
use crate::config::Config;

pub fn fold(text: &str, config: &Config) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{2013}' | '\u{2014}' => '-',
            c => c,
        };
        if config.fold_case {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    if !config.keep_numbers {
        out.retain(|c| !c.is_ascii_digit());
    }
    out
}
