import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { TeamKeyStore } from '../store/types.js';

export interface ServerKeys {
  /** Private signing keys (JWK), the first one signing. */
  jwks: { keys: Array<Record<string, unknown>> };
  /** Keys that sign the authorization server's cookies, the first one signing. */
  cookieKeys: string[];
}

/** The authorization server's keys: made by the first instance on the store, shared by all, so any of them can finish any sign-in. */
export async function serverKeys(keys: TeamKeyStore): Promise<ServerKeys> {
  const json = await keys.ensure('authorization-server', () => {
    const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    const made: ServerKeys = {
      jwks: { keys: [{ ...jwk, kid: randomUUID(), use: 'sig', alg: 'RS256' }] },
      cookieKeys: [randomBytes(32).toString('base64url')],
    };
    return JSON.stringify(made);
  });
  return JSON.parse(json) as ServerKeys;
}
