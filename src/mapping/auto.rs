//! The auto-mapper: a humanoid found from the skeleton's shape, for rigs no table fits.
//!
//! Names are not needed (SimpleSkin has none, CesiumMan calls its arm `arm_joint_L__4_`). The
//! skeleton is read in its rest pose, in world space (+Y up):
//!
//! 1. **Hips**: a joint with exactly two child branches that reach down (the legs; a pelvis
//!    joint that carries both counts as the way to them) and one that reaches up (the spine)
//!    and carries two arms. The deepest such joint wins. None: not a humanoid.
//! 2. **Humanoid checks**: the spine rises (hips to head mostly vertical), both legs reach the
//!    ground, the arms do not (a quadruped's "arms" are its front legs). Failing one refuses
//!    the rig with the reason.
//! 3. **Spine**: from the hips up to the joint where both arms leave (the branch); the joints
//!    between are spine / chest, the branch chest or upperChest (Godot's rule: one between →
//!    spine, chest = branch; two or more → first spine, last chest, branch upperChest).
//! 4. **Neck and head**: up from the branch toward the top; the head is the first joint that
//!    branches (eyes, jaw, hair) or the last one; joints below it are the neck.
//! 5. **Arms**: the chain from the branch out to the farthest joint. The hand is where the
//!    fingers start: a joint with several children close to it (a "hand" whose children are a
//!    forearm's length away is a forearm with palms, as in RobotExpressive: no hand then). The
//!    elbow is the joint nearest half way along the chain; a first short segment before the
//!    upper arm is the shoulder.
//! 6. **Legs**: the chain down each leg; the foot is where it turns forward, the knee the joint
//!    nearest half way from hip to foot, the toes the joint after the foot.
//! 7. **Fingers**: with five finger chains, or four (thumb, index, middle; the fourth is left
//!    out: ring or little cannot be told), ordered across the hand from the thumb (the chain
//!    that leaves the hand at the widest angle); the first three joints of each chain, after a
//!    metacarpal (a first joint near the wrist) on the four fingers.
//! 8. **Sides**: the character faces where its toes point (else +Z); its left is
//!    `up × forward`.
//!
//! End joints (leaves that no vertex is weighted to and no node hangs from: Mixamo `*_End`,
//! `*4`, Godot `*Tip`) are never mapped. Confidences are fixed per decision: 0.9 for the trunk, 0.8 for limbs, 0.6 for
//! fingers.

use std::collections::HashSet;

use glam::Vec3;

use super::detect::{candidates, prune, Mapping, Method};
use crate::asset::Asset;
use crate::model::skeleton::JointId;
use crate::model::HumanBone;

/// Why a rig is not a humanoid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a humanoid: {0}")]
pub struct NotHumanoid(pub String);

/// The rig's joints seen as a tree of candidates with world positions.
struct Rig<'a> {
    asset: &'a Asset,
    joints: Vec<JointId>,
    set: HashSet<JointId>,
    tips: HashSet<JointId>,
    /// Vertical extent of the joints.
    low: f32,
    height: f32,
}

