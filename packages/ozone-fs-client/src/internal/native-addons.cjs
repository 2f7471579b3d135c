// Where the optional native addons are built (scripts/build-native.mjs), as a CommonJS module so
// that their places are found the same way from src/ under jest, from dist/ once built, and from
// the bundled command (dist/fastpath-ozone.cjs, where this file is inlined).
const { join } = require('node:path');
const { packageDir } = require('./package-dir.cjs');

const dir = packageDir(__dirname);

module.exports = {
  addonPaths: Object.freeze({
    /** Short-circuit reads: descriptors over Unix sockets (native/unix-fd.c). */
    unixFd: join(dir, 'native/build/Release/fastpath_unix_fd.node'),
    /** ISA-L's erasure-code kernel (native/isal/isal-ec.c). */
    isalEc: join(dir, 'native/isal/build/Release/fastpath_isal_ec.node'),
    /** The data path's CRCs and copies (native/bulk/bulk.c). */
    bulk: join(dir, 'native/bulk/build/Release/fastpath_bulk.node'),
  }),
  /** Loads the addon at `path`; throws when it cannot. */
  loadAddon(path) {
    return require(path);
  },
};
