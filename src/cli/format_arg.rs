//! `--to FORMAT`: the library's format names ([`Format::name`]) as a closed set, so `--help`
//! lists them and a name outside it is refused before anything is read.

use clap::builder::PossibleValue;
use clap::ValueEnum;
use humanoid::formats::Format;

/// One of the formats we write ([`Format::ALL`] less the read-only ones, FBX), by its `--to`
/// name: `--to fbx` is refused like any name outside the set, listing those we write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatArg(pub Format);

/// How many formats we write.
const WRITABLE: usize = {
    let mut count = 0;
    let mut i = 0;
    while i < Format::ALL.len() {
        if Format::ALL[i].can_write() {
            count += 1;
        }
        i += 1;
    }
    count
};

/// The formats we write, in [`Format::ALL`]'s order.
const ALL: [FormatArg; WRITABLE] = {
    let mut all = [FormatArg(Format::Glb); WRITABLE];
    let (mut i, mut n) = (0, 0);
    while i < Format::ALL.len() {
        if Format::ALL[i].can_write() {
            all[n] = FormatArg(Format::ALL[i]);
            n += 1;
        }
        i += 1;
    }
    all
};

impl ValueEnum for FormatArg {
    fn value_variants<'a>() -> &'a [Self] {
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}
