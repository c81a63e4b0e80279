// The Khronos glTF-Validator on one file, every issue counted.
// Usage: node validate.js FILE.(glb|gltf|vrm|vrma) -> the validator's summary as JSON:
//   {file, ms, errors, warnings, infos, hints, messages: ["SEVERITY CODE POINTER MESSAGE", ...]}
// The same output as ../shared/tools/gltf-tools/validate.js, with one difference: that script
// passes maxIssues: 50, and the validator stops collecting at 50 issues of any severity, so 50
// infos (UNUSED_OBJECT) can hide every error behind them and `errors` reads 0. Here maxIssues
// is 0 (no limit) and the messages list errors first. scripts/install-tools.sh installs this
// one as HUMANOID_GLTF_VALIDATOR, beside the validator package it requires.
// External buffers/images of a .gltf are read relative to the file (never outside its folder).
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');
const file = process.argv[2];
const dir = path.dirname(path.resolve(file));
const t0 = Date.now();
const externalResourceFunction = (uri) => new Promise((resolve, reject) => {
  const p = path.resolve(dir, decodeURIComponent(uri));
  if (!p.startsWith(dir + path.sep)) return reject(new Error(`uri escapes the file's folder: ${uri}`));
  fs.readFile(p, (err, data) => (err ? reject(err) : resolve(new Uint8Array(data))));
});
const bytes = new Uint8Array(fs.readFileSync(file));
const opts = { maxIssues: 0, uri: path.basename(file), externalResourceFunction };
const run = /\.gltf$/i.test(file)
  ? validator.validateString(Buffer.from(bytes).toString('utf8'), opts)
  : validator.validateBytes(bytes, opts);
run.then((r) => {
  const i = r.issues;
  const ordered = [...i.messages].sort((a, b) => a.severity - b.severity);
  console.log(JSON.stringify({ file, ms: Date.now() - t0, errors: i.numErrors, warnings: i.numWarnings, infos: i.numInfos, hints: i.numHints,
    messages: ordered.slice(0, 8).map((m) => `${m.severity} ${m.code} ${m.pointer || ''} ${m.message}`) }, null, 1));
}).catch((e) => { console.error('validator failed', e); process.exit(2); });
