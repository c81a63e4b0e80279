//! `KHR_character` + `KHR_character_skeleton_mapping` (the Khronos avatar drafts) read as the
//! file's declared humanoid, in each wire form the drafts and their implementations have used,
//! written here by hand from the drafts' schemas and examples
//! (`../shared/docs/research/extensions_and_landscape.md` §6).

use std::path::Path;

use humanoid::model::HumanBone;
use serde_json::{json, Value};

/// The 15 required bones, a node each (named `J_<bone>`), in a plausible hierarchy.
const BONES: [&str; 15] = [
    "hips",
    "spine",
    "head",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
];

/// A glTF whose node `i` is `J_<BONES[i]>` (node 15 is a root above the hips), with `extensions`.
fn document(extensions: Value) -> Value {
    let at = |i: usize| -> [f32; 3] {
        match BONES[i] {
            "hips" => [0.0, 1.0, 0.0],
            "spine" => [0.0, 0.2, 0.0],
            "head" => [0.0, 0.4, 0.0],
            b if b.ends_with("UpperArm") => {
                [if b.starts_with("left") { 0.2 } else { -0.2 }, 0.3, 0.0]
            }
            b if b.ends_with("LowerArm") || b.ends_with("Hand") => {
                [if b.starts_with("left") { 0.25 } else { -0.25 }, 0.0, 0.0]
            }
            b if b.ends_with("UpperLeg") => {
                [if b.starts_with("left") { 0.1 } else { -0.1 }, -0.05, 0.0]
            }
            _ => [0.0, -0.45, 0.0],
        }
    };
    let children = |i: usize| -> Vec<usize> {
        match BONES[i] {
            "hips" => vec![1, 9, 12],
            "spine" => vec![2, 3, 6],
            "leftUpperArm" | "leftLowerArm" | "rightUpperArm" | "rightLowerArm" => vec![i + 1],
            "leftUpperLeg" | "leftLowerLeg" | "rightUpperLeg" | "rightLowerLeg" => vec![i + 1],
            _ => vec![],
        }
    };
    let mut nodes: Vec<Value> = (0..BONES.len())
        .map(|i| {
            let mut node = json!({"name": format!("J_{}", BONES[i]), "translation": at(i)});
            if !children(i).is_empty() {
                node["children"] = json!(children(i));
            }
            node
        })
        .collect();
    nodes.push(json!({"name": "Character", "children": [0]}));
    let used: Vec<&String> = extensions.as_object().unwrap().keys().collect();
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [15]}],
        "nodes": nodes,
        "extensionsUsed": used,
        "extensions": extensions,
    })
}

fn read_doc(doc: &Value) -> Result<humanoid::Read, humanoid::Error> {
    humanoid::read_bytes(
        serde_json::to_vec(doc).unwrap().as_slice(),
        Path::new("character.gltf"),
        &humanoid::ReadOptions::default(),
    )
}

/// Every bone of `BONES` on its own node, the root on node 15, declared (not guessed).
fn assert_declared(doc: &Value, form: &str) {
    let read = read_doc(doc).unwrap_or_else(|e| panic!("{form}: {e}"));
    let asset = &read.character.asset;
    let humanoid = asset
        .humanoids
        .first()
        .unwrap_or_else(|| panic!("{form}: no humanoid"));
    for (i, name) in BONES.iter().enumerate() {
        let bone = HumanBone::ALL.iter().find(|b| b.as_str() == *name).unwrap();
        let joint = humanoid
            .bones
            .get(*bone)
            .unwrap_or_else(|| panic!("{form}: {name} unmapped"));
        assert_eq!(
            asset.skeleton.name(joint),
            format!("J_{}", BONES[i]),
            "{form}: {name}"
        );
    }
    assert_eq!(
        humanoid.bones.iter().count(),
        BONES.len(),
        "{form}: only the declared bones"
    );
    let root = humanoid.root.map(|j| asset.skeleton.name(j).to_owned());
    assert_eq!(root.as_deref(), Some("Character"), "{form}");
    assert!(
        read.diagnostics
            .iter()
            .any(|d| d.code == "KHR_MAPPING_READ"),
        "{form}: {:?}",
        read.diagnostics
    );
    assert!(
        !read.diagnostics.has_errors(),
        "{form}: {:?}",
        read.diagnostics
    );
}

