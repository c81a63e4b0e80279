//! `retarget`: play one file's clip on another character, and write the character with it.
//!
//! The animation (`ANIM`) is any file with a humanoid and a clip: a glTF/GLB with node
//! animation (mapped by its declared humanoid, or by the mapping tables), a glTF with
//! EXT_skeleton_humanoid channels, a `.vrma`; its clip is the one [`crate::model::clip_choice`]
//! takes (`--clip`, else the first that moves). The model's pose at each key time is found by
//! world deltas from the T-pose ([`crate::pose::retarget`]) and baked into a clip on the
//! model's own joints (LINEAR keys at the union of the source's key times, or at `fps`).
//!
//! The output keeps the model file as it is and adds the clip: as node animation (`.glb`,
//! `.gltf`, `.vrm`), as EXT_skeleton_humanoid channels (`as_ext`), or the model's humanoid with
//! the clip as a `.vrma` (rebased on the T-pose facing +Z where the model does not rest so, a
//! VRM 0.x model among them: [`crate::ops::vrma_out`]), or the model's skeleton with the clip as a
//! `.bvh`.

use std::path::Path;

use crate::error::{Diagnostics, Error};
use crate::formats::gltf::ext_skeleton_humanoid::{self as ext, SkeletonDef};
use crate::formats::{gltf, vrm, Format};
use crate::mapping::RigMapping;
use crate::math::sample::Interpolation;
use crate::model::clip::{Clip, Property, Track, TrackTarget};
use crate::model::HumanBone;
use crate::ops::convert::{check_output_path, ConvertReport};
use crate::ops::read::{input_format, read_asset as read};
use crate::pose::contacts::Contacts;
use crate::pose::normalized::bone_tracks_from_joint_tracks;
use crate::pose::retarget::{Keep, Retargeter, Side};

mod contacts;

/// The most values (4 per bone and key, 3 per hips key) a baked clip may hold: 2²⁶ (256 MiB
/// of `f32`), checked before the keys are allocated.
pub const MAX_BAKED_VALUES: usize = 1 << 26;

/// How to retarget.
#[derive(Debug, Clone, Default)]
pub struct RetargetOptions {
    /// The clip of the animation to use (`None`: the first).
    pub clip: Option<String>,
    /// Resample at this rate instead of the source's key times.
    pub fps: Option<f32>,
    /// Map a rig (animation or model) that declares no humanoid.
    pub mapping: Option<RigMapping>,
    /// Write the clip as EXT_skeleton_humanoid channels instead of node animation.
    pub as_ext: bool,
    /// The output format (`None`: the output extension decides).
    pub to: Option<Format>,
    /// Replace an existing output.
    pub force: bool,
    /// How to write a `.bvh` output (the model's skeleton, without its meshes).
    pub bvh: crate::formats::bvh::WriteOptions,
    /// Carry the animation file's sockets onto the model by bone
    /// ([`crate::ops::sockets::carry_into`]); the model's own sockets are always kept.
    pub carry_sockets: bool,
    /// Plant the feet where the source plants them ([`crate::pose::contacts`]; the default),
    /// or copy the world deltas exactly (`Off`).
    pub contacts: Contacts,
    /// Also measure the `--contacts off` output, for the report's comparison (bakes twice).
    pub contacts_compare: bool,
}

