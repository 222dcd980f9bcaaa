import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Sessions } from '../../src/web/session.js';
import { cleanUp, openAt, sqlite } from '../store/adapters.js';

afterEach(cleanUp);

const requestWith = (cookie: string) => ({ headers: { host: '127.0.0.1:8765', cookie } }) as unknown as IncomingMessage;

describe('web sessions kept in the store', () => {
  it('a session logged in under one HTTP token is unknown once the token changes, as it was after a restart', async () => {
    const store = await openAt(await sqlite.location(), { secretKey: 'session key' });
    const before = new Sessions(store.webSessions, { token: 'the-first-token-0000' });
    const session = await before.create(true);
    const cookie = before.setCookie(requestWith(''), session).split(';')[0]!;
    expect(cookie).toBe(`switchboard_session_8765=${session.id}`);
    expect(await before.get(requestWith(cookie))).toMatchObject({ id: session.id, csrf: session.csrf, authed: true });
    expect(await new Sessions(store.webSessions, { token: 'the-second-token-00' }).get(requestWith(cookie))).toBeUndefined();
    expect(await new Sessions(store.webSessions, {}).get(requestWith(cookie))).toBeUndefined();
    expect(await before.get(requestWith(cookie))).toMatchObject({ id: session.id });
  });

  it('a message added to by two actions before the next page view shows both, once', async () => {
    const store = await openAt(await sqlite.location(), { secretKey: 'session key' });
    const sessions = new Sessions(store.webSessions, {});
    const session = await sessions.create(true);
    const cookie = sessions.setCookie(requestWith(''), session).split(';')[0]!;
    await sessions.show(session, { problem: { form: 'add-sales', text: 'refused', values: {} } });
    // The next post is read afresh from the store, as another instance would.
    await sessions.show((await sessions.get(requestWith(cookie)))!, { notice: { kind: 'ok', text: 'Renamed', section: 'accounts' } });
    const view = (await sessions.get(requestWith(cookie)))!;
    expect(await sessions.takeFlash(view)).toEqual({ problem: { form: 'add-sales', text: 'refused', values: {} }, notice: { kind: 'ok', text: 'Renamed', section: 'accounts' } });
    expect(await sessions.takeFlash(view)).toEqual({});
  });
});
