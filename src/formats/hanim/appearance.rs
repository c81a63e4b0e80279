//! A Shape's `appearance` → the canonical [`Material`]: base colour, transparency, texture,
//! alpha mode, double-sidedness; and the texture transform its texture coordinates go through.
//!
//! ## Overview
//!
//! The inverse of the writer (`plan_mesh`): `diffuseColor` is the linear base colour itself,
//! alpha is `1 − transparency`, a texture is an ImageTexture, and `solid FALSE` on the
//! geometry is a double-sided material.
//!
//! - **Material.** `Material` (VRML97, X3D) and `TwoSidedMaterial` (X3D 3): `diffuseColor`
//!   (default 0.8 grey), `transparency`. X3D 4 `PhysicalMaterial`: `baseColor` (default white),
//!   `transparency`, `baseTexture`. `UnlitMaterial`: `emissiveColor` (default white),
//!   `transparency`, `emissiveTexture`. The base colour is `[r, g, b, 1 − transparency]`.
//! - **Texture.** The material's own texture field (X3D 4: `diffuseTexture`, `baseTexture`,
//!   `emissiveTexture`), else `Appearance.texture`: an ImageTexture (read by
//!   [`super::texture`]); a MultiTexture gives its first ImageTexture. PixelTexture and
//!   MovieTexture are not read (reported).
//! - **Alpha mode.** X3D 4 `Appearance.alphaMode` (`OPAQUE`, `MASK` with `alphaCutoff`,
//!   `BLEND`); `AUTO` (the default, and every file before X3D 4) is BLEND when transparency is
//!   above 0, else OPAQUE. (A texture's own alpha channel is not looked at.)
//! - **Double-sided** is `solid FALSE` on the geometry node.
//! - **No appearance.** A Shape with no Appearance, or one with neither material nor
//!   texture, is drawn unlit white by VRML and X3D: it has no material (`None`, the format's
//!   default), unless its geometry is `solid FALSE`: then a white material with `double_sided`
//!   keeps that. An Appearance with a texture and no material gives a white material with the
//!   texture (the texture unlit, as X3D draws it).
//! - **TextureTransform.** Its `center`, `rotation`, `scale` and `translation` are applied to
//!   the texture coordinates ([`texture_matrix`]) before they are flipped to the model's
//!   top-left origin. One animated by a ROUTE is applied at its initial value and reported.
//!
//! What the model's material has no place for is reported once per kind, with where it first
//! appears and how many times (`HANIM_APPEARANCE_SIMPLIFIED`): a non-black `emissiveColor`,
//! other material textures (normal, emissive, occlusion, ...), TwoSidedMaterial's separate back
//! colours, X3D 4 `backMaterial`, shaders, per-vertex colours. The lighting parameters the
//! model's material does not carry (`ambientIntensity`, `shininess`, `specularColor`,
//! `metallic`, `roughness`) are left out without a note: every file sets some of them, and
//! none changes the base colour.

use glam::{DMat3, DVec2};

use super::classic::Note;
use super::fields::Fields;
use super::texture::Textures;
use super::tree::{NodeId, Scene};
use crate::math::num::to_f32;
use crate::model::mesh::{AlphaMode, Image, Material};

/// How one Shape looks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Look {
    /// Its material (`None`: the format's default, module docs).
    pub material: Option<Material>,
    /// The TextureTransform, as a 2-D affine matrix (`None` without one).
    pub tex_transform: Option<DMat3>,
}

impl Look {
    /// Whether an image is drawn on the shape (it then needs texture coordinates).
    pub fn textured(&self) -> bool {
        self.material
            .as_ref()
            .is_some_and(|m| m.base_color_texture.is_some())
    }

    /// The model's texture coordinate (origin top left) of file coordinate `tc` (origin
    /// bottom left), through the texture transform.
    pub fn uv(&self, tc: DVec2) -> [f32; 2] {
        let tc = match &self.tex_transform {
            Some(m) => m.transform_point2(tc),
            None => tc,
        };
        [to_f32(tc.x), to_f32(1.0 - tc.y)]
    }
}

/// Reads appearances, collecting what is simplified.
pub(crate) struct Appearances<'p> {
    textures: Textures<'p>,
    /// What was left out: kind, count, where it first appeared.
    simplified: Vec<(String, usize, usize)>,
}