/// Retargets the clip of `anim` onto `model` and writes the model with it to `output`.
///
/// ```
/// use humanoid::retarget::{retarget, RetargetOptions};
///
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(dir.path(), false)?;
/// let (anim, model) = (dir.path().join("mannequin.glb"), dir.path().join("mannequin.glb"));
/// let options = RetargetOptions { fps: Some(30.0), ..RetargetOptions::default() };
/// let out = dir.path().join("played.glb");
/// retarget(&anim, &model, &out, &options)?;
/// let played = humanoid::read_asset(&out)?.asset;
/// assert!(played.clips.iter().any(|c| c.duration() > 0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// A file cannot be read or has no humanoid (and no mapping applies); the clip does not
/// exist; the output format cannot hold the result; writing fails.
pub fn retarget(
    anim: &Path,
    model: &Path,
    output: &Path,
    options: &RetargetOptions,
) -> Result<ConvertReport, Error> {
    let _reads = crate::io::input::read_scope(); // no output replaces a file read
    check_output_path(anim, output, options.force)?;
    check_output_path(model, output, options.force)?;
    let mut diagnostics = Diagnostics::new();
    let mut source = read(anim)?.asset;
    let mapping = match &options.mapping {
        Some(m) => m.clone(),
        None => RigMapping::detect()?,
    };
    mapping
        .attach(&mut source, anim)?
        .note(&format!("{} (animation)", anim.display()), &mut diagnostics);
    require_hips(&source, anim, "animation")?;
    let chosen = crate::model::clip_choice::choose(&source, options.clip.as_deref(), anim)
        .map_err(|e| {
            if source.clips.is_empty() {
                swapped_hint(&e, anim, model)
            } else {
                e
            }
        })?;
    chosen.report(&mut diagnostics);
    let clip = chosen.clip;
    crate::model::clip_choice::report_static(std::slice::from_ref(clip), &mut diagnostics);

    let (mut document, mut target) = model_document(model, &mut diagnostics)?;
    let declared = !target.humanoids.is_empty();
    let mapped = mapping.attach(&mut target, model)?;
    mapped.note(&format!("{} (model)", model.display()), &mut diagnostics);
    require_hips(&target, model, "model")?;
    if !declared {
        declare(&mut document, &target)?;
        diagnostics.info(
            "EXT_MAPPED",
            format!("/extensions/{}", ext::NAME),
            format!(
                "the model declares no humanoid: {} bones mapped by {}, declared with EXT_skeleton_humanoid",
                mapped.bones,
                mapped.by()
            ),
        );
    }
    let (baked, contact_report) = match options.contacts {
        Contacts::Off => (
            bake(&source, clip, &target, options.fps, &mut diagnostics)
                .map_err(|e| e.about(anim))?,
            None,
        ),
        Contacts::Auto => {
            let (baked, report) = bake_contacts(
                &source,
                clip,
                &target,
                options.fps,
                options.contacts_compare,
                &mut diagnostics,
            )
            .map_err(|e| e.about(anim))?;
            (baked, Some(report))
        }
    };

    let flavour = vrm::flavour(&document);
    let target_format = match options.to {
        Some(format) => format,
        None => Format::for_output(
            output,
            flavour.filter(|f| matches!(f, Format::Vrm0 | Format::Vrm1)),
        )?,
    };
    if options.carry_sockets {
        let (from, out) = (&source, target_format);
        crate::ops::sockets::carry_into(anim, from, &mut document, &target, out, &mut diagnostics)?;
    }
    let written = match target_format {
        Format::Vrma => {
            // The model's motion, as a VRMA that plays: a model that does not rest in the
            // T-pose facing +Z (VRM 0.x, a mapped rig) is turned and rebased in memory.
            let mut with_clip = target.clone();
            with_clip.clips = vec![baked];
            let vrma = match with_clip.clips.first() {
                Some(clip) => crate::ops::vrma_out::vrma_asset(&with_clip, clip, &mut diagnostics)?,
                None => with_clip.clone(),
            };
            let built = vrm::vrma::build(
                &vrma,
                concat!("humanoid ", env!("CARGO_PKG_VERSION")),
                &mut diagnostics,
            )?;
            gltf::build::write_glb(&built, output)?
        }
        Format::Glb | Format::Gltf | Format::Vrm1 | Format::Vrm0 => {
            let expected = flavour.unwrap_or(Format::Glb);
            if matches!(target_format, Format::Vrm1 | Format::Vrm0) && expected != target_format {
                return Err(Error::unsupported(format!(
                    "{}: retarget keeps the model's format ({expected}); convert it to {target_format} first",
                    model.display()
                )));
            }
            let clip = if options.as_ext {
                let humanoid = target
                    .humanoids
                    .first()
                    .ok_or_else(|| Error::unsupported("the model has no humanoid"))?;
                bone_tracks_from_joint_tracks(
                    &target.skeleton,
                    &humanoid.bones,
                    &baked,
                    &mut diagnostics,
                )
            } else {
                baked
            };
            let node_of = |joint: crate::model::skeleton::JointId| target.source_index(joint);
            gltf::build::append_clips(&mut document, &[clip], &node_of)?;
            match target_format {
                Format::Gltf => document.write_gltf_with(output, &[anim], options.force)?,
                _ => document.write_glb(output, &[anim])?,
            }
        }
        Format::Bvh => {
            let mut with_clip = target.clone();
            with_clip.clips = vec![baked];
            let rig = with_clip.rig_only();
            crate::ops::convert::report_rig_only(&with_clip, &rig, &mut diagnostics);
            let clip = rig
                .clips
                .first()
                .ok_or_else(|| Error::unsupported("the retargeted clip is empty"))?;
            let written = crate::formats::bvh::write_with_diagnostics(&rig, clip, &options.bvh)?;
            diagnostics.extend(written.diagnostics);
            let bytes = crate::ops::output::write_atomically(output, written.text.as_bytes())?;
            diagnostics.info(
                "BVH_MESH_DROPPED",
                "",
                "a BVH holds a skeleton and its motion: the model's meshes, materials and humanoid declaration are not written",
            );
            gltf::Written {
                bytes,
                files: vec![output.to_path_buf()],
                ..gltf::Written::default()
            }
        }
        other => {
            if let Some(refused) = other.refuse_output() {
                return Err(refused);
            }
            return Err(Error::unsupported(format!(
                "retargeting into {other} is not built yet (asked for {})",
                output.display()
            )));
        }
    };
    diagnostics.extend(written.diagnostics);
    Ok(ConvertReport {
        format: target_format,
        bytes_written: written.bytes,
        files: written.files,
        diagnostics,
        contacts: contact_report,
    })
}

