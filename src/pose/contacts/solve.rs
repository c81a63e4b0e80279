//! The contact solver: a pass over a baked clip that plants the target's feet.
//!
//! For each key, in order:
//! 1. the leg chains are posed from the baked keys (the world-delta pose);
//! 2. each leg gets an ankle goal: during a foot plant the ankle stays where it landed (the
//!    mean of its world-delta positions over the plant, horizontally; its height over the
//!    floor the source's height over its own ground, scaled); during a toe plant alone the toe
//!    joint stays put and the ankle hangs from it by the foot's own orientation (a heel rising
//!    about the ball); blended in and out over [`RAMP`] seconds; no goal puts the foot or toe
//!    joint below its rest height (the floor);
//! 3. the hips come down (never up) as far as a goal out of reach needs, the reach capped by
//!    the straighter of the source's and the world-delta pose's knee angle, so no leg is
//!    straightened past what the source does;
//! 4. each leg's thigh and shin turn (analytic two-bone IK, knee toward where it pointed) so
//!    that the ankle meets its goal; the foot keeps its world rotation, so the toes keep theirs.
//!
//! Nothing above the hips changes: the spine, arms and head keep their local rotations, so
//! relative to the hips they are where the world deltas put them.

use glam::{Quat, Vec2, Vec3};

use super::chain::{Baked, Chain, Posed};
use super::detect::{self, Plant, Thresholds};
use super::ik::{self, Leg};
use super::report::{ContactReport, JointMetrics, SolverReport};
use crate::model::humanoid::BoneMap;
use crate::model::skeleton::{JointId, Skeleton};
use crate::model::HumanBone;

/// Contacts are blended in before a plant and out after it over this many seconds.
pub const RAMP: f32 = 0.1;

/// A heel this high over its ground (in target legs) still counts as down ([`ball_share`]).
pub const HEEL_SLACK: f32 = 0.006;

/// The hips never come down by more than this share of the target's leg.
pub const MAX_HIPS_DROP: f32 = 0.3;

/// The straightest knee the solver makes (radians): a leg locked straight has no direction to
/// bend in.
pub const STRAIGHTEST_KNEE: f32 = 179.0 * std::f32::consts::PI / 180.0;

/// The source bones captured at every key, four per leg: upper leg, lower leg, foot, toes.
pub const CAPTURED: [HumanBone; 8] = [
    HumanBone::LeftUpperLeg,
    HumanBone::LeftLowerLeg,
    HumanBone::LeftFoot,
    HumanBone::LeftToes,
    HumanBone::RightUpperLeg,
    HumanBone::RightLowerLeg,
    HumanBone::RightFoot,
    HumanBone::RightToes,
];

/// The source's legs over the clip: [`CAPTURED`]'s positions at every key (canonical space,
/// source units; a bone the source lacks is `None` in `has` and zero in `positions`).
#[derive(Debug, Clone, Default)]
pub struct SourceLegs {
    /// The source's leg length (upper + lower leg, the mean of both sides), in its units.
    pub leg: f32,
    /// Which of [`CAPTURED`] the source has.
    pub has: [bool; 8],
    /// Eight positions per key.
    pub positions: Vec<Vec3>,
}

impl SourceLegs {
    fn at(&self, key: usize, slot: usize) -> Vec3 {
        self.positions
            .get(key * CAPTURED.len() + slot)
            .copied()
            .unwrap_or(Vec3::ZERO)
    }

    fn series(&self, slot: usize, keys: usize, scale: f32) -> Vec<Vec3> {
        (0..keys).map(|k| self.at(k, slot) * scale).collect()
    }
}

/// A target leg's joints and where their keys are in the baked lists.
#[derive(Debug, Clone, Copy)]
struct LegJoints {
    upper: JointId,
    lower: JointId,
    foot: JointId,
    toes: Option<JointId>,
    lists: [usize; 3],
    toes_list: Option<usize>,
}

/// What was found and planted per leg: each joint's plants, locks and heights.
#[derive(Debug, Clone, Default)]
pub struct Plants {
    /// Per leg (left, right), per joint (foot, toes): the plants found.
    pub legs: [[Vec<Plant>; 2]; 2],
}

impl Plants {
    /// Whether any joint has a plant.
    pub fn any(&self) -> bool {
        self.legs.iter().flatten().any(|p| !p.is_empty())
    }
}

