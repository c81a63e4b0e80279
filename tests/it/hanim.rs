//! H-Anim through the CLI: the mannequin written as X3D XML, ClassicVRML and VRML97 and read
//! back keeps every bone's rest and animated world position (1e-5 m), and its walk; every corpus
//! H-Anim file converts to a GLB (with its skin or segment shapes) the Khronos validator
//! accepts, and JoeKick retargets onto the mannequin.
//! (The readers and writers themselves are checked against X_ITE, Castle and hand-written
//! evaluation in `tests/library/hanim.rs`.)

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
fn every_corpus_h_anim_file_converts_to_a_valid_glb_and_vrm_and_joe_kick_retargets() {
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
        // VRM 1.0 wants a T-pose rest: --normalize rebases the H-Anim default pose on it. A
        // lone hand, or a figure with no arms, is no VRM humanoid: refused, naming the
        // missing bones.
        let vrm = glb.with_extension("vrm");
        let run = crate::util::humanoid(&["convert", s(&path), s(&vrm), "--normalize"]);
        if path.ends_with("HAnimModelHandLeft.x3d") || path.ends_with("KoreanCharacter01Jin.x3d") {
            assert_eq!(run.code, 1, "{}", run.stderr);
            assert!(
                run.stderr.contains("required bone(s) are not mapped: "),
                "{}",
                run.stderr
            );
            converted += 1;
            continue;
        }
        assert_eq!(run.code, 0, "{}: {}", path.display(), run.stderr);
        let (errors, _, messages) = khronos_validate(&vrm);
        assert_eq!(errors, 0, "{} as VRM: {messages:#?}", path.display());
        let (json, _) = crate::util::glb_parts(&vrm);
        assert!(
            json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["hips"].is_object(),
            "{}: a VRM 1.0 humanoid",
            path.display()
        );
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

/// A skinned glTF file as the test reads it with the `gltf` crate (independent of the
/// library): per drawn vertex (nodes in order, primitives in order) its position skinned at the
/// nodes' rest, `Σ w · W_j · IBM_j · v`, and its influences `(joint name, weight / Σ w)`; and
/// every skin joint's rest world position.
#[cfg(feature = "corpus")]
pub(crate) struct RestSkin {
    pub(crate) positions: Vec<glam::DVec3>,
    pub(crate) influences: Vec<Vec<(String, f64)>>,
    pub(crate) joints: std::collections::BTreeMap<String, glam::DVec3>,
}

#[cfg(feature = "corpus")]
pub(crate) fn rest_skin(path: &std::path::Path) -> RestSkin {
    use glam::{DMat4, DVec3};
    let gltf = gltf::Gltf::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let blob = gltf.blob.clone().expect("a GLB");
    let document = gltf.document;
    let buffers = [blob];
    let mut worlds = vec![DMat4::IDENTITY; document.nodes().len()];
    fn visit(node: gltf::Node, parent: DMat4, worlds: &mut [DMat4]) {
        let local = DMat4::from_cols_array_2d(&node.transform().matrix().map(|c| c.map(f64::from)));
        let world = parent * local;
        worlds[node.index()] = world;
        for child in node.children() {
            visit(child, world, worlds);
        }
    }
    for scene in document.scenes() {
        for node in scene.nodes() {
            visit(node, DMat4::IDENTITY, &mut worlds);
        }
    }
    let name = |i: usize| {
        document
            .nodes()
            .nth(i)
            .unwrap()
            .name()
            .unwrap_or("")
            .to_owned()
    };
    let mut out = RestSkin {
        positions: Vec::new(),
        influences: Vec::new(),
        joints: Default::default(),
    };
    for node in document.nodes() {
        let (Some(mesh), Some(skin)) = (node.mesh(), node.skin()) else {
            continue;
        };
        let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
        for j in &joints {
            out.joints.insert(name(*j), worlds[*j].w_axis.truncate());
        }
        let ibms: Vec<DMat4> = skin
            .reader(|b| Some(&buffers[b.index()]))
            .read_inverse_bind_matrices()
            .map(|m| {
                m.map(|m| DMat4::from_cols_array_2d(&m.map(|c| c.map(f64::from))))
                    .collect()
            })
            .unwrap_or_else(|| vec![DMat4::IDENTITY; joints.len()]);
        for primitive in mesh.primitives() {
            let reader = primitive.reader(|b| Some(&buffers[b.index()]));
            assert!(
                reader.read_joints(1).is_none(),
                "{}: JOINTS_1",
                path.display()
            );
            let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
            let js: Vec<[u16; 4]> = reader.read_joints(0).unwrap().into_u16().collect();
            let ws: Vec<[f32; 4]> = reader.read_weights(0).unwrap().into_f32().collect();
            for ((p, j), w) in positions.iter().zip(&js).zip(&ws) {
                let sum: f64 = w.iter().map(|x| f64::from(*x)).sum();
                let mut m = DMat4::ZERO;
                let mut list = Vec::new();
                for k in 0..4 {
                    if w[k] == 0.0 {
                        continue;
                    }
                    let weight = f64::from(w[k]) / sum;
                    let joint = usize::from(j[k]);
                    m += worlds[joints[joint]] * ibms[joint] * weight;
                    list.push((name(joints[joint]), weight));
                }
                list.sort_by(|a, b| a.0.cmp(&b.0));
                out.positions
                    .push(m.transform_point3(DVec3::from_array(p.map(f64::from))));
                out.influences.push(list);
            }
        }
    }
    out
}

/// glTF → H-Anim (each encoding) → glTF: every vertex keeps its rest position (1e-6 m) and its
/// set of (joint name, weight) (1e-6), every skin joint its name and rest world position
/// (1e-6 m); the GLB written back passes the Khronos validator. Expected values come from the
/// source file read with the `gltf` crate and skinned here.
#[cfg(feature = "corpus")]
#[test]
fn gltf_skins_survive_the_h_anim_round_trip() {
    use crate::util::{khronos_validate, shared};
    let dir = temp_dir();
    for name in ["CesiumMan.glb", "RiggedFigure.glb", "Soldier.glb"] {
        let source = shared().join("corpus/gltf").join(name);
        let original = rest_skin(&source);
        if name == "CesiumMan.glb" {
            assert_eq!(original.joints.len(), 19);
        }
        // The joints come back under their H-Anim names: those of the bones the rig maps.
        let bones = super::hanim_names::mapping(&source);
        for ext in ["x3d", "x3dv", "wrl"] {
            let renamed: std::collections::BTreeMap<&str, String> = bones
                .iter()
                .map(|(bone, joint)| (joint.as_str(), super::hanim_names::hanim_name(bone, ext)))
                .collect();
            let rename = |n: &str| renamed.get(n).cloned().unwrap_or_else(|| n.to_owned());
            let expected = RestSkin {
                positions: original.positions.clone(),
                influences: original
                    .influences
                    .iter()
                    .map(|list| {
                        let mut list: Vec<(String, f64)> =
                            list.iter().map(|(n, w)| (rename(n), *w)).collect();
                        list.sort_by(|a, b| a.0.cmp(&b.0));
                        list
                    })
                    .collect(),
                joints: original
                    .joints
                    .iter()
                    .map(|(n, p)| (rename(n), *p))
                    .collect(),
            };
            let hanim = dir.path().join(format!("{name}.{ext}"));
            humanoid_ok(&["convert", s(&source), s(&hanim)]);
            let back = dir.path().join(format!("{name}.{ext}.glb"));
            humanoid_ok(&["convert", s(&hanim), s(&back)]);
            let (errors, _, messages) = khronos_validate(&back);
            assert_eq!(errors, 0, "{name}.{ext}: {messages:#?}");
            let got = rest_skin(&back);
            let what = format!("{name} through {ext}");
            assert_eq!(got.positions.len(), expected.positions.len(), "{what}");
            let mut worst_p = 0.0f64;
            let mut worst_w = 0.0f64;
            for (v, (a, b)) in expected.influences.iter().zip(&got.influences).enumerate() {
                let names_a: Vec<&str> = a.iter().map(|x| x.0.as_str()).collect();
                let names_b: Vec<&str> = b.iter().map(|x| x.0.as_str()).collect();
                assert_eq!(names_a, names_b, "{what}: vertex {v}");
                for (x, y) in a.iter().zip(b) {
                    worst_w = worst_w.max((x.1 - y.1).abs());
                }
                worst_p = worst_p.max((expected.positions[v] - got.positions[v]).length());
            }
            let mut worst_j = 0.0f64;
            for (joint, p) in &expected.joints {
                let q = got
                    .joints
                    .get(joint)
                    .unwrap_or_else(|| panic!("{what}: joint {joint} lost"));
                worst_j = worst_j.max((*p - *q).length());
            }
            eprintln!(
                "{what}: {} vertices, max |Δp| {worst_p:.1e} m, max |Δw| {worst_w:.1e}, {} joints, max |Δjoint| {worst_j:.1e} m",
                got.positions.len(),
                expected.joints.len()
            );
            assert!(
                worst_p < 1e-6,
                "{what}: vertex positions differ by {worst_p} m"
            );
            assert!(worst_w < 1e-6, "{what}: weights differ by {worst_w}");
            assert!(worst_j < 1e-6, "{what}: joints differ by {worst_j} m");
        }
    }
}

/// Each joint's centre and skin influences in an X3D XML file, read with roxmltree, in file
/// order (the root first): vertex → weight (zero weights left out; `skinCoordWeight` entries
/// past `skinCoordIndex` ignored, as X_ITE does).
#[cfg(feature = "corpus")]
fn xml_skin_weights(text: &str) -> Vec<(glam::DVec3, std::collections::BTreeMap<u32, f64>)> {
    let xml = roxmltree::Document::parse_with_options(
        text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..roxmltree::ParsingOptions::default()
        },
    )
    .unwrap();
    let numbers = |v: Option<&str>| -> Vec<f64> {
        v.unwrap_or("")
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().unwrap())
            .collect()
    };
    let mut out = Vec::new();
    for joint in xml
        .descendants()
        .filter(|n| n.has_tag_name("HAnimJoint") && n.attribute("USE").is_none())
    {
        let c = numbers(joint.attribute("center"));
        let indices = numbers(joint.attribute("skinCoordIndex"));
        let weights = numbers(joint.attribute("skinCoordWeight"));
        let mut entry = std::collections::BTreeMap::new();
        for (i, w) in indices.iter().zip(&weights) {
            if *w != 0.0 {
                *entry.entry(*i as u32).or_default() += w;
            }
        }
        out.push((glam::DVec3::new(c[0], c[1], c[2]), entry));
    }
    out
}

