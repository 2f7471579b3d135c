// Two suites at a time: each waits on a MiniOzoneCluster JVM far more than it computes (the load
// average stays under 1 while one runs), and one at a time they were half of the whole test run.
// The launcher starts each cluster's ports at a random free base, so two clusters live side by side.
module.exports = require('../../jest.preset.cjs')(__dirname, { maxWorkers: 2 });
