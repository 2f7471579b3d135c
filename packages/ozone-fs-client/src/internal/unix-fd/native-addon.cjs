// Where the optional native addon is built (scripts/build-native.mjs), as a CommonJS module so
// that its place is found the same way from src/ under jest, from dist/ once built, and from the
// bundled command (dist/fastpath-ozone.cjs, where this file is inlined): the package folder is the
// nearest one up from here whose package.json is this package's.
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

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

const addonPath = join(packageDir(__dirname), 'native/build/Release/fastpath_unix_fd.node');

module.exports = {
  addonPath,
  /** Loads the addon from `path` (default: the built one); throws when it cannot. */
  loadAddon(path = addonPath) {
    return require(path);
  },
};
