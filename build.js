// After tsc: the tool manifest `serve` answers tools/list from, and the bundle the `switchboard` command runs.
import { chmodSync } from 'node:fs';
import { build } from 'rolldown';
import { writeToolManifest } from './dist/registry.js';

writeToolManifest();

/**
 * `switchboard` runs a bundle of the CLI and the packages it loads before serve answers tools/list: loading zod and the
 * MCP SDK file by file (some hundred modules) costs a desktop assistant more at every start than running them does.
 * These dependencies stay in node_modules: native ones, and those loaded only when a request needs them.
 */
const KEPT = ['better-sqlite3', 'jose', 'oauth4webapi', 'oidc-provider', 'postgres', 'undici'];
const packageOf = (id) => id.split('/').slice(0, id.startsWith('@') ? 2 : 1).join('/');

await build({
  input: { switchboard: 'dist/cli.js' },
  platform: 'node',
  external: (id) => id.startsWith('node:') || KEPT.includes(packageOf(id)),
  // The entry and its chunks share one folder, so a path relative to a module (../tools.json) holds wherever it lands.
  output: { dir: 'dist/bin', format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', cleanDir: true },
  logLevel: 'warn',
});
// dist/cli.js stays runnable too: npx keeps a clone's bin link from before the bundle (to dist/cli.js) in its cache.
for (const entry of ['dist/bin/switchboard.js', 'dist/cli.js']) chmodSync(entry, 0o755);
