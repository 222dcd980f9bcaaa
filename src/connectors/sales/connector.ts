import { PROVIDER_RECORDS } from '../../providers.js';
import { defineConnector } from '../../tool.js';

export const sales = defineConnector({
  id: 'sales',
  title: PROVIDER_RECORDS.sales.toolTitle,
  baseUrl: PROVIDER_RECORDS.sales.baseUrl,
  auth: (secret) => ({ api_key: secret.apiKey ?? '' }),
  // The account usage call costs no credits, so it is how a new key is checked.
  async identify(api) {
    await api.get('/account/usage');
    return { identity: null };
  },
});
