import { PROVIDER_RECORDS, type ProviderRecord } from '../providers.js';
import type { Account, Provider } from '../store/types.js';

export const PROVIDER_INFO: Record<Provider, ProviderRecord> = PROVIDER_RECORDS;

/** "the GitHub account “work”": names one account unambiguously, for labels that would otherwise repeat. */
export function accountName(a: Account): string {
  return `the ${PROVIDER_INFO[a.provider].title} account “${a.label}”`;
}
