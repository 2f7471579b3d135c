import { hadoopConfigXml } from './hadoop-config-xml.js';

describe('hadoopConfigXml', () => {
  it('writes one property per entry with XML metacharacters escaped', () => {
    expect(hadoopConfigXml({ a: '*', 'b.c': '<x & "y">' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<configuration>\n' +
        '  <property><name>a</name><value>*</value></property>\n' +
        '  <property><name>b.c</name><value>&#60;x &#38; &#34;y&#34;&#62;</value></property>\n' +
        '</configuration>\n',
    );
  });
});
