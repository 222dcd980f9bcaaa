import { newEmail } from '../connectors/outlook/new-email.trigger.js';
import type { TriggerKind } from './kind.js';

/** Every trigger kind Switchboard offers, by name. */
export const TRIGGER_KINDS: Map<string, TriggerKind> = new Map([newEmail].map((k) => [k.kind, k]));
