import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { it } from 'vitest';
import { vercelTools } from '../../src/connectors/vercel/tools.js';
import { connectorTools } from '../../src/connectors/index.js';
import { toMcpTool } from '../../src/tool.js';
it('sizes', () => {
  for (const t of [...connectorTools({ readOnly: false }), ...vercelTools].map(toMcpTool)) { const j = JSON.stringify(t); const o = JSON.stringify(t.outputSchema); console.log('SIZE', t.name, j.length, countTokens(j), 'out', countTokens(o)); }
});
