import type { WebhookIntake } from '../../contracts/triggers.js';
import { headerOf, jsonObject, signatureMatches } from '../webhook-signature.js';

/** Vercel signs each delivery to a trigger's webhook with its secret (HMAC-SHA1, bare hex); the payload's id names the delivery. */
export const vercelWebhookIntake: WebhookIntake = {
  provider: 'vercel',
  addressedTo: 'trigger',
  verify: (raw, headers, secrets) => secrets.some((secret) => signatureMatches('sha1', secret, raw, headerOf(headers, 'x-vercel-signature'), '')),
  delivery(raw) {
    const payload = jsonObject(raw);
    if (!payload || typeof payload.id !== 'string' || typeof payload.type !== 'string') return { malformed: 'expected a JSON body with id and type' };
    return { id: payload.id, event: payload.type, payload };
  },
};
