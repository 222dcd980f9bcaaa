import { githubKinds } from '../connectors/github/triggers.js';
import { newEmail } from '../connectors/outlook/new-email.trigger.js';
import { vercelKinds } from '../connectors/vercel/webhooks.js';
import type { TriggerKind } from '../contracts/triggers.js';

/** Every trigger kind Switchboard offers, by name. */
export const TRIGGER_KINDS: Map<string, TriggerKind> = new Map([newEmail, ...githubKinds, ...vercelKinds].map((k) => [k.kind, k]));
