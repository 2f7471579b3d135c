import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_USAGE } from '../cli/cli-args.js';
import { KMS_ENVIRONMENT_VARIABLES, KMS_PROPERTY_DEFAULTS } from './kms-properties.js';
import { KMS_EDGE_ENVIRONMENT, KMS_SETTINGS, type KmsSettingRow } from './kms-settings-table.js';

const REPO = join(__dirname, '..', '..', '..', '..', '..');
const docs = readFileSync(join(REPO, 'docs', 'kms.md'), 'utf8');

/** The cells of the first Markdown table after `heading`, header and separator left out. */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(heading);
  expect(start).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of markdown.slice(start).split('\n').slice(1)) {
    if (line.startsWith('|')) {
      rows.push(
        line
          .split(/(?<!\\)\|/)
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    } else if (rows.length > 0) {
      break;
    }
  }
  return rows.slice(2);
}

/** How the documentation shows a default. */
function shownDefault(row: KmsSettingRow): string {
  return row.shownDefault ?? (row.default === '' ? 'none' : `\`${row.default}\``);
}

describe('the settings table', () => {
  it('is where every default comes from, once per property', () => {
    expect(new Set(KMS_SETTINGS.map((r) => r.key)).size).toBe(KMS_SETTINGS.length);
    expect(Object.keys(KMS_PROPERTY_DEFAULTS)).toEqual(KMS_SETTINGS.map((r) => r.key));
    for (const row of KMS_SETTINGS) {
      if (row.parser.type === 'int' && row.default !== '') {
        const n = Number(row.default);
        expect({ key: row.key, inRange: n >= row.parser.min && n <= row.parser.max }).toEqual({
          key: row.key,
          inRange: true,
        });
      }
      if (row.parser.type === 'oneOf') expect(row.parser.values).toContain(row.default);
      if (row.parser.type === 'bool') expect(['true', 'false']).toContain(row.default);
    }
  });

  it('matches the kms-site.xml table of docs/kms.md row by row', () => {
    expect(tableAfter(docs, '### `kms-site.xml` properties')).toEqual([
      ...KMS_SETTINGS.map((row) => [`\`${row.key}\``, shownDefault(row), row.unit ?? '', row.doc]),
      ['`hadoop.kms.proxyuser.<user>.users`, `.groups`, `.hosts`', 'none', '', 'proxy-user (`doas`) rules'],
    ]);
  });

  it('matches the environment table of docs/kms.md: every variable the command line reads', () => {
    expect(tableAfter(docs, '### Environment variables')).toEqual([
      ...Object.entries(KMS_ENVIRONMENT_VARIABLES).map(([name, key]) => [`\`${name}\``, `\`${key}\``]),
      ...Object.entries(KMS_EDGE_ENVIRONMENT).map(([name, doc]) => [`\`${name}\``, doc]),
    ]);
  });

  it('gives --help every flag and variable, with the property each sets', () => {
    for (const row of KMS_SETTINGS) {
      if (row.flag !== undefined)
        expect(CLI_USAGE).toMatch(new RegExp(`--${row.flag.name} .*\\(${row.key.replace(/\./g, '\\.')}\\)`));
      if (row.env !== undefined) expect(CLI_USAGE).toContain(`${row.env}`);
    }
    for (const name of Object.keys(KMS_EDGE_ENVIRONMENT)) expect(CLI_USAGE).toContain(name);
  });

  it('lists every environment variable the sources name', () => {
    const listed = new Set([...Object.keys(KMS_ENVIRONMENT_VARIABLES), ...Object.keys(KMS_EDGE_ENVIRONMENT)]);
    const src = join(__dirname, '..', '..');
    const files = (readdirSync(src, { recursive: true }) as string[]).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    const named = new Set(
      files.flatMap((f) =>
        [...readFileSync(join(src, f), 'utf8').matchAll(/\bFASTPATH_KMS_[A-Z_]+/g)].map((m) => m[0]),
      ),
    );
    expect([...named].filter((name) => !listed.has(name))).toEqual([]);
    expect([...listed].filter((name) => !named.has(name))).toEqual([]);
  });
});
