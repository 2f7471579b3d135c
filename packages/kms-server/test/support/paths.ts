import { join } from 'node:path';

/** The package directory (tests run as CommonJS under jest, where __dirname is defined). */
export const PACKAGE_DIR = join(__dirname, '..', '..');

/** Node arguments that run a TypeScript file of this repository. */
export const TSX_ARGS = ['--import', 'tsx', '--conditions', 'development'] as const;
