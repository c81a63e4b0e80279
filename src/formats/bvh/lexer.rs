//! Splits BVH text into whitespace-separated words, each with its 1-based line and column.
//!
//! ## Overview
//!
//! BVH is line-oriented in two places (a joint name is the rest of its line; a motion row is
//! one line), and free-form elsewhere, so the [`Scanner`] offers both: [`Scanner::word`] skips
//! any whitespace, newlines included; [`Scanner::word_on_line`] stops at the end of the line;
//! [`Scanner::next_line`] moves to the start of the next one. Lines end at `\n`; a `\r` before
//! it is whitespace. Columns count characters, not bytes.

/// A word of the input and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    /// The word (never empty, no whitespace).
    pub text: &'a str,
    /// Where it starts.
    pub at: Position,
}

pub(crate) use crate::math::text::Position;

/// A cursor over BVH text.
#[derive(Debug, Clone)]
pub(crate) struct Scanner<'a> {
    text: &'a str,
    offset: usize,
    at: Position,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Scanner {
            text,
            offset: 0,
            at: Position { line: 1, column: 1 },
        }
    }

    /// Where the next character is.
    pub fn position(&self) -> Position {
        self.at
    }

    fn peek(&self) -> Option<char> {
        self.text
            .get(self.offset..)
            .and_then(|rest| rest.chars().next())
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.offset += c.len_utf8();
        if c == '\n' {
            self.at.line += 1;
            self.at.column = 1;
        } else {
            self.at.column += 1;
        }
        Some(c)
    }

    /// Skips whitespace, newlines included.
    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    /// Skips whitespace up to (not past) the end of the line.
    fn skip_line_space(&mut self) {
        while self.peek().is_some_and(|c| c != '\n' && c.is_whitespace()) {
            self.bump();
        }
    }

    /// Reads the word starting here (empty when at whitespace or the end).
    fn read_word(&mut self) -> Option<Token<'a>> {
        let start = self.offset;
        let at = self.at;
        while self.peek().is_some_and(|c| !c.is_whitespace()) {
            self.bump();
        }
        let text = self.text.get(start..self.offset).unwrap_or("");
        (!text.is_empty()).then_some(Token { text, at })
    }

    /// The next word, on this line or a later one; `None` at the end of the text.
    pub fn word(&mut self) -> Option<Token<'a>> {
        self.skip_whitespace();
        self.read_word()
    }

    /// The next word on this line; `None` at the end of the line (which is not consumed).
    pub fn word_on_line(&mut self) -> Option<Token<'a>> {
        self.skip_line_space();
        self.read_word()
    }

    /// The rest of this line, trimmed (its position is where the trimmed text starts); the
    /// line end is not consumed. `None` when only whitespace is left on the line.
    pub fn rest_of_line(&mut self) -> Option<Token<'a>> {
        self.skip_line_space();
        let start = self.offset;
        let at = self.at;
        while self.peek().is_some_and(|c| c != '\n') {
            self.bump();
        }
        let text = self.text.get(start..self.offset).unwrap_or("").trim_end();
        (!text.is_empty()).then_some(Token { text, at })
    }

    /// Moves past the end of the current line. Returns `false` at the end of the text.
    pub fn next_line(&mut self) -> bool {
        while let Some(c) = self.bump() {
            if c == '\n' {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    #[test]
    fn words_carry_line_and_column() {
        let mut s = Scanner::new("HIERARCHY\r\nROOT  Hips\n\t{\n");
        let w = s.word().unwrap();
        assert_eq!((w.text, w.at), ("HIERARCHY", pos(1, 1)));
        let w = s.word().unwrap();
        assert_eq!((w.text, w.at), ("ROOT", pos(2, 1)));
        let name = s.rest_of_line().unwrap();
        assert_eq!((name.text, name.at), ("Hips", pos(2, 7)));
        assert_eq!(s.word_on_line(), None);
        let w = s.word().unwrap();
        assert_eq!((w.text, w.at), ("{", pos(3, 2)));
        assert_eq!(s.word(), None);
    }

    #[test]
    fn lines_and_columns_count_characters() {
        let mut s = Scanner::new("é 1 2\n\n3");
        assert_eq!(s.word_on_line().unwrap().text, "é");
        assert_eq!(s.word_on_line().unwrap().at, pos(1, 3));
        assert_eq!(s.word_on_line().unwrap().text, "2");
        assert_eq!(s.word_on_line(), None);
        assert!(s.next_line());
        assert_eq!(s.word_on_line(), None);
        assert!(s.next_line());
        assert_eq!(s.word_on_line().unwrap().at, pos(3, 1));
        assert!(!s.next_line());
        assert_eq!(s.rest_of_line(), None);
    }
}
