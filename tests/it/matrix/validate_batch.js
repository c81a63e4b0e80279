// Validates many glTF-family files in one Node process with the Khronos glTF-Validator (the
// `gltf-validator` package of the installed gltf-tools; NODE_PATH points at its node_modules).
// Usage: node validate_batch.js FILE... -> one JSON line per file:
//   {"file", "errors", "warnings", "errorCodes": [...], "messages": [...]}
// External buffers/images of a .gltf are read relative to the file, never outside its folder.
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function validate(file) {
  const dir = path.dirname(path.resolve(file));
  const externalResourceFunction = (uri) => new Promise((resolve, reject) => {
    const p = path.resolve(dir, decodeURIComponent(uri));
    if (!p.startsWith(dir + path.sep)) return reject(new Error(`uri escapes the file's folder: ${uri}`));
    fs.readFile(p, (err, data) => (err ? reject(err) : resolve(new Uint8Array(data))));
  });
  const bytes = new Uint8Array(fs.readFileSync(file));
  const opts = { maxIssues: 0, uri: path.basename(file), externalResourceFunction };
  const r = /\.gltf$/i.test(file)
    ? await validator.validateString(Buffer.from(bytes).toString('utf8'), opts)
    : await validator.validateBytes(bytes, opts);
  const errors = r.issues.messages.filter((m) => m.severity === 0);
  return {
    file,
    errors: r.issues.numErrors,
    warnings: r.issues.numWarnings,
    errorCodes: errors.map((m) => m.code),
    messages: errors.slice(0, 5).map((m) => `${m.code} ${m.pointer || ''} ${m.message}`),
  };
}

(async () => {
  for (const file of process.argv.slice(2)) {
    let line;
    try {
      line = await validate(file);
    } catch (e) {
      line = { file, errors: -1, warnings: 0, errorCodes: ['VALIDATOR_FAILED'], messages: [String(e)] };
    }
    console.log(JSON.stringify(line));
  }
})();
