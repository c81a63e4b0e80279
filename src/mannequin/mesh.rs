//! The mannequin's body: one rounded tube per bone segment (torso boxes, limb capsules, a head,
//! a palm, finger phalanges, feet), each built in its bone's frame and smooth-skinned at the
//! joints.
//!
//! A part runs along its bone's +Y. Its cross-section is a superellipse (`squareness` 2 is an
//! ellipse, larger is boxier) whose radii go linearly from one end of the body to the other,
//! closed by rounded caps that end in a pole. Skinning comes from each vertex's coordinate `y`
//! along the bone: around the bone's own joint (`y = 0`) it blends with the parent over the
//! joint's zone `z` (`w_parent = clamp(½ − y/2z)`), around the chosen child's joint (`y = L`) with
//! that child over the child's zone (`w_child = clamp(½ + (y − L)/2z')`). Both sides of a joint use
//! the same zone, so the two parts meeting there deform alike.

use glam::{Mat4, Vec3};

use super::MannequinMesh;
use crate::math::num::{built_u16, built_u32};
use crate::model::HumanBone;

/// Blend zone around a bone's own joint (metres along the bone); 0 = rigid.
fn zone(bone: HumanBone) -> f32 {
    use HumanBone::*;
    match bone {
        Hips | LeftEye | RightEye => 0.0,
        Spine | Chest | UpperChest | Head => 0.04,
        Neck => 0.03,
        Jaw => 0.02,
        LeftShoulder | RightShoulder => 0.02,
        LeftUpperArm | RightUpperArm => 0.025,
        LeftLowerArm | RightLowerArm => 0.04,
        LeftHand | RightHand => 0.03,
        LeftUpperLeg | RightUpperLeg => 0.05,
        LeftLowerLeg | RightLowerLeg => 0.06,
        LeftFoot | RightFoot => 0.04,
        LeftToes | RightToes => 0.02,
        LeftThumbMetacarpal | RightThumbMetacarpal | LeftThumbProximal | RightThumbProximal => {
            0.012
        }
        LeftThumbDistal | RightThumbDistal => 0.01,
        b if b.as_str().ends_with("Distal") => 0.008,
        _ => 0.01, // finger proximal and intermediate phalanges
    }
}