/// A leg being solved.
struct LegState {
    joints: LegJoints,
    /// The source's slot base in [`CAPTURED`] (0 left, 4 right).
    slot: usize,
    foot_plants: Vec<Plant>,
    toe_plants: Vec<Plant>,
    foot_locks: Vec<Vec2>,
    toe_locks: Vec<Vec2>,
    /// Heights over the floor per key (the source's over its ground, scaled).
    foot_lift: Vec<f32>,
    toe_lift: Vec<f32>,
    /// Per key, how much the ball (not the heel) is the foot's pivot ([`ball_share`]).
    ball_share: Vec<f32>,
    rest_ankle: f32,
    rest_toe: f32,
    /// Where the source has no toe joint (nothing to tell a flat foot by) and the target has
    /// one: the target foot's rest world rotation and rest ankle-to-toe line, to lay a planted
    /// foot flat on its sole as it stands at rest.
    flat: Option<(Quat, Vec3)>,
}

/// The target side of a solve: its skeleton and bones.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The skeleton.
    pub skeleton: &'a Skeleton,
    /// Its humanoid bones.
    pub bones: &'a BoneMap,
    /// The turn from canonical space (+Z facing, where [`SourceLegs`] are) into the target
    /// file's space.
    pub turn: Quat,
}

impl Target<'_> {
    /// The leg length (upper + lower leg, the mean of both sides).
    pub fn leg(&self) -> Option<f32> {
        leg_length(self.skeleton, self.bones)
    }
}

/// A skeleton's leg length: upper leg + lower leg, the mean of both sides.
pub fn leg_length(skeleton: &Skeleton, bones: &BoneMap) -> Option<f32> {
    let at = |b: HumanBone| bones.get(b).map(|j| skeleton.rest_world(j).translation);
    let lengths: Vec<f32> = [
        (
            HumanBone::LeftUpperLeg,
            HumanBone::LeftLowerLeg,
            HumanBone::LeftFoot,
        ),
        (
            HumanBone::RightUpperLeg,
            HumanBone::RightLowerLeg,
            HumanBone::RightFoot,
        ),
    ]
    .iter()
    .filter_map(|&(u, l, f)| Some(at(u)?.distance(at(l)?) + at(l)?.distance(at(f)?)))
    .collect();
    (!lengths.is_empty()).then(|| lengths.iter().sum::<f32>() / lengths.len() as f32)
}

/// Finds the source's plants (scaled to the target's legs).
pub fn find_plants(target: Target<'_>, source: &SourceLegs, keys: &[f32]) -> Plants {
    let mut plants = Plants::default();
    let (Some(target_leg), true) = (target.leg(), source.leg > 1e-6) else {
        return plants;
    };
    let ratio = target_leg / source.leg;
    let n = keys.len();
    for (s, leg) in plants.legs.iter_mut().enumerate() {
        let base = s * 4;
        if !(source.has.get(base).copied().unwrap_or(false)) {
            continue;
        }
        let socket = source.series(base, n, ratio);
        for (j, slot) in [base + 2, base + 3].into_iter().enumerate() {
            if source.has.get(slot).copied().unwrap_or(false) {
                if let Some(out) = leg.get_mut(j) {
                    let joint = source.series(slot, n, ratio);
                    *out =
                        detect::plants(keys, &joint, &socket, target_leg, &Thresholds::default());
                }
            }
        }
    }
    plants
}

