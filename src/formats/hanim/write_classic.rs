//! A [`Plan`] in the classic syntax: ClassicVRML X3D 4.0 (`HAnimHumanoid`, HAnim 2.0 names) or
//! VRML97 H-Anim 1.1 (the `Humanoid`/`Joint`/`Segment`/`Site` PROTO declarations of the 1.1
//! files, `humanoidBody`, 1.x names). The same content as the XML writer: joint tree, `joints`
//! and `sites` USE lists, a TimeSensor per clip with its interpolators and ROUTEs.

use super::plan::{has_children, indent, number, numbers, tuples, walk, Plan, PlannedSite};
use super::plan_mesh;
use super::write_node::{self, skin_coordinates, skin_shapes, Printer, Syntax};

/// Which classic flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavour {
    /// `#X3D V4.0 utf8`, HAnim 2.0 nodes.
    X3d,
    /// `#VRML V2.0 utf8`, H-Anim 1.1 PROTOs.
    Vrml97,
}

/// The H-Anim 1.1 PROTO declarations (the interfaces of the 1.1 files, e.g. Nancy's).
const PROTOS_1_1: &str = r#"PROTO Joint [
  exposedField SFVec3f center 0 0 0
  exposedField MFNode children []
  exposedField MFNode displacers []
  exposedField MFFloat llimit []
  exposedField SFRotation limitOrientation 0 0 1 0
  exposedField SFString name ""
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFVec3f scale 1 1 1
  exposedField SFRotation scaleOrientation 0 0 1 0
  exposedField MFInt32 skinCoordIndex []
  exposedField MFFloat skinCoordWeight []
  exposedField MFFloat stiffness [ 0 0 0 ]
  exposedField SFVec3f translation 0 0 0
  exposedField MFFloat ulimit []
]
{
  Transform {
    center IS center
    children IS children
    rotation IS rotation
    scale IS scale
    scaleOrientation IS scaleOrientation
    translation IS translation
  }
}

PROTO Displacer [
  exposedField MFInt32 coordIndex []
  exposedField MFVec3f displacements []
  exposedField SFString name ""
  exposedField SFFloat weight 0
]
{
  Group { }
}

PROTO Segment [
  field SFVec3f bboxCenter 0 0 0
  field SFVec3f bboxSize -1 -1 -1
  exposedField SFVec3f centerOfMass 0 0 0
  exposedField MFNode children []
  exposedField SFNode coord NULL
  exposedField MFNode displacers []
  exposedField SFFloat mass 0
  exposedField MFFloat momentsOfInertia [ 0 0 0 0 0 0 0 0 0 ]
  exposedField SFString name ""
  eventIn MFNode addChildren
  eventIn MFNode removeChildren
]
{
  Group {
    addChildren IS addChildren
    bboxCenter IS bboxCenter
    bboxSize IS bboxSize
    children IS children
    removeChildren IS removeChildren
  }
}

PROTO Site [
  exposedField MFNode children []
  exposedField SFString name ""
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFVec3f translation 0 0 0
  eventIn MFNode addChildren
  eventIn MFNode removeChildren
]
{
  Transform {
    addChildren IS addChildren
    children IS children
    removeChildren IS removeChildren
    rotation IS rotation
    translation IS translation
  }
}

PROTO Humanoid [
  field SFVec3f bboxCenter 0 0 0
  field SFVec3f bboxSize -1 -1 -1
  exposedField SFVec3f center 0 0 0
  exposedField MFNode humanoidBody []
  exposedField MFString info []
  exposedField MFNode joints []
  exposedField SFString name ""
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFVec3f scale 1 1 1
  exposedField SFRotation scaleOrientation 0 0 1 0
  exposedField MFNode segments []
  exposedField MFNode sites []
  exposedField MFNode skin []
  exposedField SFNode skinCoord NULL
  exposedField SFNode skinNormal NULL
  exposedField SFVec3f translation 0 0 0
  exposedField SFString version "1.1"
  exposedField MFNode viewpoints []
]
{
  Transform {
    bboxCenter IS bboxCenter
    bboxSize IS bboxSize
    center IS center
    rotation IS rotation
    scale IS scale
    scaleOrientation IS scaleOrientation
    translation IS translation
    children [
      Group { children IS viewpoints }
      Group { children IS humanoidBody }
      Group { children IS skin }
    ]
  }
}

"#;

/// A quoted string with `"` and `\` escaped.
fn string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

