//! `meta`: VRM 1.0's fields become 0.x's, the inverse of `migrate/meta.rs`.
//!
//! | 1.0 | 0.x |
//! |---|---|
//! | `name`, `version`, `contactInformation` | `title`, `version`, `contactInformation` |
//! | `authors[]`, `references[]` | `author`, `reference` (several are joined with `, ` and reported) |
//! | `thumbnailImage` (an image) | `texture` (the first texture of that image; one is added if none) |
//! | `avatarPermission` | `allowedUserName` |
//! | `allowExcessivelyViolentUsage`, `allowExcessivelySexualUsage` | `violentUssageName`, `sexualUssageName` (`Allow`/`Disallow`) |
//! | `commercialUsage` | `commercialUssageName`: `corporation` → `Allow`, `personalNonProfit` → `Disallow`, and `personalProfit`, which 0.x cannot say (its `Allow` lets corporations in too), → `Disallow`, reported |
//! | `otherLicenseUrl` naming a Creative Commons deed, with terms (`creditNotation`, `allowRedistribution`, `modification`, `commercialUsage`) that grant all the licence grants (what the migration writes for a CC-licensed 0.x model) | `licenseName` that licence (`CC_BY`, ...); the other URLs in `otherPermissionUrl`; the VRM Public License `licenseUrl` left out; the political and antisocial terms, which 0.x cannot hold, reported |
//! | otherwise `licenseUrl`, `otherLicenseUrl` | `otherLicenseUrl`, `otherPermissionUrl` |
//! | otherwise the licence terms (`allowRedistribution`, `modification`, `creditNotation`, political, antisocial use) | none: `licenseName` is the most restrictive 0.x licence, `Redistribution_Prohibited` (0.x has no name for the VRM Public License and no field for its terms); reported with the terms |
//!
//! A missing 1.0 field means its schema default, which is the most restrictive value.
//! `copyrightInformation` and `thirdPartyLicenses` have no 0.x field and are reported.

use serde_json::{Map, Value};

use super::super::licence::{self, Licence, Terms, COMMERCIAL, CREDIT, MODIFICATION};
use super::vrm1::{self, at, BASE};
use crate::error::Diagnostics;
use crate::formats::gltf::json::Root;

/// Every 1.0 meta key this module reads.
const KNOWN: [&str; 19] = [
    "name",
    "version",
    "authors",
    "copyrightInformation",
    "contactInformation",
    "references",
    "thirdPartyLicenses",
    "thumbnailImage",
    "licenseUrl",
    "avatarPermission",
    "allowExcessivelyViolentUsage",
    "allowExcessivelySexualUsage",
    "commercialUsage",
    "allowPoliticalOrReligiousUsage",
    "allowAntisocialOrHateUsage",
    "creditNotation",
    "allowRedistribution",
    "modification",
    "otherLicenseUrl",
];

/// The most restrictive 0.x `licenseName`.
const MOST_RESTRICTIVE_LICENSE: &str = "Redistribution_Prohibited";

/// The 1.0 licence terms 0.x has no field for, with their schema defaults.
const TERMS: [(&str, &str); 5] = [
    ("allowRedistribution", "false"),
    ("modification", "\"prohibited\""),
    ("creditNotation", "\"required\""),
    ("allowPoliticalOrReligiousUsage", "false"),
    ("allowAntisocialOrHateUsage", "false"),
];

/// The 0.x `meta` from the 1.0 `meta` (absent: treated as empty). May add a texture to
/// `root` for the thumbnail.
pub(super) fn meta_json(
    vrm: &Map<String, Value>,
    root: &mut Root,
    diagnostics: &mut Diagnostics,
) -> Value {
    let here = at(BASE, "meta");
    let empty = Map::new();
    let meta1 = vrm1::object(vrm, "meta").unwrap_or(&empty);
    let mut meta = Map::new();
    let copy = |from: &str, to: &str, meta: &mut Map<String, Value>| {
        if let Some(text) = vrm1::string(meta1, from) {
            meta.insert(to.into(), Value::from(text));
        }
    };
    copy("name", "title", &mut meta);
    copy("version", "version", &mut meta);
    if let Some(author) = joined(meta1, "authors", &here, diagnostics) {
        meta.insert("author".into(), Value::from(author));
    }
    copy("contactInformation", "contactInformation", &mut meta);
    if let Some(reference) = joined(meta1, "references", &here, diagnostics) {
        meta.insert("reference".into(), Value::from(reference));
    }
    if let Some(texture) = thumbnail(meta1, root, &here, diagnostics) {
        meta.insert("texture".into(), Value::from(texture));
    }
    permissions(meta1, &here, &mut meta, diagnostics);
    licence(meta1, &here, &mut meta, diagnostics);
    report_dropped(meta1, &here, diagnostics);
    Value::Object(meta)
}