/// Plants the target's feet in `baked` (see the module docs) where `plants` says, and
/// reports what it found and changed. Where there are plants, the feet and toes are first
/// turned onto the soles' T-pose (`soles[leg][foot, toes]`, [`super::sole::turn`]) and the
/// pelvis set at the height the source's leg extension gives on the target's legs ([`Pelvis`]);
/// without, only the floor is kept.
pub fn solve(
    target: Target<'_>,
    source: &SourceLegs,
    plants: &Plants,
    soles: &[[Quat; 2]; 2],
    baked: &mut Baked<'_>,
) -> ContactReport {
    let mut report = ContactReport::default();
    let Some(target_leg) = target.leg() else {
        report.note("the target has no legs mapped (upper leg, lower leg, foot): nothing to plant");
        return report;
    };
    let ratio = if source.leg > 1e-6 {
        target_leg / source.leg
    } else {
        1.0
    };
    let n = baked.times.len();
    let skeleton = target.skeleton;
    let mut legs: Vec<LegState> = Vec::new();
    for (s, found) in plants.legs.iter().enumerate() {
        let Some(joints) = leg_joints(target, baked, s) else {
            continue;
        };
        let [foot_plants, toe_plants] = found.clone();
        let (foot_plants, toe_plants) = if joints.toes.is_some() {
            (foot_plants, toe_plants)
        } else {
            (foot_plants, Vec::new())
        };
        let base = s * 4;
        legs.push(LegState {
            foot_lift: lift(source, base + 2, &foot_plants, n, ratio),
            toe_lift: lift(source, base + 3, &toe_plants, n, ratio),
            ball_share: Vec::new(),
            rest_ankle: skeleton.rest_world(joints.foot).translation.y,
            rest_toe: joints
                .toes
                .map_or(f32::NEG_INFINITY, |t| skeleton.rest_world(t).translation.y),
            flat: joints
                .toes
                .filter(|_| !source.has.get(base + 3).copied().unwrap_or(false))
                .map(|t| {
                    let foot = skeleton.rest_world(joints.foot);
                    (
                        foot.rotation.normalize(),
                        skeleton.rest_world(t).translation - foot.translation,
                    )
                }),
            joints,
            slot: base,
            foot_plants,
            toe_plants,
            foot_locks: Vec::new(),
            toe_locks: Vec::new(),
        });
    }
    for leg in &mut legs {
        leg.ball_share = ball_share(&leg.foot_lift, &leg.toe_lift, HEEL_SLACK * target_leg);
    }
    if legs.is_empty() {
        report.note("the target has no legs mapped (upper leg, lower leg, foot): nothing to plant");
        return report;
    }
    let planting = plants.any();
    if planting {
        turn_soles(&legs, soles, baked);
    }
    let pelvis = if planting {
        Pelvis::of(&legs, source, target, ratio)
    } else {
        None
    };
    let ends: Vec<JointId> = legs
        .iter()
        .flat_map(|l| [Some(l.joints.foot), l.joints.toes])
        .flatten()
        .collect();
    let chain = Chain::new(skeleton, &ends, baked);

    // Pass 1: where the world-delta pose (the pelvis placed) puts the ankles and toes, for
    // the locks (keys in parallel).
    let pelvis = pelvis.filter(|_| baked.hips.is_some() && !baked.hips_path.is_empty());
    // The locks: where the world-delta pose (the pelvis placed) puts each planted joint,
    // averaged over up to LOCK_SAMPLES keys of its plant (posed on demand: a few per plant,
    // not every key).
    let mut places: std::collections::HashMap<usize, [(Vec3, Vec3); 2]> =
        std::collections::HashMap::new();
    let mut posed = Posed::default();
    let mut place = |key: usize| -> [(Vec3, Vec3); 2] {
        *places.entry(key).or_insert_with(|| {
            chain.pose(baked, key, &mut posed);
            let up = pelvis.map_or(Vec3::ZERO, |p| p.shift(source, &posed, key));
            let up = if up.is_finite() { up } else { Vec3::ZERO };
            let mut out = [(Vec3::ZERO, Vec3::ZERO); 2];
            for (slot, leg) in out.iter_mut().zip(legs.iter()) {
                let ankle = posed.position(leg.joints.foot) + up;
                let toe = leg.joints.toes.map_or(ankle, |t| posed.position(t) + up);
                *slot = (ankle, toe);
            }
            out
        })
    };
    let mut locks: Vec<(Vec<Vec2>, Vec<Vec2>)> = Vec::with_capacity(legs.len());
    for (i, leg) in legs.iter().enumerate() {
        let mean = |place: &mut dyn FnMut(usize) -> [(Vec3, Vec3); 2], plant: &Plant, toe: bool| {
            let keys = sample_keys(plant);
            let sum: Vec2 = keys
                .iter()
                .map(|&k| {
                    let (a, t) = place(k).get(i).copied().unwrap_or_default();
                    let p = if toe { t } else { a };
                    Vec2::new(p.x, p.z)
                })
                .sum();
            sum / keys.len().max(1) as f32
        };
        let foot_locks: Vec<Vec2> = leg
            .foot_plants
            .iter()
            .map(|p| mean(&mut place, p, false))
            .collect();
        let toe_locks = leg
            .toe_plants
            .iter()
            .map(|q| {
                // A toe plant that overlaps a foot plant continues it: the toe stays where the
                // planted foot put it when the foot was flattest (heel and toe nearest their
                // grounds), so the two locks agree on a flat foot. Alone, the toe stays at its
                // mean place.
                let overlap = leg
                    .foot_plants
                    .iter()
                    .zip(&foot_locks)
                    .rev()
                    .find(|(f, _)| {
                        // A heel that only brushes the ground says nothing of the ball: the
                        // overlap must be a third of the toe plant, and four frames.
                        let overlap = (f.end.min(q.end) + 1).saturating_sub(f.start.max(q.start));
                        overlap >= (q.len() / 3).max(4)
                    });
                match overlap {
                    Some((f, lock)) => {
                        let flattest = (f.start.max(q.start)..=f.end.min(q.end))
                            .min_by(|&a, &b| {
                                let lift = |k: usize| {
                                    leg.foot_lift.get(k).copied().unwrap_or(0.0)
                                        + leg.toe_lift.get(k).copied().unwrap_or(0.0)
                                };
                                lift(a).total_cmp(&lift(b))
                            })
                            .unwrap_or(f.end.min(q.end));
                        let (ankle, toe) = place(flattest).get(i).copied().unwrap_or_default();
                        let offset = toe - ankle;
                        *lock + Vec2::new(offset.x, offset.z)
                    }
                    None => mean(&mut place, q, true),
                }
            })
            .collect();
        locks.push((foot_locks, toe_locks));
    }
    for (leg, (foot_locks, toe_locks)) in legs.iter_mut().zip(locks) {
        leg.foot_locks = foot_locks;
        leg.toe_locks = toe_locks;
    }

    // Pass 2: goals, hips, IK (keys in parallel, each on its own; written after).
    let hips = baked.hips.filter(|_| !baked.hips_path.is_empty());
    let context = KeyContext {
        skeleton,
        source,
        legs: &legs,
        chain: &chain,
        hips,
        max_drop: MAX_HIPS_DROP * target_leg,
        pelvis,
    };
    let changes: Vec<KeyChange> = {
        use rayon::prelude::*;
        let baked: &Baked<'_> = baked;
        (0..n)
            .into_par_iter()
            .map_init(Posed::default, |posed, key| {
                context.solve_key(baked, key, posed)
            })
            .collect()
    };
    let mut solver = SolverReport {
        frames: n,
        ..SolverReport::default()
    };
    for (key, change) in changes.into_iter().enumerate() {
        if change.drop > 0.0 {
            solver.hips_drop_max_mm = solver.hips_drop_max_mm.max(change.drop * 1000.0);
            solver.frames_hips_lowered += 1;
        }
        if let Some(t) = change.hips {
            baked.set_hips_translation(key, t);
        }
        for (list, rotation) in change.rotations.iter().take(change.count) {
            baked.set_rotation(*list, key, *rotation);
        }
        if change.solves > 0 {
            solver.frames_solved += 1;
        }
        solver.leg_solves += change.solves;
        solver.frames_out_of_reach += change.out_of_reach;
        solver.ankle_moved_max_mm = solver.ankle_moved_max_mm.max(change.moved_max * 1000.0);
        solver.ankle_moved_sum_mm += f64::from(change.moved_sum) * 1000.0;
    }
    report.applied = true;
    report.solver = solver;
    report
}

