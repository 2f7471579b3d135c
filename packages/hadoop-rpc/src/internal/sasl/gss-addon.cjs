// Where the optional GSS-API addon is built (scripts/build-native.mjs): native/gss/ of this
// package. Found through the package's own package.json, so that a command bundled into one
// file elsewhere (ozone-fs-client's fastpath-ozone) still finds it in node_modules; else three
// folders up from here, in src/internal/sasl and dist/internal/sasl alike.
const { dirname, join } = require('node:path');

const ADDON = 'native/gss/build/Release/fastpath_gss.node';

function packageDir() {
  try {
    return dirname(require.resolve('@fastpath/hadoop-rpc/package.json'));
  } catch {
    return join(__dirname, '../../..');
  }
}

const addonPath = join(packageDir(), ADDON);

module.exports = {
  addonPath,
  /** Loads the addon from `path` (default: the built one); throws when it cannot. */
  loadAddon(path = addonPath) {
    return require(path);
  },
};