/// Refuses a humanoid without hips (a hand-only rig, mapped by a hand table) before any work,
/// naming the file and what it maps: retargeting moves a body from its hips.
fn require_hips(asset: &crate::model::Asset, path: &Path, role: &str) -> Result<(), Error> {
    let Some(humanoid) = asset.humanoids.first() else {
        return Ok(());
    };
    if humanoid.bones.get(HumanBone::Hips).is_some() {
        return Ok(());
    }
    let mapped: Vec<String> = humanoid.bones.iter().map(|(b, _)| b.to_string()).collect();
    let shown = mapped
        .iter()
        .take(6)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    Err(Error::unsupported(format!(
        "{}: the {role}'s humanoid has no hips ({} bone(s) mapped: {shown}{}): retarget moves a whole body from its hips; give a file whose humanoid has hips, spine, head, arms and legs, or map its body with --map TABLE",
        path.display(),
        mapped.len(),
        if mapped.len() > 6 { ", …" } else { "" }
    )))
}

/// Declares the target's (mapped) humanoid on its document.
fn declare(document: &mut gltf::Document, target: &crate::model::Asset) -> Result<(), Error> {
    let Some(humanoid) = target.humanoids.first() else {
        return Ok(());
    };
    let Some(root) = humanoid
        .root
        .or_else(|| humanoid.bones.get(HumanBone::Hips))
    else {
        return Err(Error::unsupported("the mapped humanoid has no hips"));
    };
    ext::declare(
        document,
        SkeletonDef {
            root_node: target.source_index(root),
            bones: humanoid
                .bones
                .iter()
                .map(|(b, j)| (b, target.source_index(j)))
                .collect(),
        },
    );
    Ok(())
}

/// The retargeted clip on the target's joints: each humanoid joint's rotation (and the hips'
/// translation) at the source's key times, or at `fps`.
///
/// # Errors
/// Either side has no humanoid; `fps` is not a positive finite number, or the keys would hold
/// more than [`MAX_BAKED_VALUES`] values (checked before they are allocated); the clip has no
/// keys; a rotation comes out not finite.
pub fn bake(
    source: &crate::model::Asset,
    clip: &Clip,
    target: &crate::model::Asset,
    fps: Option<f32>,
    diagnostics: &mut Diagnostics,
) -> Result<Clip, Error> {
    bake_keeping(source, clip, target, fps, Keep::Directions, diagnostics)
}

/// As [`bake`], with the feet planted where the source plants them
/// ([`crate::pose::contacts`]); with `compare`, the report also measures the `--contacts off`
/// bake (baking twice). Where nothing can be planted, the result is [`bake`]'s (its feet only
/// kept above the floor), and the report says why.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// humanoid::demo::write_demo(dir.path(), false)?;
/// let mannequin = humanoid::read_asset(&dir.path().join("mannequin.glb"))?.asset;
/// let wave = mannequin.clips.iter().find(|c| c.name == "wave").expect("wave");
/// let mut diagnostics = humanoid::Diagnostics::new();
/// let (clip, report) =
///     humanoid::retarget::bake_contacts(&mannequin, wave, &mannequin, None, true, &mut diagnostics)?;
/// // The wave stands on both feet: every foot joint is planted, and stays put. On its own body
/// // the world-delta copy already keeps them, so the solver changes nothing.
/// assert!(clip.duration() > 0.0 && !report.applied);
/// assert!(report.joints.iter().all(|j| j.plants > 0 && j.drift_mm.max < 1.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`bake`].
pub fn bake_contacts(
    source: &crate::model::Asset,
    clip: &Clip,
    target: &crate::model::Asset,
    fps: Option<f32>,
    compare: bool,
    diagnostics: &mut Diagnostics,
) -> Result<(Clip, crate::pose::contacts::ContactReport), Error> {
    contacts::bake(source, clip, target, fps, compare, diagnostics)
}

