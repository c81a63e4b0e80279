//! One geometry node's triangles, corner by corner: which point and which texture coordinate
//! each corner uses, and the vertices a mesh needs for them.
//!
//! ## Overview
//!
//! - **Triangles.** IndexedFaceSet polygons are fanned from their first corner; an
//!   IndexedTriangleSet's `index` and a TriangleSet's points are taken three at a time; `ccw
//!   FALSE` turns every triangle over. Other geometry (lines, points, primitives, strips, fans)
//!   has no triangles here.
//! - **Texture coordinates.** A `TextureCoordinate` (the first one of a MultiTextureCoordinate)
//!   gives them. An IndexedFaceSet indexes them per corner with `texCoordIndex`, or with
//!   `coordIndex` when it has none (X3D 4 §13.3.6); the triangle sets use one per point. A
//!   `texCoordIndex` that does not follow `coordIndex` polygon for polygon, or names no
//!   coordinate, is reported and the shape has none. A shape with a texture and no texture
//!   coordinates gets X3D's default mapping ([`default_tex_coords`]).
//! - **Vertices.** A mesh vertex is one distinct (point, texture coordinate) pair
//!   ([`weld`]: the points used, in increasing order, then the extra copies; [`weld_all`]
//!   keeps every point, used or not, as vertex `i`): a point whose corners use two texture
//!   coordinates becomes two vertices, each keeping the point's position, normal, weights and
//!   morph deltas.
//! - **Normals** are per point (the humanoid's `skinNormal`, else computed over the triangles
//!   by the mesh reader): a geometry's own `normal` and `normalIndex` are not read, so a point
//!   never splits for its normal.
//! - `solid` (default TRUE) is read here: it belongs to the geometry node, and it decides
//!   whether the material is double-sided.

use std::collections::HashMap;

use glam::{DVec2, DVec3};

use super::classic::Note;
use super::fields::Fields;
use super::tree::{NodeId, Scene};

/// One corner of a triangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Corner {
    /// The point, an index into the geometry's coordinates.
    pub point: u32,
    /// The texture coordinate, an index into [`Surface::tex_coords`] (`None` when the shape
    /// has none).
    pub tex: Option<u32>,
}

/// The triangles of one geometry node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Surface {
    /// Its `coord` node.
    pub coord: Option<NodeId>,
    /// The points of that node.
    pub points: Vec<DVec3>,
    /// Triangles, counter-clockwise.
    pub triangles: Vec<[Corner; 3]>,
    /// Texture coordinates as the file gives them (X3D: origin at the image's bottom left);
    /// empty when the shape has none.
    pub tex_coords: Vec<DVec2>,
    /// Whether texture coordinate `i` belongs to point `i` (no `texCoordIndex`, the triangle
    /// sets, the default mapping), so a point no triangle uses still has one.
    pub tex_per_point: bool,
    /// `solid` (default TRUE): back faces are not drawn.
    pub solid: bool,
    /// Whether it has per-vertex or per-face colours (`color`), which are not read.
    pub colored: bool,
}

