//! Issue 33: on every corpus rig that declares no humanoid (glTF, BVH, FBX), the mapper maps
//! **no wrong bone**. The right answer is `mapping_truth.toml` beside this file, written by hand
//! from each rig's hierarchy (names, parents, positions), never from the mapper's output: a bone
//! per joint, the bones the rig lacks, the few joints the hierarchy cannot pin to one bone.
//!
//! Each rig is read as `humanoid map` reads it and mapped with [`map_rig`] (the best table, else
//! the auto-mapper); each of the 55 bones is then right, wrong or missing. The table per rig is
//! printed (`cargo test --features corpus --test library mapping_truth -- --nocapture`); the
//! test fails on any wrong bone, on a humanoid refused or missing a required bone its truth
//! lists, and on a corpus file the truth does not cover.
//!
//! The truth file's own consistency (every bone named once, known names) is checked without the
//! corpus.

use std::collections::BTreeSet;

use humanoid::model::{HumanBone, Profile};
use indexmap::IndexMap;
use serde::Deserialize;

/// The truth file, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TruthFile {
    /// Corpus path (below `../shared/corpus`) → its truth.
    rigs: IndexMap<String, RawRig>,
}

/// One rig's truth, as written (see the file's header for each field).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRig {
    humanoid: bool,
    why: String,
    #[serde(default)]
    bones: IndexMap<String, String>,
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    optional: Vec<String>,
    #[serde(default)]
    either: IndexMap<String, Vec<String>>,
}

/// One rig's truth, checked.
#[derive(Debug)]
pub(crate) struct Truth {
    /// Corpus path, e.g. `gltf/Soldier.glb`.
    pub(crate) file: String,
    humanoid: bool,
    /// Bone → joint name.
    pub(crate) bones: Vec<(HumanBone, String)>,
    /// Bones a valid mapping may leave out although VRM requires them.
    optional: Vec<HumanBone>,
    /// Joint name → the bones it may be.
    either: Vec<(String, Vec<HumanBone>)>,
}

impl Truth {
    fn joint_of(&self, bone: HumanBone) -> Option<&str> {
        self.bones
            .iter()
            .find(|(b, _)| *b == bone)
            .map(|(_, j)| j.as_str())
    }

    /// The `either` joint that may be `bone`.
    fn either_of(&self, bone: HumanBone) -> Option<&str> {
        self.either
            .iter()
            .find(|(_, bones)| bones.contains(&bone))
            .map(|(j, _)| j.as_str())
    }
}

fn parse_bone(file: &str, name: &str) -> HumanBone {
    name.parse()
        .unwrap_or_else(|_| panic!("{file}: {name:?} is not a canonical bone name"))
}

/// Reads and checks `mapping_truth.toml`: known bone names, no bone twice, each joint for one
/// bone, and for a humanoid every one of the 55 bones in exactly one of `bones`, `absent` and
/// `either`.
pub(crate) fn truths() -> Vec<Truth> {
    let text = include_str!("mapping_truth.toml");
    let raw: TruthFile = toml::from_str(text).expect("mapping_truth.toml parses");
    let mut out = Vec::new();
    for (file, rig) in raw.rigs {
        assert!(!rig.why.trim().is_empty(), "{file}: `why` is empty");
        let mut seen: BTreeSet<HumanBone> = BTreeSet::new();
        let mut claim = |bone: HumanBone, field: &str| {
            assert!(
                seen.insert(bone),
                "{file}: {bone} is named twice (again in `{field}`)"
            );
        };
        let mut bones = Vec::new();
        let mut joints: BTreeSet<&str> = BTreeSet::new();
        for (bone, joint) in &rig.bones {
            let bone = parse_bone(&file, bone);
            claim(bone, "bones");
            assert!(
                joints.insert(joint.as_str()),
                "{file}: joint {joint:?} is given to two bones"
            );
            bones.push((bone, joint.clone()));
        }
        for bone in &rig.absent {
            claim(parse_bone(&file, bone), "absent");
        }
        let mut either = Vec::new();
        for (joint, list) in &rig.either {
            assert!(
                joints.insert(joint.as_str()),
                "{file}: `either` joint {joint:?} is also in `bones`"
            );
            assert!(!list.is_empty(), "{file}: `either` {joint:?} lists no bone");
            let list: Vec<HumanBone> = list.iter().map(|b| parse_bone(&file, b)).collect();
            for bone in &list {
                claim(*bone, "either");
            }
            either.push((joint.clone(), list));
        }
        let optional: Vec<HumanBone> = rig.optional.iter().map(|b| parse_bone(&file, b)).collect();
        for bone in &optional {
            assert!(
                rig.bones.contains_key(bone.as_str())
                    || rig
                        .either
                        .values()
                        .any(|list| list.iter().any(|b| b == bone.as_str())),
                "{file}: optional {bone} is not in `bones` or `either`"
            );
        }
        if rig.humanoid {
            let unnamed: Vec<&str> = HumanBone::ALL
                .into_iter()
                .filter(|b| !seen.contains(b))
                .map(HumanBone::as_str)
                .collect();
            assert!(
                unnamed.is_empty(),
                "{file}: a humanoid's truth names every bone in `bones`, `absent` or `either`; these are in none: {unnamed:?}"
            );
        } else {
            assert!(
                rig.optional.is_empty(),
                "{file}: `optional` means nothing on a rig that is not a humanoid"
            );
        }
        out.push(Truth {
            file,
            humanoid: rig.humanoid,
            bones,
            optional,
            either,
        });
    }
    out
}

