//! Finds the code-shaped string literals (`"UPPER_SNAKE_CASE"`) in Rust source and says where
//! each stands: passed to a diagnostic call, set as a `code:` field, the value of a `const`, an
//! environment variable's name, or elsewhere. A small tokenizer (comments, strings, raw strings,
//! char literals and lifetimes), not a Rust parser: enough to read this crate's source.

/// Where a literal stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Context {
    /// An argument of a method call `.warn(`, `.info(`, `.error(`, `.push(` or `.note(`
    /// (`arg` counts from 0).
    Emit {
        /// The method.
        method: String,
        /// Which argument.
        arg: usize,
    },
    /// The value of a `code:` field in a struct literal.
    CodeField,
    /// Inside the value of `const NAME`.
    Const(String),
    /// The name of an environment variable (`env!(`, `var(`, `var_os(`, `.env(`).
    Env,
    /// Anywhere else.
    Other,
}

impl std::fmt::Display for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Context::Emit { method, arg } => write!(f, "argument {arg} of `.{method}(…)`"),
            Context::CodeField => f.write_str("a `code:` field"),
            Context::Const(name) => write!(f, "const {name}"),
            Context::Env => f.write_str("an environment variable"),
            Context::Other => f.write_str("a string literal"),
        }
    }
}

/// One code-shaped literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Found {
    /// Its text, without the quotes.
    pub code: String,
    /// 1-based line.
    pub line: usize,
    /// Where it stands.
    pub context: Context,
    /// Whether it is test code (inside a `#[cfg(test)] mod … { }`).
    pub in_test: bool,
}

/// The methods whose arguments are diagnostic codes.
pub(super) const EMITTERS: [&str; 5] = ["warn", "info", "error", "push", "note"];

/// Whether `s` looks like a diagnostic code: `[A-Z][A-Z0-9]*` words joined by `_`, two or more.
pub(super) fn code_shaped(s: &str) -> bool {
    let mut words = s.split('_');
    let first_ok = words.next().is_some_and(|w| {
        w.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && w.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    });
    let mut rest = 0;
    let rest_ok = words.all(|w| {
        rest += 1;
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    });
    first_ok && rest_ok && rest > 0
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    Str(String),
    Punct(char),
}

/// Splits `text` into identifiers, string literals and punctuation, with their lines; comments,
/// numbers, char literals and lifetimes are left out.
fn tokens(text: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let ident_char = |c: char| c.is_alphanumeric() || c == '_';
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && next == Some('/') {
            while chars.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            let start = line;
            let mut s = String::new();
            i += 1;
            while let Some(&c) = chars.get(i) {
                match c {
                    '\\' => {
                        if let Some(&e) = chars.get(i + 1) {
                            if e == '\n' {
                                line += 1;
                            }
                            s.push('\\');
                            s.push(e);
                        }
                        i += 2;
                    }
                    '"' => {
                        i += 1;
                        break;
                    }
                    _ => {
                        if c == '\n' {
                            line += 1;
                        }
                        s.push(c);
                        i += 1;
                    }
                }
            }
            out.push((Token::Str(s), start));
        } else if c == '\'' {
            // A char literal ('x', '\n', '\'') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while chars.get(i).is_some_and(|&c| c != '\'') {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ident_char(c) {
            let start = i;
            while chars.get(i).is_some_and(|&c| ident_char(c)) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // A raw string: r"…", r#"…"#, br"…".
            if (word == "r" || word == "br") && matches!(chars.get(i), Some('"' | '#')) {
                let mut hashes = 0;
                while chars.get(i + hashes) == Some(&'#') {
                    hashes += 1;
                }
                if chars.get(i + hashes) == Some(&'"') {
                    let begin = line;
                    i += hashes + 1;
                    let mut s = String::new();
                    while i < chars.len() {
                        let closes =
                            chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#'));
                        if closes {
                            i += hashes + 1;
                            break;
                        }
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        s.push(chars[i]);
                        i += 1;
                    }
                    out.push((Token::Str(s), begin));
                    continue;
                }
            }
            if !word.starts_with(|c: char| c.is_ascii_digit()) {
                out.push((Token::Ident(word), line));
            }
        } else {
            if !c.is_whitespace() {
                out.push((Token::Punct(c), line));
            }
            i += 1;
        }
    }
    out
}

