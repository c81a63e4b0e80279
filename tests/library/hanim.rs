//! H-Anim read and write (X3D XML, ClassicVRML, VRML97), checked against independent
//! evaluations written here: a small VRML tokenizer and tree builder, roxmltree walks of the
//! XML, and f64 forward kinematics with X3D's Transform semantics (`T(translation)·T(center)·
//! R·T(−center)`), X3D interpolation (piecewise linear keys, OrientationInterpolator along the
//! shortest arc) and HAnimMotion frames (degrees, Euler angles composed in the order the
//! channels are listed). Nothing here computes an expected value with the code under test.
//!
//! Hand-written files need nothing. The corpus tests read `../shared/corpus/hanim` and need
//! `--features corpus`. Some of them compare with two independent H-Anim readers when they are
//! installed, and print a note and skip that comparison when they are not:
//!
//! - **X_ITE** (`HUMANOID_XITE`: the path of `hanim-tree.js` in an installed copy of
//!   `../shared/tools/hanim-peers`; the test runs it with full-precision centres). Install it
//!   into a temporary folder, never into `../shared`:
//!
//!   ```text
//!   mkdir -p /tmp/hanim-peers && cd /tmp/hanim-peers
//!   cp -r /path/to/shared/tools/hanim-peers/. . && chmod -R u+w .
//!   npm install --ignore-scripts x3d-tidy@3.0.10 x_ite-node@2.0.16
//!   rm -rf node_modules/skia-canvas && cp -r shims/skia-canvas node_modules/skia-canvas
//!   export HUMANOID_XITE=/tmp/hanim-peers/hanim-tree.js
//!   ```
//!
//! - **Castle Game Engine** (`HUMANOID_TOVRMLX3D`: the path of `tovrmlx3d`, from the Debian
//!   package `view3dscene`: `apt-get install -y view3dscene`, then
//!   `export HUMANOID_TOVRMLX3D=/usr/bin/tovrmlx3d`). The test converts each file to X3D XML
//!   with it and walks the joints of that XML. Castle stops parsing `marvin_005.wrl` (an
//!   `LOD { level [...] }` it does not accept); files it does not parse are reported, not
//!   compared.

use std::collections::HashMap;
use std::path::Path;

use glam::{DMat4, DQuat, DVec3, Quat, Vec3};
use humanoid::asset::Asset;
use humanoid::formats::hanim::{self, names, HanimExtras, ReadOptions, WriteOptions};
use humanoid::formats::Format;
use humanoid::model::clip::{Clip, Property, Track, TrackTarget};
use humanoid::model::skeleton::{JointId, RawJoint, Skeleton};
use humanoid::pose::fk::Sampler;
use humanoid::pose::{Interpolation, Trs};
use humanoid::{Error, Location, ReadOutcome};

// ---------------------------------------------------------------------------------------------
// The independent reading: a scene as the test sees it.

/// A joint as the test reads it.
#[derive(Debug, Clone, PartialEq)]
struct TJoint {
    name: String,
    def: Option<String>,
    parent: Option<usize>,
    center: DVec3,
    translation: DVec3,
    rotation: DQuat,
}

/// An interpolator: 4 (axis-angle) or 3 numbers per key.
#[derive(Debug, Clone, PartialEq)]
struct TInterpolator {
    orientation: bool,
    keys: Vec<f64>,
    values: Vec<f64>,
}

/// An HAnimMotion.
#[derive(Debug, Clone, PartialEq)]
struct TMotion {
    joints: Vec<String>,
    channels: Vec<Vec<String>>,
    values: Vec<f64>,
    frame_duration: f64,
}

/// What the evaluation needs of a file.
#[derive(Debug, Clone, Default)]
struct TScene {
    joints: Vec<TJoint>,
    /// The humanoid's transform `T(t)·T(c)·R·S·T(−c)`.
    humanoid: DMat4,
    interpolators: HashMap<String, TInterpolator>,
    cycles: HashMap<String, f64>,
    /// (from node, from field, to node, to field).
    routes: Vec<(String, String, String, String)>,
    motion: Option<TMotion>,
}

/// Animated field values per joint index: translation and rotation, where animated.
type Pose = HashMap<usize, (Option<DVec3>, Option<DQuat>)>;

fn axis_angle(v: &[f64]) -> DQuat {
    match (v, DVec3::new(v[0], v[1], v[2]).try_normalize()) {
        ([_, _, _, a], Some(axis)) => DQuat::from_axis_angle(axis, *a),
        _ => DQuat::IDENTITY,
    }
}

fn transform(t: DVec3, c: DVec3, r: DQuat, s: DVec3) -> DMat4 {
    DMat4::from_translation(t + c)
        * DMat4::from_quat(r)
        * DMat4::from_scale(s)
        * DMat4::from_translation(-c)
}

// --- A minimal VRML reader (tokens → generic nodes), for the classic files. -----------------

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open(char),
    Close(char),
    Str(String),
    Word(String),
}

fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = text.trim_start_matches('\u{feff}').chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            '#' => {
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            c if c.is_whitespace() || c == ',' => {
                chars.next();
            }
            '{' | '[' => {
                chars.next();
                out.push(Tok::Open(c));
            }
            '}' | ']' => {
                chars.next();
                out.push(Tok::Close(c));
            }
            '"' => {
                chars.next();
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => s.extend(chars.next()),
                        '"' => break,
                        c => s.push(c),
                    }
                }
                out.push(Tok::Str(s));
            }
            _ => {
                let mut w = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || matches!(c, ',' | '{' | '}' | '[' | ']' | '"' | '#') {
                        break;
                    }
                    w.push(c);
                    chars.next();
                }
                out.push(Tok::Word(w));
            }
        }
    }
    out
}

#[derive(Debug, Clone, Default)]
struct VNode {
    ty: String,
    def: Option<String>,
    fields: Vec<(String, VVal)>,
}

#[derive(Debug, Clone)]
enum VVal {
    Nums(Vec<f64>),
    Strs(Vec<String>),
    Nodes(Vec<usize>),
    Other,
}

struct VReader {
    toks: Vec<Tok>,
    i: usize,
    nodes: Vec<VNode>,
    defs: HashMap<String, usize>,
    roots: Vec<usize>,
    routes: Vec<(String, String, String, String)>,
}

impl VReader {
    fn parse(text: &str) -> VReader {
        let mut r = VReader {
            toks: tokens(text),
            i: 0,
            nodes: Vec::new(),
            defs: HashMap::new(),
            roots: Vec::new(),
            routes: Vec::new(),
        };
        while r.i < r.toks.len() {
            match r.toks[r.i].clone() {
                Tok::Word(w) if w == "PROTO" || w == "EXTERNPROTO" => {
                    r.i += 2;
                    r.skip_group(); // interface
                    if w == "PROTO" {
                        r.skip_group(); // body
                    } else {
                        r.value(); // urls
                    }
                }
                Tok::Word(w) if w == "ROUTE" => {
                    r.route();
                }
                Tok::Word(w) if matches!(w.as_str(), "PROFILE" | "COMPONENT" | "META" | "UNIT") => {
                    r.i += match w.as_str() {
                        "META" => 3,
                        "UNIT" => 4,
                        _ => 2,
                    };
                    // `COMPONENT HAnim : 1`
                    while matches!(r.toks.get(r.i), Some(Tok::Word(w)) if w == ":" || w.parse::<f64>().is_ok())
                    {
                        r.i += 1;
                    }
                }
                _ => {
                    if let Some(n) = r.node() {
                        r.roots.push(n);
                    }
                }
            }
        }
        r
    }

