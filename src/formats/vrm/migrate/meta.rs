//! `meta`: the 0.x meta becomes VRM 1.0's.
//!
//! The permission fields map as UniVRM's `MigrationVrmMeta` maps them, from the most
//! restrictive 1.0 values (avatar use only by the author, personal non-profit use, no violent,
//! sexual or political use), loosened only by what a 0.x field states: `allowedUserName`,
//! `violentUssageName`, `sexualUssageName`, `commercialUssageName` (`Allow`: `personalProfit`).
//!
//! Unlike UniVRM (which leaves `licenseName` as a to-do and so writes "redistribution and
//! modification prohibited" for a CC BY work), the licence is kept: `creditNotation`,
//! `allowRedistribution`, `modification` and `commercialUsage` are what the licence grants
//! ([`super::super::licence`]), and `otherLicenseUrl` names the licence's own text (the
//! Creative Commons deed, or for `Other` the 0.x `otherLicenseUrl`), followed by the 0.x
//! `otherPermissionUrl` as UniVRM merges it (`'a', 'b'`). Where the licence and
//! `commercialUssageName` disagree (a `Disallow` on a CC BY work, an `Allow` on a CC BY-NC
//! one) the stricter wins, reported naming both. `licenseUrl` is the VRM Public License 1.0,
//! which VRM 1.0 requires (three-vrm refuses any other). The 0.x thumbnail is a texture index,
//! 1.0's an image index.

use serde_json::{Map, Value};

use super::super::licence::{self, Licence, Terms, COMMERCIAL, MOST_RESTRICTIVE};
use super::vrm0::{self, at, BASE};
use crate::error::Diagnostics;
use crate::formats::gltf::json::Root;

/// UniVRM's licence URL for migrated models (`Vrm10Exporter.LICENSE_URL_JA`).
pub(super) const VRM_LICENSE_URL: &str = super::super::convert::VRM_PUBLIC_LICENSE_URL;

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
    let licence = licence_of(meta0, &here, diagnostics);
    permissions(meta0, &here, &mut meta, diagnostics);
    terms(meta0, licence, &here, &mut meta, diagnostics);
    if let Some(url) = other_license_url(meta0, licence) {
        meta.insert("otherLicenseUrl".into(), Value::from(url));
    }
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

/// The 0.x licence (`None`: absent or not a 0.x licence name, reported).
fn licence_of(
    meta0: &Map<String, Value>,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> Option<&'static Licence> {
    let pointer = at(here, "licenseName");
    let Some(value) = meta0.get("licenseName") else {
        diagnostics.warn(
            "MIGRATE_META_LICENSE_UNKNOWN",
            pointer,
            "meta has no licenseName: the most restrictive VRM 1.0 terms were written (credit required, redistribution and modification prohibited); review the meta against the original licence",
        );
        return None;
    };
    let found = value.as_str().and_then(licence::by_name);
    if found.is_none() {
        let names: Vec<&str> = licence::LICENCES.iter().map(|l| l.name).collect();
        diagnostics.warn(
            "MIGRATE_META_LICENSE_UNKNOWN",
            pointer,
            format!(
                "licenseName {value} is not one of {}: the most restrictive VRM 1.0 terms were written (credit required, redistribution and modification prohibited); review the meta against the original licence",
                names.join(", ")
            ),
        );
    }
    found
}

/// The permission fields UniVRM maps: `avatarPermission` and the violent, sexual and
/// political usages (`commercialUsage` is set with the licence's terms).
fn permissions(
    meta0: &Map<String, Value>,
    here: &str,
    meta: &mut Map<String, Value>,
    diagnostics: &mut Diagnostics,
) {
    let avatar = pick(
        meta0,
        "allowedUserName",
        &[
            ("OnlyAuthor", Value::from("onlyAuthor")),
            (
                "ExplicitlyLicensedPerson",
                Value::from("onlySeparatelyLicensedPerson"),
            ),
            ("Everyone", Value::from("everyone")),
        ],
        here,
        diagnostics,
    )
    .unwrap_or_else(|| Value::from("onlyAuthor"));
    let yes_no = [
        ("Allow", Value::from(true)),
        ("Disallow", Value::from(false)),
    ];
    let violent =
        pick(meta0, "violentUssageName", &yes_no, here, diagnostics).unwrap_or(Value::from(false));
    let sexual =
        pick(meta0, "sexualUssageName", &yes_no, here, diagnostics).unwrap_or(Value::from(false));
    meta.insert("avatarPermission".into(), avatar);
    meta.insert("allowExcessivelyViolentUsage".into(), violent);
    meta.insert("allowExcessivelySexualUsage".into(), sexual);
    meta.insert("allowPoliticalOrReligiousUsage".into(), Value::from(false));
}

