//! The raw BVH model: the HIERARCHY as a flat list of joints and the MOTION as a table of
//! numbers, parsed with line:column positions and every limit checked before allocating.
//!
//! ## Overview
//!
//! [`parse`] reads the grammar below and nothing else; turning the result into the canonical
//! model (units, quaternions, tracks) is `read.rs`'s job.
//!
//! ```text
//! HIERARCHY
//! ROOT name { OFFSET x y z  CHANNELS n c₁ … cₙ  (JOINT name { … } | End Site { OFFSET x y z })* }
//! (ROOT … )*
//! MOTION
//! Frames: n
//! Frame Time: seconds
//! one line per frame, one number per channel, joints in HIERARCHY order
//! ```
//!
//! A joint name is the rest of its line (a `{` ending it opens the block). `OFFSET` is required
//! in every block, `CHANNELS` is optional (none means no channels); a channel name is compared
//! ignoring ASCII case. Blank lines between motion rows are skipped.

use std::path::Path;

use super::channel::Channel;
use super::lexer::{Position, Scanner, Token};
use crate::error::Error;

/// Limits checked while parsing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The deepest nesting of blocks (ROOT is depth 1).
    pub max_depth: usize,
    /// The most joints (ROOT, JOINT and End Site blocks together).
    pub max_joints: usize,
    /// The most motion values (frames × channels).
    pub max_values: usize,
}

/// One ROOT, JOINT or End Site block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParsedJoint {
    /// The name (End Sites: empty).
    pub name: String,
    /// The index of the enclosing block; `None` for a ROOT.
    pub parent: Option<usize>,
    /// The OFFSET, in file units.
    pub offset: [f64; 3],
    /// The channels, in the order of the CHANNELS line.
    pub channels: Vec<Channel>,
    /// Where this joint's first value sits in a motion row.
    pub first_value: usize,
    /// Whether this is an End Site.
    pub end_site: bool,
    /// Where the block's keyword is.
    pub at: Position,
}

/// A parsed BVH file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Document {
    /// Every block, in file order (parents before children).
    pub joints: Vec<ParsedJoint>,
    /// Values per motion row (the sum of the channel counts).
    pub row_len: usize,
    /// The number of frames.
    pub frames: usize,
    /// Seconds per frame (finite, positive).
    pub frame_time: f64,
    /// Where the frame time is.
    pub frame_time_at: Position,
    /// `frames × row_len` values, row after row.
    pub values: Vec<f64>,
}

impl Document {
    /// Row `frame` of the motion (empty past the end).
    pub fn row(&self, frame: usize) -> &[f64] {
        let start = frame.saturating_mul(self.row_len);
        self.values
            .get(start..start.saturating_add(self.row_len))
            .unwrap_or(&[])
    }
}

/// Parses a whole BVH file.
///
/// # Errors
/// [`Error::Invalid`] at the line and column of the first problem, saying what was expected.
pub(crate) fn parse(text: &str, file: &Path, limits: &Limits) -> Result<Document, Error> {
    let mut parser = Parser {
        scanner: Scanner::new(text),
        file,
    };
    parser.keyword("HIERARCHY")?;
    let (joints, row_len) = parser.hierarchy(limits)?;
    let motion = parser.motion(row_len, limits)?;
    Ok(Document {
        joints,
        row_len,
        frames: motion.frames,
        frame_time: motion.frame_time,
        frame_time_at: motion.frame_time_at,
        values: motion.values,
    })
}

/// A block being read.
struct Open {
    joint: usize,
    has_offset: bool,
    has_channels: bool,
}

struct Motion {
    frames: usize,
    frame_time: f64,
    frame_time_at: Position,
    values: Vec<f64>,
}

struct Parser<'a, 'p> {
    scanner: Scanner<'a>,
    file: &'p Path,
}

