/**
 * Clock ticks per second of Linux's `/proc` times (`utime`, `stime`, `starttime`): what
 * `getconf CLK_TCK` says, 100 when that fails (the usual value). Asked once per process.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';

let ticksPerSecond: number | undefined;

/** Clock ticks per second of `/proc` times. */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}