/// As [`bake`], keeping what `keep` says of the motion ([`Keep::Positions`]: the target is the
/// source's own skeleton rebased, every mapped bone keeps its world position).
///
/// # Errors
/// As [`bake`].
pub fn bake_keeping(
    source: &crate::model::Asset,
    clip: &Clip,
    target: &crate::model::Asset,
    fps: Option<f32>,
    keep: Keep,
    diagnostics: &mut Diagnostics,
) -> Result<Clip, Error> {
    // EXT_skeleton_humanoid channels and VRMA tracks play on the source's own joints.
    let played = crate::pose::normalized::playable(source, clip);
    let clip: &Clip = &played;
    let retargeter = Retargeter::keeping(
        Side::new(source, "animation")?,
        clip,
        Side::new(target, "model")?,
        keep,
        diagnostics,
    )?;
    let layout = Layout::of(target)?;
    let times = key_times(&retargeter, clip, fps, &layout)?;
    let keys = pose_keys(&clip.name, &retargeter, &times, &layout, &[])?;
    assemble(&clip.name, times, &layout, keys, target)
}

/// Which target joints a baked clip keys: every humanoid joint's rotation, the hips' path.
struct Layout {
    joints: Vec<crate::model::skeleton::JointId>,
    hips: Option<crate::model::skeleton::JointId>,
}

impl Layout {
    fn of(target: &crate::model::Asset) -> Result<Layout, Error> {
        let humanoid = target
            .humanoids
            .first()
            .ok_or_else(|| Error::unsupported("the model has no humanoid"))?;
        Ok(Layout {
            joints: humanoid.bones.iter().map(|(_, j)| j).collect(),
            hips: humanoid.bones.get(HumanBone::Hips),
        })
    }

    fn values_per_key(&self) -> usize {
        self.joints.len() * 4 + 3
    }
}

/// The key times of the baked clip: the source's, or every `1/fps` seconds.
///
/// # Errors
/// `fps` is not a positive finite number; the keys would hold more than
/// [`MAX_BAKED_VALUES`] values (checked before they are allocated); the clip has no keys.
fn key_times(
    retargeter: &Retargeter<'_>,
    clip: &Clip,
    fps: Option<f32>,
    layout: &Layout,
) -> Result<Vec<f32>, Error> {
    let humanoid_joints = layout.joints.len();
    let values_per_key = layout.values_per_key();
    let times: Vec<f32> = match fps {
        Some(fps) => {
            if !(fps.is_finite() && fps > 0.0) {
                return Err(Error::unsupported(format!(
                    "--fps {fps}: expected a positive, finite number of frames per second"
                )));
            }
            let start = clip
                .tracks()
                .iter()
                .map(Track::start_time)
                .fold(f32::INFINITY, f32::min);
            let end = clip.duration();
            let start = if start.is_finite() { start } else { 0.0 };
            // Counted in f64 and bounded before anything is allocated for the keys.
            let frames = ((f64::from(end) - f64::from(start)) * f64::from(fps))
                .floor()
                .max(0.0);
            let keys = frames + 1.0;
            if keys * values_per_key as f64 > MAX_BAKED_VALUES as f64 {
                return Err(Error::unsupported(format!(
                    "--fps {fps}: {keys} keys of clip {:?} ({:.3} s) × {humanoid_joints} bones is more than {MAX_BAKED_VALUES} values; lower --fps",
                    clip.name,
                    end - start
                )));
            }
            (0..=crate::math::num::saturating_usize(frames))
                .map(|i| start + i as f32 / fps)
                .collect()
        }
        None => retargeter.key_times(),
    };
    if times.len().saturating_mul(values_per_key) > MAX_BAKED_VALUES {
        return Err(Error::unsupported(format!(
            "clip {:?}: {} keys × {humanoid_joints} bones is more than {MAX_BAKED_VALUES} values; resample it with a lower --fps",
            clip.name,
            times.len()
        )));
    }
    if times.is_empty() {
        return Err(Error::unsupported(format!(
            "clip {:?} has no keys to retarget",
            clip.name
        )));
    }
    Ok(times)
}