/// The child a bone's far end blends into (Godot's tails for the trunk; none where it branches
/// into several children or ends).
fn tip_child(bone: HumanBone) -> Option<HumanBone> {
    use HumanBone::*;
    match bone {
        Hips => Some(Spine),
        UpperChest => Some(Neck),
        Head | LeftHand | RightHand => None,
        _ => {
            let mut children = bone.children();
            match (children.next(), children.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        }
    }
}

/// One rounded tube in a bone's frame.
#[derive(Debug, Clone, Copy)]
struct Part {
    bone: HumanBone,
    /// Offset of the tube's axis from the joint in the bone's local X and Z.
    offset: (f32, f32),
    /// Body extent along the bone's +Y.
    y: (f32, f32),
    /// Radii (local X, local Z) at the start and end of the body.
    r0: (f32, f32),
    r1: (f32, f32),
    /// Cap lengths beyond each end of the body.
    cap: (f32, f32),
    sides: usize,
    rings: usize,
    squareness: f32,
}

fn part(bone: HumanBone, y: (f32, f32), r0: f32, r1: f32, cap: (f32, f32), sides: usize) -> Part {
    Part {
        bone,
        offset: (0.0, 0.0),
        y,
        r0: (r0, r0),
        r1: (r1, r1),
        cap,
        sides,
        rings: 3,
        squareness: 2.0,
    }
}

/// All parts of the body.
fn parts() -> Vec<Part> {
    use HumanBone::*;
    let torso = |bone, y, r0, r1, cap| Part {
        bone,
        offset: (0.0, 0.0),
        y,
        r0,
        r1,
        cap,
        sides: 16,
        rings: 4,
        squareness: 4.0,
    };
    let mut parts = vec![
        torso(
            Hips,
            (-0.06, 0.1),
            (0.15, 0.09),
            (0.13, 0.085),
            (0.03, 0.01),
        ),
        torso(
            Spine,
            (0.0, 0.1),
            (0.13, 0.085),
            (0.135, 0.09),
            (0.01, 0.01),
        ),
        torso(
            Chest,
            (0.0, 0.1),
            (0.135, 0.09),
            (0.15, 0.095),
            (0.01, 0.01),
        ),
        torso(
            UpperChest,
            (0.0, 0.1),
            (0.15, 0.095),
            (0.16, 0.09),
            (0.01, 0.03),
        ),
        Part {
            rings: 4,
            ..part(Neck, (-0.01, 0.1), 0.042, 0.038, (0.01, 0.01), 12)
        },
        Part {
            r0: (0.085, 0.095),
            r1: (0.08, 0.095),
            rings: 4,
            ..part(Head, (0.05, 0.16), 0.0, 0.0, (0.05, 0.06), 16)
        },
        Part {
            offset: (0.0, -0.02),
            r0: (0.05, 0.02),
            r1: (0.045, 0.02),
            squareness: 3.0,
            ..part(Jaw, (-0.01, 0.04), 0.0, 0.0, (0.01, 0.015), 12)
        },
    ];
    for eye in [LeftEye, RightEye] {
        parts.push(part(eye, (0.08, 0.09), 0.015, 0.015, (0.012, 0.012), 8));
    }
    for side in [Left, Right] {
        let b = |name: &str| side.bone(name);
        parts.push(Part {
            r0: (0.05, 0.045),
            r1: (0.05, 0.045),
            ..part(b("Shoulder"), (-0.02, 0.06), 0.0, 0.0, (0.02, 0.02), 12)
        });
        parts.push(Part {
            rings: 6,
            ..part(b("UpperArm"), (0.0, 0.25), 0.045, 0.037, (0.03, 0.02), 12)
        });
        parts.push(Part {
            rings: 6,
            ..part(b("LowerArm"), (0.0, 0.25), 0.037, 0.03, (0.02, 0.02), 12)
        });
        // Palm: wide along local X (the model's Z), thin along local Z (the model's Y); centred
        // over the four finger roots (index at model z = 0.025 … little at −0.05).
        parts.push(Part {
            offset: (0.0125, 0.0),
            r0: (0.04, 0.015),
            r1: (0.045, 0.013),
            squareness: 4.0,
            ..part(b("Hand"), (0.0, 0.07), 0.0, 0.0, (0.015, 0.01), 12)
        });
        for (finger, proximal) in [
            ("Index", 0.05),
            ("Middle", 0.075),
            ("Ring", 0.05),
            ("Little", 0.05),
        ] {
            let r = if finger == "Little" { 0.8 } else { 1.0 };
            parts.push(part(
                b(&format!("{finger}Proximal")),
                (0.0, proximal),
                0.009 * r,
                0.0085 * r,
                (0.006, 0.006),
                8,
            ));
            parts.push(part(
                b(&format!("{finger}Intermediate")),
                (0.0, 0.025),
                0.0085 * r,
                0.008 * r,
                (0.006, 0.006),
                8,
            ));
            parts.push(part(
                b(&format!("{finger}Distal")),
                (0.0, 0.02),
                0.008 * r,
                0.007 * r,
                (0.005, 0.007),
                8,
            ));
        }
        parts.push(part(
            b("ThumbMetacarpal"),
            (0.0, 0.043),
            0.013,
            0.011,
            (0.008, 0.006),
            8,
        ));
        parts.push(part(
            b("ThumbProximal"),
            (0.0, 0.043),
            0.011,
            0.0095,
            (0.006, 0.006),
            8,
        ));
        parts.push(part(
            b("ThumbDistal"),
            (0.0, 0.028),
            0.0095,
            0.008,
            (0.005, 0.008),
            8,
        ));
        parts.push(Part {
            rings: 8,
            ..part(b("UpperLeg"), (0.0, 0.375), 0.07, 0.05, (0.04, 0.03), 12)
        });
        parts.push(Part {
            rings: 8,
            ..part(b("LowerLeg"), (0.0, 0.375), 0.05, 0.038, (0.03, 0.03), 12)
        });
        // Foot: local Z is the model's +Y, so a radius of LIFT about the joint puts the sole on 0.
        parts.push(Part {
            r0: (0.04, super::LIFT),
            r1: (0.045, super::LIFT),
            rings: 4,
            squareness: 5.0,
            ..part(b("Foot"), (-0.03, 0.15), 0.0, 0.0, (0.03, 0.01), 12)
        });
        // Toes: local Z is the model's −Y; shifted 0.02 down, radius 0.03 → sole on 0 too.
        parts.push(Part {
            offset: (0.0, 0.02),
            r0: (0.045, 0.03),
            r1: (0.04, 0.03),
            squareness: 5.0,
            ..part(b("Toes"), (0.0, 0.05), 0.0, 0.0, (0.01, 0.02), 12)
        });
    }
    parts
}

/// A side of the body, to name bones.
#[derive(Debug, Clone, Copy)]
enum Side {
    Left,
    Right,
}
use Side::{Left, Right};

impl Side {
    fn bone(self, rest: &str) -> HumanBone {
        let name = match self {
            Left => format!("left{rest}"),
            Right => format!("right{rest}"),
        };
        name.parse().unwrap_or(HumanBone::Hips)
    }
}

/// Signed power for the superellipse.
fn spow(x: f32, e: f32) -> f32 {
    x.signum() * x.abs().powf(e)
}

/// Ring coordinates of a part in its bone's frame: `(y, scale of the radii, radii)` bottom to top.
fn rings(p: &Part) -> Vec<(f32, (f32, f32))> {
    const CAP_STEPS: [f32; 2] = [30.0, 60.0];
    let lerp = |t: f32| {
        (
            p.r0.0 + (p.r1.0 - p.r0.0) * t,
            p.r0.1 + (p.r1.1 - p.r0.1) * t,
        )
    };
    let mut out = Vec::new();
    for deg in CAP_STEPS.iter().rev() {
        let a = deg.to_radians();
        let (rx, rz) = p.r0;
        out.push((p.y.0 - p.cap.0 * a.sin(), (rx * a.cos(), rz * a.cos())));
    }
    for k in 0..p.rings {
        let t = k as f32 / (p.rings - 1) as f32;
        out.push((p.y.0 + (p.y.1 - p.y.0) * t, lerp(t)));
    }
    for deg in CAP_STEPS {
        let a = deg.to_radians();
        let (rx, rz) = p.r1;
        out.push((p.y.1 + p.cap.1 * a.sin(), (rx * a.cos(), rz * a.cos())));
    }
    out
}

/// Builds the body and the inverse bind matrices from the joints' world rest matrices (indexed
/// like [`HumanBone::ALL`]).
pub(super) fn build(world: &[Mat4]) -> MannequinMesh {
    let mut mesh = MannequinMesh {
        positions: Vec::new(),
        normals: Vec::new(),
        joints: Vec::new(),
        weights: Vec::new(),
        indices: Vec::new(),
        inverse_bind: world.iter().map(Mat4::inverse).collect(),
    };
    for p in parts() {
        add_part(&mut mesh, &p, world);
    }
    mesh
}

/// Local vertices and triangles of one part (positions in the bone's frame).
fn part_geometry(p: &Part) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let rings = rings(p);
    let n = p.sides;
    let e = 2.0 / p.squareness;
    let mut verts = Vec::with_capacity(rings.len() * n + 2);
    for &(y, (rx, rz)) in &rings {
        for j in 0..n {
            let theta = std::f32::consts::TAU * j as f32 / n as f32;
            let (s, c) = theta.sin_cos();
            verts.push(Vec3::new(
                p.offset.0 + rx * spow(c, e),
                y,
                p.offset.1 + rz * spow(s, e),
            ));
        }
    }
    let bottom = built_u32(verts.len());
    verts.push(Vec3::new(p.offset.0, p.y.0 - p.cap.0, p.offset.1));
    let top = built_u32(verts.len());
    verts.push(Vec3::new(p.offset.0, p.y.1 + p.cap.1, p.offset.1));

    let at = |ring: usize, j: usize| built_u32(ring * n + j % n);
    let mut tris = Vec::new();
    for i in 0..rings.len() - 1 {
        for j in 0..n {
            let (a, b, c, d) = (at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j));
            tris.push([a, d, c]);
            tris.push([a, c, b]);
        }
    }
    let last = rings.len() - 1;
    for j in 0..n {
        tris.push([bottom, at(0, j), at(0, j + 1)]);
        tris.push([top, at(last, j + 1), at(last, j)]);
    }
    (verts, tris)
}