const VRM_HUMANOID: &str =
    "https://github.com/vrm-c/vrm-specification/blob/282ab9d/specification/VRMC_vrm-1.0/humanoid.md";

#[test]
fn every_wire_form_of_the_skeleton_mapping_reads_as_the_declared_humanoid() {
    let character = json!({"rootNode": 15});
    // The newest: URI-keyed, {role: {node, name}}.
    let uri: serde_json::Map<String, Value> = BONES
        .iter()
        .enumerate()
        .map(|(i, b)| (b.to_string(), json!({"node": i, "name": format!("J_{b}")})))
        .collect();
    assert_declared(
        &document(json!({
            "KHR_character": character,
            "KHR_character_skeleton_mapping": {"skeletalRigMappings": {VRM_HUMANOID: uri}}
        })),
        "URI-keyed",
    );
    // 0b5vr/khr-character-testbed's VRM converter (appendKHRCharacterSkeleton.ts): the same
    // {node, name} objects under the key "vrmHumanoid".
    assert_declared(
        &document(json!({
            "KHR_character": character,
            "KHR_character_skeleton_mapping": {"skeletalRigMappings": {"vrmHumanoid": uri.clone()}}
        })),
        "testbed",
    );
    // The pull request's: {vrmHumanoid: {role: node}}.
    let index: serde_json::Map<String, Value> = BONES
        .iter()
        .enumerate()
        .map(|(i, b)| (b.to_string(), json!(i)))
        .collect();
    assert_declared(
        &document(json!({
            "KHR_character": character,
            "KHR_character_skeleton_mapping": {"skeletalRigMappings": {"vrmHumanoid": index}}
        })),
        "node index",
    );
    // By node name, both directions (UnityGLTF's string map).
    let by_name: serde_json::Map<String, Value> = BONES
        .iter()
        .map(|b| (b.to_string(), json!(format!("J_{b}"))))
        .collect();
    let reversed: serde_json::Map<String, Value> =
        BONES.iter().map(|b| (format!("J_{b}"), json!(b))).collect();
    for (form, rig) in [("by name", by_name), ("by name, reversed", reversed)] {
        assert_declared(
            &document(json!({
                "KHR_character": character,
                "KHR_character_skeleton_mapping": {"skeletalRigMappings": {"vrmHumanoid": rig}}
            })),
            form,
        );
    }
    // The 2025 README's weighted targets: each target's heaviest node (J_leftFoot is 0.8
    // leftFoot, and the 0.2 goes to a bone it also names).
    let mut weighted: serde_json::Map<String, Value> = BONES
        .iter()
        .map(|b| (format!("J_{b}"), json!([{"target": b, "weight": 1.0}])))
        .collect();
    weighted.insert(
        "J_leftLowerLeg".into(),
        json!([{"target": "leftLowerLeg", "weight": 0.8}, {"target": "leftFoot", "weight": 0.2}]),
    );
    assert_declared(
        &document(json!({
            "KHR_character": character,
            "KHR_character_skeleton_mapping": {"skeletalRigMappings": {
                "vrmHumanoid": weighted,
                "example_rig": {"J_hips": [{"target": "hip_bone", "weight": 1.0}]}
            }}
        })),
        "weighted",
    );
}