/// What the solver changes at one key: the hips' translation, up to three rotations per leg,
/// and its figures.
#[derive(Debug, Clone, Copy, Default)]
struct KeyChange {
    hips: Option<Vec3>,
    rotations: [(usize, Quat); 6],
    count: usize,
    drop: f32,
    solves: usize,
    out_of_reach: usize,
    moved_max: f32,
    moved_sum: f32,
}

/// A leg at a key: its joints (the pelvis risen), its contact goals, its toe's offset from the
/// ankle, its reach, and its first goal and foot turn.
struct LegFrame {
    frame: Leg,
    contact: Goal,
    toe_offset: Vec3,
    reach: f32,
    first: (Vec3, Quat),
}

/// Everything a key's solve reads.
struct KeyContext<'c, 's> {
    skeleton: &'s Skeleton,
    source: &'c SourceLegs,
    legs: &'c [LegState],
    chain: &'c Chain<'s>,
    hips: Option<JointId>,
    max_drop: f32,
    pelvis: Option<Pelvis>,
}

/// The pelvis from the target's legs and the source's leg extension: the hip sockets'
/// midpoint at `ratio · (p − from) + to` (canonical space), `p` the source's socket midpoint,
/// `from` the height of the lowest its ankles get, `to` the target's ankle height at rest,
/// `ratio` the legs' lengths (target over source): a stride scaled by the legs, the hips as
/// high over the ankles as the source's leg extension puts them.
#[derive(Debug, Clone, Copy)]
struct Pelvis {
    ratio: f32,
    from: f32,
    to: f32,
    turn: Quat,
    /// The target's upper legs, and the source's upper-leg slots in [`CAPTURED`].
    sockets: [(JointId, usize); 2],
}

impl Pelvis {
    fn of(
        legs: &[LegState],
        source: &SourceLegs,
        target: Target<'_>,
        ratio: f32,
    ) -> Option<Pelvis> {
        let [left, right] = [0usize, 1].map(|i| legs.get(i));
        let (left, right) = (left?, right?);
        if left.slot == right.slot {
            return None;
        }
        let keys = source.positions.len() / CAPTURED.len();
        let from = (0..keys)
            .flat_map(|k| {
                [
                    source.at(k, left.slot + 2).y,
                    source.at(k, right.slot + 2).y,
                ]
            })
            .fold(f32::INFINITY, f32::min);
        let to = (target.skeleton.rest_world(left.joints.foot).translation.y
            + target.skeleton.rest_world(right.joints.foot).translation.y)
            / 2.0;
        (from.is_finite() && ratio.is_finite()).then_some(Pelvis {
            ratio,
            from,
            to,
            turn: target.turn,
            sockets: [
                (left.joints.upper, left.slot),
                (right.joints.upper, right.slot),
            ],
        })
    }

