import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cleanUp, sqlite } from '../store/adapters.js';
import { launchBrowser } from '../support/browser.js';
import { connect, signIn, startCallbackServer, startTeamServer, TestOAuthClient, type TeamServer } from './team.js';

/*
 * A client named by the https URL of its metadata document (CIMD). The authorization server fetches https URLs only,
 * and only from public addresses; the test serves the document on loopback over TLS with a certificate made for the
 * run, and gives the server that certificate's authority through a setting that only tests can set (TeamConfig's
 * metadataCa), which also lets it reach loopback. Nothing else about the fetch is relaxed.
 */

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let callback: Awaited<ReturnType<typeof startCallbackServer>>;
let sandbox: Sandbox;
let documents: Server;
let documentsUrl: string;
let ca: string;
const served = new Map<string, Record<string, unknown>>();
const fetched: string[] = [];
let server: TeamServer | undefined;

beforeAll(async () => {
  const tls = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 24 * 3600_000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
  });
  ca = tls.cert;
  documents = createHttpsServer({ key: tls.private, cert: tls.cert }, (req, res) => {
    fetched.push(req.url ?? '');
    const doc = served.get(req.url ?? '');
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  documentsUrl = `https://localhost:${(documents.address() as AddressInfo).port}`;
  [browser, callback, sandbox] = await Promise.all([launchBrowser(), startCallbackServer(), startSandbox()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), callback?.close(), sandbox?.close(), new Promise((resolve) => documents?.close(resolve))]);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  fetched.length = 0;
  await cleanUp();
});

const documentFor = (clientId: string, redirect: string) => ({
  client_id: clientId,
  client_name: 'Agent from a metadata document',
  redirect_uris: [redirect],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

describe('clients named by their metadata document', () => {
  it('signs in a client whose id is the https URL of its metadata document, without registering it', async () => {
    const clientId = `${documentsUrl}/agents/one.json`;
    served.set('/agents/one.json', documentFor(clientId, callback.url));
    const location = await sqlite.location();
    server = await startTeamServer({ sandbox, location, metadataCa: ca });
    const oauth = await signIn(browser.context, server.url, 'GitHub', new TestOAuthClient(callback.url, { clientMetadataUrl: clientId }));
    expect(oauth.client?.client_id).toBe(clientId);
    expect(fetched).toContain('/agents/one.json');
    const client = await connect(server.url, oauth);
    expect((await client.listTools()).tools.length).toBeGreaterThan(10);
    await client.close();
    // Nothing was registered: the only clients the store keeps are registered ones.
    expect(await sqlite.raw(location, "SELECT count(*) AS n FROM team_records WHERE kind = 'Client'")).toEqual([{ n: 0 }]);
    expect(await sqlite.raw(location, "SELECT count(*) AS n FROM team_records WHERE kind = 'AccessToken'")).toEqual([{ n: 1 }]);
  });

  it('refuses a document whose client_id is not its own URL, and one on loopback without the test authority', async () => {
    const clientId = `${documentsUrl}/agents/liar.json`;
    served.set('/agents/liar.json', documentFor(`${documentsUrl}/agents/someone-else.json`, callback.url));
    server = await startTeamServer({ sandbox, location: await sqlite.location(), metadataCa: ca });
    const authorize = (id: string) =>
      fetch(
        `${server!.url}/auth/authorize?` +
          new URLSearchParams({ client_id: id, response_type: 'code', redirect_uri: callback.url, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', scope: 'switchboard' }),
        { redirect: 'manual' },
      );
    const liar = await authorize(clientId);
    expect(liar.status).toBe(400);
    expect(await liar.text()).toMatch(/client_id/);
    await server.close();

    const location = await sqlite.location();
    server = await startTeamServer({ sandbox, location });
    served.set('/agents/two.json', documentFor(`${documentsUrl}/agents/two.json`, callback.url));
    fetched.length = 0;
    const loopback = await authorize(`${documentsUrl}/agents/two.json`);
    expect(loopback.status).toBe(400);
    expect(fetched).toEqual([]);
    expect(server.logs.join('')).not.toContain('authorization server error');
  });
});
