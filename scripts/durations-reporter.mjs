// A node:test reporter that records how long each test file took (its process, start to
// end, in ms), as JSON { "<path relative to the repository>": ms }, once the run has ended.
// scripts/test.mjs starts the longest files first from this list (scripts/test-durations.json).
import { relative } from 'node:path';

/**
 * @param {AsyncIterable<{type: string, data: any}>} source the runner's event stream
 * @returns {AsyncGenerator<string>} the JSON text, once the run has ended
 */
export default async function* fileDurations(source) {
  const ms = {};
  for await (const event of source) {
    // Each file is a top-level test named by its path; its duration covers its whole process.
    if (event.type !== 'test:complete' || event.data.nesting !== 0 || event.data.name !== event.data.file) continue;
    ms[relative(process.cwd(), event.data.file)] = Math.round(event.data.details.duration_ms);
  }
  const sorted = Object.fromEntries(Object.entries(ms).sort(([a], [b]) => a.localeCompare(b)));
  yield JSON.stringify(sorted, null, 2) + '\n';
}
