//! Where accessors are used, and whether each use must turn with the model.
//!
//! A use is a place in the JSON that names an accessor ([`Site`]) plus the [`Turn`] its data
//! needs there (`None`: the data has no direction, e.g. texture coordinates, joints, key
//! times, scales). An accessor turns once however many uses share it; one shared by a use
//! that turns and a use that does not is copied (see `accessors.rs`).
//!
//! Animation samplers come first: a sampler shared by a channel that turns (translation,
//! rotation) and one that does not (scale) is split in two ([`split_shared_samplers`]), so
//! that afterwards every sampler output has exactly one kind of use.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::turn::Turn;
use crate::error::{Diagnostics, Error, Location};
use crate::formats::gltf::json::{Accessor, AnimationSampler, Channel, Index, Ordered, Root};

/// The node extension whose per-instance transforms live in the node's local frame.
const GPU_INSTANCING: &str = "EXT_mesh_gpu_instancing";

/// A place in the JSON that names an accessor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Site {
    /// `meshes[mesh].primitives[primitive].attributes[semantic]`.
    Attribute {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
        /// Attribute semantic.
        semantic: String,
    },
    /// `meshes[mesh].primitives[primitive].targets[target][semantic]`.
    MorphTarget {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
        /// Morph target index.
        target: usize,
        /// Attribute semantic.
        semantic: String,
    },
    /// `meshes[mesh].primitives[primitive].indices`.
    Indices {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
    },
    /// `skins[skin].inverseBindMatrices`.
    InverseBindMatrices {
        /// Skin index.
        skin: usize,
    },
    /// `animations[animation].samplers[sampler].input`.
    SamplerInput {
        /// Animation index.
        animation: usize,
        /// Sampler index.
        sampler: usize,
    },
    /// `animations[animation].samplers[sampler].output`.
    SamplerOutput {
        /// Animation index.
        animation: usize,
        /// Sampler index.
        sampler: usize,
    },
    /// `nodes[node].extensions.EXT_mesh_gpu_instancing.attributes[semantic]`.
    Instancing {
        /// Node index.
        node: usize,
        /// Attribute semantic.
        semantic: String,
    },
}

impl Site {
    /// The JSON pointer of the accessor index.
    pub(super) fn pointer(&self) -> String {
        use crate::formats::gltf::json::pointer;
        match self {
            Site::Attribute {
                mesh,
                primitive,
                semantic,
            } => pointer([
                "meshes",
                &mesh.to_string(),
                "primitives",
                &primitive.to_string(),
                "attributes",
                semantic,
            ]),
            Site::MorphTarget {
                mesh,
                primitive,
                target,
                semantic,
            } => pointer([
                "meshes",
                &mesh.to_string(),
                "primitives",
                &primitive.to_string(),
                "targets",
                &target.to_string(),
                semantic,
            ]),
            Site::Indices { mesh, primitive } => {
                format!("/meshes/{mesh}/primitives/{primitive}/indices")
            }
            Site::InverseBindMatrices { skin } => format!("/skins/{skin}/inverseBindMatrices"),
            Site::SamplerInput { animation, sampler } => {
                format!("/animations/{animation}/samplers/{sampler}/input")
            }
            Site::SamplerOutput { animation, sampler } => {
                format!("/animations/{animation}/samplers/{sampler}/output")
            }
            Site::Instancing { node, semantic } => pointer([
                "nodes",
                &node.to_string(),
                "extensions",
                GPU_INSTANCING,
                "attributes",
                semantic,
            ]),
        }
    }

