//! Tokens of Godot's value syntax, each with the byte offset it starts at.
//!
//! Whitespace (newlines included) separates tokens; `;` starts a comment that runs to the end
//! of the line. Strings take Godot's escapes (`\n \t \r \b \f \" \' \\ \uXXXX \UXXXXXX`) and
//! may span lines.

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `:`
    Colon,
    /// `,`
    Comma,
    /// `=`
    Equals,
    /// `"…"`
    Str(String),
    /// `&"…"`
    StrName(String),
    /// `^"…"`
    NodePath(String),
    /// A word: `true`, `Vector3`, `SubResource`, `Array`.
    Ident(String),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// The end of the text.
    Eof,
}

impl Token {
    /// How the token reads in a message.
    pub(super) fn describe(&self) -> String {
        match self {
            Token::LBracket => "`[`".into(),
            Token::RBracket => "`]`".into(),
            Token::LBrace => "`{`".into(),
            Token::RBrace => "`}`".into(),
            Token::LParen => "`(`".into(),
            Token::RParen => "`)`".into(),
            Token::Colon => "`:`".into(),
            Token::Comma => "`,`".into(),
            Token::Equals => "`=`".into(),
            Token::Str(_) => "a string".into(),
            Token::StrName(_) => "a StringName".into(),
            Token::NodePath(_) => "a NodePath".into(),
            Token::Ident(word) => format!("`{word}`"),
            Token::Int(_) | Token::Float(_) => "a number".into(),
            Token::Eof => "the end of the file".into(),
        }
    }
}

/// A lexing problem at a byte offset.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LexError {
    /// Where.
    pub at: usize,
    /// What.
    pub message: String,
}

fn fail<T>(at: usize, message: impl Into<String>) -> Result<T, LexError> {
    Err(LexError {
        at,
        message: message.into(),
    })
}

