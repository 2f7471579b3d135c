import { HadoopConfigurationError } from '../hadoop-configuration-error.js';

/** One property of a Hadoop configuration file. */
export interface HadoopProperty {
  readonly name: string;
  readonly value: string;
  readonly final: boolean;
  /** 1-based line of the property in its file. */
  readonly line: number;
}

interface Element {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: Array<Element | string>;
  readonly line: number;
}

const NAME = /[A-Za-z_:][A-Za-z0-9_.:-]*/y;
const PROPERTY_CHILDREN = new Set(['name', 'value', 'final', 'description', 'source', 'tag']);

/**
 * Reads a Hadoop configuration file (`<configuration><property><name/><value/></property>…`):
 * the format of `core-site.xml`, `kms-site.xml`, `kms-acls.xml` and `ozone-site.xml`. The XML
 * reader is deliberately small and strict: no DTDs or external entities (so no entity expansion
 * attacks), no XInclude; anything that is not well-formed, or not a configuration, is refused with
 * the file, line and reason.
 *
 * As in Hadoop: values are kept verbatim (a single space is a meaningful ACL); `<property>` may
 * carry `name`/`value`/`final` as attributes; a property without a value is ignored; a later
 * definition replaces an earlier one unless the earlier one was `final`.
 *
 * @example
 * ```ts
 * const props = parseHadoopConfigurationXml(readFileSync('kms-site.xml', 'utf8'), 'kms-site.xml');
 * props.get('hadoop.kms.http.port')?.value; // '9600'
 * ```
 */
export function parseHadoopConfigurationXml(text: string, source: string): Map<string, HadoopProperty> {
  const root = new XmlReader(text, source).readDocument();
  const fail = (line: number, message: string): never => {
    throw new HadoopConfigurationError(source, `${source}:${line}: ${message}`);
  };
  if (root.name !== 'configuration')
    fail(root.line, `the root element must be <configuration>, not <${root.name}>`);
  const properties = new Map<string, HadoopProperty>();
  for (const child of root.children) {
    if (typeof child === 'string') {
      if (child.trim() !== '') fail(root.line, 'text directly inside <configuration> is not allowed');
      continue;
    }
    if (child.name !== 'property') {
      fail(child.line, `unexpected <${child.name}> inside <configuration> (only <property> is allowed)`);
    }
    const fields = new Map<string, string>(child.attributes);
    for (const part of child.children) {
      if (typeof part === 'string') {
        if (part.trim() !== '') fail(child.line, 'text directly inside <property> is not allowed');
        continue;
      }
      if (!PROPERTY_CHILDREN.has(part.name)) fail(part.line, `unexpected <${part.name}> inside <property>`);
      const nested = part.children.find((c): c is Element => typeof c !== 'string');
      if (nested) fail(nested.line, `unexpected <${nested.name}> inside <${part.name}>`);
      // No element is nested here (checked above): the children are the text pieces.
      fields.set(part.name, part.children.filter((c): c is string => typeof c === 'string').join(''));
    }
    const rawName = fields.get('name');
    if (rawName === undefined || rawName.trim() === '') fail(child.line, '<property> without a <name>');
    const name = (rawName as string).trim();
    const value = fields.get('value');
    if (value === undefined) continue;
    const finalText = (fields.get('final') ?? 'false').trim().toLowerCase();
    if (finalText !== 'true' && finalText !== 'false') {
      fail(child.line, `property ${name}: <final> must be true or false`);
    }
    const previous = properties.get(name);
    if (previous?.final) continue;
    properties.set(name, { name, value, final: finalText === 'true', line: child.line });
  }
  return properties;
}

class XmlReader {
  #pos = 0;
  readonly #text: string;
  readonly #source: string;

  constructor(text: string, source: string) {
    this.#text = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    this.#source = source;
  }

  readDocument(): Element {
    this.#skipMisc(true);
    if (this.#pos >= this.#text.length) this.#fail('the file has no root element');
    const root = this.#readElement();
    this.#skipMisc(false);
    if (this.#pos < this.#text.length) this.#fail('content after the root element');
    return root;
  }

  #newlines: number[] | undefined;

  #line(at = this.#pos): number {
    if (this.#newlines === undefined) {
      this.#newlines = [];
      for (let i = this.#text.indexOf('\n'); i !== -1; i = this.#text.indexOf('\n', i + 1))
        this.#newlines.push(i);
    }
    let lo = 0;
    let hi = this.#newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#newlines[mid] as number) < at) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }

  #fail(message: string, at = this.#pos): never {
    throw new HadoopConfigurationError(
      this.#source,
      `${this.#source}:${this.#line(at)}: not a valid configuration file: ${message}`,
    );
  }

  #startsWith(s: string): boolean {
    return this.#text.startsWith(s, this.#pos);
  }

  #skipUntil(end: string, what: string): string {
    const at = this.#text.indexOf(end, this.#pos);
    if (at === -1) this.#fail(`unterminated ${what}`);
    const content = this.#text.slice(this.#pos, at);
    this.#pos = at + end.length;
    return content;
  }

