//! The registry of diagnostic codes: every code a [`Diagnostic`](super::Diagnostic) can carry,
//! the severity it is reported at, and what it means, in one sorted table ([`CODES`]).
//!
//! A code is a stable, upper-case name for programs to match on (`--json` gives it as
//! `"code"`); its row here is what a user reads to learn what happened, to what.
//! `docs/diagnostics.md` is generated from this table ([`markdown`]).
//!
//! Three checks keep the table and the code in step:
//! - [`Diagnostics::push`](super::Diagnostics::push), the one place a diagnostic is made, asserts
//!   in debug builds (every test) that its code is registered at the severity it is given;
//! - a unit test reads `src/` and fails on any code-shaped string literal (`UPPER_SNAKE_CASE`)
//!   that is neither registered nor listed as not a code (a glTF attribute name, a licence
//!   name), naming its file and line, and on any registered code no source mentions;
//! - a unit test fails when `docs/diagnostics.md` differs from [`markdown`]
//!   (`HUMANOID_UPDATE_DOCS=1 cargo test --lib codes` rewrites it).
//!
//! To add a code: add its row here (sorted; the severity it is emitted at; one line saying
//! what happened, to what), then rewrite the docs as above.

use super::Severity;

/// One registered diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CodeInfo {
    /// The code, as [`Diagnostic::code`](super::Diagnostic::code) carries it.
    pub code: &'static str,
    /// The severities it is reported at: one when fixed, two when it depends on what was
    /// found (the message says which case it is).
    pub severities: &'static [Severity],
    /// What it means: what happened, to what, in one line.
    pub meaning: &'static str,
}

