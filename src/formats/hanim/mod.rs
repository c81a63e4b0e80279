//! H-Anim humanoids in X3D XML (`.x3d`), ClassicVRML (`.x3dv`) and VRML97 (`.wrl`, gzip too):
//! read into and write out of the canonical model.
//!
//! ## Overview
//!
//! | module | job |
//! |---|---|
//! | `lexer` | ClassicVRML/VRML97 words (nom): identifiers, numbers, strings, comments |
//! | `classic` | ClassicVRML/VRML97 text → scene graph (nodes, DEF/USE, PROTO, IS, ROUTE) |
//! | `xml` | X3D XML (roxmltree) → the same scene graph |
//! | `interface` | field types, the interfaces of the nodes the reader interprets |
//! | `tree` | the scene graph both parsers produce |
//! | `fields` | typed field access with PROTO and built-in defaults |
//! | `figure` | scene graph → humanoids: joint trees, segments, sites, name repairs |
//! | `animation` | interpolators + ROUTEs + TimeSensors, and HAnimMotion → clips |
//! | `mesh` | the skin and the segments' shapes → skinned meshes, displacers as their targets |
//! | `skin`, `segments` | the skin's meshes (one per Shape), the segments' (one per look) |
//! | `geometry` | a geometry node's triangles, corner by corner (point, texture coordinate) |
//! | `appearance` | a Shape's appearance → material, alpha mode, texture transform |
//! | `texture` | `ImageTexture` urls → images (`data:` URLs, files in the input's folder) |
//! | `displacer` | `HAnimDisplacer`/`Displacer` nodes → morph targets of those meshes |
//! | `read` | humanoids → [`Asset`]: skeleton, clips, sockets, the humanoid map |
//! | [`names`] | the HAnim 2.0 joint table, 1.x and draft names, LOA |
//! | `plan` | [`Asset`] → what to write: joint names, centres, LOA, sites, interpolators |
//! | `frame` | nodes above the skeleton that are not joints → the humanoid's transform |
//! | `plan_mesh` | meshes → what to write: the skin (one `skinCoord`, joint weights), segments, materials |
//! | `write_xml`, `write_classic` | the plan as X3D XML, ClassicVRML or VRML97 text |
//! | `write_node` | plain X3D nodes (shapes, geometry, appearance) in either syntax |
//!
//! **Conventions.** An H-Anim joint's `center` is its position in the humanoid's space; at rest
//! (`skeletalConfiguration` BASIC) every `rotation` is the identity. The canonical joint's local
//! rest is `translation + center − parent center` with the joint's `rotation` and `scale`, which
//! reproduces X3D's Transform semantics exactly (and covers non-BASIC files such as X_ITE's glTF
//! exports, placed by `translation` and `rotation`). The humanoid's own transform (Jin's
//! `scale 0.0225`, CesiumMan's Z-up rotation) is baked in, so rest world positions are in metres
//! in the file's world. `UNIT length` and `UNIT angle` statements are applied (the length factor
//! joins the humanoid's scale, the angle factor multiplies every rotation angle read); other
//! categories are reported. Joints are known by their `name` field, whatever the `version` field
//! says; the names decide between the 1.x and 2.0 tables.
//!
//! **Design decision: what the model has no place for travels beside it.** The canonical
//! [`Asset`] has no sockets and no meshes, so [`read_with_extras`] also returns [`HanimExtras`]:
//! the sites as [`Socket`]s, the skin and the segments' shapes as [`SkinnedMesh`]es, and per
//! humanoid its name, version, LOA and the joints as the file wrote them (name, DEF, centre),
//! which the tests compare with X_ITE's and Castle's readings. The writers take sockets through
//! [`WriteOptions::sockets`] and meshes through [`WriteOptions::meshes`].
//!
//! ```
//! use std::path::Path;
//! use humanoid::formats::hanim::{self, ReadOptions};
//!
//! let text = br#"#X3D V4.0 utf8
//! PROFILE Interchange
//! COMPONENT HAnim:1
//! DEF hanim_humanoid_root HAnimJoint { name "humanoid_root" center 0 0.9 0
//!   children [ DEF hanim_vl5 HAnimJoint { name "vl5" center 0 1.05 -0.1 } ] }
//! DEF Hanim HAnimHumanoid { name "Tiny" skeleton [ USE hanim_humanoid_root ]
//!   joints [ USE hanim_humanoid_root USE hanim_vl5 ] }
//! "#;
//! let (outcome, extras) = hanim::read_with_extras(text, Path::new("tiny.x3dv"), &ReadOptions::default())?;
//! let skeleton = &outcome.asset.skeleton;
//! assert_eq!(skeleton.names(), ["humanoid_root", "vl5"]);
//! let vl5 = skeleton.find("vl5").unwrap();
//! assert!((skeleton.rest_world(vl5).translation.y - 1.05).abs() < 1e-6);
//! assert_eq!(extras.humanoids[0].name, "Tiny");
//! # Ok::<(), humanoid::Error>(())
//! ```

