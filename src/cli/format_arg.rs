//! `--to FORMAT`: the library's format names ([`Format::name`]) as a closed set, so `--help`
//! lists them and a name outside it is refused before anything is read.

use clap::builder::PossibleValue;
use clap::ValueEnum;
use humanoid::formats::Format;

/// One of [`Format::ALL`], by its `--to` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatArg(pub Format);

/// [`Format::ALL`], in its order.
const ALL: [FormatArg; Format::ALL.len()] = {
    let mut all = [FormatArg(Format::Glb); Format::ALL.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = FormatArg(Format::ALL[i]);
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
