import { readFileSync } from 'node:fs';
import { HadoopConfigurationError } from './hadoop-configuration-error.js';
import { parseHadoopConfigurationXml } from './internal/hadoop-configuration-xml.js';

/** A property value and where it came from (for messages). */
export interface HadoopConfigurationEntry {
  /** The value as written, before `${…}` substitution and trimming. */
  readonly value: string;
  /** Where it was set: `file:line` for a property read from XML, else the label given with the override. */
  readonly source: string;
}

const VARIABLE = /\$\{([^}$\s]+)\}/g;
const MAX_SUBSTITUTION_DEPTH = 20;

/**
 * A Hadoop-style configuration: string properties with the place each came from, `${var}`
 * substitution (another property, or `${env.NAME}` for an environment variable, as Hadoop does),
 * and typed getters that refuse a bad value with a {@link HadoopConfigurationError} naming the property and
 * its source.
 *
 * @example
 * ```ts
 * const site = HadoopConfiguration.fromXmlFile('/etc/kms/kms-site.xml', { optional: true });
 * const port = site.getInteger('hadoop.kms.http.port', 9600, 0, 65535);
 * ```
 */
export class HadoopConfiguration {
  readonly #entries: Map<string, HadoopConfigurationEntry>;
  readonly #env: Readonly<Record<string, string | undefined>>;

  constructor(
    entries: Iterable<readonly [string, HadoopConfigurationEntry]> = [],
    env: Readonly<Record<string, string | undefined>> = {},
  ) {
    this.#entries = new Map(entries);
    this.#env = env;
  }

  /**
   * Reads a Hadoop configuration XML file. With `optional`, a missing file gives an empty
   * configuration; any other read error, and any invalid content, throws `ERR_HADOOP_CONFIGURATION`.
   */
  static fromXmlFile(
    path: string,
    options: { optional?: boolean; env?: Readonly<Record<string, string | undefined>> } = {},
  ): HadoopConfiguration {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if (options.optional && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        return new HadoopConfiguration([], options.env);
      }
      throw new HadoopConfigurationError(
        path,
        `cannot read ${path}: ${(error as Error).message}; make it a readable file, or remove it to use the defaults`,
        { cause: error },
      );
    }
    const props = parseHadoopConfigurationXml(text, path);
    return new HadoopConfiguration(
      [...props.values()].map((p) => [p.name, { value: p.value, source: `${path}:${p.line}` }] as const),
      options.env,
    );
  }

  /** A copy with `overrides` on top (later wins), recorded as coming from `source`. */
  withOverrides(
    overrides: Readonly<Record<string, string | undefined>>,
    source: string,
  ): HadoopConfiguration {
    const entries = new Map(this.#entries);
    for (const [key, value] of Object.entries(overrides)) {
      if (value !== undefined) entries.set(key, { value, source });
    }
    return new HadoopConfiguration(entries, this.#env);
  }

  /**
   * Configurations stacked in order (later wins); their environments are merged the same way.
   *
   * @example
   * ```ts
   * const conf = HadoopConfiguration.layered(defaults, siteFile, commandLine);
   * ```
   */
  static layered(...layers: HadoopConfiguration[]): HadoopConfiguration {
    const entries = new Map<string, HadoopConfigurationEntry>();
    const env: Record<string, string | undefined> = {};
    for (const layer of layers) {
      for (const [key, entry] of layer.#entries) entries.set(key, entry);
      Object.assign(env, layer.#env);
    }
    return new HadoopConfiguration(entries, env);
  }

  /** Property names, in definition order. */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  /** Whether the property is set at all, even to an empty or blank value. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** Where a property was set, e.g. `/etc/kms/kms-site.xml:12`, or `undefined`. */
  sourceOf(key: string): string | undefined {
    return this.#entries.get(key)?.source;
  }

  /** The value with `${…}` substituted (unknown variables stay as written), or `undefined`. */
  get(key: string): string | undefined {
    const entry = this.#entries.get(key);
    return entry === undefined ? undefined : this.#substitute(key, entry.value);
  }

  /** The value without surrounding whitespace; empty counts as absent. */
  getTrimmed(key: string): string | undefined {
    const value = this.get(key)?.trim();
    return value === '' ? undefined : value;
  }

  /** The trimmed, substituted value, or `fallback` when the property is absent, empty or blank. */
  getString(key: string, fallback: string): string {
    return this.getTrimmed(key) ?? fallback;
  }

  /**
   * `true` or `false` (any case, surrounding whitespace ignored), or `fallback` when absent or
   * blank. Any other value throws a {@link HadoopConfigurationError} (`ERR_HADOOP_CONFIGURATION`)
   * naming the property and its source.
   */
  getBoolean(key: string, fallback: boolean): boolean {
    const value = this.getTrimmed(key);
    if (value === undefined) return fallback;
    const lower = value.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    throw this.invalid(key, `expected true or false, got ${JSON.stringify(value)}`);
  }

  /**
   * A decimal integer from `min` (default 0) to `max` (default `Number.MAX_SAFE_INTEGER`), both
   * inclusive, or `fallback` when absent or blank (`fallback` is not range-checked). Anything else,
   * including Hadoop's unit suffixes such as `10s` or `128m`, throws a {@link HadoopConfigurationError}
   * naming the property and its source.
   */
  getInteger(key: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.getTrimmed(key);
    if (value === undefined) return fallback;
    if (
      !/^-?\d+$/.test(value) ||
      !Number.isSafeInteger(Number(value)) ||
      Number(value) < min ||
      Number(value) > max
    ) {
      throw this.invalid(key, `expected an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
    }
    return Number(value);
  }

  /**
   * The entry of `allowed` the value matches ignoring case (returned as spelled in `allowed`), or
   * `fallback` when absent or blank; any other value throws a {@link HadoopConfigurationError}
   * listing the allowed values.
   */
  getOneOf<T extends string>(key: string, fallback: T, allowed: readonly T[]): T {
    const value = this.getTrimmed(key);
    if (value === undefined) return fallback;
    const match = allowed.find((a) => a.toLowerCase() === value.toLowerCase());
    if (match === undefined) {
      throw this.invalid(
        key,
        `expected one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(value)}`,
      );
    }
    return match;
  }

  /** The error for a bad value of `key`: names the property and where it was set. */
  invalid(key: string, reason: string): HadoopConfigurationError {
    const source = this.sourceOf(key);
    return new HadoopConfigurationError(
      key,
      `invalid value of ${key}${source === undefined ? '' : ` (${source})`}: ${reason}`,
    );
  }

  #substitute(key: string, raw: string): string {
    let value = raw;
    for (let depth = 0; depth < MAX_SUBSTITUTION_DEPTH; depth++) {
      let changed = false;
      value = value.replace(VARIABLE, (whole, name: string) => {
        if (name === key) return whole;
        const replacement = name.startsWith('env.')
          ? this.#env[name.slice(4)]
          : this.#entries.get(name)?.value;
        if (replacement === undefined) return whole;
        changed = true;
        return replacement;
      });
      if (!changed) return value;
    }
    throw this.invalid(key, `variable substitution deeper than ${MAX_SUBSTITUTION_DEPTH} levels`);
  }
}
