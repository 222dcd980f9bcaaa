import type { Store } from './store/types.js';

/**
 * What work done for `owner` runs with: the store as that owner sees it, every query of it kept to theirs. The one way
 * MCP requests, the Integrations page and the CLI scope what they may reach to a person.
 */
export function forOwner<D extends { store: Store }>(deps: D, owner: string): D & { owner: string } {
  // Looked up when first needed: a request that never touches the store never asks for a view.
  return Object.defineProperty({ ...deps, owner }, 'store', { get: () => deps.store.ownedBy(owner), enumerable: true });
}
