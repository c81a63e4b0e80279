//! Metamorphic tests of the mapper: the same rig turned to face −Z, put in an A-pose, renamed
//! to each common side convention or to bare `joint_N`, with hands, shoulders, fingers or toes
//! removed, with IK/control bones added, scaled ×0.01 and ×100, must map the same joints to
//! the same bones (the removed ones missing), and **never a wrong bone**.
//!
//! "Right" comes from outside the mapper: a rig's own declaration (the mannequin, VRM,
//! H-Anim), or for a rig that declares none the answer written by hand from its hierarchy in
//! `mapping_truth.toml` (every bone, fingers and toes included). Each variant is built in the model
//! (no file written) and mapped two ways: the `--map auto` path (the best table, else the
//! auto-mapper; [`map_rig`]) and the auto-mapper alone ([`auto_map`]). The totals are printed
//! per variant kind (`cargo test --test library automap -- --nocapture`); missing is allowed, wrong is
//! not (0 wrong on every corpus rig and the mannequin). Small rigs check the facing cues: no
//! cue leaves the sides missing, bent elbows and feet tell it.

use std::collections::BTreeMap;
use std::f32::consts::PI;
use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use humanoid::asset::Asset;
use humanoid::formats::Format;
use humanoid::mapping::auto::auto_map;
use humanoid::mapping::normalize::{key, Side};
use humanoid::mapping::{map_rig, Choice, Library, Mapping};
use humanoid::model::{BoneMap, HumanBone, JointId, RawJoint, Skeleton};
use humanoid::pose::Trs;

/// A rig and the answer it must map to.
struct Rig {
    name: String,
    asset: Asset,
    /// Bone → joint of `asset`: the right answer.
    reference: BoneMap,
}

/// A changed copy of a rig.
struct Variant {
    kind: String,
    asset: Asset,
    /// For each joint of the variant, the joint of the base rig it is (`None`: added).
    origin: Vec<Option<JointId>>,
    /// Bones whose joints were removed: they must come out missing.
    removed: Vec<HumanBone>,
}

/// Right / wrong / missing counts, with the wrong ones named.
#[derive(Default)]
struct Tally {
    right: usize,
    wrong: usize,
    missing: usize,
    variants: usize,
    wrongs: Vec<String>,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.right += other.right;
        self.wrong += other.wrong;
        self.missing += other.missing;
        self.variants += other.variants;
        self.wrongs.extend(other.wrongs.iter().cloned());
    }
}

/// The joints of `asset` as raw joints (skeleton order is parents first).
fn raw_of(asset: &Asset) -> Vec<RawJoint> {
    let s = &asset.skeleton;
    s.joints()
        .map(|j| RawJoint {
            name: s.name(j).to_owned(),
            parent: s.parent(j).map(JointId::index),
            rest: s.rest_local(j),
        })
        .collect()
}

/// Builds a variant from edited raw joints; `origin[i]` is the base joint of raw joint `i`;
/// `skin[i]` / `weighted[i]` whether it is a skin joint / weighted.
fn build(
    base: &Asset,
    kind: &str,
    raw: Vec<RawJoint>,
    origin: Vec<Option<JointId>>,
    skin: Vec<bool>,
    weighted: Vec<bool>,
    removed: Vec<HumanBone>,
) -> Variant {
    let (skeleton, ids) = Skeleton::from_raw(raw).expect("a valid variant skeleton");
    let n = skeleton.len();
    let mut new_origin = vec![None; n];
    let mut skin_joints = Vec::new();
    let mut weighted_joints = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        new_origin[id.index()] = origin[i];
        if skin[i] {
            skin_joints.push(*id);
        }
        if weighted[i] {
            weighted_joints.push(*id);
        }
    }
    skin_joints.sort();
    weighted_joints.sort();
    let mut asset = Asset::new(base.format, skeleton, (0..n).collect());
    asset.skin_joints = skin_joints;
    asset.weighted_joints = weighted_joints;
    Variant {
        kind: kind.to_owned(),
        asset,
        origin: new_origin,
        removed,
    }
}

/// A variant from per-joint edits of the raw joints (same joints).
fn edited(base: &Asset, kind: &str, edit: impl Fn(&mut [RawJoint])) -> Variant {
    let mut raw = raw_of(base);
    edit(&mut raw);
    let (origin, skin, weighted) = flags(base);
    build(base, kind, raw, origin, skin, weighted, Vec::new())
}

/// For each joint of `base`: itself (the origin of an unchanged copy), whether it is a skin
/// joint, whether it is weighted.
fn flags(base: &Asset) -> (Vec<Option<JointId>>, Vec<bool>, Vec<bool>) {
    let s = &base.skeleton;
    let joints: Vec<JointId> = s.joints().collect();
    (
        joints.iter().map(|j| Some(*j)).collect(),
        joints
            .iter()
            .map(|j| base.skin_joints.contains(j))
            .collect(),
        joints
            .iter()
            .map(|j| base.weighted_joints.contains(j))
            .collect(),
    )
}

fn mat(t: &Trs) -> Mat4 {
    t.to_mat4()
}