    /// How far the hips move at `key` (world) to put the sockets there.
    fn shift(&self, source: &SourceLegs, posed: &Posed, key: usize) -> Vec3 {
        let [(l, ls), (r, rs)] = self.sockets;
        let now = (posed.position(l) + posed.position(r)) / 2.0;
        let src = (source.at(key, ls) + source.at(key, rs)) / 2.0;
        let canonical = Vec3::new(
            self.ratio * src.x,
            self.ratio * (src.y - self.from) + self.to,
            self.ratio * src.z,
        );
        self.turn * canonical - now
    }
}

/// Turns every key's feet and toes onto the soles' T-pose: the foot's world rotation times its
/// constant, the toes' too (their local rotation under the turned foot).
fn turn_soles(legs: &[LegState], soles: &[[Quat; 2]; 2], baked: &mut Baked<'_>) {
    for leg in legs {
        let Some([foot, toes]) = soles.get(leg.slot / 4).copied() else {
            continue;
        };
        if foot == Quat::IDENTITY && toes == Quat::IDENTITY {
            continue;
        }
        let foot_list = leg.joints.lists[2];
        for key in 0..baked.times.len() {
            if let Some(local) = baked.rotation(foot_list, key) {
                baked.set_rotation(foot_list, key, (local * foot).normalize());
            }
            if let Some(list) = leg.joints.toes_list {
                if let Some(local) = baked.rotation(list, key) {
                    baked.set_rotation(list, key, (foot.inverse() * local * toes).normalize());
                }
            }
        }
    }
}

impl KeyContext<'_, '_> {
    /// How far a leg reaches at `key`: its knee never straighter than the source's (or its
    /// world-delta pose's, if straighter), nor than [`STRAIGHTEST_KNEE`].
    fn reach(&self, leg: &LegState, key: usize, frame: &Leg) -> f32 {
        let source_knee = Leg {
            hip: self.source.at(key, leg.slot),
            knee: self.source.at(key, leg.slot + 1),
            ankle: self.source.at(key, leg.slot + 2),
        }
        .knee_angle();
        let straightest = source_knee.max(frame.knee_angle()).min(STRAIGHTEST_KNEE);
        ik::reach(
            frame.knee.distance(frame.hip),
            frame.ankle.distance(frame.knee),
            straightest,
        )
    }

    /// The goals, the hips' drop and the legs' IK at `key` (see the module docs).
    fn solve_key(&self, baked: &Baked<'_>, key: usize, posed: &mut Posed) -> KeyChange {
        self.chain.pose(baked, key, posed);
        let posed: &Posed = posed;
        let times = baked.times;
        let mut change = KeyChange::default();
        let mut state: [Option<LegFrame>; 2] = [None, None];
        let mut drop = 0.0f32;
        let up = self
            .pelvis
            .map_or(Vec3::ZERO, |p| p.shift(self.source, posed, key));
        let up = if up.is_finite() { up } else { Vec3::ZERO };
        for (i, leg) in self.legs.iter().enumerate() {
            let j = leg.joints;
            let frame = Leg {
                hip: posed.position(j.upper) + up,
                knee: posed.position(j.lower) + up,
                ankle: posed.position(j.foot) + up,
            };
            let toe_offset = j
                .toes
                .map_or(Vec3::ZERO, |t| posed.position(t) - posed.position(j.foot));
            let contact = contact_goal(leg, times, key, toe_offset);
            let first = leg_goal(leg, posed, times, key, frame.ankle, toe_offset, &contact);
            let goal = first.0;
            // The reach, only where the leg moves (it costs two trigonometric calls).
            let reach = if goal.distance(frame.ankle) > 1e-6 || first.1 != Quat::IDENTITY {
                self.reach(leg, key, &frame)
            } else {
                f32::NAN
            };
            if goal.distance(frame.ankle) > 1e-6 {
                drop = drop.max(needed_drop(frame.hip, goal, reach));
            }
            if let Some(slot) = state.get_mut(i) {
                *slot = Some(LegFrame {
                    frame,
                    contact,
                    toe_offset,
                    reach,
                    first,
                });
            }
        }
        let drop = match self.hips {
            Some(_) => drop.clamp(0.0, self.max_drop),
            None => 0.0,
        };
        change.drop = drop;
        let moved = up - Vec3::new(0.0, drop, 0.0);
        if let (Some(h), true) = (self.hips, moved != Vec3::ZERO) {
            change.hips = moved_hips(self.skeleton, posed, baked, h, key, moved);
        }
        for (leg, at) in self.legs.iter().zip(state) {
            let Some(LegFrame {
                frame,
                contact,
                toe_offset,
                reach,
                first,
            }) = at
            else {
                continue;
            };
            let down = Vec3::new(0.0, drop, 0.0);
            let frame = Leg {
                hip: frame.hip - down,
                knee: frame.knee - down,
                ankle: frame.ankle - down,
            };
            // With the hips where they were, the goal is the one found above.
            let (goal, foot) = if drop > 0.0 {
                leg_goal(leg, posed, times, key, frame.ankle, toe_offset, &contact)
            } else {
                first
            };
            let moved = goal.distance(frame.ankle);
            if moved <= 1e-6 && foot == Quat::IDENTITY {
                continue;
            }
            let reach = if reach.is_nan() {
                self.reach(leg, key, &frame)
            } else {
                reach
            };
            let Some(turns) = ik::solve(&frame, goal, reach) else {
                continue;
            };
            let (_, reached) = turns.apply(&frame);
            if reached.distance(goal) > 1e-3 {
                change.out_of_reach += 1;
            }
            change.moved_max = change.moved_max.max(moved);
            change.moved_sum += moved;
            change.solves += 1;
            for rotation in leg_rotations(self.skeleton, posed, leg.joints, turns, foot) {
                if let Some(slot) = change.rotations.get_mut(change.count) {
                    *slot = rotation;
                    change.count += 1;
                }
            }
        }
        change
    }
}

