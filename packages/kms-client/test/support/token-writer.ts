// An independent writer of Hadoop's token encoding (WritableUtils VLong, Text, the delegation
// token identifier, the Token Writable), used by the fake server and by tests of the reader.

export function writeVLong(value: bigint): Buffer {
  if (value >= -112n && value <= 127n) return Buffer.from([Number(BigInt.asUintN(8, value))]);
  let v = value;
  let base = -112;
  if (v < 0n) {
    v = ~v;
    base = -120;
  }
  const bytes: number[] = [];
  for (let t = v; t !== 0n; t >>= 8n) bytes.unshift(Number(t & 0xffn));
  return Buffer.from([(base - bytes.length) & 0xff, ...bytes]);
}

export function writeText(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([writeVLong(BigInt(bytes.length)), bytes]);
}

export interface IdentifierFields {
  owner: string;
  renewer: string;
  realUser: string;
  issueDate: number;
  maxDate: number;
  sequenceNumber: number;
  masterKeyId: number;
}

export function encodeIdentifier(f: IdentifierFields): Buffer {
  return Buffer.concat([
    Buffer.from([0]),
    writeText(f.owner),
    writeText(f.renewer),
    writeText(f.realUser),
    writeVLong(BigInt(f.issueDate)),
    writeVLong(BigInt(f.maxDate)),
    writeVLong(BigInt(f.sequenceNumber)),
    writeVLong(BigInt(f.masterKeyId)),
  ]);
}

export function encodeToken(identifier: Buffer, password: Buffer, kind: string, service: string): string {
  return Buffer.concat([
    writeVLong(BigInt(identifier.length)),
    identifier,
    writeVLong(BigInt(password.length)),
    password,
    writeText(kind),
    writeText(service),
  ]).toString('base64url');
}