/// The 1.0 value of a 0.x enumeration field (`None` when absent, or not one of `choices`:
/// reported).
fn pick(
    meta0: &Map<String, Value>,
    key: &str,
    choices: &[(&str, Value)],
    here: &str,
    diagnostics: &mut Diagnostics,
) -> Option<Value> {
    let text = meta0.get(key)?;
    let found = choices
        .iter()
        .find(|(name, _)| Some(*name) == text.as_str())
        .map(|(_, value)| value.clone());
    if found.is_none() {
        let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
        diagnostics.warn(
            "MIGRATE_META_VALUE",
            at(here, key),
            format!(
                "{key} {text} is not one of {}; the most restrictive VRM 1.0 value was kept",
                names.join(", ")
            ),
        );
    }
    found
}

/// `creditNotation`, `allowRedistribution`, `modification` (what the licence grants) and
/// `commercialUsage` (the licence and `commercialUssageName`, the stricter where they
/// disagree).
fn terms(
    meta0: &Map<String, Value>,
    licence: Option<&'static Licence>,
    here: &str,
    meta: &mut Map<String, Value>,
    diagnostics: &mut Diagnostics,
) {
    let granted: Terms = licence.and_then(|l| l.terms).unwrap_or(MOST_RESTRICTIVE);
    let field = pick(
        meta0,
        "commercialUssageName",
        &[
            ("Allow", Value::from(true)),
            ("Disallow", Value::from(false)),
        ],
        here,
        diagnostics,
    )
    .and_then(|v| v.as_bool());
    let commercial = commercial_usage(licence, field, here, diagnostics);
    meta.insert("commercialUsage".into(), Value::from(commercial));
    meta.insert("creditNotation".into(), Value::from(granted.credit));
    meta.insert(
        "allowRedistribution".into(),
        Value::from(granted.redistribution),
    );
    meta.insert("modification".into(), Value::from(granted.modification));
    if let Some(licence) = licence.filter(|l| l.terms.is_some()) {
        diagnostics.info(
            "MIGRATE_META_LICENSE",
            at(here, "licenseName"),
            format!(
                "licenseName {} ({}) kept as VRM 1.0 terms: creditNotation {}, allowRedistribution {}, modification {}, commercialUsage {commercial}{}",
                licence.name,
                licence.summary,
                granted.credit,
                granted.redistribution,
                granted.modification,
                licence.url.map_or_else(String::new, |u| format!(
                    "; otherLicenseUrl names its text, {u} (0.x does not say which version: the one VRM 0.x's documentation links)"
                )),
            ),
        );
    } else if licence.is_some() {
        diagnostics.warn(
            "MIGRATE_META_LICENSE_UNKNOWN",
            at(here, "licenseName"),
            "licenseName Other: the licence's terms are in its own document (otherLicenseUrl); the most restrictive VRM 1.0 terms were written (credit required, redistribution and modification prohibited); review the meta against that licence",
        );
    }
}

/// `commercialUsage` from the licence and the 0.x `commercialUssageName` (`Some(true)`:
/// `Allow`): what the licence grants where the field agrees or is absent, the stricter (with
/// a warning naming both) where they disagree, and UniVRM's mapping of the field (`Allow`:
/// `personalProfit`) where the licence says nothing.
fn commercial_usage(
    licence: Option<&'static Licence>,
    field: Option<bool>,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> &'static str {
    let from_field = field.map(|allow| {
        if allow {
            "personalProfit"
        } else {
            "personalNonProfit"
        }
    });
    let from_licence = licence.and_then(|l| l.terms).and_then(|t| t.commercial);
    let (Some(granted), Some(allow)) = (from_licence, field) else {
        return from_licence.or(from_field).unwrap_or(COMMERCIAL[0]);
    };
    let licence_allows = granted != COMMERCIAL[0];
    if licence_allows == allow {
        return granted;
    }
    let stricter = COMMERCIAL[0];
    let name = licence.map_or("", |l| l.name);
    diagnostics.warn(
        "MIGRATE_META_CONFLICT",
        at(here, "commercialUssageName"),
        format!(
            "commercialUssageName {} and licenseName {name} disagree ({name} {} commercial use): the stricter, commercialUsage {stricter}, was written",
            if allow { "Allow" } else { "Disallow" },
            if licence_allows { "allows" } else { "does not allow" },
        ),
    );
    stricter
}

/// `otherLicenseUrl`: the licence's own text (its Creative Commons deed, or the 0.x
/// `otherLicenseUrl`), then the 0.x `otherLicenseUrl` and `otherPermissionUrl`, one as it is
/// and several as UniVRM merges them (`'a', 'b'`).
fn other_license_url(meta0: &Map<String, Value>, licence: Option<&Licence>) -> Option<String> {
    let own = licence.and_then(|l| l.url);
    let license = vrm0::string(meta0, "otherLicenseUrl");
    let permission = vrm0::string(meta0, "otherPermissionUrl");
    licence::join_urls(own.into_iter().chain(license).chain(permission))
}
