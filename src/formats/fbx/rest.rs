//! The skeleton's rest: the file's bind pose where it has one.
//!
//! An FBX node's own transform (`Lcl Translation/Rotation/Scaling`) is whatever pose the
//! authoring tool stood in when it exported: Blender writes the current frame of the action,
//! Maya the scene's current pose. The pose the meshes were bound in is stored apart, as a
//! `BindPose` (ufbx [`ufbx::Pose`]) and in each skin cluster's bind matrix. That bind pose is
//! the rest, as Blender's own FBX importer takes it: a bone's rest local is its parent's bind
//! world inverted times its own. A node the bind pose does not list keeps its own transform
//! under its parent.
//!
//! A bind pose holds each node's world (node to world). MakeHuman writes each bone's inverse
//! there instead (world to bone, the matrix its clusters carry as `Transform`), which read as
//! worlds put an upright bone at its position negated: the head, 1.58 m up, at y = −1.58 m.
//! Such a pose is recognised against the skin clusters (every bone a cluster binds stands at
//! the inverse of the cluster's `TransformLink`) and its bones are read inverted
//! (`FBX_BIND_POSE_INVERTED`); its other nodes (MakeHuman's armature and meshes, given a
//! quarter turn about X that their nodes lack) keep their own transforms.

use std::collections::HashMap;

use crate::math::trs::Trs;

/// Each ufbx node's rest local transform (by ufbx node index), and how many came from the
/// bind pose.
pub struct Rest {
    /// The rest local transform of every node, by ufbx node index.
    pub locals: Vec<Trs>,
    /// Nodes whose rest is the bind pose and differs from their own transform: their own
    /// transform (the pose at export), which a clip that does not animate them keeps.
    pub posed: Vec<(usize, Trs)>,
    /// Nodes whose rest came from the bind pose.
    pub from_bind_pose: usize,
    /// The bind poses read inverted (by name): each bone in them stood at its inverse.
    pub inverted_poses: Vec<String>,
}

/// The rest of every node of `scene`.
pub fn rest_of(scene: &ufbx::Scene) -> Rest {
    let (bind, inverted_poses) = bind_worlds(scene);
    let identity = ufbx::transform_to_matrix(&ufbx::Transform {
        translation: ufbx::Vec3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        rotation: ufbx::Quat {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        },
        scale: ufbx::Vec3 {
            x: 1.0,
            y: 1.0,
            z: 1.0,
        },
    });
    let count = scene.nodes.len();
    let mut worlds: Vec<ufbx::Matrix> = vec![identity; count];
    let mut locals = vec![Trs::IDENTITY; count];
    let mut posed = Vec::new();
    let mut from_bind_pose = 0;
    // ufbx lists nodes parents first.
    for node in scene.nodes.iter() {
        let index = node.element.typed_id as usize;
        if index >= count {
            continue;
        }
        if node.is_root {
            worlds[index] = node.node_to_world;
            locals[index] = super::trs(&node.local_transform);
            continue;
        }
        let parent_world = node
            .parent
            .as_ref()
            .and_then(|p| worlds.get(p.element.typed_id as usize))
            .unwrap_or(&identity);
        let own = node.local_transform;
        let from_bind = bind.get(&index).and_then(|world| {
            let local = ufbx::matrix_mul(&ufbx::matrix_invert(parent_world), world);
            let trs = ufbx::matrix_to_transform(&local);
            // A bind matrix with shear (no TRS) is not a rest glTF can hold: the node's own
            // transform stays.
            is_trs(&local, &trs).then_some(trs)
        });
        let local = match from_bind {
            Some(trs) => {
                from_bind_pose += 1;
                let (rest, own_trs) = (super::trs(&trs), super::trs(&own));
                if !same(&rest, &own_trs) {
                    posed.push((index, own_trs));
                }
                trs
            }
            None => own,
        };
        worlds[index] = ufbx::matrix_mul(parent_world, &ufbx::transform_to_matrix(&local));
        locals[index] = super::trs(&local);
    }
    Rest {
        locals,
        posed,
        from_bind_pose,
        inverted_poses,
    }
}

