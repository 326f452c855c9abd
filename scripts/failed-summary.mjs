// A node:test reporter that prints, after the run, every failed test with its file and
// error, so the last lines of a long CI log name what failed (the TAP stream above them
// is too long to be read whole). A file that ran compiled (.test-build/) is named by its source.
import { sourcePath } from './test-build.mjs';

/**
 * @param {AsyncIterable<{type: string, data: any}>} source the runner's event stream
 * @returns {AsyncGenerator<string>} the summary text, once the run has ended
 */
export default async function* failedSummary(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // A suite fails when one of its tests does: the test itself is the useful line.
    if (details?.type === 'suite') continue;
    const err = details?.error;
    const cause = err?.cause ?? err;
    const message = String(cause?.message ?? cause ?? '')
      .split('\n')
      .slice(0, 6)
      .join('\n    ');
    failed.push(`- ${file ? sourcePath(file) : '?'}: ${name}\n    ${message}`);
  }
  if (failed.length === 0) return;
  yield `\n# ${failed.length} failed test(s):\n${failed.join('\n')}\n`;
}
