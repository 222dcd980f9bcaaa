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
    expect(c.maxResultTokens).toBe(25_000);
    expect(loadConfig({ SWITCHBOARD_MAX_RESULT_TOKENS: '8000' }, { 'max-result-tokens': '4000' }).maxResultTokens).toBe(4000);
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

  it('takes the PostgreSQL URL from --database-url over SWITCHBOARD_DATABASE_URL; none means SQLite', () => {
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    expect(loadConfig({ SWITCHBOARD_DATABASE_URL: '' }).databaseUrl).toBeUndefined();
    expect(loadConfig({ SWITCHBOARD_DATABASE_URL: 'postgres://sb:pw@db.internal:5432/switchboard' }).databaseUrl).toBe('postgres://sb:pw@db.internal:5432/switchboard');
    expect(loadConfig({ SWITCHBOARD_DATABASE_URL: 'postgres://a@h/env' }, { 'database-url': 'postgresql://b@h/flag' }).databaseUrl).toBe('postgresql://b@h/flag');
  });

  it.each(['mysql://sb:S3cret-pw@db/switchboard', 'sb:S3cret-pw@db/switchboard', 'postgres://sb:S3cret-pw@db', 'postgres://sb:S3cret-pw@/switchboard'])(
    'refuses the database URL %s, naming the setting and the shape, never the password',
    (url) => {
      const error = (() => {
        try {
          loadConfig({ SWITCHBOARD_DATABASE_URL: url });
        } catch (e) {
          return e as Error & { field?: string };
        }
      })();
      expect(error?.message).toMatch(/database URL .*postgres:\/\/USER:PASSWORD@HOST:5432\/DATABASE \(SWITCHBOARD_DATABASE_URL or --database-url\)/);
      expect(error?.field).toBe('database-url');
      expect(error?.message).not.toContain('S3cret-pw');
    },
  );

  it('reads base URLs per connector and drops a trailing slash', () => {
    expect(loadConfig({ SWITCHBOARD_GITHUB_BASE_URL: 'http://127.0.0.1:9/' }).baseUrls.github).toBe('http://127.0.0.1:9');
  });

  it.each([
    [{}, { port: '70000' }, /--port must be a whole number/],
    [{}, { toolsets: 'github,gitlab' }, /unknown toolset "gitlab"; choose from outlook, sales, github, vercel/],
    [{ SWITCHBOARD_GITHUB_BASE_URL: 'ftp://x' }, {}, /SWITCHBOARD_GITHUB_BASE_URL must be an http\(s\) URL/],
    [{}, { 'public-url': 'not a url' }, /--public-url must be an http\(s\) URL/],
    [{}, { 'log-level': 'loud' }, /--log-level must be/],
    [{}, { 'max-result-tokens': '500' }, /--max-result-tokens \(SWITCHBOARD_MAX_RESULT_TOKENS\) must be a whole number from 1000 to 1000000, not "500"/],
    [{ SWITCHBOARD_MAX_RESULT_TOKENS: 'lots' }, {}, /must be a whole number from 1000 to 1000000, not "lots"/],
  ])('refuses bad input with a message naming it (%j %j)', (env, flags, message) => {
    expect(() => loadConfig(env, flags)).toThrow(message);
  });
});

