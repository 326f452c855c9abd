/**
 * The start-up and shutdown sequence the discovery and scheduler agents share: open the
 * state under the data directory, let the service build on it, run the leader's work
 * (alone: at once; on shared storage: while this agent holds the lock), serve the HTTP API
 * (with the UI and request metrics), then start leadership; close in the reverse order,
 * with the shutdown signal aborted before leadership stops so open streams and blocking
 * queries end first.
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import { mkdirSync } from 'node:fs';
import { listen, withUi, type HttpService, type Listener, type ListenerOptions, type UiOptions } from '../http/index.js';
import type { Logger } from '../log/logger.js';
import { instrumentHttp, type ServiceMetrics } from '../metrics/index.js';
import { openAgentState, type AgentState, type AgentStateOptions, type StateLeadership } from '../store/index.js';

/** What runs only while this agent leads (every agent whose state is not shared). */
interface LeaderWork {
  /** Starts it: the leader's first writes, then its loops. */
  lead(): Promise<void>;
  /** Stops it (stepping down, or closing). */
  follow(): Promise<void>;
}

/** The opened agent as a service builds on it. */
export interface AgentBase extends AgentState {
  /** Present on shared storage: who leads; started once the HTTP API listens. */
  readonly leadership?: StateLeadership;
  /** Aborted when the agent starts closing (every open stream listens on it). */
  readonly shutdown: AbortSignal;
  /** The `host:port` other agents reach this one's HTTP API at (see {@link AgentAdvertise}). */
  advertised(): string;
}

/** How an agent names its HTTP address to others. */
interface AgentAdvertise {
  /** Until the listener is bound. */
  readonly initial: string;
  /** From the bound listener's URL (`http://host:port`). */
  of(listenerUrl: string): string;
}

/** What a service built on the opened state; hooks run in the order listed here. */
export interface AgentService {
  readonly leader: LeaderWork;
  /** Whether this agent leads when its state is not shared; default true (a client-only scheduler leads nothing). */
  readonly leadsAlone?: boolean;
  /** After the leader's work started (alone), before the API listens: servers beside the API (DNS). */
  beforeListen?(): Promise<void>;
  /** The HTTP API, instrumented with {@link metrics}; with {@link ui}, the web UI beside it. */
  readonly api: HttpService;
  readonly metrics: ServiceMetrics;
  readonly ui?: UiOptions;
  /** After the listener is bound, before leadership starts. */
  listening?(): void;
  /** Once leadership started: what runs beside it (the local agent, the client). */
  started?(): Promise<void>;
  /** Closing, before the shutdown signal is aborted. */
  closeFirst?(): Promise<void>;
  /** Closing, after the signal, before leadership stops. */
  closeBeside?(): Promise<void>;
  /** Closing, after the leader's work stopped, before the listener closes. */
  closeLast?(): Promise<void>;
  /** A start that failed after the build: releases what the build opened (leadership and state are the kernel's). */
  abandon?(): Promise<void>;
}

/** Options of {@link startAgent}; `S` is what the service built. */
export interface AgentStart<S extends AgentService> {
  readonly log: Logger;
  /** Made (mode 0700) when missing; the state's files are under it. */
  readonly dataDir: string;
  readonly state: Omit<AgentStateOptions, 'log'>;
  /** Where the HTTP API listens. */
  readonly listen: ListenerOptions;
  readonly advertise: AgentAdvertise;
  /** Builds the service; on a throw the state is closed again. */
  build(base: AgentBase): S | Promise<S>;
}

/** A started agent. */
export interface StartedAgent<S extends AgentService> {
  readonly base: AgentBase;
  readonly service: S;
  /** `http://host:port` of the HTTP API. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Runs the sequence of the module doc. @throws when the data directory, its key or the
 * state cannot be opened, the build throws, or the HTTP address cannot be bound (whatever
 * opened is closed first).
 */
export async function startAgent<S extends AgentService>(o: AgentStart<S>): Promise<StartedAgent<S>> {
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const opened = await openAgentState({ ...o.state, log: o.log });
  const stopping = new AbortController();
  // Every open event stream and blocking query listens on it (and removes its listener when it ends).
  setMaxListeners(0, stopping.signal);
  let advertised = o.advertise.initial;
  // The service's leader work exists only once it is built; leadership starts after that.
  let leader: LeaderWork | undefined;
  const leadership = opened.shared?.leadership({ address: () => advertised, onLeader: () => leader!.lead(), onFollower: () => leader!.follow() });
  const base: AgentBase = { ...opened, leadership, shutdown: stopping.signal, advertised: () => advertised };
  let service: S | undefined;
  let listener: Listener | undefined;
  let ledAlone = false;
  try {
    service = await o.build(base);
    leader = service.leader;
    if (!opened.shared && service.leadsAlone !== false) {
      ledAlone = true;
      await leader.lead();
    }
    await service.beforeListen?.();
    const served = service.ui ? withUi(service.api, service.ui) : service.api;
    listener = await listen(o.listen, instrumentHttp(served, service.metrics), o.log);
    advertised = o.advertise.of(listener.url);
    service.listening?.();
    leadership?.start();
    await service.started?.();
    const [s, l] = [service, listener];
    return {
      base,
      service: s,
      url: l.url,
      close: async () => {
        await s.closeFirst?.();
        stopping.abort();
        await s.closeBeside?.();
        await leadership?.stop();
        await s.leader.follow();
        await s.closeLast?.();
        await l.close();
        await opened.backend.close();
      },
    };
  } catch (err) {
    await service?.abandon?.();
    await leadership?.stop();
    // No loop of the leader's may outlive the state it writes to.
    if (ledAlone) await service?.leader.follow();
    await listener?.close();
    await opened.backend.close();
    throw err;
  }
}
