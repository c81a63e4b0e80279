//! The bounds every reader holds to, in one place: input sizes per kind of file and the nesting
//! depth of every recursive structure. Each can be raised for trusted large files through an
//! environment variable (`docs/limits.md` gives each number's reason).
//!
//! ```
//! use humanoid::io::Limits;
//!
//! let limits = Limits::from_lookup(|name| (name == "HUMANOID_MAX_TEXT_BYTES").then(|| "1G".to_owned()))?;
//! assert_eq!(limits.text_bytes, 1 << 30);
//! assert_eq!(limits.depth, Limits::DEFAULT.depth);
//! # Ok::<(), String>(())
//! ```

use std::sync::OnceLock;

/// Size and depth limits (bytes, levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A glTF, GLB, VRM or VRMA file, and each buffer or image file it names
    /// (`HUMANOID_MAX_BINARY_BYTES`).
    pub binary_bytes: u64,
    /// An H-Anim (after gunzip), BVH or Godot file (`HUMANOID_MAX_TEXT_BYTES`).
    pub text_bytes: u64,
    /// A mapping table (`HUMANOID_MAX_TABLE_BYTES`).
    pub table_bytes: u64,
    /// Nesting of X3D elements, VRML nodes, BVH joints and Godot values (`HUMANOID_MAX_DEPTH`).
    pub depth: usize,
}

/// The environment variables, with the field each sets.
pub const VARIABLES: [&str; 4] = [
    "HUMANOID_MAX_BINARY_BYTES",
    "HUMANOID_MAX_TEXT_BYTES",
    "HUMANOID_MAX_TABLE_BYTES",
    "HUMANOID_MAX_DEPTH",
];

impl Limits {
    /// The defaults (`docs/limits.md` says why each).
    pub const DEFAULT: Limits = Limits {
        binary_bytes: 2 << 30,
        text_bytes: 256 << 20,
        table_bytes: 1 << 20,
        depth: 256,
    };

    /// The limits of this process: the defaults, raised or lowered by the environment variables
    /// (read once). A variable that does not parse is ignored here; the command line refuses it
    /// up front through [`Limits::from_env`].
    pub fn get() -> &'static Limits {
        static LIMITS: OnceLock<Limits> = OnceLock::new();
        LIMITS.get_or_init(|| Limits::from_env().unwrap_or(Limits::DEFAULT))
    }

    /// The limits the environment sets.
    ///
    /// # Errors
    /// The variable and value that do not parse, and what was expected.
    pub fn from_env() -> Result<Limits, String> {
        Limits::from_lookup(|name| std::env::var(name).ok())
    }

    /// The limits `lookup` gives values for (a number of bytes with an optional `K`, `M` or `G`
    /// suffix, powers of 1024; the depth a plain number), the defaults elsewhere.
    ///
    /// # Errors
    /// The variable and value that do not parse, and what was expected.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Limits, String> {
        let mut limits = Limits::DEFAULT;
        let bytes = |name: &str, field: &mut u64| -> Result<(), String> {
            if let Some(value) = lookup(name) {
                *field = parse_size(&value).ok_or_else(|| {
                    format!("{name}={value:?}: expected a number of bytes such as 512M or 4G")
                })?;
            }
            Ok(())
        };
        bytes(VARIABLES[0], &mut limits.binary_bytes)?;
        bytes(VARIABLES[1], &mut limits.text_bytes)?;
        bytes(VARIABLES[2], &mut limits.table_bytes)?;
        if let Some(value) = lookup(VARIABLES[3]) {
            limits.depth = value
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|d| (1..=1_000_000).contains(d))
                .ok_or_else(|| {
                    format!(
                        "{}={value:?}: expected a depth from 1 to 1000000",
                        VARIABLES[3]
                    )
                })?;
        }
        Ok(limits)
    }
}

/// `512`, `64K`, `16M`, `4G` (powers of 1024; a trailing `B` or `iB` allowed).
fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let text = text
        .strip_suffix("iB")
        .or_else(|| text.strip_suffix('B'))
        .unwrap_or(text);
    let (digits, shift) = match text.as_bytes().last()? {
        b'K' | b'k' => (&text[..text.len() - 1], 10),
        b'M' | b'm' => (&text[..text.len() - 1], 20),
        b'G' | b'g' => (&text[..text.len() - 1], 30),
        b'T' | b't' => (&text[..text.len() - 1], 40),
        _ => (text, 0),
    };
    let number: u64 = digits.trim().parse().ok()?;
    number.checked_mul(1 << shift).filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("64K"), Some(64 << 10));
        assert_eq!(parse_size("16MiB"), Some(16 << 20));
        assert_eq!(parse_size("4G"), Some(4 << 30));
        for bad in ["", "G", "-1", "0", "1.5G", "12Q", "99999999999T"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_bad_variable_is_named() {
        let error = Limits::from_lookup(|n| (n == "HUMANOID_MAX_DEPTH").then(|| "deep".into()))
            .unwrap_err();
        assert!(error.contains("HUMANOID_MAX_DEPTH"), "{error}");
        assert_eq!(Limits::from_lookup(|_| None), Ok(Limits::DEFAULT));
    }
}