impl CodeInfo {
    /// Its severity when that is fixed; `None` when it varies.
    pub fn fixed_severity(&self) -> Option<Severity> {
        match self.severities {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Whether it may be reported at `severity`.
    pub fn allows(&self, severity: Severity) -> bool {
        self.severities.contains(&severity)
    }
}

const INFO: &[Severity] = &[Severity::Info];
const WARNING: &[Severity] = &[Severity::Warning];
const ERROR: &[Severity] = &[Severity::Error];
const INFO_OR_WARNING: &[Severity] = &[Severity::Info, Severity::Warning];
const WARNING_OR_ERROR: &[Severity] = &[Severity::Warning, Severity::Error];

const fn code(
    code: &'static str,
    severities: &'static [Severity],
    meaning: &'static str,
) -> CodeInfo {
    CodeInfo {
        code,
        severities,
        meaning,
    }
}

/// Every diagnostic code, sorted (byte order), grouped by prefix.
#[rustfmt::skip]
pub const CODES: &[CodeInfo] = &[
    // ANIMATION_
    code("ANIMATION_ROTATION_NOT_UNIT", WARNING_OR_ERROR, "glTF/VRMA input: rotation keys are not unit quaternions: within 0.1 of unit length they are normalised (a warning); beyond it, or not finite, the file is refused at the sampler's output (an error)"),
    // BONE_
    code("BATCH_OUTPUT_COLLISION", ERROR, "Batch: two inputs would be written to one output name; both are refused, each naming the other"),
    code("BONE_HIERARCHY", ERROR, "A mapped bone's nearest mapped ancestor in the joint tree is not the bone its canonical parent chain expects (e.g. a hand mapped above its forearm): the bone map contradicts the skeleton"),
    code("BONE_MAPPED_TWICE", ERROR, "Two humanoid bones are mapped to the same joint"),
    code("BONE_OUTSIDE_HIPS", ERROR, "A mapped humanoid bone is not below the hips joint in the skeleton"),
    code("BONE_UNKNOWN_JOINT", ERROR, "A humanoid bone is mapped to a joint the skeleton does not have"),

    // BVH_
    code("BVH_END_SITE_NAME", INFO, "BVH output: leaf joints were written as End Sites, which carry no name, so they read back as `<parent>_End`"),
    code("BVH_INVALID", ERROR, "BVH input: the file breaks the BVH grammar or a limit (the error names the line:column)"),
    code("BVH_JOINTS_RENAMED", WARNING, "BVH output: mapped joints were renamed to their VRM 1.0 bone names because a reader guessing bones from names would map their original names to other bones"),
    code("BVH_JOINT_POSITIONS", INFO, "BVH output: joints that the clip moves off their rest offset got position channels as well as rotation channels"),
    code("BVH_LAYOUT_CHANNELS", WARNING, "BVH output: the requested channel layout cannot hold a full rotation for some joints, so default channels were written"),
    code("BVH_LAYOUT_MISMATCH", WARNING, "BVH output: the requested channel layout does not describe this skeleton (other joint count or names), so default channels were written"),
    code("BVH_LEAF_ROTATION_DROPPED", INFO, "BVH output: rotation tracks on joints written as End Sites were dropped (an End Site moves nothing)"),
    code("BVH_MESH_DROPPED", INFO, "Retarget to BVH: the model's meshes, materials and humanoid declaration are not written, since BVH holds only a skeleton and its motion"),
    code("BVH_NAME_CHANGED", WARNING, "BVH output: joint names BVH cannot hold (empty, with whitespace or braces, or repeated) were changed"),
    code("BVH_NODES_FOLDED", INFO, "BVH output: unanimated nodes above the skeleton were left out and their transform folded into the ROOT's OFFSET and channels, so every joint keeps its world position"),
    code("BVH_NO_FRAMES", INFO, "BVH input: the MOTION section has no frames, so the clip has no tracks"),
    code("BVH_RESAMPLED", INFO, "BVH output: the clip's keys lie on no regular frame grid, so it was resampled at a fixed rate (the message gives the fps and the largest joint error)"),
    code("BVH_TRACK_IGNORED", WARNING, "BVH output: tracks other than joint tracks (morph weights, expressions, gaze) were not written; BVH animates joints only"),
    code("BVH_TRANSLATION_DROPPED", WARNING, "BVH output: the requested layout gives no position channels to joints the clip translates, so those joints stay at their rest offset"),
    code("BVH_UNITS", INFO, "BVH units: which length unit the file was read or written in (given with --bvh-scale, or guessed from the rest hips height)"),
    code("BVH_UNITS_AMBIGUOUS", WARNING, "BVH output: a reader guessing the unit from the hips height would guess another unit than the one written; the message names the --bvh-scale to read it back with"),
    code("BVH_UNITS_UNKNOWN", WARNING, "BVH input: the rest hips height fits no known unit, so the file was read as metres; give --bvh-scale METRES"),

    // CHANNEL_
    code("CHANNEL_NOT_READ", INFO, "glTF input: an animation channel without a target node (another extension's) or with a path that is not a node property was not read into the clip (glTF-to-glTF conversion keeps it as is)"),

    // CLIP_
    code("CLIP_CHOSEN", INFO, "The input has several clips and one was taken for a one-clip operation; the message says which and why (choose another with --clip NAME)"),
    code("CLIP_STATIC", WARNING, "A clip lasts a while but moves nothing: every track keeps one value (a take baked before its keys, the wrong take, a held pose); it plays, or retargets, as that one pose for its whole length"),

    // CONTACTS_
    code("CONTACTS_NOT_PLANTED", WARNING, "Retarget with contacts: nothing could be planted (no legs mapped on a side, or no foot of the clip rests on a ground); the output is the exact world-delta copy (--contacts off)"),
    code("CONTACTS_PLANTED", INFO, "Retarget with contacts: the source's foot and toe plants were kept on the target by leg IK (and the hips lowered where a foot could not reach); the message gives the plants and the largest change (--report for the figures)"),

    // DOWNGRADE_
    code("DOWNGRADE_ACCESSOR_DUPLICATED", INFO, "VRM 1.0 to 0.x: an accessor read both where values turn to face -Z and where they must not; the turned values went to a new accessor"),
    code("DOWNGRADE_ACCESSOR_REWRITTEN", INFO, "VRM 1.0 to 0.x: an accessor could not be turned to face -Z in place, so it was decoded, turned and written as new float data"),
    code("DOWNGRADE_CAMERA_OR_LIGHT", WARNING, "VRM 1.0 to 0.x: a node holding a camera or light was turned with the scene, so it now looks the opposite way"),
    code("DOWNGRADE_CHANNEL_NOT_TURNED", WARNING, "VRM 1.0 to 0.x: an animation channel without a target node (KHR_animation_pointer or another extension's) was left as it was, not turned to face -Z"),
    code("DOWNGRADE_EXPRESSION_BIND", WARNING, "VRM 1.0 to 0.x: an expression, or one of its binds, has no VRM 0.x form and was dropped"),
    code("DOWNGRADE_EXPRESSION_OVERRIDE", WARNING, "VRM 1.0 to 0.x: expression overrides (blink, look-at, mouth) were dropped; VRM 0.x expressions do not override each other"),
    code("DOWNGRADE_EXPRESSION_SURPRISED", WARNING, "VRM 1.0 to 0.x: the surprised preset, which VRM 0.x lacks, was written as a custom blend shape group named Surprised"),
    code("DOWNGRADE_EXTENSION_DROPPED", WARNING, "VRM 1.0 to 0.x: a VRM 1.0 extension that VRM 0.x cannot carry was dropped"),
    code("DOWNGRADE_FIRST_PERSON_MESH", WARNING, "VRM 1.0 to 0.x: a first-person annotation was dropped or changed (its node holds no mesh, its type is unknown, or its mesh is already annotated)"),
    code("DOWNGRADE_HUMANOID_SETTINGS", INFO, "VRM 1.0 to 0.x: Unity's default avatar settings were written, since VRM 1.0 has none to carry"),
    code("DOWNGRADE_LOOKAT_OFFSET", INFO_OR_WARNING, "VRM 1.0 to 0.x: the look-at offsetFromHeadBone is missing or malformed, so firstPersonBoneOffset was left out and readers use their default"),
    code("DOWNGRADE_LOOKAT_RANGE_DEFAULT", INFO, "VRM 1.0 to 0.x: look-at range maps without inputMaxValue or outputScale got three-vrm's defaults"),
    code("DOWNGRADE_LOOKAT_TYPE", WARNING, "VRM 1.0 to 0.x: a lookAt type other than bone or expression was written as Bone"),
    code("DOWNGRADE_MATERIALS_MTOON", INFO, "VRM 1.0 to 0.x: VRMC_materials_mtoon became 0.x materialProperties (VRM/MToon); what 0.x cannot hold is DOWNGRADE_MTOON_LOST"),
    code("DOWNGRADE_MESH_SHARED", INFO, "VRM 1.0 to 0.x: a mesh bound by an expression or first-person annotation is also held by other nodes, which the 0.x mesh-level entry affects too"),
    code("DOWNGRADE_META_DROPPED", WARNING, "VRM 1.0 to 0.x: meta properties with no VRM 0.x field were dropped"),
    code("DOWNGRADE_META_JOINED", INFO, "VRM 1.0 to 0.x: a meta list (authors, references) was joined into VRM 0.x's single string"),
    code("DOWNGRADE_META_LICENSE", INFO_OR_WARNING, "VRM 1.0 to 0.x: how the VRM 1.0 licence terms were written as a 0.x licenseName (a matching licence, or the most restrictive one when none matches)"),
    code("DOWNGRADE_META_RESTRICTED", WARNING, "VRM 1.0 to 0.x: commercialUsage personalProfit has no 0.x value, so the more restrictive Disallow was written"),
    code("DOWNGRADE_META_THUMBNAIL", INFO_OR_WARNING, "VRM 1.0 to 0.x: the thumbnail image was given a texture (0.x names it by texture), or dropped when it is not a usable image"),
    code("DOWNGRADE_META_VALUE", WARNING, "VRM 1.0 to 0.x: a meta value that is not a VRM 1.0 value was replaced by the most restrictive 0.x value"),
    code("DOWNGRADE_MTOON_LOST", WARNING, "VRM 1.0 to 0.x: MToon fields VRM 0.x cannot hold (shading-shift texture, texture rotation or per-texture transforms, a matcap factor, a rim lighting mix a migration back resets to 1)"),
    code("DOWNGRADE_REST_ANIMATION_BAKED", INFO, "VRM 1.0 to 0.x: animation channels on bones whose rest was baked were rewritten for the new rest frames, so the animated world transforms are unchanged"),
    code("DOWNGRADE_REST_BAKED", WARNING, "VRM 1.0 to 0.x: the rest rotation and scale of bones were baked away (VRM 0.x bones have none); nothing moves in the world, but the bones' own axes change"),
    code("DOWNGRADE_REST_CAMERA_OR_LIGHT", WARNING, "VRM 1.0 to 0.x: a camera or light node's rest rotation was baked away, so it now points along the node's new axes"),
    code("DOWNGRADE_REST_CHANNEL_NOT_BAKED", WARNING, "VRM 1.0 to 0.x: animation channels without a target node were left as they were, not moved into the baked bones' new rest frames"),
    code("DOWNGRADE_REST_MESH_BAKED", INFO, "VRM 1.0 to 0.x: meshes held directly by baked bones had their geometry transformed so they stay in place"),
    code("DOWNGRADE_REST_RADIUS_SCALED", WARNING, "VRM 1.0 to 0.x: spring collider and joint radii were multiplied by the rest scale that was baked away"),
    code("DOWNGRADE_REST_SKIN_REBOUND", INFO, "VRM 1.0 to 0.x: skins' inverse bind matrices were rewritten for the baked bones, so skinned vertices stay in place"),
    code("DOWNGRADE_SAMPLER_SPLIT", INFO, "VRM 1.0 to 0.x: an animation sampler shared by channels whose values turn differently was copied, one copy per kind"),
    code("DOWNGRADE_SPRING_CAPSULE", WARNING, "VRM 1.0 to 0.x: capsule spring colliders were approximated by chains of spheres (VRM 0.x colliders are spheres)"),
    code("DOWNGRADE_SPRING_CHAIN", WARNING, "VRM 1.0 to 0.x: spring joints are followed by a node other than their first child, which VRM 0.x sways toward instead"),
    code("DOWNGRADE_SPRING_GRAVITY", INFO, "VRM 1.0 to 0.x: a gravity direction with a z component was written in Unity space as UniVRM reads it; three-vrm plays it with the opposite z"),
    code("DOWNGRADE_SPRING_INVALID", WARNING, "VRM 1.0 to 0.x: an unusable spring, collider, collider group or center reference was dropped"),
    code("DOWNGRADE_SPRING_NAME", INFO, "VRM 1.0 to 0.x: collider group names were dropped (VRM 0.x groups have no name)"),
    code("DOWNGRADE_SPRING_OVERLAP", WARNING, "VRM 1.0 to 0.x: nodes lie in the subtrees of two bone groups and are swayed by both in VRM 0.x"),
    code("DOWNGRADE_SPRING_SETTINGS", WARNING, "VRM 1.0 to 0.x: springs whose joints have differing settings were written with their first joint's settings (a 0.x bone group has one set)"),
    code("DOWNGRADE_SPRING_SUBTREE", WARNING, "VRM 1.0 to 0.x: a bone group sways the whole subtree of each root, so nodes no VRM 1.0 spring named now sway"),
    code("DOWNGRADE_SPRING_TAIL", INFO, "VRM 1.0 to 0.x: the last joint of each spring, which VRM 1.0 holds still, sways in VRM 0.x"),
    code("DOWNGRADE_TURN", INFO_OR_WARNING, "VRM 1.0 to 0.x: a diagnostic of the turn to face -Z that has no DOWNGRADE_ name of its own (fallback; not emitted today)"),
    code("DOWNGRADE_UNKNOWN_BONE", WARNING, "VRM 1.0 to 0.x: a humanoid entry that is not a VRM 1.0 bone name was dropped"),
    code("DOWNGRADE_VRM1_PROPERTY_DROPPED", INFO, "VRM 1.0 to 0.x: a VRMC_vrm property with no VRM 0.x counterpart was dropped"),

    // EXT_
    code("EXT_ADDED", INFO, "EXT_skeleton_humanoid was added to the output from the VRM humanoid's bone map"),
    code("EXT_BONE_NOT_JOINT", WARNING, "EXT_skeleton_humanoid input: humanoid bones that are not joint nodes of a skin (the extension says they MUST be); read anyway"),
    code("EXT_CHANNEL_BONE", ERROR, "EXT_skeleton_humanoid input: a channel's humanoid bone is missing or not a bone name; the channel is not read"),
    code("EXT_CHANNEL_PATH", ERROR, "EXT_skeleton_humanoid input: a channel's path is not rotation, translation or scale; the channel is not read"),
    code("EXT_CHANNEL_WITH_NODE", WARNING, "EXT_skeleton_humanoid input: a channel targets both a node and a humanoid bone; read as a delta, but readers without the extension apply it to the node as an absolute value"),
    code("EXT_DROPPED", INFO, "VRM output: EXT_skeleton_humanoid was dropped because it repeats the VRMC_vrm bone map"),
    code("EXT_DUPLICATE_CHANNEL", ERROR, "EXT_skeleton_humanoid input: two channels animate the same property of the same humanoid bone"),
    code("EXT_KEPT", INFO, "The input already has EXT_skeleton_humanoid; it was kept as it is"),
    code("EXT_MAPPED", INFO, "A model that declared no humanoid was mapped (by a table or the auto-mapper) and declared with EXT_skeleton_humanoid"),
    code("EXT_NOT_ADDED", WARNING, "EXT_skeleton_humanoid was not added because the VRM humanoid has no hips"),
    code("EXT_NOT_DECLARED", WARNING, "An extension is used but missing from extensionsUsed: EXT_skeleton_humanoid, or KHR_skeleton_bone on nodes (whose skinning rules are then not checked)"),
    code("EXT_REST_NOT_TPOSE", WARNING, "The rest pose declared as humanoid is not a T-pose (arms below horizontal); retargeted motion will be off until the rest is rebased with --normalize"),
    code("EXT_ROOT_NOT_ANCESTOR", ERROR, "EXT_skeleton_humanoid input: the declared rootNode is not an ancestor of the hips node"),
    code("EXT_SAMPLER_SHARED", ERROR, "EXT_skeleton_humanoid input: one sampler serves both an extension channel (deltas) and a plain channel (absolute values), which the spec forbids"),
    code("EXT_UNKNOWN_BONE", ERROR, "EXT_skeleton_humanoid input: a humanoidBones key is not a bone name of the extension"),

    // FBX_
    code("FBX_ANIMATION_SAMPLED", INFO, "FBX input: an animation stack was baked by ufbx into linear keys (the curves' keys plus samples at the scene's frame rate where a curve is not linear)"),
    code("FBX_BIND_POSE_INVERTED", WARNING, "FBX input: a bind pose holds each bone's inverse (world to bone, as MakeHuman writes it) where FBX holds its world; read as is, the character stands upside down: its bones were read inverted, its other nodes keep their own transforms"),
    code("FBX_BLEND_SHAPES_DROPPED", WARNING, "FBX input: a take animates blend shape weights, which are not read (the shapes are morph targets at their default weights)"),
    code("FBX_CLIP_EMPTY", INFO, "FBX input: an animation stack keys no node, so no clip was made of it"),
    code("FBX_INVALID", ERROR, "FBX input: ufbx cannot read the file (truncated, not FBX, over the memory limit); the message is ufbx's reason and its error stack"),
    code("FBX_MESH_TOO_LARGE", ERROR, "FBX input: the meshes expand to more than 2^23 triangle-corner values (corners times one plus blend shapes), counted before anything is allocated"),
    code("FBX_NOT_FINITE", ERROR, "FBX input: a node's rest transform or a mesh's vertex data is NaN, infinite, or beyond 32-bit floats (1e200); the node or mesh is named"),
    code("FBX_REST_FROM_BIND_POSE", INFO, "FBX input: the skeleton's rest is the file's bind pose, not the nodes' own transforms (the pose at export); a clip that does not animate a node keeps it where it stood"),
    code("FBX_SKIN_DROPPED", WARNING, "FBX input: a mesh has several skins; only the first is kept"),
    code("FBX_SPACE_CONVERTED", INFO, "FBX input: the scene was converted to metres, +Y up, +Z forward from the file's unit and axes (named)"),
    code("FBX_TEXTURE_DROPPED", WARNING, "FBX input: a base colour texture was not read (not embedded, or not PNG or JPEG)"),
    code("FBX_WARNING", WARNING, "FBX input: ufbx read the file but warned (its description and how many times)"),

    // GLB_
    code("GLB_TRAILING_BYTES", WARNING, "GLB input: bytes after the length the header declares were ignored"),
    code("GLB_UNKNOWN_CHUNK", WARNING, "GLB input: chunks of unknown type were skipped and are not written back"),

    // GLTF_
    code("GLTF_ACCESSOR_ALIGNMENT", WARNING, "glTF check: an accessor's data does not start at a multiple of its component size"),
    code("GLTF_ACCESSOR_BOUNDS", WARNING, "glTF check: an accessor's min or max has the wrong number of values for its type"),
    code("GLTF_ACCESSOR_EMPTY", WARNING, "glTF check: an accessor has count 0"),
    code("GLTF_ACCESSOR_NORMALIZED", WARNING, "glTF check: an accessor of 32-bit or float components is marked normalized"),
    code("GLTF_ACCESSOR_NOT_FINITE", ERROR, "glTF input: an accessor read for the model holds NaN or an infinity, which glTF forbids"),
    code("GLTF_ACCESSOR_OUT_OF_VIEW", ERROR, "glTF check: an accessor (or its sparse indices or values) needs more bytes than its buffer view has"),
    code("GLTF_ACCESSOR_TYPE", ERROR, "glTF check: an accessor's type is not SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4"),
    code("GLTF_BIND_POSE_DIFFERS", INFO, "glTF input: the skin's inverse bind matrices describe another pose than the nodes' rest; the node rest is used as the reference"),
    code("GLTF_BUFFER_DATA", ERROR, "glTF check: the number of buffers in the JSON differs from the number of data blocks found"),
    code("GLTF_BUFFER_LONGER", WARNING, "glTF check: a buffer's data is longer than its byteLength; the rest is ignored"),
    code("GLTF_BUFFER_TOO_SHORT", ERROR, "glTF check: a buffer's byteLength is more than its data holds"),
    code("GLTF_BYTE_STRIDE", WARNING, "glTF check: a buffer view's byteStride is not a multiple of 4 from 4 to 252"),
    code("GLTF_COMPONENT_TYPE", ERROR, "glTF check: an accessor's (or sparse index's) componentType is not one glTF allows there"),
    code("GLTF_DUPLICATE_TARGET", ERROR, "glTF input: two channels of one animation animate the same property of the same node"),
    code("GLTF_EXTENSION_BUFFER_INDEX", WARNING, "GLB output: buffers were merged into the binary chunk, but buffer indices or offsets inside a buffer view's extensions were not rewritten"),
    code("GLTF_IMAGE_SOURCE", WARNING, "glTF check: an image has both or neither of uri and bufferView"),
    code("GLTF_INDEX_OUT_OF_RANGE", ERROR, "glTF check: an index (node, mesh, accessor, buffer view, ...) points past the end of its array"),
    code("GLTF_INVALID", ERROR, "glTF, GLB, VRM or VRMA input: the container or the JSON breaks the format (the error names the byte offset or JSON pointer)"),
    code("GLTF_NODE_CYCLE", ERROR, "glTF check: the node hierarchy has a cycle (a node is its own ancestor)"),
    code("GLTF_NODE_MATRIX_AND_TRS", ERROR, "glTF check: a node has both a matrix and translation/rotation/scale"),
    code("GLTF_NODE_NOT_FINITE", ERROR, "glTF check: a node's translation, rotation, scale or matrix has a component that is not a finite number"),
    code("GLTF_NODE_TWO_PARENTS", ERROR, "glTF check: a node is the child of two nodes (or listed twice by one)"),
    code("GLTF_ROTATION_NOT_UNIT", WARNING, "glTF check: a node's rotation is not a unit quaternion"),
    code("GLTF_SCENE_ROOT_HAS_PARENT", WARNING, "glTF check: a scene root node is also the child of another node"),
    code("GLTF_SKIN_IBM", WARNING, "glTF input: a skin's inverse bind matrices cannot be read or are fewer than its joints"),
    code("GLTF_SKIN_WEIGHTS", WARNING, "glTF input: a primitive's JOINTS or WEIGHTS accessor cannot be read"),
    code("GLTF_SPARSE_COUNT", ERROR, "glTF check: a sparse accessor's sparse count exceeds the accessor's count"),
    code("GLTF_STRIDE_TOO_SMALL", ERROR, "glTF check: a buffer view's byteStride is smaller than the element size of an accessor using it"),
    code("GLTF_TEXTURE_DROPPED", WARNING, "glTF output built from another format: a texture whose image type glTF cannot hold was not written"),
    code("GLTF_VERSION", ERROR, "glTF input: asset.version is not 2.x (a glTF 1.0 file, or a major version this reader does not know)"),
    code("GLTF_VIEW_OUT_OF_BUFFER", ERROR, "glTF check: a buffer view runs past the end of its buffer"),

    // GODOT_
    code("GODOT_BONE_MAPPED_TWICE", WARNING, "Godot BoneMap input: one skeleton bone is mapped to two profile bones, which Godot marks an error"),
    code("GODOT_BONE_RENAMED", INFO, "Godot output: bone names were written as Godot's importer spells them"),
    code("GODOT_INVALID", ERROR, "Godot input: the resource text breaks the format (the error names the line:column)"),
    code("GODOT_PROFILE_BONE_UNMAPPED", WARNING, "Godot SkeletonProfile input: profile bones that are no canonical humanoid bone were left out"),
    code("GODOT_PROFILE_CANONICAL", INFO, "Godot profile output: Godot's canonical SkeletonProfileHumanoid is written; the input's proportions are not used"),
    code("GODOT_PROFILE_MAPPED", INFO, "Godot SkeletonProfile input: how many profile bones were identified and by what"),
    code("GODOT_PROFILE_NOT_MAPPED", INFO, "Godot SkeletonProfile input: mapping the profile's skeleton failed (the message says why); bones are identified by Godot's names only"),
    code("GODOT_REQUIRED_UNMAPPED", WARNING, "Godot BoneMap: bones that SkeletonProfileHumanoid requires have no skeleton bone"),
    code("GODOT_SECOND_HUMANOID_DROPPED", WARNING, "Godot BoneMap output: the input has several humanoid skeletons and a BoneMap holds one, so only the first is written"),
    code("GODOT_SEVERAL_BONE_MAPS", INFO, "Godot scene input: several skeletons have a BoneMap; the first is used"),

    // HANIM_
    code("HANIM_ALPHA_MODE_DROPPED", WARNING, "H-Anim VRML97 output: materials whose alpha mode (MASK, or BLEND of an opaque colour) VRML97 cannot state were written with their transparency alone"),
    code("HANIM_ANIMATION_TOO_LARGE", WARNING, "H-Anim input: a clip's tracks would hold more values than the reader allows (interpolators shared by many joints), so the clip is dropped"),
    code("HANIM_APPEARANCE_SIMPLIFIED", WARNING, "H-Anim input: parts of an appearance the model has no place for were not read (per-vertex colours, shaders, emissive or back colours, extra or non-image textures, generated texture coordinates)"),
    code("HANIM_BAD_CYCLE_INTERVAL", WARNING, "H-Anim input: a TimeSensor's cycleInterval is not positive; read as 1 s"),
    code("HANIM_BAD_FRAME_DURATION", WARNING, "H-Anim input: an HAnimMotion's frameDuration is not positive; read as 0.1 s"),
    code("HANIM_BAD_SCALE", WARNING, "H-Anim input: the humanoid's scale is not positive; read as 1"),
    code("HANIM_DISPLACER_IGNORED", WARNING, "H-Anim input: a displacer (morph target) was ignored: malformed, no skin to move, or no mesh built on its coordinates"),
    code("HANIM_DUPLICATE_JOINT_NAME", WARNING, "H-Anim input: several joints share a name (kept; mappings take the first)"),
    code("HANIM_EMPTY_INTERPOLATOR", WARNING, "H-Anim input: an interpolator has no keys, so it gives no track"),
    code("HANIM_GZIP", INFO, "H-Anim input: the file was gzip-compressed and was decompressed"),
    code("HANIM_HUMANOID_TRANSFORM", INFO, "H-Anim output: plain nodes above the skeleton were not written as joints; the HAnimHumanoid takes their translation and scale and the joint centres their rotation"),
    code("HANIM_HUMANOID_TRANSFORM_BAKED", WARNING, "H-Anim output: nodes above the skeleton have shear or a non-uniform or mirroring scale the HAnimHumanoid cannot hold, so it was baked into the joint centres"),
    code("HANIM_INVALID", ERROR, "H-Anim input (X3D XML, ClassicVRML, VRML97): the file breaks its encoding's grammar or a limit (the error names the line:column)"),
    code("HANIM_JOINTS_RENAMED", INFO, "H-Anim output: joints were named by their H-Anim names (from the hanim mapping table)"),
    code("HANIM_JOINTS_WRITTEN", INFO, "H-Anim output: how many joints were written, the top joints and the level of articulation"),
    code("HANIM_JOINT_NOT_IN_SKELETON", WARNING, "H-Anim input: joints in the humanoid's joints list that its skeleton does not reach were ignored"),
    code("HANIM_JOINT_OUTSIDE_HUMANOID", WARNING, "H-Anim input: joint nodes outside every humanoid's skeleton were ignored"),
    code("HANIM_JOINT_SHARED", WARNING, "H-Anim input: a joint belongs to two humanoids; it is read once"),
    code("HANIM_JOINT_UNDER_TRANSFORM", WARNING, "H-Anim input: a joint sits under a Transform inside its parent joint; that Transform is ignored"),
    code("HANIM_JOINT_UNNAMED", WARNING, "H-Anim input: a joint without a name was given one"),
    code("HANIM_MESH_DROPPED", WARNING, "H-Anim output: meshes with inconsistent vertex data (or too many vertices) were not written"),
    code("HANIM_MESH_OUTSIDE", INFO, "H-Anim output: rigid shapes on no written joint were written beside the humanoid"),
    code("HANIM_MESH_SKIPPED", WARNING, "H-Anim input: segment or skin shapes without usable triangles (lines, points, bad indices) were skipped"),
    code("HANIM_MOTION_DISABLED", INFO, "H-Anim input: an HAnimMotion is disabled in the file (enabled FALSE); it is read anyway"),
    code("HANIM_MOTION_EMPTY", WARNING, "H-Anim input: an HAnimMotion has no complete frame, so it gives no clip"),
    code("HANIM_MOTION_JOINT_UNKNOWN", WARNING, "H-Anim input: an HAnimMotion animates joints the humanoid does not have; those channels are ignored"),
    code("HANIM_MOTION_MISMATCH", WARNING, "H-Anim input: an HAnimMotion's joint names, channels and values do not line up; the extra names or trailing values are ignored"),
    code("HANIM_NAME_DEDUPLICATED", WARNING, "H-Anim output: joint names were changed to stay valid and unique"),
    code("HANIM_NAME_REPAIRED", WARNING, "H-Anim input: a joint's name was read as another (a known misspelling, or a second joint of one name given its side)"),
    code("HANIM_NESTED_HUMANOID", WARNING, "H-Anim input: a humanoid inside another humanoid's skeleton was ignored"),
    code("HANIM_NONSTANDARD_JOINTS", WARNING, "H-Anim input: joints with names H-Anim does not define (kept)"),
    code("HANIM_NONUNIFORM_SCALE", WARNING, "H-Anim input: the humanoid's scale is not uniform; read as the mean uniform scale"),
    code("HANIM_NOT_UTF8", WARNING, "H-Anim input: the file is not valid UTF-8; invalid bytes were read as U+FFFD"),
    code("HANIM_NO_HEADER", WARNING, "H-Anim input: the file has no `#VRML V2.0 utf8` or `#X3D` header; read as ClassicVRML"),
    code("HANIM_NO_HUMANOID_NODE", WARNING, "H-Anim input: joint trees outside any HAnimHumanoid were read as a humanoid of their own"),
    code("HANIM_NO_SKELETON", WARNING, "H-Anim input: the humanoid has no skeleton field; its joint tree was rebuilt from the joints list"),
    code("HANIM_PROTO_FIELD_MISSPELLED", WARNING, "H-Anim input: a PROTO declares a field that is a misspelling of an H-Anim field; values given to it are not read"),
    code("HANIM_RESAMPLED", INFO, "H-Anim output: a cubic-spline track was sampled at a fixed rate (H-Anim interpolators are linear)"),
    code("HANIM_ROOT_NOT_TOP", WARNING, "H-Anim output: the skeleton's top joints are not the humanoid root, because joints above the hips carry weights, animation, a socket or several children"),
    code("HANIM_ROUTE_IGNORED", WARNING, "H-Anim input: a ROUTE to a joint field other than rotation, translation or scale, or to a node that is neither joint nor displacer, was not animated"),
    code("HANIM_SCALE_DROPPED", WARNING, "H-Anim output: joints with a rest scale other than 1 were written unscaled (their centres are exact)"),
    code("HANIM_SEVERAL_HUMANOIDS", WARNING, "H-Anim input: the file has several humanoids; all their joints are read and the first is mapped"),
    code("HANIM_SITE_FOLLOWS_JOINT", WARNING, "H-Anim output: a socket that does not follow all of its joint's motion was written as a Site, which always follows its joint fully"),
    code("HANIM_SITE_SCALE_DROPPED", WARNING, "H-Anim 1.1 output: a socket's scale was dropped (the 1.1 Site has no scale field)"),
    code("HANIM_SITE_SHEARED", WARNING, "H-Anim output: the shear in a socket's rest world transform was dropped (a Site cannot hold it)"),
    code("HANIM_SKIN_POINTS_UNUSED", INFO, "H-Anim input: skin points in no triangle of the skin shapes were left out"),
    code("HANIM_SKIN_UNWEIGHTED", WARNING, "H-Anim input: skin vertices with no joint weight follow the root"),
    code("HANIM_SKIN_WEIGHT_IGNORED", WARNING, "H-Anim input: skinCoordIndex entries that name no skin vertex (or have no finite weight) were ignored"),
    code("HANIM_SOCKET_DROPPED", WARNING, "H-Anim output: a socket on a joint that is not written was dropped"),
    code("HANIM_TEXCOORD_IGNORED", WARNING, "H-Anim input: texture coordinate indices that do not match the geometry; the shape's texture coordinates were not read"),
    code("HANIM_TEXTURE_UNREADABLE", WARNING, "H-Anim input: a texture image could not be read; the mesh keeps its colour"),
    code("HANIM_TOES_CHOSEN", INFO, "H-Anim 1.x input: a foot's toes bone was mapped to the joint at the ball of the foot (the message says which and why)"),
    code("HANIM_TRACKS_DROPPED", WARNING, "H-Anim output: tracks on bones, expressions, morph weights or joints that are not written were dropped (retarget onto the skeleton first)"),
    code("HANIM_TRACK_DROPPED", WARNING, "H-Anim input: an interpolator's track could not be read (bad keys or values) and was dropped"),
    code("HANIM_TRACK_DUPLICATE", WARNING, "H-Anim input: a second interpolator for the same joint property or displacer weight was ignored"),
    code("HANIM_UNCLOCKED", WARNING, "H-Anim input: interpolators that no TimeSensor drives were gathered into a clip `unclocked` of 1 s per cycle"),
    code("HANIM_UNIT_IGNORED", INFO, "H-Anim input: an X3D UNIT statement was not applied (factor not positive, or a category the reader does not read)"),
    code("HANIM_XML_IGNORED", INFO, "X3D input: an element under `<X3D>` that is not `<head>` or `<Scene>` was ignored"),

    // HUMANOID_
    code("HUMANOID_MAPPED", INFO, "A rig that declares no humanoid was mapped: how many bones, by which table or the auto-mapper, and required bones not found"),
    code("HUMANOID_NOT_MAPPED", INFO, "A rig that declares no humanoid could not be mapped to humanoid bones (the message says why); it is read as a plain skeleton"),

    // MESH_
    code("INPUT_INVALID", ERROR, "an input of no known format cannot be read"),
    code("INPUT_NOT_A_FILE", ERROR, "an input (or a file it names) is a folder, a FIFO, a device or a socket, not a regular file: refused before reading"),
    code("INPUT_NOT_UTF8", ERROR, "a text input is not UTF-8 (UTF-16, or invalid bytes): the error names the byte offset"),
    code("INPUT_TOO_LARGE", ERROR, "an input is over its size limit (docs/limits.md; an environment variable raises it for trusted files)"),
    code("IO_FAILED", ERROR, "reading or writing a file failed (the system's reason)"),
    code("KHR_CHARACTER_INVALID", ERROR, "KHR_character or KHR_character_skeleton_mapping is malformed: a value of the wrong type, a node index out of range, a required property missing (the JSON pointer says where)"),
    code("KHR_CHARACTER_KEPT", INFO, "the file already declares KHR_character: --khr-character keeps it as it is and adds nothing"),
    code("KHR_CHARACTER_NOT_WRITTEN", WARNING, "KHR_character was asked for but not written: the character has no humanoid, or no hips"),
    code("KHR_CHARACTER_WRITTEN", INFO, "KHR_character, its skeleton mapping, a reference pose and look-at target nodes were added to the output (what, and how many)"),
    code("KHR_EXPRESSION_CHANNEL_DROPPED", WARNING, "KHR_character_expression to VRM: an expression animation's channel was dropped: VRM holds no bind for its target (a texture swap, another pointer), or it cannot be read (the message says why)"),
    code("KHR_EXPRESSION_DROPPED", WARNING, "VRM to KHR_character_expression: an expression, or one of its binds, was dropped: not an object, or a node, mesh, morph target or material it names does not exist (the message says which)"),
    code("KHR_EXPRESSION_DUPLICATE", WARNING, "KHR_character_expression: two expressions share a name (check), or a second VRM or KHR expression of a name was dropped in conversion (the first is kept)"),
    code("KHR_EXPRESSION_EMPTY", INFO, "VRM to KHR_character_expression: an expression with no morph target or texture transform bind left got no animation"),
    code("KHR_EXPRESSION_INVALID", ERROR, "KHR_character_expression or its typed channel lists (_morphtarget, _texture, _joint) break the draft schema: a required property missing, a wrong type, an index out of range, a repeated channel, a morph target channel not driving weights (the JSON pointer says where)"),
    code("KHR_EXPRESSION_JOINT_DROPPED", WARNING, "KHR_character_expression to VRM: an expression's joint channels (node translation, rotation, scale) were dropped: a VRM expression cannot move nodes"),
    code("KHR_EXPRESSION_MATERIAL_DROPPED", WARNING, "VRM to KHR_character_expression: an expression's material colour binds (VRM 1.0) or material values (VRM 0.x) were dropped: the drafts have no form for them"),
    code("KHR_EXPRESSION_PRESENT", INFO, "VRM to KHR_character_expression: the document already has KHR_character_expression, so nothing was added"),
    code("KHR_LOOKAT_TARGET_INVALID", ERROR, "KHR_node_lookat_target is not an object with only a non-empty string hint"),
    code("KHR_MAPPING_BONES_LEFT_OUT", INFO, "the vrmHumanoid skeleton mapping was written without the eyes and the jaw, which its convention leaves to KHR_character_expression"),
    code("KHR_MAPPING_NAME_MISMATCH", WARNING, "KHR_character_skeleton_mapping: an entry's name is not its node's name (it MUST be); the node index is used"),
    code("KHR_MAPPING_NO_HUMANOID", INFO, "KHR_character_skeleton_mapping maps no rig we know as the VRM humanoid (vrmHumanoid, or a URI ending in VRMC_vrm-1.0/humanoid.md): its rigs stay in the file, unread"),
    code("KHR_MAPPING_READ", INFO, "the humanoid is the one KHR_character_skeleton_mapping declares (its VRM humanoid rig), taken as it is"),
    code("KHR_MAPPING_UNKNOWN_BONE", WARNING, "KHR_character_skeleton_mapping: entries that name no VRM humanoid bone or no node were not read"),
    code("KHR_REFERENCE_POSE_EXTRA", WARNING, "a file has several KHR_character_reference_pose animations: the first is the reference pose, the others are kept in the file and not read"),
    code("KHR_REFERENCE_POSE_INVALID", ERROR, "KHR_character_reference_pose: poseType is not a non-empty string, or a channel of the pose is not a node translation, rotation or scale"),
    code("KHR_REFERENCE_POSE_KEYS", WARNING, "a KHR_character_reference_pose channel has more than one key (the pose is static): its first key is the pose"),
    code("KHR_SKELETON_BONE_ATTACHMENT", ERROR, "KHR_skeleton_bone: a bone node (a joint, or a node carrying the extension) carries a mesh, camera or KHR_lights_punctual light, which the extension forbids; move it to a child node"),
    code("KHR_SKELETON_BONE_CONNECTED", WARNING_OR_ERROR, "KHR_skeleton_bone: a bone says connected but its local translation is not (0, parent length, 0), its parent bone's tail (error), or its parent is no bone, where connected means nothing (warning)"),
    code("KHR_SKELETON_BONE_DROPPED", WARNING, "the input lists KHR_skeleton_bone but breaks its rules: the output leaves the extension off rather than repeat a false claim"),
    code("KHR_SKELETON_BONE_INVALID", ERROR, "KHR_skeleton_bone: a node's extension breaks the schema (not an object, connected not a boolean, length not a number or negative)"),
    code("KHR_SKELETON_BONE_LEFT_OFF", INFO, "KHR_skeleton_bone is not written: the file has no skin, or a rule cannot be met without changing what is drawn (the message says which)"),
    code("KHR_SKELETON_BONE_MESH_PLACEMENT", ERROR, "KHR_skeleton_bone: a skinned mesh node is not a direct child of its skin's skeleton root, as the extension requires"),
    code("KHR_SKELETON_BONE_NOT_CONTIGUOUS", ERROR, "KHR_skeleton_bone: a joint does not hang from its skin's skeleton root through bones only (the message names the node in the way, or says the root is not above the joint)"),
    code("KHR_SKELETON_BONE_NO_SKELETON", ERROR, "KHR_skeleton_bone: a skin has no skeleton, which the extension requires of every skin"),
    code("KHR_SKELETON_BONE_OUTSIDE_SKELETON", WARNING, "KHR_skeleton_bone: a node carries the extension (so it is a bone) but does not hang through bones from any skin's skeleton root, as every bone should"),
    code("KHR_SKELETON_BONE_REQUIRED", WARNING, "KHR_skeleton_bone is listed in extensionsRequired, where the draft says it should not be"),
    code("KHR_SKELETON_BONE_SKELETON_CONFLICT", ERROR, "KHR_skeleton_bone: two skins share a joint but not their skeleton node, which the extension forbids"),
    code("KHR_SKELETON_BONE_UNKNOWN_PROPERTY", WARNING, "KHR_skeleton_bone: a node's extension has a property the extension does not define (readers ignore it)"),
    code("KHR_SKELETON_BONE_WRITTEN", INFO, "KHR_skeleton_bone was written on every bone (lengths, connected flags; skinned mesh nodes moved under the skeleton root where nothing drawn moves)"),
    code("KHR_VISIBILITY_AUTO", INFO, "VRM to KHR_node_visibility_hint: first-person annotations of type auto, which the drafts leave out, were written as the vendor role VRMC_auto (other readers treat it as always)"),
    code("KHR_VISIBILITY_DROPPED", WARNING, "VRM to KHR_node_visibility_hint: a first-person annotation was dropped: an unknown type, a node or mesh that does not exist, or a node already annotated or hinted"),
    code("KHR_VISIBILITY_INVALID", ERROR, "KHR_node_visibility_hint or KHR_mesh_primitive_visibility_hint breaks the draft schema: not an object, role missing, not a string or empty, label not a non-empty string (the JSON pointer says where)"),
    code("KHR_VISIBILITY_MIXED", WARNING, "visibility hints to VRM: a mesh's primitives have different roles, or roles other than their node's; VRM annotates whole meshes, so the node's role is used, or none"),
    code("KHR_VISIBILITY_UNKNOWN_ROLE", WARNING, "visibility hints to VRM: a role that is not always, first_person, third_person or VRMC_auto was written as both (readers treat unknown roles as always)"),
    code("MAPPING_TABLE_INVALID", ERROR, "a mapping table (TOML) breaks the table format (the error names the line:column)"),
    code("MATERIAL_TOON_DROPPED", WARNING, "an output made from the model (H-Anim, a GLB built from H-Anim or BVH) holds no toon shading: MToon materials keep their base colour and texture only"),
    code("MESH_ATTRIBUTES_DROPPED", WARNING, "glTF meshes read into the model: vertex attributes the model does not hold were not carried"),
    code("MESH_INFLUENCES_TRUNCATED", WARNING, "glTF meshes read into the model: vertices with more than 4 joint influences keep the 4 largest, renormalised"),
    code("MESH_MATERIAL_SIMPLIFIED", WARNING, "glTF meshes read into the model: material properties the model does not hold were not carried"),
    code("MESH_NOT_SKINNED", WARNING, "glTF input: a primitive of a skinned node has no JOINTS_0, so it is drawn rigidly with its node"),
    code("MESH_PRIMITIVES_DROPPED", WARNING, "glTF meshes read into the model: primitives of points or lines, or with compressed vertex data, were not carried"),
    code("MESH_UNWEIGHTED", WARNING, "glTF meshes read into the model: skinned vertices with no weight follow the skin's first joint"),
    code("MESH_VERTICES_UNUSED", INFO, "glTF meshes read into the model: vertices of shared vertex buffers that no triangle of the primitive uses were left out"),

    // MIGRATE_
    code("MIGRATE_ACCESSOR_DUPLICATED", INFO, "VRM 0.x to 1.0: an accessor read both where values turn to face +Z and where they must not; the turned values went to a new accessor"),
    code("MIGRATE_ACCESSOR_REWRITTEN", INFO, "VRM 0.x to 1.0: an accessor could not be turned to face +Z in place, so it was decoded, turned and written as new float data"),
    code("MIGRATE_BONE_LIMITS_DROPPED", WARNING, "VRM 0.x to 1.0: per-bone Unity muscle limits were dropped (no VRM 1.0 counterpart)"),
    code("MIGRATE_BONE_NODE_SHARED", WARNING, "VRM 0.x to 1.0: two humanoid bones are the same node; VRM 1.0 wants one node per bone"),
    code("MIGRATE_CAMERA_OR_LIGHT", WARNING, "VRM 0.x to 1.0: a node holding a camera or light was turned with the scene, so it now looks the opposite way"),
    code("MIGRATE_CHANNEL_NOT_TURNED", WARNING, "VRM 0.x to 1.0: an animation channel without a target node (KHR_animation_pointer or another extension's) was left as it was, not turned to face +Z"),
    code("MIGRATE_DUPLICATE_BONE", WARNING, "VRM 0.x to 1.0: a humanoid bone is listed twice; the first entry is kept"),
    code("MIGRATE_EXPRESSION_BIND", WARNING, "VRM 0.x to 1.0: a blend shape group's morph bind was dropped (the message says why)"),
    code("MIGRATE_EXPRESSION_DROPPED", WARNING, "VRM 0.x to 1.0: a blend shape group that is not an object was dropped"),
    code("MIGRATE_EXPRESSION_DUPLICATE", WARNING, "VRM 0.x to 1.0: a second blend shape group for an expression already made was dropped"),
    code("MIGRATE_EXPRESSION_MATERIAL", WARNING, "VRM 0.x to 1.0: a blend shape group's material value was dropped (the message says why)"),
    code("MIGRATE_FIRST_PERSON_BONE", WARNING, "VRM 0.x to 1.0: firstPersonBone is not the head, and VRM 1.0 measures the offset from the head, so the offset now starts at the head"),
    code("MIGRATE_FIRST_PERSON_FLAG", WARNING, "VRM 0.x to 1.0: an unknown firstPersonFlag was written as auto"),
    code("MIGRATE_FIRST_PERSON_MESH", WARNING, "VRM 0.x to 1.0: a first-person annotation of a mesh no node holds was dropped"),
    code("MIGRATE_HUMANOID_SETTINGS_DROPPED", INFO, "VRM 0.x to 1.0: Unity avatar settings were dropped (no VRM 1.0 counterpart)"),
    code("MIGRATE_LOOKAT_CURVE_DROPPED", WARNING, "VRM 0.x to 1.0: a look-at range curve that is not the identity was dropped (VRM 1.0 range maps are linear)"),
    code("MIGRATE_LOOKAT_OFFSET", INFO_OR_WARNING, "VRM 0.x to 1.0: firstPersonBoneOffset is missing or malformed, so offsetFromHeadBone was left out and readers use their default"),
    code("MIGRATE_LOOKAT_RANGE_DEFAULT", INFO, "VRM 0.x to 1.0: a missing look-at range (xRange, yRange) got the default"),
    code("MIGRATE_MATERIALS_DROPPED", WARNING, "VRM 0.x to 1.0: VRM 0.x shader parameters of a shader other than MToon and the legacy unlit ones were not migrated; those materials render as their plain glTF material"),
    code("MIGRATE_MESH_SHARED", INFO, "VRM 0.x to 1.0: an annotated mesh is held by several nodes, and each got the annotation (UniVRM annotates only the first)"),
    code("MIGRATE_META_CONFLICT", WARNING, "VRM 0.x to 1.0: commercialUssageName and licenseName disagree on commercial use; the stricter was written"),
    code("MIGRATE_META_LICENSE", INFO, "VRM 0.x to 1.0: the 0.x licenseName was kept as the VRM 1.0 terms it grants"),
    code("MIGRATE_META_LICENSE_UNKNOWN", WARNING, "VRM 0.x to 1.0: the licence is missing, unknown or Other, so the most restrictive VRM 1.0 terms were written; review the meta"),
    code("MIGRATE_META_MISSING", WARNING, "VRM 0.x to 1.0: a meta string VRM 1.0 requires is missing; an empty string was written"),
    code("MIGRATE_META_OVERRIDDEN", INFO, "VRM 0.x to 1.0: a meta field was set by a command-line flag (--vrm-name, --vrm-author, --vrm-license-url)"),
    code("MIGRATE_META_THUMBNAIL", WARNING, "VRM 0.x to 1.0: the meta texture is not a texture with an image, so the thumbnail was dropped"),
    code("MIGRATE_META_UNKNOWN_KEY", INFO, "VRM 0.x to 1.0: a meta property that is not VRM 0.x's was dropped"),
    code("MIGRATE_META_VALUE", WARNING, "VRM 0.x to 1.0: a meta value that is not a VRM 0.x value was replaced by the most restrictive VRM 1.0 value"),
    code("MIGRATE_MTOON", INFO, "VRM 0.x to 1.0: materials migrated from their 0.x shader (VRMC_materials_mtoon, or KHR_materials_unlit for the legacy unlit shaders), as UniVRM migrates them"),
    code("MIGRATE_MTOON_RIM_MIX", INFO, "VRM 0.x to 1.0: an MToon _RimLightingMix other than 1 became rimLightingMixFactor 1, as UniVRM migrates it"),
    code("MIGRATE_MTOON_SHADE_TEXTURE", INFO, "VRM 0.x to 1.0: an MToon material without _ShadeTexture got the main texture as its shade multiply texture, as UniVRM migrates it"),
    code("MIGRATE_SAMPLER_SPLIT", INFO, "VRM 0.x to 1.0: an animation sampler shared by channels whose values turn differently was copied, one copy per kind"),
    code("MIGRATE_SPRING_BRANCH", WARNING, "VRM 0.x to 1.0: nodes swayed as second or later children in a spring tree are not joints of any VRM 1.0 spring (as in UniVRM's migration)"),
    code("MIGRATE_SPRING_DEFAULT", INFO, "VRM 0.x to 1.0: a bone group's missing settings got UniVRM 0.x's defaults"),
    code("MIGRATE_SPRING_GRAVITY", INFO, "VRM 0.x to 1.0: a gravity direction with a z component was read in Unity space and written as (-x, y, z), as UniVRM does"),
    code("MIGRATE_SPRING_INVALID", WARNING, "VRM 0.x to 1.0: an unusable collider or collider group was dropped (or kept empty so that indices hold)"),
    code("MIGRATE_SPRING_TAIL", INFO_OR_WARNING, "VRM 0.x to 1.0: tail nodes 7 cm beyond spring leaves were added (VRM 1.0 springs end at a node), or a leaf without a translation got its tail on the node"),
    code("MIGRATE_UNKNOWN_BONE", WARNING, "VRM 0.x to 1.0: a humanoid entry that is not a VRM 0.x bone name was dropped"),
    code("MIGRATE_UNLIT_ZWRITE", INFO, "VRM 0.x to 1.0: a VRM/UnlitTransparentZWrite material became a KHR_materials_unlit BLEND material, which writes no depth"),
    code("MIGRATE_VRM0_PROPERTY_DROPPED", INFO, "VRM 0.x to 1.0: a property of the VRM extension that is not VRM 0.x's was dropped"),

    // MORPH_
    code("MORPH_TARGETS_LIMITED", INFO, "Preview: a mesh has more morph targets than a frame draws; each frame draws the largest non-zero weights"),
    code("MORPH_TARGETS_NOT_DRAWN", WARNING, "Preview: a mesh's morph targets need more GPU memory than the GPU binds, so it is drawn at its base shape"),
    code("MORPH_WEIGHTS_NOT_PLAYED", WARNING, "Preview: a weights track holds another number of weights than the mesh has morph targets, so the mesh keeps its default weights"),

    // NON_
    code("NON_JOINT_NODES_DROPPED", INFO, "Nodes that are no bones (meshes, cameras, lights, nodes outside the rig) were left out of the skeleton written"),

    // NORMALIZE_
    code("NORMALIZE_BIND_POSE_DIFFERS", INFO, "--normalize: the inverse bind matrices describe another pose than the node rest; the node rest was measured (--rest bind measures the bind pose)"),
    code("NORMALIZE_CHANNELS_ADDED", INFO, "--normalize: rotation channels were added to clips that did not rotate a node whose rest changed, so they play as before"),
    code("NORMALIZE_DEVIATION_LEFT", WARNING, "--normalize: bones are still off their canonical direction (each is measured to a joint that does not follow it)"),
    code("NORMALIZE_EXT_CHANNELS", INFO, "--normalize: EXT_skeleton_humanoid channels were kept as they are (deltas from the T-pose, which the rest now is)"),
    code("NORMALIZE_FACING", WARNING, "--normalize: the declared facing and the facing measured from hips and shoulders disagree; the T-pose follows the skeleton"),
    code("NORMALIZE_MATRIX_SHEAR", WARNING, "--normalize: a node matrix with shear was replaced by its closest translation, rotation and scale"),
    code("NORMALIZE_MESH_NOT_REBOUND", WARNING, "--normalize --rebind: a mesh drawn with different skins (or skinned and not) was not rebound, so it does not draw as before"),
    code("NORMALIZE_NOT_MEASURED", INFO, "--normalize: the vertex deviation was not measured because the mesh data are compressed"),
    code("NORMALIZE_REBIND_DEVIATION", INFO_OR_WARNING, "--normalize --rebind: the largest vertex deviation from the input over the clips (a warning above 1e-4 m)"),
    code("NORMALIZE_REFERENCE_POSE", INFO, "convert --normalize measured the reference pose the file declares (KHR_character_reference_pose) rather than the node rest"),
    code("NORMALIZE_REST", INFO, "--normalize: the rest pose was baked into the canonical T-pose; how many node rotations changed, per bone"),
    code("NORMALIZE_VERTEX_DEVIATION", INFO, "--normalize: the largest vertex deviation from the input over the clips"),

    // PREVIEW_
    code("PREVIEW_ADAPTER", INFO, "demo: which GPU adapter rendered the previews"),
    code("PREVIEW_NOT_DRAWN", INFO, "Preview: material channels the preview does not draw (each mesh is drawn with its base colour and texture; the file keeps them)"),
    code("PREVIEW_NO_GPU", WARNING, "demo: no GPU could render, so the previews show the skeleton only"),
    code("PREVIEW_SKELETON_ONLY", INFO, "Preview: drawn on the CPU, skeleton and sockets only, no meshes"),

    // RETARGET_
    code("REQUEST_UNSUPPORTED", ERROR, "the request cannot be carried out (an output that exists, a format that cannot hold the input): the message says what to do"),
    code("RETARGET_HIPS_HEIGHT", WARNING, "Retarget: the hips motion was scaled by the ratio of the target's rest hips height to the source's"),

    // SOCKETS_
    code("SOCKETS_CARRIED", INFO, "Retarget --carry-sockets: sockets of the animation file were carried onto the model by bone"),
    code("SOCKETS_NOT_DRAWN", WARNING, "Preview: the sockets could not be read (the message says why) and are not drawn"),

    // SOCKET_
    code("SOCKET_CARRIED_FLAGS", INFO, "A socket on an unmapped joint was re-expressed on its mapped bone at rest, which is exact only for a socket that follows its joint fully"),
    code("SOCKET_DROPPED", WARNING, "The output format cannot hold sockets, so a socket was not written"),
    code("SOCKET_NOT_CARRIED", WARNING, "A socket was not carried onto the target (no humanoid, no such bone, or the target has its own socket of that name)"),
    code("SOCKET_SCALE_FROM_HIPS", INFO, "A carried socket's bone has no length on both rigs, so its offset was scaled by the ratio of the hips heights"),

    // TEXTURE_
    code("TEXTURE_UNREADABLE", WARNING, "Preview: a texture image could not be decoded or is larger than the GPU allows; the mesh is drawn without it"),

    // TRACK_
    code("TRACK_DROPPED", WARNING, "Retarget: a joint track was dropped when turned into humanoid bone tracks (its joint is no humanoid bone, it is neither a rotation nor the hips translation, or it cannot be converted)"),

    // VERTEX_
    code("VERTEX_UNWEIGHTED", WARNING, "glTF input: skinned vertices with no weight follow the skin's first joint"),

    // VRM0_
    code("VRM0_KEPT", INFO, "VRM 0.x input to .vrm: the output stays VRM 0.x (--to vrm1 migrates it)"),
    code("VRM0_NO_EXT", INFO, "VRM 0.x input: EXT_skeleton_humanoid was not added (0.x faces -Z and the extension requires +Z); migrate with --to vrm1 first"),
    code("VRM0_REST_ROTATION", WARNING, "VRM 0.x check: a humanoid bone has a rest rotation (VRM 0.x bones have none)"),

    // VRMA_
    code("VRMA_EYES_DROPPED", WARNING, "VRMA output: eye bones were not written (a VRMA's gaze is its lookAt node)"),
    code("VRMA_EYE_BONE", WARNING, "VRMA check: the humanoid maps leftEye or rightEye, which players ignore (the gaze is the lookAt node)"),
    code("VRMA_FIRST_CLIP", INFO, "VRMA output: several clips were written, and players play only the first"),
    code("VRMA_HIPS_HEIGHT", ERROR, "VRMA check: a clip moves the hips but the rest hips do not stand above y = 0, which players need to scale the hips motion"),
    code("VRMA_OFFSET_NODES", INFO, "VRMA output: bones that do not hang rigidly from their mapped parent hang from added non-humanoid nodes with translation tracks"),
    code("VRMA_REBASED", INFO, "VRMA output: the VRMA rests in the VRM T-pose facing +Z with the hips above the ground, and the clip was retargeted onto that rest"),
    code("VRMA_REST_SCALE", WARNING, "VRMA check: the rest pose has scaled nodes, which VRMA strongly recommends against (the scale is kept)"),
    code("VRMA_TRACK_DROPPED", WARNING, "VRMA input or output: tracks a VRMA cannot hold were dropped (scales, translations other than the hips', eye tracks; expression and gaze tracks not carried onto a rebased VRMA)"),

    // VRM_
    code("VRM_ADDED", INFO, "VRM output: VRMC_vrm was added from the EXT_skeleton_humanoid bone map"),
    code("VRM_BONE_DROPPED", WARNING, "VRM output: mapped bones were left out of the humanoid because VRM allows them only where the bone before them is mapped"),
    code("VRM_BONE_LISTED_TWICE", ERROR, "VRM input: a humanoid bone is listed twice; the first entry is used"),
    code("VRM_BONE_NEEDS_PARENT", ERROR, "VRM check: a bone is mapped without the parent bone VRM requires for it (upperChest needs chest, finger segments need the one before)"),
    code("VRM_BONE_NOT_JOINT", INFO, "VRM input: humanoid bones that are not joints of any skin"),
    code("VRM_BONE_SCALE", WARNING_OR_ERROR, "VRM check: a humanoid bone has a non-positive scale (error) or a non-uniform one (warning)"),
    code("VRM_BOTH_VERSIONS", WARNING, "VRM input: the file has both VRMC_vrm (1.0) and VRM (0.x) and their bone maps agree; VRM 1.0 is read"),
    code("VRM_FACING", WARNING_OR_ERROR, "VRM check: the model does not face the way its version requires (1.0 and VRMA +Z, an error; 0.x -Z, a warning)"),
    code("VRM_FIRST_SKELETON", WARNING, "VRM output: the input declares several humanoid skeletons and VRM holds one, so skeleton 0 is used"),
    code("VRM_GAZE_FOLLOWS_HEAD", WARNING, "VRM output: the gaze_origin socket does not follow all its parent's motion, but the VRM gaze origin always follows the head"),
    code("VRM_GAZE_FROM_SOCKET", INFO, "VRM output: the look-at offset was written from the gaze_origin socket"),
    code("VRM_GAZE_MOVED_TO_HEAD", INFO, "VRM output: the gaze_origin socket is not on the head, so its rest place was written as an offset from the head"),
    code("VRM_GAZE_NO_HEAD", WARNING, "VRM output: the gaze_origin socket was kept as a virtual transform because the humanoid has no head"),
    code("VRM_GAZE_ROTATION_DROPPED", WARNING, "VRM output: the gaze_origin socket's rotation was dropped (VRM stores only the offset)"),
    code("VRM_GAZE_SEVERAL", WARNING, "VRM output: several gaze_origin sockets; the first became the VRM gaze origin, the others stay virtual transforms"),
    code("VRM_GAZE_SOCKET", INFO, "VRM to glTF: the VRM gaze origin was written as a gaze_origin virtual transform on the head"),
    code("VRM_LOOK_AT_TYPE", WARNING, "VRM input: an unknown lookAt type was read as bone"),
    code("VRM_META_DEFAULTED", WARNING, "VRM 1.0 output: meta fields not given were filled with defaults (file name, unknown author, VRM Public License); set them with --vrm-name, --vrm-author, --vrm-license-url"),
    code("VRM_META_LICENSE_URL", ERROR, "VRM 1.0 check: meta.licenseUrl is not the VRM Public License, which VRM 1.0 (and three-vrm) requires"),
    code("VRM_MISSING_BONES", ERROR, "VRM check: required humanoid bones are missing (VRM 1.0 and VRMA: 15, VRM 0.x: 17)"),
    code("VRM_NOT_DECLARED", WARNING, "VRM input: VRMC_vrm (or VRM) is used but missing from extensionsUsed"),
    code("VRM_SPEC_VERSION", WARNING, "VRM input: VRMC_vrm's specVersion is not 1.0"),
    code("VRM_STRIPPED", INFO, "--strip-vrm: the VRM extensions were removed as asked"),
    code("VRM_TURNED", INFO, "VRM 1.0 output: the model faced -Z and was turned 180° about +Y to face +Z (every node, vertex and animation key)"),
    code("VRM_UNKNOWN_BONE", ERROR, "VRM input: a humanoid entry that is not a bone name of its VRM version was ignored"),
    code("VRM_VERSIONS_DISAGREE", ERROR, "VRM input: the file has both VRMC_vrm (1.0) and VRM (0.x) and their bone maps disagree; VRM 1.0 is read"),

    // VT_
    code("VT_DUPLICATE_NAME", WARNING, "Virtual transforms input: two virtual transforms share a name"),
    code("VT_EMPTY", ERROR, "Virtual transforms input: virtualTransforms is empty (the schema requires at least one)"),
    code("VT_MISSING_PARENT", ERROR, "Virtual transforms input: a virtual transform has no parent (the schema requires one); read as relative to the scene root"),
    code("VT_NOT_IN_EXTENSIONS_USED", WARNING, "Virtual transforms input: the extension is used but missing from extensionsUsed"),
    code("VT_PARENT_NOT_JOINT", WARNING, "Virtual transforms input: a virtual transform's parent is not a joint of the skeleton; it is dropped"),
    code("VT_PLURAL_NAME", WARNING, "Virtual transforms input: the extension is spelled with its early plural name; read as the current name"),
    code("VT_ROTATION_NOT_UNIT", WARNING, "Virtual transforms input: a rotation is not a unit quaternion; normalised"),
    code("VT_UNKNOWN_PROPERTY", ERROR, "Virtual transforms input: a property the schema does not allow"),

    // WEIGHTS_
    code("WEIGHTS_RESCALED", INFO, "glTF input: vertices whose weights do not sum to 1 were rescaled to sum to 1"),
];

/// The registry row of `code`, if it is registered.
pub fn describe(code: &str) -> Option<&'static CodeInfo> {
    CODES
        .binary_search_by(|info| info.code.cmp(code))
        .ok()
        .and_then(|i| CODES.get(i))
}

/// Whether `code` is registered.
pub fn is_registered(code: &str) -> bool {
    describe(code).is_some()
}

/// Whether `code` is registered at `severity` (what [`Diagnostics::push`](super::Diagnostics::push)
/// asserts).
pub fn allows(code: &str, severity: Severity) -> bool {
    describe(code).is_some_and(|info| info.allows(severity))
}

/// `docs/diagnostics.md`: a title, how to read the table, and one row per code.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Diagnostic codes\n\
         \n\
         <!-- Generated from src/error/codes.rs: do not edit by hand; \
         `HUMANOID_UPDATE_DOCS=1 cargo test --lib codes` rewrites it. -->\n\
         \n\
         Every finding `humanoid` reports beside its result (a warning, a note, or an error \
         that `validate` exits 1 on) carries a stable code: printed in brackets, \
         `info [VRM_TURNED] /nodes: the model faced −Z …`, and given as `\"code\"` by `--json`. \
         The message names the nodes, bones or values involved; this table says what each \
         code means. Severity: **info** is worth knowing and nothing was lost; **warning** \
         means something was dropped, approximated or guessed, or the input bends a rule; \
         **error** means the input breaks a MUST of its format. Where two are given, the \
         message says which case it is.\n\
         \n\
         | Code | Severity | Meaning |\n\
         |---|---|---|\n",
    );
    for info in CODES {
        let severity = info
            .severities
            .iter()
            .map(Severity::to_string)
            .collect::<Vec<_>>()
            .join(" or ");
        out.push_str(&format!(
            "| `{}` | {severity} | {} |\n",
            info.code, info.meaning
        ));
    }
    out
}

#[cfg(test)]
mod scan;
#[cfg(test)]
mod tests;