/// Turned 180° about +Y: every root turned.
fn turned(base: &Asset, kind: &str) -> Variant {
    edited(base, kind, turn)
}

fn turn(raw: &mut [RawJoint]) {
    for joint in raw.iter_mut().filter(|j| j.parent.is_none()) {
        joint.rest = Trs::from_mat4(Mat4::from_quat(Quat::from_rotation_y(PI)) * mat(&joint.rest));
    }
}

/// Every root turned by `q` (the whole rig turned).
fn turn_by(raw: &mut [RawJoint], q: Quat) {
    for joint in raw.iter_mut().filter(|j| j.parent.is_none()) {
        joint.rest = Trs::from_mat4(Mat4::from_quat(q) * mat(&joint.rest));
    }
}

/// Names whose side markers are swapped (left says right): the shape's facing, told by the
/// feet, must win over the names, or the sides be left out; never swapped.
fn mirrored(raw: &mut [RawJoint]) {
    for joint in raw.iter_mut() {
        let k = key(&joint.name, &[]);
        match k.side {
            Side::Left => joint.name = format!("R_{}", k.core),
            Side::Right => joint.name = format!("L_{}", k.core),
            Side::None => {}
        }
    }
}

/// Names in another language: each joint a French word no table knows (`os 12`), with the
/// side in French where the name had one (`os 12 gauche`), as Blender rigs made in France are.
fn french(raw: &mut [RawJoint]) {
    for (i, joint) in raw.iter_mut().enumerate() {
        let side = match key(&joint.name, &[]).side {
            Side::Left => " gauche",
            Side::Right => " droite",
            Side::None => "",
        };
        joint.name = format!("os {i}{side}");
    }
}

/// Duplicate IK and FK arm chains, unweighted, at the same place as the arm (upper arm,
/// forearm, hand), hung from the arm's parent, as rigs exported with their control bones are.
fn with_ik_fk(rig: &Rig) -> Option<Variant> {
    let base = &rig.asset;
    let s = &base.skeleton;
    let mut raw = raw_of(base);
    let (mut origin, mut skin, mut weighted) = flags(base);
    if base.weighted_joints.is_empty() {
        // Control chains are told by their missing weights: a rig without skin has none.
        return None;
    }
    let skinned = !base.skin_joints.is_empty();
    use HumanBone::*;
    for chain in [
        [LeftUpperArm, LeftLowerArm, LeftHand],
        [RightUpperArm, RightLowerArm, RightHand],
    ] {
        let joints: Vec<JointId> = chain.iter().filter_map(|b| rig.reference.get(*b)).collect();
        if joints.len() != 3 {
            continue;
        }
        for prefix in ["IK_", "FK_"] {
            let mut parent = s.parent(joints[0]).map(JointId::index);
            for &j in &joints {
                raw.push(RawJoint {
                    name: format!("{prefix}{}", s.name(j)),
                    parent,
                    rest: s.rest_local(j),
                });
                parent = Some(raw.len() - 1);
                origin.push(None);
                skin.push(skinned);
                weighted.push(false);
            }
        }
    }
    Some(build(
        base,
        "IK/FK duplicate arms",
        raw,
        origin,
        skin,
        weighted,
        Vec::new(),
    ))
}

/// Twist joints: under the upper arm, forearm, thigh and shin, one joint halfway to the next
/// (a sibling of it), weighted, named as Unreal names them (`upperarm_twist_01_l`).
fn with_twists(rig: &Rig) -> Option<Variant> {
    let base = &rig.asset;
    let s = &base.skeleton;
    let mut raw = raw_of(base);
    let (mut origin, mut skin, mut weighted) = flags(base);
    let skinned = !base.skin_joints.is_empty();
    let has_weights = !base.weighted_joints.is_empty();
    use HumanBone::*;
    let mut added = 0;
    for (bone, next, name) in [
        (LeftUpperArm, LeftLowerArm, "upperarm_twist_01_l"),
        (RightUpperArm, RightLowerArm, "upperarm_twist_01_r"),
        (LeftLowerArm, LeftHand, "lowerarm_twist_01_l"),
        (RightLowerArm, RightHand, "lowerarm_twist_01_r"),
        (LeftUpperLeg, LeftLowerLeg, "thigh_twist_01_l"),
        (RightUpperLeg, RightLowerLeg, "thigh_twist_01_r"),
    ] {
        let (Some(j), Some(k)) = (rig.reference.get(bone), rig.reference.get(next)) else {
            continue;
        };
        let mut local = s.rest_local(k);
        // Halfway along the segment, in the joint's space, however many joints stand between.
        let to_next = mat(&s.rest_world(j)).inverse() * mat(&s.rest_world(k));
        local.translation = to_next.w_axis.truncate() * 0.5;
        local.rotation = Quat::IDENTITY;
        local.scale = Vec3::ONE;
        raw.push(RawJoint {
            name: name.to_owned(),
            parent: Some(j.index()),
            rest: local,
        });
        origin.push(None);
        skin.push(skinned);
        weighted.push(has_weights);
        added += 1;
    }
    (added > 0).then(|| {
        build(
            base,
            "twist joints",
            raw,
            origin,
            skin,
            weighted,
            Vec::new(),
        )
    })
}

