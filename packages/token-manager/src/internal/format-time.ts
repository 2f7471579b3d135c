/**
 * Formats epoch milliseconds the way Hadoop's `Time.formatTime` prints them in messages
 * (`yyyy-MM-dd HH:mm:ss,SSSZ`), always in UTC so a message does not depend on the host's zone.
 */
export function formatTime(epochMs: number): string {
  const d = new Date(epochMs);
  if (Number.isNaN(d.getTime())) return String(epochMs);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return (
    `${p(d.getUTCFullYear(), 4)}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ` +
    `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())},${p(d.getUTCMilliseconds(), 3)}+0000`
  );
}