describe('OAuth settings', () => {
  it('defaults to the real authorization servers, tenant common, and no client ids', () => {
    const { oauth } = loadConfig({});
    expect(oauth.outlook).toEqual({ url: 'https://login.microsoftonline.com/common/oauth2/v2.0', tenant: 'common', clientId: undefined, clientSecret: undefined });
    expect(oauth.github).toEqual({ url: 'https://github.com', clientId: undefined, clientSecret: undefined });
    expect(oauth.vercel).toMatchObject({ url: 'https://api.vercel.com/v2/oauth', authorizeUrl: undefined });
  });

  it('reads the tenant, client ids and secrets, the integration slug and overridden servers', () => {
    const { oauth } = loadConfig({
      SWITCHBOARD_OUTLOOK_TENANT: 'consumers',
      SWITCHBOARD_OUTLOOK_CLIENT_ID: ' 11111111-2222-3333-4444-555555555555 ',
      SWITCHBOARD_GITHUB_CLIENT_ID: 'Iv1.abc',
      SWITCHBOARD_GITHUB_CLIENT_SECRET: 'gh-secret',
      SWITCHBOARD_GITHUB_OAUTH_URL: 'http://127.0.0.1:9/',
      SWITCHBOARD_VERCEL_INTEGRATION_SLUG: 'switchboard',
    });
    expect(oauth.outlook).toMatchObject({ url: 'https://login.microsoftonline.com/consumers/oauth2/v2.0', clientId: '11111111-2222-3333-4444-555555555555' });
    expect(oauth.github).toMatchObject({ url: 'http://127.0.0.1:9', clientId: 'Iv1.abc', clientSecret: 'gh-secret' });
    expect(oauth.vercel.authorizeUrl).toBe('https://vercel.com/integrations/switchboard/new');
    expect(loadConfig({ SWITCHBOARD_VERCEL_OAUTH_URL: 'http://127.0.0.1:7/v2/oauth' }).oauth.vercel.authorizeUrl).toBe('http://127.0.0.1:7/v2/oauth/authorize');
    expect(loadConfig({ SWITCHBOARD_NEW_SECRET_KEY: 'next' }).newSecretKey).toBe('next');
  });

  it.each([
    [{ SWITCHBOARD_OUTLOOK_TENANT: 'a/b' }, /SWITCHBOARD_OUTLOOK_TENANT must be common, organizations, consumers/],
    [{ SWITCHBOARD_OUTLOOK_OAUTH_URL: 'javascript:x' }, /SWITCHBOARD_OUTLOOK_OAUTH_URL must be an http\(s\) URL/],
    [{ SWITCHBOARD_VERCEL_INTEGRATION_SLUG: 'Bad Slug' }, /SWITCHBOARD_VERCEL_INTEGRATION_SLUG must be/],
  ])('refuses bad OAuth settings (%j)', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('refuses forwarding to private networks unless SWITCHBOARD_FORWARD_ALLOW_PRIVATE says otherwise', () => {
    expect(loadConfig({}).forwardAllowPrivate).toBe(false);
    expect(loadConfig({ SWITCHBOARD_FORWARD_ALLOW_PRIVATE: '0' }).forwardAllowPrivate).toBe(false);
    expect(loadConfig({ SWITCHBOARD_FORWARD_ALLOW_PRIVATE: '1' }).forwardAllowPrivate).toBe(true);
    expect(loadConfig({ SWITCHBOARD_FORWARD_ALLOW_PRIVATE: 'true' }).forwardAllowPrivate).toBe(true);
    expect(() => loadConfig({ SWITCHBOARD_FORWARD_ALLOW_PRIVATE: 'yes please' })).toThrow(/SWITCHBOARD_FORWARD_ALLOW_PRIVATE must be 1 or 0/);
  });

  it('groups webhook commits unless SWITCHBOARD_WEBHOOK_GROUP_COMMIT is 0', () => {
    expect(loadConfig({}).webhookGroupCommit).toBe(true);
    expect(loadConfig({ SWITCHBOARD_WEBHOOK_GROUP_COMMIT: '0' }).webhookGroupCommit).toBe(false);
    expect(loadConfig({ SWITCHBOARD_WEBHOOK_GROUP_COMMIT: 'true' }).webhookGroupCommit).toBe(true);
    expect(() => loadConfig({ SWITCHBOARD_WEBHOOK_GROUP_COMMIT: 'off' })).toThrow(/SWITCHBOARD_WEBHOOK_GROUP_COMMIT must be 1 or 0/);
  });

  it('numbers MCP Events errors as the design sketch does unless SWITCHBOARD_EVENTS_ERROR_CODES says sep', () => {
    expect(loadConfig({}).eventsErrorCodes).toBe('sketch');
    expect(loadConfig({ SWITCHBOARD_EVENTS_ERROR_CODES: 'sep' }).eventsErrorCodes).toBe('sep');
    expect(loadConfig({ SWITCHBOARD_EVENTS_ERROR_CODES: ' SKETCH ' }).eventsErrorCodes).toBe('sketch');
    expect(() => loadConfig({ SWITCHBOARD_EVENTS_ERROR_CODES: 'seps' })).toThrow(/^SWITCHBOARD_EVENTS_ERROR_CODES must be sketch .* or sep .*, not "seps"\. Did you mean "sep"\?$/);
  });

  it('grants MCP Events subscriptions at least 5 minutes unless SWITCHBOARD_EVENTS_MIN_TTL_SECONDS says otherwise, at most a day', () => {
    expect(loadConfig({}).eventsMinTtlSeconds).toBe(300);
    expect(loadConfig({ SWITCHBOARD_EVENTS_MIN_TTL_SECONDS: '5' }).eventsMinTtlSeconds).toBe(5);
    expect(() => loadConfig({ SWITCHBOARD_EVENTS_MIN_TTL_SECONDS: '0' })).toThrow(/^SWITCHBOARD_EVENTS_MIN_TTL_SECONDS must be a whole number from 1/);
    expect(() => loadConfig({ SWITCHBOARD_EVENTS_MIN_TTL_SECONDS: '90000' })).toThrow(/^SWITCHBOARD_EVENTS_MIN_TTL_SECONDS must be at most 86400/);
  });

  it('keeps events 30 days unless SWITCHBOARD_EVENT_RETENTION_DAYS says otherwise, at least one', () => {
    expect(loadConfig({}).eventRetentionDays).toBe(30);
    expect(loadConfig({ SWITCHBOARD_EVENT_RETENTION_DAYS: '7' }).eventRetentionDays).toBe(7);
    expect(loadConfig({ SWITCHBOARD_EVENT_RETENTION_DAYS: '' }).eventRetentionDays).toBe(30);
    for (const bad of ['0', '-3', '1.5', 'forever']) {
      expect(() => loadConfig({ SWITCHBOARD_EVENT_RETENTION_DAYS: bad })).toThrow(/SWITCHBOARD_EVENT_RETENTION_DAYS must be a whole number of days from 1 to 36500/);
    }
  });
});
