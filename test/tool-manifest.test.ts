import { describe, expect, it } from 'vitest';
import { serverTools } from '../src/registry.js';
import { PROVIDERS, type Provider } from '../src/store/types.js';
import { toMcpTool } from '../src/mcp/tools.js';
import { manifestTools, readToolManifest } from '../src/mcp/tool-manifest.js';

// The manifest `serve` answers tools/list from is the build's (npm test builds first); it must say what the sources convert to.
const manifest = readToolManifest(new URL('../dist/tools.json', import.meta.url));

const TOOLSETS: Array<Provider[] | undefined> = [undefined, ...PROVIDERS.map((p) => [p]), ['github', 'vercel'], ['sales', 'outlook'], [...PROVIDERS]];
const cases = [false, true].flatMap((readOnly) =>
  (['all', 'discover'] as const).flatMap((toolMode) =>
    TOOLSETS.map((toolsets) => [`${toolMode}${readOnly ? ' --read-only' : ''} --toolsets ${toolsets?.join(',') ?? '(all)'}`, { readOnly, toolMode, toolsets }] as const),
  ),
);

const SELECTIONS = [
  { tools: ['github_*_issue*', 'accounts_list'] },
  { toolsets: ['vercel' as Provider], tools: ['outlook_find_email'], excludeTools: ['*_api_call'] },
  { excludeTools: ['triggers_*', 'sales_*'] },
];

describe('dist/tools.json', () => {
  it('exists after the build', () => {
    expect(manifest, 'run npm run build').toBeDefined();
  });

  it.each(cases)('answers tools/list for %s exactly as the live zod conversion does', (_name, options) => {
    const live = serverTools(options).map(toMcpTool);
    expect(JSON.stringify(manifestTools(manifest!, options))).toBe(JSON.stringify(live));
  });

  it.each(SELECTIONS)('answers tools/list for --tools and --exclude-tools %j as the live list does', (selection) => {
    for (const readOnly of [false, true]) {
      const options = { readOnly, toolMode: 'all' as const, ...selection };
      const live = serverTools(options).map(toMcpTool);
      expect(live.length).toBeGreaterThan(0);
      expect(JSON.stringify(manifestTools(manifest!, options))).toBe(JSON.stringify(live));
    }
  });

  it('leaves out the toolsets not chosen, and keeps the platform tools', () => {
    const names = manifestTools(manifest!, { readOnly: false, toolMode: 'all', toolsets: ['vercel'] }).map((t) => t.name);
    expect(names.filter((n) => !n.startsWith('vercel_'))).toEqual(['accounts_list', 'triggers_create', 'triggers_list', 'triggers_delete', 'events_next']);
    expect(names).toContain('vercel_api_call');
  });
});
