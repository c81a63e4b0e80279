//! `inspect` and `validate`: what a file holds (format, humanoid skeletons, the 55-bone table,
//! clips) and every diagnostic found while reading it.
//!
//! The JSON form (`inspect --json`) is a stable schema:
//!
//! ```text
//! { "file": str, "format": "glb"|"gltf"|"vrm1"|"vrm0"|"vrma"|...,
//!   "joints": int,                      // nodes/joints in the skeleton
//!   "skeletons": [ { "root": {"node": int, "name": str}|null,
//!                    "mapped": int,     // bones mapped
//!                    "missing_required": [bone...],   // for the format's profile
//!                    "bones": [ {"bone": str, "node": int|null, "name": str|null,
//!                                "required": bool} ... 55 rows, parents first ] } ],
//!   "facing": "plusz"|"minusz",
//!   "meta": {"name": str|null, "authors": [str], "license": str|null}|null,
//!   "look_at": {"joint": {"node": int, "name": str}|null, "offset": [x,y,z],
//!               "kind": "bone"|"expression"}|null,
//!   "expressions": [ {"name": str, "preset": bool, "morph_binds": int} ],
//!   "clips": [ {"name": str, "duration": float, "tracks": int,
//!               "node_tracks": int, "bone_tracks": int,
//!               "expression_tracks": int, "look_at_tracks": int} ],
//!   "avatar": { "extensions": [str], "root_node": int|null, "rigs": [[key, joints]],
//!               "reference_pose": str|null, "lookat_targets": int, "expressions": int,
//!               "visibility_hints": int, "skeleton_bones": int }|null,
//!   "diagnostics": [ {"code": str, "severity": "info"|"warning"|"error",
//!                     "location": str, "message": str} ] }
//! ```

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use crate::error::{Diagnostics, Error};
use crate::mapping::RigMapping;
use crate::model::asset::{Asset, Facing};
use crate::model::clip::TrackTarget;
use crate::model::face::LookAtKind;
use crate::model::Format;
use crate::model::{HumanBone, Profile};

/// What `inspect` reports about a file.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The file inspected.
    pub file: String,
    /// Its format (`--to` name).
    pub format: String,
    /// Joints (glTF: nodes) in the file's skeleton.
    pub joints: usize,
    /// One entry per humanoid skeleton the file declares.
    pub skeletons: Vec<SkeletonReport>,
    /// Which way the character faces in the file.
    pub facing: Facing,
    /// Authorship and licence (VRM meta).
    pub meta: Option<MetaReport>,
    /// Where the character looks from (VRM lookAt).
    pub look_at: Option<LookAtReport>,
    /// Named expressions.
    pub expressions: Vec<ExpressionReport>,
    /// The file's clips.
    pub clips: Vec<ClipReport>,
    /// Its sockets (KHR_virtual_transform) at rest.
    pub sockets: Vec<crate::ops::sockets::SocketPlace>,
    /// The meshes and their skins, where the reader reads them with the skeleton (FBX, H-Anim;
    /// a glTF-family file's meshes are left in the file: empty).
    pub meshes: Vec<MeshReport>,
    /// The Khronos avatar drafts the file uses (glTF family; `None` when it uses none).
    pub avatar: Option<AvatarReport>,
    /// Everything found while reading.
    pub diagnostics: Diagnostics,
}

/// What a glTF-family file declares with the Khronos avatar drafts (glTF pull requests #2512
/// and #2626).
#[derive(Debug, Clone, Default, Serialize)]
pub struct AvatarReport {
    /// The drafts it lists in `extensionsUsed` (`KHR_character*`, `KHR_node_*`,
    /// `KHR_mesh_primitive_visibility_hint`, `KHR_skeleton_bone`).
    pub extensions: Vec<String>,
    /// `KHR_character.rootNode`.
    pub root_node: Option<usize>,
    /// Each rig of `KHR_character_skeleton_mapping`: its key and how many joints it maps.
    pub rigs: Vec<(String, usize)>,
    /// The reference pose's `poseType` (`KHR_character_reference_pose`).
    pub reference_pose: Option<String>,
    /// Nodes marked `KHR_node_lookat_target`.
    pub lookat_targets: usize,
    /// Expressions of `KHR_character_expression`.
    pub expressions: usize,
    /// Nodes and primitives with a visibility hint.
    pub visibility_hints: usize,
    /// Nodes with `KHR_skeleton_bone`.
    pub skeleton_bones: usize,
}

