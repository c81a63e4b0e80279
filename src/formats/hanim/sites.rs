//! H-Anim site names and the socket tags they give.
//!
//! H-Anim 2.0 (ISO/IEC 19774-1:2019, Annex B) names 118 standard sites: the anthropometric
//! feature points (ISO 7250 / CAESAR landmarks such as `skull_vertex_pt`, `sellion_pt`,
//! `l_acromion_pt`) and the finger and toe tips (`l_carpal_distal_phalanx_1_tip`). Files made
//! for 1.x often use the older short names (`skull_tip`, `l_femoral_lateral_epicn`,
//! `l_thumb_distal_tip`) or the bare landmark without `_pt`; [`standard_name`] maps those to the
//! 2.0 name. Other suffixes are conventions for non-standard sites: `_view` (a viewpoint),
//! `_feature`, `_action`, `_config`.
//!
//! A site read as a socket keeps its name and gets the tags of [`tags`]:
//!
//! | site | tags |
//! |---|---|
//! | any | `hanim_site` |
//! | a viewpoint (`viewpoints` field or a `_view` name) | `camera` |
//! | a standard feature point (by its 2.0 name or a 1.x alias) | `marker`, `hanim:<2.0 name>` |
//! | another `_pt`, `_tip` or `_feature` name | `marker` |
//! | anything else | `attach` |

/// The 118 standard site names of H-Anim 2.0, sorted.
pub const FEATURE_POINTS: [&str; 118] = [
    "adams_apple_pt",
    "buttocks_standing_wall_contact_point_pt",
    "cervicale_pt",
    "crotch_pt",
    "glabella_pt",
    "l_acromion_pt",
    "l_asis_pt",
    "l_axilla_distal_pt",
    "l_axilla_posterior_folds_pt",
    "l_axilla_proximal_pt",
    "l_bideltoid_pt",
    "l_calcaneus_posterior_pt",
    "l_carpal_distal_phalanx_1_tip",
    "l_carpal_distal_phalanx_2_tip",
    "l_carpal_distal_phalanx_3_tip",
    "l_carpal_distal_phalanx_4_tip",
    "l_carpal_distal_phalanx_5_tip",
    "l_chest_midsagittal_plane_pt",
    "l_clavicale_pt",
    "l_dactylion_pt",
    "l_ectocanthus_pt",
    "l_femoral_lateral_epicondyles_pt",
    "l_femoral_medial_epicondyles_pt",
    "l_gonion_pt",
    "l_humeral_lateral_epicondyles_pt",
    "l_humeral_medial_epicondyles_pt",
    "l_iliocristale_pt",
    "l_infraorbitale_pt",
    "l_knee_crease_pt",
    "l_lateral_malleolus_pt",
    "l_medial_malleolus_pt",
    "l_metacarpal_phalanx_2_pt",
    "l_metacarpal_phalanx_3_pt",
    "l_metacarpal_phalanx_5_pt",
    "l_metatarsal_phalanx_1_pt",
    "l_metatarsal_phalanx_5_pt",
    "l_neck_base_pt",
    "l_olecranon_pt",
    "l_psis_pt",
    "l_radial_styloid_pt",
    "l_radiale_pt",
    "l_rib10_pt",
    "l_sphyrion_pt",
    "l_suprapatella_pt",
    "l_tarsal_distal_phalanx_1_tip",
    "l_tarsal_distal_phalanx_2_tip",
    "l_tarsal_distal_phalanx_3_tip",
    "l_tarsal_distal_phalanx_4_tip",
    "l_tarsal_distal_phalanx_5_tip",
    "l_thelion_pt",
    "l_tibiale_pt",
    "l_tragion_pt",
    "l_trochanterion_pt",
    "l_ulnar_styloid_pt",
    "menton_pt",
    "mesosternale_pt",
    "navel_pt",
    "nuchale_pt",
    "opisthocranion_pt",
    "r_acromion_pt",
    "r_asis_pt",
    "r_axilla_distal_pt",
    "r_axilla_posterior_folds_pt",
    "r_axilla_proximal_pt",
    "r_bideltoid_pt",
    "r_calcaneus_posterior_pt",
    "r_carpal_distal_phalanx_1_tip",
    "r_carpal_distal_phalanx_2_tip",
    "r_carpal_distal_phalanx_3_tip",
    "r_carpal_distal_phalanx_4_tip",
    "r_carpal_distal_phalanx_5_tip",
    "r_chest_midsagittal_plane_pt",
    "r_clavicale_pt",
    "r_dactylion_pt",
    "r_ectocanthus_pt",
    "r_femoral_lateral_epicondyles_pt",
    "r_femoral_medial_epicondyles_pt",
    "r_gonion_pt",
    "r_humeral_lateral_epicondyles_pt",
    "r_humeral_medial_epicondyles_pt",
    "r_iliocristale_pt",
    "r_infraorbitale_pt",
    "r_knee_crease_pt",
    "r_lateral_malleolus_pt",
    "r_medial_malleolus_pt",
    "r_metacarpal_phalanx_2_pt",
    "r_metacarpal_phalanx_3_pt",
    "r_metacarpal_phalanx_5_pt",
    "r_metatarsal_phalanx_1_pt",
    "r_metatarsal_phalanx_5_pt",
    "r_neck_base_pt",
    "r_olecranon_pt",
    "r_psis_pt",
    "r_radial_styloid_pt",
    "r_radiale_pt",
    "r_rib10_pt",
    "r_sphyrion_pt",
    "r_suprapatella_pt",
    "r_tarsal_distal_phalanx_1_tip",
    "r_tarsal_distal_phalanx_2_tip",
    "r_tarsal_distal_phalanx_3_tip",
    "r_tarsal_distal_phalanx_4_tip",
    "r_tarsal_distal_phalanx_5_tip",
    "r_thelion_pt",
    "r_tibiale_pt",
    "r_tragion_pt",
    "r_trochanterion_pt",
    "r_ulnar_styloid_pt",
    "rear_center_midsagittal_plane_pt",
    "sellion_pt",
    "skull_vertex_pt",
    "spine_1_middle_back_pt",
    "spine_2_middle_back_pt",
    "substernale_pt",
    "supramenton_pt",
    "suprasternale_pt",
    "waist_preferred_anterior_pt",
    "waist_preferred_posterior_pt",
];

