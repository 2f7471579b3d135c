// The type-aware lint is eslint.config.js; this name is kept for commands that still ask for it.
export { default } from './eslint.config.js';