pub mod names;
pub mod sites;

mod animation;
mod appearance;
mod classic;
mod displacer;
mod fields;
mod figure;
mod frame;
mod geometry;
mod interface;
mod lexer;
mod mesh;
mod plan;
mod plan_mesh;
mod read;
mod segments;
mod skin;
mod texture;
mod tree;
mod write_classic;
mod write_node;
mod write_xml;
mod xml;
mod xml_nesting;

use std::borrow::Cow;
use std::io::Read as _;
use std::path::Path;

use crate::error::{Diagnostics, Error, Location};
use crate::model::asset::{Asset, ReadOutcome};
use crate::model::mesh::SkinnedMesh;
use crate::model::skeleton::JointId;
use crate::model::socket::Socket;
use crate::model::Format;

pub use names::Generation;

/// The largest file read by default (after decompression): 256 MiB.
pub const MAX_FILE_BYTES: usize = 256 << 20;
/// The deepest nesting of nodes (and lists) read by default.
pub const MAX_DEPTH: usize = 256;
/// The most numbers read from one file by default: 2²⁶ (512 MiB of f64).
pub const MAX_VALUES: usize = 1 << 26;
/// The most nodes read from one file by default: 2²².
pub const MAX_NODES: usize = 1 << 22;
/// The largest texture image read by default: 64 MiB.
pub const MAX_IMAGE_BYTES: usize = 64 << 20;

/// Bounds on what a file may make the reader allocate; every one is checked before the
/// allocation it guards.
///
/// ```
/// use humanoid::formats::hanim::{ReadOptions, MAX_DEPTH};
/// let options = ReadOptions { max_depth: 64, ..ReadOptions::default() };
/// assert_eq!(ReadOptions::default().max_depth, MAX_DEPTH);
/// assert_eq!(options.max_depth, 64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Larger files (or gzip contents) are refused (default [`MAX_FILE_BYTES`], or
    /// `HUMANOID_MAX_TEXT_BYTES`).
    pub max_bytes: usize,
    /// Nodes nested deeper are refused (default [`MAX_DEPTH`], or `HUMANOID_MAX_DEPTH`).
    pub max_depth: usize,
    /// Files with more numbers are refused (default [`MAX_VALUES`]).
    pub max_values: usize,
    /// Files with more nodes are refused (default [`MAX_NODES`]).
    pub max_nodes: usize,
    /// Larger texture images (files, or decoded `data:` URLs) are not read, reported (default
    /// [`MAX_IMAGE_BYTES`]).
    pub max_image_bytes: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_bytes: usize::try_from(crate::io::Limits::get().text_bytes).unwrap_or(usize::MAX),
            max_depth: crate::io::Limits::get().depth,
            max_values: MAX_VALUES,
            max_nodes: MAX_NODES,
            max_image_bytes: MAX_IMAGE_BYTES,
        }
    }
}

