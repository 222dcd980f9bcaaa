import { Agent, fetch } from 'undici';
import { guardedLookup, hostRefusal } from '../http/forward-guard.js';

export interface MetadataFetchPolicy {
  /** Private networks may be reached (SWITCHBOARD_FORWARD_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Tests only: the documents are served on this machine, over TLS with a certificate of this authority. */
  loopbackCa?: string;
}

/**
 * How the authorization server fetches a client's metadata document (a client id that is an https URL): only from
 * public addresses (every connection's address is checked, not just the name's first answer), no redirects, within
 * five seconds. oidc-provider adds its own size limit on the body.
 */
export function metadataFetch(policy: MetadataFetchPolicy) {
  const allowLoopback = policy.loopbackCa !== undefined;
  const forward = { allowPrivate: policy.allowPrivate, allowLoopback };
  const dispatcher = new Agent({ connect: { timeout: 5_000, lookup: guardedLookup(forward), ...(policy.loopbackCa ? { ca: policy.loopbackCa } : {}) } });
  return async (url: string | URL, init: Record<string, unknown>) => {
    const target = new URL(url);
    const refusal = hostRefusal(target, policy.allowPrivate, allowLoopback);
    if (refusal) throw new Error(`the client metadata document at ${target.host} is not fetched: ${refusal}`);
    const { signal, headers } = init as { signal?: AbortSignal; headers?: Headers };
    return fetch(target, { method: 'GET', headers: headers ? Object.fromEntries(headers) : undefined, signal, redirect: 'manual', dispatcher });
  };
}
