import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startSandboxServer, type SandboxServer } from '../../src/sandbox/server.js';
import type { ToolDeps } from '../../src/tool.js';
import { addressRefusal, guardedLookup, type ForwardPolicy } from '../../src/http/forward-guard.js';
import { Runner } from '../../src/triggers/runner.js';
import { triggersCreate } from '../../src/triggers/tools.js';
import { startHarness, type Harness } from '../harness.js';

/** Names that resolve without DNS: tests never reach the internet. */
const NAMES: Record<string, string[]> = {
  'agent.test': ['127.0.0.1'],
  'intranet.test': ['10.0.0.7', '169.254.169.254'],
  'mixed.test': ['10.0.0.7', '127.0.0.1'],
};
const resolve = async (hostname: string) => {
  const found = NAMES[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

let h: Harness;
let receiver: SandboxServer;

beforeAll(async () => {
  h = await startHarness();
  receiver = await startSandboxServer('receiver', {
    'POST /hook': () => ({ status: 204 }),
    'POST /moved': () => ({ status: 307, headers: { location: '/hook' } }),
  });
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

function createWith(policy: ForwardPolicy, forwardUrl: string) {
  const deps: ToolDeps = { ...h.deps, forwardPolicy: policy };
  return triggersCreate.call({ kind: 'outlook.new_email', forward_url: forwardUrl }, { deps, signal: new AbortController().signal, progress: async () => undefined });
}

describe('forward address classification', () => {
  it.each([
    ['169.254.169.254', /cloud metadata/],
    ['169.254.10.1', /link-local/],
    ['fe80::1', /link-local/],
    ['fd00:ec2::254', /cloud metadata/],
    ['::ffff:169.254.169.254', /cloud metadata/],
    ['64:ff9b::a9fe:a9fe', /cloud metadata/],
    ['0.0.0.0', /not a unicast address/],
  ])('always refuses %s, even where private networks are allowed', (address, reason) => {
    expect(addressRefusal(address, false)).toMatch(reason);
    expect(addressRefusal(address, true)).toMatch(reason);
  });

  it.each(['10.1.2.3', '172.16.0.1', '172.31.255.254', '192.168.1.1', '100.64.0.1', 'fc00::1', 'fd12:3456::1', '::ffff:10.0.0.1', '::ffff:192.168.0.1', '::ffff:172.20.0.1', '::ffff:100.64.0.1'])(
    'refuses private %s unless allowed',
    (address) => {
      expect(addressRefusal(address, false)).toMatch(/private address \(set SWITCHBOARD_FORWARD_ALLOW_PRIVATE=1/);
      expect(addressRefusal(address, true)).toBeUndefined();
    },
  );

  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '93.184.215.14', '2606:4700::1111'])('allows loopback and public %s', (address) => {
    expect(addressRefusal(address, false)).toBeUndefined();
  });

  it('the connection lookup keeps only allowed addresses and refuses a name with none', async () => {
    const lookup = (policy: ForwardPolicy, name: string) =>
      new Promise<unknown>((done, fail) => guardedLookup(policy)(name, { all: true }, (error, addresses) => (error ? fail(error) : done(addresses))));
    expect(await lookup({ allowPrivate: false, resolve }, 'mixed.test')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await lookup({ allowPrivate: true, resolve }, 'mixed.test')).toEqual([
      { address: '10.0.0.7', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    await expect(lookup({ allowPrivate: true, resolve }, 'intranet.test')).resolves.toEqual([{ address: '10.0.0.7', family: 4 }]);
    await expect(lookup({ allowPrivate: false, resolve }, 'intranet.test')).rejects.toMatchObject({ code: 'ERR_FORWARD_REFUSED' });
  });
});

describe('triggers_create forward_url', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/', /forward_url.*169\.254\.169\.254 is a cloud metadata address/],
    ['http://[fd00:ec2::254]/', /forward_url.*cloud metadata address/],
    ['http://metadata.google.internal/computeMetadata/v1/', /forward_url.*metadata\.google\.internal is a cloud metadata host/],
    ['http://[fe80::1]:8080/hook', /forward_url.*link-local/],
    ['http://10.0.0.5/hook', /forward_url.*10\.0\.0\.5 is a private address.*SWITCHBOARD_FORWARD_ALLOW_PRIVATE=1/],
    ['http://192.168.1.20:3000/hook', /forward_url.*private address/],
    ['http://[::ffff:172.16.0.9]/hook', /forward_url.*private address/],
    ['http://100.64.1.1/hook', /forward_url.*private address/],
  ])('refuses %s by name', async (url, message) => {
    expect(await h.fails('triggers_create', { kind: 'outlook.new_email', forward_url: url })).toMatch(message);
  });

  it('accepts loopback, for an agent on this machine', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://[::1]:9/hook', 'http://localhost:9/hook']) {
      const created = await h.ok('triggers_create', { kind: 'outlook.new_email', forward_url: url });
      expect(created.trigger.forward_url).toBe(url);
    }
  });

  it('accepts a private address when the operator allows private networks, but never a metadata address', async () => {
    const created = await createWith({ allowPrivate: true }, 'http://10.0.0.5/hook');
    expect(created.trigger.forward_url).toBe('http://10.0.0.5/hook');
    await expect(createWith({ allowPrivate: true }, 'http://169.254.169.254/')).rejects.toThrow(/forward_url.*cloud metadata/);
  });

  it('refuses a name that resolves only to refused addresses, and accepts one that does not resolve yet', async () => {
    await expect(createWith({ allowPrivate: false, resolve }, 'http://intranet.test/hook')).rejects.toThrow(
      /forward_url.*intranet\.test resolves only to refused addresses: 10\.0\.0\.7 is a private address.*169\.254\.169\.254 is a cloud metadata address/,
    );
    const later = await createWith({ allowPrivate: false, resolve }, 'http://not-yet.test/hook');
    expect(later.trigger.forward_url).toBe('http://not-yet.test/hook');
  });
});

describe('forwarding checks the address it connects to', () => {
  it('refuses at send time a name that now resolves to a private address, without retrying, and delivers to one that resolves to loopback', async () => {
    const port = new URL(receiver.url).port;
    const account = (await h.store.accounts.list()).find((a) => a.provider === 'outlook')!;
    const sends: Record<string, number> = {};
    // Stored directly, as a trigger created while its name still resolved elsewhere (or before these checks).
    for (const [name, url] of [
      ['private', `http://intranet.test:${port}/hook`],
      ['literal', 'http://169.254.169.254/latest/meta-data/'],
      ['redirect', `http://agent.test:${port}/moved`],
      ['loopback', `http://agent.test:${port}/hook`],
    ] as const) {
      const trigger = await h.store.triggers.create({ kind: 'outlook.new_email', accountId: account.id, config: {}, forwardUrl: url, secrets: { forward: 'forward-secret-1234' } });
      const [event] = await h.store.triggers.commit(trigger.id, {
        events: [{ dedupeKey: `guard-${name}`, occurredAt: '2026-11-22T10:00:00Z', summary: `Email ${name}`, payload: {} }],
      });
      sends[name] = event!.id;
    }

    const runner = new Runner({
      store: h.store,
      kinds: new Map(),
      log: h.deps.triggers!.log,
      deps: { baseUrls: h.deps.baseUrls, forwardPolicy: { allowPrivate: false, resolve } },
      logger: createLogger({ level: 'error' }),
      tickMs: 25,
      forward: { baseDelayMs: 40, maxDelayMs: 200, timeoutMs: 2_000 },
    });
    await runner.start();
    const attemptsOf = (name: string) => h.store.events.attempts(sends[name]!);
    try {
      // The redirected forward is retried with back-off; three tries of it show the refused ones had time to be retried too.
      const end = Date.now() + 5_000;
      while ((await Promise.all(Object.keys(sends).map(attemptsOf))).some((a) => a.length === 0) || (await attemptsOf('redirect')).length < 3) {
        if (Date.now() > end) throw new Error('not every forward was attempted in time');
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await runner.stop();
    }

    const privateAttempts = await attemptsOf('private');
    expect(privateAttempts).toHaveLength(1);
    expect(privateAttempts[0]!.error).toMatch(/^refused, not retried: intranet\.test resolves only to refused addresses: 10\.0\.0\.7 is a private address/);
    const literalAttempts = await attemptsOf('literal');
    expect(literalAttempts).toHaveLength(1);
    expect(literalAttempts[0]!.error).toBe('refused, not retried: 169.254.169.254 is a cloud metadata address');
    expect((await attemptsOf('loopback')).map((a) => a.status)).toEqual([204]);
    // A redirect is not followed: the receiver's answer is the attempt's outcome.
    expect((await attemptsOf('redirect'))[0]).toMatchObject({ status: 307, error: 'receiver answered 307' });
    expect(new Set(receiver.requests.map((r) => r.path))).toEqual(new Set(['/hook', '/moved']));
    expect(receiver.requests.filter((r) => r.path === '/hook')).toHaveLength(1);
    expect(receiver.requests.find((r) => r.path === '/hook')!.headers.host).toBe(`agent.test:${port}`);
  });
});
