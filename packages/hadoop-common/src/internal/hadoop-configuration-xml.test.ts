import { HadoopConfigurationError } from '../hadoop-configuration-error.js';
import { parseHadoopConfigurationXml } from './hadoop-configuration-xml.js';

const wrap = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet type="text/xsl" href="configuration.xsl"?>\n<!-- licence -->\n<configuration>\n${body}\n</configuration>\n`;

function expectRefused(text: string, pattern: RegExp): HadoopConfigurationError {
  let caught: unknown;
  try {
    parseHadoopConfigurationXml(text, 'kms-site.xml');
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(HadoopConfigurationError);
  const error = caught as HadoopConfigurationError;
  expect(error.code).toBe('ERR_HADOOP_CONFIGURATION');
  expect(error.message).toMatch(pattern);
  return error;
}

describe('parseHadoopConfigurationXml', () => {
  it('reads names and values, keeping values verbatim (a single space is an ACL)', () => {
    const props = parseHadoopConfigurationXml(
      wrap(`
  <property>
    <name> hadoop.kms.acl.CREATE </name>
    <value> </value>
    <description>nobody</description>
  </property>
  <property><name>hadoop.kms.http.port</name><value>9700</value></property>`),
      'kms-site.xml',
    );
    expect(props.get('hadoop.kms.acl.CREATE')?.value).toBe(' ');
    expect(props.get('hadoop.kms.http.port')?.value).toBe('9700');
    expect(props.get('hadoop.kms.http.port')?.line).toBe(11);
  });

  it('decodes entities and CDATA, and accepts attribute-style properties', () => {
    const props = parseHadoopConfigurationXml(
      wrap(`
  <property><name>a</name><value>x &lt;y&gt; &amp; &quot;z&quot; &apos;w&apos; &#65;&#x42;</value></property>
  <property><name>b</name><value><![CDATA[<raw & text>]]></value></property>
  <property name="c" value="v&amp;w"/>`),
      'f.xml',
    );
    expect(props.get('a')?.value).toBe(`x <y> & "z" 'w' AB`);
    expect(props.get('b')?.value).toBe('<raw & text>');
    expect(props.get('c')?.value).toBe('v&w');
  });

  it('lets a later definition win unless the earlier one is final; ignores properties without a value', () => {
    const props = parseHadoopConfigurationXml(
      wrap(`
  <property><name>a</name><value>1</value></property>
  <property><name>a</name><value>2</value></property>
  <property><name>b</name><value>1</value><final>true</final></property>
  <property><name>b</name><value>2</value></property>
  <property><name>c</name></property>`),
      'f.xml',
    );
    expect(props.get('a')?.value).toBe('2');
    expect(props.get('b')?.value).toBe('1');
    expect(props.has('c')).toBe(false);
  });

  it('refuses malformed XML with the file and line', () => {
    const error = expectRefused(
      wrap('<property><name>a</name><value>1</valu></property>'),
      /kms-site\.xml:5: .*<\/valu> closes <value>/,
    );
    expect(error.property).toBe('kms-site.xml');
    expectRefused('<configuration><property><name>a</name><value>1</value>', /never closed/);
    expectRefused('', /no root element/);
    expectRefused(wrap('<property><name>a</name><value>a & b</value></property>'), /entity/);
    expectRefused(
      wrap('<property><name>a</name><value>&foo;</value></property>'),
      /unknown or invalid entity/,
    );
    expectRefused('<configuration></configuration><x/>', /after the root element/);
    expectRefused('<configuration><property name=a value="1"/></configuration>', /must be quoted/);
  });

  it('refuses DOCTYPE (no entity expansion), XInclude and foreign structure', () => {
    expectRefused('<!DOCTYPE c [<!ENTITY x "y">]><configuration/>', /DOCTYPE/);
    expectRefused(wrap('<xi:include href="other.xml"/>'), /unexpected <xi:include>/);
    expectRefused('<conf></conf>', /root element must be <configuration>/);
    expectRefused(wrap('<property><value>1</value></property>'), /without a <name>/);
    expectRefused(wrap('<property><name>a</name><value><b>1</b></value></property>'), /unexpected <b>/);
    expectRefused(wrap('hello'), /text directly inside <configuration>/);
    expectRefused(wrap('<property><name>a</name><value>1</value><final>maybe</final></property>'), /final/);
  });
});
