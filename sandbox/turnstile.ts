/**
 * Request turns for a local stack in one process: the servers (local EC2, local Kubernetes API,
 * dynalite) take requests one at a time, in the order the clients created them, and only once
 * every other piece of JavaScript has run out of work. Without it, two passes that send requests
 * at once are served in the order the kernel delivers them, which a busy machine changes; with it,
 * what a seed does depends on its code alone, never on how fast the machine is.
 *
 * A request is created by a client (node:http for the AWS SDK, undici for client-node; both are
 * seen through their diagnostics channels and numbered), arrives at a gated server, waits there,
 * is admitted, and is done once its client has the whole answer (or its error) and its server is
 * finished with it (a client closed mid-request leaves its server working). The next request is
 * admitted only when none is on its way or in service and no other `setImmediate` work is
 * pending: the program is waiting for the turnstile alone. Nothing here reads a clock.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const HEADER = 'x-sandbox-turn';

type State = 'sent' | 'held' | 'admitted';

interface Turn {
  state: State;
  /** Its client has the whole answer, an error, or gave up (a closed client cuts its requests off). */
  clientDone: boolean;
  /** Its server has finished with it (sent the answer, or lost the connection). */
  serverDone: boolean;
  admit?: () => void;
}

/** What undici publishes on `undici:request:*` (the fields read here). */
interface UndiciRequest {
  origin?: string | URL;
  addHeader(name: string, value: string): unknown;
}

const otherImmediatesPending = () => process.getActiveResourcesInfo().includes('Immediate');

export class Turnstile {
  private readonly turns = new Map<number, Turn>();
  private readonly clientTurns = new WeakMap<object, number>();
  private readonly origins = new Set<string>();
  private readonly drainWaiters: (() => void)[] = [];
  private created = 0;
  private scheduled = false;
  private stopped = false;
  /**
   * Requests created while another was in service and still awaited by its client: work woken by
   * something the turnstile does not order (a real timer, I/O to a server it does not gate).
   * Always 0 in a sound rig.
   */
  untimely = 0;
  /** Where the first untimely request was created, to find the timer behind it. */
  untimelyAt: string | undefined;

  private readonly listeners: [string, (message: unknown) => void][] = [
    ['http.client.request.created', (m) => this.nodeCreated((m as { request: ClientRequest }).request)],
    ['http.client.request.error', (m) => this.done((m as { request: object }).request)],
    ['undici:request:create', (m) => this.undiciCreated((m as { request: UndiciRequest }).request)],
    ['undici:request:trailers', (m) => this.done((m as { request: object }).request)],
    ['undici:request:error', (m) => this.done((m as { request: object }).request)],
  ];

  constructor() {
    for (const [channel, listener] of this.listeners) subscribe(channel, listener);
  }

  /** Serves `server`'s requests in turns; its wall-clock timeouts go (an idle connection stays open until stop). */
  gate(server: Server): void {
    const { address, port } = server.address() as AddressInfo;
    this.origins.add(`${address}:${port}`);
    server.keepAliveTimeout = 0;
    server.requestTimeout = 0;
    const handlers = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      // Closed when answered, or when the connection goes (its client gave up), perhaps before its turn.
      response.once('close', () => this.serverDone(request));
      void this.admit(request).then(() => {
        for (const handler of handlers) handler(request, response);
      });
    });
  }

  /** Resolves once no request is on its way, waiting or in service, and nothing else is left to run. */
  drained(): Promise<void> {
    return new Promise((resolve) => {
      this.drainWaiters.push(resolve);
      this.kick();
    });
  }

  stop(): void {
    this.stopped = true;
    for (const [channel, listener] of this.listeners) unsubscribe(channel, listener);
    for (const turn of this.turns.values()) turn.admit?.();
    this.turns.clear();
  }

  private nodeCreated(request: ClientRequest): void {
    const host = request.getHeader('host');
    if (typeof host !== 'string' || !this.origins.has(host)) return;
    request.setHeader(HEADER, String(this.track(request)));
    request.once('close', () => this.done(request));
  }

  private undiciCreated(request: UndiciRequest): void {
    const origin = request.origin === undefined ? undefined : new URL(String(request.origin)).host;
    if (origin === undefined || !this.origins.has(origin)) return;
    request.addHeader(HEADER, String(this.track(request)));
  }

  private track(request: object): number {
    const id = ++this.created;
    // Everything else waits on the turnstile while a request is in service: who woke up?
    if ([...this.turns.values()].some((turn) => turn.state === 'admitted' && !turn.clientDone)) {
      this.untimely += 1;
      this.untimelyAt ??= new Error('created here').stack;
    }
    this.turns.set(id, { state: 'sent', clientDone: false, serverDone: false });
    this.clientTurns.set(request, id);
    this.kick();
    return id;
  }

  /**
   * A request reached a gated server: it waits for its turn. One whose client already gave up is
   * served in its turn all the same, as a server serves what reached it (its answer goes nowhere).
   */
  private admit(request: IncomingMessage): Promise<void> {
    const id = Number(request.headers[HEADER]);
    if (!(id > 0 && id <= this.created) || this.stopped) return Promise.resolve();
    const turn = this.turns.get(id) ?? { state: 'sent', clientDone: true, serverDone: false };
    this.turns.set(id, turn);
    return new Promise((resolve) => {
      turn.state = 'held';
      turn.admit = resolve;
      this.kick();
    });
  }

  private done(request: object): void {
    const id = this.clientTurns.get(request);
    const turn = id === undefined ? undefined : this.turns.get(id);
    if (id === undefined || turn === undefined || turn.clientDone) return;
    turn.clientDone = true;
    // Cut off on its way: it may never arrive (if it does, admit() queues it again).
    if (turn.state === 'sent' || (turn.state === 'admitted' && turn.serverDone)) this.turns.delete(id);
    this.kick();
  }

  private serverDone(request: IncomingMessage): void {
    const id = Number(request.headers[HEADER]);
    const turn = this.turns.get(id);
    if (turn === undefined) return;
    turn.serverDone = true;
    // A connection lost before its turn keeps the turn: its handler still runs then.
    if (turn.clientDone && turn.state === 'admitted') this.turns.delete(id);
    this.kick();
  }

  private kick(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => this.tick());
  }

  /** One look, from a `setImmediate` of its own (so microtasks and ticks have run): admit the next request, or wait. */
  private tick(): void {
    this.scheduled = false;
    const turns = [...this.turns.values()];
    // On its way to a server (and still awaited), or in service: its arrival or its end kicks again.
    if (turns.some((turn) => (turn.state === 'sent' && !turn.clientDone) || turn.state === 'admitted')) return;
    const waiting = turns.length > 0 || this.drainWaiters.length > 0;
    if (!waiting) return;
    if (otherImmediatesPending()) return this.kick();
    const next = [...this.turns].filter(([, turn]) => turn.state === 'held').sort(([a], [b]) => a - b)[0];
    if (next !== undefined) {
      const [id, turn] = next;
      turn.state = 'admitted';
      turn.admit?.();
      // Its connection is already gone: its handler's work runs now, before the next look (which waits for queued immediates).
      if (turn.serverDone && turn.clientDone) this.turns.delete(id);
      return this.kick();
    }
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