/// The upper arms turned 40° down about their shoulder joint (an A-pose).
fn a_pose(rig: &Rig, raw: &mut [RawJoint]) {
    let s = &rig.asset.skeleton;
    for (upper, lower) in [
        (HumanBone::LeftUpperArm, HumanBone::LeftLowerArm),
        (HumanBone::RightUpperArm, HumanBone::RightLowerArm),
    ] {
        let (Some(u), Some(l)) = (rig.reference.get(upper), rig.reference.get(lower)) else {
            continue;
        };
        let world = s.rest_world(u);
        let along = s.rest_world(l).translation - world.translation;
        let axis = along.cross(Vec3::NEG_Y).normalize_or_zero();
        if axis == Vec3::ZERO {
            continue;
        }
        let turn = Mat4::from_translation(world.translation)
            * Mat4::from_quat(Quat::from_axis_angle(axis, 40f32.to_radians()))
            * Mat4::from_translation(-world.translation);
        let parent = s
            .parent(u)
            .map_or(Mat4::IDENTITY, |p| mat(&s.rest_world(p)));
        raw[u.index()].rest = Trs::from_mat4(parent.inverse() * turn * mat(&world));
    }
}

/// Every joint's translation scaled by `k` (a change of unit).
fn scale(raw: &mut [RawJoint], k: f32) {
    for joint in raw.iter_mut() {
        joint.rest.translation *= k;
    }
}

/// A side convention: the name of a joint from its side (`true`: left) and side-free core.
type Convention = fn(bool, &str) -> String;

