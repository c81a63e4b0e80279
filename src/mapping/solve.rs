//! One mapper that weighs names and shape together, solved as one assignment.
//!
//! Two kinds of evidence say which joint is which canonical bone:
//!
//! - **Names**: every table ([`super::Table`], built in or added with `--mappings`) names
//!   joints. A table's word counts as much as the table fits the rig: its weight is the number
//!   of bones it maps once its answer is pruned to the hierarchy rules ([`super::detect::prune`]),
//!   over the best table's number (the best table weighs 1, a table that matched three names by
//!   chance on a 60-bone rig little). A joint two tables name differently keeps the heavier
//!   table's bone.
//! - **Shape**: the auto-mapper's answer ([`super::auto`]), each bone with its confidence
//!   (0.6 to 0.9). Its left and right limbs, where it found them, also rule out a name that puts
//!   a left bone inside the right arm or leg (names that say the viewer's left, or lie).
//!
//! A candidate joint for a bone scores the sum of its two kinds of evidence (a joint both name
//! and shape choose scores most). The answer maximises the total score over the canonical tree
//! under the VRM hierarchy rule that every mapped bone's joint lies below the joint of its
//! nearest mapped canonical ancestor (a foot below its lower leg, a shoulder below the chest):
//! a dynamic programme over the canonical tree, with the nearest mapped ancestor's joint as the
//! state. So a table's answer that breaks the hierarchy (a joint named `Hips` whose legs hang
//! from its parent) loses to the shape's, which keeps the legs; and a bone only the shape finds
//! (arms a table misnames) is filled, while a bone both find with different joints and no
//! consequence below goes to the names. Last, a joint chosen for two bones keeps the
//! higher-scoring one, and the result is pruned to the hierarchy and side rules.
//!
//! [`Solution::choices`] keeps every bone's candidates, the winner and the runner-up, for
//! `humanoid map --explain`.

use std::collections::{HashMap, HashSet};

use super::detect::{apply_names, prune, Mapping, Method};
use super::table::Table;
use crate::model::asset::Asset;
use crate::model::skeleton::{JointId, Skeleton};
use crate::model::HumanBone;

/// A bone and the joint it is given.
type Pair = (HumanBone, JointId);

/// A subtree's best score and its assignment.
type Best = (f32, Vec<Pair>);

/// One joint considered for a bone, with its evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The joint.
    pub joint: JointId,
    /// Evidence from names: the weight of the heaviest table naming this joint for the bone
    /// (0 when none does).
    pub name: f32,
    /// The table whose name counted.
    pub table: Option<String>,
    /// Evidence from shape: the auto-mapper's confidence when it chose this joint (else 0).
    pub shape: f32,
}

impl Candidate {
    /// The candidate's score: names and shape added.
    pub fn score(&self) -> f32 {
        self.name + self.shape
    }
}

/// What was weighed for one bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The canonical bone.
    pub bone: HumanBone,
    /// Its candidates, best score first.
    pub candidates: Vec<Candidate>,
    /// The joint chosen, if any.
    pub chosen: Option<JointId>,
}

impl Choice {
    /// The chosen candidate.
    pub fn winner(&self) -> Option<&Candidate> {
        let chosen = self.chosen?;
        self.candidates.iter().find(|c| c.joint == chosen)
    }

    /// The best candidate not chosen.
    pub fn runner_up(&self) -> Option<&Candidate> {
        self.candidates
            .iter()
            .find(|c| Some(c.joint) != self.chosen)
    }
}

/// The mapping found, and what was weighed for each bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// The mapping (its method: the table that named most of its bones, else the auto-mapper).
    pub mapping: Mapping,
    /// Every bone that had a candidate, in canonical order.
    pub choices: Vec<Choice>,
}

