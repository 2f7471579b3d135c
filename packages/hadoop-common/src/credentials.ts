import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { Redacted } from '@fastpath/core';
import { DataInput, TEXT_DEFAULT_MAX_LEN } from './data-input.js';
import { DataOutput } from './data-output.js';
import { ProtoReader, ProtoWriter } from './internal/mini-protobuf.js';
import { Token, TOKEN_MAX_IDENTIFIER_BYTES, TOKEN_MAX_PASSWORD_BYTES } from './token.js';
import { WireFormatError } from './wire-format-error.js';

// Hadoop's token storage file (`org.apache.hadoop.security.Credentials`), the file
// HADOOP_TOKEN_FILE_LOCATION names and `hadoop dtutil`/`ozone sh token get` write: "HDTS", a
// format byte (0 WRITABLE, 1 PROTOBUF), then the tokens by alias and the secret keys by alias.

const MAGIC = Buffer.from('HDTS', 'ascii');
/** Most entries a file may hold: far above any real credentials, far below a memory problem. */
export const CREDENTIALS_MAX_ENTRIES = 10_000;
/** Largest secret key read, in bytes. */
export const CREDENTIALS_MAX_SECRET_BYTES = 1024 * 1024;
/** Largest token storage file read, in bytes. */
export const CREDENTIALS_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** The two layouts of a token storage file. */
export type CredentialsFormat = 'writable' | 'protobuf';

const FORMAT_BYTE: Readonly<Record<CredentialsFormat, number>> = { writable: 0, protobuf: 1 };

/**
 * Tokens and secret keys by alias, as Hadoop's `Credentials` holds them, read from and written to
 * Hadoop's token storage file. A token fetched by one Hadoop client and written here works for any
 * other, and the other way round. Secret keys stay `Redacted`.
 *
 * @example
 * ```ts
 * const credentials = await Credentials.readFile(process.env.HADOOP_TOKEN_FILE_LOCATION!);
 * const tokens = [...credentials.tokens.values()];
 * await new Credentials({ tokens: new Map([[token.service, token]]) }).writeFile('/tmp/ozone.token');
 * ```
 */
export class Credentials {
  /** The tokens by alias (Ozone's and HDFS's clients use the token's service as its alias). */
  readonly tokens: ReadonlyMap<string, Token>;
  /** The secret keys by alias. */
  readonly secretKeys: ReadonlyMap<string, Redacted<Buffer>>;

  constructor(
    contents: {
      tokens?: ReadonlyMap<string, Token>;
      secretKeys?: ReadonlyMap<string, Redacted<Buffer>>;
    } = {},
  ) {
    this.tokens = new Map(contents.tokens ?? []);
    this.secretKeys = new Map(contents.secretKeys ?? []);
    if (this.tokens.size + this.secretKeys.size > CREDENTIALS_MAX_ENTRIES) {
      throw new WireFormatError(`credentials hold more than ${CREDENTIALS_MAX_ENTRIES} entries`);
    }
    Object.freeze(this);
  }

  /** Reads a token storage file's bytes, in either format. */
  static decode(bytes: Uint8Array): Credentials {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buf.length < MAGIC.length + 1 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
      // Hadoop's words.
      throw new WireFormatError('Bad header found in token storage.');
    }
    const format = buf[MAGIC.length];
    if (format === FORMAT_BYTE.writable) return decodeWritable(buf.subarray(MAGIC.length + 1));
    if (format === FORMAT_BYTE.protobuf) return decodeProtobuf(buf.subarray(MAGIC.length + 1));
    throw new WireFormatError(`Unknown version ${String(format)} in token storage.`);
  }

  /** The file's bytes; WRITABLE by default, as Hadoop writes them. */
  encode(format: CredentialsFormat = 'writable'): Buffer {
    const head = Buffer.concat([MAGIC, Buffer.of(FORMAT_BYTE[format])]);
    return Buffer.concat([head, format === 'writable' ? this.#writable() : this.#protobuf()]);
  }

  /** Reads a token storage file. */
  static async readFile(path: string): Promise<Credentials> {
    const bytes = await readFile(path);
    if (bytes.length > CREDENTIALS_MAX_FILE_BYTES) {
      throw new WireFormatError(`${path} is larger than ${CREDENTIALS_MAX_FILE_BYTES} bytes`);
    }
    return Credentials.decode(bytes);
  }

  /**
   * Writes the file readable by its owner only (it holds passwords), whole or not at all: to a
   * temporary name first, then renamed over `path`.
   */
  async writeFile(path: string, format: CredentialsFormat = 'writable'): Promise<void> {
    const partial = `${path}.${process.pid}.partial`;
    await writeFile(partial, this.encode(format), { mode: 0o600 });
    await chmod(partial, 0o600);
    await rename(partial, path);
  }

  /** A new set with `token` added (or replacing the one under the same alias). */
  withToken(alias: string, token: Token): Credentials {
    return new Credentials({
      tokens: new Map([...this.tokens, [alias, token]]),
      secretKeys: this.secretKeys,
    });
  }

  #writable(): Buffer {
    const out = new DataOutput();
    out.writeVInt(this.tokens.size);
    for (const [alias, token] of this.tokens) out.writeText(alias).writeRaw(token.encode());
    out.writeVInt(this.secretKeys.size);
    for (const [alias, secret] of this.secretKeys) out.writeText(alias).writeVIntBytes(secret.unwrap());
    return out.toBuffer();
  }

  #protobuf(): Buffer {
    // CredentialsProto{tokens=1, secrets=2} of CredentialsKVProto{alias=1, token=2, secret=3},
    // varint-delimited; TokenProto{identifier=1, password=2, kind=3, service=4}.
    const body = new ProtoWriter();
    for (const [alias, token] of this.tokens) {
      const tokenProto = new ProtoWriter()
        .bytesField(1, token.identifier)
        .bytesField(2, token.password.unwrap())
        .bytesField(3, token.kind)
        .bytesField(4, token.service)
        .toBuffer();
      body.bytesField(1, new ProtoWriter().bytesField(1, alias).bytesField(2, tokenProto).toBuffer());
    }
    for (const [alias, secret] of this.secretKeys) {
      body.bytesField(2, new ProtoWriter().bytesField(1, alias).bytesField(3, secret.unwrap()).toBuffer());
    }
    const message = body.toBuffer();
    return Buffer.concat([new ProtoWriter().varint(message.length).toBuffer(), message]);
  }

  /** Never the passwords or secrets: aliases and tokens as Hadoop prints them. */
  toString(): string {
    const tokens = [...this.tokens].map(([alias, token]) => `${alias}: ${token.toString()}`);
    return `Credentials(${tokens.join('; ')}; ${this.secretKeys.size} secret key(s))`;
  }
}

