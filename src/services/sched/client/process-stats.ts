/**
 * What a task's processes use (the reference's `GET /v1/client/allocation/:id/stats`,
 * `cstructs.ResourceUsage`), read from Linux's `/proc`: a task runs in its own process
 * group (task-runner.ts), so its usage is the sum over the processes of that group — RSS
 * from `/proc/<pid>/status`, user and system CPU time from `/proc/<pid>/stat`. CPU is given
 * as the reference gives it: percent of one core over the time since the previous read of
 * the same task (since its start on the first), split into user and system mode, and
 * `TotalTicks` the MHz that percentage is of one core of `cpu.frequency`.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { clockTicks } from '../../../kernel/util/clock-ticks.js';

/** One task's figures in the reference's shape (`MemoryStats` bytes; `CpuStats` percents and MHz). */
export interface ResourceUsage {
  readonly MemoryStats: {
    readonly RSS: number;
    readonly Cache: number;
    readonly Swap: number;
    readonly Usage: number;
    readonly MaxUsage: number;
    readonly KernelUsage: number;
    readonly KernelMaxUsage: number;
    readonly Measured: readonly string[];
  };
  readonly CpuStats: {
    readonly SystemMode: number;
    readonly UserMode: number;
    readonly TotalTicks: number;
    readonly ThrottledPeriods: number;
    readonly ThrottledTime: number;
    readonly Percent: number;
    readonly Measured: readonly string[];
  };
  readonly DeviceStats: null;
}

/** A process group's totals at one moment: CPU seconds by mode, RSS bytes. */
interface Reading {
  readonly atMs: number;
  readonly user: number;
  readonly system: number;
  readonly rss: number;
}

/** The fields of `/proc/<pid>/stat` after the command name (which may hold spaces and parentheses). */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone meanwhile
  }
}

/** RSS of `pid` in bytes (`VmRSS` of its status), 0 when gone or a kernel thread. */
function rssBytes(pid: string): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The totals of process group `pgid` now; undefined where `/proc` is missing (not Linux). */
function readGroup(pgid: number): Reading | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return undefined;
  }
  const hz = clockTicks();
  let user = 0;
  let system = 0;
  let rss = 0;
  for (const pid of pids) {
    // Fields after the name: state(0) ppid(1) pgrp(2) … utime(11) stime(12).
    const f = statFields(pid);
    if (!f || Number(f[2]) !== pgid) continue;
    user += Number(f[11]) / hz;
    system += Number(f[12]) / hz;
    rss += rssBytes(pid);
  }
  return { atMs: Date.now(), user, system, rss };
}

/** When process `pid` started, epoch ms (its `starttime` after boot), or undefined. */
function startedAtMs(pid: number): number | undefined {
  const f = statFields(String(pid));
  if (!f) return undefined;
  try {
    const uptimeS = Number(readFileSync('/proc/uptime', 'latin1').split(' ')[0]);
    return Date.now() - (uptimeS - Number(f[19]) / clockTicks()) * 1000;
  } catch {
    return undefined;
  }
}

/** The previous reading of each task's process group, for the CPU percent of the next (bounded: forgotten past {@link MAX_TRACKED}). */
const previous = new Map<number, Reading>();
const MAX_TRACKED = 1000;

/**
 * The usage of the task whose process group is `pgid` (its process's pid), CPU over the time
 * since the previous call for it (since its start on the first); `mhz` one core's MHz.
 * Undefined where `/proc` is missing.
 */
export function taskUsage(pgid: number, mhz: number): ResourceUsage | undefined {
  const now = readGroup(pgid);
  if (!now) return undefined;
  const before = previous.get(pgid) ?? { atMs: startedAtMs(pgid) ?? now.atMs, user: 0, system: 0, rss: 0 };
  if (previous.size >= MAX_TRACKED) previous.clear();
  previous.set(pgid, now);
  const seconds = Math.max(0.001, (now.atMs - before.atMs) / 1000);
  const userPct = (100 * Math.max(0, now.user - before.user)) / seconds;
  const systemPct = (100 * Math.max(0, now.system - before.system)) / seconds;
  const percent = userPct + systemPct;
  return {
    MemoryStats: { RSS: now.rss, Cache: 0, Swap: 0, Usage: now.rss, MaxUsage: 0, KernelUsage: 0, KernelMaxUsage: 0, Measured: ['RSS'] },
    CpuStats: {
      SystemMode: systemPct,
      UserMode: userPct,
      TotalTicks: (percent / 100) * mhz,
      ThrottledPeriods: 0,
      ThrottledTime: 0,
      Percent: percent,
      Measured: ['System Mode', 'User Mode', 'Percent'],
    },
    DeviceStats: null,
  };
}

/** The sum of `usages` (an allocation's from its tasks'). */
export function sumUsage(usages: readonly ResourceUsage[]): ResourceUsage {
  const add = (pick: (u: ResourceUsage) => number) => usages.reduce((s, u) => s + pick(u), 0);
  const [first] = usages;
  return {
    MemoryStats: { ...(first?.MemoryStats ?? EMPTY.MemoryStats), RSS: add((u) => u.MemoryStats.RSS), Usage: add((u) => u.MemoryStats.Usage) },
    CpuStats: {
      ...(first?.CpuStats ?? EMPTY.CpuStats),
      SystemMode: add((u) => u.CpuStats.SystemMode),
      UserMode: add((u) => u.CpuStats.UserMode),
      TotalTicks: add((u) => u.CpuStats.TotalTicks),
      Percent: add((u) => u.CpuStats.Percent),
    },
    DeviceStats: null,
  };
}

const EMPTY: ResourceUsage = {
  MemoryStats: { RSS: 0, Cache: 0, Swap: 0, Usage: 0, MaxUsage: 0, KernelUsage: 0, KernelMaxUsage: 0, Measured: ['RSS'] },
  CpuStats: { SystemMode: 0, UserMode: 0, TotalTicks: 0, ThrottledPeriods: 0, ThrottledTime: 0, Percent: 0, Measured: ['System Mode', 'User Mode', 'Percent'] },
  DeviceStats: null,
};
