import type { Account, Provider } from '../store/types.js';

export const PROVIDER_INFO: Record<Provider, { title: string; oauth: boolean; credential: 'token' | 'api_key'; tokenHelp: string }> = {
  outlook: { title: 'Microsoft Outlook', oauth: true, credential: 'token', tokenHelp: 'A Microsoft Graph access token (short-lived; sign-in is better).' },
  sales: { title: 'Sales intelligence', oauth: false, credential: 'api_key', tokenHelp: 'The API key from your sales-intelligence account settings.' },
  github: { title: 'GitHub', oauth: true, credential: 'token', tokenHelp: 'A personal access token (fine-grained or classic).' },
  vercel: { title: 'Vercel', oauth: true, credential: 'token', tokenHelp: 'An access token from Vercel account settings.' },
};

/** "the GitHub account “work”": names one account unambiguously, for labels that would otherwise repeat. */
export function accountName(a: Account): string {
  return `the ${PROVIDER_INFO[a.provider].title} account “${a.label}”`;
}
