import type { WebhookIntake } from '../../contracts/triggers.js';
import { headerOf, jsonObject, signatureMatches } from '../webhook-signature.js';

/** GitHub signs each delivery to a hook with the hook's secret (HMAC-SHA256) and names it in X-GitHub-Delivery. */
export const githubWebhookIntake: WebhookIntake = {
  provider: 'github',
  addressedTo: 'hook',
  verify: (raw, headers, secrets) => secrets.some((secret) => signatureMatches('sha256', secret, raw, headerOf(headers, 'x-hub-signature-256'), 'sha256=')),
  delivery(raw, headers) {
    const event = headerOf(headers, 'x-github-event') ?? '';
    if (event === 'ping') return 'ping';
    const id = headerOf(headers, 'x-github-delivery');
    const payload = jsonObject(raw);
    if (!id || !event || !payload) return { malformed: 'missing X-GitHub-Delivery or X-GitHub-Event, or a body that is not JSON' };
    return { id, event, payload };
  },
};
