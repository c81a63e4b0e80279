//! [`Character`]: a whole character in canonical terms: the [`Asset`] (skeleton, humanoid bone
//! maps, clips, expressions, look-at, meta), the meshes drawn on it and the sockets hung on
//! it, with the [`Carry`] an adapter leaves for a same-family write.

use std::any::Any;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::asset::Asset;
use super::mesh::SkinnedMesh;
use super::skeleton::JointId;
use super::socket::Socket;

/// A character read from a file, everything a command needs of it.
///
/// ```
/// use humanoid::model::{Asset, Character, Format, RawJoint, Skeleton};
/// use humanoid::math::Trs;
///
/// let raw = vec![RawJoint { name: "hips".into(), parent: None, rest: Trs::IDENTITY }];
/// let (skeleton, _) = Skeleton::from_raw(raw)?;
/// let character = Character::new(Asset::new(Format::Bvh, skeleton, vec![0]));
/// assert!(character.meshes.is_empty() && character.sockets.is_empty());
/// assert!(character.carry.get::<String>().is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Character {
    /// Skeleton, humanoid bone maps, clips, expressions, look-at and meta.
    pub asset: Asset,
    /// The meshes, skinned to joints of [`Asset::skeleton`] (empty when the read asked for
    /// none, or the format holds none).
    pub meshes: Vec<SkinnedMesh>,
    /// For each mesh, the joint that draws it (a glTF mesh node), `None` where the format has
    /// no such node (H-Anim skins and segments).
    pub mesh_nodes: Vec<Option<JointId>>,
    /// Sockets on joints: glTF `KHR_virtual_transform`, a VRM's gaze origin, H-Anim Sites.
    pub sockets: Vec<Socket>,
    /// What the adapter that read it keeps for writing the same family back losslessly.
    pub carry: Carry,
    /// The file it was read from (`None` when it was read from bytes or built): a write never
    /// replaces it, and messages about it name it.
    pub source: Option<PathBuf>,
}

impl Character {
    /// A character of `asset` alone: no meshes, no sockets, nothing carried.
    pub fn new(asset: Asset) -> Character {
        Character {
            asset,
            meshes: Vec::new(),
            mesh_nodes: Vec::new(),
            sockets: Vec::new(),
            carry: Carry::default(),
            source: None,
        }
    }
}

/// A per-format carry-along: the adapter's own record of the source (the glTF document, a
/// BVH's channel layout), opaque to the model and read back by the adapter that put it there
/// ([`Carry::get`]), so that a write to the same family keeps what the model does not hold.
#[derive(Clone, Default)]
pub struct Carry(Option<Arc<dyn Any + Send + Sync>>);

impl Carry {
    /// Carries `value`.
    pub fn new<T: Any + Send + Sync>(value: T) -> Carry {
        Carry(Some(Arc::new(value)))
    }

    /// The carried value, if there is one of type `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0
            .as_deref()
            .and_then(|v| (v as &dyn Any).downcast_ref())
    }
}

impl fmt::Debug for Carry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Carry(..)"
        } else {
            "Carry(none)"
        })
    }
}
