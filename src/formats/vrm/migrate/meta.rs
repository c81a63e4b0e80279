//! `meta`: the 0.x licence fields become VRM 1.0's, as UniVRM's `MigrationVrmMeta` does.
//!
//! UniVRM starts from the most restrictive 1.0 values (licence URL the VRM Public License 1.0,
//! avatar use only by the author, personal non-profit use, credit required, redistribution and
//! modification prohibited, no violent, sexual or political use) and loosens only what a 0.x
//! field states: `allowedUserName`, `violentUssageName`, `sexualUssageName`,
//! `commercialUssageName`. `licenseName` has no 1.0 counterpart (UniVRM leaves it: a TODO
//! there) and is reported; `otherLicenseUrl` and `otherPermissionUrl` merge into
//! `otherLicenseUrl`. The 0.x thumbnail is a texture index, 1.0's an image index.

use serde_json::{Map, Value};

use super::vrm0::{self, at, BASE};
use crate::error::Diagnostics;
use crate::formats::gltf::json::Root;

/// UniVRM's licence URL for migrated models (`Vrm10Exporter.LICENSE_URL_JA`).
pub(super) const VRM_LICENSE_URL: &str = "https://vrm.dev/licenses/1.0/";

/// Every 0.x meta key UniVRM reads.
const KNOWN: [&str; 13] = [
    "title",
    "version",
    "author",
    "contactInformation",
    "reference",
    "texture",
    "allowedUserName",
    "violentUssageName",
    "sexualUssageName",
    "commercialUssageName",
    "otherPermissionUrl",
    "otherLicenseUrl",
    "licenseName",
];

/// VRM 1.0's `meta` from the 0.x `meta` (absent: treated as empty).
pub(super) fn meta_json(
    vrm: &Map<String, Value>,
    root: &Root,
    diagnostics: &mut Diagnostics,
) -> Value {
    let here = at(BASE, "meta");
    let empty = Map::new();
    let meta0 = vrm0::object(vrm, "meta").unwrap_or(&empty);
    let mut meta = Map::new();
    let name = required_text(meta0, "title", &here, diagnostics);
    meta.insert("name".into(), Value::from(name));
    if let Some(version) = vrm0::string(meta0, "version") {
        meta.insert("version".into(), Value::from(version));
    }
    let author = required_text(meta0, "author", &here, diagnostics);
    meta.insert("authors".into(), Value::Array(vec![Value::from(author)]));
    if let Some(contact) = vrm0::string(meta0, "contactInformation") {
        meta.insert("contactInformation".into(), Value::from(contact));
    }
    if let Some(reference) = vrm0::string(meta0, "reference") {
        meta.insert(
            "references".into(),
            Value::Array(vec![Value::from(reference)]),
        );
    }
    if let Some(image) = thumbnail(meta0, root, &here, diagnostics) {
        meta.insert("thumbnailImage".into(), Value::from(image));
    }
    meta.insert("licenseUrl".into(), Value::from(VRM_LICENSE_URL));
    permissions(meta0, &here, &mut meta, diagnostics);
    if let Some(url) = other_license_url(meta0) {
        meta.insert("otherLicenseUrl".into(), Value::from(url));
    }
    report_license(meta0, &here, diagnostics);
    for key in meta0.keys().filter(|k| !KNOWN.contains(&k.as_str())) {
        diagnostics.info(
            "MIGRATE_META_UNKNOWN_KEY",
            at(&here, key),
            format!("meta property {key:?} is not VRM 0.x's and was dropped"),
        );
    }
    Value::Object(meta)
}

