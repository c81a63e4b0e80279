//! `humanoid`: the 0.x array of `{bone, node}` becomes VRM 1.0's object keyed by bone name.
//!
//! Thumbs are renamed (0.x `thumbProximal`/`thumbIntermediate`/`thumbDistal` are 1.0
//! `thumbMetacarpal`/`thumbProximal`/`thumbDistal`, [`HumanBone::from_vrm0_name`]); a bone
//! listed twice keeps its first node (three-vrm's rule; UniVRM keeps the last). Unity's
//! avatar settings (`armStretch`, per-bone limits, ...) have no 1.0 counterpart.

use std::path::Path;

use serde_json::{Map, Value};

use super::vrm0::{self, at, BASE};
use crate::error::{Diagnostics, Error, Location};
use crate::model::{HumanBone, Profile};

/// The Unity avatar settings a 0.x humanoid may carry.
const UNITY_SETTINGS: [&str; 8] = [
    "armStretch",
    "legStretch",
    "upperArmTwist",
    "lowerArmTwist",
    "upperLegTwist",
    "lowerLegTwist",
    "feetSpacing",
    "hasTranslationDoF",
];

/// The bones of the 0.x humanoid: `(bone, node)` in canonical order.
///
/// # Errors
/// [`Error::Invalid`] when `humanoid.humanBones` is not an array, an entry's `node` is not a
/// node index, or a bone VRM 1.0 requires is missing (all missing bones are named).
pub(super) fn bones(
    vrm: &Map<String, Value>,
    node_count: usize,
    file: &Path,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<(HumanBone, usize)>, Error> {
    let here = at(BASE, "humanoid");
    let humanoid = vrm0::object(vrm, "humanoid").ok_or_else(|| {
        Error::invalid(
            file,
            Location::JsonPointer(here.clone()),
            "no humanoid object: expected {\"humanBones\": [...]}",
        )
    })?;
    let list_at = at(&here, "humanBones");
    let list = humanoid
        .get("humanBones")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            Error::invalid(
                file,
                Location::JsonPointer(list_at.clone()),
                "expected an array of {\"bone\", \"node\"} objects",
            )
        })?;
    let mut found: Vec<Option<(usize, usize)>> = vec![None; HumanBone::COUNT];
    let mut limits = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let entry_at = at(&list_at, i.to_string());
        let Some((bone, node)) = entry_bone(entry, &entry_at, node_count, file, diagnostics)?
        else {
            continue;
        };
        if entry.get("useDefaultValues").and_then(Value::as_bool) == Some(false) {
            limits.push(bone.as_str().to_owned());
        }
        match found.get_mut(bone.index()) {
            Some(Some((_, first))) => diagnostics.warn(
                "MIGRATE_DUPLICATE_BONE",
                entry_at,
                format!(
                    "{} is listed again (node {node}); the first entry (node {first}) is kept",
                    bone.vrm0_name()
                ),
            ),
            Some(slot) => *slot = Some((i, node)),
            None => {}
        }
    }
    let bones: Vec<(HumanBone, usize)> = HumanBone::ALL
        .into_iter()
        .filter_map(|b| found.get(b.index()).copied().flatten().map(|(_, n)| (b, n)))
        .collect();
    require_vrm1_bones(&bones, &list_at, file)?;
    report_shared_nodes(&bones, &list_at, diagnostics);
    report_dropped_settings(humanoid, &limits, &here, diagnostics);
    Ok(bones)
}

/// One `humanBones` entry: `None` (reported) for an unknown bone name.
fn entry_bone(
    entry: &Value,
    entry_at: &str,
    node_count: usize,
    file: &Path,
    diagnostics: &mut Diagnostics,
) -> Result<Option<(HumanBone, usize)>, Error> {
    let invalid = |pointer: String, message: String| {
        Error::invalid(file, Location::JsonPointer(pointer), message)
    };
    let Some(name) = entry.get("bone").and_then(Value::as_str) else {
        return Err(invalid(
            at(entry_at, "bone"),
            "expected a bone name (a string)".to_owned(),
        ));
    };
    let Some(bone) = HumanBone::from_vrm0_name(name) else {
        diagnostics.warn(
            "MIGRATE_UNKNOWN_BONE",
            entry_at,
            format!("{name:?} is not a VRM 0.x bone name; the entry was dropped"),
        );
        return Ok(None);
    };
    let node = entry
        .get("node")
        .and_then(vrm0::index)
        .filter(|&n| n < node_count)
        .ok_or_else(|| {
            invalid(
                at(entry_at, "node"),
                format!(
                    "{name}: {} is not a node index: expected an integer below {node_count}",
                    entry
                        .get("node")
                        .map_or("nothing".to_owned(), Value::to_string)
                ),
            )
        })?;
    Ok(Some((bone, node)))
}

fn require_vrm1_bones(
    bones: &[(HumanBone, usize)],
    list_at: &str,
    file: &Path,
) -> Result<(), Error> {
    let missing: Vec<&str> = HumanBone::ALL
        .into_iter()
        .filter(|b| b.is_required(Profile::Vrm1) && !bones.iter().any(|(h, _)| h == b))
        .map(HumanBone::vrm0_name)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::invalid(
        file,
        Location::JsonPointer(list_at.to_owned()),
        format!(
            "VRM 1.0 requires bones this humanoid lacks: {}",
            missing.join(", ")
        ),
    ))
}

fn report_shared_nodes(bones: &[(HumanBone, usize)], list_at: &str, diagnostics: &mut Diagnostics) {
    for (i, (bone, node)) in bones.iter().enumerate() {
        for (other, other_node) in bones.iter().skip(i + 1) {
            if node == other_node {
                diagnostics.warn(
                    "MIGRATE_BONE_NODE_SHARED",
                    list_at,
                    format!(
                        "{} and {} are both node {node}; VRM 1.0 wants one node per bone",
                        bone.as_str(),
                        other.as_str()
                    ),
                );
            }
        }
    }
}

fn report_dropped_settings(
    humanoid: &Map<String, Value>,
    limits: &[String],
    here: &str,
    diagnostics: &mut Diagnostics,
) {
    let settings: Vec<&str> = UNITY_SETTINGS
        .into_iter()
        .filter(|key| humanoid.contains_key(*key))
        .collect();
    if !settings.is_empty() {
        diagnostics.info(
            "MIGRATE_HUMANOID_SETTINGS_DROPPED",
            here,
            format!(
                "Unity avatar settings have no VRM 1.0 counterpart and were dropped: {}",
                settings.join(", ")
            ),
        );
    }
    if !limits.is_empty() {
        diagnostics.warn(
            "MIGRATE_BONE_LIMITS_DROPPED",
            at(here, "humanBones"),
            format!(
                "per-bone Unity muscle limits (useDefaultValues false) have no VRM 1.0 counterpart and were dropped: {}",
                vrm0::short_list(limits, 10)
            ),
        );
    }
}

/// VRM 1.0's `humanoid` object for these bones.
pub(super) fn humanoid_json(bones: &[(HumanBone, usize)]) -> Value {
    let mut human_bones = Map::new();
    for (bone, node) in bones {
        let mut entry = Map::new();
        entry.insert("node".to_owned(), Value::from(*node));
        human_bones.insert(bone.as_str().to_owned(), Value::Object(entry));
    }
    let mut humanoid = Map::new();
    humanoid.insert("humanBones".to_owned(), Value::Object(human_bones));
    Value::Object(humanoid)
}