/// A source joint's height over its ground at every key, scaled to the target: its ground is
/// its median height while planted (a robust floor: one frame that dips does not lift every
/// plant), and it is never below it.
fn lift(source: &SourceLegs, slot: usize, plants: &[Plant], n: usize, ratio: f32) -> Vec<f32> {
    let ys: Vec<f32> = (0..n).map(|k| source.at(k, slot).y).collect();
    let mut planted: Vec<f32> = plants
        .iter()
        .flat_map(|p| ys.get(p.start..=p.end).unwrap_or(&[]).iter().copied())
        .collect();
    if planted.is_empty() {
        return vec![0.0; n];
    }
    planted.sort_by(f32::total_cmp);
    let ground = planted.get(planted.len() / 2).copied().unwrap_or(0.0);
    ys.iter().map(|y| (y - ground).max(0.0) * ratio).collect()
}

/// Per key, how much the ball is the foot's pivot, from the heights of the source's heel and
/// toe joints over their grounds (scaled to the target): 0 (the heel) while the heel is down,
/// whatever the toes do (heel strike, flat foot); rising to 1 as the heel lifts off a ball
/// that stays down. `slack` is the height the heel may rise and still count as down.
fn ball_share(heel_lift: &[f32], toe_lift: &[f32], slack: f32) -> Vec<f32> {
    heel_lift
        .iter()
        .zip(toe_lift)
        .map(|(&heel, &toe)| {
            let up = (heel - slack).max(0.0);
            up / (up + toe + slack)
        })
        .collect()
}

/// The contact goal for the ankle at `key` and its weight (0: none). Where the foot and the
/// toe joint are both planted, the foot pivots where the source's does: about the heel while
/// the toes are up (heel strike), about the ball while the heel is up (heel off), both locks
/// agreeing on a flat foot.
fn contact_goal(leg: &LegState, times: &[f32], key: usize, toe_offset: Vec3) -> Goal {
    let foot = detect::weight(times, &leg.foot_plants, key, RAMP);
    let toe = detect::weight(times, &leg.toe_plants, key, RAMP);
    let lift = |v: &[f32]| v.get(key).copied().unwrap_or(0.0);
    let heel_goal = foot.map(|(w, p)| {
        let lock = leg.foot_locks.get(p).copied().unwrap_or_default();
        (
            Vec3::new(lock.x, leg.rest_ankle + lift(&leg.foot_lift), lock.y),
            w,
        )
    });
    let toe_goal = toe.map(|(w, q)| {
        let lock = leg.toe_locks.get(q).copied().unwrap_or_default();
        (
            Vec3::new(lock.x, leg.rest_toe + lift(&leg.toe_lift), lock.y),
            w,
        )
    });
    let ball_goal = toe_goal.map(|(toe, w)| (toe - toe_offset, w));
    let (ankle, weight) = match (heel_goal, ball_goal) {
        (Some((heel, wf)), Some((ball, wt))) => {
            let ball_share = leg.ball_share.get(key).copied().unwrap_or(0.5);
            let (uf, ut) = (wf * (1.0 - ball_share), wt * ball_share);
            let goal = if uf + ut > 1e-6 {
                (heel * uf + ball * ut) / (uf + ut)
            } else if wf >= wt {
                heel
            } else {
                ball
            };
            (goal, wf.max(wt))
        }
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => (Vec3::ZERO, 0.0),
    };
    Goal {
        ankle,
        weight,
        toe: toe_goal,
    }
}

