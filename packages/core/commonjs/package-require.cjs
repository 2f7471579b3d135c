// A CommonJS `require` anchored in this package. The metrics modules load prom-client and
// hdr-histogram-js through it on first use instead of at import time: the two cost ~110 ms of
// module loading together, which a short-lived client that only needs the errors and locks of
// this package should not pay. (`createRequire(import.meta.url)` would do the same in ESM, but the
// test runner compiles the sources to CommonJS, where `import.meta` does not parse.)
module.exports = require;
