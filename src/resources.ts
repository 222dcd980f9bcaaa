import { ACCOUNTS_RESOURCE, readAccounts } from './accounts/resource.js';
import type { ToolDeps } from './tool.js';
import { eventResources, EVENTS_TEMPLATE, readEvents } from './triggers/resources.js';

/* The resources every protocol serves, as plain functions of an owner's dependencies (forOwner), as tools are. */

type ResourceDeps = Pick<ToolDeps, 'store' | 'triggers'>;

export { isEventsUri, MAX_SUBSCRIPTIONS, triggerOfUri } from './triggers/resources.js';

export async function listResources(deps: ResourceDeps) {
  return [ACCOUNTS_RESOURCE, ...(await eventResources(deps))];
}

export function resourceTemplates(deps: Pick<ToolDeps, 'triggers'>) {
  return deps.triggers ? [EVENTS_TEMPLATE] : [];
}

/** The text of the resource at `uri`; undefined when there is none there. */
export async function readResource(deps: ResourceDeps, uri: string): Promise<string | undefined> {
  return uri === ACCOUNTS_RESOURCE.uri ? readAccounts(deps.store) : readEvents(deps, uri);
}
