//! VRM expressions ↔ `KHR_character_expression`, and VRM `firstPerson.meshAnnotations` ↔
//! `KHR_node_visibility_hint` / `KHR_mesh_primitive_visibility_hint`: the Khronos avatar drafts
//! of glTF pull request #2512 (research `extensions_and_landscape.md` §6).
//!
//! # What the drafts say
//!
//! Read in KhronosGroup/glTF, `extensions/2.0/Khronos/`:
//!
//! - **Placement.** `KHR_character_expression` is a root extension,
//!   `{"expressions": [{"expression": name, "animation": index}]}`. The typed channel lists
//!   (`KHR_character_expression_morphtarget`, `_texture`, `_joint`, each `{"channels": [..]}`)
//!   sit in an *expression entry's* `extensions`, not on the animation. Their indices point into
//!   the `channels` of that entry's animation (`KHR_character_expression_morphtarget/README.md`:
//!   "MUST be attached to an expression entry"; schema
//!   `KHR_character_expression.KHR_character_expression_morphtarget.schema.json`).
//! - **Keying.** `KHR_character_expression/README.md`: "Implementations MUST evaluate each
//!   expression's referenced animation using the effective expression value as a normalized
//!   animation time in the [0.0, 1.0] range". So time 0 is the expression off and time 1 is the
//!   expression at full weight. STEP is "strongly recommended" for binary expressions. The
//!   drafts' known converter does the same: 0b5vr/khr-character-testbed,
//!   `converter/converter/expressions/appendMorphtargetAnimation.ts`.
//!   - A plain expression gets keys `[0, 1]`, LINEAR, values `[off, full]`.
//!   - A VRM `isBinary` expression gets keys `[0, 0.5, 1]`, STEP, values `[off, full, full]`.
//!     That is VRM's rule: on above one half.
//! - **Morph channels** are ordinary `weights` channels. The drafts also allow a
//!   `KHR_animation_pointer` target `/nodes/{}/weights` or `/nodes/{}/weights/{}`.
//! - **Texture channels** (`KHR_character_expression_texture/README.md`) animate
//!   `KHR_texture_transform` `offset` / `scale` with `KHR_animation_pointer`. The transform "must
//!   be included explicitly in the glTF material definitions".
//! - **Visibility.** `KHR_node_visibility_hint/README.md` maps VRM types to roles:
//!   - `both` → `always`;
//!   - `firstPersonOnly` → `first_person`;
//!   - `thirdPersonOnly` → `third_person`;
//!   - `auto` is "not generalized".
//!
//!   A node's role is inherited by its subtree. Custom roles are vendor-prefixed
//!   (`VENDORNAME_role_name`), and readers treat a role they do not know as `always`.
//!
//! # VRM → KHR ([`vrm_to_khr`])
//!
//! Each VRM 1.0 expression (`preset`, then `custom`, in file order) or VRM 0.x blend shape group
//! becomes one new animation named after it.
//!
//! - **Morph target binds.** One `weights` channel per bound node, keyed as above. At full
//!   weight a target holds its bind weight; VRM 0.x weights are 0–100, so they are divided by
//!   100. Binds on the same target add up, as VRM players add them. Every other target of that
//!   mesh is 0, and every target is 0 when the expression is off. These channels are listed in
//!   `KHR_character_expression_morphtarget`.
//! - **VRM 0.x names.** A group's name is its 1.0 preset (`joy` → `happy`, …) or its name.
//! - **Texture transform binds** (VRM 1.0). Every texture of the bound material is animated
//!   from its current `KHR_texture_transform` offset and scale (added empty where absent, as
//!   the draft asks) to the bind's values. VRM's defaults are offset `[0, 0]` and scale
//!   `[1, 1]`. The channels go in `KHR_character_expression_texture`. The textures are those
//!   the testbed animates: the core and common KHR material textures and MToon's, without the
//!   matcap.
//! - **Dropped binds.** Material colour binds (1.0) and material values (0.x) have no KHR form.
//!   They are dropped with a warning naming the expression.
//! - **What stays in `VRMC_vrm`.** `isBinary` is the keying above. `overrideBlink`,
//!   `overrideLookAt` and `overrideMouth` have no field here; a VRM output keeps them in
//!   `VRMC_vrm`. An expression with no bind left gets no animation (info).
//! - **Visibility.** Each first-person annotation becomes a `KHR_node_visibility_hint` on its
//!   node (on every node holding the mesh, for 0.x). `auto` is written as the vendor role
//!   [`AUTO_ROLE`] (`"VRMC_auto"`). That role reads as `always` elsewhere, which is what a
//!   runtime without VRM's head-cutting does, and it comes back as `auto`. A hint already on
//!   the node is kept (with a warning when its role differs).
//! - **Declarations.** The names used go to `extensionsUsed`, never `extensionsRequired`.
//!   The drafts also ask for a root `KHR_character` object, which the caller writes.
//! - **Already converted.** A document that already has `KHR_character_expression` is left as
//!   it is.
//!
//! # KHR → VRM 1.0 ([`khr_to_vrm1`])
//!
//! Each expression's animation is sampled at time 1, its full weight.
//!
//! - **Channels read.** These are the channels its typed lists name, or all of them when it
//!   has no list.
//!   - A `weights` channel becomes `morphTargetBinds`, with zero weights left out.
//!   - A texture-transform pointer becomes `textureTransformBinds`.
//!   - A node transform (`_joint`) has no VRM form: warning.
//! - **`isBinary`** is true when every channel read is STEP.
//! - **Names.** The VRM 1.0 preset names go to `preset`; every other name goes to `custom`.
//! - **Visibility.** Each node holding a mesh takes its nearest hinted ancestor's role (itself
//!   included), or else the role all its mesh's primitives share. That role becomes a
//!   `meshAnnotations` entry.
//!
//! # Checking ([`check`])
//!
//! [`check`] reports schema violations (errors, with their JSON pointers) and duplicate names.
//! [`expression_animations`] lists the animations the expressions use: they are not clips.
//!
//! ```
//! use humanoid::formats::gltf::Document;
//! use humanoid::formats::vrm::khr_expression;
//! use humanoid::Diagnostics;
//! # fn main() -> Result<(), humanoid::Error> {
//! let json = r#"{"asset": {"version": "2.0"}, "nodes": [{}],
//!   "accessors": [{"componentType": 5126, "count": 1, "type": "SCALAR", "min": [0], "max": [0]}],
//!   "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
//!                   "samplers": [{"input": 0, "output": 0}]}],
//!   "extensions": {"KHR_character_expression": {"expressions": [
//!     {"expression": "happy", "animation": 0},
//!     {"expression": "sad", "animation": 3}]}}}"#;
//! let document = Document::from_slice(json.as_bytes(), "face.gltf", None)?;
//! assert_eq!(khr_expression::expression_animations(&document.root), vec![0]);
//! let mut diagnostics = Diagnostics::new();
//! khr_expression::check(&document.root, &mut diagnostics);
//! let found: Vec<_> = diagnostics.iter().map(|d| (d.code, d.location.as_str())).collect();
//! assert_eq!(
//!     found,
//!     [("KHR_EXPRESSION_INVALID", "/extensions/KHR_character_expression/expressions/1/animation")]
//! );
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Map, Value};

