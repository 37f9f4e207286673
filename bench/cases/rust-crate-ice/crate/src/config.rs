//! Command-line settings.

#[derive(Debug, Clone)]
pub struct Config {
    pub path: Option<String>,
    pub top: usize,
    pub fold_case: bool,
    pub keep_numbers: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { path: None, top: 5, fold_case: true, keep_numbers: true }
    }
}

impl Config {
    pub fn from_args<I: Iterator<Item = String>>(args: I) -> Self {
        let mut config = Config::default();
        let mut args = args.peekable();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--top" => {
                    if let Some(n) = args.next().and_then(|v| v.parse().ok()) {
                        config.top = n;
                    }
                }
                "--keep-case" => config.fold_case = false,
                "--no-numbers" => config.keep_numbers = false,
                _ => config.path = Some(arg),
            }
        }
        config
    }
}