/// What an H-Anim file holds that the canonical [`Asset`] has no place
/// for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HanimExtras {
    /// Every humanoid, in file order (the asset's skeleton holds all their joints; the first
    /// is the one mapped).
    pub humanoids: Vec<HumanoidInfo>,
    /// The sites, as sockets on the joints they move with.
    pub sockets: Vec<Socket>,
    /// Meshes per humanoid: its skin, one mesh per skin Shape (weights from the joints'
    /// `skinCoordIndex` and `skinCoordWeight`), then its segments' shapes as rigidly skinned
    /// meshes, one per distinct look; each with its material and texture coordinates.
    pub meshes: Vec<SkinnedMesh>,
}

/// One humanoid as the file describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanoidInfo {
    /// `name`.
    pub name: String,
    /// `version` as written (not relied on: see [`HumanoidInfo::generation`]).
    pub version: String,
    /// `loa` as written (-1 when absent).
    pub loa: i64,
    /// `skeletalConfiguration` (`BASIC` when absent).
    pub skeletal_configuration: String,
    /// `info` strings (`key=value`).
    pub info: Vec<String>,
    /// The naming the joint names follow.
    pub generation: Generation,
    /// The humanoid's uniform scale times the file's `UNIT length` factor, baked into the
    /// skeleton (1 for most files).
    pub scale: f64,
    /// The joints, in the order the file's joint tree lists them (parents first).
    pub joints: Vec<JointInfo>,
}

/// One joint as the file wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct JointInfo {
    /// The canonical joint.
    pub joint: JointId,
    /// The `name` field exactly as written (the skeleton holds the repaired name).
    pub name_in_file: String,
    /// The parent, an index into [`HumanoidInfo::joints`].
    pub parent: Option<usize>,
    /// The DEF name.
    pub def: Option<String>,
    /// `center` as written, in the humanoid's space (before its transform and the file's
    /// `UNIT length`).
    pub center: [f64; 3],
}

/// What [`parse_summary`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseSummary {
    /// Nodes read (PROTO bodies included).
    pub nodes: usize,
    /// ROUTEs read.
    pub routes: usize,
    /// PROTO and EXTERNPROTO declarations read.
    pub protos: usize,
}

/// Reads an H-Anim file's bytes (X3D XML, ClassicVRML or VRML97, gzip-compressed or not, a
/// UTF-8 byte order mark allowed); `file` names it in messages. The syntax is told by the
/// content (`<` starts XML), not by the name.
///
/// ```
/// use std::path::Path;
/// use humanoid::formats::{hanim, Format};
///
/// let text = br#"<X3D version='4.0'><Scene>
///   <HAnimHumanoid name='h' scale='0.01 0.01 0.01'>
///     <HAnimJoint DEF='root' name='humanoid_root' center='0 90 0'>
///       <HAnimJoint name='l_hip' center='10 90 0'/>
///     </HAnimJoint>
///   </HAnimHumanoid>
/// </Scene></X3D>"#;
/// let outcome = hanim::read(text, Path::new("h.x3d"), &hanim::ReadOptions::default())?;
/// assert_eq!(outcome.asset.format, Format::X3d);
/// // The humanoid's scale is baked in: centres in centimetres, positions in metres.
/// let hip = outcome.asset.skeleton.find("l_hip").unwrap();
/// let p = outcome.asset.skeleton.rest_world(hip).translation;
/// assert!((p.x - 0.1).abs() < 1e-6 && (p.y - 0.9).abs() < 1e-6);
/// # Ok::<(), humanoid::Error>(())
/// ```
///
/// # Errors
/// As [`read_with_extras`].
pub fn read(bytes: &[u8], file: &Path, options: &ReadOptions) -> Result<ReadOutcome, Error> {
    read_with_extras(bytes, file, options).map(|(outcome, _)| outcome)
}