/// The baked keys: one rotation list per joint of the layout (`x, y, z, w` per key), the hips'
/// local translation (`x, y, z` per key), and the captured source joints' canonical positions
/// (as many per key as joints asked for).
struct Keys {
    rotations: Vec<Vec<f32>>,
    hips_path: Vec<f32>,
    captured: Vec<glam::Vec3>,
}

/// Poses the target at every time, in parallel, and captures the source joints `capture`
/// (`None`: a bone the source lacks, left at zero) at each.
///
/// # Errors
/// A rotation comes out not finite.
fn pose_keys(
    name: &str,
    retargeter: &Retargeter<'_>,
    times: &[f32],
    layout: &Layout,
    capture: &[Option<crate::model::skeleton::JointId>],
) -> Result<Keys, Error> {
    let joints = &layout.joints;
    let hips = layout.hips;
    let per_key = capture.len();
    // The output, written in place: one rotation list per joint (x, y, z, w per key) and the
    // hips' path (x, y, z per key). Each list is its own zeroed allocation (fresh pages that
    // the threads fault in as they write, in parallel).
    let mut rotations: Vec<Vec<f32>> = joints.iter().map(|_| vec![0.0; times.len() * 4]).collect();
    let mut hips_path: Vec<f32> = vec![0.0; if hips.is_some() { times.len() * 3 } else { 0 }];
    let mut captured: Vec<glam::Vec3> = vec![glam::Vec3::ZERO; times.len() * per_key];
    // The key times are independent: split them into runs (several per core, so that a core
    // the machine gives less time to takes fewer of them) that one thread per core takes in
    // turn, each with its own retargeter (cloned: nothing measured twice).
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 16);
    let chunk = times.len().div_ceil(threads * 8).max(4096);
    let mut runs: Vec<Run<'_>> = times
        .chunks(chunk)
        .map(|times| Run {
            times,
            rotations: Vec::with_capacity(joints.len()),
            path: &mut [],
            captured: &mut [],
        })
        .collect();
    for values in &mut rotations {
        for (run, slice) in runs.iter_mut().zip(values.chunks_mut(chunk * 4)) {
            run.rotations.push(slice);
        }
    }
    for (run, slice) in runs.iter_mut().zip(hips_path.chunks_mut(chunk * 3)) {
        run.path = slice;
    }
    if per_key > 0 {
        for (run, slice) in runs.iter_mut().zip(captured.chunks_mut(chunk * per_key)) {
            run.captured = slice;
        }
    }
    // Taken from the back: the first run last.
    runs.reverse();
    let workers = threads.min(runs.len());
    let queue = std::sync::Mutex::new(runs);
    let finite = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let mut retargeter = retargeter.clone();
                let queue = &queue;
                scope.spawn(move || {
                    let mut finite = true;
                    // A poisoned queue (a run panicked; nothing in one indexes unchecked)
                    // counts as not finite.
                    while let Some(run) = match queue.lock() {
                        Ok(mut runs) => runs.pop(),
                        Err(_) => return false,
                    } {
                        finite &= bake_run(&mut retargeter, joints, hips, capture, run);
                    }
                    finite
                })
            })
            .collect();
        handles
            .into_iter()
            .all(|handle| handle.join().unwrap_or(false))
    });
    if !finite {
        return Err(Error::unsupported(format!(
            "retargeted clip {name:?}: a joint rotation is not finite (a degenerate rest pose or clip value)"
        )));
    }
    Ok(Keys {
        rotations,
        hips_path,
        captured,
    })
}