#[test]
fn the_truth_file_is_consistent() {
    let truths = truths();
    assert!(truths.len() >= 19, "{} rigs", truths.len());
    for t in &truths {
        assert!(
            ["gltf/", "bvh/", "fbx/"]
                .iter()
                .any(|d| t.file.starts_with(d)),
            "{}: the truth covers glTF, BVH and FBX corpus rigs",
            t.file
        );
        if t.humanoid {
            let listed = |b: HumanBone| t.joint_of(b).is_some() || t.either_of(b).is_some();
            assert!(
                (listed(HumanBone::Hips) && listed(HumanBone::Spine)) || t.file.contains("Hand"),
                "{}: a humanoid (but a hand alone) has hips and a spine",
                t.file
            );
        }
        for bone in &t.optional {
            assert!(
                bone.is_required(Profile::Vrm1),
                "{}: optional {bone} is not required anyway",
                t.file
            );
        }
    }
}

#[cfg(feature = "corpus")]
pub(crate) mod corpus {
    use std::path::{Path, PathBuf};

    use humanoid::asset::Asset;
    use humanoid::mapping::{map_rig, Choice, Library};
    use humanoid::model::{JointId, Skeleton};

    use super::*;

    fn corpus() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
    }

    /// The joint a truth name means: the only joint of that name, else the only skin joint of
    /// that name (a glTF mesh node may share its bone's name).
    pub(crate) fn resolve(asset: &Asset, file: &str, name: &str) -> JointId {
        let s: &Skeleton = &asset.skeleton;
        let all: Vec<JointId> = s.joints().filter(|j| s.name(*j) == name).collect();
        match all.as_slice() {
            [] => panic!("{file}: the truth names {name:?}, which is no joint of the rig"),
            [one] => *one,
            _ => {
                let skin: Vec<JointId> = all
                    .iter()
                    .copied()
                    .filter(|j| asset.skin_joints.contains(j))
                    .collect();
                match skin.as_slice() {
                    [one] => *one,
                    _ => panic!(
                        "{file}: {} joints are named {name:?} ({} of them skin joints): the truth cannot say which",
                        all.len(),
                        skin.len()
                    ),
                }
            }
        }
    }

    /// One rig's score.
    #[derive(Default)]
    struct Score {
        right: usize,
        wrong: Vec<String>,
        missing: Vec<String>,
        /// Required bones of a humanoid's truth the mapping lacks (not `optional`).
        required_missing: Vec<String>,
        refused: Option<String>,
    }

    fn score(truth: &Truth) -> Score {
        let file = truth.file.as_str();
        let path = corpus().join(file);
        let asset = humanoid::read_asset(&path)
            .unwrap_or_else(|e| panic!("{file}: {e}"))
            .asset;
        let s = &asset.skeleton;
        let bones: Vec<(HumanBone, JointId)> = truth
            .bones
            .iter()
            .map(|(b, name)| (*b, resolve(&asset, file, name)))
            .collect();
        let either: Vec<(JointId, &[HumanBone])> = truth
            .either
            .iter()
            .map(|(name, list)| (resolve(&asset, file, name), list.as_slice()))
            .collect();
        let truth_of = |bone: HumanBone| bones.iter().find(|(b, _)| *b == bone).map(|(_, j)| *j);
        // What the truth says a joint is, for naming wrong bones.
        let said = |joint: JointId| -> String {
            if let Some((b, _)) = bones.iter().find(|(_, j)| *j == joint) {
                format!("that is {b}")
            } else if let Some((_, list)) = either.iter().find(|(j, _)| *j == joint) {
                let list: Vec<&str> = list.iter().map(|b| b.as_str()).collect();
                format!("that is one of {}", list.join("/"))
            } else {
                "a joint that is no bone".to_owned()
            }
        };

        let mut score = Score::default();
        let library = Library::builtin().unwrap();
        let mapping = match map_rig(&asset, &library, Choice::Detect, Path::new(file)) {
            Ok(m) => m.bones,
            Err(e) => {
                score.refused = Some(e.to_string());
                humanoid::model::BoneMap::new()
            }
        };
        for bone in HumanBone::ALL {
            let got = mapping.get(bone);
            let expected = truth_of(bone);
            let alternative = either
                .iter()
                .find(|(_, list)| list.contains(&bone))
                .map(|(j, _)| *j);
            match (got, expected) {
                (Some(g), Some(e)) if g == e => score.right += 1,
                (Some(g), _) if alternative == Some(g) => score.right += 1,
                (Some(g), Some(e)) => score.wrong.push(format!(
                    "{bone} = {:?} ({}), should be {:?}",
                    s.name(g),
                    said(g),
                    s.name(e)
                )),
                (Some(g), None) => score.wrong.push(format!(
                    "{bone} = {:?} ({}), but the rig has no {bone}{}",
                    s.name(g),
                    said(g),
                    alternative.map_or(String::new(), |a| format!(" other than {:?}", s.name(a)))
                )),
                (None, Some(e)) => {
                    score.missing.push(format!("{bone} ({:?})", s.name(e)));
                    if truth.humanoid
                        && bone.is_required(Profile::Vrm1)
                        && !truth.optional.contains(&bone)
                    {
                        score.required_missing.push(bone.as_str().to_owned());
                    }
                }
                (None, None) => {}
            }
        }
        for (joint, list) in &either {
            if !list.iter().any(|b| mapping.get(*b) == Some(*joint)) {
                let names: Vec<&str> = list.iter().map(|b| b.as_str()).collect();
                score
                    .missing
                    .push(format!("{} ({:?})", names.join("/"), s.name(*joint)));
                if truth.humanoid
                    && list
                        .iter()
                        .any(|b| b.is_required(Profile::Vrm1) && !truth.optional.contains(b))
                {
                    score.required_missing.push(names.join("/"));
                }
            }
        }
        score
    }

    /// The rigs the truth must cover: every glTF, BVH and FBX file of the corpus, but a glTF
    /// that declares its humanoid (EXT_skeleton_humanoid, KHR_character_skeleton_mapping).
    fn corpus_rigs() -> Vec<String> {
        let mut files = Vec::new();
        for dir in ["gltf", "bvh", "fbx"] {
            for entry in std::fs::read_dir(corpus().join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let ext = path
                    .extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                if !["glb", "gltf", "bvh", "fbx"].contains(&ext.as_str()) {
                    continue;
                }
                let name = format!("{dir}/{}", path.file_name().unwrap().to_str().unwrap());
                if dir == "gltf" {
                    // BVH and FBX readers attach the mapper's own humanoid: only a glTF's
                    // humanoid is the file's declaration.
                    let asset = humanoid::read_asset(&path)
                        .unwrap_or_else(|e| panic!("{name}: {e}"))
                        .asset;
                    if !asset.humanoids.is_empty() {
                        continue;
                    }
                }
                files.push(name);
            }
        }
        files.sort();
        files
    }

    #[test]
    fn no_wrong_bone_on_any_corpus_rig() {
        let truths = truths();
        let covered: Vec<&str> = truths.iter().map(|t| t.file.as_str()).collect();
        let uncovered: Vec<String> = corpus_rigs()
            .into_iter()
            .filter(|f| !covered.contains(&f.as_str()))
            .collect();
        assert!(
            uncovered.is_empty(),
            "corpus rigs with no truth in mapping_truth.toml: {uncovered:?}"
        );

        let mut failures = Vec::new();
        let (mut right, mut wrong, mut missing) = (0, 0, 0);
        println!("rig                                           truth right wrong missing");
        for truth in &truths {
            let score = score(truth);
            let listed = truth.bones.len() + truth.either.len();
            let refused = if score.refused.is_some() {
                "  (refused)"
            } else {
                ""
            };
            println!(
                "{:<45} {listed:>5} {:>5} {:>5} {:>7}{refused}",
                truth.file,
                score.right,
                score.wrong.len(),
                score.missing.len(),
            );
            for w in &score.wrong {
                println!("    WRONG   {w}");
            }
            for m in &score.missing {
                println!("    missing {m}");
            }
            right += score.right;
            wrong += score.wrong.len();
            missing += score.missing.len();
            for w in &score.wrong {
                failures.push(format!("{}: wrong {w}", truth.file));
            }
            if truth.humanoid {
                if let Some(reason) = &score.refused {
                    failures.push(format!("{}: a humanoid refused: {reason}", truth.file));
                } else if !score.required_missing.is_empty() {
                    failures.push(format!(
                        "{}: required bones its truth lists are missing: {}",
                        truth.file,
                        score.required_missing.join(", ")
                    ));
                }
            }
        }
        let all = "all";
        println!("{all:<51} {right:>5} {wrong:>5} {missing:>7}");
        assert!(
            failures.is_empty(),
            "{} problem(s):\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}