/// As [`read`], with what the model has no place for ([`HanimExtras`]).
///
/// Read from memory, the file has no folder: texture images come only from `data:` URLs (an
/// `ImageTexture` naming a file is reported and the mesh keeps its colour).
/// [`read_asset_with_extras`] also reads image files beside the input.
///
/// # Errors
/// [`Error::Invalid`] with line:column and what was expected: malformed XML, unbalanced braces
/// or brackets, a USE before its DEF, an unknown field of a node the reader interprets, a value
/// of the wrong field type, a word that is not a number, nesting deeper than
/// [`ReadOptions::max_depth`], an interpolator whose `key` and `keyValue` counts disagree, a
/// ROUTE naming a node that is not defined, more numbers or nodes than the options allow, a file
/// larger than [`ReadOptions::max_bytes`], or no H-Anim joint at all.
pub fn read_with_extras(
    bytes: &[u8],
    file: &Path,
    options: &ReadOptions,
) -> Result<(ReadOutcome, HanimExtras), Error> {
    read_in(bytes, file, None, options)
}

/// [`read_with_extras`] of a file whose textures are looked for in `folder` (`None`: read
/// from memory, only `data:` URLs).
fn read_in(
    bytes: &[u8],
    file: &Path,
    folder: Option<&Path>,
    options: &ReadOptions,
) -> Result<(ReadOutcome, HanimExtras), Error> {
    let mut diagnostics = Diagnostics::new();
    let text = decode(bytes, file, options, &mut diagnostics)?;
    let (mut outcome, extras) = with_scene(&text, file, options, |scene, text, notes| {
        let textures = texture::Textures::new(folder, options.max_image_bytes);
        read::to_asset(scene, text, file, textures, notes)
    })?;
    diagnostics.extend(outcome.diagnostics);
    outcome.diagnostics = diagnostics;
    Ok((outcome, extras))
}

/// Parses an H-Anim file and checks it (syntax, DEF/USE, ROUTEs, field names and types of the
/// nodes the reader interprets) without building the model.
///
/// ```
/// use std::path::Path;
/// use humanoid::formats::hanim::{parse_summary, ReadOptions};
/// let text = b"#VRML V2.0 utf8\nDEF T TimeSensor { }\nDEF I OrientationInterpolator { }\nROUTE T.fraction_changed TO I.set_fraction\n";
/// let summary = parse_summary(text, Path::new("a.wrl"), &ReadOptions::default())?;
/// assert_eq!((summary.nodes, summary.routes), (2, 1));
/// # Ok::<(), humanoid::Error>(())
/// ```
///
/// # Errors
/// As [`read_with_extras`], except those about the humanoid itself.
pub fn parse_summary(
    bytes: &[u8],
    file: &Path,
    options: &ReadOptions,
) -> Result<ParseSummary, Error> {
    let mut diagnostics = Diagnostics::new();
    let text = decode(bytes, file, options, &mut diagnostics)?;
    with_scene(&text, file, options, |scene, _, _| {
        Ok(ParseSummary {
            nodes: scene.nodes.len(),
            routes: scene.routes.len(),
            protos: scene.protos.len(),
        })
    })
}

/// Reads an H-Anim file from disk (see [`read`]), refusing one larger than
/// [`ReadOptions::max_bytes`] before reading it. Texture images named by a relative `url` are
/// read from the file's folder (never from outside it).
///
/// # Errors
/// [`Error::Io`] when it cannot be read; as [`read`] otherwise.
pub fn read_asset(path: &Path, options: &ReadOptions) -> Result<ReadOutcome, Error> {
    read_asset_with_extras(path, options).map(|(outcome, _)| outcome)
}

/// As [`read_asset`], with [`HanimExtras`].
///
/// # Errors
/// As [`read_asset`].
pub fn read_asset_with_extras(
    path: &Path,
    options: &ReadOptions,
) -> Result<(ReadOutcome, HanimExtras), Error> {
    let bytes = read_file(path, options.max_bytes)?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    read_in(&bytes, path, Some(folder), options)
}

fn read_file(path: &Path, max_bytes: usize) -> Result<Vec<u8>, Error> {
    crate::io::input::read_bounded(
        path,
        u64::try_from(max_bytes).unwrap_or(u64::MAX),
        "an H-Anim file",
    )
}

fn too_large(file: &Path, bytes: usize, max: usize) -> Error {
    let size = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    crate::io::input::too_large(file, size(bytes), size(max), "an H-Anim file")
}