/// Weighs `tables`' names and the auto-mapper's `shape` (if it found a humanoid) for the rig of
/// `asset`, and solves (see the module docs).
pub fn solve(asset: &Asset, tables: &[Table], shape: Option<&Mapping>) -> Solution {
    let skeleton = &asset.skeleton;
    let mut candidates: Vec<Vec<Candidate>> = vec![Vec::new(); HumanBone::COUNT];
    let sides = ShapeSides::of(skeleton, shape);
    let names = Names::of(asset, tables);
    if let Some((table, pairs)) = &names.primary {
        for &(bone, joint) in pairs {
            if sides.contradicts(bone, joint) {
                continue;
            }
            if let Some(list) = candidates.get_mut(bone.index()) {
                list.push(Candidate {
                    joint,
                    name: 1.0,
                    table: Some(table.clone()),
                    shape: 0.0,
                });
            }
        }
    }
    // Another table's name fills a bone the best table does not name, at a joint it does not
    // name (RobotExpressive's fingers are named by H-Anim's table, its arms by Godot's), when
    // the shape was read: without it nothing checks that two conventions' names fit together.
    let primary: Vec<(HumanBone, JointId)> = names
        .primary
        .as_ref()
        .map(|(_, pairs)| pairs.clone())
        .unwrap_or_default();
    let mut fills: Vec<(&Pair, &(f32, String))> = names
        .support
        .iter()
        .filter(|_| shape.is_some())
        .filter(|((bone, joint), _)| {
            !primary.iter().any(|(b, j)| b == bone || j == joint)
                && !sides.contradicts(*bone, *joint)
        })
        .collect();
    fills.sort_by_key(|((bone, joint), _)| (bone.index(), *joint));
    for ((bone, joint), (weight, table)) in fills {
        if let Some(list) = candidates.get_mut(bone.index()) {
            list.push(Candidate {
                joint: *joint,
                name: *weight,
                table: Some(table.clone()),
                shape: 0.0,
            });
        }
    }
    if let Some(shape) = shape {
        for (bone, joint) in shape.bones.iter() {
            let Some(list) = candidates.get_mut(bone.index()) else {
                continue;
            };
            let confidence = shape.confidence(bone);
            match list.iter_mut().find(|c| c.joint == joint) {
                Some(c) => c.shape = confidence,
                None => {
                    let (name, table) = names
                        .support
                        .get(&(bone, joint))
                        .map_or((0.0, None), |(w, t)| (*w, Some(t.clone())));
                    list.push(Candidate {
                        joint,
                        name,
                        table,
                        shape: confidence,
                    });
                }
            }
        }
    }
    for list in &mut candidates {
        list.sort_by(|a, b| b.score().total_cmp(&a.score()).then(a.joint.cmp(&b.joint)));
    }

    let mut solver = Solver {
        skeleton,
        candidates: &candidates,
        memo: HashMap::new(),
    };
    let (_, assignment) = solver.best(HumanBone::Hips, None);
    let mapping = finish(skeleton, &candidates, assignment);
    let choices = HumanBone::ALL
        .into_iter()
        .filter_map(|bone| {
            let list = candidates.get(bone.index())?;
            (!list.is_empty()).then(|| Choice {
                bone,
                candidates: list.clone(),
                chosen: mapping.bones.get(bone),
            })
        })
        .collect();
    Solution { mapping, choices }
}

/// What the tables' names say: the best table's names (the table that maps the most required
/// bones, then the most bones, once pruned to the hierarchy rules), each as a candidate of
/// weight 1; and every other table's names, which only support a candidate the shape found
/// (weight: half the table's pruned bone count over the best table's). Names from different
/// conventions are never mixed into candidates of their own: `Shoulder` is the clavicle in
/// one convention and the upper arm in another, and only one table's reading is consistent.
struct Names {
    /// The best table's (bone, joint) pairs, unpruned.
    primary: Option<(String, Vec<(HumanBone, JointId)>)>,
    /// (bone, joint) → (weight, table) from the other tables.
    support: HashMap<(HumanBone, JointId), (f32, String)>,
}

impl Names {
    fn of(asset: &Asset, tables: &[Table]) -> Names {
        let mut read: Vec<(String, Mapping, (usize, usize))> = Vec::new();
        for table in tables {
            let raw = apply_names(table, asset);
            if raw.bones.is_empty() {
                continue;
            }
            let mut pruned = raw.clone();
            prune(&asset.skeleton, &mut pruned);
            if !pruned.bones.is_empty() {
                read.push((table.name.clone(), raw, pruned.score()));
            }
        }
        // The best: most required, then most bones; ties to the earlier table.
        let best = read
            .iter()
            .enumerate()
            .max_by(|(i, a), (j, b)| a.2.cmp(&b.2).then(j.cmp(i)))
            .map(|(i, _)| i);
        let best_fit = best
            .and_then(|i| read.get(i))
            .map_or(1, |(_, _, fit)| fit.1.max(1));
        let mut names = Names {
            primary: None,
            support: HashMap::new(),
        };
        for (i, (table, raw, fit)) in read.into_iter().enumerate() {
            if Some(i) == best {
                names.primary = Some((table, raw.bones.iter().collect()));
                continue;
            }
            let weight = 0.5 * fit.1 as f32 / best_fit as f32;
            for (bone, joint) in raw.bones.iter() {
                let entry = names
                    .support
                    .entry((bone, joint))
                    .or_insert((0.0, table.clone()));
                if weight > entry.0 {
                    *entry = (weight, table.clone());
                }
            }
        }
        names
    }
}

