import { eventsUri } from '../contracts/triggers.js';
import type { ToolDeps } from '../tool.js';

/* Each trigger's events as a resource: listed, read and subscribed to by URI, by whichever protocol serves them. */

const EVENTS_URI = /^switchboard:\/\/triggers\/([\w-]+)\/events$/;
/** Whether `uri` has the shape of an events URI: only those can be subscribed to. */
export const isEventsUri = (uri: string) => EVENTS_URI.test(uri);
/** One per trigger is all a client needs; the bound keeps one from growing its set without end. */
export const MAX_SUBSCRIPTIONS = 1000;
const LATEST = 20;

type EventDeps = Pick<ToolDeps, 'store' | 'triggers'>;

export const EVENTS_TEMPLATE = {
  uriTemplate: 'switchboard://triggers/{id}/events',
  name: 'trigger-events',
  title: 'Latest events of a trigger',
  description: `The ${LATEST} newest events of a trigger; subscribe to be told of each new one`,
  mimeType: 'application/json',
};

/** The trigger an events URI names, when it exists in the store given (the owner's view): what a subscription may watch. */
export async function triggerOfUri(deps: EventDeps, uri: string): Promise<string | undefined> {
  const triggerId = EVENTS_URI.exec(uri)?.[1];
  return triggerId && deps.triggers && (await deps.store.triggers.get(triggerId)) ? triggerId : undefined;
}

/** The events resource of every trigger in the store given; none where the process serves no triggers. */
export async function eventResources(deps: EventDeps) {
  const triggers = deps.triggers ? await deps.store.triggers.list() : [];
  return triggers.map((t) => ({ uri: eventsUri(t.id), name: `${t.id}-events`, title: `Events of ${t.kind} ${t.id}`, mimeType: 'application/json' }));
}

/** The newest events of the trigger `uri` names, as the resource's text; undefined when it names none of the store's. */
export async function readEvents(deps: EventDeps, uri: string): Promise<string | undefined> {
  const triggerId = await triggerOfUri(deps, uri);
  if (!triggerId) return undefined;
  const events = await deps.store.events.latest(triggerId, LATEST);
  // Loaded here, not at start-up: nothing else that answers tools/list needs it.
  const { eventJson } = await import('./forward.js');
  return JSON.stringify({ events: events.map(eventJson) });
}
