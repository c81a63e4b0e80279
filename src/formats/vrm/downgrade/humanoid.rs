//! `humanoid`: VRM 1.0's object keyed by bone name becomes the 0.x array of `{bone, node}`.
//!
//! Thumbs are renamed back ([`HumanBone::vrm0_name`]: 1.0 `thumbMetacarpal`/`thumbProximal`
//! are 0.x `thumbProximal`/`thumbIntermediate`). VRM 0.x requires 17 bones, chest and neck
//! among them, where 1.0 requires 15. Unity's avatar settings, which 1.0 dropped, are written
//! with Unity's defaults (what UniVRM 0.x exports for an avatar nobody tuned).

use std::path::Path;

use serde_json::{Map, Value};

use super::vrm1::{self, at, BASE};
use crate::error::{Diagnostics, Error, Location};
use crate::model::{HumanBone, Profile};

/// Unity's default avatar settings (`HumanDescription`'s defaults, as UniVRM 0.x writes them).
const UNITY_SETTINGS: [(&str, f64); 7] = [
    ("armStretch", 0.05),
    ("legStretch", 0.05),
    ("upperArmTwist", 0.5),
    ("lowerArmTwist", 0.5),
    ("upperLegTwist", 0.5),
    ("lowerLegTwist", 0.5),
    ("feetSpacing", 0.0),
];

/// The bones of the 1.0 humanoid: `(bone, node)` in canonical order.
///
/// # Errors
/// [`Error::Invalid`] when `humanoid.humanBones` is not an object or an entry's `node` is not a
/// node index.
pub(super) fn bones(
    vrm: &Map<String, Value>,
    node_count: usize,
    file: &Path,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<(HumanBone, usize)>, Error> {
    let list_at = at(&at(BASE, "humanoid"), "humanBones");
    let invalid = |pointer: String, message: String| {
        Error::invalid(file, Location::JsonPointer(pointer), message)
    };
    let object = vrm1::object(vrm, "humanoid")
        .and_then(|h| vrm1::object(h, "humanBones"))
        .ok_or_else(|| {
            invalid(
                list_at.clone(),
                "expected an object {\"hips\": {\"node\": 0}, ...}".to_owned(),
            )
        })?;
    let mut found: Vec<Option<usize>> = vec![None; HumanBone::COUNT];
    for (name, entry) in object {
        let entry_at = at(&list_at, name);
        let Ok(bone) = name.parse::<HumanBone>() else {
            diagnostics.warn(
                "DOWNGRADE_UNKNOWN_BONE",
                entry_at,
                format!("{name:?} is not a VRM 1.0 bone name; the entry was dropped"),
            );
            continue;
        };
        let node = entry
            .get("node")
            .and_then(vrm1::index)
            .filter(|&n| n < node_count)
            .ok_or_else(|| {
                invalid(
                    at(&entry_at, "node"),
                    format!(
                        "{name}: {} is not a node index: expected an integer below {node_count}",
                        entry
                            .get("node")
                            .map_or("nothing".to_owned(), Value::to_string)
                    ),
                )
            })?;
        if let Some(slot) = found.get_mut(bone.index()) {
            *slot = Some(node);
        }
    }
    Ok(HumanBone::ALL
        .into_iter()
        .filter_map(|b| found.get(b.index()).copied().flatten().map(|n| (b, n)))
        .collect())
}

/// Checks that every bone VRM 0.x requires is present.
///
/// # Errors
/// [`Error::Invalid`] naming every missing bone (by its 0.x name).
pub(super) fn require_vrm0_bones(bones: &[(HumanBone, usize)], file: &Path) -> Result<(), Error> {
    let missing: Vec<&str> = HumanBone::ALL
        .into_iter()
        .filter(|b| b.is_required(Profile::Vrm0) && !bones.iter().any(|(h, _)| h == b))
        .map(HumanBone::vrm0_name)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::invalid(
        file,
        Location::JsonPointer(at(&at(BASE, "humanoid"), "humanBones")),
        format!(
            "VRM 0.x requires 17 bones and this humanoid lacks {}: {}; map a joint to each with --map TABLE (`humanoid map FILE -o TABLE.toml` writes one to edit; a chest or neck joint lies between the hips' chain and the head), or keep VRM 1.0, which does not require them (--to vrm1)",
            missing.len(),
            missing.join(", ")
        ),
    ))
}

/// The 0.x `humanoid` object: `humanBones` in canonical order, then Unity's default settings.
pub(super) fn humanoid_json(bones: &[(HumanBone, usize)], diagnostics: &mut Diagnostics) -> Value {
    let human_bones = bones
        .iter()
        .map(|(bone, node)| {
            let mut entry = Map::new();
            entry.insert("bone".into(), Value::from(bone.vrm0_name()));
            entry.insert("node".into(), Value::from(*node));
            entry.insert("useDefaultValues".into(), Value::from(true));
            Value::Object(entry)
        })
        .collect();
    let mut humanoid = Map::new();
    humanoid.insert("humanBones".into(), Value::Array(human_bones));
    for (key, value) in UNITY_SETTINGS {
        humanoid.insert(key.into(), vrm1::json_number(value));
    }
    humanoid.insert("hasTranslationDoF".into(), Value::from(false));
    diagnostics.info(
        "DOWNGRADE_HUMANOID_SETTINGS",
        at(BASE, "humanoid"),
        "VRM 1.0 has no Unity avatar settings: Unity's defaults were written (armStretch and legStretch 0.05, twists 0.5, feetSpacing 0, hasTranslationDoF false, every bone useDefaultValues)",
    );
    Value::Object(humanoid)
}
