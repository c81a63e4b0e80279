//! H-Anim through the CLI: the mannequin written as X3D XML, ClassicVRML and VRML97 and read
//! back keeps every bone's rest and animated world position (1e-5 m), and its walk; every corpus
//! H-Anim file converts to a GLB (with its skin or segment shapes) the Khronos validator
//! accepts, and JoeKick retargets onto the mannequin.
//! (The readers and writers themselves are checked against X_ITE, Castle and hand-written
//! evaluation in `tests/hanim.rs`.)

use serde_json::Value;

use crate::util::{demo, humanoid_ok, s, temp_dir};

fn pose(file: &std::path::Path, times: &str) -> Value {
    serde_json::from_str(
        &humanoid_ok(&[
            "pose",
            "--json",
            "--clip",
            "walk",
            "--times",
            times,
            s(file),
        ])
        .stdout,
    )
    .unwrap()
}

fn assert_same_positions(a: &Value, b: &Value, what: &str) {
    let bones = a.as_object().unwrap();
    assert!(bones.len() >= 50, "{what}: {} bones", bones.len());
    for (bone, value) in bones {
        let p = |v: &Value| -> Vec<f64> {
            v["p"]
                .as_array()
                .unwrap_or_else(|| panic!("{what}: {bone} missing"))
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        let (pa, pb) = (p(value), p(&b[bone]));
        let d = pa
            .iter()
            .zip(&pb)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(d < 1e-5, "{what} {bone}: {pa:?} vs {pb:?}");
    }
}

#[test]
fn the_mannequin_through_every_h_anim_encoding_keeps_its_rest_and_walk() {
    let (_keep, mannequin, _) = demo();
    let dir = temp_dir();
    let times = "0,0.3,0.7";
    let original = pose(&mannequin, times);
    for ext in ["x3d", "x3dv", "wrl"] {
        let hanim = dir.path().join(format!("mannequin.{ext}"));
        humanoid_ok(&["convert", s(&mannequin), s(&hanim)]);
        let back = dir.path().join(format!("from_{ext}.glb"));
        humanoid_ok(&["convert", s(&hanim), s(&back)]);
        for file in [&hanim, &back] {
            let ours = pose(file, times);
            assert_same_positions(&original["rest"], &ours["rest"], &format!("{ext} rest"));
            for k in 0..3 {
                assert_same_positions(
                    &original["samples"][k]["bones"],
                    &ours["samples"][k]["bones"],
                    &format!("{} walk sample {k}", file.display()),
                );
            }
        }
    }
}

#[cfg(feature = "corpus")]
#[test]
fn every_corpus_h_anim_file_converts_to_a_valid_glb_and_joe_kick_retargets() {
    use crate::util::{khronos_validate, shared};
    let (_keep, mannequin, _) = demo();
    let dir = temp_dir();
    let corpus = shared().join("corpus/hanim");
    let mut converted = 0;
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let path = entry.unwrap().path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !matches!(ext, "x3d" | "x3dv" | "wrl") {
            continue;
        }
        let glb = dir.path().join(format!(
            "{}.glb",
            path.file_name().unwrap().to_str().unwrap()
        ));
        humanoid_ok(&["convert", s(&path), s(&glb)]);
        let (errors, _, messages) = khronos_validate(&glb);
        assert_eq!(errors, 0, "{}: {messages:#?}", path.display());
        converted += 1;
    }
    assert!(converted >= 14, "{converted} H-Anim files converted");
    let joe = corpus.join("JoeKick.x3d");
    let (_, bin) = crate::util::glb_parts(&dir.path().join("JoeKick.x3d.glb"));
    assert!(
        bin.len() > 10_000,
        "JoeKick's skin goes into the GLB ({} bytes)",
        bin.len()
    );
    let out = dir.path().join("kick.glb");
    humanoid_ok(&["retarget", s(&joe), "--onto", s(&mannequin), "-o", s(&out)]);
    let (errors, _, messages) = khronos_validate(&out);
    assert_eq!(errors, 0, "{messages:#?}");
}

/// Every HAnimSite of the two site-rich corpus files becomes a KHR_virtual_transform whose
/// world position is the site's H-Anim world position (1e-5 m). In these files no joint has a
/// rotation, translation or scale (checked), so a site's world position is its own
/// `translation`, read here from the XML with roxmltree.
#[cfg(feature = "corpus")]
#[test]
fn h_anim_sites_become_virtual_transforms_at_their_world_positions() {
    use crate::util::{khronos_validate, shared};
    let dir = temp_dir();
    for name in ["JoeSkeletonSkinSiteSaluteWalk.x3d", "StandardHumanoid.x3d"] {
        let path = shared().join("corpus/hanim").join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let xml = roxmltree::Document::parse_with_options(
            &text,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..roxmltree::ParsingOptions::default()
            },
        )
        .unwrap();
        for joint in xml.descendants().filter(|n| n.has_tag_name("HAnimJoint")) {
            for field in ["rotation", "translation", "scale"] {
                assert!(
                    joint.attribute(field).is_none(),
                    "{name}: a joint has {field}"
                );
            }
        }
        let sites: Vec<(String, [f64; 3])> = xml
            .descendants()
            .filter(|n| n.has_tag_name("HAnimSite") && n.attribute("USE").is_none())
            .map(|n| {
                let t: Vec<f64> = n
                    .attribute("translation")
                    .unwrap_or("0 0 0")
                    .split_whitespace()
                    .map(|v| v.parse().unwrap())
                    .collect();
                (n.attribute("name").unwrap().to_owned(), [t[0], t[1], t[2]])
            })
            .collect();
        let glb = dir.path().join(format!("{name}.glb"));
        humanoid_ok(&["convert", s(&path), s(&glb)]);
        let (errors, _, messages) = khronos_validate(&glb);
        assert_eq!(errors, 0, "{name}: {messages:#?}");
        let report: Value =
            serde_json::from_str(&humanoid_ok(&["sockets", "--json", s(&glb)]).stdout).unwrap();
        let sockets = report["sockets"].as_array().unwrap();
        assert_eq!(sockets.len(), sites.len(), "{name}: every site");
        for (site, expected) in &sites {
            let socket = sockets
                .iter()
                .find(|s| s["name"] == site.as_str())
                .unwrap_or_else(|| panic!("{name}: no socket {site}"));
            let p: Vec<f64> = socket["position"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            let d = ((p[0] - expected[0]).powi(2)
                + (p[1] - expected[1]).powi(2)
                + (p[2] - expected[2]).powi(2))
            .sqrt();
            assert!(d < 1e-5, "{name} {site}: {p:?} vs {expected:?}");
            assert!(socket["tags"]
                .as_array()
                .unwrap()
                .contains(&"hanim_site".into()));
        }
    }
}
