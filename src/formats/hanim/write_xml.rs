//! A [`Plan`] as X3D 4.0 XML: `PROFILE Interchange` with `COMPONENT HAnim:1`, one
//! `HAnimHumanoid` (version 2.0, its `loa`, the `skeleton`, and the `joints` and `sites` USE
//! lists X_ITE skins and animates by), then per clip a TimeSensor, its interpolators and their
//! ROUTEs.

use super::plan::{has_children, indent, number, numbers, tuples, walk, Plan, PlannedSite};
use super::plan_mesh;
use super::write_node::{self, attr, skin_coordinates, skin_shapes, Printer, Syntax};

/// An MFString as an X3D XML attribute value: `"a" "b"` with `\"` and `\\` escapes.
fn mfstring(out: &mut String, values: &[String]) {
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push('"');
        attr(out, &escaped);
        out.push('"');
    }
}

fn site(out: &mut String, site: &PlannedSite, depth: usize) {
    indent(out, depth);
    out.push_str("<HAnimSite DEF='");
    attr(out, &site.def);
    out.push_str("' name='");
    attr(out, &site.name);
    out.push_str("' translation='");
    numbers(out, &site.translation);
    out.push_str("' rotation='");
    numbers(out, &site.rotation);
    if site.scale != [1.0; 3] {
        out.push_str("' scale='");
        numbers(out, &site.scale);
    }
    out.push_str("'/>\n");
}