/// The points of an `MFVec3f` field.
pub(crate) fn points(f: &Fields<'_, '_>, name: &str) -> Vec<DVec3> {
    f.numbers_as(name, "MFVec3f")
        .map(|v| {
            v.chunks_exact(3)
                .filter_map(|c| match c {
                    &[x, y, z] => Some(DVec3::new(x, y, z)),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The points of an `MFVec2f` field.
fn points_2d(f: &Fields<'_, '_>, name: &str) -> Vec<DVec2> {
    f.numbers_as(name, "MFVec2f")
        .map(|v| {
            v.chunks_exact(2)
                .filter_map(|c| match c {
                    &[s, t] => Some(DVec2::new(s, t)),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The texture coordinates of a geometry's `texCoord` (`None` when it has no
/// TextureCoordinate to read), reporting what is left out.
fn tex_coords(scene: &Scene<'_>, f: &Fields<'_, '_>, notes: &mut Vec<Note>) -> Option<Vec<DVec2>> {
    let node = *f.nodes("texCoord").first()?;
    let t = Fields::of(scene, node)?;
    match t.node().type_name {
        "TextureCoordinate" => Some(points_2d(&t, "point")),
        "MultiTextureCoordinate" => {
            let first = t
                .nodes("texCoord")
                .iter()
                .filter_map(|n| Fields::of(scene, *n))
                .find(|c| c.node().type_name == "TextureCoordinate")?;
            if t.nodes("texCoord").len() > 1 {
                notes.push(Note {
                    at: t.node().at,
                    code: "HANIM_APPEARANCE_SIMPLIFIED",
                    message:
                        "MultiTextureCoordinate: its first TextureCoordinate read, the others not"
                            .to_owned(),
                });
            }
            Some(points_2d(&first, "point"))
        }
        other => {
            notes.push(Note {
                at: t.node().at,
                code: "HANIM_APPEARANCE_SIMPLIFIED",
                message: format!("{other}: generated texture coordinates are not read"),
            });
            None
        }
    }
}

/// The triangles of geometry node `id`: `None` for kinds that have none, `Err` with the reason
/// for an index that names no point. Texture coordinates that cannot be used are reported in
/// `notes` and left out.
pub(crate) fn surface(
    scene: &Scene<'_>,
    id: NodeId,
    notes: &mut Vec<Note>,
) -> Option<Result<Surface, String>> {
    let f = Fields::of(scene, id)?;
    let type_name = f.node().type_name;
    if !matches!(
        type_name,
        "IndexedFaceSet" | "IndexedTriangleSet" | "TriangleSet"
    ) {
        return None;
    }
    let coord = f.nodes("coord").first().copied();
    let pts = coord
        .and_then(|c| Fields::of(scene, c))
        .map(|c| points(&c, "point"))
        .unwrap_or_default();
    let mut uv = tex_coords(scene, &f, notes);
    let (triangles, follows, tex_per_point) = match corners(&f, pts.len()) {
        Ok(found) => found,
        Err(message) => return Some(Err(message)),
    };
    if uv.is_some() && !follows {
        notes.push(Note {
            at: f.at("texCoordIndex"),
            code: "HANIM_TEXCOORD_IGNORED",
            message: "texCoordIndex does not follow coordIndex polygon for polygon: texture coordinates not read"
                .to_owned(),
        });
        uv = None;
    }
    // Texture coordinates every corner can use, or none.
    let tex_coords = match uv {
        Some(uv) => {
            let bad = triangles
                .iter()
                .flatten()
                .find(|(_, t)| usize::try_from(*t).map_or(true, |t| t >= uv.len()));
            match bad {
                Some((_, t)) => {
                    notes.push(Note {
                        at: f.node().at,
                        code: "HANIM_TEXCOORD_IGNORED",
                        message: format!(
                            "{type_name}: texture coordinate index {} is not one of its {} texture coordinates: texture coordinates not read",
                            if *t == u32::MAX { "-1 (missing)".to_owned() } else { t.to_string() },
                            uv.len()
                        ),
                    });
                    Vec::new()
                }
                None => uv,
            }
        }
        None => Vec::new(),
    };
    let has_tex = !tex_coords.is_empty();
    let ccw = f.bool_as("ccw", true);
    let triangles = triangles
        .into_iter()
        .map(|t| {
            let [a, b, c] = t.map(|(point, tex)| Corner {
                point,
                tex: has_tex.then_some(tex),
            });
            if ccw {
                [a, b, c]
            } else {
                [a, c, b]
            }
        })
        .collect();
    Some(Ok(Surface {
        coord,
        points: pts,
        triangles,
        tex_coords,
        tex_per_point,
        solid: f.bool_as("solid", true),
        colored: !f.nodes("color").is_empty(),
    }))
}

/// A triangle's corners as (point, texture coordinate index; `u32::MAX` for none).
type Corners = [(u32, u32); 3];

/// The triangles of a geometry node over `count` points, and whether its `texCoordIndex`
/// follows its `coordIndex` polygon for polygon; `Err` for an index that names no point.
fn corners(f: &Fields<'_, '_>, count: usize) -> Result<(Vec<Corners>, bool, bool), String> {
    let type_name = f.node().type_name;
    let index = |name: &str| -> Vec<f64> {
        f.numbers_as(name, "MFInt32")
            .map(|v| v.into_owned())
            .unwrap_or_default()
    };
    let point = |i: f64| -> Result<u32, String> {
        if let Some(k) = crate::math::num::index(i).filter(|k| *k < count) {
            u32::try_from(k).map_err(|_| format!("index {i} out of range"))
        } else {
            Err(format!(
                "{type_name}: index {i} is not one of its {count} points"
            ))
        }
    };
    let mut triangles: Vec<Corners> = Vec::new();
    let mut follows = true;
    let mut per_point = true;
    match type_name {
        "IndexedFaceSet" => {
            let coord_index = index("coordIndex");
            let tex_index = index("texCoordIndex");
            per_point = tex_index.is_empty();
            let tex_index = if tex_index.is_empty() {
                &coord_index
            } else {
                &tex_index
            };
            let polygons: Vec<&[f64]> = coord_index.split(|i| *i < 0.0).collect();
            let tex_polygons: Vec<&[f64]> = tex_index.split(|i| *i < 0.0).collect();
            follows = polygons.len() == tex_polygons.len()
                && polygons
                    .iter()
                    .zip(&tex_polygons)
                    .all(|(p, t)| p.len() == t.len());
            for (k, polygon) in polygons.iter().enumerate() {
                let tex = tex_polygons.get(k).copied().unwrap_or(&[]);
                let corner = |c: usize| -> Result<(u32, u32), String> {
                    let p = point(polygon.get(c).copied().unwrap_or(-1.0))?;
                    let t = tex.get(c).copied().unwrap_or(-1.0);
                    let t = crate::math::num::index(t)
                        .and_then(|t| u32::try_from(t).ok())
                        .unwrap_or(u32::MAX);
                    Ok((p, t))
                };
                for c in 2..polygon.len() {
                    triangles.push([corner(0)?, corner(c - 1)?, corner(c)?]);
                }
            }
        }
        "IndexedTriangleSet" => {
            for t in index("index").chunks_exact(3) {
                if let &[a, b, c] = t {
                    let (a, b, c) = (point(a)?, point(b)?, point(c)?);
                    triangles.push([(a, a), (b, b), (c, c)]);
                }
            }
        }
        _ => {
            let count = u32::try_from(count / 3 * 3).map_err(|e| e.to_string())?;
            let mut i = 0;
            while i + 2 < count {
                triangles.push([(i, i), (i + 1, i + 1), (i + 2, i + 2)]);
                i += 3;
            }
        }
    }
    Ok((triangles, follows, per_point))
}

impl Surface {
    /// Gives the surface X3D's default texture coordinates when it has none (module docs of
    /// [`default_tex_coords`]): one per point, each corner using its point's.
    pub fn with_default_tex_coords(&mut self) {
        if !self.tex_coords.is_empty() {
            return;
        }
        self.tex_coords = default_tex_coords(&self.points);
        self.tex_per_point = true;
        for corner in self.triangles.iter_mut().flatten() {
            corner.tex = Some(corner.point);
        }
    }
}

/// X3D's default texture coordinates for a geometry without any (X3D 4 §13.3.6, IndexedFaceSet;
/// the triangle sets follow it): the bounding box's longest side is S (0 to 1), the second
/// longest T (0 to its length over S's); ties go to X, then Y, then Z.
pub(crate) fn default_tex_coords(points: &[DVec3]) -> Vec<DVec2> {
    let Some(first) = points.first() else {
        return Vec::new();
    };
    let (min, max) = points
        .iter()
        .fold((*first, *first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    let size = max - min;
    let mut axes = [0usize, 1, 2];
    // Stable: equal sizes keep X, Y, Z order.
    axes.sort_by(|a, b| size[*b].total_cmp(&size[*a]));
    let (s, t) = (axes[0], axes[1]);
    let length = size[s];
    points
        .iter()
        .map(|p| {
            if length > 0.0 {
                DVec2::new((p[s] - min[s]) / length, (p[t] - min[t]) / length)
            } else {
                DVec2::ZERO
            }
        })
        .collect()
}

/// The points `triangles` use, in increasing order, each with the first texture coordinate its
/// corners use, then a vertex for each further (point, texture coordinate) pair in the order
/// the triangles first use it; and the triangles as indices into them. Keeping the points'
/// order keeps a mesh's vertex order through a write and a read.
pub(crate) fn weld(triangles: &[[Corner; 3]]) -> (Vec<Corner>, Vec<u32>) {
    let mut first: HashMap<u32, Option<u32>> = HashMap::new();
    for corner in triangles.iter().flatten() {
        first.entry(corner.point).or_insert(corner.tex);
    }
    let mut vertices: Vec<Corner> = first
        .into_iter()
        .map(|(point, tex)| Corner { point, tex })
        .collect();
    vertices.sort_by_key(|c| c.point);
    finish_weld(vertices, triangles)
}

/// As [`weld`], keeping every point `0..count` as vertex `i`, used or not (one no triangle
/// uses has texture coordinate `i` when the first `per_point_tex` texture coordinates belong
/// to the points, else none).
pub(crate) fn weld_all(
    count: usize,
    triangles: &[[Corner; 3]],
    per_point_tex: usize,
) -> (Vec<Corner>, Vec<u32>) {
    let mut vertices: Vec<Corner> = (0..count)
        .map(|p| {
            let point = u32::try_from(p).unwrap_or(u32::MAX);
            Corner {
                point,
                tex: (p < per_point_tex).then_some(point),
            }
        })
        .collect();
    let mut seen = vec![false; count];
    for corner in triangles.iter().flatten() {
        let p = usize::try_from(corner.point).unwrap_or(usize::MAX);
        if let (Some(seen), Some(v)) = (seen.get_mut(p), vertices.get_mut(p)) {
            if !*seen {
                *seen = true;
                v.tex = corner.tex;
            }
        }
    }
    finish_weld(vertices, triangles)
}

/// The triangles over `vertices` (one per point, in order), adding a vertex for each
/// (point, texture coordinate) pair they do not hold yet.
fn finish_weld(mut vertices: Vec<Corner>, triangles: &[[Corner; 3]]) -> (Vec<Corner>, Vec<u32>) {
    let mut index_of: HashMap<Corner, u32> = vertices
        .iter()
        .enumerate()
        .map(|(i, c)| (*c, u32::try_from(i).unwrap_or(u32::MAX)))
        .collect();
    let mut indices = Vec::with_capacity(triangles.len() * 3);
    for corner in triangles.iter().flatten() {
        let next = u32::try_from(vertices.len()).unwrap_or(u32::MAX);
        let index = *index_of.entry(*corner).or_insert_with(|| {
            vertices.push(*corner);
            next
        });
        indices.push(index);
    }
    (vertices, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(point: u32, tex: Option<u32>) -> Corner {
        Corner { point, tex }
    }

    #[test]
    fn a_point_with_two_texture_coordinates_becomes_two_vertices() {
        // Two triangles share points 1 and 2; point 2 has texture coordinate 2 in the first
        // and 3 in the second.
        let triangles = [
            [c(0, Some(0)), c(1, Some(1)), c(2, Some(2))],
            [c(2, Some(3)), c(1, Some(1)), c(3, Some(4))],
        ];
        let (vertices, indices) = weld(&triangles);
        assert_eq!(
            vertices,
            [
                c(0, Some(0)),
                c(1, Some(1)),
                c(2, Some(2)),
                c(3, Some(4)),
                c(2, Some(3))
            ]
        );
        assert_eq!(indices, [0, 1, 2, 4, 1, 3]);
        // Points in increasing order, whatever order the triangles use them in.
        let (vertices, indices) = weld(&[[c(7, None), c(3, None), c(5, None)]]);
        assert_eq!(vertices, [c(3, None), c(5, None), c(7, None)]);
        assert_eq!(indices, [2, 0, 1]);
    }

    #[test]
    fn every_point_keeps_its_index_and_copies_come_after() {
        // Point 1 is used with texture coordinates 1 and 3, point 3 by no triangle.
        let triangles = [
            [c(0, Some(0)), c(1, Some(1)), c(2, Some(2))],
            [c(2, Some(2)), c(1, Some(3)), c(4, Some(4))],
        ];
        let (vertices, indices) = weld_all(5, &triangles, 0);
        assert_eq!(
            vertices,
            [
                c(0, Some(0)),
                c(1, Some(1)),
                c(2, Some(2)),
                c(3, None),
                c(4, Some(4)),
                c(1, Some(3))
            ]
        );
        assert_eq!(indices, [0, 1, 2, 2, 5, 4]);
        // With texture coordinates per point, the unused point keeps its own.
        let (vertices, _) = weld_all(5, &triangles, 5);
        assert_eq!(vertices[3], c(3, Some(3)));
    }

    #[test]
    fn default_mapping_follows_the_bounding_box() {
        // 4 wide in Z, 2 high in Y, 1 deep in X: S along Z, T along Y (0 to 2/4).
        let points = [DVec3::new(0.0, 0.0, 0.0), DVec3::new(1.0, 2.0, 4.0)];
        let uv = default_tex_coords(&points);
        assert_eq!(uv, [DVec2::new(0.0, 0.0), DVec2::new(1.0, 0.5)]);
        // A tie between X and Z: X is S.
        let points = [DVec3::new(0.0, 0.0, 0.0), DVec3::new(2.0, 1.0, 2.0)];
        let uv = default_tex_coords(&points);
        assert_eq!(uv, [DVec2::new(0.0, 0.0), DVec2::new(1.0, 1.0)]);
        assert!(default_tex_coords(&[]).is_empty());
    }
}