/// A cursor over the text.
#[derive(Debug, Clone)]
pub(super) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `text`.
    pub(super) fn new(text: &'a str) -> Lexer<'a> {
        Lexer { text, pos: 0 }
    }

    /// The byte offset of the cursor.
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    /// The next character, not consumed.
    pub(super) fn peek_char(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek_char()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Skips whitespace and `;` comments.
    pub(super) fn skip_space(&mut self) {
        while let Some(c) = self.peek_char() {
            if c.is_whitespace() {
                self.bump();
            } else if c == ';' {
                while let Some(c) = self.bump() {
                    if c == '\n' {
                        break;
                    }
                }
            } else {
                break;
            }
        }
    }

    /// Skips spaces and tabs only (not newlines).
    pub(super) fn skip_inline_space(&mut self) {
        while matches!(self.peek_char(), Some(' ' | '\t' | '\r')) {
            self.bump();
        }
    }

    /// The raw text up to (not including) the first character for which `stop` holds, or the
    /// end; consumed.
    pub(super) fn take_until(&mut self, stop: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        while let Some(c) = self.peek_char() {
            if stop(c) {
                break;
            }
            self.bump();
        }
        self.text.get(start..self.pos).unwrap_or("")
    }

    /// Consumes `c` if it is next.
    pub(super) fn eat(&mut self, c: char) -> bool {
        if self.peek_char() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// The next token after any space, with its offset.
    pub(super) fn next_token(&mut self) -> Result<(usize, Token), LexError> {
        self.skip_space();
        let at = self.pos;
        let Some(c) = self.peek_char() else {
            return Ok((at, Token::Eof));
        };
        let single = match c {
            '[' => Some(Token::LBracket),
            ']' => Some(Token::RBracket),
            '{' => Some(Token::LBrace),
            '}' => Some(Token::RBrace),
            '(' => Some(Token::LParen),
            ')' => Some(Token::RParen),
            ':' => Some(Token::Colon),
            ',' => Some(Token::Comma),
            '=' => Some(Token::Equals),
            _ => None,
        };
        if let Some(token) = single {
            self.bump();
            return Ok((at, token));
        }
        let token = match c {
            '"' => Token::Str(self.string()?),
            '&' | '^' => {
                self.bump();
                if self.peek_char() != Some('"') {
                    return fail(at, format!("expected a string after `{c}`"));
                }
                let text = self.string()?;
                if c == '&' {
                    Token::StrName(text)
                } else {
                    Token::NodePath(text)
                }
            }
            c if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => self.number()?,
            c if c.is_alphabetic() || c == '_' => {
                let word = self.take_until(|c| !(c.is_alphanumeric() || c == '_'));
                Token::Ident(word.to_owned())
            }
            other => return fail(at, format!("unexpected character {other:?}")),
        };
        Ok((at, token))
    }

    /// A quoted string at the cursor (the cursor is on the opening `"`).
    pub(super) fn string(&mut self) -> Result<String, LexError> {
        let open = self.pos;
        self.bump();
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                return fail(
                    open,
                    "unterminated string: no closing `\"` before the end of the file",
                );
            };
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let escape_at = self.pos - 1;
                    let Some(e) = self.bump() else {
                        return fail(
                            open,
                            "unterminated string: no closing `\"` before the end of the file",
                        );
                    };
                    match e {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'a' => out.push('\u{7}'),
                        'v' => out.push('\u{b}'),
                        '"' | '\'' | '\\' => out.push(e),
                        'u' | 'U' => {
                            let digits = if e == 'u' { 4 } else { 6 };
                            let ch = self.unicode_escape(escape_at, digits)?;
                            out.push(ch);
                        }
                        other => {
                            return fail(
                                escape_at,
                                format!("unknown escape `\\{other}` in a string"),
                            )
                        }
                    }
                }
                c => out.push(c),
            }
        }
    }

    fn hex(&mut self, escape_at: usize, digits: usize) -> Result<u32, LexError> {
        let mut value: u32 = 0;
        for _ in 0..digits {
            match self.peek_char().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    self.bump();
                    value = value * 16 + d;
                }
                None => {
                    return fail(
                        escape_at,
                        format!("a unicode escape needs {digits} hexadecimal digits"),
                    )
                }
            }
        }
        Ok(value)
    }

    fn unicode_escape(&mut self, escape_at: usize, digits: usize) -> Result<char, LexError> {
        let first = self.hex(escape_at, digits)?;
        let code = if (0xD800..0xDC00).contains(&first) {
            // A UTF-16 high surrogate: the low half must follow as `\uXXXX`.
            if !(self.eat('\\') && self.eat('u')) {
                return fail(
                    escape_at,
                    "a high surrogate must be followed by `\\u` and a low one",
                );
            }
            let low = self.hex(escape_at, 4)?;
            if !(0xDC00..0xE000).contains(&low) {
                return fail(escape_at, "invalid low surrogate in a unicode escape");
            }
            0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
        } else {
            first
        };
        match char::from_u32(code) {
            Some(c) => Ok(c),
            None => fail(escape_at, format!("U+{code:X} is not a character")),
        }
    }

    /// A number at the cursor: `[+-]digits[.digits][e[+-]digits]`.
    fn number(&mut self) -> Result<Token, LexError> {
        let at = self.pos;
        if matches!(self.peek_char(), Some('-' | '+')) {
            self.bump();
        }
        let mut float = false;
        let mut digits = false;
        while let Some(c) = self.peek_char() {
            match c {
                '0'..='9' => digits = true,
                '.' => float = true,
                'e' | 'E' => {
                    float = true;
                    self.bump();
                    if matches!(self.peek_char(), Some('-' | '+')) {
                        self.bump();
                    }
                    continue;
                }
                _ => break,
            }
            self.bump();
        }
        let text = self.text.get(at..self.pos).unwrap_or("");
        if !digits {
            return fail(at, format!("expected a number, found {text:?}"));
        }
        if float {
            match text.parse::<f64>() {
                Ok(f) => Ok(Token::Float(f)),
                Err(_) => fail(at, format!("{text:?} is not a number")),
            }
        } else {
            match text.parse::<i64>() {
                Ok(i) => Ok(Token::Int(i)),
                Err(_) => fail(at, format!("{text} does not fit a 64-bit integer")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<Token> {
        let mut lexer = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let (_, t) = lexer.next_token().unwrap();
            if t == Token::Eof {
                return out;
            }
            out.push(t);
        }
    }

    #[test]
    fn numbers_keep_int_and_float_apart() {
        assert_eq!(
            tokens("3 -1 0.5 1e-07 -2.5E3 .25"),
            [
                Token::Int(3),
                Token::Int(-1),
                Token::Float(0.5),
                Token::Float(1e-7),
                Token::Float(-2500.0),
                Token::Float(0.25)
            ]
        );
    }

    #[test]
    fn strings_take_godot_escapes_and_span_lines() {
        assert_eq!(
            tokens(r#""a\"b\\c\n\u00e9\U01F600" &"Left Arm" ^"a/b""#),
            [
                Token::Str("a\"b\\c\n\u{e9}\u{1F600}".into()),
                Token::StrName("Left Arm".into()),
                Token::NodePath("a/b".into())
            ]
        );
        assert_eq!(tokens("\"two\nlines\""), [Token::Str("two\nlines".into())]);
        assert_eq!(
            tokens(r#""\ud83d\ude00""#),
            [Token::Str("\u{1F600}".into())]
        );
    }

    #[test]
    fn comments_run_to_the_end_of_the_line() {
        assert_eq!(
            tokens("; a comment\n[ ] ; more\n="),
            [Token::LBracket, Token::RBracket, Token::Equals]
        );
    }

    #[test]
    fn bad_input_names_the_offset() {
        let mut lexer = Lexer::new("  \"open");
        assert_eq!(lexer.next_token().unwrap_err().at, 2);
        let mut lexer = Lexer::new("x \"\\q\"");
        lexer.next_token().unwrap();
        assert_eq!(lexer.next_token().unwrap_err().at, 3);
        let mut lexer = Lexer::new("99999999999999999999");
        assert!(lexer.next_token().is_err());
        let mut lexer = Lexer::new("-x");
        assert!(lexer.next_token().is_err());
        let mut lexer = Lexer::new("@");
        assert!(lexer.next_token().is_err());
    }
}
