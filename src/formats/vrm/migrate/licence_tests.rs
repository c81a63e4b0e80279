//! The licence a VRM 0.x model names survives the migration. The expected VRM 1.0 terms are a
//! table written here from the licences' own texts (the Creative Commons deeds), not from the
//! code under test:
//!
//! - CC0 1.0: "you can copy, modify, distribute and perform the work, even for commercial
//!   purposes, all without asking permission" → no credit, redistribution and modified
//!   redistribution allowed, commercial use by anyone;
//! - CC BY 4.0: "Share ... Adapt ... for any purpose, even commercially", "Attribution — You
//!   must give appropriate credit" → credit required, the rest as CC0; BY-SA adds only
//!   "ShareAlike" (same licence for changes);
//! - NC: "You may not use the material for commercial purposes" → personal non-profit use;
//! - ND: "If you remix, transform, or build upon the material, you may not distribute the
//!   modified material" → modification allowed, its redistribution not;
//! - `Redistribution_Prohibited`: redistribution prohibited, nothing else granted (VRM 1.0's
//!   schema defaults: credit required, modification prohibited); commercial use as the 0.x
//!   `commercialUssageName` says (UniVRM: `Allow` → `personalProfit`);
//! - `Other`: terms unknown here, so VRM 1.0's schema defaults, and its `otherLicenseUrl`.

use serde_json::{json, Value};

use super::*;

/// One row: licenseName, creditNotation, allowRedistribution, modification, the
/// commercialUsage the licence grants (`None`: it does not say), the licence's text.
type Row = (
    &'static str,
    &'static str,
    bool,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
);

const GRANTED: [Row; 9] = [
    (
        "CC0",
        "unnecessary",
        true,
        "allowModificationRedistribution",
        Some("corporation"),
        Some("https://creativecommons.org/publicdomain/zero/1.0/"),
    ),
    (
        "CC_BY",
        "required",
        true,
        "allowModificationRedistribution",
        Some("corporation"),
        Some("https://creativecommons.org/licenses/by/4.0/"),
    ),
    (
        "CC_BY_NC",
        "required",
        true,
        "allowModificationRedistribution",
        Some("personalNonProfit"),
        Some("https://creativecommons.org/licenses/by-nc/4.0/"),
    ),
    (
        "CC_BY_SA",
        "required",
        true,
        "allowModificationRedistribution",
        Some("corporation"),
        Some("https://creativecommons.org/licenses/by-sa/4.0/"),
    ),
    (
        "CC_BY_NC_SA",
        "required",
        true,
        "allowModificationRedistribution",
        Some("personalNonProfit"),
        Some("https://creativecommons.org/licenses/by-nc-sa/4.0/"),
    ),
    (
        "CC_BY_ND",
        "required",
        true,
        "allowModification",
        Some("corporation"),
        Some("https://creativecommons.org/licenses/by-nd/4.0/"),
    ),
    (
        "CC_BY_NC_ND",
        "required",
        true,
        "allowModification",
        Some("personalNonProfit"),
        Some("https://creativecommons.org/licenses/by-nc-nd/4.0/"),
    ),
    (
        "Redistribution_Prohibited",
        "required",
        false,
        "prohibited",
        None,
        None,
    ),
    ("Other", "required", false, "prohibited", None, None),
];

/// The 0.x fixture's meta with these licence fields (the permission fields UniVRM maps set
/// to their loosest, to see they are carried).
fn meta0(licence: &str, commercial: Option<&str>, other_license: Option<&str>) -> Value {
    let mut meta = json!({
        "title": "T", "author": "A", "allowedUserName": "Everyone",
        "violentUssageName": "Allow", "sexualUssageName": "Allow",
        "licenseName": licence
    });
    if let Some(c) = commercial {
        meta["commercialUssageName"] = json!(c);
    }
    if let Some(url) = other_license {
        meta["otherLicenseUrl"] = json!(url);
    }
    meta
}

fn migrate_meta(meta: Value) -> (Value, Diagnostics) {
    let mut json = super::tests::gltf_json_for_meta();
    json["extensions"]["VRM"]["meta"] = meta;
    let (out, diagnostics) = super::tests::migrate_json_for_meta(&json).unwrap();
    let meta = out.root.extensions.as_ref().unwrap()["VRMC_vrm"]["meta"].clone();
    (meta, diagnostics)
}

