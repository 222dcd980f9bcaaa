import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { checkCallerHeaders, resolveEndpoint } from '../../src/http/url-guard.js';
import { HOSTILE_ENDPOINTS } from './hostile.js';

const graph = new URL('https://graph.microsoft.com/v1.0');
const github = new URL('https://api.github.com');

describe('resolveEndpoint', () => {
  it.each([
    ['/me/messages', 'https://graph.microsoft.com/v1.0/me/messages'],
    ["/me/mailFolders('inbox')/messages", "https://graph.microsoft.com/v1.0/me/mailFolders('inbox')/messages"],
    ['/users/avery@contoso.example/messages', 'https://graph.microsoft.com/v1.0/users/avery@contoso.example/messages'],
    ['/me/messages?$search="from:bob"&$top=5', 'https://graph.microsoft.com/v1.0/me/messages?$search=%22from:bob%22&$top=5'],
    ['/me/messages?$filter=from/emailAddress/address eq \'a@b.c\'', "https://graph.microsoft.com/v1.0/me/messages?$filter=from/emailAddress/address%20eq%20%27a@b.c%27"],
    ['https://graph.microsoft.com/v1.0/me/messages?$skip=10', 'https://graph.microsoft.com/v1.0/me/messages?$skip=10'],
    ['/me/messages/AAMk%2FAB=', 'https://graph.microsoft.com/v1.0/me/messages/AAMk%2FAB='],
  ])('accepts %s', (endpoint, expected) => {
    expect(resolveEndpoint(graph, endpoint).href).toBe(expected);
  });

  it('keeps a query value decodable to the exact text sent', () => {
    const url = resolveEndpoint(graph, '/me/messages?$search="subject:quarterly report"');
    expect(url.searchParams.get('$search')).toBe('"subject:quarterly report"');
  });

  it('refuses a same-origin link outside the base path', () => {
    expect(() => resolveEndpoint(graph, 'https://graph.microsoft.com/beta/me')).toThrow(/only reaches https:\/\/graph.microsoft.com\/v1.0/);
  });

  it.each(HOSTILE_ENDPOINTS.map((e) => [e.replace(/EVIL/g, 'evil.example').replace(/BASEHOST/g, 'api.github.com')]))(
    'refuses hostile endpoint %j',
    (endpoint) => {
      let error: unknown;
      try {
        resolveEndpoint(github, endpoint);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).field).toBe('endpoint');
      expect((error as Error).message).toMatch(/"endpoint"/);
    },
  );

  it('has a battery of at least 30 hostile endpoints', () => {
    expect(HOSTILE_ENDPOINTS.length).toBeGreaterThanOrEqual(30);
  });
});

describe('checkCallerHeaders', () => {
  it.each(['Authorization', 'authorization', 'Cookie', 'Host', 'api_key', 'X-Api-Key', 'Proxy-Authorization', 'Content-Length'])('refuses %s', (name) => {
    expect(() => checkCallerHeaders({ [name]: 'x' })).toThrow(new RegExp(`headers.${name}`));
  });

  it('explains that credentials are attached for the caller', () => {
    expect(() => checkCallerHeaders({ Authorization: 'Bearer x' })).toThrow(/attached from the connected account/);
  });

  it.each([['x-a', 'v\r\nInjected: 1'], ['x-b', 'v\n'], ['x-c', 'v\u0000'], ['x-d', 'ｖ']])('refuses value with %s', (name, value) => {
    expect(() => checkCallerHeaders({ [name]: value })).toThrow(InputError);
  });

  it('refuses invalid header names', () => {
    expect(() => checkCallerHeaders({ 'x y': 'v' })).toThrow(/invalid header name/);
    expect(() => checkCallerHeaders({ 'x:y': 'v' })).toThrow(/invalid header name/);
  });

  it('lower-cases and keeps ordinary headers', () => {
    expect(checkCallerHeaders({ Accept: 'application/json', 'If-None-Match': '"abc"' })).toEqual({ accept: 'application/json', 'if-none-match': '"abc"' });
  });
});