#[test]
fn a_declared_mapping_is_taken_as_it_is_and_its_faults_are_named() {
    // Bones the mapping omits stay unmapped, even where the names would map.
    let few = json!({"hips": 0, "spine": 1, "head": 2});
    let read = read_doc(&document(json!({
        "KHR_character_skeleton_mapping": {"skeletalRigMappings": {"vrmHumanoid": few}}
    })))
    .unwrap();
    let humanoid = &read.character.asset.humanoids[0];
    assert_eq!(humanoid.bones.iter().count(), 3);
    assert_eq!(humanoid.root, None);
    // A node index out of range: refused, with the JSON pointer.
    let error = read_doc(&document(json!({
        "KHR_character_skeleton_mapping": {"skeletalRigMappings": {"vrmHumanoid": {"hips": 99}}}
    })))
    .unwrap_err();
    assert_eq!(error.code(), "KHR_CHARACTER_INVALID");
    assert!(
        error.to_string().contains(
            "/extensions/KHR_character_skeleton_mapping/skeletalRigMappings/vrmHumanoid/hips"
        ),
        "{error}"
    );
    let error = read_doc(&document(json!({"KHR_character": {"rootNode": -1},
        "KHR_character_skeleton_mapping": {"skeletalRigMappings": {"vrmHumanoid": {"hips": 0}}}})))
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("/extensions/KHR_character/rootNode"),
        "{error}"
    );
    // A name that is not the node's: the node is used, the mismatch reported.
    let read = read_doc(&document(json!({
        "KHR_character_skeleton_mapping": {"skeletalRigMappings": {
            VRM_HUMANOID: {"hips": {"node": 0, "name": "Pelvis"}, "tail": {"node": 1}}
        }}
    })))
    .unwrap();
    let codes: Vec<&str> = read.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&"KHR_MAPPING_NAME_MISMATCH"), "{codes:?}");
    assert!(codes.contains(&"KHR_MAPPING_UNKNOWN_BONE"), "{codes:?}");
    // No VRM humanoid rig: nothing declared, the rigs named.
    let read = read_doc(&document(json!({
        "KHR_character_skeleton_mapping": {"skeletalRigMappings": {"unityHumanoid": {"Hips": 0}}}
    })))
    .unwrap();
    assert!(read.character.asset.humanoids.is_empty());
    let note = read
        .diagnostics
        .iter()
        .find(|d| d.code == "KHR_MAPPING_NO_HUMANOID")
        .unwrap();
    assert!(note.message.contains("unityHumanoid"), "{}", note.message);
}

/// glTF → glTF keeps the declaration as it is (no EXT_skeleton_humanoid added beside it, the
/// JSON otherwise the same); glTF → VRM writes the declared bones as VRM's.
#[test]
fn the_declaration_is_kept_on_gltf_round_trips_and_becomes_vrms_bone_map() {
    let dir = tempfile::tempdir().unwrap();
    let index: serde_json::Map<String, Value> = BONES
        .iter()
        .enumerate()
        .map(|(i, b)| (b.to_string(), json!(i)))
        .collect();
    let doc = document(json!({
        "KHR_character": {"rootNode": 15},
        "KHR_character_skeleton_mapping": {"skeletalRigMappings": {"vrmHumanoid": index}}
    }));
    let input = dir.path().join("character.gltf");
    std::fs::write(&input, serde_json::to_vec(&doc).unwrap()).unwrap();
    let options = humanoid::ConvertOptions::default();
    let glb = dir.path().join("character.glb");
    let back = dir.path().join("back.gltf");
    humanoid::convert(&input, &glb, &options).unwrap();
    humanoid::convert(&glb, &back, &options).unwrap();
    let back: Value = serde_json::from_slice(&std::fs::read(&back).unwrap()).unwrap();
    assert_eq!(back["extensions"], doc["extensions"]);
    assert_eq!(back["extensionsUsed"], doc["extensionsUsed"]);
    assert_eq!(back["nodes"], doc["nodes"]);
    let vrm = dir.path().join("character.vrm");
    humanoid::convert(&input, &vrm, &options).unwrap();
    let asset = humanoid::read_asset(&vrm).unwrap().asset;
    assert_eq!(asset.format, humanoid::formats::Format::Vrm1);
    let bones = &asset.humanoids[0].bones;
    assert_eq!(bones.iter().count(), BONES.len());
    for (bone, joint) in bones.iter() {
        assert_eq!(asset.skeleton.name(joint), format!("J_{}", bone.as_str()));
    }
}
