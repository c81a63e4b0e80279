#!/usr/bin/env node
// X_ITE's world positions of an H-Anim file's first humanoid at rest: every joint's centre
// carried by the matrices X_ITE itself built for the humanoid (its translation, rotation,
// scale, ...) and for each joint above it (HAnimJoint is an X3DTransformNode: getMatrix() is
// T(t)·T(c)·R·SR·S·SR⁻¹·T(−c)), and every skin point carried by the humanoid's matrix.
//
// Usage (from the tests, with NODE_PATH at an installed hanim-peers node_modules):
//   node -r .../f16-polyfill.js xite-world.js FILE OUT
// Writes OUT: `joint NAME x y z` lines, then `skin x y z` lines; prints `joints=N`.
const fs = require("fs");
const path = require("path");
const { pathToFileURL } = require("url");
const X3D = require("x_ite-node");

const [file, out] = process.argv.slice(2);
if (!file || !out) { console.error("usage: xite-world.js FILE OUT"); process.exit(2); }

const typeName = n => n.getNodeTypeName ? n.getNodeTypeName() : String(n);
const isType = (n, ...names) => names.includes(typeName(n));

function nodeChildren(node) {
  const found = [];
  let defs;
  try { defs = node.getFieldDefinitions(); } catch { return found; }
  for (const def of defs) {
    const t = def.dataType;
    if (t !== X3D.X3DConstants.SFNode && t !== X3D.X3DConstants.MFNode) continue;
    if (def.accessType === X3D.X3DConstants.inputOnly || def.accessType === X3D.X3DConstants.outputOnly) continue;
    if (["metadata", "geometry", "appearance", "coord", "displacers", "joints", "segments", "sites", "skin", "skinCoord", "skinNormal", "motions"].includes(def.name)) continue;
    let v; try { v = node[def.name]; } catch { continue; }
    if (!v) continue;
    if (t === X3D.X3DConstants.SFNode) found.push(v);
    else for (let i = 0; i < v.length; ++i) if (v[i]) found.push(v[i]);
  }
  return found;
}

// X_ITE's Matrix4 applied to a point (translation in elements 12..14).
function apply(m, p) {
  return [
    p[0] * m[0] + p[1] * m[4] + p[2] * m[8] + m[12],
    p[0] * m[1] + p[1] * m[5] + p[2] * m[9] + m[13],
    p[0] * m[2] + p[1] * m[6] + p[2] * m[10] + m[14],
  ];
}

(async () => {
  const browser = X3D.createBrowser().browser;
  const scene = await browser.createX3DFromURL(new X3D.MFString(pathToFileURL(path.resolve(file)).href));
  let humanoid = null;
  const seen = new Set();
  const find = node => {
    if (!node || humanoid) return;
    const key = node.getValue ? node.getValue() : node;
    if (seen.has(key)) return;
    seen.add(key);
    if (isType(node, "HAnimHumanoid", "Humanoid")) { humanoid = node; return; }
    for (const c of nodeChildren(node)) find(c);
  };
  for (let i = 0; i < scene.rootNodes.length; ++i) find(scene.rootNodes[i]);
  if (!humanoid) { console.log("no humanoid"); process.exit(1); }
  // A VRML97 Humanoid PROTO instance: its body's Transform is the humanoid's matrix.
  const inner = humanoid.getValue();
  const proto = inner.getInnerNode ? inner.getInnerNode() : inner;
  const H = Array.from(proto.getMatrix());
  const lines = [];
  let joints = 0;
  const walked = new Set();
  const walk = (node, chain) => {
    const key = node.getValue();
    if (walked.has(key)) return;
    walked.add(key);
    let next = chain;
    if (isType(node, "HAnimJoint", "Joint")) {
      joints++;
      const inst = key.getInnerNode ? key.getInnerNode() : key;
      const c = node.center;
      let p = [c.x, c.y, c.z];
      next = chain.concat([Array.from(inst.getMatrix())]);
      for (let i = next.length - 1; i >= 0; --i) p = apply(next[i], p);
      p = apply(H, p);
      lines.push(`joint ${String(node.name).replace(/\s/g, "_")} ${p.map(v => v.toPrecision(17)).join(" ")}`);
    }
    for (const c of nodeChildren(node)) walk(c, next);
  };
  for (const f of ["skeleton", "humanoidBody"]) {
    let v; try { v = humanoid[f]; } catch { v = null; }
    if (v) for (let i = 0; i < v.length; ++i) if (v[i]) walk(v[i], []);
  }
  let skinCoord = null;
  try { skinCoord = humanoid.skinCoord; } catch { skinCoord = null; }
  if (skinCoord && skinCoord.point) {
    const points = skinCoord.point;
    for (let i = 0; i < points.length; ++i) {
      const p = apply(H, [points[i].x, points[i].y, points[i].z]);
      lines.push(`skin ${p.map(v => v.toPrecision(17)).join(" ")}`);
    }
  }
  fs.writeFileSync(out, lines.join("\n") + "\n");
  console.log(`joints=${joints}`);
  process.exit(0);
})().catch(e => { console.error(String(e && e.stack || e)); process.exit(1); });
