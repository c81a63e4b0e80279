//! The VRM 0.x licence names (`meta.licenseName`) and what each licence grants, in the terms
//! of VRM 1.0's meta (`creditNotation`, `allowRedistribution`, `modification`,
//! `commercialUsage`). The migration (`migrate/meta.rs`) writes these terms so a CC BY work
//! stays CC BY; the way back (`downgrade/meta.rs`) names the licence again where the 1.0 file
//! grants at least what it grants.
//!
//! | `licenseName` | credit | redistribution | modification | commercial use | licence text |
//! |---|---|---|---|---|---|
//! | `CC0` | unnecessary | yes | modify and redistribute | anyone (`corporation`) | CC0 1.0 deed |
//! | `CC_BY` | required | yes | modify and redistribute | anyone | CC BY 4.0 deed |
//! | `CC_BY_NC` | required | yes | modify and redistribute | non-commercial only (`personalNonProfit`) | CC BY-NC 4.0 deed |
//! | `CC_BY_SA` | required | yes | modify and redistribute (same licence) | anyone | CC BY-SA 4.0 deed |
//! | `CC_BY_NC_SA` | required | yes | modify and redistribute (same licence) | non-commercial only | CC BY-NC-SA 4.0 deed |
//! | `CC_BY_ND` | required | yes | modify, not redistribute the changes (`allowModification`) | anyone | CC BY-ND 4.0 deed |
//! | `CC_BY_NC_ND` | required | yes | modify, not redistribute the changes | non-commercial only | CC BY-NC-ND 4.0 deed |
//! | `Redistribution_Prohibited` | required | no | prohibited | not said (the 0.x `commercialUssageName` decides) | none |
//! | `Other` | not known: the most restrictive values | | | | the 0.x `otherLicenseUrl` |
//!
//! A 0.x file names the licence without its version; the 4.0 deeds (CC0: 1.0) are the ones
//! VRM 0.x's own documentation links.

/// VRM 1.0's `commercialUsage` values, from the most restrictive.
pub(crate) const COMMERCIAL: [&str; 3] = ["personalNonProfit", "personalProfit", "corporation"];
/// VRM 1.0's `modification` values, from the most restrictive.
pub(crate) const MODIFICATION: [&str; 3] = [
    "prohibited",
    "allowModification",
    "allowModificationRedistribution",
];
/// VRM 1.0's `creditNotation` values, from the most restrictive.
pub(crate) const CREDIT: [&str; 2] = ["required", "unnecessary"];

/// What a licence grants, in VRM 1.0's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Terms {
    /// `creditNotation`.
    pub(crate) credit: &'static str,
    /// `allowRedistribution`.
    pub(crate) redistribution: bool,
    /// `modification`.
    pub(crate) modification: &'static str,
    /// `commercialUsage`, `None` where the licence does not say.
    pub(crate) commercial: Option<&'static str>,
}

/// The most restrictive terms (VRM 1.0's schema defaults), for a licence whose terms are not
/// known.
pub(crate) const MOST_RESTRICTIVE: Terms = Terms {
    credit: "required",
    redistribution: false,
    modification: "prohibited",
    commercial: None,
};

/// One VRM 0.x licence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Licence {
    /// The 0.x `licenseName`.
    pub(crate) name: &'static str,
    /// What it grants; `None` for `Other` (the terms are in its own document).
    pub(crate) terms: Option<Terms>,
    /// The licence's text (a Creative Commons deed), when the name says which.
    pub(crate) url: Option<&'static str>,
    /// A few words for messages.
    pub(crate) summary: &'static str,
}

const fn cc(
    name: &'static str,
    credit: &'static str,
    modification: &'static str,
    commercial: &'static str,
    url: &'static str,
    summary: &'static str,
) -> Licence {
    Licence {
        name,
        terms: Some(Terms {
            credit,
            redistribution: true,
            modification,
            commercial: Some(commercial),
        }),
        url: Some(url),
        summary,
    }
}