impl<'a> Parser<'a, '_> {
    fn error(&self, at: Position, message: impl Into<String>) -> Error {
        Error::invalid(self.file, at.location(), message)
    }

    /// The next word, or an error at the end of the text saying what was expected.
    fn word(&mut self, expected: &str) -> Result<Token<'a>, Error> {
        match self.scanner.word() {
            Some(token) => Ok(token),
            None => Err(self.error(
                self.scanner.position(),
                format!("unexpected end of file: expected {expected}"),
            )),
        }
    }

    fn keyword(&mut self, keyword: &str) -> Result<Token<'a>, Error> {
        let token = self.word(&format!("`{keyword}`"))?;
        if token.text == keyword {
            Ok(token)
        } else {
            Err(self.error(
                token.at,
                format!("expected `{keyword}`, found {:?}", token.text),
            ))
        }
    }

    fn number(&mut self, what: &str) -> Result<f64, Error> {
        let token = self.word(what)?;
        self.parse_number(token, what)
    }

    fn parse_number(&self, token: Token<'_>, what: &str) -> Result<f64, Error> {
        match token.text.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(value),
            _ => Err(self.error(
                token.at,
                format!("expected {what} (a finite number), found {:?}", token.text),
            )),
        }
    }

    fn count(&self, token: Token<'_>, what: &str) -> Result<usize, Error> {
        token.text.parse::<usize>().map_err(|_| {
            self.error(
                token.at,
                format!("expected {what} (a whole number), found {:?}", token.text),
            )
        })
    }

    /// The HIERARCHY section up to and including the `MOTION` keyword: the joints and the
    /// number of values per motion row.
    fn hierarchy(&mut self, limits: &Limits) -> Result<(Vec<ParsedJoint>, usize), Error> {
        let mut joints: Vec<ParsedJoint> = Vec::new();
        let mut open: Vec<Open> = Vec::new();
        let mut row_len = 0usize;
        loop {
            let Some(token) = self.scanner.word() else {
                let at = self.scanner.position();
                return Err(match open.last().and_then(|o| joints.get(o.joint)) {
                    Some(joint) => self.error(
                        at,
                        format!(
                            "unexpected end of file: expected `}}` closing {} opened at {}",
                            describe(joint),
                            joint.at.label()
                        ),
                    ),
                    None => self.error(
                        at,
                        "missing MOTION section: the file ends after the HIERARCHY",
                    ),
                });
            };
            let Some(current) = open.last_mut() else {
                match token.text {
                    "ROOT" => {
                        let joint = self.block_header(token, None, &joints, limits)?;
                        joint.push(&mut joints, &mut open, row_len);
                        continue;
                    }
                    "MOTION" if !joints.is_empty() => return Ok((joints, row_len)),
                    "MOTION" => {
                        return Err(self.error(
                            token.at,
                            "expected ROOT before MOTION: the HIERARCHY has no joints",
                        ))
                    }
                    other => {
                        let expected = if joints.is_empty() {
                            "`ROOT`"
                        } else {
                            "`ROOT` or `MOTION`"
                        };
                        return Err(
                            self.error(token.at, format!("expected {expected}, found {other:?}"))
                        );
                    }
                }
            };
            let joint_index = current.joint;
            let Some(joint) = joints.get_mut(joint_index) else {
                return Err(self.error(token.at, "internal: open block out of range"));
            };
            match token.text {
                "OFFSET" => {
                    if current.has_offset {
                        return Err(
                            self.error(token.at, format!("second OFFSET in {}", describe(joint)))
                        );
                    }
                    current.has_offset = true;
                    for component in &mut joint.offset {
                        *component = self.number("an OFFSET component")?;
                    }
                }
                "CHANNELS" => {
                    if joint.end_site {
                        return Err(self.error(
                            token.at,
                            "an End Site has no CHANNELS: expected OFFSET or `}`",
                        ));
                    }
                    if current.has_channels {
                        return Err(
                            self.error(token.at, format!("second CHANNELS in {}", describe(joint)))
                        );
                    }
                    current.has_channels = true;
                    joint.channels = self.channels()?;
                    joint.first_value = row_len;
                    row_len = row_len.saturating_add(joint.channels.len());
                }
                "JOINT" | "End" => {
                    if joint.end_site {
                        return Err(self.error(
                            token.at,
                            format!(
                                "an End Site has no children: expected OFFSET or `}}`, found {:?}",
                                token.text
                            ),
                        ));
                    }
                    if open.len() >= limits.max_depth {
                        return Err(self.error(
                            token.at,
                            format!(
                                "joints nest deeper than {} levels (the limit)",
                                limits.max_depth
                            ),
                        ));
                    }
                    let new = self.block_header(token, Some(joint_index), &joints, limits)?;
                    new.push(&mut joints, &mut open, row_len);
                }
                "}" => {
                    if !current.has_offset {
                        return Err(self.error(
                            token.at,
                            format!("expected OFFSET in {} before `}}`", describe(joint)),
                        ));
                    }
                    open.pop();
                }
                other => {
                    return Err(self.error(
                        token.at,
                        format!(
                        "expected OFFSET, CHANNELS, JOINT, End Site or `}}` in {}, found {other:?}",
                        describe(joint)
                    ),
                    ))
                }
            }
        }
    }

    /// After `ROOT`, `JOINT` or `End`: the name (or `Site`) and the opening brace.
    fn block_header(
        &mut self,
        keyword: Token<'a>,
        parent: Option<usize>,
        joints: &[ParsedJoint],
        limits: &Limits,
    ) -> Result<NewBlock, Error> {
        if joints.len() >= limits.max_joints {
            return Err(self.error(
                keyword.at,
                format!(
                    "more than {} joints and End Sites (the limit)",
                    limits.max_joints
                ),
            ));
        }
        let end_site = keyword.text == "End";
        let (name, rest) = if end_site {
            match self.scanner.word_on_line() {
                Some(site) if site.text == "Site" => {}
                Some(other) => {
                    return Err(self.error(
                        other.at,
                        format!("expected `Site` after `End`, found {:?}", other.text),
                    ))
                }
                None => {
                    return Err(self.error(self.scanner.position(), "expected `Site` after `End`"))
                }
            }
            (String::new(), self.scanner.rest_of_line().map(|t| t.text))
        } else {
            let Some(line) = self.scanner.rest_of_line() else {
                return Err(self.error(
                    self.scanner.position(),
                    format!("expected a joint name after {}", keyword.text),
                ));
            };
            match line.text.strip_suffix('{') {
                Some(name) if !name.trim().is_empty() => (name.trim_end().to_owned(), Some("{")),
                Some(_) => {
                    return Err(self.error(
                        line.at,
                        format!("expected a joint name after {}", keyword.text),
                    ))
                }
                None => (line.text.to_owned(), None),
            }
        };
        match rest {
            Some("{") => {}
            None => {
                self.keyword("{")?;
            }
            Some(other) => {
                return Err(self.error(
                    keyword.at,
                    format!("expected `{{` after End Site, found {other:?}"),
                ))
            }
        }
        Ok(NewBlock(ParsedJoint {
            name,
            parent,
            offset: [0.0; 3],
            channels: Vec::new(),
            first_value: 0,
            end_site,
            at: keyword.at,
        }))
    }

    /// After `CHANNELS`: the count and the names.
    fn channels(&mut self) -> Result<Vec<Channel>, Error> {
        let token = self.word("a channel count")?;
        let count = self.count(token, "a channel count")?;
        if count > Channel::ALL.len() {
            return Err(self.error(
                token.at,
                format!("{count} channels: a joint has at most 6 (Xposition … Zrotation)"),
            ));
        }
        let mut channels = Vec::with_capacity(count);
        for _ in 0..count {
            let token = self.word("a channel name")?;
            let channel = token
                .text
                .parse::<Channel>()
                .map_err(|e| self.error(token.at, e.to_string()))?;
            if channels.contains(&channel) {
                return Err(self.error(token.at, format!("channel {channel} is listed twice")));
            }
            channels.push(channel);
        }
        Ok(channels)
    }

    /// After `MOTION`: the frame count, the frame time and the rows.
    fn motion(&mut self, row_len: usize, limits: &Limits) -> Result<Motion, Error> {
        let (frames, frames_at) = {
            let token = self.prefixed("Frames:")?;
            (self.count(token, "a frame count")?, token.at)
        };
        let total = frames.saturating_mul(row_len);
        if total > limits.max_values {
            return Err(self.error(
                frames_at,
                format!(
                    "{frames} frames × {row_len} channels = {total} values, more than the limit of {}",
                    limits.max_values
                ),
            ));
        }
        self.keyword("Frame")?;
        let token = self.prefixed("Time:")?;
        let frame_time = self.parse_number(token, "a frame time in seconds")?;
        if frame_time <= 0.0 {
            return Err(self.error(
                token.at,
                format!("frame time {frame_time}: expected a positive number of seconds"),
            ));
        }
        if let Some(extra) = self.scanner.word_on_line() {
            return Err(self.error(
                extra.at,
                format!(
                    "expected the end of the line after the frame time, found {:?}",
                    extra.text
                ),
            ));
        }
        let values = self.rows(frames, row_len, frames_at)?;
        Ok(Motion {
            frames,
            frame_time,
            frame_time_at: token.at,
            values,
        })
    }

    /// The word after `prefix` (`Frames:` 12 or `Frames:12`).
    fn prefixed(&mut self, prefix: &str) -> Result<Token<'a>, Error> {
        let token = self.word(&format!("`{prefix}`"))?;
        if token.text == prefix {
            return self.word(&format!("a value after `{prefix}`"));
        }
        match token.text.strip_prefix(prefix) {
            Some(value) => Ok(Token {
                text: value,
                at: Position {
                    line: token.at.line,
                    column: token.at.column + prefix.chars().count(),
                },
            }),
            None => Err(self.error(
                token.at,
                format!("expected `{prefix}`, found {:?}", token.text),
            )),
        }
    }

    /// The motion rows after the frame time line.
    fn rows(
        &mut self,
        frames: usize,
        row_len: usize,
        frames_at: Position,
    ) -> Result<Vec<f64>, Error> {
        // `frames × row_len` was bounded by the caller.
        let mut values = Vec::with_capacity(frames.saturating_mul(row_len));
        let mut rows = 0usize;
        while self.scanner.next_line() {
            let Some(first) = self.scanner.word_on_line() else {
                continue;
            };
            rows += 1;
            if rows > frames {
                return Err(self.error(
                    first.at,
                    format!(
                        "more motion rows than `Frames: {frames}` (declared at {})",
                        frames_at.label()
                    ),
                ));
            }
            let mut count = 0usize;
            let mut token = Some(first);
            while let Some(t) = token {
                count += 1;
                if count > row_len {
                    return Err(self.error(
                        t.at,
                        format!("frame {rows}: more than {row_len} values (one per channel)"),
                    ));
                }
                values.push(self.parse_number(t, "a channel value")?);
                token = self.scanner.word_on_line();
            }
            if count < row_len {
                return Err(self.error(
                    self.scanner.position(),
                    format!("frame {rows}: {count} values, expected {row_len} (one per channel)"),
                ));
            }
        }
        if rows < frames && row_len > 0 {
            return Err(self.error(
                self.scanner.position(),
                format!(
                    "`Frames: {frames}` (at {}) but {rows} motion rows follow",
                    frames_at.label()
                ),
            ));
        }
        Ok(values)
    }
}