/// A leg's contact goals at a key.
#[derive(Debug, Clone, Copy)]
struct Goal {
    /// Where the ankle goes, and how much (0: its world-delta place).
    ankle: Vec3,
    weight: f32,
    /// Where a planted toe joint goes, and how much.
    toe: Option<(Vec3, f32)>,
}

/// A leg's ankle goal and foot turn at a key: the contact goal blended in from the ankle's
/// world-delta place; the foot turned toward a planted toe (or laid flat); then raised so that
/// neither the ankle nor the turned foot's toe is under the floor.
fn leg_goal(
    leg: &LegState,
    posed: &Posed,
    times: &[f32],
    key: usize,
    ankle: Vec3,
    toe_offset: Vec3,
    contact: &Goal,
) -> (Vec3, Quat) {
    let wanted = ankle.lerp(contact.ankle, contact.weight);
    let foot = foot_turn(wanted, toe_offset, contact.toe, leg.rest_toe)
        * flat_turn(leg, posed, times, key);
    (floor(leg, wanted, foot * toe_offset), foot)
}

/// For a leg whose source has no toe joint: the turn that lays the planted foot flat, as it
/// stands at rest, keeping its heading, by the foot plant's weight (identity otherwise).
fn flat_turn(leg: &LegState, posed: &Posed, times: &[f32], key: usize) -> Quat {
    let (Some((rest, line)), Some((weight, _))) =
        (leg.flat, detect::weight(times, &leg.foot_plants, key, RAMP))
    else {
        return Quat::IDENTITY;
    };
    let now = posed.rotation(leg.joints.foot);
    let heading = |v: Vec3| Vec3::new(v.x, 0.0, v.z).normalize_or_zero();
    let (from, to) = (heading(line), heading(now * rest.inverse() * line));
    if from == Vec3::ZERO || to == Vec3::ZERO {
        return Quat::IDENTITY;
    }
    let yaw = Quat::from_rotation_y(from.cross(to).y.atan2(from.dot(to)));
    let flat = (yaw * rest * now.inverse()).normalize();
    Quat::IDENTITY
        .slerp(flat, weight.clamp(0.0, 1.0))
        .normalize()
}

/// The turn of the foot about the ankle (at `ankle`) that brings its toe joint (`toe_offset`
/// from the ankle) toward a planted toe's goal, by the toe's weight: with heel and ball both
/// down, the foot lies between them whatever the source's foot rolls about.
fn foot_turn(ankle: Vec3, toe_offset: Vec3, toe: Option<(Vec3, f32)>, floor_toe: f32) -> Quat {
    let Some((mut goal, weight)) = toe else {
        return Quat::IDENTITY;
    };
    goal.y = goal.y.max(floor_toe);
    let (from, to) = (toe_offset, goal - ankle);
    if from.length_squared() < 1e-12 || to.length_squared() < 1e-12 {
        return Quat::IDENTITY;
    }
    let full = Quat::from_rotation_arc(from.normalize(), to.normalize());
    Quat::IDENTITY
        .slerp(full, weight.clamp(0.0, 1.0))
        .normalize()
}

/// `goal` raised so that neither the ankle nor the toe joint (`toe_offset` from it) is below
/// its rest height.
fn floor(leg: &LegState, mut goal: Vec3, toe_offset: Vec3) -> Vec3 {
    goal.y = goal.y.max(leg.rest_ankle);
    if leg.joints.toes.is_some() {
        goal.y = goal.y.max(leg.rest_toe - toe_offset.y);
    }
    goal
}

/// How far the hips must come down for a hip socket at `hip` to reach `goal` within `reach`.
fn needed_drop(hip: Vec3, goal: Vec3, reach: f32) -> f32 {
    let v = goal - hip;
    let horizontal = v.x * v.x + v.z * v.z;
    let below = -v.y;
    let drop = if horizontal < reach * reach {
        below - (reach * reach - horizontal).sqrt()
    } else {
        below
    };
    drop.max(0.0)
}

/// The target joints of leg `s` (0 left, 1 right) and their baked lists.
fn leg_joints(target: Target<'_>, baked: &Baked<'_>, s: usize) -> Option<LegJoints> {
    let bones = [
        CAPTURED.get(s * 4)?,
        CAPTURED.get(s * 4 + 1)?,
        CAPTURED.get(s * 4 + 2)?,
    ];
    let [upper, lower, foot] = bones.map(|b| target.bones.get(*b));
    let (upper, lower, foot) = (upper?, lower?, foot?);
    let list = |j: JointId| baked.joints.iter().position(|x| *x == j);
    let toes = CAPTURED
        .get(s * 4 + 3)
        .and_then(|b| target.bones.get(*b))
        .filter(|t| target.skeleton.is_ancestor(foot, *t));
    // The chain must hang: foot below the lower leg below the upper leg.
    let skeleton = target.skeleton;
    if !(skeleton.is_ancestor(upper, lower) && skeleton.is_ancestor(lower, foot)) {
        return None;
    }
    Some(LegJoints {
        upper,
        lower,
        foot,
        toes,
        lists: [list(upper)?, list(lower)?, list(foot)?],
        toes_list: toes.and_then(list),
    })
}