impl AvatarReport {
    /// The report of a document's JSON, `None` when it uses none of the drafts.
    pub fn of(root: &crate::formats::gltf::json::Root) -> Option<AvatarReport> {
        use crate::formats::gltf::khr_character as khr;
        let is_avatar = |name: &str| {
            name.starts_with("KHR_character")
                || name.starts_with("KHR_node_")
                || name == "KHR_mesh_primitive_visibility_hint"
                || name == "KHR_skeleton_bone"
        };
        let extensions: Vec<String> = root
            .extensions_used
            .iter()
            .filter(|e| is_avatar(e))
            .cloned()
            .collect();
        let root_extensions = root.extensions.as_ref();
        if extensions.is_empty() && !root_extensions.is_some_and(|e| e.keys().any(|k| is_avatar(k)))
        {
            return None;
        }
        let get = |name: &str| root_extensions.and_then(|e| e.get(name));
        let node_has = |name: &str| {
            root.nodes
                .iter()
                .filter(|n| n.extensions.as_ref().is_some_and(|e| e.contains_key(name)))
                .count()
        };
        let primitive_hints = root
            .meshes
            .iter()
            .flat_map(|m| m.primitives.iter())
            .filter(|p| {
                p.other
                    .get("extensions")
                    .and_then(|e| e.get("KHR_mesh_primitive_visibility_hint"))
                    .is_some()
            })
            .count();
        Some(AvatarReport {
            extensions,
            root_node: get(khr::CHARACTER)
                .and_then(|c| c.get("rootNode"))
                .and_then(serde_json::Value::as_u64)
                .and_then(|n| usize::try_from(n).ok()),
            rigs: get(khr::MAPPING)
                .and_then(|m| m.get("skeletalRigMappings"))
                .and_then(serde_json::Value::as_object)
                .map(|rigs| {
                    rigs.iter()
                        .map(|(k, v)| (k.clone(), v.as_object().map_or(0, |o| o.len())))
                        .collect()
                })
                .unwrap_or_default(),
            reference_pose: root
                .animations
                .iter()
                .find_map(|a| khr::reference_pose_type(&a.other)),
            lookat_targets: node_has(crate::ops::khr_write::LOOKAT_TARGET),
            expressions: get("KHR_character_expression")
                .and_then(|e| e.get("expressions"))
                .and_then(serde_json::Value::as_array)
                .map_or(0, Vec::len),
            visibility_hints: node_has("KHR_node_visibility_hint") + primitive_hints,
            skeleton_bones: node_has("KHR_skeleton_bone"),
        })
    }
}

/// One humanoid skeleton: its root and the 55-bone table.
#[derive(Debug, Clone, Serialize)]
pub struct SkeletonReport {
    /// The skeleton's root joint.
    pub root: Option<JointRef>,
    /// How many of the 55 bones are mapped.
    pub mapped: usize,
    /// Bones the format's profile requires that are missing.
    pub missing_required: Vec<String>,
    /// All 55 bones, parents first.
    pub bones: Vec<BoneRow>,
}

/// A joint by index and name.
#[derive(Debug, Clone, Serialize)]
pub struct JointRef {
    /// The joint's index in the file (glTF: node index).
    pub node: usize,
    /// Its name.
    pub name: String,
}

/// One row of the bone table.
#[derive(Debug, Clone, Serialize)]
pub struct BoneRow {
    /// Canonical bone name.
    pub bone: &'static str,
    /// The node index it maps to, if mapped.
    pub node: Option<usize>,
    /// The node's name, if mapped.
    pub name: Option<String>,
    /// Whether the format's profile requires this bone.
    pub required: bool,
}

/// Authorship and licence.
#[derive(Debug, Clone, Serialize)]
pub struct MetaReport {
    /// The character's name.
    pub name: Option<String>,
    /// Its authors.
    pub authors: Vec<String>,
    /// Its licence.
    pub license: Option<String>,
}

/// The look-at point.
#[derive(Debug, Clone, Serialize)]
pub struct LookAtReport {
    /// The joint it follows.
    pub joint: Option<JointRef>,
    /// Offset from that joint.
    pub offset: [f32; 3],
    /// `bone` or `expression`.
    pub kind: &'static str,
}

/// One expression.
#[derive(Debug, Clone, Serialize)]
pub struct ExpressionReport {
    /// Its name.
    pub name: String,
    /// Whether it is a preset.
    pub preset: bool,
    /// Morph-target binds driving it.
    pub morph_binds: usize,
}

