//! Does the written BVH read back as the same humanoid? A BVH declares none: a reader maps it
//! by the joints' names and shape ([`crate::mapping::map_humanoid`]: the tables, else the
//! auto-mapper). The writer reads its own hierarchy back that way and compares bone by bone;
//! where a bone would read back as another joint (or none), it names the mapped joints by
//! their VRM 1.0 bone names (`hips`, `leftUpperArm`, …, which the `godot-humanoid` table
//! knows) and checks again. See [`super::write`].

use std::path::Path;

use crate::error::{Diagnostics, Error};
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::JointId;

/// The bones whose joint in `text` (written in `scale` metres per unit) does not read back as
/// the joint named `name_of(joint)`: `"bone: written X, read Y"`.
pub(crate) fn mismatches<'a>(
    text: &str,
    scale: f64,
    bones: &BoneMap,
    name_of: impl Fn(JointId) -> Option<&'a str>,
) -> Vec<String> {
    // The hierarchy is all the mapping reads: the motion is left out.
    let hierarchy = text.split("MOTION\n").next().unwrap_or(text);
    let head = format!("{hierarchy}MOTION\nFrames: 0\nFrame Time: 1\n");
    let file = Path::new("written.bvh");
    let limits = super::parse::Limits {
        max_depth: super::MAX_DEPTH,
        max_joints: crate::model::skeleton::MAX_JOINTS,
        max_values: super::MAX_MOTION_VALUES,
    };
    let back = super::parse::parse(&head, file, &limits).and_then(|doc| {
        super::read::to_asset(&doc, file, Some(scale), &mut Diagnostics::new())
            .map(|(asset, _)| asset)
    });
    let mut back = match back {
        Ok(asset) => asset,
        Err(e) => return vec![format!("the hierarchy does not read back: {e}")],
    };
    let mapped = crate::mapping::map_humanoid(&mut back, file, None).is_ok();
    let read = back.humanoids.first().filter(|_| mapped).map(|h| &h.bones);
    bones
        .iter()
        .filter_map(|(bone, joint)| {
            let written = name_of(joint)?;
            let got = read
                .and_then(|b| b.get(bone))
                .map(|j| back.skeleton.name(j));
            (got != Some(written)).then(|| {
                format!(
                    "{}: written {written}, read {}",
                    bone.as_str(),
                    got.unwrap_or("as no joint")
                )
            })
        })
        .collect()
}

/// The refusal when no naming reads back as the same humanoid.
pub(crate) fn refusal(mismatches: &[String]) -> Error {
    let shown: Vec<&str> = mismatches.iter().take(6).map(String::as_str).collect();
    Error::unsupported(format!(
        "cannot write BVH: a BVH declares no humanoid, and its readers would map this rig's joints to other bones, even named by their VRM bone names ({}{}); write .glb or .vrma, which declare the humanoid",
        shown.join("; "),
        if mismatches.len() > shown.len() {
            format!(" and {} more", mismatches.len() - shown.len())
        } else {
            String::new()
        }
    ))
}