impl<'p> Appearances<'p> {
    /// Appearances whose textures are read by `textures`.
    pub fn new(textures: Textures<'p>) -> Appearances<'p> {
        Appearances {
            textures,
            simplified: Vec::new(),
        }
    }

    fn simplified(&mut self, what: String, at: usize) {
        match self.simplified.iter_mut().find(|(w, _, _)| *w == what) {
            Some((_, count, _)) => *count += 1,
            None => self.simplified.push((what, 1, at)),
        }
    }

    /// The notes for what was simplified, one per kind.
    pub fn finish(self, notes: &mut Vec<Note>) {
        for (what, count, at) in self.simplified {
            let times = if count == 1 {
                String::new()
            } else {
                format!(" ({count} times; the first here)")
            };
            notes.push(Note {
                at,
                code: "HANIM_APPEARANCE_SIMPLIFIED",
                message: format!("{what}{times}"),
            });
        }
    }

    /// Notes per-vertex colours on a geometry node, which are not read.
    pub fn colors_dropped(&mut self, at: usize) {
        self.simplified(
            "per-vertex or per-face colours (Color, ColorRGBA) are not read".to_owned(),
            at,
        );
    }

    /// How Shape `shape` looks, its geometry `solid` or not.
    pub fn look(
        &mut self,
        scene: &Scene<'_>,
        shape: NodeId,
        solid: bool,
        notes: &mut Vec<Note>,
    ) -> Look {
        let appearance = Fields::of(scene, shape)
            .and_then(|s| s.nodes("appearance").first().copied())
            .and_then(|a| Fields::of(scene, a));
        let Some(appearance) = appearance else {
            return Look {
                material: (!solid).then(|| double_sided_white(String::new())),
                tex_transform: None,
            };
        };
        let material = appearance
            .nodes("material")
            .first()
            .and_then(|m| Fields::of(scene, *m));
        let tex_transform = self.tex_transform(scene, &appearance);
        for field in ["shaders", "backMaterial", "fillProperties"] {
            if !appearance.nodes(field).is_empty() {
                self.simplified(
                    format!("Appearance.{field} is not read"),
                    appearance.at(field),
                );
            }
        }
        let (base_color, own_texture) = match &material {
            Some(m) => self.material(m),
            None => ([1.0; 4], None),
        };
        let texture = own_texture.or_else(|| appearance.nodes("texture").first().copied());
        let image = texture.and_then(|t| self.image(scene, t, notes));
        if material.is_none() && image.is_none() {
            // (A texture that could not be read was reported: the shape is drawn white.)
            return Look {
                material: (!solid).then(|| double_sided_white(name_of(&appearance, None))),
                tex_transform,
            };
        }
        let transparency = base_color[3];
        let mode = appearance
            .strings_as("alphaMode")
            .first()
            .map(|s| s.trim().to_ascii_uppercase());
        let alpha_mode = match mode.as_deref() {
            Some("OPAQUE") => AlphaMode::Opaque,
            Some("BLEND") => AlphaMode::Blend,
            Some("MASK") => AlphaMode::Mask(to_f32(finite_or(
                appearance.number_as("alphaCutoff", 0.5),
                0.5,
            ))),
            _ if transparency > 0.0 => AlphaMode::Blend,
            _ => AlphaMode::Opaque,
        };
        let [r, g, b, t] = base_color;
        Look {
            material: Some(Material {
                name: name_of(&appearance, material.as_ref()),
                base_color: [to_f32(r), to_f32(g), to_f32(b), to_f32(1.0 - t)],
                base_color_texture: image,
                double_sided: !solid,
                alpha_mode,
                toon: None,
            }),
            tex_transform,
        }
    }

    /// `[r, g, b, transparency]` of a material node, and the texture node it holds itself.
    fn material(&mut self, m: &Fields<'_, '_>) -> ([f64; 4], Option<NodeId>) {
        let type_name = m.node().type_name;
        let (color_field, default, texture_field) = match type_name {
            "PhysicalMaterial" => ("baseColor", 1.0, "baseTexture"),
            "UnlitMaterial" => ("emissiveColor", 1.0, "emissiveTexture"),
            // Material, TwoSidedMaterial, and anything else that looks like one.
            _ => ("diffuseColor", 0.8, "diffuseTexture"),
        };
        let color = match m.numbers_as(color_field, "SFColor").as_deref() {
            Some(&[r, g, b]) => [r, g, b].map(|c| unit(c, default)),
            _ => [default; 3],
        };
        let transparency = unit(m.number_as("transparency", 0.0), 0.0);
        // What the model has no place for.
        if type_name != "UnlitMaterial" {
            let emissive = m.numbers_as("emissiveColor", "SFColor");
            if emissive.is_some_and(|e| e.iter().any(|c| *c > 0.0)) {
                self.simplified(
                    format!("{type_name}.emissiveColor is not read (the model's material has no emissive colour)"),
                    m.at("emissiveColor"),
                );
            }
        }
        if type_name == "TwoSidedMaterial" && m.bool_as("separateBackColor", false) {
            self.simplified(
                "TwoSidedMaterial: the back colours are not read (the front ones are used on both sides)".to_owned(),
                m.at("separateBackColor"),
            );
        }
        for field in [
            "normalTexture",
            "emissiveTexture",
            "occlusionTexture",
            "metallicRoughnessTexture",
            "ambientTexture",
            "specularTexture",
            "shininessTexture",
        ] {
            if field != texture_field && !m.nodes(field).is_empty() {
                self.simplified(
                    format!("{type_name}.{field} is not read (only the base colour texture is)"),
                    m.at(field),
                );
            }
        }
        let texture = m.nodes(texture_field).first().copied();
        let [r, g, b] = color;
        ([r, g, b, transparency], texture)
    }

    /// The image of a texture node: an ImageTexture, or a MultiTexture's first one.
    fn image(
        &mut self,
        scene: &Scene<'_>,
        texture: NodeId,
        notes: &mut Vec<Note>,
    ) -> Option<Image> {
        let f = Fields::of(scene, texture)?;
        match f.node().type_name {
            "ImageTexture" => self.textures.image(scene, texture, notes),
            "MultiTexture" => {
                let first = f.nodes("texture").first().copied()?;
                if f.nodes("texture").len() > 1 {
                    self.simplified(
                        "MultiTexture: its first texture is read, the others are not".to_owned(),
                        f.node().at,
                    );
                }
                let t = Fields::of(scene, first)?;
                if t.node().type_name == "ImageTexture" {
                    self.textures.image(scene, first, notes)
                } else {
                    self.simplified(
                        format!(
                            "MultiTexture: its first texture, a {}, is not read (only ImageTexture is)",
                            t.node().type_name
                        ),
                        t.node().at,
                    );
                    None
                }
            }
            other => {
                self.simplified(
                    format!("{other} is not read (only ImageTexture is)"),
                    f.node().at,
                );
                None
            }
        }
    }

    /// The TextureTransform of an appearance as a 2-D affine matrix.
    fn tex_transform(&mut self, scene: &Scene<'_>, appearance: &Fields<'_, '_>) -> Option<DMat3> {
        let id = *appearance.nodes("textureTransform").first()?;
        let t = Fields::of(scene, id)?;
        if t.node().type_name != "TextureTransform" {
            self.simplified(
                format!(
                    "{} is not read (only TextureTransform is)",
                    t.node().type_name
                ),
                t.node().at,
            );
            return None;
        }
        if scene.routes.iter().any(|r| r.to == id) {
            self.simplified(
                "an animated TextureTransform is applied at its initial value".to_owned(),
                t.node().at,
            );
        }
        let vec2 = |name: &str, default: DVec2| match t.numbers_as(name, "SFVec2f").as_deref() {
            Some(&[x, y]) if x.is_finite() && y.is_finite() => DVec2::new(x, y),
            _ => default,
        };
        let center = vec2("center", DVec2::ZERO);
        let scale = vec2("scale", DVec2::ONE);
        let translation = vec2("translation", DVec2::ZERO);
        let rotation = finite_or(t.number_as("rotation", 0.0) * t.angle_unit(), 0.0);
        let m = texture_matrix(center, rotation, scale, translation);
        (m != DMat3::IDENTITY).then_some(m)
    }
}

/// X3D's texture transform `Tc' = −C · S · R · C · T · Tc` (X3D 4 §18.4.9), applied right to
/// left as the formula reads and as X_ITE applies it: the translation, `+center`, the rotation
/// (counter-clockwise, radians), the scale, `−center`.
pub(crate) fn texture_matrix(
    center: DVec2,
    rotation: f64,
    scale: DVec2,
    translation: DVec2,
) -> DMat3 {
    DMat3::from_translation(-center)
        * DMat3::from_scale(scale)
        * DMat3::from_angle(rotation)
        * DMat3::from_translation(center)
        * DMat3::from_translation(translation)
}

/// The white material that only says a surface is double-sided.
fn double_sided_white(name: String) -> Material {
    Material {
        name,
        double_sided: true,
        ..Material::default()
    }
}

/// The material's DEF, else the appearance's.
fn name_of(appearance: &Fields<'_, '_>, material: Option<&Fields<'_, '_>>) -> String {
    material
        .and_then(|m| m.node().def)
        .or(appearance.node().def)
        .unwrap_or_default()
        .to_owned()
}

fn finite_or(value: f64, default: f64) -> f64 {
    if value.is_finite() {
        value
    } else {
        default
    }
}

/// A colour component or transparency, clamped to [0, 1] (`default` when not a number).
fn unit(value: f64, default: f64) -> f64 {
    finite_or(value, default).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_texture_transform_follows_x3d_order() {
        // X_ITE's glTF flip: translation (0, −1), then scale (1, −1): t → 1 − t.
        let m = texture_matrix(
            DVec2::ZERO,
            0.0,
            DVec2::new(1.0, -1.0),
            DVec2::new(0.0, -1.0),
        );
        let look = Look {
            material: None,
            tex_transform: Some(m),
        };
        // The file's t = 0.25 becomes 0.75 in X3D, so the model's v is 0.25 again.
        assert_eq!(look.uv(DVec2::new(0.5, 0.25)), [0.5, 0.25]);
        // Without a transform, v = 1 − t.
        let plain = Look {
            material: None,
            tex_transform: None,
        };
        assert_eq!(plain.uv(DVec2::new(0.5, 0.25)), [0.5, 0.75]);
        // A quarter turn with centre (0.5, 0.5): (1, 0.5) + C = (1.5, 1), turned (−1, 1.5),
        // − C = (−1.5, 1).
        let turn = texture_matrix(
            DVec2::splat(0.5),
            std::f64::consts::FRAC_PI_2,
            DVec2::ONE,
            DVec2::ZERO,
        );
        let p = turn.transform_point2(DVec2::new(1.0, 0.5));
        assert!(p.abs_diff_eq(DVec2::new(-1.5, 1.0), 1e-12), "{p}");
    }
}