/// The X3D XML text of `plan`.
pub(crate) fn write(plan: &Plan, generator: &str) -> String {
    let mut out = String::with_capacity(4096 + plan.joints.len() * 160);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str("<!DOCTYPE X3D PUBLIC \"ISO//Web3D//DTD X3D 4.0//EN\" \"https://www.web3d.org/specifications/x3d-4.0.dtd\">\n");
    out.push_str("<X3D profile='Interchange' version='4.0' xmlns:xsd='http://www.w3.org/2001/XMLSchema-instance' xsd:noNamespaceSchemaLocation='https://www.web3d.org/specifications/x3d-4.0.xsd'>\n");
    out.push_str(
        "  <head>\n    <component name='HAnim' level='1'/>\n    <meta name='generator' content='",
    );
    attr(&mut out, generator);
    out.push_str("'/>\n    <meta name='title' content='");
    attr(&mut out, &plan.name);
    out.push_str("'/>\n  </head>\n  <Scene>\n");
    out.push_str("    <HAnimHumanoid DEF='");
    attr(&mut out, &plan.def);
    out.push_str("' name='");
    attr(&mut out, &plan.name);
    out.push_str("' version='2.0' loa='");
    out.push_str(&plan.loa.to_string());
    out.push('\'');
    if !plan.info.is_empty() {
        out.push_str(" info='");
        mfstring(&mut out, &plan.info);
        out.push('\'');
    }
    if let Some(frame) = &plan.transform {
        for (field, values) in frame.fields() {
            out.push(' ');
            out.push_str(field);
            out.push_str("='");
            numbers(&mut out, &values);
            out.push('\'');
        }
    }
    out.push_str(">\n");
    let mut printer = Printer::default();
    if let Some(skin) = &plan.meshes.skin {
        let (coord, normal) = skin_coordinates(skin);
        printer.print(&mut out, Syntax::Xml, &coord, 3);
        if let Some(normal) = normal {
            printer.print(&mut out, Syntax::Xml, &normal, 3);
        }
    }
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
        let open = children.get(index) == Some(&true)
            || !sites.is_empty()
            || !segments.is_empty()
            || !displacers.is_empty();
        if entering {
            indent(&mut out, depth + 3);
            out.push_str("<HAnimJoint DEF='");
            attr(&mut out, &joint.def);
            out.push_str("' name='");
            attr(&mut out, &joint.name);
            out.push_str("' center='");
            numbers(&mut out, &joint.center);
            out.push('\'');
            if let Some(q) = &joint.scale_orientation {
                out.push_str(" scaleOrientation='");
                numbers(&mut out, q);
                out.push('\'');
            }
            if let Some(weights) = plan_mesh::weights_of(&plan.meshes, index) {
                out.push_str(" skinCoordIndex='");
                plan_mesh::write_indices(&mut out, weights);
                out.push_str("' skinCoordWeight='");
                plan_mesh::write_weights(&mut out, weights);
                out.push('\'');
            }
            if joint.parent.is_none() {
                out.push_str(" containerField='skeleton'");
            }
            if open {
                out.push_str(">\n");
                for d in displacers {
                    let node = write_node::displacer(Syntax::Xml, d);
                    printer.print(&mut out, Syntax::Xml, &node, depth + 4);
                }
                for s in sites {
                    site(&mut out, s, depth + 4);
                }
                for segment in segments {
                    printer.print(
                        &mut out,
                        Syntax::Xml,
                        &write_node::segment(Syntax::Xml, segment),
                        depth + 4,
                    );
                }
            } else {
                out.push_str("/>\n");
            }
        } else if open {
            indent(&mut out, depth + 3);
            out.push_str("</HAnimJoint>\n");
        }
    }
    if let Some(skin) = &plan.meshes.skin {
        for shape in skin_shapes(Syntax::Xml, skin) {
            printer.print(&mut out, Syntax::Xml, &shape, 3);
        }
    }
    for joint in &plan.joints {
        out.push_str("      <HAnimJoint USE='");
        attr(&mut out, &joint.def);
        out.push_str("' containerField='joints'/>\n");
    }
    for segment in plan.meshes.segments.iter().filter(|s| s.joint.is_some()) {
        out.push_str("      <HAnimSegment USE='");
        attr(&mut out, &segment.def);
        out.push_str("' containerField='segments'/>\n");
    }
    for s in &plan.sites {
        out.push_str("      <HAnimSite USE='");
        attr(&mut out, &s.def);
        out.push_str("' containerField='sites'/>\n");
    }
    out.push_str("    </HAnimHumanoid>\n");
    for segment in plan.meshes.segments.iter().filter(|s| s.joint.is_none()) {
        for shape in write_node::shapes(Syntax::Xml, segment) {
            printer.print(&mut out, Syntax::Xml, &shape, 2);
        }
    }
    for (clip_index, clip) in plan.clips.iter().enumerate() {
        out.push_str("    <TimeSensor DEF='");
        attr(&mut out, &clip.def);
        out.push_str("' description='");
        attr(&mut out, &clip.name);
        out.push_str("' cycleInterval='");
        number(&mut out, clip.cycle);
        out.push_str("' loop='true'");
        if clip_index > 0 {
            out.push_str(" enabled='false'");
        }
        out.push_str("/>\n");
        for interpolator in &clip.interpolators {
            let components = interpolator.target.components();
            out.push_str("    <");
            out.push_str(interpolator.target.node_type());
            out.push_str(" DEF='");
            attr(&mut out, &interpolator.def);
            out.push_str("' key='");
            numbers(&mut out, &interpolator.keys);
            out.push_str("' keyValue='");
            tuples(&mut out, &interpolator.values, components);
            out.push_str("'/>\n");
        }
        for interpolator in &clip.interpolators {
            let Some(joint) = plan.joints.get(interpolator.joint) else {
                continue;
            };
            out.push_str("    <ROUTE fromNode='");
            attr(&mut out, &clip.def);
            out.push_str("' fromField='fraction_changed' toNode='");
            attr(&mut out, &interpolator.def);
            out.push_str("' toField='set_fraction'/>\n    <ROUTE fromNode='");
            attr(&mut out, &interpolator.def);
            out.push_str("' fromField='value_changed' toNode='");
            attr(&mut out, interpolator.node.as_deref().unwrap_or(&joint.def));
            out.push_str("' toField='set_");
            out.push_str(interpolator.target.field());
            out.push_str("'/>\n");
        }
    }
    out.push_str("  </Scene>\n</X3D>\n");
    out
}
