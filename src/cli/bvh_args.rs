//! `--bvh-order` and `--bvh-units`, for every command that may write a BVH.

use clap::builder::PossibleValue;
use clap::ValueEnum;
use humanoid::formats::bvh::{self, EulerOrder, WriteOptions};

/// The BVH output's rotation order and unit.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BvhOutArgs {
    /// BVH output: the rotation channel order (XYZ, XZY, YXZ, YZX, ZXY, ZYX; default ZXY).
    #[arg(long, value_name = "ORDER", ignore_case = true)]
    bvh_order: Option<BvhOrder>,
    /// BVH output: the unit, `cm` (default) or `m`.
    #[arg(long, value_name = "cm|m")]
    bvh_units: Option<BvhUnits>,
}

impl BvhOutArgs {
    /// The Euler order asked for (`None`: the writer's default).
    pub fn order(&self) -> Option<EulerOrder> {
        self.bvh_order.map(|o| o.0)
    }

    /// The metres per file unit asked for (`None`: the writer's default).
    pub fn scale(&self) -> Option<f64> {
        self.bvh_units.map(BvhUnits::metres)
    }

    /// BVH write options with what was asked for.
    pub fn write_options(&self) -> WriteOptions {
        let mut options = WriteOptions::default();
        if let Some(order) = self.order() {
            options.order = order;
        }
        if let Some(scale) = self.scale() {
            options.scale = scale;
        }
        options
    }
}

/// One of [`EulerOrder::ALL`], by its name (`XYZ`; any case on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BvhOrder(pub EulerOrder);

/// [`EulerOrder::ALL`], in its order.
const ORDERS: [BvhOrder; EulerOrder::ALL.len()] = {
    let mut all = [BvhOrder(EulerOrder::Zxy); EulerOrder::ALL.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = BvhOrder(EulerOrder::ALL[i]);
        i += 1;
    }
    all
};

impl ValueEnum for BvhOrder {
    fn value_variants<'a>() -> &'a [Self] {
        &ORDERS
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

/// The unit of a BVH output: centimetres or metres.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BvhUnits {
    // Centimetres, the default.
    Cm,
    // Metres.
    M,
}

impl BvhUnits {
    /// Metres per file unit.
    pub fn metres(self) -> f64 {
        match self {
            BvhUnits::Cm => bvh::CENTIMETRES,
            BvhUnits::M => bvh::METRES,
        }
    }
}