/// A string VRM 1.0 requires (`name`, `authors[0]`): empty, and reported, when missing.
fn required_text(
    meta0: &Map<String, Value>,
    key: &str,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> String {
    match vrm0::string(meta0, key) {
        Some(text) => text.to_owned(),
        None => {
            diagnostics.warn(
                "MIGRATE_META_MISSING",
                at(here, key),
                format!(
                    "meta has no {key} string; VRM 1.0 requires it, an empty string was written"
                ),
            );
            String::new()
        }
    }
}

/// The image of the 0.x thumbnail texture (`-1`: none).
fn thumbnail(
    meta0: &Map<String, Value>,
    root: &Root,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> Option<u64> {
    let value = meta0.get("texture")?;
    if value.as_i64() == Some(-1) {
        return None;
    }
    let image = vrm0::index(value).and_then(|t| {
        root.other
            .get("textures")
            .and_then(Value::as_array)?
            .get(t)?
            .get("source")?
            .as_u64()
    });
    if image.is_none() {
        diagnostics.warn(
            "MIGRATE_META_THUMBNAIL",
            at(here, "texture"),
            format!(
                "meta texture {value} is not a texture with an image; the thumbnail was dropped"
            ),
        );
    }
    image
}

/// The permission fields: UniVRM's restrictive defaults, loosened by the 0.x fields.
fn permissions(
    meta0: &Map<String, Value>,
    here: &str,
    meta: &mut Map<String, Value>,
    diagnostics: &mut Diagnostics,
) {
    let mut pick = |key: &str, choices: &[(&str, Value)], default: Value| -> Value {
        let Some(text) = meta0.get(key) else {
            return default;
        };
        match choices
            .iter()
            .find(|(name, _)| Some(*name) == text.as_str())
        {
            Some((_, value)) => value.clone(),
            None => {
                let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
                diagnostics.warn(
                    "MIGRATE_META_VALUE",
                    at(here, key),
                    format!(
                        "{key} {text} is not one of {}; the most restrictive VRM 1.0 value was kept",
                        names.join(", ")
                    ),
                );
                default
            }
        }
    };
    let allow = |yes: bool| Value::from(yes);
    let avatar = pick(
        "allowedUserName",
        &[
            ("OnlyAuthor", Value::from("onlyAuthor")),
            (
                "ExplicitlyLicensedPerson",
                Value::from("onlySeparatelyLicensedPerson"),
            ),
            ("Everyone", Value::from("everyone")),
        ],
        Value::from("onlyAuthor"),
    );
    let yes_no = [("Allow", allow(true)), ("Disallow", allow(false))];
    let violent = pick("violentUssageName", &yes_no, allow(false));
    let sexual = pick("sexualUssageName", &yes_no, allow(false));
    let commercial = pick(
        "commercialUssageName",
        &[
            ("Allow", Value::from("personalProfit")),
            ("Disallow", Value::from("personalNonProfit")),
        ],
        Value::from("personalNonProfit"),
    );
    meta.insert("avatarPermission".into(), avatar);
    meta.insert("allowExcessivelyViolentUsage".into(), violent);
    meta.insert("allowExcessivelySexualUsage".into(), sexual);
    meta.insert("commercialUsage".into(), commercial);
    meta.insert("allowPoliticalOrReligiousUsage".into(), allow(false));
    meta.insert("creditNotation".into(), Value::from("required"));
    meta.insert("allowRedistribution".into(), allow(false));
    meta.insert("modification".into(), Value::from("prohibited"));
}

/// `otherLicenseUrl` and `otherPermissionUrl` merged (UniVRM: both when they differ, quoted).
fn other_license_url(meta0: &Map<String, Value>) -> Option<String> {
    let license = vrm0::string(meta0, "otherLicenseUrl").filter(|s| !s.is_empty());
    let permission = vrm0::string(meta0, "otherPermissionUrl").filter(|s| !s.is_empty());
    match (license, permission) {
        (Some(l), Some(p)) if l == p => Some(l.to_owned()),
        (Some(l), Some(p)) => Some(format!("'{l}', '{p}'")),
        (Some(one), None) | (None, Some(one)) => Some(one.to_owned()),
        (None, None) => None,
    }
}

fn report_license(meta0: &Map<String, Value>, here: &str, diagnostics: &mut Diagnostics) {
    let license = meta0.get("licenseName").map_or_else(
        || "absent".to_owned(),
        |v| v.as_str().map_or_else(|| v.to_string(), str::to_owned),
    );
    diagnostics.warn(
        "MIGRATE_META_LICENSE",
        at(here, "licenseName"),
        format!(
            "licenseName ({license}) has no VRM 1.0 counterpart: as UniVRM does, licenseUrl is the VRM Public License 1.0 ({VRM_LICENSE_URL}) with credit required and redistribution, modification and political or religious use prohibited; review the meta against the original licence"
        ),
    );
}
