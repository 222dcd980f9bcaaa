import { providerRecord } from '../providers.js';
import type { Account } from '../store/types.js';

/** "the GitHub account “work”": names one account unambiguously, for labels that would otherwise repeat. */
export function accountName(a: Account): string {
  return `the ${providerRecord(a.provider).title} account “${a.label}”`;
}
