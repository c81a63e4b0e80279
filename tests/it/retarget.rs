//! Retargeting against three-vrm (feature `corpus`): `test.vrma` and `nop.vrma` on every model
//! the oracle has expected output for, where three-vrm's semantics hold (no animated
//! non-humanoid intermediates in those files).

#[cfg(feature = "corpus")]
mod oracle {
    use serde_json::Value;

    use crate::util::{humanoid_ok, s, shared};

    fn oracle(name: &str) -> Value {
        let path = shared().join("oracle/three-vrm").join(name);
        serde_json::from_slice(
            &std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        )
        .unwrap()
    }

    fn floats(v: &Value) -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    }

    /// `pose MODEL --anim ANIM --times (the oracle's)` equals the oracle for every bone and
    /// sample: positions to `tolerance(t)`, rotations to 1 − |q·q'| < 1e-6, gaze to 1e-4° and
    /// expression weights to 1e-6.
    fn agrees(model: &str, anim: &str, tolerance: impl Fn(f64) -> f64) {
        let expected = oracle(&format!("expected_anim_{model}__{anim}.json"));
        let times: Vec<String> = expected["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["t"].to_string())
            .collect();
        let model_path = shared().join("corpus/vrm").join(format!("{model}.vrm"));
        let anim_path = shared().join("corpus/vrma").join(format!("{anim}.vrma"));
        let times = times.join(",");
        let ours: Value = serde_json::from_str(
            &humanoid_ok(&[
                "pose",
                "--json",
                "--anim",
                s(&anim_path),
                "--times",
                &times,
                s(&model_path),
            ])
            .stdout,
        )
        .unwrap();
        let (ours, theirs) = (
            ours["samples"].as_array().unwrap(),
            expected["samples"].as_array().unwrap(),
        );
        assert_eq!(ours.len(), theirs.len());
        let mut checked = 0;
        for (o, e) in ours.iter().zip(theirs) {
            let t = e["t"].as_f64().unwrap();
            assert_eq!(
                o["tClamped"].as_f64().unwrap() as f32,
                e["tClamped"].as_f64().unwrap() as f32
            );
            for (bone, b) in e["bones"].as_object().unwrap() {
                let ob = &o["bones"][bone];
                assert!(ob.is_object(), "{model}×{anim}: {bone} missing");
                let (p, pe) = (floats(&ob["p"]), floats(&b["p"]));
                let dp = p
                    .iter()
                    .zip(&pe)
                    .map(|(a, b)| (a - b).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!(
                    dp <= tolerance(t),
                    "{model}×{anim} {bone} at {t}: {p:?} vs {pe:?} ({dp:e} m)"
                );
                let dot: f64 = floats(&ob["q"])
                    .iter()
                    .zip(floats(&b["q"]))
                    .map(|(a, b)| a * b)
                    .sum();
                assert!(
                    1.0 - dot.abs() < 1e-6,
                    "{model}×{anim} {bone} at {t}: rotation 1-|q.q'| = {:e}",
                    1.0 - dot.abs()
                );
                checked += 1;
            }
            if let Some(look) = e.get("lookAt") {
                for k in ["yaw", "pitch"] {
                    let (a, b) = (o["lookAt"][k].as_f64().unwrap(), look[k].as_f64().unwrap());
                    assert!(
                        (a - b).abs() < 1e-4,
                        "{model}×{anim} {k} at {t}: {a} vs {b}"
                    );
                }
            }
            if let Some(weights) = e.get("expressions").and_then(Value::as_object) {
                for (name, w) in weights {
                    let ours = o["expressions"][name].as_f64().unwrap_or(f64::NAN);
                    assert!(
                        (ours - w.as_f64().unwrap()).abs() < 1e-6,
                        "{model}×{anim} {name} at {t}: {ours} vs {w}"
                    );
                }
            }
        }
        assert!(checked >= 17, "{checked} bone samples compared");
    }

    /// test.vrma's key at t = 0.5 is not a unit quaternion (|q| = 1 − 1.4e-5): three.js builds
    /// its matrices from it as it is, which scales the right arm by |q|², we normalise it. The
    /// fingertips, 0.9 m down the chain, differ by up to 1.9e-5 m at that sample only.
    fn test_vrma_tolerance(t: f64) -> f64 {
        if (t - 0.5).abs() < 1e-9 {
            2e-5
        } else {
            1e-5
        }
    }

    #[test]
    fn test_vrma_on_debug_robot_eyes_included() {
        agrees("debug_robot", "test", test_vrma_tolerance);
    }

    #[test]
    fn test_vrma_on_a_vrm0_model() {
        agrees("EmissionMigration_v0.106.0", "test", test_vrma_tolerance);
    }

    #[test]
    fn nop_vrma_on_vrm1_and_vrm0_models() {
        agrees("VRMC_vrm_expressions_isBinary_Overrides", "nop", |_| 1e-5);
        agrees("minimal", "nop", |_| 1e-5);
    }
}

#[cfg(feature = "corpus")]
mod command {
    use serde_json::Value;

    use crate::util::{humanoid_ok, khronos_validate, s, shared, temp_dir, three_vrm};

    #[test]
    fn retarget_writes_the_model_with_the_clip_and_it_plays_as_the_oracle_says() {
        let dir = temp_dir();
        let model = shared().join("corpus/vrm/debug_robot.vrm");
        let anim = shared().join("corpus/vrma/test.vrma");
        let out = dir.path().join("robot_test.vrm");
        // The world-delta copy, which is what three-vrm plays (contacts move the legs).
        humanoid_ok(&[
            "retarget",
            s(&anim),
            "--onto",
            s(&model),
            "-o",
            s(&out),
            "--contacts",
            "off",
        ]);
        three_vrm(&["--vrm", s(&out), "--rest"]).unwrap_or_else(|e| panic!("three-vrm: {e}"));
        let (errors_in, _, _) = khronos_validate(&model);
        let (errors_out, _, messages) = khronos_validate(&out);
        assert!(errors_out <= errors_in, "{messages:#?}");
        // The baked clip, played on the model by itself, is the oracle's retarget of test.vrma.
        let expected: Value = serde_json::from_slice(
            &std::fs::read(shared().join("oracle/three-vrm/expected_anim_debug_robot__test.json"))
                .unwrap(),
        )
        .unwrap();
        let times: Vec<String> = expected["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["t"].to_string())
            .collect();
        let ours: Value = serde_json::from_str(
            &humanoid_ok(&["pose", "--json", "--times", &times.join(","), s(&out)]).stdout,
        )
        .unwrap();
        for (o, e) in ours["samples"]
            .as_array()
            .unwrap()
            .iter()
            .zip(expected["samples"].as_array().unwrap())
        {
            for (bone, b) in e["bones"].as_object().unwrap() {
                let f = |v: &Value| -> Vec<f64> {
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap())
                        .collect()
                };
                let (p, pe) = (f(&o["bones"][bone]["p"]), f(&b["p"]));
                let dp = p
                    .iter()
                    .zip(&pe)
                    .map(|(a, b)| (a - b).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!(dp <= 2e-5, "{bone} at {}: {dp:e} m", e["t"]);
                let dot: f64 = f(&o["bones"][bone]["q"])
                    .iter()
                    .zip(f(&b["q"]))
                    .map(|(a, b)| a * b)
                    .sum();
                assert!(1.0 - dot.abs() < 1e-6, "{bone} at {}", e["t"]);
            }
        }
    }
}

#[cfg(feature = "corpus")]
mod cross_rig {
    use glam::{DMat4, DQuat, DVec3};
    use humanoid::model::clip::{Clip, Property, TrackTarget};
    use humanoid::model::HumanBone;
    use humanoid::Asset;

    use crate::util::{humanoid_ok, s, shared, temp_dir};

    /// World matrices of every joint at `t`, in f64, composed here (tracks sampled by the
    /// library's glTF sampler, which is tested against an independent one elsewhere).
    fn fk(asset: &Asset, clip: &Clip, t: f32) -> Vec<DMat4> {
        let skeleton = &asset.skeleton;
        let mut out: Vec<DMat4> = Vec::with_capacity(skeleton.len());
        for joint in skeleton.joints() {
            let rest = skeleton.rest_local(joint);
            let mut translation = rest.translation.as_dvec3();
            let mut rotation = rest.rotation.as_dquat();
            if let Some(track) = clip.track(TrackTarget::Joint(joint), Property::Rotation) {
                rotation = track.sample_quat(t).unwrap().as_dquat().normalize();
            }
            if let Some(track) = clip.track(TrackTarget::Joint(joint), Property::Translation) {
                translation = track.sample_vec3(t).unwrap().as_dvec3();
            }
            let local = DMat4::from_scale_rotation_translation(
                rest.scale.as_dvec3(),
                rotation,
                translation,
            );
            let parent = skeleton
                .parent(joint)
                .map_or(DMat4::IDENTITY, |p| out[p.index()]);
            out.push(parent * local);
        }
        out
    }

    fn position(worlds: &[DMat4], asset: &Asset, bone: HumanBone) -> Option<DVec3> {
        let joint = asset.humanoids[0].bones.get(bone)?;
        Some(worlds[joint.index()].w_axis.truncate())
    }

    /// The bone and the bone its direction points to (parent joint → child joint).
    const SEGMENTS: [(HumanBone, HumanBone); 12] = [
        (HumanBone::LeftUpperArm, HumanBone::LeftLowerArm),
        (HumanBone::LeftLowerArm, HumanBone::LeftHand),
        (HumanBone::RightUpperArm, HumanBone::RightLowerArm),
        (HumanBone::RightLowerArm, HumanBone::RightHand),
        (HumanBone::LeftUpperLeg, HumanBone::LeftLowerLeg),
        (HumanBone::LeftLowerLeg, HumanBone::LeftFoot),
        (HumanBone::RightUpperLeg, HumanBone::RightLowerLeg),
        (HumanBone::RightLowerLeg, HumanBone::RightFoot),
        (HumanBone::LeftFoot, HumanBone::LeftToes),
        (HumanBone::Neck, HumanBone::Head),
        (HumanBone::LeftShoulder, HumanBone::LeftUpperArm),
        (HumanBone::RightShoulder, HumanBone::RightUpperArm),
    ];

    /// The turn from an asset's space to canonical space (+Z facing, left = +X): VRM 0.x faces
    /// −Z; a mapped rig faces wherever its legs and arms say (Soldier faces along X), measured
    /// here from the rest positions of its left and right upper legs and arms.
    fn facing(asset: &Asset) -> DQuat {
        let humanoid = &asset.humanoids[0];
        if humanoid.declared_t_pose {
            return match asset.facing {
                humanoid::asset::Facing::PlusZ => DQuat::IDENTITY,
                humanoid::asset::Facing::MinusZ => DQuat::from_xyzw(0.0, 1.0, 0.0, 0.0),
            };
        }
        let rest = |bone| {
            humanoid
                .bones
                .get(bone)
                .map(|j| asset.skeleton.rest_world(j).translation.as_dvec3())
        };
        let mut left = DVec3::ZERO;
        for (l, r) in [
            (HumanBone::LeftUpperLeg, HumanBone::RightUpperLeg),
            (HumanBone::LeftUpperArm, HumanBone::RightUpperArm),
        ] {
            if let (Some(a), Some(b)) = (rest(l), rest(r)) {
                left += DVec3::new(a.x - b.x, 0.0, a.z - b.z).normalize();
            }
        }
        // The turn about +Y taking the rig's left to +X (the canonical left).
        DQuat::from_rotation_y(-(-left.z).atan2(left.x))
    }

    /// Retargets `source`'s clip onto `model`, then checks: every limb segment the two share
    /// keeps, through the clip, the angle to the source's segment it has at rest (the motion is
    /// the same rotation applied to both: the world deltas agree), within 0.01°; and at the
    /// source's foot-plant frames the model's foot stays within 3 cm of its rest height.
    fn cross(
        source_file: &str,
        clip: Option<&str>,
        model_file: std::path::PathBuf,
        out_name: &str,
        plant_tolerance: f64,
    ) {
        let dir = temp_dir();
        let source_path = shared().join("corpus").join(source_file);
        let out = dir.path().join(out_name);
        // The exact world-delta copy: contacts move the legs (tests/it/contacts.rs).
        let mut args = vec![
            "retarget",
            s(&source_path),
            "--onto",
            s(&model_file),
            "-o",
            s(&out),
            "--contacts",
            "off",
        ];
        if let Some(clip) = clip {
            args.extend(["--clip", clip]);
        }
        humanoid_ok(&args);
        let mut source = humanoid::read_asset(&source_path).unwrap().asset;
        humanoid::mapping::RigMapping::detect()
            .unwrap()
            .attach(&mut source, &source_path)
            .unwrap();
        let source_clip = match clip {
            Some(name) => source.clips.iter().find(|c| c.name == name).unwrap(),
            None => &source.clips[0],
        };
        let target = humanoid::read_asset(&out).unwrap().asset;
        let target_clip = target.clips.last().unwrap();
        let (sf, tf) = (facing(&source), facing(&target));
        // At the source's keys (between keys the two clips interpolate different quantities).
        let mut times: Vec<f32> = source_clip
            .tracks()
            .iter()
            .flat_map(|t| t.times().iter().copied())
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        let step = (times.len() / 60).max(1);
        let mut first: Vec<Option<f64>> = vec![None; SEGMENTS.len()];
        let mut worst = 0.0f64;
        for &t in times.iter().step_by(step) {
            let (sw, tw) = (fk(&source, source_clip, t), fk(&target, target_clip, t));
            for (k, (a, b)) in SEGMENTS.iter().enumerate() {
                // Only segments that are one bone in both rigs (a joint and its direct child): an
                // unmapped joint in between (CMU's Neck between lowerneck and Head) bends the
                // segment with motion of its own.
                let direct = |asset: &Asset| {
                    let bones = &asset.humanoids[0].bones;
                    match (bones.get(*a), bones.get(*b)) {
                        (Some(ja), Some(jb)) => asset.skeleton.parent(jb) == Some(ja),
                        _ => false,
                    }
                };
                if !direct(&source) || !direct(&target) {
                    continue;
                }
                let (Some(sa), Some(sb), Some(ta), Some(tb)) = (
                    position(&sw, &source, *a),
                    position(&sw, &source, *b),
                    position(&tw, &target, *a),
                    position(&tw, &target, *b),
                ) else {
                    continue;
                };
                let (ds, dt) = (sf * (sb - sa), tf * (tb - ta));
                if ds.length() < 1e-4 || dt.length() < 1e-4 {
                    continue;
                }
                let angle = ds.angle_between(dt).to_degrees();
                match first[k] {
                    None => first[k] = Some(angle),
                    Some(a0) => worst = worst.max((angle - a0).abs()),
                }
            }
        }
        assert!(
            worst < 0.01,
            "{source_file} on {out_name}: segment angles drift by {worst}°"
        );
        // Foot plants: frames where the source foot is within 2 cm of its lowest height and
        // moves slower than 0.3 m/s horizontally; there the model's foot is within 3 cm of its
        // rest height. The source is measured at the model's size (its positions times the
        // hips-height ratio): Soldier.glb is 0.18 m tall, where 2 cm is a tenth of a leg.
        let target_rest = fk(&target, &Clip::new("rest"), 0.0);
        let source_rest = fk(&source, &Clip::new("rest"), 0.0);
        let hips_height = |worlds: &[DMat4], asset: &Asset| {
            let lowest = worlds
                .iter()
                .map(|w| w.w_axis.y)
                .fold(f64::INFINITY, f64::min);
            let y = position(worlds, asset, HumanBone::Hips).unwrap().y;
            if y > 1e-6 {
                y
            } else {
                y - lowest
            }
        };
        let scale = hips_height(&target_rest, &target) / hips_height(&source_rest, &source);
        let mut plants = 0;
        let mut worst_plant = 0.0f64;
        for foot in [HumanBone::LeftFoot, HumanBone::RightFoot] {
            let heights: Vec<(f32, DVec3)> = times
                .iter()
                .filter_map(|&t| {
                    Some((
                        t,
                        position(&fk(&source, source_clip, t), &source, foot)? * scale,
                    ))
                })
                .collect();
            let lowest = heights
                .iter()
                .map(|(_, p)| p.y)
                .fold(f64::INFINITY, f64::min);
            let rest_height = position(&target_rest, &target, foot).unwrap().y;
            for pair in heights.windows(2) {
                let ((t0, p0), (t1, p1)) = (pair[0], pair[1]);
                let dt = f64::from(t1 - t0);
                let speed = DVec3::new(p1.x - p0.x, 0.0, p1.z - p0.z).length() / dt;
                if p1.y - lowest > 0.02 || speed > 0.3 {
                    continue;
                }
                let tw = fk(&target, target_clip, t1);
                let y = position(&tw, &target, foot).unwrap().y;
                worst_plant = worst_plant.max((y - rest_height).abs());
                plants += 1;
            }
        }
        eprintln!("{source_file} on {out_name}: {plants} foot-plant frames, worst {worst_plant:.3} m from the rest height");
        assert!(plants > 0, "{source_file}: no foot plant found");
        assert!(
            worst_plant <= plant_tolerance,
            "{source_file} on {out_name}: planted foot {worst_plant} m off its rest height"
        );
        assert!(
            first.iter().flatten().count() >= 8,
            "{source_file} on {out_name}: segments compared"
        );
        eprintln!("{source_file} on {out_name}: max drift {worst:.2e}°");
    }

    /// Planted feet within 3 cm of the rest height, as the issue asks. Measured with the hips'
    /// vertical foot-contact offset (`pose::ground`): Soldier → mannequin 0.0 cm, CMU → mannequin
    /// 1.7 cm, Soldier → Godette 0.0 cm, CMU → Godette 1.9 cm (without it: 2.1, 3.3, 4.0 and
    /// 6.1 cm). What remains is double support (one hips offset for two feet) and plant frames
    /// this test's detection (at the hips-height scale) finds but the retargeter's (at the
    /// leg-length scale) does not. Soldier's Walk is an in-place clip: its stance feet slide
    /// back faster than 0.3 m/s, so only one frame counts as a plant.
    #[test]
    fn soldier_walk_and_cmu_bvh_on_the_mannequin_and_godette() {
        let mannequin =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/mannequin.glb");
        let godette = shared().join("corpus/vrm/Godette_vrm_v4.vrm");
        cross(
            "gltf/Soldier.glb",
            Some("Walk"),
            mannequin.clone(),
            "soldier_mannequin.glb",
            0.03,
        );
        cross(
            "bvh/cmu_131_01_3dsmax.bvh",
            None,
            mannequin,
            "cmu_mannequin.glb",
            0.03,
        );
        cross(
            "gltf/Soldier.glb",
            Some("Walk"),
            godette.clone(),
            "soldier_godette.vrm",
            0.03,
        );
        cross(
            "bvh/cmu_131_01_3dsmax.bvh",
            None,
            godette,
            "cmu_godette.vrm",
            0.03,
        );
    }
}

/// `retarget … -o out.bvh` writes the model's skeleton (no mesh nodes) with the same motion
/// as `-o out.glb`: every joint both have is at the same world position (1e-4 m: the BVH keeps
/// six decimals of centimetres and degrees) at every 10th frame.
#[cfg(feature = "corpus")]
mod to_bvh {
    use std::collections::HashMap;

    use humanoid::pose::fk::Sampler;

    use crate::util::{humanoid_ok, s, shared, temp_dir};

    #[test]
    fn soldier_walk_on_the_mannequin_as_bvh_moves_like_the_glb() {
        let dir = temp_dir();
        let mannequin =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/mannequin.glb");
        let anim = shared().join("corpus/gltf/Soldier.glb");
        let glb = dir.path().join("walk.glb");
        let bvh = dir.path().join("walk.bvh");
        for out in [&glb, &bvh] {
            humanoid_ok(&[
                "retarget",
                s(&anim),
                "--clip",
                "Walk",
                "--onto",
                s(&mannequin),
                "-o",
                s(out),
            ]);
        }
        let glb = humanoid::read_asset(&glb).unwrap().asset;
        let bvh = humanoid::read_asset(&bvh).unwrap().asset;
        let clip_glb = glb
            .clips
            .iter()
            .find(|c| c.name.contains("Walk"))
            .unwrap_or(&glb.clips[0]);
        let clip_bvh = &bvh.clips[0];
        let by_name: HashMap<&str, _> = glb
            .skeleton
            .joints()
            .map(|j| (glb.skeleton.name(j), j))
            .collect();
        // Every BVH joint is a joint of the GLB or the End Site of one (`<joint>_End`).
        let named = bvh
            .skeleton
            .names()
            .iter()
            .filter(|n| by_name.contains_key(n.as_str()))
            .count();
        assert!(bvh
            .skeleton
            .names()
            .iter()
            .all(|n| by_name.contains_key(n.as_str())
                || n.strip_suffix("_End")
                    .is_some_and(|p| by_name.contains_key(p))));
        assert!(
            named < glb.skeleton.len(),
            "the mesh node is left out: {named} vs {}",
            glb.skeleton.len()
        );
        let (mut a, mut b) = (
            Sampler::new(&glb.skeleton, clip_glb),
            Sampler::new(&bvh.skeleton, clip_bvh),
        );
        let duration = clip_glb.duration();
        let mut compared = 0;
        for step in 0..=10 {
            let t = duration * step as f32 / 10.0;
            a.evaluate(t);
            b.evaluate(t);
            for joint in bvh.skeleton.joints() {
                let Some(&theirs) = by_name.get(bvh.skeleton.name(joint)) else {
                    continue;
                };
                let d = a.world_position(theirs).distance(b.world_position(joint));
                assert!(
                    d < 1e-4,
                    "{} at {t}: {d:e} m apart",
                    bvh.skeleton.name(joint)
                );
                compared += 1;
            }
        }
        assert!(compared >= 11 * 40, "{compared} joint samples compared");
    }
}

#[cfg(feature = "corpus")]
mod beyond_three_vrm {
    use glam::{DMat4, DQuat};
    use humanoid::model::clip::{Property, TrackTarget};
    use humanoid::model::HumanBone;
    use serde_json::Value;

    use crate::util::{humanoid_ok, s, shared};

    /// Quaternions of every joint's world rotation at `t`, by forward kinematics written here
    /// (every node, the animated non-humanoid intermediates included).
    fn world_rotations(
        asset: &humanoid::Asset,
        clip: &humanoid::model::Clip,
        t: f32,
    ) -> Vec<DQuat> {
        let skeleton = &asset.skeleton;
        let mut out: Vec<DMat4> = Vec::with_capacity(skeleton.len());
        for joint in skeleton.joints() {
            let rest = skeleton.rest_local(joint);
            let rotation = clip
                .track(TrackTarget::Joint(joint), Property::Rotation)
                .map_or(rest.rotation.as_dquat(), |t2| {
                    t2.sample_quat(t).unwrap().as_dquat().normalize()
                });
            let translation = clip
                .track(TrackTarget::Joint(joint), Property::Translation)
                .map_or(rest.translation.as_dvec3(), |t2| {
                    t2.sample_vec3(t).unwrap().as_dvec3()
                });
            let local = DMat4::from_scale_rotation_translation(
                rest.scale.as_dvec3(),
                rotation,
                translation,
            );
            let parent = skeleton
                .parent(joint)
                .map_or(DMat4::IDENTITY, |p| out[p.index()]);
            out.push(parent * local);
        }
        out.iter()
            .map(|m| m.to_scale_rotation_translation().1.normalize())
            .collect()
    }

    fn q(v: &Value) -> DQuat {
        let f = |i: usize| v[i].as_f64().unwrap();
        DQuat::from_xyzw(f(0), f(1), f(2), f(3)).normalize()
    }

    /// idle_loop.vrma animates non-humanoid intermediates (torso_1/3/5/6, neck_2, head), which
    /// three-vrm drops, and debug_robot lacks upperChest. Our retarget must give every bone the
    /// model has the world delta the .vrma's own full forward kinematics gives (the nearest
    /// present ancestor's for a bone the .vrma lacks), to 0.01°.
    #[test]
    fn idle_loop_on_debug_robot_follows_the_full_forward_kinematics() {
        let model = shared().join("corpus/vrm/debug_robot.vrm");
        let anim_path = shared().join("corpus/vrma/idle_loop.vrma");
        let ours: Value = serde_json::from_str(
            &humanoid_ok(&[
                "pose",
                "--json",
                "--anim",
                s(&anim_path),
                "--uniform",
                "21",
                s(&model),
            ])
            .stdout,
        )
        .unwrap();
        let anim = humanoid::read_asset(&anim_path).unwrap().asset;
        let clip = &anim.clips[0];
        let bones = anim.humanoids[0].bones;
        let rest = world_rotations(&anim, &humanoid::model::Clip::new("rest"), 0.0);
        let expected: Value = serde_json::from_slice(
            &std::fs::read(
                shared().join("oracle/three-vrm/expected_anim_debug_robot__idle_loop.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let (mut worst, mut worst_vs_three) = (0.0f64, (0.0f64, String::new()));
        for (sample, theirs) in ours["samples"]
            .as_array()
            .unwrap()
            .iter()
            .zip(expected["samples"].as_array().unwrap())
        {
            let t = sample["tClamped"].as_f64().unwrap() as f32;
            let source = world_rotations(&anim, clip, t);
            for (name, transform) in sample["bones"].as_object().unwrap() {
                let bone: HumanBone = name.parse().unwrap();
                if matches!(bone, HumanBone::LeftEye | HumanBone::RightEye) {
                    continue; // the gaze drives the eyes (no look-at track: straight ahead)
                }
                let driver = std::iter::once(bone)
                    .chain(bone.ancestors())
                    .find_map(|b| bones.get(b))
                    .unwrap();
                let source_delta = source[driver.index()] * rest[driver.index()].inverse();
                let model_delta = q(&transform["q"]) * q(&ours["rest"][name]["q"]).inverse();
                let angle = source_delta.angle_between(model_delta).to_degrees();
                worst = worst.max(angle);
                let vs_three = q(&transform["q"])
                    .angle_between(q(&theirs["bones"][name]["q"]))
                    .to_degrees();
                if vs_three > worst_vs_three.0 {
                    worst_vs_three = (vs_three, format!("{name} at {t}"));
                }
            }
        }
        eprintln!("idle_loop on debug_robot: {worst:.2e}° from full FK; three-vrm differs by up to {:.2}° ({})", worst_vs_three.0, worst_vs_three.1);
        assert!(
            worst < 0.01,
            "world deltas differ from the .vrma's full FK by {worst}°"
        );
        assert!(
            worst_vs_three.0 > 1.0,
            "three-vrm drops the intermediates, so it must differ somewhere"
        );
    }
}

/// `--fps` must be a positive finite rate, and the keys it asks for are bounded before they are
/// allocated (`inf` used to overflow the key list's capacity).
#[test]
fn retarget_refuses_an_fps_that_is_not_a_positive_finite_bounded_rate() {
    use crate::util::{humanoid, humanoid_ok, s, temp_dir};
    let dir = temp_dir();
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mannequin = corpus.join("mannequin.glb");
    let out = dir.path().join("out.glb");
    for fps in ["inf", "1e30", "0", "-5", "NaN"] {
        let run = humanoid(&[
            "retarget",
            s(&mannequin),
            "--onto",
            s(&mannequin),
            "-o",
            s(&out),
            &format!("--fps={fps}"),
        ]);
        assert_eq!(run.code, 1, "--fps {fps}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains("--fps"),
            "--fps {fps}: the message names the flag: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(!out.exists(), "--fps {fps}: nothing written");
    }
    humanoid_ok(&[
        "retarget",
        s(&mannequin),
        "--onto",
        s(&mannequin),
        "-o",
        s(&out),
        "--fps",
        "30",
    ]);
}

/// A take that keys every channel at one value for seconds (a HumanIK FBX baked before its
/// keys) is reported (`CLIP_STATIC`) when it is read and when it is retargeted; a moving clip
/// and a one-frame pose are not.
#[test]
fn a_clip_that_moves_nothing_is_reported() {
    use crate::util::{humanoid_ok, s};
    let (dir, mannequin, _) = crate::util::demo();
    let walk = dir.path().join("walk.bvh");
    humanoid_ok(&["convert", s(&mannequin), s(&walk), "--clip", "walk"]);
    let text = std::fs::read_to_string(&walk).unwrap();
    let (hierarchy, motion) = text.split_once("MOTION").unwrap();
    let first_frame = motion
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with(|c: char| c == '-' || c.is_ascii_digit())
        })
        .unwrap();
    let frames = |n: usize| {
        let mut bvh = format!("{hierarchy}MOTION\nFrames: {n}\nFrame Time: 0.1\n");
        for _ in 0..n {
            bvh.push_str(first_frame);
            bvh.push('\n');
        }
        bvh
    };
    let held = crate::util::write(dir.path(), "held.bvh", frames(30).as_bytes());
    let pose = crate::util::write(dir.path(), "pose.bvh", frames(1).as_bytes());

    let said = humanoid_ok(&["inspect", s(&held)]).stdout;
    assert!(said.contains("CLIP_STATIC"), "{said}");
    assert!(said.contains("lasts 2.90 s and moves nothing"), "{said}");
    let out = dir.path().join("held.vrma");
    let said = humanoid_ok(&["retarget", s(&held), "--onto", s(&mannequin), "-o", s(&out)]).stdout;
    assert!(said.contains("CLIP_STATIC"), "{said}");
    for quiet in [&walk, &pose] {
        let said = humanoid_ok(&["inspect", s(quiet)]).stdout;
        assert!(!said.contains("CLIP_STATIC"), "{}: {said}", quiet.display());
    }
    let out = dir.path().join("walk.vrma");
    let said = humanoid_ok(&["retarget", s(&walk), "--onto", s(&mannequin), "-o", s(&out)]).stdout;
    assert!(!said.contains("CLIP_STATIC"), "{said}");
}

/// The file: Maya's HumanIK FBX keys each of its 270 channels at one value for 4.9 s;
/// retargeted, it is a held T-pose, and the output says so.
#[cfg(feature = "corpus")]
#[test]
fn the_humanik_take_that_holds_one_pose_is_reported() {
    use crate::util::{humanoid_ok, s, shared};
    let (dir, mannequin, _) = crate::util::demo();
    let fbx = shared().join("corpus/fbx/maya_human_ik_7400_binary.fbx");
    let out = dir.path().join("held.vrma");
    let said = humanoid_ok(&["retarget", s(&fbx), "--onto", s(&mannequin), "-o", s(&out)]).stdout;
    assert!(
        said.contains("warning [CLIP_STATIC] clip \"Take 001\": the clip lasts 4.92 s"),
        "{said}"
    );
}
