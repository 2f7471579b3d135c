/** A Hadoop configuration file (`<configuration><property>…`) holding `properties` in order. */
export function hadoopConfigXml(properties: Readonly<Record<string, string>>): string {
  const body = Object.entries(properties)
    .map(
      ([name, value]) =>
        `  <property><name>${escapeXml(name)}</name><value>${escapeXml(value)}</value></property>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<configuration>\n${body}\n</configuration>\n`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