/// The side conventions to rename to: (kind, how to name).
const CONVENTIONS: [(&str, Convention); 6] = [
    ("rename l-/r-", |l, c| {
        format!("{}-{c}", if l { "l" } else { "r" })
    }),
    ("rename L_/R_", |l, c| {
        format!("{}_{c}", if l { "L" } else { "R" })
    }),
    ("rename .l/.r", |l, c| {
        format!("{c}.{}", if l { "l" } else { "r" })
    }),
    ("rename _l/_r", |l, c| {
        format!("{c}_{}", if l { "l" } else { "r" })
    }),
    ("rename Left…/Right…", |l, c| {
        let mut chars = c.chars();
        let cap: String = chars
            .next()
            .map(|f| f.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        format!("{}{cap}", if l { "Left" } else { "Right" })
    }),
    ("rename left_/right_", |l, c| {
        format!("{}_{c}", if l { "left" } else { "right" })
    }),
];

/// Renamed: a name with a side marker gets the convention's; the others keep theirs.
fn renamed(raw: &mut [RawJoint], convention: Convention) {
    for joint in raw.iter_mut() {
        let k = key(&joint.name, &[]);
        match k.side {
            Side::Left => joint.name = convention(true, &k.core),
            Side::Right => joint.name = convention(false, &k.core),
            Side::None => {}
        }
    }
}

fn stripped(raw: &mut [RawJoint]) {
    for (i, joint) in raw.iter_mut().enumerate() {
        joint.name = format!("joint_{i}");
    }
}

/// The joints of the bones `which` removed: with their subtree (`subtree`), or alone (their
/// children keep their world place, hung from the removed joint's parent). Alone, a bone's
/// joint goes with the unmapped joints between it and the next mapped bone below it: the rest
/// of the same bone (H-Anim's shoulder is the sternoclavicular and the acromioclavicular joint,
/// the clavicle and the scapula; without the first the second still moves the shoulder).
fn removed(rig: &Rig, kind: &str, which: &[HumanBone], subtree: bool) -> Option<Variant> {
    let base = &rig.asset;
    let s = &base.skeleton;
    // The bones' joints, and any other joint of the same name (its mesh node, say: by name it
    // is the same bone, so a rig without the bone has none of them).
    let named: Vec<JointId> = which.iter().filter_map(|b| rig.reference.get(*b)).collect();
    let keys: Vec<_> = named.iter().map(|j| key(s.name(*j), &[])).collect();
    let mapped = |j: JointId| rig.reference.bone_of(j).is_some();
    let within = |j: JointId| {
        // An unmapped joint on the way from a bone's joint down to the next mapped one.
        !mapped(j)
            && s.joints().any(|d| mapped(d) && s.is_ancestor(j, d))
            && s.ancestors(j)
                .take_while(|a| !mapped(*a))
                .last()
                .and_then(|top| s.parent(top))
                .or(s.parent(j))
                .is_some_and(|a| named.contains(&a))
    };
    let targets: Vec<JointId> = s
        .joints()
        .filter(|j| {
            named.contains(j) || keys.contains(&key(s.name(*j), &[])) || (!subtree && within(*j))
        })
        .collect();
    if targets.is_empty() {
        return None;
    }
    let gone = |j: JointId| {
        targets.contains(&j) || (subtree && targets.iter().any(|t| s.is_ancestor(*t, j)))
    };
    let mut raw = Vec::new();
    let mut origin = Vec::new();
    let mut skin = Vec::new();
    let mut weighted = Vec::new();
    let mut new_index = vec![None; s.len()];
    for j in s.joints() {
        if gone(j) {
            continue;
        }
        // The nearest kept ancestor, and the transform from it.
        let mut parent = s.parent(j);
        let mut local = mat(&s.rest_local(j));
        while let Some(p) = parent.filter(|p| gone(*p)) {
            local = mat(&s.rest_local(p)) * local;
            parent = s.parent(p);
        }
        new_index[j.index()] = Some(raw.len());
        raw.push(RawJoint {
            name: s.name(j).to_owned(),
            parent: parent.and_then(|p| new_index[p.index()]),
            rest: Trs::from_mat4(local),
        });
        origin.push(Some(j));
        skin.push(base.skin_joints.contains(&j));
        weighted.push(base.weighted_joints.contains(&j));
    }
    let bones = rig
        .reference
        .iter()
        .filter(|(_, j)| gone(*j))
        .map(|(b, _)| b)
        .collect();
    Some(build(base, kind, raw, origin, skin, weighted, bones))
}

/// IK/control bones with no skin weights: targets at the hands and feet hung from the root,
/// knee pole targets hung from the hips, a look target hung from the chest.
fn with_controls(rig: &Rig) -> Option<Variant> {
    let base = &rig.asset;
    let s = &base.skeleton;
    let hips = rig.reference.get(HumanBone::Hips)?;
    let root = s.ancestors(hips).last().unwrap_or(hips);
    let world = |b: HumanBone| rig.reference.get(b).map(|j| s.rest_world(j).translation);
    let left = world(HumanBone::LeftUpperLeg)? - world(HumanBone::RightUpperLeg)?;
    let forward = left.cross(Vec3::Y).normalize_or_zero();
    let height = world(HumanBone::Head)?.y - world(HumanBone::LeftFoot).unwrap_or(Vec3::ZERO).y;
    let mut raw = raw_of(base);
    let (mut origin, mut skin, mut weighted) = flags(base);
    let skinned = !base.skin_joints.is_empty();
    let mut add = |name: &str, parent: JointId, at: Vec3| {
        let local = mat(&s.rest_world(parent)).inverse() * Mat4::from_translation(at);
        raw.push(RawJoint {
            name: name.to_owned(),
            parent: Some(parent.index()),
            rest: Trs::from_mat4(local),
        });
        origin.push(None);
        skin.push(skinned);
        weighted.push(false);
    };
    for (name, bone) in [
        ("IK_foot.L", HumanBone::LeftFoot),
        ("IK_foot.R", HumanBone::RightFoot),
        ("IK_hand.L", HumanBone::LeftHand),
        ("IK_hand.R", HumanBone::RightHand),
    ] {
        if let Some(at) = world(bone) {
            add(name, root, at);
        }
    }
    for (name, bone) in [
        ("pole_knee_l", HumanBone::LeftLowerLeg),
        ("pole_knee_r", HumanBone::RightLowerLeg),
    ] {
        if let Some(at) = world(bone) {
            add(name, hips, at + forward * 0.3 * height);
        }
    }
    let chest = rig
        .reference
        .get(HumanBone::Chest)
        .or(rig.reference.get(HumanBone::Spine))?;
    add(
        "ctrl_look",
        chest,
        s.rest_world(chest).translation + forward * 0.5 * height,
    );
    Some(build(
        base,
        "IK/control bones",
        raw,
        origin,
        skin,
        weighted,
        Vec::new(),
    ))
}

fn is_finger(bone: HumanBone) -> bool {
    let name = bone.as_str();
    ["Thumb", "Index", "Middle", "Ring", "Little"]
        .iter()
        .any(|f| name.contains(f))
}

/// Every variant of a rig.
fn variants(rig: &Rig) -> Vec<Variant> {
    let base = &rig.asset;
    let mut out = vec![
        edited(base, "unchanged", |_| {}),
        turned(base, "turned 180°"),
        edited(base, "A-pose", |raw| a_pose(rig, raw)),
        edited(base, "turned 180° + A-pose", |raw| {
            a_pose(rig, raw);
            turn(raw);
        }),
        edited(base, "joint_N", stripped),
        edited(base, "joint_N + turned 180°", |raw| {
            stripped(raw);
            turn(raw);
        }),
        edited(base, "joint_N + A-pose", |raw| {
            a_pose(rig, raw);
            stripped(raw);
        }),
        edited(base, "turned 90° (faces +X)", |raw| {
            turn_by(raw, Quat::from_rotation_y(PI / 2.0))
        }),
        edited(base, "Z-up", |raw| {
            turn_by(raw, Quat::from_rotation_x(PI / 2.0))
        }),
        edited(base, "Z-up + joint_N", |raw| {
            turn_by(raw, Quat::from_rotation_x(PI / 2.0));
            stripped(raw);
        }),
        edited(base, "mirrored names", mirrored),
        edited(base, "French names", french),
        edited(base, "scaled ×0.01", |raw| scale(raw, 0.01)),
        edited(base, "scaled ×100", |raw| scale(raw, 100.0)),
    ];
    for (kind, convention) in CONVENTIONS {
        out.push(edited(base, kind, |raw| renamed(raw, convention)));
    }
    use HumanBone::*;
    out.extend(removed(rig, "hands removed", &[LeftHand, RightHand], true));
    out.extend(removed(
        rig,
        "shoulders removed",
        &[LeftShoulder, RightShoulder],
        false,
    ));
    let fingers: Vec<HumanBone> = HumanBone::ALL
        .into_iter()
        .filter(|b| is_finger(*b))
        .collect();
    out.extend(removed(rig, "fingers removed", &fingers, true));
    out.extend(removed(rig, "toes removed", &[LeftToes, RightToes], true));
    out.extend(with_controls(rig));
    out.extend(with_ik_fk(rig));
    out.extend(with_twists(rig));
    out
}

/// Scores one mapping of a variant against the rig's reference.
fn score(rig: &Rig, variant: &Variant, mapping: &BoneMap, how: &str) -> Tally {
    let mut tally = Tally {
        variants: 1,
        ..Tally::default()
    };
    let wrong = |what: String, tally: &mut Tally| {
        tally.wrong += 1;
        tally
            .wrongs
            .push(format!("{} [{}] {how}: {what}", rig.name, variant.kind));
    };
    let base = &rig.asset.skeleton;
    let name =
        |j: Option<JointId>| j.map_or("an added bone".to_owned(), |j| base.name(j).to_owned());
    for bone in HumanBone::ALL {
        let expected = rig
            .reference
            .get(bone)
            .filter(|_| !variant.removed.contains(&bone));
        let got = mapping.get(bone).map(|j| variant.origin[j.index()]);
        match (expected, got) {
            (Some(e), Some(Some(g))) if e == g => tally.right += 1,
            (Some(_), None) => tally.missing += 1,
            (Some(e), Some(g)) => wrong(
                format!("{bone} = {} (should be {})", name(g), base.name(e)),
                &mut tally,
            ),
            (None, Some(g)) => {
                // A bone the answer lacks: wrong when its joint is another bone's, was added,
                // or the bone was removed (a neighbour filling it).
                let other = g.and_then(|g| rig.reference.bone_of(g));
                if g.is_none() || other.is_some() || variant.removed.contains(&bone) {
                    wrong(
                        format!(
                            "{bone} = {}{}",
                            name(g),
                            other.map_or(String::new(), |o| format!(" (that is {o})"))
                        ),
                        &mut tally,
                    );
                }
            }
            (None, None) => {}
        }
    }
    tally
}

/// Maps every variant of every rig both ways; prints the totals per variant kind; returns the
/// wrong ones, per way (`--map auto`, `auto-mapper`).
fn run(rigs: &[Rig]) -> BTreeMap<&'static str, Vec<String>> {
    let library = Library::builtin().unwrap();
    let mut totals: BTreeMap<(String, &str), Tally> = BTreeMap::new();
    for rig in rigs {
        // Names that lie about the side can only be caught where the shape tells the sides
        // (the feet or the elbows of the nameless rig give its left and right limbs).
        let nameless = edited(&rig.asset, "joint_N", stripped);
        let shape_tells = auto_map(&nameless.asset).is_ok_and(|m| {
            m.bones.get(HumanBone::LeftUpperLeg).is_some()
                || m.bones.get(HumanBone::LeftUpperArm).is_some()
        });
        for variant in variants(rig) {
            if variant.kind == "mirrored names" && !shape_tells {
                continue;
            }
            let path = Path::new(&rig.name);
            let detect = map_rig(&variant.asset, &library, Choice::Detect, path)
                .map(|m: Mapping| m.bones)
                .unwrap_or_default();
            let auto = auto_map(&variant.asset)
                .map(|m| m.bones)
                .unwrap_or_default();
            show(rig, &variant, &library);
            for (how, bones) in [("--map auto", detect), ("auto-mapper", auto)] {
                let tally = score(rig, &variant, &bones, how);
                totals
                    .entry((variant.kind.clone(), how))
                    .or_default()
                    .add(&tally);
            }
        }
    }
    println!(
        "{:<28} {:<12} {:>8} {:>7} {:>7} {:>8}",
        "variant", "mapper", "variants", "right", "wrong", "missing"
    );
    let mut wrongs: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let mut sum: BTreeMap<&str, Tally> = BTreeMap::new();
    for ((kind, how), t) in &totals {
        println!(
            "{kind:<28} {how:<12} {:>8} {:>7} {:>7} {:>8}",
            t.variants, t.right, t.wrong, t.missing
        );
        sum.entry(how).or_default().add(t);
        wrongs
            .entry(how)
            .or_default()
            .extend(t.wrongs.iter().cloned());
    }
    for (how, t) in &sum {
        println!(
            "{:<28} {how:<12} {:>8} {:>7} {:>7} {:>8}",
            "all", t.variants, t.right, t.wrong, t.missing
        );
    }
    wrongs
}