impl<'a> Rig<'a> {
    fn new(asset: &'a Asset) -> Rig<'a> {
        let joints = candidates(asset);
        let set: HashSet<JointId> = joints.iter().copied().collect();
        let weighted: HashSet<JointId> = asset.weighted_joints.iter().copied().collect();
        let mut rig = Rig {
            asset,
            joints,
            set,
            tips: HashSet::new(),
            low: 0.0,
            height: 0.0,
        };
        if !weighted.is_empty() {
            rig.tips = rig
                .joints
                .iter()
                .copied()
                .filter(|j| {
                    // An end joint: no vertex weighted to it and nothing hanging from it (a
                    // joint carrying a rigid mesh node is a real bone).
                    asset.skeleton.children(*j).next().is_none() && !weighted.contains(j)
                })
                .collect();
        }
        let ys: Vec<f32> = rig.joints.iter().map(|j| rig.pos(*j).y).collect();
        rig.low = ys.iter().copied().fold(f32::INFINITY, f32::min);
        let high = ys.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        rig.height = high - rig.low;
        rig
    }

    fn pos(&self, joint: JointId) -> Vec3 {
        self.asset.skeleton.rest_world(joint).translation
    }

    /// Children in the candidate tree (the nearest candidate descendants), tips included.
    fn children(&self, joint: JointId) -> Vec<JointId> {
        let skeleton = &self.asset.skeleton;
        let mut out = Vec::new();
        let mut stack: Vec<JointId> = skeleton.children(joint).collect();
        while let Some(j) = stack.pop() {
            if self.set.contains(&j) {
                out.push(j);
            } else {
                stack.extend(skeleton.children(j));
            }
        }
        out.sort();
        out
    }

    /// Children without tip joints.
    fn real_children(&self, joint: JointId) -> Vec<JointId> {
        self.children(joint)
            .into_iter()
            .filter(|c| !self.tips.contains(c))
            .collect()
    }

    /// Every candidate in the subtree of `joint` (itself included), tips excluded.
    fn subtree(&self, joint: JointId) -> Vec<JointId> {
        let mut out = Vec::new();
        let mut stack = vec![joint];
        while let Some(j) = stack.pop() {
            out.push(j);
            stack.extend(self.real_children(j));
        }
        out
    }

    fn lowest(&self, joint: JointId) -> f32 {
        self.subtree(joint)
            .iter()
            .map(|j| self.pos(*j).y)
            .fold(f32::INFINITY, f32::min)
    }

    fn highest(&self, joint: JointId) -> f32 {
        self.subtree(joint)
            .iter()
            .map(|j| self.pos(*j).y)
            .fold(f32::NEG_INFINITY, f32::max)
    }

    /// The path from `from` down the tree to `to` (both included), if `to` is below `from`.
    fn path(&self, from: JointId, to: JointId) -> Vec<JointId> {
        let skeleton = &self.asset.skeleton;
        let mut path = vec![to];
        let mut current = to;
        while current != from {
            let Some(parent) = skeleton.ancestors(current).find(|a| self.set.contains(a)) else {
                return Vec::new();
            };
            path.push(parent);
            current = parent;
        }
        path.reverse();
        path
    }

    /// The joint of `joint`'s subtree that minimises `key`.
    fn extreme(&self, joint: JointId, key: impl Fn(Vec3) -> f32) -> JointId {
        self.subtree(joint)
            .into_iter()
            .min_by(|a, b| key(self.pos(*a)).total_cmp(&key(self.pos(*b))))
            .unwrap_or(joint)
    }
}

/// Maps `asset` by its shape (see the module docs).
///
/// # Errors
/// [`NotHumanoid`] with the reason when the skeleton is not a humanoid's.
pub fn auto_map(asset: &Asset) -> Result<Mapping, NotHumanoid> {
    let rig = Rig::new(asset);
    if rig.joints.len() < 8 {
        return Err(NotHumanoid(format!(
            "{} joint(s); a humanoid needs at least hips, spine, head, two arms and two legs",
            rig.joints.len()
        )));
    }
    if rig.height <= 0.0 {
        return Err(NotHumanoid("the joints are all at one height".into()));
    }
    let (hips, legs, up) = find_hips(&rig)?;
    let head_top = rig.extreme(up, |p| -p.y);
    check_upright(&rig, hips, head_top, &legs)?;
    let mut mapping = Mapping::new(Method::Auto);
    mapping.set(HumanBone::Hips, hips, 0.9);
    let (branch, arms) = find_branch(&rig, hips, up)?;
    check_arms(&rig, &arms)?;
    spine(&rig, &mut mapping, hips, up, branch);
    neck_and_head(&rig, &mut mapping, branch, &arms);
    let forward = facing(&rig, &legs);
    let left_axis = Vec3::Y.cross(forward);
    let hips_pos = rig.pos(hips);
    let side = |joint: JointId| {
        (rig.pos(rig.extreme(joint, |p| -(p - hips_pos).dot(left_axis).abs())) - hips_pos)
            .dot(left_axis)
            > 0.0
    };
    for leg in legs {
        let left = side(leg);
        map_leg(&rig, &mut mapping, leg, left);
    }
    for arm in arms {
        let left = side(arm);
        map_arm(&rig, &mut mapping, branch, arm, left);
    }
    prune(&asset.skeleton, &mut mapping);
    Ok(mapping)
}

/// Finds the hips, its two leg roots and its up branch.
fn find_hips(rig: &Rig<'_>) -> Result<(JointId, Vec<JointId>, JointId), NotHumanoid> {
    let margin = 0.15 * rig.height;
    let mut found: Option<(usize, JointId, Vec<JointId>, JointId)> = None;
    for &joint in &rig.joints {
        let y = rig.pos(joint).y;
        // A leg drops at least 30 % of the joint's height above the lowest joint (robots and
        // cartoons have short legs; a knee-high end still counts).
        let drop = 0.3 * (y - rig.low);
        let mut legs = Vec::new();
        let mut ups = Vec::new();
        for child in rig.real_children(joint) {
            if rig.highest(child) > y + margin {
                ups.push(child);
            } else if drop > 0.0 && rig.lowest(child) < y - drop {
                // A pelvis joint close to the hips that carries both legs.
                let grand: Vec<JointId> = rig
                    .real_children(child)
                    .into_iter()
                    .filter(|g| rig.lowest(*g) < y - drop)
                    .collect();
                let close = rig.pos(child).distance(rig.pos(joint)) < 0.1 * rig.height;
                if grand.len() == 2 && close {
                    legs.extend(grand);
                } else {
                    legs.push(child);
                }
            }
        }
        // The spine must carry two arms (arms hanging down in the rest pose are not legs).
        if legs.len() == 2 && ups.len() == 1 && find_branch(rig, joint, ups[0]).is_ok() {
            let depth = rig.asset.skeleton.ancestors(joint).count();
            if found.as_ref().is_none_or(|(d, ..)| depth > *d) {
                found = Some((depth, joint, legs, ups[0]));
            }
        }
    }
    found
        .map(|(_, hips, legs, up)| (hips, legs, up))
        .ok_or_else(|| {
            NotHumanoid(
                "no joint has two legs reaching down and a spine reaching up (the hips)".into(),
            )
        })
}

/// The spine rises and both legs reach the ground.
fn check_upright(
    rig: &Rig<'_>,
    hips: JointId,
    top: JointId,
    legs: &[JointId],
) -> Result<(), NotHumanoid> {
    let rise = rig.pos(top) - rig.pos(hips);
    if rise.y < 0.7 * rise.length() {
        return Err(NotHumanoid(format!(
            "the spine runs {:.0}° from vertical (a body carried horizontally, like a quadruped's)",
            rise.angle_between(Vec3::Y).to_degrees()
        )));
    }
    let _ = legs;
    Ok(())
}

/// The joint up the spine where both arms leave, and the two arm roots.
fn find_branch(
    rig: &Rig<'_>,
    hips: JointId,
    up: JointId,
) -> Result<(JointId, Vec<JointId>), NotHumanoid> {
    let axis_x = rig.pos(hips);
    let reach = |joint: JointId| {
        rig.subtree(joint)
            .iter()
            .map(|j| {
                let p = rig.pos(*j) - axis_x;
                Vec3::new(p.x, 0.0, p.z).length()
            })
            .fold(0.0f32, f32::max)
    };
    let mut current = up;
    loop {
        let children = rig.real_children(current);
        let arms: Vec<JointId> = children
            .iter()
            .copied()
            .filter(|c| reach(*c) > 0.2 * rig.height)
            .collect();
        if arms.len() >= 2 {
            let mut arms = arms;
            arms.sort_by(|a, b| reach(*b).total_cmp(&reach(*a)));
            arms.truncate(2);
            return Ok((current, arms));
        }
        // Go on up: the child that reaches highest.
        let Some(next) = children
            .iter()
            .copied()
            .max_by(|a, b| rig.highest(*a).total_cmp(&rig.highest(*b)))
        else {
            return Err(NotHumanoid("no two arms leave the spine".into()));
        };
        current = next;
    }
}

/// Arms must end above the ground (a quadruped's front legs do not).
fn check_arms(rig: &Rig<'_>, arms: &[JointId]) -> Result<(), NotHumanoid> {
    for &arm in arms {
        if rig.lowest(arm) < rig.low + 0.1 * rig.height {
            return Err(NotHumanoid(
                "the limbs leaving the upper body reach the ground: front legs, not arms".into(),
            ));
        }
    }
    Ok(())
}

fn spine(rig: &Rig<'_>, mapping: &mut Mapping, hips: JointId, up: JointId, branch: JointId) {
    let path = rig.path(up, branch);
    let between: Vec<JointId> = path.iter().copied().filter(|j| *j != branch).collect();
    match between.as_slice() {
        [] => mapping.set(HumanBone::Spine, branch, 0.9),
        [one] => {
            mapping.set(HumanBone::Spine, *one, 0.9);
            mapping.set(HumanBone::Chest, branch, 0.9);
        }
        [first, .., last] => {
            mapping.set(HumanBone::Spine, *first, 0.9);
            mapping.set(HumanBone::Chest, *last, 0.8);
            mapping.set(HumanBone::UpperChest, branch, 0.8);
        }
    }
    let _ = hips;
}

fn neck_and_head(rig: &Rig<'_>, mapping: &mut Mapping, branch: JointId, arms: &[JointId]) {
    let Some(start) = rig
        .real_children(branch)
        .into_iter()
        .filter(|c| !arms.contains(c))
        .max_by(|a, b| rig.highest(*a).total_cmp(&rig.highest(*b)))
    else {
        return;
    };
    let mut chain = vec![start];
    let mut current = start;
    loop {
        let children = rig.real_children(current);
        if children.len() != 1 {
            break;
        }
        current = children[0];
        chain.push(current);
    }
    match chain.as_slice() {
        [head] => mapping.set(HumanBone::Head, *head, 0.8),
        [neck, .., head] => {
            mapping.set(HumanBone::Neck, *neck, 0.9);
            mapping.set(HumanBone::Head, *head, 0.9);
        }
        [] => {}
    }
}

/// Where the character faces: the mean horizontal direction from each leg's foot to its
/// lowest, most forward joint; +Z when that cannot be told.
fn facing(rig: &Rig<'_>, legs: &[JointId]) -> Vec3 {
    let mut sum = Vec3::ZERO;
    for &leg in legs {
        let chain = leg_chain(rig, leg);
        if let Some(foot) = foot_index(rig, &chain) {
            if let (Some(&f), Some(&t)) = (chain.get(foot), chain.get(foot + 1)) {
                let d = rig.pos(t) - rig.pos(f);
                sum += Vec3::new(d.x, 0.0, d.z);
            }
        }
    }
    if sum.length() > 1e-6 {
        sum.normalize()
    } else {
        Vec3::Z
    }
}

/// The chain from a leg root to its lowest joint.
fn leg_chain(rig: &Rig<'_>, leg: JointId) -> Vec<JointId> {
    let lowest = rig.extreme(leg, |p| p.y);
    let mut chain = rig.path(leg, lowest);
    // Past the lowest joint, a forward-going single child (toes below the ankle level) counts.
    if let Some(&last) = chain.last() {
        if let [only] = rig.real_children(last).as_slice() {
            chain.push(*only);
        }
    }
    chain
}

/// The index of the foot (ankle) in a leg chain: the first joint after the knee that lies in
/// the bottom fifth of the leg's height, when the leg reaches the ground.
fn foot_index(rig: &Rig<'_>, chain: &[JointId]) -> Option<usize> {
    let top = rig.pos(*chain.first()?).y;
    let bottom = chain
        .iter()
        .map(|j| rig.pos(*j).y)
        .fold(f32::INFINITY, f32::min);
    if bottom > rig.low + 0.1 * rig.height {
        return None;
    }
    let threshold = bottom + 0.2 * (top - bottom);
    (2..chain.len()).find(|&i| rig.pos(chain[i]).y < threshold)
}

fn map_leg(rig: &Rig<'_>, mapping: &mut Mapping, leg: JointId, left: bool) {
    use HumanBone::*;
    let chain = leg_chain(rig, leg);
    let (upper, lower, foot, toes) = if left {
        (LeftUpperLeg, LeftLowerLeg, LeftFoot, LeftToes)
    } else {
        (RightUpperLeg, RightLowerLeg, RightFoot, RightToes)
    };
    let Some(&hip) = chain.first() else {
        return;
    };
    mapping.set(upper, hip, 0.8);
    match foot_index(rig, &chain) {
        Some(at) => {
            if let Some(knee) = chain.get(..=at).and_then(|c| midway(rig, c)) {
                mapping.set(lower, knee, 0.8);
            }
            if let Some(&ankle) = chain.get(at) {
                mapping.set(foot, ankle, 0.8);
            }
            if let Some(&toe) = chain.get(at + 1) {
                mapping.set(toes, toe, 0.7);
            }
        }
        // A leg that ends above the ground (the feet hang elsewhere, as in IK rigs): hip and
        // knee only.
        None => {
            if let [_, knee] = chain.as_slice() {
                mapping.set(lower, *knee, 0.7);
            }
        }
    }
}

/// The joint strictly inside `chain` nearest half way along it (by path length), if it lies
/// between 30 % and 70 % of the way.
fn midway(rig: &Rig<'_>, chain: &[JointId]) -> Option<JointId> {
    let mut along = vec![0.0f32];
    for pair in chain.windows(2) {
        let d = rig.pos(pair[1]).distance(rig.pos(pair[0]));
        along.push(along.last().copied().unwrap_or(0.0) + d);
    }
    let total = along.last().copied().unwrap_or(0.0);
    if total <= 0.0 || chain.len() < 3 {
        return None;
    }
    (1..chain.len() - 1)
        .filter(|&i| (0.3..=0.7).contains(&(along[i] / total)))
        .min_by(|&a, &b| {
            (along[a] / total - 0.5)
                .abs()
                .total_cmp(&(along[b] / total - 0.5).abs())
        })
        .map(|i| chain[i])
}

fn map_arm(rig: &Rig<'_>, mapping: &mut Mapping, branch: JointId, arm: JointId, left: bool) {
    use HumanBone::*;
    let (shoulder, upper, lower, hand) = if left {
        (LeftShoulder, LeftUpperArm, LeftLowerArm, LeftHand)
    } else {
        (RightShoulder, RightUpperArm, RightLowerArm, RightHand)
    };
    let origin = rig.pos(branch);
    let far = rig.extreme(arm, |p| -(p - origin).length());
    let path = rig.path(arm, far);
    // The hand: the first joint that branches, when its children sit close to it (fingers);
    // a branching joint whose children are a forearm's length away is a forearm carrying
    // palms (no hand). A chain that never branches ends at the hand.
    let branch_at = path
        .iter()
        .enumerate()
        .position(|(i, &j)| i > 0 && rig.real_children(j).len() >= 2);
    let (arm_chain, hand_joint) = match branch_at {
        Some(i) => {
            let j = path[i];
            let parent_len = rig.pos(j).distance(rig.pos(path[i - 1]));
            let mut spans: Vec<f32> = rig
                .real_children(j)
                .iter()
                .map(|c| rig.pos(*c).distance(rig.pos(j)))
                .collect();
            spans.sort_by(f32::total_cmp);
            let close = spans.get(spans.len() / 2).is_some_and(|s| *s < parent_len);
            (&path[..=i], close.then_some(j))
        }
        None => (&path[..], path.last().copied()),
    };
    // Shoulder: a first short segment before the upper arm, when the chain is long enough.
    let needed = if hand_joint.is_some() { 4 } else { 3 };
    let start = if arm_chain.len() >= needed {
        let total: f32 = arm_chain
            .windows(2)
            .map(|w| rig.pos(w[1]).distance(rig.pos(w[0])))
            .sum();
        let first = rig.pos(arm_chain[1]).distance(rig.pos(arm_chain[0]));
        usize::from(first < 0.35 * total)
    } else {
        0
    };
    if start == 1 {
        mapping.set(shoulder, arm_chain[0], 0.7);
    }
    let limb = &arm_chain[start..];
    let Some(&upper_joint) = limb.first() else {
        return;
    };
    mapping.set(upper, upper_joint, 0.8);
    match hand_joint {
        Some(h) => {
            mapping.set(hand, h, 0.8);
            if let Some(elbow) = midway(rig, limb) {
                mapping.set(lower, elbow, 0.8);
            }
            fingers(rig, mapping, h, left);
        }
        None => {
            // No hand: the chain ends at the wrist or at palms; the elbow is the last joint
            // only when the chain is the upper arm and forearm.
            if let [_, elbow, ..] = limb {
                mapping.set(lower, *elbow, 0.7);
            }
        }
    }
}

fn fingers(rig: &Rig<'_>, mapping: &mut Mapping, hand: JointId, left: bool) {
    use HumanBone::*;
    let chains: Vec<Vec<JointId>> = rig
        .real_children(hand)
        .into_iter()
        .map(|c| {
            let end = rig.extreme(c, |p| -(p - rig.pos(hand)).length());
            rig.path(c, end)
        })
        .collect();
    // Five fingers, or a cartoon four (thumb, index, middle and one more, which is left out:
    // it could be the ring or the little finger).
    if chains.len() != 5 && chains.len() != 4 {
        return;
    }
    let count = chains.len();
    // The thumb leaves the hand at the widest angle from the others' mean direction.
    let dir =
        |chain: &[JointId]| (rig.pos(chain[chain.len() - 1]) - rig.pos(hand)).normalize_or_zero();
    let mean: Vec3 = chains
        .iter()
        .map(|c| dir(c))
        .sum::<Vec3>()
        .normalize_or_zero();
    let Some(thumb) = (0..count).max_by(|&a, &b| {
        dir(&chains[b])
            .dot(mean)
            .total_cmp(&dir(&chains[a]).dot(mean))
    }) else {
        return;
    };
    // The others in order of distance from the thumb's base.
    let thumb_base = rig.pos(chains[thumb][0]);
    let mut others: Vec<usize> = (0..count).filter(|&i| i != thumb).collect();
    others.truncate(if count == 5 { 4 } else { 2 });
    others.sort_by(|&a, &b| {
        rig.pos(chains[a][0])
            .distance(thumb_base)
            .total_cmp(&rig.pos(chains[b][0]).distance(thumb_base))
    });
    let names: [[HumanBone; 3]; 5] = if left {
        [
            [LeftThumbMetacarpal, LeftThumbProximal, LeftThumbDistal],
            [LeftIndexProximal, LeftIndexIntermediate, LeftIndexDistal],
            [LeftMiddleProximal, LeftMiddleIntermediate, LeftMiddleDistal],
            [LeftRingProximal, LeftRingIntermediate, LeftRingDistal],
            [LeftLittleProximal, LeftLittleIntermediate, LeftLittleDistal],
        ]
    } else {
        [
            [RightThumbMetacarpal, RightThumbProximal, RightThumbDistal],
            [RightIndexProximal, RightIndexIntermediate, RightIndexDistal],
            [
                RightMiddleProximal,
                RightMiddleIntermediate,
                RightMiddleDistal,
            ],
            [RightRingProximal, RightRingIntermediate, RightRingDistal],
            [
                RightLittleProximal,
                RightLittleIntermediate,
                RightLittleDistal,
            ],
        ]
    };
    for (finger, index) in std::iter::once(thumb).chain(others).enumerate() {
        let chain = finger_segments(rig, hand, &chains[index], finger == 0);
        for (bone, joint) in names[finger].iter().zip(chain) {
            mapping.set(*bone, *joint, 0.6);
        }
    }
}

/// The canonical joints of a finger chain: for a finger (not the thumb), a first joint that
/// sits near the wrist (less than half as far from the hand joint as the next one) is a
/// metacarpal, which the canonical set does not have, and is skipped; then the first three
/// joints (an end joint beyond them is not a phalanx).
fn finger_segments<'c>(
    rig: &Rig<'_>,
    hand: JointId,
    chain: &'c [JointId],
    thumb: bool,
) -> &'c [JointId] {
    let from_hand = |i: usize| {
        chain
            .get(i)
            .map_or(0.0, |j| rig.pos(*j).distance(rig.pos(hand)))
    };
    let skip = usize::from(!thumb && chain.len() >= 4 && from_hand(0) < 0.5 * from_hand(1));
    let rest = chain.get(skip..).unwrap_or_default();
    rest.get(..rest.len().min(3)).unwrap_or_default()
}
