import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import examples from '@octokit/webhooks-examples' with { type: 'json' };
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookSide, settleWebhooks } from '../../src/sandbox/github/hooks.js';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { exited, runCli, startHttpServe } from './cli.js';
import { until } from '../support/wait.js';

const REPO = 'sbx-octocat/hello-world';
const PROJECT = 'prj_sbxHelloWorld0000000001';
const VERCEL_SECRET = 'whsec-slowloris-0123456789';
const SLOW_CONNECTIONS = 200;
/** What the product promises a well-behaved provider while others trickle. */
const ANSWER_WITHIN_MS = 2_000;

const OPENED = (examples as Array<{ name: string; examples: Array<Record<string, any>> }>)
  .find((e) => e.name === 'issues')!
  .examples.find((x) => x.action === 'opened')!;

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-slowloris-'));
  env = {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github,
    SWITCHBOARD_VERCEL_BASE_URL: sandbox.baseUrls.vercel,
  };
  for (const provider of ['github', 'vercel'] as const) {
    const added = await runCli(['accounts', 'add', provider, '--token-stdin'], { env, stdin: SANDBOX_TOKENS[provider] });
    expect(added.code, added.stderr).toBe(0);
  }
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function addTrigger(kind: string, config: Record<string, unknown>, publicUrl: string): Promise<string> {
  const added = await runCli(['triggers', 'add', kind, '--config', JSON.stringify(config), '--public-url', publicUrl], { env });
  expect(added.code, added.stderr).toBe(0);
  return /Created trigger (trg_[0-9a-f]+)/.exec(added.stdout)![1]!;
}

/**
 * Connections that each send one byte a second: half trickle their headers, half send complete, signed-looking
 * headers and trickle a body. A connection the server drops is opened again, so the count stays up.
 */
function slowloris(port: number, paths: string[], count: number) {
  const sockets = new Set<Socket>();
  let stopped = false;
  let bodiesDropped = 0;
  const open = (i: number) => {
    const path = paths[Math.floor(i / 2) % paths.length]!;
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (stopped) return;
      if (i % 2 === 0) bodiesDropped++;
      open(i);
    });
    socket.once('connect', () => {
      if (i % 2) {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: `);
      } else {
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n` +
            `X-GitHub-Event: issues\r\nX-GitHub-Delivery: slow-${i}\r\nX-Hub-Signature-256: sha256=${'0'.repeat(64)}\r\nX-Vercel-Signature: ${'0'.repeat(40)}\r\n\r\n{`,
        );
      }
      sockets.add(socket);
    });
  };
  for (let i = 0; i < count; i++) open(i);
  const tick = setInterval(() => {
    for (const socket of sockets) socket.write('a');
  }, 1_000);
  return {
    open: () => sockets.size,
    /** Slow bodies the server gave up on (it drops trickled headers after its headers timeout, bodies after its request timeout). */
    bodiesDropped: () => bodiesDropped,
    stop() {
      stopped = true;
      clearInterval(tick);
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('webhook intake beside slow senders', () => {
  it(`answers signed deliveries within ${ANSWER_WITHIN_MS / 1000} s while ${SLOW_CONNECTIONS} connections trickle headers and bodies at the same hook URLs`, { timeout: 90_000 }, async () => {
    const { child, url } = await startHttpServe([], env);
    const base = url.replace(/\/mcp$/, '');
    // The server is the triggers' public URL: the repository hook GitHub creates is at it, and its ping reaches it.
    await addTrigger('github.new_issue', { repo: REPO }, base);
    const vercelTrigger = await addTrigger('vercel.deployment_started', { project: PROJECT, secret: VERCEL_SECRET }, base);
    const hook = hookSide(sandbox.states.github).hooks.find((h) => h.config.url.startsWith(`${base}/webhooks/github/`))!;
    await settleWebhooks(sandbox.states.github);
    expect(hook.deliveries.map((d) => [d.event, d.status_code])).toEqual([['ping', 200]]);
    const githubPath = new URL(hook.config.url).pathname;
    const vercelPath = `/webhooks/vercel/${vercelTrigger}`;
    const slow = slowloris(Number(new URL(base).port), [githubPath, vercelPath], SLOW_CONNECTIONS);
    try {
      await until(() => slow.open() === SLOW_CONNECTIONS, 'the slow connections', 20_000);
      // Past the first bytes of every trickle: the server has routed the slow bodies and is reading them.
      await new Promise((resolve) => setTimeout(resolve, 2_500));

      const github = async (n: number) => {
        const payload = structuredClone(OPENED);
        payload.issue.number = 1000 + n;
        payload.issue.title = `Delivered beside slow senders ${n}`;
        payload.repository.full_name = REPO;
        const body = JSON.stringify(payload);
        return send(`${base}${githubPath}`, body, {
          'x-github-event': 'issues',
          'x-github-delivery': `beside-slow-${n}`,
          'x-hub-signature-256': await sign(hook.config.secret!, body),
        });
      };
      const vercel = (n: number) => {
        const body = JSON.stringify({
          id: `evt_beside_slow_${n}`,
          type: 'deployment.created',
          createdAt: Date.now(),
          payload: { deployment: { id: `dpl_slow${n}`, name: 'hello-world', url: `hello-world-${n}.vercel.app` }, project: { id: PROJECT }, target: 'preview' },
        });
        return send(`${base}${vercelPath}`, body, { 'x-vercel-signature': createHmac('sha1', VERCEL_SECRET).update(body).digest('hex') });
      };

      // An issue opened at the sandbox, which sends its delivery to the hook itself, as GitHub does.
      const openedAtGithub = async (n: number) => {
        const res = await fetch(`${sandbox.baseUrls.github}/repos/${REPO}/issues`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SANDBOX_TOKENS.github}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Opened beside slow senders ${n}` }),
        });
        expect(res.status).toBe(201);
        await settleWebhooks(sandbox.states.github);
      };

      const answers: Array<{ status: number; body: unknown; ms: number }> = [];
      for (let round = 0; round < 3; round++) {
        const [, ...sent] = await Promise.all([openedAtGithub(round), ...Array.from({ length: 5 }, (_, i) => github(round * 5 + i)), vercel(round)]);
        answers.push(...sent);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      const bodiesDropped = slow.bodiesDropped();
      expect(answers.map((a) => [a.status, a.body])).toEqual(Array.from({ length: 18 }, () => [200, { accepted: 1 }]));
      expect(answers.filter((a) => a.ms >= ANSWER_WITHIN_MS)).toEqual([]);
      const fromGithub = hook.deliveries.filter((d) => d.event === 'issues').map((d) => ({ status: d.status_code, within: d.duration * 1000 < ANSWER_WITHIN_MS }));
      expect(fromGithub).toEqual(Array.from({ length: 3 }, () => ({ status: 200, within: true })));
      // The slow bodies were still being read when the last delivery was answered: none had been dropped to make room.
      expect(bodiesDropped).toBe(0);
    } finally {
      slow.stop();
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});

/** POSTs a delivery; an answer that does not come within 10 s counts as status 0. */
async function send(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(10_000) });
    return { status: res.status, body: (await res.json()) as unknown, ms: performance.now() - started };
  } catch (error) {
    return { status: 0, body: (error as Error).message, ms: performance.now() - started };
  }
}
