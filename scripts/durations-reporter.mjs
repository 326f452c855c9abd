// A node:test reporter that records how long each test file took (its process, start to
// end, in ms), as JSON { "<source path relative to the repository>": ms }, once the run has ended.
// scripts/test.mjs --record-durations merges it into scripts/test-durations.json, from which
// it starts the longest files first.
import { relative, resolve } from 'node:path';
import { sourcePath } from './test-build.mjs';

/**
 * @param {AsyncIterable<{type: string, data: any}>} source the runner's event stream
 * @returns {AsyncGenerator<string>} the JSON text, once the run has ended
 */
export default async function* fileDurations(source) {
  const ms = {};
  for await (const event of source) {
    // Each file is a top-level test named by its path as given; its duration covers its whole process.
    if (event.type !== 'test:complete' || event.data.nesting !== 0 || resolve(event.data.name) !== event.data.file) continue;
    // The file ran compiled from the mirror (.test-build/…/x.test.js): recorded as its source.
    ms[sourcePath(relative(process.cwd(), event.data.file))] = Math.round(event.data.details.duration_ms);
  }
  yield JSON.stringify(ms) + '\n';
}
