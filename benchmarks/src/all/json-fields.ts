// Narrowing of JSON read back from results folders: a folder may come from an older run or a run
// that crashed half-way, so every field is checked before use and a missing one reads as null.

export type JsonRecord = Readonly<Record<string, unknown>>;

export function asRecord(value: unknown): JsonRecord | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : null;
}

export function numberField(record: JsonRecord | null, key: string): number | null {
  const value = record?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function stringField(record: JsonRecord | null, key: string): string | null {
  const value = record?.[key];
  return typeof value === 'string' ? value : null;
}

export function booleanField(record: JsonRecord | null, key: string): boolean | null {
  const value = record?.[key];
  return typeof value === 'boolean' ? value : null;
}

export function arrayField(record: JsonRecord | null, key: string): readonly unknown[] {
  const value = record?.[key];
  return Array.isArray(value) ? (value as unknown[]) : [];
}
