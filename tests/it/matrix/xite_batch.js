// Loads many H-Anim files in one X_ITE (x_ite-node) browser and counts each file's joints as
// X_ITE holds them (the same walk as shared/tools/hanim-peers/hanim-tree.js: the first
// humanoid's skeleton / humanoidBody, HAnimJoint or VRML97 Joint PROTO instances, each node once).
// Usage: node -r f16-polyfill.js xite_batch.js FILE... (NODE_PATH: the peers' node_modules)
// -> one JSON line per file: {"file", "ok", "humanoids", "joints", "error"}
const path = require('path');
const { pathToFileURL } = require('url');
const X3D = require('x_ite-node');

const typeName = (n) => (n.getNodeTypeName ? n.getNodeTypeName() : String(n));
const isType = (n, ...names) => names.includes(typeName(n));

function nodeChildren(node) {
  const out = [];
  let defs;
  try { defs = node.getFieldDefinitions(); } catch { return out; }
  for (const def of defs) {
    const t = def.dataType;
    if (t !== X3D.X3DConstants.SFNode && t !== X3D.X3DConstants.MFNode) continue;
    if (def.accessType === X3D.X3DConstants.inputOnly || def.accessType === X3D.X3DConstants.outputOnly) continue;
    let v; try { v = node[def.name]; } catch { continue; }
    if (!v) continue;
    if (t === X3D.X3DConstants.SFNode) out.push([def.name, v]);
    else for (let i = 0; i < v.length; ++i) if (v[i]) out.push([def.name, v[i]]);
  }
  return out;
}

async function count(browser, file) {
  const scene = await browser.createX3DFromURL(new X3D.MFString(pathToFileURL(path.resolve(file)).href));
  const humanoids = [];
  const seen = new Set();
  const walk = (node) => {
    const key = node && (node.getValue ? node.getValue() : node);
    if (!node || seen.has(key)) return;
    seen.add(key);
    if (isType(node, 'HAnimHumanoid', 'Humanoid')) humanoids.push(node);
    for (const [, c] of nodeChildren(node)) walk(c);
  };
  for (let i = 0; i < scene.rootNodes.length; ++i) walk(scene.rootNodes[i]);
  if (!humanoids.length) return { file, ok: false, humanoids: 0, joints: 0, error: 'no humanoid' };
  const h = humanoids[0];
  const roots = [];
  for (const f of ['skeleton', 'humanoidBody']) {
    let v; try { v = h[f]; } catch { v = undefined; }
    if (v) for (let i = 0; i < v.length; ++i) roots.push(v[i]);
  }
  let joints = 0;
  const printed = new Set();
  const rec = (node) => {
    const key = node.getValue ? node.getValue() : node;
    if (printed.has(key)) return;
    printed.add(key);
    if (isType(node, 'HAnimJoint', 'Joint')) joints++;
    for (const [fname, c] of nodeChildren(node)) {
      if (['metadata', 'geometry', 'appearance', 'coord', 'displacers'].includes(fname)) continue;
      rec(c);
    }
  };
  for (const r of roots) rec(r);
  return { file, ok: true, humanoids: humanoids.length, joints, error: null };
}

(async () => {
  const browser = X3D.createBrowser().browser;
  for (const file of process.argv.slice(2)) {
    let line;
    try {
      line = await count(browser, file);
    } catch (e) {
      line = { file, ok: false, humanoids: 0, joints: 0, error: String((e && e.message) || e).slice(0, 300) };
    }
    console.log('XITE_JSON ' + JSON.stringify(line));
  }
  process.exit(0);
})();
