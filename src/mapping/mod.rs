//! Bone-name mapping tables: which joint of a rig is which canonical bone.
//!
//! Tables are data (`mappings/*.toml`, `docs/mappings.md`): [`Table`] reads and checks one,
//! [`normalize`] is how rig names meet table names, [`Library`] holds the built-in ones and any
//! read at run time. [`detect`] applies tables to a rig and picks the best, [`auto`] maps a rig
//! by its shape, and [`map_rig`] chooses between them; [`policy`] is the one way every command
//! gets a rig's humanoid (`--map`, else the file's declaration, else a table or the auto-mapper).

pub mod auto;
pub mod detect;
pub mod explain;
pub mod library;
pub mod map;
pub mod normalize;
pub mod policy;
pub mod solve;
pub mod table;

pub use detect::{Mapping, Method};
pub use library::Library;
pub use map::{explain_rig, map_rig, Choice, MapReport, RigMapping};
pub use policy::{map_humanoid, How, Mapped};
pub use table::{Origin, Table};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::HumanBone;
    use std::path::Path;

    const REQUIRED: &str = r#"
hips = "Pelvis"
spine = "Spine"
head = "Head"
leftUpperArm = "UpperArm_L"
leftLowerArm = "LowerArm_L"
leftHand = "Hand_L"
rightUpperArm = "UpperArm_R"
rightLowerArm = "LowerArm_R"
rightHand = "Hand_R"
leftUpperLeg = "Thigh_L"
leftLowerLeg = "Calf_L"
leftFoot = "Foot_L"
rightUpperLeg = "Thigh_R"
rightLowerLeg = "Calf_R"
rightFoot = "Foot_R"
"#;

    fn table(extra_meta: &str, extra_bones: &str, required: &str) -> String {
        format!("name = \"t\"\ntitle = \"T\"\ndescription = \"d\"\nsource = \"s\"\n{extra_meta}[bones]\n{required}{extra_bones}")
    }

    #[test]
    fn a_good_table_reads() {
        let t = Table::parse(
            &table(
                "[match]\nprefixes = [\"rig\"]\n",
                "leftToes = [\"Toe_L\", \"Toes_L\"]\n",
                REQUIRED,
            ),
            Path::new("t.toml"),
        )
        .unwrap();
        assert_eq!(t.bone_for("rig01:toe.l"), Some(HumanBone::LeftToes));
        assert_eq!(t.bone_for("Toes_L"), Some(HumanBone::LeftToes));
        assert_eq!(t.bone_for("Toe_R"), None);
        let again = Table::parse(&t.to_toml(), Path::new("t.toml")).unwrap();
        assert_eq!(again.bones, t.bones);
        assert_eq!(again.prefixes, t.prefixes);
    }

    #[test]
    fn problems_name_the_line() {
        // Line 15 of the file: the unknown bone.
        let text = table("", "leftUperArm = \"X\"\n", REQUIRED);
        let err = Table::parse(&text, Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        let line = text
            .lines()
            .position(|l| l.starts_with("leftUperArm"))
            .unwrap()
            + 1;
        assert!(err.starts_with(&format!("t.toml: {line}:1: \"leftUperArm\" is not a canonical bone name: did you mean `leftUpperArm`?")), "{err}");

        let text = table("", "leftToes = \"thigh.l\"\n", REQUIRED);
        let err = Table::parse(&text, Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "\"thigh.l\" is listed for leftToes and (as \"Thigh_L\") for leftUpperLeg"
            ),
            "{err}"
        );

        let text = table("", "", &REQUIRED.replace("head = \"Head\"\n", ""));
        let err = Table::parse(&text, Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("required bone head has no entry"), "{err}");

        let err = Table::parse(&table("", "", REQUIRED), Path::new("other.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("must equal the file stem \"other\""), "{err}");

        let err = Table::parse("name = \"t\"\n[bones\n", Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.toml: 2:"), "{err}");
    }
}
