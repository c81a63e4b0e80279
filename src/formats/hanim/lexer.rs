//! The words of ClassicVRML and VRML97, as nom parsers over `&str`.
//!
//! ## Overview
//!
//! - [`skip`]: whitespace, commas (which VRML counts as whitespace) and `#` comments;
//! - [`identifier`]: a node type, field, DEF or PROTO name (VRML97 §5.1.2: any character but
//!   controls, space, `" # ' , . [ \ ] { }` and `+ -` or a digit first);
//! - [`number`]: a decimal number with optional exponent, or a `0x` hexadecimal integer. A number
//!   must end where a word can end: `1.2.3` and `12abc` are refused, not read as two words;
//! - [`string`]: a double-quoted string with `\"` and `\\` escapes, possibly over several lines.
//!
//! Positions are byte offsets (the caller subtracts the rest's length from the text's); lines and
//! columns are computed only for messages.

use std::borrow::Cow;

use nom::branch::alt;
use nom::bytes::complete::{tag_no_case, take_while1};
use nom::character::complete::char;
use nom::combinator::{recognize, verify};
use nom::number::complete::recognize_float;
use nom::{IResult, Parser};

/// A word that could not be read: where (the rest of the input at the problem) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LexError<'a> {
    /// The input from the bad word on.
    pub rest: &'a str,
    /// What is wrong.
    pub message: String,
}

/// Whether `b` may appear in an identifier after its first character.
pub(crate) fn is_id_rest(b: u8) -> bool {
    !matches!(
        b,
        0x00..=0x20 | b'"' | b'#' | b'\'' | b',' | b'.' | b'[' | b'\\' | b']' | b'{' | b'}' | 0x7f
    )
}

/// Whether `b` may start an identifier.
pub(crate) fn is_id_first(b: u8) -> bool {
    is_id_rest(b) && !matches!(b, b'+' | b'-' | b'0'..=b'9')
}

/// Whether `b` may start a number.
pub(crate) fn is_number_start(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'+' | b'-' | b'.')
}

/// Skips whitespace, commas and comments; returns the rest.
pub(crate) fn skip(mut input: &str) -> &str {
    loop {
        let bytes = input.as_bytes();
        let mut i = 0;
        while bytes
            .get(i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | 0x0b | 0x0c))
        {
            i += 1;
        }
        if bytes.get(i) == Some(&b'#') {
            let end = bytes
                .get(i..)
                .and_then(|rest| rest.iter().position(|b| matches!(b, b'\n' | b'\r')))
                .map_or(bytes.len(), |p| i + p);
            input = input.get(end..).unwrap_or("");
            continue;
        }
        return input.get(i..).unwrap_or("");
    }
}

/// An identifier.
pub(crate) fn identifier(input: &str) -> IResult<&str, &str> {
    verify(
        take_while1(|c: char| !c.is_ascii() || is_id_rest(c as u8)),
        |word: &str| word.as_bytes().first().is_some_and(|&b| is_id_first(b)),
    )
    .parse(input)
}

/// A number word: decimal (`-1.5e3`, `.5`, `5.`) or hexadecimal (`0x1F`).
///
/// # Errors
/// The word is not a number, runs into letters or dots, or is not finite.
pub(crate) fn number(input: &str) -> Result<(&str, f64), LexError<'_>> {
    let not_a_number = || LexError {
        rest: input,
        message: format!("`{}` is not a number", word_at(input)),
    };
    let hex = matches!(
        input.as_bytes(),
        [b'0', b'x' | b'X', ..] | [b'+' | b'-', b'0', b'x' | b'X', ..]
    );
    let (rest, word) = if hex {
        let found: IResult<&str, &str> = recognize((
            nom::combinator::opt(alt((char('+'), char('-')))),
            tag_no_case("0x"),
            take_while1(|c: char| c.is_ascii_hexdigit()),
        ))
        .parse(input);
        found.map_err(|_| not_a_number())?
    } else {
        recognize_float::<&str, nom::error::Error<&str>>(input).map_err(|_| not_a_number())?
    };
    if rest
        .as_bytes()
        .first()
        .is_some_and(|&b| is_id_rest(b) || b == b'.')
    {
        return Err(not_a_number());
    }
    let value = if hex {
        super::interface::parse_number(word).map_err(|message| LexError {
            rest: input,
            message,
        })?
    } else {
        // `recognize_float` only lets decimal syntax through (no `inf`, no `NaN`).
        word.parse::<f64>().map_err(|_| not_a_number())?
    };
    if value.is_finite() {
        Ok((rest, value))
    } else {
        Err(LexError {
            rest: input,
            message: format!("`{word}` is not a finite number"),
        })
    }
}

