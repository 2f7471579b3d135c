export { NODE_LINES, nodeBinaryPackage, resolveNodeLine } from './node-lines.js';
export { environmentFor, fetchNode, type InstalledNode } from './fetch-node.js';
export { cacheDir, LEG_TEST_PATHS, runNodeLeg, type NodeLegOptions } from './node-leg.js';
export { NodeFetchError, NodeLineError } from './node-versions-errors.js';