/// A 1.0 string array as one 0.x string (`None` when absent or empty).
fn joined(
    meta1: &Map<String, Value>,
    key: &str,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> Option<String> {
    let items: Vec<&str> = vrm1::array(meta1, key)
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if items.len() > 1 {
        diagnostics.info(
            "DOWNGRADE_META_JOINED",
            at(here, key),
            format!(
                "VRM 0.x has one {} string: the {} entries were joined with \", \"",
                key.trim_end_matches('s'),
                items.len()
            ),
        );
    }
    (!items.is_empty()).then(|| items.join(", "))
}

/// The 0.x thumbnail texture of the 1.0 thumbnail image: the first texture of that image, or
/// a new texture appended to `root`.
fn thumbnail(
    meta1: &Map<String, Value>,
    root: &mut Root,
    here: &str,
    diagnostics: &mut Diagnostics,
) -> Option<usize> {
    let value = meta1.get("thumbnailImage")?;
    let pointer = at(here, "thumbnailImage");
    let Some(image) = vrm1::index(value).filter(|&i| i < root.images.len()) else {
        diagnostics.warn(
            "DOWNGRADE_META_THUMBNAIL",
            pointer,
            format!("thumbnailImage {value} is not an image index; the thumbnail was dropped"),
        );
        return None;
    };
    let textures = root
        .other
        .entry("textures")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(textures) = textures.as_array_mut() else {
        diagnostics.warn(
            "DOWNGRADE_META_THUMBNAIL",
            pointer,
            "the document's textures are not an array; the thumbnail was dropped",
        );
        return None;
    };
    let existing = textures
        .iter()
        .position(|t| t.get("source").and_then(vrm1::index) == Some(image));
    if let Some(texture) = existing {
        return Some(texture);
    }
    let mut texture = Map::new();
    texture.insert("source".into(), Value::from(image));
    textures.push(Value::Object(texture));
    diagnostics.info(
        "DOWNGRADE_META_THUMBNAIL",
        pointer,
        format!(
            "VRM 0.x names the thumbnail by texture: texture {} was added for image {image}",
            textures.len() - 1
        ),
    );
    Some(textures.len() - 1)
}

/// The permission fields (`allowedUserName`, the usages).
fn permissions(
    meta1: &Map<String, Value>,
    here: &str,
    meta: &mut Map<String, Value>,
    diagnostics: &mut Diagnostics,
) {
    let mut pick = |key: &str, choices: &[(Value, &str)], default: &str| -> Value {
        let Some(value) = meta1.get(key) else {
            return Value::from(default);
        };
        match choices.iter().find(|(v, _)| v == value) {
            Some((_, name)) => Value::from(*name),
            None => {
                diagnostics.warn(
                    "DOWNGRADE_META_VALUE",
                    at(here, key),
                    format!("{key} {value} is not a VRM 1.0 value; the most restrictive VRM 0.x value {default} was written"),
                );
                Value::from(default)
            }
        }
    };
    let avatar = pick(
        "avatarPermission",
        &[
            (Value::from("onlyAuthor"), "OnlyAuthor"),
            (
                Value::from("onlySeparatelyLicensedPerson"),
                "ExplicitlyLicensedPerson",
            ),
            (Value::from("everyone"), "Everyone"),
        ],
        "OnlyAuthor",
    );
    let yes_no = [
        (Value::from(true), "Allow"),
        (Value::from(false), "Disallow"),
    ];
    let violent = pick("allowExcessivelyViolentUsage", &yes_no, "Disallow");
    let sexual = pick("allowExcessivelySexualUsage", &yes_no, "Disallow");
    let commercial = pick(
        "commercialUsage",
        &[
            (Value::from("personalNonProfit"), "Disallow"),
            (Value::from("personalProfit"), "Disallow"),
            (Value::from("corporation"), "Allow"),
        ],
        "Disallow",
    );
    if meta1.get("commercialUsage").and_then(Value::as_str) == Some("personalProfit") {
        diagnostics.warn(
            "DOWNGRADE_META_RESTRICTED",
            at(here, "commercialUsage"),
            "commercialUsage personalProfit (individuals may profit, corporations may not) has no VRM 0.x value: 0.x Allow would let corporations in too, so the more restrictive Disallow was written",
        );
    }
    meta.insert("allowedUserName".into(), avatar);
    meta.insert("violentUssageName".into(), violent);
    meta.insert("sexualUssageName".into(), sexual);
    meta.insert("commercialUssageName".into(), commercial);
}

/// `otherPermissionUrl`, `licenseName` and `otherLicenseUrl`, and the report of the terms
/// 0.x cannot hold: the Creative Commons licence `otherLicenseUrl` names when the 1.0 terms
/// grant all it grants (what the migration writes for a CC-licensed 0.x model), else the most
/// restrictive 0.x licence.
fn licence(
    meta1: &Map<String, Value>,
    here: &str,
    meta: &mut Map<String, Value>,
    diagnostics: &mut Diagnostics,
) {
    let url = vrm1::string(meta1, "licenseUrl").filter(|u| !u.is_empty());
    let urls = vrm1::string(meta1, "otherLicenseUrl")
        .map(licence::split_urls)
        .unwrap_or_default();
    let file = file_terms(meta1);
    let deeds: Vec<&'static Licence> = urls.iter().filter_map(|u| licence::by_url(u)).collect();
    let kept = deeds
        .iter()
        .copied()
        .find(|l| l.terms.is_some_and(|t| grants_at_least(&file, &t)));
    let terms: Vec<String> = TERMS
        .iter()
        .map(|(key, default)| {
            let value = meta1
                .get(*key)
                .map_or_else(|| format!("{default} (default)"), Value::to_string);
            format!("{key} {value}")
        })
        .collect();
    if let Some(cc) = kept {
        let rest: Vec<&str> = urls
            .iter()
            .map(String::as_str)
            .filter(|u| licence::by_url(u) != Some(cc))
            .collect();
        if let Some(rest) = licence::join_urls(rest) {
            meta.insert("otherPermissionUrl".into(), Value::from(rest));
        }
        meta.insert("licenseName".into(), Value::from(cc.name));
        diagnostics.info(
            "DOWNGRADE_META_LICENSE",
            at(here, "otherLicenseUrl"),
            format!(
                "otherLicenseUrl names {} ({}) and the VRM 1.0 terms grant all it grants: licenseName {} was written{}; the 1.0 terms 0.x has no field for were not carried ({})",
                cc.url.unwrap_or_default(),
                cc.summary,
                cc.name,
                url.map_or_else(String::new, |u| format!(", and licenseUrl {u} (the VRM Public License every VRM 1.0 names) left out")),
                terms.join(", ")
            ),
        );
        return;
    }
    if let Some(other) = licence::join_urls(urls.iter().map(String::as_str)) {
        meta.insert("otherPermissionUrl".into(), Value::from(other));
    }
    meta.insert("licenseName".into(), Value::from(MOST_RESTRICTIVE_LICENSE));
    if let Some(url) = url {
        meta.insert("otherLicenseUrl".into(), Value::from(url));
    }
    let stricter = deeds.first().map_or_else(String::new, |cc| {
        format!(
            " (otherLicenseUrl names {}, but the 1.0 terms grant less than it does, so it was not taken as the licence)",
            cc.name
        )
    });
    diagnostics.warn(
        "DOWNGRADE_META_LICENSE",
        at(here, "licenseUrl"),
        format!(
            "VRM 0.x has no field for the VRM 1.0 licence terms ({}): the most restrictive 0.x licence, licenseName {MOST_RESTRICTIVE_LICENSE}, was written{}{stricter}; review the meta against the original licence",
            terms.join(", "),
            url.map_or_else(String::new, |u| format!(", and licenseUrl {u} as otherLicenseUrl"))
        ),
    );
}

/// The licence terms a 1.0 meta grants (absent fields: the schema defaults, the most
/// restrictive; unknown values count as the most restrictive).
fn file_terms(meta1: &Map<String, Value>) -> Terms {
    let text = |key: &str, list: &[&'static str]| -> &'static str {
        vrm1::string(meta1, key)
            .and_then(|v| list.iter().copied().find(|x| *x == v))
            .unwrap_or(list[0])
    };
    Terms {
        credit: text("creditNotation", &CREDIT),
        redistribution: meta1
            .get("allowRedistribution")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        modification: text("modification", &MODIFICATION),
        commercial: Some(text("commercialUsage", &COMMERCIAL)),
    }
}

/// Whether `file` grants at least what `licence` grants, on each of the four terms (so naming
/// the licence in 0.x grants no more than the 1.0 file did).
fn grants_at_least(file: &Terms, licence: &Terms) -> bool {
    let at_least = |list: &[&str], file: &str, licence: &str| {
        licence::rank(list, file) >= licence::rank(list, licence)
    };
    at_least(&CREDIT, file.credit, licence.credit)
        && (file.redistribution || !licence.redistribution)
        && at_least(&MODIFICATION, file.modification, licence.modification)
        && licence
            .commercial
            .is_none_or(|c| at_least(&COMMERCIAL, file.commercial.unwrap_or(COMMERCIAL[0]), c))
}

/// 1.0 fields with no 0.x counterpart (`copyrightInformation`, `thirdPartyLicenses`, unknown
/// keys), in one diagnostic.
fn report_dropped(meta1: &Map<String, Value>, here: &str, diagnostics: &mut Diagnostics) {
    let dropped: Vec<String> = meta1
        .keys()
        .filter(|k| {
            !KNOWN.contains(&k.as_str())
                || matches!(k.as_str(), "copyrightInformation" | "thirdPartyLicenses")
        })
        .cloned()
        .collect();
    if dropped.is_empty() {
        return;
    }
    diagnostics.warn(
        "DOWNGRADE_META_DROPPED",
        here,
        format!(
            "meta properties with no VRM 0.x field were dropped: {}",
            dropped.join(", ")
        ),
    );
}