/// The word at the start of `input` (up to whitespace or a delimiter), for messages.
pub(crate) fn word_at(input: &str) -> &str {
    let end = input
        .char_indices()
        .find(|&(_, c)| c.is_whitespace() || matches!(c, ',' | '[' | ']' | '{' | '}' | '"' | '#'))
        .map_or(input.len(), |(i, _)| i)
        .min(40);
    let mut end = end;
    while end > 0 && !input.is_char_boundary(end) {
        end -= 1;
    }
    input.get(..end).unwrap_or("")
}

/// A double-quoted string (the input starts at the opening quote).
///
/// # Errors
/// No closing quote before the end of the input.
pub(crate) fn string(input: &str) -> Result<(&str, Cow<'_, str>), LexError<'_>> {
    let body = input.get(1..).unwrap_or("");
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut owned: Option<String> = None;
    let mut copied = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                let rest = body.get(i + 1..).unwrap_or("");
                let value = match owned {
                    Some(mut s) => {
                        s.push_str(body.get(copied..i).unwrap_or(""));
                        Cow::Owned(s)
                    }
                    None => Cow::Borrowed(body.get(..i).unwrap_or("")),
                };
                return Ok((rest, value));
            }
            b'\\' => {
                let s = owned.get_or_insert_with(String::new);
                s.push_str(body.get(copied..i).unwrap_or(""));
                // The escaped character (any, usually `"` or `\`) is kept as it is.
                let next_len = body
                    .get(i + 1..)
                    .and_then(|r| r.chars().next())
                    .map_or(0, char::len_utf8);
                s.push_str(body.get(i + 1..i + 1 + next_len).unwrap_or(""));
                i += 1 + next_len;
                copied = i;
            }
            _ => i += 1,
        }
    }
    Err(LexError {
        rest: input,
        message: "the string has no closing quote".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_whitespace_commas_and_comments() {
        assert_eq!(skip("  ,\n# note\r\n\t x"), "x");
        assert_eq!(skip("# only a comment"), "");
        assert_eq!(skip(""), "");
    }

    #[test]
    fn identifiers() {
        assert_eq!(
            identifier("hanim_l_hip.set_rotation"),
            Ok((".set_rotation", "hanim_l_hip"))
        );
        assert_eq!(identifier("H-Anim:1 x"), Ok((" x", "H-Anim:1")));
        assert!(identifier("1abc").is_err());
        assert!(identifier("-x").is_err());
        assert_eq!(identifier("Jöint{"), Ok(("{", "Jöint")));
    }

    #[test]
    fn numbers() {
        assert_eq!(number("1.5 2"), Ok((" 2", 1.5)));
        assert_eq!(number("-.5e1]"), Ok(("]", -5.0)));
        assert_eq!(number("5.,6"), Ok((",6", 5.0)));
        assert_eq!(number("0x1F "), Ok((" ", 31.0)));
        assert_eq!(number("+3}"), Ok(("}", 3.0)));
        assert_eq!(
            number("1.2.3 x").unwrap_err().message,
            "`1.2.3` is not a number"
        );
        assert_eq!(
            number("12abc").unwrap_err().message,
            "`12abc` is not a number"
        );
        assert_eq!(number("-x").unwrap_err().message, "`-x` is not a number");
        assert_eq!(
            number("1e999").unwrap_err().message,
            "`1e999` is not a finite number"
        );
    }

    #[test]
    fn strings() {
        assert_eq!(string("\"abc\" x"), Ok((" x", Cow::Borrowed("abc"))));
        let (rest, s) = string(r#""a\"b\\c" y"#).unwrap();
        assert_eq!((rest, s.as_ref()), (" y", r#"a"b\c"#));
        assert_eq!(string("\"two\nlines\"").unwrap().1, "two\nlines");
        assert!(string("\"open").is_err());
    }
}
