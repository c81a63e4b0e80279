//! FBX in (ufbx): every corpus file reads; the humanoid rigs map hips, spine, neck, head, arms
//! and legs to the joints written here by hand from each file's hierarchy (`../shared/corpus/fbx/
//! MANIFEST.md`), and never to a joint of the control rigs beside them.

use std::path::PathBuf;

use humanoid::model::HumanBone;

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/fbx")
        .join(name)
}

#[test]
fn every_corpus_fbx_reads_with_its_skeleton_and_clips() {
    for (name, joints_at_least, clips) in [
        ("maya_human_ik_7400_binary.fbx", 100, 1),
        ("maya_kenney_character_7700_binary.fbx", 50, 1),
        ("maya_character_7500_binary.fbx", 50, 1),
        ("blender_293_barbarian_7400_binary.fbx", 30, 0),
        ("max_transformed_skin_7500_binary.fbx", 5, 1),
    ] {
        let outcome = humanoid::read_asset(&corpus(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let asset = outcome.asset;
        assert_eq!(asset.format, humanoid::formats::Format::Fbx);
        assert!(
            asset.skeleton.len() >= joints_at_least,
            "{name}: {} joints",
            asset.skeleton.len()
        );
        assert!(
            asset.clips.len() >= clips,
            "{name}: {} clips",
            asset.clips.len()
        );
        let codes: Vec<&str> = outcome.diagnostics.iter().map(|d| d.code).collect();
        assert!(codes.contains(&"FBX_SPACE_CONVERTED"), "{name}: {codes:?}");
    }
}

/// (bone, joint) pairs read off each file's hierarchy by hand.
fn expected(prefix: &str, chest: &[(HumanBone, &str)]) -> Vec<(HumanBone, String)> {
    use HumanBone::*;
    let mut pairs: Vec<(HumanBone, &str)> = vec![
        (Hips, "Hips"),
        (Spine, "Spine"),
        (Neck, "Neck"),
        (Head, "Head"),
        (LeftUpperArm, "LeftArm"),
        (LeftLowerArm, "LeftForeArm"),
        (LeftHand, "LeftHand"),
        (RightUpperArm, "RightArm"),
        (RightLowerArm, "RightForeArm"),
        (RightHand, "RightHand"),
        (LeftUpperLeg, "LeftUpLeg"),
        (LeftLowerLeg, "LeftLeg"),
        (LeftFoot, "LeftFoot"),
        (RightUpperLeg, "RightUpLeg"),
        (RightLowerLeg, "RightLeg"),
        (RightFoot, "RightFoot"),
    ];
    pairs.extend_from_slice(chest);
    pairs
        .into_iter()
        .map(|(b, j)| (b, format!("{prefix}{j}")))
        .collect()
}

#[test]
fn humanoid_rigs_map_every_main_bone_to_the_right_joint() {
    use HumanBone::*;
    let humanik_chest = [(Chest, "Spine1"), (UpperChest, "Spine2")];
    let cases = [
        (
            "maya_human_ik_7400_binary.fbx",
            expected("Character1_", &humanik_chest),
        ),
        (
            "maya_character_7500_binary.fbx",
            expected("Character1_", &humanik_chest),
        ),
        ("maya_kenney_character_7700_binary.fbx", expected("", &[])),
    ];
    for (name, pairs) in cases {
        let asset = humanoid::read_asset(&corpus(name)).unwrap().asset;
        let humanoid = asset
            .humanoids
            .first()
            .unwrap_or_else(|| panic!("{name}: not mapped"));
        for (bone, joint) in &pairs {
            let mapped = humanoid.bones.get(*bone).map(|j| asset.skeleton.name(j));
            assert_eq!(mapped, Some(joint.as_str()), "{name}: {bone}");
        }
        for (bone, joint) in humanoid.bones.iter() {
            let joint_name = asset.skeleton.name(joint);
            // No bone on the control rigs (HumanIK effectors, Kenney's IK controls).
            for rig in ["Ctrl", "Effector", "IK", "Roll"] {
                assert!(
                    !joint_name.contains(rig),
                    "{name}: {bone} on the control rig's {joint_name}"
                );
            }
            // Kenney's Chest and UpperChest: mapped to those joints or not at all.
            if name.starts_with("maya_kenney") && matches!(bone, Chest | UpperChest) {
                let right = if bone == Chest { "Chest" } else { "UpperChest" };
                assert_eq!(joint_name, right, "{name}: {bone}");
            }
        }
    }
}

#[test]
fn units_come_out_in_metres_with_y_up() {
    // Kenney's character is authored in centimetres; standing, its head is above its hips,
    // which are above its feet, at a human scale once in metres.
    let asset = humanoid::read_asset(&corpus("maya_kenney_character_7700_binary.fbx"))
        .unwrap()
        .asset;
    let bones = asset.humanoids[0].bones;
    let y = |bone| {
        asset
            .skeleton
            .rest_world(bones.get(bone).unwrap())
            .translation
            .y
    };
    let (head, hips, foot) = (
        y(HumanBone::Head),
        y(HumanBone::Hips),
        y(HumanBone::LeftFoot),
    );
    assert!(
        head > hips && hips > foot,
        "head {head}, hips {hips}, foot {foot}"
    );
    assert!(
        (0.2..3.0).contains(&(head - foot)),
        "height {} m",
        head - foot
    );
}

#[test]
fn broken_fbx_is_refused_with_ufbxs_reason() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(corpus("maya_kenney_character_7700_binary.fbx")).unwrap();
    let truncated = dir.path().join("truncated.fbx");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let error = humanoid::read_asset(&truncated).unwrap_err();
    assert_eq!(error.code(), "FBX_INVALID");
    let message = error.to_string();
    assert!(
        message.contains("truncated.fbx") && message.contains("ufbx cannot read it"),
        "{message}"
    );
}