/// Skin weights of a point at coordinate `y` along `bone`: up to three `(joint, weight)`.
fn skin(bone: HumanBone, y: f32, length_to_tip: f32) -> Vec<(usize, f32)> {
    let mut out = Vec::with_capacity(3);
    let own_zone = zone(bone);
    let mut rest = 1.0;
    if let (Some(parent), true) = (bone.parent(), own_zone > 0.0) {
        let w = (0.5 - y / (2.0 * own_zone)).clamp(0.0, 1.0);
        if w > 0.0 {
            out.push((parent.index(), w));
            rest -= w;
        }
    }
    if let Some(child) = tip_child(bone) {
        let z = zone(child);
        if z > 0.0 {
            let w = (0.5 + (y - length_to_tip) / (2.0 * z)).clamp(0.0, 1.0);
            if w > 0.0 {
                out.push((child.index(), w));
                rest -= w;
            }
        }
    }
    if rest > 0.0 {
        out.push((bone.index(), rest));
    }
    out
}

fn add_part(mesh: &mut MannequinMesh, p: &Part, world: &[Mat4]) {
    let bone_world = world[p.bone.index()];
    let length_to_tip = tip_child(p.bone).map_or(0.0, |c| {
        let to_child = world[c.index()].w_axis.truncate() - bone_world.w_axis.truncate();
        to_child.dot(bone_world.y_axis.truncate())
    });
    let (local, tris) = part_geometry(p);
    let base = built_u32(mesh.positions.len());
    let positions: Vec<Vec3> = local
        .iter()
        .map(|&v| bone_world.transform_point3(v))
        .collect();

    // Area-weighted face normals, averaged per vertex (the part is closed and convex-ish).
    let mut normals = vec![Vec3::ZERO; positions.len()];
    for t in &tris {
        let [a, b, c] = t.map(|i| positions[i as usize]);
        let n = (b - a).cross(c - a);
        for &i in t {
            normals[i as usize] += n;
        }
    }
    for (v, (pos, normal)) in local.iter().zip(positions.iter().zip(&normals)) {
        mesh.positions.push(pos.to_array());
        mesh.normals.push(normal.normalize_or(Vec3::Y).to_array());
        let influences = skin(p.bone, v.y, length_to_tip);
        let mut joints = [0u16; 4];
        let mut weights = [0f32; 4];
        for (slot, &(joint, weight)) in influences.iter().enumerate() {
            joints[slot] = built_u16(joint);
            weights[slot] = weight;
        }
        // Unused slots stay joint 0 with weight 0 (the Khronos validator warns about a
        // non-zero joint index under a zero weight).
        mesh.joints.push(joints);
        mesh.weights.push(weights);
    }
    mesh.indices.extend(tris.iter().flatten().map(|i| base + i));
}

