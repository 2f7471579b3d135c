// Shared jest settings. Tests run the TypeScript sources directly (the "development" export
// condition), compiled to CommonJS by ts-jest without type-checking: the typecheck target does that.
const path = require('node:path');

/** @param {string} dir the package directory (pass __dirname) */
module.exports = function preset(dir, overrides = {}) {
  return {
    rootDir: dir,
    displayName: path.basename(dir),
    testEnvironment: 'node',
    testEnvironmentOptions: { customExportConditions: ['development', 'node', 'require', 'default'] },
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    moduleFileExtensions: ['ts', 'js', 'cjs', 'mjs', 'json'],
    // Sources import siblings with the ".js" suffix NodeNext requires; jest resolves the .ts file.
    moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    transform: {
      '^.+\\.ts$': [
        'ts-jest',
        {
          tsconfig: {
            module: 'commonjs',
            moduleResolution: 'node10',
            verbatimModuleSyntax: false,
            isolatedModules: true,
            target: 'ES2022',
            lib: ['ES2023', 'esnext.disposable'],
            esModuleInterop: true,
            sourceMap: true,
          },
          diagnostics: false,
        },
      ],
    },
    testTimeout: 30000,
    ...overrides,
  };
};
