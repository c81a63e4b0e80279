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
