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
//!    branches (eyes, jaw, hair) or the last one; joints below it are the neck. A last joint
//!    whose only child hangs below the hips (a joint out of place, as joe_1.1's skullbase at
//!    the origin) leaves the head missing.
//! 5. **Arms**: the chain from the branch out to the farthest joint. The hand is where the
//!    fingers start: a joint with several children close to it (a "hand" whose children are a
//!    forearm's length away is a forearm with palms, as in RobotExpressive: no hand then). The
//!    elbow is the joint nearest half way along the chain; leading short segments before the
//!    upper arm (each under 0.35 of the rest) are the shoulder. A chain that never branches is
//!    read from its segment lengths only where they leave no doubt: a forearm is 0.6–1.67
//!    times the upper arm, a clavicle under 0.6 times; a chain that ends at the elbow (no
//!    hand) never has its forearm taken for a hand, and a joint beyond the hand must be
//!    shorter than the forearm.
//! 6. **Legs**: the chain down each leg; the foot is where it turns forward, the knee the joint
//!    nearest half way from hip to foot, the toes the joint after the foot when at most an end
//!    joint follows it, it lies at least a tenth of the leg's length from the ankle and ahead
//!    of it (not the midfoot or the heel).
//! 7. **Fingers**: with five finger chains, or four (thumb, index, middle; the fourth is left
//!    out: ring or little cannot be told), each at least two joints that never branch (not
//!    H-Anim's midcarpals, not bare metacarpals), ordered across the hand
//!    from the thumb (the chain that leaves the hand at the widest angle) along the line the
//!    finger bases make; the first three joints of each chain, after a metacarpal (a first
//!    joint near the wrist, or one joint more than the thumb has) on the four fingers.
//! 8. **Sides**: the shape finds the facing: forward is horizontal, at right angles to the
//!    line between the hip joints, and which way along it is told by both feet (the toes reach
//!    farther from the ankle than the heel), else by both elbows (a bent arm's elbow points
//!    back); its left is `up × forward`. Where the shape tells it, it wins over names (which
//!    may say the viewer's left, or lie). Otherwise names that carry a side (`l-`, `L_`, `.l`,
//!    `Left…`, `gauche`, …, see [`super::normalize`]) tell it: when the two legs' (arms')
//!    joint names say opposite sides. Where nothing tells it (a T-pose with no feet and no
//!    sided names), or the cues disagree, the arms and legs are left missing: the file
//!    format's convention (+Z) is not trusted, as a rig may be turned.
//!
//! **Up.** The rig is read +Y up. When that finds no humanoid and the rig is longer by a
//! quarter along another axis than along Y (a rig authored Z-up and read without conversion
//! lies down), each other axis is tried as up and the one that maps the most bones wins.
//!
//! A bone the rig does not have stays missing: a neighbour never fills it.
//! `tests/library/automap.rs` checks this on the mannequin and every corpus rig turned to face
//! −Z and +X, Z-up, in an A-pose, renamed (side conventions, meaningless, mirrored, French),
//! with parts removed, with control bones, IK/FK duplicate arms and twist joints, and scaled;
//! [`super::solve`] weighs this answer against the tables' names.
//!
//! End joints (leaves that no vertex is weighted to and no node hangs from: Mixamo `*_End`,
//! `*4`, Godot `*Tip`; in a skinless rig, a leaf node where its parent is: the parent's mesh)
//! are never mapped, and neither are helpers: twist joints (an end joint on the segment from
//! its parent to a sibling) and, in a skinned rig, chains no vertex is weighted to that carry
//! nothing (IK/FK duplicates, control rigs). A leg or an arm is at least two joints (a lone
//! joint is a pole or look target). Confidences are fixed per decision: 0.9 for the trunk, 0.8
//! for limbs, 0.6 for fingers.

use std::collections::HashSet;

use glam::{Quat, Vec3};

use super::detect::{candidates, prune, Mapping, Method};
use super::normalize::{key, Side};
use crate::model::asset::Asset;
use crate::model::skeleton::JointId;
use crate::model::HumanBone;

/// Why a rig is not a humanoid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a humanoid: {0}")]
pub struct NotHumanoid(pub String);