    /// Points this site at another accessor; `false` when the site no longer exists.
    pub(super) fn repoint(&self, root: &mut Root, accessor: Index<Accessor>) -> bool {
        match self {
            Site::Attribute {
                mesh,
                primitive,
                semantic,
            } => match root
                .meshes
                .get_mut(*mesh)
                .and_then(|m| m.primitives.get_mut(*primitive))
            {
                Some(p) => {
                    p.attributes.insert(semantic.clone(), accessor);
                    true
                }
                None => false,
            },
            Site::MorphTarget {
                mesh,
                primitive,
                target,
                semantic,
            } => match root
                .meshes
                .get_mut(*mesh)
                .and_then(|m| m.primitives.get_mut(*primitive))
                .and_then(|p| p.targets.get_mut(*target))
            {
                Some(t) => {
                    t.insert(semantic.clone(), accessor);
                    true
                }
                None => false,
            },
            Site::Indices { mesh, primitive } => match root
                .meshes
                .get_mut(*mesh)
                .and_then(|m| m.primitives.get_mut(*primitive))
            {
                Some(p) => {
                    p.indices = Some(accessor);
                    true
                }
                None => false,
            },
            Site::InverseBindMatrices { skin } => match root.skins.get_mut(*skin) {
                Some(s) => {
                    s.inverse_bind_matrices = Some(accessor);
                    true
                }
                None => false,
            },
            Site::SamplerInput { animation, sampler }
            | Site::SamplerOutput { animation, sampler } => {
                let Some(s) = root
                    .animations
                    .get_mut(*animation)
                    .and_then(|a| a.samplers.get_mut(*sampler))
                else {
                    return false;
                };
                if matches!(self, Site::SamplerInput { .. }) {
                    s.input = accessor;
                } else {
                    s.output = accessor;
                }
                true
            }
            Site::Instancing { node, semantic } => {
                let slot = root
                    .nodes
                    .get_mut(*node)
                    .and_then(|n| n.extensions.as_mut())
                    .and_then(|e| e.get_mut(GPU_INSTANCING))
                    .and_then(|e| e.get_mut("attributes"))
                    .and_then(|a| a.get_mut(semantic.as_str()));
                match slot {
                    Some(value) => {
                        *value = Value::from(accessor.get());
                        true
                    }
                    None => false,
                }
            }
        }
    }
}

/// One use of an accessor.
#[derive(Debug, Clone)]
pub(super) struct Use {
    /// Where.
    pub(super) site: Site,
    /// Which accessor.
    pub(super) accessor: Index<Accessor>,
    /// How its data turns there (`None`: it does not).
    pub(super) turn: Option<Turn>,
}

/// How a mesh attribute turns.
fn attribute_turn(semantic: &str) -> Option<Turn> {
    match semantic {
        "POSITION" | "NORMAL" => Some(Turn::Vec3),
        "TANGENT" => Some(Turn::Vec4),
        _ => None,
    }
}

/// How a morph target attribute turns (its tangent deltas are `VEC3`).
fn morph_turn(semantic: &str) -> Option<Turn> {
    match semantic {
        "POSITION" | "NORMAL" | "TANGENT" => Some(Turn::Vec3),
        _ => None,
    }
}

/// How the output of an animation channel turns; reports channels whose data should turn but
/// cannot be (no target node: `EXT_skeleton_humanoid` deltas; `KHR_animation_pointer`).
fn channel_turn(channel: &Channel, at: &str, diagnostics: &mut Diagnostics) -> Option<Turn> {
    let turn = match channel.target.path.as_str() {
        "translation" => Some(Turn::Vec3),
        "rotation" => Some(Turn::Vec4),
        "pointer" => {
            diagnostics.warn(
                "MIGRATE_CHANNEL_NOT_TURNED",
                format!("{at}/target"),
                "a KHR_animation_pointer channel was left as it was: its values are not turned to face +Z",
            );
            return None;
        }
        _ => return None,
    };
    if channel.target.node.is_none() {
        diagnostics.warn(
            "MIGRATE_CHANNEL_NOT_TURNED",
            format!("{at}/target"),
            format!(
                "a {} channel without a target node (an extension's channel) was left as it was: its values are not turned to face +Z",
                channel.target.path
            ),
        );
        return None;
    }
    turn
}

/// Gives every animation sampler one kind of use: a sampler shared by channels that turn
/// differently (e.g. a translation and a scale channel) gets a copy for the channels whose
/// data turns, appended to the animation's samplers.
pub(super) fn split_shared_samplers(root: &mut Root, diagnostics: &mut Diagnostics) {
    for (a, animation) in root.animations.iter_mut().enumerate() {
        let mut quiet = Diagnostics::new();
        let kinds: Vec<Option<Turn>> = animation
            .channels
            .iter()
            .map(|c| channel_turn(c, "", &mut quiet))
            .collect();
        let mut by_sampler: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (c, channel) in animation.channels.iter().enumerate() {
            by_sampler.entry(channel.sampler.get()).or_default().push(c);
        }
        for (sampler, channels) in by_sampler {
            let mut distinct: Vec<Option<Turn>> = channels
                .iter()
                .filter_map(|&c| kinds.get(c).copied())
                .collect();
            distinct.sort();
            distinct.dedup();
            if distinct.len() < 2 {
                continue;
            }
            let Some(original) = animation
                .samplers
                .get(Index::<AnimationSampler>::new(sampler).as_usize())
                .cloned()
            else {
                continue;
            };
            // The first kind keeps the sampler; each other kind gets its own copy.
            for kind in distinct.iter().skip(1) {
                let Ok(copy) = Index::<AnimationSampler>::try_from(animation.samplers.len()) else {
                    return;
                };
                animation.samplers.push(Ordered::clone(&original));
                for &c in &channels {
                    if kinds.get(c) == Some(kind) {
                        if let Some(channel) = animation.channels.get_mut(c) {
                            channel.sampler = copy;
                        }
                    }
                }
                diagnostics.info(
                    "MIGRATE_SAMPLER_SPLIT",
                    format!("/animations/{a}/samplers/{sampler}"),
                    format!(
                        "sampler {sampler} served channels whose values turn differently; the {} channels now use a copy, sampler {copy}",
                        kind.map_or("unturned", |k| match k {
                            Turn::Vec3 => "translation",
                            Turn::Vec4 => "rotation",
                            Turn::Mat4 => "matrix",
                        })
                    ),
                );
            }
        }
    }
}