/// A block read by [`Parser::block_header`], to be pushed on the open stack.
struct NewBlock(ParsedJoint);

impl NewBlock {
    fn push(self, joints: &mut Vec<ParsedJoint>, open: &mut Vec<Open>, row_len: usize) {
        let mut joint = self.0;
        joint.first_value = row_len;
        open.push(Open {
            joint: joints.len(),
            has_offset: false,
            has_channels: false,
        });
        joints.push(joint);
    }
}

/// `ROOT Hips`, `JOINT LeftKnee` or `End Site`, for messages.
fn describe(joint: &ParsedJoint) -> String {
    match (joint.end_site, joint.parent) {
        (true, _) => "End Site".to_owned(),
        (false, None) => format!("ROOT {}", joint.name),
        (false, Some(_)) => format!("JOINT {}", joint.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::bvh::channel::Axis;

    const LIMITS: Limits = Limits {
        max_depth: 256,
        max_joints: 65_536,
        max_values: 1 << 20,
    };

    fn parse_str(text: &str) -> Result<Document, Error> {
        parse(text, Path::new("t.bvh"), &LIMITS)
    }

    #[test]
    fn parses_a_small_file() {
        let doc = parse_str(
            "HIERARCHY\nROOT Hips {\n OFFSET 1 2 3\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n \
             JOINT Left Leg\n {\n  OFFSET 0 -1 0\n  CHANNELS 3 Zrotation Yrotation Xrotation\n  End Site\n  {\n   OFFSET 0 -2 0\n  }\n }\n}\n\
             MOTION\nFrames: 2\nFrame Time: .5\n1 2 3 4 5 6 7 8 9\n\n-1 -2 -3 -4 -5 -6 -7 -8 -9\n",
        )
        .unwrap();
        assert_eq!(doc.joints.len(), 3);
        let leg = &doc.joints[1];
        assert_eq!(leg.name, "Left Leg");
        assert_eq!(leg.parent, Some(0));
        assert_eq!(leg.first_value, 6);
        assert_eq!(leg.channels[1], Channel::Rotation(Axis::Y));
        assert!(doc.joints[2].end_site);
        assert_eq!(doc.joints[2].offset, [0.0, -2.0, 0.0]);
        assert_eq!((doc.frames, doc.frame_time, doc.row_len), (2, 0.5, 9));
        assert_eq!(doc.row(1)[8], -9.0);
        assert_eq!(doc.row(2), &[] as &[f64]);
    }
}
