import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import tseslint from 'typescript-eslint';

const SRC = fileURLToPath(new URL('./src', import.meta.url));

/** A folder of src, or a file at its top: the units between which no import may go round in a circle. */
const unitOf = (file) => relative(SRC, file).split(sep)[0];

/** The file a relative import names (NodeNext imports say .js for the .ts source); undefined for a package. */
const importedFile = (file, specifier) => (specifier.startsWith('.') ? resolve(dirname(file), specifier.replace(/\.js$/, '.ts')) : undefined);

let unitImports;
/** Which units each unit imports, read once per lint run from every source file (static, type and dynamic imports). */
function unitGraph() {
  if (unitImports) return unitImports;
  unitImports = new Map();
  for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const target = importedFile(file, fileName);
      if (!target?.startsWith(SRC + sep) || unitOf(target) === unitOf(file)) continue;
      if (!unitImports.has(unitOf(file))) unitImports.set(unitOf(file), new Set());
      unitImports.get(unitOf(file)).add(unitOf(target));
    }
  }
  return unitImports;
}

/** The shortest chain of imports in `graph` (units or files) from `from` to `to`, or undefined when there is none. */
function chain(graph, from, to) {
  const previous = new Map([[from, undefined]]);
  for (const queue = [from]; queue.length; ) {
    const unit = queue.shift();
    if (unit === to) {
      const path = [];
      for (let u = to; u !== undefined; u = previous.get(u)) path.unshift(u);
      return path;
    }
    for (const next of graph.get(unit) ?? []) {
      if (previous.has(next)) continue;
      previous.set(next, unit);
      queue.push(next);
    }
  }
  return undefined;
}