/// H-Anim → glTF → H-Anim: JoeKick's per-joint `skinCoordIndex`/`skinCoordWeight` come back
/// equal (1e-6), both files read here with roxmltree. Joints are matched by their centres
/// (kept to 1e-6 m; JoeKick's names are dirty: an unnamed joint and a child named like its
/// parent, which the reader repairs). Joe leaves 39 skin vertices without any weight; a glTF
/// vertex must have one, so the reader gives them to the root (reported as
/// HANIM_SKIN_UNWEIGHTED): those come back on the root with weight 1 and are checked as such.
#[cfg(feature = "corpus")]
#[test]
fn h_anim_skin_weights_survive_the_gltf_round_trip() {
    use crate::util::{khronos_validate, shared};
    let dir = temp_dir();
    let source = shared().join("corpus/hanim/JoeKick.x3d");
    let glb = dir.path().join("joe.glb");
    let run = humanoid_ok(&["convert", s(&source), s(&glb)]);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains("HANIM_SKIN_UNWEIGHTED"), "{said}");
    let (errors, _, messages) = khronos_validate(&glb);
    assert_eq!(errors, 0, "{messages:#?}");
    let back = dir.path().join("joe.x3d");
    humanoid_ok(&["convert", s(&glb), s(&back)]);
    let mut expected = xml_skin_weights(&std::fs::read_to_string(&source).unwrap());
    let got = xml_skin_weights(&std::fs::read_to_string(&back).unwrap());
    let weighted: std::collections::BTreeSet<u32> = expected
        .iter()
        .flat_map(|(_, m)| m.keys().copied())
        .collect();
    let unweighted: Vec<u32> = (0..390).filter(|v| !weighted.contains(v)).collect();
    assert_eq!(unweighted.len(), 39);
    for v in unweighted {
        expected[0].1.insert(v, 1.0);
    }
    let mut worst = 0.0f64;
    let mut entries = 0;
    let mut joints = 0;
    for (center, weights) in expected.iter().filter(|(_, w)| !w.is_empty()) {
        let matches: Vec<_> = got
            .iter()
            .filter(|(c, _)| (*c - *center).length() < 1e-6)
            .collect();
        assert_eq!(matches.len(), 1, "the joint at {center}");
        let theirs = &matches[0].1;
        assert_eq!(
            weights.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "skinCoordIndex of the joint at {center}"
        );
        for (v, w) in weights {
            worst = worst.max((w - theirs[v]).abs());
            entries += 1;
        }
        joints += 1;
    }
    let written: usize = got.iter().filter(|(_, w)| !w.is_empty()).count();
    assert_eq!(written, joints, "joints with skin weights");
    eprintln!(
        "JoeKick -> GLB -> X3D: {joints} joints, {entries} skinCoordIndex entries, max |Δweight| {worst:.1e}"
    );
    assert!(worst < 1e-6, "{worst}");
}