/// The baked clip from its keys: a rotation track per joint, and the hips' path where it
/// moves off the rest.
///
/// # Errors
/// The key times are not increasing and finite.
fn assemble(
    name: &str,
    times: Vec<f32>,
    layout: &Layout,
    keys: Keys,
    target: &crate::model::Asset,
) -> Result<Clip, Error> {
    // Every rotation list holds a value per key (by allocation) and every value is finite
    // (checked as it was written), so those tracks are valid by construction; the key times are
    // checked once and shared.
    let times = crate::model::clip::KeyTimes::new(times)
        .map_err(|e| Error::unsupported(format!("retargeted clip: {e}")))?;
    let hips = layout.hips;
    let rest_hips = hips.map(|h| target.skeleton.rest_local(h).translation);
    let mut out = Clip::new(name.to_owned());
    for (values, joint) in keys.rotations.into_iter().zip(&layout.joints) {
        out.add_track(Track::from_valid_parts(
            TrackTarget::Joint(*joint),
            Property::Rotation,
            Interpolation::Linear,
            times.clone(),
            values,
        ));
    }
    let hips_path = keys.hips_path;
    let moves = rest_hips.is_some_and(|rest| {
        hips_path
            .chunks_exact(3)
            .any(|p| (glam::Vec3::from_slice(p) - rest).length() > 1e-7)
    });
    if let (Some(h), true) = (hips, moves) {
        out.add_track(
            Track::with_key_times(
                TrackTarget::Joint(h),
                Property::Translation,
                Interpolation::Linear,
                times,
                hips_path,
            )
            .map_err(|e| Error::unsupported(format!("retargeted clip: {e}")))?,
        );
    }
    Ok(out)
}

/// One run of key times and where its keys go: a slice of each joint's rotation list, of
/// the hips' path and of the captured source positions.
struct Run<'a> {
    times: &'a [f32],
    rotations: Vec<&'a mut [f32]>,
    path: &'a mut [f32],
    captured: &'a mut [glam::Vec3],
}

/// Poses the target at each time of `run` and writes the joints' local rotations and the hips'
/// local translation, and the captured source joints' positions. Returns whether every
/// rotation written is finite.
fn bake_run(
    retargeter: &mut Retargeter<'_>,
    joints: &[crate::model::skeleton::JointId],
    hips: Option<crate::model::skeleton::JointId>,
    capture: &[Option<crate::model::skeleton::JointId>],
    run: Run<'_>,
) -> bool {
    let Run {
        times,
        mut rotations,
        path,
        captured,
    } = run;
    let mut locals = Vec::new();
    let mut finite = true;
    let per_key = capture.len();
    for (key, &t) in times.iter().enumerate() {
        retargeter.pose_into(t, &mut locals);
        for (values, joint) in rotations.iter_mut().zip(joints) {
            let rotation = locals
                .get(joint.index())
                .map_or(glam::Quat::IDENTITY, |l| l.rotation);
            finite &= rotation.is_finite();
            if let Some(slot) = values.get_mut(key * 4..key * 4 + 4) {
                slot.copy_from_slice(&rotation.to_array());
            }
        }
        if let Some(h) = hips {
            let translation = locals
                .get(h.index())
                .map_or(glam::Vec3::ZERO, |l| l.translation);
            if let Some(slot) = path.get_mut(key * 3..key * 3 + 3) {
                slot.copy_from_slice(&translation.to_array());
            }
        }
        if per_key > 0 {
            if let Some(slots) = captured.get_mut(key * per_key..(key + 1) * per_key) {
                for (slot, joint) in slots.iter_mut().zip(capture) {
                    if let Some(j) = joint {
                        *slot = retargeter.source_position(*j);
                    }
                }
            }
        }
    }
    finite
}

/// The model as a glTF document (the retargeted clip is written into it) and its asset. A
/// glTF-family model is its own document; any other model we read (FBX, H-Anim, BVH) is built
/// into one with its meshes, as `convert` builds it, so the output is a GLB or glTF.
/// The error for an animation file with no clip, with what the user most likely meant: the
/// motion comes first and the character after `--onto`, so a model that has clips where the
/// "animation" has none means the two were swapped.
fn swapped_hint(error: &Error, anim: &Path, model: &Path) -> Error {
    let model_clips = read(model).map_or(0, |m| m.asset.clips.len());
    Error::unsupported(if model_clips > 0 {
        format!(
            "{error}, while {} has {model_clips}: were the two swapped? The motion comes first and the character after --onto (retarget {} --onto {} -o OUT)",
            model.display(),
            model.display(),
            anim.display()
        )
    } else {
        format!(
            "{error}: retarget needs a motion first (a BVH, FBX take, VRMA or animated glTF) and the character to play it on after --onto"
        )
    })
}