use super::migrate::expressions::preset as vrm0_preset;
use super::migrate::vrm0;
use super::{VRM0, VRMC_VRM};
use crate::error::{Diagnostics, Error};
use crate::formats::gltf::json::{pointer, Accessor, Animation, BufferView, Index, Ordered, Root};
use crate::formats::gltf::{accessor, validate, Document};
use crate::math::num::to_f32;
use crate::math::sample::Interpolation;
use crate::model::clip::{Property, Track, TrackTarget};

/// The root extension naming expression animations.
pub const EXPRESSION: &str = "KHR_character_expression";
/// The expression-entry extension listing the channels that drive morph target weights.
pub const MORPHTARGET: &str = "KHR_character_expression_morphtarget";
/// The expression-entry extension listing the channels that drive texture transforms.
pub const TEXTURE: &str = "KHR_character_expression_texture";
/// The expression-entry extension listing the channels that drive node transforms.
pub const JOINT: &str = "KHR_character_expression_joint";
/// The node extension giving a view-context role to a node and its subtree.
pub const NODE_VISIBILITY: &str = "KHR_node_visibility_hint";
/// The mesh primitive extension giving a view-context role to one primitive.
pub const PRIMITIVE_VISIBILITY: &str = "KHR_mesh_primitive_visibility_hint";
/// The vendor role written for VRM's `auto` annotation, which the drafts leave out (module
/// docs).
pub const AUTO_ROLE: &str = "VRMC_auto";
/// The VRM 1.0 preset expression names (`expressions.preset` keys).
pub const VRM_PRESETS: [&str; 18] = [
    "happy",
    "angry",
    "sad",
    "relaxed",
    "surprised",
    "aa",
    "ih",
    "ou",
    "ee",
    "oh",
    "blink",
    "blinkLeft",
    "blinkRight",
    "lookUp",
    "lookDown",
    "lookLeft",
    "lookRight",
    "neutral",
];
/// The most expressions [`vrm_to_khr`] converts (VRM models have tens).
pub const MAX_EXPRESSIONS: usize = 4096;
/// The most floats [`vrm_to_khr`] writes (64 MiB).
const MAX_FLOATS: usize = 1 << 24;

const ANIMATION_POINTER: &str = "KHR_animation_pointer";
const TEXTURE_TRANSFORM: &str = "KHR_texture_transform";
const FLOAT: u32 = 5126;
const TYPED: [&str; 3] = [MORPHTARGET, TEXTURE, JOINT];

