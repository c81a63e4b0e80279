//! The built-in bone-mapping tables (`mappings/*.toml`), checked without the crate's own loader.
//!
//! Every table is parsed with the `toml` crate and held to the rules of `docs/mappings.md`:
//! metadata present, canonical keys only, the 15 VRM 1.0 required bones, no rig name claimed by
//! two canonical bones after the documented name normalisation (implemented again here, on
//! purpose, so that this test is an independent oracle for the loader).
//!
//! With the `corpus` feature the tables are also compared with the reference name lists in
//! `../shared/docs/reference/rig_names/*.tsv`; every deliberate disagreement is listed, with its
//! reason, in `reference_lists::DEVIATIONS`.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The 55 canonical bones (VRM 1.0 / EXT_skeleton_humanoid), in `docs/conventions.md` order.
const CANONICAL: [&str; 55] = [
    "hips",
    "spine",
    "chest",
    "upperChest",
    "neck",
    "head",
    "leftEye",
    "rightEye",
    "jaw",
    "leftShoulder",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "leftThumbMetacarpal",
    "leftThumbProximal",
    "leftThumbDistal",
    "leftIndexProximal",
    "leftIndexIntermediate",
    "leftIndexDistal",
    "leftMiddleProximal",
    "leftMiddleIntermediate",
    "leftMiddleDistal",
    "leftRingProximal",
    "leftRingIntermediate",
    "leftRingDistal",
    "leftLittleProximal",
    "leftLittleIntermediate",
    "leftLittleDistal",
    "rightShoulder",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "rightThumbMetacarpal",
    "rightThumbProximal",
    "rightThumbDistal",
    "rightIndexProximal",
    "rightIndexIntermediate",
    "rightIndexDistal",
    "rightMiddleProximal",
    "rightMiddleIntermediate",
    "rightMiddleDistal",
    "rightRingProximal",
    "rightRingIntermediate",
    "rightRingDistal",
    "rightLittleProximal",
    "rightLittleIntermediate",
    "rightLittleDistal",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "leftToes",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
    "rightToes",
];

/// The bones VRM 1.0 requires; every table must map them.
const REQUIRED: [&str; 15] = [
    "hips",
    "spine",
    "head",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
];

/// How many built-in tables there must be at least.
const MIN_TABLES: usize = 23;

const TOP_LEVEL_KEYS: [&str; 6] = ["name", "title", "description", "source", "match", "bones"];

// ---------------------------------------------------------------------------------------------
// Normalisation (docs/mappings.md, "Normalisation: how a rig name meets a table name")

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Side {
    None,
    Left,
    Right,
}

/// A normalised name: (side, joined lower-case tokens).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    side: Side,
    core: String,
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({:?}, {:?})", self.side, self.core)
    }
}

/// A normalised name, and how many side markers the name carried (more than one is ambiguous).
struct Normalised {
    key: Key,
    side_markers: usize,
}

fn is_separator(c: char) -> bool {
    matches!(c, ':' | '_' | '.' | '-' | ' ')
}

/// Step 2's preamble: full-width ASCII (U+FF01..U+FF5E) becomes ASCII, the ideographic space a
/// space.
fn fold_full_width(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            '\u{3000}' => ' ',
            c => c,
        })
        .collect()
}