/// With `HUMANOID_AUTOMAP_SHOW=RIG|KIND` (substrings of a rig's file and a variant's kind),
/// prints what the auto-mapper found and why each bone went where it did (`map --explain`).
fn show(rig: &Rig, variant: &Variant, library: &Library) {
    let Ok(filter) = std::env::var("HUMANOID_AUTOMAP_SHOW") else {
        return;
    };
    let (name, kind) = filter.split_once('|').unwrap_or((filter.as_str(), ""));
    if !rig.name.contains(name) || !variant.kind.contains(kind) {
        return;
    }
    println!("== {} [{}]", rig.name, variant.kind);
    match auto_map(&variant.asset) {
        Ok(m) => {
            for (bone, joint) in m.bones.iter() {
                println!("  shape {bone} = {}", variant.asset.skeleton.name(joint));
            }
        }
        Err(e) => println!("  shape: {e}"),
    }
    if let Ok(solution) = humanoid::mapping::explain_rig(
        &variant.asset,
        library,
        Choice::Detect,
        Path::new(&rig.name),
    ) {
        let lines = humanoid::mapping::explain::explain(&variant.asset.skeleton, &solution);
        for line in humanoid::mapping::explain::to_lines(&lines) {
            println!("  {line}");
        }
    }
}

/// Runs every variant and fails when either way maps more wrong bones than `at_most`
/// (`--map auto`, auto-mapper alone).
#[track_caller]
fn assert_wrong_at_most(rigs: &[Rig], at_most: (usize, usize)) {
    let wrongs = run(rigs);
    let list = |how: &str| wrongs.get(how).cloned().unwrap_or_default();
    let (detect, auto) = (list("--map auto"), list("auto-mapper"));
    for line in detect.iter().chain(&auto) {
        println!("WRONG {line}");
    }
    assert!(
        detect.len() <= at_most.0 && auto.len() <= at_most.1,
        "wrong bones: {} by --map auto (at most {}), {} by the auto-mapper (at most {}):\n{}\n{}",
        detect.len(),
        at_most.0,
        auto.len(),
        at_most.1,
        detect.join("\n"),
        auto.join("\n")
    );
}

