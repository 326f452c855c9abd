/**
 * Server CPU time from `/proc/<pid>/stat` (Linux): user + system time of the whole
 * process, every thread included (the SQLite writer thread, libuv's pool), not its
 * children (a secrets-pg server's PostgreSQL processes are not counted).
 */
import { readFileSync } from 'node:fs';
import { clockTicks } from '../src/kernel/util/clock-ticks.js';

/**
 * CPU seconds (user + system) process `pid` has used so far, or undefined where `/proc`
 * is not there (not Linux). Resolution: one clock tick (10 ms at 100 Hz).
 */
export function cpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces) start at field 3; utime and
  // stime are fields 14 and 15 (proc(5)).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}