/// The joints inside the shape's left and right limbs.
struct ShapeSides {
    left: HashSet<JointId>,
    right: HashSet<JointId>,
}

impl ShapeSides {
    fn of(skeleton: &Skeleton, shape: Option<&Mapping>) -> ShapeSides {
        use HumanBone::*;
        let mut sides = ShapeSides {
            left: HashSet::new(),
            right: HashSet::new(),
        };
        let Some(shape) = shape else {
            return sides;
        };
        for (roots, set) in [
            ([LeftShoulder, LeftUpperArm, LeftUpperLeg], &mut sides.left),
            (
                [RightShoulder, RightUpperArm, RightUpperLeg],
                &mut sides.right,
            ),
        ] {
            for root in roots.into_iter().filter_map(|b| shape.bones.get(b)) {
                let mut stack = vec![root];
                while let Some(j) = stack.pop() {
                    if set.insert(j) {
                        stack.extend(skeleton.children(j));
                    }
                }
            }
        }
        sides
    }

    /// Whether `joint` lies inside a limb the shape puts on the other side from `bone`.
    fn contradicts(&self, bone: HumanBone, joint: JointId) -> bool {
        (bone.is_left() && self.right.contains(&joint))
            || (bone.is_right() && self.left.contains(&joint))
    }
}

/// The dynamic programme over the canonical tree (module docs).
struct Solver<'a> {
    skeleton: &'a Skeleton,
    candidates: &'a [Vec<Candidate>],
    /// (bone, nearest mapped ancestor's joint) → (score, assignment of the bone's subtree).
    memo: HashMap<(usize, Option<JointId>), Best>,
}

impl Solver<'_> {
    /// The best assignment of `bone`'s canonical subtree when its nearest mapped canonical
    /// ancestor is at `anchor` (`None`: nothing above it is mapped).
    fn best(&mut self, bone: HumanBone, anchor: Option<JointId>) -> Best {
        if let Some(found) = self.memo.get(&(bone.index(), anchor)) {
            return found.clone();
        }
        // Unmapped: the children hang from the same anchor.
        let mut best = self.children(bone, anchor);
        let options: Vec<(JointId, f32)> = self
            .candidates
            .get(bone.index())
            .map(|list| list.iter().map(|c| (c.joint, c.score())).collect())
            .unwrap_or_default();
        for (joint, score) in options {
            let below = anchor.is_none_or(|a| a != joint && self.skeleton.is_ancestor(a, joint));
            if !below {
                continue;
            }
            let (rest, mut assignment) = self.children(bone, Some(joint));
            let total = score + rest;
            if total > best.0 + 1e-6 {
                assignment.push((bone, joint));
                best = (total, assignment);
            }
        }
        self.memo.insert((bone.index(), anchor), best.clone());
        best
    }

    fn children(&mut self, bone: HumanBone, anchor: Option<JointId>) -> Best {
        let mut total = 0.0;
        let mut assignment = Vec::new();
        for child in bone.children() {
            let (score, part) = self.best(child, anchor);
            total += score;
            assignment.extend(part);
        }
        (total, assignment)
    }
}

/// The assignment as a mapping: a joint chosen for two bones keeps the higher-scoring one;
/// then pruned. The method names the table that named most of the bones, else the auto-mapper.
fn finish(
    skeleton: &Skeleton,
    candidates: &[Vec<Candidate>],
    assignment: Vec<(HumanBone, JointId)>,
) -> Mapping {
    let candidate = |bone: HumanBone, joint: JointId| {
        candidates
            .get(bone.index())
            .and_then(|list| list.iter().find(|c| c.joint == joint))
    };
    let mut scored: Vec<(HumanBone, JointId, f32)> = assignment
        .into_iter()
        .map(|(bone, joint)| {
            (
                bone,
                joint,
                candidate(bone, joint).map_or(0.0, Candidate::score),
            )
        })
        .collect();
    scored.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.index().cmp(&b.0.index())));
    let mut mapping = Mapping::new(Method::Auto);
    for (bone, joint, score) in scored {
        if mapping.bones.bone_of(joint).is_none() {
            // Both kinds of evidence: as sure as the surer; one kind: its own.
            mapping.set(bone, joint, score.min(1.0));
        }
    }
    prune(skeleton, &mut mapping);
    let mut by_table: HashMap<&str, usize> = HashMap::new();
    for (bone, joint) in mapping.bones.iter() {
        if let Some(table) = candidate(bone, joint).and_then(|c| c.table.as_deref()) {
            *by_table.entry(table).or_default() += 1;
        }
    }
    if let Some((table, count)) = by_table
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
    {
        if 2 * count >= mapping.bones.len() {
            mapping.method = Method::Table(table.to_owned());
        }
    }
    mapping
}