/// 1.x short names (without the `l_`/`r_` side) and the 2.0 name they stand for.
const ALIASES: [(&str, &str); 17] = [
    ("skull_tip", "skull_vertex_pt"),
    ("femoral_lateral_epicn", "femoral_lateral_epicondyles_pt"),
    ("femoral_medial_epicn", "femoral_medial_epicondyles_pt"),
    ("humeral_lateral_epicn", "humeral_lateral_epicondyles_pt"),
    ("humeral_medial_epicn", "humeral_medial_epicondyles_pt"),
    ("calcaneous_post", "calcaneus_posterior_pt"),
    ("metatarsal_pha1", "metatarsal_phalanx_1_pt"),
    ("metatarsal_pha5", "metatarsal_phalanx_5_pt"),
    ("metacarpal_pha2", "metacarpal_phalanx_2_pt"),
    ("metacarpal_pha5", "metacarpal_phalanx_5_pt"),
    ("waist_preferred_post", "waist_preferred_posterior_pt"),
    ("thumb_distal_tip", "carpal_distal_phalanx_1_tip"),
    ("index_distal_tip", "carpal_distal_phalanx_2_tip"),
    ("middle_distal_tip", "carpal_distal_phalanx_3_tip"),
    ("ring_distal_tip", "carpal_distal_phalanx_4_tip"),
    ("pinky_distal_tip", "carpal_distal_phalanx_5_tip"),
    ("digit2", "tarsal_distal_phalanx_2_tip"),
];

/// The H-Anim 2.0 standard site name `name` stands for: itself, itself with `_pt`, or the 2.0
/// name of a 1.x alias (ASCII case-insensitive).
///
/// ```
/// use humanoid::formats::hanim::sites::standard_name;
/// assert_eq!(standard_name("sellion"), Some("sellion_pt".to_owned()));
/// assert_eq!(standard_name("r_thumb_distal_tip"), Some("r_carpal_distal_phalanx_1_tip".to_owned()));
/// assert_eq!(standard_name("sword_grip"), None);
/// ```
pub fn standard_name(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let known = |n: &str| FEATURE_POINTS.binary_search(&n).is_ok();
    if known(&lower) {
        return Some(lower);
    }
    let with_pt = format!("{lower}_pt");
    if known(&with_pt) {
        return Some(with_pt);
    }
    let (side, rest) = match lower.split_at_checked(2) {
        Some((side @ ("l_" | "r_"), rest)) => (side, rest),
        _ => ("", lower.as_str()),
    };
    let (_, standard) = ALIASES.iter().find(|(alias, _)| *alias == rest)?;
    let full = format!("{side}{standard}");
    known(&full).then_some(full)
}

/// The socket tags of a site named `name` (see the module docs); `viewpoint` says whether it
/// was found in the humanoid's `viewpoints`.
pub fn tags(name: &str, viewpoint: bool) -> Vec<String> {
    let mut tags = vec!["hanim_site".to_owned()];
    let lower = name.to_ascii_lowercase();
    if viewpoint || lower.ends_with("_view") {
        tags.push("camera".to_owned());
    } else if let Some(standard) = standard_name(name) {
        tags.push("marker".to_owned());
        tags.push(format!("hanim:{standard}"));
    } else if ["_pt", "_tip", "_feature"]
        .iter()
        .any(|s| lower.ends_with(s))
    {
        tags.push("marker".to_owned());
    } else {
        tags.push("attach".to_owned());
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_points_are_sorted_and_unique() {
        assert!(FEATURE_POINTS.windows(2).all(|w| w[0] < w[1]));
        for (_, standard) in ALIASES {
            assert!(
                standard_name(&format!("l_{standard}")).is_some()
                    || standard_name(standard).is_some(),
                "{standard}"
            );
        }
    }

    #[test]
    fn tags_by_kind() {
        assert_eq!(tags("eye_view", false), ["hanim_site", "camera"]);
        assert_eq!(tags("anything", true), ["hanim_site", "camera"]);
        assert_eq!(
            tags("l_femoral_lateral_epicn", false),
            [
                "hanim_site",
                "marker",
                "hanim:l_femoral_lateral_epicondyles_pt"
            ]
        );
        assert_eq!(tags("floormarker_pt", false), ["hanim_site", "marker"]);
        assert_eq!(tags("sword", false), ["hanim_site", "attach"]);
    }
}