/// The numbers of an X3D XML attribute (commas allowed between them).
#[cfg(feature = "corpus")]
fn xml_numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect()
}

/// JoeKick and JoeSkinTexcoordDisplacerKick to GLB: each HAnimDisplacer is a morph target of
/// the skin mesh named after it, whose deltas are its `displacements` on its `coordIndex`
/// points and zero elsewhere (1e-6), with its `weight` as the mesh's default weight; the
/// ScalarInterpolator ROUTEd to its `weight` is a `weights` channel on the mesh node whose
/// times are its keys × the TimeSensor's cycleInterval and whose values are its key values
/// (1e-6); the Khronos validator reports no error. Expected values are read from the X3D with
/// roxmltree (the humanoids have no transform of their own, checked, so the skin's
/// coordinates are the GLB's).
#[cfg(feature = "corpus")]
#[test]
fn h_anim_displacers_become_morph_targets_and_weight_channels() {
    use crate::util::{khronos_validate, shared};
    let dir = temp_dir();
    for file in ["JoeKick.x3d", "JoeSkinTexcoordDisplacerKick.x3d"] {
        let path = shared().join("corpus/hanim").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let options = roxmltree::ParsingOptions {
            allow_dtd: true,
            nodes_limit: u32::MAX,
        };
        let doc = roxmltree::Document::parse_with_options(&text, options).unwrap();
        let element = |tag: &str, def: &str| {
            doc.descendants()
                .find(|n| n.has_tag_name(tag) && n.attribute("DEF") == Some(def))
                .unwrap_or_else(|| panic!("{file}: no {tag} {def}"))
        };
        let humanoid = doc
            .descendants()
            .find(|n| n.has_tag_name("HAnimHumanoid"))
            .unwrap();
        for field in ["translation", "rotation", "scale", "center"] {
            assert!(humanoid.attribute(field).is_none(), "{file}: {field}");
        }
        let skin_use = humanoid
            .descendants()
            .find(|n| {
                n.has_tag_name("Coordinate") && n.attribute("containerField") == Some("skinCoord")
            })
            .unwrap();
        let skin_def = skin_use
            .attribute("USE")
            .or(skin_use.attribute("DEF"))
            .unwrap();
        let skin_points = xml_numbers(element("Coordinate", skin_def).attribute("point").unwrap());

        let glb = dir.path().join(format!("{file}.glb"));
        humanoid_ok(&["convert", s(&path), s(&glb)]);
        let (errors, _, messages) = khronos_validate(&glb);
        assert_eq!(errors, 0, "{file}: {messages:#?}");
        let gltf = gltf::Gltf::from_slice(&std::fs::read(&glb).unwrap()).unwrap();
        let buffers = [gltf.blob.clone().unwrap()];
        let document = gltf.document;
        let node = document
            .nodes()
            .find(|n| {
                n.mesh()
                    .is_some_and(|m| m.primitives().any(|p| p.morph_targets().len() > 0))
            })
            .unwrap_or_else(|| panic!("{file}: no mesh with morph targets"));
        let mesh = node.mesh().unwrap();
        let primitive = mesh.primitives().next().unwrap();
        let reader = primitive.reader(|b| Some(&buffers[b.index()]));
        let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
        // The skin mesh's vertices are the skin points, in order.
        assert_eq!(positions.len() * 3, skin_points.len(), "{file}");
        for (p, q) in positions.iter().zip(skin_points.chunks(3)) {
            for c in 0..3 {
                assert!(
                    (f64::from(p[c]) - q[c]).abs() < 1e-6,
                    "{file}: {p:?} vs {q:?}"
                );
            }
        }
        let targets: Vec<Vec<[f32; 3]>> = reader
            .read_morph_targets()
            .map(|(p, _, _)| p.unwrap().collect())
            .collect();
        let extras: serde_json::Value =
            serde_json::from_str(mesh.extras().as_ref().unwrap().get()).unwrap();
        let names: Vec<&str> = extras["targetNames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        let displacers: Vec<roxmltree::Node> = doc
            .descendants()
            .filter(|n| n.has_tag_name("HAnimDisplacer") && n.attribute("USE").is_none())
            .collect();
        assert!(!displacers.is_empty(), "{file}");
        assert_eq!(
            targets.len(),
            displacers.len(),
            "{file}: one target per displacer"
        );
        let defaults = mesh.weights().unwrap_or(&[]);
        for displacer in &displacers {
            let name = displacer.attribute("name").unwrap();
            let t = names
                .iter()
                .position(|n| *n == name)
                .unwrap_or_else(|| panic!("{file}: no target named {name:?} in {names:?}"));
            let mut expected = vec![[0.0f64; 3]; positions.len()];
            let indices = xml_numbers(displacer.attribute("coordIndex").unwrap());
            let moves = xml_numbers(displacer.attribute("displacements").unwrap());
            assert_eq!(moves.len(), indices.len() * 3, "{file}");
            for (i, d) in indices.iter().zip(moves.chunks(3)) {
                for c in 0..3 {
                    expected[*i as usize][c] += d[c];
                }
            }
            let mut worst = 0.0f64;
            for (got, want) in targets[t].iter().zip(&expected) {
                for c in 0..3 {
                    worst = worst.max((f64::from(got[c]) - want[c]).abs());
                }
            }
            assert!(worst < 1e-6, "{file} {name}: deltas off by {worst}");
            let weight = displacer
                .attribute("weight")
                .map_or(0.0, |w| xml_numbers(w)[0]);
            assert!(
                (f64::from(defaults[t]) - weight).abs() < 1e-6,
                "{file} {name}"
            );
            eprintln!("{file}: target {name:?} = its displacements (max |Δ| {worst:.1e})");

            // The weight animation.
            let def = displacer.attribute("DEF").unwrap();
            let route = |to_node: &str, fields: &[&str]| {
                doc.descendants().find(|n| {
                    n.has_tag_name("ROUTE")
                        && n.attribute("toNode") == Some(to_node)
                        && fields.contains(&n.attribute("toField").unwrap_or(""))
                })
            };
            let Some(weight_route) = route(def, &["weight", "set_weight"]) else {
                continue;
            };
            let interpolator = element(
                "ScalarInterpolator",
                weight_route.attribute("fromNode").unwrap(),
            );
            let keys = xml_numbers(interpolator.attribute("key").unwrap());
            let values = xml_numbers(interpolator.attribute("keyValue").unwrap());
            let timer_route =
                route(interpolator.attribute("DEF").unwrap(), &["set_fraction"]).unwrap();
            let timer = element("TimeSensor", timer_route.attribute("fromNode").unwrap());
            let cycle = xml_numbers(timer.attribute("cycleInterval").unwrap())[0];
            let channel = document
                .animations()
                .flat_map(|a| a.channels().collect::<Vec<_>>())
                .find(|c| {
                    c.target().node().index() == node.index()
                        && c.target().property() == gltf::animation::Property::MorphTargetWeights
                })
                .unwrap_or_else(|| panic!("{file}: no weights channel on the mesh node"));
            let reader = channel.reader(|b| Some(&buffers[b.index()]));
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            let weights: Vec<f32> = match reader.read_outputs().unwrap() {
                gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => w.into_f32().collect(),
                _ => panic!("{file}: not weights"),
            };
            assert_eq!(times.len(), keys.len(), "{file}");
            assert_eq!(weights.len(), keys.len() * targets.len(), "{file}");
            for (k, key) in keys.iter().enumerate() {
                assert!(
                    (f64::from(times[k]) - key * cycle).abs() < 1e-6,
                    "{file} key {k}"
                );
                let w = f64::from(weights[k * targets.len() + t]);
                assert!(
                    (w - values[k]).abs() < 1e-6,
                    "{file} key {k}: {w} vs {}",
                    values[k]
                );
            }
            eprintln!(
                "{file}: {name:?} weight channel = {} keys of {}",
                keys.len(),
                interpolator.attribute("DEF").unwrap()
            );
        }
    }
}

/// A GLB's morph targets at the rest, as this test computes them with the `gltf` crate: per
/// target (mesh name, target name, default weight), every vertex it moves as (rest position,
/// delta carried to the rest): `M_v · p` and `linear(M_v) · δ`, with `M_v` the vertex's blended
/// skinning matrix (`Σ w · W_j · IBM_j`) or its node's world matrix.
#[cfg(feature = "corpus")]
type RestTarget = (String, f32, Vec<(glam::DVec3, glam::DVec3)>);

#[cfg(feature = "corpus")]
fn rest_targets(path: &std::path::Path) -> Vec<RestTarget> {
    use glam::{DMat3, DMat4, DVec3};
    let gltf = gltf::Gltf::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let buffers = [gltf.blob.clone().expect("a GLB")];
    let document = gltf.document;
    let mut worlds = vec![DMat4::IDENTITY; document.nodes().len()];
    fn visit(node: gltf::Node, parent: DMat4, worlds: &mut [DMat4]) {
        let local = DMat4::from_cols_array_2d(&node.transform().matrix().map(|c| c.map(f64::from)));
        worlds[node.index()] = parent * local;
        for child in node.children() {
            visit(child, parent * local, worlds);
        }
    }
    for scene in document.scenes() {
        for node in scene.nodes() {
            visit(node, DMat4::IDENTITY, &mut worlds);
        }
    }
    let mut out = Vec::new();
    for node in document.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        let names: Vec<String> = mesh
            .extras()
            .as_ref()
            .and_then(|e| serde_json::from_str::<serde_json::Value>(e.get()).ok())
            .and_then(|e| e["targetNames"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .map(|n| n.as_str().unwrap_or("").to_owned())
            .collect();
        let defaults = node.weights().or(mesh.weights()).unwrap_or(&[]).to_vec();
        let skin_matrices: Option<Vec<DMat4>> = node.skin().map(|skin| {
            let ibms: Vec<DMat4> = skin
                .reader(|b| Some(&buffers[b.index()]))
                .read_inverse_bind_matrices()
                .unwrap()
                .map(|m| DMat4::from_cols_array_2d(&m.map(|c| c.map(f64::from))))
                .collect();
            skin.joints()
                .zip(ibms)
                .map(|(j, ibm)| worlds[j.index()] * ibm)
                .collect()
        });
        for primitive in mesh.primitives() {
            let reader = primitive.reader(|b| Some(&buffers[b.index()]));
            let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
            let matrices: Vec<DMat4> = match &skin_matrices {
                Some(joints) => {
                    let js: Vec<[u16; 4]> = reader.read_joints(0).unwrap().into_u16().collect();
                    let ws: Vec<[f32; 4]> = reader.read_weights(0).unwrap().into_f32().collect();
                    js.iter()
                        .zip(&ws)
                        .map(|(j, w)| {
                            let sum: f64 = w.iter().map(|x| f64::from(*x)).sum();
                            (0..4).fold(DMat4::ZERO, |m, k| {
                                m + joints[usize::from(j[k])] * (f64::from(w[k]) / sum)
                            })
                        })
                        .collect()
                }
                None => vec![worlds[node.index()]; positions.len()],
            };
            for (t, (deltas, _, _)) in reader.read_morph_targets().enumerate() {
                let mut moved = Vec::new();
                for (v, d) in deltas.unwrap().enumerate() {
                    let d = DVec3::from_array(d.map(f64::from));
                    if d == DVec3::ZERO {
                        continue;
                    }
                    let m = matrices[v];
                    let p = DVec3::from_array(positions[v].map(f64::from));
                    moved.push((m.transform_point3(p), DMat3::from_mat4(m) * d));
                }
                moved.sort_by(|a, b| {
                    a.0.to_array()
                        .partial_cmp(&b.0.to_array())
                        .unwrap()
                        .then(a.1.to_array().partial_cmp(&b.1.to_array()).unwrap())
                });
                let name = names.get(t).cloned().unwrap_or_default();
                out.push((name, defaults.get(t).copied().unwrap_or(0.0), moved));
            }
        }
    }
    out
}

/// glTF → H-Anim (X3D XML, ClassicVRML, VRML97) → glTF keeps every morph target: RobotExpressive
/// (its Head node's three primitives with Angry/Surprised/Sad each; default weights set here to
/// 0.25/0.5/0.75) comes back with a target of that name (the mesh name prefixed where names
/// repeat) moving the same vertices (rest positions within 1e-5 m) by the same deltas (1e-6 m),
/// with the same default weight; each `weights` channel's keys come back with the same times
/// and values; the written files load in X_ITE (as many skin points as the GLB has vertices in
/// skin meshes) and Castle (the X3D encodings keep the nine HAnimDisplacers); the GLB passes
/// the Khronos validator. Expected values are computed from the source file with the `gltf`
/// crate (`rest_targets`).
#[cfg(feature = "corpus")]
#[test]
fn gltf_morph_targets_survive_the_h_anim_round_trip() {
    use crate::util::{glb, glb_parts, khronos_validate, shared};
    let dir = temp_dir();
    let (mut json, bin) = glb_parts(&shared().join("corpus/gltf/RobotExpressive.glb"));
    let head = json["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|m| m["name"] == "Head")
        .unwrap();
    json["meshes"][head]["weights"] = serde_json::json!([0.25, 0.5, 0.75]);
    let source = dir.path().join("robot.glb");
    std::fs::write(&source, glb(&json, &bin)).unwrap();
    let expected = rest_targets(&source);
    assert_eq!(expected.len(), 9);
    // The source's weights channels: animation name → (times, values).
    let source_channels = weight_channels(&source);
    assert!(!source_channels.is_empty());
    for ext in ["x3d", "x3dv", "wrl"] {
        let hanim = dir.path().join(format!("robot.{ext}"));
        humanoid_ok(&["convert", s(&source), s(&hanim)]);
        let back = dir.path().join(format!("robot_{ext}.glb"));
        humanoid_ok(&["convert", s(&hanim), s(&back)]);
        let (errors, _, messages) = khronos_validate(&back);
        assert_eq!(errors, 0, "{ext}: {messages:#?}");
        let got = rest_targets(&back);
        assert_eq!(got.len(), expected.len(), "{ext}");
        let mut worst = 0.0f64;
        let mut matched = Vec::new();
        for (name, weight, moved) in &expected {
            // (Targets that move nothing, or the same vertices alike, are interchangeable:
            // the first one not matched yet is taken.)
            let found = got.iter().enumerate().position(|(i, (n, w, m))| {
                !matched.contains(&i)
                    && (n == name || n.ends_with(&format!("_{name}")))
                    && (w - weight).abs() < 1e-6
                    && m.len() == moved.len()
                    && m.iter()
                        .zip(moved)
                        .all(|(a, b)| a.0.abs_diff_eq(b.0, 1e-5) && a.1.abs_diff_eq(b.1, 1e-6))
            });
            let Some(found) = found else {
                panic!(
                    "{ext}: no target like {name:?} (weight {weight}, {} vertices)",
                    moved.len()
                );
            };
            matched.push(found);
            for (a, b) in got[found].2.iter().zip(moved) {
                worst = worst.max((a.1 - b.1).length());
            }
        }
        eprintln!("robot.{ext}: 9 targets kept, max |Δdelta| {worst:.1e} m");
        // Weight channels: the same times and, target by target, the same values.
        let back_channels = weight_channels(&back);
        for (animation, (times, values)) in &source_channels {
            let (back_times, back_values) = back_channels
                .iter()
                .find(|(a, _)| a == animation)
                .map(|(_, c)| c)
                .unwrap_or_else(|| panic!("{ext}: no weights channel in {animation:?}"));
            assert_eq!(back_times.len(), times.len(), "{ext} {animation}");
            for (a, b) in back_times.iter().zip(times) {
                assert!((a - b).abs() < 1e-5, "{ext} {animation}: {a} vs {b}");
            }
            let n_source = values.len() / times.len();
            let n_back = back_values.len() / back_times.len();
            for (t, found) in matched.iter().enumerate().take(n_source) {
                for k in 0..times.len() {
                    let (a, b) = (back_values[k * n_back + found], values[k * n_source + t]);
                    assert!((a - b).abs() < 1e-6, "{ext} {animation} target {t} key {k}");
                }
            }
        }
        peers_load(&hanim, &back, ext);
    }
}

/// The `weights` channels of a GLB's animations: (animation name, (times, values)); the
/// source's Head node has one per animation.
#[cfg(feature = "corpus")]
type WeightChannel = (String, (Vec<f32>, Vec<f32>));

#[cfg(feature = "corpus")]
fn weight_channels(path: &std::path::Path) -> Vec<WeightChannel> {
    let gltf = gltf::Gltf::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let buffers = [gltf.blob.clone().unwrap()];
    let mut out = Vec::new();
    for animation in gltf.document.animations() {
        for channel in animation.channels() {
            if channel.target().property() != gltf::animation::Property::MorphTargetWeights {
                continue;
            }
            assert_eq!(
                channel.sampler().interpolation(),
                gltf::animation::Interpolation::Linear
            );
            let reader = channel.reader(|b| Some(&buffers[b.index()]));
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            let values: Vec<f32> = match reader.read_outputs().unwrap() {
                gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => w.into_f32().collect(),
                _ => unreachable!(),
            };
            out.push((animation.name().unwrap_or("").to_owned(), (times, values)));
        }
    }
    out
}

/// The written H-Anim file loads in X_ITE (its skin has as many points as the GLB read back
/// has skin vertices) and Castle (the X3D encodings keep their nine HAnimDisplacers), when
/// they are installed (HUMANOID_XITE, HUMANOID_TOVRMLX3D).
#[cfg(feature = "corpus")]
fn peers_load(hanim: &std::path::Path, back: &std::path::Path, ext: &str) {
    match std::env::var_os("HUMANOID_XITE") {
        None => eprintln!("note: HUMANOID_XITE is not set: X_ITE check skipped"),
        Some(script) => {
            let script = std::path::PathBuf::from(script);
            let dir = script.parent().unwrap();
            let output = std::process::Command::new("node")
                .current_dir(dir)
                .args(["-r", "./f16-polyfill.js"])
                .arg(&script)
                .arg(hanim)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&output.stdout);
            assert!(output.status.success(), "X_ITE on robot.{ext}: {text}");
            let points: usize = text
                .split("skinCoordPoints=")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("X_ITE on robot.{ext}: {text}"));
            let gltf = gltf::Gltf::from_slice(&std::fs::read(back).unwrap()).unwrap();
            let skin_vertices: usize = gltf
                .document
                .meshes()
                // One mesh per skin Shape: `<name>_skin`, `<name>_skin_1`, ...
                .filter(|m| m.name().is_some_and(|n| n.contains("_skin")))
                .flat_map(|m| m.primitives().collect::<Vec<_>>())
                .map(|p| p.get(&gltf::Semantic::Positions).unwrap().count())
                .sum();
            assert_eq!(points, skin_vertices, "X_ITE on robot.{ext}");
        }
    }
    match std::env::var_os("HUMANOID_TOVRMLX3D") {
        None => eprintln!("note: HUMANOID_TOVRMLX3D is not set: Castle check skipped"),
        Some(tool) => {
            let output = std::process::Command::new(tool)
                .arg(hanim)
                .arg("--encoding=xml")
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                output.status.success() && !stderr.contains("skip the rest"),
                "Castle on robot.{ext}: {stderr}"
            );
            if ext != "wrl" {
                let text = String::from_utf8_lossy(&output.stdout);
                assert_eq!(
                    text.matches("<HAnimDisplacer").count(),
                    9,
                    "Castle on robot.{ext}"
                );
            }
        }
    }
}