/// One open bracket: the call it opens (if any), its argument count so far, whether it is the
/// block of a `#[cfg(test)]` item.
struct Open {
    call: Option<Call>,
    arg: usize,
    test: bool,
}

#[derive(Clone)]
enum Call {
    Method(String),
    Function(String),
    Macro(String),
}

/// Every code-shaped string literal of `text`, with where it stands.
pub(super) fn literals(text: &str) -> Vec<Found> {
    let tokens = tokens(text);
    let mut found = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    // `const NAME` being read, and the depth its `;` closes it at.
    let mut constant: Option<(String, usize)> = None;
    // Set by `#[cfg(test)]` until the next item's `{` (or `;`).
    let mut cfg_test = false;
    let ident = |k: usize| match tokens.get(k) {
        Some((Token::Ident(s), _)) => Some(s.as_str()),
        _ => None,
    };
    let punct = |k: usize, p: char| matches!(tokens.get(k), Some((Token::Punct(c), _)) if *c == p);
    for (k, (token, line)) in tokens.iter().enumerate() {
        let in_test = stack.iter().any(|o| o.test);
        match token {
            Token::Punct('#')
                if punct(k + 1, '[')
                    && ident(k + 2) == Some("cfg")
                    && punct(k + 3, '(')
                    && ident(k + 4) == Some("test") =>
            {
                cfg_test = true;
            }
            Token::Punct(open @ ('(' | '[' | '{')) => {
                let call = if *open != '(' || k == 0 {
                    None
                } else if punct(k - 1, '!') {
                    k.checked_sub(2)
                        .and_then(ident)
                        .map(|m| Call::Macro(m.to_owned()))
                } else {
                    ident(k - 1).map(|name| {
                        if k >= 2 && punct(k - 2, '.') {
                            Call::Method(name.to_owned())
                        } else {
                            Call::Function(name.to_owned())
                        }
                    })
                };
                // The block of a `#[cfg(test)]` item (the attribute's own brackets aside).
                let test = *open == '{' && std::mem::take(&mut cfg_test);
                stack.push(Open { call, arg: 0, test });
            }
            Token::Punct(')' | ']' | '}') => {
                stack.pop();
            }
            Token::Punct(',') => {
                if let Some(top) = stack.last_mut() {
                    top.arg += 1;
                }
            }
            Token::Punct(';') => {
                if constant.as_ref().is_some_and(|(_, d)| *d == stack.len()) {
                    constant = None;
                }
                // `#[cfg(test)] use …;` or `mod tests;`: the attribute ends with its item.
                cfg_test = false;
            }
            Token::Ident(word) if word == "const" => {
                if let Some(name) = ident(k + 1) {
                    constant = Some((name.to_owned(), stack.len()));
                }
            }
            Token::Str(s) if code_shaped(s) => {
                let top = stack.last();
                let context = match top.and_then(|o| o.call.clone().map(|c| (c, o.arg))) {
                    Some((Call::Macro(m), _)) if m == "env" || m == "option_env" => Context::Env,
                    Some((Call::Function(f), _)) if f == "var" || f == "var_os" => Context::Env,
                    Some((Call::Method(m), _)) if m == "env" => Context::Env,
                    Some((Call::Method(m), arg)) if EMITTERS.contains(&m.as_str()) => {
                        Context::Emit { method: m, arg }
                    }
                    _ if k >= 2 && punct(k - 1, ':') && ident(k - 2) == Some("code") => {
                        Context::CodeField
                    }
                    _ => match &constant {
                        Some((name, _)) => Context::Const(name.clone()),
                        None => Context::Other,
                    },
                };
                found.push(Found {
                    code: s.clone(),
                    line: *line,
                    context,
                    in_test,
                });
            }
            _ => {}
        }
    }
    found
}