/// A plant's lock is the mean of its joint's place over at most this many of its keys.
pub const LOCK_SAMPLES: usize = 9;

/// Up to [`LOCK_SAMPLES`] keys spread evenly over a plant, its first and last among them.
fn sample_keys(plant: &Plant) -> Vec<usize> {
    let len = plant.len();
    if len <= LOCK_SAMPLES {
        return (plant.start..=plant.end).collect();
    }
    (0..LOCK_SAMPLES)
        .map(|i| plant.start + i * (len - 1) / (LOCK_SAMPLES - 1))
        .collect()
}

/// The hips' local translation at `key` moved by `by` (world).
fn moved_hips(
    skeleton: &Skeleton,
    posed: &Posed,
    baked: &Baked<'_>,
    hips: JointId,
    key: usize,
    by: Vec3,
) -> Option<Vec3> {
    let to_local = skeleton
        .parent(hips)
        .and_then(|p| posed.worlds.get(p.index()))
        .map_or(glam::Mat3A::IDENTITY, |w| w.matrix3.inverse());
    let t = baked.hips_translation(key)?;
    Some(t + Vec3::from(to_local * glam::Vec3A::from(by)))
}

/// A solved leg's local rotations (baked list, rotation): the thigh and shin turned, the foot
/// keeping its world rotation but for `foot_turn` (which the toes follow). Only finite ones.
fn leg_rotations(
    skeleton: &Skeleton,
    posed: &Posed,
    joints: LegJoints,
    turns: ik::Solved,
    foot_turn: Quat,
) -> impl Iterator<Item = (usize, Quat)> {
    let (thigh, shin) = (turns.thigh, turns.shin);
    let [upper_list, lower_list, foot_list] = joints.lists;
    let upper = posed.rotation(joints.upper);
    let upper_parent = posed.parent_rotation(skeleton, joints.upper);
    let lower = posed.rotation(joints.lower);
    let lower_parent = posed.parent_rotation(skeleton, joints.lower);
    let foot = posed.rotation(joints.foot);
    let foot_parent = posed.parent_rotation(skeleton, joints.foot);
    [
        (upper_list, upper_parent.inverse() * thigh * upper),
        (
            lower_list,
            (thigh * lower_parent).inverse() * shin * thigh * lower,
        ),
        (
            foot_list,
            (shin * thigh * foot_parent).inverse() * foot_turn * foot,
        ),
    ]
    .into_iter()
    .map(|(list, local)| (list, local.normalize()))
    .filter(|(_, local)| local.is_finite())
}

/// Measures the target's feet and toes over the baked clip at the plants found: per joint, the
/// drift and float of each plant and the deepest it goes below its rest height.
pub fn measure(target: Target<'_>, plants: &Plants, baked: &Baked<'_>) -> Vec<JointMetrics> {
    let skeleton = target.skeleton;
    let joints: Vec<(HumanBone, JointId, &[Plant])> = plants
        .legs
        .iter()
        .enumerate()
        .flat_map(|(s, found)| {
            [(2usize, 0usize), (3, 1)]
                .into_iter()
                .filter_map(move |(slot, j)| {
                    let bone = *CAPTURED.get(s * 4 + slot)?;
                    Some((bone, target.bones.get(bone)?, found.get(j)?.as_slice()))
                })
        })
        .collect();
    let ends: Vec<JointId> = joints.iter().map(|(_, j, _)| *j).collect();
    let chain = Chain::new(skeleton, &ends, baked);
    let n = baked.times.len();
    let places: Vec<Vec<Vec3>> = {
        use rayon::prelude::*;
        (0..n)
            .into_par_iter()
            .map_init(Posed::default, |posed, key| {
                chain.pose(baked, key, posed);
                joints.iter().map(|(_, j, _)| posed.position(*j)).collect()
            })
            .collect()
    };
    let paths: Vec<Vec<Vec3>> = (0..joints.len())
        .map(|i| {
            places
                .iter()
                .map(|p| p.get(i).copied().unwrap_or(Vec3::ZERO))
                .collect()
        })
        .collect();
    joints
        .iter()
        .zip(&paths)
        .map(|((bone, joint, found), path)| {
            let rest = skeleton.rest_world(*joint).translation.y;
            JointMetrics::measure(*bone, path, rest, found)
        })
        .collect()
}