/// Every VRM 0.x `licenseName`.
pub(crate) const LICENCES: [Licence; 9] = [
    Licence {
        name: "Redistribution_Prohibited",
        terms: Some(Terms {
            credit: "required",
            redistribution: false,
            modification: "prohibited",
            commercial: None,
        }),
        url: None,
        summary: "redistribution prohibited",
    },
    cc(
        "CC0",
        "unnecessary",
        "allowModificationRedistribution",
        "corporation",
        "https://creativecommons.org/publicdomain/zero/1.0/",
        "public domain: anyone may use, change and share it for any purpose, no credit needed",
    ),
    cc(
        "CC_BY",
        "required",
        "allowModificationRedistribution",
        "corporation",
        "https://creativecommons.org/licenses/by/4.0/",
        "anyone may use, change and share it for any purpose, with credit",
    ),
    cc(
        "CC_BY_NC",
        "required",
        "allowModificationRedistribution",
        "personalNonProfit",
        "https://creativecommons.org/licenses/by-nc/4.0/",
        "anyone may use, change and share it, with credit, not commercially",
    ),
    cc(
        "CC_BY_SA",
        "required",
        "allowModificationRedistribution",
        "corporation",
        "https://creativecommons.org/licenses/by-sa/4.0/",
        "anyone may use, change and share it for any purpose, with credit, changes under the same licence",
    ),
    cc(
        "CC_BY_NC_SA",
        "required",
        "allowModificationRedistribution",
        "personalNonProfit",
        "https://creativecommons.org/licenses/by-nc-sa/4.0/",
        "anyone may use, change and share it, with credit, not commercially, changes under the same licence",
    ),
    cc(
        "CC_BY_ND",
        "required",
        "allowModification",
        "corporation",
        "https://creativecommons.org/licenses/by-nd/4.0/",
        "anyone may use and share it for any purpose, with credit, but not share changed versions",
    ),
    cc(
        "CC_BY_NC_ND",
        "required",
        "allowModification",
        "personalNonProfit",
        "https://creativecommons.org/licenses/by-nc-nd/4.0/",
        "anyone may use and share it, with credit, not commercially, and not share changed versions",
    ),
    Licence {
        name: "Other",
        terms: None,
        url: None,
        summary: "a licence of its own (its otherLicenseUrl)",
    },
];

/// The licence with this 0.x `licenseName`.
pub(crate) fn by_name(name: &str) -> Option<&'static Licence> {
    LICENCES.iter().find(|l| l.name == name)
}

/// The Creative Commons licence whose deed `url` is (`http`/`https`, with or without a
/// trailing `/`, `deed.xx` or `legalcode` page).
pub(crate) fn by_url(url: &str) -> Option<&'static Licence> {
    let key = |u: &str| {
        let u = u.trim();
        let u = u
            .strip_prefix("https://")
            .or_else(|| u.strip_prefix("http://"))
            .unwrap_or(u);
        let u = match u.rfind('/') {
            Some(i) if u[i + 1..].starts_with("deed") || u[i + 1..].starts_with("legalcode") => {
                &u[..i]
            }
            _ => u,
        };
        u.trim_end_matches('/').to_ascii_lowercase()
    };
    let wanted = key(url);
    LICENCES
        .iter()
        .find(|l| l.url.is_some_and(|own| key(own) == wanted))
}

/// Position of `value` in a list ordered from the most restrictive (`None`: not a value).
pub(crate) fn rank(list: &[&str], value: &str) -> Option<usize> {
    list.iter().position(|v| *v == value)
}

/// The URLs a VRM 1.0 `otherLicenseUrl` lists: one URL, or UniVRM's `'a', 'b'` for several.
pub(crate) fn split_urls(text: &str) -> Vec<String> {
    let text = text.trim();
    if !(text.starts_with('\'') && text.ends_with('\'') && text.len() >= 2) {
        return if text.is_empty() {
            Vec::new()
        } else {
            vec![text.to_owned()]
        };
    }
    text[1..text.len() - 1]
        .split("', '")
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Several URLs as one `otherLicenseUrl`: one as it is, several as UniVRM writes them
/// (`'a', 'b'`), duplicates and empty ones left out.
pub(crate) fn join_urls<'a>(urls: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut kept: Vec<&str> = Vec::new();
    for url in urls {
        let url = url.trim();
        if !url.is_empty() && !kept.contains(&url) {
            kept.push(url);
        }
    }
    match kept.as_slice() {
        [] => None,
        [one] => Some((*one).to_owned()),
        many => Some(
            many.iter()
                .map(|u| format!("'{u}'"))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deeds_are_found_by_url() {
        assert_eq!(
            by_url("https://creativecommons.org/licenses/by/4.0/deed.ja").map(|l| l.name),
            Some("CC_BY")
        );
        assert_eq!(
            by_url("http://creativecommons.org/licenses/by-nc-sa/4.0").map(|l| l.name),
            Some("CC_BY_NC_SA")
        );
        assert_eq!(by_url("https://vrm.dev/licenses/1.0/"), None);
        assert_eq!(by_url("https://creativecommons.org/licenses/by/3.0/"), None);
    }

    #[test]
    fn urls_split_and_join_as_univrm_writes_them() {
        assert_eq!(
            split_urls("'https://a', 'https://b'"),
            ["https://a", "https://b"]
        );
        assert_eq!(split_urls("https://a"), ["https://a"]);
        assert!(split_urls(" ").is_empty());
        assert_eq!(
            join_urls(["https://a", "", "https://b", "https://a"]).as_deref(),
            Some("'https://a', 'https://b'")
        );
        assert_eq!(join_urls(["https://a"]).as_deref(), Some("https://a"));
        assert_eq!(join_urls([""]), None);
    }
}
