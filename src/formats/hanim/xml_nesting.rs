//! A linear scan of X3D XML for how deep its elements nest, run before the XML parser: the
//! parser and the scene walk recurse per level, so a file nested tens of thousands of levels
//! deep must be refused before either sees it. It also names where a truncated file ends
//! inside an element (the XML parser says only "unexpected end of stream").
//!
//! The scan knows just enough XML to count: start tags (quoted attribute values may hold `>`),
//! end tags, empty-element tags, comments, CDATA sections, processing instructions and the
//! DOCTYPE with its internal subset. Anything it does not understand it leaves to the parser.

use super::classic::ParseError;

/// Wrapper elements allowed above the scene's nodes (`X3D`, `Scene`, `HAnimHumanoid`, a few
/// `Transform`s): the scene walk's own limit names the node past `max_depth`; this scan only
/// keeps the parsers from recursing without bound.
pub(crate) const SLACK: usize = 8;

/// Refuses elements nested deeper than `max_depth` + [`SLACK`], naming the offset of the
/// first start tag past the limit; and a text that ends inside an element, a comment or a tag,
/// naming the end and where the open element started. An end tag that does not match its
/// start tag stops the scan: the XML parser names that mistake better.
pub(crate) fn check(text: &str, max_depth: usize) -> Result<(), ParseError> {
    scan(text, max_depth.saturating_add(SLACK))
}

/// The scan, refusing elements nested deeper than `max_depth` exactly.
fn scan(text: &str, max_depth: usize) -> Result<(), ParseError> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut innermost: Vec<usize> = Vec::new(); // start offsets, up to max_depth of them
    let mut at = 0usize;
    while let Some(step) = memchr(b'<', &bytes[at..]) {
        let start = at + step;
        let rest = &bytes[start..];
        let (end, kind) = if rest.starts_with(b"<!--") {
            (find(bytes, start + 4, b"-->"), Tag::Other)
        } else if rest.starts_with(b"<![CDATA[") {
            (find(bytes, start + 9, b"]]>"), Tag::Other)
        } else if rest.starts_with(b"<?") {
            (find(bytes, start + 2, b"?>"), Tag::Other)
        } else if rest.starts_with(b"<!") {
            (doctype_end(bytes, start + 2), Tag::Other)
        } else if rest.starts_with(b"</") {
            (tag_end(bytes, start + 2), Tag::Close)
        } else {
            (tag_end(bytes, start + 1), Tag::Open)
        };
        let Some(end) = end else {
            return Err(ParseError {
                at: text.len(),
                message: format!(
                    "the file ends inside the markup that starts at byte {start}: it is truncated"
                ),
            });
        };
        match kind {
            Tag::Open if bytes[end - 2] != b'/' => {
                depth += 1;
                if depth > max_depth {
                    return Err(ParseError {
                        at: start,
                        message: format!(
                            "elements nested deeper than {max_depth} levels (raise HUMANOID_MAX_DEPTH for a trusted file)"
                        ),
                    });
                }
                innermost.push(start);
            }
            Tag::Close => {
                depth = depth.saturating_sub(1);
                match innermost.pop() {
                    Some(open) if name_at(text, open + 1) == name_at(text, start + 2) => {}
                    _ => return Ok(()),
                }
            }
            Tag::Open | Tag::Other => {}
        }
        at = end;
    }
    if let Some(&open) = innermost.last() {
        let name: String = name_at(text, open + 1).chars().take(64).collect();
        return Err(ParseError {
            at: text.len(),
            message: format!(
                "the file ends inside <{name}> (opened at byte {open}) and {} other open element(s): it is truncated",
                innermost.len() - 1
            ),
        });
    }
    Ok(())
}

/// The tag name starting at `at`.
fn name_at(text: &str, at: usize) -> &str {
    let rest = text.get(at..).unwrap_or("");
    let end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '>' | '/'))
        .unwrap_or(rest.len());
    &rest[..end]
}

#[derive(Clone, Copy)]
enum Tag {
    Open,
    Close,
    Other,
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

/// The offset just past `pattern`, searching from `from`.
fn find(bytes: &[u8], from: usize, pattern: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(pattern.len())
        .position(|w| w == pattern)
        .map(|i| from + i + pattern.len())
}

/// The offset just past the `>` closing a tag, skipping quoted attribute values.
fn tag_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in bytes.get(from..)?.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b'>') => return Some(from + i + 1),
            _ => {}
        }
    }
    None
}

/// The offset just past a `<!DOCTYPE …>`, whose internal subset `[…]` may hold `>`.
fn doctype_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote = None;
    let mut subset = false;
    for (i, &b) in bytes.get(from..)?.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b'[') => subset = true,
            (None, b']') => subset = false,
            (None, b'>') if !subset => return Some(from + i + 1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_elements_not_markup() {
        let text = r#"<?xml version="1.0"?><!DOCTYPE X3D [ <!ENTITY a "<b>"> ]><!-- <a><a> -->
<X3D><Scene a='x>y' b="/>"><Group/><![CDATA[<c><c>]]></Scene></X3D>"#;
        assert!(scan(text, 2).is_ok());
        let error = scan(text, 1).unwrap_err();
        assert_eq!(&text[error.at..error.at + 6], "<Scene");
    }

    #[test]
    fn refuses_deep_nesting_at_the_first_tag_past_the_limit() {
        let depth = 100_000;
        let text = format!("{}{}", "<Group>".repeat(depth), "</Group>".repeat(depth));
        let error = check(&text, 256).unwrap_err();
        assert_eq!(error.at, (256 + SLACK) * 7);
        assert!(scan(&text, depth).is_ok());
    }

    #[test]
    fn a_mismatched_end_tag_is_left_to_the_parser() {
        assert!(check("<X3D><Group><Transform></Group>\n</X3D>", 10).is_ok());
    }

    #[test]
    fn names_a_truncated_file() {
        let error = check("<X3D><Scene><Group DEF='a'>", 10).unwrap_err();
        assert_eq!(error.at, 27);
        assert!(error.message.contains("<Group>"), "{}", error.message);
        assert!(error.message.contains("2 other"), "{}", error.message);
        let error = check("<X3D><!-- never closed", 10).unwrap_err();
        assert!(error.message.contains("byte 5"), "{}", error.message);
        assert!(check("<X3D", 10).is_err());
    }
}