#[test]
fn every_licence_keeps_what_it_grants() {
    for (name, credit, redistribution, modification, commercial, url) in GRANTED {
        for field in [None, Some("Allow"), Some("Disallow")] {
            let other = (name == "Other").then_some("https://example.com/licence");
            let (meta, diagnostics) = migrate_meta(meta0(name, field, other));
            let case = format!("{name} with commercialUssageName {field:?}");
            assert_eq!(meta["creditNotation"], json!(credit), "{case}");
            assert_eq!(meta["allowRedistribution"], json!(redistribution), "{case}");
            assert_eq!(meta["modification"], json!(modification), "{case}");
            // The stricter of the licence and the 0.x field; UniVRM's mapping of the field
            // where the licence says nothing.
            let expected = match (commercial, field) {
                (Some("corporation"), Some("Disallow")) => "personalNonProfit",
                (Some("personalNonProfit"), _) => "personalNonProfit",
                (Some(granted), _) => granted,
                (None, Some("Allow")) => "personalProfit",
                (None, _) => "personalNonProfit",
            };
            assert_eq!(meta["commercialUsage"], json!(expected), "{case}");
            let conflict = matches!(
                (commercial, field),
                (Some("corporation"), Some("Disallow"))
                    | (Some("personalNonProfit"), Some("Allow"))
            );
            assert_eq!(
                diagnostics.contains("MIGRATE_META_CONFLICT"),
                conflict,
                "{case}"
            );
            // The licence's text, or for Other the 0.x otherLicenseUrl.
            let text = url.or(other);
            assert_eq!(
                meta.get("otherLicenseUrl"),
                text.map(|t| json!(t)).as_ref(),
                "{case}"
            );
            // The VRM 1.0 licence document, and the permission fields as UniVRM maps them.
            assert_eq!(
                meta["licenseUrl"], "https://vrm.dev/licenses/1.0/",
                "{case}"
            );
            assert_eq!(meta["avatarPermission"], "everyone", "{case}");
            assert_eq!(meta["allowExcessivelyViolentUsage"], true, "{case}");
            assert_eq!(meta["allowExcessivelySexualUsage"], true, "{case}");
            assert_eq!(meta["allowPoliticalOrReligiousUsage"], false, "{case}");
        }
    }
}

#[test]
fn a_conflict_names_both_sources() {
    let (meta, diagnostics) = migrate_meta(meta0("CC_BY", Some("Disallow"), None));
    assert_eq!(meta["commercialUsage"], "personalNonProfit");
    let conflict = diagnostics
        .iter()
        .find(|d| d.code == "MIGRATE_META_CONFLICT")
        .unwrap();
    assert_eq!(conflict.severity, crate::error::Severity::Warning);
    assert!(
        conflict.message.contains("commercialUssageName Disallow")
            && conflict.message.contains("licenseName CC_BY"),
        "{}",
        conflict.message
    );
}

#[test]
fn other_urls_follow_the_licence_text() {
    let mut meta = meta0("CC_BY_SA", None, Some("https://l"));
    meta["otherPermissionUrl"] = json!("https://p");
    let (meta, _) = migrate_meta(meta);
    assert_eq!(
        meta["otherLicenseUrl"],
        "'https://creativecommons.org/licenses/by-sa/4.0/', 'https://l', 'https://p'"
    );
}

#[test]
fn a_missing_or_unknown_licence_is_the_most_restrictive_and_reported() {
    for licence in [None, Some("WTFPL")] {
        let mut meta = meta0("x", Some("Allow"), None);
        match licence {
            Some(l) => meta["licenseName"] = json!(l),
            None => {
                meta.as_object_mut().unwrap().remove("licenseName");
            }
        }
        let (meta, diagnostics) = migrate_meta(meta);
        assert_eq!(meta["creditNotation"], "required");
        assert_eq!(meta["allowRedistribution"], false);
        assert_eq!(meta["modification"], "prohibited");
        assert_eq!(meta["commercialUsage"], "personalProfit");
        assert!(diagnostics.contains("MIGRATE_META_LICENSE_UNKNOWN"));
    }
}