/// Step 1: the first prefix found at the start (case-insensitive) is removed with the digits
/// after it and one separator. A name that would become empty is kept whole.
fn strip_prefix<'a>(name: &'a str, prefixes: &[String]) -> &'a str {
    for prefix in prefixes {
        let Some(head) = name.get(..prefix.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(prefix) {
            continue;
        }
        let rest = name[prefix.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
        let rest = rest.strip_prefix(is_separator).unwrap_or(rest);
        if !rest.is_empty() {
            return rest;
        }
    }
    name
}

/// Step 2: split at separators, at lower-to-upper case changes, and before the last capital of
/// a capital run that is followed by lower case.
fn tokens(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if is_separator(c) {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && match prev {
                Some(p) if p.is_lowercase() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(char::is_lowercase),
                _ => false,
            };
        if boundary && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn side_word(token: &str) -> Option<Side> {
    match token.to_ascii_lowercase().as_str() {
        "l" | "left" => Some(Side::Left),
        "r" | "right" => Some(Side::Right),
        _ => None,
    }
}

/// Steps 1 to 4: prefix, tokens, side marker, lower-case join.
fn normalise(name: &str, prefixes: &[String]) -> Normalised {
    let folded = fold_full_width(name);
    let mut toks = tokens(strip_prefix(&folded, prefixes));
    let mut side = Side::None;
    let mut side_markers = 0;
    // A leading 左 / 右 (MMD).
    if let Some(first) = toks.first_mut() {
        for (mark, s) in [('左', Side::Left), ('右', Side::Right)] {
            if let Some(rest) = first.strip_prefix(mark) {
                side = s;
                side_markers += 1;
                *first = rest.to_owned();
                break;
            }
        }
    }
    // One token l, left, r or right.
    let mut found = None;
    for (i, t) in toks.iter().enumerate() {
        if let Some(s) = side_word(t) {
            side_markers += 1;
            if side == Side::None && found.is_none() {
                found = Some((i, s));
            }
        }
    }
    if let Some((i, s)) = found {
        side = s;
        toks.remove(i);
    }
    Normalised {
        key: Key {
            side,
            core: toks.concat().to_lowercase(),
        },
        side_markers,
    }
}

fn key(name: &str, prefixes: &[String]) -> Key {
    normalise(name, prefixes).key
}

/// The side a canonical bone is on.
fn canonical_side(bone: &str) -> Side {
    if bone.starts_with("left") {
        Side::Left
    } else if bone.starts_with("right") {
        Side::Right
    } else {
        Side::None
    }
}

#[test]
fn normalisation_follows_the_documented_examples() {
    let none: Vec<String> = Vec::new();
    let left_upper_arm = Key {
        side: Side::Left,
        core: "upperarm".into(),
    };
    for name in [
        "upper_arm.L",
        "upper_arm_l",
        "L_UpperArm",
        "UpperArm.L",
        "LeftUpperArm",
    ] {
        assert_eq!(key(name, &none), left_upper_arm, "{name}");
    }
    let bip01_thigh = Key {
        side: Side::Left,
        core: "bip01thigh".into(),
    };
    assert_eq!(key("Bip01 L Thigh", &none), bip01_thigh);

    let mixamo = vec!["mixamorig".to_owned()];
    let up_leg = Key {
        side: Side::Left,
        core: "upleg".into(),
    };
    for name in [
        "mixamorig:LeftUpLeg",
        "mixamorig1:LeftUpLeg",
        "mixamorig_LeftUpLeg",
        "LeftUpLeg",
    ] {
        assert_eq!(key(name, &mixamo), up_leg, "{name}");
    }

    let bip = vec!["bip".to_owned()];
    let pelvis = key("Pelvis", &none);
    assert_eq!(key("Bip01 Pelvis", &bip), pelvis);
    assert_eq!(key("Bip001 Pelvis", &bip), pelvis);
    assert_eq!(
        key("Bip001 L Finger01", &bip),
        Key {
            side: Side::Left,
            core: "finger01".into()
        }
    );

    assert_eq!(tokens("LeftUpLeg"), ["Left", "Up", "Leg"]);
    assert_eq!(tokens("lShldrBend"), ["l", "Shldr", "Bend"]);
    assert_eq!(tokens("LHipJoint"), ["L", "Hip", "Joint"]);
    assert_eq!(
        key("LHipJoint", &none),
        Key {
            side: Side::Left,
            core: "hipjoint".into()
        }
    );
    // Full-width digits and letters, Japanese side markers.
    assert_eq!(key("左親指０", &none), key("左親指0", &none));
    assert_eq!(
        key("右ひじ", &none),
        Key {
            side: Side::Right,
            core: "ひじ".into()
        }
    );
    assert_eq!(key("Ｌ_Hand", &none), key("L_Hand", &none));
    // A name that is only the prefix is kept.
    assert_eq!(key("Bip01", &bip).core, "bip01");
    // Two side markers are counted, so that the table check can reject them.
    assert_eq!(normalise("L_Arm_R", &none).side_markers, 2);
}

// ---------------------------------------------------------------------------------------------
// Reading and checking the tables

/// A table that passed the format checks.
#[derive(Debug)]
struct Table {
    name: String,
    prefixes: Vec<String>,
    /// Canonical bone -> rig names (alternatives in file order).
    bones: BTreeMap<String, Vec<String>>,
}

fn mappings_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("mappings")
}

fn table_files() -> Vec<PathBuf> {
    let dir = mappings_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

/// Edit distance, for "did you mean" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

fn closest_canonical(bone: &str) -> &'static str {
    CANONICAL
        .iter()
        .copied()
        .min_by_key(|c| distance(&bone.to_lowercase(), &c.to_lowercase()))
        .unwrap_or("hips")
}

fn non_empty_string(doc: &toml::Table, key: &str, problems: &mut Vec<String>) -> Option<String> {
    match doc.get(key) {
        None => {
            problems.push(format!("`{key}` is missing"));
            None
        }
        Some(toml::Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(toml::Value::String(_)) => {
            problems.push(format!("`{key}` is empty"));
            None
        }
        Some(other) => {
            problems.push(format!(
                "`{key}` must be a string, not {}",
                other.type_str()
            ));
            None
        }
    }
}

fn read_prefixes(doc: &toml::Table, problems: &mut Vec<String>) -> Vec<String> {
    let Some(matching) = doc.get("match") else {
        return Vec::new();
    };
    let Some(matching) = matching.as_table() else {
        problems.push("`match` must be a table".into());
        return Vec::new();
    };
    for key in matching.keys() {
        if key != "prefixes" {
            problems.push(format!(
                "unknown key `match.{key}` (only `prefixes` is allowed)"
            ));
        }
    }
    let mut prefixes = Vec::new();
    match matching.get("prefixes") {
        None => {}
        Some(toml::Value::Array(items)) => {
            for item in items {
                match item.as_str() {
                    Some(p) if !p.trim().is_empty() => prefixes.push(p.to_owned()),
                    _ => problems.push(format!(
                        "`match.prefixes` entries must be non-empty strings, found {item}"
                    )),
                }
            }
        }
        Some(other) => problems.push(format!(
            "`match.prefixes` must be an array of strings, not {}",
            other.type_str()
        )),
    }
    prefixes
}

fn read_bones(doc: &toml::Table, problems: &mut Vec<String>) -> BTreeMap<String, Vec<String>> {
    let mut bones = BTreeMap::new();
    let Some(section) = doc.get("bones") else {
        problems.push("`[bones]` is missing".into());
        return bones;
    };
    let Some(section) = section.as_table() else {
        problems.push("`bones` must be a table".into());
        return bones;
    };
    for (bone, value) in section {
        if !CANONICAL.contains(&bone.as_str()) {
            problems.push(format!(
                "`{bone}` is not a canonical bone name (did you mean `{}`?)",
                closest_canonical(bone)
            ));
            continue;
        }
        let names: Vec<String> = match value {
            toml::Value::String(s) => vec![s.clone()],
            toml::Value::Array(items) if !items.is_empty() => {
                let mut names = Vec::new();
                for item in items {
                    match item.as_str() {
                        Some(s) => names.push(s.to_owned()),
                        None => problems.push(format!(
                            "`{bone}`: alternatives must be strings, found {item}"
                        )),
                    }
                }
                names
            }
            toml::Value::Array(_) => {
                problems.push(format!("`{bone}`: the list of alternatives is empty"));
                continue;
            }
            other => {
                problems.push(format!(
                    "`{bone}` must be a string or a list of strings, not {}",
                    other.type_str()
                ));
                continue;
            }
        };
        for name in &names {
            if name.trim().is_empty() {
                problems.push(format!("`{bone}`: empty rig bone name"));
            }
        }
        bones.insert(bone.clone(), names);
    }
    for bone in REQUIRED {
        if !bones.contains_key(bone) {
            problems.push(format!("required bone `{bone}` has no entry"));
        }
    }
    bones
}

/// The name rules that need normalisation: each rig name means one canonical bone, carries at
/// most one side marker, and is on the side of its bone.
fn check_names(
    prefixes: &[String],
    bones: &BTreeMap<String, Vec<String>>,
    problems: &mut Vec<String>,
) {
    let mut owner: HashMap<Key, (&str, &str)> = HashMap::new();
    for (bone, names) in bones {
        for name in names {
            let n = normalise(name, prefixes);
            if n.side_markers > 1 {
                problems.push(format!(
                    "`{bone}`: \"{name}\" has {} side markers; the side is ambiguous",
                    n.side_markers
                ));
            }
            if n.key.core.is_empty() {
                problems.push(format!("`{bone}`: \"{name}\" normalises to an empty name"));
            }
            // A side marker must name the bone's side (a sided bone may lack one: the Second
            // Life "mHandIndex1Left" keeps "left" in its core, as digit-to-capital is no split).
            let expected = canonical_side(bone);
            if n.key.side != expected && (n.key.side != Side::None || expected == Side::None) {
                problems.push(format!(
                    "`{bone}`: \"{name}\" normalises to {}, whose side {:?} is not the bone's ({expected:?})",
                    n.key, n.key.side
                ));
            }
            match owner.get(&n.key) {
                Some(&(other_bone, other_name)) if other_bone != bone.as_str() => {
                    problems.push(format!(
                        "\"{name}\" (`{bone}`) and \"{other_name}\" (`{other_bone}`) both normalise to {}: one rig bone for two canonical bones",
                        n.key
                    ));
                }
                Some(&(_, other_name)) => problems.push(format!(
                    "`{bone}`: alternatives \"{other_name}\" and \"{name}\" both normalise to {}; one of them is redundant",
                    n.key
                )),
                None => {
                    owner.insert(n.key.clone(), (bone.as_str(), name.as_str()));
                }
            }
        }
    }
}

/// Checks one file; returns the table (when it is usable at all) and its problems.
fn check_file(path: &Path) -> (Option<Table>, Vec<String>) {
    let mut problems = Vec::new();
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_owned();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return (None, vec![format!("cannot read: {e}")]),
    };
    let doc: toml::Table = match text.parse() {
        Ok(doc) => doc,
        Err(e) => return (None, vec![format!("not valid TOML: {e}")]),
    };
    for key in doc.keys() {
        if !TOP_LEVEL_KEYS.contains(&key.as_str()) {
            problems.push(format!(
                "unknown top-level key `{key}` (allowed: {})",
                TOP_LEVEL_KEYS.join(", ")
            ));
        }
    }
    let name = non_empty_string(&doc, "name", &mut problems);
    if let Some(name) = &name {
        if name != &stem {
            problems.push(format!(
                "`name` is \"{name}\" but the file stem is \"{stem}\""
            ));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            problems.push(format!(
                "`name` \"{name}\" may only contain a-z, 0-9 and '-'"
            ));
        }
    }
    for key in ["title", "description", "source"] {
        non_empty_string(&doc, key, &mut problems);
    }
    let prefixes = read_prefixes(&doc, &mut problems);
    let bones = read_bones(&doc, &mut problems);
    check_names(&prefixes, &bones, &mut problems);
    let table = Table {
        name: name.unwrap_or(stem),
        prefixes,
        bones,
    };
    (Some(table), problems)
}

/// Every table, or a panic listing every problem in every file.
fn load_tables() -> Vec<Table> {
    let mut tables = Vec::new();
    let mut report = String::new();
    for path in table_files() {
        let (table, problems) = check_file(&path);
        for problem in &problems {
            let _ = writeln!(report, "{}: {problem}", path.display());
        }
        if let Some(table) = table {
            tables.push(table);
        }
    }
    assert!(
        report.is_empty(),
        "mapping tables break the rules of docs/mappings.md:\n{report}"
    );
    tables
}

#[test]
fn every_table_follows_the_format_rules() {
    let tables = load_tables();
    assert!(
        !tables.is_empty(),
        "no tables in {}",
        mappings_dir().display()
    );
}

#[test]
fn table_names_are_unique() {
    let tables = load_tables();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for t in &tables {
        *seen.entry(t.name.as_str()).or_default() += 1;
    }
    let twice: Vec<_> = seen.into_iter().filter(|&(_, n)| n > 1).collect();
    assert!(twice.is_empty(), "table names used twice: {twice:?}");
}

#[test]
fn there_are_enough_tables() {
    let tables = load_tables();
    let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
    assert!(
        tables.len() >= MIN_TABLES,
        "expected at least {MIN_TABLES} tables in {}, found {}: {names:?}",
        mappings_dir().display(),
        tables.len()
    );
}

#[test]
fn no_table_maps_a_tip_bone() {
    // Leaves past the last joint (Mixamo HeadTop_End, Biped Finger0Nub, Godot *Tip, MMD 左つま先)
    // have no canonical slot; a table that maps one shifts a chain by a segment.
    let mut report = String::new();
    for table in load_tables() {
        for (bone, names) in &table.bones {
            for name in names {
                let folded = fold_full_width(name);
                let toks = tokens(strip_prefix(&folded, &table.prefixes));
                let last = toks.last().map(|t| t.to_lowercase()).unwrap_or_default();
                if last == "end" || last == "tip" || last.ends_with("nub") || name.contains('先') {
                    let _ = writeln!(
                        report,
                        "{} `{bone}`: \"{name}\" looks like a tip bone",
                        table.name
                    );
                }
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn the_checks_catch_bad_tables() {
    let dir = std::env::temp_dir().join(format!("mapping_tables_test_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let required: String = REQUIRED
        .iter()
        .map(|b| {
            let side = match canonical_side(b) {
                Side::Left => "L_",
                Side::Right => "R_",
                Side::None => "",
            };
            let rest = b.trim_start_matches("left").trim_start_matches("right");
            format!("{b} = \"{side}{rest}\"\n")
        })
        .collect();
    let good = format!(
        "name = \"good\"\ntitle = \"t\"\ndescription = \"d\"\nsource = \"s\"\n[match]\nprefixes = [\"rig\"]\n[bones]\n{required}"
    );
    let cases: [(&str, String, &str); 7] = [
        ("good", good.clone(), ""),
        ("other", good.clone(), "file stem"),
        (
            "good",
            good.replace("title = \"t\"\n", ""),
            "`title` is missing",
        ),
        (
            "good",
            format!("{good}leftUperArm = \"x\"\n"),
            "did you mean `leftUpperArm`",
        ),
        (
            "good",
            good.replace("hips = \"hips\"\n", ""),
            "required bone `hips`",
        ),
        (
            "good",
            format!("{good}leftToes = \"rig:L.Hand\"\n"),
            "one rig bone for two canonical bones",
        ),
        (
            "good",
            format!("{good}rightToes = \"L_Toes\"\n"),
            "is not the bone's",
        ),
    ];
    for (stem, text, expected) in cases {
        let path = dir.join(format!("{stem}.toml"));
        std::fs::write(&path, &text).expect("write temp table");
        let (_, problems) = check_file(&path);
        if expected.is_empty() {
            assert!(problems.is_empty(), "good table rejected: {problems:?}");
        } else {
            assert!(
                problems.iter().any(|p| p.contains(expected)),
                "expected a problem containing {expected:?}, got {problems:?}"
            );
        }
        std::fs::remove_file(&path).expect("remove temp table");
    }
    let _ = std::fs::remove_dir(&dir);
}

// ---------------------------------------------------------------------------------------------
// Cross-check against the reference name lists (needs ../shared)

#[cfg(feature = "corpus")]
mod reference_lists {
    use super::{key, load_tables, CANONICAL};
    use std::collections::BTreeSet;
    use std::fmt::Write as _;
    use std::path::{Path, PathBuf};

    /// Table name -> reference list in `../shared/docs/reference/rig_names/`.
    const TSV_FOR_TABLE: [(&str, &str); 20] = [
        ("vrm0", "vrm0_humanoid.tsv"),
        ("unity-humanbodybones", "unity_humanbodybones.tsv"),
        ("godot-humanoid", "godot_skeleton_profile_humanoid.tsv"),
        ("mixamo", "mixamo.tsv"),
        ("readyplayerme", "readyplayerme.tsv"),
        ("unreal-ue4-mannequin", "unreal_ue4_mannequin.tsv"),
        ("unreal-ue5-manny", "unreal_ue5_manny.tsv"),
        ("blender-metarig", "blender_human_metarig.tsv"),
        ("rigify-def", "rigify_def.tsv"),
        ("character-creator-3", "character_creator_cc3.tsv"),
        ("character-creator-4", "character_creator_cc4.tsv"),
        ("daz-genesis-3-8", "daz_genesis3_8.tsv"),
        ("max-biped", "max_biped.tsv"),
        ("microsoft-rocketbox", "microsoft_rocketbox.tsv"),
        ("makehuman-mpfb", "makehuman_mpfb_default.tsv"),
        ("cmu-bvh-motionbuilder", "cmu_bvh_motionbuilder.tsv"),
        ("cmu-bvh-3dsmax", "cmu_bvh_3dsmax.tsv"),
        ("biovision-bvh", "biovision_classic_bvh.tsv"),
        ("mmd", "mmd.tsv"),
        ("vroid", "vroid.tsv"),
    ];

    /// Entries where a table deliberately differs from its reference list after the cited
    /// source was checked: (table, canonical bone, reason). A table that leaves out a bone the
    /// list has is listed here too when the omission is a decision. An entry that no longer
    /// describes a disagreement fails the test, so this list stays true.
    const DEVIATIONS: [(&str, &str, &str); 5] = [
        (
            "max-biped",
            "spine",
            "The list maps Bip01 Spine (from the VRM add-on's biped_mapping.py, which checks no \
             hierarchy). With Triangle Pelvis the thighs hang off Bip01 Spine (3ds Max manual, \
             Biped Structure rollout; Rocketbox-Unity re-parents them), so mapping it breaks the \
             hierarchy check; spine = Bip01 Spine1 as in the add-on's Rocketbox table.",
        ),
        (
            "max-biped",
            "neck",
            "Left out: without Triangle Neck the clavicles are children of Bip01 Neck (3ds Max \
             manual), so mapping it makes neck the clavicles' nearest mapped ancestor and breaks \
             the hierarchy check; its rotation folds into head (as in the add-on's Rocketbox \
             table).",
        ),
        (
            "cmu-bvh-3dsmax",
            "neck",
            "The list maps Neck. This file is the MotionBuilder-friendly CMU skeleton renamed \
             joint for joint (corpus cmu_131_01_3dsmax.bvh: Chest2 > lowerneck (offset 0) > Neck \
             (+1.61) > Head (+1.60), like Spine1 > Neck (0) > Neck1 > Head), and UniHumanoid's \
             cgspeed test maps that Neck to neck; its counterpart here is lowerneck, the joint \
             at the base of the neck. Neck is the mid-neck joint.",
        ),
        (
            "mmd",
            "leftToes",
            "Left out: 左つま先 is the leaf at the toe tip that 左つま先ＩＫ targets (a tip bone, \
             child of 左足首 with nothing below it); the real toe bone 左足先EX hangs off the D \
             chain (左足首D), outside the mapped leg, so neither can be mapped safely.",
        ),
        (
            "mmd",
            "rightToes",
            "Left out: 右つま先 is the toe-tip leaf targeted by 右つま先ＩＫ; 右足先EX hangs off \
             右足首D, outside the mapped leg (see leftToes).",
        ),
    ];

    fn reference_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/docs/reference/rig_names")
    }

    /// (canonical bone, rig bone name) rows of a reference list.
    fn read_tsv(path: &Path) -> Vec<(String, String)> {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        text.lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter(|l| *l != "canonical_name\trig_bone_name")
            .map(|l| {
                let (bone, rig) = l
                    .split_once('\t')
                    .unwrap_or_else(|| panic!("{}: not two columns: {l:?}", path.display()));
                (bone.to_owned(), rig.to_owned())
            })
            .collect()
    }

    #[test]
    fn tables_agree_with_the_reference_lists() {
        let tables = load_tables();
        let mut report = String::new();
        let mut used = BTreeSet::new();
        for (i, (table_name, bone, reason)) in DEVIATIONS.iter().enumerate() {
            if reason.trim().is_empty() {
                let _ = writeln!(report, "deviation {table_name}/{bone} gives no reason");
            }
            if DEVIATIONS[..i]
                .iter()
                .any(|(t, b, _)| t == table_name && b == bone)
            {
                let _ = writeln!(report, "deviation {table_name}/{bone} is listed twice");
            }
        }
        for (table_name, tsv) in TSV_FOR_TABLE {
            let Some(table) = tables.iter().find(|t| t.name == table_name) else {
                let _ = writeln!(report, "no table `{table_name}` (reference list {tsv})");
                continue;
            };
            let path = reference_dir().join(tsv);
            for (bone, rig) in read_tsv(&path) {
                if !CANONICAL.contains(&bone.as_str()) {
                    let _ = writeln!(report, "{tsv}: `{bone}` is not a canonical bone");
                    continue;
                }
                let deviation = DEVIATIONS
                    .iter()
                    .find(|(t, b, _)| *t == table_name && *b == bone);
                let Some(names) = table.bones.get(&bone) else {
                    // Leaving a bone out is allowed; a listed omission is a used deviation.
                    if deviation.is_some() {
                        used.insert((table_name, bone));
                    }
                    continue;
                };
                // Compare as the loader will: after normalisation under the table's prefixes
                // (the lists write Mixamo names with their "mixamorig:" prefix).
                let wanted = key(&rig, &table.prefixes);
                if names.iter().any(|n| key(n, &table.prefixes) == wanted) {
                    continue;
                }
                if deviation.is_some() {
                    used.insert((table_name, bone));
                } else {
                    let _ = writeln!(
                        report,
                        "{table_name} `{bone}`: table has {names:?}, reference list {tsv} has \"{rig}\" (fix the table, or add a DEVIATIONS entry with the reason)"
                    );
                }
            }
        }
        for (table_name, bone, _) in DEVIATIONS {
            if !used.contains(&(table_name, bone.to_owned())) {
                let _ = writeln!(
                    report,
                    "DEVIATIONS entry {table_name}/{bone} no longer describes a disagreement with the reference list; remove it"
                );
            }
        }
        assert!(report.is_empty(), "tables vs reference lists:\n{report}");
    }
}