/// Each bound node's world matrix at bind time, by ufbx node index: the bind poses first (a
/// pose that holds inverses read inverted, its bones only), then the skin clusters' bind
/// matrices for bones no bind pose lists. Also the names of the poses read inverted.
fn bind_worlds(scene: &ufbx::Scene) -> (HashMap<usize, ufbx::Matrix>, Vec<String>) {
    let mut links = HashMap::new();
    for cluster in scene.skin_clusters.iter() {
        if let Some(bone) = cluster.bone_node.as_ref() {
            links
                .entry(bone.element.typed_id as usize)
                .or_insert(cluster.bind_to_world);
        }
    }
    let mut worlds = HashMap::new();
    let mut inverted = Vec::new();
    for pose in scene.poses.iter().filter(|p| p.is_bind_pose) {
        let inverses = holds_inverses(pose, &links);
        if inverses {
            inverted.push(pose.element.name.to_string());
        }
        for bone in pose.bone_poses.iter() {
            let world = match (inverses, bone.bone_node.bone.is_some()) {
                (false, _) => bone.bone_to_world,
                (true, true) => ufbx::matrix_invert(&bone.bone_to_world),
                (true, false) => continue,
            };
            worlds
                .entry(bone.bone_node.element.typed_id as usize)
                .or_insert(world);
        }
    }
    for (node, link) in links {
        worlds.entry(node).or_insert(link);
    }
    (worlds, inverted)
}

/// Whether `pose` holds each bone's inverse where a bind pose holds its world: every node a
/// skin cluster binds (`links`: the clusters' `TransformLink`, node to world) stands at the
/// inverse of its link, and not every one at the link itself (an identity is both).
fn holds_inverses(pose: &ufbx::Pose, links: &HashMap<usize, ufbx::Matrix>) -> bool {
    let (mut bound, mut inverses, mut worlds) = (false, true, true);
    for bone in pose.bone_poses.iter() {
        let Some(link) = links.get(&(bone.bone_node.element.typed_id as usize)) else {
            continue;
        };
        bound = true;
        inverses &= undoes(link, &bone.bone_to_world);
        worlds &= undoes(&ufbx::matrix_invert(link), &bone.bone_to_world);
    }
    bound && inverses && !worlds
}

/// Whether `a · b` is the identity: its 3×3 part to 1e-3, its translation to 1e-3 of the
/// two translations' lengths (MakeHuman writes four decimals).
fn undoes(a: &ufbx::Matrix, b: &ufbx::Matrix) -> bool {
    let p = entries(&ufbx::matrix_mul(a, b));
    let identity = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let length = |m: &ufbx::Matrix| (m.m03 * m.m03 + m.m13 * m.m13 + m.m23 * m.m23).sqrt();
    let size = length(a) + length(b) + f64::MIN_POSITIVE;
    p.iter().zip(identity).all(|(v, i)| (v - i).abs() <= 1e-3)
        && p.iter().skip(9).all(|v| v.abs() <= 1e-3 * size)
}

/// Whether `trs` rebuilds `m` (to 1e-4 of its largest entry: bind matrices written to four
/// decimals, as MakeHuman's ASCII FBX has them, are off orthonormal by 5e-5; a shear a TRS
/// cannot hold is larger).
fn is_trs(m: &ufbx::Matrix, trs: &ufbx::Transform) -> bool {
    let back = ufbx::transform_to_matrix(trs);
    let a = entries(m);
    let b = entries(&back);
    let size = a.iter().fold(1.0f64, |s, v| s.max(v.abs()));
    a.iter().all(|v| v.is_finite()) && a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= 1e-4 * size)
}

fn entries(m: &ufbx::Matrix) -> [f64; 12] {
    [
        m.m00, m.m10, m.m20, m.m01, m.m11, m.m21, m.m02, m.m12, m.m22, m.m03, m.m13, m.m23,
    ]
}

/// Whether two rests are the same to 1e-6 (metres, quaternion components, scale).
fn same(a: &Trs, b: &Trs) -> bool {
    a.translation.distance(b.translation) <= 1e-6
        && a.rotation.dot(b.rotation).abs() >= 1.0 - 1e-6
        && a.scale.distance(b.scale) <= 1e-6
}