fn site(out: &mut String, flavour: Flavour, site: &PlannedSite, depth: usize) {
    indent(out, depth);
    out.push_str("DEF ");
    out.push_str(&site.def);
    out.push_str(match flavour {
        Flavour::X3d => " HAnimSite { name ",
        Flavour::Vrml97 => " Site { name ",
    });
    string(out, &site.name);
    out.push_str(" translation ");
    numbers(out, &site.translation);
    out.push_str(" rotation ");
    numbers(out, &site.rotation);
    if site.scale != [1.0; 3] {
        out.push_str(" scale ");
        numbers(out, &site.scale);
    }
    out.push_str(" }\n");
}

/// The classic text of `plan`.
pub(crate) fn write(plan: &Plan, flavour: Flavour, generator: &str) -> String {
    let mut out = String::with_capacity(8192 + plan.joints.len() * 160);
    let (joint_type, humanoid_type, skeleton_field) = match flavour {
        Flavour::X3d => {
            out.push_str(
                "#X3D V4.0 utf8\nPROFILE Interchange\nCOMPONENT HAnim:1\nMETA \"generator\" ",
            );
            string(&mut out, generator);
            out.push_str("\nMETA \"title\" ");
            string(&mut out, &plan.name);
            out.push_str("\n\n");
            ("HAnimJoint", "HAnimHumanoid", "skeleton")
        }
        Flavour::Vrml97 => {
            out.push_str("#VRML V2.0 utf8\n# H-Anim 1.1 humanoid written by ");
            out.push_str(&generator.replace(['\n', '\r'], " "));
            out.push_str("\n\n");
            out.push_str(PROTOS_1_1);
            ("Joint", "Humanoid", "humanoidBody")
        }
    };
    out.push_str("DEF ");
    out.push_str(&plan.def);
    out.push(' ');
    out.push_str(humanoid_type);
    out.push_str(" {\n  name ");
    string(&mut out, &plan.name);
    match flavour {
        Flavour::X3d => {
            // The X3D 4.0 `loa` field stops Castle Game Engine 4.2's ClassicVRML parser (its XML
            // parser skips unknown attributes): it is a comment here, a field in X3D XML.
            out.push_str("\n  version \"2.0\"\n  # loa ");
            out.push_str(&plan.loa.to_string());
        }
        Flavour::Vrml97 => out.push_str("\n  version \"1.1\""),
    }
    if !plan.info.is_empty() {
        out.push_str("\n  info [");
        for info in &plan.info {
            out.push(' ');
            string(&mut out, info);
        }
        out.push_str(" ]");
    }
    if let Some(frame) = &plan.transform {
        for (field, values) in frame.fields() {
            out.push_str("\n  ");
            out.push_str(field);
            out.push(' ');
            numbers(&mut out, &values);
        }
    }
    out.push('\n');
    let syntax = match flavour {
        Flavour::X3d => Syntax::Classic,
        Flavour::Vrml97 => Syntax::Vrml97,
    };
    let mut printer = Printer::default();
    if let Some(skin) = &plan.meshes.skin {
        let (coord, normal) = skin_coordinates(skin);
        printer.print_field(&mut out, &coord, 1);
        if let Some(normal) = normal {
            printer.print_field(&mut out, &normal, 1);
        }
    }
    out.push_str("  ");
    out.push_str(skeleton_field);
    out.push_str(" [\n");
    let segments_of = plan_mesh::segments_by_joint(&plan.meshes, plan.joints.len());
    let children = has_children(&plan.joints);
    let mut sites_of: Vec<Vec<&PlannedSite>> = vec![Vec::new(); plan.joints.len()];
    for s in &plan.sites {
        if let Some(list) = sites_of.get_mut(s.joint) {
            list.push(s);
        }
    }
    for (index, depth, entering) in walk(&plan.joints) {
        let (Some(joint), Some(sites)) = (plan.joints.get(index), sites_of.get(index)) else {
            continue;
        };
        let segments = segments_of.get(index).map_or(&[][..], Vec::as_slice);
        let displacers = plan_mesh::displacers_of(&plan.meshes, index);
        let open = children.get(index) == Some(&true) || !sites.is_empty() || !segments.is_empty();
        let level = 2 + 2 * depth;
        if entering {
            indent(&mut out, level);
            out.push_str("DEF ");
            out.push_str(&joint.def);
            out.push(' ');
            out.push_str(joint_type);
            out.push_str(" {\n");
            indent(&mut out, level + 1);
            out.push_str("name ");
            string(&mut out, &joint.name);
            out.push('\n');
            indent(&mut out, level + 1);
            out.push_str("center ");
            numbers(&mut out, &joint.center);
            out.push('\n');
            if let Some(q) = &joint.scale_orientation {
                indent(&mut out, level + 1);
                out.push_str("scaleOrientation ");
                numbers(&mut out, q);
                out.push('\n');
            }
            if let Some(weights) = plan_mesh::weights_of(&plan.meshes, index) {
                indent(&mut out, level + 1);
                out.push_str("skinCoordIndex [ ");
                plan_mesh::write_indices(&mut out, weights);
                out.push_str(" ]\n");
                indent(&mut out, level + 1);
                out.push_str("skinCoordWeight [ ");
                plan_mesh::write_weights(&mut out, weights);
                out.push_str(" ]\n");
            }
            if !displacers.is_empty() {
                indent(&mut out, level + 1);
                out.push_str("displacers [\n");
                for d in displacers {
                    let node = write_node::displacer(syntax, d);
                    printer.print(&mut out, syntax, &node, level + 2);
                }
                indent(&mut out, level + 1);
                out.push_str("]\n");
            }
            if open {
                indent(&mut out, level + 1);
                out.push_str("children [\n");
                for s in sites {
                    site(&mut out, flavour, s, level + 2);
                }
                for segment in segments {
                    let node = write_node::segment(syntax, segment);
                    printer.print(&mut out, syntax, &node, level + 2);
                }
            } else {
                indent(&mut out, level);
                out.push_str("}\n");
            }
        } else if open {
            indent(&mut out, level + 1);
            out.push_str("]\n");
            indent(&mut out, level);
            out.push_str("}\n");
        }
    }
    out.push_str("  ]\n");
    if let Some(skin) = &plan.meshes.skin {
        out.push_str("  skin [\n");
        for shape in skin_shapes(syntax, skin) {
            printer.print(&mut out, syntax, &shape, 2);
        }
        out.push_str("  ]\n");
    }
    out.push_str("  joints [");
    for joint in &plan.joints {
        out.push_str("\n    USE ");
        out.push_str(&joint.def);
    }
    out.push_str("\n  ]\n");
    let listed: Vec<_> = plan
        .meshes
        .segments
        .iter()
        .filter(|s| s.joint.is_some())
        .collect();
    if !listed.is_empty() {
        out.push_str("  segments [");
        for segment in listed {
            out.push_str("\n    USE ");
            out.push_str(&segment.def);
        }
        out.push_str("\n  ]\n");
    }
    if !plan.sites.is_empty() {
        out.push_str("  sites [");
        for s in &plan.sites {
            out.push_str("\n    USE ");
            out.push_str(&s.def);
        }
        out.push_str("\n  ]\n");
    }
    out.push_str("}\n");
    for segment in plan.meshes.segments.iter().filter(|s| s.joint.is_none()) {
        for shape in write_node::shapes(syntax, segment) {
            printer.print(&mut out, syntax, &shape, 0);
        }
    }
    for (clip_index, clip) in plan.clips.iter().enumerate() {
        out.push_str("\nDEF ");
        out.push_str(&clip.def);
        out.push_str(" TimeSensor {");
        // (No `description`: the X3D 4.0 field stops Castle 4.2's ClassicVRML parser; the
        // DEF name is the clip's name.)
        out.push_str(" cycleInterval ");
        number(&mut out, clip.cycle);
        out.push_str(" loop TRUE");
        if clip_index > 0 {
            out.push_str(" enabled FALSE");
        }
        out.push_str(" }\n");
        for interpolator in &clip.interpolators {
            let components = interpolator.target.components();
            out.push_str("DEF ");
            out.push_str(&interpolator.def);
            out.push(' ');
            out.push_str(interpolator.target.node_type());
            out.push_str(" {\n  key [ ");
            numbers(&mut out, &interpolator.keys);
            out.push_str(" ]\n  keyValue [ ");
            tuples(&mut out, &interpolator.values, components);
            out.push_str(" ]\n}\n");
        }
        for interpolator in &clip.interpolators {
            let Some(joint) = plan.joints.get(interpolator.joint) else {
                continue;
            };
            out.push_str("ROUTE ");
            out.push_str(&clip.def);
            out.push_str(".fraction_changed TO ");
            out.push_str(&interpolator.def);
            out.push_str(".set_fraction\nROUTE ");
            out.push_str(&interpolator.def);
            out.push_str(".value_changed TO ");
            out.push_str(interpolator.node.as_deref().unwrap_or(&joint.def));
            out.push_str(".set_");
            out.push_str(interpolator.target.field());
            out.push('\n');
        }
    }
    out
}
