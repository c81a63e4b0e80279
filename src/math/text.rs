//! Text helpers shared by every layer: how far apart two names are ([`edit_distance`], for "did
//! you mean …?" suggestions) and where a byte offset stands in a text ([`line_column`],
//! [`Position`], [`LineIndex`]; every text reader, the mapping tables included, names the place
//! of a problem this way). The error location of a [`Position`] is made in `formats`
//! (`Position::location`, `Position::error`), since this leaf imports nothing of the crate.

/// The Levenshtein distance between `a` and `b`, in characters: the fewest insertions,
/// deletions and substitutions that turn one into the other. Linear memory in `b`.
///
/// ```
/// use humanoid::math::text::edit_distance;
/// assert_eq!(edit_distance("leftUpperArm", "leftUperArm"), 1);
/// assert_eq!(edit_distance("", "abc"), 3);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            current[j + 1] = (previous[j] + cost)
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

/// A 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Position {
    /// The position of byte `offset` in `text` (see [`line_column`]).
    pub fn of(text: &str, offset: usize) -> Position {
        let (line, column) = line_column(text, offset);
        Position { line, column }
    }

    /// As a diagnostic location: `line:column`.
    pub fn label(self) -> String {
        format!("{}:{}", self.line, self.column)
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`. An offset past the
/// end is the end; one inside a character backs up to that character's start.
///
/// ```
/// use humanoid::math::text::line_column;
/// assert_eq!(line_column("ab\ncdé\nf", 4), (2, 2));
/// ```
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..boundary(text, offset)).unwrap_or("");
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// `offset`, clamped to the text and backed up to a character boundary.
fn boundary(text: &str, offset: usize) -> usize {
    let mut end = offset.min(text.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// Line starts of a text, for many lookups ([`LineIndex::position`] answers as [`line_column`]
/// does, in logarithmic time plus at most [`LineIndex::STRIDE`] bytes: a file on one long line
/// with many notes costs linear time, not quadratic).
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// UTF-8 continuation bytes before each multiple of [`LineIndex::STRIDE`].
    continuations: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// The bytes between two checkpoints of the character count.
    pub const STRIDE: usize = 1024;

    /// The line starts of `text`.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let mut continuations = Vec::with_capacity(text.len() / Self::STRIDE + 1);
        let mut count = 0usize;
        for chunk in text.as_bytes().chunks(Self::STRIDE) {
            continuations.push(count);
            count += chunk.iter().filter(|b| is_continuation(**b)).count();
        }
        continuations.push(count);
        LineIndex {
            text,
            starts,
            continuations,
        }
    }

    /// The characters before byte `offset` (a character boundary).
    fn chars_before(&self, offset: usize) -> usize {
        let chunk = offset / Self::STRIDE;
        let from = chunk * Self::STRIDE;
        let before = self.continuations.get(chunk).copied().unwrap_or(0);
        let rest = self.text.as_bytes().get(from..offset).unwrap_or(&[]);
        let continuations = before + rest.iter().filter(|b| is_continuation(**b)).count();
        offset - continuations
    }

    /// The position of byte `offset`.
    pub fn position(&self, offset: usize) -> Position {
        let end = boundary(self.text, offset);
        let line = self.starts.partition_point(|&s| s <= end).max(1);
        let start = self.starts.get(line - 1).copied().unwrap_or(0);
        let column = self.chars_before(end) - self.chars_before(start);
        Position {
            line,
            column: column + 1,
        }
    }
}

/// A UTF-8 byte that continues a character (every character has exactly one other byte).
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let text = "ab\ncdé\nf";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 4), (2, 2));
        // After the two-byte é: column counts characters.
        assert_eq!(line_column(text, 7), (2, 4));
        assert_eq!(line_column(text, 8), (3, 1));
        assert_eq!(line_column(text, 999), (3, 2));
        assert_eq!(line_column(text, 6), (2, 3)); // inside é: backs up
        assert_eq!(line_column("", 3), (1, 1));
    }

    /// The index (Godot's parser) and the one-off lookup (H-Anim, the mapping tables) agree at
    /// every offset, character boundaries or not, past the end too.
    #[test]
    fn the_index_answers_as_the_lookup() {
        let long = "aé€\n".repeat(LineIndex::STRIDE) + &"ü".repeat(LineIndex::STRIDE * 2);
        for text in [
            "",
            "\n",
            "ab\ncdé\nf",
            "é\n\nü€x\n",
            "[a]\r\nb = 1\r\n",
            long.as_str(),
        ] {
            let index = LineIndex::new(text);
            for offset in 0..text.len() + 3 {
                assert_eq!(
                    index.position(offset),
                    Position::of(text, offset),
                    "{text:?} at {offset}"
                );
            }
        }
    }

    #[test]
    fn positions_read_as_locations() {
        let p = Position::of("a\nbc", 3);
        assert_eq!(p, Position { line: 2, column: 2 });
        assert_eq!(p.label(), "2:2");
    }

    #[test]
    fn distances_by_hand() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("leftuperarm", "leftupperarm"), 1);
        // Characters, not bytes: é is one substitution.
        assert_eq!(edit_distance("é", "e"), 1);
        assert_eq!(edit_distance("flaw", "lawn"), 2);
    }

    #[test]
    fn symmetric_and_bounded() {
        let words = [
            "",
            "a",
            "name",
            "nmae",
            "HumanoidRoot",
            "humanoid_root",
            "sacrum",
        ];
        for a in words {
            for b in words {
                let d = edit_distance(a, b);
                assert_eq!(d, edit_distance(b, a), "{a} {b}");
                assert!(d <= a.chars().count().max(b.chars().count()), "{a} {b}");
                assert_eq!(d == 0, a == b, "{a} {b}");
            }
        }
    }
}
