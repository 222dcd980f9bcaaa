import { describe, expect, it } from 'vitest';
import { DEFAULT_BASE_URLS, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('has safe defaults', () => {
    const c = loadConfig({});
    expect(c.http).toEqual({ host: '127.0.0.1', port: 8765, publicUrl: undefined, token: undefined });
    expect(c.baseUrls).toEqual(DEFAULT_BASE_URLS);
    expect(c.transport).toBe('stdio');
    expect(c.readOnly).toBe(false);
    expect(c.toolsets).toBeUndefined();
    expect(c.dataDir).toMatch(/switchboard/);
  });

  it('lets flags win over the environment, and the environment over defaults', () => {
    const env = { SWITCHBOARD_DATA_DIR: '/env/dir', SWITCHBOARD_PORT: '9000', SWITCHBOARD_TOOLSETS: 'github', SWITCHBOARD_READ_ONLY: 'true' };
    expect(loadConfig(env)).toMatchObject({ dataDir: '/env/dir', http: { port: 9000 }, toolsets: ['github'], readOnly: true });
    expect(loadConfig(env, { 'data-dir': '/flag/dir', port: '9100', toolsets: 'outlook,vercel', 'read-only': false })).toMatchObject({
      dataDir: '/flag/dir',
      http: { port: 9100 },
      toolsets: ['outlook', 'vercel'],
      readOnly: false,
    });
  });

  it('reads base URLs per connector and drops a trailing slash', () => {
    expect(loadConfig({ SWITCHBOARD_GITHUB_BASE_URL: 'http://127.0.0.1:9/' }).baseUrls.github).toBe('http://127.0.0.1:9');
  });

  it.each([
    [{}, { port: '70000' }, /--port must be a whole number/],
    [{}, { toolsets: 'github,gitlab' }, /unknown toolset "gitlab"; choose from outlook, sales, github, vercel/],
    [{ SWITCHBOARD_GITHUB_BASE_URL: 'ftp://x' }, {}, /SWITCHBOARD_GITHUB_BASE_URL must be an http\(s\) URL/],
    [{}, { 'public-url': 'not a url' }, /--public-url must be an http\(s\) URL/],
    [{}, { 'log-level': 'loud' }, /--log-level must be/],
  ])('refuses bad input with a message naming it (%j %j)', (env, flags, message) => {
    expect(() => loadConfig(env, flags)).toThrow(message);
  });
});
