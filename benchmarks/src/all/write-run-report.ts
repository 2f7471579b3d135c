import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runReportHtml } from './report-html.js';
import { runReportMarkdown } from './report-markdown.js';
import { buildRunReport, type ReportableScenario, type RunReport } from './run-report.js';

/** Where {@link writeRunReport} wrote. */
export interface WrittenReport {
  report: RunReport;
  markdownPath: string;
  htmlPath: string;
}

/** Reads a run of `all` and writes `report.md` and `report.html` at its top. */
export function writeRunReport(
  runDir: string,
  registry: readonly ReportableScenario[],
  options: { compareDir?: string } = {},
): WrittenReport {
  const report = buildRunReport(runDir, registry, options);
  const markdownPath = path.join(runDir, 'report.md');
  const htmlPath = path.join(runDir, 'report.html');
  writeFileSync(markdownPath, runReportMarkdown(report));
  writeFileSync(htmlPath, runReportHtml(report));
  return { report, markdownPath, htmlPath };
}
