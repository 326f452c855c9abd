/**
 * Where a socket audit device writes: a TCP or Unix stream connection, or UDP datagrams,
 * to `address`. A write counts once the socket has taken it (its callback), within
 * `write_timeout`; on a failure the connection is made again and the write tried once
 * more, as the reference does, and failing that the write fails (fail closed).
 *
 * @module
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, isIPv6, type Socket } from 'node:net';

/** A socket device's output. */
export class SocketSink {
  private stream: Promise<Socket> | undefined;
  private udp: UdpSocket | undefined;

  /** `address`: `host:port` (tcp, udp) or a socket file's path (unix). `timeoutMs`: a write's deadline. */
  constructor(
    private readonly address: string,
    private readonly type: 'tcp' | 'udp' | 'unix',
    private readonly timeoutMs: number,
  ) {}

  /** Sends `line`; on failure reconnects and tries once more. @throws the second failure. */
  async write(line: string): Promise<void> {
    try {
      await this.send(line);
    } catch {
      this.close();
      await this.send(line);
    }
  }

  /** Nothing to reopen: a dropped connection is made again at the next write. */
  reopen(): void {}

  /** Ends the connection. */
  close(): void {
    const s = this.stream;
    this.stream = undefined;
    void s?.then(
      (c) => c.destroy(),
      () => {},
    );
    this.udp?.close();
    this.udp = undefined;
  }

  private hostPort(): { host: string; port: number } {
    const i = this.address.lastIndexOf(':');
    return { host: this.address.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(this.address.slice(i + 1)) };
  }

  private send(line: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`audit socket write timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
      const done = (err?: Error | null) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      if (this.type === 'udp') {
        const { host, port } = this.hostPort();
        this.udp ??= createSocket(isIPv6(host) ? 'udp6' : 'udp4');
        this.udp.send(line, port, host, (err) => done(err));
        return;
      }
      this.connection().then((s) => {
        if (s.destroyed) return done(new Error('audit socket closed'));
        s.write(line, (err) => done(err));
      }, done);
    });
  }

  /** The open stream connection, made when there is none (a closed one is forgotten at once). */
  private connection(): Promise<Socket> {
    if (this.stream) return this.stream;
    const p = new Promise<Socket>((resolve, reject) => {
      const s = this.type === 'unix' ? connect(this.address) : connect(this.hostPort());
      s.setNoDelay(true);
      s.once('connect', () => resolve(s));
      s.once('error', reject);
      // The peer ending or resetting the connection: the next write connects again.
      const forget = () => {
        if (this.stream === p) this.stream = undefined;
        s.destroy();
      };
      s.on('error', forget);
      s.on('end', forget);
      s.on('close', forget);
      s.resume();
    });
    this.stream = p;
    p.catch(() => {
      if (this.stream === p) this.stream = undefined;
    });
    return p;
  }
}
