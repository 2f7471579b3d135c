// Java's Matcher.replaceFirst/replaceAll replacement strings, which differ from JavaScript's:
// `$n` takes as many digits as still name a group, `${name}` names a group, and a backslash
// makes the next character literal (`\$`); anything else is copied. Parsed once, when the rules
// are read, so a bad reference is refused with the rules rather than at the first login.

/** A piece of a replacement: literal text, or a group by number or name. */
export type ReplacementPart = string | { readonly group: number } | { readonly name: string };

/**
 * Splits a Java replacement string for a pattern with `groupCount` groups and the given named
 * groups.
 *
 * @throws Error naming what Java would refuse (a lone `\` or `$`, a group the pattern lacks)
 */
export function parseJavaReplacement(
  replacement: string,
  groupCount: number,
  groupNames: ReadonlySet<string>,
): ReplacementPart[] {
  const parts: ReplacementPart[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') parts.push(text);
    text = '';
  };
  for (let i = 0; i < replacement.length;) {
    const c = replacement[i] as string;
    if (c === '\\') {
      if (i + 1 >= replacement.length) throw new Error('character to be escaped is missing');
      text += replacement[i + 1];
      i += 2;
    } else if (c === '$') {
      i++;
      if (replacement[i] === '{') {
        const end = replacement.indexOf('}', i);
        const name = end === -1 ? '' : replacement.slice(i + 1, end);
        if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name))
          throw new Error('named capturing group is missing trailing } or has a bad name');
        if (!groupNames.has(name)) throw new Error(`No group with name {${name}}`);
        flush();
        parts.push({ name });
        i = end + 1;
      } else {
        if (!/[0-9]/.test(replacement[i] ?? '')) throw new Error('Illegal group reference');
        let group = Number(replacement[i]);
        i++;
        // Java adds a further digit only while the number still names a group.
        while (i < replacement.length && /[0-9]/.test(replacement[i] as string)) {
          const longer = group * 10 + Number(replacement[i]);
          if (longer > groupCount) break;
          group = longer;
          i++;
        }
        if (group > groupCount) throw new Error(`No group ${group}`);
        flush();
        parts.push({ group });
      }
    } else {
      text += c;
      i++;
    }
  }
  flush();
  return parts;
}

/** The replacement text for one match (`groups[0]` is the whole match; absent groups are empty, as in Java). */
export function expandJavaReplacement(
  parts: readonly ReplacementPart[],
  groups: readonly (string | undefined)[],
  named: Readonly<Record<string, string | undefined>> | undefined,
): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') out += part;
    else if ('group' in part) out += groups[part.group] ?? '';
    else out += named?.[part.name] ?? '';
  }
  return out;
}
