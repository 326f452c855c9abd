/**
 * What a client node reports about its host when it registers (reference/sched-workloads.md
 * "Client agent"): CPU (`cpu.numcores`, `cpu.frequency` in MHz, `cpu.totalcompute` = cores
 * × MHz, the node's `CpuShares`), memory (`memory.totalbytes`, `MemoryMB`), OS and kernel
 * attributes, `unique.hostname`, and the task drivers it offers (`driver.<name> = "1"` and
 * `Drivers{name:{Detected, Healthy, HealthDescription, Attributes}}`), and its host networks
 * and port settings (network-fingerprint.ts), and `vault.accessible = true` with a `vault` block
 * (client/vault-config.ts).
 *
 * @module
 */
import { arch, cpus, hostname, platform, release, totalmem, type CpuInfo } from 'node:os';
import { VERSION } from '../../../kernel/version/index.js';
import type { ClientConfig } from './config.js';
import { networkFingerprint, type NetworkFingerprint } from './network-fingerprint.js';

/** MHz assumed per core when the kernel reports none (some VMs and containers report 0). */
const FALLBACK_CPU_MHZ = 1000;

/** The fingerprint's part of the node registration body. */
export interface Fingerprint {
  readonly Attributes: Record<string, string>;
  readonly NodeResources: {
    readonly Cpu: { readonly CpuShares: number; readonly TotalCpuCores: number };
    readonly Memory: { readonly MemoryMB: number };
    readonly Disk: { readonly DiskMB: number };
  } & NetworkFingerprint['resources'];
  /** The node's reserved ports (`ReservedResources.Networks.ReservedHostPorts`). */
  readonly ReservedResources: NetworkFingerprint['reserved'];
  readonly Drivers: Record<string, { Detected: boolean; Healthy: boolean; HealthDescription: string; Attributes: Record<string, string>; UpdateTime: string }>;
}

/**
 * Fingerprints this host, with `config` overriding CPU and memory totals and choosing the
 * drivers (`raw_exec` only when enabled; `exec` on Linux unless disabled).
 * @param cores the CPUs (`os.cpus()`; tests pass their own)
 */
export function fingerprint(config: ClientConfig, cores: readonly CpuInfo[] = cpus(), now: Date = new Date()): Fingerprint {
  const numCores = Math.max(1, cores.length);
  const mhz = Math.max(...cores.map((c) => c.speed), 0) || FALLBACK_CPU_MHZ;
  const totalCompute = config.cpuTotalCompute ?? numCores * mhz;
  const memoryBytes = config.memoryTotalMb !== undefined ? config.memoryTotalMb * 1024 * 1024 : totalmem();
  const attributes: Record<string, string> = {
    'cpu.arch': arch(),
    'cpu.numcores': String(numCores),
    'cpu.frequency': String(mhz),
    'cpu.totalcompute': String(totalCompute),
    'cpu.modelname': cores[0]?.model ?? '',
    'memory.totalbytes': String(memoryBytes),
    'kernel.name': platform(),
    'kernel.version': release(),
    'os.name': platform(),
    'unique.hostname': hostname(),
    // The node list's `Version`, as the reference's client reports its own.
    'nomad.version': VERSION,
  };
  const drivers: Fingerprint['Drivers'] = {};
  const offer = (name: string, description: string) => {
    attributes[`driver.${name}`] = '1';
    drivers[name] = {
      Detected: true,
      Healthy: true,
      HealthDescription: description,
      Attributes: { [`driver.${name}`]: 'true' },
      UpdateTime: now.toISOString(),
    };
  };
  const net = networkFingerprint(config.network);
  if (net.resources.Networks[0]) attributes['unique.network.ip-address'] = net.resources.Networks[0].IP;
  // Static, from the configuration: an outage of the secrets service does not make the node ineligible (jobs/vault.ts).
  if (config.vault) attributes['vault.accessible'] = 'true';
  if (config.drivers.raw_exec) offer('raw_exec', 'Healthy');
  if (config.drivers.exec && platform() === 'linux')
    offer('exec', 'Healthy (process group, resource limits by setrlimit; no namespaces or cgroups without root)');
  return {
    Attributes: attributes,
    NodeResources: {
      Cpu: { CpuShares: totalCompute, TotalCpuCores: numCores },
      Memory: { MemoryMB: Math.floor(memoryBytes / (1024 * 1024)) },
      Disk: { DiskMB: 0 },
      ...net.resources,
    },
    ReservedResources: net.reserved,
    Drivers: drivers,
  };
}
