//! Turning the scene to face −Z: the migration's turn (`migrate::turn_scene`), reused as it is.
//!
//! The turn is the half turn `R = R_y(180°)` about +Y applied to the data (node transforms
//! conjugated, positions, normals, tangents, morph deltas, inverse bind matrices and
//! animation keys turned). `R·R` is the identity, so the same code that turns a 0.x model to
//! face +Z turns a 1.0 model to face −Z. Its diagnostics come back with the migration's
//! `MIGRATE_*` codes and "+Z" wording; here they are renamed to `DOWNGRADE_*` and "−Z".

use crate::error::{Diagnostics, Error};
use crate::formats::gltf::Document;
use crate::formats::vrm::migrate;

/// The migration's turn codes and the downgrade's names for them.
const CODES: [(&str, &str); 5] = [
    ("MIGRATE_ACCESSOR_REWRITTEN", "DOWNGRADE_ACCESSOR_REWRITTEN"),
    (
        "MIGRATE_ACCESSOR_DUPLICATED",
        "DOWNGRADE_ACCESSOR_DUPLICATED",
    ),
    ("MIGRATE_SAMPLER_SPLIT", "DOWNGRADE_SAMPLER_SPLIT"),
    ("MIGRATE_CHANNEL_NOT_TURNED", "DOWNGRADE_CHANNEL_NOT_TURNED"),
    ("MIGRATE_CAMERA_OR_LIGHT", "DOWNGRADE_CAMERA_OR_LIGHT"),
];

/// The code used for a turn diagnostic the table does not know (none today).
const OTHER: &str = "DOWNGRADE_TURN";

/// Refuses compressed geometry, which cannot be turned without decoding it.
///
/// # Errors
/// [`Error::Unsupported`] naming the compression extension.
pub(super) fn refuse_compressed(document: &Document) -> Result<(), Error> {
    match crate::formats::gltf::compression::used_by(document) {
        Some(name) => Err(Error::unsupported(format!(
            "{}: {name} geometry cannot be turned to face -Z without decoding it, so the model cannot be written as VRM 0.x; decompress the file first",
            document.path().display()
        ))),
        None => Ok(()),
    }
}

/// Turns `out` (a copy of `source`) to face −Z.
///
/// # Errors
/// As the migration's turn: an accessor whose type does not fit its use.
pub(super) fn turn_scene(
    source: &Document,
    out: &mut Document,
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let mut found = Diagnostics::new();
    migrate::turn_scene(source, out, &mut found)?;
    for d in &found {
        diagnostics.push(
            downgrade_code(d.code),
            d.severity,
            d.location.clone(),
            d.message.replace("+Z", "-Z"),
        );
    }
    Ok(())
}

/// The `DOWNGRADE_*` name of a turn diagnostic code.
fn downgrade_code(code: &str) -> &'static str {
    CODES
        .iter()
        .find(|(from, _)| *from == code)
        .map_or(OTHER, |(_, to)| to)
}