#[cfg(test)]
mod tests {
    use super::super::build as build_mannequin;
    use super::*;

    #[test]
    fn weights_are_normalised_and_joints_in_range() {
        let m = build_mannequin();
        let mesh = &m.mesh;
        let n = mesh.positions.len();
        assert!(n > 1000 && n <= 20_000, "{n} vertices");
        assert_eq!(mesh.normals.len(), n);
        assert_eq!(mesh.joints.len(), n);
        assert_eq!(mesh.weights.len(), n);
        for (joints, weights) in mesh.joints.iter().zip(&mesh.weights) {
            let sum: f32 = weights.iter().sum();
            assert!((sum - 1.0).abs() <= 1e-6, "{weights:?}");
            assert!(weights.iter().all(|&w| w >= 0.0));
            assert!(joints.iter().all(|&j| (j as usize) < m.joints.len()));
            for a in 0..4 {
                if weights[a] == 0.0 {
                    assert_eq!(joints[a], 0, "unused slot on joint 0: {joints:?}");
                    continue;
                }
                for b in a + 1..4 {
                    if weights[b] > 0.0 {
                        assert_ne!(joints[a], joints[b], "duplicate joint in {joints:?}");
                    }
                }
            }
        }
        assert_eq!(mesh.indices.len() % 3, 0);
        assert!(mesh.indices.iter().all(|&i| (i as usize) < n));
        // Smooth skinning: some vertices blend between two or three bones.
        let blended = mesh
            .weights
            .iter()
            .filter(|w| w.iter().filter(|&&x| x > 0.0).count() >= 2)
            .count();
        assert!(blended > n / 10, "{blended} blended vertices");
        // Every bone moves some vertices.
        for bone in HumanBone::ALL {
            let used = mesh
                .joints
                .iter()
                .zip(&mesh.weights)
                .any(|(j, w)| (0..4).any(|k| j[k] as usize == bone.index() && w[k] > 0.5));
            assert!(used, "{bone} drives no vertex");
        }
    }