/// The file's text: gunzipped when it is gzip, without a byte order mark, UTF-8 (invalid
/// sequences replaced, reported).
fn decode<'b>(
    bytes: &'b [u8],
    file: &Path,
    options: &ReadOptions,
    diagnostics: &mut Diagnostics,
) -> Result<Cow<'b, str>, Error> {
    if bytes.len() > options.max_bytes {
        return Err(too_large(file, bytes.len(), options.max_bytes));
    }
    let bytes: Cow<'b, [u8]> = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        let limit = u64::try_from(options.max_bytes)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let mut compressed = std::io::Cursor::new(bytes);
        let result = flate2::read::GzDecoder::new(&mut compressed)
            .take(limit)
            .read_to_end(&mut out);
        result.map_err(|e| {
            // The decoder reads ahead in blocks: the offset is where it stopped reading.
            Error::invalid(
                file,
                Location::Byte(compressed.position()),
                format!(
                    "the gzip data cannot be read: {e} (after {} bytes decompressed)",
                    out.len()
                ),
            )
        })?;
        if out.len() > options.max_bytes {
            return Err(too_large(file, out.len(), options.max_bytes));
        }
        diagnostics.info("HANIM_GZIP", "", "gzip-compressed: decompressed");
        Cow::Owned(out)
    } else {
        Cow::Borrowed(bytes)
    };
    let mut lossy = |b: &[u8]| -> String {
        let valid = std::str::from_utf8(b).map_or_else(|e| e.valid_up_to(), |_| b.len());
        diagnostics.warn(
            "HANIM_NOT_UTF8",
            format!("byte {valid}"),
            "the file is not valid UTF-8: invalid bytes read as U+FFFD",
        );
        String::from_utf8_lossy(b).into_owned()
    };
    let text = match bytes {
        Cow::Borrowed(b) => {
            let b = b.strip_prefix(b"\xef\xbb\xbf").unwrap_or(b);
            match std::str::from_utf8(b) {
                Ok(s) => Cow::Borrowed(s),
                Err(_) => Cow::Owned(lossy(b)),
            }
        }
        Cow::Owned(v) => {
            let b = v.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&v);
            match std::str::from_utf8(b) {
                Ok(s) => Cow::Owned(s.to_owned()),
                Err(_) => Cow::Owned(lossy(b)),
            }
        }
    };
    Ok(text)
}

/// Parses `text` (XML when it starts with `<`, else ClassicVRML/VRML97) and hands the scene
/// and its notes to `then`.
///
/// The parser and the scene walk recurse once per nesting level, so they run on a thread of
/// their own whose stack is sized from [`ReadOptions::max_depth`]: a deep file read from a
/// caller's small stack cannot overflow it.
fn with_scene<T: Send>(
    text: &str,
    file: &Path,
    options: &ReadOptions,
    then: impl FnOnce(&tree::Scene<'_>, &str, Vec<classic::Note>) -> Result<T, Error> + Send,
) -> Result<T, Error> {
    let stack = STACK_BASE.saturating_add(options.max_depth.saturating_mul(STACK_PER_LEVEL));
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("hanim-reader".to_owned())
            .stack_size(stack)
            .spawn_scoped(scope, || parse_then(text, file, options, then))
            .map_err(|e| {
                Error::unsupported(format!(
                    "{}: cannot start the H-Anim parser thread ({stack} bytes of stack): {e}",
                    file.display()
                ))
            })?;
        worker.join().unwrap_or_else(|_| {
            Err(Error::unsupported(format!(
                "{}: the H-Anim parser thread stopped unexpectedly",
                file.display()
            )))
        })
    })
}

/// Stack for the parser thread: a base, plus this much per allowed nesting level (debug
/// builds use about 10 KiB per level).
const STACK_BASE: usize = 4 << 20;
const STACK_PER_LEVEL: usize = 64 << 10;

