import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log.js';

export interface BodyLimits {
  /** Largest body one request may send. */
  maxBody: number;
  /** Bytes that all bodies being read, or read and not yet answered, may hold together. */
  maxHeld: number;
  /** Seconds a sender refused to make room is asked to wait before sending again. */
  retryAfterSeconds: number;
}

/** A body still arriving: what it holds, since when, and how to refuse it. */
interface Arriving {
  bytes: number;
  firstByteAt: number;
  refuse(status: number, error: string, headers?: Record<string, string>): void;
}

const MADE_ROOM = 'Deliveries arriving at once passed the memory limit and this one was the slowest; send it again.';

/**
 * Request bodies held in memory, counted in the bytes received rather than in bodies: a sender that trickles holds
 * only what it has sent, and nothing another sender waits for. A body's bytes stay counted until its answer is sent.
 * When a chunk would take the total past the limit, the bodies arriving most slowly are refused (503) and their bytes
 * let go, so slow and stalled senders give way to the ones that send at speed.
 */
export class BodyBudget {
  private held = 0;
  private readonly arriving = new Set<Arriving>();

  constructor(
    private readonly limits: BodyLimits,
    private readonly logger?: Logger,
  ) {
    if (limits.maxHeld < limits.maxBody) throw new Error('maxHeld must leave room for one body of maxBody bytes');
  }

  /** Bytes held now by bodies being read or waiting for their answer. */
  heldBytes(): number {
    return this.held;
  }

  /** The whole body; undefined when the request has been answered already (too large, refused to make room) or is gone. */
  read(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
    const { maxBody, retryAfterSeconds } = this.limits;
    const tooLarge = `delivery too large: bodies over ${maxBody} bytes are refused`;
    if (Number(req.headers['content-length'] ?? 0) > maxBody) {
      refuseUnread(res, 413, { error: tooLarge });
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      const release = () => {
        this.held -= body.bytes;
        body.bytes = 0;
        chunks.length = 0;
      };
      const stop = () => {
        this.arriving.delete(body);
        req.off('data', onData).off('end', onEnd).off('error', onGone);
      };
      const body: Arriving = {
        bytes: 0,
        firstByteAt: 0,
        refuse: (status, error, headers) => {
          if (status === 503) this.logger?.warn('delivery refused to keep bodies within the memory budget', { path: req.url?.split('?')[0], receivedBytes: body.bytes, heldBytes: this.held });
          stop();
          req.pause();
          release();
          refuseUnread(res, status, { error }, headers);
          resolve(undefined);
        },
      };
      const onData = (chunk: Buffer) => {
        if (!body.firstByteAt) body.firstByteAt = performance.now();
        if (body.bytes + chunk.length > maxBody) return body.refuse(413, tooLarge);
        if (!this.makeRoom(body, chunk.length)) return body.refuse(503, MADE_ROOM, { 'retry-after': String(retryAfterSeconds) });
        this.held += chunk.length;
        body.bytes += chunk.length;
        chunks.push(chunk);
      };
      const onEnd = () => {
        stop();
        const whole = Buffer.concat(chunks, body.bytes);
        chunks.length = 0;
        resolve(whole);
      };
      const onGone = () => {
        stop();
        release();
        resolve(undefined);
      };
      res.once('close', () => {
        stop();
        release();
        resolve(undefined);
      });
      this.arriving.add(body);
      req.on('data', onData).on('end', onEnd).on('error', onGone);
    });
  }

  /** Refuses the slowest bodies holding enough to matter until `bytes` more fit; false when `body` itself is the one to go. */
  private makeRoom(body: Arriving, bytes: number): boolean {
    while (this.held + bytes > this.limits.maxHeld) {
      const now = performance.now();
      const rate = (b: Arriving) => (b === body ? b.bytes + bytes : b.bytes) / Math.max(now - b.firstByteAt, 1);
      const shortfall = this.held + bytes - this.limits.maxHeld;
      let slowest: Arriving | undefined;
      for (const other of this.arriving) {
        if ((other === body ? other.bytes + bytes : other.bytes) < shortfall) continue;
        if (!slowest || rate(other) < rate(slowest)) slowest = other;
      }
      if (!slowest || slowest === body) return false;
      slowest.refuse(503, MADE_ROOM, { 'retry-after': String(this.limits.retryAfterSeconds) });
    }
    return true;
  }
}

/** Answers without reading the body, and closes the connection rather than draining what the sender still sends. */
export function refuseUnread(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers }).end(JSON.stringify(body));
}
