import { environmentMarkdown, type Environment } from './environment.js';
import { formatClock } from './format.js';
import type { ChartFile } from './results-writer.js';

/** What goes into one scenario's `report.md`. */
export interface ReportInput {
  title: string;
  description: string;
  status: 'complete' | 'failed' | 'interrupted';
  /** The scenario's body; missing when it failed before returning. */
  body?: string;
  error?: string;
  charts: readonly ChartFile[];
  environment: Environment;
  quick: boolean;
  scenarioArgs: readonly string[];
  commandLine: string;
  startedAt: Date;
  finishedAt: Date;
}

/** The full `report.md` of one scenario: status, body, charts, environment, files, command. */
export function reportMarkdown(input: ReportInput): string {
  const took = formatClock(input.finishedAt.getTime() - input.startedAt.getTime());
  const flags = input.scenarioArgs.length ? `\`${input.scenarioArgs.join(' ')}\`` : 'defaults';
  const parts: string[] = [
    `# ${input.title}`,
    input.description,
    `Status: **${input.status}** · started ${input.startedAt.toISOString()} · took ${took} · ` +
      `${input.quick ? '**quick run** (`--quick`: shortened, for a smoke test; do not quote these numbers)' : 'full run'} · flags: ${flags}`,
  ];
  if (input.error) parts.push(`## Error\n\n\`\`\`\n${input.error}\n\`\`\``);
  if (input.body) parts.push(input.body.trim());
  if (input.charts.length) {
    const charts = input.charts.map((c) => {
      const png = c.png ? `PNG: [${c.png}](${c.png})` : `PNG not made: ${c.pngSkipped ?? 'unknown reason'}`;
      return `![${c.title}](${c.svg})\n\n${png}`;
    });
    parts.push(`## Charts\n\n${charts.join('\n\n')}`);
  }
  parts.push(`## Environment\n\n${environmentMarkdown(input.environment)}`);
  parts.push(
    [
      '## Files',
      '',
      '- `comparison.json`: the side-by-side figures, rewritten after every finished case',
      '- `cases/*.json`: every measured round of every case',
      '- `config.json`: the flags and resolved settings; `environment.json`: the machine and commit',
      '- `commands.txt`: every command line run; `run.log` and `logs/`: what happened, with times',
    ].join('\n'),
  );
  parts.push(`## Command\n\n\`\`\`\n${input.commandLine}\n\`\`\``);
  return `${parts.join('\n\n')}\n`;
}