/// The bundled mannequin, with its declared humanoid as the answer.
fn mannequin() -> Rig {
    let m = humanoid::demo::canonical_mannequin().unwrap();
    let n = m.skeleton.len();
    let mut asset = Asset::new(Format::Glb, m.skeleton, (0..n).collect());
    asset.skin_joints = asset.skeleton.joints().collect();
    asset.weighted_joints = asset.skin_joints.clone();
    Rig {
        name: "mannequin".to_owned(),
        asset,
        reference: m.humanoid.bones,
    }
}

#[test]
fn the_mannequin_maps_the_same_in_every_variant() {
    assert_wrong_at_most(&[mannequin()], (0, 0));
}

/// Maps `variant` of the mannequin by the one mapper (`--map auto`): no wrong bone, and every
/// bone of `must` mapped (to its right joint).
#[track_caller]
fn assert_maps_right(rig: &Rig, variant: &Variant, must: &[HumanBone]) {
    let library = Library::builtin().unwrap();
    let mapping = map_rig(&variant.asset, &library, Choice::Detect, Path::new("rig")).unwrap();
    let tally = score(rig, variant, &mapping.bones, "--map auto");
    assert!(tally.wrongs.is_empty(), "{}", tally.wrongs.join("\n"));
    for bone in must {
        assert!(mapping.bones.get(*bone).is_some(), "{bone} not mapped");
    }
}

/// A joint named `Hips` that is not the hips (the legs hang from its parent, which no table
/// names): the table's answer breaks the hierarchy, and the shape's keeps the legs: the
/// parent is the hips and the joint named `Hips` the spine.
#[test]
fn a_joint_named_hips_whose_legs_hang_from_its_parent_is_not_the_hips() {
    let rig = mannequin();
    let s = &rig.asset.skeleton;
    let hips = rig.reference.get(HumanBone::Hips).unwrap().index();
    let spine = rig.reference.get(HumanBone::Spine).unwrap().index();
    assert_eq!(
        s.name(s.joint(spine)),
        "spine",
        "the mannequin names joints by bone"
    );
    let variant = edited(&rig.asset, "Hips on the spine", |raw| {
        raw[hips].name = "pelvis_root".into();
        raw[spine].name = "Hips".into();
    });
    use HumanBone::*;
    assert_maps_right(
        &rig,
        &variant,
        &[
            Hips,
            Spine,
            LeftUpperLeg,
            LeftLowerLeg,
            LeftFoot,
            RightUpperLeg,
            RightFoot,
        ],
    );
}

/// A table that knows the trunk and legs but none of the arms' names (a Blender metarig
/// exported with renamed arms): the shape fills the arms and fingers, each at its own joint.
#[test]
fn arms_no_table_names_are_filled_by_the_shape() {
    let rig = mannequin();
    let arm_bones: Vec<HumanBone> = HumanBone::ALL
        .into_iter()
        .filter(|b| {
            let n = b.as_str();
            [
                "Shoulder", "Arm", "Hand", "Thumb", "Index", "Middle", "Ring", "Little",
            ]
            .iter()
            .any(|p| n.contains(p))
        })
        .collect();
    let joints: Vec<usize> = arm_bones
        .iter()
        .filter_map(|b| rig.reference.get(*b))
        .map(JointId::index)
        .collect();
    let variant = edited(&rig.asset, "arms renamed", |raw| {
        for &j in &joints {
            raw[j].name = format!("zz_{j}");
        }
    });
    use HumanBone::*;
    assert_maps_right(
        &rig,
        &variant,
        &[
            Hips,
            Spine,
            Head,
            LeftUpperLeg,
            RightFoot,
            LeftUpperArm,
            LeftLowerArm,
            LeftHand,
            RightUpperArm,
            RightLowerArm,
            RightHand,
            LeftIndexProximal,
            RightThumbProximal,
        ],
    );
}