fn parse_then<T>(
    text: &str,
    file: &Path,
    options: &ReadOptions,
    then: impl FnOnce(&tree::Scene<'_>, &str, Vec<classic::Note>) -> Result<T, Error>,
) -> Result<T, Error> {
    let limits = classic::Limits {
        max_depth: options.max_depth,
        max_values: options.max_values,
        max_nodes: options.max_nodes,
    };
    let located = |e: classic::ParseError| {
        let (line, column) = crate::math::text::line_column(text, e.at);
        Error::invalid(file, Location::LineColumn { line, column }, e.message)
    };
    if text.trim_start().starts_with('<') {
        xml_nesting::check(text, options.max_depth).map_err(located)?;
        let parsing = roxmltree::ParsingOptions {
            allow_dtd: true,
            // Text, comments and attributes are roxmltree nodes too.
            nodes_limit: u32::try_from(options.max_nodes.saturating_mul(16)).unwrap_or(u32::MAX),
        };
        let document = roxmltree::Document::parse_with_options(text, parsing).map_err(|e| {
            let position = e.pos();
            let message = match e {
                roxmltree::Error::NodesLimitReached => {
                    format!("more than {} nodes", options.max_nodes)
                }
                other => format!("malformed XML: {other}"),
            };
            Error::invalid(
                file,
                Location::LineColumn {
                    line: position.row as usize,
                    column: position.col as usize,
                },
                message,
            )
        })?;
        let (scene, notes) = xml::parse(&document, &limits).map_err(located)?;
        then(&scene, text, notes)
    } else {
        let (scene, notes) = classic::parse(text, &limits).map_err(located)?;
        then(&scene, text, notes)
    }
}

/// How to write an H-Anim file.
///
/// ```
/// use humanoid::formats::hanim::WriteOptions;
/// let options = WriteOptions { name: Some("Joe".into()), ..WriteOptions::default() };
/// assert_eq!(options.fps, 30.0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct WriteOptions {
    /// The humanoid's name; default the asset's meta name, else `Humanoid`.
    pub name: Option<String>,
    /// Sockets to write as sites (from [`HanimExtras::sockets`] or another format's).
    pub sockets: Vec<Socket>,
    /// Meshes to write (from [`HanimExtras::meshes`] or another format's): deforming ones as
    /// the humanoid's skin, rigid ones as segments under their joints (module docs of
    /// `plan_mesh`).
    pub meshes: Vec<SkinnedMesh>,
    /// Frames per second at which cubic-spline tracks are sampled (X3D interpolates linearly).
    pub fps: f64,
    /// The generator named in the file's meta data.
    pub generator: String,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            name: None,
            sockets: Vec::new(),
            meshes: Vec::new(),
            fps: 30.0,
            generator: concat!("humanoid ", env!("CARGO_PKG_VERSION")).to_owned(),
        }
    }
}

/// Written text and what was dropped, renamed or approximated writing it.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The file's text.
    pub text: String,
    /// What was dropped, renamed or approximated.
    pub diagnostics: Diagnostics,
}

/// Writes `asset` as X3D 4.0 XML with an HAnim 2.0 humanoid (module docs of `plan` for the
/// rules: BASIC rest with `center`s at the rest world positions, joints named from the HAnim
/// 2.0 table where the bone map or their own names say so, every other joint kept under its own
/// name, clips as TimeSensors + interpolators + ROUTEs, sockets as sites).
///
/// ```
/// use glam::Vec3;
/// use humanoid::asset::Asset;
/// use humanoid::formats::{hanim, Format};
/// use humanoid::model::skeleton::{RawJoint, Skeleton};
/// use humanoid::pose::Trs;
///
/// let raw = vec![
///     RawJoint { name: "humanoid_root".into(), parent: None, rest: Trs::from_translation(Vec3::new(0.0, 0.9, 0.0)) },
///     RawJoint { name: "tail".into(), parent: Some(0), rest: Trs::from_translation(Vec3::new(0.0, 0.0, -0.2)) },
/// ];
/// let (skeleton, _) = Skeleton::from_raw(raw)?;
/// let asset = Asset::new(Format::Glb, skeleton, vec![0, 1]);
/// let text = hanim::write_x3d(&asset, &hanim::WriteOptions::default())?;
/// assert!(text.contains("<component name='HAnim' level='1'/>"));
/// assert!(text.contains("name='tail' center='0 0.9 -0.2'"));
/// assert!(text.contains("<HAnimJoint USE='hanim_tail' containerField='joints'/>"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`write_with_diagnostics`].
pub fn write_x3d(asset: &Asset, options: &WriteOptions) -> Result<String, Error> {
    write_with_diagnostics(asset, Format::X3d, options).map(|w| w.text)
}