/** No import circle between the folders of src (each file at its top counts as a folder of its own). */
const noFolderCycle = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { circle: 'This import closes an import circle between folders: {{circle}}. Move what it needs (a contract) below both, e.g. into src/contracts/.' },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!file.startsWith(SRC + sep)) return {};
    const check = (node) => {
      const target = typeof node.source?.value === 'string' ? importedFile(file, node.source.value) : undefined;
      if (!target?.startsWith(SRC + sep) || unitOf(target) === unitOf(file)) return;
      const back = chain(unitGraph(), unitOf(target), unitOf(file));
      if (back) context.report({ node, messageId: 'circle', data: { circle: [unitOf(file), ...back].join(' → ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

/** Folders of src inside which no import may go round in a circle between files either: the sandbox's many files per provider. */
const FILE_CYCLE_FOLDERS = ['sandbox'];

/** The folder of FILE_CYCLE_FOLDERS that holds `file`, or undefined. */
const fileCycleFolderOf = (file) => FILE_CYCLE_FOLDERS.find((folder) => file.startsWith(join(SRC, folder) + sep));

let fileImports;
/** Which files each file of FILE_CYCLE_FOLDERS imports within its own folder, read once per lint run (static, type and dynamic imports). */
function fileGraph() {
  if (fileImports) return fileImports;
  fileImports = new Map();
  for (const folder of FILE_CYCLE_FOLDERS) {
    for (const entry of readdirSync(join(SRC, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = join(entry.parentPath, entry.name);
      const targets = new Set();
      for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        const target = importedFile(file, fileName);
        if (target && fileCycleFolderOf(target) === folder) targets.add(target);
      }
      fileImports.set(file, targets);
    }
  }
  return fileImports;
}

/** No import circle between the files of a folder in FILE_CYCLE_FOLDERS. */
const noFileCycle = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      circle:
        'This import closes an import circle between files: {{circle}}. Move what the files share (state types, a helper) into a file below them that imports none of them, e.g. the provider\'s state.ts, and let the folder\'s index.ts assemble the routes.',
    },
  },
  create(context) {
    const file = context.physicalFilename;
    const folder = fileCycleFolderOf(file);
    if (!folder) return {};
    const check = (node) => {
      const target = typeof node.source?.value === 'string' ? importedFile(file, node.source.value) : undefined;
      if (!target || fileCycleFolderOf(target) !== folder) return;
      const back = chain(fileGraph(), target, file);
      if (back) context.report({ node, messageId: 'circle', data: { circle: [file, ...back].map((f) => relative(SRC, f)).join(' → ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

/** Which code may import what: each boundary names its folder, the doors into it, and why. */
const BOUNDARIES = [
  {
    owner: 'mcp',
    package: '@modelcontextprotocol',
    message: 'The MCP SDK (every @modelcontextprotocol package) is used in src/mcp only; give the rest of the code a type or function from there.',
  },
  {
    owner: 'sandbox',
    doors: ['load.ts'],
    message: 'The stand-in providers are reached only through loadSandbox() (src/sandbox/load.ts), which loads them when --sandbox asks.',
  },
  {
    owner: 'store',
    doors: ['types.ts', 'index.ts'],
    message: 'Outside src/store, use the Store contract (store/types.ts) and openStore (store/index.ts) only.',
  },
];

/** The boundaries above, for static, type and dynamic imports and re-exports. */
const boundaries = {
  meta: { type: 'problem', schema: [], messages: { crossed: '{{message}}' } },
  create(context) {
    const file = context.physicalFilename;
    if (!file.startsWith(SRC + sep)) return {};
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string') return;
      const target = importedFile(file, specifier);
      for (const b of BOUNDARIES) {
        if (unitOf(file) === b.owner) continue;
        const crosses = b.package
          ? specifier === b.package || specifier.startsWith(`${b.package}/`)
          : target?.startsWith(join(SRC, b.owner) + sep) && !b.doors.includes(relative(join(SRC, b.owner), target));
        if (crosses) context.report({ node, messageId: 'crossed', data: { message: b.message } });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

/** The provider ids, read from the provider record (src/providers.ts): its keys at the first level of PROVIDER_RECORDS. */
const PROVIDER_IDS = (() => {
  const source = readFileSync(join(SRC, 'providers.ts'), 'utf8');
  const records = source.slice(source.indexOf('export const PROVIDER_RECORDS = {'));
  return new Set([...records.matchAll(/^ {2}([a-z][a-z0-9_-]*): \{$/gm)].map((m) => m[1]));
})();

/** Where a provider may be named in a comparison: its connector and its sandbox. */
const PROVIDER_HOMES = ['connectors', 'sandbox'];

/** No `=== 'github'` (or !==, or `case 'github':`) outside connectors/ and sandbox/: what differs goes in the record or the connector. */
const noProviderComparison = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      compared:
        "Comparing with the provider id '{{id}}' outside src/connectors and src/sandbox: put what differs in the provider record (src/providers.ts) or a method of the connector.",
    },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!file.startsWith(SRC + sep) || PROVIDER_HOMES.includes(unitOf(file))) return {};
    const providerId = (node) => (node?.type === 'Literal' && PROVIDER_IDS.has(node.value) ? node.value : undefined);
    return {
      BinaryExpression(node) {
        if (!['===', '!==', '==', '!='].includes(node.operator)) return;
        const id = providerId(node.left) ?? providerId(node.right);
        if (id) context.report({ node, messageId: 'compared', data: { id } });
      },
      SwitchCase(node) {
        const id = providerId(node.test);
        if (id) context.report({ node, messageId: 'compared', data: { id } });
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'test-artifacts/', 'bench/'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'test/**/*.js'],
    extends: [tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-control-regex': 'error',
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { local: { rules: { 'no-folder-cycle': noFolderCycle, 'no-file-cycle': noFileCycle, boundaries, 'no-provider-comparison': noProviderComparison } } },
    rules: {
      'local/no-folder-cycle': 'error',
      'local/no-file-cycle': 'error',
      'local/boundaries': 'error',
      'local/no-provider-comparison': 'error',
    },
  },
  {
    // Tests of an adapter live in test/store/, with the helpers that set up states the contract does not make.
    files: ['test/**/*.ts'],
    ignores: ['test/store/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'better-sqlite3', message: 'Reach the store through openStore and the Store contract; for a state it cannot make, use test/store/states.ts.' }],
          patterns: [
            {
              group: ['**/src/store/**', '!**/src/store/index.js', '!**/src/store/types.js'],
              message: 'Outside test/store/, use the Store contract (src/store/types.ts) and openStore (src/store/index.ts) only.',
            },
          ],
        },
      ],
    },
  },
);