/// Every accessor use in the document (after [`split_shared_samplers`]).
///
/// # Errors
/// [`Error::Invalid`] when an `EXT_mesh_gpu_instancing` attribute is not an accessor index.
pub(super) fn collect(
    root: &Root,
    file: &Path,
    diagnostics: &mut Diagnostics,
) -> Result<Vec<Use>, Error> {
    let mut uses = Vec::new();
    mesh_uses(root, &mut uses);
    for (skin, s) in root.skins.iter().enumerate() {
        if let Some(accessor) = s.inverse_bind_matrices {
            uses.push(Use {
                site: Site::InverseBindMatrices { skin },
                accessor,
                turn: Some(Turn::Mat4),
            });
        }
    }
    animation_uses(root, diagnostics, &mut uses);
    instancing_uses(root, file, &mut uses)?;
    Ok(uses)
}

fn mesh_uses(root: &Root, uses: &mut Vec<Use>) {
    for (mesh, m) in root.meshes.iter().enumerate() {
        for (primitive, p) in m.primitives.iter().enumerate() {
            for (semantic, accessor) in p.attributes.iter() {
                uses.push(Use {
                    site: Site::Attribute {
                        mesh,
                        primitive,
                        semantic: semantic.to_owned(),
                    },
                    accessor,
                    turn: attribute_turn(semantic),
                });
            }
            for (target, t) in p.targets.iter().enumerate() {
                for (semantic, accessor) in t.iter() {
                    uses.push(Use {
                        site: Site::MorphTarget {
                            mesh,
                            primitive,
                            target,
                            semantic: semantic.to_owned(),
                        },
                        accessor,
                        turn: morph_turn(semantic),
                    });
                }
            }
            if let Some(accessor) = p.indices {
                uses.push(Use {
                    site: Site::Indices { mesh, primitive },
                    accessor,
                    turn: None,
                });
            }
        }
    }
}

fn animation_uses(root: &Root, diagnostics: &mut Diagnostics, uses: &mut Vec<Use>) {
    for (animation, a) in root.animations.iter().enumerate() {
        let mut kind: BTreeMap<u32, Option<Turn>> = BTreeMap::new();
        for (c, channel) in a.channels.iter().enumerate() {
            let at = format!("/animations/{animation}/channels/{c}");
            let turn = channel_turn(channel, &at, diagnostics);
            kind.entry(channel.sampler.get()).or_insert(turn);
        }
        for (sampler, s) in a.samplers.iter().enumerate() {
            let turn = u32::try_from(sampler)
                .ok()
                .and_then(|i| kind.get(&i).copied())
                .flatten();
            uses.push(Use {
                site: Site::SamplerInput { animation, sampler },
                accessor: s.input,
                turn: None,
            });
            uses.push(Use {
                site: Site::SamplerOutput { animation, sampler },
                accessor: s.output,
                turn,
            });
        }
    }
}

fn instancing_uses(root: &Root, file: &Path, uses: &mut Vec<Use>) -> Result<(), Error> {
    for (node, n) in root.nodes.iter().enumerate() {
        let Some(attributes) = n
            .extensions
            .as_ref()
            .and_then(|e| e.get(GPU_INSTANCING))
            .and_then(|e| e.get("attributes"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (semantic, value) in attributes {
            let site = Site::Instancing {
                node,
                semantic: semantic.clone(),
            };
            let accessor = value
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .map(Index::new)
                .filter(|i: &Index<Accessor>| i.as_usize() < root.accessors.len())
                .ok_or_else(|| {
                    Error::invalid(
                        file,
                        Location::JsonPointer(site.pointer()),
                        format!(
                            "{value} is not an accessor index: expected an integer below {}",
                            root.accessors.len()
                        ),
                    )
                })?;
            let turn = match semantic.as_str() {
                "TRANSLATION" => Some(Turn::Vec3),
                "ROTATION" => Some(Turn::Vec4),
                _ => None,
            };
            uses.push(Use {
                site,
                accessor,
                turn,
            });
        }
    }
    Ok(())
}
