//! Reading a node's fields as typed values: what was written, else the PROTO's default, else
//! the built-in default the caller gives.
//!
//! Values of the nodes the reader interprets were type-checked by the parser; nodes of types
//! the parser does not know (a `Joint` used without a PROTO declaration) may hold anything, so
//! every getter falls back to the default when the value does not have the expected shape.

use std::borrow::Cow;

use glam::{DQuat, DVec3};

use super::tree::{Node, NodeId, Scene};

/// A node with its scene, for field access.
#[derive(Clone, Copy)]
pub(crate) struct Fields<'s, 'a> {
    scene: &'s Scene<'a>,
    node: &'s Node<'a>,
}

impl<'s, 'a> Fields<'s, 'a> {
    /// The fields of `id` (`None` for an id from another scene).
    pub fn of(scene: &'s Scene<'a>, id: NodeId) -> Option<Fields<'s, 'a>> {
        scene.node(id).map(|node| Fields { scene, node })
    }

    /// The node.
    pub fn node(&self) -> &'s Node<'a> {
        self.node
    }

    /// The numbers of field `name`, if it has some.
    pub fn numbers(&self, name: &str) -> Option<&'s [f64]> {
        self.scene.value(self.node, name).and_then(|v| v.numbers())
    }

    /// The numbers of field `name` of a node whose interface the parser does not know (X3D
    /// XML keeps such attributes as text), read as `type_name` (`MFInt32`, `MFVec3f`, ...):
    /// `None` when absent or not numbers of that type.
    pub fn numbers_as(&self, name: &str, type_name: &str) -> Option<Cow<'s, [f64]>> {
        match self.scene.value(self.node, name)? {
            super::tree::Value::Text(text) => {
                let field_type = super::interface::FieldType::from_name(type_name)?;
                match super::interface::parse_text(field_type, text).ok()? {
                    super::tree::Value::Numbers { values, .. } => Some(Cow::Owned(values)),
                    super::tree::Value::Empty => Some(Cow::Owned(Vec::new())),
                    _ => None,
                }
            }
            other => other.numbers().map(Cow::Borrowed),
        }
    }

    /// An SFFloat of a node whose interface the parser does not know (see
    /// [`Fields::numbers_as`]).
    pub fn number_as(&self, name: &str, default: f64) -> f64 {
        match self.numbers_as(name, "SFFloat").as_deref() {
            Some(&[v]) => v,
            _ => default,
        }
    }

    /// An SFBool of a node whose interface the parser does not know (see
    /// [`Fields::numbers_as`]).
    pub fn bool_as(&self, name: &str, default: bool) -> bool {
        match self.scene.value(self.node, name) {
            Some(super::tree::Value::Text(text)) => match text.trim() {
                "true" | "TRUE" => true,
                "false" | "FALSE" => false,
                _ => default,
            },
            _ => self.bool(name, default),
        }
    }

    /// The strings of an SFString or MFString field of a node whose interface the parser does
    /// not know (see [`Fields::numbers_as`]): X3D XML text is read as an MFString (quoted
    /// strings; unquoted text is one string). Empty when absent or not strings.
    pub fn strings_as(&self, name: &str) -> Vec<String> {
        match self.scene.value(self.node, name) {
            Some(super::tree::Value::Text(text)) => {
                let Some(field_type) = super::interface::FieldType::from_name("MFString") else {
                    return Vec::new();
                };
                match super::interface::parse_text(field_type, text) {
                    Ok(super::tree::Value::Strings { values, .. }) => {
                        values.iter().map(|s| s.to_string()).collect()
                    }
                    _ => Vec::new(),
                }
            }
            _ => self.strings(name),
        }
    }

    /// An SFVec3f.
    pub fn vec3(&self, name: &str, default: DVec3) -> DVec3 {
        match self.numbers(name) {
            Some(&[x, y, z]) => DVec3::new(x, y, z),
            _ => default,
        }
    }

    /// An SFRotation (axis, angle) as a unit quaternion, the angle in the file's `UNIT angle`;
    /// identity when absent or when the axis has no length.
    pub fn rotation(&self, name: &str) -> DQuat {
        match self.numbers(name) {
            Some(&[x, y, z, angle]) => axis_angle(x, y, z, angle * self.angle_unit()),
            _ => DQuat::IDENTITY,
        }
    }

    /// Radians per angle unit of the file (`UNIT angle`; 1 without one).
    pub fn angle_unit(&self) -> f64 {
        self.scene.header.units.angle
    }

    /// An SFFloat, SFTime or SFInt32.
    pub fn number(&self, name: &str, default: f64) -> f64 {
        match self.numbers(name) {
            Some(&[v]) => v,
            _ => default,
        }
    }

    /// An SFBool.
    pub fn bool(&self, name: &str, default: bool) -> bool {
        match self.scene.value(self.node, name).and_then(|v| v.bools()) {
            Some(&[v]) => v,
            _ => default,
        }
    }

    /// An MFBool.
    pub fn bools(&self, name: &str) -> &'s [bool] {
        self.scene
            .value(self.node, name)
            .and_then(|v| v.bools())
            .unwrap_or(&[])
    }

    /// An SFString (the first string of an MFString).
    pub fn string(&self, name: &str) -> Option<&'s str> {
        self.scene
            .value(self.node, name)
            .and_then(|v| v.strings())
            .and_then(|s| s.first())
            .map(Cow::as_ref)
    }

    /// An MFString.
    pub fn strings(&self, name: &str) -> Vec<String> {
        self.scene
            .value(self.node, name)
            .and_then(|v| v.strings())
            .map(|s| s.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default()
    }

    /// The nodes of an SFNode or MFNode field.
    pub fn nodes(&self, name: &str) -> &'s [NodeId] {
        self.scene
            .value(self.node, name)
            .and_then(|v| v.nodes())
            .unwrap_or(&[])
    }

    /// The byte offset of field `name` as written, else of the node.
    pub fn at(&self, name: &str) -> usize {
        self.node.field(name).map_or(self.node.at, |f| f.at)
    }
}