/// One mesh and its skin.
#[derive(Debug, Clone, Serialize)]
pub struct MeshReport {
    /// The mesh's name.
    pub name: String,
    /// Vertices.
    pub vertices: usize,
    /// Triangles.
    pub triangles: usize,
    /// Joints its skin binds it to (0: it moves rigidly with its node).
    pub skin_joints: usize,
    /// Morph targets (blend shapes).
    pub morph_targets: usize,
    /// Its material's name, if it has one.
    pub material: Option<String>,
    /// Whether the material has a base colour texture.
    pub texture: bool,
}

impl MeshReport {
    /// The report of `mesh`.
    pub fn new(mesh: &crate::model::mesh::SkinnedMesh) -> MeshReport {
        MeshReport {
            name: mesh.name.clone(),
            vertices: mesh.positions.len(),
            triangles: mesh.indices.len() / 3,
            skin_joints: if mesh.rigid {
                0
            } else {
                mesh.joints_used.len()
            },
            morph_targets: mesh.morph_targets.len(),
            material: mesh.material.as_ref().map(|m| m.name.clone()),
            texture: mesh
                .material
                .as_ref()
                .is_some_and(|m| m.base_color_texture.is_some()),
        }
    }
}

/// One clip.
#[derive(Debug, Clone, Serialize)]
pub struct ClipReport {
    /// Clip name.
    pub name: String,
    /// Duration in seconds (last key time).
    pub duration: f32,
    /// All tracks.
    pub tracks: usize,
    /// Tracks that target a joint (glTF `target.node`).
    pub node_tracks: usize,
    /// Tracks that target a humanoid bone (EXT_skeleton_humanoid channels).
    pub bone_tracks: usize,
    /// Expression weight tracks (VRMA).
    pub expression_tracks: usize,
    /// Gaze tracks (VRMA lookAt).
    pub look_at_tracks: usize,
}

/// Reads `path` and reports what it holds.
///
/// # Errors
/// The file cannot be read or is structurally invalid.
pub fn inspect(path: &Path) -> Result<Inspection, Error> {
    inspect_with(path, None)
}

/// As [`inspect`], mapping a rig that declares no humanoid with `mapping` (the report lists
/// how, as a diagnostic).
///
/// # Errors
/// As [`inspect`]; the rig is not a humanoid.
pub fn inspect_with(path: &Path, mapping: Option<&RigMapping>) -> Result<Inspection, Error> {
    let options = crate::ops::read::ReadOptions {
        strict_sockets: true,
        ..crate::ops::read::ReadOptions::default()
    };
    let read = crate::ops::read::read(path, &options)?;
    let sockets = read.character.sockets;
    let avatar = read
        .character
        .carry
        .get::<crate::formats::gltf::Document>()
        .and_then(|d| AvatarReport::of(&d.root));
    let meshes: Vec<MeshReport> = read.character.meshes.iter().map(MeshReport::new).collect();
    let mut read = crate::model::ReadOutcome {
        asset: read.character.asset,
        diagnostics: read.diagnostics,
    };
    if let Some(mapping) = mapping {
        mapping
            .attach(&mut read.asset, path)?
            .note("", &mut read.diagnostics);
    }
    let (_, places) = crate::ops::sockets::place(
        &read.asset,
        &sockets,
        &crate::ops::sockets::SocketOptions::default(),
        path,
    )?;
    let mut inspection = Inspection::new(path, &read.asset, read.diagnostics);
    inspection.sockets = places;
    inspection.meshes = meshes;
    inspection.avatar = avatar;
    Ok(inspection)
}

/// Reads `path` as [`inspect`] does (its sockets strictly, and placed) and returns every
/// diagnostic; a caller treats any error-severity one as "invalid". `validate` is the strictest
/// reader: nothing another command refuses passes it.
///
/// # Errors
/// The file cannot be read or is structurally invalid (that is also "invalid").
pub fn validate(path: &Path) -> Result<Diagnostics, Error> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
    {
        // A mapping table: checked as `--map` would load it.
        crate::mapping::library::Library::builtin()?.add_file(path)?;
        return Ok(Diagnostics::new());
    }
    if is_godot_resource(path) {
        return crate::formats::godot::validate::validate_file(path);
    }
    Ok(inspect(path)?.diagnostics)
}

/// Whether `path` is a Godot resource (`.tres`, a scene's `.import`), which holds a mapping
/// rather than a model.
pub fn is_godot_resource(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("tres") || e.eq_ignore_ascii_case("import"))
}

fn profile(format: Format) -> Profile {
    match format {
        Format::Vrm1 | Format::Vrma => Profile::Vrm1,
        Format::Vrm0 => Profile::Vrm0,
        Format::GodotBoneMap | Format::GodotProfile => Profile::Godot,
        _ => Profile::ExtSkeletonHumanoid,
    }
}

