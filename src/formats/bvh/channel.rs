//! BVH channels (`Xposition` … `Zrotation`) and Euler rotation orders.
//!
//! ## Overview
//!
//! A joint's `CHANNELS` line lists which of six values each motion row holds for it, in order.
//! The rotation channels, in the order written, are also the joint's Euler order: for
//! `Zrotation Xrotation Yrotation` the local rotation is `Rz · Rx · Ry` (the first listed is
//! outermost), which is [`EulerOrder::Zxy`].
//!
//! ```
//! use humanoid::formats::bvh::{Axis, Channel, EulerOrder};
//!
//! let channel: Channel = "Zrotation".parse()?;
//! assert_eq!(channel, Channel::Rotation(Axis::Z));
//! assert_eq!(channel.name(), "Zrotation");
//! assert_eq!(EulerOrder::Zxy.axes(), [Axis::Z, Axis::X, Axis::Y]);
//! assert_eq!(EulerOrder::from_axes([Axis::Z, Axis::X, Axis::Y]), Some(EulerOrder::Zxy));
//! # Ok::<(), humanoid::formats::bvh::UnknownChannel>(())
//! ```

use std::fmt;
use std::str::FromStr;

/// A coordinate axis of the BVH file's space (and of glTF's: +Y up, +Z forward).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// The x axis.
    X,
    /// The y axis.
    Y,
    /// The z axis.
    Z,
}

impl Axis {
    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }

    /// `'X'`, `'Y'` or `'Z'`.
    pub fn letter(self) -> char {
        match self {
            Axis::X => 'X',
            Axis::Y => 'Y',
            Axis::Z => 'Z',
        }
    }
}

/// One value of a motion row: a position along, or a rotation in degrees about, an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    /// `Xposition`, `Yposition`, `Zposition`: replaces that component of the joint's OFFSET.
    Position(Axis),
    /// `Xrotation`, `Yrotation`, `Zrotation`: degrees about the axis.
    Rotation(Axis),
}

impl Channel {
    /// Every channel, positions first (the order a root's `CHANNELS 6` lists its positions).
    pub const ALL: [Channel; 6] = [
        Channel::Position(Axis::X),
        Channel::Position(Axis::Y),
        Channel::Position(Axis::Z),
        Channel::Rotation(Axis::X),
        Channel::Rotation(Axis::Y),
        Channel::Rotation(Axis::Z),
    ];

    /// The name BVH writes: `Xposition` … `Zrotation`.
    pub fn name(self) -> &'static str {
        match self {
            Channel::Position(Axis::X) => "Xposition",
            Channel::Position(Axis::Y) => "Yposition",
            Channel::Position(Axis::Z) => "Zposition",
            Channel::Rotation(Axis::X) => "Xrotation",
            Channel::Rotation(Axis::Y) => "Yrotation",
            Channel::Rotation(Axis::Z) => "Zrotation",
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A channel name that is none of the six (the name is compared ignoring ASCII case).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown channel {found:?}: expected one of Xposition, Yposition, Zposition, Xrotation, Yrotation, Zrotation")]
pub struct UnknownChannel {
    /// The name found.
    pub found: String,
}

impl FromStr for Channel {
    type Err = UnknownChannel;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Channel::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownChannel {
                found: s.to_owned(),
            })
    }
}

/// The order of three Euler rotations, as written in a `CHANNELS` line: [`EulerOrder::Zxy`]
/// is `Zrotation Xrotation Yrotation` and means `R = Rz · Rx · Ry` (the first listed outermost,
/// so applied to a vector last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EulerOrder {
    /// `Xrotation Yrotation Zrotation`: `Rx · Ry · Rz`.
    Xyz,
    /// `Xrotation Zrotation Yrotation`: `Rx · Rz · Ry`.
    Xzy,
    /// `Yrotation Xrotation Zrotation`: `Ry · Rx · Rz`.
    Yxz,
    /// `Yrotation Zrotation Xrotation`: `Ry · Rz · Rx`.
    Yzx,
    /// `Zrotation Xrotation Yrotation`: `Rz · Rx · Ry` (the classic Biovision order; default).
    #[default]
    Zxy,
    /// `Zrotation Yrotation Xrotation`: `Rz · Ry · Rx`.
    Zyx,
}

impl EulerOrder {
    /// All six orders.
    pub const ALL: [EulerOrder; 6] = [
        EulerOrder::Xyz,
        EulerOrder::Xzy,
        EulerOrder::Yxz,
        EulerOrder::Yzx,
        EulerOrder::Zxy,
        EulerOrder::Zyx,
    ];

    /// The axes in the order written (outermost first).
    pub fn axes(self) -> [Axis; 3] {
        match self {
            EulerOrder::Xyz => [Axis::X, Axis::Y, Axis::Z],
            EulerOrder::Xzy => [Axis::X, Axis::Z, Axis::Y],
            EulerOrder::Yxz => [Axis::Y, Axis::X, Axis::Z],
            EulerOrder::Yzx => [Axis::Y, Axis::Z, Axis::X],
            EulerOrder::Zxy => [Axis::Z, Axis::X, Axis::Y],
            EulerOrder::Zyx => [Axis::Z, Axis::Y, Axis::X],
        }
    }

    /// The order whose axes are `axes` (`None` when an axis repeats).
    pub fn from_axes(axes: [Axis; 3]) -> Option<EulerOrder> {
        EulerOrder::ALL.into_iter().find(|o| o.axes() == axes)
    }

    /// The three rotation channels in this order.
    pub fn channels(self) -> [Channel; 3] {
        self.axes().map(Channel::Rotation)
    }

    /// The name in upper case: `"ZXY"`.
    pub fn name(self) -> &'static str {
        match self {
            EulerOrder::Xyz => "XYZ",
            EulerOrder::Xzy => "XZY",
            EulerOrder::Yxz => "YXZ",
            EulerOrder::Yzx => "YZX",
            EulerOrder::Zxy => "ZXY",
            EulerOrder::Zyx => "ZYX",
        }
    }
}

impl fmt::Display for EulerOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An order name that is not one of the six (`"xyz"` … `"zyx"`, any case).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rotation order {found:?}: expected one of XYZ, XZY, YXZ, YZX, ZXY, ZYX")]
pub struct UnknownOrder {
    /// The name found.
    pub found: String,
}

impl FromStr for EulerOrder {
    type Err = UnknownOrder;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EulerOrder::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownOrder {
                found: s.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_names_round_trip() {
        for channel in Channel::ALL {
            assert_eq!(channel.name().parse::<Channel>(), Ok(channel));
        }
        assert_eq!(
            "XROTATION".parse::<Channel>(),
            Ok(Channel::Rotation(Axis::X))
        );
        let err = "Wrotation".parse::<Channel>().unwrap_err();
        assert!(err.to_string().contains("Xposition"), "{err}");
    }

    #[test]
    fn orders_round_trip() {
        for order in EulerOrder::ALL {
            assert_eq!(EulerOrder::from_axes(order.axes()), Some(order));
            assert_eq!(order.name().parse::<EulerOrder>(), Ok(order));
            let letters: String = order.axes().iter().map(|a| a.letter()).collect();
            assert_eq!(letters, order.name());
        }
        assert_eq!(EulerOrder::from_axes([Axis::X, Axis::X, Axis::Y]), None);
        assert!("xxy".parse::<EulerOrder>().is_err());
        assert_eq!(EulerOrder::default(), EulerOrder::Zxy);
    }
}
