//! Name normalisation: how a rig bone name meets a table name (`docs/mappings.md`).
//!
//! ```
//! use humanoid::mapping::normalize::{key, Side};
//! let prefixes = ["mixamorig"];
//! assert_eq!(key("mixamorig:LeftUpLeg", &prefixes), key("LeftUpLeg", &[]));
//! assert_eq!(key("mixamorig_LeftUpLeg", &prefixes).side, Side::Left);
//! assert_eq!(key("upper_arm.L", &[]), key("L_UpperArm", &[]));
//! assert_eq!(key("Bip01 L Thigh", &["bip"]).core, "thigh");
//! assert_eq!(key("左腕", &[]).side, Side::Left);
//! ```

/// Which side a name says its bone is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// No side marker.
    None,
    /// `l`, `left`, `左`.
    Left,
    /// `r`, `right`, `右`.
    Right,
}

/// A normalised name: the side marker and the rest, lower case, without separators.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// The side marker found.
    pub side: Side,
    /// The other tokens, lower-cased and joined.
    pub core: String,
}

/// Names longer than this match no table name (the longest rig names are under 100 bytes); they
/// get a key of their own without being normalised, so a file of megabyte names costs no
/// more to map than one of short names.
pub const MAX_NAME_BYTES: usize = 1024;

/// Normalises `name`: strips the first matching prefix, splits into tokens, takes out one side
/// marker, lower-cases and joins the rest.
///
/// ```
/// use humanoid::mapping::normalize::{key, Side};
/// let k = key("mixamorig:LeftUpLeg", &["mixamorig:"]);
/// assert_eq!((k.side, k.core.as_str()), (Side::Left, "upleg"));
/// ```
pub fn key(name: &str, prefixes: &[&str]) -> Key {
    if name.len() > MAX_NAME_BYTES {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        name.hash(&mut hasher);
        // A control character no normalised table name holds, and the name's hash.
        let core = format!("\u{1}{:016x}", hasher.finish());
        return Key {
            side: Side::None,
            core,
        };
    }
    let ascii = fold_full_width(name);
    let stripped = strip_prefix(&ascii, prefixes);
    let mut tokens = tokens(stripped);
    let mut side = Side::None;
    // A leading 左 / 右 (MMD) is a side marker.
    if let Some(first) = tokens.first_mut() {
        for (mark, s) in [('左', Side::Left), ('右', Side::Right)] {
            if let Some(rest) = first.strip_prefix(mark) {
                side = s;
                *first = rest.to_owned();
                break;
            }
        }
    }
    if side == Side::None {
        // Prefer a marker at either end, then anywhere.
        let n = tokens.len();
        let candidates = [0, n.saturating_sub(1)].into_iter().chain(0..n);
        for i in candidates {
            if let Some(s) = tokens.get(i).and_then(|t| side_of(t)) {
                side = s;
                tokens.remove(i);
                break;
            }
        }
    }
    let core = tokens.concat().to_lowercase();
    Key { side, core }
}

fn side_of(token: &str) -> Option<Side> {
    let lower = token.to_lowercase();
    if LEFT_WORDS.contains(&lower.as_str()) {
        Some(Side::Left)
    } else if RIGHT_WORDS.contains(&lower.as_str()) {
        Some(Side::Right)
    } else {
        None
    }
}

/// Whole tokens that say left: English, then French, German, Spanish, Italian, Portuguese,
/// Polish, Czech and Russian (the words riggers write in their own language: Blender's
/// `bras gauche`, `Arm_links`).
const LEFT_WORDS: &[&str] = &[
    "l",
    "left",
    "gauche",
    "links",
    "izquierda",
    "izquierdo",
    "izq",
    "sinistra",
    "sinistro",
    "esquerda",
    "esquerdo",
    "lewa",
    "lewy",
    "levá",
    "levý",
    "левая",
    "левый",
];

/// Whole tokens that say right (the languages of [`LEFT_WORDS`]).
const RIGHT_WORDS: &[&str] = &[
    "r",
    "right",
    "droite",
    "droit",
    "rechts",
    "derecha",
    "derecho",
    "der",
    "destra",
    "destro",
    "direita",
    "direito",
    "prawa",
    "prawy",
    "pravá",
    "pravý",
    "правая",
    "правый",
];

/// Full-width ASCII (U+FF01..U+FF5E) to ASCII, the ideographic space to a space.
fn fold_full_width(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            '\u{3000}' => ' ',
            c => c,
        })
        .collect()
}

/// Removes the first prefix that matches (case-insensitive), with the digits after it and one
/// separator.
fn strip_prefix<'a>(name: &'a str, prefixes: &[&str]) -> &'a str {
    for prefix in prefixes {
        let Some(head) = name.get(..prefix.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(prefix) {
            continue;
        }
        let rest = name.get(prefix.len()..).unwrap_or("");
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        let rest = rest
            .strip_prefix(|c: char| matches!(c, ':' | '_' | '.' | '-' | ' '))
            .unwrap_or(rest);
        if !rest.is_empty() {
            return rest;
        }
    }
    name
}

/// Splits at separators, at lower-to-upper case changes and before the last capital of a
/// capital run followed by lower case.
fn tokens(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if matches!(c, ':' | '_' | '.' | '-' | ' ') {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && match prev {
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(char::is_lowercase),
                _ => false,
            };
        if boundary && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(side: Side, core: &str) -> Key {
        Key {
            side,
            core: core.into(),
        }
    }

    #[test]
    fn side_markers_in_every_style() {
        for name in [
            "upper_arm.L",
            "upper_arm_l",
            "L_UpperArm",
            "UpperArm.L",
            "LeftUpperArm",
            "upperarm-left",
        ] {
            assert_eq!(key(name, &[]), k(Side::Left, "upperarm"), "{name}");
        }
        assert_eq!(key("RightHand", &[]), k(Side::Right, "hand"));
        assert_eq!(key("lShldrBend", &[]), k(Side::Left, "shldrbend"));
        assert_eq!(key("LHipJoint", &[]), k(Side::Left, "hipjoint"));
        assert_eq!(key("J_Bip_L_UpperArm", &[]), k(Side::Left, "jbipupperarm"));
        assert_eq!(key("右ひじ", &[]), k(Side::Right, "ひじ"));
        // The `l` inside a word is not a side marker.
        assert_eq!(key("lowerarm", &[]), k(Side::None, "lowerarm"));
        assert_eq!(key("Hips", &[]), k(Side::None, "hips"));
    }

    #[test]
    fn prefixes_with_digits_and_separators() {
        let p = ["mixamorig"];
        for name in [
            "mixamorig:Hips",
            "mixamorig1:Hips",
            "mixamorig_Hips",
            "Hips",
        ] {
            assert_eq!(key(name, &p), k(Side::None, "hips"), "{name}");
        }
        assert_eq!(key("Bip001 L Thigh", &["bip"]), k(Side::Left, "thigh"));
        assert_eq!(key("Bip01 Pelvis", &["bip"]), k(Side::None, "pelvis"));
    }

    #[test]
    fn digits_and_full_width() {
        assert_eq!(key("Spine1", &[]), k(Side::None, "spine1"));
        assert_eq!(key("spine.001", &[]), k(Side::None, "spine001"));
        assert_eq!(key("左足ＩＫ", &[]), k(Side::Left, "足ik"));
    }
}