function entryCount(input: DataInput, what: string): number {
  const n = input.readVInt();
  if (n < 0 || n > CREDENTIALS_MAX_ENTRIES) {
    throw new WireFormatError(`token storage holds ${n} ${what}, outside 0..${CREDENTIALS_MAX_ENTRIES}`);
  }
  return n;
}

function decodeWritable(body: Buffer): Credentials {
  const input = new DataInput(body);
  const tokens = new Map<string, Token>();
  for (let i = entryCount(input, 'tokens'); i > 0; i--) {
    tokens.set(input.readText(TEXT_DEFAULT_MAX_LEN), Token.read(input));
  }
  const secretKeys = new Map<string, Redacted<Buffer>>();
  for (let i = entryCount(input, 'secret keys'); i > 0; i--) {
    const alias = input.readText(TEXT_DEFAULT_MAX_LEN);
    const length = input.readVInt();
    if (length < 0 || length > CREDENTIALS_MAX_SECRET_BYTES) {
      throw new WireFormatError(`secret key ${alias} is ${length} bytes long`);
    }
    secretKeys.set(alias, new Redacted(input.readRaw(length)));
  }
  input.expectEnd();
  return new Credentials({ tokens, secretKeys });
}

function decodeProtobuf(body: Buffer): Credentials {
  const outer = new ProtoReader(body);
  const length = outer.length();
  const message = new ProtoReader(body, outer.offset, outer.offset + length);
  if (outer.offset + length !== body.length) {
    throw new WireFormatError('token storage has bytes after its credentials');
  }
  const tokens = new Map<string, Token>();
  const secretKeys = new Map<string, Redacted<Buffer>>();
  while (!message.done) {
    const entry = message.field();
    if (!('bytes' in entry) || (entry.field !== 1 && entry.field !== 2)) continue;
    if (tokens.size + secretKeys.size >= CREDENTIALS_MAX_ENTRIES) {
      throw new WireFormatError(`token storage holds more than ${CREDENTIALS_MAX_ENTRIES} entries`);
    }
    const kv = new ProtoReader(entry.bytes);
    let alias: string | undefined;
    let token: Buffer | undefined;
    let secret: Buffer | undefined;
    while (!kv.done) {
      const f = kv.field();
      if (!('bytes' in f)) continue;
      if (f.field === 1) alias = f.bytes.toString('utf8');
      else if (f.field === 2) token = f.bytes;
      else if (f.field === 3) secret = f.bytes;
    }
    if (alias === undefined) throw new WireFormatError('a credentials entry has no alias');
    if (entry.field === 1) {
      if (token === undefined) throw new WireFormatError(`token entry ${alias} has no token`);
      tokens.set(alias, tokenFromProto(token));
    } else {
      if (secret === undefined) throw new WireFormatError(`secret entry ${alias} has no secret`);
      if (secret.length > CREDENTIALS_MAX_SECRET_BYTES) {
        throw new WireFormatError(`secret key ${alias} is ${secret.length} bytes long`);
      }
      secretKeys.set(alias, new Redacted(secret));
    }
  }
  return new Credentials({ tokens, secretKeys });
}

function tokenFromProto(bytes: Buffer): Token {
  const reader = new ProtoReader(bytes);
  const fields = new Map<number, Buffer>();
  while (!reader.done) {
    const f = reader.field();
    if ('bytes' in f) fields.set(f.field, f.bytes);
  }
  const identifier = fields.get(1);
  const password = fields.get(2);
  if (identifier === undefined || password === undefined || !fields.has(3) || !fields.has(4)) {
    throw new WireFormatError('a TokenProto lacks one of identifier, password, kind, service');
  }
  if (identifier.length > TOKEN_MAX_IDENTIFIER_BYTES || password.length > TOKEN_MAX_PASSWORD_BYTES) {
    throw new WireFormatError('a TokenProto field is larger than a token may be');
  }
  return new Token({
    identifier,
    password: new Redacted(password),
    kind: (fields.get(3) as Buffer).toString('utf8'),
    service: (fields.get(4) as Buffer).toString('utf8'),
  });
}
