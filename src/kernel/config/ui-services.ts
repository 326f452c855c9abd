/**
 * `ui_services { … }`: the other services whose web UI sections a production server shows
 * (issue 18: "in production each service serves its own section, and the others' sections
 * appear when their addresses are configured"). The same top-level block in every
 * service's file, one key per service, its API address as the value:
 *
 * ```hcl
 * ui_services {
 *   mesh    = "10.0.0.5:8500"               # host:port: plain HTTP
 *   sched   = "https://sched.internal:4646" # or an http(s):// base URL
 *   gateway_ops = "10.0.0.7:9203"           # the gateway's ops listener: its /metrics for the charts
 * }
 * ```
 *
 * The server passes the UI's calls to those services through `/ui/proxy/<service>/v1/…`
 * (kernel/http/ui.ts), as `cairn dev` does, so the browser talks to one origin and no
 * service needs CORS. It needs the web UI on in the same file.
 *
 * @module
 */
import type { UiSection, UiServices } from '../http/ui.js';
import { blockError, cfg, type BlockAt, type ConfigOf } from './schema.js';

const address = (service: string) => cfg.string({ doc: `the ${service} API: host:port (plain HTTP) or an http(s)://host:port base URL` });

/** The keys of the `ui_services` block. */
export const uiServicesKeys = {
  secrets: address('secrets service'),
  mesh: address('discovery service'),
  sched: address('scheduler'),
  gateway: address("access gateway controller's api listener"),
  gateway_ops: cfg.string({
    doc: "the access gateway's ops listener, host:port or an http(s)://host:port base URL: its public /metrics is then read through /ui/gateway/metrics for the overview's traffic charts",
  }),
};

/** The `ui_services` block of a service's schema. */
export const uiServicesKey = cfg.block(uiServicesKeys, {
  doc: 'the other services whose web UI sections this server shows, by API address (proxied under /ui/proxy/<service>/); needs the web UI on',
});

/** host:port, [v6]:port, or http(s)://host:port with an optional trailing slash and no path, query or credentials. */
const HOST_PORT = /^(?:[^\s:/@[\]]+|\[[0-9a-fA-F:.]+\]):\d{1,5}$/;

/**
 * The configured addresses by section, checked; `{}` without the block.
 * @param self this file's own service, which may not be listed.
 * @param uiOn whether the file turns the web UI on; `uiKey` names that key in the error.
 * @throws {ConfigError} at the key's line: an address that is neither `host:port` nor an
 *   `http(s)://host:port` URL, a port outside 1–65535, the service's own key; at the
 *   block's line: the block while the UI is off.
 */
export function uiServicesFrom(
  block: (ConfigOf<typeof uiServicesKeys> & { readonly $at: BlockAt }) | undefined,
  self: UiSection,
  uiOn: boolean,
  uiKey: string,
): UiServices {
  if (!block) return {};
  if (!uiOn) throw blockError(block.$at, undefined, `"ui_services" needs the web UI on (${uiKey})`);
  const out: UiServices = {};
  for (const section of Object.keys(uiServicesKeys) as (keyof UiServices)[]) {
    const value = block[section];
    if (value === undefined) continue;
    const bad = (why: string) => blockError(block.$at, section, `"${section}": ${why}`);
    if (section === self) throw bad('this is the service the file configures: its own section is always shown');
    const v = value.trim();
    const url = /^(https?):\/\/([^/?#]+)\/?$/i.exec(v);
    const hostPort = url ? url[2] : v;
    if (!HOST_PORT.test(hostPort)) throw bad(`"${value}" is not host:port or an http(s)://host:port URL`);
    const port = Number(hostPort.slice(hostPort.lastIndexOf(':') + 1));
    if (port < 1 || port > 65535) throw bad(`port ${port} is not from 1 to 65535`);
    out[section] = url ? `${url[1].toLowerCase()}://${hostPort}` : hostPort;
  }
  return out;
}