    fn skip_group(&mut self) {
        let mut depth = 0;
        while let Some(t) = self.toks.get(self.i) {
            self.i += 1;
            match t {
                Tok::Open(_) => depth += 1,
                Tok::Close(_) => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    fn route(&mut self) {
        let word = |t: Option<&Tok>| match t {
            Some(Tok::Word(w)) => w.clone(),
            _ => String::new(),
        };
        let from = word(self.toks.get(self.i + 1));
        let to = word(self.toks.get(self.i + 3));
        self.i += 4;
        let (a, b) = from.split_once('.').unwrap_or(("", ""));
        let (c, d) = to.split_once('.').unwrap_or(("", ""));
        self.routes.push((a.into(), b.into(), c.into(), d.into()));
    }

    /// A node statement (DEF / USE / Type { }); `None` for what is not one.
    fn node(&mut self) -> Option<usize> {
        let Some(Tok::Word(w)) = self.toks.get(self.i).cloned() else {
            self.i += 1;
            return None;
        };
        self.i += 1;
        match w.as_str() {
            "USE" => {
                let Some(Tok::Word(name)) = self.toks.get(self.i).cloned() else {
                    return None;
                };
                self.i += 1;
                self.defs.get(&name).copied()
            }
            "DEF" => {
                let Some(Tok::Word(name)) = self.toks.get(self.i).cloned() else {
                    return None;
                };
                self.i += 1;
                let n = self.node()?;
                self.nodes[n].def = Some(name.clone());
                self.defs.insert(name, n);
                Some(n)
            }
            "NULL" => None,
            ty => {
                let index = self.nodes.len();
                self.nodes.push(VNode {
                    ty: ty.to_owned(),
                    ..VNode::default()
                });
                assert_eq!(
                    self.toks.get(self.i),
                    Some(&Tok::Open('{')),
                    "test reader: {ty}"
                );
                self.i += 1;
                let mut fields = Vec::new();
                loop {
                    match self.toks.get(self.i).cloned() {
                        Some(Tok::Close('}')) | None => {
                            self.i += 1;
                            break;
                        }
                        Some(Tok::Word(w)) if w == "ROUTE" => self.route(),
                        Some(Tok::Word(w))
                            if matches!(
                                w.as_str(),
                                "field" | "exposedField" | "eventIn" | "eventOut"
                            ) =>
                        {
                            // Script interface: access type name [value].
                            self.i += 3;
                            if w == "field" || w == "exposedField" {
                                self.value();
                            }
                        }
                        Some(Tok::Word(name)) => {
                            self.i += 1;
                            let v = self.value();
                            fields.push((name, v));
                        }
                        _ => self.i += 1,
                    }
                }
                self.nodes[index].fields = fields;
                Some(index)
            }
        }
    }

    fn value(&mut self) -> VVal {
        match self.toks.get(self.i).cloned() {
            Some(Tok::Open('[')) => {
                self.i += 1;
                let (mut nums, mut strs, mut nodes) = (Vec::new(), Vec::new(), Vec::new());
                loop {
                    match self.toks.get(self.i).cloned() {
                        Some(Tok::Close(']')) | None => {
                            self.i += 1;
                            break;
                        }
                        Some(Tok::Str(s)) => {
                            strs.push(s);
                            self.i += 1;
                        }
                        Some(Tok::Word(w)) if w.parse::<f64>().is_ok() => {
                            nums.push(w.parse().unwrap());
                            self.i += 1;
                        }
                        Some(Tok::Word(w)) if w == "TRUE" || w == "FALSE" => self.i += 1,
                        _ => nodes.extend(self.node()),
                    }
                }
                if !nodes.is_empty() {
                    VVal::Nodes(nodes)
                } else if !strs.is_empty() {
                    VVal::Strs(strs)
                } else {
                    VVal::Nums(nums)
                }
            }
            Some(Tok::Str(s)) => {
                self.i += 1;
                VVal::Strs(vec![s])
            }
            Some(Tok::Word(w)) if w.parse::<f64>().is_ok() => {
                let mut nums = Vec::new();
                while let Some(Tok::Word(w)) = self.toks.get(self.i) {
                    match w.parse::<f64>() {
                        Ok(v) => nums.push(v),
                        Err(_) => break,
                    }
                    self.i += 1;
                }
                VVal::Nums(nums)
            }
            Some(Tok::Word(w)) if matches!(w.as_str(), "TRUE" | "FALSE" | "NULL") => {
                self.i += 1;
                VVal::Other
            }
            Some(Tok::Word(_)) => VVal::Nodes(self.node().into_iter().collect()),
            _ => {
                self.i += 1;
                VVal::Other
            }
        }
    }

    fn field(&self, node: usize, name: &str) -> Option<&VVal> {
        self.nodes[node]
            .fields
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    fn nums(&self, node: usize, name: &str) -> Option<Vec<f64>> {
        match self.field(node, name) {
            Some(VVal::Nums(v)) => Some(v.clone()),
            _ => None,
        }
    }

    fn children(&self, node: usize) -> Vec<usize> {
        self.nodes[node]
            .fields
            .iter()
            .filter(|(n, _)| {
                !matches!(
                    n.as_str(),
                    "geometry"
                        | "appearance"
                        | "coord"
                        | "metadata"
                        | "joints"
                        | "segments"
                        | "sites"
                        | "viewpoints"
                        | "skin"
                        | "skinCoord"
                )
            })
            .flat_map(|(_, v)| match v {
                VVal::Nodes(n) => n.clone(),
                _ => Vec::new(),
            })
            .collect()
    }
}

fn is_joint(ty: &str) -> bool {
    ty == "Joint" || ty == "HAnimJoint"
}

/// The test's reading of a ClassicVRML or VRML97 file.
fn vrml_scene(text: &str) -> TScene {
    let r = VReader::parse(text);
    let mut scene = TScene {
        humanoid: DMat4::IDENTITY,
        routes: r.routes.clone(),
        ..TScene::default()
    };
    let humanoid = (0..r.nodes.len())
        .find(|n| matches!(r.nodes[*n].ty.as_str(), "Humanoid" | "HAnimHumanoid"))
        .expect("a humanoid");
    let v3 = |n: usize, f: &str, d: DVec3| r.nums(n, f).map_or(d, |v| DVec3::new(v[0], v[1], v[2]));
    let rot = |n: usize, f: &str| r.nums(n, f).map_or(DQuat::IDENTITY, |v| axis_angle(&v));
    scene.humanoid = transform(
        v3(humanoid, "translation", DVec3::ZERO),
        v3(humanoid, "center", DVec3::ZERO),
        rot(humanoid, "rotation"),
        v3(humanoid, "scale", DVec3::ONE),
    );
    let mut roots: Vec<usize> = Vec::new();
    for f in ["skeleton", "humanoidBody"] {
        if let Some(VVal::Nodes(n)) = r.field(humanoid, f) {
            roots.extend(n);
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<(usize, Option<usize>)> = roots.iter().rev().map(|n| (*n, None)).collect();
    while let Some((n, parent)) = stack.pop() {
        if !seen.insert(n) {
            continue;
        }
        let mut here = parent;
        if is_joint(&r.nodes[n].ty) {
            let name = match r.field(n, "name") {
                Some(VVal::Strs(s)) => s[0].clone(),
                _ => String::new(),
            };
            scene.joints.push(TJoint {
                name,
                def: r.nodes[n].def.clone(),
                parent,
                center: v3(n, "center", DVec3::ZERO),
                translation: v3(n, "translation", DVec3::ZERO),
                rotation: rot(n, "rotation"),
            });
            here = Some(scene.joints.len() - 1);
        }
        for c in r.children(n).into_iter().rev() {
            stack.push((c, here));
        }
    }
    for (i, node) in r.nodes.iter().enumerate() {
        let Some(def) = &node.def else { continue };
        match node.ty.as_str() {
            "OrientationInterpolator" | "PositionInterpolator" => {
                scene.interpolators.insert(
                    def.clone(),
                    TInterpolator {
                        orientation: node.ty == "OrientationInterpolator",
                        keys: r.nums(i, "key").unwrap_or_default(),
                        values: r.nums(i, "keyValue").unwrap_or_default(),
                    },
                );
            }
            "TimeSensor" => {
                scene.cycles.insert(
                    def.clone(),
                    r.nums(i, "cycleInterval").map_or(1.0, |v| v[0]),
                );
            }
            _ => {}
        }
    }
    scene
}

/// The test's reading of an X3D XML file (roxmltree).
fn xml_scene(text: &str) -> TScene {
    let doc = roxmltree::Document::parse_with_options(
        text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            nodes_limit: u32::MAX,
        },
    )
    .expect("xml");
    let mut scene = TScene {
        humanoid: DMat4::IDENTITY,
        ..TScene::default()
    };
    let nums = |e: roxmltree::Node, a: &str| -> Option<Vec<f64>> {
        e.attribute(a).map(|t| {
            t.split(|c: char| c.is_whitespace() || c == ',')
                .filter(|w| !w.is_empty())
                .map(|w| w.parse().unwrap())
                .collect()
        })
    };
    let v3 = |e: roxmltree::Node, a: &str, d: DVec3| {
        nums(e, a).map_or(d, |v| DVec3::new(v[0], v[1], v[2]))
    };
    let rot = |e: roxmltree::Node, a: &str| nums(e, a).map_or(DQuat::IDENTITY, |v| axis_angle(&v));
    let humanoid = doc
        .descendants()
        .find(|e| e.has_tag_name("HAnimHumanoid"))
        .expect("humanoid");
    scene.humanoid = transform(
        v3(humanoid, "translation", DVec3::ZERO),
        v3(humanoid, "center", DVec3::ZERO),
        rot(humanoid, "rotation"),
        v3(humanoid, "scale", DVec3::ONE),
    );
    fn walk(
        e: roxmltree::Node,
        parent: Option<usize>,
        scene: &mut TScene,
        v3: &dyn Fn(roxmltree::Node, &str, DVec3) -> DVec3,
        rot: &dyn Fn(roxmltree::Node, &str) -> DQuat,
    ) {
        for c in e.children().filter(|c| c.is_element()) {
            if c.attribute("USE").is_some() {
                continue;
            }
            if c.has_tag_name("HAnimJoint") {
                scene.joints.push(TJoint {
                    name: c.attribute("name").unwrap_or("").to_owned(),
                    def: c.attribute("DEF").map(str::to_owned),
                    parent,
                    center: v3(c, "center", DVec3::ZERO),
                    translation: v3(c, "translation", DVec3::ZERO),
                    rotation: rot(c, "rotation"),
                });
                let index = scene.joints.len() - 1;
                walk(c, Some(index), scene, v3, rot);
            } else if !c.has_tag_name("HAnimHumanoid") {
                walk(c, parent, scene, v3, rot);
            }
        }
    }
    walk(humanoid, None, &mut scene, &v3, &rot);
    for e in doc.descendants().filter(|e| e.is_element()) {
        let def = e.attribute("DEF").unwrap_or("").to_owned();
        match e.tag_name().name() {
            "OrientationInterpolator" | "PositionInterpolator" => {
                scene.interpolators.insert(
                    def,
                    TInterpolator {
                        orientation: e.has_tag_name("OrientationInterpolator"),
                        keys: nums(e, "key").unwrap_or_default(),
                        values: nums(e, "keyValue").unwrap_or_default(),
                    },
                );
            }
            "TimeSensor" => {
                scene
                    .cycles
                    .insert(def, nums(e, "cycleInterval").map_or(1.0, |v| v[0]));
            }
            "ROUTE" => scene.routes.push((
                e.attribute("fromNode").unwrap_or("").into(),
                e.attribute("fromField").unwrap_or("").into(),
                e.attribute("toNode").unwrap_or("").into(),
                e.attribute("toField").unwrap_or("").into(),
            )),
            "HAnimMotion" => {
                let words = |a: &str| {
                    e.attribute(a)
                        .unwrap_or("")
                        .split_whitespace()
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                };
                let mut channels = Vec::new();
                let mut w = words("channels").into_iter();
                while let Some(n) = w.next() {
                    let n: usize = n.parse().unwrap();
                    channels.push((0..n).map(|_| w.next().unwrap()).collect());
                }
                scene.motion = Some(TMotion {
                    joints: words("joints"),
                    channels,
                    values: nums(e, "values").unwrap_or_default(),
                    frame_duration: nums(e, "frameDuration").map_or(0.1, |v| v[0]),
                });
            }
            _ => {}
        }
    }
    scene
}

// --- The independent evaluation. -------------------------------------------------------------

fn interpolate(i: &TInterpolator, f: f64) -> Vec<f64> {
    let n = if i.orientation { 4 } else { 3 };
    let value = |k: usize| i.values[k * n..k * n + n].to_vec();
    let last = i.keys.len() - 1;
    if f <= i.keys[0] {
        return value(0);
    }
    if f >= i.keys[last] {
        return value(last);
    }
    let k = (0..last).rev().find(|k| i.keys[*k] <= f).unwrap();
    let s = (f - i.keys[k]) / (i.keys[k + 1] - i.keys[k]);
    if i.orientation {
        let (a, mut b) = (axis_angle(&value(k)), axis_angle(&value(k + 1)));
        if a.dot(b) < 0.0 {
            b = -b;
        }
        let q = a.slerp(b, s);
        let (axis, angle) = q.to_axis_angle();
        vec![axis.x, axis.y, axis.z, angle]
    } else {
        let (a, b) = (value(k), value(k + 1));
        (0..3).map(|c| a[c] + (b[c] - a[c]) * s).collect()
    }
}

/// World positions (humanoid transform applied) of every joint, by name, with `pose` giving
/// each joint's animated translation and rotation (the field values).
fn positions(scene: &TScene, pose: &Pose) -> Vec<DVec3> {
    let mut worlds: Vec<DMat4> = Vec::with_capacity(scene.joints.len());
    let mut out = Vec::new();
    for (i, j) in scene.joints.iter().enumerate() {
        let (t, r) = pose.get(&i).copied().unwrap_or((None, None));
        let local = transform(
            t.unwrap_or(j.translation),
            j.center,
            r.unwrap_or(j.rotation),
            DVec3::ONE,
        );
        let world = j.parent.map_or(DMat4::IDENTITY, |p| worlds[p]) * local;
        out.push(
            scene
                .humanoid
                .transform_point3(world.transform_point3(j.center)),
        );
        worlds.push(world);
    }
    out
}

/// The pose of interpolators driven by TimeSensor `timer` at `t` seconds.
fn interpolator_pose(scene: &TScene, timer: &str, t: f64) -> Pose {
    let f = t / scene.cycles[timer];
    let mut pose: Pose = HashMap::new();
    for (from, _, to, _) in scene
        .routes
        .iter()
        .filter(|r| r.0 == timer && r.1 == "fraction_changed")
    {
        let _ = from;
        let Some(interp) = scene.interpolators.get(to) else {
            continue;
        };
        for (_, _, joint, field) in scene
            .routes
            .iter()
            .filter(|r| r.0 == *to && r.1 == "value_changed")
        {
            let Some(j) = scene
                .joints
                .iter()
                .position(|x| x.def.as_deref() == Some(joint.as_str()))
            else {
                continue;
            };
            let v = interpolate(interp, f);
            let entry = pose.entry(j).or_default();
            match field.trim_start_matches("set_") {
                "rotation" => entry.1 = Some(axis_angle(&v)),
                "translation" => entry.0 = Some(DVec3::new(v[0], v[1], v[2])),
                _ => {}
            }
        }
    }
    pose
}

/// The pose of the scene's HAnimMotion at `t` seconds.
#[cfg(feature = "corpus")]
fn motion_pose(scene: &TScene, t: f64) -> Pose {
    let m = scene.motion.as_ref().unwrap();
    let width: usize = m.channels.iter().map(Vec::len).sum();
    let frames = m.values.len() / width;
    let u = (t / m.frame_duration).clamp(0.0, (frames - 1) as f64);
    let i = (u.floor() as usize).min(frames - 2);
    let s = u - i as f64;
    let mut pose = HashMap::new();
    let mut start = 0;
    for (g, channels) in m.channels.iter().enumerate() {
        let name = m.joints[g].as_str();
        let wanted = if name == "HumanoidRoot" {
            "humanoid_root"
        } else {
            name
        };
        let joint = scene.joints.iter().position(|j| j.name == wanted);
        let frame = |k: usize| {
            let row = &m.values[k * width + start..k * width + start + channels.len()];
            let mut p = DVec3::ZERO;
            let mut r = DQuat::IDENTITY;
            for (c, v) in channels.iter().zip(row) {
                let axis = match &c[..1] {
                    "X" => DVec3::X,
                    "Y" => DVec3::Y,
                    _ => DVec3::Z,
                };
                if c.ends_with("position") {
                    p += axis * *v;
                } else if c.ends_with("rotation") {
                    r *= DQuat::from_axis_angle(axis, v.to_radians());
                }
            }
            (p, r, channels.iter().any(|c| c.ends_with("position")))
        };
        if let (Some(j), true) = (joint, name != "IGNORED") {
            let ((p0, r0, has_p), (p1, mut r1, _)) = (frame(i), frame(i + 1));
            if r0.dot(r1) < 0.0 {
                r1 = -r1;
            }
            pose.insert(j, (has_p.then(|| p0.lerp(p1, s)), Some(r0.slerp(r1, s))));
        }
        start += channels.len();
    }
    pose
}

// ---------------------------------------------------------------------------------------------
// Helpers.

fn read_text(text: &str, name: &str) -> Result<(ReadOutcome, HanimExtras), Error> {
    hanim::read_with_extras(text.as_bytes(), Path::new(name), &ReadOptions::default())
}

#[track_caller]
fn read_ok(text: &str, name: &str) -> (ReadOutcome, HanimExtras) {
    match read_text(text, name) {
        Ok(r) => r,
        Err(e) => panic!("{name}: {e}"),
    }
}

#[track_caller]
fn invalid_at(result: Result<(ReadOutcome, HanimExtras), Error>) -> (usize, usize, String) {
    match result {
        Err(Error::Invalid {
            location: Location::LineColumn { line, column },
            message,
            ..
        }) => (line, column, message),
        Err(other) => panic!("expected a line:column error, got {other}"),
        Ok(_) => panic!("expected an error"),
    }
}

fn joint(asset: &Asset, name: &str) -> JointId {
    asset
        .skeleton
        .find(name)
        .unwrap_or_else(|| panic!("no joint {name:?} in {:?}", asset.skeleton.names()))
}

/// The angle between two rotations, accurate near zero (no `acos` of a dot product near 1).
fn angle(a: Quat, b: Quat) -> f32 {
    let d = a.as_dquat().normalize().inverse() * b.as_dquat().normalize();
    (2.0 * DVec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())) as f32
}

/// The joint's world position in the clip at `t`.
fn sampled(asset: &Asset, clip: &Clip, t: f32) -> Vec<Vec3> {
    let mut sampler = Sampler::new(&asset.skeleton, clip);
    sampler.evaluate(t);
    asset
        .skeleton
        .joints()
        .map(|j| sampler.world_position(j))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// A hand-written humanoid in the three encodings.

const WRL: &str = r#"#VRML V2.0 utf8
# A small H-Anim 1.1 humanoid.
PROTO Joint [
  exposedField SFString name ""
  exposedField SFVec3f center 0 0 0
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFVec3f translation 0 0 0
  exposedField MFNode children []
] { Transform { center IS center rotation IS rotation translation IS translation children IS children } }
PROTO Site [
  exposedField SFString name ""
  exposedField SFVec3f translation 0 0 0
  exposedField SFRotation rotation 0 0 1 0
  exposedField MFNode children []
] { Transform { translation IS translation rotation IS rotation children IS children } }
PROTO Humanoid [
  exposedField SFString name ""
  exposedField SFString version "1.1"
  exposedField MFNode humanoidBody []
  exposedField MFNode joints []
  exposedField MFNode sites []
] { Group { children IS humanoidBody } }
DEF Tiny Humanoid {
  name "Tiny"
  humanoidBody [
    DEF hanim_HumanoidRoot Joint { name "HumanoidRoot" center 0 1 0 children [
      DEF hanim_sacroiliac Joint { name "sacroiliac" center 0 1.05 0 children [
        DEF hanim_l_hip Joint { name "l_hip" center 0.1 1 0 children [
          DEF hanim_l_knee Joint { name "l_knee" center 0.1 0.5 0.02 children [
            DEF hanim_l_ankle Joint { name "l_ankle" center 0.1 0.08 0
              children [ DEF hanim_l_heel Site { name "l_heel_pt" translation 0.1 0 -0.05 } ] }
          ] }
        ] }
      ] }
      DEF hanim_vl5 Joint { name "vl5" center 0 1.1 -0.05 }
    ] }
  ]
  joints [ USE hanim_HumanoidRoot USE hanim_sacroiliac USE hanim_l_hip USE hanim_l_knee USE hanim_l_ankle USE hanim_vl5 ]
  sites [ USE hanim_l_heel ]
}
DEF Walk TimeSensor { cycleInterval 2 loop TRUE }
DEF HipRot OrientationInterpolator { key [ 0 0.5 1 ] keyValue [ 0 0 1 0, 1 0 0 1, 0 0 1 0 ] }
DEF RootPos PositionInterpolator { key [ 0 1 ] keyValue [ 0 0 0, 0 0.2 0 ] }
ROUTE Walk.fraction_changed TO HipRot.set_fraction
ROUTE Walk.fraction_changed TO RootPos.set_fraction
ROUTE HipRot.value_changed TO hanim_l_hip.set_rotation
ROUTE RootPos.value_changed TO hanim_HumanoidRoot.set_translation
"#;

const X3D: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE X3D PUBLIC "ISO//Web3D//DTD X3D 4.0//EN" "https://www.web3d.org/specifications/x3d-4.0.dtd">
<X3D profile='Interchange' version='4.0'>
 <head><component name='HAnim' level='1'/></head>
 <Scene>
  <HAnimHumanoid DEF='Tiny' name='Tiny' version='2.0'>
   <HAnimJoint DEF='hanim_humanoid_root' name='humanoid_root' center='0 1 0'>
    <HAnimJoint DEF='hanim_sacroiliac' name='sacroiliac' center='0 1.05 0'>
     <HAnimJoint DEF='hanim_l_hip' name='l_hip' center='0.1 1 0'>
      <HAnimJoint DEF='hanim_l_knee' name='l_knee' center='0.1 0.5 0.02'>
       <HAnimJoint DEF='hanim_l_talocrural' name='l_talocrural' center='0.1 0.08 0'>
        <HAnimSite DEF='hanim_l_heel' name='l_heel_pt' translation='0.1 0 -0.05'/>
       </HAnimJoint>
      </HAnimJoint>
     </HAnimJoint>
    </HAnimJoint>
    <HAnimJoint DEF='hanim_vl5' name='vl5' center='0 1.1 -0.05'/>
   </HAnimJoint>
   <HAnimJoint USE='hanim_humanoid_root'/>
   <HAnimSite USE='hanim_l_heel'/>
  </HAnimHumanoid>
  <TimeSensor DEF='Walk' cycleInterval='2' loop='true'/>
  <OrientationInterpolator DEF='HipRot' key='0 0.5 1' keyValue='0 0 1 0, 1 0 0 1, 0 0 1 0'/>
  <PositionInterpolator DEF='RootPos' key='0 1' keyValue='0 0 0, 0 0.2 0'/>
  <ROUTE fromNode='Walk' fromField='fraction_changed' toNode='HipRot' toField='set_fraction'/>
  <ROUTE fromNode='Walk' fromField='fraction_changed' toNode='RootPos' toField='set_fraction'/>
  <ROUTE fromNode='HipRot' fromField='value_changed' toNode='hanim_l_hip' toField='set_rotation'/>
  <ROUTE fromNode='RootPos' fromField='value_changed' toNode='hanim_humanoid_root' toField='set_translation'/>
 </Scene>
</X3D>
"#;

const X3DV: &str = "\u{feff}#X3D V4.0 utf8
PROFILE Interchange
COMPONENT HAnim:1
DEF Tiny HAnimHumanoid {
  name \"Tiny\"
  skeleton [
    DEF hanim_humanoid_root HAnimJoint { name \"humanoid_root\" center 0 1 0 children [
      DEF hanim_sacroiliac HAnimJoint { name \"sacroiliac\" center 0 1.05 0 children [
        DEF hanim_l_hip HAnimJoint { name \"l_hip\" center 0.1 1 0 children [
          DEF hanim_l_knee HAnimJoint { name \"l_knee\" center 0.1 0.5 0.02 children [
            DEF hanim_l_talocrural HAnimJoint { name \"l_talocrural\" center 0.1 0.08 0
              children [ DEF hanim_l_heel HAnimSite { name \"l_heel_pt\" translation 0.1 0 -0.05 } ] }
          ] }
        ] }
      ] }
      DEF hanim_vl5 HAnimJoint { name \"vl5\" center 0 1.1 -0.05 }
    ] }
  ]
  joints [ USE hanim_humanoid_root ]
}
DEF Walk TimeSensor { cycleInterval 2 loop TRUE }
DEF HipRot OrientationInterpolator { key [ 0 0.5 1 ] keyValue [ 0 0 1 0, 1 0 0 1, 0 0 1 0 ] }
DEF RootPos PositionInterpolator { key [ 0 1 ] keyValue [ 0 0 0, 0 0.2 0 ] }
ROUTE Walk.fraction_changed TO HipRot.set_fraction
ROUTE Walk.fraction_changed TO RootPos.set_fraction
ROUTE HipRot.value_changed TO hanim_l_hip.set_rotation
ROUTE RootPos.value_changed TO hanim_humanoid_root.set_translation
";

/// The hand-written humanoid's expectations, worked out by hand: rest world positions are the
/// centres; at t = 0.5 s (fraction 0.25) the hip is halfway to its first key (0.5 rad about
/// +X) and the root halfway... a quarter of the way up (0.05 m).
#[track_caller]
fn check_tiny(outcome: &ReadOutcome, extras: &HanimExtras, ankle: &str) {
    let asset = &outcome.asset;
    let root_name = asset.skeleton.names()[0].clone();
    assert_eq!(asset.skeleton.len(), 6);
    let centres = [
        (root_name.as_str(), [0.0, 1.0, 0.0]),
        ("sacroiliac", [0.0, 1.05, 0.0]),
        ("l_hip", [0.1, 1.0, 0.0]),
        ("l_knee", [0.1, 0.5, 0.02]),
        (ankle, [0.1, 0.08, 0.0]),
        ("vl5", [0.0, 1.1, -0.05]),
    ];
    for (name, c) in centres {
        let p = asset.skeleton.rest_world(joint(asset, name)).translation;
        assert!(p.abs_diff_eq(Vec3::from_array(c), 1e-6), "{name}: {p}");
    }
    assert_eq!(asset.clips.len(), 1);
    let clip = &asset.clips[0];
    assert_eq!((clip.name.as_str(), clip.duration()), ("Walk", 2.0));
    let hip = clip
        .track(
            TrackTarget::Joint(joint(asset, "l_hip")),
            Property::Rotation,
        )
        .unwrap();
    let q = hip.sample_quat(0.5).unwrap();
    assert!(angle(q, Quat::from_rotation_x(0.5)) < 1e-6, "{q}");
    let root = clip
        .track(
            TrackTarget::Joint(joint(asset, &root_name)),
            Property::Translation,
        )
        .unwrap();
    assert!(root
        .sample_vec3(0.5)
        .unwrap()
        .abs_diff_eq(Vec3::new(0.0, 1.05, 0.0), 1e-6));
    // The knee swings with the hip: at t = 1 s the hip is at 1 rad about +X, and the knee
    // (0.5 m below the hip, 0.02 m in front) turns about the hip centre: y = 1 − 0.5·cos 1 −
    // 0.02·sin 1, z = −0.5·sin 1·(−1)... worked out: R_x(1)·(0, −0.5, 0.02).
    let r = glam::DQuat::from_rotation_x(1.0) * DVec3::new(0.0, -0.5, 0.02);
    let knee = sampled(asset, clip, 1.0)[joint(asset, "l_knee").index()];
    let expected = DVec3::new(0.1, 1.0 + 0.1, 0.0) + r;
    assert!(
        knee.as_dvec3().abs_diff_eq(expected, 1e-5),
        "{knee} vs {expected}"
    );
    // The site: 0.05 m behind the ankle, on the floor.
    assert_eq!(extras.sockets.len(), 1);
    let site = &extras.sockets[0];
    assert_eq!(site.name, "l_heel_pt");
    assert_eq!(site.parent, Some(joint(asset, ankle)));
    assert!(site
        .translation
        .abs_diff_eq(Vec3::new(0.0, -0.08, -0.05), 1e-6));
    assert_eq!(site.tags, ["hanim_site", "marker"]);
    // The humanoid is mapped: hips on the root, the left leg on hip/knee/ankle.
    let bones = &asset.humanoids[0].bones;
    use humanoid::model::HumanBone;
    assert_eq!(bones.get(HumanBone::Hips), Some(joint(asset, &root_name)));
    assert_eq!(bones.get(HumanBone::LeftFoot), Some(joint(asset, ankle)));
    assert_eq!(bones.get(HumanBone::Spine), Some(joint(asset, "vl5")));
}

#[test]
fn reads_the_same_humanoid_in_three_encodings() {
    let (wrl, wrl_extras) = read_ok(WRL, "tiny.wrl");
    assert_eq!(wrl.asset.format, Format::Wrl);
    assert_eq!(wrl_extras.humanoids[0].generation, names::Generation::V1);
    check_tiny(&wrl, &wrl_extras, "l_ankle");
    let (x3d, x3d_extras) = read_ok(X3D, "tiny.x3d");
    assert_eq!(x3d.asset.format, Format::X3d);
    assert_eq!(x3d_extras.humanoids[0].generation, names::Generation::V2);
    check_tiny(&x3d, &x3d_extras, "l_talocrural");
    let (x3dv, x3dv_extras) = read_ok(X3DV, "tiny.x3dv");
    assert_eq!(x3dv.asset.format, Format::X3dv);
    check_tiny(&x3dv, &x3dv_extras, "l_talocrural");
    assert_eq!(x3d_extras.humanoids[0].name, "Tiny");
    assert_eq!(x3d_extras.humanoids[0].joints[2].center, [0.1, 1.0, 0.0]);
}

#[test]
fn the_test_reader_agrees_on_the_hand_written_file() {
    // The independent evaluation, checked once against the hand-computed knee at t = 1 s.
    let scene = vrml_scene(WRL);
    assert_eq!(scene.joints.len(), 6);
    let p = positions(&scene, &interpolator_pose(&scene, "Walk", 1.0));
    let expected =
        DVec3::new(0.1, 1.1, 0.0) + DQuat::from_rotation_x(1.0) * DVec3::new(0.0, -0.5, 0.02);
    assert!(p[3].abs_diff_eq(expected, 1e-12));
    let xml = xml_scene(X3D);
    let q = positions(&xml, &interpolator_pose(&xml, "Walk", 1.0));
    assert!(q[3].abs_diff_eq(expected, 1e-12));
}

#[test]
fn gzip_and_byte_order_mark() {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(WRL.as_bytes()).unwrap();
    let gz = encoder.finish().unwrap();
    let outcome = hanim::read(&gz, Path::new("tiny.wrl"), &ReadOptions::default()).unwrap();
    assert_eq!(outcome.asset.skeleton.len(), 6);
    assert!(outcome.diagnostics.contains("HANIM_GZIP"));
    // The ClassicVRML text starts with a BOM.
    assert!(X3DV.starts_with('\u{feff}'));
    // A gzip stream that inflates past the limit is refused before it is all read.
    let options = ReadOptions {
        max_bytes: 1000,
        ..ReadOptions::default()
    };
    let err = hanim::read(&gz, Path::new("tiny.wrl"), &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("larger than the limit of 1000 bytes"), "{err}");
}

/// `text` with each `(from, to)` replaced once (each must occur exactly once).
#[track_caller]
fn rewritten(text: &str, edits: &[(&str, &str)]) -> String {
    let mut out = text.to_owned();
    for (from, to) in edits {
        assert_eq!(out.matches(from).count(), 1, "{from:?} must occur once");
        out = out.replacen(from, to, 1);
    }
    out
}

/// The tiny humanoid's lengths in centimetres and its angles in degrees (1 rad =
/// 57.29577951308232°), for files that state `UNIT length centimeter 0.01` and `UNIT angle
/// degree`: the edits, by hand, for the XML and the ClassicVRML text.
const CENTIMETRES_XML: [(&str, &str); 9] = [
    ("center='0 1 0'", "center='0 100 0'"),
    ("center='0 1.05 0'", "center='0 105 0'"),
    ("center='0.1 1 0'", "center='10 100 0'"),
    ("center='0.1 0.5 0.02'", "center='10 50 2'"),
    ("center='0.1 0.08 0'", "center='10 8 0'"),
    ("translation='0.1 0 -0.05'", "translation='10 0 -5'"),
    ("center='0 1.1 -0.05'", "center='0 110 -5'"),
    (
        "keyValue='0 0 1 0, 1 0 0 1, 0 0 1 0'",
        "keyValue='0 0 1 0, 1 0 0 57.29577951308232, 0 0 1 0'",
    ),
    ("keyValue='0 0 0, 0 0.2 0'", "keyValue='0 0 0, 0 20 0'"),
];

/// The tiny humanoid in X3D XML and ClassicVRML with `UNIT length centimeter 0.01` and `UNIT
/// angle degree`, every length and angle rewritten in those units.
fn tiny_in_centimetres() -> (String, String) {
    let units_xml = "<head><unit category='length' name='centimeter' conversionFactor='0.01'/>\
        <unit category='angle' name='degree' conversionFactor='0.017453292519943295'/>";
    let mut edits = CENTIMETRES_XML.to_vec();
    edits.push(("<head>", units_xml));
    // The container fields X3D 4 wants (X_ITE finds no skeleton without them).
    edits.extend([
        (
            "<HAnimJoint DEF='hanim_humanoid_root'",
            "<HAnimJoint containerField='skeleton' DEF='hanim_humanoid_root'",
        ),
        (
            "<HAnimJoint USE='hanim_humanoid_root'/>",
            "<HAnimJoint USE='hanim_humanoid_root' containerField='joints'/>",
        ),
        (
            "<HAnimSite USE='hanim_l_heel'/>",
            "<HAnimSite USE='hanim_l_heel' containerField='sites'/>",
        ),
    ]);
    let xml = rewritten(X3D, &edits);
    let classic_edits: Vec<(String, String)> = CENTIMETRES_XML
        .iter()
        .map(|(from, to)| {
            let classic = |s: &str| {
                let (field, value) = s.split_once('=').unwrap();
                format!("{field} {}", value.trim_matches('\''))
            };
            (classic(from), classic(to))
        })
        .collect();
    let mut edits: Vec<(&str, &str)> = classic_edits
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .filter(|(a, _)| !a.starts_with("keyValue"))
        .collect();
    edits.extend([
        (
            "keyValue [ 0 0 1 0, 1 0 0 1, 0 0 1 0 ]",
            "keyValue [ 0 0 1 0, 1 0 0 57.29577951308232, 0 0 1 0 ]",
        ),
        ("keyValue [ 0 0 0, 0 0.2 0 ]", "keyValue [ 0 0 0, 0 20 0 ]"),
        (
            "COMPONENT HAnim:1\n",
            "COMPONENT HAnim:1\nUNIT length centimeter 0.01\nUNIT angle degree 0.017453292519943295\n",
        ),
    ]);
    (xml, rewritten(X3DV, &edits))
}

#[test]
fn unit_statements_scale_lengths_and_angles() {
    let (xml, classic) = tiny_in_centimetres();
    let (outcome, extras) = read_ok(&xml, "tiny_cm.x3d");
    assert!(!outcome.diagnostics.contains("HANIM_UNIT_IGNORED"));
    check_tiny(&outcome, &extras, "l_talocrural");
    // The centres as written stay as written; the scale carries the unit.
    assert_eq!(extras.humanoids[0].joints[2].center, [10.0, 100.0, 0.0]);
    assert!((extras.humanoids[0].scale - 0.01).abs() < 1e-15);
    let (outcome, extras) = read_ok(&classic, "tiny_cm.x3dv");
    assert!(!outcome.diagnostics.contains("HANIM_UNIT_IGNORED"));
    check_tiny(&outcome, &extras, "l_talocrural");

    // A unit the reader has no values for, or a factor that is no factor: reported, not applied.
    let odd = rewritten(
        X3DV,
        &[(
            "COMPONENT HAnim:1\n",
            "COMPONENT HAnim:1\nUNIT mass gram 0.001\nUNIT length furlong -3\n",
        )],
    );
    let (outcome, extras) = read_ok(&odd, "odd_units.x3dv");
    check_tiny(&outcome, &extras, "l_talocrural");
    let ignored: Vec<_> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.code == "HANIM_UNIT_IGNORED")
        .map(|d| format!("{} {}", d.location, d.message))
        .collect();
    assert_eq!(ignored.len(), 2, "{ignored:?}");
    assert!(
        ignored[0].starts_with("4:1 ") && ignored[0].contains("mass"),
        "{ignored:?}"
    );
    assert!(
        ignored[1].starts_with("5:1 ") && ignored[1].contains("-3"),
        "{ignored:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Displacers.

/// A skin of four points with two displacers on the root joint, a segment with one on its
/// `coord`, and two ScalarInterpolators on the skin displacers' weights (keys 0 1 and 0 0.5 1).
const DISPLACED: &str = "#X3D V4.0 utf8
PROFILE Immersive
COMPONENT HAnim:1
DEF H HAnimHumanoid {
  name \"d\"
  skeleton [
    DEF R HAnimJoint { name \"humanoid_root\" center 0 1 0
      skinCoordIndex [ 0 1 2 3 ] skinCoordWeight [ 1 1 1 1 ]
      displacers [
        DEF Up HAnimDisplacer { name \"up\" coordIndex [ 1 3 ] displacements [ 0 0.1 0, 0 0.2 0 ] weight 0.5 }
        DEF Out HAnimDisplacer { name \"out\" coordIndex [ 2 ] displacements [ 0.3 0 0 ] }
      ]
      children [
        HAnimSegment { name \"pelvis\"
          coord DEF SC Coordinate { point [ 0 1 0, 0.1 1 0, 0 1.1 0 ] }
          displacers [ HAnimDisplacer { name \"bulge\" coordIndex [ 2 ] displacements [ 0 0 0.05 ] weight 1 } ]
          children [ Shape { geometry IndexedFaceSet { coord USE SC coordIndex [ 0 1 2 -1 ] } } ]
        }
      ]
    }
  ]
  joints [ USE R ]
  skinCoord DEF SK Coordinate { point [ 0 0 0, 1 0 0, 0 1 0, 1 1 0 ] }
  skin [ Shape { geometry IndexedFaceSet { coord USE SK coordIndex [ 0 1 2 -1 1 3 2 -1 ] } } ]
}
DEF T TimeSensor { cycleInterval 2 }
DEF IU ScalarInterpolator { key [ 0 1 ] keyValue [ 0 1 ] }
DEF IO ScalarInterpolator { key [ 0 0.5 1 ] keyValue [ 1 0 1 ] }
ROUTE T.fraction_changed TO IU.set_fraction
ROUTE T.fraction_changed TO IO.set_fraction
ROUTE IU.value_changed TO Up.set_weight
ROUTE IO.value_changed TO Out.set_weight
";

#[test]
fn displacers_become_morph_targets_and_weight_tracks() {
    let (outcome, extras) = read_ok(DISPLACED, "displaced.x3dv");
    assert!(!outcome.diagnostics.contains("HANIM_DISPLACER_IGNORED"));
    assert!(!outcome.diagnostics.contains("HANIM_ROUTE_IGNORED"));
    assert_eq!(extras.meshes.len(), 2);
    let (skin, segments) = (&extras.meshes[0], &extras.meshes[1]);
    assert!(!skin.rigid && segments.rigid);
    let names: Vec<&str> = skin.morph_targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["up", "out"]);
    assert_eq!(skin.morph_weights, [0.5, 0.0]);
    let zero = [0.0f32; 3];
    assert_eq!(
        skin.morph_targets[0].positions,
        [zero, [0.0, 0.1, 0.0], zero, [0.0, 0.2, 0.0]]
    );
    assert_eq!(
        skin.morph_targets[1].positions,
        [zero, zero, [0.3, 0.0, 0.0], zero]
    );
    assert!(skin.morph_targets.iter().all(|t| t.normals.is_empty()));
    // The segment's displacer moves its third coord point, the mesh's vertex 2.
    assert_eq!(segments.morph_targets.len(), 1);
    assert_eq!(segments.morph_targets[0].name, "bulge");
    assert_eq!(
        segments.morph_targets[0].positions,
        [zero, zero, [0.0, 0.0, 0.05]]
    );
    assert_eq!(segments.morph_weights, [1.0]);
    // Both interpolators in one track on the skin, at every key of either: t = 0, 1, 2 s
    // (fractions 0, 0.5, 1 of 2 s); "up" goes 0 → 0.5 → 1, "out" 1 → 0 → 1.
    let clip = &outcome.asset.clips[0];
    assert_eq!(clip.name, "T");
    let track = clip
        .track(TrackTarget::Mesh(0), Property::Weights(2))
        .unwrap();
    assert_eq!(track.times(), [0.0, 1.0, 2.0]);
    assert_eq!(track.values(), [0.0, 1.0, 0.5, 0.0, 1.0, 1.0]);

    // To a GLB: both meshes, each with its targets, names and default weights, and the
    // weights channel on the skin's node (read back with the gltf crate).
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("displaced.x3dv");
    std::fs::write(&input, DISPLACED).unwrap();
    let glb = dir.path().join("displaced.glb");
    humanoid::convert::convert(&input, &glb, &Default::default()).unwrap();
    let gltf = gltf::Gltf::from_slice(&std::fs::read(&glb).unwrap()).unwrap();
    let buffers = [gltf.blob.clone().unwrap()];
    let meshes: Vec<gltf::Mesh> = gltf.document.meshes().collect();
    assert_eq!(meshes.len(), 2);
    for (mesh, ours) in meshes.iter().zip(&extras.meshes) {
        assert_eq!(mesh.weights().unwrap(), ours.morph_weights.as_slice());
        let primitive = mesh.primitives().next().unwrap();
        let reader = primitive.reader(|b| Some(&buffers[b.index()]));
        let targets: Vec<Vec<[f32; 3]>> = reader
            .read_morph_targets()
            .map(|(p, _, _)| p.unwrap().collect())
            .collect();
        let expected: Vec<Vec<[f32; 3]>> = ours
            .morph_targets
            .iter()
            .map(|t| t.positions.clone())
            .collect();
        assert_eq!(targets, expected);
    }
    let skin_node = gltf
        .document
        .nodes()
        .find(|n| n.mesh().is_some_and(|m| m.index() == 0))
        .unwrap();
    assert!(skin_node.skin().is_some());
    let channel = gltf
        .document
        .animations()
        .flat_map(|a| a.channels().collect::<Vec<_>>())
        .find(|c| c.target().property() == gltf::animation::Property::MorphTargetWeights)
        .unwrap();
    assert_eq!(channel.target().node().index(), skin_node.index());
}

#[test]
fn a_displacer_that_does_not_fit_is_reported_where_it_is() {
    // An index past the skin's four points.
    let text = rewritten(DISPLACED, &[("coordIndex [ 1 3 ]", "coordIndex [ 1 7 ]")]);
    let (outcome, extras) = read_ok(&text, "bad_index.x3dv");
    let found: Vec<String> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.code == "HANIM_DISPLACER_IGNORED")
        .map(|d| format!("{} {}", d.location, d.message))
        .collect();
    assert_eq!(
        found,
        ["10:43 displacer \"up\": coordIndex 7 names no point of the 4 skin points: ignored"]
    );
    assert_eq!(extras.meshes[0].morph_targets.len(), 1);
    // Its weight interpolator then drives nothing: reported with the other routes.
    assert!(outcome.diagnostics.contains("HANIM_ROUTE_IGNORED"));
    // Two indices, one displacement.
    let text = rewritten(
        DISPLACED,
        &[(
            "displacements [ 0 0.1 0, 0 0.2 0 ]",
            "displacements [ 0 0.1 0 ]",
        )],
    );
    let (outcome, _) = read_ok(&text, "bad_count.x3dv");
    let found: Vec<String> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.code == "HANIM_DISPLACER_IGNORED")
        .map(|d| format!("{} {}", d.location, d.message))
        .collect();
    assert_eq!(
        found,
        ["10:62 displacer \"up\": 2 coordIndex entries but 3 numbers in displacements (expected 6: one 3-vector per entry): ignored"]
    );
}

// ---------------------------------------------------------------------------------------------
// Bad input: one test per problem, with line:column.

#[test]
fn unbalanced_braces_and_tags() {
    let text = "#VRML V2.0 utf8\nGroup {\n  children [ Transform { } ]\n";
    assert_eq!(
        invalid_at(read_text(text, "a.wrl")),
        (
            2,
            7,
            "unbalanced braces: the `{` of this Group node is never closed".into()
        )
    );
    let text = "#X3D V4.0 utf8\nGroup { children [ Group { } }\n";
    assert_eq!(
        invalid_at(read_text(text, "a.x3dv")).2,
        "unbalanced brackets: `}` inside a `[ ]` list (a `]` is missing)"
    );
    let text = "<X3D version='4.0'><Scene>\n<Group><Transform></Group>\n</Scene></X3D>";
    let (line, column, message) = invalid_at(read_text(text, "a.x3d"));
    assert_eq!(line, 2);
    assert!(
        column > 1 && message.starts_with("malformed XML: "),
        "{message}"
    );
}

#[test]
fn use_before_def() {
    let text = "#X3D V4.0 utf8\nGroup { children [\n  USE Later\n] }\nDEF Later Group { }";
    assert_eq!(
        invalid_at(read_text(text, "a.x3dv")),
        (
            3,
            7,
            "USE Later before its DEF: no node is DEF'd with that name earlier in the file".into()
        )
    );
    let text =
        "<X3D><Scene>\n<Group>\n  <Group USE='Later'/></Group><Group DEF='Later'/></Scene></X3D>";
    assert_eq!(invalid_at(read_text(text, "a.x3d")).0, 3);
}

#[test]
fn unknown_field() {
    let text =
        "#X3D V4.0 utf8\nHAnimHumanoid { skeleton [\n  HAnimJoint { name \"x\" centre 0 1 0 }\n] }";
    assert_eq!(
        invalid_at(read_text(text, "a.x3dv")),
        (
            3,
            25,
            "HAnimJoint has no field `centre`; did you mean `center`?".into()
        )
    );
    let text = "<X3D><Scene><HAnimHumanoid>\n<HAnimJoint name='x' centre='0 1 0'/></HAnimHumanoid></Scene></X3D>";
    assert_eq!(
        invalid_at(read_text(text, "a.x3d")),
        (
            2,
            22,
            "HAnimJoint has no field `centre`; did you mean `center`?".into()
        )
    );
    // A PROTO instance is checked against its own interface.
    let text = "#VRML V2.0 utf8\nPROTO Joint [ exposedField SFString name \"\" ] { Group { } }\nJoint { nome \"x\" }";
    assert_eq!(
        invalid_at(read_text(text, "a.wrl")),
        (
            3,
            9,
            "Joint has no field `nome`; did you mean `name`?".into()
        )
    );
}

#[test]
fn wrong_field_type() {
    let text = "#X3D V4.0 utf8\nHAnimJoint { name 3 }";
    assert_eq!(
        invalid_at(read_text(text, "a.x3dv")),
        (
            2,
            19,
            "field `name` of HAnimJoint: expected SFString (a quoted string), found 1 number"
                .into()
        )
    );
    let text = "<X3D><Scene>\n<HAnimJoint center='0 1'/></Scene></X3D>";
    assert_eq!(
        invalid_at(read_text(text, "a.x3d")),
        (
            2,
            21,
            "field `center` of HAnimJoint: expected SFVec3f (3 numbers), found 2 numbers".into()
        )
    );
    let text = "#X3D V4.0 utf8\nTimeSensor { loop 1 }";
    assert!(invalid_at(read_text(text, "a.x3dv"))
        .2
        .contains("expected SFBool"));
}

#[test]
fn a_number_that_is_not_a_number() {
    let text = "#VRML V2.0 utf8\nTransform { translation 0 1.2.3 0 }";
    assert_eq!(
        invalid_at(read_text(text, "a.wrl")),
        (2, 27, "`1.2.3` is not a number".into())
    );
    let text = "<X3D><Scene>\n<Transform translation='0 1e 0'/></Scene></X3D>";
    assert_eq!(
        invalid_at(read_text(text, "a.x3d")),
        (2, 27, "`1e` is not a number".into())
    );
    let text = "#X3D V4.0 utf8\nTransform { translation 0 1e999 0 }";
    assert_eq!(
        invalid_at(read_text(text, "a.x3dv")).2,
        "`1e999` is not a finite number"
    );
}

/// More joints than a skeleton holds is refused at the first joint over the limit (the
/// message had no place), after the joint names were repaired in linear time.
#[test]
fn more_joints_than_the_limit_are_refused_at_the_first_one_over() {
    let limit = humanoid::model::MAX_JOINTS;
    let mut text = String::from("<X3D><Scene><HAnimHumanoid name='hu'><HAnimJoint name='r_hip'>\n");
    for i in 0..limit {
        text.push_str(&format!("<HAnimJoint name='l_{i}'/>\n"));
    }
    let wide = format!("{text}</HAnimJoint></HAnimHumanoid></Scene></X3D>");
    // limit + 1 joints: the last line's joint is the first one over.
    let outcome = hanim::read(
        wide.as_bytes(),
        Path::new("many.x3d"),
        &ReadOptions::default(),
    );
    let err = match outcome {
        Ok(_) => panic!("{} joints read", limit + 1),
        Err(e) => e.to_string(),
    };
    assert!(
        err.starts_with(&format!(
            "many.x3d: {}:1: more than {limit} joints",
            limit + 1
        )),
        "{err}"
    );
}

#[test]
fn nesting_deeper_than_the_limit() {
    let options = ReadOptions {
        max_depth: 8,
        ..ReadOptions::default()
    };
    let deep = format!("#VRML V2.0 utf8\n{}", "Group { children [\n".repeat(10));
    let err = hanim::read(deep.as_bytes(), Path::new("a.wrl"), &options).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a.wrl: 10:1: nodes nested deeper than 8 levels"
    );
    let deep = format!(
        "<X3D><Scene>\n{}{}</Scene></X3D>",
        "<Group>\n".repeat(10),
        "</Group>".repeat(10)
    );
    let err = hanim::read(deep.as_bytes(), Path::new("a.x3d"), &options).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a.x3d: 10:1: nodes nested deeper than 8 levels"
    );
    // The default limit is far above real files and far below a stack overflow.
    let deep = format!("#VRML V2.0 utf8\n{}", "Group { children [ ".repeat(100_000));
    assert!(hanim::read(deep.as_bytes(), Path::new("a.wrl"), &ReadOptions::default()).is_err());
}

#[test]
fn key_and_key_value_counts_disagree() {
    let text = WRL.replace(
        "keyValue [ 0 0 1 0, 1 0 0 1, 0 0 1 0 ]",
        "keyValue [ 0 0 1 0, 1 0 0 1 ]",
    );
    let (line, column, message) = invalid_at(read_text(&text, "a.wrl"));
    let expected_line = text.lines().position(|l| l.contains("DEF HipRot")).unwrap() + 1;
    assert_eq!((line, column), (expected_line, 54));
    assert_eq!(
        message,
        "OrientationInterpolator HipRot: 3 keys but 2 key values (each key needs one value)"
    );
    let text = X3D.replace(
        "key='0 1' keyValue='0 0 0, 0 0.2 0'",
        "key='0 1' keyValue='0 0 0'",
    );
    assert!(invalid_at(read_text(&text, "a.x3d"))
        .2
        .starts_with("PositionInterpolator RootPos: 2 keys but 1 key values"));
}

#[test]
fn route_to_a_missing_node() {
    let text = WRL.replace(
        "TO hanim_l_hip.set_rotation",
        "TO hanim_l_hipp.set_rotation",
    );
    let (line, column, message) = invalid_at(read_text(&text, "a.wrl"));
    assert_eq!(
        line,
        text.lines()
            .position(|l| l.contains("hanim_l_hipp"))
            .unwrap()
            + 1
    );
    assert_eq!(column, 31);
    assert_eq!(
        message,
        "ROUTE names `hanim_l_hipp`, but no node is DEF'd with that name before it"
    );
    let text = X3D.replace("toNode='hanim_l_hip'", "toNode='nowhere'");
    assert!(invalid_at(read_text(&text, "a.x3d"))
        .2
        .contains("`nowhere`"));
}

#[test]
fn sizes_are_bounded_before_allocating() {
    let options = ReadOptions {
        max_values: 10,
        ..ReadOptions::default()
    };
    let err = hanim::read(WRL.as_bytes(), Path::new("a.wrl"), &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("more than 10 numbers in the file"), "{err}");
    let options = ReadOptions {
        max_nodes: 3,
        ..ReadOptions::default()
    };
    let err = hanim::read(X3D.as_bytes(), Path::new("a.x3d"), &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("more than 3 nodes"), "{err}");
    let options = ReadOptions {
        max_bytes: 100,
        ..ReadOptions::default()
    };
    let err = hanim::read(WRL.as_bytes(), Path::new("a.wrl"), &options)
        .unwrap_err()
        .to_string();
    assert!(err.contains("larger than the limit of 100 bytes"), "{err}");
    let err = hanim::read(
        b"#VRML V2.0 utf8\nGroup { }",
        Path::new("a.wrl"),
        &ReadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("no H-Anim joints"), "{err}");
}

#[test]
fn never_panics_on_damaged_input() {
    for (text, name) in [(WRL, "a.wrl"), (X3D, "a.x3d"), (X3DV, "a.x3dv")] {
        let bytes = text.as_bytes();
        for end in 0..bytes.len() {
            let _ = hanim::read(&bytes[..end], Path::new(name), &ReadOptions::default());
        }
        for (i, replacement) in (0..bytes.len()).step_by(5).zip(
            [
                &b"{"[..],
                b"}",
                b"[",
                b"]",
                b"\"",
                b"<",
                b"9",
                b"x",
                b"\xff",
                b" ",
            ]
            .iter()
            .cycle(),
        ) {
            let mut damaged = bytes.to_vec();
            damaged.splice(i..i + 1, replacement.iter().copied());
            let _ = hanim::read(&damaged, Path::new(name), &ReadOptions::default());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Dirty data: read, reported.

#[test]
fn dirty_names_are_read_with_diagnostics() {
    let text = WRL
        .replace("name \"l_knee\"", "name \"l _knee\"")
        .replace("name \"vl5\"", "name \"\"")
        .replace("exposedField SFVec3f translation 0 0 0\n  exposedField MFNode children []\n] { Transform", "exposedField SFVec3f transalation 0 0 0\n  exposedField SFVec3f translation 0 0 0\n  exposedField MFNode children []\n] { Transform")
        .replace("DEF hanim_l_ankle Joint { name \"l_ankle\"", "DEF hanim_l_ankle Joint { name \"l_hip\"");
    let (outcome, extras) = read_ok(&text, "dirty.wrl");
    let d = &outcome.diagnostics;
    for code in [
        "HANIM_NAME_REPAIRED",
        "HANIM_JOINT_UNNAMED",
        "HANIM_PROTO_FIELD_MISSPELLED",
        "HANIM_DUPLICATE_JOINT_NAME",
    ] {
        assert!(d.contains(code), "{code} missing: {d:?}");
    }
    let names = outcome.asset.skeleton.names();
    assert!(names.contains(&"l_knee".to_owned()));
    assert!(names.contains(&"vl5".to_owned())); // from its DEF
    assert_eq!(extras.humanoids[0].joints[3].name_in_file, "l _knee");
    let text = WRL.replace(
        "DEF hanim_vl5 Joint { name \"vl5\"",
        "DEF hanim_vl5 Joint { name \"tailbase\"",
    );
    let (outcome, _) = read_ok(&text, "tail.wrl");
    assert!(outcome.diagnostics.contains("HANIM_NONSTANDARD_JOINTS"));
    assert!(outcome.asset.skeleton.find("tailbase").is_some());
}

// ---------------------------------------------------------------------------------------------
// Writing.

/// Every joint of `before` is in `after` at the same rest world position, with the name the
/// target generation gives it, and the clips move every joint the same way.
#[track_caller]
fn same_figure(label: &str, before: &Asset, after: &Asset, generation: names::Generation) {
    assert_eq!(
        before.skeleton.len(),
        after.skeleton.len(),
        "{:?} vs {:?}",
        before.skeleton.names(),
        after.skeleton.names()
    );
    let bones_before = before.humanoids.first().map(|h| h.bones);
    let bones_after = after.humanoids.first().map(|h| h.bones);
    for (a, b) in before.skeleton.joints().zip(after.skeleton.joints()) {
        let (na, nb) = (before.skeleton.name(a), after.skeleton.name(b));
        let foot_1x = ["subtalar", "midtarsal", "metatarsal"]
            .iter()
            .any(|f| na.ends_with(f) && na.len() == f.len() + 2);
        match names::to_v2(na) {
            // Which 2.0 foot joint a 1.x one becomes depends on which is the ball of the foot
            // (the bone maps, compared below, check that): any standard name on the same side.
            Some(_) if foot_1x && generation == names::Generation::V2 => {
                assert!(names::is_standard(nb) && nb[..2] == na[..2], "{na} → {nb}")
            }
            Some(v2) => {
                let expected = match generation {
                    names::Generation::V2 => v2,
                    names::Generation::V1 => names::to_v1(v2).unwrap_or(v2),
                };
                assert_eq!(nb, expected, "{na}");
            }
            None if bones_before.and_then(|m| m.bone_of(a)).is_some() => {
                assert!(names::is_standard(nb), "{na} → {nb}")
            }
            None => assert_eq!(nb, na),
        }
        let (pa, pb) = (
            before.skeleton.rest_world(a).translation,
            after.skeleton.rest_world(b).translation,
        );
        assert!(pa.abs_diff_eq(pb, 1e-6), "{na}: {pa} vs {pb}");
        if let (Some(ma), Some(mb)) = (bones_before, bones_after) {
            assert_eq!(ma.bone_of(a), mb.bone_of(b), "bone of {na}");
        }
    }
    assert_eq!(before.clips.len(), after.clips.len());
    let basic = before
        .skeleton
        .rest_locals()
        .iter()
        .all(|r| r.rotation.abs_diff_eq(Quat::IDENTITY, 1e-7));
    for (ca, cb) in before.clips.iter().zip(&after.clips) {
        let duration = ca.duration();
        let mut sa = Sampler::new(&before.skeleton, ca);
        let mut sb = Sampler::new(&after.skeleton, cb);
        for step in 0..=20 {
            let t = duration * step as f32 / 20.0;
            sa.evaluate(t);
            sb.evaluate(t);
            for (a, b) in before.skeleton.joints().zip(after.skeleton.joints()) {
                let (pa, pb) = (sa.world_position(a), sb.world_position(b));
                assert!(
                    pa.abs_diff_eq(pb, 2e-5),
                    "{label}: {} at {t}: {pa} vs {pb}",
                    before.skeleton.name(a)
                );
                // World rotations relative to the rest are what H-Anim keeps.
                let da = sa.world_rotation(a) * before.skeleton.rest_world(a).rotation.inverse();
                let db = sb.world_rotation(b) * after.skeleton.rest_world(b).rotation.inverse();
                assert!(
                    angle(da, db) < 1e-5,
                    "{label}: {} at {t}: {} rad",
                    before.skeleton.name(a),
                    angle(da, db)
                );
                if basic {
                    let (la, lb) = (sa.local(a).rotation, sb.local(b).rotation);
                    assert!(
                        angle(la, lb) < 1e-5,
                        "{label}: {} local at {t}",
                        before.skeleton.name(a)
                    );
                }
            }
        }
    }
}

fn write_and_read(
    asset: &Asset,
    extras: &HanimExtras,
    format: Format,
) -> (ReadOutcome, HanimExtras, String) {
    let options = WriteOptions {
        sockets: extras.sockets.clone(),
        ..WriteOptions::default()
    };
    let written = hanim::write_with_diagnostics(asset, format, &options).unwrap();
    let name = format!("written.{}", format.name());
    let (outcome, extras) = read_ok(&written.text, &name);
    (outcome, extras, written.text)
}

#[test]
fn writes_what_it_reads() {
    for (text, name) in [(WRL, "tiny.wrl"), (X3D, "tiny.x3d"), (X3DV, "tiny.x3dv")] {
        let (outcome, extras) = read_ok(text, name);
        for (format, generation) in [
            (Format::X3d, names::Generation::V2),
            (Format::X3dv, names::Generation::V2),
            (Format::Wrl, names::Generation::V1),
        ] {
            let (again, again_extras, text) = write_and_read(&outcome.asset, &extras, format);
            same_figure(
                &format!("{}", format),
                &outcome.asset,
                &again.asset,
                generation,
            );
            assert_eq!(again_extras.sockets.len(), 1);
            let (s0, s1) = (&extras.sockets[0], &again_extras.sockets[0]);
            assert_eq!(s0.name, s1.name);
            assert!(s0.translation.abs_diff_eq(s1.translation, 1e-6));
            assert_eq!(s0.tags, s1.tags);
            match format {
                Format::X3d => {
                    assert!(text.contains("<X3D profile='Interchange' version='4.0'"));
                    assert!(text.contains("<component name='HAnim' level='1'/>"));
                    assert!(text.contains("version='2.0' loa='0'"));
                    assert_eq!(text.matches("containerField='joints'").count(), 6);
                    assert_eq!(text.matches("containerField='sites'").count(), 1);
                }
                Format::X3dv => {
                    assert!(text
                        .starts_with("#X3D V4.0 utf8\nPROFILE Interchange\nCOMPONENT HAnim:1\n"));
                    assert!(text.contains("loa 0"));
                }
                _ => {
                    assert!(text.starts_with("#VRML V2.0 utf8"));
                    assert!(text.contains("PROTO Humanoid ["));
                    assert!(text.contains("name \"HumanoidRoot\""));
                    assert!(text.contains("name \"l_ankle\""));
                }
            }
        }
    }
}

/// A rig whose rest is not H-Anim's (rotated joints, a scaled-free chain) and whose clip turns
/// and moves it: written as BASIC H-Anim, it must move every joint the same way.
fn rotated_rig() -> Asset {
    let raw = vec![
        RawJoint {
            name: "Root".into(),
            parent: None,
            rest: Trs::new(
                Vec3::new(0.0, 1.0, 0.0),
                Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
                Vec3::ONE,
            ),
        },
        RawJoint {
            name: "Spine".into(),
            parent: Some(0),
            rest: Trs::new(
                Vec3::new(0.0, 0.0, 0.3),
                Quat::from_rotation_z(0.4),
                Vec3::ONE,
            ),
        },
        RawJoint {
            name: "Arm".into(),
            parent: Some(1),
            rest: Trs::new(
                Vec3::new(0.2, 0.1, 0.0),
                Quat::from_rotation_y(1.0),
                Vec3::ONE,
            ),
        },
        RawJoint {
            name: "Hand".into(),
            parent: Some(2),
            rest: Trs::from_translation(Vec3::new(0.0, 0.0, 0.25)),
        },
    ];
    let (skeleton, ids) = Skeleton::from_raw(raw).unwrap();
    let mut asset = Asset::new(Format::Glb, skeleton, vec![0, 1, 2, 3]);
    let mut clip = Clip::new("wave");
    let spin = |a: f32| Quat::from_rotation_y(1.0) * Quat::from_rotation_x(a);
    clip.add_track(
        Track::new(
            TrackTarget::Joint(ids[2]),
            Property::Rotation,
            Interpolation::Linear,
            vec![0.0, 0.5, 1.5],
            [spin(0.0), spin(1.2), spin(-0.4)]
                .iter()
                .flat_map(|q| q.to_array())
                .collect(),
        )
        .unwrap(),
    );
    clip.add_track(
        Track::new(
            TrackTarget::Joint(ids[1]),
            Property::Rotation,
            Interpolation::Step,
            vec![0.0, 1.0],
            [Quat::from_rotation_z(0.4), Quat::from_rotation_z(0.9)]
                .iter()
                .flat_map(|q| q.to_array())
                .collect(),
        )
        .unwrap(),
    );
    clip.add_track(
        Track::new(
            TrackTarget::Joint(ids[0]),
            Property::Translation,
            Interpolation::Linear,
            vec![0.0, 1.5],
            vec![0.0, 1.0, 0.0, 0.3, 0.9, 0.1],
        )
        .unwrap(),
    );
    asset.clips.push(clip);
    asset
}

#[test]
fn writes_a_rig_whose_rest_is_not_basic() {
    let asset = rotated_rig();
    for format in [Format::X3d, Format::X3dv, Format::Wrl] {
        let written =
            hanim::write_with_diagnostics(&asset, format, &WriteOptions::default()).unwrap();
        let (again, _) = read_ok(&written.text, "rig");
        // Every rest rotation is now the identity (BASIC) and the centres are the rest world
        // positions.
        assert!(again
            .asset
            .skeleton
            .rest_worlds()
            .iter()
            .all(|r| r.rotation.abs_diff_eq(Quat::IDENTITY, 1e-6)));
        let before = &asset.clips[0];
        let after = &again.asset.clips[0];
        for step in 0..=30 {
            // Away from the STEP jump at t = 1 (written as a repeated key one f32 step later).
            let t = 1.5 * step as f32 / 30.0;
            if (t - 1.0).abs() < 1e-3 {
                continue;
            }
            let (pa, pb) = (sampled(&asset, before, t), sampled(&again.asset, after, t));
            for (a, b) in pa.iter().zip(&pb) {
                assert!(a.abs_diff_eq(*b, 1e-5), "{format} at {t}: {a} vs {b}");
            }
        }
    }
}

#[test]
fn writer_refuses_what_it_cannot_write() {
    let empty = Asset::new(Format::Glb, Skeleton::default(), Vec::new());
    assert!(hanim::write_x3d(&empty, &WriteOptions::default()).is_err());
    let asset = rotated_rig();
    assert!(hanim::write_with_diagnostics(&asset, Format::Bvh, &WriteOptions::default()).is_err());
    let options = WriteOptions {
        fps: 0.0,
        ..WriteOptions::default()
    };
    assert!(hanim::write_classic(&asset, &options).is_err());
}

// ---------------------------------------------------------------------------------------------
// Meshes.

/// Linear blend skinning of mesh `m` with the joints' world matrices `world`.
fn skinned(
    m: &humanoid::model::mesh::SkinnedMesh,
    world: &dyn Fn(JointId) -> glam::Mat4,
) -> Vec<Vec3> {
    m.positions
        .iter()
        .zip(m.joints.iter().zip(&m.weights))
        .map(|(p, (j, w))| {
            let p = Vec3::from_array(*p);
            (0..4)
                .map(|i| {
                    let slot = usize::from(j[i]);
                    let matrix = world(m.joints_used[slot]) * m.inverse_bind[slot];
                    w[i] * matrix.transform_point3(p)
                })
                .sum()
        })
        .collect()
}

const SKINNED: &str = r#"#X3D V4.0 utf8
PROFILE Interchange
COMPONENT HAnim:1
DEF H HAnimHumanoid {
  name "Skinned"
  scale 2 2 2
  skeleton [
    DEF R HAnimJoint { name "humanoid_root" center 0 1 0
      skinCoordIndex [ 0 1 2 3 ] skinCoordWeight [ 1 1 0.25 0.25 ]
      children [
        DEF HIP HAnimJoint { name "l_hip" center 0.1 1 0
          skinCoordIndex [ 2 3 ] skinCoordWeight [ 0.75 0.75 ] }
      ] }
  ]
  joints [ USE R USE HIP ]
  skinCoord DEF C Coordinate { point [ 0 1.2 0, 0.2 1.2 0, 0.2 0.5 0, 0.1 0.5 0, 0 0 0 ] }
  skin [ Shape { geometry IndexedFaceSet { coord USE C coordIndex [ 0 1 2 3 -1 ] } } ]
}
DEF T TimeSensor { cycleInterval 1 }
DEF I OrientationInterpolator { key [ 0 1 ] keyValue [ 0 0 1 0, 1 0 0 1.5707963 ] }
ROUTE T.fraction_changed TO I.set_fraction
ROUTE I.value_changed TO HIP.set_rotation
"#;

#[test]
fn reads_the_skin_as_a_skinned_mesh() {
    let (outcome, extras) = read_ok(SKINNED, "skinned.x3dv");
    let asset = &outcome.asset;
    assert_eq!(extras.meshes.len(), 1);
    let mesh = &extras.meshes[0];
    assert_eq!(mesh.vertex_count(), 5);
    assert_eq!(mesh.indices, [0, 1, 2, 0, 2, 3]); // the quad, fanned
                                                  // Vertex 2: 1/4 root, 3/4 hip (sorted largest first); vertex 4 has no weight: the root.
    assert_eq!(mesh.joints[2][..2], [1, 0]);
    assert_eq!(mesh.weights[2], [0.75, 0.25, 0.0, 0.0]);
    assert_eq!(mesh.weights[4], [1.0, 0.0, 0.0, 0.0]);
    let unweighted = outcome
        .diagnostics
        .iter()
        .find(|d| d.code == "HANIM_SKIN_UNWEIGHTED")
        .expect("HANIM_SKIN_UNWEIGHTED");
    assert!(
        unweighted
            .message
            .contains("1 skin vertex has no joint weight"),
        "{}",
        unweighted.message
    );
    // The humanoid's scale 2 is in the vertices (metres) like in the joints.
    assert_eq!(mesh.positions[1], [0.4, 2.4, 0.0]);
    // At rest the skin does not move.
    let rest = skinned(mesh, &|j| asset.skeleton.rest_world(j).to_mat4());
    for (a, b) in rest.iter().zip(&mesh.positions) {
        assert!(a.abs_diff_eq(Vec3::from_array(*b), 1e-6), "{a}");
    }
    // At t = 1 the hip has turned 90° about +X: vertex 2 (humanoid space (0.2, 0.5, 0), hip
    // centre (0.1, 1, 0)) goes to 1/4 of itself + 3/4 of c + R_x(90°)(p − c), all × 2.
    let clip = &asset.clips[0];
    let mut sampler = Sampler::new(&asset.skeleton, clip);
    sampler.evaluate(1.0);
    let posed = skinned(mesh, &|j| sampler.world(j));
    let c = DVec3::new(0.1, 1.0, 0.0);
    let p = DVec3::new(0.2, 0.5, 0.0);
    let turned = c + DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2) * (p - c);
    let expected = 2.0 * (0.25 * p + 0.75 * turned);
    assert!(
        posed[2].as_dvec3().abs_diff_eq(expected, 1e-5),
        "{} vs {expected}",
        posed[2]
    );
}

/// The skin and a rigid mesh written: the X3D XML read here with roxmltree has the expected
/// `skinCoord` points (the file's, × its scale 2, in metres), each joint's
/// `skinCoordIndex`/`skinCoordWeight` (vertex 4, which the file leaves unweighted, on the
/// root), a skin Shape USEing the Coordinate, and the rigid triangle in an HAnimSegment under
/// `l_hip`; every encoding reads back to the same skin.
#[test]
fn writes_the_skin_and_segments() {
    use humanoid::model::mesh::{Material, SkinnedMesh};
    let (outcome, extras) = read_ok(SKINNED, "skinned.x3dv");
    let hip = joint(&outcome.asset, "l_hip");
    let rigid = SkinnedMesh {
        name: "prop".into(),
        positions: vec![[0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]],
        joints: vec![[0; 4]; 3],
        weights: vec![[1.0, 0.0, 0.0, 0.0]; 3],
        indices: vec![0, 1, 2],
        joints_used: vec![hip],
        inverse_bind: vec![outcome.asset.skeleton.rest_world(hip).to_mat4().inverse()],
        material: Some(Material {
            base_color: [1.0, 0.5, 0.25, 0.75],
            ..Material::default()
        }),
        rigid: true,
        ..SkinnedMesh::default()
    };
    let mut meshes = extras.meshes.clone();
    meshes.push(rigid);
    let options = WriteOptions {
        meshes,
        ..WriteOptions::default()
    };
    let xml_text = hanim::write_x3d(&outcome.asset, &options).unwrap();
    let xml = roxmltree::Document::parse_with_options(
        &xml_text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..roxmltree::ParsingOptions::default()
        },
    )
    .unwrap();
    let numbers =
        |v: &str| -> Vec<f64> { v.split_whitespace().map(|w| w.parse().unwrap()).collect() };
    let coord = xml
        .descendants()
        .find(|n| n.attribute("containerField") == Some("skinCoord"))
        .unwrap();
    assert_eq!(
        numbers(coord.attribute("point").unwrap()),
        [0.0, 2.4, 0.0, 0.4, 2.4, 0.0, 0.4, 1.0, 0.0, 0.2, 1.0, 0.0, 0.0, 0.0, 0.0]
    );
    let joint_node = |name: &str| {
        xml.descendants()
            .find(|n| n.has_tag_name("HAnimJoint") && n.attribute("name") == Some(name))
            .unwrap()
    };
    let root = joint_node("humanoid_root");
    assert_eq!(
        numbers(root.attribute("skinCoordIndex").unwrap()),
        [0.0, 1.0, 2.0, 3.0, 4.0]
    );
    assert_eq!(
        numbers(root.attribute("skinCoordWeight").unwrap()),
        [1.0, 1.0, 0.25, 0.25, 1.0]
    );
    let hip_node = joint_node("l_hip");
    assert_eq!(
        numbers(hip_node.attribute("skinCoordIndex").unwrap()),
        [2.0, 3.0]
    );
    assert_eq!(
        numbers(hip_node.attribute("skinCoordWeight").unwrap()),
        [0.75, 0.75]
    );
    let skin_shape = xml
        .descendants()
        .find(|n| n.has_tag_name("Shape") && n.attribute("containerField") == Some("skin"))
        .unwrap();
    let set = skin_shape
        .children()
        .find(|n| n.has_tag_name("IndexedTriangleSet"))
        .unwrap();
    assert_eq!(
        numbers(set.attribute("index").unwrap()),
        [0.0, 1.0, 2.0, 0.0, 2.0, 3.0]
    );
    let used = set
        .children()
        .find(|n| n.has_tag_name("Coordinate"))
        .unwrap();
    assert_eq!(used.attribute("USE"), coord.attribute("DEF"));
    // The rigid triangle: under l_hip, in humanoid space (the hip's rest frame is the
    // humanoid's), with its colour and 1 − alpha as transparency.
    let segment = hip_node
        .children()
        .find(|n| n.has_tag_name("HAnimSegment"))
        .unwrap();
    let shape = segment
        .children()
        .find(|n| n.has_tag_name("Shape"))
        .unwrap();
    let point = shape
        .descendants()
        .find(|n| n.has_tag_name("Coordinate"))
        .unwrap();
    assert_eq!(
        numbers(point.attribute("point").unwrap()),
        [0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    );
    let material = shape
        .descendants()
        .find(|n| n.has_tag_name("Material"))
        .unwrap();
    assert_eq!(
        numbers(material.attribute("diffuseColor").unwrap()),
        [1.0, 0.5, 0.25]
    );
    assert_eq!(numbers(material.attribute("transparency").unwrap()), [0.25]);
    assert!(xml.descendants().any(
        |n| n.has_tag_name("HAnimSegment") && n.attribute("containerField") == Some("segments")
    ));
    // Every encoding reads back to the same skin.
    let skin = &extras.meshes[0];
    for format in [Format::X3d, Format::X3dv, Format::Wrl] {
        let text = hanim::write_with_diagnostics(&outcome.asset, format, &options)
            .unwrap()
            .text;
        let (_, again) = read_ok(&text, &format!("again.{}", format.name()));
        let back = &again.meshes[0];
        assert_eq!(back.positions, skin.positions, "{format}");
        assert_eq!(back.weights, skin.weights, "{format}");
        assert_eq!(back.indices, skin.indices, "{format}");
        let segments = again.meshes.iter().find(|m| m.rigid).unwrap();
        assert_eq!(segments.vertex_count(), 3, "{format}");
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus.

#[cfg(feature = "corpus")]
mod corpus {
    use super::*;
    use std::path::PathBuf;
    use std::process::Command;

    fn corpus_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/hanim")
    }

    /// The corpus files with the joint count the MANIFEST gives for each (X_ITE's count).
    fn corpus() -> Vec<(PathBuf, usize)> {
        let expected = [
            ("nancy_h-anim.wrl", 17),
            ("joe_1.1.wrl", 77),
            ("marvin_005.wrl", 38),
            ("JoeSkinTexcoordDisplacerKick.x3d", 94),
            ("JoeHAnimKick1a.x3dv", 89),
            ("JoeKick.x3d", 94),
            ("JoeSkeletonSkinSiteSaluteWalk.x3d", 89),
            ("KoreanCharacterMotionAnnexD01Jin.x3d", 18),
            ("KoreanCharacter01Jin.x3d", 18),
            ("JinLOA4.x3d", 146),
            ("StandardHumanoid.x3d", 146),
            ("HAnimModelHandLeft.x3d", 25),
            ("JoeDemo5JoeSkin5.x3dv", 89),
            ("CesiumMan_fromGLTF_xite.x3d", 19),
        ];
        let files: Vec<(PathBuf, usize)> = expected
            .iter()
            .map(|(f, n)| (corpus_dir().join(f), *n))
            .filter(|(p, _)| p.exists())
            .collect();
        assert!(files.len() >= 14, "corpus files: {files:?}");
        files
    }

    /// A joint as a peer prints it: name, depth, centre.
    #[derive(Debug, Clone, PartialEq)]
    struct PeerJoint {
        name: String,
        depth: usize,
        center: [f64; 3],
    }

    fn note(message: &str) {
        eprintln!("note: {message}");
    }

    /// X_ITE's joint tree of `file` (full-precision centres), or `None` when HUMANOID_XITE is
    /// not set.
    fn xite(file: &Path) -> Option<Result<Vec<PeerJoint>, String>> {
        xite_with_skin(file).map(|r| r.map(|(joints, _)| joints))
    }

    /// A peer's joints and skin points.
    type PeerReading = (Vec<PeerJoint>, Vec<[f64; 3]>);

    /// As [`xite`], with the points of the first humanoid's `skinCoord` as X_ITE holds them
    /// (lines the test adds to the script write them to a file).
    fn xite_with_skin(file: &Path) -> Option<Result<PeerReading, String>> {
        let script = std::env::var_os("HUMANOID_XITE").map(PathBuf::from)?;
        let dir = script.parent()?.to_path_buf();
        let text = std::fs::read_to_string(&script).ok()?;
        let precise = text.replace(".toFixed(4)", ".toPrecision(17)").replacen(
            "    const roots = [];",
            "    if (skinCoord && skinCoord.point && !require('fs').existsSync(process.env.HANIM_SKIN_OUT)) {\n      const p = skinCoord.point; const v = [];\n      for (let i = 0; i < p.length; ++i) v.push(p[i].x, p[i].y, p[i].z);\n      require('fs').writeFileSync(process.env.HANIM_SKIN_OUT, v.join(' ')); }\n    const roots = [];",
            1,
        );
        let temp = tempfile::Builder::new().suffix(".js").tempfile().ok()?;
        // The points go through a file: a long stdout line is cut when the script exits.
        let skin_dir = tempfile::tempdir().ok()?;
        let skin_file = skin_dir.path().join("skin.txt");
        std::fs::write(temp.path(), precise).ok()?;
        let output = Command::new("node")
            .arg("-r")
            .arg(dir.join("f16-polyfill.js"))
            .arg(temp.path())
            .arg(file)
            .arg("--centers")
            .env("NODE_PATH", dir.join("node_modules"))
            .env("HANIM_SKIN_OUT", &skin_file)
            .output()
            .ok()?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            return Some(Err(format!(
                "{stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            )));
        }
        let mut joints = Vec::new();
        let mut skin = Vec::new();
        let mut humanoids = 0;
        for line in stdout.lines() {
            if line.starts_with("humanoid:") {
                humanoids += 1;
                continue;
            }
            if humanoids != 1 || !line.starts_with("  ") {
                continue;
            }
            let Some((head, center)) = line.rsplit_once("  center=") else {
                continue;
            };
            let depth = (head.len() - head.trim_start().len()) / 2 - 1;
            let c: Vec<f64> = center
                .split_whitespace()
                .map(|v| v.parse().unwrap())
                .collect();
            joints.push(PeerJoint {
                name: head.trim_start().to_owned(),
                depth,
                center: [c[0], c[1], c[2]],
            });
        }
        if let Ok(text) = std::fs::read_to_string(&skin_file) {
            let v: Vec<f64> = text
                .split_whitespace()
                .map(|x| x.parse().unwrap())
                .collect();
            skin = v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        }
        Some(Ok((joints, skin)))
    }

    /// Castle's joint tree of `file` (tovrmlx3d to X3D XML, walked here), or `None` when
    /// HUMANOID_TOVRMLX3D is not set; `Err` when Castle does not parse the whole file.
    fn castle(file: &Path) -> Option<Result<Vec<PeerJoint>, String>> {
        let tool = std::env::var_os("HUMANOID_TOVRMLX3D")?;
        let output = Command::new(tool)
            .arg(file)
            .arg("--encoding=xml")
            .output()
            .ok()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() || stderr.contains("skip the rest") {
            return Some(Err(stderr.into_owned()));
        }
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let doc = roxmltree::Document::parse_with_options(
            &text,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                nodes_limit: u32::MAX,
            },
        )
        .ok()?;
        let defs: HashMap<&str, roxmltree::Node> = doc
            .descendants()
            .filter_map(|e| e.attribute("DEF").map(|d| (d, e)))
            .collect();
        let value = |e: roxmltree::Node, name: &str| -> Option<String> {
            let attribute = if e.has_tag_name("ProtoInstance") {
                None
            } else {
                e.attribute(name)
            };
            attribute.map(str::to_owned).or_else(|| {
                e.children()
                    .find(|c| c.has_tag_name("fieldValue") && c.attribute("name") == Some(name))
                    .and_then(|c| c.attribute("value").map(str::to_owned))
            })
        };
        let is_joint = |e: roxmltree::Node| {
            e.has_tag_name("HAnimJoint")
                || (e.has_tag_name("ProtoInstance") && e.attribute("name") == Some("Joint"))
        };
        let humanoid = doc.descendants().find(|e| {
            e.has_tag_name("HAnimHumanoid")
                || (e.has_tag_name("ProtoInstance") && e.attribute("name") == Some("Humanoid"))
        })?;
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        fn walk<'a>(
            e: roxmltree::Node<'a, 'a>,
            depth: usize,
            out: &mut Vec<PeerJoint>,
            seen: &mut std::collections::HashSet<roxmltree::NodeId>,
            defs: &HashMap<&str, roxmltree::Node<'a, 'a>>,
            is_joint: &dyn Fn(roxmltree::Node) -> bool,
            value: &dyn Fn(roxmltree::Node, &str) -> Option<String>,
        ) {
            let e = e
                .attribute("USE")
                .and_then(|u| defs.get(u).copied())
                .unwrap_or(e);
            if !seen.insert(e.id()) {
                return;
            }
            let mut d = depth;
            if is_joint(e) {
                let c: Vec<f64> = value(e, "center")
                    .map(|v| v.split_whitespace().map(|w| w.parse().unwrap()).collect())
                    .unwrap_or_else(|| vec![0.0; 3]);
                out.push(PeerJoint {
                    name: value(e, "name").unwrap_or_default(),
                    depth,
                    center: [c[0], c[1], c[2]],
                });
                d += 1;
            }
            for c in e.children().filter(|c| c.is_element()) {
                if c.has_tag_name("fieldValue")
                    && !matches!(
                        c.attribute("name"),
                        Some("children" | "humanoidBody" | "skeleton")
                    )
                {
                    continue;
                }
                if matches!(
                    c.attribute("containerField"),
                    Some("joints" | "segments" | "sites" | "viewpoints" | "skin" | "motions")
                ) {
                    continue;
                }
                walk(c, d, out, seen, defs, is_joint, value);
            }
        }
        for c in humanoid.children().filter(|c| c.is_element()) {
            if matches!(
                c.attribute("containerField"),
                Some("joints" | "segments" | "sites" | "viewpoints" | "skin" | "motions")
            ) {
                continue;
            }
            if c.has_tag_name("fieldValue")
                && !matches!(c.attribute("name"), Some("humanoidBody" | "skeleton"))
            {
                continue;
            }
            walk(c, 0, &mut out, &mut seen, &defs, &is_joint, &value);
        }
        Some(Ok(out))
    }

    /// The points of the humanoid's `skinCoord` in Castle's reading of `file` (tovrmlx3d to X3D
    /// XML, walked here: HAnimHumanoid's `skinCoord` field, or the Humanoid PROTO instance's),
    /// or `None` when HUMANOID_TOVRMLX3D is not set or Castle does not parse the file.
    fn castle_skin(file: &Path) -> Option<Vec<[f64; 3]>> {
        let tool = std::env::var_os("HUMANOID_TOVRMLX3D")?;
        let output = Command::new(tool)
            .arg(file)
            .arg("--encoding=xml")
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let doc = roxmltree::Document::parse_with_options(
            &text,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                nodes_limit: u32::MAX,
            },
        )
        .ok()?;
        let humanoid = doc.descendants().find(|e| {
            e.has_tag_name("HAnimHumanoid")
                || (e.has_tag_name("ProtoInstance") && e.attribute("name") == Some("Humanoid"))
        })?;
        let coord = humanoid.children().find_map(|c| {
            if c.has_tag_name("Coordinate") && c.attribute("containerField") == Some("skinCoord") {
                Some(c)
            } else if c.has_tag_name("fieldValue") && c.attribute("name") == Some("skinCoord") {
                c.children().find(|x| x.has_tag_name("Coordinate"))
            } else {
                None
            }
        });
        let Some(coord) = coord else {
            return Some(Vec::new());
        };
        let coord = match coord.attribute("USE") {
            Some(name) => doc
                .descendants()
                .find(|e| e.attribute("DEF") == Some(name))?,
            None => coord,
        };
        let v: Vec<f64> = coord
            .attribute("point")
            .unwrap_or("")
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().unwrap())
            .collect();
        Some(v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
    }

    /// Our reading of a file as a peer would print it.
    fn ours(extras: &HanimExtras) -> Vec<PeerJoint> {
        let joints = &extras.humanoids[0].joints;
        joints
            .iter()
            .map(|j| {
                let depth = std::iter::successors(j.parent, |p| joints[*p].parent).count();
                PeerJoint {
                    name: j.name_in_file.clone(),
                    depth,
                    center: j.center,
                }
            })
            .collect()
    }

    /// The largest difference between two readings; panics when names or depths differ.
    #[track_caller]
    fn compare(
        peer: &str,
        file: &Path,
        theirs: &[PeerJoint],
        ours: &[PeerJoint],
        tolerance: f64,
    ) -> f64 {
        assert_eq!(
            theirs.len(),
            ours.len(),
            "{peer} on {}: joint count",
            file.display()
        );
        let mut worst = 0.0f64;
        for (a, b) in theirs.iter().zip(ours) {
            assert_eq!(
                (&a.name, a.depth),
                (&b.name, b.depth),
                "{peer} on {}",
                file.display()
            );
            for k in 0..3 {
                worst = worst.max((a.center[k] - b.center[k]).abs());
            }
        }
        assert!(
            worst <= tolerance,
            "{peer} on {}: centres differ by {worst}",
            file.display()
        );
        worst
    }

    #[test]
    fn every_corpus_file_reads_with_the_manifest_joint_count() {
        for (path, joints) in corpus() {
            let (outcome, extras) = hanim::read_asset_with_extras(&path, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                extras.humanoids[0].joints.len(),
                joints,
                "{}",
                path.display()
            );
            assert!(
                !outcome.asset.humanoids.is_empty(),
                "{}: not mapped",
                path.display()
            );
        }
    }

    #[test]
    fn the_manifest_dirty_data_is_reported() {
        let read = |f: &str| {
            hanim::read_asset_with_extras(&corpus_dir().join(f), &ReadOptions::default()).unwrap()
        };
        let (marvin, _) = read("marvin_005.wrl");
        assert!(marvin.diagnostics.contains("HANIM_NAME_REPAIRED")); // the right hand's left names
        assert!(marvin.diagnostics.contains("HANIM_NONSTANDARD_JOINTS"));
        assert!(marvin.asset.skeleton.find("r_index1").is_some());
        let (joe, _) = read("JoeHAnimKick1a.x3dv");
        assert!(joe.asset.skeleton.find("r_knee").is_some()); // "r _knee"
        let (kick, _) = read("JoeKick.x3d");
        assert!(kick.diagnostics.contains("HANIM_JOINT_UNNAMED"));
        let (epfl, _) = read("joe_1.1.wrl");
        assert!(epfl.diagnostics.contains("HANIM_PROTO_FIELD_MISSPELLED")); // transalation
        assert!(epfl.diagnostics.contains("HANIM_GZIP"));
        // EPFL's ball of the foot is l_metatarsal, Joe's is l_midtarsal.
        use humanoid::model::HumanBone;
        let toes = |o: &ReadOutcome| {
            o.asset
                .skeleton
                .name(o.asset.humanoids[0].bones.get(HumanBone::LeftToes).unwrap())
                .to_owned()
        };
        assert_eq!(toes(&epfl), "l_metatarsal");
        assert_eq!(toes(&joe), "l_midtarsal");
        let (jin, extras) = read("KoreanCharacterMotionAnnexD01Jin.x3d");
        assert_eq!(extras.humanoids[0].scale, 0.0225);
        // Centres are in centimetre-like units, scaled to metres: the root 35.8·0.0225 m up.
        let root = jin
            .asset
            .skeleton
            .rest_world(jin.asset.skeleton.joint(0))
            .translation;
        assert!(
            (root.y - 30.53 * 0.0225).abs() < 1e-5 || (root.y - 35.8 * 0.0225).abs() < 1e-5,
            "{root}"
        );
    }

    #[test]
    fn skins_and_segments_become_meshes() {
        let read = |f: &str| {
            hanim::read_asset_with_extras(&corpus_dir().join(f), &ReadOptions::default()).unwrap()
        };
        for (file, points) in [
            ("JoeKick.x3d", 390),
            ("CesiumMan_fromGLTF_xite.x3d", 3273),
            ("JoeSkinTexcoordDisplacerKick.x3d", 390),
        ] {
            let (outcome, extras) = read(file);
            let skin = &extras.meshes[0];
            assert_eq!(skin.vertex_count(), points, "{file}");
            assert!(skin.triangle_count() > 0, "{file}");
            for w in &skin.weights {
                assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{file}");
            }
            // At rest, the skin stays where the file put it (for CesiumMan: the binding
            // matrices are its glTF inverse bind matrices, and the rest is the bind pose).
            let rest = skinned(skin, &|j| outcome.asset.skeleton.rest_world(j).to_mat4());
            let worst = rest
                .iter()
                .zip(&skin.positions)
                .map(|(a, b)| (*a - Vec3::from_array(*b)).length())
                .fold(0.0f32, f32::max);
            eprintln!("{file}: skin at rest moves by at most {worst:.1e} m");
            assert!(worst < 1e-4, "{file}: {worst}");
        }
        let (_, jin) = read("JinLOA4.x3d");
        let segments = jin
            .meshes
            .iter()
            .find(|m| m.name.ends_with("segments"))
            .unwrap();
        assert!(
            segments.triangle_count() > 1000,
            "{}",
            segments.triangle_count()
        );
        // Jin is in centimetre-like units scaled by 0.0225: about 1.6 m tall in metres.
        let top = segments
            .positions
            .iter()
            .map(|p| p[1])
            .fold(f32::MIN, f32::max);
        assert!((1.2..2.0).contains(&top), "{top}");
    }

    #[test]
    fn joints_and_centres_agree_with_x_ite_and_castle() {
        let mut report = Vec::new();
        for (path, _) in corpus() {
            let (_, extras) =
                hanim::read_asset_with_extras(&path, &ReadOptions::default()).unwrap();
            let mine = ours(&extras);
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            match xite(&path) {
                None => note("HUMANOID_XITE is not set: X_ITE comparison skipped"),
                Some(Err(e)) => panic!("X_ITE failed on {name}: {e}"),
                Some(Ok(theirs)) => {
                    let worst = compare("X_ITE", &path, &theirs, &mine, 1e-5);
                    report.push(format!(
                        "{name}: X_ITE {} joints, max |Δcenter| {worst:.1e}",
                        theirs.len()
                    ));
                }
            }
            match castle(&path) {
                None => note("HUMANOID_TOVRMLX3D is not set: Castle comparison skipped"),
                Some(Err(e)) => report.push(format!(
                    "{name}: Castle does not parse it ({})",
                    e.lines().next().unwrap_or("")
                )),
                Some(Ok(theirs)) => {
                    let worst = compare("Castle", &path, &theirs, &mine, 1e-5);
                    report.push(format!(
                        "{name}: Castle {} joints, max |Δcenter| {worst:.1e}",
                        theirs.len()
                    ));
                }
            }
        }
        eprintln!("{}", report.join("\n"));
    }

    #[test]
    fn round_trips_every_corpus_file() {
        for (path, _) in corpus() {
            let (outcome, extras) =
                hanim::read_asset_with_extras(&path, &ReadOptions::default()).unwrap();
            for (format, generation) in [
                (Format::X3d, names::Generation::V2),
                (Format::X3dv, names::Generation::V2),
                (Format::Wrl, names::Generation::V1),
            ] {
                let (again, again_extras, _) = write_and_read(&outcome.asset, &extras, format);
                same_figure(
                    &format!("{} as {format}", path.display()),
                    &outcome.asset,
                    &again.asset,
                    generation,
                );
                assert_eq!(
                    again_extras.sockets.len(),
                    extras.sockets.len(),
                    "{}",
                    path.display()
                );
            }
        }
    }

    /// Every corpus file written in each encoding, with its sites, skin and segments, loads in
    /// X_ITE and Castle with the same joints and centres; both peers find as many skin points
    /// in it as X_ITE finds in the original, and where the original is BASIC with no humanoid
    /// scale (so the written rest is the original's), X_ITE's skin points in the written file
    /// equal its skin points in the original (1e-6 m).
    #[test]
    fn written_files_load_in_x_ite_and_castle() {
        let dir = tempfile::tempdir().unwrap();
        let mut report = Vec::new();
        for (path, _) in corpus() {
            let (outcome, extras) =
                hanim::read_asset_with_extras(&path, &ReadOptions::default()).unwrap();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let original_skin = match xite_with_skin(&path) {
                Some(Ok((_, skin))) => Some(skin),
                _ => None,
            };
            let info = &extras.humanoids[0];
            // The file's rest is H-Anim's zero pose: no humanoid scale, BASIC, and every joint
            // at its centre with no rotation (JoeDemo5 poses its root by translation and
            // rotation: X_ITE's unskinned points are not its rest there).
            let same_rest = info.scale == 1.0
                && info.skeletal_configuration.eq_ignore_ascii_case("BASIC")
                && info.joints.iter().all(|j| {
                    let w = outcome.asset.skeleton.rest_world(j.joint);
                    w.rotation.abs_diff_eq(Quat::IDENTITY, 1e-6)
                        && w.translation
                            .as_dvec3()
                            .abs_diff_eq(DVec3::from_array(j.center), 1e-6)
                });
            for format in [Format::X3d, Format::X3dv, Format::Wrl] {
                let options = WriteOptions {
                    sockets: extras.sockets.clone(),
                    meshes: extras.meshes.clone(),
                    ..WriteOptions::default()
                };
                let text = hanim::write_with_diagnostics(&outcome.asset, format, &options)
                    .unwrap()
                    .text;
                let out = dir.path().join(format!("{stem}.{}", format.name()));
                std::fs::write(&out, &text).unwrap();
                let (again, again_extras) =
                    hanim::read_asset_with_extras(&out, &ReadOptions::default()).unwrap();
                let mine = ours(&again_extras);
                // Our written centres are the original rest world positions.
                for (info, j) in again_extras.humanoids[0]
                    .joints
                    .iter()
                    .zip(outcome.asset.skeleton.joints())
                {
                    let p = outcome.asset.skeleton.rest_world(j).translation.as_dvec3();
                    assert!(
                        DVec3::from_array(info.center).abs_diff_eq(p, 1e-6),
                        "{stem}.{format}"
                    );
                }
                assert_eq!(again.asset.skeleton.len(), outcome.asset.skeleton.len());
                let xite_out = xite_with_skin(&out);
                if let Some(original) = &original_skin {
                    if let Some(Ok((_, written))) = &xite_out {
                        assert_eq!(
                            written.len(),
                            original.len(),
                            "X_ITE: {stem}.{format} skin points"
                        );
                        if same_rest && !written.is_empty() {
                            let worst = written
                                .iter()
                                .zip(original)
                                .map(|(a, b)| {
                                    (DVec3::from_array(*a) - DVec3::from_array(*b)).length()
                                })
                                .fold(0.0f64, f64::max);
                            assert!(
                                worst < 1e-6,
                                "X_ITE: {stem}.{format} skin points differ by {worst} m"
                            );
                            report.push(format!("{stem}.{format}: X_ITE {} skin points, max |Δ| {worst:.1e} m from the original's", written.len()));
                        }
                    }
                    if let Some(castle_points) = castle_skin(&out) {
                        assert_eq!(
                            castle_points.len(),
                            original.len(),
                            "Castle: {stem}.{format} skin points"
                        );
                    }
                }
                let xite_joints = xite_out.map(|r| r.map(|(joints, _)| joints));
                for (peer, result) in [("X_ITE", xite_joints), ("Castle", castle(&out))] {
                    match result {
                        None => note(&format!(
                            "{peer} not installed: written {stem}.{format} not loaded"
                        )),
                        Some(Err(e)) => {
                            panic!("{peer} cannot load the written {stem}.{format}: {e}")
                        }
                        Some(Ok(theirs)) => {
                            let worst = compare(peer, &out, &theirs, &mine, 1e-5);
                            report.push(format!(
                                "{stem}.{format}: {peer} {} joints, max |Δcenter| {worst:.1e}",
                                theirs.len()
                            ));
                        }
                    }
                }
            }
        }
        eprintln!("{}", report.join("\n"));
    }

    /// The world position of every HAnimSite (or 1.1 `Site` PROTO instance) in Castle's X3D XML
    /// of `file`, by name: each Transform-like node's `T(t)·T(c)·R·S·T(−c)` composed from the
    /// scene root down (USE followed once per path). `None` when HUMANOID_TOVRMLX3D is not set.
    fn castle_sites(file: &Path) -> Option<Result<Vec<(String, DVec3)>, String>> {
        let tool = std::env::var_os("HUMANOID_TOVRMLX3D")?;
        let output = Command::new(tool)
            .arg(file)
            .arg("--encoding=xml")
            .output()
            .ok()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() || stderr.contains("skip the rest") {
            return Some(Err(stderr.into_owned()));
        }
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let doc = roxmltree::Document::parse_with_options(
            &text,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                nodes_limit: u32::MAX,
            },
        )
        .ok()?;
        let defs: HashMap<&str, roxmltree::Node> = doc
            .descendants()
            .filter_map(|e| e.attribute("DEF").map(|d| (d, e)))
            .collect();
        fn field(e: roxmltree::Node, name: &str) -> Option<Vec<f64>> {
            let text = if e.has_tag_name("ProtoInstance") {
                e.children()
                    .find(|c| c.has_tag_name("fieldValue") && c.attribute("name") == Some(name))
                    .and_then(|c| c.attribute("value"))
            } else {
                e.attribute(name)
            }?;
            Some(
                text.split_whitespace()
                    .map(|v| v.parse().unwrap())
                    .collect(),
            )
        }
        fn text_field(e: roxmltree::Node, name: &str) -> Option<String> {
            if e.has_tag_name("ProtoInstance") {
                e.children()
                    .find(|c| c.has_tag_name("fieldValue") && c.attribute("name") == Some(name))
                    .and_then(|c| c.attribute("value"))
                    .map(|v| v.trim_matches('"').to_owned())
            } else {
                e.attribute(name).map(str::to_owned)
            }
        }
        fn kind(e: roxmltree::Node) -> String {
            if e.has_tag_name("ProtoInstance") {
                e.attribute("name").unwrap_or("").to_owned()
            } else {
                e.tag_name().name().to_owned()
            }
        }
        fn walk<'a>(
            e: roxmltree::Node<'a, 'a>,
            parent: DMat4,
            defs: &HashMap<&str, roxmltree::Node<'a, 'a>>,
            out: &mut Vec<(String, DVec3)>,
        ) {
            let e = e
                .attribute("USE")
                .and_then(|u| defs.get(u).copied())
                .unwrap_or(e);
            let k = kind(e);
            let transformish = matches!(
                k.as_str(),
                "Transform"
                    | "HAnimHumanoid"
                    | "HAnimJoint"
                    | "HAnimSite"
                    | "Humanoid"
                    | "Joint"
                    | "Site"
            );
            let mut world = parent;
            if transformish {
                let v3 = |n: &str, d: f64| {
                    field(e, n).map_or(DVec3::splat(d), |v| DVec3::new(v[0], v[1], v[2]))
                };
                let r = field(e, "rotation").map_or(DQuat::IDENTITY, |v| axis_angle(&v));
                world = parent
                    * transform(
                        v3("translation", 0.0),
                        v3("center", 0.0),
                        r,
                        v3("scale", 1.0),
                    );
            }
            if matches!(k.as_str(), "HAnimSite" | "Site") {
                out.push((
                    text_field(e, "name").unwrap_or_default(),
                    world.transform_point3(DVec3::ZERO),
                ));
            }
            for c in e.children().filter(|c| c.is_element()) {
                // Only the scene graph: not the humanoid's USE lists of joints and sites.
                let list = matches!(
                    c.attribute("containerField"),
                    Some("joints" | "segments" | "sites" | "viewpoints" | "skin" | "motions")
                ) || (c.has_tag_name("fieldValue")
                    && matches!(
                        c.attribute("name"),
                        Some("joints" | "segments" | "sites" | "viewpoints")
                    ));
                if !list {
                    walk(c, world, defs, out);
                }
            }
        }
        let scene = doc.descendants().find(|e| e.has_tag_name("Scene"))?;
        let mut out = Vec::new();
        walk(scene, DMat4::IDENTITY, &defs, &mut out);
        Some(Ok(out))
    }

    /// The site count X_ITE prints for `file`, or `None` when HUMANOID_XITE is not set.
    fn xite_sites(file: &Path) -> Option<Result<usize, String>> {
        let script = std::env::var_os("HUMANOID_XITE").map(PathBuf::from)?;
        let dir = script.parent()?.to_path_buf();
        let output = Command::new("node")
            .arg("-r")
            .arg(dir.join("f16-polyfill.js"))
            .arg(&script)
            .arg(file)
            .env("NODE_PATH", dir.join("node_modules"))
            .output()
            .ok()?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            return Some(Err(format!(
                "{stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            )));
        }
        Some(
            stdout
                .lines()
                .find_map(|l| l.split("sites=").nth(1))
                .and_then(|n| n.trim().parse().ok())
                .ok_or_else(|| stdout.into_owned()),
        )
    }

    /// Sockets written as sites: X_ITE loads every written file and counts every site; in
    /// Castle's reading of it (its X3D XML, evaluated here) each site is at the socket's world
    /// position at rest (the source file's sites, plus a rotated and scaled one added here).
    #[test]
    fn written_sites_are_where_the_sockets_are_in_x_ite_and_castle() {
        use humanoid::model::socket::Socket;
        use humanoid::pose::socket::{world_all, VtMode};
        let dir = tempfile::tempdir().unwrap();
        let mut report = Vec::new();
        for name in ["StandardHumanoid.x3d", "JoeSkeletonSkinSiteSaluteWalk.x3d"] {
            let path = corpus_dir().join(name);
            let (outcome, extras) =
                hanim::read_asset_with_extras(&path, &ReadOptions::default()).unwrap();
            let asset = &outcome.asset;
            let mut sockets = extras.sockets.clone();
            let mut extra = Socket::new("tilted_grip", sockets[0].parent);
            extra.translation = Vec3::new(0.01, -0.02, 0.03);
            extra.rotation = Quat::from_xyzw(0.1, 0.2, 0.3, 0.9).normalize();
            extra.scale = Vec3::new(1.0, 2.0, 0.5);
            sockets.push(extra);
            let rest: Vec<glam::Mat4> = asset
                .skeleton
                .rest_worlds()
                .iter()
                .map(|w| w.to_mat4())
                .collect();
            let expected = world_all(&sockets, &rest, &rest, VtMode::Aligned).unwrap();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            for format in [Format::X3d, Format::X3dv, Format::Wrl] {
                let options = WriteOptions {
                    sockets: sockets.clone(),
                    ..WriteOptions::default()
                };
                let text = hanim::write_with_diagnostics(asset, format, &options)
                    .unwrap()
                    .text;
                let out = dir.path().join(format!("{stem}.{}", format.name()));
                std::fs::write(&out, &text).unwrap();
                match xite_sites(&out) {
                    None => note("HUMANOID_XITE is not set: X_ITE site count skipped"),
                    Some(Err(e)) => panic!("X_ITE cannot load the written {stem}.{format}: {e}"),
                    Some(Ok(n)) => assert_eq!(n, sockets.len(), "X_ITE: {stem}.{format}"),
                }
                match castle_sites(&out) {
                    None => note("HUMANOID_TOVRMLX3D is not set: Castle comparison skipped"),
                    Some(Err(e)) => panic!("Castle cannot load the written {stem}.{format}: {e}"),
                    Some(Ok(theirs)) => {
                        assert_eq!(theirs.len(), sockets.len(), "Castle: {stem}.{format}");
                        let mut worst = 0.0f64;
                        for (socket, world) in sockets.iter().zip(&expected) {
                            let (_, p) = theirs
                                .iter()
                                .find(|(n, _)| *n == socket.name)
                                .unwrap_or_else(|| panic!("Castle: no site {}", socket.name));
                            let d = (*p - world.translation.as_dvec3()).length();
                            assert!(d < 1e-5, "{stem}.{format} {}: {d}", socket.name);
                            worst = worst.max(d);
                        }
                        report.push(format!(
                            "{stem}.{format}: Castle {} sites, max |Δp| {worst:.1e} m",
                            theirs.len()
                        ));
                    }
                }
            }
        }
        eprintln!("{}", report.join("\n"));
    }

    /// The reader's animation equals the test's own evaluation of the file at 20 times.
    #[track_caller]
    fn check_animation(
        file: &str,
        scene: &TScene,
        clip_name: &str,
        pose: &dyn Fn(&TScene, f64) -> Pose,
    ) -> f64 {
        let (outcome, _) =
            hanim::read_asset_with_extras(&corpus_dir().join(file), &ReadOptions::default())
                .unwrap();
        let asset = &outcome.asset;
        let clip = asset
            .clips
            .iter()
            .find(|c| c.name == clip_name)
            .unwrap_or_else(|| panic!("{file}: no clip {clip_name}"));
        let duration = f64::from(clip.duration());
        let mut worst = 0.0f64;
        for step in 0..20 {
            let t = duration * (step as f64 + 0.37) / 20.0;
            let expected = positions(scene, &pose(scene, t));
            let got = sampled(asset, clip, t as f32);
            assert_eq!(expected.len(), got.len(), "{file}");
            for (e, g) in expected.iter().zip(&got) {
                worst = worst.max((*e - g.as_dvec3()).length());
            }
        }
        assert!(worst < 1e-4, "{file} {clip_name}: worst {worst} m");
        worst
    }

    #[test]
    fn animation_equals_an_independent_evaluation() {
        let text = |f: &str| std::fs::read_to_string(corpus_dir().join(f)).unwrap();
        let kick = xml_scene(&text("JoeKick.x3d"));
        let w = check_animation("JoeKick.x3d", &kick, "KickTimer", &|s, t| {
            interpolator_pose(s, "KickTimer", t)
        });
        eprintln!("JoeKick.x3d KickTimer: max |Δp| {w:.1e} m");
        let nancy = vrml_scene(&text("nancy_h-anim.wrl"));
        for clip in ["Walk_Time", "Run_Time", "Jump_Time"] {
            let w = check_animation("nancy_h-anim.wrl", &nancy, clip, &|s, t| {
                interpolator_pose(s, clip, t)
            });
            eprintln!("nancy_h-anim.wrl {clip}: max |Δp| {w:.1e} m");
        }
        let jin = xml_scene(&text("KoreanCharacterMotionAnnexD01Jin.x3d"));
        let w = check_animation(
            "KoreanCharacterMotionAnnexD01Jin.x3d",
            &jin,
            "motion_animation",
            &|s, t| motion_pose(s, t),
        );
        eprintln!("KoreanCharacterMotionAnnexD01Jin.x3d HAnimMotion: max |Δp| {w:.1e} m");
    }

    /// The files with `UNIT length centimeter` and `UNIT angle degree`: X_ITE applies the
    /// length unit to the centres it reports (metres, as our rest positions); Castle applies
    /// the angle unit to the rotations it writes (radians, as our reading), and not the length
    /// unit (it writes the centres as given and drops the UNIT statements: not compared).
    #[test]
    fn unit_statements_agree_with_x_ite_and_castle() {
        let dir = tempfile::tempdir().unwrap();
        let (xml, classic) = tiny_in_centimetres();
        for (name, text) in [("tiny_cm.x3d", xml), ("tiny_cm.x3dv", classic)] {
            let path = dir.path().join(name);
            std::fs::write(&path, &text).unwrap();
            let (outcome, _) = read_ok(&text, name);
            let skeleton = &outcome.asset.skeleton;
            match xite(&path) {
                None => note("HUMANOID_XITE is not set: X_ITE comparison skipped"),
                Some(Err(e)) => panic!("X_ITE failed on {name}: {e}"),
                Some(Ok(theirs)) => {
                    assert_eq!(theirs.len(), skeleton.len(), "{name}");
                    for peer in &theirs {
                        let ours = skeleton
                            .rest_world(joint(&outcome.asset, &peer.name))
                            .translation
                            .as_dvec3();
                        let d = (ours - DVec3::from_array(peer.center)).length();
                        assert!(
                            d < 1e-6,
                            "{name} {}: {ours} vs {:?}",
                            peer.name,
                            peer.center
                        );
                    }
                    eprintln!("{name}: X_ITE's centres (metres) equal ours");
                }
            }
            let Some(tool) = std::env::var_os("HUMANOID_TOVRMLX3D") else {
                note("HUMANOID_TOVRMLX3D is not set: Castle comparison skipped");
                continue;
            };
            let output = Command::new(tool)
                .arg(&path)
                .arg("--encoding=xml")
                .output()
                .unwrap();
            assert!(output.status.success(), "{name}: Castle failed");
            let text = String::from_utf8_lossy(&output.stdout).into_owned();
            let doc = roxmltree::Document::parse_with_options(
                &text,
                roxmltree::ParsingOptions {
                    allow_dtd: true,
                    nodes_limit: u32::MAX,
                },
            )
            .unwrap();
            let keys: Vec<f64> = doc
                .descendants()
                .find(|n| n.has_tag_name("OrientationInterpolator"))
                .and_then(|n| n.attribute("keyValue"))
                .unwrap()
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|w| !w.is_empty())
                .map(|w| w.parse().unwrap())
                .collect();
            // Its second key: 1 0 0 and the angle in radians; ours is R_x(1) (check_tiny).
            assert!(
                (keys[7] - 1.0).abs() < 1e-6,
                "{name}: Castle wrote {keys:?}"
            );
            eprintln!("{name}: Castle's angle {} rad equals ours", keys[7]);
        }
    }
}

#[test]
fn the_deepest_file_allowed_fits_a_small_stack() {
    // A joint chain as deep as the limit allows, read on a thread with a 1 MiB stack (half a
    // spawned thread's default), in every syntax.
    let depth = hanim::MAX_DEPTH - 2;
    let mut classic = String::from("#X3D V4.0 utf8\nHAnimHumanoid { skeleton [\n");
    let mut xml = String::from("<X3D><Scene><HAnimHumanoid>\n");
    for i in 0..depth {
        classic.push_str(&format!(
            "HAnimJoint {{ name \"j{i}\" center 0 {i} 0 children [\n"
        ));
        xml.push_str(&format!("<HAnimJoint name='j{i}' center='0 {i} 0'>\n"));
    }
    classic.push_str(&"] }\n".repeat(depth));
    classic.push_str("] }\n");
    xml.push_str(&"</HAnimJoint>\n".repeat(depth));
    xml.push_str("</HAnimHumanoid></Scene></X3D>\n");
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            for (text, name) in [(classic, "deep.x3dv"), (xml, "deep.x3d")] {
                let outcome =
                    hanim::read(text.as_bytes(), Path::new(name), &ReadOptions::default()).unwrap();
                assert_eq!(outcome.asset.skeleton.len(), depth);
                let written = hanim::write_x3d(&outcome.asset, &WriteOptions::default()).unwrap();
                let again =
                    hanim::read(written.as_bytes(), Path::new(name), &ReadOptions::default())
                        .unwrap();
                assert_eq!(again.asset.skeleton.len(), depth);
            }
        })
        .unwrap();
    handle.join().unwrap();
}

// ---------------------------------------------------------------------------------------------
// scaleOrientation: X3D scales along `SR` (`T(t+c)·R·SR·S·SR⁻¹·T(−c)`).

const SCALE_ORIENTED: &str = r#"<X3D profile='Full' version='4.0'><Scene>
<HAnimHumanoid DEF='h' name='h' version='2.0'><HAnimJoint containerField='skeleton' DEF='a' name='humanoid_root'
 rotation='0 0 1 1.5707963267948966' scale='2 1 1' scaleOrientation='0 0 1 1.5707963267948966'>
 <HAnimJoint DEF='b' name='sacroiliac' center='0 1 0'>
  <HAnimJoint DEF='c' name='vl5' center='1 1 0'/>
 </HAnimJoint></HAnimJoint></HAnimHumanoid>
<TimeSensor DEF='t' cycleInterval='1' loop='true'/>
<PositionInterpolator DEF='s' key='0 1' keyValue='1 1 1 3 1 1'/>
<ROUTE fromNode='t' fromField='fraction_changed' toNode='s' toField='set_fraction'/>
<ROUTE fromNode='s' fromField='value_changed' toNode='a' toField='set_scale'/>
</Scene></X3D>"#;

/// A joint scaled along its `scaleOrientation` (90° about Z: along Y) and turned 90° about Z
/// moves its descendants as X3D's matrix says (sampled: the skeleton's `rest_world` composes
/// translation, rotation and scale without shear, the sampler multiplies matrices). By hand,
/// with the scale (k,1,1): `b` at (0,1,0) → SR⁻¹ (1,0,0) → S (k,0,0) → SR (0,k,0) → R
/// (−k,0,0); `c` at (1,1,0) → (1,−1,0) → (k,−1,0) → (1,k,0) → (−k,1,0). The track runs k = 1
/// → 3 over the 1 s cycle.
#[test]
fn scale_orientation_stretches_along_its_axes() {
    let (outcome, _) = read_ok(SCALE_ORIENTED, "scale_oriented.x3d");
    let asset = &outcome.asset;
    let clip = &asset.clips[0];
    for (t, k) in [(0.0, 1.0), (0.5, 2.0), (1.0, 3.0)] {
        let world = sampled(asset, clip, t);
        let (b, c) = (
            world[joint(asset, "sacroiliac").index()],
            world[joint(asset, "vl5").index()],
        );
        assert!(
            b.abs_diff_eq(Vec3::new(-k, 0.0, 0.0), 1e-5),
            "sacroiliac at {t}: {b}"
        );
        assert!(
            c.abs_diff_eq(Vec3::new(-k, 1.0, 0.0), 1e-5),
            "vl5 at {t}: {c}"
        );
    }
}