/// The textures a VRM texture transform bind moves, as paths inside a material: glTF's, the
/// common KHR material extensions' and MToon's but its matcap (the list the drafts' testbed
/// uses, `converter/converter/expressions/appendTextureAnimation.ts`).
const TEXTURE_PATHS: [&str; 24] = [
    "normalTexture",
    "occlusionTexture",
    "emissiveTexture",
    "pbrMetallicRoughness/baseColorTexture",
    "pbrMetallicRoughness/metallicRoughnessTexture",
    "extensions/KHR_materials_anisotropy/anisotropyTexture",
    "extensions/KHR_materials_clearcoat/clearcoatTexture",
    "extensions/KHR_materials_clearcoat/clearcoatRoughnessTexture",
    "extensions/KHR_materials_clearcoat/clearcoatNormalTexture",
    "extensions/KHR_materials_iridescence/iridescenceTexture",
    "extensions/KHR_materials_iridescence/iridescenceThicknessTexture",
    "extensions/KHR_materials_sheen/sheenColorTexture",
    "extensions/KHR_materials_sheen/sheenRoughnessTexture",
    "extensions/KHR_materials_specular/specularTexture",
    "extensions/KHR_materials_specular/specularColorTexture",
    "extensions/KHR_materials_transmission/transmissionTexture",
    "extensions/KHR_materials_volume/thicknessTexture",
    "extensions/ADOBE_materials_clearcoat_specular/clearcoatSpecularTexture",
    "extensions/ADOBE_materials_clearcoat_tint/clearcoatTintTexture",
    "extensions/VRMC_materials_mtoon/shadeMultiplyTexture",
    "extensions/VRMC_materials_mtoon/shadingShiftTexture",
    "extensions/VRMC_materials_mtoon/rimMultiplyTexture",
    "extensions/VRMC_materials_mtoon/outlineWidthMultiplyTexture",
    "extensions/VRMC_materials_mtoon/uvAnimationMaskTexture",
];

/// What [`vrm_to_khr`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KhrExpressions {
    /// The document already had `KHR_character_expression`: nothing was changed.
    pub already_present: bool,
    /// Each expression written, in order: its name and its new animation's index.
    pub expressions: Vec<(String, usize)>,
    /// Each node given a `KHR_node_visibility_hint`, in order: the node and its role.
    pub visibility: Vec<(usize, String)>,
}

mod check;
mod to_khr;
mod to_vrm;

pub use check::{check, expression_animations};
pub use to_khr::vrm_to_khr;
pub use to_vrm::khr_to_vrm1;

#[allow(clippy::wildcard_imports)]
use to_khr::*;
#[allow(clippy::wildcard_imports)]
use to_vrm::*;

#[cfg(test)]
mod tests {
    use super::check::check_hint;
    use super::*;

    #[test]
    fn pointers_tell_what_a_channel_drives() {
        let target = |json: Value| -> crate::formats::gltf::json::Target {
            serde_json::from_value(json).unwrap()
        };
        let pointer_target = |p: &str| {
            target(
                json!({"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": p}}}),
            )
        };
        assert!(matches!(
            driven(&target(json!({"node": 3, "path": "weights"}))),
            Driven::Weights(3, None)
        ));
        assert!(matches!(
            driven(&pointer_target("/nodes/2/weights/5")),
            Driven::Weights(2, Some(5))
        ));
        assert!(matches!(
            driven(&pointer_target("/nodes/2/weights")),
            Driven::Weights(2, None)
        ));
        assert!(matches!(
            driven(&pointer_target(
                "/materials/4/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/scale"
            )),
            Driven::Texture(4, false)
        ));
        assert!(matches!(
            driven(&pointer_target(
                "/materials/2/pbrMetallicRoughness/baseColorTexture/index"
            )),
            Driven::Other(_)
        ));
        assert!(matches!(
            driven(&target(json!({"node": 1, "path": "rotation"}))),
            Driven::Joint
        ));
        assert!(matches!(
            driven(&pointer_target("/nodes/x/weights")),
            Driven::Other(_)
        ));
    }

    #[test]
    fn short_keeps_the_decimal_written() {
        assert_eq!(short(0.1), 0.1);
        assert_eq!(short(0.3), 0.3);
        assert_eq!(short(0.25), 0.25);
        assert_eq!(short(1.0), 1.0);
        assert_eq!(short(255.0 / 512.0), 0.498_046_875);
        assert_eq!(short(0.000_976_562_5), 0.000_976_562_5);
    }

    #[test]
    fn a_visibility_hint_needs_a_role() {
        let mut found = Diagnostics::new();
        check_hint(&json!({"label": ""}), "/nodes/0/extensions/h", &mut found);
        let at: Vec<&str> = found.iter().map(|d| d.location.as_str()).collect();
        assert_eq!(at, ["/nodes/0/extensions/h", "/nodes/0/extensions/h/label"]);
        assert!(found
            .iter()
            .all(|d| d.code == "KHR_VISIBILITY_INVALID"
                && d.severity == crate::error::Severity::Error));
    }
}
