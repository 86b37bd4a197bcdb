// Leaf certificates for the forward proxy, issued in a child process with a bounded queue of names waiting.
import type { ChildProcess } from 'node:child_process';
import { forkWorker, workerScript } from '../worker-script.js';

/** A leaf certificate and its private key, PEM. */
export interface LeafCertificate {
  cert: string;
  key: string;
}

export interface IssueJob {
  id: number;
  names: string[];
}

export type IssueOutcome = ({ id: number } & LeafCertificate) | { id: number; error: string };

/** Certificates waiting or being issued at once; past it a CONNECT is answered 503 at once. */
export const CERTIFICATES_QUEUED = 32;
/** How long an idle certificate process stays: a burst of new names reuses it, then its memory goes. */
const IDLE_MS = 5000;

/** Thrown when CERTIFICATES_QUEUED certificates are already waiting: the client may try again shortly. */
export class CertificateQueueFull extends Error {
  constructor(readonly limit: number) {
    super(`mockyard is issuing ${limit} certificates already; try again shortly`);
  }
}

/**
 * One child process, started on the first new name and ended once none has come for IDLE_MS. It loads the
 * CA itself and signs with a leaf key of its own; only the finished PEM text comes back. (A process
 * rather than a worker thread: its CPU and memory stay out of the server's, as the scenario builder's do.)
 */
export class CertificateIssuer {
  #worker: ChildProcess | undefined;
  #starting: Promise<ChildProcess> | undefined;
  #next = 1;
  #pending = new Map<number, { resolve(leaf: LeafCertificate): void; reject(err: Error): void }>();
  #idle: NodeJS.Timeout | undefined;

  constructor(
    readonly caDir: string,
    readonly maxQueued = CERTIFICATES_QUEUED,
  ) {}

  /** How many certificates are waiting or being issued. */
  get queued(): number {
    return this.#pending.size;
  }

  issue(names: readonly string[]): Promise<LeafCertificate> {
    if (this.#pending.size >= this.maxQueued) return Promise.reject(new CertificateQueueFull(this.maxQueued));
    clearTimeout(this.#idle);
    const id = this.#next++;
    return new Promise<LeafCertificate>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#start().then(
        (worker) => worker.send({ id, names: [...names] } satisfies IssueJob),
        (err: Error) => this.#settle({ id, error: err.message }),
      );
    });
  }

  #start(): Promise<ChildProcess> {
    if (this.#worker) return Promise.resolve(this.#worker);
    this.#starting ??= workerScript('cert-worker.js', 'platform/hosts/cert-worker.ts').then((script) => {
      const worker = forkWorker(script, [this.caDir]);
      worker.on('message', (outcome: IssueOutcome) => this.#settle(outcome));
      worker.on('error', (err) => this.#fail(worker, err));
      worker.on('exit', () => this.#fail(worker, new Error('the certificate process stopped')));
      this.#worker = worker;
      this.#starting = undefined;
      return worker;
    });
    const starting = this.#starting;
    starting.catch(() => {
      if (this.#starting === starting) this.#starting = undefined;
    });
    return starting;
  }

  #settle(outcome: IssueOutcome): void {
    const waiting = this.#pending.get(outcome.id);
    this.#pending.delete(outcome.id);
    if (this.#pending.size === 0) {
      clearTimeout(this.#idle);
      this.#idle = setTimeout(() => this.close(), IDLE_MS);
      this.#idle.unref();
    }
    if (!waiting) return;
    if ('error' in outcome) waiting.reject(new Error(outcome.error));
    else waiting.resolve({ cert: outcome.cert, key: outcome.key });
  }

  #fail(worker: ChildProcess | undefined, err: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const w of waiting) w.reject(err);
  }

  /** Ends the process; names asked for later start a new one. */
  close(): void {
    clearTimeout(this.#idle);
    const worker = this.#worker;
    this.#worker = undefined;
    worker?.kill();
    if (worker) this.#fail(undefined, new Error('the certificate process stopped'));
  }
}
