// The package's own folder, found the same way from src/ under jest, from dist/ once built, and
// from the bundled command (dist/fastpath-ozone.cjs, where this file is inlined): the nearest
// folder up from `from` whose package.json is this package's. CommonJS, so that its callers can
// pass their own __dirname in every one of those layouts.
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

/** @param {string} from a folder inside the package */
function packageDir(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      if (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name === '@fastpath/ozone-fs-client')
        return dir;
    } catch {
      // no package.json here, or not one that parses: keep going up
    }
    if (dirname(dir) === dir) return from;
  }
}

module.exports = { packageDir };
