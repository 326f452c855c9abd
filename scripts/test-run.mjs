// Runs test files with node:test's run(), in the order given: node 20's `--test` sorts its
// files by name, run() keeps the order of `files` (scripts/test.mjs starts the longest first).
// Started by scripts/test.mjs on the compiled files in .test-build/ (scripts/test-build.mjs); the
// stacks it reports point at the sources (scripts/source-stacks.mjs).
// Arguments: <files at once> <file for the durations reporter, or -> <test file>...
// Reports as `node --test --test-reporter=tap --test-reporter=./scripts/failed-summary.mjs`
// does, on stdout; exit code 1 when a test failed.
import { createWriteStream } from 'node:fs';
import { compose } from 'node:stream';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import fileDurations from './durations-reporter.mjs';
import failedSummary from './failed-summary.mjs';
import { withSourceStacks } from './source-stacks.mjs';

const [concurrency, durationsTo, ...files] = process.argv.slice(2);
// A file whose process has not ended after 5 minutes fails and is killed (the longest takes
// about a minute): a test that fails and leaves a server running would otherwise keep its
// file's process, and so the whole run, going forever.
const FILE_TIMEOUT_MS = 5 * 60_000;
const runner = run({ files, concurrency: Number(concurrency), timeout: FILE_TIMEOUT_MS });
runner.on('test:fail', (data) => {
  if (!data.todo) process.exitCode = 1;
});
const stream = runner.pipe(withSourceStacks());
// Three reporters add more than the default 10 listeners ('end' and others) to the stream.
stream.setMaxListeners(20);
compose(stream, tap).pipe(process.stdout);
compose(stream, failedSummary).pipe(process.stdout);
if (durationsTo !== '-') compose(stream, fileDurations).pipe(createWriteStream(durationsTo));
