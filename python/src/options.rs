//! The keyword arguments of the package's functions, as the library's options: the same
//! meaning as the command line's flags of the same names.

use std::path::PathBuf;

use humanoid::formats::bvh::{self, EulerOrder};
use humanoid::formats::vrm::convert::{MetaOptions, VrmOptions};
use humanoid::formats::Format;
use humanoid::mapping::RigMapping;
use humanoid::ops::khr_write::{KhrCharacter, MappingForm};
use humanoid::pose::normalize::{NormalizeOptions, RestReference};
use humanoid::rig_tables::Tables;
use humanoid::{Diagnostics, Error};

/// `to="vrm1"`: an output format by its name; only formats the library writes
/// ([`Format::can_write`]) are taken, and the message lists those.
pub fn format(to: Option<&str>) -> Result<Option<Format>, Error> {
    to.map(|name| {
        let writable: Vec<&str> = Format::ALL
            .iter()
            .filter(|f| f.can_write())
            .map(|f| f.name())
            .collect();
        match name.parse::<Format>() {
            Ok(format) if format.can_write() => Ok(format),
            Ok(_) => Err(Error::unsupported(format!(
                "to={name:?}: humanoid reads {name} files but does not write them; expected one of {}",
                writable.join(", ")
            ))),
            Err(_) => Err(Error::unsupported(format!(
                "to={name:?}: expected one of {}",
                writable.join(", ")
            ))),
        }
    })
    .transpose()
}

/// `rest="auto"`, `"node"`, `"bind"` or `"reference"`.
pub fn rest(rest: &str) -> Result<RestReference, Error> {
    match rest {
        "auto" => Ok(RestReference::Auto),
        "node" => Ok(RestReference::Node),
        "bind" => Ok(RestReference::Bind),
        "reference" => Ok(RestReference::Reference),
        other => Err(Error::unsupported(format!(
            "rest={other:?}: expected \"auto\", \"node\", \"bind\" or \"reference\""
        ))),
    }
}

/// `normalize=True, rest=…, rebind=…`.
pub fn normalize(
    on: bool,
    rest_name: &str,
    rebind: bool,
) -> Result<Option<NormalizeOptions>, Error> {
    let rest = rest(rest_name)?;
    Ok(on.then_some(NormalizeOptions { rest, rebind }))
}

/// `bvh_order="ZXY"`: a BVH rotation order.
pub fn bvh_order(order: Option<&str>) -> Result<Option<EulerOrder>, Error> {
    order
        .map(|o| {
            o.parse::<EulerOrder>().map_err(|_| {
                Error::unsupported(format!(
                    "bvh_order={o:?}: expected three of X, Y, Z (ZXY, XYZ, YXZ, ZYX, XZY, YZX)"
                ))
            })
        })
        .transpose()
}

/// `bvh_units="cm"` or `"m"`: the BVH output's file unit (the command line's `--bvh-units`).
pub fn bvh_units(units: Option<&str>) -> Result<Option<f64>, Error> {
    match units {
        None => Ok(None),
        Some("cm") => Ok(Some(bvh::CENTIMETRES)),
        Some("m") => Ok(Some(bvh::METRES)),
        Some(other) => Err(Error::unsupported(format!(
            "bvh_units={other:?}: expected \"cm\" or \"m\""
        ))),
    }
}

/// BVH write options from `bvh_order` and `bvh_units`.
pub fn bvh_write(order: Option<&str>, units: Option<&str>) -> Result<bvh::WriteOptions, Error> {
    let mut options = bvh::WriteOptions::default();
    if let Some(order) = bvh_order(order)? {
        options.order = order;
    }
    if let Some(units) = bvh_units(units)? {
        options.scale = units;
    }
    Ok(options)
}

/// `map=…, mappings=[…]`: the rig mapping and what reading its tables found.
pub fn mapping(
    map: Option<&str>,
    mappings: &[PathBuf],
) -> Result<(Option<RigMapping>, Diagnostics), Error> {
    Tables::rig_mapping(map, mappings)
}

/// The VRM options from `strip_vrm`, `vrm_name`, `vrm_authors`, `vrm_license_url`.
pub fn vrm(
    strip_vrm: bool,
    name: Option<String>,
    authors: Vec<String>,
    license_url: Option<String>,
) -> VrmOptions {
    VrmOptions {
        strip_vrm,
        meta: MetaOptions {
            name,
            authors,
            license_url,
        },
    }
}

/// `khr_character=None` (none added: plain glTF; a glTF input's own kept), `"uri"`,
/// `"node-index"` or `"off"`.
/// `contacts="auto"|"off"` (`None`: auto).
pub fn contacts(value: Option<&str>) -> Result<humanoid::pose::contacts::Contacts, Error> {
    use humanoid::pose::contacts::Contacts;
    match value {
        None => Ok(Contacts::Auto),
        Some(word) => Contacts::parse(word).map_err(|_| {
            Error::unsupported(format!("contacts={word:?}: expected \"auto\" or \"off\""))
        }),
    }
}

/// `khr_character=...`
pub fn khr_character(value: Option<&str>) -> Result<KhrCharacter, Error> {
    Ok(match value {
        None => KhrCharacter::Auto,
        Some("uri") => KhrCharacter::On(MappingForm::Uri),
        Some("node-index") => KhrCharacter::On(MappingForm::NodeIndex),
        Some("off") => KhrCharacter::Off,
        Some(other) => {
            return Err(Error::unsupported(format!(
                "khr_character={other:?}: expected \"uri\", \"node-index\" or \"off\""
            )))
        }
    })
}