/// Writes `asset` as ClassicVRML (`#X3D V4.0 utf8`), with the same content as [`write_x3d`].
///
/// # Errors
/// As [`write_with_diagnostics`].
pub fn write_classic(asset: &Asset, options: &WriteOptions) -> Result<String, Error> {
    write_with_diagnostics(asset, Format::X3dv, options).map(|w| w.text)
}

/// Writes `asset` as VRML97 H-Anim 1.1: the `Humanoid`, `Joint`, `Segment` and `Site` PROTO
/// declarations, H-Anim 1.x joint names (`HumanoidRoot`, `l_ankle`; LOA 4 joints, which 1.x
/// lacks, keep their 2.0 names), otherwise the same content as [`write_x3d`].
///
/// ```
/// use std::path::Path;
/// use humanoid::formats::hanim;
///
/// let x3d = br#"<X3D><Scene><HAnimHumanoid name='h'>
///   <HAnimJoint name='humanoid_root' center='0 0.9 0'><HAnimJoint name='l_talocrural' center='0.1 0.08 0'/></HAnimJoint>
/// </HAnimHumanoid></Scene></X3D>"#;
/// let asset = hanim::read(x3d, Path::new("h.x3d"), &hanim::ReadOptions::default())?.asset;
/// let wrl = hanim::write_vrml97(&asset, &hanim::WriteOptions::default())?;
/// assert!(wrl.starts_with("#VRML V2.0 utf8"));
/// assert!(wrl.contains("PROTO Joint [") && wrl.contains("name \"l_ankle\""));
/// # Ok::<(), humanoid::Error>(())
/// ```
///
/// # Errors
/// As [`write_with_diagnostics`].
pub fn write_vrml97(asset: &Asset, options: &WriteOptions) -> Result<String, Error> {
    write_with_diagnostics(asset, Format::Wrl, options).map(|w| w.text)
}

/// Writes `asset` as `format` ([`Format::X3d`], [`Format::X3dv`] or [`Format::Wrl`]), with what
/// was dropped, renamed or approximated.
///
/// # Errors
/// [`Error::Unsupported`] for another format, an empty skeleton, or `fps` out of range.
pub fn write_with_diagnostics(
    asset: &Asset,
    format: Format,
    options: &WriteOptions,
) -> Result<Written, Error> {
    let generation = match format {
        Format::X3d | Format::X3dv => Generation::V2,
        Format::Wrl => Generation::V1,
        other => {
            return Err(Error::unsupported(format!(
                "the H-Anim writer writes x3d, x3dv and wrl, not {other}"
            )))
        }
    };
    let mut diagnostics = Diagnostics::new();
    let plan = plan::plan(asset, options, generation, &mut diagnostics)?;
    let tops: Vec<&str> = plan
        .joints
        .iter()
        .filter(|j| j.parent.is_none())
        .map(|j| j.name.as_str())
        .collect();
    diagnostics.info(
        "HANIM_JOINTS_WRITTEN",
        "",
        format!(
            "{} joints written (top: {}; LOA {})",
            plan.joints.len(),
            tops.join(", "),
            plan.loa
        ),
    );
    let text = match format {
        Format::X3d => write_xml::write(&plan, &options.generator),
        Format::X3dv => {
            write_classic::write(&plan, write_classic::Flavour::X3d, &options.generator)
        }
        _ => write_classic::write(&plan, write_classic::Flavour::Vrml97, &options.generator),
    };
    Ok(Written { text, diagnostics })
}
