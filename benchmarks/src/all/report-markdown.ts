import { markdownTable } from '../harness/index.js';
import { reportBlocks, type ReportBlock } from './report-content.js';
import type { RunReport } from './run-report.js';

/** A relative path as a Markdown link target (spaces and brackets escaped). */
function href(target: string): string {
  return encodeURI(target.split('\\').join('/'));
}

function block(b: ReportBlock): string {
  switch (b.kind) {
    case 'heading':
      return `${'#'.repeat(b.level)} ${b.text}`;
    case 'paragraph':
      return b.text;
    case 'banner':
      return `> **${b.text}**`;
    case 'table':
      return `${b.table.caption}\n\n${markdownTable(b.table.columns, b.table.rows)}`;
    case 'links':
      return b.links.map((l) => `[${l.label}](${href(l.href)})`).join(' · ');
    case 'charts':
      return b.charts.map((c) => `![${c.title}](${href(c.file)})`).join('\n\n');
    case 'code':
      return `\`\`\`\n${b.text}\n\`\`\``;
  }
}

/** `report.md` of a run of `all`. */
export function runReportMarkdown(report: RunReport): string {
  return `${reportBlocks(report).map(block).join('\n\n')}\n`;
}

/** Just the summary table, for the docs page that shows the latest run. */
export function summaryMarkdown(report: RunReport): string {
  const summary = reportBlocks(report).find((b) => b.kind === 'table' && b.id === 'summary-table');
  return summary ? block(summary) : '';
}