/// A small rig from rows of (name, parent row, world position), every joint weighted, turned
/// 180° about +Y when `turned`. The names carry no side.
fn small_rig(rows: &[(&str, Option<usize>, [f32; 3])], turned: bool) -> Asset {
    let at = |i: usize| Vec3::from(rows[i].2);
    let raw = rows
        .iter()
        .map(|(name, parent, _)| RawJoint {
            name: (*name).to_owned(),
            parent: *parent,
            rest: Trs::from_mat4(Mat4::IDENTITY),
        })
        .collect::<Vec<_>>();
    let mut raw = raw;
    for (i, joint) in raw.iter_mut().enumerate() {
        let local = at(i) - joint.parent.map_or(Vec3::ZERO, at);
        joint.rest = Trs::from_mat4(Mat4::from_translation(local));
    }
    if turned {
        turn(&mut raw);
    }
    let (skeleton, _) = Skeleton::from_raw(raw).unwrap();
    let n = skeleton.len();
    let mut asset = Asset::new(Format::Glb, skeleton, (0..n).collect());
    asset.skin_joints = asset.skeleton.joints().collect();
    asset.weighted_joints = asset.skin_joints.clone();
    asset
}

/// A T-pose with straight arms, legs to the ankle (no feet) and names without sides; rows
/// 0–14 (the trunk, the +X arm 5–7, the −X arm 8–10, the +X leg 11–12, the −X leg 13–14).
const T_POSE: [(&str, Option<usize>, [f32; 3]); 15] = [
    ("zz_root", None, [0.0, 1.0, 0.0]),
    ("zz_back", Some(0), [0.0, 1.15, 0.0]),
    ("zz_ribs", Some(1), [0.0, 1.35, 0.0]),
    ("zz_collar", Some(2), [0.0, 1.55, 0.0]),
    ("zz_skull", Some(3), [0.0, 1.65, 0.0]),
    ("zz_arm_a", Some(2), [0.2, 1.5, 0.0]),
    ("zz_arm_b", Some(5), [0.48, 1.5, 0.0]),
    ("zz_arm_c", Some(6), [0.74, 1.5, 0.0]),
    ("zz_arm_d", Some(2), [-0.2, 1.5, 0.0]),
    ("zz_arm_e", Some(8), [-0.48, 1.5, 0.0]),
    ("zz_arm_f", Some(9), [-0.74, 1.5, 0.0]),
    ("zz_leg_a", Some(0), [0.1, 0.95, 0.0]),
    ("zz_leg_b", Some(11), [0.1, 0.5, 0.0]),
    ("zz_leg_c", Some(0), [-0.1, 0.95, 0.0]),
    ("zz_leg_d", Some(13), [-0.1, 0.5, 0.0]),
];

/// The joint name the auto-mapper gives `bone` in `asset`.
fn auto_name(asset: &Asset, bone: HumanBone) -> Option<String> {
    let bones = auto_map(asset).unwrap().bones;
    bones.get(bone).map(|j| asset.skeleton.name(j).to_owned())
}

#[test]
fn nothing_tells_the_facing_so_no_side_is_guessed() {
    // A glTF faces +Z by convention, but a rig may be turned: with no feet, straight arms and
    // no sides in the names, left and right are left out, turned or not.
    for turned in [false, true] {
        let asset = small_rig(&T_POSE, turned);
        assert_eq!(
            auto_name(&asset, HumanBone::Hips).as_deref(),
            Some("zz_root")
        );
        assert_eq!(
            auto_name(&asset, HumanBone::Head).as_deref(),
            Some("zz_skull")
        );
        let sided: Vec<String> = auto_map(&asset)
            .unwrap()
            .bones
            .iter()
            .filter(|(b, _)| b.as_str().starts_with("left") || b.as_str().starts_with("right"))
            .map(|(b, _)| b.as_str().to_owned())
            .collect();
        assert!(sided.is_empty(), "turned {turned}: {sided:?}");
    }
}

#[test]
fn bent_elbows_tell_the_facing() {
    // The forearms bend forward (+Z): the elbows point back. Turned, the rig faces −Z and its
    // left arm (zz_arm_c) is the −X one: still its left (the format's +Z would say right).
    let mut rows = T_POSE;
    rows[7].2 = [0.68, 1.5, 0.16];
    rows[10].2 = [-0.68, 1.5, 0.16];
    for turned in [false, true] {
        let asset = small_rig(&rows, turned);
        for (bone, name) in [
            (HumanBone::LeftHand, "zz_arm_c"),
            (HumanBone::RightHand, "zz_arm_f"),
            (HumanBone::LeftUpperLeg, "zz_leg_a"),
            (HumanBone::RightLowerLeg, "zz_leg_d"),
        ] {
            assert_eq!(
                auto_name(&asset, bone).as_deref(),
                Some(name),
                "turned {turned}"
            );
        }
    }
}

