import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HadoopConfigurationError } from './hadoop-configuration-error.js';
import { HadoopConfiguration } from './hadoop-configuration.js';
import { expectError } from '@fastpath/test-support';

const conf = (props: Record<string, string>, env: Record<string, string> = {}) =>
  new HadoopConfiguration(
    Object.entries(props).map(([k, v]) => [k, { value: v, source: 'here' }] as const),
    env,
  );

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hadoop-configuration-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('HadoopConfiguration', () => {
  it('typed getters refuse out-of-range and non-numeric values', () => {
    expect(() => conf({ n: '12x' }).getInteger('n', 1)).toThrow(/invalid value of n \(here\)/);
    expect(conf({ n: ' 7 ' }).getInteger('n', 1)).toBe(7);
    expect(() => conf({ n: '70000' }).getInteger('n', 1, 0, 65535)).toThrow(HadoopConfigurationError);
    expect(
      expectError(() => conf({ b: 'yes' }).getBoolean('b', false), HadoopConfigurationError, {
        code: 'ERR_HADOOP_CONFIGURATION',
      }),
    ).toMatchObject({ property: 'b' });
    expect(conf({ m: 'GLOBAL' }).getOneOf('m', 'staged', ['staged', 'global'] as const)).toBe('global');
  });

  it('reads a file with the line of each property, substitutes variables and layers overrides', () => {
    const file = join(dir, 'ozone-site.xml');
    writeFileSync(
      file,
      `<?xml version="1.0"?>
<configuration>
  <property><name>ozone.om.address</name><value>\${host}:9862</value></property>
  <property><name>host</name><value>\${env.OM_HOST}</value></property>
</configuration>
`,
    );
    const site = HadoopConfiguration.fromXmlFile(file, { env: { OM_HOST: 'om1' } });
    expect(site.get('ozone.om.address')).toBe('om1:9862');
    expect(site.sourceOf('ozone.om.address')).toBe(`${file}:3`);
    const layered = site.withOverrides({ host: 'om2' }, 'command line');
    expect(layered.get('ozone.om.address')).toBe('om2:9862');
    expect(layered.sourceOf('host')).toBe('command line');
    expect(site.get('ozone.om.address')).toBe('om1:9862');
  });

  it('treats a missing optional file as empty and refuses an unreadable or invalid one', () => {
    expect(HadoopConfiguration.fromXmlFile(join(dir, 'none.xml'), { optional: true }).keys()).toEqual([]);
    expect(
      expectError(() => HadoopConfiguration.fromXmlFile(join(dir, 'none.xml')), HadoopConfigurationError, {
        code: 'ERR_HADOOP_CONFIGURATION',
      }),
    ).toMatchObject({ property: join(dir, 'none.xml') });
    const bad = join(dir, 'bad.xml');
    writeFileSync(bad, '<configuration><property>');
    expect(() => HadoopConfiguration.fromXmlFile(bad, { optional: true })).toThrow(HadoopConfigurationError);
  });

  it('refuses a substitution that never ends', () => {
    expect(() => conf({ a: '${b}', b: '${c}', c: '${b}' }).get('a')).toThrow(/deeper than 20 levels/);
  });
});
