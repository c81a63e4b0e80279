//! Sockets: named points that follow a joint (or the scene root) with an offset, and which
//! parts of the parent's motion they follow.
//!
//! A [`Socket`] is the canonical form of a glTF `KHR_virtual_transform` entry, an H-Anim
//! `HAnimSite`, a Godot `BoneAttachment3D` or VRM's gaze origin. Its world transform is computed
//! by [`crate::pose::socket`]; the `respect_parent_*` flags are read there.
//!
//! What a socket is *for* is carried twice: free-form [`Socket::tags`] (as the file wrote them)
//! and, where one of them is a well-known tag, a typed [`SocketKind`] (see
//! [`SocketKind::from_tag`] for the table).

use glam::{Quat, Vec3};

use crate::math::trs::Trs;
use crate::model::JointId;

/// What a socket is for, derived from well-known tags.
///
/// [`SocketKind::from_tag`] lists the tags that map to each kind; [`SocketKind::tag`] is the tag
/// written for a kind when none of a socket's tags already names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SocketKind {
    /// A point to look at (head/eye tracking target), such as the spec's `lookAt_target` in
    /// front of the head. Not the point the eyes look *from* ([`SocketKind::GazeOrigin`]).
    LookAtTarget,
    /// The point the eyes look from: VRM 1.0 `lookAt.offsetFromHeadBone` (0.x
    /// `firstPersonBoneOffset`).
    GazeOrigin,
    /// A place to attach a held or worn object (weapon, tool, prop).
    HandAttach,
    /// A seating or standing anchor.
    Seat,
    /// A camera mount or camera hint (first-person view, H-Anim `*_view` sites).
    Camera,
    /// A UI anchor (wrist UI, name plate).
    Ui,
    /// A debug, measurement or reference marker.
    Marker,
}

impl SocketKind {
    /// Every kind, in declaration order.
    pub const ALL: [SocketKind; 7] = [
        SocketKind::LookAtTarget,
        SocketKind::GazeOrigin,
        SocketKind::HandAttach,
        SocketKind::Seat,
        SocketKind::Camera,
        SocketKind::Ui,
        SocketKind::Marker,
    ];

    /// The kind a well-known tag names, compared ASCII-case-insensitively:
    ///
    /// | Kind | Tags |
    /// |---|---|
    /// | [`LookAtTarget`](SocketKind::LookAtTarget) | `look_at`, `lookat`, `look_at_target`, `lookat_target` |
    /// | [`GazeOrigin`](SocketKind::GazeOrigin) | `gaze_origin`, `gaze`, `eye_origin` |
    /// | [`HandAttach`](SocketKind::HandAttach) | `hand_attach`, `weapon_socket`, `weapon`, `attach`, `attachment`, `attach_point`, `grip` |
    /// | [`Seat`](SocketKind::Seat) | `seating`, `seat`, `sit` |
    /// | [`Camera`](SocketKind::Camera) | `camera`, `camera_hint`, `viewpoint` |
    /// | [`Ui`](SocketKind::Ui) | `ui` |
    /// | [`Marker`](SocketKind::Marker) | `marker`, `debug` |
    ///
    /// `look_at`, `weapon_socket`, `seating`, `ui`, `debug` and `marker` are the tags of the
    /// `KHR_virtual_transform` examples.
    ///
    /// ```
    /// use humanoid::model::socket::SocketKind;
    /// assert_eq!(SocketKind::from_tag("Weapon_Socket"), Some(SocketKind::HandAttach));
    /// assert_eq!(SocketKind::from_tag("jewelry"), None);
    /// ```
    pub fn from_tag(tag: &str) -> Option<SocketKind> {
        let tag = tag.to_ascii_lowercase();
        Some(match tag.as_str() {
            "look_at" | "lookat" | "look_at_target" | "lookat_target" => SocketKind::LookAtTarget,
            "gaze_origin" | "gaze" | "eye_origin" => SocketKind::GazeOrigin,
            "hand_attach" | "weapon_socket" | "weapon" | "attach" | "attachment"
            | "attach_point" | "grip" => SocketKind::HandAttach,
            "seating" | "seat" | "sit" => SocketKind::Seat,
            "camera" | "camera_hint" | "viewpoint" => SocketKind::Camera,
            "ui" => SocketKind::Ui,
            "marker" | "debug" => SocketKind::Marker,
            _ => return None,
        })
    }

    /// The kind of the first tag that names one ([`SocketKind::from_tag`]), if any.
    pub fn from_tags<S: AsRef<str>>(tags: &[S]) -> Option<SocketKind> {
        tags.iter().find_map(|t| SocketKind::from_tag(t.as_ref()))
    }

