/**
 * The process entry of the `cairn` command: wires {@link main} to argv, the environment
 * and the standard streams (`bin/cairn.js` imports the compiled form of this file).
 * @module
 */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2), process.env, {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  isTTY: process.stdout.isTTY === true,
});