#[test]
fn the_toes_not_the_heels_tell_the_facing() {
    // Straight arms, feet with a heel joint behind the ankle and toes farther ahead: turned,
    // the toes still point forward.
    let mut rows: Vec<(&str, Option<usize>, [f32; 3])> = T_POSE.to_vec();
    for (leg, x, names) in [
        (12, 0.1, ["zz_ankle_a", "zz_toe_a", "zz_heel_a"]),
        (14, -0.1, ["zz_ankle_b", "zz_toe_b", "zz_heel_b"]),
    ] {
        let ankle = rows.len();
        rows.push((names[0], Some(leg), [x, 0.1, 0.0]));
        rows.push((names[1], Some(ankle), [x, 0.02, 0.12]));
        rows.push((names[2], Some(ankle), [x, 0.02, -0.05]));
    }
    for turned in [false, true] {
        let asset = small_rig(&rows, turned);
        for (bone, name) in [
            (HumanBone::LeftFoot, "zz_ankle_a"),
            (HumanBone::RightFoot, "zz_ankle_b"),
            (HumanBone::LeftUpperArm, "zz_arm_a"),
            (HumanBone::RightHand, "zz_arm_f"),
        ] {
            assert_eq!(
                auto_name(&asset, bone).as_deref(),
                Some(name),
                "turned {turned}"
            );
        }
    }
}

#[test]
fn a_head_joint_out_of_place_is_not_the_head() {
    // The last neck joint's only child sits at the origin (H-Anim's joe_1.1 puts its
    // skullbase there): which joint is the head is not told; the neck still is.
    let mut rows: Vec<(&str, Option<usize>, [f32; 3])> = T_POSE.to_vec();
    rows.push(("zz_skullbase", Some(4), [0.0, 0.0, 0.0]));
    let asset = small_rig(&rows, false);
    assert_eq!(auto_name(&asset, HumanBone::Head), None);
    assert_eq!(
        auto_name(&asset, HumanBone::Neck).as_deref(),
        Some("zz_collar")
    );
}

#[cfg(feature = "corpus")]
mod corpus {
    use super::*;

    fn corpus() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
    }

    /// A rig read from the corpus, declaring its humanoid.
    fn declared(file: &str) -> Option<Rig> {
        let asset = humanoid::read_asset(&corpus().join(file)).unwrap().asset;
        let reference = asset.humanoids.first()?.bones;
        reference.get(HumanBone::Hips)?;
        Some(Rig {
            name: file.to_owned(),
            asset,
            reference,
        })
    }

    /// A rig that declares no humanoid, with its answer written by hand from its hierarchy in
    /// `mapping_truth.toml` (never from the mapper's output).
    fn expected(file: &str) -> Rig {
        let asset = humanoid::read_asset(&corpus().join(file)).unwrap().asset;
        let truth = crate::mapping_truth::truths()
            .into_iter()
            .find(|t| t.file == file)
            .unwrap_or_else(|| panic!("{file}: no truth in mapping_truth.toml"));
        let mut reference = BoneMap::new();
        for (bone, name) in &truth.bones {
            let joint = crate::mapping_truth::corpus::resolve(&asset, file, name);
            reference.set(*bone, Some(joint));
        }
        Rig {
            name: file.to_owned(),
            asset,
            reference,
        }
    }

    fn rigs() -> Vec<Rig> {
        let mut rigs: Vec<Rig> = [
            "gltf/Xbot_blender_reexport.glb",
            "gltf/Soldier.glb",
            "bvh/mixamo_freebvh.bvh",
            "gltf/CesiumMan.glb",
            "gltf/RiggedFigure.glb",
            "gltf/RobotExpressive.glb",
            "gltf/mannequiny.glb",
            "bvh/mocapbank_walk.bvh",
            "bvh/cmu_131_01_3dsmax.bvh",
            "fbx/maya_character_7500_binary.fbx",
            "fbx/maya_human_ik_7400_binary.fbx",
            "fbx/maya_kenney_character_7700_binary.fbx",
            "fbx/blender_293_barbarian_7400_binary.fbx",
        ]
        .into_iter()
        .map(expected)
        .collect();
        for dir in ["vrm", "hanim"] {
            let mut files: Vec<_> = std::fs::read_dir(corpus().join(dir))
                .unwrap()
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| ["vrm", "x3d", "x3dv", "wrl"].contains(&e))
                })
                .collect();
            files.sort();
            for path in files {
                let name = format!("{dir}/{}", path.file_name().unwrap().to_str().unwrap());
                rigs.extend(declared(&name));
            }
        }
        rigs
    }

    /// Every corpus rig in every variant: no wrong bone, by either way.
    #[test]
    fn every_corpus_rig_maps_the_same_in_every_variant() {
        assert_wrong_at_most(&rigs(), (0, 0));
    }
}
