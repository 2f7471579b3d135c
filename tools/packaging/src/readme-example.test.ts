import { readmeExample } from './readme-example.js';

describe('readmeExample', () => {
  it('takes the first ts block of the Example section', () => {
    const md = [
      '# x',
      '```ts',
      'not this',
      '```',
      '## Example against the mini cluster',
      'Some text.',
      '```ts',
      "import { a } from 'x';",
      'a();',
      '```',
      '```ts',
      'nor this',
      '```',
    ].join('\n');
    expect(readmeExample(md)).toBe("import { a } from 'x';\na();\n");
  });

  it('refuses a README without an example, or whose example block is in another section', () => {
    expect(() => readmeExample('# x\n## API\n```ts\nx\n```\n')).toThrow(/no "## Example"/);
    expect(() => readmeExample('## Example\ntext\n## API\n```ts\nx\n```\n')).toThrow(/no ```ts block/);
    expect(() => readmeExample('## Example\n```ts\nx\n')).toThrow(/not closed/);
  });
});
