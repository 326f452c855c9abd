/**
 * A loopback TCP proxy in front of a server whose reachability the test switches, so a
 * database "goes down" and "comes back" on the same address without restarting it:
 * `up` forwards, `hang` accepts connections and holds them without forwarding (a request
 * caught mid-flight), `down` closes every connection at once (a refused login).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** See the module doc. */
export interface SwitchProxy {
  readonly port: number;
  mode: 'up' | 'hang' | 'down';
  /** Connections accepted and still open (in `hang`: the ones held). */
  readonly connections: number;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (a free port) to `targetPort` on 127.0.0.1, in mode `up`. */
export async function startSwitchProxy(targetPort: number): Promise<SwitchProxy> {
  const open = new Set<Socket>();
  const track = (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => undefined);
  };
  let mode: SwitchProxy['mode'] = 'up';
  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'down') return void client.destroy();
    if (mode === 'hang') return;
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    get mode() {
      return mode;
    },
    get connections() {
      return open.size;
    },
    set mode(m) {
      mode = m;
      if (m !== 'up') for (const s of open) s.destroy();
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
