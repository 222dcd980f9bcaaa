import { PROVIDER_RECORDS } from '../../providers.js';
import { defineConnector } from '../../tool.js';

export const sales = defineConnector({
  id: 'sales',
  title: PROVIDER_RECORDS.sales.toolTitle,
  baseUrl: PROVIDER_RECORDS.sales.baseUrl,
  auth: (secret) => ({ api_key: secret.apiKey ?? '' }),
  // What a lookup, an enrichment or a search page cost, as the tool reports it from the provider's answer.
  creditsOf: (result) => (typeof result.credits_used === 'number' ? result.credits_used : 0),
  // The account usage call costs no credits, so it is how a new key is checked.
  async identify(api) {
    await api.get('/account/usage');
    return { identity: null };
  },
});