/// The rig's joints seen as a tree of candidates with world positions.
struct Rig<'a> {
    asset: &'a Asset,
    /// Turns the file's space so the rig's up is +Y (identity for a Y-up rig; see
    /// [`auto_map`] for how other ups are tried).
    turn: Quat,
    joints: Vec<JointId>,
    set: HashSet<JointId>,
    tips: HashSet<JointId>,
    /// Vertical extent of the joints.
    low: f32,
    height: f32,
}

impl<'a> Rig<'a> {
    fn new(asset: &'a Asset, turn: Quat) -> Rig<'a> {
        let joints = candidates(asset);
        let set: HashSet<JointId> = joints.iter().copied().collect();
        let weighted: HashSet<JointId> = asset.weighted_joints.iter().copied().collect();
        let mut rig = Rig {
            asset,
            turn,
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
        let helpers = helpers(&rig, &weighted);
        rig.tips.extend(helpers);
        let ys: Vec<f32> = rig.joints.iter().map(|j| rig.pos(*j).y).collect();
        rig.low = ys.iter().copied().fold(f32::INFINITY, f32::min);
        let high = ys.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        rig.height = high - rig.low;
        if weighted.is_empty() {
            // A skinless rig (rigid meshes on nodes): a leaf node where its parent is is the
            // parent's mesh, not a bone.
            let skeleton = &asset.skeleton;
            let zero = 1e-4 * rig.height;
            let meshes: Vec<JointId> = rig
                .joints
                .iter()
                .copied()
                .filter(|j| {
                    skeleton.children(*j).next().is_none()
                        && skeleton
                            .parent(*j)
                            .is_some_and(|p| rig.pos(p).distance(rig.pos(*j)) <= zero)
                })
                .collect();
            rig.tips.extend(meshes);
        }
        rig
    }

    fn pos(&self, joint: JointId) -> Vec3 {
        self.turn * self.asset.skeleton.rest_world(joint).translation
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

    /// The lowest point of `joint`'s subtree, its end joints included (where a leg's last
    /// bone ends, when its foot is an end joint or hangs elsewhere).
    fn reach_low(&self, joint: JointId) -> f32 {
        let mut low = self.pos(joint).y;
        let mut stack = vec![joint];
        while let Some(j) = stack.pop() {
            for child in self.children(j) {
                low = low.min(self.pos(child).y);
                if !self.tips.contains(&child) {
                    stack.push(child);
                }
            }
        }
        low
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

/// Joints that are no bone of the body in a skinned rig: a chain no vertex is weighted to
/// and that carries nothing (IK and FK duplicates of an arm, control chains), and twist
/// joints (an end joint lying on the segment from its parent to a sibling: Unreal's
/// `upperarm_twist_01_l` beside `lowerarm_l`).
fn helpers(rig: &Rig<'_>, weighted: &HashSet<JointId>) -> Vec<JointId> {
    let skeleton = &rig.asset.skeleton;
    let mut carries = vec![false; skeleton.len()];
    // Parents first, so children are done before their parents when walked backwards.
    let order: Vec<JointId> = skeleton.joints().collect();
    for &joint in order.iter().rev() {
        let own =
            weighted.contains(&joint) || skeleton.children(joint).any(|c| !rig.set.contains(&c));
        let below = skeleton
            .children(joint)
            .any(|c| carries.get(c.index()).copied().unwrap_or(false));
        if let Some(slot) = carries.get_mut(joint.index()) {
            *slot = own || below;
        }
    }
    // Without weights (a BVH, a skinless rig) every chain counts as carrying.
    let mut out: HashSet<JointId> = rig
        .joints
        .iter()
        .copied()
        .filter(|j| !weighted.is_empty() && !carries.get(j.index()).copied().unwrap_or(true))
        .collect();
    let mut twists = Vec::new();
    // Each parent's children, found once (a joint with many leaves would otherwise be walked
    // once per leaf); a joint with more than eight is no limb segment, and its children are
    // not looked at as twists.
    let mut siblings: std::collections::HashMap<JointId, Vec<JointId>> =
        std::collections::HashMap::new();
    for &joint in &rig.joints {
        let is_end = rig.real_children(joint).iter().all(|c| out.contains(c));
        let Some(parent) = skeleton.ancestors(joint).find(|a| rig.set.contains(a)) else {
            continue;
        };
        if !is_end || out.contains(&joint) {
            continue;
        }
        let kids = siblings
            .entry(parent)
            .or_insert_with(|| rig.real_children(parent));
        if kids.len() > 8 {
            continue;
        }
        let at = rig.pos(joint) - rig.pos(parent);
        let on_a_segment = kids.iter().copied().any(|sibling| {
            if sibling == joint || out.contains(&sibling) {
                return false;
            }
            let segment = rig.pos(sibling) - rig.pos(parent);
            let length = segment.length();
            if length <= 0.0 {
                return false;
            }
            let along = at.dot(segment) / (length * length);
            let off = (at - segment * along).length();
            (0.1..=0.9).contains(&along) && off <= 0.1 * length
        });
        if on_a_segment {
            twists.push(joint);
        }
    }
    out.extend(twists);
    let mut out: Vec<JointId> = out.into_iter().collect();
    out.sort();
    out
}

/// Maps `asset` by its shape (see the module docs).
///
/// # Errors
/// [`NotHumanoid`] with the reason when the skeleton is not a humanoid's.
pub fn auto_map(asset: &Asset) -> Result<Mapping, NotHumanoid> {
    let upright = map_turned(asset, Quat::IDENTITY);
    if upright.is_ok() {
        return upright;
    }
    // Not a humanoid standing up +Y: a rig authored Z-up (or lying along another axis) and
    // read without conversion. Each other axis is tried as up; the one that maps the most
    // bones wins (ties to the order below), else the upright reason stands.
    // Only an axis along which the rig is longer by a quarter than along +Y is tried (a rig
    // lying down), so a standing rig the shape cannot read is not read on its side.
    let joints = candidates(asset);
    let extent = |axis: Vec3| {
        let along = joints
            .iter()
            .map(|j| asset.skeleton.rest_world(*j).translation.dot(axis));
        let (low, high) = along.fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
        high - low
    };
    let tall = extent(Vec3::Y);
    let quarter = std::f32::consts::FRAC_PI_2;
    let turns = [
        Quat::from_rotation_x(-quarter),             // +Z up
        Quat::from_rotation_x(quarter),              // -Z up
        Quat::from_rotation_z(quarter),              // +X up
        Quat::from_rotation_z(-quarter),             // -X up
        Quat::from_rotation_x(std::f32::consts::PI), // -Y up
    ];
    let mut best: Option<Mapping> = None;
    for turn in turns {
        // The file's axis this turn makes up.
        let up = turn.inverse() * Vec3::Y;
        if extent(up) <= 1.25 * tall {
            continue;
        }
        if let Ok(mapping) = map_turned(asset, turn) {
            if best.as_ref().is_none_or(|b| mapping.score() > b.score()) {
                best = Some(mapping);
            }
        }
    }
    match best {
        Some(mapping) => Ok(mapping),
        None => upright,
    }
}

/// [`auto_map`] with the rig's positions turned by `turn` first.
fn map_turned(asset: &Asset, turn: Quat) -> Result<Mapping, NotHumanoid> {
    let rig = Rig::new(asset, turn);
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
    neck_and_head(&rig, &mut mapping, hips, branch, &arms);
    // Which way is left: names that carry a side win (a limb pair whose names say opposite
    // sides); else the shape's facing; else the sides the other pair's names tell. Limbs whose
    // side none of these tells are left out: never guessed.
    let legs_named = named_sides(&rig, &legs);
    let arms_named = named_sides(&rig, &arms);
    let hips_pos = rig.pos(hips);
    let cue = facing(&rig, &legs, &arms, branch);
    // The shape's facing (the feet, the elbows) tells the sides more surely than names, which
    // may say the viewer's left, or lie.
    let shape_tells = cue.is_some();
    let left_axis = cue.map(|forward| Vec3::Y.cross(forward)).or_else(|| {
        let (pair, named) = match (&legs_named, &arms_named) {
            (Some(named), _) => (&legs, named),
            (None, Some(named)) => (&arms, named),
            (None, None) => return None,
        };
        let across = centroid(&rig, pair[0]) - centroid(&rig, pair[1]);
        let across = Vec3::new(across.x, 0.0, across.z).normalize_or_zero();
        let across = if named[0] { across } else { -across };
        (across != Vec3::ZERO).then_some(across)
    });
    let forward = left_axis.map(|left| left.cross(Vec3::Y));
    let side = |joint: JointId, left_axis: Vec3| {
        (rig.pos(rig.extreme(joint, |p| -(p - hips_pos).dot(left_axis).abs())) - hips_pos)
            .dot(left_axis)
            > 0.0
    };
    let sides = |pair: &[JointId], named: &Option<Vec<bool>>| -> Vec<Option<bool>> {
        match (named.as_ref().filter(|_| !shape_tells), left_axis) {
            (Some(named), _) => named.iter().map(|s| Some(*s)).collect(),
            (None, Some(axis)) => {
                let found: Vec<bool> = pair.iter().map(|j| side(*j, axis)).collect();
                // Two limbs on one side: the shape is misread; neither is trusted.
                if found.len() == 2 && found[0] == found[1] {
                    vec![None; pair.len()]
                } else {
                    found.into_iter().map(Some).collect()
                }
            }
            (None, None) => vec![None; pair.len()],
        }
    };
    for (leg, left) in legs.iter().zip(sides(&legs, &legs_named)) {
        if let Some(left) = left {
            map_leg(&rig, &mut mapping, *leg, left, forward);
        }
    }
    for (arm, left) in arms.iter().zip(sides(&arms, &arms_named)) {
        if let Some(left) = left {
            map_arm(&rig, &mut mapping, branch, *arm, left);
        }
    }
    prune(&asset.skeleton, &mut mapping);
    Ok(mapping)
}

/// The side the names of a limb's joints carry (`true`: left), when most of those that carry one
/// say the same.
fn name_side(rig: &Rig<'_>, limb: JointId) -> Option<bool> {
    let (mut left, mut right) = (0usize, 0usize);
    for joint in rig.subtree(limb) {
        match key(rig.asset.skeleton.name(joint), &[]).side {
            Side::Left => left += 1,
            Side::Right => right += 1,
            Side::None => {}
        }
    }
    match left.cmp(&right) {
        std::cmp::Ordering::Greater => Some(true),
        std::cmp::Ordering::Less => Some(false),
        std::cmp::Ordering::Equal => None,
    }
}

/// The sides a pair of limbs' names carry, when they say opposite sides.
fn named_sides(rig: &Rig<'_>, pair: &[JointId]) -> Option<Vec<bool>> {
    match pair
        .iter()
        .map(|j| name_side(rig, *j))
        .collect::<Vec<_>>()
        .as_slice()
    {
        [Some(a), Some(b)] if a != b => Some(vec![*a, *b]),
        _ => None,
    }
}

/// The mean position of the joints of `joint`'s subtree.
fn centroid(rig: &Rig<'_>, joint: JointId) -> Vec3 {
    let joints = rig.subtree(joint);
    joints.iter().map(|j| rig.pos(*j)).sum::<Vec3>() / joints.len().max(1) as f32
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
            } else if drop > 0.0
                && rig.reach_low(child) < y - drop
                && !rig.real_children(child).is_empty()
            {
                // A leg is at least two joints (a hip and a knee): a lone joint hanging down
                // is a knee pole target or a holster.
                // A pelvis joint close to the hips that carries both legs.
                let grand: Vec<JointId> = rig
                    .real_children(child)
                    .into_iter()
                    .filter(|g| rig.reach_low(*g) < y - drop)
                    .collect();
                let close = rig.pos(child).distance(rig.pos(joint)) < 0.1 * rig.height;
                if grand.len() == 2 && close {
                    legs.extend(grand);
                } else {
                    legs.push(child);
                }
            }
        }
        // Several branches up: the spine is the one that reaches highest, when each other
        // reaches less than half as high (a loincloth, a tail, a holster).
        if ups.len() > 1 {
            let rise = |c: &JointId| rig.highest(*c) - y;
            ups.sort_by(|a, b| rise(b).total_cmp(&rise(a)));
            let top = ups.first().map_or(0.0, rise);
            if ups.iter().skip(1).all(|c| rise(c) < 0.5 * top) {
                ups.truncate(1);
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
            // An arm is at least two joints: a lone joint reaching out is a look target.
            .filter(|c| reach(*c) > 0.2 * rig.height && !rig.real_children(*c).is_empty())
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

/// Arms must end above the ground, by more than a twentieth of the height (a quadruped's front
/// legs do not; a long-armed robot in an A-pose does).
fn check_arms(rig: &Rig<'_>, arms: &[JointId]) -> Result<(), NotHumanoid> {
    for &arm in arms {
        if rig.lowest(arm) < rig.low + 0.05 * rig.height {
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
        [first, .., last] if between.len() <= 3 => {
            mapping.set(HumanBone::Spine, *first, 0.9);
            mapping.set(HumanBone::Chest, *last, 0.8);
            mapping.set(HumanBone::UpperChest, branch, 0.8);
        }
        // A vertebra per joint (H-Anim): which of them is the chest is a convention the shape
        // does not tell; the spine only.
        [first, ..] => mapping.set(HumanBone::Spine, *first, 0.9),
    }
    let _ = hips;
}

fn neck_and_head(
    rig: &Rig<'_>,
    mapping: &mut Mapping,
    hips: JointId,
    branch: JointId,
    arms: &[JointId],
) {
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
    // A single child that hangs below the hips: a joint out of place (H-Anim's joe puts its
    // skullbase at the feet), which may be the head itself: the head is not told.
    let misplaced = loop {
        let children = rig.real_children(current);
        // The head goes on up: a single child that hangs below (a prop, a gauge) is not it.
        if children.len() != 1 || rig.highest(children[0]) <= rig.pos(current).y {
            break matches!(children.as_slice(), [only] if rig.lowest(*only) < rig.pos(hips).y);
        }
        current = children[0];
        chain.push(current);
    };
    match chain.as_slice() {
        [head] if !misplaced => mapping.set(HumanBone::Head, *head, 0.8),
        [neck, .., head] => {
            mapping.set(HumanBone::Neck, *neck, 0.9);
            if !misplaced {
                mapping.set(HumanBone::Head, *head, 0.9);
            }
        }
        _ => {}
    }
}

/// Where the character faces: across the hips (horizontal, at right angles to the line
/// between the two hip joints); which of the two ways is told by the feet (the toes reach farther
/// from the ankle than the heel, [`foot_way`]), else by the elbows (a bent arm's elbow points
/// back, [`elbow_way`]). Each cue counts only when both limbs tell it and agree; `None` when no
/// cue tells it, or the feet and the elbows disagree: the sides are then not told by the shape.
fn facing(rig: &Rig<'_>, legs: &[JointId], arms: &[JointId], branch: JointId) -> Option<Vec3> {
    let [a, b] = legs else {
        return None;
    };
    // The line between the hip joints, else (legs from one point) between the legs' middles.
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    let mut across = flat(rig.pos(*a) - rig.pos(*b));
    if across.length() < 0.01 * rig.height {
        across = flat(centroid(rig, *a) - centroid(rig, *b));
    }
    if across.length() < 0.01 * rig.height {
        return None;
    }
    let axis = Vec3::Y.cross(across).normalize();
    let both = |ways: Vec<Option<f32>>| match ways.as_slice() {
        [Some(a), Some(b)] if a == b => Some(*a),
        _ => None,
    };
    let feet = both(legs.iter().map(|l| foot_way(rig, *l, axis)).collect());
    let elbows = both(
        arms.iter()
            .map(|a| elbow_way(rig, branch, *a, axis))
            .collect(),
    );
    match (feet, elbows) {
        (Some(f), Some(e)) if f != e => None,
        (Some(way), _) | (None, Some(way)) => Some(axis * way),
        (None, None) => None,
    }
}

/// Which way along `axis` (±1) a leg's foot points: the joints of the foot (below the ankle)
/// reach at least 1.5 times as far one way from the ankle as the other (the toes ahead, the
/// heel behind), and at least 2 % of the rig's height; `None` when the leg has no foot or the
/// foot is not clearly longer one way.
fn foot_way(rig: &Rig<'_>, leg: JointId, axis: Vec3) -> Option<f32> {
    let chain = leg_chain(rig, leg);
    let foot = *chain.get(foot_index(rig, &chain)?)?;
    let at = rig.pos(foot);
    let (mut ahead, mut behind) = (0.0f32, 0.0f32);
    for joint in rig.subtree(foot) {
        let d = (rig.pos(joint) - at).dot(axis);
        ahead = ahead.max(d);
        behind = behind.max(-d);
    }
    clear_way(ahead, behind, 1.5, 0.02 * rig.height)
}

/// `1` when `plus` is at least `ratio` times `minus` and at least `least`, `-1` the other way
/// round, else `None`.
fn clear_way(plus: f32, minus: f32, ratio: f32, least: f32) -> Option<f32> {
    if plus >= ratio * minus && plus >= least {
        Some(1.0)
    } else if minus >= ratio * plus && minus >= least {
        Some(-1.0)
    } else {
        None
    }
}

/// Which way along `axis` (±1) a bent arm's end comes: the elbow (the joint of the chain out
/// to the arm's farthest joint that lies farthest from the line joining the chain's ends)
/// points back, so the arm's end comes the other way. Told only when the elbow sits off the
/// line mostly along `axis` (not up, down or out) and by at least 6 % of the chain's length;
/// a straight arm (a T-pose, an A-pose) tells nothing.
fn elbow_way(rig: &Rig<'_>, branch: JointId, arm: JointId, axis: Vec3) -> Option<f32> {
    let origin = rig.pos(branch);
    let far = rig.extreme(arm, |p| -(p - origin).length());
    let path = rig.path(arm, far);
    let [first, inner @ .., last] = path.as_slice() else {
        return None;
    };
    let (start, end) = (rig.pos(*first), rig.pos(*last));
    let line = end - start;
    if inner.is_empty() || line.length_squared() <= 0.0 {
        return None;
    }
    let length: f32 = path
        .windows(2)
        .map(|w| rig.pos(w[1]).distance(rig.pos(w[0])))
        .sum();
    let off = inner
        .iter()
        .map(|j| {
            let p = rig.pos(*j) - start;
            p - line * (p.dot(line) / line.length_squared())
        })
        .max_by(|a, b| a.length().total_cmp(&b.length()))?;
    let along = off.dot(axis);
    if along.abs() < 0.5 * off.length() || along.abs() < 0.06 * length {
        return None;
    }
    // The elbow behind: the arm's end comes forward.
    Some(-along.signum())
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
    let at = (2..chain.len()).find(|&i| rig.pos(chain[i]).y < threshold)?;
    // A step before it that goes more forward than down is the foot itself (short legs, big
    // feet): the ankle is the joint before the toes.
    if at > 2 {
        let d = rig.pos(chain[at]) - rig.pos(chain[at - 1]);
        if Vec3::new(d.x, 0.0, d.z).length() >= 0.7 * d.y.abs() {
            return Some(at - 1);
        }
    }
    Some(at)
}

/// Maps a leg (`left` or right); `forward`, where the character faces, when known.
fn map_leg(rig: &Rig<'_>, mapping: &mut Mapping, leg: JointId, left: bool, forward: Option<Vec3>) {
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
            // The toes: the joint after the ankle, when at most an end joint follows it (with
            // more, as in H-Anim's tarsal and metatarsal joints, which one is the toes is not
            // told by the shape).
            // The toes (the ball of the foot) also lie at least a tenth of the leg's length
            // from the ankle, and ahead of it where the facing is known (a joint close under
            // or behind the ankle is the midfoot or the heel).
            if let Some(&toe) = chain.get(at + 1).filter(|_| chain.len() <= at + 3) {
                let ankle = rig.pos(chain[at]);
                let d = rig.pos(toe) - ankle;
                let leg: f32 = chain[..=at]
                    .windows(2)
                    .map(|w| rig.pos(w[1]).distance(rig.pos(w[0])))
                    .sum();
                if d.length() >= 0.1 * leg && forward.is_none_or(|f| d.dot(f) > 0.0) {
                    mapping.set(toes, toe, 0.7);
                }
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
        None => return map_plain_arm(rig, mapping, &path, left),
    };
    // Shoulder: a first short segment before the upper arm, when the chain is long enough;
    // several short ones (H-Anim's sternoclavicular and acromioclavicular) are one shoulder.
    let needed = if hand_joint.is_some() { 4 } else { 3 };
    let lead = leading_shoulder(rig, arm_chain, arm_chain.len() + 1 - needed);
    let start = if lead > 1 {
        lead
    } else if arm_chain.len() >= needed {
        let total: f32 = arm_chain
            .windows(2)
            .map(|w| rig.pos(w[1]).distance(rig.pos(w[0])))
            .sum();
        let seg = |i: usize| rig.pos(arm_chain[i + 1]).distance(rig.pos(arm_chain[i]));
        let like = |a: f32, b: f32| b > 0.0 && (0.6..=1.67).contains(&(a / b));
        let first = seg(0);
        // Or, with the hand found, one joint more than upper arm, forearm and hand, where
        // the last two segments are an upper arm and a forearm (alike) and the first is not
        // (a long robot clavicle).
        let clavicle = hand_joint.is_some()
            && arm_chain.len() == 4
            && like(seg(2), seg(1))
            && !like(seg(1), seg(0));
        usize::from(first < 0.35 * total || clavicle)
    } else {
        0
    };
    if start >= 1 {
        mapping.set(shoulder, arm_chain[0], 0.7);
    }
    let limb = &arm_chain[start.min(arm_chain.len())..];
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

/// How many joints at the start of an arm chain are the shoulder (at most `max`): each whose
/// segment is under 0.35 times the rest of the chain beyond it (an upper arm and a forearm
/// are each about half of what follows the shoulder).
fn leading_shoulder(rig: &Rig<'_>, chain: &[JointId], max: usize) -> usize {
    let seg: Vec<f32> = chain
        .windows(2)
        .map(|w| rig.pos(w[1]).distance(rig.pos(w[0])))
        .collect();
    let mut lead = 0;
    while lead < max && lead < seg.len() {
        let rest: f32 = seg[lead + 1..].iter().sum();
        if seg[lead] >= 0.35 * rest {
            break;
        }
        lead += 1;
    }
    lead
}

/// An arm chain that never branches (no fingers): which joint is which is told by the
/// segment lengths alone, and only where they leave no doubt. A forearm is about as long as
/// the upper arm (between 0.6 and 1.67 times); a shoulder (clavicle) segment is much shorter
/// than the upper arm (under 0.6 times). The hand is the joint at the end of a forearm; a
/// chain that ends at the elbow (the hands cut off) has none, and never takes the forearm
/// or anything else for one.
fn map_plain_arm(rig: &Rig<'_>, mapping: &mut Mapping, path: &[JointId], left: bool) {
    use HumanBone::*;
    let (shoulder, upper, lower, hand) = if left {
        (LeftShoulder, LeftUpperArm, LeftLowerArm, LeftHand)
    } else {
        (RightShoulder, RightUpperArm, RightLowerArm, RightHand)
    };
    let seg = |i: usize| {
        let (Some(a), Some(b)) = (path.get(i), path.get(i + 1)) else {
            return 0.0;
        };
        rig.pos(*a).distance(rig.pos(*b))
    };
    let like = |a: f32, b: f32| b > 0.0 && (0.6..=1.67).contains(&(a / b));
    let short = |a: f32, b: f32| a < 0.6 * b;
    // Roles from the first joint: (shoulder?, then upper, lower, hand?).
    let lead = if path.len() >= 4 {
        leading_shoulder(rig, path, path.len() - 3)
    } else {
        0
    };
    let (start, with_hand) = match path.len() {
        _ if lead >= 1 && like(seg(lead + 1), seg(lead)) => (lead, true),
        0 | 1 => return,
        2 => (0, false),
        3 if like(seg(1), seg(0)) => (0, true),
        // A clavicle, then an upper arm: one no longer than 0.28 of the height (a joint after
        // a real upper arm, carrying a weapon a third of the height long, is no forearm).
        3 if short(seg(0), seg(1)) && seg(1) <= 0.28 * rig.height => (1, false),
        3 => return,
        _ if short(seg(0), seg(1)) && like(seg(2), seg(1)) => (1, true),
        _ if like(seg(1), seg(0)) => (0, true),
        _ => return,
    };
    // A joint beyond the hand is a finger or the hand's end: shorter than the forearm (else
    // the lengths were misread, as a clavicle joint taken for an upper arm).
    if with_hand && path.len() > start + 3 && seg(start + 2) >= seg(start + 1) {
        return;
    }
    if start >= 1 {
        mapping.set(shoulder, path[0], 0.7);
    }
    mapping.set(upper, path[start], 0.8);
    if let Some(&elbow) = path.get(start + 1) {
        mapping.set(lower, elbow, 0.8);
    }
    if with_hand {
        if let Some(&wrist) = path.get(start + 2) {
            mapping.set(hand, wrist, 0.7);
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
    // A finger is a chain of at least two joints that never branches (H-Anim's midcarpal
    // joints carry two fingers; a single joint is a metacarpal or a stub, not a finger).
    let finger_like = |c: &[JointId]| {
        c.len() >= 2
            && c.first().is_some_and(|root| {
                rig.subtree(*root)
                    .iter()
                    .all(|j| rig.real_children(*j).len() <= 1)
            })
    };
    if !chains.iter().all(|c| finger_like(c)) {
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
    // The others in their order across the hand, from the thumb's side: each finger's tip
    // seen across the direction the fingers point, sorted along the line they make.
    let mut others: Vec<usize> = (0..count).filter(|&i| i != thumb).collect();
    let along: Vec3 = others
        .iter()
        .map(|&i| dir(&chains[i]))
        .sum::<Vec3>()
        .normalize_or_zero();
    let across = |p: Vec3| {
        let d = p - rig.pos(hand);
        d - along * d.dot(along)
    };
    let tip = |i: usize| {
        let chain = &chains[i];
        let end = finger_segments(rig, hand, chain, None);
        rig.pos(*end.first().unwrap_or(&chain[0]))
    };
    let thumb_at = across(rig.pos(chains[thumb][chains[thumb].len() - 1]));
    let (first, last) = (others.first().copied(), others.last().copied());
    let line = match (first, last) {
        (Some(a), Some(b)) => (across(tip(b)) - across(tip(a))).normalize_or_zero(),
        _ => Vec3::ZERO,
    };
    // Orient the line away from the thumb.
    let mid: Vec3 =
        others.iter().map(|&i| across(tip(i))).sum::<Vec3>() / others.len().max(1) as f32;
    let line = if (thumb_at - mid).dot(line) > 0.0 {
        -line
    } else {
        line
    };
    others.sort_by(|&a, &b| {
        across(tip(a))
            .dot(line)
            .total_cmp(&across(tip(b)).dot(line))
    });
    // Each finger must sit apart from the next along the line (a tie cannot be ordered).
    let spread: Vec<f32> = others.iter().map(|&i| across(tip(i)).dot(line)).collect();
    if line == Vec3::ZERO || spread.windows(2).any(|w| w[1] - w[0] < 1e-4 * rig.height) {
        return;
    }
    others.truncate(if count == 5 { 4 } else { 2 });
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
        let thumb_len = (finger != 0).then(|| chains[thumb].len());
        let chain = finger_segments(rig, hand, &chains[index], thumb_len);
        for (bone, joint) in names[finger].iter().zip(chain) {
            mapping.set(*bone, *joint, 0.6);
        }
    }
}

/// The canonical joints of a finger chain: for a finger (not the thumb), a first joint that
/// sits near the wrist (less than half as far from the hand joint as the next one) is a
/// metacarpal, which the canonical set does not have, and is skipped; then the first three
/// joints (an end joint beyond them is not a phalanx). A finger one joint longer than the
/// thumb (`thumb_len`; `None` for the thumb itself) starts with its metacarpal too (H-Anim's
/// carpometacarpal joints, which sit well away from the wrist).
fn finger_segments<'c>(
    rig: &Rig<'_>,
    hand: JointId,
    chain: &'c [JointId],
    thumb_len: Option<usize>,
) -> &'c [JointId] {
    let thumb = thumb_len.is_none();
    let longer = thumb_len.is_some_and(|t| chain.len() == t + 1);
    let from_hand = |i: usize| {
        chain
            .get(i)
            .map_or(0.0, |j| rig.pos(*j).distance(rig.pos(hand)))
    };
    let skip =
        usize::from(!thumb && chain.len() >= 4 && (longer || from_hand(0) < 0.5 * from_hand(1)));
    let rest = chain.get(skip..).unwrap_or_default();
    rest.get(..rest.len().min(3)).unwrap_or_default()
}