fn model_document(
    model: &Path,
    diagnostics: &mut Diagnostics,
) -> Result<(gltf::Document, crate::model::Asset), Error> {
    if input_format(model)?.is_gltf_family() {
        let read_model = crate::ops::read::read(model, &crate::ops::read::ReadOptions::default())?;
        let document = read_model
            .character
            .carry
            .get::<gltf::Document>()
            .cloned()
            .ok_or_else(|| Error::unsupported(format!("{}: no glTF document", model.display())))?;
        return Ok((document, read_model.character.asset));
    }
    let options = crate::ops::read::ReadOptions {
        meshes: crate::ops::read::MeshDetail::Bind,
        ..crate::ops::read::ReadOptions::default()
    };
    let read_model = crate::ops::read::read(model, &options)?;
    let built = crate::ops::write::built_glb(&read_model.character)?;
    crate::ops::write::report_dropped(&built, diagnostics);
    let document = gltf::build::document(&built, model)?;
    let asset = vrm::asset_from_document(&document)?.asset;
    Ok((document, asset))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::asset::{Asset, HumanoidSkeleton};
    use glam::Quat;

    /// The bake splits the keys into runs over threads: every key of every joint must land
    /// where a plain one-thread pose puts it.
    #[test]
    fn bake_over_many_runs_matches_posing_each_key() {
        let m = crate::ops::demo::canonical_mannequin().expect("mannequin");
        let mut asset = Asset::new(
            Format::Glb,
            m.skeleton.clone(),
            (0..m.skeleton.len()).collect(),
        );
        asset.humanoids.push(HumanoidSkeleton {
            declared_t_pose: true,
            root: m.humanoid.root,
            bones: m.humanoid.bones,
        });
        // 10 000 keys: three runs of at least 4096.
        const KEYS: usize = 10_000;
        let times: Vec<f32> = (0..KEYS).map(|k| k as f32 / 30.0).collect();
        let mut clip = Clip::new("long");
        for joint in m.skeleton.joints() {
            let rest = m.skeleton.rest_local(joint);
            let values: Vec<f32> = (0..KEYS)
                .flat_map(|k| {
                    let angle = (k as f32 * 0.05 + joint.index() as f32).sin() * 0.3;
                    (rest.rotation * Quat::from_rotation_x(angle)).to_array()
                })
                .collect();
            clip.add_track(
                Track::new(
                    TrackTarget::Joint(joint),
                    Property::Rotation,
                    Interpolation::Linear,
                    times.clone(),
                    values,
                )
                .expect("track"),
            );
            if m.skeleton.parent(joint).is_none() {
                let path: Vec<f32> = (0..KEYS)
                    .flat_map(|k| (rest.translation + glam::Vec3::X * k as f32 * 1e-3).to_array())
                    .collect();
                clip.add_track(
                    Track::new(
                        TrackTarget::Joint(joint),
                        Property::Translation,
                        Interpolation::Linear,
                        times.clone(),
                        path,
                    )
                    .expect("track"),
                );
            }
        }
        let mut diagnostics = Diagnostics::new();
        let baked = bake(&asset, &clip, &asset, None, &mut diagnostics).expect("bake");
        let mut retargeter = Retargeter::new(
            Side::new(&asset, "animation").expect("humanoid"),
            &clip,
            Side::new(&asset, "model").expect("humanoid"),
            &mut diagnostics,
        )
        .expect("retargeter");
        let rotations = baked
            .tracks()
            .iter()
            .filter(|t| t.property() == Property::Rotation);
        assert_eq!(rotations.count(), asset.humanoids[0].bones.iter().count());
        let hips = asset.humanoids[0].bones.get(HumanBone::Hips).expect("hips");
        assert!(baked
            .track(TrackTarget::Joint(hips), Property::Translation)
            .is_some());
        for key in [0, 1, 4095, 4096, 4097, 8191, 8192, KEYS - 1] {
            let pose = retargeter.pose_at(times[key]);
            for track in baked.tracks() {
                let TrackTarget::Joint(joint) = track.target() else {
                    panic!("a baked track on {}", track.target());
                };
                assert_eq!(track.times(), &times[..]);
                let expected = match track.property() {
                    Property::Rotation => pose.locals[joint.index()].rotation.to_array().to_vec(),
                    _ => pose.locals[joint.index()].translation.to_array().to_vec(),
                };
                assert_eq!(
                    track.value(key),
                    Some(&expected[..]),
                    "key {key}, {}",
                    track.target()
                );
            }
        }
    }
}
