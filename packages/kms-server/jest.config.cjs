const preset = require('../../jest.preset.cjs')(__dirname);

// Fastify's inject() uses light-my-request, which depends on cookie 2: published as ES modules
// only. Jest on Node 20 cannot require those, so that one package is compiled to CommonJS too.
module.exports = {
  ...preset,
  transform: {
    ...preset.transform,
    '^.+/node_modules/cookie/.+\\.js$': [
      'ts-jest',
      {
        tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', esModuleInterop: true },
        diagnostics: false,
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!cookie/)'],
};