    /// The tag written for this kind: `look_at`, `gaze_origin`, `hand_attach`, `seating`,
    /// `camera`, `ui`, `marker`.
    pub fn tag(self) -> &'static str {
        match self {
            SocketKind::LookAtTarget => "look_at",
            SocketKind::GazeOrigin => "gaze_origin",
            SocketKind::HandAttach => "hand_attach",
            SocketKind::Seat => "seating",
            SocketKind::Camera => "camera",
            SocketKind::Ui => "ui",
            SocketKind::Marker => "marker",
        }
    }
}

/// A named point with a local transform relative to a parent joint (or the scene root), and
/// flags for which parts of the parent's world transform it follows.
///
/// Field meanings and defaults follow `KHR_virtual_transform`: translation `0`, rotation
/// identity, scale `1`, and all three `respect_parent_*` flags `true` (the socket moves like a
/// child node). How the flags combine is written in [`crate::pose::socket`].
///
/// ```
/// use glam::{Quat, Vec3};
/// use humanoid::model::socket::{Socket, SocketKind};
/// use humanoid::model::JointId;
///
/// // The spec's wrist UI: follows the wrist's position only.
/// let mut ui = Socket::new("wrist_ui", JointId::from_index(19));
/// ui.translation = Vec3::new(0.0, 0.25, 0.0);
/// ui.respect_parent_rotation = false;
/// ui.respect_parent_scale = false;
/// ui.set_tags(vec!["ui".to_owned()]);
/// assert_eq!(ui.kind, Some(SocketKind::Ui));
/// assert_eq!(ui.rotation, Quat::IDENTITY);
/// assert!(ui.respect_parent_position);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Socket {
    /// The socket's name (need not be unique; readers warn when it is not).
    pub name: String,
    /// The joint it follows; `None` for the scene root (world space).
    pub parent: Option<JointId>,
    /// Local offset from the parent.
    pub translation: Vec3,
    /// Local orientation relative to the parent (unit quaternion).
    pub rotation: Quat,
    /// Local per-axis scale.
    pub scale: Vec3,
    /// Whether it follows the parent's world position after initialization.
    pub respect_parent_position: bool,
    /// Whether it follows the parent's world rotation after initialization.
    pub respect_parent_rotation: bool,
    /// Whether it follows the parent's world scale after initialization.
    pub respect_parent_scale: bool,
    /// Free-form tags, in file order.
    pub tags: Vec<String>,
    /// What it is for, when one of the tags is well known ([`SocketKind::from_tag`]).
    pub kind: Option<SocketKind>,
}

impl Socket {
    /// A socket at the parent's origin with the spec's defaults: no offset, all flags `true`,
    /// no tags, no kind.
    pub fn new(name: impl Into<String>, parent: Option<JointId>) -> Socket {
        Socket {
            name: name.into(),
            parent,
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
            respect_parent_position: true,
            respect_parent_rotation: true,
            respect_parent_scale: true,
            tags: Vec::new(),
            kind: None,
        }
    }

    /// Replaces the tags and derives [`Socket::kind`] from them.
    pub fn set_tags(&mut self, tags: Vec<String>) {
        self.kind = SocketKind::from_tags(&tags);
        self.tags = tags;
    }

    /// The local transform as a [`Trs`].
    pub fn local(&self) -> Trs {
        Trs::new(self.translation, self.rotation, self.scale)
    }

    /// Whether all three `respect_parent_*` flags are set (the socket is an ordinary child).
    pub fn respects_all(&self) -> bool {
        self.respect_parent_position && self.respect_parent_rotation && self.respect_parent_scale
    }

    /// The tags to write: [`Socket::tags`], plus the [`SocketKind::tag`] of [`Socket::kind`]
    /// when no tag already names that kind (so a kind set by hand survives a write and read).
    pub fn tags_for_writing(&self) -> Vec<String> {
        let mut tags = self.tags.clone();
        if let Some(kind) = self.kind {
            if !tags.iter().any(|t| SocketKind::from_tag(t) == Some(kind)) {
                tags.push(kind.tag().to_owned());
            }
        }
        tags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_kind_tags_round_trip() {
        for kind in SocketKind::ALL {
            assert_eq!(SocketKind::from_tag(kind.tag()), Some(kind));
        }
        assert_eq!(
            SocketKind::from_tags(&["debug", "marker"]),
            Some(SocketKind::Marker)
        );
        assert_eq!(SocketKind::from_tags::<&str>(&[]), None);
    }

    #[test]
    fn socket_kind_tag_added_when_missing() {
        let mut s = Socket::new("eyes", None);
        s.kind = Some(SocketKind::GazeOrigin);
        assert_eq!(s.tags_for_writing(), vec!["gaze_origin".to_owned()]);
        s.set_tags(vec!["gaze".to_owned()]);
        assert_eq!(s.tags_for_writing(), vec!["gaze".to_owned()]);
    }
}