  /** Whitespace, comments and processing instructions between top-level items. */
  #skipMisc(prolog: boolean): void {
    for (;;) {
      while (this.#pos < this.#text.length && /\s/.test(this.#text[this.#pos] as string)) this.#pos++;
      if (this.#startsWith('<!--')) {
        this.#pos += 4;
        this.#skipUntil('-->', 'comment');
      } else if (this.#startsWith('<?')) {
        this.#pos += 2;
        this.#skipUntil('?>', 'processing instruction');
      } else if (this.#startsWith('<!DOCTYPE') || this.#startsWith('<!doctype')) {
        this.#fail(prolog ? 'DOCTYPE declarations are not allowed' : 'DOCTYPE after the root element');
      } else {
        return;
      }
    }
  }

  #readName(): string {
    NAME.lastIndex = this.#pos;
    const m = NAME.exec(this.#text);
    if (!m) this.#fail('expected a name');
    this.#pos += m[0].length;
    return m[0];
  }

  #skipSpace(): boolean {
    const start = this.#pos;
    while (this.#pos < this.#text.length && /\s/.test(this.#text[this.#pos] as string)) this.#pos++;
    return this.#pos > start;
  }

  #readElement(): Element {
    const start = this.#pos;
    if (!this.#startsWith('<')) this.#fail('expected an element');
    this.#pos++;
    const name = this.#readName();
    const attributes = new Map<string, string>();
    for (;;) {
      const spaced = this.#skipSpace();
      if (this.#startsWith('/>')) {
        this.#pos += 2;
        return { name, attributes, children: [], line: this.#line(start) };
      }
      if (this.#startsWith('>')) {
        this.#pos++;
        break;
      }
      if (!spaced) this.#fail(`malformed tag <${name}>`);
      const attr = this.#readName();
      this.#skipSpace();
      if (!this.#startsWith('=')) this.#fail(`attribute ${attr} without a value`);
      this.#pos++;
      this.#skipSpace();
      const quote = this.#text[this.#pos];
      if (quote !== '"' && quote !== "'") this.#fail(`attribute ${attr}: the value must be quoted`);
      this.#pos++;
      const raw = this.#skipUntil(quote, `attribute ${attr}`);
      if (raw.includes('<')) this.#fail(`attribute ${attr}: "<" is not allowed in a value`);
      if (attributes.has(attr)) this.#fail(`attribute ${attr} given twice`);
      attributes.set(attr, this.#decodeEntities(raw, start));
    }
    const children: Array<Element | string> = [];
    for (;;) {
      if (this.#pos >= this.#text.length) this.#fail(`<${name}> is never closed`, start);
      if (this.#startsWith('</')) {
        this.#pos += 2;
        const closing = this.#readName();
        if (closing !== name) this.#fail(`</${closing}> closes <${name}>`);
        this.#skipSpace();
        if (!this.#startsWith('>')) this.#fail(`malformed closing tag </${closing}>`);
        this.#pos++;
        return { name, attributes, children, line: this.#line(start) };
      }
      if (this.#startsWith('<!--')) {
        this.#pos += 4;
        const comment = this.#skipUntil('-->', 'comment');
        if (comment.includes('--')) this.#fail('"--" inside a comment');
      } else if (this.#startsWith('<![CDATA[')) {
        this.#pos += 9;
        children.push(this.#skipUntil(']]>', 'CDATA section'));
      } else if (this.#startsWith('<?')) {
        this.#pos += 2;
        this.#skipUntil('?>', 'processing instruction');
      } else if (this.#startsWith('<!')) {
        this.#fail('declarations are not allowed inside elements');
      } else if (this.#startsWith('<')) {
        children.push(this.#readElement());
      } else {
        const textStart = this.#pos;
        const next = this.#text.indexOf('<', this.#pos);
        const end = next === -1 ? this.#text.length : next;
        const raw = this.#text.slice(this.#pos, end);
        this.#pos = end;
        children.push(this.#decodeEntities(raw, textStart));
      }
    }
  }

  #decodeEntities(raw: string, at: number): string {
    if (!raw.includes('&')) return raw;
    return raw.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
      if (!whole.endsWith(';')) this.#fail(`"&" must start an entity reference such as &amp;`, at);
      switch (ref) {
        case 'lt':
          return '<';
        case 'gt':
          return '>';
        case 'amp':
          return '&';
        case 'quot':
          return '"';
        case 'apos':
          return "'";
      }
      const m = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(ref);
      const code = m ? (m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2] as string, 10)) : NaN;
      if (!(code >= 1 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) {
        this.#fail(`unknown or invalid entity &${ref};`, at);
      }
      return String.fromCodePoint(code);
    });
  }
}