/// The unit quaternion of an X3D rotation (axis x y z, angle in radians, right-handed); the
/// identity for an axis without length.
pub(crate) fn axis_angle(x: f64, y: f64, z: f64, angle: f64) -> DQuat {
    let axis = DVec3::new(x, y, z);
    match axis.try_normalize() {
        Some(axis) if angle.is_finite() => DQuat::from_axis_angle(axis, angle),
        _ => DQuat::IDENTITY,
    }
}

/// An X3D rotation (axis, angle) for a unit quaternion; angle in `[0, π]`, the axis +Z for the
/// identity.
pub(crate) fn to_axis_angle(q: DQuat) -> [f64; 4] {
    let q = if q.w < 0.0 { -q } else { q }.normalize();
    let sin = DVec3::new(q.x, q.y, q.z).length();
    if sin < 1e-12 {
        return [0.0, 0.0, 1.0, 0.0];
    }
    let angle = 2.0 * sin.atan2(q.w);
    [q.x / sin, q.y / sin, q.z / sin, angle]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_angle_round_trip() {
        let q = axis_angle(0.0, 2.0, 0.0, 1.0);
        assert!(q.abs_diff_eq(DQuat::from_rotation_y(1.0), 1e-12));
        assert_eq!(axis_angle(0.0, 0.0, 0.0, 1.0), DQuat::IDENTITY);
        let [x, y, z, a] = to_axis_angle(DQuat::from_rotation_x(-2.5));
        assert!((x + 1.0).abs() < 1e-12 && y.abs() < 1e-12 && z.abs() < 1e-12);
        assert!((a - 2.5).abs() < 1e-12);
        assert_eq!(to_axis_angle(DQuat::IDENTITY), [0.0, 0.0, 1.0, 0.0]);
        // −q is the same rotation.
        let [_, _, _, a] = to_axis_angle(-DQuat::from_rotation_z(0.5));
        assert!((a - 0.5).abs() < 1e-12);
    }
}
