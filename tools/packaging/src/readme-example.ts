/**
 * The minimal example of a package README: the first ```ts block after the first heading that
 * starts with `## Example`. Throws when there is none, so that a README without a runnable
 * example fails the packaging test instead of being skipped.
 *
 * @example
 * ```ts
 * const source = readmeExample(readFileSync('packages/core/README.md', 'utf8'));
 * ```
 */
export function readmeExample(markdown: string): string {
  const lines = markdown.split('\n');
  const heading = lines.findIndex((line) => /^## Example/.test(line));
  if (heading < 0) throw new Error('the README has no "## Example" section');
  const start = lines.findIndex((line, i) => i > heading && line.trim() === '```ts');
  const nextHeading = lines.findIndex((line, i) => i > heading && /^## /.test(line));
  if (start < 0 || (nextHeading >= 0 && start > nextHeading)) {
    throw new Error('the "## Example" section has no ```ts block');
  }
  const end = lines.findIndex((line, i) => i > start && line.trim() === '```');
  if (end < 0) throw new Error('the example block is not closed');
  return lines.slice(start + 1, end).join('\n') + '\n';
}