impl Inspection {
    /// The report for an asset read from `path`.
    pub fn new(path: &Path, asset: &Asset, diagnostics: Diagnostics) -> Inspection {
        let profile = profile(asset.format);
        let skeleton = &asset.skeleton;
        let joint_ref = |joint| JointRef {
            node: asset.source_index(joint),
            name: skeleton.name(joint).to_owned(),
        };
        let skeletons = asset
            .humanoids
            .iter()
            .map(|h| {
                let bones: Vec<BoneRow> = HumanBone::ALL
                    .iter()
                    .map(|&bone| {
                        let joint = h.bones.get(bone);
                        BoneRow {
                            bone: bone.as_str(),
                            node: joint.map(|j| asset.source_index(j)),
                            name: joint.map(|j| skeleton.name(j).to_owned()),
                            required: bone.is_required(profile),
                        }
                    })
                    .collect();
                SkeletonReport {
                    root: h.root.map(joint_ref),
                    mapped: bones.iter().filter(|b| b.node.is_some()).count(),
                    missing_required: h
                        .bones
                        .missing(profile)
                        .iter()
                        .map(|b| b.to_string())
                        .collect(),
                    bones,
                }
            })
            .collect();
        let clips = asset
            .clips
            .iter()
            .map(|clip| {
                let count = |f: fn(&TrackTarget) -> bool| {
                    clip.tracks().iter().filter(|t| f(&t.target())).count()
                };
                ClipReport {
                    name: clip.name.clone(),
                    duration: clip.duration(),
                    tracks: clip.tracks().len(),
                    node_tracks: count(|t| matches!(t, TrackTarget::Joint(_))),
                    bone_tracks: count(|t| matches!(t, TrackTarget::Bone(_))),
                    expression_tracks: count(|t| matches!(t, TrackTarget::Expression(_))),
                    look_at_tracks: count(|t| matches!(t, TrackTarget::LookAt)),
                }
            })
            .collect();
        let meta = asset.meta.as_ref().map(|m| MetaReport {
            name: m.name.clone(),
            authors: m.authors.clone(),
            license: m.license.clone(),
        });
        let look_at = asset.look_at.as_ref().map(|l| LookAtReport {
            joint: l.joint.map(joint_ref),
            offset: l.offset.to_array(),
            kind: match l.kind {
                LookAtKind::Bone => "bone",
                LookAtKind::Expression => "expression",
            },
        });
        let expressions = asset
            .expressions
            .iter()
            .map(|e| ExpressionReport {
                name: e.name.clone(),
                preset: e.preset,
                morph_binds: e.morph_binds,
            })
            .collect();
        Inspection {
            file: path.display().to_string(),
            format: asset.format.name().to_owned(),
            joints: skeleton.len(),
            skeletons,
            facing: asset.facing,
            meta,
            look_at,
            expressions,
            clips,
            sockets: Vec::new(),
            meshes: Vec::new(),
            avatar: None,
            diagnostics,
        }
    }