    #[test]
    fn normals_are_unit_and_triangles_face_outward() {
        let m = build_mannequin();
        let mesh = &m.mesh;
        for n in &mesh.normals {
            assert!((Vec3::from(*n).length() - 1.0).abs() < 1e-5);
        }
        for t in mesh.indices.chunks(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from(mesh.positions[i as usize]));
            let face = (b - a).cross(c - a);
            let vertex: Vec3 = t
                .iter()
                .map(|&i| Vec3::from(mesh.normals[i as usize]))
                .sum();
            assert!(face.dot(vertex) > 0.0, "triangle {t:?} faces inward");
        }
    }

    #[test]
    fn triangles_face_away_from_each_parts_axis() {
        // Independent of the vertex normals: in the bone's frame a face points away from the
        // part's axis (the tube is convex around it).
        for p in parts() {
            let (local, tris) = part_geometry(&p);
            for t in &tris {
                let [a, b, c] = t.map(|i| local[i as usize]);
                let face = (b - a).cross(c - a);
                let centroid = (a + b + c) / 3.0;
                let radial = centroid - Vec3::new(p.offset.0, centroid.y, p.offset.1);
                let axial = if centroid.y < p.y.0 {
                    -1.0
                } else if centroid.y > p.y.1 {
                    1.0
                } else {
                    0.0
                };
                let outward = radial + Vec3::new(0.0, axial * 1e-3, 0.0);
                assert!(face.dot(outward) > 0.0, "{}: inward triangle", p.bone);
            }
        }
    }

    #[test]
    fn soles_rest_on_the_ground() {
        let m = build_mannequin();
        let min_y = m
            .mesh
            .positions
            .iter()
            .map(|p| p[1])
            .fold(f32::INFINITY, f32::min);
        assert!(min_y.abs() < 1e-4, "lowest vertex at {min_y}");
        let max_y = m
            .mesh
            .positions
            .iter()
            .map(|p| p[1])
            .fold(f32::NEG_INFINITY, f32::max);
        assert!((1.4..1.7).contains(&max_y), "top of the head at {max_y}");
    }

    #[test]
    fn both_sides_of_a_joint_weigh_it_alike() {
        // At a joint shared by a bone's tip and its child's root, each part gives the child
        // the same weight (½), so the parts deform together.
        for bone in HumanBone::ALL {
            let Some(child) = tip_child(bone) else {
                continue;
            };
            if zone(child) == 0.0 {
                continue;
            }
            let length = 0.3;
            let from_parent = skin(bone, length, length);
            let from_child = skin(child, 0.0, 1.0);
            let w = |s: &[(usize, f32)], j: HumanBone| {
                s.iter().find(|x| x.0 == j.index()).map_or(0.0, |x| x.1)
            };
            assert!((w(&from_parent, child) - 0.5).abs() < 1e-6, "{bone}");
            assert!((w(&from_child, child) - 0.5).abs() < 1e-6, "{child}");
        }
    }
}