    /// Writes the human-readable report.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn write_text(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "file    {}", self.file)?;
        writeln!(out, "format  {}", self.format)?;
        writeln!(out, "joints  {}", self.joints)?;
        if self.facing == Facing::MinusZ {
            writeln!(out, "facing  -Z (VRM 0.x)")?;
        }
        if let Some(meta) = &self.meta {
            writeln!(
                out,
                "meta    {:?} by {} ({})",
                meta.name.as_deref().unwrap_or("-"),
                if meta.authors.is_empty() {
                    "-".to_owned()
                } else {
                    meta.authors.join(", ")
                },
                meta.license.as_deref().unwrap_or("no licence given")
            )?;
        }
        if let Some(look) = &self.look_at {
            let joint = look.joint.as_ref().map_or_else(
                || "-".to_owned(),
                |j| format!("node {} {:?}", j.node, j.name),
            );
            let [x, y, z] = look.offset;
            let [x, y, z] = [x, y, z].map(crate::math::num::Num::from);
            writeln!(out, "lookAt  {} from {joint} + ({x}, {y}, {z})", look.kind)?;
        }
        if !self.expressions.is_empty() {
            let names: Vec<&str> = self.expressions.iter().map(|e| e.name.as_str()).collect();
            writeln!(out, "expressions ({}): {}", names.len(), names.join(", "))?;
        }
        if self.skeletons.is_empty() {
            writeln!(out, "humanoid skeletons: none declared")?;
        }
        for (i, skeleton) in self.skeletons.iter().enumerate() {
            let root = skeleton
                .root
                .as_ref()
                .map(|r| format!("node {} {:?}", r.node, r.name))
                .unwrap_or_else(|| "-".into());
            writeln!(
                out,
                "\nhumanoid skeleton {i}: root {root}, {}/55 bones mapped",
                skeleton.mapped
            )?;
            if !skeleton.missing_required.is_empty() {
                writeln!(
                    out,
                    "  missing required: {}",
                    skeleton.missing_required.join(", ")
                )?;
            }
            writeln!(out, "  {:<24} {:>5}  node name", "bone", "node")?;
            for row in &skeleton.bones {
                let flag = match (row.required, row.node.is_some()) {
                    (true, false) => "  MISSING (required)",
                    (true, true) => "  (required)",
                    _ => "",
                };
                match (row.node, &row.name) {
                    (Some(node), Some(name)) => {
                        writeln!(out, "  {:<24} {node:>5}  {name}{flag}", row.bone)?
                    }
                    _ => writeln!(out, "  {:<24} {:>5}  {flag}", row.bone, "-")?,
                }
            }
        }
        writeln!(out, "\nclips: {}", self.clips.len())?;
        for clip in &self.clips {
            let mut kinds = vec![
                format!("{} node", clip.node_tracks),
                format!("{} bone", clip.bone_tracks),
            ];
            if clip.expression_tracks > 0 {
                kinds.push(format!("{} expression", clip.expression_tracks));
            }
            if clip.look_at_tracks > 0 {
                kinds.push(format!("{} look-at", clip.look_at_tracks));
            }
            writeln!(
                out,
                "  {:<32} {:>8.3} s  {} tracks ({})",
                format!("{:?}", clip.name),
                clip.duration,
                clip.tracks,
                kinds.join(", ")
            )?;
        }
        if !self.meshes.is_empty() {
            let skinned = self.meshes.iter().filter(|m| m.skin_joints > 0).count();
            writeln!(out, "\nmeshes: {} ({skinned} skinned)", self.meshes.len())?;
            for mesh in &self.meshes {
                let mut parts = vec![
                    format!("{} vertices", mesh.vertices),
                    format!("{} triangles", mesh.triangles),
                    if mesh.skin_joints > 0 {
                        format!("skinned to {} joints", mesh.skin_joints)
                    } else {
                        "rigid on its node".to_owned()
                    },
                ];
                if mesh.morph_targets > 0 {
                    parts.push(format!("{} morph targets", mesh.morph_targets));
                }
                if let Some(material) = &mesh.material {
                    let texture = if mesh.texture { " (textured)" } else { "" };
                    parts.push(format!("material {material:?}{texture}"));
                }
                writeln!(
                    out,
                    "  {:<32} {}",
                    format!("{:?}", mesh.name),
                    parts.join(", ")
                )?;
            }
        }
        if !self.sockets.is_empty() {
            writeln!(out, "\nsockets: {}", self.sockets.len())?;
            for socket in &self.sockets {
                let [x, y, z] = socket.position;
                writeln!(
                    out,
                    "  {:<24} on {:<20} at ({x:.4}, {y:.4}, {z:.4}) {}",
                    socket.name,
                    socket.parent.as_deref().unwrap_or("(scene)"),
                    socket.kind.as_deref().unwrap_or("")
                )?;
            }
        }
        if let Some(avatar) = &self.avatar {
            avatar.write_text(out)?;
        }
        writeln!(out, "\ndiagnostics: {}", self.diagnostics.len())?;
        for diagnostic in &self.diagnostics {
            writeln!(out, "  {diagnostic}")?;
        }
        Ok(())
    }
}

impl AvatarReport {
    fn write_text(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(
            out,
            "\nKhronos avatar drafts: {}",
            self.extensions.join(", ")
        )?;
        if let Some(root) = self.root_node {
            writeln!(out, "  KHR_character root node {root}")?;
        }
        for (rig, joints) in &self.rigs {
            writeln!(out, "  skeleton mapping {rig:?}: {joints} joints")?;
        }
        if let Some(pose) = &self.reference_pose {
            writeln!(out, "  reference pose {pose}")?;
        }
        for (count, what) in [
            (self.lookat_targets, "look-at target node(s)"),
            (self.expressions, "expression(s)"),
            (self.visibility_hints, "visibility hint(s)"),
            (self.skeleton_bones, "KHR_skeleton_bone node(s)"),
        ] {
            if count > 0 {
                writeln!(out, "  {count} {what}")?;
            }
        }
        Ok(())
    }
}
